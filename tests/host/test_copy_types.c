/*
 * pa_copy, pa_copy_explain and pa_copy_set_threads through real types: the manual's examples, parameterised
 * windows sharing one plan, gathered types, PA_PLAN_INFO, and every error, each checked to write nothing.
 */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "plan.h"
#include "parray/backend.h"
#include "test_copy.h"
#include <parray/cuda.h>

static pa_scope *scope(const char *text)
{
    pa_scope *s;
    PA_CK_OK(pa_scope_create(NULL, &s));
    PA_CK_OK(pa_declare_text(s, text));
    return s;
}

static const pa_type *get(pa_scope *s, const char *ref)
{
    const pa_type *t = pa_type_get(s, ref);
    ck_assert_msg(t != NULL, "pa_type_get(%s): %s", ref, pa_last_error());
    return t;
}

START_TEST(test_listing6_transposition)
{
    pa_scope *s = scope("var n = 3; var m = 2\nparray paged int [[n][n]][m] A\nparray paged int [[#A_0_1][#A_0_0]][#A_1] B");
    int a[18], b[18];
    const int want[18] = {0, 1, 6, 7, 12, 13, 2, 3, 8, 9, 14, 15, 4, 5, 10, 11, 16, 17};
    for (int i = 0; i < 18; i++)
        a[i] = i;
    PA_CK_OK(pa_copy(get(s, "B"), b, get(s, "A"), a));
    for (int i = 0; i < 18; i++)
        ck_assert_int_eq(b[i], want[i]);
    pa_scope_destroy(s);
}
END_TEST

START_TEST(test_window_explain)
{
    pa_scope *s = scope("parray paged float [[100][100]] DATA\n"
                        "parray paged float [[80 # disp(10) # DATA_0][80 # disp(10) # DATA_1]] WINDOW\n"
                        "parray paged float [80][80] COPY");
    float *data = malloc(10000 * sizeof *data), *copy = malloc(6400 * sizeof *copy);
    char line[512];
    for (int i = 0; i < 10000; i++)
        data[i] = (float)i;
    int n = pa_copy_explain(get(s, "COPY"), get(s, "WINDOW"), line, sizeof line);
    ck_assert_str_eq(line, "copy 6400 x 4 B: strategy=memcpy_runs shape=(80,80):dst(80,1)src(100,1) run=320 B "
                           "threads=1 async=waits predicted=3.68 us \xe2\x80\x94 rows of 80 contiguous elements on both sides");
    ck_assert_int_eq(n, (int)strlen(line));
    ck_assert_int_eq(pa_copy_explain(get(s, "COPY"), get(s, "WINDOW"), NULL, 0), n);
    PA_CK_OK(pa_copy(get(s, "COPY"), copy, get(s, "WINDOW"), data));
    for (int i = 0; i < 80; i++)
        for (int j = 0; j < 80; j++)
            ck_assert_msg(copy[i * 80 + j] == data[(i + 10) * 100 + j + 10], "COPY(%d,%d)", i, j);
    free(data);
    free(copy);
    pa_scope_destroy(s);
}
END_TEST

/* pa_copy_query gives explain's values: the window's memcpy_runs, a cyclic shift's two pieces, the walk of a
 * refused layout (no prediction), and its checks. */
