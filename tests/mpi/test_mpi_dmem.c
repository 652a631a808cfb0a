/*
 * parray MPI tests — distributed copies of arrays in device memory (dmem), under mpirun -np 4, each rank on GPU
 * (rank mod GPUs).  Every pattern of test_mpi_copy (send/recv, all-to-all, scatter, gather, mixtomix, a copy
 * local to one process) and the pkufft all-to-all (listing 46's S -> T) with dmem on one or both sides:
 * each rank fills its source with values that name (rank, offset) in host memory, copies it to the device,
 * poisons the device destination, runs the distributed copy, copies the destination back and checks every
 * element against pa_offset_on() of both types (the tree-walking offsets); unmapped positions keep the
 * poison.  The route is the one this MPI allows (device buffers where it moves device memory, else staged
 * through pinned host memory; the all-to-alls by peer copies unless PA_MPI_PEER=0, the suite mpi_dmem_staged);
 * PA_MPI_CUDA_AWARE=0 forces the staged one; PA_MPI_ROUTE=nccl (the suite mpi_dmem_nccl) the NCCL route, which
 * every process with a GPU of its own takes and which is refused (and the next route taken) where two share
 * one.  Exits 77 without a GPU.
 */
#include "cost_model.h"
#include "mpi_backend.h"
#include "mpi_verify.h"
#include <parray/cuda.h>
#include <parray/mpi.h>

static pa_scope *scope;

static const pa_type *T(const char *name)
{
    const pa_type *t = pa_type_get(scope, name);
    if (!t)
        fprintf(stderr, "type %s: %s\n", name, pa_last_error());
    return t;
}

/* One side's local array: in device memory when the type is over dmem, else host memory. */
typedef struct side {
    int64_t len;
    int dev;
    const pa_type *flat, *host_flat;   /* "dmem int [len]" and "paged int [len]" */
    int *host;
    void *ptr;                         /* what the distributed copy gets */
} side;

static int side_open(side *s, const pa_type *t, const char *mem)
{
    char decl[64];
    s->len = mv_local_len(t);
    s->dev = strcmp(mem, "dmem") == 0;
    snprintf(decl, sizeof decl, "dmem int [%lld]", (long long)s->len);
    s->flat = pa_type_parse(scope, decl);
    snprintf(decl, sizeof decl, "paged int [%lld]", (long long)s->len);
    s->host_flat = pa_type_parse(scope, decl);
    s->host = malloc((size_t)s->len * sizeof(int));
    s->ptr = s->dev ? pa_create(s->flat) : s->host;
    return s->host && s->ptr ? PA_OK : PA_ERR_NOMEM;
}

static void side_close(side *s)
{
    if (s->dev && s->ptr)
        pa_destroy(s->flat, s->ptr);
    free(s->host);
}

static int to_device(side *s)
{
    return s->dev ? pa_copy(s->flat, s->ptr, s->host_flat, s->host) : PA_OK;
}

static int from_device(side *s)
{
    return s->dev ? pa_copy(s->host_flat, s->host, s->flat, s->ptr) : PA_OK;
}

