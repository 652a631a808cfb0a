/*
 * bench/fft — the distributed 3-D FFT of the manual's section 7.2 (examples/pkufft), target P12:
 *
 *     mpirun -np P build/bench/fft [--route=host|device|both] [--repeats=R] [--alltoall-only] [--groups=G]
 *                                  [--fast-only] [N...]                               (N: 256 512 1024)
 *
 * For each N (complex float) and route, every rank runs the transform on its slab R times after a warm-up
 * (each from the same input); a phase's time is the slowest rank's, and the table shows the median over the
 * repeats: the 2-D transforms, the 1-D transforms, the copies between host and GPU (and the GPU transpositions
 * around the Z step), the two all-to-alls, and the total.  Anchors measured in the same run:
 *  - the total against one GPU's cufftPlan3d of the same N on data already on the GPU (what a user with one GPU
 *    would run; reported, no target), and against the same with its host copies (pinned -> GPU -> pinned);
 *  - the all-to-all (the copy S -> T alone, between barriers) against MPI_Alltoall of the same bytes between
 *    contiguous buffers in the same memory as the route's (pinned host memory; for the device route without a
 *    CUDA-aware MPI, a device -> pinned copy, MPI_Alltoall and pinned -> device copy; for the device route on
 *    one process, where the all-to-all is a copy on the GPU, a cudaMemcpy device -> device), target >= 0.90.
 * Prints P, the ranks per GPU and the route the library took.  Skips (77) without a GPU or cuFFT.
 * The fast form (one all-to-all that leaves Z innermost, result left distributed along Y) runs twice: in one
 * group (reported) and pipelined in G plane groups (the XY transforms of group g + 1 run while group g is
 * exchanged), which carries P12's limits against cuFFT on one GPU.  G is --groups=G, or by default chosen by cost
 * (pk_groups_by_cost: the NCCL route's constants from the cost model, the transforms' rate of the one-group run;
 * docs/scaling.md); where that gives 1 group, the one-group run is the fast form's row.  --fast-only runs only those
 * rows (and cuFFT's anchor): no listing, no all-to-all rows.
 * --alltoall-only measures the all-to-all rows alone (no transforms, no 3-D anchor).  PA_MPI_TIMES=1 prints each
 * distributed copy's steps (pack, own block, MPI, unpack) at exit; PA_MPI_SELF=0 sends the own block through
 * MPI as well (the comparison for dist_self.c).
 * --engine=cpu runs the same steps with the example's CPU transforms over paged memory, against its CPU 3-D
 * transform (no host copies), and --smoke gives no verdict: the CPU build's test runs both at a small N.
 */
#include <math.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pkufft.h"

#if PKUFFT_CUFFT
#include <cuda_runtime_api.h>
#include <parray/cuda.h>
#endif

#define TARGET_ALLTOALL 0.90

static int rank, nranks, ngpu, repeats = 5, fails, cpu, smoke, a2a_only, fast_only, groups;   /* 0: by cost */

