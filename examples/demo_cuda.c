/*
 * The demo's GPU section: paged -> dmem, a transposition on the device, dmem -> pinned, each timed, and the
 * round trip checked element by element; then a map over the transposed device array with an element
 * function in CUDA source (compiled by NVRTC on first use, then cached), checked the same way.  Public API
 * only; it runs when pinned and dmem memory are usable.
 */
#include <stdio.h>
#include <time.h>

#include "demo_util.h"
#include <parray/cuda.h>

static double seconds(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* Times one copy (median of opt->runs after a warm-up); pa_copy returns once the data has arrived. */
static void timed_copy(const demo_options *opt, const char *what, const pa_type *dt, void *d, const pa_type *st,
                       const void *s)
{
    char plan[512];
    double t[16];
    int runs = opt->runs < 16 ? opt->runs : 16;
    if (pa_copy_explain(dt, st, plan, sizeof plan) < 0)
        demo_die(what);
    for (int r = -1; r < runs; r++) {
        double t0 = seconds();
        if (pa_copy(dt, d, st, s) != PA_OK)
            demo_die(what);
        if (r >= 0)
            t[r] = seconds() - t0;
    }
    for (int i = 1; i < runs; i++)           /* insertion sort: a handful of values */
        for (int j = i; j > 0 && t[j] < t[j - 1]; j--) {
            double x = t[j];
            t[j] = t[j - 1];
            t[j - 1] = x;
        }
    double sec = t[runs / 2], bytes = (double)pa_size(dt) * (double)pa_elm_size(dt);
    printf("\n  %s\n    plan: %s\n    %8.1f MiB %10.3f ms %8.2f GB/s\n", what, plan, bytes / (1 << 20), sec * 1e3,
           bytes / sec * 1e-9);
}

void demo_bandwidth_cuda(pa_scope *scope, const demo_options *opt)
{
    int64_t n = opt->quick ? 1024 : 8192;
    demo_section("GPU copies (CUDA backend)");
    printf("  n = %lld: int arrays of n x n; the median of %d runs after one warm-up.\n", (long long)n, opt->runs);
    demo_set(scope, "g", n);
    const pa_type *host = demo_get(scope, "GHOST"), *pin = demo_get(scope, "GPIN"), *dev = demo_get(scope, "GDEV"),
                  *devt = demo_get(scope, "GDEVT");
    uint32_t *h = pa_create(host), *p = pa_create(pin);
    void *a = pa_create(dev), *b = pa_create(devt);
    if (!h || !p || !a || !b)
        demo_die("pa_create (GPU section)");
    for (int64_t k = 0; k < n * n; k++)
        h[k] = (uint32_t)k;
    timed_copy(opt, "paged -> dmem: GDEV <- GHOST", dev, a, host, h);
    timed_copy(opt, "dmem -> dmem transposition: GDEVT <- GDEV", devt, b, dev, a);
    for (int64_t k = 0; k < n * n; k++)
        p[k] = 0xffffffffu;
    timed_copy(opt, "dmem -> pinned: GPIN <- GDEV (the transposed array, read plainly)", pin, p, dev, b);
    int64_t bad = 0;
    for (int64_t i = 0; i < n; i++)
        for (int64_t j = 0; j < n; j++)
            bad += p[i * n + j] != (uint32_t)(j * n + i);
    demo_check(bad == 0, "round trip through the GPU, transposed on the device: %lld of %lld elements wrong",
               (long long)bad, (long long)(n * n));

    /* for k GDEVT(b) { b[k] = 3 * b[k] + k } on the GPU: b holds the transposition, read through GDEVT. */
    static const char fn[] =
        "__device__ void f(pa_elm_t *x, long long k, const void *a) { *x = 3 * *x + (int)k; }";
    double t0 = seconds();
    if (pa_cuda_map(devt, b, fn, "f", NULL, 0) != PA_OK)
        demo_die("pa_cuda_map");
    double first = seconds() - t0;
    static const char gn[] = "__device__ void g(pa_elm_t *x, long long k, const void *a) { *x -= 2 * (int)k; }";
    if (pa_cuda_map(devt, b, gn, "g", NULL, 0) != PA_OK || pa_copy(pin, p, devt, b) != PA_OK)
        demo_die("pa_cuda_map");
    printf("\n  map over dmem (pa_cuda_map, NVRTC): first call %.1f ms (compile or cache hit, load, run)\n",
           first * 1e3);
    bad = 0;
    for (int64_t k = 0; k < n * n; k++)   /* GDEVT(k) received GDEV(k) = k, then 3k + k - 2k */
        bad += p[k] != (uint32_t)(2 * k);
    demo_check(bad == 0, "two maps over the transposed device array: %lld of %lld elements wrong", (long long)bad,
               (long long)(n * n));
    pa_destroy(host, h);
    pa_destroy(pin, p);
    pa_destroy(dev, a);
    pa_destroy(devt, b);
}
