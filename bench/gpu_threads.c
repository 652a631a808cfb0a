/*
 * parray benchmark P18, threads — the all-to-all between the threads of one process, one thread per GPU (manual
 * section 1.4), against NCCL's own grouped send/recv of the same bytes between the same GPUs, in one run:
 *   alltoall   S = [#P][#D_0][#D_1] to T = [#D_0][#P][#D_1] (D = dmem float [P][n]): every pair's block is
 *              contiguous on both sides                          vs  grouped ncclSend/ncclRecv (an all-to-all)
 *   fft        the manual's PKUFFT exchange (S = [#P][#DSL] to T = [[#DSL_1_0][#P][#DSL_0][#DSL_1_1]] over float2
 *              slabs [N/P][N][N]): a transposition of rows fused into the all-to-all
 *                                                                 vs  the same all-to-all of contiguous blocks
 * P pthd threads (the GPUs, or --gpus P), thread t on GPU t.  Ours is pa_copy inside pa_for, which takes the
 * route pa_copy_explain names (NCCL with one communicator per thread, or the peer pulls; PA_PTHD_ROUTE=nccl|peer
 * compares them); NCCL's is one communicator per GPU (ncclCommInitAll) driven by the same threads.  Every sample
 * starts when all threads have met (spinning); its time is the slowest thread's.  Ours and NCCL's alternate (which
 * goes first alternates too), and the medians are compared: ratio = NCCL's time / ours, target 0.95 for the plain
 * exchange and 0.85 for the fused layout change (as for processes, bench/gpu_dist.c).  Our results are checked
 * element by element against the host pulls of the same types (paged memory), which the thread suites check
 * against the reference offsets.
 *     build/bench/gpu_threads [--quick] [--reps R] [--gpus P] [--fft N ...]
 * Skips (77) below 2 GPUs.  NCCL is linked here directly (the library loads it at run time).
 */
#include <cuda_runtime.h>
#include <nccl.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "parray/parray.h"
#include <parray/cuda.h>
#include "bench_clock.h"
#include "gpu_bench.h"

#define MAXG 16

static int ngpus, reps = 11;
static ncclComm_t comms[MAXG];
static cudaStream_t streams[MAXG];


/* The threads meet here before and after every sample: spinning, so that they start together. */
static atomic_long arrived, generation;

static void meet(void)
{
    long g = atomic_load(&generation);
    if (atomic_fetch_add(&arrived, 1) + 1 == ngpus) {
        atomic_store(&arrived, 0);
        atomic_fetch_add(&generation, 1);
        return;
    }
    while (atomic_load(&generation) == g)
        ;
}

typedef struct bcase {
    const char *name;
    pa_scope *sc;
    size_t floats;            /* per thread, in each array */
    int checked;
    double target;
    double *ours, *theirs;    /* per sample: the slowest thread's seconds */
    double times[MAXG];       /* this sample's, per thread */
    atomic_long bad;
    char plan[2048];
} bcase;

/* NCCL's all-to-all of the same bytes: every pair's block, from s to d. */
static void anchor(int t, const char *s, char *d, size_t blk)
{
    NC(ncclGroupStart());
    for (int q = 0; q < ngpus; q++) {
        NC(ncclSend(s + (size_t)q * blk, blk, ncclInt8, q, comms[t], streams[t]));
        NC(ncclRecv(d + (size_t)q * blk, blk, ncclInt8, q, comms[t], streams[t]));
    }
    NC(ncclGroupEnd());
    CK(cudaStreamSynchronize(streams[t]));
}

/* One sample of ours (which 0) or NCCL's (1) on thread t; thread 0 keeps the slowest thread's time in *out. */
static void sample(bcase *c, int t, int which, void *d, void *s, double *out)
{
    const pa_type *T = pa_type_get(c->sc, "T"), *S = pa_type_get(c->sc, "S");
    meet();
    double t0 = now();
    if (which == 0)
        PK(pa_copy(T, d, S, s));
    else
        anchor(t, s, d, c->floats * 4 / (size_t)ngpus);
    c->times[t] = now() - t0;
    meet();
    if (t == 0 && out) {
        double worst = 0;
        for (int i = 0; i < ngpus; i++)
            worst = c->times[i] > worst ? c->times[i] : worst;
        *out = worst;
    }
}