#define CHECK(x)                                                                                         \
    do {                                                                                                 \
        int s_ = (x);                                                                                    \
        if (s_ != PA_OK) {                                                                               \
            fprintf(stderr, "fft: rank %d: %s:%d: %s: %s\n", rank, __FILE__, __LINE__, #x, pa_last_error()); \
            MPI_Abort(MPI_COMM_WORLD, 1);                                                                \
        }                                                                                                \
    } while (0)

#if PKUFFT_CUFFT
#define CK(x)                                                                                            \
    do {                                                                                                 \
        cudaError_t e_ = (x);                                                                            \
        if (e_ != cudaSuccess) {                                                                         \
            fprintf(stderr, "fft: rank %d: %s: %s\n", rank, #x, cudaGetErrorString(e_));                \
            MPI_Abort(MPI_COMM_WORLD, 1);                                                                \
        }                                                                                                \
    } while (0)
#endif

static int cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static double median(double *v, int n)
{
    qsort(v, (size_t)n, sizeof *v, cmp);
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

static double slowest(double t)
{
    double m;
    MPI_Allreduce(&t, &m, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    return m;
}

/* The single-GPU anchors on rank 0: cufftPlan3d on resident data, and with its host copies.  Times in s. */
static void anchor_3d(pk_ctx *c, double *resident, double *with_copies)
{
    *resident = *with_copies = 0;
    if (c->k != 0)
        return;
    if (cpu) {   /* the example's CPU 3-D transform on one process */
        const pa_type *HSTS = pa_type_get(c->s, "HSTS");
        pk_complex *h = pa_create(HSTS);
        const char *msg;
        double r[64];
        if (!h) {
            fprintf(stderr, "fft: the CPU anchor: %s\n", pa_last_error());
            MPI_Abort(MPI_COMM_WORLD, 1);
        }
        for (int i = 0; i < repeats; i++) {
            for (int64_t k = 0; k < pa_size(HSTS); k++)
                h[k] = (pk_complex){(float)(k % 7) - 3.0f, (float)(k % 5) - 2.0f};
            double t0 = pk_now();
            if (pk_fft3d_reference(PK_ENGINE_CPU, c->n, h, &msg) != 0)
                MPI_Abort(MPI_COMM_WORLD, 1);
            r[i] = pk_now() - t0;
        }
        *resident = median(r, repeats);
        pa_destroy(HSTS, h);
        return;
    }
    const pa_type *HSTS = pa_type_get(c->s, "HSTS"), *DEVS = pa_type_get(c->s, "DEVS");
    pk_complex *h = pa_create(HSTS);
    void *d = pa_create(DEVS);
    const char *msg;
    double r[64], w[64];
    if (!h || !d) {
        fprintf(stderr, "fft: the single-GPU anchor: %s\n", pa_last_error());
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    for (int64_t i = 0; i < pa_size(HSTS); i++)
        h[i] = (pk_complex){(float)(i % 7) - 3.0f, (float)(i % 5) - 2.0f};
    CHECK(pa_copy(DEVS, d, HSTS, h));
    pk_plan p3;
    if (pk_plan_make(PK_ENGINE_GPU, 3, c->n, 1, 0, &p3, &msg) != 0 || pk_plan_exec(&p3, d, &msg) != 0) {
        fprintf(stderr, "fft: the single-GPU anchor: %s\n", msg);   /* the exec above is the warm-up */
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    for (int i = 0; i < repeats; i++) {   /* the plan made once, as for ours */
        double t0 = pk_now();
        CHECK(pa_copy(DEVS, d, HSTS, h));
        double t1 = pk_now();
        pk_plan_exec(&p3, d, &msg);
        double t2 = pk_now();
        CHECK(pa_copy(HSTS, h, DEVS, d));
        double t3 = pk_now();
        r[i] = t2 - t1;
        w[i] = t3 - t0;
    }
    pk_plan_destroy(&p3);
    *resident = median(r, repeats);
    *with_copies = median(w, repeats);
    pa_destroy(HSTS, h);
    pa_destroy(DEVS, d);
}

/* The all-to-all alone (ours) and MPI_Alltoall of the same bytes between contiguous buffers (anchor). */
static const char *a2a_anchor = "MPI_Alltoall same bytes";

static void alltoall(pk_ctx *c, pk_route route, void *a, void *b, double *ours, double *anchor, char *plan,
                     size_t planlen)
{
    pa_scope *s = NULL;
    double o[64], m[64];
    CHECK(pk_declare_exchange(c, route, &s));
    const pa_type *S = pa_type_get(s, "S"), *T = pa_type_get(s, "T"), *HSTS_1 = pa_type_get(c->s, "HSTS_1");
    pa_copy_explain(T, S, plan, planlen);
    /* one process on a GPU: the all-to-all is a copy on the GPU, against cudaMemcpy of the same bytes */
    int d2d = PKUFFT_CUFFT && !cpu && route == PK_ROUTE_DEVICE && c->p == 1;
    int staged = !cpu && !d2d && route == PK_ROUTE_DEVICE && !strstr(plan, "CUDA-aware");   /* MPI: host memory */
    a2a_anchor = d2d ? "cudaMemcpy D2D same bytes" : "MPI_Alltoall same bytes";
    int64_t slab = pa_size(HSTS_1), blk = slab / c->p;
    /* the anchor's buffers: pinned host memory, or the route's device memory */
    void *sa = route == PK_ROUTE_HOST || staged ? pa_create(HSTS_1) : a;
    void *ra = route == PK_ROUTE_HOST || staged ? pa_create(HSTS_1) : b;
    MPI_Datatype el;
    MPI_Type_contiguous(2, MPI_FLOAT, &el);
    MPI_Type_commit(&el);
    if (!sa || !ra) {
        fprintf(stderr, "fft: the all-to-all anchor's buffers: %s\n", pa_last_error());
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    CHECK(pa_copy(T, b, S, a));   /* warm-up: the plan and its buffers */
    if (!d2d)
        MPI_Alltoall(sa, (int)blk, el, ra, (int)blk, el, MPI_COMM_WORLD);
    for (int i = 0; i < repeats; i++) {
        MPI_Barrier(MPI_COMM_WORLD);
        double t0 = pk_now();
        CHECK(pa_copy(T, b, S, a));
        o[i] = slowest(pk_now() - t0);
        MPI_Barrier(MPI_COMM_WORLD);
        t0 = pk_now();
#if PKUFFT_CUFFT
        if (staged)
            CK(cudaMemcpy(sa, a, (size_t)slab * sizeof(pk_complex), cudaMemcpyDeviceToHost));
        if (d2d) {   /* a device -> device cudaMemcpy returns before the copy ends: wait for it */
            CK(cudaMemcpy(b, a, (size_t)slab * sizeof(pk_complex), cudaMemcpyDeviceToDevice));
            CK(cudaDeviceSynchronize());
            m[i] = slowest(pk_now() - t0);
            continue;
        }
#endif
        MPI_Alltoall(sa, (int)blk, el, ra, (int)blk, el, MPI_COMM_WORLD);
#if PKUFFT_CUFFT
        if (staged) {
            CK(cudaMemcpy(b, ra, (size_t)slab * sizeof(pk_complex), cudaMemcpyHostToDevice));
            CK(cudaDeviceSynchronize());
        }
#endif
        m[i] = slowest(pk_now() - t0);
    }
    *ours = median(o, repeats);
    *anchor = median(m, repeats);
    MPI_Type_free(&el);
    if (sa != a)
        pa_destroy(HSTS_1, sa);
    if (ra != b)
        pa_destroy(HSTS_1, ra);
    pa_scope_destroy(s);
}

static void row(const char *what, int n, double ours, const char *anchor_name, double anchor, double target)
{
    double ratio = anchor / ours;
    int pass = target <= 0 || ratio >= target || smoke;
    char name[96], tgt[16] = "-";
    snprintf(name, sizeof name, "%s N=%d", what, n);
    if (target > 0)
        snprintf(tgt, sizeof tgt, "%.2f", target);
    printf("%-34s %10.2f  %-24s %10.2f  %7.3f  %6s  %s\n", name, 1e3 * ours, anchor_name, 1e3 * anchor, ratio,
           tgt, target <= 0 ? "(reported)" : smoke ? "(smoke)" : pass ? "pass" : "FAIL");
    fails += !pass;
}

/* P12's limit on the fast form's total against cuFFT on one GPU, as a ratio cuFFT / ours: P = 1 at most 1.5x
 * its time, P = 2 at most 1.0x, P = 4 (and more) at most 0.6x. */
static double fast_target(int p)
{
    return p == 1 ? 1 / 1.5 : p == 2 ? 1.0 : p >= 4 ? 1 / 0.6 : 1 / 0.8;
}

/* The fast form (pk_fft_device_fast) on the device route: its median total over the repeats, and its result
 * checked against the listing's (in a, distributed along Z) after moving it back through TZ -> S. */
/* The fast form's median total over the repeats; *xform and *xy (may be NULL) get the medians of the slowest
 * rank's transforms (XY + Z) and of its XY transforms alone, what the plane groups are chosen from. */
static double fast_form(pk_ctx *c, void *a, void *b, const pa_type *SL, const pa_type *HSTS_1, const pk_complex *orig,
                        int *bad, double *xform, double *xy)
{
    double tot[64] = {0}, tx[64] = {0}, txy[64] = {0};
    pa_scope *s;
    CHECK(pk_declare_exchange(c, PK_ROUTE_DEVICE, &s));
    void *w = pa_create(SL), *chk = pa_create(SL);
    if (!w || !chk) {
        fprintf(stderr, "fft: rank %d: allocation: %s\n", rank, pa_last_error());
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    for (int i = -1; i < repeats; i++) {
        pk_times t = {0};
        int failed;
        CHECK(pa_copy(SL, w, HSTS_1, orig));
        MPI_Barrier(MPI_COMM_WORLD);
        CHECK(pk_fft_device_fast(c, w, b, &t, &failed));
        double x = slowest(t.total), f = slowest(t.fft_xy + t.fft_z), fxy = slowest(t.fft_xy);
        if (i >= 0)
            tot[i] = x, tx[i] = f, txy[i] = fxy;
    }
    if (xform)
        *xform = median(tx, repeats);
    if (xy)
        *xy = median(txy, repeats);
    /* back to the listing's distribution, then element by element against the listing's result in a (up to
     * N = 512: the host images of larger slabs take longer than the transforms' runs) */
    pk_fast_release(c);
    *bad = -1;
    if (c->n > 512) {
        pa_destroy(SL, w);
        pa_destroy(SL, chk);
        pa_scope_destroy(s);
        return median(tot, repeats);
    }
    CHECK(pa_copy(pa_type_get(s, "S"), chk, pa_type_get(s, "TZ"), b));
    int64_t n = pa_size(HSTS_1);
    pk_complex *x = malloc((size_t)n * sizeof *x), *y = malloc((size_t)n * sizeof *y);
    CHECK(pa_copy(HSTS_1, x, SL, a) == PA_OK && pa_copy(HSTS_1, y, SL, chk) == PA_OK ? PA_OK : PA_ERR_SYS);
    long wrong = 0;
    for (int64_t i = 0; i < n; i++) {
        float dx = x[i].x - y[i].x, dy = x[i].y - y[i].y, m = fabsf(x[i].x) + fabsf(x[i].y) + 1.0f;
        wrong += (fabsf(dx) + fabsf(dy)) > 1e-4f * m || y[i].x != y[i].x;
    }
    long all = 0;
    MPI_Allreduce(&wrong, &all, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
    *bad = all != 0;
    free(x);
    free(y);
    pa_destroy(SL, w);
    pa_destroy(SL, chk);
    pa_scope_destroy(s);
    return median(tot, repeats);
}

typedef struct bjob { int n, routes; } bjob;

static int task(pa_ctx *ctx, void *arg)
{
    const bjob *j = arg;
    pk_ctx c = {.k = (int)pa_tid(ctx), .p = nranks, .n = j->n};
    const char *msg;
    c.engine = cpu ? PK_ENGINE_CPU : PK_ENGINE_GPU;
    strcpy(c.hmem, cpu ? "paged" : "pinned");
    strcpy(c.dmem, cpu ? "paged" : "dmem");
    CHECK(pa_scope_create(NULL, &c.s));
    CHECK(pk_declare(&c));
    if (!cpu) {
        CHECK(pa_cuda_set_device(c.k % ngpu));
        if (pk_gpu_use(c.k % ngpu, &msg) != 0) {
            fprintf(stderr, "fft: %s\n", msg);
            MPI_Abort(MPI_COMM_WORLD, 1);
        }
    }
    const pa_type *HSTS_1 = pa_type_get(c.s, "HSTS_1"), *DEVS_1 = pa_type_get(c.s, "DEVS_1"),
                  *DSLAB = pa_type_get(c.s, "DSLAB");
    double r3 = 0, r3c = 0;
    if (!a2a_only)
        anchor_3d(&c, &r3, &r3c);
    MPI_Bcast(&r3, 1, MPI_DOUBLE, 0, MPI_COMM_WORLD);
    MPI_Bcast(&r3c, 1, MPI_DOUBLE, 0, MPI_COMM_WORLD);
    for (int route = 0; route < 2; route++) {
        if (!(j->routes & (1 << route)) || (fast_only && route == PK_ROUTE_HOST))
            continue;
        int host = route == PK_ROUTE_HOST;
        const pa_type *SL = host ? HSTS_1 : DSLAB;
        pk_complex *orig = pa_create(HSTS_1);
        void *a = pa_create(SL), *b = pa_create(SL), *dev = host ? pa_create(DEVS_1) : NULL;
        if (!orig || !a || !b || (host && !dev)) {
            fprintf(stderr, "fft: rank %d: allocation: %s\n", rank, pa_last_error());
            MPI_Abort(MPI_COMM_WORLD, 1);
        }
        for (int64_t i = 0; i < pa_size(HSTS_1); i++)
            orig[i] = (pk_complex){(float)((i * 2654435761u) % 1000) * 1e-3f - 0.5f, (float)(i % 13) * 0.05f};
        double ph[5][64] = {{0}};
        for (int i = -1; i < repeats && !a2a_only && !fast_only; i++) {   /* i = -1: the warm-up */
            pk_times t = {0};
            int failed;
            CHECK(pa_copy(SL, a, HSTS_1, orig));
            MPI_Barrier(MPI_COMM_WORLD);
            CHECK(host ? pk_fft_host(&c, a, b, dev, &t, &failed) : pk_fft_device(&c, a, b, &t, &failed));
            double v[5] = {t.fft_xy, t.fft_z, t.copies, t.alltoall, t.total};
            for (int q = 0; q < 5; q++) {
                double x = slowest(v[q]);
                if (i >= 0)
                    ph[q][i] = x;
            }
        }
        double med[5], a2a = 0, a2a_mpi = 0;
        char plan[1024];
        for (int q = 0; q < 5; q++)
            med[q] = median(ph[q], repeats);
        if (!fast_only)
            alltoall(&c, (pk_route)route, a, b, &a2a, &a2a_mpi, plan, sizeof plan);
        if (fast_only && c.n <= 512) {   /* the listing's result, once, untimed: what the fast form is checked against */
            pk_times t = {0};
            int failed;
            CHECK(pa_copy(SL, a, HSTS_1, orig));
            CHECK(pk_fft_device(&c, a, b, &t, &failed));
        }
        if (c.k == 0 && fast_only)
            printf("\nN=%d complex float (%.2f GiB), P=%d, ranks per GPU %d, the fast form alone (--fast-only)\n",
                   c.n, (double)c.n * c.n * c.n * 8 / (1 << 30), c.p, cpu ? 0 : (c.p + ngpu - 1) / ngpu);
        if (c.k == 0 && !fast_only) {
            printf("\nN=%d complex float (%.2f GiB), P=%d, ranks per GPU %d, route %s\n  all-to-all plan: %s\n",
                   c.n, (double)c.n * c.n * c.n * 8 / (1 << 30), c.p, cpu ? 0 : (c.p + ngpu - 1) / ngpu,
                   cpu ? (host ? "host (the listing's steps, transforms on the CPU)" : "device (its steps, on the CPU)")
                   : host ? "host (the listing's: pinned slabs, plane by plane on the GPU)"
                          : "device (slabs stay on the GPU)", plan);
            if (!a2a_only)
                printf("  phases (ms, slowest rank, median): xy %.2f  z %.2f  copies %.2f  all-to-all %.2f  total %.2f\n",
                       1e3 * med[0], 1e3 * med[1], 1e3 * med[2], 1e3 * med[3], 1e3 * med[4]);
            printf("%-34s %10s  %-24s %10s  %7s  %6s  %s\n", "case", "ours ms", "anchor", "anchor ms", "ratio",
                   "target", "result");
            /* the device route's all-to-all between GPUs is measured against NCCL's by bench/gpu_dist (its fft rows):
             * a host MPI_Alltoall is no anchor for it */
            row(host ? "P12 all-to-all host" : "P12 all-to-all device", c.n, a2a, a2a_anchor,
                a2a_mpi, host || c.p == 1 ? TARGET_ALLTOALL : 0);
            if (!a2a_only) {
                row(host ? "P12 total host" : "P12 total device", c.n, med[4], cpu ? "CPU 3-D FFT 1 process"
                    : "cufftPlan3d 1 GPU", r3, 0);
                if (!cpu)
                    row(host ? "P12 total host" : "P12 total device", c.n, med[4], "cufftPlan3d+H2D+D2H", r3c, 0);
                /* for scripts (strong scaling over P): one line per run */
                printf("fft-total N=%d P=%d route=%s ms=%.3f\n", c.n, c.p, host ? "host" : "device", 1e3 * med[4]);
            }
            fflush(stdout);
        }
        if (!host && !a2a_only) {   /* the fast form, against cuFFT on one GPU (or the CPU's 3-D FFT) */
            /* first in one group (the exchange after every transform: reported), then pipelined in G groups:
             * --groups, or chosen by cost from the NCCL route's constants and the transforms' rate just measured */
            int bad1 = 0, badg = 0, used = 1, want = groups;
            double xform = 0, xy = 0, tg = 0;
            c.groups = 1;
            double t1 = fast_form(&c, a, b, SL, HSTS_1, orig, &bad1, &xform, &xy);
            if (want == 0) {
                pk_costs m;
                pk_costs_default(&m);
                if (xform > 0 && xy > 0 && xy < xform) {   /* this run's transforms (the CPU engine's XY are
                                                               not timed apart): the array's bytes over P GPUs' time */
                    m.fft_bw = 8.0 * c.n * c.n * c.n / (c.p * xform * 1e9);
                    m.xy_share = xy / xform;
                }
                want = pk_groups_by_cost(&m, c.n, c.p, 16);
                MPI_Bcast(&want, 1, MPI_INT, 0, MPI_COMM_WORLD);   /* one choice, whatever each rank's cost file */
                if (c.k == 0)
                    printf("  plane groups by cost: %d (predicted %.2f ms in 1 group, %.2f ms in %d; NCCL %.0f GB/s, "
                           "%.0f us a group; transforms %.0f GB/s, XY %.2f of them; --groups=G sets G)\n", want,
                           1e-6 * pk_fast_predict(&m, c.n, c.p, 1), 1e-6 * pk_fast_predict(&m, c.n, c.p, want), want,
                           m.nccl_bw, 1e-3 * m.nccl_latency, m.fft_bw, m.xy_share);
            }
            c.groups = want;
            used = pk_fast_groups(&c);
            if (used > 1)
                tg = fast_form(&c, a, b, SL, HSTS_1, orig, &badg, NULL, NULL);
            for (int pass = 0; pass < (used > 1 ? 2 : 1) && c.k == 0; pass++) {
                int last = pass == (used > 1 ? 1 : 0), g = pass ? used : 1, bad = pass ? badg : bad1;
                row(last ? "P12 total device fast" : "P12 device fast 1 group", c.n, pass ? tg : t1,
                    cpu ? "CPU 3-D FFT 1 process" : "cufftPlan3d 1 GPU", r3, cpu || !last ? 0 : fast_target(c.p));
                printf("  fast form (one all-to-all in %d group%s%s, result left distributed along Y): %s\n",
                       g, g == 1 ? "" : "s", g == 1 ? "" : " overlapped with the XY transforms",
                       bad < 0 ? "not checked at this size (N <= 512 are)"
                       : bad ? "DIFFERS from the listing's result" : "equal to the listing's result");
                printf("fft-total N=%d P=%d route=device-fast groups=%d ms=%.3f\n", c.n, c.p, g,
                       1e3 * (pass ? tg : t1));
                fflush(stdout);
            }
            fails += (bad1 > 0) + (badg > 0);
        }
        pa_destroy(HSTS_1, orig);
        pa_destroy(SL, a);
        pa_destroy(SL, b);
        if (dev)
            pa_destroy(DEVS_1, dev);
    }
    pa_scope_destroy(c.s);
    return PA_OK;
}

int main(int argc, char **argv)
{
    bjob j = {.routes = 3};
    int sizes[16], nsizes = 0;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &nranks);
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--route=host")) j.routes = 1;
        else if (!strcmp(argv[i], "--route=device")) j.routes = 2;
        else if (!strcmp(argv[i], "--route=both")) j.routes = 3;
        else if (!strncmp(argv[i], "--repeats=", 10)) repeats = atoi(argv[i] + 10);
        else if (!strcmp(argv[i], "--engine=cpu")) cpu = 1;
        else if (!strcmp(argv[i], "--smoke")) smoke = 1;
        else if (!strcmp(argv[i], "--alltoall-only")) a2a_only = 1;
        else if (!strcmp(argv[i], "--fast-only")) fast_only = 1;
        else if (!strncmp(argv[i], "--groups=", 9)) groups = atoi(argv[i] + 9) < 1 ? 1 : atoi(argv[i] + 9);
        else if (nsizes < 16 && atoi(argv[i]) > 0) sizes[nsizes++] = atoi(argv[i]);
    }
    repeats = repeats < 1 ? 1 : repeats > 63 ? 63 : repeats;
    if (nsizes == 0)
        sizes[nsizes++] = 256, sizes[nsizes++] = 512, sizes[nsizes++] = 1024;
    ngpu = cpu ? 0 : pk_have_cufft() ? pa_cuda_device_count() : -1;
    int ok = cpu || ngpu > 0, all_ok;
    MPI_Allreduce(&ok, &all_ok, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    if (!all_ok) {
        if (rank == 0)
            fprintf(stderr, "fft: skipped: %s\n", pk_have_cufft() ? pa_last_error() : "this build has no cuFFT");
        MPI_Finalize();
        return 77;
    }
    if (rank == 0 && cpu)
        printf("device: the CPU (--engine=cpu), %d rank%s; repeats %d (median)%s\n", nranks, nranks == 1 ? "" : "s",
               repeats, smoke ? "; --smoke: no verdict" : "");
#if PKUFFT_CUFFT
    if (rank == 0 && !cpu) {
        struct cudaDeviceProp prop;
        CK(cudaGetDeviceProperties(&prop, 0));
        printf("device: %s x %d, %d rank%s; repeats %d (median); P12 target: all-to-all >= %.2f of MPI_Alltoall\n",
               prop.name, ngpu, nranks, nranks == 1 ? "" : "s", repeats, TARGET_ALLTOALL);
    }
#endif
    pa_scope *s;
    char decl[32];
    snprintf(decl, sizeof decl, "mpi [%d]", nranks);
    CHECK(pa_scope_create(NULL, &s));
    CHECK(pa_declare(s, "PROCS", decl));
    for (int i = 0; i < nsizes; i++) {
        if (sizes[i] % nranks) {
            if (rank == 0)
                printf("\nN=%d: skipped, not divisible by P=%d\n", sizes[i], nranks);
            continue;
        }
        j.n = sizes[i];
        CHECK(pa_for(pa_type_get(s, "PROCS"), task, &j, sizeof j));
    }
    pa_scope_destroy(s);
    int all = 0;
    MPI_Allreduce(&fails, &all, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0)
        printf("\n%s\n", smoke ? "smoke run: no verdict" : all ? "some rows FAIL their target"
                                                                : "every row with a target passes");
    MPI_Finalize();
    return all ? 1 : 0;
}
