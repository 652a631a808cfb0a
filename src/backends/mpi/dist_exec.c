/*
 * parray — running a distributed-copy plan: pack what this rank sends (unless it is contiguous in the user's
 * array), make the MPI call the plan's pattern maps to, unpack what it received.  Every rank of the
 * communicator calls it for the collective kinds; for send/recv and local copies the uninvolved ranks return
 * at once.
 */
#include <time.h>

#include "mpi_backend.h"

double pa_mpi__clock(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* The buffer MPI sends from: the user's array at the first element when direct, else the packed buffer. */
static int send_buffer(const pa_mpi__dplan *p, const void *src, const void **out)
{
    *out = NULL;
    if (p->nsend == 0)
        return PA_OK;
    if (p->send_direct) {
        *out = (const char *)src + pa__bytes(p->send_base, p->elm);
        return PA_OK;
    }
    *out = p->sbuf;
    return pa__plan_exec(p->pack, p->sbuf, 0, src, p->send_base);
}

static void *recv_buffer(const pa_mpi__dplan *p, void *dst)
{
    if (p->nrecv == 0)
        return NULL;
    return p->recv_direct ? (char *)dst + pa__bytes(p->recv_base, p->elm) : p->rbuf;
}

static int unpack(const pa_mpi__dplan *p, void *dst)
{
    if (p->nrecv == 0 || p->recv_direct)
        return PA_OK;
    return pa__plan_exec(p->unpack, dst, p->recv_base, p->rbuf, 0);
}

static int run_sendrecv(const pa_mpi__dplan *p, MPI_Comm comm, void *dst, const void *src)
{
    const void *sb;
    int st;
    int count = (int)(p->blk * p->scale);
    if (p->rank == p->src_root) {
        if ((st = send_buffer(p, src, &sb)) != PA_OK)
            return st;
        return pa_mpi__check(MPI_Send(sb, count, p->etype, p->dst_root, 0, comm), "MPI_Send");
    }
    if (p->rank == p->dst_root) {
        st = pa_mpi__check(MPI_Recv(recv_buffer(p, dst), count, p->etype, p->src_root, 0, comm,
                                    MPI_STATUS_IGNORE), "MPI_Recv");
        return st != PA_OK ? st : unpack(p, dst);
    }
    return PA_OK;
}

/* The collectives: every rank packs (where it sends), calls MPI, unpacks (where it receives); an all-to-all
 * whose own block can be copied in place does that instead (dist_self.c). */
static int run_collective(const pa_mpi__dplan *p, MPI_Comm comm, void *dst, const void *src, pa_mpi__times *t)
{
    const void *sb;
    if (pa_mpi__self_usable(p, dst, src))
        return pa_mpi__self_run(p, comm, dst, src, t);
    /* clock_gettime only for timed plans: three calls cost a tenth of a 1 KiB all-to-all */
    double t0 = t ? pa_mpi__clock() : 0;
    int st = send_buffer(p, src, &sb);
    if (st != PA_OK)
        return st;
    void *rb = recv_buffer(p, dst);
    double t1 = t ? pa_mpi__clock() : 0;
    int blk = (int)(p->blk * p->scale);
    switch (p->kind) {
    case PA_MPI__SCATTER:
        st = pa_mpi__check(MPI_Scatter(sb, blk, p->etype, rb, blk, p->etype, p->src_root, comm), "MPI_Scatter");
        break;
    case PA_MPI__GATHER:
        st = pa_mpi__check(MPI_Gather(sb, blk, p->etype, rb, blk, p->etype, p->dst_root, comm), "MPI_Gather");
        break;
    case PA_MPI__ALLTOALL:
        st = pa_mpi__check(MPI_Alltoall(sb, blk, p->etype, rb, blk, p->etype, comm), "MPI_Alltoall");
        break;
    default:
        st = pa_mpi__check(MPI_Alltoallv(sb, p->scount, p->sdispl, p->etype, rb, p->rcount, p->rdispl,
                                         p->etype, comm), "MPI_Alltoallv");
        break;
    }
    double t2 = t ? pa_mpi__clock() : 0;
    if (st == PA_OK)
        st = unpack(p, dst);
    if (t) {
        t->pack += t1 - t0;
        t->mpi += t2 - t1;
        t->unpack += pa_mpi__clock() - t2;
    }
    return st;
}

int pa_mpi__dplan_exec(const pa_mpi__dplan *p, MPI_Comm comm, void *dst, const void *src, pa_mpi__times *t)
{
    switch (p->kind) {
    case PA_MPI__LOCAL:
        if (p->rank != p->src_root)
            return PA_OK;
        return pa__plan_exec(p->local, dst, p->recv_base, src, p->send_base);
    case PA_MPI__SENDRECV:
        return run_sendrecv(p, comm, dst, src);
    default:
        if (p->route == PA_MPI__ROUTE_PEER)   /* may remake the plan (its first run), under the plan's lock */
            return pa_mpi__peer_run((pa_mpi__dplan *)p, comm, dst, src);
        if (p->route == PA_MPI__ROUTE_SHM)    /* the same */
            return pa_mpi__shm_run((pa_mpi__dplan *)p, comm, dst, src, t);
        return run_collective(p, comm, dst, src, t);
    }
}
