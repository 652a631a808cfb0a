/*
 * pkufft — the manual's GPU-cluster FFT (section 7.2, listing 46), checked against a 3-D FFT on one GPU.
 *
 *     mpirun -np P pkufft [--route=host|device|both] [--engine=auto|gpu|cpu] [--procs=P] [--seed=S]
 *                         [--fail-plan=K] N [N...]
 *
 * Every rank runs the same code (SPMD); the process array PROCS = mpi [P] (P = the number of ranks unless
 * --procs says fewer) runs the listing's main on its first P ranks, each on GPU (rank mod the number of GPUs),
 * so that several ranks may share one GPU.  Process 0 fills the N x N x N array (seeded; the seed is printed),
 * scatters it (copy HSTS to SCATTER), every process runs fft(HSTS_1, DEVS_1, PROCS), process 0 gathers the
 * result and compares it with a cufftPlan3d of the same data (on the CPU engine: this program's own 3-D
 * transform) by the relative L2 error, as the manual's CompareL2fe, and prints PASS or FAIL.  The engine is
 * the GPU where every process has one and cuFFT was built, the CPU where none has; --engine forces it.
 * Bad input (N not divisible by P, too few processes, a process without a GPU, a failed FFT plan: --fail-plan=K
 * makes process K's fail) gives a message on every rank and a non-zero exit; no rank is left waiting.
 * Exit status: 0 when every transform passed, 1 otherwise, 2 for a bad command line.
 */
#include <math.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pkufft.h"
#include <parray/cuda.h>

#define L2_LIMIT 1e-3   /* the manual's CompareL2fe(..., 0.001) */

typedef struct job {
    int n, p, routes, engine_req, fail_plan;   /* routes: bit 0 host, bit 1 device; engine_req: -1 auto */
    unsigned seed;
} job;

static int world_rank;
static int task_ran;        /* this rank entered the task (else pa_for itself failed: too few processes) */
static int checks_failed;   /* on process 0 (the task runs on the rank that calls pa_for: SPMD) */

/* The input, the same for every route: seeded uniform values in [-0.5, 0.5). */
static void fill(pk_complex *a, int64_t n, unsigned seed)
{
    uint64_t x = seed * 0x9E3779B97F4A7C15ull + 1;
    for (int64_t i = 0; i < n; i++) {
        x ^= x << 13, x ^= x >> 7, x ^= x << 17;
        a[i].x = (float)((x >> 40) * (1.0 / (1 << 24))) - 0.5f;
        x ^= x << 13, x ^= x >> 7, x ^= x << 17;
        a[i].y = (float)((x >> 40) * (1.0 / (1 << 24))) - 0.5f;
    }
}

/* CompareL2fe: the relative L2 norm of the difference. */
static double l2_error(const pk_complex *a, const pk_complex *ref, int64_t n)
{
    double num = 0, den = 0;
    for (int64_t i = 0; i < n; i++) {
        double dx = (double)a[i].x - ref[i].x, dy = (double)a[i].y - ref[i].y;
        num += dx * dx + dy * dy;
        den += (double)ref[i].x * ref[i].x + (double)ref[i].y * ref[i].y;
    }
    return den > 0 ? sqrt(num / den) : sqrt(num);
}

/* Which engine every process uses: agreed, so that all stop together when one process lacks a GPU. */
static int choose_engine(pk_ctx *c, int req, int *failed)
{
    int all[PA_MAX_THREADS], count = pk_have_cufft() && req != PK_ENGINE_CPU ? pa_cuda_device_count() : 0;
    int has = count > 0, st = pk_agree(c, has, all), none = 1, every = 1;
    *failed = -1;
    if (st != PA_OK)
        return st;
    for (int q = 0; q < c->p; q++) {
        none &= !all[q];
        every &= all[q];
        if (!all[q] && *failed < 0)
            *failed = q;
    }
    if (req == PK_ENGINE_CPU || (req < 0 && none)) {
        c->engine = PK_ENGINE_CPU;
        *failed = -1;
        return PA_OK;
    }
    if (!every) {
        if (c->k == *failed)
            fprintf(stderr, "pkufft: process %d (rank %d) has no GPU: %s\n", c->k, world_rank,
                    !pk_have_cufft() ? "this build has no cuFFT" : req == PK_ENGINE_CPU ? "" : pa_last_error());
        else
            fprintf(stderr, "pkufft: process %d: stopping, process %d has no GPU\n", c->k, *failed);
        return PA_ERR_NODEV;
    }
    const char *msg;
    c->engine = PK_ENGINE_GPU;
    if ((st = pa_cuda_set_device(c->k % count)) != PA_OK)    /* _PA_INIT_GPU(rank mod GPUs) */
        fprintf(stderr, "pkufft: process %d: %s\n", c->k, pa_last_error());
    else if (pk_gpu_use(c->k % count, &msg) != 0)
        fprintf(stderr, "pkufft: process %d: %s\n", c->k, msg), st = PA_ERR_NODEV;
    return st;   /* a failure here is on this process only: agreed on with the allocations' */
}

