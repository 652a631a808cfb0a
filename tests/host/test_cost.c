/*
 * The cost model (src/core/plan/cost.c, src/backends/host/copy/cost_host.c): the file's round trip, its errors, where
 * it is looked for; the model's structure under fixed synthetic constants (predictions grow with the bytes, the
 * strategies' ranking follows the constants); and calibration, whose file reads back to the model in use.
 * Nothing is timed: the accuracy of calibrated predictions against measured copies is bench/cost_accuracy's
 * (a timed check failed here about one run in ten on a loaded 2-core machine).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "backends.h"
#include "internal.h"
#include "parray/cost.h"
#include "testutil.h"

static char dir[64];

static void setup(void)
{
    snprintf(dir, sizeof dir, "/tmp/pa_cost_XXXXXX");
    ck_assert_ptr_nonnull(mkdtemp(dir));
}

static void teardown(void)
{
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    ck_assert_int_eq(system(cmd), 0);
}

START_TEST(test_round_trip)
{
    char path[128];
    pa__cost_model m = *pa__cost_defaults(), back = *pa__cost_defaults();
    m.host_bw = 3.25;
    m.gpu_call = 12345;
    m.mpi_latency = 777;
    snprintf(path, sizeof path, "%s/sub/dir/cost", dir);   /* the directories are made */
    PA_CK_OK(pa__cost_write(path, &m, "test"));
    PA_CK_OK(pa__cost_read(path, &back, 1));
    ck_assert(memcmp(&m, &back, sizeof m) == 0);
}
END_TEST

/* pa_cost_print: the source line and one line per constant, the values of the model in use. */
START_TEST(test_print)
{
    FILE *f = tmpfile();
    char text[8192];
    ck_assert_ptr_nonnull(f);
    PA_CK_OK(pa_cost_print(f));
    rewind(f);
    size_t n = fread(text, 1, sizeof text - 1, f);
    text[n] = 0;
    fclose(f);
    ck_assert_msg(strncmp(text, "cost model: ", 12) == 0, "%s", text);
    char want[64];
    snprintf(want, sizeof want, "  %-20s %.6g\n", "host_bw", pa__cost()->host_bw);
    ck_assert_msg(strstr(text, want), "no line '%s' in:\n%s", want, text);
    ck_assert_msg(strstr(text, "  mpi_latency "), "%s", text);
    PA_CK_ERR(pa_cost_print(NULL), PA_ERR_INVAL);
}
END_TEST

/* pa_cost_get: a constant of the model in use by name; unknown names and NULLs refused, the value untouched. */
START_TEST(test_get)
{
    double v = -1;
    PA_CK_OK(pa_cost_get("host_bw", &v));
    ck_assert(v == pa__cost()->host_bw);
    PA_CK_OK(pa_cost_get("gpu_nccl_latency", &v));
    ck_assert(v == pa__cost()->gpu_nccl_latency);
    v = -1;
    PA_CK_ERR(pa_cost_get("no_such_constant", &v), PA_ERR_NAME);
    ck_assert_msg(strstr(pa_last_error(), "no_such_constant"), "%s", pa_last_error());
    ck_assert(v == -1);
    PA_CK_ERR(pa_cost_get(NULL, &v), PA_ERR_INVAL);
    PA_CK_ERR(pa_cost_get("host_bw", NULL), PA_ERR_INVAL);
}
END_TEST

START_TEST(test_bad_lines)
{
    char path[128];
    snprintf(path, sizeof path, "%s/cost", dir);
    FILE *f = fopen(path, "w");
    ck_assert_ptr_nonnull(f);
    fputs("# a comment\n\nhost_bw 7.5   # bytes per ns\nhost_tile -3\nno_such_constant 4\nhost_loop_unit\n"
          "gpu_call 2e4 extra\nmpi_net_bw 9\n", f);
    fclose(f);
    pa__cost_model m = *pa__cost_defaults();
    PA_CK_ERR(pa__cost_read(path, &m, 0), PA_ERR_PARSE);
    ck_assert(strstr(pa_last_error(), "4 lines skipped"));
    ck_assert_double_eq(m.host_bw, 7.5);
    ck_assert_double_eq(m.mpi_net_bw, 9);
    ck_assert_double_eq(m.host_tile, pa__cost_defaults()->host_tile);       /* negative: kept */
    ck_assert_double_eq(m.gpu_call, pa__cost_defaults()->gpu_call);         /* trailing word: kept */
    snprintf(path, sizeof path, "%s/missing", dir);
    PA_CK_ERR(pa__cost_read(path, &m, 0), PA_ERR_SYS);
}
END_TEST

