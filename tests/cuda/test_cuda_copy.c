/*
 * GPU copies compared with the reference walk, in every direction among paged, pinned and dmem.
 *
 * The random part is the host suite's pool (tests/common/type_pool.c): types of one size and element
 * size (a random tree, a plain array, permutations of its sub-trees, a window into a padded array and its
 * permutation, a cyclic displacement, a reversing func()), declared once per memory type from the same random
 * draws, so that a type of one pool can be copied to any type of another.  Destinations are poisoned with
 * 0xA5 and every byte of their extent is compared with what pa__offset_walk says, the bytes the copy must not
 * touch included.  Then the manual's listings 15 (data_transfer) and 25 (gpu_data_transfer, as a copy), and
 * every element width through the tiled and direct kernels.  Without a GPU the suite exits 77 (skipped).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "internal.h"
#include "testutil.h"
#include "type_pool.h"

#define ROUNDS 150

static const char *const mtts[] = {"paged", "pinned", "dmem"};
static pa_rng rng;
static int strategy_count[16];
static char strategy_name[16][32];

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
    void *dst = pa_create(dt), *src = pa_create(st);
    char line[1024], dl[256], sl[256];
    pa_test_pair c;
    ck_assert_msg(dst && src, "%s", pa_last_error());
    pa_test_pair_fill(&c, sc, &rng, dt, dst, st, src);
    pa_copy_explain(dt, st, line, sizeof line);
    count_strategy(line);
    PA_CK_OK(pa_copy(dt, dst, st, src));
    int64_t i = pa_test_pair_diff(&c, sc, dt, dst);
    if (i >= 0) {
        pa_layout_format(dt, dl, sizeof dl);
        pa_layout_format(st, sl, sizeof sl);
        ck_abort_msg("seed %llu: copy %s %s %s <- %s %s %s: byte %lld is 0x%02x, expected 0x%02x; %s",
                     (unsigned long long)seed, pa_mtt(dt), pa_type_name(dt), dl, pa_mtt(st), pa_type_name(st), sl,
                     (long long)i, c.got[i], c.want[i], line);
    }
    PA_CK_OK(pa_destroy(dt, dst));
    PA_CK_OK(pa_destroy(st, src));
    pa_test_pair_free(&c);
}

START_TEST(test_random_directions)
{
    uint64_t seed = pa_test_seed("cuda_copy_random");
    static const int elms[] = {1, 2, 3, 4, 8, 12, 16, 5, 32, 64};
    rng.s = seed;
    for (int round = 0; round < ROUNDS; round++) {
        pa_type_pool p[3];
        int elm = elms[pa_rng_range(&rng, 0, 9)];
        pa_rng saved = rng;
        for (int m = 0; m < 3; m++) {   /* the same draws for each memory type: the same types */
            rng = saved;
            pa_type_pool_make(&p[m], &rng, mtts[m], elm, pa_rng_range(&rng, 1, 4) == 1 ? 20000 : 400);
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

/* 4-byte transposes whose strides are 16-byte multiples go through 16-byte vectors in tiles of 128 x 32 units:
 * whole tiles, edge tiles along either mode, a 3-D (2,1,0) permutation with an outer mode, and both ways. */
START_TEST(test_vector_tiles)
{
    pa_scope *s;
    char line[1024];
    PA_CK_OK(pa_scope_create(NULL, &s));
    PA_CK_OK(pa_declare_text(s, "parray dmem float [256][512] A\nparray dmem float [[#A_1][#A_0]] AT"));
    ck_assert_int_ge(pa_copy_explain(pa_type_get(s, "AT"), pa_type_get(s, "A"), line, sizeof line), 0);
    ck_assert_msg(strstr(line, "16-B vectors"), "%s", line);
    pa_scope_destroy(s);
    check_decls("%s float [256][512]", "%s float [[#FROM_1][#FROM_0]]", "dmem", "dmem");
    check_decls("%s float [300][520]", "%s float [[#FROM_1][#FROM_0]]", "dmem", "dmem");
    check_decls("%s int [136][8][264]", "%s int [[#FROM_2][#FROM_1][#FROM_0]]", "dmem", "dmem");
    check_decls("%s float [300][520]", "%s float [[#FROM_1][#FROM_0]]", "pinned", "dmem");
}
END_TEST

/* Runs of 1 KiB and more into and out of windows whose rows start inside a 128-byte line (the direct kernel
 * shifts each run's words onto the destination's lines): displacements of 0..31 elements, row pitches that are
 * and are not multiples of 128 bytes, words of 1 to 16 bytes (the char rows go by cudaMemcpy2D), a window in
 * the middle of a 3-D array; both ways, every byte of the destination's extent checked. */
