/*
 * bench/host_probe — diagnosis of the host copies' scaling (issue 14): why 16 threads ran slower than 8, and
 * what the transposes lose against memcpy at each thread count.  Not a pass/fail table: it prints the
 * measurements the planner's choices were made from (docs/gpu-results.md records a run on the lent host).
 *
 *   machine   CPUs, affinity, caches, ISA, the process's share of the host
 *   memcpy    an OpenMP-parallel memcpy of 256 MiB (glibc per thread's chunk) against the same chunks through
 *             our streaming-store copy, at 1, 2, 4, 8 and all threads
 *   contig    pa__copy_parallel's contiguous kernels (memcpy and streaming) at each thread count, 1 or 4 slices
 *             per thread, each timed right after the OpenMP memcpy and after a 20 ms pause: OpenMP's threads
 *             poll for a while after a region, and ours for 200 us, so back to back one side may run beside
 *             the other's polling threads
 *   start     how late the pool's workers start a copy's slices (hot: back to back; cold: after 20 ms)
 *   transpose the transpose kernel on 8192^2 floats and 4096^2 16-byte units: ordinary or streaming stores,
 *             tile edge 32 or 64, with or without prefetching the next tile, at each thread count
 *   window    8000^2 of 8192^2 floats as rows (memcpy_runs), ordinary or streaming stores (and on one thread
 *             the one-thread streaming kernel)
 *   strips    the streamed transposes of 8192^2 floats and 4096^2 16-byte units on one thread through the
 *             strips, over their knobs: rows, column blocks, software prefetch (distance, L1 or L2), AVX2 8x8
 *             or AVX-512 16x16 register transposes
 * Usage: host_probe [reps [section...]] (default 7 repeats, every section).
 */
#include <sched.h>
#include <unistd.h>
#ifdef _OPENMP
#include <omp.h>
#endif

#include "probe_util.h"
#include "copy_host.h"

static int reps = 7, nthr[8], nthr_n;

static const pa__copy_shape *shape_of(pa__plan **keep, pa__layout d, pa__layout s, size_t elm)
{
    if (pa__plan_make(&d, &s, elm, NULL, NULL, keep) != PA_OK) {
        fprintf(stderr, "plan: %s\n", pa_last_error());
        exit(1);
    }
    return &(*keep)->shape;
}

static void omp_copy(char *d, const char *s, size_t n, int t, int stream)
{
#pragma omp parallel num_threads(t)
    {
#ifdef _OPENMP
        int id = omp_get_thread_num(), p = omp_get_num_threads();
#else
        int id = 0, p = 1;
#endif
        size_t lo = n / 64 * (size_t)id / (size_t)p * 64, hi = id == p - 1 ? n : n / 64 * (size_t)(id + 1) / (size_t)p * 64;
        if (stream) {
            pa__stream_copy(d + lo, s + lo, hi - lo);
            pa__stream_fence();
        } else {
            memcpy(d + lo, s + lo, hi - lo);
        }
    }
}

static double time_omp(char *d, const char *s, size_t n, int t, int stream)
{
    double v[64];
    omp_copy(d, s, n, t, stream);
    for (int r = 0; r < reps; r++) {
        double t0 = now();
        omp_copy(d, s, n, t, stream);
        v[r] = now() - t0;
    }
    return median(v, reps);
}

static void machine(void)
{
    cpu_set_t set;
    CPU_ZERO(&set);
    sched_getaffinity(0, sizeof set, &set);
    printf("## machine\nCPUs online %ld, in the affinity mask %d; L1d %ld KiB, L2 %ld KiB, L3 %ld KiB\n",
           sysconf(_SC_NPROCESSORS_ONLN), CPU_COUNT(&set), sysconf(_SC_LEVEL1_DCACHE_SIZE) >> 10,
           sysconf(_SC_LEVEL2_CACHE_SIZE) >> 10, sysconf(_SC_LEVEL3_CACHE_SIZE) >> 10);
    FILE *f = fopen("/proc/cpuinfo", "r");
    char line[4096];
    int shown = 0;
    while (f && fgets(line, sizeof line, f) && shown < 3) {
        if (strncmp(line, "model name", 10) == 0 || strncmp(line, "cpu MHz", 7) == 0) {
            printf("%s", line);
            shown++;
        }
        if (strncmp(line, "flags", 5) == 0 && ++shown)
            printf("avx2 %s, avx512f %s, fma %s\n", strstr(line, " avx2") ? "yes" : "no",
                   strstr(line, " avx512f") ? "yes" : "no", strstr(line, " fma") ? "yes" : "no");
    }
    if (f)
        fclose(f);
    pa_topology_print(stdout);
    printf("OMP_WAIT_POLICY=%s GOMP_SPINCOUNT=%s OMP_PROC_BIND=%s\n", getenv("OMP_WAIT_POLICY") ?: "-",
           getenv("GOMP_SPINCOUNT") ?: "-", getenv("OMP_PROC_BIND") ?: "-");
}

