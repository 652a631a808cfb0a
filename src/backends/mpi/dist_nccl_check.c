/*
 * parray — the NCCL route's check before every run (dist_nccl.c): are this run's arrays where the route's NCCL
 * communicator works, and does the plan fit the communicator it runs on?
 *
 * NCCL moves bytes between the GPUs its communicator was made on, one per rank.  A rank whose array lives on
 * another GPU (made while another GPU was current), or that has another GPU current now, would hand NCCL
 * pointers it cannot use; were it to fail alone, the other ranks would wait for it inside NCCL for ever.  So
 * every member checks its own arrays (their GPUs through the CUDA backend's pointer_device hook, reached by
 * the backend list: this backend calls no CUDA) and its own set-up (streams, a copy aside: `local`), and the
 * members agree before any NCCL call: one MPI_Allreduce
 * of one number (an MPI_Sendrecv with the other rank, for a send/recv's pair), which names the first rank that
 * failed, what failed and the two GPUs.  Every member then returns the same error and nothing has moved.
 *
 * The agreement costs one small collective a run: some microseconds over shared memory, against the 20 us or
 * more of the NCCL group(s) the run queues (docs/scaling.md, "Errors on the NCCL route").
 */
#include <stdio.h>

#include "backends.h"
#include "mpi_backend.h"

#define GOOD INT64_MAX
#define TAG_CHECK 32002

enum { BAD_LOCAL = 1, BAD_SIZE, BAD_CURRENT, BAD_SRC, BAD_DST, NOT_SRC, NOT_DST };

static _Atomic(pa_mpi__pointer_device_fn) test_hook;

void pa_mpi__nccl_test_pointer_device(pa_mpi__pointer_device_fn fn)
{
    atomic_store(&test_hook, fn);
}

/* One failure as one number: the lowest rank's wins a MIN.  Devices and sizes are kept in 20 bits each. */
static int64_t code(int rank, int what, int found, int want)
{
    return ((int64_t)rank << 44) | ((int64_t)what << 40) | ((int64_t)(found + 1) & 0xfffff) << 20 |
           ((int64_t)(want + 1) & 0xfffff);
}

/* This rank's own check: GOOD, or its failure's code. */
static int64_t check_mine(const pa_mpi__dplan *p, int comm_size, int comm_dev, int cur_dev, const void *dst,
                          const void *src, int local)
{
    pa_mpi__pointer_device_fn pd = atomic_load(&test_hook);
    int dev;
    if (!pd)
        pd = pa__backends_pointer_device;
    if (local != PA_OK)
        return code(p->rank, BAD_LOCAL, 0, 0);
    if (p->kind != PA_MPI__SENDRECV && comm_size != p->nprocs)
        return code(p->rank, BAD_SIZE, comm_size, p->nprocs);
    if (cur_dev != comm_dev)
        return code(p->rank, BAD_CURRENT, cur_dev, comm_dev);
    if (p->nsend > 0 && src) {
        if (pd(src, "the NCCL route's source", &dev) != PA_OK)
            return code(p->rank, NOT_SRC, -1, comm_dev);
        if (dev != comm_dev)
            return code(p->rank, BAD_SRC, dev, comm_dev);
    }
    if (p->nrecv > 0 && dst) {
        if (pd(dst, "the NCCL route's destination", &dev) != PA_OK)
            return code(p->rank, NOT_DST, -1, comm_dev);
        if (dev != comm_dev)
            return code(p->rank, BAD_DST, dev, comm_dev);
    }
    return GOOD;
}

/* The agreed failure as the error every member returns. */
static int report(int64_t c)
{
    int rank = (int)(c >> 44), what = (int)(c >> 40 & 0xf);
    int found = (int)(c >> 20 & 0xfffff) - 1, want = (int)(c & 0xfffff) - 1;
    const char *side = what == BAD_SRC || what == NOT_SRC ? "source" : "destination";
    switch (what) {
    case BAD_LOCAL:
        return pa__err(PA_ERR_SYS, "NCCL route: rank %d could not set up its part of the copy (streams, or a copy "
                       "aside of an overlapping source: its own error says why); nothing was moved", rank);
    case BAD_SIZE:
        return pa__err(PA_ERR_RANGE, "NCCL route: rank %d runs a plan made for %d processes on a communicator of "
                       "%d (the process array and the communicator differ in size); nothing was moved", rank, want,
                       found);
    case BAD_CURRENT:
        return pa__err(PA_ERR_INVAL, "NCCL route: rank %d has GPU %d current, but its NCCL communicator was made "
                       "on GPU %d (keep one GPU current per rank, pa_cuda_set_device); nothing was moved", rank,
                       found, want);
    case NOT_SRC:
    case NOT_DST:
        return pa__err(PA_ERR_INVAL, "NCCL route: rank %d's %s array is not device memory that CUDA knows, but its "
                       "type says dmem; nothing was moved", rank, side);
    default:
        return pa__err(PA_ERR_INVAL, "NCCL route: rank %d's %s array is on GPU %d, but the rank's NCCL "
                       "communicator uses GPU %d (create it with that GPU current: pa_cuda_set_device before "
                       "pa_create); nothing was moved", rank, side, found, want);
    }
}

int pa_mpi__nccl_check(const pa_mpi__dplan *p, MPI_Comm comm, int comm_dev, int cur_dev, void *dst,
                       const void *src, int local)
{
    int size = 0;
    MPI_Comm_size(comm, &size);
    int64_t mine = check_mine(p, size, comm_dev, cur_dev, dst, src, local), all = mine;
    int st;
    if (p->kind == PA_MPI__SENDRECV) {   /* only the pair runs: it agrees alone */
        int peer = p->rank == p->src_root ? p->dst_root : p->src_root;
        int64_t other = GOOD;
        st = pa_mpi__check(MPI_Sendrecv(&mine, 1, MPI_INT64_T, peer, TAG_CHECK, &other, 1, MPI_INT64_T, peer,
                                        TAG_CHECK, comm, MPI_STATUS_IGNORE), "MPI_Sendrecv");
        all = other < mine ? other : mine;
    } else {
        st = pa_mpi__check(MPI_Allreduce(&mine, &all, 1, MPI_INT64_T, MPI_MIN, comm), "MPI_Allreduce");
    }
    if (st != PA_OK)
        return st;
    if (all == GOOD)
        return PA_OK;
    return local != PA_OK ? local : report(all);   /* a rank whose set-up failed keeps its own error */
}
