/*
 * GPU copies compared with the reference walk, in every direction among paged, pinned and dmem.
 *
 * The random part is the host suite's (tests/host/test_copy_random.c): a pool of types of one size and element
 * size (a random tree, a plain array, permutations of its sub-trees, a window into a padded array and its
 * permutation, a cyclic displacement, a reversing func()), declared once per memory type from the same random
 * draws, so that a type of one pool can be copied to any type of another.  Destinations are poisoned with
 * 0xA5 and every byte of their extent is compared with what pa__offset_walk says, the bytes the copy must not
 * touch included.  Then the manual's listings 15 (data_transfer) and 25 (gpu_data_transfer, as a copy), and
 * every element width through the tiled and direct kernels.  Without a GPU the suite exits 77 (skipped).
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "internal.h"
#include "testutil.h"

#define ROUNDS 150
#define MAXPOOL 12

static const char *const mtts[] = {"paged", "pinned", "dmem"};
static pa_rng rng;
static int strategy_count[16];
static char strategy_name[16][32];

typedef struct text {
    char s[4096];
    size_t n;
} text;

static void put(text *t, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int k = vsnprintf(t->s + t->n, sizeof t->s - t->n, fmt, ap);
    va_end(ap);
    ck_assert(k >= 0 && t->n + (size_t)k < sizeof t->s);
    t->n += (size_t)k;
}

static int64_t gen_tree(text *t, int depth, int64_t *budget)
{
    int kids = depth >= 3 ? 0 : (int)pa_rng_range(&rng, depth == 0 ? 1 : 0, 3);
    if (kids == 0) {
        int64_t hi = *budget < 6 ? *budget : 6, n = pa_rng_range(&rng, 1, hi < 1 ? 1 : hi);
        *budget /= n;
        put(t, "%lld", (long long)n);
        return n;
    }
    int64_t size = 1;
    for (int i = 0; i < kids; i++) {
        put(t, "[");
        size *= gen_tree(t, depth + 1, budget);
        put(t, "]");
    }
    return size;
}

static int cut(const pa_type *t, const char *path, char units[][64], int n, int whole_ok)
{
    int nd = pa_ndim(t);
    if (nd == 0 || (whole_ok && pa_rng_next(&rng) % 3 == 0)) {
        snprintf(units[n], 64, "%s", path);
        return n + 1;
    }
    for (int i = 0; i < nd; i++) {
        char sub[64];
        snprintf(sub, sizeof sub, "%s_%d", path, i);
        n = cut(pa_type_child(t, i), sub, units, n, 1);
    }
    return n;
}

static void permuted(text *t, char units[][64], int n)
{
    for (int i = n - 1; i > 0; i--) {
        int j = (int)pa_rng_range(&rng, 0, i);
        char x[64];
        memcpy(x, units[i], 64);
        memcpy(units[i], units[j], 64);
        memcpy(units[j], x, 64);
    }
    for (int i = 0, items = 0; i < n; items++) {
        int need = (n - i + (9 - items)) / (10 - items);
        int g = (int)pa_rng_range(&rng, need, n - i < 3 ? n - i : 3 > need ? 3 : need);
        if (g > 1) put(t, "[");
        for (int k = 0; k < g; k++)
            put(t, "[#%s]", units[i + k]);
        if (g > 1) put(t, "]");
        i += g;
    }
}

static int64_t reverse_fn(int64_t i, void *ctx)
{
    return *(const int64_t *)ctx - 1 - i;
}

typedef struct pool {
    pa_scope *scope;
    const pa_type *t[MAXPOOL];
    int n;
    int64_t size, rev_n;
} pool;

static void add(pool *p, const char *name, const char *decl)
{
    PA_CK_OK(pa_declare(p->scope, name, decl));
    const pa_type *t = pa_type_get(p->scope, name);
    ck_assert_msg(t, "%s = %s: %s", name, decl, pa_last_error());
    p->t[p->n++] = t;
}

/* The host suite's pool, with every type of memory type mtt. */
static void make_pool(pool *p, const char *mtt, int elm)
{
    text t = {.n = 0}, d;
    char units[64][64], head[48];
    int64_t budget = pa_rng_range(&rng, 1, 4) == 1 ? 20000 : 400;
    PA_CK_OK(pa_scope_create(NULL, &p->scope));
    p->n = 0;
    snprintf(head, sizeof head, "%s bytes%d ", mtt, elm);
    put(&t, "%s", head);
    p->size = gen_tree(&t, 0, &budget);
    add(p, "T", t.s);
    d = (text){.n = 0};
    put(&d, "%s[%lld]", head, (long long)p->size);
    add(p, "PLAIN", d.s);
    for (int k = 0; k < 3; k++) {
        char name[8];
        int n = cut(p->t[0], "T", units, 0, 0);
        d = (text){.n = 0};
        put(&d, "%s", head);
        permuted(&d, units, n);
        snprintf(name, sizeof name, "Q%d", k);
        add(p, name, d.s);
    }
    int nl = cut(p->t[0], "T", units, 0, 0);
    for (int tries = 0; nl > 10 && tries < 50; tries++)
        nl = cut(p->t[0], "T", units, 0, 0);
    if (nl > 10) {
        nl = pa_ndim(p->t[0]);
        for (int i = 0; i < nl; i++)
            snprintf(units[i], 64, "T_%d", i);
    }
    text pad = {.n = 0}, win = {.n = 0};
    put(&pad, "%s[", head);
    put(&win, "%s[", head);
    for (int i = 0; i < nl; i++) {
        int64_t s = pa_size(pa_type_get(p->scope, units[i])), extra = pa_rng_range(&rng, 0, 3);
        put(&pad, "[%lld]", (long long)(s + extra));
        put(&win, "[%lld # disp(%lld) # P_%d]", (long long)s, (long long)pa_rng_range(&rng, 0, extra), i);
    }
    put(&pad, "]");
    put(&win, "]");
    PA_CK_OK(pa_declare(p->scope, "P", pad.s));
    add(p, "W", win.s);
    int nw = cut(p->t[p->n - 1], "W", units, 0, 0);
    d = (text){.n = 0};
    put(&d, "%s", head);
    permuted(&d, units, nw);
    add(p, "WP", d.s);
    d = (text){.n = 0};
    put(&d, "%s[%lld # disp(%lld) # [%lld]]", head, (long long)p->size, (long long)pa_rng_range(&rng, 0, p->size),
        (long long)p->size);
    add(p, "CYC", d.s);
    p->rev_n = p->size;
    PA_CK_OK(pa_scope_def_func(p->scope, "rev", reverse_fn, &p->rev_n));
    d = (text){.n = 0};
    put(&d, "%s[%lld # func(rev)]", head, (long long)p->size);
    add(p, "REV", d.s);
}

