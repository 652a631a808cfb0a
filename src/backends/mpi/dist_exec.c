/*
 * parray — running a distributed-copy plan: pack what this rank sends (unless it is contiguous in the user's
 * array), make the MPI call the plan's pattern maps to, unpack what it received.  Every rank of the
 * communicator calls it for the collective kinds; for send/recv and local copies the uninvolved ranks return
 * at once.  A plan that packs nothing and is not timed (p->direct) goes straight to its MPI call
 * (pa_mpi__direct_run): a 1 KiB all-to-all costs MPI about 1.2-1.6 us on one host, and the steps that such a
 * plan skips (the route and own-block tests, the buffer choices, the timing branches) were a few per cent of it.
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
        *out = (const char *)src + p->send_off;
        return PA_OK;
    }
    *out = p->sbuf;
    return pa__plan_exec(p->pack, p->sbuf, 0, src, p->send_base);
}

static void *recv_buffer(const pa_mpi__dplan *p, void *dst)
{
    if (p->nrecv == 0)
        return NULL;
    return p->recv_direct ? (char *)dst + p->recv_off : p->rbuf;
}

static int unpack(const pa_mpi__dplan *p, void *dst)
{
    if (p->nrecv == 0 || p->recv_direct)
        return PA_OK;
    return pa__plan_exec(p->unpack, dst, p->recv_base, p->rbuf, 0);
}

/* pa_mpi__check without the call when MPI succeeded. */
static inline int checked(int rc, const char *call)
{
    return rc == MPI_SUCCESS ? PA_OK : pa_mpi__check(rc, call);
}

/* The plan's MPI call from sb into rb (either NULL where this rank sends or receives nothing). */
static int mpi_call(const pa_mpi__dplan *p, MPI_Comm comm, const void *sb, void *rb)
{
    int n = p->count;
    switch (p->kind) {
    case PA_MPI__SENDRECV:
        if (p->rank == p->src_root)
            return checked(MPI_Send(sb, n, p->etype, p->dst_root, 0, comm), "MPI_Send");
        if (p->rank == p->dst_root)
            return checked(MPI_Recv(rb, n, p->etype, p->src_root, 0, comm, MPI_STATUS_IGNORE), "MPI_Recv");
        return PA_OK;
    case PA_MPI__SCATTER:
        return checked(MPI_Scatter(sb, n, p->etype, rb, n, p->etype, p->src_root, comm), "MPI_Scatter");
    case PA_MPI__GATHER:
        return checked(MPI_Gather(sb, n, p->etype, rb, n, p->etype, p->dst_root, comm), "MPI_Gather");
    case PA_MPI__ALLTOALL:
        return checked(MPI_Alltoall(sb, n, p->etype, rb, n, p->etype, comm), "MPI_Alltoall");
    default:
        return checked(MPI_Alltoallv(sb, p->scount, p->sdispl, p->etype, rb, p->rcount, p->rdispl,
                                     p->etype, comm), "MPI_Alltoallv");
    }
}

int pa_mpi__direct_run(const pa_mpi__dplan *p, MPI_Comm comm, void *dst, const void *src)
{
    return mpi_call(p, comm, p->nsend ? (const char *)src + p->send_off : NULL,
                    p->nrecv ? (char *)dst + p->recv_off : NULL);
}

int pa_mpi__direct_possible(const pa_mpi__dplan *p)
{
    return p->kind != PA_MPI__LOCAL && p->route == PA_MPI__ROUTE_HOST && !p->timed && !p->self &&
           (p->send_direct || p->nsend == 0) && (p->recv_direct || p->nrecv == 0) && !p->sbuf && !p->rbuf;
}

/* Send/recv: the uninvolved ranks return at once (mpi_call), the sender packs, the receiver unpacks. */
static int run_sendrecv(const pa_mpi__dplan *p, MPI_Comm comm, void *dst, const void *src)
{
    const void *sb = NULL;
    int st;
    if (p->rank == p->src_root && (st = send_buffer(p, src, &sb)) != PA_OK)
        return st;
    st = mpi_call(p, comm, sb, p->rank == p->dst_root ? recv_buffer(p, dst) : NULL);
    return st != PA_OK || p->rank != p->dst_root ? st : unpack(p, dst);
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
    st = mpi_call(p, comm, sb, rb);
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
        if (p->route == PA_MPI__ROUTE_NCCL)   /* may remake the plan (its first run), under the plan's lock */
            return pa_mpi__nccl_run((pa_mpi__dplan *)p, comm, dst, src, t);
        return run_sendrecv(p, comm, dst, src);
    default:
        if (p->route == PA_MPI__ROUTE_NCCL)
            return pa_mpi__nccl_run((pa_mpi__dplan *)p, comm, dst, src, t);
        if (p->route == PA_MPI__ROUTE_PEER)   /* may remake the plan (its first run), under the plan's lock */
            return pa_mpi__peer_run((pa_mpi__dplan *)p, comm, dst, src);
        if (p->route == PA_MPI__ROUTE_SHM)    /* the same */
            return pa_mpi__shm_run((pa_mpi__dplan *)p, comm, dst, src, t);
        return run_collective(p, comm, dst, src, t);
    }
}