START_TEST(test_copy_query)
{
    pa_scope *s = scope("parray paged float [[100][100]] DATA\n"
                        "parray paged float [[80 # disp(10) # DATA_0][80 # disp(10) # DATA_1]] WINDOW\n"
                        "parray paged float [80][80] COPY\n"
                        "parray paged float [1000] FLAT\n"
                        "parray paged float [1000 # disp(3) # FLAT] SHIFT\n"
                        "parray paged float [[512][512]] A\n"
                        "parray paged float [[#A_1][#A_0]] AT");
    pa_copy_info info;
    char line[512];
    PA_CK_OK(pa_copy_query(get(s, "COPY"), get(s, "WINDOW"), &info));
    ck_assert_str_eq(info.strategy, "memcpy_runs");
    ck_assert_int_eq(info.threads, 1);
    ck_assert_int_eq(info.pieces, 0);
    ck_assert_int_eq(info.queued, 0);
    ck_assert_int_eq(info.streaming, 0);
    pa_copy_explain(get(s, "COPY"), get(s, "WINDOW"), line, sizeof line);
    char want[64];
    snprintf(want, sizeof want, "predicted=%.3g us", info.predicted_us);
    ck_assert_msg(strstr(line, want), "%s not in %s", want, line);
    PA_CK_OK(pa_copy_query(get(s, "FLAT"), get(s, "SHIFT"), &info));
    ck_assert_int_eq(info.pieces, 2);
    ck_assert_str_eq(info.strategy, "memcpy");
    PA_CK_OK(pa_copy_query(get(s, "AT"), get(s, "A"), &info));
    ck_assert_str_eq(info.strategy, "transpose");
    ck_assert(info.predicted_us > 0);
    const pa_type *wrap = pa_type_parse(s, "paged int [4194305 # [7]]");
    const pa_type *flat = pa_type_parse(s, "paged int [4194305]");
    PA_CK_OK(pa_copy_query(flat, wrap, &info));
    ck_assert_str_eq(info.strategy, "walk");
    ck_assert(info.predicted_us < 0);
    PA_CK_ERR(pa_copy_query(flat, wrap, NULL), PA_ERR_INVAL);
    PA_CK_ERR(pa_copy_query(get(s, "COPY"), get(s, "FLAT"), &info), PA_ERR_SIZE);
    pa_scope_destroy(s);
}
END_TEST

START_TEST(test_parameterised_windows_share_a_plan)
{
    /* Listing 37/38: WINDOW<1,2>(d) to WINDOW<4,1>(d) moves a 2x4 block inside one 6x6 array. */
    pa_scope *s = scope("parray paged int [[6][6]] DATA\n"
                        "parray <int y, int x> paged int [[2 # disp(y) # DATA_0][4 # disp(x) # DATA_1]] WINDOW");
    int d[36];
    for (int i = 0; i < 36; i++)
        d[i] = i;
    PA_CK_OK(pa_copy(get(s, "WINDOW<4,1>"), d, get(s, "WINDOW<1,2>"), d));
    long misses = pa__plan_cache_misses();
    PA_CK_OK(pa_copy(get(s, "WINDOW<0,0>"), d, get(s, "WINDOW<2,2>"), d));
    ck_assert_int_eq(pa__plan_cache_misses(), misses);      /* only the bases differ */
    int want[36];
    for (int i = 0; i < 36; i++)
        want[i] = i;
    for (int i = 0; i < 2; i++)
        for (int j = 0; j < 4; j++)
            want[(4 + i) * 6 + 1 + j] = (1 + i) * 6 + 2 + j;
    for (int i = 0; i < 2; i++)
        for (int j = 0; j < 4; j++)
            want[i * 6 + j] = want[(2 + i) * 6 + 2 + j];
    for (int i = 0; i < 36; i++)
        ck_assert_msg(d[i] == want[i], "d[%d] = %d, expected %d", i, d[i], want[i]);
    pa_scope_destroy(s);
}
END_TEST

static int64_t reverse_fn(int64_t i, void *ctx)
{
    return *(const int64_t *)ctx - 1 - i;
}