/* ---- buffers of any memory type, filled and read back through contiguous copies ---------------------- */

static int64_t extent(const pa_type *t)
{
    int64_t lo, hi;
    PA_CK_OK(pa_extent(t, &lo, &hi));
    return hi + 1;
}

/* Moves n elements between host memory and an array of t's memory type, through flat types. */
static void flat_copy(pa_scope *s, const pa_type *t, void *arr, unsigned char *host, int64_t n, int to_arr)
{
    char a[96], h[96];
    size_t e = pa_elm_size(t);
    if (strcmp(pa_mtt(t), "dmem") != 0) {
        if (to_arr) memcpy(arr, host, (size_t)n * e);
        else memcpy(host, arr, (size_t)n * e);
        return;
    }
    snprintf(a, sizeof a, "dmem bytes%zu [%lld]", e, (long long)n);
    snprintf(h, sizeof h, "paged bytes%zu [%lld]", e, (long long)n);
    const pa_type *ta = pa_type_parse(s, a), *th = pa_type_parse(s, h);
    ck_assert_msg(ta && th, "%s", pa_last_error());
    if (to_arr) PA_CK_OK(pa_copy(ta, arr, th, host));
    else PA_CK_OK(pa_copy(th, host, ta, arr));
}

static void count_strategy(const char *line)
{
    const char *p = strstr(line, "strategy=");
    char name[32] = "";
    if (p) sscanf(p + 9, "%31s", name);
    for (int i = 0; i < 16; i++) {
        if (strategy_name[i][0] == '\0') snprintf(strategy_name[i], sizeof strategy_name[i], "%s", name);
        if (strcmp(strategy_name[i], name) == 0) {
            strategy_count[i]++;
            return;
        }
    }
}

