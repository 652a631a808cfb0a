/*
 * parray — slices of a layout (layout_slice.h): the elements [start, start + n) of a layout as one layout, and
 * the pack or unpack plans of such slices for the routes that move distributed copies in chunks.
 */
#include <string.h>

#include "layout_slice.h"

int pa__layout_slice(const pa__layout *l, int64_t start, int64_t n, pa__layout *out)
{
    memset(out, 0, sizeof *out);
    if (n <= 0 || start < 0 || start + n > l->size)
        return 0;
    if (l->nmodes == 0) {
        *out = *l;
        return n == 1;
    }
    int64_t inner[PA__MAX_MODES];
    int64_t r = 1;
    for (int m = l->nmodes - 1; m >= 0; m--) {
        inner[m] = r;
        r *= l->modes[m].size;
    }
    for (int i = 0; i < l->nmodes; i++) {
        const pa__mode *md = &l->modes[i];
        if (start % inner[i] || n % inner[i])
            continue;
        int64_t idx = start / inner[i] % md->size, cnt = n / inner[i];
        if (idx + cnt > md->size)
            continue;
        /* the outer modes' fixed indices and mode i's start go into the base */
        int64_t base = l->base, k = start / inner[i] / md->size;
        for (int j = i - 1; j >= 0; j--) {
            int64_t d = k % l->modes[j].size;
            k /= l->modes[j].size;
            base += l->modes[j].table ? l->modes[j].table[d] : d * l->modes[j].stride;
        }
        out->nmodes = 0;
        out->affine = 1;
        if (md->table)
            out->modes[out->nmodes++] = (pa__mode){.size = cnt, .table = md->table + idx};
        else {
            base += idx * md->stride;
            out->modes[out->nmodes++] = (pa__mode){.size = cnt, .stride = md->stride};
        }
        for (int j = i + 1; j < l->nmodes; j++)
            out->modes[out->nmodes++] = l->modes[j];
        for (int j = 0; j < out->nmodes; j++)
            out->affine &= out->modes[j].table == NULL;
        out->size = n;
        out->base = base;
        /* extents */
        out->min_off = out->max_off = base;
        for (int j = 0; j < out->nmodes; j++) {
            const pa__mode *o = &out->modes[j];
            int64_t lo = 0, hi = 0;
            if (o->table)
                for (int64_t t = 0; t < o->size; t++) {
                    lo = t == 0 || o->table[t] < lo ? o->table[t] : lo;
                    hi = t == 0 || o->table[t] > hi ? o->table[t] : hi;
                }
            else if (o->stride >= 0)
                hi = (o->size - 1) * o->stride;
            else
                lo = (o->size - 1) * o->stride;
            out->min_off += lo;
            out->max_off += hi;
        }
        if (out->affine)
            pa__layout_coalesce(out);
        return 1;
    }
    return 0;
}

void pa__layout_extent(const pa__layout *l, int64_t *lo, int64_t *hi)
{
    pa__layout s;
    if (l->size > 0 && pa__layout_slice(l, 0, l->size, &s)) {
        *lo = s.min_off;
        *hi = s.max_off;
    } else {
        *lo = 0;
        *hi = l->size > 0 ? INT64_MAX / 2 : -1;   /* unknown: treated as overlapping everything */
    }
}

int pa__layout_contiguous(const pa__layout *l)
{
    return l->affine && (l->nmodes == 0 || (l->nmodes == 1 && l->modes[0].stride == 1));
}

pa__layout pa__layout_dense(int64_t n)
{
    pa__layout d;
    memset(&d, 0, sizeof d);
    d.size = n;
    d.nmodes = 1;
    d.affine = 1;
    d.max_off = n - 1;
    d.modes[0] = (pa__mode){.size = n, .stride = 1};
    return d;
}

int pa__slice_make(const pa__layout *l, int64_t start, int64_t n, int64_t pos, size_t elm,
                   const pa__mem_ops *mem, int unpack, pa__slice *out, int *ok)
{
    pa__layout piece, d = pa__layout_dense(n);
    memset(out, 0, sizeof *out);
    *ok = 0;
    if (!pa__layout_slice(l, start, n, &piece))
        return PA_OK;
    *ok = 1;
    out->n = n;
    out->pos = pos;
    out->base = piece.base;
    out->direct = pa__layout_contiguous(&piece);
    if (out->direct)
        return PA_OK;
    piece.base = 0;
    return unpack ? pa__plan_get(&piece, &d, elm, mem, mem, &out->plan)
                  : pa__plan_get(&d, &piece, elm, mem, mem, &out->plan);
}

int pa__layout_sliceable(const pa__layout *l, int64_t start, int64_t cnt, int chunks)
{
    pa__layout piece;
    if (chunks < 1 || cnt % chunks)
        return 0;
    for (int c = 0; c < chunks; c++)
        if (!pa__layout_slice(l, start + c * (cnt / chunks), cnt / chunks, &piece))
            return 0;
    return 1;
}
