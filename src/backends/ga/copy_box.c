/*
 * parray — moving a copy between one Global Array and host memory in patches of the array's dimensions.
 *
 * A patch is what one NGA_Put64 / NGA_Get64 moves: a box of the array, lo..hi in every dimension, with a skip
 * per dimension in the strided forms (NGA_Strided_put64 / NGA_Strided_get64), and on the host side a buffer
 * whose dimensions are the box's, row-major, with leading dimensions ld.
 *
 * The copy's loop nest (its modes, from the planner) is first cut at the array's dimensions: a mode whose
 * gamem stride is k steps of one dimension runs along that dimension with skip k, and a mode longer than
 * that dimension that covers whole rows of it becomes two, the inner one along it and the outer one along
 * the next dimension out (so a contiguous run over a 3 x 4 x 2 array is the whole box).  The innermost modes
 * on distinct dimensions make the patch; the others (gathered or reversed on the gamem side, a stride that
 * is no whole step of a dimension, a second mode on a dimension already taken) loop outside it, one patch
 * per index.  A patch that does not fit in the array where a loop puts it (a window that crosses the end of
 * a row) is cut again: by its outermost mode first, and a single mode into the pieces of each row.
 *
 * The host side is passed in place when its strides are a row-major buffer of the patch (the innermost
 * dimension contiguous, each stride a whole multiple of the next, large enough for its count); otherwise the
 * patch goes through a buffer, packed before a put and unpacked after a get.  Patches that need a buffer are
 * kept under 16 MiB by moving modes out of them.  Puts are fenced: when the copy returns the data is on its
 * owners.  Each thread keeps what its last copy did (calls, strided calls, the largest patch), for tests.
 */
#include <ga.h>
#include <stdlib.h>
#include <string.h>

#include "ga_backend.h"

#define MAX_BMODES (PA__MAX_MODES * PA_GA__MAX_DIMS + 1)
#define PACK_LIMIT ((int64_t)16 << 20)

/* One mode after the cut: n indices; gamem side in units, host side in bytes. */
typedef struct bmode {
    int64_t n;
    int64_t gstep, hstep;           /* affine sides */
    const int64_t *gtab, *htab;     /* gathered sides: element offsets */
    int dim;                        /* the dimension it runs along, -1 when it cannot be part of a patch */
    int64_t skip;                   /* its step along dim */
} bmode;

typedef struct job {
    const pa_ga__array *a;
    int put, r;
    size_t elm, unit;
    int64_t c, D[PA_GA__MAX_DIMS], S[PA_GA__MAX_DIMS];
    int nm, nbox, nouter;
    bmode m[MAX_BMODES];
    int box[PA_GA__MAX_DIMS];       /* patch modes, outermost first */
    int outer[MAX_BMODES];
    char *buf;
    int64_t bufsize;
} job;

/* One patch: its modes (indices into m, outermost first), the index range of each. */
typedef struct call {
    int q;
    int ms[PA_GA__MAX_DIMS];
    int64_t from[PA_GA__MAX_DIMS], cnt[PA_GA__MAX_DIMS];
} call;

static _Thread_local pa_ga__stats stats;

void pa_ga__last_stats(pa_ga__stats *out)
{
    *out = stats;
}

void pa_ga__stats_reset(void)
{
    memset(&stats, 0, sizeof stats);
}

static int64_t gpart(const job *j, const bmode *b, int64_t i)
{
    return b->gtab ? b->gtab[i] * j->c : i * b->gstep;
}

static int64_t hpart(const job *j, const bmode *b, int64_t i)
{
    return b->htab ? pa__bytes(b->htab[i], j->elm) : i * b->hstep;
}

static void push(job *j, bmode b)
{
    j->m[j->nm++] = b;   /* room: each planner mode is cut into at most one piece per dimension */
}

