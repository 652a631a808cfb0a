/*
 * parray — peer copies for distributed all-to-alls of device memory: where every process of the communicator
 * runs on one host and the memory type can share allocations between processes (dmem: CUDA IPC), each process
 * packs what it sends into its device send buffer, and after a barrier every process copies its block out of
 * every other process's send buffer, mapped into it once, straight into its receive buffer (device to device,
 * on one GPU or between two); a second barrier keeps the send buffers until every block is read.  No byte goes
 * through host memory.  The mapping is made at the plan's first run, collectively (the only MPI calls besides
 * the barriers); where it cannot be made on every process (not one host, an IPC call refused), every process
 * remakes the plan's buffers for the staged route and runs that.  On by default (PA_MPI_PEER=0 turns it off):
 * on the lent H100 with 2 and 4 ranks on one GPU it moved the FFT's all-to-all (N = 512) 28 to 48 times faster
 * than the staged route's device -> pinned -> MPI_Alltoall -> device (docs/gpu-results.md, 2026-11-26).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mpi_backend.h"

int pa_mpi__peer_possible(const pa_mpi__dplan *p)
{
    static atomic_int warned;
    const pa__mem_ops *m = p->send_mem;
    return !p->peer_refused && m && m == p->recv_mem && p->kind == PA_MPI__ALLTOALL && m->ipc_export &&
           m->ipc_open && m->ipc_close && m->ipc_copy && pa_mpi__env_on("PA_MPI_PEER", &warned);
}

static void unmap(pa_mpi__dplan *p)
{
    for (int q = 0; p->peer_sbuf && q < p->nprocs; q++)
        if (q != p->rank && p->peer_sbuf[q])
            p->send_mem->ipc_close(p->peer_sbuf[q]);
    free(p->peer_sbuf);
    p->peer_sbuf = NULL;
}

void pa_mpi__peer_free(pa_mpi__dplan *p)
{
    unmap(p);
}

/* Every process agrees on ok (collective).  \return 1 when every process's was 1. */
static int all_ok(int ok, MPI_Comm comm)
{
    int all = 0;
    return MPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_MIN, comm) == MPI_SUCCESS && all;
}

/* Maps every other process's send buffer here.  \return 1, or 0 when some process could not (nothing kept). */
static int map_peers(pa_mpi__dplan *p, MPI_Comm comm)
{
    MPI_Comm node = MPI_COMM_NULL;
    int size = 0, ok;
    char mine[PA__IPC_HANDLE_BYTES], *all = NULL;
    ok = MPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, p->rank, MPI_INFO_NULL, &node) == MPI_SUCCESS;
    if (ok)
        MPI_Comm_size(node, &size);
    if (node != MPI_COMM_NULL)
        MPI_Comm_free(&node);
    if (!all_ok(ok && size == p->nprocs, comm))
        return 0;   /* not one host */
    all = malloc((size_t)p->nprocs * PA__IPC_HANDLE_BYTES);
    p->peer_sbuf = calloc((size_t)p->nprocs, sizeof *p->peer_sbuf);
    ok = all && p->peer_sbuf && p->send_mem->ipc_export(p->sbuf, mine) == PA_OK;
    if (!ok)
        memset(mine, 0, sizeof mine);
    if (MPI_Allgather(mine, PA__IPC_HANDLE_BYTES, MPI_BYTE, all ? all : mine, all ? PA__IPC_HANDLE_BYTES : 0,
                      MPI_BYTE, comm) != MPI_SUCCESS)
        ok = 0;
    for (int q = 0; ok && q < p->nprocs; q++)
        if (q == p->rank)
            p->peer_sbuf[q] = p->sbuf;
        else if (p->send_mem->ipc_open(all + (size_t)q * PA__IPC_HANDLE_BYTES, &p->peer_sbuf[q]) != PA_OK)
            ok = 0;
    free(all);
    if (!all_ok(ok, comm)) {
        unmap(p);
        return 0;
    }
    return 1;
}

/* Remakes the plan's buffers for the staged route (every process does, having agreed). */
static int fall_back(pa_mpi__dplan *p)
{
    char line[1024];
    pa__plan_unref(p->pack);
    pa__plan_unref(p->unpack);
    p->pack = p->unpack = NULL;
    pa_mpi__buffers_free(p);
    p->peer_refused = 1;
    int st = pa_mpi__buffer_plans(p);
    if (st == PA_OK)
        st = pa_mpi__self_plans(p);   /* the staged route's own block (dist_self.c) */
    if (st == PA_OK && getenv("PA_PLAN_INFO") && strcmp(getenv("PA_PLAN_INFO"), "0") != 0) {
        pa_mpi__dplan_explain(p, line, sizeof line);
        fprintf(stderr, "parray plan (rank %d): peer copies are not possible here (not one host, or CUDA IPC "
                "refused): %s\n", p->rank, line);
    }
    return st;
}

int pa_mpi__peer_run(pa_mpi__dplan *p, MPI_Comm comm, void *dst, const void *src)
{
    int st;
    if (!p->peer_sbuf && !map_peers(p, comm)) {
        if ((st = fall_back(p)) != PA_OK)
            return st;
        return pa_mpi__dplan_exec(p, comm, dst, src, p->timed ? &p->times : NULL);
    }
    st = pa__plan_exec(p->pack, p->sbuf, 0, src, p->send_base);
    int bst = pa_mpi__check(MPI_Barrier(comm), "MPI_Barrier");   /* every block packed */
    char *rb = p->recv_direct ? (char *)dst + pa__bytes(p->recv_base, p->elm) : p->rbuf;
    size_t bytes = (size_t)p->blk * p->elm;
    for (int q = 0; st == PA_OK && bst == PA_OK && q < p->nprocs; q++)
        st = p->send_mem->ipc_copy(rb + (size_t)q * bytes, (const char *)p->peer_sbuf[q] + (size_t)p->rank * bytes,
                                   bytes);
    int bst2 = pa_mpi__check(MPI_Barrier(comm), "MPI_Barrier");   /* every block read: the buffers may change */
    if (st == PA_OK)
        st = bst != PA_OK ? bst : bst2;
    if (st == PA_OK && !p->recv_direct)
        st = pa__plan_exec(p->unpack, dst, p->recv_base, p->rbuf, 0);
    return st;
}
