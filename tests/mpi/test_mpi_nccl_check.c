/*
 * parray MPI tests — the NCCL route's check before a run (src/backends/mpi/dist_nccl_check.c), on the CPU:
 * every member checks its arrays' GPUs and the plan's size against the communicator, and all agree before any
 * NCCL call, so that one rank's bad pointer gives every member the same clear error instead of a hang.
 *
 * No GPU is needed: a stand-in pointer_device hook says which "GPU" a pointer is on (the index of a byte of
 * gpu_bytes; any other pointer is host memory), and the plans are the few fields the check reads.  Run under
 * mpirun with 2 or 4 processes; the meson test's timeout turns a hang into a failure.  The same errors through
 * pa_copy on real GPUs: tests/mpi/test_mpi_nccl_errors.c.
 */
#include <stdint.h>

#include "mpi_backend.h"
#include "mpi_check.h"

static char gpu_bytes[64];   /* &gpu_bytes[d] is a pointer on stand-in GPU d */
static int host_word;
static int lookups;

static int stand_in_device(const void *p, const char *what, int *dev)
{
    const char *c = p;
    lookups++;
    if (c >= gpu_bytes && c < gpu_bytes + sizeof gpu_bytes) {
        *dev = (int)(c - gpu_bytes);
        return PA_OK;
    }
    return pa__err(PA_ERR_MTT, "%s: %p is host memory (stand-in)", what, p);
}

static int me, np;

/* A plan as far as the check reads it: an all-to-all over np processes that sends and receives. */
static pa_mpi__dplan plan_of(pa_mpi__kind kind, int nprocs)
{
    pa_mpi__dplan p;
    memset(&p, 0, sizeof p);
    p.kind = kind;
    p.rank = me;
    p.nprocs = nprocs;
    p.nsend = p.nrecv = 12;
    return p;
}

static void *on(int dev)
{
    return &gpu_bytes[dev];
}

/* Every rank's arrays on its own GPU (GPU = rank): PA_OK everywhere, and both pointers were looked up. */
static void test_all_good(void)
{
    pa_mpi__dplan p = plan_of(PA_MPI__ALLTOALL, np);
    lookups = 0;
    MCK_OK(pa_mpi__nccl_check(&p, MPI_COMM_WORLD, me, me, on(me), on(me), PA_OK));
    MCK(lookups == 2, "%d pointer look-ups, expected 2", lookups);
    /* a rank that only sends (nrecv 0) does not look at its destination, which may be anything */
    p.nrecv = 0;
    lookups = 0;
    MCK_OK(pa_mpi__nccl_check(&p, MPI_COMM_WORLD, me, me, &host_word, on(me), PA_OK));
    MCK(lookups == 1, "%d pointer look-ups, expected 1", lookups);
}

/* The last rank's source on GPU 40: every rank returns PA_ERR_INVAL naming that rank and both GPUs. */
static void test_source_elsewhere(void)
{
    pa_mpi__dplan p = plan_of(PA_MPI__ALLTOALL, np);
    int bad = np - 1;
    char want[160];
    MCK_ERR(pa_mpi__nccl_check(&p, MPI_COMM_WORLD, me, me, on(me), on(me == bad ? 40 : me), PA_OK), PA_ERR_INVAL);
    snprintf(want, sizeof want, "rank %d's source array is on GPU 40, but the rank's NCCL communicator uses GPU %d",
             bad, bad);
    MCK(strstr(pa_last_error(), want) != NULL, "message \"%s\" lacks \"%s\"", pa_last_error(), want);
    MCK(strstr(pa_last_error(), "nothing was moved") != NULL, "message: %s", pa_last_error());
}

/* Several ranks fail (1: destination on GPU 33; those above it: source on GPU 40): all name rank 1. */
static void test_first_rank_named(void)
{
    pa_mpi__dplan p = plan_of(PA_MPI__ALLTOALL, np);
    void *dst = me == 1 ? on(33) : on(me), *src = me > 1 ? on(40) : on(me);
    MCK_ERR(pa_mpi__nccl_check(&p, MPI_COMM_WORLD, me, me, dst, src, PA_OK), PA_ERR_INVAL);
    MCK(strstr(pa_last_error(), "rank 1's destination array is on GPU 33") != NULL, "message: %s", pa_last_error());
    MCK(strstr(pa_last_error(), "GPU 40") == NULL, "message names a later rank: %s", pa_last_error());
}

/* Rank 0's destination is host memory though the type says dmem. */
static void test_not_device_memory(void)
{
    pa_mpi__dplan p = plan_of(PA_MPI__ALLTOALL, np);
    MCK_ERR(pa_mpi__nccl_check(&p, MPI_COMM_WORLD, me, me, me == 0 ? (void *)&host_word : on(me), on(me), PA_OK),
            PA_ERR_INVAL);
    MCK(strstr(pa_last_error(), "rank 0's destination array is not device memory that CUDA knows") != NULL,
        "message: %s", pa_last_error());
}

