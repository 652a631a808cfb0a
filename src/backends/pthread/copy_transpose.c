/*
 * parray — cache-blocked host transposes.
 *
 * Applies when one mode (a) is contiguous on the destination and another (b) on the source, as in a 2-D
 * transpose, possibly inside a higher-rank shape and possibly in units: when the innermost mode is contiguous
 * on both sides (the manual's [[n][n]][m] transposition moves units of m elements), a and b are contiguous
 * in units of that run.  The (a, b) panel is walked in square tiles small enough that the tile's source and
 * destination lines stay in L1 while it is moved, so every line fetched is used whole; the remaining modes
 * are walked by the odometer.
 */
#include "plan.h"

/*
 * Tile edge in units.  Measured with bench/copy_host on the development machine (AMD EPYC, 64 KiB L1d):
 * 4096x4096 floats: 16 -> 0.39, 32 -> 0.46, 64 -> 0.44 of memcpy on one thread; 32 kept.
 */
const int pa__transpose_tile = 32;

static int affine(const pa__copy_shape *s, int m)
{
    return !s->dst_table[m] && !s->src_table[m];
}

int pa__transpose_modes(const pa__copy_shape *s, int *a, int *b, int64_t *unit)
{
    int last = s->nmodes - 1;
    int64_t u = 1;
    if (s->nmodes >= 3 && affine(s, last) && s->dst_stride[last] == 1 && s->src_stride[last] == 1) {
        u = s->size[last];
        last--;
    }
    *a = *b = -1;
    for (int m = last; m >= 0; m--) {
        if (!affine(s, m))
            continue;
        if (*a < 0 && s->dst_stride[m] == u)
            *a = m;
        else if (*b < 0 && (s->src_stride[m] == u || s->src_stride[m] == -u))
            *b = m;
    }
    *unit = u;
    return *a >= 0 && *b >= 0;
}

int pa__kern_transpose(const pa__copy_shape *s, char *dst, const char *src)
{
    int a, b;
    int64_t u;
    if (!pa__transpose_modes(s, &a, &b, &u))   /* a slice too thin to keep its transpose: loop it */
        return pa__kern_gather(s, dst, src);
    int unit_mode = u > 1 ? s->nmodes - 1 : -1;
    int outer[PA__MAX_MODES], nouter = 0;
    for (int m = 0; m < s->nmodes; m++)
        if (m != a && m != b && m != unit_mode)
            outer[nouter++] = m;
    int64_t U = pa__bytes(u, s->elm);
    int64_t na = s->size[a], nb = s->size[b];
    int64_t ssa = pa__bytes(s->src_stride[a], s->elm);   /* a: contiguous on dst, strided on src */
    int64_t dsb = pa__bytes(s->dst_stride[b], s->elm);   /* b: contiguous on src, strided on dst */
    int64_t sdb = pa__bytes(s->src_stride[b], s->elm);
    int64_t T = pa__transpose_tile;
    pa__loop2_fn tile = pa__loop2_for((size_t)U);
    pa__odo o;
    pa__odo_init(&o, s, outer, nouter);
    do {
        char *d = dst + o.doff;
        const char *sp = src + o.soff;
        for (int64_t ib = 0; ib < nb; ib += T) {
            int64_t tb = nb - ib < T ? nb - ib : T;
            for (int64_t ia = 0; ia < na; ia += T) {
                int64_t ta = na - ia < T ? na - ia : T;
                tile(d + ia * U + ib * dsb, sp + ia * ssa + ib * sdb, tb, dsb, sdb, ta, U, ssa, (size_t)U);
            }
        }
    } while (pa__odo_next(&o));
    return PA_OK;
}
