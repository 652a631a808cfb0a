/*
 * parray — host copies as strided element loops, and the odometer every host kernel uses for its outer modes.
 *
 * The two innermost loops are written out as a nest whose element copy has a size fixed at compile time, so
 * that each element is one load and one store (or a few for odd sizes such as 3 or 12 bytes) instead of a
 * call.  When the innermost mode is contiguous on both sides but short, it is folded into the element: a run
 * of two 4-byte floats is moved as one 8-byte unit.  The odometer walks the remaining outer modes.
 */
#include <string.h>

#include "copy_host.h"

void pa__odo_init(pa__odo *o, const pa__copy_shape *s, const int *which, int n)
{
    o->n = n;
    o->elm = (int64_t)s->elm;
    o->doff = pa__bytes(s->dst_base, s->elm);
    o->soff = pa__bytes(s->src_base, s->elm);
    for (int i = 0; i < n; i++) {
        int m = which[i];
        o->idx[i] = 0;
        o->size[i] = s->size[m];
        o->dtab[i] = s->dst_table[m];
        o->stab[i] = s->src_table[m];
        o->dstep[i] = pa__bytes(s->dst_stride[m], s->elm);
        o->sstep[i] = pa__bytes(s->src_stride[m], s->elm);
        if (o->dtab[i]) o->doff += pa__bytes(o->dtab[i][0], s->elm);
        if (o->stab[i]) o->soff += pa__bytes(o->stab[i][0], s->elm);
    }
}

/* A two-level nest moving units of N bytes; strides in bytes.  memcpy with a constant N compiles to moves. */
#define PA__DEF_LOOP2(N)                                                                                  \
    static void loop2_##N(char *d, const char *s, int64_t n1, int64_t dd1, int64_t sd1, int64_t n0,      \
                          int64_t dd0, int64_t sd0, size_t unit)                                          \
    {                                                                                                    \
        (void)unit;                                                                                      \
        for (int64_t i = 0; i < n1; i++)                                                                 \
            for (int64_t j = 0; j < n0; j++)                                                             \
                memcpy(d + i * dd1 + j * dd0, s + i * sd1 + j * sd0, N);                                 \
    }
PA__DEF_LOOP2(1)
PA__DEF_LOOP2(2)
PA__DEF_LOOP2(3)
PA__DEF_LOOP2(4)
PA__DEF_LOOP2(6)
PA__DEF_LOOP2(8)
PA__DEF_LOOP2(12)
PA__DEF_LOOP2(16)
PA__DEF_LOOP2(24)
PA__DEF_LOOP2(32)
PA__DEF_LOOP2(48)
PA__DEF_LOOP2(64)

static void loop2_any(char *d, const char *s, int64_t n1, int64_t dd1, int64_t sd1, int64_t n0, int64_t dd0,
                      int64_t sd0, size_t unit)
{
    for (int64_t i = 0; i < n1; i++)
        for (int64_t j = 0; j < n0; j++)
            memcpy(d + i * dd1 + j * dd0, s + i * sd1 + j * sd0, unit);
}

pa__loop2_fn pa__loop2_for(size_t unit)
{
    switch (unit) {
    case 1: return loop2_1;
    case 2: return loop2_2;
    case 3: return loop2_3;
    case 4: return loop2_4;
    case 6: return loop2_6;
    case 8: return loop2_8;
    case 12: return loop2_12;
    case 16: return loop2_16;
    case 24: return loop2_24;
    case 32: return loop2_32;
    case 48: return loop2_48;
    case 64: return loop2_64;
    default: return loop2_any;
    }
}

/* Longest contiguous-on-both-sides innermost run folded into one unit (bytes), as the loops move it. */
#define PA__LOOP_FOLD_MAX 64

int pa__kern_loops(const pa__copy_shape *s, char *dst, const char *src)
{
    int n = s->nmodes, in = n - 1;
    size_t unit = s->elm;
    if (n > 1 && s->dst_stride[in] == 1 && s->src_stride[in] == 1 &&
        (size_t)pa__bytes(s->size[in], s->elm) <= PA__LOOP_FOLD_MAX) {
        unit = (size_t)pa__bytes(s->size[in], s->elm);
        in--;
    }
    /* The inner nest is modes in (n0) and in-1 (n1, or a single pass when there is none). */
    int64_t n0 = s->size[in], dd0 = pa__bytes(s->dst_stride[in], s->elm), sd0 = pa__bytes(s->src_stride[in], s->elm);
    int64_t n1 = 1, dd1 = 0, sd1 = 0;
    int nouter = in;
    if (in > 0) {
        nouter = in - 1;
        n1 = s->size[in - 1];
        dd1 = pa__bytes(s->dst_stride[in - 1], s->elm);
        sd1 = pa__bytes(s->src_stride[in - 1], s->elm);
    }
    int outer[PA__MAX_MODES];
    for (int m = 0; m < nouter; m++)
        outer[m] = m;
    pa__odo o;
    pa__odo_init(&o, s, outer, nouter);
    pa__loop2_fn fn = pa__loop2_for(unit);
    do {
        fn(dst + o.doff, src + o.soff, n1, dd1, sd1, n0, dd0, sd0, unit);
    } while (pa__odo_next(&o));
    return PA_OK;
}
