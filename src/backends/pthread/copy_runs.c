/*
 * parray — host copies made of memcpy calls: one call when both sides are a single contiguous run, one call
 * per run when the innermost mode is contiguous on both sides and long enough that the call's fixed cost is
 * small against the bytes it moves (the crossover against the element loops is in copy_strategies.c).
 */
#include <string.h>

#include "plan.h"

int pa__kern_memcpy(const pa__copy_shape *s, char *dst, const char *src)
{
    /* The planner merged everything into one mode with unit strides; a thread's slice keeps that form. */
    memcpy(dst + pa__bytes(s->dst_base, s->elm), src + pa__bytes(s->src_base, s->elm),
           (size_t)pa__bytes(s->size[0], s->elm));
    return PA_OK;
}

int pa__kern_memcpy_runs(const pa__copy_shape *s, char *dst, const char *src)
{
    int outer[PA__MAX_MODES];
    int n = s->nmodes - 1;
    for (int m = 0; m < n; m++)
        outer[m] = m;
    pa__odo o;
    pa__odo_init(&o, s, outer, n);
    size_t run = (size_t)pa__bytes(s->size[n], s->elm);
    do {
        memcpy(dst + o.doff, src + o.soff, run);
    } while (pa__odo_next(&o));
    return PA_OK;
}