/* Copies st (its local arrays in smem) to dt (in dmem_) on every rank and checks this rank's elements. */
static void check(const char *dt_name, const char *dmem_, const char *st_name, const char *smem)
{
    const pa_type *dt = T(dt_name), *st = T(st_name);
    int me = pa_mpi_rank(), bad = 0;
    side d = {0}, s = {0};
    char *hit = NULL, plan[512] = "";
    int rc = side_open(&d, dt, dmem_);
    if (rc == PA_OK)
        rc = side_open(&s, st, smem);
    MCK(rc == PA_OK, "%s <- %s: allocation: %s", dt_name, st_name, pa_last_error());
    if (rc != PA_OK)
        goto done;
    for (int64_t o = 0; o < s.len; o++)
        s.host[o] = mv_encode(me, o);
    for (int64_t o = 0; o < d.len; o++)
        d.host[o] = POISON;
    MCK_OK(to_device(&s));
    MCK_OK(to_device(&d));
    rc = pa_copy(dt, d.ptr, st, s.ptr);
    MCK(rc == PA_OK, "%s <- %s: pa_copy: %s: %s", dt_name, st_name, pa_status_name(rc), pa_last_error());
    MCK_OK(from_device(&d));
    if (me == 0 && pa_copy_explain(dt, st, plan, sizeof plan) > 0)
        printf("  %s <- %s: %s\n", dt_name, st_name, plan);
    hit = calloc((size_t)d.len, 1);
    int own = strcmp(pa_mtt(dt), "distributed") != 0 && strcmp(pa_mtt(st), "distributed") != 0;
    for (int64_t k = 0; rc == PA_OK && hit && k < pa_size(dt) && bad < 5; k++) {
        if (!own && pa_offset_on(dt, PA_ON_THREAD, k) != me)
            continue;
        int64_t ld = pa_offset_on(dt, PA_ON_LOCAL, k);
        int want = mv_encode(own ? me : pa_offset_on(st, PA_ON_THREAD, k), pa_offset_on(st, PA_ON_LOCAL, k));
        hit[ld] = 1;
        if (d.host[ld] != want) {
            MCK(0, "%s <- %s: element %lld at local offset %lld is %d, expected %d", dt_name, st_name,
                (long long)k, (long long)ld, d.host[ld], want);
            bad++;
        }
    }
    for (int64_t o = 0; rc == PA_OK && hit && o < d.len && bad < 5; o++)
        if (!hit[o] && d.host[o] != POISON) {
            MCK(0, "%s <- %s: local offset %lld was written (%d) but no element maps there", dt_name, st_name,
                (long long)o, d.host[o]);
            bad++;
        }
done:
    free(hit);
    side_close(&d);
    side_close(&s);
}

static void test_sendrecv(void)
{
    check("T33", "dmem", "S33", "dmem");
}

static void test_alltoall(void)
{
    check("T34", "dmem", "S34", "dmem");
    check("T34H", "paged", "S34", "dmem");   /* device to host */
    check("T34", "dmem", "S34H", "paged");   /* host to device */
}

static void test_scatter_gather(void)
{
    check("T35", "dmem", "S35", "dmem");
    check("S35", "dmem", "T35", "dmem");
    check("T35", "dmem", "S35H", "paged");   /* the manual's scatter from host memory into device memory */
}

static void test_mixtomix(void)
{
    check("T36", "dmem", "S36", "dmem");
}

static void test_local(void)
{
    check("L2B", "dmem", "L2", "dmem");      /* every element on process 2: a copy on its GPU */
}

static void test_pkufft(void)
{
    check("FT", "dmem", "FS", "dmem");       /* listing 46's all-to-all and its way back */
    check("FS", "dmem", "FT", "dmem");
    check("FTZ", "dmem", "FS", "dmem");      /* the fast form's (pkufft.h): the transposition in the exchange */
    check("FS", "dmem", "FTZ", "dmem");
}

/* The fast form's exchange in place: one device array per rank is both the source (FS) and the destination
 * (FTZ), so no process may read a peer's array where it is (the peer route packs first); every element checked
 * against the values the source held. */
static void test_in_place(void)
{
    const pa_type *dt = T("FTZ"), *st = T("FS");
    int me = pa_mpi_rank(), bad = 0;
    side x = {0};
    MCK(mv_local_len(dt) == mv_local_len(st), "FTZ and FS differ in local length");
    if (side_open(&x, st, "dmem") != PA_OK) {
        MCK(0, "allocation: %s", pa_last_error());
        side_close(&x);
        return;
    }
    for (int64_t o = 0; o < x.len; o++)
        x.host[o] = mv_encode(me, o);
    MCK_OK(to_device(&x));
    int rc = pa_copy(dt, x.ptr, st, x.ptr);
    MCK(rc == PA_OK, "FTZ <- FS in place: %s: %s", pa_status_name(rc), pa_last_error());
    MCK_OK(from_device(&x));
    for (int64_t k = 0; rc == PA_OK && k < pa_size(dt) && bad < 5; k++) {
        if (pa_offset_on(dt, PA_ON_THREAD, k) != me)
            continue;
        int64_t ld = pa_offset_on(dt, PA_ON_LOCAL, k);
        int want = mv_encode(pa_offset_on(st, PA_ON_THREAD, k), pa_offset_on(st, PA_ON_LOCAL, k));
        if (x.host[ld] != want) {
            MCK(0, "FTZ <- FS in place: element %lld at local offset %lld is %d, expected %d", (long long)k,
                (long long)ld, x.host[ld], want);
            bad++;
        }
    }
    side_close(&x);
}