/* Copies st -> dt (any memory types) and compares every byte of dt's extent with the reference walk. */
static void check_pair(pa_scope *sc, const pa_type *dt, const pa_type *st, uint64_t seed)
{
    int64_t dn = extent(dt), sn = extent(st), e = (int64_t)pa_elm_size(dt);
    unsigned char *hsrc = malloc((size_t)(sn * e)), *want = malloc((size_t)(dn * e)), *got = malloc((size_t)(dn * e));
    void *dst = pa_create(dt), *src = pa_create(st);
    char line[1024], dl[256], sl[256];
    ck_assert_msg(dst && src && hsrc && want && got, "%s", pa_last_error());
    for (int64_t i = 0; i < sn * e; i++)
        hsrc[i] = (unsigned char)pa_rng_next(&rng);
    memset(want, 0xA5, (size_t)(dn * e));
    flat_copy(sc, st, src, hsrc, sn, 1);
    flat_copy(sc, dt, dst, want, dn, 1);
    for (int64_t k = 0; k < pa_size(dt); k++)
        memcpy(want + pa__offset_walk(dt, k) * e, hsrc + pa__offset_walk(st, k) * e, (size_t)e);
    pa_copy_explain(dt, st, line, sizeof line);
    count_strategy(line);
    PA_CK_OK(pa_copy(dt, dst, st, src));
    flat_copy(sc, dt, dst, got, dn, 0);
    if (memcmp(got, want, (size_t)(dn * e)) != 0) {
        int64_t i = 0;
        while (got[i] == want[i]) i++;
        pa_layout_format(dt, dl, sizeof dl);
        pa_layout_format(st, sl, sizeof sl);
        ck_abort_msg("seed %llu: copy %s %s %s <- %s %s %s: byte %lld is 0x%02x, expected 0x%02x; %s",
                     (unsigned long long)seed, pa_mtt(dt), pa_type_name(dt), dl, pa_mtt(st), pa_type_name(st), sl,
                     (long long)i, got[i], want[i], line);
    }
    PA_CK_OK(pa_destroy(dt, dst));
    PA_CK_OK(pa_destroy(st, src));
    free(hsrc);
    free(want);
    free(got);
}

START_TEST(test_random_directions)
{
    uint64_t seed = pa_test_seed("cuda_copy_random");
    static const int elms[] = {1, 2, 3, 4, 8, 12, 16, 5, 32, 64};
    rng.s = seed;
    for (int round = 0; round < ROUNDS; round++) {
        pool p[3];
        int elm = elms[pa_rng_range(&rng, 0, 9)];
        pa_rng saved = rng;
        for (int m = 0; m < 3; m++) {   /* the same draws for each memory type: the same types */
            rng = saved;
            make_pool(&p[m], mtts[m], elm);
        }
        for (int d = 0; d < 3; d++)
            for (int s = 0; s < 3; s++) {
                if (d != 2 && s != 2 && pa_rng_next(&rng) % 4)
                    continue;   /* host <-> host is the host suite's; a quarter of those still run */
                int a = (int)pa_rng_range(&rng, 0, p[d].n - 1), b = (int)pa_rng_range(&rng, 0, p[s].n - 1);
                check_pair(p[2].scope, p[d].t[a], p[s].t[b], seed);
            }
        for (int m = 0; m < 3; m++)
            pa_scope_destroy(p[m].scope);
    }
    for (int i = 0; i < 16 && strategy_name[i][0]; i++)
        fprintf(stderr, "cuda_copy_random: %-24s %d copies\n", strategy_name[i], strategy_count[i]);
}
END_TEST

