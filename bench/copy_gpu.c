/*
 * GPU copy benchmark: targets P1, P2 and P3 of shared/PERFORMANCE.md.
 *
 *   P1  dmem -> dmem between layouts (2-D and 3-D transposes, a window, the manual's [[n][n]][m] transposition),
 *       256 MiB, against cudaMemcpy device -> device of the same bytes: target >= 0.90;
 *   P2  pinned <-> dmem with a layout change (4-, 16- and 8192-byte runs) against a contiguous pinned
 *       cudaMemcpy of the same bytes in the same direction: target >= 0.90;
 *   P3  paged <-> dmem, contiguous and with a layout change, against cudaMemcpy from or to the same pageable
 *       buffer: target >= 3.0; and against the host limit, two thirds of an OpenMP-parallel memcpy's rate on
 *       the pipeline's threads measured in the same run (the pipeline moves every byte through host memory
 *       three times): target >= 0.75.
 * With two GPUs or more it also copies from GPU 1 to GPU 0 (contiguous and transposed) against cudaMemcpyPeer
 * of the same bytes; PERFORMANCE.md sets no target for those rows.
 *
 * Each case is timed with CUDA events around one call (every call is synchronous), after warm-up, as the
 * median of several repeats, ours and the anchor taking turns; they run on the same buffers of random data.
 * The explanation of each plan is printed, and the table comes last.  Usage: copy_gpu [repeats [case-prefix]]
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpu_bench.h"
#include <parray/cuda.h>
#include "omp_memcpy.h"

/* The pageable pipeline's host threads (src/backends/cuda/copy_pipeline.c). */

/* The host threads the staged (pipelined) copy of 256 MiB from paged memory to the GPU runs on, as the planner
 * says (pa_copy_query). */
static int pipeline_threads(void)
{
    pa_scope *s;
    pa_copy_info info;
    int t = 0;
    if (pa_scope_create(NULL, &s) != PA_OK)
        return 1;
    if (pa_declare_text(s, "parray paged char [268435456] H; parray dmem char [#H_0] D;") == PA_OK &&
        pa_copy_query(pa_type_get(s, "D"), pa_type_get(s, "H"), &info) == PA_OK)
        t = info.threads;
    pa_scope_destroy(s);
    return t > 0 ? t : 1;
}

static int repeats = 15;
static const char *only = "";   /* run only the cases whose name starts with this */
static cudaEvent_t ev0, ev1;

typedef struct row {
    char name[48], target_op[4];
    double mib, ours, anchor, target;
} row;
static row rows[32];
static int nrows;

static int cmp(const void *a, const void *b)
{
    float x = *(const float *)a, y = *(const float *)b;
    return (x > y) - (x < y);
}

/* One timed call: what == 0 runs pa_copy, else cudaMemcpy(kind). */
typedef struct op {
    const pa_type *dt, *st;
    void *dst, *src;
    size_t bytes;
    int kind;   /* -1: pa_copy, -2: pa_copy_async on the default stream, -3: cudaMemcpyPeer GPU 1 -> 0, else a
                   cudaMemcpyKind */
    int sync;   /* then wait for the default stream: a device-to-device cudaMemcpy returns before it is done */
} op;

static void run_op(const op *o)
{
    if (o->kind == -3) CK(cudaMemcpyPeer(o->dst, 0, o->src, 1, o->bytes));
    else if (o->kind == -2) PK(pa_copy_async(o->dt, o->dst, o->st, o->src, NULL));
    else if (o->kind < 0) PK(pa_copy(o->dt, o->dst, o->st, o->src));
    else CK(cudaMemcpy(o->dst, o->src, o->bytes, (enum cudaMemcpyKind)o->kind));
    if (o->sync) CK(cudaStreamSynchronize(0));
}

static float time_once(const op *o)
{
    float t;
    CK(cudaEventRecord(ev0, 0));
    run_op(o);
    CK(cudaEventRecord(ev1, 0));
    CK(cudaEventSynchronize(ev1));
    CK(cudaEventElapsedTime(&t, ev0, ev1));
    return t;
}

/* Ours and the anchor in turns, so that a drift of the link or the clocks during the run touches both alike;
 * the medians of each, in ms. */
static void time_pair(const op *ours, const op *anchor, double *t_ours, double *t_anchor)
{
    float a[64], b[64];
    int n = repeats > 64 ? 64 : repeats;
    for (int i = 0; i < 2; i++) {
        run_op(ours);
        run_op(anchor);
    }
    for (int i = 0; i < n; i++) {
        a[i] = time_once(ours);
        b[i] = time_once(anchor);
    }
    qsort(a, (size_t)n, sizeof *a, cmp);
    qsort(b, (size_t)n, sizeof *b, cmp);
    *t_ours = a[n / 2];
    *t_anchor = b[n / 2];
}

