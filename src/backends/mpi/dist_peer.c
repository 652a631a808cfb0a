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
 *
 * The direct form of the pulls: where, besides, every process's block for every other is one affine layout of
 * its source array (agreed at the first run, when the processes exchange those layouts), nothing is packed:
 * at each run every process exports its source array (CUDA IPC of the allocation that holds it), the handles
 * are gathered, and each process reads every peer's block where it is in that peer's array, straight into its
 * destination, one plan per peer: one pass over the bytes in all.  A run where some process writes what it
 * reads (a copy in place) or cannot export its array packs first instead, on every process alike.  The peers'
 * allocations stay mapped between runs (dist_ipc.c).  PA_MPI_PULLS=packed keeps the packing, for comparisons.
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
    /* The direct form (p->peer_direct): every peer's block read where it is in that peer's source array. */
    pa__plan **dplan;            /* [nprocs]: this process's block from q <- q's block for it; NULL: one run */
    int64_t *dbase, *sbase;      /* [nprocs]: the blocks' base offsets in the destination and in q's source */
    struct source *wire;         /* [nprocs]: every process's source array as exchanged by the last run */
    void **mapped;               /* [nprocs]: the peers' source allocations mapped here for one run */
    int *entry;                  /* [nprocs]: their entries in the table of mappings (dist_ipc.c) */
} pa_mpi__pulls;

/* A process's source array, as it tells the others at a direct run. */
struct source {
    int ok;                      /* exported, and the run reads no byte it writes */
    int64_t off;                 /* bytes from its allocation's start to the array */
    char handle[PA__IPC_HANDLE_BYTES];
};

/* One process's block for another, as it tells it when the direct form is set up. */
struct block_layout {
    int ok;                      /* one affine layout */
    pa__layout l;
};

static void pulls_free(pa_mpi__dplan *p)
{
    pa_mpi__pulls *u = p->pulls;
    if (!u)
        return;
    for (int q = 0; u->recv && q < p->nprocs; q++)
        pa__plan_unref(u->recv[q].plan);
    for (int q = 0; u->dplan && q < p->nprocs; q++)
        pa__plan_unref(u->dplan[q]);
    free(u->dplan);
    free(u->dbase);
    free(u->sbase);
    free(u->wire);
    free(u->mapped);
    free(u->entry);
    for (int i = 0; i < PULL_STREAMS; i++)
        if (u->stream[i])
            u->as->stream_free(u->stream[i]);
    if (u->ev_start)
        u->as->event_free(u->ev_start);
    free(u->recv);
    free(u);
    p->pulls = NULL;
}

/* PA_MPI_PULLS: 0 whole copies, packed pulls only, or 1 (the direct form where every process can) */
static const char *const pull_words[] = {"0", "packed", "1"};

/* 1 when every peer's block of p's receive layout is one layout (the pulls can unpack it as they read). */
static int pullable(const pa_mpi__dplan *p)
{
    static atomic_int warned;
    if (p->nrecv == 0 || p->blk == 0 || pa__env_choice("PA_MPI_PULLS", pull_words, 3, 2, &warned) == 0)
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
    p->peer_direct = 0;
    const pa__async_ops *as = pa__backends_async("distributed copy: the peer route's pulls");
    if (!as || !pullable(p))
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
    if (p->peer_direct == 1)
        return snprintf(buf, len, " (direct: every peer's block read where it is in that peer's source array and "
                        "written into place in one pass, on up to %d streams at once; packed first for a copy in "
                        "place or an array that cannot be shared)", PULL_STREAMS);
    int dense = 0;
    for (int q = 0; q < p->nprocs; q++)
        dense += p->pulls->recv[q].direct;
    return snprintf(buf, len, " (every peer's block unpacked as it is read, on up to %d streams at once; %d of %d "
                    "blocks dense%s)", PULL_STREAMS, dense, p->nprocs, p->peer_direct == 0 ? "; reading the "
                    "sources where they are is tried at the first run" : "");
}

/* The pull streams, made at the first run, after the caller's earlier work on the legacy default stream. */
static int queue_start(pa_mpi__dplan *p)
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
        st = as->record(u->ev_start, NULL);
    for (int i = 0; i < n && st == PA_OK; i++)
        st = as->wait(u->stream[i], u->ev_start);
    return st;
}

