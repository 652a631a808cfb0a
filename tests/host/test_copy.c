/*
 * Host copies through the planner's internal entry point, with hand-made layouts: every copy is compared byte
 * for byte with a naive loop over the layouts' offsets (pa__layout_offset), into a destination poisoned with 0xA5 first, so that
 * both wrong elements and stray writes outside the destination's offsets show.  Every strategy that says it
 * applies is also run on its own, on one and on three threads, so that a kernel the cost model does not pick
 * for a case is still checked on it.
 */
#include <stdlib.h>
#include <string.h>

#include "backends.h"
#include "copy_host.h"
#include "test_copy.h"

static pa_rng rng;

/* ---- layouts and the reference ------------------------------------------------------------------------- */

static pa__layout mk(int n, const int64_t *sizes, const int64_t *strides, int64_t base)
{
    pa__layout l = pa__cost_affine(n, sizes, strides);   /* the cost model's hand-made affine layout */
    l.base = base;
    return l;
}

/* Moves the layout so that its smallest offset is 0; returns the number of elements its buffer needs. */
static int64_t rebase(pa__layout *l)
{
    int64_t lo = INT64_MAX, hi = INT64_MIN;
    for (int64_t k = 0; k < l->size; k++) {
        int64_t o = pa__layout_offset(l, k);
        lo = o < lo ? o : lo;
        hi = o > hi ? o : hi;
    }
    l->base -= lo;
    return hi - lo + 1;
}

/* ---- running and checking a copy ----------------------------------------------------------------------- */

typedef struct bufs {
    size_t elm;
    int64_t dn, sn;
    unsigned char *src, *dst, *want;
} bufs;

static void bufs_make(bufs *b, pa__layout *d, pa__layout *s, size_t elm)
{
    b->elm = elm;
    b->dn = rebase(d);
    b->sn = rebase(s);
    b->src = malloc((size_t)b->sn * elm);
    b->dst = malloc((size_t)b->dn * elm);
    b->want = malloc((size_t)b->dn * elm);
    ck_assert(b->src && b->dst && b->want);
    for (int64_t i = 0; i < b->sn * (int64_t)elm; i++)
        b->src[i] = (unsigned char)pa_rng_next(&rng);
    memset(b->want, 0xA5, (size_t)b->dn * elm);
    for (int64_t k = 0; k < d->size; k++)
        memcpy(b->want + pa__layout_offset(d, k) * (int64_t)elm, b->src + pa__layout_offset(s, k) * (int64_t)elm, elm);
}

static void bufs_free(bufs *b)
{
    free(b->src);
    free(b->dst);
    free(b->want);
}

static void expect_same(const bufs *b, const char *what)
{
    for (int64_t i = 0; i < b->dn * (int64_t)b->elm; i++)
        if (b->dst[i] != b->want[i])
            ck_abort_msg("%s: byte %lld (element %lld) is 0x%02x, expected 0x%02x%s", what, (long long)i,
                         (long long)(i / (int64_t)b->elm), b->dst[i], b->want[i],
                         b->want[i] == 0xA5 ? " (poison)" : "");
}

/*
 * Copies d <- s through the cached plan and through every applicable strategy on 1 and 3 threads, checking
 * each against the reference.  expect: the strategy the planner should choose (NULL: any).
 */
