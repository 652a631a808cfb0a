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
 * Each patch is moved by copy_patch.c, the host side in place where it can be and through a buffer where it
 * cannot; patches that need a buffer are kept under 16 MiB by moving modes out of them.  Puts are fenced:
 * when the copy returns the data is on its owners.
 */
#include <ga.h>
#include <stdlib.h>
#include <string.h>

#include "ga_patch.h"

#define PACK_LIMIT ((int64_t)16 << 20)

static void push(pa_ga__job *j, pa_ga__mode b)
{
    j->m[j->nm++] = b;   /* room: each planner mode is cut into at most one piece per dimension */
}

/* Adds a mode, cut at the array's dimensions (see above). */
static void add_mode(pa_ga__job *j, int64_t n, int64_t gstep, const int64_t *gtab, int64_t hstep, const int64_t *htab)
{
    pa_ga__mode b = {n, gstep, hstep, gtab, htab, -1, 1};
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

/* 1 when the patch of modes box[first..] fits in the array at unit offset o. */
static int fits(const pa_ga__job *j, int first, int64_t o)
{
    int64_t sub[PA_GA__MAX_DIMS];
    subscript(j, o, sub);
    for (int t = first; t < j->nbox; t++) {
        const pa_ga__mode *b = &j->m[j->box[t]];
        if (sub[b->dim] + (b->n - 1) * b->skip >= j->D[b->dim])
            return 0;
    }
    return 1;
}

/* Moves the patch of modes box[first..] at unit offset o, host h: in one call, or cut (see above). */
static int patch(pa_ga__job *j, int first, int64_t o, char *h)
{
    pa_ga__patch c = {.q = j->nbox - first};
    for (int t = 0; t < c.q; t++) {
        c.ms[t] = j->box[first + t];
        c.cnt[t] = j->m[c.ms[t]].n;
    }
    if (fits(j, first, o))
        return pa_ga__one_call(j, &c, o, h);
    const pa_ga__mode *b = &j->m[j->box[first]];
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
        st = pa_ga__one_call(j, &c, o, h);
        i += c.cnt[0];
    }
    return st;
}

/* Chooses the patch modes: innermost first, one per dimension; the rest loop outside. */
static void choose(pa_ga__job *j)
{
    int used[PA_GA__MAX_DIMS] = {0}, inbox[PA_GA__MAX_BMODES] = {0}, tmp[PA_GA__MAX_DIMS], nb = 0;
    for (int i = j->nm - 1; i >= 0; i--) {
        const pa_ga__mode *b = &j->m[i];
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
    pa_ga__patch c = {.q = nb};
    int ord[PA_GA__MAX_DIMS] = {0};
    int64_t ldp[PA_GA__MAX_DIMS];
    for (int t = 0; t < nb; t++) {
        c.ms[t] = j->box[t];
        c.cnt[t] = j->m[j->box[t]].n;
    }
    pa_ga__by_dim(j, &c, ord);
    int inplace = pa_ga__host_ld(j, &c, ord, ldp);
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
static int run(pa_ga__job *j, int64_t g0, char *h0)
{
    int64_t idx[PA_GA__MAX_BMODES] = {0};
    int st = PA_OK;
    for (;;) {
        int64_t o = g0;
        char *h = h0;
        for (int t = 0; t < j->nouter; t++) {
            const pa_ga__mode *b = &j->m[j->outer[t]];
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
    pa_ga__job *j = calloc(1, sizeof *j);
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
        push(j, (pa_ga__mode){j->c, 1, (int64_t)j->unit, NULL, NULL, j->r - 1, 1});
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