/* Declares FROM and TO in mtts fm and tm from templates with %s for the mtt, copies both ways, checks. */
static void check_decls(const char *from, const char *to, const char *fm, const char *tm)
{
    pa_scope *s;
    char a[256], b[256];
    PA_CK_OK(pa_scope_create(NULL, &s));
    snprintf(a, sizeof a, from, fm);
    snprintf(b, sizeof b, to, tm);
    PA_CK_OK(pa_declare(s, "FROM", a));
    PA_CK_OK(pa_declare(s, "TO", b));
    const pa_type *f = pa_type_get(s, "FROM"), *t = pa_type_get(s, "TO");
    ck_assert_msg(f && t, "%s", pa_last_error());
    check_pair(s, t, f, 0);
    check_pair(s, f, t, 0);
    pa_scope_destroy(s);
}

/* Listing 15 (data_transfer): rows of SIZE doubles, the two column dimensions transposed between host and
 * device ("the size of each contiguous unit coincides with the length of each row"). */
START_TEST(test_listing15_data_transfer)
{
    for (int h = 0; h < 2; h++)
        check_decls("%s double [[256][16]][256]", "%s double [[#FROM_0_1][#FROM_0_0]][#FROM_1]", h ? "pinned" : "paged",
                    "dmem");
}
END_TEST

/* Listing 25 (gpu_data_transfer): the transposition of a 4096 x 4096 float array on the device. */
START_TEST(test_listing25_gpu_data_transfer)
{
    check_decls("%s float [4096][4096]", "%s float [[#FROM_1][#FROM_0]]", "dmem", "dmem");
}
END_TEST

/* Every element width through the kernels: transposes (tiled), windows and reversals (direct), with sizes
 * that leave partial tiles, on the device and across PCIe; and a pageable copy long enough for the pipeline. */
START_TEST(test_widths)
{
    static const int elms[] = {1, 2, 3, 4, 5, 8, 12, 16, 24, 32, 48, 64};
    for (size_t i = 0; i < sizeof elms / sizeof *elms; i++) {
        char f[64], t[96];
        snprintf(f, sizeof f, "%%s bytes%d [333][517]", elms[i]);
        snprintf(t, sizeof t, "%%s bytes%d [[#FROM_1][#FROM_0]]", elms[i]);
        check_decls(f, t, "dmem", "dmem");
        check_decls(f, t, "pinned", "dmem");
        snprintf(f, sizeof f, "%%s bytes%d [40][7][33]", elms[i]);
        snprintf(t, sizeof t, "%%s bytes%d [[#FROM_2][#FROM_0][#FROM_1]]", elms[i]);
        check_decls(f, t, "dmem", "dmem");
    }
    check_decls("%s float [2][24][33]", "%s float [[#FROM_1][#FROM_0][#FROM_2]]", "dmem", "dmem");
    check_decls("%s int [2000][3000]", "%s int [[#FROM_1][#FROM_0]]", "paged", "dmem");
    check_decls("%s int [3000][3000]", "%s int [3000][3000]", "paged", "dmem");
}
END_TEST

/*
 * Whether a GPU is present, asked in a child process: Check runs each test in a forked child, and a CUDA
 * context made in this process before the fork would be unusable there.
 */
static int gpu_present(void)
{
    pid_t pid = fork();
    if (pid == 0)
        _exit(pa_cuda_device_count() > 0 ? 0 : 1);
    int status = 0;
    return pid > 0 && waitpid(pid, &status, 0) == pid && WIFEXITED(status) && WEXITSTATUS(status) == 0;
}

int main(void)
{
    if (!gpu_present()) {
        fprintf(stderr, "cuda_copy: skipped: no usable GPU (or no CUDA backend in this build)\n");
        return 77;
    }
    Suite *s = suite_create("cuda_copy");
    TCase *tc = tcase_create("copies");
    tcase_set_timeout(tc, 600);
    tcase_add_test(tc, test_random_directions);
    tcase_add_test(tc, test_listing15_data_transfer);
    tcase_add_test(tc, test_listing25_gpu_data_transfer);
    tcase_add_test(tc, test_widths);
    suite_add_tcase(s, tc);
    return pa_test_run(s);
}