static void check_copy(pa__layout d, pa__layout s, size_t elm, const char *expect)
{
    bufs b;
    pa__plan *p = NULL;
    char line[1024];
    bufs_make(&b, &d, &s, elm);
    PA_CK_OK(pa__plan_get(&d, &s, elm, NULL, NULL, &p));
    pa__plan_explain(p, line, sizeof line);
    if (expect) {
        const pa__strategy *want = pa__strategy_named(expect);
        ck_assert_msg(want != NULL, "no strategy is called %s", expect);
        ck_assert_msg(p->strategy == want, "chose %s, expected %s: %s", p->strategy->name, expect, line);
    }
    memset(b.dst, 0xA5, (size_t)b.dn * elm);
    PA_CK_OK(pa__plan_exec(p, b.dst, d.base, b.src, s.base));
    expect_same(&b, line);
    for (int i = 0; pa__host_strategies[i]; i++) {
        const pa__strategy *st = pa__host_strategies[i];
        double cost;
        char why[160];
        if (!st->probe(&p->shape, &cost, why, sizeof why))
            continue;
        pa__copy_kernel ks[3];
        ck_assert_msg(pa__host_kernels_of(st->name, ks), "no kernels for host strategy %s", st->name);
        for (int v = 0; v < 6; v++) {
            int threads = v % 2 ? 3 : 1, nt = v / 2;
            pa__copy_shape sh = p->shape;
            if (!ks[nt])
                continue;
            sh.dst_base += d.base;
            sh.src_base += s.base;
            memset(b.dst, 0xA5, (size_t)b.dn * elm);
            PA_CK_OK(pa__copy_parallel(&sh, (char *)b.dst, (const char *)b.src, threads, ks[nt]));
            snprintf(why, sizeof why, "%s%s on %d threads for %.100s", st->name,
                     nt == 2 ? " (streaming, one-thread kernel)" : nt ? " (streaming)" : "", threads, line);
            expect_same(&b, why);
        }
        /* Transposes on 3 threads cut along each mode in turn (the plan cuts streamed ones along the source's
         * rows, whose slices need not start on a destination line). */
        for (int m = 0; strcmp(st->name, "transpose") == 0 && m < p->shape.nmodes; m++)
            for (int nt = 0; nt < 2; nt++) {
                pa__copy_shape sh = p->shape;
                sh.dst_base += d.base;
                sh.src_base += s.base;
                memset(b.dst, 0xA5, (size_t)b.dn * elm);
                PA_CK_OK(pa__copy_parallel_on(&sh, (char *)b.dst, (const char *)b.src, 3, ks[nt], m));
                snprintf(why, sizeof why, "transpose%s on 3 threads cut along mode %d for %.80s",
                         nt ? " (streaming)" : "", m, line);
                expect_same(&b, why);
            }
    }
    pa__plan_unref(p);
    bufs_free(&b);
}

#define L(n, base, ...) mk_list(n, base, (const int64_t[]){__VA_ARGS__})

/* A layout from n sizes followed by n strides. */
static pa__layout mk_list(int n, int64_t base, const int64_t *v)
{
    return mk(n, v, v + n, base);
}

/* ---- cases ------------------------------------------------------------------------------------------------ */

START_TEST(test_contiguous)
{
    check_copy(L(1, 0, 1000, 1), L(1, 0, 1000, 1), 4, "memcpy");
    check_copy(L(2, 0, 10, 100, 100, 1), L(1, 0, 1000, 1), 4, "memcpy");
    check_copy(L(3, 0, 2, 3, 7, 21, 7, 1), L(2, 0, 6, 7, 7, 1), 8, "memcpy");
    check_copy(L(1, 0, 1, 1), L(1, 0, 1, 1), 4, NULL);            /* one element */
    check_copy(L(1, 0, 7, 1), L(1, 0, 7, 1), 3, "memcpy");
    check_copy(L(1, 0, 1023, 1), L(1, 0, 1023, 1), 1, "memcpy");
    check_copy(L(1, 0, 5, 1), L(1, 0, 5, 1), 4096, "memcpy");
}
END_TEST

static const size_t elm_sizes[] = {1, 2, 4, 8, 16, 3, 12, 100};

START_TEST(test_transpose_2d)
{
    const int64_t dims[][2] = {{67, 45}, {256, 256}, {1, 7}, {7, 1}, {33, 1023}, {128, 3}};
    for (size_t e = 0; e < sizeof elm_sizes / sizeof elm_sizes[0]; e++)
        for (size_t i = 0; i < sizeof dims / sizeof dims[0]; i++) {
            int64_t r = dims[i][0], c = dims[i][1];
            int big = r > 1 && c > 1 && elm_sizes[e] <= 16;   /* large elements may be looped */
            /* dst row-major r x c, src column-major: element (i, j) at j*r + i. */
            check_copy(L(2, 0, r, c, c, 1), L(2, 0, r, c, 1, r), elm_sizes[e], big ? "transpose" : NULL);
        }
}
END_TEST