START_TEST(test_path)
{
    char buf[256];
    setenv("PA_COST_FILE", "/somewhere/cost", 1);
    ck_assert_int_eq(pa_cost_path(buf, sizeof buf), (int)strlen("/somewhere/cost"));
    ck_assert_str_eq(buf, "/somewhere/cost");
    unsetenv("PA_COST_FILE");
    setenv("XDG_CACHE_HOME", "/xdg", 1);
    pa_cost_path(buf, sizeof buf);
    ck_assert_str_eq(buf, "/xdg/parray/cost");
    setenv("XDG_CACHE_HOME", "relative", 1);   /* not absolute: ignored, as the XDG spec says */
    setenv("HOME", "/home/u", 1);
    pa_cost_path(buf, sizeof buf);
    ck_assert_str_eq(buf, "/home/u/.cache/parray/cost");
    unsetenv("XDG_CACHE_HOME");
    unsetenv("HOME");
    PA_CK_ERR(pa_cost_path(buf, sizeof buf), PA_ERR_NAME);
    PA_CK_ERR(pa_cost_path(NULL, 4), PA_ERR_INVAL);
}
END_TEST

/* The model's structure, under fixed synthetic constants (the built-in defaults, changed where a test says):
 * predictions on one thread, read through pa_copy_query.  Nothing here is timed. */
static void use_model(const pa__cost_model *m)
{
    pa__cost_set(m, "test");
    PA_CK_OK(pa_copy_set_threads(1));
}

/* The strategy and predicted microseconds of dst <- src, both declared in s. */
static double predicted(pa_scope *s, const char *dst, const char *src, char *strategy, size_t len)
{
    const pa_type *dt = pa_type_get(s, dst), *st = pa_type_get(s, src);
    ck_assert_msg(dt && st, "%s", pa_last_error());
    pa_copy_info info;
    PA_CK_OK(pa_copy_query(dt, st, &info));
    ck_assert_msg(info.predicted_us > 0, "%s <- %s (%s): no prediction", dst, src, info.strategy);
    if (strategy)
        snprintf(strategy, len, "%s", info.strategy);
    return info.predicted_us;
}

/* Each kind of copy (contiguous, transpose, window, reversal, a gather through a func) at 4^k times the bytes:
 * every prediction grows with the bytes, and for the large ones nearly in proportion. */
START_TEST(test_costs_grow_with_bytes)
{
    use_model(pa__cost_defaults());
    static const char *const kinds[] = {
        "parray paged float [N*N] D; parray paged float [N*N] S",
        "parray paged float [[N][N]] S; parray paged float [[#S_1][#S_0]] D",
        "parray paged float [[N+8][N+8]] B; parray paged float [[N # disp(4) # B_0][N # disp(4) # B_1]] S; "
        "parray paged float [N][N] D",
        "parray paged float [N*N] D; parray paged float [N*N # step(-1) # disp(N*N-1) # D] S",
    };
    for (size_t k = 0; k < sizeof kinds / sizeof kinds[0]; k++) {
        double prev = 0;
        char prev_strategy[32] = "", strategy[32];
        for (int n = 64; n <= 2048; n *= 2) {
            pa_scope *s;
            PA_CK_OK(pa_scope_create(NULL, &s));
            PA_CK_OK(pa_scope_set_int(s, "N", n));
            PA_CK_OK(pa_declare_text(s, kinds[k]));
            double t = predicted(s, "D", "S", strategy, sizeof strategy);
            ck_assert_msg(t > prev, "%s with N = %d (%s): %.3f us, not more than %.3f us at N = %d (%s)", kinds[k], n,
                          strategy, t, prev, n / 2, prev_strategy);
            if (n >= 1024)   /* four times the bytes: between 2 and 6 times the time once fixed costs are small */
                ck_assert_msg(t > 2 * prev && t < 6 * prev, "%s: N = %d: %.3f us against %.3f us at half the edge",
                              kinds[k], n, t, prev);
            prev = t;
            snprintf(prev_strategy, sizeof prev_strategy, "%s", strategy);
            pa_scope_destroy(s);
        }
    }
}
END_TEST

/* The strategies' ranking under fixed constants: with the defaults each case gets its own strategy; making one
 * strategy's constant very large hands the case to another; halving the bandwidth nearly doubles a large
 * contiguous copy's prediction. */
