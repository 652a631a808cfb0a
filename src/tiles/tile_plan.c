/*
 * parray — the plan of a cooperative copy inside a kernel (tiles_internal.h says what a plan is).
 *
 * Joint split: both layouts enumerate the same flat index row-major over their modes, so walking both mode
 * lists from the innermost, each step takes the smaller of the two current remainders; it must divide the
 * larger (a mode of size a and stride d splits into (a/g):(d*g) outside (g):(d)), else the plan is generic.
 * Order: the modes are sorted by the primary side's |stride|, largest outermost, so that consecutive threads
 * walk the primary side's smallest stride: with stride 1 the dmem accesses of a warp are consecutive.
 * Vectors: along that innermost mode, v elements (v*elm of 16, 8 or 4 bytes, v dividing the mode) form a unit;
 * a side with stride 1 there and strides that are multiples of v elsewhere moves the unit as one vector (the
 * generated code checks the pointer's alignment at run time and falls back to elements).
 * Bank conflicts: the shared-memory side's accesses of warp 0 at step 0 are replayed through the hardware's
 * rule (a 4-, 8- or 16-byte request is served per 32, 16 or 8 threads; distinct 4-byte words in one of 32
 * banks cost one wavefront each), and the worst count is kept for the generated comment and the tests.
 */
#include <stdlib.h>
#include <string.h>

#include "tiles_internal.h"

static int64_t absl(int64_t x)
{
    return x < 0 ? -x : x;
}

/* The joint split of two affine layouts, innermost first into jm (reversed at the end). 0: not possible. */
static int joint_split(const pa__layout *d, const pa__layout *s, pa__tjmode *jm, int *nj)
{
    int i = d->nmodes - 1, j = s->nmodes - 1, n = 0;
    int64_t rd = i >= 0 ? d->modes[i].size : 1, rs = j >= 0 ? s->modes[j].size : 1;
    int64_t ds = i >= 0 ? d->modes[i].stride : 0, ss = j >= 0 ? s->modes[j].stride : 0, kw = 1;
    while (i >= 0 && j >= 0) {
        int64_t g = rd < rs ? rd : rs;
        if ((rd > rs ? rd % rs : rs % rd) != 0 || n == PA__TMAX_JOINT)
            return 0;
        jm[n++] = (pa__tjmode){g, ds, ss, kw};
        kw *= g;
        if (rd == g) {
            if (--i >= 0) {
                rd = d->modes[i].size;
                ds = d->modes[i].stride;
            }
        } else {
            rd /= g;
            ds *= g;
        }
        if (rs == g) {
            if (--j >= 0) {
                rs = s->modes[j].size;
                ss = s->modes[j].stride;
            }
        } else {
            rs /= g;
            ss *= g;
        }
    }
    for (int a = 0, b = n - 1; a < b; a++, b--) {
        pa__tjmode t = jm[a];
        jm[a] = jm[b];
        jm[b] = t;
    }
    *nj = n;
    return 1;
}

/* Stable insertion sort: the primary side's |stride| descending (outermost first). */
static void order_modes(pa__tjmode *jm, int n, int primary)
{
    for (int a = 1; a < n; a++) {
        pa__tjmode t = jm[a];
        int64_t key = absl(primary ? t.sstride : t.dstride);
        int b = a - 1;
        while (b >= 0 && absl(primary ? jm[b].sstride : jm[b].dstride) < key) {
            jm[b + 1] = jm[b];
            b--;
        }
        jm[b + 1] = t;
    }
}

/* 1 when a side with these strides can move a unit of v elements as one vector. */
static int side_vectors(const pa__tjmode *jm, int n, int v, int src)
{
    if (v < 1 || (src ? jm[n - 1].sstride : jm[n - 1].dstride) != 1)
        return 0;
    for (int m = 0; m < n - 1; m++)
        if ((src ? jm[m].sstride : jm[m].dstride) % v != 0)
            return 0;
    return 1;
}

static void choose_vector(pa__tcopy *c, int max_bytes)
{
    c->v = 1;
    c->dvec = c->svec = 0;
    if (c->generic || c->nj == 0)
        return;
    pa__tjmode *in = &c->j[c->nj - 1];
    if ((c->primary ? in->sstride : in->dstride) != 1)
        return;
    for (int bytes = 16; bytes >= 4; bytes /= 2) {
        if (bytes > max_bytes && bytes > (int)c->elm)
            continue;
        if (bytes % (int)c->elm != 0 || (int)c->elm > bytes)
            continue;
        int v = bytes / (int)c->elm;
        if (in->size % v != 0)
            continue;
        int dv = c->dmem != PA__TMEM_RMEM && side_vectors(c->j, c->nj, v, 0);
        int sv = c->smem != PA__TMEM_RMEM && side_vectors(c->j, c->nj, v, 1);
        if (dv || sv || v == 1) {
            c->v = v;
            c->dvec = dv;
            c->svec = sv;
            return;
        }
    }
}