static void memcpy_rates(char *d, char *s, size_t n)
{
    printf("\n## memcpy: OpenMP-parallel, 256 MiB, GB/s (bytes counted once)\n| threads | glibc memcpy | our streaming copy |\n| --- | --- | --- |\n");
    for (int i = 0; i < nthr_n; i++) {
        int t = nthr[i];
        double a = time_omp(d, s, n, t, 0), b = time_omp(d, s, n, t, 1);
        printf("| %d | %.1f | %.1f |\n", t, n / a * 1e-9, n / b * 1e-9);
    }
}

/* ours right after the anchor (gap 0) or after a pause; returns ours' median */
/* The transpose with this benchmark's tile edge (the library's stays the cost model's). */
static int bench_tile = 64;

static int transpose_tiled(const pa__copy_shape *s, char *dst, const char *src)
{
    return pa__kern_transpose_tile(s, dst, src, bench_tile, 0);
}

static int transpose_tiled_nt(const pa__copy_shape *s, char *dst, const char *src)
{
    return pa__kern_transpose_tile(s, dst, src, bench_tile, 1);
}

static double paired(const pa__copy_shape *sh, char *d, const char *s, size_t n, int t, pa__copy_kernel k,
                     int gap_ms, double *anchor)
{
    double vo[64], va[64];
    for (int r = -1; r < reps; r++) {
        double t0 = now();
        omp_copy(d, s, n, t, 0);
        double t1 = now();
        if (gap_ms)
            usleep(gap_ms * 1000);
        double t2 = now();
        pa__copy_parallel(sh, d, s, t, k);
        double t3 = now();
        if (gap_ms)
            usleep(gap_ms * 1000);
        if (r >= 0)
            va[r] = t1 - t0, vo[r] = t3 - t2;
    }
    *anchor = median(va, reps);
    return median(vo, reps);
}

static void contig(char *d, char *s, size_t n)
{
    pa__plan *p;
    int64_t e = (int64_t)(n / 4);
    const pa__copy_shape *sh = shape_of(&p, L(1, e, 1), L(1, e, 1), 4);
    printf("\n## contiguous 256 MiB through pa__copy_parallel: ratio to the OpenMP memcpy timed just before\n"
           "| threads | slices/thread | kernel | back to back | after 20 ms | anchor GB/s |\n| --- | --- | --- | --- | --- | --- |\n");
    for (int i = 0; i < nthr_n; i++)
        for (int sl = 1; sl <= 4; sl += 3)
            for (int nt = 0; nt < 2; nt++) {
                double a0, a1;
                pa__copy_slices = sl;
                pa__copy_kernel k = nt ? pa__kern_memcpy_nt : pa__kern_memcpy;
                double o0 = paired(sh, d, s, n, nthr[i], k, 0, &a0), o1 = paired(sh, d, s, n, nthr[i], k, 20, &a1);
                printf("| %d | %d | %s | %.3f | %.3f | %.1f |\n", nthr[i], sl, nt ? "stream" : "memcpy", a0 / o0,
                       a1 / o1, n / a1 * 1e-9);
            }
    pa__copy_slices = 4;
    pa__plan_unref(p);
}

static double t_start;
static double starts[64];
static atomic_int nstarts;

static int stamp_kernel(const pa__copy_shape *s, char *dst, const char *src)
{
    int i = atomic_fetch_add(&nstarts, 1);
    if (i < 64)
        starts[i] = now() - t_start;
    return pa__kern_memcpy(s, dst, src);
}