/*
 * Transposes whose destination rows are whole 64-byte lines apart, the case of the streamed kernels' whole-line
 * strips (copy_strips.c): 4-, 8- and 16-byte elements and 16-byte units ([[n][n]][4] floats), panels that are
 * not multiples of the strips, destinations that start inside a line (the rows before the first line go
 * through tiles), all through every kernel variant by check_copy.
 */
START_TEST(test_transpose_strips)
{
    const struct { size_t elm; int64_t pad; } c[] = {{4, 96}, {8, 80}, {16, 76}, {4, 112}};
    for (size_t i = 0; i < sizeof c / sizeof c[0]; i++)
        for (int64_t base = 0; base < 3; base++) {
            int64_t r = 70, n = 75;   /* dst: r rows of n elements, pad apart; src: its transposition */
            check_copy(L(2, base, r, n, c[i].pad, 1), L(2, base * 5, r, n, 1, 73), c[i].elm, "transpose");
        }
    const int64_t n = 70, m = 4, D = 288;   /* 16-byte units; destination rows 1152 bytes apart */
    check_copy(L(3, 1, n, n, m, m, D, 1), L(3, 0, n, n, m, n * m, m, 1), 4, "transpose");
    /* More destination rows than a column block of the 4-byte strips (1024), and not a multiple of it. */
    check_copy(L(2, 0, 1100, 40, 96, 1), L(2, 0, 1100, 40, 1, 1103), 4, "transpose");
}
END_TEST

/*
 * The strips' other settings, which the benchmarks vary (copy_strips.c): 16 and 64 rows, other column blocks,
 * no prefetch or prefetch into L1, far ahead (past a strip's end into the next strip's rows and past the
 * panel), and the AVX-512 16x16 kernel where the CPU has it.
 */
START_TEST(test_transpose_strip_settings)
{
    const struct { int rows, block, prefetch, hint, wide; } k[] = {
        {16, 0, 0, 1, 0}, {64, 512, 4, 1, 0}, {32, 1024, 2, 0, 0}, {32, 48, 40, 1, 0},
        {32, 1024, 4, 1, 1}, {64, 512, 8, 0, 1}, {16, 32, 0, 1, 1}};
    int rows = pa__strip_rows4, block = pa__strip_block4, pf4 = pa__strip_prefetch4, pf16 = pa__strip_prefetch16;
    int hint = pa__strip_hint, wide = pa__strip_wide4;
    for (size_t i = 0; i < sizeof k / sizeof k[0]; i++) {
        pa__strip_rows4 = k[i].rows, pa__strip_block4 = k[i].block;
        pa__strip_prefetch4 = pa__strip_prefetch16 = k[i].prefetch;
        pa__strip_hint = k[i].hint, pa__strip_wide4 = k[i].wide;
        for (int64_t base = 0; base < 2; base++)
            check_copy(L(2, base, 150, 75, 160, 1), L(2, base * 5, 150, 75, 1, 151), 4, "transpose");
        check_copy(L(2, 0, 70, 75, 76, 1), L(2, 3, 70, 75, 1, 73), 16, "transpose");
    }
    pa__strip_rows4 = rows, pa__strip_block4 = block, pa__strip_prefetch4 = pf4, pa__strip_prefetch16 = pf16;
    pa__strip_hint = hint, pa__strip_wide4 = wide;
}
END_TEST