/* Fills an array of any memory type with random bytes (through a pinned bounce for dmem). */
static void randomize(void *p, size_t bytes, int device)
{
    unsigned char *h = malloc(bytes);
    uint64_t x = 0x9E3779B97F4A7C15ull ^ bytes;
    for (size_t i = 0; i < bytes; i += 8) {
        x ^= x << 13, x ^= x >> 7, x ^= x << 17;
        memcpy(h + i, &x, bytes - i < 8 ? bytes - i : 8);
    }
    if (device) CK(cudaMemcpy(p, h, bytes, cudaMemcpyHostToDevice));
    else memcpy(p, h, bytes);
    free(h);
}

static int is_dev(const pa_type *t)
{
    return strcmp(pa_mtt(t), "dmem") == 0;
}

/*
 * Times pa_copy(TO <- FROM) against the anchor: a contiguous cudaMemcpy of the same bytes, between dmem
 * buffers (P1), between the pinned buffer and dmem (P2), or between the same pageable buffer and dmem (P3).
 */
static void bench(const char *name, const char *decls, double target)
{
    pa_scope *s;
    char line[1024];
    if (strncmp(name, only, strlen(only)) != 0)
        return;
    PK(pa_scope_create(NULL, &s));
    PK(pa_declare_text(s, decls));
    const pa_type *ft = pa_type_get(s, "FROM"), *tt = pa_type_get(s, "TO");
    if (!ft || !tt) {
        fprintf(stderr, "%s: %s\n", name, pa_last_error());
        exit(1);
    }
    size_t fb = pa_alloc_bytes(ft), tb = pa_alloc_bytes(tt), bytes = (size_t)pa_size(ft) * pa_elm_size(ft);
    int peer = strncmp(name, "GPU1", 4) == 0;   /* FROM on GPU 1, TO on GPU 0 */
    if (peer) PK(pa_cuda_set_device(1));
    void *from = pa_create(ft);
    if (peer) PK(pa_cuda_set_device(0));
    void *to = pa_create(tt);
    if (!from || !to) {
        fprintf(stderr, "%s: %s\n", name, pa_last_error());
        exit(1);
    }
    randomize(from, fb, is_dev(ft));
    PK(pa_copy_explain(tt, ft, line, sizeof line) < 0 ? -1 : PA_OK);
    printf("%-34s %s\n", name, line);
    op ours = {tt, ft, to, from, bytes, -1, 0}, anchor;
    void *extra = NULL;
    if (peer) {
        anchor = (op){NULL, NULL, to, from, bytes, -3, 1};
    } else if (is_dev(ft) && is_dev(tt)) {
        /* pa_copy returns when the copy is done; a device-to-device cudaMemcpy does not, so the anchor waits. */
        anchor = (op){NULL, NULL, to, from, bytes, cudaMemcpyDeviceToDevice, 1};
    } else {
        /* The host side's own buffer against a device buffer; for pinned it is contiguous pinned memory. */
        int h2d = is_dev(tt);
        void *host = h2d ? from : to, *dev = h2d ? to : from;
        size_t need = h2d ? tb : fb;
        if (need < bytes) {
            CK(cudaMalloc(&extra, bytes));
            dev = extra;
        }
        anchor = h2d ? (op){NULL, NULL, dev, host, bytes, cudaMemcpyHostToDevice, 0}
                     : (op){NULL, NULL, host, dev, bytes, cudaMemcpyDeviceToHost, 0};
    }
    double t_ours, t_anchor;
    time_pair(&ours, &anchor, &t_ours, &t_anchor);
    row *r = &rows[nrows++];
    snprintf(r->name, sizeof r->name, "%s", name);
    r->mib = (double)bytes / (1 << 20);
    r->ours = (double)bytes / t_ours / 1e6;
    r->anchor = (double)bytes / t_anchor / 1e6;
    r->target = target;
    if (extra) CK(cudaFree(extra));
    PK(pa_destroy(ft, from));
    PK(pa_destroy(tt, to));
    pa_scope_destroy(s);
    (void)tb;
}

/*
 * The fixed cost of one copy, the part that no bandwidth hides: a 64x64 float transpose on the device against a
 * cudaMemcpy of its 16 KiB, timed like the cases (events around one call), synchronous (pa_copy; cudaMemcpy and
 * a wait for the stream) and queued (pa_copy_async on the default stream; cudaMemcpy alone).
 */