static void start_skew(char *d, char *s)
{
    pa__plan *p;
    const pa__copy_shape *sh = shape_of(&p, L(1, 1 << 16, 1), L(1, 1 << 16, 1), 4);   /* 256 KiB */
    printf("\n## start: when the last slice of a 256 KiB copy cut into one slice per thread starts, us (median of 51)\n"
           "| threads | hot | after 20 ms |\n| --- | --- | --- |\n");
    pa__copy_slices = 1;
    for (int i = 1; i < nthr_n; i++) {
        double hot[64], cold[64];
        for (int c = 0; c < 2; c++)
            for (int r = 0; r < 51; r++) {
                if (c)
                    usleep(20000);
                atomic_store(&nstarts, 0);
                t_start = now();
                pa__copy_parallel(sh, d, s, nthr[i], stamp_kernel);
                int m = atomic_load(&nstarts);
                double last = 0;
                for (int k = 0; k < m && k < 64; k++)
                    last = starts[k] > last ? starts[k] : last;
                (c ? cold : hot)[r] = last * 1e6;
            }
        printf("| %d | %.1f | %.1f |\n", nthr[i], median(hot, 51), median(cold, 51));
    }
    pa__copy_slices = 4;
    pa__plan_unref(p);
}

static void transposes(char *d, char *s)
{
    pa__plan *p1, *p2;
    const pa__copy_shape *a = shape_of(&p1, L(2, 8192, 8192, 8192, 1), L(2, 8192, 8192, 1, 8192), 4);
    const pa__copy_shape *b = shape_of(&p2, L(2, 4096, 4096, 4096, 1), L(2, 4096, 4096, 1, 4096), 16);
    size_t n = (size_t)256 << 20;
    printf("\n## transposes (256 MiB): ratio to the OpenMP memcpy at the same threads, after 20 ms pauses\n"
           "| threads | case | tile | prefetch | ordinary stores | streaming stores |\n| --- | --- | --- | --- | --- | --- |\n");
    for (int i = 0; i < nthr_n; i++)
        for (int c = 0; c < 2; c++)
            for (int tile = 32; tile <= 64; tile *= 2)
                for (int pf = 0; pf <= 2; pf += 2) {   /* 0: no prefetch, 2: prefetch */
                    if (c == 1 && tile == 64)
                        continue;   /* 16-byte units: the buffer holds 32x32 */
                    bench_tile = tile;
                    pa__transpose_prefetch = pf;
                    double a0, a1;
                    double o0 = paired(c ? b : a, d, s, n, nthr[i], transpose_tiled, 20, &a0);
                    double o1 = paired(c ? b : a, d, s, n, nthr[i], transpose_tiled_nt, 20, &a1);
                    printf("| %d | %s | %d | %d | %.3f | %.3f |\n", nthr[i], c ? "16 B 4096^2" : "float 8192^2",
                           tile, pf, a0 / o0, a1 / o1);
                }
    pa__transpose_prefetch = 1;
    pa__plan_unref(p1);
    pa__plan_unref(p2);
}

/* One configuration of the streamed strips (copy_strips.c's knobs). */
typedef struct strip_cfg {
    int rows, block, prefetch, hint, wide;
} strip_cfg;

static void strip_set(const strip_cfg *c)
{
    pa__strip_rows4 = c->rows;
    pa__strip_block4 = c->block;
    pa__strip_prefetch4 = pa__strip_prefetch16 = c->prefetch;
    pa__strip_hint = c->hint;
    pa__strip_wide4 = c->wide;
}