START_TEST(test_ranking_follows_the_constants)
{
    pa_scope *s;
    char got[32];
    PA_CK_OK(pa_scope_create(NULL, &s));
    PA_CK_OK(pa_declare_text(s, "parray paged float [4194304] FLAT\n"
                                "parray paged float [[2048][2048]] A\n"
                                "parray paged float [[#A_1][#A_0]] AT\n"
                                "parray paged float [4194304 # step(-1) # disp(4194303) # FLAT] REVERSED\n"
                                "parray paged float [[2048][2048]] DATA\n"
                                "parray paged float [[2000 # disp(24) # DATA_0][2000 # disp(24) # DATA_1]] WINDOW\n"
                                "parray paged float [2000][2000] COPY\n"));
    pa__cost_model m = *pa__cost_defaults();
    use_model(&m);
    static const char *const want[][3] = {{"FLAT", "FLAT", "memcpy"}, {"AT", "A", "transpose"},
                                          {"FLAT", "REVERSED", "reverse"}, {"COPY", "WINDOW", "memcpy_runs"}};
    double t[4];
    for (int i = 0; i < 4; i++) {
        t[i] = predicted(s, want[i][0], want[i][1], got, sizeof got);
        ck_assert_msg(strcmp(got, want[i][2]) == 0, "%s <- %s: %s, want %s", want[i][0], want[i][1], got, want[i][2]);
    }
    /* The same bytes (the window has fewer): a plain memcpy is predicted cheaper than a transpose or a reversal. */
    for (int i = 1; i < 3; i++)
        ck_assert_msg(t[0] < t[i], "memcpy %.1f us, %s <- %s %.1f us", t[0], want[i][0], want[i][1], t[i]);
    m.host_transpose_unit = 1000;   /* a transpose made dear: the loops take the case */
    use_model(&m);
    predicted(s, "AT", "A", got, sizeof got);
    ck_assert_msg(strcmp(got, "transpose") != 0, "AT <- A still %s with host_transpose_unit 1000", got);
    m = *pa__cost_defaults();
    m.host_reverse_elem = 1000;
    use_model(&m);
    predicted(s, "FLAT", "REVERSED", got, sizeof got);
    ck_assert_msg(strcmp(got, "reverse") != 0, "FLAT <- REVERSED still %s with host_reverse_elem 1000", got);
    m = *pa__cost_defaults();
    m.host_bw = pa__cost_defaults()->host_bw / 2;
    use_model(&m);
    double slow = predicted(s, "FLAT", "FLAT", got, sizeof got);
    ck_assert_msg(slow > 1.8 * t[0] && slow < 2.2 * t[0], "half the bandwidth: %.1f us against %.1f us", slow, t[0]);
    PA_CK_OK(pa_copy_set_threads(0));
    pa_scope_destroy(s);
}
END_TEST

/* Calibration on this machine: the file it writes reads back without a skipped line to the model now in use
 * (6 significant digits), and every constant is a positive, finite number.  How close its predictions come to
 * measured copies is a benchmark (bench/cost_accuracy), not a test: it depends on the machine's load. */
START_TEST(test_calibration_round_trip)
{
    char path[128];
    snprintf(path, sizeof path, "%s/cost", dir);
    PA_CK_OK(pa_cost_calibrate(path, NULL));
    ck_assert_str_eq(pa__cost_source(), path);
    pa__cost_model back = *pa__cost_defaults();
    PA_CK_OK(pa__cost_read(path, &back, 1));
    const double *a = (const double *)&back, *b = (const double *)pa__cost();
    for (size_t i = 0; i < sizeof back / sizeof(double); i++) {
        ck_assert_msg(a[i] > 0 && a[i] < 1e12, "constant %zu: %g", i, a[i]);
        ck_assert_msg((a[i] > b[i] ? a[i] - b[i] : b[i] - a[i]) <= 1e-5 * b[i], "constant %zu: %g in the file, %g in use", i, a[i], b[i]);
    }
}
END_TEST

int main(void)
{
    Suite *s = suite_create("host_cost");
    TCase *tc = tcase_create("cost");
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, test_round_trip);
    tcase_add_test(tc, test_bad_lines);
    tcase_add_test(tc, test_print);
    tcase_add_test(tc, test_get);
    tcase_add_test(tc, test_path);
    tcase_add_test(tc, test_costs_grow_with_bytes);
    tcase_add_test(tc, test_ranking_follows_the_constants);
    tcase_add_test(tc, test_calibration_round_trip);
    suite_add_tcase(s, tc);
    return pa_test_run(s);
}
