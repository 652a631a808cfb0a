/*
 * copy_fuzz — a libFuzzer target for copies between two layouts (the differential approach of Yaksa's dtpools).
 *
 * Each input is read as a stream of choices (bytes; an exhausted input reads as zeros).  From them the target
 * declares, in a fresh scope, a random dimension tree T (up to 3 levels, leaves of 1 to 8, at most 512
 * elements) with an element size of 1 to 64 bytes, and then two types of T's size, a destination and a source,
 * each one of:
 *   - a plain array [N];
 *   - T itself, or T's leaves or sub-trees referred to in a random order and grouping (permutations and
 *     transpositions through references);
 *   - a window into a padded two-dimensional array (displacements on references), or its transposition;
 *   - a cyclic displacement [N # disp(k) # [N]];
 *   - a reversal through a user offset function (func);
 *   - a step or a reversal [N # step(k) # disp(d) # [M]] that stays inside M (strides k, negative for k < 0);
 *   - for the source only, a wrap [N # disp(k) # [M]] with M <= N (several indices read one element).
 * Inputs with bit 1 of their flags also copy between two types distributed over pthd threads, even or uneven
 * (copy_fuzz_dist.c).
 * The source's extent is filled with a pattern, the destination's extent is poisoned, and pa_copy copies
 * between buffers of exactly their extents (so that a stray byte is a heap overflow that AddressSanitizer
 * reports).  Every byte of the destination's extent is then compared with what the reference tree walk
 * (pa__offset_walk) says, the bytes that no index reaches included.  Some inputs also copy in place: both
 * types over one buffer, where the result must be that of a copy through a temporary.
 *
 * Any failed copy, any differing byte, a crash, a leak or undefined behaviour is a finding (abort).
 */
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <parray/parray.h>

#include "internal.h"
#include "copy_fuzz.h"

/*
 * Guard bytes around every buffer in builds without AddressSanitizer (the fast build for long runs,
 * -Dfuzz-sanitizers=false): a write past either end shows as a changed guard.  Under ASan the buffers are exact,
 * so that a stray read or write is a reported heap overflow.
 */
#if defined(__has_feature)
#if __has_feature(address_sanitizer)
#define GUARD 0
#endif
#endif
#ifndef GUARD
#define GUARD 64
#endif

unsigned char *fz_alloc(size_t bytes)
{
    unsigned char *b = malloc(bytes + 2 * GUARD);
    if (!b)
        abort();
    memset(b, 0x5A, GUARD);
    memset(b + GUARD + bytes, 0x5A, GUARD);
    return b + GUARD;
}

/* Frees a guarded buffer; 0 when a guard byte changed. */
int fz_free(unsigned char *p, size_t bytes)
{
    int ok = 1;
    for (size_t i = 0; i < GUARD; i++)
        ok &= (p - GUARD)[i] == 0x5A && p[bytes + i] == 0x5A;
    free(p - GUARD);
    return ok;
}

unsigned fz_next(fz_input *in)
{
    if (in->n == 0)
        return 0;
    in->n--;
    return *in->p++;
}

/* A choice in [lo, hi]. */
int64_t fz_pick(fz_input *in, int64_t lo, int64_t hi)
{
    return lo + (int64_t)(fz_next(in) % (unsigned)(hi - lo + 1));
}

typedef struct text {
    char s[2048];
    size_t n;
    int full;
} text;