/* Rank 1 has another GPU current than its communicator's. */
static void test_other_gpu_current(void)
{
    pa_mpi__dplan p = plan_of(PA_MPI__ALLTOALL, np);
    MCK_ERR(pa_mpi__nccl_check(&p, MPI_COMM_WORLD, me, me == 1 ? 7 : me, on(me), on(me), PA_OK), PA_ERR_INVAL);
    MCK(strstr(pa_last_error(), "rank 1 has GPU 7 current, but its NCCL communicator was made on GPU 1") != NULL,
        "message: %s", pa_last_error());
}

/* Rank 1's own set-up failed (no memory for its streams, say) just before the check: it keeps its error, the
 * others get one that names it; nobody goes on to NCCL. */
static int set_up_then_check(const pa_mpi__dplan *p)
{
    int local = me == 1 ? pa__err(PA_ERR_NOMEM, "stand-in: no memory for the streams") : PA_OK;
    return pa_mpi__nccl_check(p, MPI_COMM_WORLD, me, me, on(me), on(me), local);
}

static void test_local_failure(void)
{
    pa_mpi__dplan p = plan_of(PA_MPI__ALLTOALL, np);
    if (me == 1) {
        MCK_ERR(set_up_then_check(&p), PA_ERR_NOMEM);
        MCK(strstr(pa_last_error(), "stand-in: no memory for the streams") != NULL, "message: %s", pa_last_error());
    } else {
        MCK_ERR(set_up_then_check(&p), PA_ERR_SYS);
        MCK(strstr(pa_last_error(), "rank 1 could not set up its part of the copy") != NULL, "message: %s",
            pa_last_error());
    }
}

/* A plan made for another number of processes than the communicator has: PA_ERR_RANGE on every rank. */
static void test_wrong_size(void)
{
    pa_mpi__dplan p = plan_of(PA_MPI__ALLTOALL, np + 1);
    char want[160];
    MCK_ERR(pa_mpi__nccl_check(&p, MPI_COMM_WORLD, me, me, on(me), on(me), PA_OK), PA_ERR_RANGE);
    snprintf(want, sizeof want, "rank 0 runs a plan made for %d processes on a communicator of %d", np + 1, np);
    MCK(strstr(pa_last_error(), want) != NULL, "message \"%s\" lacks \"%s\"", pa_last_error(), want);
}

/* A send/recv: only its pair checks (with each other); the destination rank's array is elsewhere. */
static void test_pair(void)
{
    pa_mpi__dplan p = plan_of(PA_MPI__SENDRECV, np);
    p.src_root = 0;
    p.dst_root = np - 1;
    if (me != p.src_root && me != p.dst_root)
        return;
    p.nsend = me == p.src_root ? 12 : 0;
    p.nrecv = me == p.dst_root ? 12 : 0;
    MCK_ERR(pa_mpi__nccl_check(&p, MPI_COMM_WORLD, me, me, on(me == p.dst_root ? 50 : me), on(me), PA_OK),
            PA_ERR_INVAL);
    char want[96];
    snprintf(want, sizeof want, "rank %d's destination array is on GPU 50", np - 1);
    MCK(strstr(pa_last_error(), want) != NULL, "message: %s", pa_last_error());
    MCK_OK(pa_mpi__nccl_check(&p, MPI_COMM_WORLD, me, me, on(me), on(me), PA_OK));   /* and a good one after it */
}

/* The agreement costs one small collective a run: its time here, printed (not asserted: a shared VM). */
static void test_cost(void)
{
    pa_mpi__dplan p = plan_of(PA_MPI__ALLTOALL, np);
    int reps = 2000, st = PA_OK;
    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = MPI_Wtime();
    for (int i = 0; i < reps && st == PA_OK; i++)
        st = pa_mpi__nccl_check(&p, MPI_COMM_WORLD, me, me, on(me), on(me), PA_OK);
    double us = (MPI_Wtime() - t0) / reps * 1e6, most = 0;
    MCK_OK(st);
    MPI_Reduce(&us, &most, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
    if (me == 0)
        printf("  the check with its agreement: %.2f us a run (%d processes)\n", most, np);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &np);
    if (np < 2) {
        fprintf(stderr, "test_mpi_nccl_check: run with mpirun -np 2 or more\n");
        MPI_Finalize();
        return 77;
    }
    pa_mpi__nccl_test_pointer_device(stand_in_device);
    mck_run("all arrays on their GPUs", test_all_good);
    mck_run("a source on another GPU", test_source_elsewhere);
    mck_run("the first failed rank named", test_first_rank_named);
    mck_run("not device memory", test_not_device_memory);
    mck_run("another GPU current", test_other_gpu_current);
    mck_run("a rank's own set-up failed", test_local_failure);
    mck_run("plan and communicator sizes", test_wrong_size);
    mck_run("a send/recv's pair", test_pair);
    mck_run("the agreement's cost", test_cost);
    pa_mpi__nccl_test_pointer_device(NULL);
    int all = 0;
    MPI_Allreduce(&mck_failures, &all, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    MPI_Finalize();
    return all ? 1 : 0;
}