/* Waits for every pull stream, failed or not: nothing may still read or write after.  \return the first error. */
static int queue_wait(pa_mpi__dplan *p)
{
    int st = PA_OK;
    for (int i = 0; i < PULL_STREAMS; i++) {
        int wst = p->pulls->stream[i] ? pa__stream_wait(p->pulls->stream[i]) : PA_OK;
        st = st != PA_OK ? st : wst;
    }
    return st;
}

/* Queues the k-th pull (each process starts at a different peer, q = rank + k): the block at element sbase of
 * from into element dbase of dst, by plan, or one device copy where the plan is NULL (both sides dense). */
static int pull_one(pa_mpi__dplan *p, int k, const pa__plan *plan, void *dst, int64_t dbase, const void *from,
                    int64_t sbase)
{
    pa_mpi__pulls *u = p->pulls;
    void *s = u->stream[k % (p->nprocs < PULL_STREAMS ? p->nprocs : PULL_STREAMS)];
    if (plan)
        return pa__plan_exec_async(plan, dst, dbase, from, sbase, s);
    return u->as->copy((char *)dst + pa__bytes(dbase, p->elm), (const char *)from + pa__bytes(sbase, p->elm),
                       (size_t)p->blk * p->elm, s);
}

/* Every peer's block for this process, unpacked straight out of its mapped send buffer (queued on the pull
 * streams), then waited for.  \return PA_OK or the first error. */