int pa__tcopy_unit(const pa__tcopy *c, int tid, int64_t j, int64_t *k, int64_t *doff, int64_t *soff)
{
    int64_t u = tid + j * c->nt;
    if (u >= c->units || tid < 0 || tid >= c->nt)
        return 0;
    if (c->generic) {
        k[0] = u;
        doff[0] = pa__layout_offset(c->dl, u);
        soff[0] = pa__layout_offset(c->sl, u);
        return 1;
    }
    int64_t kk = 0, dd = c->dl->base, ss = c->sl->base, q = u;
    for (int m = c->nj - 1; m >= 0; m--) {
        int64_t n = m == c->nj - 1 ? c->j[m].size / c->v : c->j[m].size;
        int64_t step = m == c->nj - 1 ? c->v : 1;
        int64_t digit = m == 0 ? q : q % n;
        q = m == 0 ? 0 : q / n;
        kk += digit * step * c->j[m].kweight;
        dd += digit * step * c->j[m].dstride;
        ss += digit * step * c->j[m].sstride;
    }
    const pa__tjmode *in = &c->j[c->nj - 1];
    for (int e = 0; e < c->v; e++) {
        k[e] = kk + e * in->kweight;
        doff[e] = dd + e * in->dstride;
        soff[e] = ss + e * in->sstride;
    }
    return c->v;
}

/* Wavefronts of warp 0's step-0 request on the shared-memory side (0 when neither side is smem). */
static int bank_ways(const pa__tcopy *c)
{
    int side = c->dmem == PA__TMEM_SMEM ? 0 : c->smem == PA__TMEM_SMEM ? 1 : -1;
    if (side < 0 || c->nt < 2)
        return 0;
    int vec = side ? c->svec : c->dvec;
    int ebytes = vec ? c->v * (int)c->elm : (int)c->elm;
    int per = ebytes >= 16 ? 8 : ebytes >= 8 ? 16 : 32, worst = 1;
    int warp = c->nt < 32 ? c->nt : 32;
    int64_t k[16], d[16], s[16];
    for (int e = 0; e < (vec ? 1 : c->v); e++) {
        for (int p0 = 0; p0 < warp; p0 += per) {
            int64_t words[32 * 4];
            int nw = 0;
            for (int t = p0; t < p0 + per && t < warp; t++) {
                if (pa__tcopy_unit(c, t, 0, k, d, s) == 0)
                    continue;
                int64_t byte = (side ? s[e] : d[e]) * (int64_t)c->elm;
                for (int w = 0; w < (ebytes + 3) / 4 && nw < 32 * 4; w++)
                    words[nw++] = byte / 4 + w;
            }
            for (int b = 0; b < 32; b++) {
                int ways = 0;
                for (int a = 0; a < nw; a++) {
                    if (((words[a] % 32) + 32) % 32 != b)
                        continue;
                    int seen = 0;
                    for (int x = 0; x < a && !seen; x++)
                        seen = words[x] == words[a];
                    ways += !seen;
                }
                worst = ways > worst ? ways : worst;
            }
        }
    }
    return worst;
}

int pa__tpred_dims(const pa_type *t, int64_t *size, const char *what)
{
    int n = pa_ndim(t) > 0 ? pa_ndim(t) : 1;
    if (n > PA__TMAX_PRED)
        return pa__err(PA_ERR_UNSUPPORTED, "%s: %s has %d top-level dimensions; edge checks take at most %d", what,
                       pa_type_name(t), n, PA__TMAX_PRED);
    for (int i = 0; i < n; i++)
        size[i] = pa_size(pa_ndim(t) > 0 ? pa_type_child(t, i) : t);
    return n;
}

int pa__tcopy_plan(const pa__layout *dl, pa__tmem dm, const pa__layout *sl, pa__tmem sm, size_t elm, int nt,
                   int npred, const int64_t *pred_size, const char *what, pa__tcopy *out)
{
    return pa__tcopy_plan_v(dl, dm, sl, sm, elm, nt, npred, pred_size, 16, what, out);
}

