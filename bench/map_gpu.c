/*
 * bench/map_gpu — target P5: pa_cuda_map of an element function over a dmem array (compiled by NVRTC with
 * the type's layout baked in) against the same function in a hand-written nvcc kernel, on the same buffer of
 * random floats, timed with CUDA events: median of the repeats after two warm-up calls.  Cases: a contiguous
 * array, the transposition of a square array, and a window into a larger one (each 256 MiB or close).  Also
 * the cost of the first map of a new layout (NVRTC compile, or a disk-cache hit when the cache is warm).
 *
 *     map_gpu [repeats]
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "gpu_bench.h"
#include <parray/cuda.h>

int map_anchor(int c, float *x, long long n, long long w, long long d, float a, float b);

static const char fn_src[] =
    "struct ab { float a, b; };\n"
    "__device__ void axpb(float *x, long long k, const void *arg)\n"
    "{ const ab *p = (const ab *)arg; *x = *x * p->a + p->b; }\n";

static cudaEvent_t ev0, ev1;
static int repeats = 21;

static int cmp(const void *a, const void *b)
{
    float x = *(const float *)a, y = *(const float *)b;
    return (x > y) - (x < y);
}

static double wall(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* Median milliseconds of ours (which 0) or the anchor (1) for case c. */
static float time_case(int which, int c, const pa_type *t, float *x, long long n, long long w, long long d)
{
    struct { float a, b; } arg = {1.0001f, 0.5f};
    float ms[101];
    for (int i = -2; i < repeats; i++) {
        CK(cudaEventRecord(ev0, 0));
        if (which == 0)
            PK(pa_cuda_map_async(t, x, fn_src, "axpb", &arg, sizeof arg, NULL));
        else if (map_anchor(c, x, n, w, d, arg.a, arg.b) != 0)
            exit(1);
        CK(cudaEventRecord(ev1, 0));
        CK(cudaEventSynchronize(ev1));
        if (i >= 0)
            CK(cudaEventElapsedTime(&ms[i], ev0, ev1));
    }
    qsort(ms, (size_t)repeats, sizeof ms[0], cmp);
    return ms[repeats / 2];
}

int main(int argc, char **argv)
{
    if (argc > 1)
        repeats = atoi(argv[1]) < 1 ? 1 : atoi(argv[1]) > 101 ? 101 : atoi(argv[1]);
    if (gpu_bench_start("map_gpu", repeats, &ev0, &ev1) != 0)
        return 77;
    pa_scope *s;
    PK(pa_scope_create(NULL, &s));
    const long long N = 8192, FLAT = N * N, W = 8000, D = 96;
    PK(pa_declare(s, "FLAT", "dmem float [67108864]"));
    PK(pa_declare(s, "A", "dmem float [[8192][8192]]"));
    PK(pa_declare(s, "T", "dmem float [[#A_1][#A_0]]"));
    PK(pa_declare(s, "WIN", "dmem float [[8000 # disp(96) # A_0][8000 # disp(96) # A_1]]"));
    const pa_type *flat = pa_type_get(s, "FLAT"), *tr = pa_type_get(s, "T"), *win = pa_type_get(s, "WIN");
    float *x = pa_create(flat);
    if (x == NULL) {
        fprintf(stderr, "map_gpu: %s\n", pa_last_error());
        return 1;
    }
    float *h = malloc((size_t)FLAT * sizeof *h);
    srand(7);
    for (long long i = 0; i < FLAT; i++)
        h[i] = (float)rand() / (float)RAND_MAX;
    CK(cudaMemcpy(x, h, (size_t)FLAT * sizeof *h, cudaMemcpyHostToDevice));

    /* The first map of a layout: compile (or disk-cache hit), load, run. */
    struct { float a, b; } arg = {1.0f, 0.0f};
    double t0 = wall();
    PK(pa_cuda_map(flat, x, fn_src, "axpb", &arg, sizeof arg));
    double first = wall() - t0;

    const struct { const char *name; const pa_type *t; long long n; } cases[] = {
        {"contiguous float [2^26]", flat, FLAT}, {"transposed [[#A_1][#A_0]] 8192^2", tr, N},
        {"window 8000^2 of 8192^2", win, N}};
    printf("%-36s %10s %10s %7s %6s %s\n", "case", "ours GB/s", "nvcc GB/s", "ratio", "target", "");
    int fails = 0;
    for (int c = 0; c < 3; c++) {
        double bytes = 2.0 * 4.0 * (double)pa_size(cases[c].t);   /* read and write of every element */
        float ours = time_case(0, c, cases[c].t, x, cases[c].n, W, D);
        float anchor = time_case(1, c, cases[c].t, x, cases[c].n, W, D);
        double r = (double)anchor / ours;
        fails += r < 0.90;
        printf("%-36s %10.1f %10.1f %7.3f %6.2f %s\n", cases[c].name, bytes / ours / 1e6, bytes / anchor / 1e6, r,
               0.90, r >= 0.90 ? "pass" : "FAIL");
    }
    printf("\nfirst map of a new layout (compile or disk-cache hit, load, run 256 MiB): %.1f ms\n", first * 1e3);
    pa_destroy(flat, x);
    free(h);
    pa_scope_destroy(s);
    return fails ? 2 : 0;
}