/* The same copy repeated (the plan and its buffers from the cache) with different data each time. */
static void test_repeated(void)
{
    for (int i = 0; i < 3; i++)
        check("FT", "dmem", "FS", "dmem");
}

/* The route the pkufft all-to-all took (its plan is cached by now).  With PA_TEST_EXPECT_NCCL=1 (the suite
 * mpi_dmem_nccl), where this build has NCCL and every process has a GPU of its own, it must be NCCL's; with
 * fewer GPUs NCCL refuses two processes on one GPU and the plan is remade for the next route, which the copies
 * above have just checked. */
static void test_route(void)
{
    char buf[2048];
    const char *want = getenv("PA_TEST_EXPECT_NCCL");
    MCK(pa_copy_explain(T("FT"), T("FS"), buf, sizeof buf) >= 0, "explain: %s", pa_last_error());
    const char *route = strstr(buf, "route:");
    if (pa_mpi_rank() == 0)
        printf("pkufft all-to-all: %s\n", buf);
    if (want && strcmp(want, "1") == 0 && pa_backend_on("nccl") && pa_cuda_device_count() >= pa_mpi_nprocs())
        MCK(route && strstr(route, "NCCL"), "expected the NCCL route: %s", buf);
    if (want && strcmp(want, "0") == 0)   /* NCCL cannot be loaded (mpi_dmem_nccl_missing): another route */
        MCK(route && !strstr(route, "NCCL"), "expected a route other than NCCL's: %s", buf);
    /* on the peer route both FFT exchanges split into one affine layout per peer on both sides: the pulls read
     * every block where it is in the peer's source (PA_MPI_PULLS=packed: out of its packed send buffer) */
    const char *pulls = getenv("PA_MPI_PULLS"), *pairs[2][2] = {{"FT", "FS"}, {"FTZ", "FS"}};
    int packed = pulls && strcmp(pulls, "packed") == 0, none = pulls && strcmp(pulls, "0") == 0;
    for (int i = 0; i < 2 && route && strstr(route, "(peer") && !none; i++) {
        MCK(pa_copy_explain(T(pairs[i][0]), T(pairs[i][1]), buf, sizeof buf) >= 0, "explain: %s", pa_last_error());
        const char *form = packed ? "unpacked as it is read" : "(direct: every peer's block read where it is";
        MCK(strstr(buf, form) != NULL, "%s <- %s: expected \"%s\": %s", pairs[i][0], pairs[i][1], form, buf);
    }
}

/* The NCCL route's constants (cost_nccl.c, run by pa_cost_calibrate after the MPI ones): measured on the route's
 * own communicator where NCCL runs here (PA_TEST_EXPECT_NCCL=1 with a GPU per process), the same on every
 * process and within sane bounds; elsewhere left as they were.  A copy after it still takes its route. */
