/*
 * The cost model (src/core/cost.c, src/backends/pthread/cost_host.c): the file's round trip, its errors, where
 * it is looked for, and calibration: after pa_cost_calibrate on this machine, the planner's predicted time of
 * each of bench/copy_host's cases (at 16 MiB, on one thread) is within a factor of two of the measured median.
 * The timing check is skipped in sanitizer and unoptimised builds, whose kernels are not the ones measured; on
 * a loaded machine each case gets three calibrations before it fails.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "backends.h"
#include "parray/cost.h"
#include "testutil.h"

#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__) || !defined(__OPTIMIZE__)
#define TIMING_TRUSTED 0
#else
#define TIMING_TRUSTED 1
#endif

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

/* bench/copy_host's cases at 16 MiB (the transposition and window a little less). */
static const char decls[] =
    "parray paged float [4194304] FLAT\n"
    "parray paged float [[2048][2048]] A\n"
    "parray paged float [[#A_1][#A_0]] AT\n"
    "parray paged float4 [[1024][1024]] Q\n"
    "parray paged float4 [[#Q_1][#Q_0]] QT\n"
    "parray paged float [[1024][1024]][4] M\n"
    "parray paged float [[#M_0_1][#M_0_0]][#M_1] MT\n"
    "parray paged float [[2048][2048]] DATA\n"
    "parray paged float [[2000 # disp(24) # DATA_0][2000 # disp(24) # DATA_1]] WINDOW\n"
    "parray paged float [2000][2000] COPY\n"
    "parray paged float [4194304 # step(-1) # disp(4194303) # FLAT] REVERSED\n";
static const char *const cases[][2] = {{"FLAT", "FLAT"}, {"AT", "A"},         {"QT", "Q"},
                                       {"MT", "M"},      {"COPY", "WINDOW"}, {"FLAT", "REVERSED"}};

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec * 1e9 + (double)t.tv_nsec;
}

static int cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* The measured median of 7 copies and the planner's prediction, ns. */
static void measure(pa_scope *s, const char *dn, const char *sn, void *d, void *src, double *got, double *want,
                    const char **strategy)
{
    const pa_type *dt = pa_type_get(s, dn), *st = pa_type_get(s, sn);
    const pa__layout *dl = pa__type_layout(dt), *sl = pa__type_layout(st);
    double t[7];
    pa__plan *p;
    ck_assert(dl && sl);
    PA_CK_OK(pa__plan_get(dl, sl, pa_elm_size(dt), NULL, NULL, &p));
    *want = p->strategy->predict ? p->strategy->predict(p) : p->cost_ns;
    *strategy = p->strategy->name;
    pa__plan_unref(p);
    PA_CK_OK(pa_copy(dt, d, st, src));
    for (int r = 0; r < 7; r++) {
        double t0 = now();
        PA_CK_OK(pa_copy(dt, d, st, src));
        t[r] = now() - t0;
    }
    qsort(t, 7, sizeof t[0], cmp);
    *got = t[3];
}

START_TEST(test_prediction)
{
    if (!TIMING_TRUSTED)
        return;
    pa_scope *s;
    char path[128];
    snprintf(path, sizeof path, "%s/cost", dir);
    PA_CK_OK(pa_scope_create(NULL, &s));
    PA_CK_OK(pa_declare_text(s, decls));
    PA_CK_OK(pa_copy_set_threads(1));
    size_t bytes = (size_t)17 << 20;
    char *d = aligned_alloc(64, bytes), *src = aligned_alloc(64, bytes);
    ck_assert(d && src);
    memset(d, 1, bytes);
    memset(src, 2, bytes);
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        double got = 0, want = 0;
        const char *name = "";
        int attempt;
        for (attempt = 0; attempt < 3; attempt++) {
            if (attempt || c == 0)
                PA_CK_OK(pa_cost_calibrate(path, NULL));
            measure(s, cases[c][0], cases[c][1], d, src, &got, &want, &name);
            if (got <= 2 * want && want <= 2 * got)
                break;
        }
        printf("%-6s <- %-8s %-12s predicted %9.0f us, measured %9.0f us (%.2f)%s\n", cases[c][0], cases[c][1],
               name, want * 1e-3, got * 1e-3, got / want, attempt ? " after recalibrating" : "");
        ck_assert_msg(attempt < 3, "%s <- %s (%s): predicted %.0f us, measured %.0f us", cases[c][0], cases[c][1],
                      name, want * 1e-3, got * 1e-3);
    }
    PA_CK_OK(pa_copy_set_threads(0));
    free(d);
    free(src);
    pa_scope_destroy(s);
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
    tcase_add_test(tc, test_path);
    tcase_add_test(tc, test_prediction);
    suite_add_tcase(s, tc);
    return pa_test_run(s);
}
