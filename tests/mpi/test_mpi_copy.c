/*
 * parray MPI tests — distributed copies of the manual's patterns on 4 processes (SPMD over MPI_COMM_WORLD):
 * send/recv (listing 33), alltoall (34), scatter (35) and its reverse, mixtomix (36), the matrix transposition
 * across processes (§1.4, figure 4), the pattern pa_copy_explain names, mpimem arrays, and bad input that
 * must fail on every rank alike (never a hang).  Run with mpirun -np 4.
 */
#include <unistd.h>

#include "cost_model.h"
#include "mpi_backend.h"
#include "mpi_verify.h"
#include <parray/cuda.h>
#include <parray/mpi.h>

static pa_scope *scope;

static const pa_type *T(const char *name)
{
    const pa_type *t = pa_type_get(scope, name);
    MCK(t != NULL, "pa_type_get(%s): %s", name, pa_last_error());
    return t;
}

/* Copies and checks, and checks that the explanation names the MPI call as the chosen strategy, with the
 * estimate it was chosen by. */
static void pattern(const char *dst, const char *src, const char *call)
{
    char line[768], want[96];
    const pa_type *dt = T(dst), *st = T(src);
    if (!dt || !st)
        return;
    mv_check_copy(dt, st, dst);
    int n = pa_copy_explain(dt, st, line, sizeof line);
    snprintf(want, sizeof want, "strategy=%s (", call);
    MCK(n > 0 && strstr(line, want) != NULL && strstr(line, " predicted=") != NULL,
        "explain(%s <- %s) = \"%s\", expected %s", dst, src, n > 0 ? line : pa_last_error(), call);
    pa_copy_info info;
    MCK_OK(pa_copy_query(dt, st, &info));
    MCK(strcmp(info.strategy, call) == 0 && info.predicted_us > 0, "query(%s <- %s): %s at %g us, expected %s",
        dst, src, info.strategy, info.predicted_us, call);
}

static void test_sendrecv(void)
{
    pattern("T33", "S33", "MPI_Send+MPI_Recv");
}

static void test_alltoall(void)
{
    pattern("T34", "S34", "MPI_Alltoall");
}

static void test_scatter(void)
{
    pattern("T35", "S35", "MPI_Scatter");
}

static void test_gather(void)
{
    pattern("S35", "T35", "MPI_Gather");
}

static void test_mixtomix(void)
{
    pattern("T36", "S36", "pack+MPI_Alltoallv+unpack");
    pattern("S36", "T36", "pack+MPI_Alltoallv+unpack");
}

static void test_transpose(void)
{
    pattern("DT", "CT", "MPI_Alltoall");
}

/*
 * The own block of an all-to-all (dist_self.c): copied in place where both layouts split into blocks and one
 * side is packed (named by the explanation), left to MPI_Alltoall where MPI sends and receives in place, with
 * the element checks above; the slab transposition of the manual's FFT (section 7.2:
 * runs of X within planes of Z, blocks that split a mode); and the same copy in place (one array as source and
 * destination), where the own block must wait for the whole source to be packed.
 */
static void test_own_block(void)
{
    char line[512];
    /* blocks of 48 and 32 bytes sent and received in place go through MPI_Alltoall whole (cheaper than
     * MPI_Alltoallv around the own block below 16 KiB per pair, and nothing to save when nothing is packed);
     * the FFT's packed 32 KiB blocks are copied in place */
    static const char *const pairs[][2] = {{"T34", "S34"}, {"DT", "CT"}, {"FT", "FS"}, {"FS", "FT"}};
    for (int i = 0; i < 4; i++) {
        const pa_type *dt = T(pairs[i][0]), *st = T(pairs[i][1]);
        if (!dt || !st)
            return;
        mv_check_copy(dt, st, pairs[i][0]);
        /* Host arrays that MPI sends from and receives into in place (T34, DT) leave the own block to
         * MPI_Alltoall; packed ones (FT, FS) copy it themselves. */
        int direct = i < 2;
        int n = pa_copy_explain(dt, st, line, sizeof line);
        int sent_in_place = n > 0 && strstr(line, "sent and received in place") != NULL;
        int own_here = n > 0 && strstr(line, "own block copied in place") != NULL;
        MCK(n > 0 && sent_in_place == direct && own_here == !direct,
            "explain(%s <- %s) = \"%s\", expected the own block copied %s", pairs[i][0], pairs[i][1], line,
            direct ? "by MPI_Alltoall (sent and received in place)" : "in place");
    }
    const pa_type *ft = T("FT"), *fs = T("FS");
    int64_t n = mv_local_len(fs);
    int *a = malloc((size_t)n * sizeof *a), *b = malloc((size_t)n * sizeof *b);
    for (int64_t o = 0; o < n; o++)
        a[o] = b[o] = mv_encode(pa_mpi_rank(), o);
    MCK_OK(pa_copy(ft, b, fs, a));   /* out of place: the expected values */
    MCK_OK(pa_copy(ft, a, fs, a));   /* in place */
    int64_t bad = 0;
    for (int64_t o = 0; o < n; o++)
        bad += a[o] != b[o];
    MCK(bad == 0, "in place: %lld of %lld elements differ from the copy out of place", (long long)bad, (long long)n);
    free(a);
    free(b);
}