static void test_calibrate(void)
{
    pa__cost_model m = *pa__cost_defaults();
    const pa__cost_model *d = pa__cost_defaults();
    const char *want = getenv("PA_TEST_EXPECT_NCCL");
    int nccl = want && strcmp(want, "1") == 0 && pa_backend_on("nccl") && pa_cuda_device_count() >= pa_mpi_nprocs();
    MCK_OK(pa_mpi__calibrate(&m, pa_mpi_rank() == 0 ? stdout : NULL));
    double v[2] = {m.gpu_nccl_latency, m.gpu_nccl_bw}, lo[2], hi[2];
    MPI_Allreduce(v, lo, 2, MPI_DOUBLE, MPI_MIN, MPI_COMM_WORLD);
    MPI_Allreduce(v, hi, 2, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    MCK(lo[0] == hi[0] && lo[1] == hi[1], "processes measured different NCCL constants");
    if (nccl)
        MCK(m.gpu_nccl_latency != d->gpu_nccl_latency && m.gpu_nccl_bw != d->gpu_nccl_bw &&
            m.gpu_nccl_latency >= 1000 && m.gpu_nccl_bw > 1, "NCCL constants not measured: %g ns, %g bytes/ns",
            m.gpu_nccl_latency, m.gpu_nccl_bw);
    else
        MCK(m.gpu_nccl_latency == d->gpu_nccl_latency && m.gpu_nccl_bw == d->gpu_nccl_bw,
            "NCCL constants changed without NCCL: %g ns, %g bytes/ns", m.gpu_nccl_latency, m.gpu_nccl_bw);
    /* the peer route's rate (cost_peer.c): these processes share one host and their GPUs' memory, so measured,
     * the same on every process */
    double pb[2] = {m.gpu_peer_bw, -m.gpu_peer_bw};
    MPI_Allreduce(MPI_IN_PLACE, pb, 2, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    MCK(pb[0] == -pb[1], "processes measured different peer rates");
    MCK(m.gpu_peer_bw != d->gpu_peer_bw && m.gpu_peer_bw > 1 && m.gpu_peer_bw <= 5000,
        "peer rate not measured: %g bytes/ns", m.gpu_peer_bw);
    check("FT", "dmem", "FS", "dmem");
}

int main(int argc, char **argv)
{
    (void)mv_check_copy;   /* this suite checks through device memory (check above) */
    MPI_Init(&argc, &argv);
    int ngpu = pa_cuda_device_count();
    if (pa_mpi_nprocs() != 4 || ngpu < 1) {
        fprintf(stderr, "test_mpi_dmem: %s\n", ngpu < 1 ? "no GPU: skipped" : "run with mpirun -np 4");
        MPI_Finalize();
        return 77;
    }
    MCK_OK(pa_cuda_set_device(pa_mpi_rank() % ngpu));
    pa_scope_create(NULL, &scope);
    int st = pa_declare_text(scope,
        "P = mpi [4]\n"
        "D33 = dmem int [3]\n"
        "S33 = [1 # disp(1) # P][#D33]\n"
        "T33 = [1 # disp(3) # P][#D33]\n"
        "M = mpi [4]\n"
        "D34 = dmem int [4][3]\n"
        "H34 = paged int [4][3]\n"
        "S34 = [#M][#D34_0][#D34_1]\n"
        "T34 = [#D34_0][#M][#D34_1]\n"
        "S34H = [#M][#H34_0][#H34_1]\n"
        "T34H = [#H34_0][#M][#H34_1]\n"
        "S35 = dmem int [4][3]\n"
        "S35H = paged int [4][3]\n"
        "T35 = [#M][#S35_1]\n"
        "D2 = dmem int [2][3]\n"
        "L2 = [1 # disp(2) # P][#D2]\n"
        "L2B = [1 # disp(2) # P][#D2_1][#D2_0]\n"
        "M2 = mpi [2][2]\n"
        "D36 = dmem int [2][2]\n"
        "S36 = [#M2][#D36]\n"
        "T36 = [[#M2_1][#D36_0]][[#M2_0][#D36_1]]\n"
        "SL = dmem int [2][[8][8]]\n"              /* N = 8 over 4 processes: 2 planes of 8 x 8 each */
        "FS = [#M][#SL]\n"
        "FT = [[#SL_1_0][#M][#SL_0][#SL_1_1]]\n"
        "FTZ = [[#SL_1_1][#M][#SL_0][#SL_1_0]]\n");   /* the fast form's S -> TZ: Z gathered innermost */
    MCK(st == PA_OK, "declarations: %s", pa_last_error());
    if (pa_mpi_rank() == 0)
        printf("PA_MPI_CUDA_AWARE=%s PA_MPI_PEER=%s\n", getenv("PA_MPI_CUDA_AWARE") ? getenv("PA_MPI_CUDA_AWARE")
               : "(unset: ask MPI)", getenv("PA_MPI_PEER") ? getenv("PA_MPI_PEER") : "(unset: on)");
    mck_run("sendrecv (listing 33)", test_sendrecv);
    mck_run("alltoall (listing 34)", test_alltoall);
    mck_run("scatter and gather", test_scatter_gather);
    mck_run("mixtomix (listing 36)", test_mixtomix);
    mck_run("local on process 2", test_local);
    mck_run("pkufft all-to-all", test_pkufft);
    mck_run("repeated copies", test_repeated);
    mck_run("the fast form's exchange in place", test_in_place);
    mck_run("route", test_route);
    mck_run("calibration of the NCCL constants", test_calibrate);
    int all = 0;
    MPI_Allreduce(&mck_failures, &all, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    pa_scope_destroy(scope);
    MPI_Finalize();
    return all ? 1 : 0;
}