/* Process 0's part before the transform: the input (data1), the reference (data2). */
static int make_reference(pk_ctx *c, const job *j, pk_complex *data1, pk_complex *data2)
{
    const pa_type *HSTS = pa_type_get(c->s, "HSTS"), *DEVS = pa_type_get(c->s, "DEVS");
    const char *msg = "";
    int st = PA_OK;
    fill(data1, pa_size(HSTS), j->seed);
    if ((st = pa_copy(HSTS, data2, HSTS, data1)) != PA_OK)                      /* copy HSTS(data1) to HSTS(data2) */
        return st;
    if (c->engine == PK_ENGINE_CPU)
        return pk_fft3d_reference(PK_ENGINE_CPU, c->n, data2, &msg) ? (fprintf(stderr, "pkufft: %s\n", msg),
                                                                          PA_ERR_NOMEM) : PA_OK;
    void *dev = pa_create(DEVS);
    if (!dev)
        return pa_last_error()[0] ? (fprintf(stderr, "pkufft: the reference's GPU array: %s\n", pa_last_error()),
                                     PA_ERR_NOMEM) : PA_ERR_NOMEM;
    st = pa_copy(DEVS, dev, HSTS, data2);                                         /* copy HSTS(data2) to DEVS(dev) */
    if (st == PA_OK && pk_fft3d_reference(PK_ENGINE_GPU, c->n, dev, &msg) != 0) {  /* fft XYZ */
        fprintf(stderr, "pkufft: %s\n", msg);
        st = PA_ERR_SYS;
    }
    if (st == PA_OK)
        st = pa_copy(HSTS, data2, DEVS, dev);                                     /* copy DEVS(dev) to HSTS(data2) */
    pa_destroy(DEVS, dev);
    return st;
}

/* One route: scatter, fft, gather, compare (process 0 prints). */
static int run_route(pk_ctx *c, job *j, pk_route route, pk_complex *data1, const pk_complex *data2, void *a,
                     void *b, void *dev)
{
    const pa_type *HSTS = pa_type_get(c->s, "HSTS");
    const pa_type *dist = pa_type_get(c->s, route == PK_ROUTE_HOST ? "SCATTER" : "DSCATTER");
    pk_times t = {0};
    char plan[1024] = "";
    int failed = -1, st;
    if (c->k == 0)
        fill(data1, pa_size(HSTS), j->seed);
    if ((st = pa_copy(dist, a, HSTS, data1)) != PA_OK)                     /* copy HSTS(data1) to SCATTER(host) */
        return st;
    st = route == PK_ROUTE_HOST ? pk_fft_host(c, a, b, dev, &t, &failed)  /* fft(HSTS_1, DEVS_1, PROCS) */
                                : pk_fft_device(c, a, b, &t, &failed);
    if (st != PA_OK) {
        if (failed >= 0 && failed != c->k)
            fprintf(stderr, "pkufft: process %d: stopping, process %d failed (%s)\n", c->k, failed,
                    pa_status_name(st));
        return st;
    }
    if ((st = pa_copy(HSTS, data1, dist, a)) != PA_OK)                     /* copy SCATTER(host) to HSTS(data1) */
        return st;
    if (c->k == 0) {
        double err = l2_error(data1, data2, pa_size(HSTS));
        int pass = err < L2_LIMIT;
        pa_scope *s = NULL;
        if (pk_declare_exchange(c, route, &s) == PA_OK)
            pa_copy_explain(pa_type_get(s, "T"), pa_type_get(s, "S"), plan, sizeof plan);
        pa_scope_destroy(s);
        printf("pkufft N=%d P=%d route=%s engine=%s: all-to-all: %s\n", c->n, c->p,
               route == PK_ROUTE_HOST ? "host" : "device", c->engine == PK_ENGINE_GPU ? "gpu" : "cpu", plan);
        printf("pkufft N=%d P=%d route=%s engine=%s: %.3f s (xy %.3f, z %.3f, copies %.3f, all-to-all %.3f), "
               "relative L2 error %.2e (limit %.0e): %s\n", c->n, c->p, route == PK_ROUTE_HOST ? "host" : "device",
               c->engine == PK_ENGINE_GPU ? "gpu" : "cpu", t.total, t.fft_xy, t.fft_z, t.copies, t.alltoall, err,
               L2_LIMIT, pass ? "PASS" : "FAIL");
        fflush(stdout);
        checks_failed += !pass;
    }
    return PA_OK;
}