START_TEST(test_transposition_units)
{
    /* The manual's A = [[n][n]][m] copied to B = [[#A_0_1][#A_0_0]][#A_1], n = 3, m = 2 (listing 6). */
    pa__layout a = L(1, 0, 18, 1), bl = L(3, 0, 3, 3, 2, 2, 6, 1);
    int32_t src[18], dst[18];
    const int32_t want[18] = {0, 1, 6, 7, 12, 13, 2, 3, 8, 9, 14, 15, 4, 5, 10, 11, 16, 17};
    pa__plan *p;
    for (int i = 0; i < 18; i++)
        src[i] = i;
    PA_CK_OK(pa__plan_get(&bl, &a, 4, NULL, NULL, &p));
    PA_CK_OK(pa__plan_exec(p, dst, 0, src, 0));
    pa__plan_unref(p);
    for (int i = 0; i < 18; i++)
        ck_assert_int_eq(dst[i], want[i]);
    /* Larger n with units of 1, 2, 3 and 8 elements, and the unit dimension in the middle of the tree. */
    const int64_t units[] = {1, 2, 3, 8};
    for (size_t i = 0; i < 4; i++) {
        int64_t n = 70, m = units[i];
        check_copy(L(3, 0, n, n, m, m, n * m, 1), L(1, 0, n * n * m, 1), 4, m > 1 ? "transpose" : NULL);
        check_copy(L(3, 0, n, n, m, m, n * m, 1), L(1, 0, n * n * m, 1), 2, NULL);
    }
    check_copy(L(4, 0, 5, 6, 40, 3, 3 * 40 * 6, 3, 6 * 3, 1), L(1, 0, 5 * 6 * 40 * 3, 1), 8, "transpose");
}
END_TEST

START_TEST(test_window)
{
    /* DATA = [[100][100]], WINDOW = [[80 # disp(10) # DATA_0][80 # disp(10) # DATA_1]] to a plain [80][80]. */
    pa__layout w = L(2, 1010, 80, 80, 100, 1), plain = L(2, 0, 80, 80, 80, 1);
    pa__plan *p;
    char line[512];
    PA_CK_OK(pa__plan_get(&plain, &w, 4, NULL, NULL, &p));
    pa__plan_explain(p, line, sizeof line);
    ck_assert_str_eq(line, "copy 6400 x 4 B: strategy=memcpy_runs shape=(80,80):dst(80,1)src(100,1) run=320 B "
                           "threads=1 async=waits predicted=3.68 us \xe2\x80\x94 rows of 80 contiguous elements on both sides");
    pa__plan_unref(p);
    check_copy(plain, w, 4, "memcpy_runs");
    check_copy(w, plain, 4, "memcpy_runs");
    check_copy(L(2, 0, 80, 3, 100, 1), L(2, 0, 80, 3, 3, 1), 4, "loops");   /* 12-byte rows: loops */
    /* A window of a transposed array, and a 3-D window. */
    check_copy(L(2, 0, 50, 60, 60, 1), L(2, 7 * 100 + 3, 50, 60, 1, 100), 4, "transpose");
    check_copy(L(3, 0, 4, 5, 6, 30, 6, 1), L(3, 1 * 100 + 2 * 10 + 3, 4, 5, 6, 100, 10, 1), 8, NULL);
}
END_TEST

START_TEST(test_negative_and_broadcast)
{
    check_copy(L(1, 0, 2000, 1), L(2, 1999, 50, 40, -40, -1), 4, "reverse");       /* reversed source */
    check_copy(L(2, 2999, 3, 1000, -1000, -1), L(1, 0, 3000, 1), 8, "reverse");    /* reversed destination */
    check_copy(L(2, 0, 7, 333, 400, 1), L(2, 333, 7, 333, 400, -1), 2, "reverse"); /* rows reversed */
    check_copy(L(1, 1999, 2000, -1), L(1, 1999, 2000, -1), 4, "memcpy");           /* reversed both */
    check_copy(L(2, 0, 30, 40, 40, 1), L(2, 29 * 40, 30, 40, -40, 1), 8, "memcpy_runs");   /* rows flipped */
    check_copy(L(2, 0, 100, 64, 64, 1), L(2, 0, 100, 64, 0, 1), 4, "memcpy_runs");  /* a row repeated */
    check_copy(L(2, 0, 64, 100, 100, 1), L(2, 0, 64, 100, 1, 0), 4, NULL);          /* a column repeated */
    check_copy(L(1, 0, 1000, 1), L(1, 5, 1000, 0), 2, "loops");                     /* one value everywhere */
    check_copy(L(2, 0, 33, 65, 1, 33), L(2, 5000, 33, 65, -65, -1), 16, NULL);      /* transposed and reversed */
}
END_TEST

