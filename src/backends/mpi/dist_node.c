/*
 * parray — what the two one-host routes of an all-to-all share (dist_shm.c: host memory through POSIX shared
 * memory; dist_peer.c: device memory through the allocator's IPC handles): at a plan's first run every process
 * checks that the whole communicator runs on its host, makes what it shares (a segment, an exported buffer),
 * passes its handle (a name, an IPC handle) to every other process and opens theirs; where any process could
 * not, every process remakes the plan for the route without sharing (plain host, or staged through pinned
 * memory).  Every step that can fail on one process is agreed on collectively, so no process is left waiting
 * in a collective the others skipped.  For tests, PA_MPI_NODE_SHARE_FAIL=r makes process r of the communicator
 * report that it could not make its handle (as a full /dev/shm or a refused IPC export would), so that the
 * agreement and the remade plans run on one host too.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mpi_backend.h"

int pa_mpi__all_ok(int ok, MPI_Comm comm)
{
    int all = 0;
    return MPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_MIN, comm) == MPI_SUCCESS && all;
}

/* 1 when every process of comm (nprocs of them) shares this host (collective). */
static int one_host(MPI_Comm comm, int rank, int nprocs)
{
    MPI_Comm node = MPI_COMM_NULL;
    int size = 0, ok = MPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, rank, MPI_INFO_NULL, &node) == MPI_SUCCESS;
    if (ok)
        MPI_Comm_size(node, &size);
    if (node != MPI_COMM_NULL)
        MPI_Comm_free(&node);
    return pa_mpi__all_ok(ok && size == nprocs, comm);
}

/* PA_MPI_NODE_SHARE_FAIL names this process (read at each set-up, which happens once per plan). */
static int told_to_fail(int rank)
{
    const char *v = getenv("PA_MPI_NODE_SHARE_FAIL");
    char *end;
    long r = v && *v ? strtol(v, &end, 10) : -1;
    return v && *v && *end == '\0' && r == rank;
}

int pa_mpi__node_share(MPI_Comm comm, int rank, int nprocs, size_t len, const pa_mpi__node_sharing *how, void *ctx)
{
    char mine[PA_MPI__NODE_HANDLE_MAX] = {0}, *all;
    if (len > sizeof mine || !one_host(comm, rank, nprocs))
        return 0;   /* the same on every process: len is the route's constant */
    all = malloc((size_t)nprocs * len);
    int ok = all && !told_to_fail(rank) && how->make(ctx, mine);
    if (!ok)
        memset(mine, 0, sizeof mine);
    /* a process without the table still takes part (receiving nothing), and then fails below */
    if (MPI_Allgather(mine, (int)len, MPI_BYTE, all ? all : mine, all ? (int)len : 0, MPI_BYTE, comm) != MPI_SUCCESS)
        ok = 0;
    for (int q = 0; ok && q < nprocs; q++)
        if (q != rank && !how->open(ctx, q, all + (size_t)q * len))
            ok = 0;
    free(all);
    return pa_mpi__all_ok(ok, comm);
}

int pa_mpi__route_remake(pa_mpi__dplan *p, const char *why)
{
    pa_mpi__self_free(p);
    pa__plan_unref(p->pack);
    pa__plan_unref(p->unpack);
    p->pack = p->unpack = NULL;
    pa_mpi__buffers_free(p);
    int st = pa_mpi__buffer_plans(p);
    if (st == PA_OK)
        st = pa_mpi__self_plans(p);
    if (st == PA_OK && getenv("PA_PLAN_INFO") && strcmp(getenv("PA_PLAN_INFO"), "0") != 0) {
        char line[1024];
        pa_mpi__dplan_explain(p, line, sizeof line);
        fprintf(stderr, "parray plan (rank %d): %s: %s\n", p->rank, why, line);
    }
    return st;
}