/* Adds a mode, cut at the array's dimensions (see above). */
static void add_mode(job *j, int64_t n, int64_t gstep, const int64_t *gtab, int64_t hstep, const int64_t *htab)
{
    bmode b = {n, gstep, hstep, gtab, htab, -1, 1};
    if (gtab || gstep <= 0 || n < 2) {
        push(j, b);
        return;
    }
    int d = j->r - 1;
    while (d > 0 && j->S[d - 1] <= gstep)
        d--;
    if (gstep % j->S[d] != 0) {
        push(j, b);
        return;
    }
    int64_t k = gstep / j->S[d];
    b.dim = d;
    b.skip = k;
    if (d == 0 || (n - 1) * k < j->D[d] || htab || j->D[d] % k != 0 || n % (j->D[d] / k) != 0) {
        push(j, b);   /* within the dimension, or (when it wraps) cut later into the pieces of each row */
        return;
    }
    int64_t q = j->D[d] / k;
    add_mode(j, n / q, gstep * q, NULL, hstep * q, NULL);
    b.n = q;
    push(j, b);
}

/* The row-major subscript of unit offset o. */
static void subscript(const job *j, int64_t o, int64_t *sub)
{
    for (int d = j->r - 1; d >= 0; d--) {
        sub[d] = o % j->D[d];
        o /= j->D[d];
    }
}

/* Sorts a patch's modes by dimension: ord[] gets positions in c->ms, outermost dimension first. */
static void by_dim(const job *j, const call *c, int *ord)
{
    for (int i = 0; i < c->q; i++) {
        int t = i;
        while (t > 0 && j->m[c->ms[ord[t - 1]]].dim > j->m[c->ms[i]].dim) {
            ord[t] = ord[t - 1];
            t--;
        }
        ord[t] = i;
    }
}

/*
 * The leading dimensions of the host side as it is (ldp[d]: the extent of dimension d, whose product over the
 * inner dimensions is each stride).  \return 1 when the host strides are such a buffer.
 */
static int host_ld(const job *j, const call *c, const int *ord, int64_t *ldp)
{
    int64_t inner = 1, unit = (int64_t)j->unit;
    for (int d = 0; d < j->r; d++)
        ldp[d] = 1;
    for (int t = c->q - 1; t >= 0; t--) {
        const bmode *b = &j->m[c->ms[ord[t]]];
        if (b->htab || b->hstep <= 0 || b->hstep % unit != 0)
            return 0;
        int64_t h = b->hstep / unit;
        if (t == c->q - 1 && h != 1)
            return 0;
        if (t < c->q - 1) {
            int pos = ord[t + 1];
            if (h % inner != 0 || h / inner < c->cnt[pos])
                return 0;
            ldp[j->m[c->ms[pos]].dim] = h / inner;
        }
        inner = h;
    }
    if (c->q > 0)
        ldp[j->m[c->ms[ord[0]]].dim] = c->cnt[ord[0]];
    return 1;
}

/* Packs the host side of a patch into the buffer (to_buf) or unpacks it, in the buffer's dimension order. */
static void pack(job *j, const call *c, const int *ord, char *h, int to_buf)
{
    int64_t idx[PA_GA__MAX_DIMS] = {0}, unit = (int64_t)j->unit;
    char *b = j->buf;
    int q = c->q, in = ord[q - 1];
    const bmode *im = &j->m[c->ms[in]];
    int64_t n_in = c->cnt[in], f_in = c->from[in];
    for (;;) {
        char *hp = h;
        for (int t = 0; t < q - 1; t++)
            hp += hpart(j, &j->m[c->ms[ord[t]]], c->from[ord[t]] + idx[t]);
        if (!im->htab && im->hstep == unit) {
            char *run = hp + f_in * unit;
            memcpy(to_buf ? b : run, to_buf ? run : b, (size_t)(n_in * unit));
        } else {
            for (int64_t i = 0; i < n_in; i++) {
                char *e = hp + hpart(j, im, f_in + i);
                memcpy(to_buf ? b + i * unit : e, to_buf ? e : b + i * unit, (size_t)unit);
            }
        }
        b += n_in * unit;
        int t = q - 2;
        while (t >= 0 && ++idx[t] == c->cnt[ord[t]])
            idx[t--] = 0;
        if (t < 0)
            break;
    }
}

