/*
 * The run-time compiler (src/backends/cuda/rtc_*.c) without a GPU: NVRTC compiles to a cubin for sm_90, the
 * memory and disk caches answer repeated requests, corrupt, truncated and foreign cache files are rejected and
 * rewritten, an unwritable cache directory does not fail a compilation, and compile errors carry NVRTC's log.
 * Every test uses its own temporary PA_KERNEL_CACHE.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "rtc_internal.h"
#include "testutil.h"

static const char *src_add = "extern \"C\" __global__ void add_one(int *p) { p[threadIdx.x] += 1; }\n";
static pa_cuda__rtc_stats stats_now(void)
{
    pa_cuda__rtc_stats s;
    pa_cuda__rtc_get_stats(&s);
    return s;
}

START_TEST(test_cubin_sm90)
{
    const pa_cuda__image *img;
    size_t n = 0;
    PA_CK_OK(pa_cuda__rtc_compile("add", src_add, NULL, 0, 90, &img));
    const unsigned char *p = pa_cuda__image_data(img, &n);
    ck_assert(n > 64);
    ck_assert(p[0] == 0x7f && p[1] == 'E' && p[2] == 'L' && p[3] == 'F');
    ck_assert_msg(memmem(p, n, "add_one", 7) != NULL, "the entry symbol is not in the cubin");
}
END_TEST

START_TEST(test_keys)
{
    pa_cuda__rtc_key a, b, c, d, e;
    const char *o1[] = {"-DX=1"}, *o2[] = {"-DX=2"};
    PA_CK_OK(pa_cuda__rtc_key_of(src_add, o1, 1, 90, &a));
    PA_CK_OK(pa_cuda__rtc_key_of(src_add, o1, 1, 90, &b));
    PA_CK_OK(pa_cuda__rtc_key_of(src_add, o2, 1, 90, &c));
    PA_CK_OK(pa_cuda__rtc_key_of(src_add, o1, 1, 80, &d));
    PA_CK_OK(pa_cuda__rtc_key_of("// other\n", o1, 1, 90, &e));
    ck_assert(a.key == b.key && a.check == b.check);
    ck_assert(a.key != c.key && a.check != c.check);
    ck_assert(a.key != d.key && a.check != d.check);
    ck_assert(a.key != e.key && a.check != e.check);
    /* Option boundaries are part of the key: {"ab"} differs from {"a","b"}. */
    const char *s1[] = {"-Dab"}, *s2[] = {"-Da", "b"};
    PA_CK_OK(pa_cuda__rtc_key_of(src_add, s1, 1, 90, &a));
    PA_CK_OK(pa_cuda__rtc_key_of(src_add, s2, 2, 90, &b));
    ck_assert(a.key != b.key);
}
END_TEST

START_TEST(test_memory_hit)
{
    const pa_cuda__image *a, *b, *c;
    const char *opt[] = {"-DUNUSED=1"};
    PA_CK_OK(pa_cuda__rtc_compile("add", src_add, NULL, 0, 90, &a));
    pa_cuda__rtc_stats s0 = stats_now();
    PA_CK_OK(pa_cuda__rtc_compile("add", src_add, NULL, 0, 90, &b));
    pa_cuda__rtc_stats s1 = stats_now();
    ck_assert_ptr_eq(a, b);
    ck_assert_int_eq(s1.memory_hits, s0.memory_hits + 1);
    ck_assert_int_eq(s1.compiles, s0.compiles);
    PA_CK_OK(pa_cuda__rtc_compile("add", src_add, opt, 1, 90, &c));
    ck_assert_ptr_ne(a, c);
    ck_assert_int_eq(stats_now().compiles, s0.compiles + 1);
}
END_TEST

static void cache_file(const pa_cuda__image *img, char *path, size_t len)
{
    pa_cuda__rtc_key k = pa_cuda__image_key(img);
    ck_assert(pa_cuda__rtc_cache_path(&k, path, len));
    ck_assert_msg(access(path, R_OK) == 0, "no cache file %s", path);
}

START_TEST(test_disk_hit)
{
    const pa_cuda__image *a, *b;
    char path[1024];
    size_t na, nb;
    PA_CK_OK(pa_cuda__rtc_compile("add", src_add, NULL, 0, 90, &a));
    cache_file(a, path, sizeof path);
    pa_cuda__rtc_forget();
    pa_cuda__rtc_stats s0 = stats_now();
    PA_CK_OK(pa_cuda__rtc_compile("add", src_add, NULL, 0, 90, &b));
    pa_cuda__rtc_stats s1 = stats_now();
    ck_assert_int_eq(s1.disk_hits, s0.disk_hits + 1);
    ck_assert_int_eq(s1.compiles, s0.compiles);
    const void *pa = pa_cuda__image_data(a, &na), *pb = pa_cuda__image_data(b, &nb);
    ck_assert(na == nb && memcmp(pa, pb, na) == 0);
}
END_TEST

