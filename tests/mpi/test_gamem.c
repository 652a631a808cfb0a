/*
 * parray MPI tests — the gamem memory type (Global Arrays, manual §3.4, listings 17/18) in SPMD code on 4
 * processes: the Global Array's dimensions follow a plain type's shape; copies between host arrays and gamem
 * arrays through many layouts (contiguous, transposed host or gamem side, 2-D and 3-D windows, a strided
 * window, a run that crosses rows, a reversed dimension), each time by one process while the others wait,
 * every element compared with the types' reference offsets and every destination poisoned first, and the
 * number of Global Arrays calls (strided or not, packed or in place) checked where it is known; a process
 * array of 2 of the 4 processes cannot start Global Arrays (a clear error), and once it runs makes its own
 * gamem array on a processor group; errors.
 *     mpirun -np 4 test_mpi_gamem
 * Run once as it is (ARMCI-MPI's noncollective groups, turned on by parray_gamem) and once with
 * ARMCI_NONCOLLECTIVE_GROUPS=0 (groups collective over the world: the process array's group is refused).
 */
#include "gamem_util.h"
#include "internal.h"
#include "mem_internal.h"
#include "mpi_backend.h"

static int me, nprocs;

static int64_t neg(int64_t i, void *ctx)
{
    (void)ctx;
    return -i;
}

static void test_shapes(void)
{
    static const struct { const char *type, *shape; } cases[] = {
        {"G", "C_INT 4x6"},  {"G3", "C_INT 3x4x2"}, {"GB", "C_INT 6x8"},
        {"G1x", "C_INT 5x3"},   /* leaves of size 1 are left out */
        {"G8", "C_INT 6x2x2x2x2x2x2"},   /* eight leaves: the outermost two merged */
        {"GWIN", "C_INT 89"},   /* a window type: one dimension of its extent */
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        void *g = pa_create(T(cases[i].type));
        MCK(g != NULL, "pa_create(%s): %s", cases[i].type, pa_last_error());
        if (!g)
            continue;
        MCK(strcmp(ga_shape(g), cases[i].shape) == 0, "%s: %s, expected %s", cases[i].type, ga_shape(g),
            cases[i].shape);
        MCK_OK(pa_destroy(T(cases[i].type), g));
    }
}

static void test_contiguous(void)
{
    round_trip_on(MPI_COMM_WORLD, "G", "G", "H", 0, "calls=1 strided=0 packed=0", "calls=1 strided=0 packed=0");
    round_trip_on(MPI_COMM_WORLD, "G3", "G3", "H24", 1, "calls=1 strided=0 packed=0",
                  "calls=1 strided=0 packed=0");
}

static void test_transposed(void)
{
    /* one patch of the whole array either way, the host side through a buffer */
    round_trip_on(MPI_COMM_WORLD, "G", "G", "HX", 1, "calls=1 strided=0 packed=1", "calls=1 strided=0 packed=1");
    round_trip_on(MPI_COMM_WORLD, "G", "GX", "HT", 2, "calls=1 strided=0 packed=1", "calls=1 strided=0 packed=1");
}

static void test_windows(void)
{
    /* a 3 x 4 window of a 6 x 8 array: one patch, the host side in place (ld 4) */
    round_trip_on(MPI_COMM_WORLD, "GB", "GW", "HW", 3, "calls=1 strided=0 packed=0", "calls=1 strided=0 packed=0");
    /* every second column: one strided patch, moved a piece per owner (4 blocks of 3 x 4) */
    round_trip_on(MPI_COMM_WORLD, "GB", "GE", "HE", 0, "calls=4 strided=4 packed=0", "calls=4 strided=4 packed=0");
    /* a 2 x 2 x 2 block of the 3 x 4 x 2 array: one patch of three dimensions */
    round_trip_on(MPI_COMM_WORLD, "G3", "G3W", "H222", 1, "calls=1 strided=0 packed=0",
                  "calls=1 strided=0 packed=0");
    /* a run of 10 from offset 3 crosses rows: cut into pieces within rows (counts not fixed here) */
    round_trip_on(MPI_COMM_WORLD, "G3", "GRUN", "H10", 2, NULL, NULL);
    /* the window type itself as a one-dimensional array */
    round_trip_on(MPI_COMM_WORLD, "GWIN", "GWIN", "HWIN", 3, NULL, NULL);
}

static void test_reversed(void)
{
    /* the reversed (gathered) dimension loops outside: one patch per column, packed */
    round_trip_on(MPI_COMM_WORLD, "G", "GR", "H", 1, "calls=6 strided=0 packed=6", "calls=6 strided=0 packed=6");
}

