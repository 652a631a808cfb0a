/*
 * parray — the block an all-to-all rank sends to itself, copied in place rather than through MPI.
 *
 * In an all-to-all (every pair exchanges blk elements) rank r's block r never leaves the process, yet the plain
 * run packs it, hands it to MPI (which copies it once more) and unpacks it: three passes over 1/P of the data,
 * and for a device side staged through pinned memory, two trips over PCIe.  Where both of this rank's layouts
 * split into blocks of blk elements (an affine layout whose inner modes multiply to blk, a mode split in two
 * where needed), the plan gets (the shared-memory route, dist_shm.c, runs on the block plans too):
 *  - a self plan: block r of the send layout straight into block r of the receive layout (one copy, on the GPU
 *    when both sides are there);
 *  - block pack and unpack plans, run once per other rank with that block's base, so that only the blocks that
 *    leave the process are packed and unpacked;
 *  - MPI_Alltoallv counts with the own block zeroed.
 * A copy whose source and destination bytes overlap (an all-to-all in place) takes the plain run, which reads
 * the whole source before writing anything; so does one of host arrays that MPI sends from and receives into in
 * place (nothing to pack: MPI_Alltoall copies the own block itself, and costs less per call than the Alltoallv).  PA_MPI_SELF=0 turns this off (for comparisons).
 */
#include <stdlib.h>
#include <string.h>

#include "mpi_backend.h"

#define SELF_MIN_BYTES ((int64_t)16 << 10)   /* own blocks smaller than this go through MPI (host memory) */

/*
 * The layout of one block of l's index space (blocks of blk consecutive indices), relative to the block's first
 * element: l's inner modes whose sizes multiply to blk, the outermost of them split where blk falls inside it.
 * \return 1, or 0 when l is gathered or blk does not fall on such a boundary.
 */
static int block_layout(const pa__layout *l, int64_t blk, pa__layout *out)
{
    pa__mode modes[PA__MAX_MODES];
    int n = 0;
    int64_t prod = 1;
    if (!l->affine || blk < 1)
        return 0;
    for (int m = l->nmodes - 1; m >= 0 && prod < blk; m--) {
        const pa__mode *md = &l->modes[m];
        int64_t take = md->size;
        if (prod * take > blk) {   /* blk falls inside this mode: its inner part only */
            if (blk % prod || md->size % (blk / prod))
                return 0;
            take = blk / prod;
        }
        modes[n++] = (pa__mode){.size = take, .stride = md->stride};
        prod *= take;
    }
    if (prod != blk)
        return 0;
    memset(out, 0, sizeof *out);
    out->size = blk;
    out->affine = 1;
    out->nmodes = n;
    for (int i = 0; i < n; i++) {   /* collected innermost first */
        out->modes[i] = modes[n - 1 - i];
        int64_t span = (modes[n - 1 - i].size - 1) * modes[n - 1 - i].stride;
        if (span < 0)
            out->min_off += span;
        else
            out->max_off += span;
    }
    return 1;
}

/* The lowest and highest element offset an affine layout reaches. */
static void extent(const pa__layout *l, int64_t *lo, int64_t *hi)
{
    *lo = *hi = l->base;
    for (int m = 0; m < l->nmodes; m++) {
        int64_t span = (l->modes[m].size - 1) * l->modes[m].stride;
        *(span < 0 ? lo : hi) += span;
    }
}

int pa_mpi__self_blocks(const pa_mpi__dplan *p)
{
    pa__layout b;
    return p->kind == PA_MPI__ALLTOALL && block_layout(&p->send_l, p->blk, &b) && block_layout(&p->recv_l, p->blk, &b);
}