START_TEST(test_gathered_types)
{
    static const int64_t n = 1000;
    pa_scope *s = scope("parray paged short [10 # disp(3) # [10]] G\nparray paged short [10] P");
    PA_CK_OK(pa_scope_def_func(s, "rev", reverse_fn, (void *)&n));
    PA_CK_OK(pa_declare(s, "R", "paged double [1000 # func(rev)]"));
    PA_CK_OK(pa_declare(s, "D", "paged double [1000]"));
    short g[10], p[10];
    for (int i = 0; i < 10; i++)
        g[i] = (short)(100 + i);
    PA_CK_OK(pa_copy(get(s, "P"), p, get(s, "G"), g));
    for (int i = 0; i < 10; i++)
        ck_assert_int_eq(p[i], 100 + (i + 3) % 10);
    double *r = malloc(1000 * sizeof *r), *dd = malloc(1000 * sizeof *dd);
    for (int i = 0; i < 1000; i++)
        r[i] = i;
    PA_CK_OK(pa_copy(get(s, "D"), dd, get(s, "R"), r));
    for (int i = 0; i < 1000; i++)
        ck_assert(dd[i] == 999 - i);
    free(r);
    free(dd);
    pa_scope_destroy(s);
}
END_TEST

/* Each error: its code, a message, and a destination left as it was. */
START_TEST(test_errors_write_nothing)
{
    pa_scope *s = scope("parray paged int [4][4] A\nparray paged int [[2][8]] B\nparray paged int [15] C\n"
                        "parray paged double [16] E\nparray [16] V\nparray dmem int [16] DEV\n"
                        "parray pinned int [16] PIN");
    int src[16] = {0}, dst[16];
    memset(dst, 0xA5, sizeof dst);
    PA_CK_ERR(pa_copy(NULL, dst, get(s, "A"), src), PA_ERR_INVAL);
    PA_CK_ERR(pa_copy(get(s, "B"), NULL, get(s, "A"), src), PA_ERR_INVAL);
    PA_CK_ERR(pa_copy(get(s, "B"), dst, get(s, "A"), NULL), PA_ERR_INVAL);
    PA_CK_ERR(pa_copy(get(s, "C"), dst, get(s, "A"), src), PA_ERR_SIZE);
    ck_assert_msg(strstr(pa_last_error(), "A (16 elements)") && strstr(pa_last_error(), "C (15 elements)"), "%s",
                  pa_last_error());
    PA_CK_ERR(pa_copy(get(s, "E"), dst, get(s, "A"), src), PA_ERR_ELM);
    PA_CK_ERR(pa_copy(get(s, "V"), dst, get(s, "A"), src), PA_ERR_ELM);
    if (!pa_test_built("cuda")) {
        PA_CK_ERR(pa_copy(get(s, "DEV"), dst, get(s, "A"), src), PA_ERR_MTT);
        ck_assert_msg(strstr(pa_last_error(), "no copy strategy"), "%s", pa_last_error());
        PA_CK_ERR(pa_copy(get(s, "A"), dst, get(s, "PIN"), src), PA_ERR_MTT);
    } else {
        /* With the CUDA backend built, copies to dmem fail cleanly when it is switched off (PA_BACKENDS=-cuda: the
         * memory type has no allocator) and when there is no GPU (tests/cuda/ has the rest). */
        if (!pa_backend_on("cuda")) {
            PA_CK_ERR(pa_copy(get(s, "DEV"), dst, get(s, "A"), src), PA_ERR_MTT);
            ck_assert_msg(strstr(pa_last_error(), "switched off (PA_BACKENDS)"), "%s", pa_last_error());
        } else if (pa_cuda_device_count() < 0)
            PA_CK_ERR(pa_copy(get(s, "DEV"), dst, get(s, "A"), src), PA_ERR_NODEV);
    }
    PA_CK_ERR(pa_copy_explain(get(s, "C"), get(s, "A"), NULL, 0), PA_ERR_SIZE);
    PA_CK_ERR(pa_copy_set_threads(-1), PA_ERR_INVAL);
    PA_CK_OK(pa_copy_set_threads(0));
    for (int i = 0; i < 16; i++)
        ck_assert_int_eq(dst[i], (int)0xA5A5A5A5);
    PA_CK_OK(pa_copy(get(s, "B"), dst, get(s, "A"), src));
    pa_scope_destroy(s);
}
END_TEST

