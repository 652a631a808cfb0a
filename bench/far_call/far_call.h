/* bench/far_call — what the probe's two halves share (far_call.c, far_call_lib.c). */
#ifndef FAR_CALL_H
#define FAR_CALL_H
#include <stdint.h>

typedef void (*far_elem_fn)(void *e, int64_t k, void *arg);
typedef struct far_triad {
    double *a, *b, *c, s;
} far_triad;

void far_lib_loop(far_elem_fn f, char *e, int64_t n, void *arg);
void far_lib_elem(void *e, int64_t k, void *arg);
#endif
