/*
 * parray MPI tests — gamem arrays inside mpi process arrays under pa_mpi_main, on 6 processes (rank 0 runs
 * main, 5 wait to be drafted), without the program starting Global Arrays itself:
 *  - the processes of an array of 2 each run a nested array, then make the program's first gamem array:
 *    Global Arrays is started on every rank through a world call, which finds the nested ranks idle again;
 *  - a process array of 4 creates listing 17's "gamem int [3][[4][2]]" on its own processor group: the
 *    group, the default group (so that GA_Nodeid and GA_Print_distribution work on the array's processes), the manual's distribution of listing
 *    18; process 0 puts, every process gets windows back; a gamem to gamem copy inside the array; one array
 *    destroyed by the processes, one left for the end of the task;
 *  - the next arrays (of 5, 2 and 3 processes, on other rank sets) start with nothing left over and make
 *    their own groups; rank 0's main makes an array on itself alone;
 *  - a nested array and an array in a parallel region make gamem arrays: with ARMCI-MPI's noncollective groups
 *    (parray_gamem's default) they work; with ARMCI_NONCOLLECTIVE_GROUPS=0 a nested array's group would need
 *    ranks that are busy in its parent, and the error says so at once (no hang).
 *     mpirun -np 6 test_mpi_gamem_procs        (also run with -x ARMCI_NONCOLLECTIVE_GROUPS=0)
 * Checks inside tasks return an error status with a message, which reaches rank 0's pa_for.
 */
#include <unistd.h>

#include "gamem_util.h"
#include "internal.h"
#include <parray/mpi.h>
#include "mem_internal.h"
#include "mpi_backend.h"

#define TCHECK(cond, ...)                                                                                \
    do {                                                                                                 \
        if (!(cond))                                                                                     \
            return pa__err(PA_ERR_INVAL, __VA_ARGS__);                                                   \
    } while (0)

/* Listing 18's distribution of a 3 x 4 x 2 array over 4 processes. */
static const int64_t sections[4][6] = {
    {0, 2, 0, 1, 0, 0}, {0, 2, 0, 1, 1, 1}, {0, 2, 2, 3, 0, 0}, {0, 2, 2, 3, 1, 1},
};

static int listing(pa_ctx *ctx, void *arg)
{
    int k = (int)pa_tid(ctx), h = 0, buf[24], win[8];
    (void)arg;
    TCHECK(pa__alloc_count() == 0, "%zu arrays live on process %d before the task", pa__alloc_count(), k);
    int *data = pa_create(T("DATA")), *copy = pa_create(T("DATA"));
    if (!data || !copy)
        return last_status();
    pa_gamem_handle(data, &h);
    TCHECK(GA_Pgroup_nnodes(GA_Get_pgroup(h)) == 4 && GA_Nnodes() == 4 && GA_Nodeid() == k,
           "process %d: group of %d, default group node %d of %d", k, GA_Pgroup_nnodes(GA_Get_pgroup(h)),
           GA_Nodeid(), GA_Nnodes());
    for (int p = 0; p < 4; p++) {
        int64_t lo[3], hi[3];
        NGA_Distribution64(h, p, lo, hi);
        TCHECK(lo[0] == sections[p][0] && hi[0] == sections[p][1] && lo[1] == sections[p][2] &&
               hi[1] == sections[p][3] && lo[2] == sections[p][4] && hi[2] == sections[p][5],
               "process %d owns [%lld:%lld,%lld:%lld,%lld:%lld]", p, (long long)lo[0], (long long)hi[0],
               (long long)lo[1], (long long)hi[1], (long long)lo[2], (long long)hi[2]);
    }
    if (k == 0) {
        for (int i = 0; i < 24; i++)
            buf[i] = 100 + i;
        int st = pa_copy(T("DATA"), data, T("BUF"), buf);
        if (st == PA_OK)
            st = pa_copy(T("DATA"), copy, T("DATAT"), data);   /* gamem to gamem, transposed, in the group */
        if (st != PA_OK)
            return st;
    }
    GA_Sync();   /* the default group: this array's processes */
    memset(buf, -1, sizeof buf);
    memset(win, -1, sizeof win);
    int st = pa_copy(T("BUF"), buf, T("DATA"), data);
    if (st == PA_OK)
        st = pa_copy(T("HWIN"), win, T("DWIN"), data);
    if (st != PA_OK)
        return st;
    for (int i = 0; i < 24; i++)
        TCHECK(buf[i] == 100 + i, "process %d: buf[%d] = %d", k, i, buf[i]);
    for (int i = 0; i < 8; i++)   /* rows 1..2, columns 1..2 of 4, both of the last dimension */
        TCHECK(win[i] == 100 + (1 + i / 4) * 8 + (1 + i / 2 % 2) * 2 + i % 2, "process %d: win[%d] = %d", k, i,
               win[i]);
    memset(buf, -1, sizeof buf);
    if ((st = pa_copy(T("BUF"), buf, T("DATA"), copy)) != PA_OK)
        return st;
    for (int i = 0; i < 24; i++)
        TCHECK(buf[i] == 100 + (int)pa_offset(T("DATAT"), i), "process %d: copy[%d] = %d", k, i, buf[i]);
    GA_Sync();
    return pa_destroy(T("DATA"), copy);   /* data is left: the end of the task destroys it */
}