/* The listing's main, run by every process of PROCS. */
static int task(pa_ctx *ctx, void *arg)
{
    job *j = arg;
    pk_ctx c = {.k = (int)pa_tid(ctx), .p = j->p, .n = j->n, .fail_plan = j->fail_plan == (int)pa_tid(ctx)};
    pk_complex *data1 = NULL, *data2 = NULL;
    void *host = NULL, *hbuf = NULL, *dev = NULL, *dslab = NULL, *dbuf = NULL;
    const pa_type *HSTS = NULL, *HSTS_1 = NULL, *DEVS_1 = NULL, *DSLAB = NULL;
    int failed = -1, all[PA_MAX_THREADS];
    int st = pa_scope_create(NULL, &c.s);
    task_ran = 1;
    /* the agreement's types first (host memory on every engine), then the engine, then the listing's types */
    strcpy(c.hmem, "paged");
    strcpy(c.dmem, "paged");
    if (st == PA_OK)
        st = pk_declare(&c);
    if (st == PA_OK && (st = choose_engine(&c, j->engine_req, &failed)) != PA_OK)
        goto done;
    if (st == PA_OK && c.engine == PK_ENGINE_GPU) {
        pa_scope_destroy(c.s);
        c.s = NULL;
        strcpy(c.hmem, "pinned");
        strcpy(c.dmem, "dmem");
        if ((st = pa_scope_create(NULL, &c.s)) == PA_OK)
            st = pk_declare(&c);
    }
    if (st != PA_OK) {
        fprintf(stderr, "pkufft: process %d: declarations: %s\n", c.k, pa_last_error());
        goto done;
    }
    HSTS = pa_type_get(c.s, "HSTS");
    HSTS_1 = pa_type_get(c.s, "HSTS_1");
    DEVS_1 = pa_type_get(c.s, "DEVS_1");
    DSLAB = pa_type_get(c.s, "DSLAB");
    /* malloc HSTS_1(host) HSTS_1(hbuf) DEVS_1(dev), and process 0's HSTS(data1) HSTS(data2) */
    int ok = 1;
    if (j->routes & 1)
        ok &= (host = pa_create(HSTS_1)) && (hbuf = pa_create(HSTS_1)) && (dev = pa_create(DEVS_1));
    if (ok && (j->routes & 2))
        ok &= (dslab = pa_create(DSLAB)) && (dbuf = pa_create(DSLAB));
    if (ok && c.k == 0)
        ok &= (data1 = pa_create(HSTS)) && (data2 = pa_create(HSTS));
    if (!ok)
        fprintf(stderr, "pkufft: process %d: allocation: %s\n", c.k, pa_last_error());
    st = ok ? PA_OK : PA_ERR_NOMEM;
    if (st == PA_OK && c.k == 0 && (st = make_reference(&c, j, data1, data2)) != PA_OK)
        fprintf(stderr, "pkufft: process 0: the reference: %s\n", pa_last_error());
    if ((failed = pk_agree(&c, st, all)) != PA_OK) {
        st = failed;
        goto done;
    }
    if ((failed = pk_first_failed(&c, all)) >= 0) {
        if (failed != c.k)
            fprintf(stderr, "pkufft: process %d: stopping, process %d failed (%s)\n", c.k, failed,
                    pa_status_name(all[failed]));
        st = all[failed];
        goto done;
    }
    if (j->routes & 1)
        st = run_route(&c, j, PK_ROUTE_HOST, data1, data2, host, hbuf, dev);
    if (st == PA_OK && (j->routes & 2))
        st = run_route(&c, j, PK_ROUTE_DEVICE, data1, data2, dslab, dbuf, NULL);
done:
    if (host) pa_destroy(HSTS_1, host);
    if (hbuf) pa_destroy(HSTS_1, hbuf);
    if (dev) pa_destroy(DEVS_1, dev);
    if (dslab) pa_destroy(DSLAB, dslab);
    if (dbuf) pa_destroy(DSLAB, dbuf);
    if (data1) pa_destroy(HSTS, data1);
    if (data2) pa_destroy(HSTS, data2);
    pa_scope_destroy(c.s);
    return st;
}

