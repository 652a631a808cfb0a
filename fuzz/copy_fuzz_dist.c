/*
 * copy_fuzz's distributed part: copies between two types distributed over pthd threads, even or uneven.
 *
 * From the input's remaining choices: p threads (1 to 6), n elements (1 to 64), an element size, and for each
 * side one of: a shared array [n]; darray's block (the default block or a larger one) or cyclic(k) as a window
 * [n # ...] of a distributed type (docs/types.md); a block window at a displacement; the block distribution read
 * backwards ([n # step(-1) # disp(n - 1) # B]); two axes, r whole rows and c = n / r columns in blocks (an
 * uneven inner axis: each thread's array packed to its own extents, as darray's).  Every thread calls pa_copy inside pa_for over pthd [p] with its
 * own local arrays (exact buffers of the largest local extent, guarded in builds without ASan); then every byte
 * of every destination array is compared with what the tree walk's offsets on each side (pa_offset_on) say,
 * the bytes no element reaches included.  A copy between two distributed sides is the all-to-all between
 * threads.  Any failure aborts.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <parray/parray.h>

#include "copy_fuzz.h"

#define MAXP 6

typedef struct side {
    const pa_type *t;
    int shared;
    int64_t len;                    /* elements of each local array (or of the shared one) */
    unsigned char *buf[MAXP];       /* per thread, or buf[0] when shared */
} side;

/* Declares one side named name over P (pthd [p]); distributed when dist.  \return 1 when shared. */
static int gen_side(fz_input *in, pa_scope *s, const char *name, int64_t n, int64_t p, int e, int dist)
{
    char text[512], l[16];
    int64_t b = (n + p - 1) / p, k, d;
    snprintf(l, sizeof l, "L%s", name);
    switch (fz_pick(in, dist, 6)) {
    case 0:
        snprintf(text, sizeof text, "%s = paged bytes%d [%lld]", name, e, (long long)n);
        break;
    case 1:   /* block, the default or a larger block */
        b += fz_pick(in, 0, 2);
        snprintf(text, sizeof text, "%s = paged bytes%d [%lld]\n%s = [%lld # [#P][#%s]]", l, e, (long long)b, name,
                 (long long)n, l);
        break;
    case 2:   /* cyclic(k) */
        k = fz_pick(in, 1, 4);
        snprintf(text, sizeof text, "%s = paged bytes%d [%lld][%lld]\n%s = [%lld # [#%s_0][#P][#%s_1]]", l, e,
                 (long long)((n + p * k - 1) / (p * k)), (long long)k, name, (long long)n, l, l);
        break;
    case 3:   /* a block window at a displacement */
        d = fz_pick(in, 0, 5);
        b = (n + d + p - 1) / p;
        snprintf(text, sizeof text, "%s = paged bytes%d [%lld]\n%s = [%lld # disp(%lld) # [#P][#%s]]", l, e,
                 (long long)b, name, (long long)n, (long long)d, l);
        break;
    case 5:   /* two axes: rows kept whole, columns in blocks (the default or a larger one) */
        for (k = fz_pick(in, 1, 8); n % k; k--)
            ;
        b = (n / k + p - 1) / p + fz_pick(in, 0, 1);
        snprintf(text, sizeof text, "%s = paged bytes%d [%lld][%lld]\n%s = [[#%s_0][%lld # [#P][#%s_1]]]", l, e,
                 (long long)k, (long long)b, name, l, (long long)(n / k), l);
        break;
    default:  /* the block distribution read backwards */
        snprintf(text, sizeof text, "%s = paged bytes%d [%lld]\n%s = [%lld # step(-1) # disp(%lld) # [#P][#%s]]", l,
                 e, (long long)b, name, (long long)n, (long long)(n - 1), l);
        break;
    }
    if (pa_declare_text(s, text) != PA_OK) {
        fprintf(stderr, "copy_fuzz (distributed): %s: %s\n", text, pa_last_error());
        abort();
    }
    return strcmp(pa_mtt(pa_type_get(s, name)), "distributed") != 0;
}

static side sides[2];   /* destination, source: read by the threads */

static int copy_part(pa_ctx *ctx, void *arg)
{
    int t = (int)pa_tid(ctx);
    (void)arg;
    void *dst = sides[0].shared ? sides[0].buf[0] : sides[0].buf[t];
    const void *src = sides[1].shared ? sides[1].buf[0] : sides[1].buf[t];
    return pa_copy(sides[0].t, dst, sides[1].t, src);
}

static int64_t where(const side *x, int64_t k, int on)
{
    return x->shared ? (on == PA_ON_THREAD ? 0 : pa_offset(x->t, k)) : pa_offset_on(x->t, (pa_on)on, k);
}

void fz_dist(fz_input *in)
{
    pa_scope *s = NULL;
    int64_t p = fz_pick(in, 1, MAXP), n = fz_pick(in, 1, 64);
    int e = (int)fz_pick(in, 1, 16);
    char pt[32];
    if (pa_scope_create(NULL, &s) != PA_OK)
        abort();
    snprintf(pt, sizeof pt, "P = pthd [%lld]", (long long)p);
    if (pa_declare_text(s, pt) != PA_OK)
        abort();
    int sh[2];
    sh[0] = gen_side(in, s, "D", n, p, e, 0);
    sh[1] = gen_side(in, s, "S", n, p, e, sh[0]);   /* two shared arrays would not be a distributed copy */
    sides[0].t = pa_type_get(s, "D");
    sides[1].t = pa_type_get(s, "S");
    /* Each element's thread and place on both sides, asked once (the check below reads them p times). */
    int64_t thr[2][64], loc[2][64];
    for (int w = 0; w < 2; w++) {
        side *x = &sides[w];
        x->shared = sh[w];
        x->len = 1;
        for (int64_t k = 0; k < n; k++) {
            thr[w][k] = where(x, k, PA_ON_THREAD);
            loc[w][k] = where(x, k, PA_ON_LOCAL);
            x->len = loc[w][k] + 1 > x->len ? loc[w][k] + 1 : x->len;
        }
        for (int t = 0; t < (x->shared ? 1 : p); t++) {
            x->buf[t] = fz_alloc((size_t)x->len * (size_t)e);
            for (int64_t i = 0; i < x->len * e; i++)
                x->buf[t][i] = w ? (unsigned char)(i * 131 + t * 17 + 1) : 0xA5;
        }
    }
    if (pa_for(pa_type_get(s, "P"), copy_part, NULL, 0) != PA_OK)
        fz_fail("distributed pa_copy failed", sides[0].t, sides[1].t, -1);
    /* the expected destinations: poison, then every element from its source place */
    for (int t = 0; t < (sides[0].shared ? 1 : p); t++) {
        unsigned char *want = malloc((size_t)(sides[0].len * e));
        if (!want)
            abort();
        memset(want, 0xA5, (size_t)(sides[0].len * e));
        for (int64_t k = 0; k < n; k++)
            if (thr[0][k] == t)
                memcpy(want + loc[0][k] * e, sides[1].buf[thr[1][k]] + loc[1][k] * e, (size_t)e);
        for (int64_t i = 0; i < sides[0].len * e; i++)
            if (want[i] != sides[0].buf[t][i])
                fz_fail("a byte differs (distributed)", sides[0].t, sides[1].t, i);
        free(want);
    }
    for (int w = 0; w < 2; w++)
        for (int t = 0; t < (sides[w].shared ? 1 : p); t++)
            if (!fz_free(sides[w].buf[t], (size_t)sides[w].len * (size_t)e))
                fz_fail("a write outside a thread's array", sides[0].t, sides[1].t, -1);
    pa_scope_destroy(s);
}