int pa_mpi__self_plans(pa_mpi__dplan *p)
{
    static atomic_int warned;
    pa__layout sb, rb, dense;
    int st, device = p->send_mem || p->recv_mem;
    int off = !pa_mpi__env_on("PA_MPI_SELF", &warned), shm = p->route == PA_MPI__ROUTE_SHM;
    /* Small blocks in host memory: MPI_Alltoall moves the own block for less than MPI_Alltoallv costs over it
     * (1 KiB per pair on the H100's host, 4 ranks: 0.86-0.91 of MPI_Alltoall with the own block in place,
     * 0.95-1.0 without; docs/gpu-results.md).  Host arrays sent and received in place, of any size: nothing is
     * packed, and MPI_Alltoall copies the own block once, as the self plan would (2 ranks, 1 KiB: 2.1 us with
     * the own block in place against MPI_Alltoall's 1.6; docs/gpu-results.md, 2026-11-26). */
    int small = !shm && !device && pa__bytes(p->blk, p->elm) < SELF_MIN_BYTES;
    int in_place = !shm && !device && p->send_direct && p->recv_direct;
    if ((off && !shm) || small || in_place || p->kind != PA_MPI__ALLTOALL || p->route == PA_MPI__ROUTE_PEER || p->route == PA_MPI__ROUTE_NCCL ||
        p->nprocs < 2 || p->blk < 1 || !block_layout(&p->send_l, p->blk, &sb) || !block_layout(&p->recv_l, p->blk, &rb))
        return PA_OK;   /* the plain run */
    memset(&dense, 0, sizeof dense);
    dense.size = p->blk;
    dense.nmodes = 1;
    dense.affine = 1;
    dense.max_off = p->blk - 1;
    dense.modes[0] = (pa__mode){.size = p->blk, .stride = 1};
    /* the shared-memory route (dist_shm.c) needs the block plans; with PA_MPI_SELF=0 it gets no self plan */
    if (!off && (st = pa__plan_get(&rb, &sb, p->elm, device ? p->recv_ops : NULL, device ? p->send_ops : NULL,
                                   &p->self)) != PA_OK)
        return st;
    if (!p->send_direct && (st = pa__plan_get(&dense, &sb, p->elm, p->buf_mem[0], p->send_mem, &p->blk_pack)) != PA_OK)
        return st;
    if (!p->recv_direct &&
        (st = pa__plan_get(&rb, &dense, p->elm, p->recv_mem, p->buf_mem[1], &p->blk_unpack)) != PA_OK)
        return st;
    int n = p->nprocs;
    if (!(p->xcount = calloc((size_t)n * 2, sizeof(int))))
        return pa__err(PA_ERR_NOMEM, "distributed copy: no memory for the counts of %d processes", n);
    memcpy(p->xcount, p->scount, (size_t)n * sizeof(int));
    memcpy(p->xcount + n, p->rcount, (size_t)n * sizeof(int));
    p->xcount[p->rank] = p->xcount[n + p->rank] = 0;
    p->send_boff = pa__layout_offset(&p->send_l, p->rank * p->blk);
    p->recv_boff = pa__layout_offset(&p->recv_l, p->rank * p->blk);
    extent(&p->send_l, &p->send_lo, &p->send_hi);
    extent(&p->recv_l, &p->recv_lo, &p->recv_hi);
    return PA_OK;
}

void pa_mpi__self_free(pa_mpi__dplan *p)
{
    pa__plan_unref(p->self);
    pa__plan_unref(p->blk_pack);
    pa__plan_unref(p->blk_unpack);
    free(p->xcount);
    p->self = p->blk_pack = p->blk_unpack = NULL;
    p->xcount = NULL;
}

int pa_mpi__self_usable(const pa_mpi__dplan *p, const void *dst, const void *src)
{
    if (!p->self)
        return 0;
    const char *s0 = (const char *)src + pa__bytes(p->send_lo, p->elm);
    const char *s1 = (const char *)src + pa__bytes(p->send_hi + 1, p->elm);
    const char *d0 = (const char *)dst + pa__bytes(p->recv_lo, p->elm);
    const char *d1 = (const char *)dst + pa__bytes(p->recv_hi + 1, p->elm);
    return d1 <= s0 || s1 <= d0;
}

/* Runs block q's plan with the block's bases: pack (into the send buffer) or unpack (out of the receive one). */
static int block_run(const pa_mpi__dplan *p, int q, int unpack, void *dst, const void *src)
{
    int64_t at = (int64_t)q * p->blk;
    if (unpack)
        return pa__plan_exec(p->blk_unpack, dst, pa__layout_offset(&p->recv_l, at), p->rbuf + pa__bytes(at, p->elm), 0);
    return pa__plan_exec(p->blk_pack, p->sbuf + pa__bytes(at, p->elm), 0, src, pa__layout_offset(&p->send_l, at));
}

int pa_mpi__self_run(const pa_mpi__dplan *p, MPI_Comm comm, void *dst, const void *src, pa_mpi__times *t)
{
    int n = p->nprocs, me = p->rank, st = PA_OK;
    double t0 = t ? pa_mpi__clock() : 0;
    for (int q = 0; q < n && st == PA_OK; q++)   /* the blocks that leave this process */
        if (q != me && !p->send_direct)
            st = block_run(p, q, 0, NULL, src);
    double t1 = t ? pa_mpi__clock() : 0;
    if (st == PA_OK)
        st = pa__plan_exec(p->self, dst, p->recv_boff, src, p->send_boff);   /* this process's own block */
    double t2 = t ? pa_mpi__clock() : 0;
    if (st != PA_OK)
        return st;   /* on this rank only: the others then wait in the collective (as for a failed pack) */
    const void *sb = p->send_direct ? (const char *)src + pa__bytes(p->send_base, p->elm) : p->sbuf;
    void *rb = p->recv_direct ? (char *)dst + pa__bytes(p->recv_base, p->elm) : p->rbuf;
    st = pa_mpi__check(MPI_Alltoallv(sb, p->xcount, p->sdispl, p->etype, rb, p->xcount + n, p->rdispl, p->etype,
                                     comm), "MPI_Alltoallv");
    double t3 = t ? pa_mpi__clock() : 0;
    for (int q = 0; q < n && st == PA_OK; q++)
        if (q != me && !p->recv_direct)
            st = block_run(p, q, 1, dst, NULL);
    if (t) {
        t->pack += t1 - t0;
        t->self += t2 - t1;
        t->mpi += t3 - t2;
        t->unpack += pa_mpi__clock() - t3;
    }
    return st;
}