/*
 * The plan's lists go by runs (dist_plan.c): blocks over which both process layouts are constant and each local
 * layout is one affine sub-layout, whatever its innermost stride.  The fast FFT's exchange (section 7.2's S ->
 * TZ: Z gathered innermost, so the destination's innermost stride is a row) moves whole (Z, Y) planes of a
 * process: runs of N/P x N elements, not one element each.  Copied element by element at a small size, both
 * ways, then planned at 2^26 elements (declared only; a per-element plan would list 2^24 offsets per side and
 * rank, in 2^26 steps).
 */
static void test_runs(void)
{
    char line[768];
    static const char *const cases[][3] = {{"FTZ", "FS", "16384"}, {"FS", "FTZ", "16384"},
                                           {"FTZB", "FSB", "16384"}};
    for (int i = 0; i < 3; i++) {
        const pa_type *dt = T(cases[i][0]), *st = T(cases[i][1]);
        if (!dt || !st)
            return;
        if (i < 2)
            mv_check_copy(dt, st, cases[i][0]);
        char want[64];
        snprintf(want, sizeof want, "(planned in runs of %s)", cases[i][2]);
        int n = pa_copy_explain(dt, st, line, sizeof line);
        MCK(n > 0 && strstr(line, want) != NULL, "explain(%s <- %s) = \"%s\", expected %s", cases[i][0],
            cases[i][1], n > 0 ? line : pa_last_error(), want);
    }
}

/*
 * A one-host route that one process cannot set up (dist_node.c: PA_MPI_NODE_SHARE_FAIL=2 makes process 2 report
 * that it could not make its segment): every process agrees, remakes the plan for the plain host route and
 * copies through it, at the first run and after; the explanation then names no shared memory.  The slab
 * transposition of test_own_block on other sizes, so that its plan is new.
 */
static void test_route_refused(void)
{
    char line[768];
    const pa_type *dt = T("FT2"), *st = T("FS2");
    if (!dt || !st)
        return;
    setenv("PA_MPI_NODE_SHARE_FAIL", "2", 1);
    mv_check_copy(dt, st, "FT2 (shared memory refused by process 2)");
    mv_check_copy(dt, st, "FT2 again");
    unsetenv("PA_MPI_NODE_SHARE_FAIL");
    int n = pa_copy_explain(dt, st, line, sizeof line);
    MCK(n > 0 && strstr(line, "packed and unpacked") != NULL && strstr(line, "shared memory") == NULL,
        "explain(FT2 <- FS2) after the refusal = \"%s\", expected the plain host route", n > 0 ? line : pa_last_error());
}

static void test_local_on_root(void)
{
    pattern("L2B", "L2", "local copy");
}

static void test_mpimem(void)
{
    const pa_type *m = T("MEM"), *h = T("S35");
    int *a = pa_create(m), b[12], c[12];
    MCK(a != NULL, "pa_create(mpimem): %s", pa_last_error());
    if (!a)
        return;
    for (int i = 0; i < 12; i++)
        b[i] = i * 3 + 1;
    MCK_OK(pa_copy(m, a, h, b));
    MCK_OK(pa_copy(h, c, m, a));
    MCK(memcmp(b, c, sizeof b) == 0, "mpimem round trip differs");
    MCK_OK(pa_destroy(m, a));
}