/* A process array of 2 of the 4 processes (SPMD): its gamem array lives on its own processor group. */
static int pair_task(pa_ctx *ctx, void *arg)
{
    int *g = pa_create(T("G")), h = 0;
    (void)arg;
    if (!g)
        return last_status();
    pa_gamem_handle(g, &h);
    if (GA_Pgroup_nnodes(GA_Get_pgroup(h)) != 2 || GA_Nodeid() != pa_tid(ctx) || GA_Nnodes() != 2)
        return pa__err(PA_ERR_INVAL, "group of %d, default group: node %d of %d",
                       GA_Pgroup_nnodes(GA_Get_pgroup(h)), GA_Nodeid(), GA_Nnodes());
    round_trip_on(pa_mpi__comm(), "G3", "G3W", "H222", 1, "calls=1 strided=0 packed=0",
                  "calls=1 strided=0 packed=0");
    return PA_OK;   /* g is left for the end of the task, which destroys it on both processes */
}

static void test_process_array(void)
{
    size_t before = pa__alloc_count();
    pa_error_clear();
    int st = pa_for(pa_type_parse(scope, "mpi [2]"), pair_task, NULL, 0);
    if (pa_ga__noncollective_groups()) {
        MCK_OK(st);
    } else {
        /* refused at once on both processes; the message stays with them, the others get the status */
        MCK(st == PA_ERR_UNSUPPORTED && (me >= 2 || (strstr(pa_last_error(), "ARMCI_NONCOLLECTIVE_GROUPS") &&
            strstr(pa_last_error(), "pa_mpi_main"))), "collective groups: %s", pa_last_error());
    }
    MCK(pa__alloc_count() == before, "%zu arrays live after the task, %zu before", pa__alloc_count(), before);
    MCK(GA_Nnodes() == nprocs, "the default group has %d processes after the task", GA_Nnodes());
}

/* Before any gamem array: a process array of 2 cannot start Global Arrays (collective over all 4 ranks). */
static int early_task(pa_ctx *ctx, void *arg)
{
    (void)ctx;
    (void)arg;
    void *g = pa_create(T("G"));
    if (g)
        return pa__err(PA_ERR_INVAL, "a gamem array was made by 2 of 4 processes before Global Arrays ran");
    return strstr(pa_last_error(), "GA_Initialize") ? PA_OK : pa__err(PA_ERR_INVAL, "message: %s", pa_last_error());
}

static void test_start_in_array(void)
{
    MCK(!GA_Initialized(), "Global Arrays runs already");
    MCK_OK(pa_for(pa_type_parse(scope, "mpi [2]"), early_task, NULL, 0));
    MCK(!GA_Initialized(), "Global Arrays was started on some ranks");
}

static void test_errors(void)
{
    int *g = pa_create(T("G")), *g2 = pa_create(T("G")), host[48], h = 0;
    MCK(g != NULL && g2 != NULL, "pa_create: %s", pa_last_error());
    MCK(pa_mtt_available("gamem") == 1, "gamem unavailable");
    /* the wrong size or element type is refused before any call */
    MCK_ERR(pa_copy(T("G"), g, T("HW"), host), PA_ERR_SIZE);
    MCK_ERR(pa_copy(T("G"), g, T("GW"), g2), PA_ERR_SIZE);
    MCK_ERR(pa_copy(T("GD"), g, T("HD"), host), PA_ERR_ELM);
    /* a larger type over a smaller array: the bounds are checked before Global Arrays would abort */
    MCK_ERR(pa_copy(T("GBH"), g, T("HB"), host), PA_ERR_RANGE);
    MCK_ERR(pa_copy(T("GBH"), g, T("GBH"), g2), PA_ERR_RANGE);
    /* not host memory: a host copy cannot reach it, a foreign pointer is not a gamem array */
    MCK_ERR(pa_copy(T("G"), host, T("H"), host), PA_ERR_INVAL);
    MCK_ERR(pa_copy(T("G"), (char *)g + 1, T("H"), host), PA_ERR_INVAL);
    MCK_ERR(pa_destroy(T("H"), g), PA_ERR_INVAL);
    /* the handle */
    MCK_ERR(pa_gamem_handle(NULL, &h), PA_ERR_INVAL);
    MCK_ERR(pa_gamem_handle(host, &h), PA_ERR_INVAL);
    MCK_OK(pa_gamem_handle(g, &h));
    MCK(GA_Valid_handle(h) && strcmp(ga_shape(g), "C_INT 4x6") == 0, "handle %d: %s", h, ga_shape(g));
    MPI_Barrier(MPI_COMM_WORLD);
    MCK_OK(pa_destroy(T("G"), g));
    MCK_OK(pa_destroy(T("G"), g2));
}

