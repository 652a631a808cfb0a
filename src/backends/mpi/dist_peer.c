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

_Static_assert(PA__IPC_HANDLE_BYTES <= PA_MPI__NODE_HANDLE_MAX, "an IPC handle fits a one-host route's handle");

/* This process's send buffer, exported: its IPC handle is what the others open. */
static int export_mine(void *ctx, char *mine)
{
    pa_mpi__dplan *p = ctx;
    if (!(p->peer_sbuf = calloc((size_t)p->nprocs, sizeof *p->peer_sbuf)))
        return 0;
    p->peer_sbuf[p->rank] = p->sbuf;
    return p->send_mem->ipc_export(p->sbuf, mine) == PA_OK;
}

static int open_peer(void *ctx, int q, const char *handle)
{
    pa_mpi__dplan *p = ctx;
    return p->send_mem->ipc_open(handle, &p->peer_sbuf[q]) == PA_OK;
}

/* Maps every other process's send buffer here.  \return 1, or 0 when some process could not (nothing kept). */
static int map_peers(pa_mpi__dplan *p, MPI_Comm comm)
{
    static const pa_mpi__node_sharing how = {export_mine, open_peer};
    if (pa_mpi__node_share(comm, p->rank, p->nprocs, PA__IPC_HANDLE_BYTES, &how, p))
        return 1;
    unmap(p);
    return 0;
}

int pa_mpi__peer_run(pa_mpi__dplan *p, MPI_Comm comm, void *dst, const void *src)
{
    int st;
    if (!p->peer_sbuf && !map_peers(p, comm)) {   /* every process remakes the plan for the staged route */
        p->peer_refused = 1;
        if ((st = pa_mpi__route_remake(p, "peer copies are not possible here (not one host, or CUDA IPC "
                                          "refused)")) != PA_OK)
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
