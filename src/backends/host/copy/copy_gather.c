/*
 * parray — the general host copy: any mode on either side may be gathered (a table of offsets), e.g. func()
 * dimensions, modulo wraps that are not affine, or spans the planner expanded because the two sides' mode
 * sizes do not divide each other.  Always correct; the planner prefers the others when they apply.  The
 * innermost mode is a loop that reads its offsets from the table or steps by the stride, with the element
 * copy specialised by size; the odometer walks the outer modes.
 */
#include <string.h>

#include "copy_host.h"

/* One innermost loop moving elements of N bytes; dd/sd are byte strides, tables hold element offsets. */
#define PA__DEF_GATHER(N)                                                                                 \
    static void gather_##N(char *d, const char *s, int64_t n, const int64_t *dt, int64_t dd,             \
                           const int64_t *st, int64_t sd, int64_t elm)                                   \
    {                                                                                                    \
        for (int64_t j = 0; j < n; j++) {                                                                \
            int64_t dj = dt ? dt[j] * elm : j * dd, sj = st ? st[j] * elm : j * sd;                      \
            memcpy(d + dj, s + sj, (N) ? (size_t)(N) : (size_t)elm);                                     \
        }                                                                                                \
    }
PA__DEF_GATHER(1)
PA__DEF_GATHER(2)
PA__DEF_GATHER(4)
PA__DEF_GATHER(8)
PA__DEF_GATHER(16)
PA__DEF_GATHER(0)

int pa__kern_gather(const pa__copy_shape *s, char *dst, const char *src)
{
    int in = s->nmodes - 1;
    int outer[PA__MAX_MODES];
    for (int m = 0; m < in; m++)
        outer[m] = m;
    pa__odo o;
    pa__odo_init(&o, s, outer, in);
    int64_t e = (int64_t)s->elm, n = s->size[in];
    const int64_t *dt = s->dst_table[in], *st = s->src_table[in];
    int64_t dd = pa__bytes(s->dst_stride[in], s->elm), sd = pa__bytes(s->src_stride[in], s->elm);
    void (*fn)(char *, const char *, int64_t, const int64_t *, int64_t, const int64_t *, int64_t, int64_t);
    switch (s->elm) {
    case 1: fn = gather_1; break;
    case 2: fn = gather_2; break;
    case 4: fn = gather_4; break;
    case 8: fn = gather_8; break;
    case 16: fn = gather_16; break;
    default: fn = gather_0; break;
    }
    do {
        fn(dst + o.doff, src + o.soff, n, dt, dd, st, sd, e);
    } while (pa__odo_next(&o));
    return PA_OK;
}