static void put(text *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void put(text *t, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int k = vsnprintf(t->s + t->n, sizeof t->s - t->n, fmt, ap);
    va_end(ap);
    if (k < 0 || t->n + (size_t)k >= sizeof t->s)
        t->full = 1;
    else
        t->n += (size_t)k;
}

/* A random tree: writes its children "[..][..]" and returns its size; the product stays within *budget. */
static int64_t gen_tree(fz_input *in, text *t, int depth, int64_t *budget)
{
    int kids = depth >= 3 ? 0 : (int)fz_pick(in, depth == 0 ? 1 : 0, 3);
    if (kids == 0) {
        int64_t hi = *budget < 8 ? *budget : 8, n = fz_pick(in, 1, hi < 1 ? 1 : hi);
        *budget /= n;
        put(t, "%lld", (long long)n);
        return n;
    }
    int64_t size = 1;
    for (int i = 0; i < kids; i++) {
        put(t, "[");
        size *= gen_tree(in, t, depth + 1, budget);
        put(t, "]");
    }
    return size;
}

enum { MAX_UNITS = 32 };

/* The paths of a cut through T (sub-trees taken whole, leaves always). */
static int cut(fz_input *in, const pa_type *t, const char *path, char units[][64], int n, int whole_ok)
{
    int nd = pa_ndim(t);
    if (n >= MAX_UNITS)
        return n;
    if (nd == 0 || (whole_ok && fz_next(in) % 3 == 0)) {
        snprintf(units[n], 64, "%s", path);
        return n + 1;
    }
    for (int i = 0; i < nd; i++) {
        char sub[64];
        snprintf(sub, sizeof sub, "%s_%d", path, i);
        n = cut(in, pa_type_child(t, i), sub, units, n, 1);
    }
    return n;
}

/* The units in a random order, grouped at random: "[[#T_1][#T_0_1]][#T_0_0]". */
static void permuted(fz_input *in, text *t, char units[][64], int n)
{
    for (int i = n - 1; i > 0; i--) {
        int j = (int)fz_pick(in, 0, i);
        char tmp[64];
        memcpy(tmp, units[i], 64);
        memcpy(units[i], units[j], 64);
        memcpy(units[j], tmp, 64);
    }
    for (int i = 0; i < n;) {
        int g = (int)fz_pick(in, 1, n - i);
        if (g == 1) {
            put(t, "[#%s]", units[i]);
        } else {
            put(t, "[");
            for (int k = 0; k < g; k++)
                put(t, "[#%s]", units[i + k]);
            put(t, "]");
        }
        i += g;
    }
}

static int64_t rev_n;   /* the reversal's size, for the current input */

static int64_t reverse(int64_t i, void *ctx)
{
    (void)ctx;
    return rev_n - 1 - i;
}

/*
 * Declares one type of size n named `name` (the destination when dst: its offsets must be distinct).  T names
 * the tree of that size.  NULL when the declaration is refused (too long a text).
 */
static const pa_type *gen_type(fz_input *in, pa_scope *s, const char *name, const pa_type *T, int64_t n, int e,
                               int dst)
{
    text t = {.n = 0};
    char pad[16];
    switch (fz_pick(in, 0, dst ? 6 : 7)) {
    case 0:
        put(&t, "paged bytes%d [%lld]", e, (long long)n);
        break;
    case 1: {
        char units[MAX_UNITS][64];
        int k = cut(in, T, "T", units, 0, 1);
        put(&t, "paged bytes%d ", e);
        permuted(in, &t, units, k);
        break;
    }
    case 2:
    case 3: {   /* a window of a x b into a padded array; 3: transposed */
        int64_t a = 1;
        for (int64_t d = fz_pick(in, 1, 16); d >= 1; d--)
            if (n % d == 0) {
                a = d;
                break;
            }
        int64_t b = n / a, pa = fz_pick(in, 0, 5), pb = fz_pick(in, 0, 5);
        snprintf(pad, sizeof pad, "P%s", name);
        char decl[128];
        snprintf(decl, sizeof decl, "paged bytes%d [%lld][%lld]", e, (long long)(a + pa), (long long)(b + pb));
        if (pa_declare(s, pad, decl) != PA_OK)
            abort();
        char win[160];
        snprintf(win, sizeof win, "[%lld # disp(%lld) # %s_0][%lld # disp(%lld) # %s_1]", (long long)a,
                 (long long)fz_pick(in, 0, 7), pad, (long long)b, (long long)fz_pick(in, 0, 7), pad);
        if (fz_pick(in, 0, 1)) {
            put(&t, "paged bytes%d %s", e, win);
        } else {
            char wname[24];
            snprintf(wname, sizeof wname, "W%s", name);
            char wdecl[200];
            snprintf(wdecl, sizeof wdecl, "paged bytes%d %s", e, win);
            if (pa_declare(s, wname, wdecl) != PA_OK)
                abort();
            put(&t, "paged bytes%d [#%s_1][#%s_0]", e, wname, wname);
        }
        break;
    }
    case 4:
        put(&t, "paged bytes%d [%lld # disp(%lld) # [%lld]]", e, (long long)n, (long long)fz_pick(in, -20, 20),
            (long long)n);
        break;
    case 5:
        put(&t, "paged bytes%d [%lld # func(rev)]", e, (long long)n);
        break;
    case 6: {   /* a step or a reversal (NumPy's a[d::k]) into a padded axis: (negative) strides */
        int64_t k = fz_pick(in, -3, 3), span, extra = fz_pick(in, 0, 4);
        k = k == 0 ? -1 : k;
        span = (n - 1) * (k < 0 ? -k : k);
        put(&t, "paged bytes%d [%lld # step(%lld) # disp(%lld) # [%lld]]", e, (long long)n, (long long)k,
            (long long)(k < 0 ? span + extra : extra), (long long)(span + 1 + 2 * extra));
        break;
    }
    default:   /* a wrap: several indices read one element (sources only) */
        put(&t, "paged bytes%d [%lld # disp(%lld) # [%lld]]", e, (long long)n, (long long)fz_pick(in, 0, 9),
            (long long)fz_pick(in, 1, n));
        break;
    }
    if (t.full || pa_declare(s, name, t.s) != PA_OK)
        return NULL;
    return pa_type_get(s, name);
}

void fz_fail(const char *what, const pa_type *dt, const pa_type *st, int64_t byte)
{
    char dl[512], sl[512], line[1024] = "";
    pa_type_format(dt, dl, sizeof dl);
    pa_type_format(st, sl, sizeof sl);
    pa_copy_explain(dt, st, line, sizeof line);
    fprintf(stderr, "copy_fuzz: %s: %s <- %s (byte %lld): %s; plan: %s\n", what, dl, sl, (long long)byte,
            pa_last_error(), line);
    abort();
}

/* A buffer of exactly [lo, hi] elements; *base points at offset 0 (possibly outside the allocation). */
static unsigned char *extent_buffer(const pa_type *t, int e, int64_t *lo, int64_t *hi, unsigned char **base)
{
    if (pa_extent(t, lo, hi) != PA_OK)
        return NULL;
    unsigned char *b = fz_alloc((size_t)(*hi - *lo + 1) * (size_t)e);
    *base = b - *lo * e;
    return b;
}

/* dt <- st between two buffers, every byte checked. */
static void copy_apart(const pa_type *dt, const pa_type *st, int e, uint8_t salt)
{
    int64_t dlo, dhi, slo, shi, n = pa_size(dt);
    unsigned char *dbase = NULL, *sbase = NULL, *d = extent_buffer(dt, e, &dlo, &dhi, &dbase);
    unsigned char *s = extent_buffer(st, e, &slo, &shi, &sbase);
    size_t dbytes = (size_t)(dhi - dlo + 1) * (size_t)e, sbytes = (size_t)(shi - slo + 1) * (size_t)e;
    unsigned char *want = malloc(dbytes);
    if (!d || !s || !want)
        abort();   /* pa_extent failed or no memory */
    for (size_t i = 0; i < sbytes; i++)
        s[i] = (unsigned char)(i * 131 + salt + (i >> 8));
    memset(d, 0xA5, dbytes);
    memset(want, 0xA5, dbytes);
    for (int64_t k = 0; k < n; k++)
        memcpy(want + (pa__offset_walk(dt, k) - dlo) * e, s + (pa__offset_walk(st, k) - slo) * e, (size_t)e);
    if (pa_copy(dt, dbase, st, sbase) != PA_OK)
        fz_fail("pa_copy failed", dt, st, -1);
    for (size_t i = 0; i < dbytes; i++)
        if (d[i] != want[i])
            fz_fail("a byte differs", dt, st, (int64_t)i);
    if (!fz_free(d, dbytes) || !fz_free(s, sbytes))
        fz_fail("a write outside the buffers", dt, st, -1);
    free(want);
}

/* dt <- st over one buffer that holds both extents (at a shift): the result of a copy through a temporary. */
__attribute__((unused)) static void copy_in_place(const pa_type *dt, const pa_type *st, int e, int64_t shift, uint8_t salt)
{
    int64_t dlo, dhi, slo, shi, n = pa_size(dt);
    if (pa_extent(dt, &dlo, &dhi) != PA_OK || pa_extent(st, &slo, &shi) != PA_OK)
        abort();
    /* Buffer offsets: the destination's element k at dbase + dt(k), the source's at dbase + shift + st(k). */
    int64_t lo = dlo < slo + shift ? dlo : slo + shift, hi = dhi > shi + shift ? dhi : shi + shift;
    size_t bytes = (size_t)(hi - lo + 1) * (size_t)e;
    unsigned char *buf = fz_alloc(bytes), *want = malloc(bytes), *tmp = malloc((size_t)n * (size_t)e);
    if (!buf || !want || !tmp)
        abort();
    unsigned char *base = buf - lo * e;
    for (size_t i = 0; i < bytes; i++)
        buf[i] = (unsigned char)(i * 37 + salt);
    memcpy(want, buf, bytes);
    for (int64_t k = 0; k < n; k++)
        memcpy(tmp + k * e, want + (pa__offset_walk(st, k) + shift - lo) * e, (size_t)e);
    for (int64_t k = 0; k < n; k++)
        memcpy(want + (pa__offset_walk(dt, k) - lo) * e, tmp + k * e, (size_t)e);
    if (pa_copy(dt, base, st, base + shift * e) != PA_OK)
        fz_fail("pa_copy in place failed", dt, st, -1);
    for (size_t i = 0; i < bytes; i++)
        if (buf[i] != want[i])
            fz_fail("a byte differs (in place)", dt, st, (int64_t)i);
    if (!fz_free(buf, bytes))
        fz_fail("a write outside the buffer (in place)", dt, st, -1);
    free(want);
    free(tmp);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fz_input in = {data, size};
    pa_scope *s = NULL;
    text t = {.n = 0};
    int e = (int)fz_pick(&in, 1, 64);
    unsigned flags = fz_next(&in);
    int64_t budget = 512;

    if (pa_scope_create(NULL, &s) != PA_OK)
        abort();
    put(&t, "paged bytes%d ", e);
    int64_t n = gen_tree(&in, &t, 0, &budget);
    rev_n = n;
    if (pa_scope_def_func(s, "rev", reverse, NULL) != PA_OK || t.full || pa_declare(s, "T", t.s) != PA_OK)
        abort();
    const pa_type *T = pa_type_get(s, "T");
    if (!T || pa_size(T) != n)
        abort();
    const pa_type *dt = gen_type(&in, s, "D", T, n, e, 1), *st = gen_type(&in, s, "S", T, n, e, 0);
    if (dt && st) {
        copy_apart(dt, st, e, (uint8_t)flags);
#ifndef COPY_FUZZ_NO_IN_PLACE
        if (flags & 1)
            copy_in_place(dt, st, e, fz_pick(&in, -8, 8), (uint8_t)flags);
#endif
    }
#ifndef COPY_FUZZ_NO_DIST   /* defined for the high-volume runs of local copies (tests/meson.build) */
    if (flags & 2)   /* and a copy between types distributed over pthd threads (copy_fuzz_dist.c) */
        fz_dist(&in);
#endif
    pa_scope_destroy(s);
    return 0;
}