static int64_t *perm_table(int64_t n, int64_t scale)
{
    int64_t *t = malloc((size_t)n * sizeof *t);
    for (int64_t i = 0; i < n; i++)
        t[i] = i * scale;
    for (int64_t i = n - 1; i > 0; i--) {
        int64_t j = pa_rng_range(&rng, 0, i), x = t[i];
        t[i] = t[j];
        t[j] = x;
    }
    return t;
}

START_TEST(test_gathered)
{
    int64_t *t1 = perm_table(1000, 1), *t2 = perm_table(7, 12), *t3 = perm_table(12, 1);
    pa__layout g = L(1, 0, 1000, 1);
    g.modes[0].table = t1;
    g.affine = 0;
    check_copy(L(1, 0, 1000, 1), g, 4, "gather");
    check_copy(g, L(1, 0, 1000, 1), 8, "gather");
    check_copy(g, g, 3, "gather");
    /* A gathered mode between affine ones, on the source; the destination transposed. */
    pa__layout s = L(3, 3, 5, 7, 12, 7 * 12 * 2, 0, 1);
    s.modes[1].table = t2;
    s.affine = 0;
    check_copy(L(3, 0, 5, 7, 12, 1, 5, 35), s, 4, NULL);   /* a transpose with a gathered outer mode */
    check_copy(L(3, 0, 5, 7, 12, 7 * 12, 12, 1), s, 16, NULL);
    /* Gathered on both sides with different splits: the planner must expand spans into tables. */
    pa__layout d = L(2, 0, 7, 12, 12, 1);
    d.modes[1].table = t3;
    d.affine = 0;
    check_copy(d, L(3, 0, 7, 4, 3, 20, 4, 1), 4, "gather");
    check_copy(L(3, 0, 7, 4, 3, 20, 4, 1), d, 1, "gather");
    /* A size-1 gathered mode only moves the base. */
    int64_t one[1] = {42};
    pa__layout u = L(2, 0, 1, 100, 0, 1);
    u.modes[0].table = one;
    check_copy(L(1, 0, 100, 1), u, 4, "memcpy");
    free(t1);
    free(t2);
    free(t3);
}
END_TEST

START_TEST(test_non_divisible)
{
    /* (4,6) against (3,8) with padded rows: no cut but 1 and 24 is common, so the span is gathered. */
    check_copy(L(2, 0, 4, 6, 7, 1), L(2, 0, 3, 8, 9, 1), 4, "gather");
    check_copy(L(3, 0, 5, 4, 6, 200, 7, 1), L(3, 0, 5, 3, 8, 100, 9, 1), 8, NULL);
    /* Contiguous on both sides despite the different splits: one memcpy. */
    check_copy(L(2, 0, 4, 6, 6, 1), L(2, 0, 3, 8, 8, 1), 4, "memcpy");
}
END_TEST

/* A random rank-r array of sizes 1..5, the destination a permutation of the source's dimensions, each
 * dimension possibly reversed, possibly a window of a larger array. */
static void random_pair(int r, pa__layout *d, pa__layout *s)
{
    int64_t size[8], perm[8], sst[8], dst[8];
    for (int i = 0; i < r; i++) {
        size[i] = pa_rng_range(&rng, 1, 5);
        perm[i] = i;
    }
    for (int i = r - 1; i > 0; i--) {
        int j = (int)pa_rng_range(&rng, 0, i);
        int64_t x = perm[i];
        perm[i] = perm[j];
        perm[j] = x;
    }
    int64_t st = 1;
    for (int i = r - 1; i >= 0; i--) {           /* source: row-major, padded by 0..2 */
        sst[i] = st * (pa_rng_next(&rng) % 4 ? 1 : -1);
        st *= size[i] + pa_rng_range(&rng, 0, 2);
    }
    st = 1;
    for (int i = r - 1; i >= 0; i--) {           /* destination: row-major over the permuted dimensions */
        dst[perm[i]] = st;
        st *= size[perm[i]];
    }
    *s = mk(r, size, sst, 0);
    *d = mk(r, size, dst, 0);
}