/* The Global Arrays call for one patch: lo..hi (skip), buffer p with leading dimensions ldp (ldp[d]: the
 * extent of dimension d; Global Arrays' ld[i] is that of dimension i + 1). */
static void ga_call(const job *j, int64_t *lo, int64_t *hi, int64_t *skip, int strided, void *p, int64_t *ldp)
{
    int g = j->a->handle;
    int64_t *ld = ldp + 1;
    if (j->put && strided) NGA_Strided_put64(g, lo, hi, skip, p, ld);
    else if (j->put) NGA_Put64(g, lo, hi, p, ld);
    else if (strided) NGA_Strided_get64(g, lo, hi, skip, p, ld);
    else NGA_Get64(g, lo, hi, p, ld);
    stats.calls++;
    stats.strided += strided;
}

/*
 * Moves one patch.  Global Arrays' strided calls misplace elements in the buffer when the patch spans
 * several owners' blocks (Global Arrays 5.8: the blocks after the first along a dimension get the buffer
 * offset of a wrong stride, even where the skip there is 1), so a strided patch goes one block at a time:
 * each piece starts at its first lattice point inside the block, with the buffer pointer moved to match and
 * the same leading dimensions; within one block the calls are right.  Plain calls span blocks correctly.
 */
static int transfer(job *j, int64_t *lo, int64_t *hi, int64_t *skip, int strided, char *p, int64_t *ldp)
{
    int r = j->r, nb = strided ? NGA_Locate_nnodes64(j->a->handle, lo, hi) : 1;
    if (nb <= 1) {
        ga_call(j, lo, hi, skip, strided, p, ldp);
        return PA_OK;
    }
    int64_t *map = malloc((size_t)nb * 2 * (size_t)r * sizeof *map), stride[PA_GA__MAX_DIMS];
    int *procs = malloc((size_t)nb * sizeof *procs);
    if (!map || !procs) {
        free(map);
        free(procs);
        return pa__err(PA_ERR_NOMEM, "gamem: the owners of a patch of %d blocks", nb);
    }
    nb = NGA_Locate_region64(j->a->handle, lo, hi, map, procs);
    for (int d = r - 1; d >= 0; d--)
        stride[d] = d == r - 1 ? 1 : stride[d + 1] * ldp[d + 1];
    for (int b = 0; b < nb; b++) {
        int64_t blo[PA_GA__MAX_DIMS], bhi[PA_GA__MAX_DIMS], at = 0;
        int empty = 0;
        for (int d = 0; d < r && !empty; d++) {
            int64_t from = map[b * 2 * r + d] > lo[d] ? map[b * 2 * r + d] : lo[d];
            int64_t to = map[b * 2 * r + r + d] < hi[d] ? map[b * 2 * r + r + d] : hi[d];
            int64_t first = (from - lo[d] + skip[d] - 1) / skip[d], last = (to - lo[d]) / skip[d];
            empty = first > last;
            blo[d] = lo[d] + first * skip[d];
            bhi[d] = lo[d] + last * skip[d];
            at += first * stride[d];
        }
        if (!empty)
            ga_call(j, blo, bhi, skip, 1, p + at * (int64_t)j->unit, ldp);
    }
    free(map);
    free(procs);
    return PA_OK;
}