/* Any array size: nothing left from earlier tasks, then a gamem array on this group, written and read. */
static int any(pa_ctx *ctx, void *arg)
{
    int n = (int)pa_ctx_size(ctx), k = (int)pa_tid(ctx), buf[24];
    (void)arg;
    TCHECK(pa__alloc_count() == 0, "%zu arrays live on process %d of %d before the task", pa__alloc_count(), k,
           n);
    int *g = pa_create(T("DATA"));
    if (!g)
        return last_status();
    TCHECK(GA_Nnodes() == n && GA_Nodeid() == k, "default group node %d of %d", GA_Nodeid(), GA_Nnodes());
    if (k == n - 1) {
        for (int i = 0; i < 24; i++)
            buf[i] = n * 1000 + i;
        int st = pa_copy(T("DATA"), g, T("BUF"), buf);
        if (st != PA_OK)
            return st;
    }
    GA_Sync();
    memset(buf, -1, sizeof buf);
    int st = pa_copy(T("BUF"), buf, T("DATA"), g);
    for (int i = 0; st == PA_OK && i < 24; i++)
        TCHECK(buf[i] == n * 1000 + i, "process %d of %d: buf[%d] = %d", k, n, i, buf[i]);
    return st;
}

static int trivial(pa_ctx *ctx, void *arg)
{
    (void)ctx;
    (void)arg;
    return PA_OK;
}

/* Every process of the array first runs a nested array of 1, then they make a gamem array together: the
 * first one of the program, so Global Arrays starts through a world call, which must find the nested arrays'
 * ranks idle again. */
static int nest_then_any(pa_ctx *ctx, void *arg)
{
    int st = pa_for(T("P1"), trivial, NULL, 0);
    return st != PA_OK ? st : any(ctx, arg);
}

/* A process of an array of 2 starts a nested array of 2, whose processes make a gamem array. */
static int nest(pa_ctx *ctx, void *arg)
{
    (void)arg;
    if (pa_tid(ctx) != 0)
        return PA_OK;
    return pa_for(T("P2"), any, NULL, 0);
}

static int spin(pa_ctx *ctx, void *arg)
{
    (void)ctx;
    (void)arg;
    usleep(20000);
    return PA_OK;
}

static int user_main(int argc, char **argv)
{
    (void)argc;
    (void)argv;
    int buf[24];
    MCK(!GA_Initialized(), "Global Arrays runs before the first gamem array");
    MCK_OK(pa_for(T("P2"), nest_then_any, NULL, 0));
    MCK_OK(pa_for(T("P4"), listing, NULL, 0));
    MCK_OK(pa_for(T("P5"), any, NULL, 0));
    MCK_OK(pa_for(T("P2"), any, NULL, 0));
    MCK_OK(pa_for(T("P3"), any, NULL, 0));
    /* rank 0's main is one process: its array lives on a group of one */
    int *g = pa_create(T("DATA"));
    MCK(g != NULL, "pa_create on rank 0's main: %s", pa_last_error());
    for (int i = 0; i < 24; i++)
        buf[i] = 7 * i;
    MCK_OK(pa_copy(T("DATA"), g, T("BUF"), buf));
    memset(buf, 0, sizeof buf);
    MCK_OK(pa_copy(T("BUF"), buf, T("DATA"), g));
    MCK(buf[23] == 161 && GA_Nnodes() == 1, "rank 0: buf[23] = %d, default group of %d", buf[23], GA_Nnodes());
    MCK_OK(pa_destroy(T("DATA"), g));
    /* nested: works with noncollective groups; with collective ones the parent's ranks are busy */
    pa_error_clear();
    int st = pa_for(T("P2"), nest, NULL, 0);
    if (pa_ga__noncollective_groups())
        MCK_OK(st);
    else
        MCK(st == PA_ERR_UNSUPPORTED && strstr(pa_last_error(), "busy in other arrays") &&
            strstr(pa_last_error(), "ARMCI_NONCOLLECTIVE_GROUPS"), "nested, collective groups: %s: %s",
            pa_status_name(st), pa_last_error());
    /* a process array in a parallel region (in the background) beside a pthd array */
    MCK_OK(pa_parallel_begin());
    MCK_OK(pa_for(T("P3"), any, NULL, 0));
    MCK_OK(pa_for(T("PT"), spin, NULL, 0));
    MCK_OK(pa_parallel_end());
    /* and everything is still usable afterwards */
    MCK_OK(pa_for(T("P4"), any, NULL, 0));
    printf("gamem in process arrays (%s groups): %s\n", pa_ga__noncollective_groups() ? "noncollective" :
           "collective", mck_failures ? "FAILED" : "ok");
    return mck_failures ? 1 : 0;
}

int main(int argc, char **argv)
{
    pa_scope_create(NULL, &scope);
    int st = pa_declare_text(scope,
        "DATA = gamem int [3][[4][2]]\n"
        "BUF = paged int [24]\n"
        "DT = gamem int [[4][2]][3]\n"
        "DATAT = gamem int [#DT_1][#DT_0]\n"          /* DATA's elements read in transposed order */
        "DWIN = gamem int [[2 # disp(1) # DATA_0][[2 # disp(1) # DATA_1_0][#DATA_1_1]]]\n"
        "HWIN = paged int [8]\n"
        "P1 = mpi [1]\nP2 = mpi [2]\nP3 = mpi [3]\nP4 = mpi [4]\nP5 = mpi [5]\nPT = pthd [2]\n");
    if (st != PA_OK) {
        fprintf(stderr, "declarations: %s\n", pa_last_error());
        return 1;
    }
    pa_mpi_register("listing", listing);
    pa_mpi_register("any", any);
    pa_mpi_register("nest", nest);
    pa_mpi_register("trivial", trivial);
    pa_mpi_register("nest_then_any", nest_then_any);
    int rc = pa_mpi_main(argc, argv, user_main);
    pa_scope_destroy(scope);
    return rc;
}