/* Damages a cache file in one of several ways. */
static void damage(const char *path, int how, const char *other)
{
    FILE *f;
    char cmd[2200];
    long n;
    switch (how) {
    case 0: /* a flipped byte in the cubin */
        ck_assert_ptr_nonnull(f = fopen(path, "r+b"));
        fseek(f, -100, SEEK_END);
        int c = fgetc(f);
        fseek(f, -100, SEEK_END);
        fputc(c ^ 0x5a, f);
        fclose(f);
        break;
    case 1: /* truncated */
        ck_assert_ptr_nonnull(f = fopen(path, "rb"));
        fseek(f, 0, SEEK_END);
        n = ftell(f);
        fclose(f);
        ck_assert_int_eq(truncate(path, n / 2), 0);
        break;
    case 2: /* another request's file under this name */
        snprintf(cmd, sizeof cmd, "cp '%s' '%s'", other, path);
        ck_assert_int_eq(system(cmd), 0);
        break;
    case 3: /* not a cache file at all */
        ck_assert_ptr_nonnull(f = fopen(path, "wb"));
        fputs("this is not a cubin\n", f);
        fclose(f);
        break;
    default: /* empty */
        ck_assert_int_eq(truncate(path, 0), 0);
        break;
    }
}

START_TEST(test_disk_damaged)
{
    const pa_cuda__image *a, *b, *other;
    const char *opt[] = {"-DOTHER=1"};
    char path[1024], opath[1024], why[128];
    void *bin = NULL;
    size_t n;
    PA_CK_OK(pa_cuda__rtc_compile("other", src_add, opt, 1, 90, &other));
    cache_file(other, opath, sizeof opath);
    PA_CK_OK(pa_cuda__rtc_compile("add", src_add, NULL, 0, 90, &a));
    cache_file(a, path, sizeof path);
    damage(path, _i, opath);
    pa_cuda__rtc_key k = pa_cuda__image_key(a);
    int r = pa_cuda__rtc_disk_read(&k, &bin, &n, why, sizeof why);
    ck_assert_msg(r == -1, "damage %d: read gave %d", _i, r);
    pa_cuda__rtc_forget();
    pa_cuda__rtc_stats s0 = stats_now();
    PA_CK_OK(pa_cuda__rtc_compile("add", src_add, NULL, 0, 90, &b));
    pa_cuda__rtc_stats s1 = stats_now();
    ck_assert_int_eq(s1.disk_rejects, s0.disk_rejects + 1);
    ck_assert_int_eq(s1.compiles, s0.compiles + 1);
    ck_assert_int_eq(s1.disk_writes, s0.disk_writes + 1);
    /* The file was rewritten and is sound again. */
    ck_assert_int_eq(pa_cuda__rtc_disk_read(&k, &bin, &n, why, sizeof why), 1);
    free(bin);
}
END_TEST

/* A FIFO (or anything but a regular file) at a cache file's path is neither opened nor waited on: the kernel is
 * compiled again and the FIFO replaced by a sound file.  Before the fix the read blocked in open() for ever; the
 * alarm turns that into a failure. */
START_TEST(test_disk_fifo)
{
    const pa_cuda__image *a, *b;
    char path[1024], why[128] = "";
    void *bin = NULL;
    size_t n;
    struct stat sb;
    PA_CK_OK(pa_cuda__rtc_compile("add", src_add, NULL, 0, 90, &a));
    cache_file(a, path, sizeof path);
    ck_assert_int_eq(unlink(path), 0);
    ck_assert_int_eq(mkfifo(path, 0600), 0);
    alarm(20);
    pa_cuda__rtc_key k = pa_cuda__image_key(a);
    ck_assert_int_eq(pa_cuda__rtc_disk_read(&k, &bin, &n, why, sizeof why), -1);
    ck_assert_str_eq(why, "not a regular file");
    pa_cuda__rtc_forget();
    pa_cuda__rtc_stats s0 = stats_now();
    PA_CK_OK(pa_cuda__rtc_compile("add", src_add, NULL, 0, 90, &b));
    pa_cuda__rtc_stats s1 = stats_now();
    alarm(0);
    ck_assert_int_eq(s1.compiles, s0.compiles + 1);
    ck_assert_int_eq(s1.disk_rejects, s0.disk_rejects + 1);
    ck_assert_int_eq(stat(path, &sb), 0);
    ck_assert_msg(S_ISREG(sb.st_mode), "the FIFO was not replaced by a cache file");
}
END_TEST

