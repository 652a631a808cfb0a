/*
 * bench/far_call — the shared-library half of the far-call probe (far_call.c): the same one-call-per-element
 * loop and the same triad element function as the executable's, compiled into a shared library so that calls
 * between the two halves cross more than 4 GiB of address space.
 */
#include "far_call.h"

void far_lib_loop(far_elem_fn f, char *e, int64_t n, void *arg)
{
    for (int64_t k = 0; k < n; k++, e += sizeof(double))
        f(e, k, arg);
}

void far_lib_elem(void *e, int64_t k, void *arg)
{
    const far_triad *t = arg;
    *(double *)e = t->b[k] + t->s * t->c[k];
}