/* One Global Arrays call for a patch whose modes start at unit offset o (host h), every mode at index 0. */
static int one_call(job *j, const call *c, int64_t o, char *h)
{
    int64_t sub[PA_GA__MAX_DIMS], lo[PA_GA__MAX_DIMS], hi[PA_GA__MAX_DIMS], skip[PA_GA__MAX_DIMS];
    int64_t ldp[PA_GA__MAX_DIMS], units = 1;
    int ord[PA_GA__MAX_DIMS] = {0}, strided = 0;
    for (int t = 0; t < c->q; t++)
        o += gpart(j, &j->m[c->ms[t]], c->from[t]);
    subscript(j, o, sub);
    for (int d = 0; d < j->r; d++) {
        lo[d] = hi[d] = sub[d];
        skip[d] = 1;
    }
    for (int t = 0; t < c->q; t++) {
        const bmode *b = &j->m[c->ms[t]];
        hi[b->dim] = sub[b->dim] + (c->cnt[t] - 1) * b->skip;
        skip[b->dim] = b->skip;
        strided |= b->skip > 1 && c->cnt[t] > 1;
        units *= c->cnt[t];
    }
    by_dim(j, c, ord);
    int inplace = host_ld(j, c, ord, ldp);
    char *p = h;
    if (inplace) {
        for (int t = 0; t < c->q; t++)
            p += hpart(j, &j->m[c->ms[t]], c->from[t]);
    } else {
        for (int d = 0; d < j->r; d++)
            ldp[d] = 1;
        for (int t = 0; t < c->q; t++)
            ldp[j->m[c->ms[t]].dim] = c->cnt[t];
        if (!j->buf && !(j->buf = malloc((size_t)(j->bufsize * (int64_t)j->unit))))
            return pa__err(PA_ERR_NOMEM, "gamem: a buffer of %lld bytes for a patch",
                           (long long)(j->bufsize * (int64_t)j->unit));
        p = j->buf;
        if (j->put)
            pack(j, c, ord, h, 1);
    }
    int st = transfer(j, lo, hi, skip, strided, p, ldp);
    if (st != PA_OK)
        return st;
    if (!inplace && !j->put)
        pack(j, c, ord, h, 0);
    stats.packed += !inplace;
    if (units / j->c > stats.largest)
        stats.largest = units / j->c;
    return PA_OK;
}

/* 1 when the patch of modes box[first..] fits in the array at unit offset o. */
static int fits(const job *j, int first, int64_t o)
{
    int64_t sub[PA_GA__MAX_DIMS];
    subscript(j, o, sub);
    for (int t = first; t < j->nbox; t++) {
        const bmode *b = &j->m[j->box[t]];
        if (sub[b->dim] + (b->n - 1) * b->skip >= j->D[b->dim])
            return 0;
    }
    return 1;
}

/* Moves the patch of modes box[first..] at unit offset o, host h: in one call, or cut (see above). */
static int patch(job *j, int first, int64_t o, char *h)
{
    call c = {.q = j->nbox - first};
    for (int t = 0; t < c.q; t++) {
        c.ms[t] = j->box[first + t];
        c.cnt[t] = j->m[c.ms[t]].n;
    }
    if (fits(j, first, o))
        return one_call(j, &c, o, h);
    const bmode *b = &j->m[j->box[first]];
    int st = PA_OK;
    if (c.q > 1) {
        for (int64_t i = 0; i < b->n && st == PA_OK; i++)
            st = patch(j, first + 1, o + gpart(j, b, i), h + hpart(j, b, i));
        return st;
    }
    for (int64_t i = 0; i < b->n && st == PA_OK;) {   /* one mode: the pieces within each row */
        int64_t sub[PA_GA__MAX_DIMS];
        subscript(j, o + gpart(j, b, i), sub);
        int64_t len = (j->D[b->dim] - 1 - sub[b->dim]) / b->skip + 1;
        c.from[0] = i;
        c.cnt[0] = len < b->n - i ? len : b->n - i;
        st = one_call(j, &c, o, h);
        i += c.cnt[0];
    }
    return st;
}

/* Chooses the patch modes: innermost first, one per dimension; the rest loop outside. */
static void choose(job *j)
{
    int used[PA_GA__MAX_DIMS] = {0}, inbox[MAX_BMODES] = {0}, tmp[PA_GA__MAX_DIMS], nb = 0;
    for (int i = j->nm - 1; i >= 0; i--) {
        const bmode *b = &j->m[i];
        if (b->dim >= 0 && !used[b->dim]) {
            used[b->dim] = 1;
            inbox[i] = 1;
            tmp[nb++] = i;
        }
    }
    j->nbox = nb;
    for (int t = 0; t < nb; t++)
        j->box[t] = tmp[nb - 1 - t];
    j->nouter = 0;
    for (int i = 0; i < j->nm; i++)
        if (!inbox[i])
            j->outer[j->nouter++] = i;
    /* Keep patches that go through a buffer under the limit: their outermost modes loop outside instead. */
    call c = {.q = nb};
    int ord[PA_GA__MAX_DIMS] = {0};
    int64_t ldp[PA_GA__MAX_DIMS];
    for (int t = 0; t < nb; t++) {
        c.ms[t] = j->box[t];
        c.cnt[t] = j->m[j->box[t]].n;
    }
    by_dim(j, &c, ord);
    int inplace = host_ld(j, &c, ord, ldp);
    j->bufsize = 1;
    for (int t = 0; t < j->nbox; t++)
        j->bufsize *= j->m[j->box[t]].n;
    while (!inplace && j->nbox > 1 && j->bufsize * (int64_t)j->unit > PACK_LIMIT) {
        j->bufsize /= j->m[j->box[0]].n;
        j->outer[j->nouter++] = j->box[0];
        memmove(j->box, j->box + 1, (size_t)(--j->nbox) * sizeof j->box[0]);
    }
}