/* More pairs than a thread's memo of recent copies holds (dist_memo.c), round after round: copies found there,
 * copies that miss and evicted ones must all move the right elements, and the explanation stays the plan's. */
static void test_repeated(void)
{
    static const char *const pairs[][2] = {{"T33", "S33"}, {"T34", "S34"}, {"S34", "T34"}, {"T35", "S35"},
                                           {"S35", "T35"}, {"T36", "S36"}, {"S36", "T36"}, {"DT", "CT"},
                                           {"CT", "DT"}, {"L2B", "L2"}};
    enum { NPAIRS = sizeof pairs / sizeof pairs[0] };
    char first[NPAIRS][768], line[768];
    for (int round = 0; round < 3; round++)
        for (int i = 0; i < NPAIRS; i++) {
            const pa_type *dt = T(pairs[i][0]), *st = T(pairs[i][1]);
            if (!dt || !st || mv_check_copy(dt, st, pairs[i][0]) || mv_check_copy(dt, st, pairs[i][0]))
                return;
            MCK(pa_copy_explain(dt, st, round ? line : first[i], sizeof line) > 0, "explain: %s", pa_last_error());
            MCK(round == 0 || strcmp(line, first[i]) == 0, "explain(%s <- %s) changed: \"%s\", then \"%s\"",
                pairs[i][0], pairs[i][1], first[i], line);
        }
}

/* The cache of plans is bounded (dist_copy.c): with room for 3, the ten pairs of test_repeated, round after
 * round, are made, evicted and made again (the memo holds 8, so some copies reach the cache), every copy
 * moving the right elements; at most 3 plans stay besides the pinned ones (shared-memory routes), and every
 * rank keeps the same number. */
