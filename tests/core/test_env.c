/*
 * The environment variables the library reads (src/core/base/env.c): a valid value is taken, an unset one gives the
 * documented default silently, and every invalid one ("abc", "-3", "4097", "", "3junk", an unknown word, a
 * relative path) gives exactly one warning line on stderr and the documented default.  Each test runs in its
 * own process (Check forks), so a variable read once per process is read afresh.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "internal.h"
#include "testutil.h"

/* stderr goes to a temporary file between begin and end; end returns what was written (static buffer). */
static int saved_fd = -1;
static FILE *capture;

static void capture_begin(void)
{
    fflush(stderr);
    capture = tmpfile();
    ck_assert_ptr_nonnull(capture);
    saved_fd = dup(2);
    ck_assert_int_eq(dup2(fileno(capture), 2), 2);
}

static const char *capture_end(void)
{
    static char text[4096];
    fflush(stderr);
    dup2(saved_fd, 2);
    close(saved_fd);
    rewind(capture);
    size_t n = fread(text, 1, sizeof text - 1, capture);
    text[n] = '\0';
    fclose(capture);
    return text;
}

static int lines(const char *s)
{
    int n = 0;
    for (; *s; s++)
        n += *s == '\n';
    return n;
}

START_TEST(test_parse_int)
{
    long v = -1;
    ck_assert(pa__env_parse_int("1", 1, 4096, &v) && v == 1);
    ck_assert(pa__env_parse_int("4096", 1, 4096, &v) && v == 4096);
    ck_assert(pa__env_parse_int("+7", 1, 4096, &v) && v == 7);
    v = 99;
    static const char *const bad[] = {"abc", "-3", "4097", "", "3junk", "0", " 3", "3 ", "0x10", "1e3",
                                      "99999999999999999999999"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        ck_assert_msg(!pa__env_parse_int(bad[i], 1, 4096, &v) && v == 99, "'%s' was taken", bad[i]);
    ck_assert(!pa__env_parse_int(NULL, 1, 4096, &v));
}
END_TEST

/* The five invalid values of the issue, and a valid one, for PA_NUM_THREADS through pa_threads_get_num(). */
static const char *const thread_values[] = {"abc", "-3", "4097", "", "3junk", "3"};

START_TEST(test_num_threads)
{
    const char *value = thread_values[_i];
    pa_host_share_info sh;   /* the default: this process's share of the CPUs (the whole machine alone) */
    pa_host_share(&sh);
    long cpus = sh.cpus;
    int want = strcmp(value, "3") == 0 ? 3 : (int)(cpus < 1 ? 1 : cpus > PA_MAX_THREADS ? PA_MAX_THREADS : cpus);
    setenv("PA_NUM_THREADS", value, 1);
    capture_begin();
    int n = pa_threads_get_num();
    const char *err = capture_end();
    ck_assert_msg(n == want, "PA_NUM_THREADS='%s' gave %d threads, expected %d (the default)", value, n, want);
    if (strcmp(value, "3") == 0) {
        ck_assert_msg(err[0] == '\0', "a valid value warned: %s", err);
    } else {
        char head[64];
        snprintf(head, sizeof head, "parray: warning: PA_NUM_THREADS='%s' is not an integer in 1..4096", value);
        ck_assert_msg(strncmp(err, head, strlen(head)) == 0 && lines(err) == 1, "stderr: '%s'", err);
        ck_assert_msg(strstr(err, "this process's share of the CPUs") != NULL, "the default is not named: %s", err);
    }
}
END_TEST

START_TEST(test_num_threads_unset)
{
    unsetenv("PA_NUM_THREADS");
    capture_begin();
    int n = pa_threads_get_num();
    const char *err = capture_end();
    ck_assert_int_ge(n, 1);
    ck_assert_msg(err[0] == '\0', "an unset variable warned: %s", err);
}
END_TEST

START_TEST(test_warns_once)
{
    static atomic_int once;
    setenv("PA_TEST_ENV_X", "many", 1);
    capture_begin();
    long a = pa__env_int("PA_TEST_ENV_X", 0, 10, 4, NULL, &once), b = pa__env_int("PA_TEST_ENV_X", 0, 10, 4, NULL, &once);
    const char *err = capture_end();
    ck_assert(a == 4 && b == 4);
    ck_assert_msg(lines(err) == 1, "stderr: '%s'", err);
    ck_assert_str_eq(err, "parray: warning: PA_TEST_ENV_X='many' is not an integer in 0..10; using the default (4)\n");
}
END_TEST

START_TEST(test_flag_choice_dir)
{
    static atomic_int f1, f2, c1, d1;
    static const char *const words[] = {"none", "compact", "spread"};
    setenv("PA_TEST_FLAG", "1", 1);
    ck_assert_int_eq(pa__env_flag("PA_TEST_FLAG", &f1), 1);
    setenv("PA_TEST_FLAG", "yes", 1);
    capture_begin();
    int flag = pa__env_flag("PA_TEST_FLAG", &f2);
    const char *err = capture_end();
    ck_assert_int_eq(flag, 0);
    ck_assert_str_eq(err, "parray: warning: PA_TEST_FLAG='yes' is not 0 or 1; using the default (0)\n");

    setenv("PA_TEST_WORD", "spread", 1);
    ck_assert_int_eq(pa__env_choice("PA_TEST_WORD", words, 3, 0, &c1), 2);
    setenv("PA_TEST_WORD", "tight", 1);
    capture_begin();
    int c = pa__env_choice("PA_TEST_WORD", words, 3, 0, &c1);
    err = capture_end();
    ck_assert_int_eq(c, 0);
    ck_assert_str_eq(err, "parray: warning: PA_TEST_WORD='tight' is not one of none, compact, spread; using the "
                          "default (none)\n");

    setenv("PA_TEST_DIR", "/tmp/x", 1);
    ck_assert_str_eq(pa__env_dir("PA_TEST_DIR", 64, &d1, "none"), "/tmp/x");
    setenv("PA_TEST_DIR", "relative/dir", 1);
    capture_begin();
    const char *dir = pa__env_dir("PA_TEST_DIR", 64, &d1, "no directory");
    err = capture_end();
    ck_assert_ptr_null(dir);
    ck_assert_msg(strstr(err, "PA_TEST_DIR='relative/dir' is not an absolute path") && lines(err) == 1, "%s", err);
}
END_TEST

/* PA_BIND through pa_threads_get_binding: an unknown word is the default (none) with a warning. */
START_TEST(test_bind)
{
    setenv("PA_BIND", "everywhere", 1);
    capture_begin();
    pa_bind b = pa_threads_get_binding();
    const char *err = capture_end();
    ck_assert_int_eq(b, PA_BIND_NONE);
    ck_assert_msg(strstr(err, "PA_BIND='everywhere' is not one of none, compact, spread") && lines(err) == 1,
                  "stderr: '%s'", err);
}
END_TEST

/* PA_PLAN_INFO=1 explains a new plan; any other value than 0 or 1 warns once and explains nothing. */
START_TEST(test_plan_info)
{
    pa_scope *s;
    PA_CK_OK(pa_scope_create(NULL, &s));
    int a[12] = {0}, b[12];
    setenv("PA_PLAN_INFO", "verbose", 1);
    capture_begin();
    PA_CK_OK(pa_copy(pa_type_parse(s, "paged int [3][4]"), b, pa_type_parse(s, "paged int [12]"), a));
    PA_CK_OK(pa_copy(pa_type_parse(s, "paged int [4][3]"), b, pa_type_parse(s, "paged int [12]"), a));
    const char *err = capture_end();
    ck_assert_msg(strstr(err, "PA_PLAN_INFO='verbose' is not 0 or 1") && lines(err) == 1, "stderr: '%s'", err);
    pa_scope_destroy(s);
}
END_TEST

/* PA_VMEM_ISA: a name that is no SIMD set warns once and gives the widest set the CPU has (as unset does). */
START_TEST(test_vmem_isa)
{
    unsetenv("PA_VMEM_ISA");
    capture_begin();
    setenv("PA_VMEM_ISA", "avx9000", 1);
    const char *isa = pa_vmem_isa();
    const char *err = capture_end();
    ck_assert_msg(strstr(err, "warning: PA_VMEM_ISA='avx9000' is not one of avx512, avx2, sse2, scalar"), "%s", err);
    ck_assert_int_eq(lines(err), 1);
    ck_assert_ptr_nonnull(isa);
    ck_assert_str_ne(isa, "avx9000");
}
END_TEST

/* PA_NODE_RANKS / PA_NODE_RANK: a value that is no rank count, or a rank past the count, warns and falls back. */
START_TEST(test_node_ranks)
{
    pa_host_share_info info;
    unsetenv("OMPI_COMM_WORLD_LOCAL_SIZE");
    unsetenv("MPI_LOCALNRANKS");
    unsetenv("SLURM_NTASKS_PER_NODE");
    setenv("PA_NODE_RANKS", "2", 1);
    setenv("PA_NODE_RANK", "7", 1);
    capture_begin();
    PA_CK_OK(pa_host_share(&info));
    const char *err = capture_end();
    ck_assert_msg(strstr(err, "warning: PA_NODE_RANK='7' is not an integer in 0..1"), "%s", err);
    ck_assert_int_eq(info.local_ranks, 2);
    ck_assert_int_eq(info.local_rank, 0);
}
END_TEST

START_TEST(test_node_ranks_bad)
{
    pa_host_share_info info;
    unsetenv("OMPI_COMM_WORLD_LOCAL_SIZE");
    unsetenv("MPI_LOCALNRANKS");
    unsetenv("SLURM_NTASKS_PER_NODE");
    setenv("PA_NODE_RANKS", "-4", 1);
    capture_begin();
    PA_CK_OK(pa_host_share(&info));
    const char *err = capture_end();
    ck_assert_msg(strstr(err, "warning: PA_NODE_RANKS='-4' is not an integer in 1..1048576"), "%s", err);
    ck_assert_int_eq(info.local_ranks, 1);
    ck_assert_str_ne(info.source, "PA_NODE_RANKS");
}
END_TEST

/* PA_COST_FILE naming a directory, a FIFO or /dev/zero: one line on stderr, the built-in model, no hang. */
static const char *const cost_paths[] = {"dir", "fifo", "/dev/zero"};

START_TEST(test_cost_file_special)
{
    char tmp[64] = "/tmp/pa_env_XXXXXX", path[128];
    ck_assert_ptr_nonnull(mkdtemp(tmp));
    if (cost_paths[_i][0] == '/') {
        snprintf(path, sizeof path, "%s", cost_paths[_i]);
    } else {
        snprintf(path, sizeof path, "%s/%s", tmp, cost_paths[_i]);
        ck_assert_int_eq(_i == 0 ? mkdir(path, 0700) : mkfifo(path, 0600), 0);
    }
    setenv("PA_COST_FILE", path, 1);
    alarm(60);   /* a hang fails the test instead of blocking the suite */
    FILE *out = tmpfile();
    capture_begin();
    int rc = pa_cost_print(out);
    const char *err = capture_end();
    alarm(0);
    PA_CK_OK(rc);
    ck_assert_msg(strstr(err, "not a regular file") && strstr(err, "using the built-in defaults"), "%s", err);
    rewind(out);
    char line[256] = "";
    ck_assert_ptr_nonnull(fgets(line, sizeof line, out));
    ck_assert_msg(strstr(line, "built-in defaults"), "%s", line);
    fclose(out);
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmp);
    ck_assert_int_eq(system(cmd), 0);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("core_env");
    TCase *tc = tcase_create("env");
    tcase_add_test(tc, test_parse_int);
    tcase_add_loop_test(tc, test_num_threads, 0, (int)(sizeof thread_values / sizeof thread_values[0]));
    tcase_add_test(tc, test_num_threads_unset);
    tcase_add_test(tc, test_warns_once);
    tcase_add_test(tc, test_flag_choice_dir);
    tcase_add_test(tc, test_bind);
    tcase_add_test(tc, test_plan_info);
    tcase_add_test(tc, test_vmem_isa);
    tcase_add_test(tc, test_node_ranks);
    tcase_add_test(tc, test_node_ranks_bad);
    tcase_add_loop_test(tc, test_cost_file_special, 0, 3);
    suite_add_tcase(s, tc);
    return pa_test_run(s);
}