/* A world array destroyed by 2 of its 4 processes: refused (GA_Destroy would wait for the other two). */
static int destroy_here(pa_ctx *ctx, void *arg)
{
    (void)ctx;
    void *g = *(void **)arg;
    int st = pa_destroy(T("G"), g);
    return st == PA_ERR_UNSUPPORTED ? PA_OK : pa__err(PA_ERR_INVAL, "pa_destroy in a process array: %s",
                                                      pa_status_name(st));
}

static void test_destroy_elsewhere(void)
{
    void *g = pa_create(T("G"));
    MCK(g != NULL, "pa_create: %s", pa_last_error());
    MCK_OK(pa_for(pa_type_parse(scope, "mpi [2]"), destroy_here, &g, sizeof g));
    MCK_OK(pa_destroy(T("G"), g));   /* still live: destroyed where it was made */
}

int main(int argc, char **argv)
{
    pa_scope_create(NULL, &scope);
    /* Before MPI: gamem is a clear error, not a crash. */
    MCK(pa_declare(scope, "G", "gamem int [4][6]") == PA_OK, "%s", pa_last_error());
    int *early = pa_create(pa_type_get(scope, "G"));
    char early_msg[256];
    snprintf(early_msg, sizeof early_msg, "%s", pa_last_error());
    MPI_Init(&argc, &argv);
    MCK(early == NULL && strncmp(early_msg, "ERR_NODEV", 9) == 0, "gamem before MPI_Init: %p, %s",
        (void *)early, early_msg);
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &nprocs);
    pa_scope_def_func(scope, "neg", neg, NULL);
    int st = pa_declare_text(scope,
        "H = paged int [4][6]\n"
        "HT = paged int [6][4]\n"
        "HX = paged int [#HT_1][#HT_0]\n"          /* a transposed host type */
        "GX = gamem int [#G_1][#G_0]\n"            /* a transposed view of the gamem array */
        "GR = gamem int [#G_0][6 # disp(-5) # func(neg) # G_1]\n"
        "GB = gamem int [6][8]\n"
        "GW = gamem int [[3 # disp(2) # GB_0][4 # disp(1) # GB_1]]\n"   /* a window */
        "HW = paged int [3][4]\n"
        "T8 = paged int [[4][2]]\n"
        "GE = gamem int [#GB_0][#T8_0]\n"          /* every second column */
        "HE = paged int [6][4]\n"
        "G3 = gamem int [3][[4][2]]\n"             /* listing 17's DATA */
        "H24 = paged int [24]\n"
        "G3W = gamem int [[2 # disp(1) # G3_0][[2 # disp(1) # G3_1_0][#G3_1_1]]]\n"
        "H222 = paged int [2][2][2]\n"
        "G3F = gamem int [24]\n"
        "GRUN = gamem int [10 # disp(3) # G3F]\n"
        "H10 = paged int [10]\n"
        "G1x = gamem int [1][5][[1][3]]\n"
        "G8 = gamem int [3][2][2][2][2][2][2][2]\n"
        "DATA100 = paged int [[10][10]]\n"
        "GWIN = gamem int [[8 # disp(1) # DATA100_0][8 # disp(1) # DATA100_1]]\n"
        "HWIN = paged int [8][8]\n"
        "GBH = gamem int [6][8]\n"
        "HB = paged int [48]\n"
        "GD = gamem double [2][3]\n"
        "HD = paged double [2][3]\n");
    MCK(st == PA_OK, "declarations: %s", pa_last_error());
    mck_run("start in a process array", test_start_in_array);
    mck_run("Global Array shapes", test_shapes);
    mck_run("contiguous", test_contiguous);
    mck_run("transposed", test_transposed);
    mck_run("windows", test_windows);
    mck_run("reversed dimension", test_reversed);
    mck_run("process array of 2", test_process_array);
    mck_run("errors", test_errors);
    mck_run("destroyed elsewhere", test_destroy_elsewhere);
    pa_scope_destroy(scope);
    int all = 0;
    MPI_Allreduce(&mck_failures, &all, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    MPI_Finalize();
    /* The library started Global Arrays; MPI_Finalize must have terminated it. */
    if (GA_Initialized()) {
        fprintf(stderr, "rank %d: Global Arrays is still initialised after MPI_Finalize\n", me);
        all = 1;
    }
    return all ? 1 : 0;
}
