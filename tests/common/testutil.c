/* parray tests — shared helpers. */
#include "testutil.h"
#include "test_seed.h"
#include "internal.h"
#include <parray/cuda.h>
#include "backends.h"

#include <stdio.h>
#include <errno.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

int pa_test_run(Suite *s)
{
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed == 0 ? 0 : 1;
}

uint64_t pa_rng_next(pa_rng *r)
{
    uint64_t z = (r->s += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

int64_t pa_rng_range(pa_rng *r, int64_t lo, int64_t hi)
{
    uint64_t span = (uint64_t)(hi - lo) + 1;
    return lo + (int64_t)(pa_rng_next(r) % span);
}

uint64_t pa_test_seed(const char *what)
{
    uint64_t seed = pa_test_seed_value();
    fprintf(stderr, "%s: seed %llu (replay with PA_TEST_SEED=%llu; PA_TEST_SEED=random draws a new one)\n", what,
            (unsigned long long)seed, (unsigned long long)seed);
    return seed;
}

int pa_test_skip_without_gpu(const char *suite)
{
    if (pa_test_gpu_present())
        return 0;
    fprintf(stderr, "%s: skipped: no usable GPU (or no CUDA backend in this build)\n", suite);
    return 1;
}

int pa_test_gpu_count(void)
{
    pid_t pid = fork();
    if (pid == 0) {
        int n = pa_cuda_device_count();
        _exit(n > 0 ? (n > 100 ? 100 : n) : 0);
    }
    int status = 0;
    if (pid < 0 || waitpid(pid, &status, 0) != pid)
        return 0;
    return WIFEXITED(status) ? WEXITSTATUS(status) : 0;
}

int pa_test_gpu_present(void)
{
    return pa_test_gpu_count() > 0;
}

int pa_test_member(int argc, char **argv, const char *what)
{
    if (argc != 2 || (strcmp(argv[1], "gpu") != 0 && strcmp(argv[1], "nogpu") != 0)) {
        fprintf(stderr, "usage: %s gpu|nogpu\n", argv[0]);
        exit(2);
    }
    int gpu = strcmp(argv[1], "gpu") == 0, have = pa_test_gpu_present();
    if (gpu != have) {
        fprintf(stderr, "%s: skipped: %s\n", what, gpu ? "no usable GPU (or no CUDA backend in this build)"
                                                        : "a GPU is usable here: the no-GPU paths cannot be reached");
        exit(77);
    }
    return gpu;
}

static char cache_dir[256];

void pa_test_cache_setup(void)
{
    snprintf(cache_dir, sizeof cache_dir, "/tmp/pa_kernel_cache.XXXXXX");
    ck_assert_ptr_nonnull(mkdtemp(cache_dir));
    setenv("PA_KERNEL_CACHE", cache_dir, 1);
}

void pa_test_cache_teardown(void)
{
    char cmd[300];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", cache_dir);
    ck_assert_int_eq(system(cmd), 0);
}

const char *pa_test_cache_dir(void)
{
    return cache_dir;
}

void pa_test_strategy_of(const pa_type *dt, const pa_type *st, char *out, size_t len)
{
    pa_copy_info info;
    PA_CK_OK(pa_copy_query(dt, st, &info));
    ck_assert_ptr_nonnull(info.strategy);
    snprintf(out, len, "%s", info.strategy);
}

int64_t pa_test_extent(const pa_type *t)
{
    int64_t lo, hi;
    PA_CK_OK(pa_extent(t, &lo, &hi));
    return hi + 1;
}

void pa_test_flat_copy(pa_scope *s, const pa_type *t, void *arr, unsigned char *host, int64_t n, int to_arr)
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

void pa_test_pair_fill(pa_test_pair *c, pa_scope *s, pa_rng *rng, const pa_type *dt, void *dst, const pa_type *st,
                       void *src)
{
    int64_t dn = pa_test_extent(dt), sn = pa_test_extent(st), e = (int64_t)pa_elm_size(dt);
    c->dbytes = dn * e;
    c->src = malloc((size_t)(sn * e));
    c->want = malloc((size_t)c->dbytes);
    c->got = malloc((size_t)c->dbytes);
    ck_assert_msg(c->src && c->want && c->got, "out of host memory for %lld bytes", (long long)c->dbytes);
    for (int64_t i = 0; i < sn * e; i++)
        c->src[i] = (unsigned char)pa_rng_next(rng);
    memset(c->want, 0xA5, (size_t)c->dbytes);
    pa_test_flat_copy(s, st, src, c->src, sn, 1);
    pa_test_flat_copy(s, dt, dst, c->want, dn, 1);
    for (int64_t k = 0; k < pa_size(dt); k++)
        memcpy(c->want + pa__offset_walk(dt, k) * e, c->src + pa__offset_walk(st, k) * e, (size_t)e);
}

int64_t pa_test_pair_diff(pa_test_pair *c, pa_scope *s, const pa_type *dt, void *dst)
{
    pa_test_flat_copy(s, dt, dst, c->got, c->dbytes / (int64_t)pa_elm_size(dt), 0);
    if (memcmp(c->got, c->want, (size_t)c->dbytes) == 0)
        return -1;
    int64_t i = 0;
    while (c->got[i] == c->want[i])
        i++;
    return i;
}

void pa_test_pair_free(pa_test_pair *c)
{
    free(c->src);
    free(c->want);
    free(c->got);
}

int pa_test_built(const char *name)
{
    return pa__backend_built(name) || pa__feature_built(name);
}

int pa_test_numa_machine(void)
{
    /* As libnuma's numa_available: the kernel has NUMA system calls unless get_mempolicy says ENOSYS. */
    return !(syscall(SYS_get_mempolicy, NULL, NULL, 0UL, NULL, 0UL) < 0 && errno == ENOSYS);
}

int pa_test_numa_max_node(void)
{
    /* The highest node the kernel has online ("0" or "0-1" or "0,2-3"): the last number of the list. */
    FILE *f = fopen("/sys/devices/system/node/online", "r");
    char buf[256] = "";
    if (!f)
        return 0;
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    buf[n] = 0;
    int last = 0;
    for (char *p = buf; *p;)
        if (*p >= '0' && *p <= '9')
            last = (int)strtol(p, &p, 10);
        else
            p++;
    return last;
}
