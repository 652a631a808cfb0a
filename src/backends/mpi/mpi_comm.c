/*
 * parray — the communicator distributed copies run on.  Plain SPMD programs use MPI_COMM_WORLD; a process of
 * a process array uses its array's communicator while its task runs (a thread-local setting: threads a task
 * starts do not inherit it).  Rank 0's main under pa_mpi_main is one process (MPI_COMM_SELF), since the other
 * ranks are idle.  Without MPI running, the library is one process: rank 0 of 1.
 */
#include <stdio.h>

#include "procs.h"

static _Thread_local MPI_Comm current = MPI_COMM_NULL;

int pa_mpi__running(void)
{
    int init = 0, fin = 0;
    MPI_Initialized(&init);
    MPI_Finalized(&fin);
    return init && !fin;
}

MPI_Comm pa_mpi__comm(void)
{
    /* Under pa_mpi_main, rank 0's main is no process array: the other ranks are idle, so it is one process. */
    if (current == MPI_COMM_NULL && pa_mpi__served())
        return MPI_COMM_SELF;
    return current != MPI_COMM_NULL ? current : MPI_COMM_WORLD;
}

MPI_Comm pa_mpi__set_comm(MPI_Comm comm)
{
    MPI_Comm prev = current;
    current = comm;
    pa_mpi__memo_invalidate();   /* plans remembered for the previous communicator's rank and size */
    return prev;
}

void pa_mpi__where(int *rank, int *nprocs)
{
    *rank = 0;
    *nprocs = 1;
    if (!pa_mpi__running())
        return;
    MPI_Comm_rank(pa_mpi__comm(), rank);
    MPI_Comm_size(pa_mpi__comm(), nprocs);
}

int pa_mpi__check(int rc, const char *call)
{
    char text[MPI_MAX_ERROR_STRING];
    int len = 0;
    if (rc == MPI_SUCCESS)
        return PA_OK;
    if (MPI_Error_string(rc, text, &len) != MPI_SUCCESS)
        snprintf(text, sizeof text, "MPI error %d", rc);
    return pa__err(PA_ERR_SYS, "%s failed: %s", call, text);
}

int pa_mpi_rank(void)
{
    int rank, nprocs;
    pa_mpi__where(&rank, &nprocs);
    return rank;
}

int pa_mpi_nprocs(void)
{
    int rank, nprocs;
    pa_mpi__where(&rank, &nprocs);
    return nprocs;
}

int pa_mpi_available(void)
{
    return 1;
}

int pa_mpi_node_share(void)
{
    MPI_Comm node;
    int rank = 0, size = 1;
    if (!pa_mpi__running())
        return pa__err(PA_ERR_NODEV, "pa_mpi_node_share: MPI is not running (call it after MPI_Init)");
    int st = pa_mpi__check(MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node),
                           "pa_mpi_node_share: MPI_Comm_split_type");
    if (st != PA_OK)
        return st;
    MPI_Comm_rank(node, &rank);
    MPI_Comm_size(node, &size);
    MPI_Comm_free(&node);
    pa__node_share_set(rank, size);
    return PA_OK;
}