/* Our copy against the host pulls of the same types, element by element (the destination poisoned first). */
static void check(bcase *c, int t, void *d, void *s)
{
    float *hs = malloc(c->floats * 4), *hd = malloc(c->floats * 4), *got = malloc(c->floats * 4);
    if (!hs || !hd || !got)
        DIE("no memory for the check");
    for (size_t i = 0; i < c->floats; i++)
        hs[i] = (float)(t * 1000003 + (int)(i % 1000003)), hd[i] = -1.0f;
    CK(cudaMemcpy(s, hs, c->floats * 4, cudaMemcpyHostToDevice));
    CK(cudaMemset(d, 0xff, c->floats * 4));   /* poisoned: NaNs */
    PK(pa_copy(pa_type_get(c->sc, "T"), d, pa_type_get(c->sc, "S"), s));
    PK(pa_copy(pa_type_get(c->sc, "HT"), hd, pa_type_get(c->sc, "HS"), hs));
    CK(cudaMemcpy(got, d, c->floats * 4, cudaMemcpyDeviceToHost));
    long bad = 0;
    for (size_t i = 0; i < c->floats; i++)
        bad += memcmp(&got[i], &hd[i], 4) != 0;
    atomic_fetch_add(&c->bad, bad);
    free(hs);
    free(hd);
    free(got);
}

static int thread_main(pa_ctx *ctx, void *arg)
{
    bcase *c = *(bcase **)arg;
    int t = (int)pa_tid(ctx);
    CK(cudaSetDevice(t));
    PK(pa_cuda_set_device(t));
    const pa_type *D = pa_type_get(c->sc, "D");
    void *s = pa_create(D), *d = pa_create(D);
    if (!s || !d)
        DIE("thread %d: pa_create: %s", t, pa_last_error());
    if (c->checked)
        check(c, t, d, s);
    for (int w = 0; w < 2; w++)   /* warm both */
        sample(c, t, 0, d, s, NULL), sample(c, t, 1, d, s, NULL);
    if (t == 0)   /* the route that ran, as its first run set it up */
        pa_copy_explain(pa_type_get(c->sc, "T"), pa_type_get(c->sc, "S"), c->plan, sizeof c->plan);
    for (int i = 0; i < reps; i++) {
        int first = i & 1;
        sample(c, t, first, d, s, first ? &c->theirs[i] : &c->ours[i]);
        sample(c, t, !first, d, s, first ? &c->ours[i] : &c->theirs[i]);
    }
    pa_destroy(D, s);
    pa_destroy(D, d);
    return PA_OK;
}

static void row(const char *name, const char *text, size_t floats, int checked, double target)
{
    bcase c;
    memset(&c, 0, sizeof c);
    c.name = name;
    c.floats = floats;
    c.checked = checked;
    c.target = target;
    c.ours = calloc((size_t)reps, sizeof(double));
    c.theirs = calloc((size_t)reps, sizeof(double));
    PK(pa_scope_create(NULL, &c.sc));
    PK(pa_declare_text(c.sc, text));
    bcase *cp = &c;
    PK(pa_for(pa_type_get(c.sc, "P"), thread_main, &cp, sizeof cp));
    double mo = median(c.ours, reps), mt = median(c.theirs, reps), ratio = mt / mo;
    long bad = atomic_load(&c.bad);
    const char *route = strstr(c.plan, "route:");
    printf("  %s: %s\n", name, route ? route : c.plan);
    printf("%-10s P=%d %9.1f MiB/thread  ours %8.3f ms  NCCL %8.3f ms  ratio %.3f  target %.2f  %s  check %s\n", name,
           ngpus, (double)floats * 4 / (1 << 20), 1e3 * mo, 1e3 * mt, ratio, target, ratio >= target ? "pass" : "FAIL",
           !checked ? "skipped (size)" : bad == 0 ? "equal" : "DIFFERS");
    printf("csv,threads-%s,%d,%zu,%.6f,%.6f,%.4f,%.2f\n", name, ngpus, floats * 4, mo, mt, ratio, target);
    fflush(stdout);
    if (bad > 0)
        DIE("%s: %ld elements differ from the host pulls'", name, bad);
    pa_scope_destroy(c.sc);
    free(c.ours);
    free(c.theirs);
}