/* Every index of the outer modes: one patch each. */
static int run(job *j, int64_t g0, char *h0)
{
    int64_t idx[MAX_BMODES] = {0};
    int st = PA_OK;
    for (;;) {
        int64_t o = g0;
        char *h = h0;
        for (int t = 0; t < j->nouter; t++) {
            const bmode *b = &j->m[j->outer[t]];
            o += gpart(j, b, idx[t]);
            h += hpart(j, b, idx[t]);
        }
        if ((st = patch(j, 0, o, h)) != PA_OK)
            return st;
        int t = j->nouter - 1;
        while (t >= 0 && ++idx[t] == j->m[j->outer[t]].n)
            idx[t--] = 0;
        if (t < 0)
            return PA_OK;
    }
}

int pa_ga__xfer_check(const pa_ga__array *a, const pa_ga__xfer *x)
{
    int64_t lo = x->gbase, hi = x->gbase;
    for (int m = 0; m < x->nmodes; m++) {
        int64_t mn = 0, mx = 0, n = x->size[m];
        if (x->gtab[m]) {
            mn = mx = x->gtab[m][0];
            for (int64_t i = 1; i < n; i++) {
                mn = x->gtab[m][i] < mn ? x->gtab[m][i] : mn;
                mx = x->gtab[m][i] > mx ? x->gtab[m][i] : mx;
            }
        } else if (x->gstride[m] > 0) {
            mx = (n - 1) * x->gstride[m];
        } else {
            mn = (n - 1) * x->gstride[m];
        }
        lo += mn;
        hi += mx;
    }
    if (lo < 0 || hi >= a->n)
        return pa__err(PA_ERR_RANGE, "gamem: a copy reaches elements %lld..%lld of an array of %lld",
                       (long long)lo, (long long)hi, (long long)a->n);
    return PA_OK;
}

int pa_ga__xfer_move(const pa_ga__array *a, const pa_ga__xfer *x, int put)
{
    job *j = calloc(1, sizeof *j);
    if (!j)
        return pa__err(PA_ERR_NOMEM, "gamem: no memory to plan a copy's patches");
    j->a = a;
    j->put = put;
    j->r = a->ndims;
    j->elm = x->elm;
    j->unit = a->et.unit;
    j->c = a->et.count;
    for (int d = j->r - 1; d >= 0; d--) {
        j->D[d] = a->dims[d];
        j->S[d] = d == j->r - 1 ? 1 : j->S[d + 1] * j->D[d + 1];
    }
    for (int m = 0; m < x->nmodes; m++)
        add_mode(j, x->size[m], x->gtab[m] ? 0 : x->gstride[m] * j->c, x->gtab[m],
                 x->htab[m] ? 0 : pa__bytes(x->hstride[m], x->elm), x->htab[m]);
    if (j->c > 1)   /* the units of one element: a whole last dimension, contiguous on the host */
        push(j, (bmode){j->c, 1, (int64_t)j->unit, NULL, NULL, j->r - 1, 1});
    choose(j);
    if (put)
        GA_Init_fence();
    int st = run(j, x->gbase * j->c, x->host);
    if (put)
        GA_Fence();
    free(j->buf);
    free(j);
    return st;
}