static int pull_all(pa_mpi__dplan *p, void *dst)
{
    pa_mpi__pulls *u = p->pulls;
    int st = queue_start(p);
    size_t bytes = (size_t)p->blk * p->elm;
    for (int k = 0; k < p->nprocs && st == PA_OK; k++) {
        int q = (p->rank + k) % p->nprocs;
        const char *from = (const char *)p->peer_sbuf[q] + (size_t)p->rank * bytes;
        st = pull_one(p, k, u->recv[q].plan, dst, u->recv[q].base, from, 0);
    }
    int wst = queue_wait(p);
    return st != PA_OK ? st : wst;
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


/* ---- the direct form ---------------------------------------------------------------------------------------- */

/* Sets up the direct form (collective, at the first run, on every process whatever its plan holds): every process
 * tells every other the layout of its block for it in its source array; each makes one plan per peer from that
 * layout into its own block's.  The form is refused on every process (p->peer_direct -1) unless every process has
 * the pulls, every block of every process is one affine layout, and every plan was made; a refusal is not an
 * error (the packed pulls run). */
static void direct_setup(pa_mpi__dplan *p, MPI_Comm comm)
{
    static atomic_int warned;
    pa_mpi__pulls *u = p->pulls;
    int n = p->nprocs, want = u && p->send_mem && p->send_mem->ipc_base && p->nsend == (int64_t)n * p->blk &&
                                 pa__env_choice("PA_MPI_PULLS", pull_words, 3, 2, &warned) == 2;
    size_t wsz = sizeof(struct block_layout);
    struct block_layout *out = calloc((size_t)n, wsz), *in = calloc((size_t)n, wsz);
    if (u) {
        u->dplan = calloc((size_t)n, sizeof *u->dplan);
        u->dbase = calloc((size_t)n, sizeof *u->dbase);
        u->sbase = calloc((size_t)n, sizeof *u->sbase);
        u->wire = calloc((size_t)n, sizeof *u->wire);
        u->mapped = calloc((size_t)n, sizeof *u->mapped);
        u->entry = calloc((size_t)n, sizeof *u->entry);
        want = want && u->dplan && u->dbase && u->sbase && u->wire && u->mapped && u->entry;
    }
    int ok = 0;
    if (pa_mpi__all_ok(out && in, comm)) {   /* every process can take part in the exchange */
        for (int r = 0; want && r < n; r++) {   /* this process's block for r, in its source array */
            out[r].ok = pa__layout_slice(&p->send_l, (int64_t)r * p->blk, p->blk, &out[r].l) && out[r].l.affine;
            for (int m = 0; out[r].ok && m < out[r].l.nmodes; m++)
                out[r].l.modes[m].table = NULL;   /* affine: no tables, and no pointers cross */
        }
        /* every process takes part, wanting the form or not (its blocks then say no) */
        int xst = pa_mpi__check(MPI_Alltoall(out, (int)wsz, MPI_BYTE, in, (int)wsz, MPI_BYTE, comm), "MPI_Alltoall");
        ok = want && xst == PA_OK;
        for (int q = 0; ok && q < n; q++) {
            pa__layout mine, theirs = in[q].l;
            if (!in[q].ok || !theirs.affine || theirs.size != p->blk ||
                !pa__layout_slice(&p->recv_l, (int64_t)q * p->blk, p->blk, &mine)) {
                ok = 0;
                break;
            }
            u->dbase[q] = mine.base;
            u->sbase[q] = theirs.base;
            mine.base = theirs.base = 0;
            if (!(pa__layout_contiguous(&mine) && pa__layout_contiguous(&theirs)))
                ok = pa__plan_get(&mine, &theirs, p->elm, p->recv_mem, p->send_mem, &u->dplan[q]) == PA_OK;
        }
        ok = pa_mpi__all_ok(ok, comm);
    }
    free(out);
    free(in);
    p->peer_direct = ok ? 1 : -1;
}

/* 1 when the bytes this process's copy reads overlap those it writes (an in-place redistribution). */
static int overlapping(const pa_mpi__dplan *p, const void *dst, const void *src)
{
    int64_t slo, shi, rlo, rhi;
    pa__layout_extent(&p->send_l, &slo, &shi);
    pa__layout_extent(&p->recv_l, &rlo, &rhi);
    const char *s0 = (const char *)src + pa__bytes(slo, p->elm), *s1 = (const char *)src + pa__bytes(shi + 1, p->elm);
    const char *d0 = (const char *)dst + pa__bytes(rlo, p->elm), *d1 = (const char *)dst + pa__bytes(rhi + 1, p->elm);
    return p->nsend > 0 && p->nrecv > 0 && s0 < d1 && d0 < s1;
}

/* One direct run (collective): every process waits for its earlier work, exports its source array and gathers the
 * others'; unless some process cannot (an export refused, a copy in place), every process maps the others' arrays,
 * pulls every block straight from where it is, and the processes meet again before any array may change.
 * *done 0 (on every process alike): nothing was moved, the packed pulls must run.  \return PA_OK or an error. */
static int direct_run(pa_mpi__dplan *p, MPI_Comm comm, void *dst, const void *src, int *done)
{
    pa_mpi__pulls *u = p->pulls;
    const pa__mem_ops *m = p->send_mem;
    int n = p->nprocs, me = p->rank;
    struct source mine = {0};
    const void *base = NULL;
    *done = 0;
    /* the caller's earlier work on the legacy stream (the source written, the destination free) */
    mine.ok = pa__stream_wait(NULL) == PA_OK && !overlapping(p, dst, src) && m->ipc_base(src, &base) == PA_OK &&
              m->ipc_export(base, mine.handle) == PA_OK;
    mine.off = mine.ok ? (const char *)src - (const char *)base : 0;
    int st = pa_mpi__check(MPI_Allgather(&mine, (int)sizeof mine, MPI_BYTE, u->wire, (int)sizeof mine, MPI_BYTE,
                                         comm), "MPI_Allgather");
    if (st != PA_OK)
        return st;
    for (int q = 0; q < n; q++)
        if (!u->wire[q].ok)
            return PA_OK;   /* every process saw the same: the packed pulls run */
    int mapped = 1;
    for (int q = 0; q < n; q++) {
        u->mapped[q] = NULL;
        u->entry[q] = -1;
        if (q != me && mapped)
            mapped = pa_mpi__ipc_acquire(m, u->wire[q].handle, &u->mapped[q], &u->entry[q]) == PA_OK;
    }
    if (pa_mpi__all_ok(mapped, comm)) {
        *done = 1;
        if ((st = queue_start(p)) == PA_OK)
            for (int k = 0; k < n && st == PA_OK; k++) {
                int q = (me + k) % n;
                const char *from = q == me ? (const char *)src : (const char *)u->mapped[q] + u->wire[q].off;
                st = pull_one(p, k, u->dplan[q], dst, u->dbase[q], from, u->sbase[q]);
            }
        int wst = queue_wait(p);
        st = st != PA_OK ? st : wst;
    }
    for (int q = 0; q < n; q++)
        pa_mpi__ipc_release(m, u->mapped[q], u->entry[q]);
    if (*done) {   /* every block read: the arrays may change */
        int bst = pa_mpi__check(MPI_Barrier(comm), "MPI_Barrier");
        st = st != PA_OK ? st : bst;
    }
    return st;
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
    if (p->peer_direct == 0)   /* the first run, on every process */
        direct_setup(p, comm);
    if (p->peer_direct == 1) {
        int done;
        st = direct_run(p, comm, dst, src, &done);
        if (done || st != PA_OK)
            return st;
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