START_TEST(test_random_ranks)
{
    for (int r = 1; r <= 8; r++)
        for (int rep = 0; rep < 40; rep++) {
            pa__layout d, s;
            random_pair(r, &d, &s);
            check_copy(d, s, elm_sizes[pa_rng_range(&rng, 0, 6)], NULL);
            check_copy(s, d, elm_sizes[pa_rng_range(&rng, 0, 6)], NULL);
        }
}
END_TEST

START_TEST(test_threads_large)
{
    /* Big enough for the planner to use the pool and streaming stores: 16 MiB contiguous, a 1024x1024 float
     * transpose, 1000 rows of 4000 bytes. */
    pa__copy_threads_set(2);
    check_copy(L(1, 0, 1 << 22, 1), L(1, 0, 1 << 22, 1), 4, "memcpy");
    check_copy(L(2, 0, 1024, 1024, 1024, 1), L(2, 0, 1024, 1024, 1, 1024), 4, "transpose");
    check_copy(L(2, 0, 1000, 1000, 1000, 1), L(2, 0, 1000, 1000, 1024, 1), 4, "memcpy_runs");
    pa__copy_threads_set(0);
}
END_TEST

START_TEST(test_cache_and_errors)
{
    pa__layout a = L(2, 0, 80, 80, 100, 1), b = L(2, 0, 80, 80, 80, 1), c = L(2, 5, 80, 80, 100, 1);
    pa__plan *p1, *p2, *p3;
    pa__plan_cache_clear();
    long m0 = pa__plan_cache_misses();
    PA_CK_OK(pa__plan_get(&b, &a, 4, NULL, NULL, &p1));
    PA_CK_OK(pa__plan_get(&b, &c, 4, NULL, NULL, &p2));     /* another base: the same plan */
    ck_assert_ptr_eq(p1, p2);
    ck_assert_int_eq(pa__plan_cache_misses(), m0 + 1);
    PA_CK_OK(pa__plan_get(&b, &a, 8, NULL, NULL, &p3));     /* another element size: a new plan */
    ck_assert_ptr_ne(p1, p3);
    pa__plan_unref(p1);
    pa__plan_unref(p2);
    pa__plan_unref(p3);
    for (int i = 0; i < 600; i++) {                          /* more plans than the cache holds */
        pa__layout x = L(1, 0, 100 + i, 1);
        PA_CK_OK(pa__plan_get(&x, &x, 4, NULL, NULL, &p1));
        pa__plan_unref(p1);
    }
    pa__layout small = L(1, 0, 10, 1);
    PA_CK_ERR(pa__plan_make(&small, &a, 4, NULL, NULL, &p1), PA_ERR_SIZE);
    PA_CK_ERR(pa__plan_make(&b, &a, 0, NULL, NULL, &p1), PA_ERR_ELM);
    PA_CK_ERR(pa__plan_make(&b, &a, 5000, NULL, NULL, &p1), PA_ERR_ELM);
    const pa__mem_ops device = {.name = "dmem", .host_accessible = 0};
    PA_CK_ERR(pa__plan_make(&b, &a, 4, &device, NULL, &p1), PA_ERR_MTT);
}
END_TEST

int main(void)
{
    rng.s = pa_test_seed("host_copy");
    Suite *s = suite_create("host_copy");
    TCase *tc = tcase_create("copy");
    tcase_add_test(tc, test_contiguous);
    tcase_add_test(tc, test_transpose_2d);
    tcase_add_test(tc, test_transposition_units);
    tcase_add_test(tc, test_transpose_strips);
    tcase_add_test(tc, test_transpose_strip_settings);
    tcase_add_test(tc, test_window);
    tcase_add_test(tc, test_negative_and_broadcast);
    tcase_add_test(tc, test_gathered);
    tcase_add_test(tc, test_non_divisible);
    tcase_add_test(tc, test_random_ranks);
    tcase_add_test(tc, test_threads_large);
    tcase_add_test(tc, test_cache_and_errors);
    suite_add_tcase(s, tc);
    suite_add_tcase(s, pa_test_copy_types_tcase());
    return pa_test_run(s);
}