START_TEST(test_unwritable_dir)
{
    const pa_cuda__image *a;
    char file[300];
    snprintf(file, sizeof file, "%s/plainfile", pa_test_cache_dir());
    FILE *f = fopen(file, "w");
    ck_assert_ptr_nonnull(f);
    fclose(f);
    /* A directory below a regular file can never be created. */
    char bad[400];
    snprintf(bad, sizeof bad, "%s/sub", file);
    setenv("PA_KERNEL_CACHE", bad, 1);
    pa_cuda__rtc_stats s0 = stats_now();
    PA_CK_OK(pa_cuda__rtc_compile("add", src_add, NULL, 0, 90, &a));
    ck_assert_int_eq(stats_now().disk_writes, s0.disk_writes);
    setenv("PA_KERNEL_CACHE", "off", 1);
    ck_assert_int_eq(pa_cuda__rtc_cache_dir(file, sizeof file), 0);
}
END_TEST

START_TEST(test_compile_error)
{
    const pa_cuda__image *img = NULL;
    const char *bad = "extern \"C\" __global__ void k(int *p)\n{\n  p[0] = undeclared_thing;\n}\n";
    PA_CK_ERR(pa_cuda__rtc_compile("badkernel", bad, NULL, 0, 90, &img), PA_ERR_COMPILE);
    ck_assert_ptr_null(img);
    ck_assert_msg(strstr(pa_last_error(), "badkernel") && strstr(pa_last_error(), "undeclared_thing") &&
                  strstr(pa_last_error(), "(3)"), "%s", pa_last_error());
}
END_TEST

START_TEST(test_no_gpu_arch0)
{
    const pa_cuda__image *img;
    PA_CK_ERR(pa_cuda__rtc_compile("add", src_add, NULL, 0, 0, &img), PA_ERR_NODEV);
    pa_cuda__rtc_kernel *k;
    PA_CK_ERR(pa_cuda__rtc_get_kernel("add", src_add, NULL, 0, "add_one", &k), PA_ERR_NODEV);
}
END_TEST

/* Several threads asking for the same new compilation at once all get the one image the cache kept. */
typedef struct job {
    const char *src;
    const pa_cuda__image *img;
    int st;
} job;

static void *compile_job(void *p)
{
    job *j = p;
    j->st = pa_cuda__rtc_compile("race", j->src, NULL, 0, 90, &j->img);
    return NULL;
}

START_TEST(test_concurrent_compiles)
{
    enum { T = 4 };
    pthread_t th[T];
    job jobs[T];
    const char *src = "extern \"C\" __global__ void race(int *p) { p[0] = 42; }\n";
    for (int t = 0; t < T; t++) {
        jobs[t] = (job){src, NULL, -1};
        ck_assert_int_eq(pthread_create(&th[t], NULL, compile_job, &jobs[t]), 0);
    }
    for (int t = 0; t < T; t++)
        pthread_join(th[t], NULL);
    for (int t = 0; t < T; t++) {
        ck_assert_int_eq(jobs[t].st, PA_OK);
        ck_assert_ptr_eq(jobs[t].img, jobs[0].img);
    }
    /* Only finished cache files remain: no temporary left behind. */
    char cmd[400];
    snprintf(cmd, sizeof cmd, "test -z \"$(ls -A '%s' | grep -v '\\.pakc$')\"", pa_test_cache_dir());
    ck_assert_int_eq(system(cmd), 0);
}
END_TEST

/* Two suites: cuda_rtc (no argument: NVRTC and the caches, which need no GPU) and cuda_rtc_nogpu ("nogpu":
 * architecture 0, "the current GPU's", without one; skipped, 77, where a GPU is usable). */
int main(int argc, char **argv)
{
    if (argc > 1) {
        pa_test_member(argc, argv, "cuda_rtc_nogpu");
        Suite *s = suite_create("cuda_rtc_nogpu");
        TCase *tc = tcase_create("nogpu");
        tcase_add_checked_fixture(tc, pa_test_cache_setup, pa_test_cache_teardown);
        tcase_add_test(tc, test_no_gpu_arch0);
        suite_add_tcase(s, tc);
        return pa_test_run(s);
    }
    Suite *s = suite_create("cuda_rtc");
    TCase *tc = tcase_create("rtc");
    tcase_add_checked_fixture(tc, pa_test_cache_setup, pa_test_cache_teardown);
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, test_cubin_sm90);
    tcase_add_test(tc, test_keys);
    tcase_add_test(tc, test_memory_hit);
    tcase_add_test(tc, test_disk_hit);
    tcase_add_loop_test(tc, test_disk_damaged, 0, 5);
    tcase_add_test(tc, test_disk_fifo);
    tcase_add_test(tc, test_unwritable_dir);
    tcase_add_test(tc, test_compile_error);
    tcase_add_test(tc, test_concurrent_compiles);
    suite_add_tcase(s, tc);
    return pa_test_run(s);
}