static int usage(const char *why)
{
    if (world_rank == 0)
        fprintf(stderr, "pkufft: %s\nusage: mpirun -np P pkufft [--route=host|device|both] [--engine=auto|gpu|cpu] "
                "[--procs=P] [--seed=S] [--fail-plan=K] N [N...]\n", why);
    return 2;
}

/* One transform of size n over the process array (every rank calls it).  \return 0 or 1. */
static int run_n(const job *j)
{
    pa_scope *s = NULL;
    char decl[64];
    if (j->n % j->p != 0) {   /* checked on every rank, before any collective call */
        fprintf(stderr, "pkufft: rank %d: N = %d, P = %d: N is not divisible by the number of processes (the "
                "array is distributed along Z in N/P planes per process)\n", world_rank, j->n, j->p);
        return 1;
    }
    task_ran = 0;
    snprintf(decl, sizeof decl, "mpi [%d]", j->p);
    int st = pa_scope_create(NULL, &s);
    if (st == PA_OK)
        st = pa_declare(s, "PROCS", decl);
    if (st == PA_OK)
        st = pa_for(pa_type_get(s, "PROCS"), task, j, sizeof *j);   /* for k(PROCS) */
    if (st != PA_OK && !task_ran)
        fprintf(stderr, "pkufft: rank %d: N = %d, P = %d: %s\n", world_rank, j->n, j->p, pa_last_error());
    else if (st != PA_OK)
        fprintf(stderr, "pkufft: rank %d: N = %d, P = %d: stopped (%s)\n", world_rank, j->n, j->p,
                pa_status_name(st));
    pa_scope_destroy(s);
    return st != PA_OK;
}

int main(int argc, char **argv)
{
    job j = {.routes = 1, .engine_req = -1, .fail_plan = -1, .seed = 46};
    int nprocs, bad = 0, nsizes = 0, sizes[64];
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &world_rank);
    MPI_Comm_size(MPI_COMM_WORLD, &nprocs);
    j.p = nprocs;
    for (int i = 1; i < argc && !bad; i++) {
        const char *a = argv[i];
        if (!strcmp(a, "--route=host")) j.routes = 1;
        else if (!strcmp(a, "--route=device")) j.routes = 2;
        else if (!strcmp(a, "--route=both")) j.routes = 3;
        else if (!strcmp(a, "--engine=auto")) j.engine_req = -1;
        else if (!strcmp(a, "--engine=gpu")) j.engine_req = PK_ENGINE_GPU;
        else if (!strcmp(a, "--engine=cpu")) j.engine_req = PK_ENGINE_CPU;
        else if (!strncmp(a, "--procs=", 8)) j.p = atoi(a + 8), bad = j.p < 1 ? usage("--procs needs P >= 1") : 0;
        else if (!strncmp(a, "--seed=", 7)) j.seed = (unsigned)strtoul(a + 7, NULL, 10);
        else if (!strncmp(a, "--fail-plan=", 12)) j.fail_plan = atoi(a + 12);
        else if (a[0] >= '1' && a[0] <= '9' && nsizes < 64) sizes[nsizes++] = atoi(a);
        else bad = usage("unknown argument");
    }
    if (!bad && nsizes == 0)
        bad = usage("no size N given");
    int failed = bad;
    if (!bad && world_rank == 0)
        printf("pkufft: %d rank%s, P = %d, seed %u\n", nprocs, nprocs == 1 ? "" : "s", j.p, j.seed);
    for (int i = 0; i < nsizes && !bad; i++) {
        j.n = sizes[i];
        failed |= run_n(&j);
    }
    MPI_Finalize();
    return bad ? 2 : failed || checks_failed ? 1 : 0;
}