static void test_bounded_cache(void)
{
    pa__lru_stats before, after;
    pa_mpi__plan_cache_capacity(3);
    pa_mpi__plan_cache_stats(&before);
    test_repeated();
    pa_mpi__plan_cache_stats(&after);
    int count_min = 0, count_max = 0;
    MPI_Allreduce(&after.count, &count_min, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    MPI_Allreduce(&after.count, &count_max, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    MCK(after.evictions > before.evictions, "no plan evicted (evictions %ld, plans %d)", after.evictions,
        after.count);
    MCK(after.misses - before.misses > 3, "only %ld misses with room for 3 plans", after.misses - before.misses);
    MCK(count_min == count_max, "ranks keep %d to %d plans", count_min, count_max);
    pa_mpi__plan_cache_capacity(64);
    test_repeated();   /* and again with room for all */
}

/* Types made and freed in turn, of two distributions with the same names and sizes: a new type may take a freed
 * one's address, and must not be taken for it (the memo names types by address and serial number). */
static void test_fresh_types(void)
{
    static const char *const targets[2] = {"[#D_0][#M][#D_1]", "[#D_1][#M][#D_0]"};
    char text[256];
    for (int round = 0; round < 6; round++) {
        pa_scope *s = NULL;
        MCK_OK(pa_scope_create(NULL, &s));
        snprintf(text, sizeof text, "M = mpi [4]\nD = paged int [4][3]\nS = [#M][#D_0][#D_1]\nT = %s",
                 targets[round % 2]);
        MCK_OK(pa_declare_text(s, text));
        const pa_type *dt = pa_type_get(s, "T"), *st = pa_type_get(s, "S");
        MCK(dt && st, "pa_type_get: %s", pa_last_error());
        if (dt && st)
            mv_check_copy(dt, st, targets[round % 2]);
        pa_scope_destroy(s);
    }
}

/* The ranks on the node: every rank of the suite runs on this host, so the shared-memory communicator finds the
 * four of them, and each process's threads are its quarter of the CPUs (or the CPUs mpirun bound it to). */
static void test_node_share(void)
{
    pa_host_share_info sh;
    MCK_OK(pa_mpi_node_share());
    MCK_OK(pa_host_share(&sh));
    MCK(sh.local_ranks == 4, "local ranks %d, expected 4", sh.local_ranks);
    MCK(sh.local_rank == pa_mpi_rank(), "local rank %d, world rank %d", sh.local_rank, pa_mpi_rank());
    MCK(strcmp(sh.source, "MPI shared-memory communicator") == 0, "source %s", sh.source);
    int want = sh.bound_by_launcher ? sh.allowed_cpus : sh.allowed_cpus / 4 > 0 ? sh.allowed_cpus / 4 : 1;
    MCK(sh.cpus == want, "cpus %d, expected %d (mask %d of %d)", sh.cpus, want, sh.allowed_cpus, sh.machine_cpus);
}

/* The MPI backend's calibration (cost_mpi.c, what pa_cost_calibrate runs after the host's, whose copies are
 * timed by host_cost and would cost minutes under the sanitizers): processes 0 and 1 measure the MPI constants
 * by ping-pong, every process gets the same, and all four write the file at once (it is renamed into place, so
 * it is whole whoever wins). */
static void test_calibrate(void)
{
    char path[64] = "/tmp/pa_mpicost_XXXXXX";
    int ok = 1;
    if (pa_mpi_rank() == 0)
        ok = mkdtemp(path) != NULL;
    MPI_Bcast(path, sizeof path, MPI_CHAR, 0, MPI_COMM_WORLD);
    MCK(ok, "mkdtemp: %s", path);
    strcat(path, "/cost");
    pa__cost_model mine = *pa__cost_defaults(), m = *pa__cost_defaults();
    MCK_OK(pa_mpi__calibrate(&mine, NULL));
    MCK_OK(pa__cost_write(path, &mine, "test_mpi_copy"));
    MPI_Barrier(MPI_COMM_WORLD);
    MCK_OK(pa__cost_read(path, &m, 1));
    MCK(m.mpi_latency != pa__cost_defaults()->mpi_latency && m.mpi_net_bw != pa__cost_defaults()->mpi_net_bw,
        "MPI constants not measured: latency %g ns, %g bytes/ns", m.mpi_latency, m.mpi_net_bw);
    double v[2] = {mine.mpi_latency, mine.mpi_net_bw}, lo[2], hi[2];
    MPI_Allreduce(v, lo, 2, MPI_DOUBLE, MPI_MIN, MPI_COMM_WORLD);
    MPI_Allreduce(v, hi, 2, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    MCK(lo[0] == hi[0] && lo[1] == hi[1], "processes use different MPI constants");
    MPI_Barrier(MPI_COMM_WORLD);
    if (pa_mpi_rank() == 0) {
        remove(path);
        *strrchr(path, '/') = 0;
        rmdir(path);
    }
}

static void test_errors(void)
{
    int buf[64] = {0};
    /* Sizes differ, a process array larger than the communicator, element sizes differ: every rank fails. */
    MCK_ERR(pa_copy(T("T34"), buf, T("S35"), buf), PA_ERR_SIZE);
    MCK_ERR(pa_copy(T("BIG"), buf, T("S34"), buf), PA_ERR_RANGE);
    MCK_ERR(pa_copy(T("TF"), buf, T("S34"), buf), PA_ERR_ELM);
    MCK_ERR(pa_copy(T("T34"), NULL, T("S34"), buf), PA_ERR_INVAL);
    /* distributed over device memory: refused where there is no GPU (test_mpi_dmem copies it where there is) */
    if (pa_cuda_device_count() < 0)
        MCK_ERR(pa_copy(T("XD"), buf, T("T35"), buf), PA_ERR_NODEV);
    /* distributed over a memory type no distributed copy reaches (gamem: only through Global Arrays) */
    MCK_ERR(pa_copy(T("XG"), buf, T("T35"), buf), PA_ERR_UNSUPPORTED);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    if (pa_mpi_nprocs() != 4) {
        fprintf(stderr, "test_mpi_copy: run with mpirun -np 4 (got %d processes)\n", pa_mpi_nprocs());
        MPI_Finalize();
        return 77;
    }
    pa_scope_create(NULL, &scope);
    int st = pa_declare_text(scope,
        "P = mpi [4]\n"
        "D33 = paged int [3]\n"
        "S33 = [1 # disp(1) # P][#D33]\n"          /* listing 33: 3 ints on process 1 ... */
        "T33 = [1 # disp(3) # P][#D33]\n"          /* ... go to process 3 */
        "M = mpi [4]\n"
        "D34 = paged int [4][3]\n"
        "S34 = [#M][#D34_0][#D34_1]\n"             /* listing 34: row j of process i ... */
        "T34 = [#D34_0][#M][#D34_1]\n"             /* ... to row i of process j */
        "S35 = paged int [4][3]\n"                 /* listing 35: a local array on process 0 ... */
        "T35 = [#M][#S35_1]\n"                     /* ... scattered by rows */
        "D2 = paged int [2][3]\n"
        "L2 = [1 # disp(2) # P][#D2]\n"            /* every element on process 2 on both sides */
        "L2B = [1 # disp(2) # P][#D2_1][#D2_0]\n"
        "M2 = mpi [2][2]\n"
        "D36 = paged int [2][2]\n"
        "S36 = [#M2][#D36]\n"                      /* listing 36: mixtomix */
        "T36 = [[#M2_1][#D36_0]][[#M2_0][#D36_1]]\n"
        "A = paged int [[4][4]][2]\n"              /* section 1.4, figure 4, with n = 4 and m = 2 */
        "N = mpi [4]\n"
        "CT = [[#N][#A_0_1]][#A_1]\n"
        "DT = [[#A_0_1][#N]][#A_1]\n"
        "MEM = mpimem int [4][3]\n"
        "Q = mpi [8]\n"
        "D6 = paged int [6]\n"
        "BIG = [#Q][#D6]\n"
        "D8 = paged double [4][3]\n"
        "TF = [#D8_0][#M][#D8_1]\n"
        "DM = dmem int [3]\n"
        "XD = [#M][#DM]\n"
        "GM = gamem int [3]\n"
        "XG = [#M][#GM]\n"
        "FD = paged int [64][[256][2]]\n"         /* a slab of 64 Z planes of 256 x 2 (Y, X) per process */
        "FS = [#M][#FD]\n"
        "FT = [[#FD_1_0][#M][#FD_0][#FD_1_1]]\n"  /* section 7.2's T: Y distributed, Z gathered */
        "FD2 = paged int [8][[16][2]]\n"
        "FS2 = [#M][#FD2]\n"
        "FT2 = [[#FD2_1_0][#M][#FD2_0][#FD2_1_1]]\n"
        "FTZ = [[#FD_1_1][#M][#FD_0][#FD_1_0]]\n"  /* the fast form's TZ (pkufft_steps.c) */
        "FDB = paged int [16][[1024][1024]]\n"
        "FSB = [#M][#FDB]\n"
        "FTZB = [[#FDB_1_1][#M][#FDB_0][#FDB_1_0]]\n");
    MCK(st == PA_OK, "declarations: %s", pa_last_error());
    mck_run("sendrecv (listing 33)", test_sendrecv);
    mck_run("alltoall (listing 34)", test_alltoall);
    mck_run("scatter (listing 35)", test_scatter);
    mck_run("gather", test_gather);
    mck_run("mixtomix (listing 36)", test_mixtomix);
    mck_run("transposition (fig. 4)", test_transpose);
    mck_run("own block of an all-to-all", test_own_block);
    mck_run("one-host route refused by one process", test_route_refused);
    mck_run("local on process 2", test_local_on_root);
    mck_run("mpimem", test_mpimem);
    mck_run("repeated copies", test_repeated);
    mck_run("bounded plan cache", test_bounded_cache);
    mck_run("node share", test_node_share);
    mck_run("types freed and made again", test_fresh_types);
    mck_run("plans by runs of planes", test_runs);
    mck_run("errors", test_errors);
    mck_run("calibration", test_calibrate);
    int all = 0;
    MPI_Allreduce(&mck_failures, &all, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    MPI_Finalize();
    /* After MPI_Finalize a copy that the memo knew is one process's again: the process array does not fit. */
    int buf[12] = {0}, st_after = pa_copy(T("T34"), buf, T("S34"), buf);
    if (st_after != PA_ERR_RANGE) {
        fprintf(stderr, "after MPI_Finalize: pa_copy gave %s, expected PA_ERR_RANGE: %s\n",
                pa_status_name(st_after), pa_last_error());
        all = 1;
    }
    pa_scope_destroy(scope);
    return all ? 1 : 0;
}