static void small_copy_cost(void)
{
    pa_scope *s;
    if (strncmp("overhead", only, strlen(only)) != 0)
        return;
    PK(pa_scope_create(NULL, &s));
    PK(pa_declare_text(s, "parray dmem float [64][64] FROM\nparray dmem float [[#FROM_1][#FROM_0]] TO"));
    const pa_type *ft = pa_type_get(s, "FROM"), *tt = pa_type_get(s, "TO");
    void *from = pa_create(ft), *to = pa_create(tt);
    if (!from || !to) {
        fprintf(stderr, "overhead: %s\n", pa_last_error());
        exit(1);
    }
    op ours = {tt, ft, to, from, 64 * 64 * 4, -1, 0};
    op anchor = {NULL, NULL, to, from, 64 * 64 * 4, cudaMemcpyDeviceToDevice, 1};
    int saved = repeats;
    double t[4];
    repeats = 64;
    time_pair(&ours, &anchor, &t[0], &t[1]);
    ours.kind = -2;
    anchor.sync = 0;
    time_pair(&ours, &anchor, &t[2], &t[3]);
    repeats = saved;
    printf("small copy (64x64 float transpose, 16 KiB on the device), us per call:\n"
           "  synchronous: pa_copy %.1f, cudaMemcpy + cudaStreamSynchronize %.1f\n"
           "  queued:      pa_copy_async %.1f, cudaMemcpy %.1f\n\n", t[0] * 1e3, t[1] * 1e3, t[2] * 1e3, t[3] * 1e3);
    PK(pa_destroy(ft, from));
    PK(pa_destroy(tt, to));
    pa_scope_destroy(s);
}

