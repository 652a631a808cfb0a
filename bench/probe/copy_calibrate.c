/*
 * Measures the constants behind the host copy planner (src/backends/host/copy/copy_strategies.c,
 * copy_transpose.c, copy_threads.c): memcpy bandwidth, the run length where memcpy runs beat element loops,
 * the transpose tile edge, the copy size where two threads beat one, and the cost of waking the pool.  The
 * tables are for tuning the strategies; the constants the planner reads are measured by `parray calibrate`
 * (src/backends/host/copy/cost_host.c) into the cost file.  Nothing here changes what the library uses.
 */
#include <pthread.h>

#include "probe_util.h"
#include "copy_host.h"

static const pa__copy_shape *shape_of(pa__plan **keep, pa__layout d, pa__layout s, size_t elm)
{
    if (pa__plan_make(&d, &s, elm, NULL, NULL, keep) != PA_OK) {
        fprintf(stderr, "plan: %s\n", pa_last_error());
        exit(1);
    }
    return &(*keep)->shape;
}

static void bandwidth(void *d, void *s)
{
    size_t bytes = (size_t)64 << 20;
    double t = time_memcpy(d, s, bytes, 21);
    printf("memcpy 64 MiB, one thread: %.2f GB/s (%.1f bytes of read+write per ns)\n", bytes / t * 1e-9,
           2 * bytes / t * 1e-9);
}

/* memcpy_runs against loops on rows of r bytes: d (n, r) packed, s (n, r) with rows 64 bytes apart more. */
static void runs(void *d, void *s)
{
    printf("\nrun bytes | memcpy_runs ns/run | loops ns/run | loops ns/unit (4 B)\n");
    const int64_t lens[] = {4, 8, 16, 32, 48, 64, 96, 128, 256, 512, 1024};
    for (size_t i = 0; i < sizeof lens / sizeof lens[0]; i++) {
        int64_t r = lens[i] / 4, n = ((int64_t)48 << 20) / (lens[i] + 64);   /* source extent 48 MiB */
        pa__plan *p;
        const pa__copy_shape *sh = shape_of(&p, L(2, n, r, r, 1), L(2, n, r, r + 16, 1), 4);
        double tr = sh->nmodes == 2 ? time_kernel(sh, d, s, 1, pa__kern_memcpy_runs, 11) : 0;
        double tl = time_kernel(sh, d, s, 1, pa__kern_loops, 11);
        printf("%9lld | %18.2f | %12.2f | %.3f   (chosen: %s)\n", (long long)lens[i], tr / n * 1e9, tl / n * 1e9,
               tl / n / r * 1e9, p->strategy->name);
        pa__plan_unref(p);
    }
}

#define MiB64 ((double)(64 << 20))

/* The transpose with this benchmark's tile edge: the library's own stays the cost model's. */
static int bench_tile = 64;

static int transpose_tiled(const pa__copy_shape *s, char *dst, const char *src)
{
    return pa__kern_transpose_tile(s, dst, src, bench_tile, 0);
}

static void tiles(void *d, void *s)
{
    printf("\ntile | 4096^2 float GB/s | 2048^2 x 16 B GB/s | [[2048][2048]][2] float GB/s   (one thread)\n");
    const int edges[] = {8, 16, 32, 64, 128};
    pa__plan *p1, *p2, *p3;
    const pa__copy_shape *a = shape_of(&p1, L(2, 4096, 4096, 4096, 1), L(2, 4096, 4096, 1, 4096), 4);
    const pa__copy_shape *b = shape_of(&p2, L(2, 2048, 2048, 2048, 1), L(2, 2048, 2048, 1, 2048), 16);
    const pa__copy_shape *c = shape_of(&p3, L(3, 2048, 2048, 2, 2, 4096, 1), L(1, 2048 * 2048 * 2, 1), 4);
    for (size_t i = 0; i < sizeof edges / sizeof edges[0]; i++) {
        bench_tile = edges[i];
        double ta = time_kernel(a, d, s, 1, transpose_tiled, 11);
        double tb = time_kernel(b, d, s, 1, transpose_tiled, 11);
        double tc = time_kernel(c, d, s, 1, transpose_tiled, 11);
        printf("%4d | %17.2f | %18.2f | %.2f\n", edges[i], MiB64 / ta * 1e-9, MiB64 / tb * 1e-9,
               MiB64 / 2 / tc * 1e-9);
    }
    printf("loops on the 4096^2 float transpose: %.2f GB/s\n",
           MiB64 / time_kernel(a, d, s, 1, pa__kern_loops, 5) * 1e-9);
    pa__plan_unref(p1);
    pa__plan_unref(p2);
    pa__plan_unref(p3);
}