int main(int argc, char **argv)
{
    long ffts[8] = {128, 512, 1024};
    int nfft = 3, quick = 0, want = 0, have = 0;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--quick"))
            quick = 1, reps = 3;
        else if (!strcmp(argv[i], "--reps") && i + 1 < argc)
            reps = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--gpus") && i + 1 < argc)
            want = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--fft") && i + 1 < argc) {
            nfft = 0;
            while (i + 1 < argc && argv[i + 1][0] != '-' && nfft < 8)
                ffts[nfft++] = atol(argv[++i]);
        } else {
            fprintf(stderr, "usage: gpu_threads [--quick] [--reps R] [--gpus P] [--fft N ...]\n");
            return 2;
        }
    }
    reps = reps < 3 ? 3 : reps;
    if (cudaGetDeviceCount(&have) != cudaSuccess || have < 2) {
        printf("gpu_threads: skipped (%d GPU; one thread per GPU needs 2 or more)\n", have);
        return 77;
    }
    ngpus = want >= 2 && want < have ? want : have;
    ngpus = ngpus > MAXG ? MAXG : ngpus;
    int devs[MAXG];
    for (int i = 0; i < ngpus; i++) {
        devs[i] = i;
        CK(cudaSetDevice(i));
        CK(cudaStreamCreateWithFlags(&streams[i], cudaStreamNonBlocking));
    }
    NC(ncclCommInitAll(comms, ngpus, devs));
    struct cudaDeviceProp prop;
    int v = 0;
    cudaGetDeviceProperties(&prop, 0);
    ncclGetVersion(&v);
    printf("device: %s x %d, one process, %d threads (one per GPU), NCCL %d; %d samples each (median); P18 targets: "
           "plain >= 0.95, fused layout change >= 0.85 of NCCL\n", prop.name, have, ngpus, v, reps);
    char text[1024];
    long sizes[] = {1L << 14, 1L << 20, 1L << 26};   /* floats per pair: 64 KiB, 4 MiB, 256 MiB / P */
    for (int i = 0; i < (quick ? 2 : 3); i++) {
        long n = sizes[i] / (i == 2 ? ngpus : 1);
        snprintf(text, sizeof text,
                 "P = pthd [%d]\nD = dmem float [%d][%ld]\nHD = paged float [%d][%ld]\n"
                 "S = [#P][#D_0][#D_1]\nT = [#D_0][#P][#D_1]\nHS = [#P][#HD_0][#HD_1]\nHT = [#HD_0][#P][#HD_1]\n",
                 ngpus, ngpus, n, ngpus, n);
        row("alltoall", text, (size_t)ngpus * (size_t)n, sizes[i] <= (1L << 20), 0.95);
    }
    for (int i = 0; i < (quick ? 0 : nfft); i++) {
        long N = ffts[i];
        if (N % ngpus) {
            printf("fft N=%ld: skipped (not a multiple of %d threads)\n", N, ngpus);
            continue;
        }
        snprintf(text, sizeof text,
                 "P = pthd [%d]\nD = dmem float2 [%ld][[%ld][%ld]]\nHD = paged float2 [%ld][[%ld][%ld]]\n"
                 "S = [#P][#D]\nT = [[#D_1_0][#P][#D_0][#D_1_1]]\nHS = [#P][#HD]\nHT = [[#HD_1_0][#P][#HD_0][#HD_1_1]]\n",
                 ngpus, N / ngpus, N, N, N / ngpus, N, N);
        char name[32];
        snprintf(name, sizeof name, "fft N=%ld", N);
        row(name, text, 2 * (size_t)(N / ngpus) * (size_t)N * (size_t)N, N <= 256, 0.85);
    }
    for (int i = 0; i < ngpus; i++) {
        ncclCommDestroy(comms[i]);
        cudaStreamDestroy(streams[i]);
    }
    return 0;
}