int main(int argc, char **argv)
{
    if (argc > 1) repeats = atoi(argv[1]);
    if (argc > 2) only = argv[2];
    if (gpu_bench_start("copy_gpu", repeats, &ev0, &ev1) != 0)
        return 77;

    small_copy_cost();

    /* P1: dmem -> dmem, 256 MiB. */
    bench("P1 2-D transpose float 8192^2", "parray dmem float [8192][8192] FROM\n"
          "parray dmem float [[#FROM_1][#FROM_0]] TO", 0.90);
    bench("P1 2-D transpose 16B 4096^2", "parray dmem bytes16 [4096][4096] FROM\n"
          "parray dmem bytes16 [[#FROM_1][#FROM_0]] TO", 0.90);
    bench("P1 2-D transpose double 8192x4096", "parray dmem double [8192][4096] FROM\n"
          "parray dmem double [[#FROM_1][#FROM_0]] TO", 0.90);
    bench("P1 3-D (2,1,0) float 256x512x512", "parray dmem float [256][512][512] FROM\n"
          "parray dmem float [[#FROM_2][#FROM_1][#FROM_0]] TO", 0.90);
    bench("P1 3-D (1,0,2) float 512x512x256", "parray dmem float [512][512][256] FROM\n"
          "parray dmem float [[#FROM_1][#FROM_0][#FROM_2]] TO", 0.90);
    bench("P1 window 8192^2 of 8192x8320", "parray dmem float [8192][8320] P\n"
          "parray dmem float [[8192 # disp(0) # P_0][8192 # disp(64) # P_1]] FROM\n"
          "parray dmem float [8192][8192] TO", 0.90);
    bench("P1 [[n][n]][m] n=2048 m=16", "parray dmem float [[2048][2048]][16] FROM\n"
          "parray dmem float [[#FROM_0_1][#FROM_0_0]][#FROM_1] TO", 0.90);

    /* P2: pinned <-> dmem with a layout change. */
    bench("P2 H2D transpose float (4 B runs)", "parray pinned float [8192][8192] FROM\n"
          "parray dmem float [[#FROM_1][#FROM_0]] TO", 0.90);
    bench("P2 D2H transpose float (4 B runs)", "parray dmem float [8192][8192] FROM\n"
          "parray pinned float [[#FROM_1][#FROM_0]] TO", 0.90);
    bench("P2 H2D transpose 16B (16 B runs)", "parray pinned bytes16 [4096][4096] FROM\n"
          "parray dmem bytes16 [[#FROM_1][#FROM_0]] TO", 0.90);
    bench("P2 D2H transpose 16B (16 B runs)", "parray dmem bytes16 [4096][4096] FROM\n"
          "parray pinned bytes16 [[#FROM_1][#FROM_0]] TO", 0.90);
    bench("P2 listing 15 H2D (8 KiB runs)", "parray pinned double [[1024][16]][1024] FROM\n"
          "parray dmem double [[#FROM_0_1][#FROM_0_0]][#FROM_1] TO", 0.90);
    bench("P2 listing 15 D2H (8 KiB runs)", "parray dmem double [[1024][16]][1024] FROM\n"
          "parray pinned double [[#FROM_0_1][#FROM_0_0]][#FROM_1] TO", 0.90);

    /* P3: paged <-> dmem against the driver's pageable path. */
    bench("P3 H2D contiguous 256 MiB", "parray paged float [67108864] FROM\nparray dmem float [67108864] TO", 3.0);
    bench("P3 D2H contiguous 256 MiB", "parray dmem float [67108864] FROM\nparray paged float [67108864] TO", 3.0);
    bench("P3 H2D transpose float 8192^2", "parray paged float [8192][8192] FROM\n"
          "parray dmem float [[#FROM_1][#FROM_0]] TO", 3.0);
    bench("P3 D2H transpose float 8192^2", "parray dmem float [8192][8192] FROM\n"
          "parray paged float [[#FROM_1][#FROM_0]] TO", 3.0);

    /* GPU 1 -> GPU 0 (no target in PERFORMANCE.md: shown against cudaMemcpyPeer of the same bytes). */
    if (pa_cuda_device_count() >= 2) {
        bench("GPU1->GPU0 contiguous float", "parray dmem float [67108864] FROM\nparray dmem float [67108864] TO",
              0);
        bench("GPU1->GPU0 transpose float 8192^2", "parray dmem float [8192][8192] FROM\n"
              "parray dmem float [[#FROM_1][#FROM_0]] TO", 0);
        bench("GPU1->GPU0 transpose 16B 4096^2", "parray dmem bytes16 [4096][4096] FROM\n"
              "parray dmem bytes16 [[#FROM_1][#FROM_0]] TO", 0);
    }

    int fails = 0, targets = 0;
    printf("\n%-34s %9s %12s %12s %7s %7s %s\n", "case", "MiB", "ours GB/s", "anchor GB/s", "ratio", "target",
           "result");
    for (int i = 0; i < nrows; i++) {
        row *r = &rows[i];
        double ratio = r->ours / r->anchor;
        int pass = ratio >= r->target;
        if (r->target <= 0) {
            printf("%-34s %9.0f %12.1f %12.1f %7.3f %7s %s\n", r->name, r->mib, r->ours, r->anchor, ratio, "-",
                   "(no target)");
            continue;
        }
        targets++;
        fails += !pass;
        printf("%-34s %9.0f %12.1f %12.1f %7.3f %7.2f %s\n", r->name, r->mib, r->ours, r->anchor, ratio, r->target,
               pass ? "pass" : "FAIL");
    }
    /* P3 against the host limit: an OpenMP memcpy of 256 MiB on the pipeline's threads, in this run. */
    int p3 = 0;
    for (int i = 0; i < nrows; i++)
        p3 += strncmp(rows[i].name, "P3", 2) == 0;
    if (p3 > 0) {
        size_t n = (size_t)256 << 20;
        char *a = malloc(n), *b = malloc(n);
        if (a == NULL || b == NULL) {
            fprintf(stderr, "copy_gpu: no memory for the host limit's buffers\n");
            exit(1);
        }
        randomize(a, n, 0);
        randomize(b, n, 0);
        int t = pipeline_threads();
        double rate = omp_memcpy_rate(b, a, n, t, 11), limit = rate * 2 / 3;
        free(a);
        free(b);
        printf("\nP3 against the host limit: OpenMP memcpy of 256 MiB on the pipeline's %d threads %.1f GB/s, "
               "limit 2/3 of it %.1f GB/s\n", t, rate, limit);
        printf("%-34s %12s %12s %7s %7s %s\n", "case", "ours GB/s", "limit GB/s", "ratio", "target", "result");
        for (int i = 0; i < nrows; i++) {
            row *r = &rows[i];
            if (strncmp(r->name, "P3", 2) != 0)
                continue;
            int pass = r->ours / limit >= 0.75;
            targets++;
            fails += !pass;
            printf("%-34s %12.1f %12.1f %7.3f %7.2f %s\n", r->name, r->ours, limit, r->ours / limit, 0.75,
                   pass ? "pass" : "FAIL");
        }
    }
    printf("%d of %d cases meet their target\n", targets - fails, targets);
    return 0;
}