static void threads(void *d, void *s)
{
    printf("\nbytes | contiguous 1T/2T us | transpose 1T/2T us\n");
    for (int64_t bytes = 16 << 10; bytes <= (64 << 20); bytes *= 4) {
        int64_t n = bytes / 4, side = 1;
        while (side * side * 4 < n) side *= 2;
        pa__plan *p1, *p2;
        const pa__copy_shape *c = shape_of(&p1, L(1, n, 1), L(1, n, 1), 4);
        const pa__copy_shape *t = shape_of(&p2, L(2, side, n / side, n / side, 1), L(2, side, n / side, 1, side), 4);
        int reps = bytes < (1 << 20) ? 201 : 21;
        printf("%8lld KiB | %8.1f %8.1f | %8.1f %8.1f\n", (long long)(bytes >> 10),
               time_kernel(c, d, s, 1, pa__kern_memcpy, reps) * 1e6, time_kernel(c, d, s, 2, pa__kern_memcpy, reps) * 1e6,
               time_kernel(t, d, s, 1, pa__kern_transpose, reps) * 1e6,
               time_kernel(t, d, s, 2, pa__kern_transpose, reps) * 1e6);
        pa__plan_unref(p1);
        pa__plan_unref(p2);
    }
}

/* Streaming stores against ordinary ones, by destination size: transposed floats and rows of 256 B / 32 KiB. */
static void streaming(void *d, void *s)
{
    printf("\nMiB | transpose store/stream GB/s | 256 B runs store/stream | 32 KiB runs store/stream  (1 thread)\n");
    for (int64_t mib = 2; mib <= 64; mib *= 2) {
        int64_t n = (mib << 20) / 4, side = 1;
        while (side * side < n) side *= 2;
        pa__plan *p1, *p2, *p3;
        const pa__copy_shape *t = shape_of(&p1, L(2, side, n / side, n / side, 1), L(2, side, n / side, 1, side), 4);
        const pa__copy_shape *r = shape_of(&p2, L(2, n / 64, 64, 64, 1), L(2, n / 64, 64, 65, 1), 4);
        const pa__copy_shape *w = shape_of(&p3, L(2, n / 8192, 8192, 8192, 1), L(2, n / 8192, 8192, 8200, 1), 4);
        double b = (double)(mib << 20) * 1e-9;
        int reps = mib < 16 ? 41 : 11;
        printf("%3lld | %8.2f %8.2f | %8.2f %8.2f | %8.2f %8.2f\n", (long long)mib,
               b / time_kernel(t, d, s, 1, pa__kern_transpose, reps), b / time_kernel(t, d, s, 1, pa__kern_transpose_nt, reps),
               b / time_kernel(r, d, s, 1, pa__kern_memcpy_runs, reps), b / time_kernel(r, d, s, 1, pa__kern_memcpy_runs_nt, reps),
               b / time_kernel(w, d, s, 1, pa__kern_memcpy_runs, reps), b / time_kernel(w, d, s, 1, pa__kern_memcpy_runs_nt, reps));
        pa__plan_unref(p1);
        pa__plan_unref(p2);
        pa__plan_unref(p3);
    }
}

static void *idle(void *arg)
{
    return arg;
}

/* What the pool saves: a thread started and joined per copy.  (The pool's own cost shows in the threads table:
 * the smallest transposes on two threads.) */
static void wakeup(void)
{
    double v[201];
    for (int i = 0; i < 201; i++) {
        double t0 = now();
        pthread_t th;
        pthread_create(&th, NULL, idle, NULL);
        pthread_join(th, NULL);
        v[i] = now() - t0;
    }
    printf("\npthread_create + join: %.1f us\n", median(v, 201) * 1e6);
}

int main(int argc, char **argv)
{
    size_t big = (size_t)80 << 20;
    setvbuf(stdout, NULL, _IOLBF, 0);
    void *d = random_buffer(big), *s = random_buffer(big);
    const char *only = argc > 1 ? argv[1] : "";
    if (!*only || !strcmp(only, "bandwidth")) bandwidth(d, s);
    if (!*only || !strcmp(only, "runs")) runs(d, s);
    if (!*only || !strcmp(only, "tiles")) tiles(d, s);
    if (!*only || !strcmp(only, "threads")) threads(d, s);
    if (!*only || !strcmp(only, "streaming")) streaming(d, s);
    if (!*only || !strcmp(only, "wakeup")) wakeup();
    free(d);
    free(s);
    return 0;
}