int pa__tcopy_plan_v(const pa__layout *dl, pa__tmem dm, const pa__layout *sl, pa__tmem sm, size_t elm, int nt,
                     int npred, const int64_t *pred_size, int max_vec_bytes, const char *what, pa__tcopy *out)
{
    if (dl->size != sl->size)
        return pa__err(PA_ERR_SIZE, "%s: the destination has %lld elements, the source %lld", what,
                       (long long)dl->size, (long long)sl->size);
    if (!dl->affine || !sl->affine)
        return pa__err(PA_ERR_UNSUPPORTED, "%s: a layout needs offset tables (func or a wrap); copies inside "
                       "kernels take affine layouts", what);
    if (nt < 1 || nt > 1024)
        return pa__err(PA_ERR_RANGE, "%s: %d threads; a copy inside a kernel runs on 1 to 1024", what, nt);
    if (nt > 1 && (dm == PA__TMEM_RMEM || sm == PA__TMEM_RMEM))
        return pa__err(PA_ERR_PARAM, "%s: an rmem type is one thread's registers; copy it with one thread, not "
                       "%d (a block's tile goes through smem)", what, nt);
    if (elm == 0)
        return pa__err(PA_ERR_ELM, "%s: the types have no element type", what);
    if (dl->size == 0)
        return pa__err(PA_ERR_SIZE, "%s: a copy of no elements", what);
    pa__tcopy c;
    memset(&c, 0, sizeof c);
    c.dl = dl;
    c.sl = sl;
    c.dmem = dm;
    c.smem = sm;
    c.elm = elm;
    c.nt = nt;
    c.primary = dm == PA__TMEM_DMEM && sm != PA__TMEM_DMEM ? 0 : sm == PA__TMEM_DMEM ? 1
              : dm == PA__TMEM_SMEM && sm == PA__TMEM_RMEM ? 0 : 1;
    c.generic = !joint_split(dl, sl, c.j, &c.nj);
    if (!c.generic)
        order_modes(c.j, c.nj, c.primary);
    choose_vector(&c, max_vec_bytes);
    c.units = dl->size / c.v;
    c.per_thread = (c.units + nt - 1) / nt;
    c.bank_ways = bank_ways(&c);
    if (npred < 0 || npred > PA__TMAX_PRED)
        return pa__err(PA_ERR_UNSUPPORTED, "%s: %d edge dimensions, at most %d", what, npred, PA__TMAX_PRED);
    int64_t w = 1;
    for (int i = npred - 1; i >= 0; i--) {
        c.pred_size[i] = pred_size[i];
        c.pred_weight[i] = w;
        w *= pred_size[i];
    }
    c.npred = npred;
    if (npred > 0 && w != dl->size)
        return pa__err(PA_ERR_SIZE, "%s: edge dimensions of %lld elements for a copy of %lld", what, (long long)w,
                       (long long)dl->size);
    *out = c;
    return PA_OK;
}

int pa__tile_divide(const pa__layout *l, int64_t t, pa__layout *tile)
{
    if (!l->affine || t < 1)
        return 0;
    pa__layout r;
    memset(&r, 0, sizeof r);
    r.affine = 1;
    int64_t need = t < l->size ? t : l->size, have = 1;
    int m = l->nmodes - 1;
    pa__mode tmp[PA__MAX_MODES];
    int n = 0;
    while (have < need && m >= 0) {
        int64_t s = l->modes[m].size;
        if (have * s <= need) {
            if (need % (have * s) != 0 && m != 0)
                return 0;
            tmp[n++] = l->modes[m];
            have *= s;
            m--;
            continue;
        }
        /* a part of mode m: the tile must take a whole divisor of it, unless m is outermost (the last, partial
         * tile of the outermost mode is still a shifted first tile) */
        int64_t part = need / have;
        if (need % have != 0 || (s % part != 0 && m != 0))
            return 0;
        tmp[n++] = (pa__mode){part, l->modes[m].stride, NULL};
        have *= part;
        break;
    }
    if (have != need)
        return 0;
    for (int a = 0; a < n; a++)
        r.modes[a] = tmp[n - 1 - a];
    r.nmodes = n;
    r.size = need;
    r.base = l->base;
    r.min_off = r.max_off = r.base;
    for (int a = 0; a < n; a++) {
        int64_t span = (r.modes[a].size - 1) * r.modes[a].stride;
        if (span > 0)
            r.max_off += span;
        else
            r.min_off += span;
    }
    *tile = r;
    return 1;
}
