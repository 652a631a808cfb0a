/*
 * parray benchmark P18 — distributed copies of device memory between GPUs against NCCL's own transfers of the
 * same bytes, in one run.  One process per GPU (rank r on GPU r mod the GPUs of its host):
 *   alltoall   S = [#M][#D_0][#D_1] to T = [#D_0][#M][#D_1] (D = dmem float [P][n]): every pair's block is
 *              contiguous on both sides                          vs  grouped ncclSend/ncclRecv (an all-to-all)
 *   fft        the manual's PKUFFT exchange (listing 46: S = [#M][#DSL] to T = [[#DSL_1_0][#M][#DSL_0]
 *              [#DSL_1_1]] over float2 slabs [N/P][N][N]): a transposition of rows fused into the all-to-all
 *                                                                 vs  the same all-to-all of contiguous blocks
 *   fft-tz     the fast form's exchange (pkufft.h: to TZ = [[#DSL_1_1][#M][#DSL_0][#DSL_1_0]], Z gathered
 *              innermost): a transposition of single elements fused in                vs  the same
 *   scatter    dmem float [P][n] on rank 0 to [#M][#S_1]         vs  ncclSend from rank 0, ncclRecv elsewhere
 *   sendrecv   rank 0's dmem array to rank 1's                   vs  ncclSend / ncclRecv
 * Every sample starts after a barrier; its time is the slowest rank's.  Ours and NCCL's alternate (which goes
 * first alternates too), and the medians are compared: ratio = NCCL's time / ours, target 0.95 for the plain
 * exchanges and 0.85 for the fused layout change.  Our results are checked element by element against the host
 * route's copy of the same types (paged memory, MPI), which the MPI suites check against the reference offsets.
 *     mpirun -np P build/bench/gpu_dist [--quick] [--reps R] [--fft N ...]
 * Prints the route each copy took (pa_copy_explain); PA_MPI_ROUTE=peer runs every row on the peer route's pulls
 * instead (NCCL stays the anchor).  Skips (77) without a GPU, NCCL or 2 processes.
 * NCCL is linked here directly (the library loads it at run time).
 */
#include <cuda_runtime.h>
#include <mpi.h>
#include <nccl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "parray/parray.h"
#include <parray/cuda.h>
#include "bench_clock.h"
static int me;   /* this rank, for the messages of GPU_BENCH_EXIT */
#define GPU_BENCH_EXIT() (fprintf(stderr, "rank %d: stopping every rank\n", me), MPI_Abort(MPI_COMM_WORLD, 1))
#include "gpu_bench.h"

static int nprocs, reps = 11;
static ncclComm_t nccl;
static cudaStream_t stream;


/* The anchor: NCCL moving bytes per pair from sb to rb as this case's pattern does. */
typedef struct anchor {
    int kind;                 /* 0 all-to-all, 1 scatter from 0, 2 send 0 -> 1 */
    char *sb, *rb;
    size_t blk;               /* bytes per pair */
} anchor;

static void run_anchor(const anchor *a)
{
    NC(ncclGroupStart());
    for (int q = 0; q < nprocs; q++) {
        if (a->kind == 0) {
            NC(ncclSend(a->sb + q * a->blk, a->blk, ncclInt8, q, nccl, stream));
            NC(ncclRecv(a->rb + q * a->blk, a->blk, ncclInt8, q, nccl, stream));
        } else if (a->kind == 1) {
            if (me == 0)
                NC(ncclSend(a->sb + q * a->blk, a->blk, ncclInt8, q, nccl, stream));
            if (q == 0)
                NC(ncclRecv(a->rb, a->blk, ncclInt8, 0, nccl, stream));
        } else if (q == 0) {
            if (me == 0)
                NC(ncclSend(a->sb, a->blk, ncclInt8, 1, nccl, stream));
            if (me == 1)
                NC(ncclRecv(a->rb, a->blk, ncclInt8, 0, nccl, stream));
        }
    }
    NC(ncclGroupEnd());
    CK(cudaStreamSynchronize(stream));
}