START_TEST(test_aligned_runs)
{
    static const struct { const char *elm; int rows, pitch, run, disp; } w[] = {
        {"float", 40, 700, 600, 1},   {"float", 40, 700, 600, 3},    {"float", 33, 640, 600, 4},
        {"float", 9, 1040, 1000, 31}, {"double", 17, 333, 300, 1},   {"char", 21, 1601, 1500, 7},
        {"bytes3", 11, 520, 500, 1},  {"bytes12", 12, 110, 100, 9},  {"bytes16", 10, 100, 64, 1},
        {"float", 7, 300, 256, 0},
    };
    for (size_t i = 0; i < sizeof w / sizeof *w; i++) {
        pa_scope *s;
        char d[512];
        PA_CK_OK(pa_scope_create(NULL, &s));
        snprintf(d, sizeof d, "parray dmem %s [%d][%d] P\nparray dmem %s [[%d # disp(1) # P_0][%d # disp(%d) # P_1]] "
                 "WIN\nparray dmem %s [%d][%d] DENSE", w[i].elm, w[i].rows + 2, w[i].pitch, w[i].elm, w[i].rows,
                 w[i].run, w[i].disp, w[i].elm, w[i].rows, w[i].run);
        PA_CK_OK(pa_declare_text(s, d));
        const pa_type *win = pa_type_get(s, "WIN"), *dense = pa_type_get(s, "DENSE");
        ck_assert_msg(win && dense, "%s", pa_last_error());
        check_pair(s, win, dense, i);
        check_pair(s, dense, win, i);
        pa_scope_destroy(s);
    }
    pa_scope *s;
    PA_CK_OK(pa_scope_create(NULL, &s));
    PA_CK_OK(pa_declare_text(s, "parray dmem float [4][6][700] P\n"
                                "parray dmem float [[3 # disp(1) # P_0][4 # disp(1) # P_1][600 # disp(5) # P_2]] WIN\n"
                                "parray dmem float [3][4][600] DENSE"));
    check_pair(s, pa_type_get(s, "WIN"), pa_type_get(s, "DENSE"), 0);
    check_pair(s, pa_type_get(s, "DENSE"), pa_type_get(s, "WIN"), 0);
    pa_scope_destroy(s);
}
END_TEST

/* Issue 15 on the GPU: a plain host array given as the destination of a dmem type is PA_ERR_MTT naming both
 * (before, it went to the CUDA executor); a dmem array shifted in place by one element and transposed in place
 * copies as if through a temporary (a device temporary). */
START_TEST(test_dmem_mistyped_and_overlap)
{
    enum { N = 64 };
    pa_scope *s;
    PA_CK_OK(pa_scope_create(NULL, &s));
    const pa_type *D = pa_type_parse(s, "dmem int [63]"), *H = pa_type_parse(s, "paged int [63]");
    const pa_type *DN = pa_type_parse(s, "dmem int [64]"), *HN = pa_type_parse(s, "paged int [64]");
    int host[N], back[N], want[N];
    for (int i = 0; i < N; i++)
        host[i] = want[i] = i * 3 + 1;
    PA_CK_ERR(pa_copy(D, host, H, host + 1), PA_ERR_MTT);
    ck_assert_msg(strstr(pa_last_error(), "host memory") && strstr(pa_last_error(), "dmem"), "%s", pa_last_error());
    int *d = pa_create(DN);
    ck_assert_ptr_nonnull(d);
    PA_CK_OK(pa_copy(DN, d, HN, host));
    PA_CK_OK(pa_copy(D, d + 1, D, d));   /* in place on the device: d[1..64) <- d[0..63) */
    memmove(want + 1, want, 63 * sizeof(int));
    PA_CK_OK(pa_copy(HN, back, DN, d));
    for (int i = 0; i < N; i++)
        ck_assert_msg(back[i] == want[i], "d[%d] = %d, expected %d", i, back[i], want[i]);
    PA_CK_OK(pa_declare(s, "M", "dmem int [8][8]"));
    PA_CK_OK(pa_declare(s, "MT", "dmem int [[#M_1][#M_0]]"));
    PA_CK_OK(pa_copy(pa_type_get(s, "MT"), d, pa_type_get(s, "M"), d));   /* transposed in place */
    PA_CK_OK(pa_copy(HN, back, DN, d));
    for (int i = 0; i < 8; i++)
        for (int j = 0; j < 8; j++)
            ck_assert_msg(back[j * 8 + i] == want[i * 8 + j], "(%d,%d)", i, j);
    PA_CK_OK(pa_destroy(DN, d));
    pa_scope_destroy(s);
}
END_TEST

int main(void)
{
    if (pa_test_skip_without_gpu("cuda_copy"))
        return 77;
    Suite *s = suite_create("cuda_copy");
    TCase *tc = tcase_create("copies");
    tcase_set_timeout(tc, 600);
    tcase_add_test(tc, test_random_directions);
    tcase_add_test(tc, test_listing15_data_transfer);
    tcase_add_test(tc, test_listing25_gpu_data_transfer);
    tcase_add_test(tc, test_widths);
    tcase_add_test(tc, test_vector_tiles);
    tcase_add_test(tc, test_dmem_mistyped_and_overlap);
    tcase_add_test(tc, test_aligned_runs);
    suite_add_tcase(s, tc);
    return pa_test_run(s);
}