static void strips(char *d, char *s)
{
    pa__plan *p, *p16;
    const pa__copy_shape *a = shape_of(&p, L(2, 8192, 8192, 8192, 1), L(2, 8192, 8192, 1, 8192), 4);
    const pa__copy_shape *q = shape_of(&p16, L(2, 4096, 4096, 4096, 1), L(2, 4096, 4096, 1, 4096), 16);
    size_t n = (size_t)256 << 20;
    strip_cfg keep = {pa__strip_rows4, pa__strip_block4, pa__strip_prefetch4, pa__strip_hint, pa__strip_wide4};
    static const strip_cfg cfg[] = {
        {32, 1024, 0, 1, 0}, {32, 1024, 2, 1, 0}, {32, 1024, 4, 1, 0}, {32, 1024, 8, 1, 0}, {32, 1024, 4, 0, 0},
        {32, 1024, 8, 0, 0}, {64, 512, 4, 1, 0}, {64, 1024, 4, 1, 0}, {16, 1024, 4, 1, 0}, {32, 512, 4, 1, 0},
        {32, 2048, 4, 1, 0}, {32, 1024, 0, 1, 1}, {32, 1024, 4, 1, 1}, {32, 1024, 8, 1, 1}, {32, 1024, 4, 0, 1},
        {64, 512, 4, 1, 1}, {64, 1024, 8, 1, 1}, {32, 1024, 0, 1, 0}};
    printf("\n## streamed transposes on one thread through the strips: rows, column block, lines prefetched ahead in "
           "each source row (into L2: hint 1, L1: 0), AVX-512 16x16 (wide); ratio to the OpenMP memcpy, after 20 ms "
           "pauses\n| case | rows | block | prefetch | hint | wide | ratio | ours GB/s | anchor GB/s |\n"
           "| --- | --- | --- | --- | --- | --- | --- | --- | --- |\n");
    for (size_t i = 0; i < sizeof cfg / sizeof cfg[0]; i++) {
        double an;
        strip_set(&cfg[i]);
        double o = paired(a, d, s, n, 1, pa__kern_transpose_nt, 20, &an);
        printf("| float 8192^2 | %d | %d | %d | %d | %d | %.3f | %.2f | %.2f |\n", cfg[i].rows, cfg[i].block,
               cfg[i].prefetch, cfg[i].hint, cfg[i].wide, an / o, n / o * 1e-9, n / an * 1e-9);
        fflush(stdout);
    }
    static const strip_cfg cfg16[] = {{32, 0, 0, 1, 0}, {32, 0, 2, 1, 0}, {32, 0, 4, 1, 0}, {32, 0, 8, 1, 0},
                                       {32, 0, 4, 0, 0}, {32, 0, 0, 1, 0}};
    for (size_t i = 0; i < sizeof cfg16 / sizeof cfg16[0]; i++) {
        double an;
        strip_set(&cfg16[i]);
        double o = paired(q, d, s, n, 1, pa__kern_transpose_nt, 20, &an);
        printf("| 16 B 4096^2 | 32 | - | %d | %d | - | %.3f | %.2f | %.2f |\n", cfg16[i].prefetch, cfg16[i].hint,
               an / o, n / o * 1e-9, n / an * 1e-9);
        fflush(stdout);
    }
    strip_set(&keep);
    pa__plan_unref(p);
    pa__plan_unref(p16);
}

static void windows(char *d, char *s)
{
    pa__plan *p;
    const pa__copy_shape *w = shape_of(&p, L(2, 8000, 8000, 8000, 1), L(2, 8000, 8000, 8192, 1), 4);
    size_t n = (size_t)8000 * 8000 * 4;
    printf("\n## window 8000^2 of 8192^2 float (memcpy_runs): ratio to the OpenMP memcpy, after 20 ms pauses\n"
           "| threads | ordinary | streaming | streaming, one-thread kernel (interleaved) |\n| --- | --- | --- | --- |\n");
    for (int i = 0; i < nthr_n; i++) {
        double a0, a1, a2 = 1, o2 = 0;
        double o0 = paired(w, d, s, n, nthr[i], pa__kern_memcpy_runs, 20, &a0);
        double o1 = paired(w, d, s, n, nthr[i], pa__kern_memcpy_runs_nt, 20, &a1);
        if (nthr[i] == 1)
            o2 = paired(w, d, s, n, 1, pa__kern_memcpy_runs_nt1, 20, &a2);
        if (o2 > 0)
            printf("| %d | %.3f | %.3f | %.3f |\n", nthr[i], a0 / o0, a1 / o1, a2 / o2);
        else
            printf("| %d | %.3f | %.3f | - |\n", nthr[i], a0 / o0, a1 / o1);
        fflush(stdout);
    }
    pa__plan_unref(p);
}

static int wanted(int argc, char **argv, const char *name)
{
    for (int i = 2; i < argc; i++)
        if (strcmp(argv[i], name) == 0)
            return 1;
    return 0;
}

int main(int argc, char **argv)
{
    if (argc > 1 && atoi(argv[1]) > 0 && atoi(argv[1]) < 64)
        reps = atoi(argv[1]);
    int all = pa__process_cpus();
    for (int t = 1; t < all; t *= 2)
        nthr[nthr_n++] = t;
    nthr[nthr_n++] = all;
    size_t n = (size_t)256 << 20;
    char *s = random_buffer(n + ((size_t)8 << 20)), *d = random_buffer(n + ((size_t)8 << 20));
    machine();
#define WANT(name) (argc <= 2 || wanted(argc, argv, name))
    if (WANT("memcpy")) memcpy_rates(d, s, n);
    if (WANT("contig")) contig(d, s, n);
    if (WANT("start")) start_skew(d, s);
    if (WANT("window")) windows(d, s);
    if (WANT("transpose")) transposes(d, s);
    if (WANT("strips")) strips(d, s);
    free(s);
    free(d);
    return 0;
}