typedef struct bcase {
    const char *name;
    const pa_type *dt, *st;   /* device types */
    const pa_type *hdt, *hst; /* the same over paged memory: the check */
    void *d, *s;              /* device arrays (NULL where this rank has none) */
    anchor a;
    double target;
} bcase;

/* One timed sample of ours (which 0) or the anchor's (1): the slowest rank's seconds. */
static double sample(const bcase *c, int which)
{
    double t, worst;
    CK(cudaDeviceSynchronize());
    MPI_Barrier(MPI_COMM_WORLD);
    t = MPI_Wtime();
    if (which == 0)
        PK(pa_copy(c->dt, c->d, c->st, c->s));
    else
        run_anchor(&c->a);
    t = MPI_Wtime() - t;
    MPI_Allreduce(&t, &worst, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    return worst;
}

/* Fills this rank's source with values that name rank and offset, both in device memory and in h. */
static void fill(void *dev, float *h, size_t n)
{
    for (size_t i = 0; i < n; i++)
        h[i] = (float)(me * 1000003 + (int)(i % 1000003));
    if (dev)
        CK(cudaMemcpy(dev, h, n * sizeof *h, cudaMemcpyHostToDevice));
}

/* Our device copy against the host route's copy of the same types, element by element.  \return mismatches. */
static long check(const bcase *c, size_t sfloats, size_t dfloats)
{
    float *hs = calloc(sfloats ? sfloats : 1, sizeof *hs), *hd = malloc((dfloats ? dfloats : 1) * sizeof *hd);
    float *got = malloc((dfloats ? dfloats : 1) * sizeof *got);
    if (!hs || !hd || !got)
        DIE("no memory for the check");
    fill(c->s, hs, sfloats);
    for (size_t i = 0; i < dfloats; i++)
        hd[i] = -1.0f;
    if (c->d)
        CK(cudaMemset(c->d, 0xff, dfloats * sizeof(float)));   /* poisoned: NaNs */
    PK(pa_copy(c->dt, c->d, c->st, c->s));
    PK(pa_copy(c->hdt, dfloats ? hd : NULL, c->hst, sfloats ? hs : NULL));
    if (c->d)
        CK(cudaMemcpy(got, c->d, dfloats * sizeof(float), cudaMemcpyDeviceToHost));
    long bad = 0;
    for (size_t i = 0; i < dfloats; i++)
        bad += memcmp(&got[i], &hd[i], sizeof(float)) != 0;
    long all = 0;
    MPI_Allreduce(&bad, &all, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
    free(hs);
    free(hd);
    free(got);
    return all;
}

static void row(const bcase *c, size_t bytes_per_rank, size_t sfloats, size_t dfloats, int checked)
{
    char plan[1024] = "";
    long bad = checked ? check(c, sfloats, dfloats) : -1;
    for (int w = 0; w < 2; w++)   /* warm both */
        sample(c, 0), sample(c, 1);
    pa_copy_explain(c->dt, c->st, plan, sizeof plan);   /* the plan that ran, as its first run set it up */
    double *ours = malloc(sizeof(double) * (size_t)reps), *theirs = malloc(sizeof(double) * (size_t)reps);
    for (int i = 0; i < reps; i++) {
        int first = i & 1;
        double a = sample(c, first), b = sample(c, !first);
        ours[i] = first ? b : a;
        theirs[i] = first ? a : b;
    }
    qsort(ours, (size_t)reps, sizeof *ours, cmp_double);
    qsort(theirs, (size_t)reps, sizeof *theirs, cmp_double);
    double mo = ours[reps / 2], mt = theirs[reps / 2], ratio = mt / mo;
    if (me == 0) {
        printf("  %s: %s\n", c->name, strstr(plan, "route:") ? strstr(plan, "route:") : plan);
        printf("%-10s P=%d %9.1f MiB/rank  ours %8.3f ms  NCCL %8.3f ms  ratio %.3f  target %.2f  %s  check %s\n",
               c->name, nprocs, (double)bytes_per_rank / (1 << 20), 1e3 * mo, 1e3 * mt, ratio, c->target,
               ratio >= c->target ? "pass" : "FAIL", bad < 0 ? "skipped (size)" : bad == 0 ? "equal" : "DIFFERS");
        printf("csv,%s,%d,%zu,%.6f,%.6f,%.4f,%.2f\n", c->name, nprocs, bytes_per_rank, mo, mt, ratio, c->target);
        fflush(stdout);
    }
    if (bad > 0)
        DIE("%s: %ld elements differ from the host route's", c->name, bad);
    free(ours);
    free(theirs);
}

static void *dev_alloc(size_t bytes)
{
    void *p = NULL;
    CK(cudaMalloc(&p, bytes ? bytes : 1));
    return p;
}

/* The plain all-to-all, the scatter and the send/recv over n floats per pair. */
static void plain_rows(pa_scope *parent, long n, int checked)
{
    char text[1024];
    pa_scope *sc;
    PK(pa_scope_create(parent, &sc));
    snprintf(text, sizeof text,
             "parray mpi [%d] M\n"
             "parray dmem float [%d][%ld] D\n"
             "parray paged float [%d][%ld] HD\n"
             "parray [#M][#D_0][#D_1] S\nparray [#D_0][#M][#D_1] T\n"
             "parray [#M][#HD_0][#HD_1] HS\nparray [#HD_0][#M][#HD_1] HT\n"
             "parray dmem float [%d][%ld] R\nparray paged float [%d][%ld] HR\n"
             "parray dmem float [%ld] E\nparray paged float [%ld] HE\n"
             "parray [#M][#E] SC\nparray [#M][#HE] HSC\n"
             "parray [1 # disp(0) # M][#R] SR0\nparray [1 # disp(1) # M][#R] SR1\n"
             "parray [1 # disp(0) # M][#HR] HSR0\nparray [1 # disp(1) # M][#HR] HSR1\n",
             nprocs, nprocs, n, nprocs, n, nprocs, n, nprocs, n, n, n);
    PK(pa_declare_text(sc, text));
    size_t per = (size_t)nprocs * (size_t)n;
    void *s = dev_alloc(per * 4), *d = dev_alloc(per * 4);
    bcase a2a = {"alltoall", pa_type_get(sc, "T"), pa_type_get(sc, "S"), pa_type_get(sc, "HT"),
                 pa_type_get(sc, "HS"), d, s, {0, s, d, (size_t)n * 4}, 0.95};
    row(&a2a, per * 4, per, per, checked);
    /* scatter: rank 0's R (P x n) to every rank's E (n) */
    void *e = dev_alloc((size_t)n * 4);
    bcase sc_ = {"scatter", pa_type_get(sc, "SC"), pa_type_get(sc, "R"), pa_type_get(sc, "HSC"),
                 pa_type_get(sc, "HR"), e, me == 0 ? s : NULL, {1, s, e, (size_t)n * 4}, 0.95};
    row(&sc_, per * 4, me == 0 ? per : 0, (size_t)n, checked);
    /* send/recv: rank 0's R to rank 1's R */
    bcase sr = {"sendrecv", pa_type_get(sc, "SR1"), pa_type_get(sc, "SR0"), pa_type_get(sc, "HSR1"),
                pa_type_get(sc, "HSR0"), me == 1 ? d : NULL, me == 0 ? s : NULL, {2, s, d, per * 4}, 0.95};
    row(&sr, per * 4, me == 0 ? per : 0, me == 1 ? per : 0, checked);
    cudaFree(s);
    cudaFree(d);
    cudaFree(e);
    pa_scope_destroy(sc);
}

/* The PKUFFT exchange at size N (float2 slabs of N/P planes), against NCCL's all-to-all of the same bytes: the
 * listing's S -> T (tz 0), or the fast form's S -> TZ (tz 1: Z gathered innermost, pkufft.h). */
static void fft_row(pa_scope *parent, long N, int checked, int tz)
{
    char text[1024];
    pa_scope *sc;
    PK(pa_scope_create(parent, &sc));
    snprintf(text, sizeof text,
             "parray mpi [%d] M\n"
             "parray dmem float2 [%ld][[%ld][%ld]] DSL\nparray paged float2 [%ld][[%ld][%ld]] HSL\n"
             "parray [#M][#DSL] S\nparray [#M][#HSL] HS\n%s",
             nprocs, N / nprocs, N, N, N / nprocs, N, N,
             tz ? "parray [[#DSL_1_1][#M][#DSL_0][#DSL_1_0]] T\nparray [[#HSL_1_1][#M][#HSL_0][#HSL_1_0]] HT\n"
                : "parray [[#DSL_1_0][#M][#DSL_0][#DSL_1_1]] T\nparray [[#HSL_1_0][#M][#HSL_0][#HSL_1_1]] HT\n");
    PK(pa_declare_text(sc, text));
    size_t floats = 2 * (size_t)(N / nprocs) * (size_t)N * (size_t)N;
    void *s = dev_alloc(floats * 4), *d = dev_alloc(floats * 4);
    char name[32];
    snprintf(name, sizeof name, "%s N=%ld", tz ? "fft-tz" : "fft", N);
    bcase c = {name, pa_type_get(sc, "T"), pa_type_get(sc, "S"), pa_type_get(sc, "HT"), pa_type_get(sc, "HS"),
               d, s, {0, s, d, floats * 4 / (size_t)nprocs}, 0.85};
    row(&c, floats * 4, floats, floats, checked);
    cudaFree(s);
    cudaFree(d);
    pa_scope_destroy(sc);
}

int main(int argc, char **argv)
{
    long ffts[8] = {128, 512, 1024};
    int nfft = 3, quick = 0, ngpu = 0;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &nprocs);
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--quick"))
            quick = 1, reps = 3;
        else if (!strcmp(argv[i], "--reps") && i + 1 < argc)
            reps = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--fft") && i + 1 < argc) {
            nfft = 0;
            while (i + 1 < argc && argv[i + 1][0] != '-' && nfft < 8)
                ffts[nfft++] = atol(argv[++i]);
        }
    }
    reps = reps < 3 ? 3 : reps;
    int local = 0;
    MPI_Comm node;
    MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, me, MPI_INFO_NULL, &node);
    MPI_Comm_rank(node, &local);
    MPI_Comm_free(&node);
    if (cudaGetDeviceCount(&ngpu) != cudaSuccess || ngpu < 1 || nprocs < 2) {
        if (me == 0)
            printf("gpu_dist: skipped (%s)\n", nprocs < 2 ? "run with 2 processes or more" : "no GPU");
        MPI_Finalize();
        return 77;
    }
    CK(cudaSetDevice(local % ngpu));
    PK(pa_cuda_set_device(local % ngpu));
    CK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
    ncclUniqueId id;
    if (me == 0)
        NC(ncclGetUniqueId(&id));
    MPI_Bcast(&id, sizeof id, MPI_BYTE, 0, MPI_COMM_WORLD);
    NC(ncclCommInitRank(&nccl, nprocs, id, me));
    if (me == 0) {
        struct cudaDeviceProp prop;
        int v = 0;
        cudaGetDeviceProperties(&prop, 0);
        ncclGetVersion(&v);
        printf("device: %s x %d, %d processes (one per GPU), NCCL %d; %d samples each (median); P18 targets: "
               "plain >= 0.95, fused layout change >= 0.85 of NCCL\n", prop.name, ngpu, nprocs, v, reps);
    }
    pa_scope *sc;
    PK(pa_scope_create(NULL, &sc));
    long sizes[] = {1L << 14, 1L << 20, 1L << 26};   /* floats per pair: 64 KiB, 4 MiB, 256 MiB */
    for (int i = 0; i < (quick ? 2 : 3); i++)
        plain_rows(sc, sizes[i] / (i == 2 ? nprocs : 1), sizes[i] <= (1L << 20));
    for (int i = 0; i < (quick ? 0 : nfft); i++)
        for (int tz = 0; tz < 2; tz++)
            fft_row(sc, ffts[i], ffts[i] <= 256, tz);
    pa_scope_destroy(sc);
    ncclCommDestroy(nccl);
    cudaStreamDestroy(stream);
    MPI_Finalize();
    return 0;
}
