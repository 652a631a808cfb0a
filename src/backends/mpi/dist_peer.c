/*
 * parray — peer copies for distributed all-to-alls of device memory: where every process of the communicator
 * runs on one host and the memory type can share allocations between processes (dmem: CUDA IPC), each process
 * packs what it sends into its device send buffer, and after a barrier every process reads its block out of
 * every other process's send buffer, mapped into it once; a second barrier keeps the send buffers until every
 * block is read.  No byte goes through host memory.  The mapping is made at the plan's first run, collectively
 * (the only MPI calls besides the barriers); where it cannot be made on every process (not one host, an IPC
 * call refused), every process remakes the plan's buffers for the staged route and runs that.  On by default
 * (PA_MPI_PEER=0 turns it off).
 *
 * The pulls: where every peer's block of the receive layout is one layout (an even split: the FFT's S -> T and
 * S -> TZ, every all-to-all whose blocks are whole sub-blocks), a process unpacks each peer's block straight
 * out of that peer's buffer into its destination: one plan per peer, its kernel (or copy engine, for a dense or
 * 2-D block) reading the other GPU's memory over the link, all peers at once on up to four streams.  So the
 * bytes cross the link once, inside the unpacking pass, and no receive buffer exists.  Elsewhere each block is
 * copied whole into a receive buffer, one peer at a time, and unpacked after (the first form of this route: on
 * the lent H100 with 2 and 4 ranks on one GPU it moved the FFT's all-to-all (N = 512) 28 to 48 times faster than
 * the staged route, docs/gpu-results.md, 2026-11-26); PA_MPI_PULLS=0 asks for it, for comparisons.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "layout_slice.h"
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

#define PULL_STREAMS 4

/* The pulls of one plan: every peer's block of the receive layout as one slice (from element 0 of that peer's
 * packed block for this process), and the streams they run on (made at the first run). */
typedef struct pa_mpi__pulls {
    const pa__async_ops *as;
    pa__slice *recv;             /* [nprocs]; n 0 where nothing comes from that peer */
    void *stream[PULL_STREAMS];
    void *ev_start;
} pa_mpi__pulls;

static void pulls_free(pa_mpi__dplan *p)
{
    pa_mpi__pulls *u = p->pulls;
    if (!u)
        return;
    for (int q = 0; u->recv && q < p->nprocs; q++)
        pa__plan_unref(u->recv[q].plan);
    for (int i = 0; i < PULL_STREAMS; i++)
        if (u->stream[i])
            u->as->stream_free(u->stream[i]);
    if (u->ev_start)
        u->as->event_free(u->ev_start);
    free(u->recv);
    free(u);
    p->pulls = NULL;
}

int pa_mpi__peer_pullable(const pa_mpi__dplan *p)
{
    static atomic_int warned;
    if (p->nrecv == 0 || p->blk == 0 || !pa_mpi__env_on("PA_MPI_PULLS", &warned))   /* 0: whole copies */
        return 0;
    for (int q = 0; q < p->nprocs; q++)
        if (!pa__layout_sliceable(&p->recv_l, (int64_t)q * p->blk, p->blk, 1))
            return 0;
    return 1;
}

void pa_mpi__peer_free(pa_mpi__dplan *p)
{
    unmap(p);
    pulls_free(p);
}

int pa_mpi__peer_prepare(pa_mpi__dplan *p)
{
    pulls_free(p);
    const pa__async_ops *as = pa__backends_async("distributed copy: the peer route's pulls");
    if (!as || !pa_mpi__peer_pullable(p))
        return PA_OK;   /* no queued device work here, or a block that is not one layout: whole copies */
    pa_mpi__pulls *u = calloc(1, sizeof *u);
    if (u)
        u->recv = calloc((size_t)p->nprocs, sizeof *u->recv);
    if (!u || !u->recv) {
        free(u);
        return pa__err(PA_ERR_NOMEM, "distributed copy: no memory for %d pulls", p->nprocs);
    }
    u->as = as;
    p->pulls = u;
    for (int q = 0; q < p->nprocs; q++) {
        int one, st = pa__slice_make(&p->recv_l, (int64_t)q * p->blk, p->blk, 0, p->elm, p->recv_mem, 1,
                                     &u->recv[q], &one);
        if (st != PA_OK || !one) {
            pulls_free(p);
            return st != PA_OK ? st : pa__err(PA_ERR_SYS, "peer route: a block that was one layout is not (internal)");
        }
    }
    return PA_OK;
}

int pa_mpi__peer_explain(const pa_mpi__dplan *p, char *buf, size_t len)
{
    if (!p->pulls)
        return snprintf(buf, len, " (each block copied whole into a receive buffer, one peer at a time, then "
                        "unpacked)");
    int direct = 0;
    for (int q = 0; q < p->nprocs; q++)
        direct += p->pulls->recv[q].direct;
    return snprintf(buf, len, " (every peer's block unpacked as it is read, on up to %d streams at once; %d of %d "
                    "blocks dense)", PULL_STREAMS, direct, p->nprocs);
}

/* Every peer's block for this process, unpacked straight out of its mapped send buffer (queued on the pull
 * streams after the caller's earlier work), then waited for.  \return PA_OK or the first error. */
static int pull_all(pa_mpi__dplan *p, void *dst)
{
    pa_mpi__pulls *u = p->pulls;
    const pa__async_ops *as = u->as;
    int st = PA_OK, n = p->nprocs < PULL_STREAMS ? p->nprocs : PULL_STREAMS;
    for (int i = 0; i < n && st == PA_OK; i++)
        if (!u->stream[i])
            st = as->stream_new(&u->stream[i]);
    if (st == PA_OK && !u->ev_start)
        st = as->event_new(&u->ev_start);
    if (st == PA_OK)
        st = as->record(u->ev_start, NULL);   /* after the caller's work on the legacy default stream */
    for (int i = 0; i < n && st == PA_OK; i++)
        st = as->wait(u->stream[i], u->ev_start);
    size_t bytes = (size_t)p->blk * p->elm;
    for (int k = 0; k < p->nprocs && st == PA_OK; k++) {
        int q = (p->rank + k) % p->nprocs;   /* each process starts at a different peer */
        const pa__slice *r = &u->recv[q];
        const char *from = (const char *)p->peer_sbuf[q] + (size_t)p->rank * bytes;
        void *s = u->stream[k % n];
        st = r->plan ? pa__plan_exec_async(r->plan, dst, r->base, from, 0, s)
                     : as->copy((char *)dst + pa__bytes(r->base, p->elm), from, bytes, s);
    }
    for (int i = 0; i < n; i++) {   /* every stream, failed or not: nothing may still read or write after */
        int wst = u->stream[i] ? pa__stream_wait(u->stream[i]) : PA_OK;
        st = st != PA_OK ? st : wst;
    }
    return st;
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
    if (p->pulls) {
        if (st == PA_OK && bst == PA_OK)
            st = pull_all(p, dst);
        int bst2 = pa_mpi__check(MPI_Barrier(comm), "MPI_Barrier");   /* every block read: buffers may change */
        return st != PA_OK ? st : bst != PA_OK ? bst : bst2;
    }
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