/* PA_PLAN_INFO=1 prints the explanation once per plan made, to stderr. */
START_TEST(test_plan_info)
{
    pa_scope *s = scope("parray paged char [[37][3]] A\nparray paged char [[#A_1][#A_0]] B");
    char a[111] = {0}, b[111], out[2048] = {0};
    FILE *tmp = tmpfile();
    int saved = dup(2);
    ck_assert(tmp && saved >= 0);
    fflush(stderr);
    dup2(fileno(tmp), 2);
    setenv("PA_PLAN_INFO", "1", 1);
    PA_CK_OK(pa_copy(get(s, "B"), b, get(s, "A"), a));
    PA_CK_OK(pa_copy(get(s, "B"), b, get(s, "A"), a));
    unsetenv("PA_PLAN_INFO");
    fflush(stderr);
    dup2(saved, 2);
    close(saved);
    rewind(tmp);
    size_t got = fread(out, 1, sizeof out - 1, tmp);
    fclose(tmp);
    ck_assert_msg(got > 0 && strstr(out, "copy 111 x 1 B: strategy="), "printed: %s", out);
    char *first = strstr(out, "copy 111"), *second = first ? strstr(first + 1, "copy 111") : NULL;
    ck_assert_msg(second == NULL, "printed twice: %s", out);
    pa_scope_destroy(s);
}
END_TEST

/*
 * A type whose layout the compiler refuses (a wrap of 2^22 + 1 elements through 7: a table past its budget)
 * is still copied, element by element through the reference walk, both ways, and the explanation says so.
 */
START_TEST(test_refused_layout_walks)
{
    pa_scope *s;
    PA_CK_OK(pa_scope_create(NULL, &s));
    const int64_t n = 4194305;
    const pa_type *wrap = pa_type_parse(s, "paged int [4194305 # [7]]");
    const pa_type *flat = pa_type_parse(s, "paged int [4194305]");
    ck_assert_msg(wrap && flat, "%s", pa_last_error());
    char line[512];
    ck_assert_int_lt(pa_layout_format(wrap, line, sizeof line), 0);   /* refused */
    ck_assert_int_gt(pa_copy_explain(flat, wrap, line, sizeof line), 0);
    ck_assert_msg(strstr(line, "strategy=walk") && strstr(line, "refused"), "%s", line);
    int seven[8] = {10, 11, 12, 13, 14, 15, 16, -1};
    int *y = malloc((size_t)n * sizeof *y);
    for (int64_t k = 0; k < n; k++)
        y[k] = -7;
    PA_CK_OK(pa_copy(flat, y, wrap, seven));
    int64_t bad = -1;   /* the first wrong element (one assertion: Check's are costly by the million) */
    for (int64_t k = 0; k < n && bad < 0; k++)
        bad = y[k] == 10 + (int)(k % 7) ? -1 : k;
    ck_assert_msg(bad < 0, "element %lld: %d", (long long)bad, bad < 0 ? 0 : y[bad]);
    /* Into the wrap: every element of the 7 receives some y[k] with k % 7 equal to its offset; the 8th is
     * outside the type and keeps its value. */
    PA_CK_OK(pa_copy(wrap, seven, flat, y));
    for (int i = 0; i < 7; i++)
        ck_assert_int_eq(seven[i], 10 + i);
    ck_assert_int_eq(seven[7], -1);
    free(y);
    pa_scope_destroy(s);
}
END_TEST

TCase *pa_test_copy_types_tcase(void)
{
    TCase *tc = tcase_create("types");
    tcase_add_test(tc, test_listing6_transposition);
    tcase_add_test(tc, test_window_explain);
    tcase_add_test(tc, test_copy_query);
    tcase_add_test(tc, test_parameterised_windows_share_a_plan);
    tcase_add_test(tc, test_gathered_types);
    tcase_add_test(tc, test_errors_write_nothing);
    tcase_add_test(tc, test_plan_info);
    tcase_add_test(tc, test_refused_layout_walks);
    return tc;
}
