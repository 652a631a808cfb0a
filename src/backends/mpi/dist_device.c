/*
 * parray — distributed copies of arrays in device memory (dmem sides), and the buffers every distributed copy
 * hands to MPI.
 *
 * A side in device memory is packed and unpacked by copy plans of the core's planner (which picks the CUDA
 * backend's strategies for them: this backend never calls CUDA), into buffers whose memory depends on the
 * route, chosen once per plan at run time:
 *  - "device buffers to MPI" where MPI moves device memory (Open MPI built with CUDA: MPIX_Query_cuda_support()
 *    says so at run time); a contiguous device side is then handed to MPI in place, others are packed on the
 *    GPU into a device buffer;
 *  - "pulls from the processes' device send buffers" for an all-to-all whose processes share one host
 *    (dist_peer.c): each process reads its blocks out of the others' packed send buffers, unpacking as it
 *    reads (PA_MPI_PEER=0 turns it off);
 *  - "NCCL between the processes' GPUs" (dist_nccl.c) where both sides are dmem and NCCL is there;
 *  - "staged through pinned host buffers" otherwise: the pack plan moves the device side into a pinned buffer
 *    (the layout change happens on the GPU, then one DMA), MPI moves host memory, the unpack plan moves the
 *    pinned buffer back into the device side.
 * The route is chosen by cost (dist_route.c); PA_MPI_ROUTE names one, and PA_MPI_CUDA_AWARE=1 forces the device
 * route (for MPI libraries whose support cannot be asked).  Host sides keep their own path (in place when
 * contiguous, else malloc'd buffers and host copy plans).
 */
#include <stdlib.h>
#include <string.h>

#include "layout_slice.h"
#include "mpi_backend.h"

#if defined(OPEN_MPI) && OPEN_MPI
#include <mpi-ext.h>
#endif

const pa__mem_ops *pa_mpi__device_memory(const pa__dist_split *s)
{
    const pa__mem_ops *ops = strcmp(s->memory_mtt, "any") ? pa__mem_find(s->memory_mtt) : NULL;
    return ops && !ops->host_accessible && strcmp(ops->name, "dmem") == 0 ? ops : NULL;
}

int pa_mpi__cuda_aware(void)
{
    const char *env = getenv("PA_MPI_CUDA_AWARE");
    if (env && *env)
        return strcmp(env, "0") != 0;
#if defined(OMPI_HAVE_MPI_EXT_CUDA) && OMPI_HAVE_MPI_EXT_CUDA
    return MPIX_Query_cuda_support() == 1;
#else
    return 0;
#endif
}

const char *pa_mpi__route_name(pa_mpi__route r)
{
    static const char *const names[] = {"host memory", "device buffers to MPI (CUDA-aware MPI)",
                                        "device memory staged through pinned host buffers",
                                        "pulls from the processes' device send buffers (peer, one host)",
                                        "shared memory: packed by the senders, unpacked by the receivers (one host)",
                                        "NCCL between the processes' GPUs"};
    return names[r];
}

/* One side's MPI buffer: malloc'd for host sides, else from the route's allocator. */
static int buffer_alloc(pa_mpi__dplan *p, int which, int64_t n)
{
    size_t bytes = (size_t)n * p->elm;
    const pa__mem_ops *ops = p->buf_mem[which];
    char **buf = which ? &p->rbuf : &p->sbuf;
    if (!ops) {
        if (!(*buf = malloc(bytes)))
            return pa__err(PA_ERR_NOMEM, "distributed copy: no memory for a %s buffer of %lld elements",
                           which ? "receive" : "send", (long long)n);
        return PA_OK;
    }
    pa_mem_opts o;
    pa_mem_opts_init(&o);
    void *ptr = NULL;
    int st = ops->alloc(bytes, &o, &ptr, &p->buf_cookie[which]);
    if (st != PA_OK)
        return pa__err_wrap(st, "distributed copy: a %s buffer of %lld elements in %s memory",
                            which ? "receive" : "send", (long long)n, ops->name);
    *buf = ptr;
    return PA_OK;
}

void pa_mpi__buffers_free(pa_mpi__dplan *p)
{
    char *bufs[2] = {p->sbuf, p->rbuf};
    for (int w = 0; w < 2; w++) {
        if (bufs[w] && p->buf_mem[w])
            p->buf_mem[w]->free(bufs[w], (size_t)(w ? p->nrecv : p->nsend) * p->elm, p->buf_cookie[w]);
        else
            free(bufs[w]);
    }
    p->sbuf = p->rbuf = NULL;
}

/* Where one side's buffer lives: NULL (malloc) for a host side, pinned or dmem for a device side. */
static int buffer_memory(pa_mpi__dplan *p, int which)
{
    const pa__mem_ops *side = which ? p->recv_mem : p->send_mem;
    p->buf_mem[which] = NULL;
    if (!side)
        return PA_OK;
    p->buf_mem[which] = p->route == PA_MPI__ROUTE_DEVICE || p->route == PA_MPI__ROUTE_PEER ||
                        p->route == PA_MPI__ROUTE_NCCL ? side
                                                                                        : pa__mem_find("pinned");
    if (!p->buf_mem[which])
        return pa__err(PA_ERR_NODEV, "distributed copy of device memory: this build has no pinned memory to "
                       "stage it through");
    return PA_OK;
}

int pa_mpi__buffer_plans(pa_mpi__dplan *p)
{
    pa__layout dense;
    int st;
    int device = p->send_mem || p->recv_mem;
    if (p->kind == PA_MPI__LOCAL)   /* with a device side, the host side's memory matters too (pinned DMA) */
        return p->rank == p->src_root ? pa__plan_get(&p->recv_l, &p->send_l, p->elm, device ? p->recv_ops : NULL,
                                                     device ? p->send_ops : NULL, &p->local) : PA_OK;
    p->route = !device ? (pa_mpi__shm_possible(p) ? PA_MPI__ROUTE_SHM : PA_MPI__ROUTE_HOST)
                       : pa_mpi__route_choose(p);   /* dist_route.c */
    if ((st = buffer_memory(p, 0)) != PA_OK || (st = buffer_memory(p, 1)) != PA_OK)
        return st;
    if (p->route == PA_MPI__ROUTE_SHM)   /* the segments are made at the first run, the block plans after this */
        return PA_OK;
    /* a side is handed to MPI in place when it is contiguous and MPI can read its memory */
    p->send_direct = pa_mpi__contiguous(&p->send_l) && !(p->send_mem && p->route == PA_MPI__ROUTE_STAGED) &&
                     p->route != PA_MPI__ROUTE_PEER;   /* peers read the plan's own (shared) send buffer */
    p->recv_direct = pa_mpi__contiguous(&p->recv_l) && !(p->recv_mem && p->route == PA_MPI__ROUTE_STAGED);
    if (p->nsend > 0 && !p->send_direct) {
        dense = pa__layout_dense(p->nsend);
        if ((st = pa__plan_get(&dense, &p->send_l, p->elm, p->buf_mem[0], p->send_mem, &p->pack)) != PA_OK ||
            (st = buffer_alloc(p, 0, p->nsend)) != PA_OK)
            return st;
    }
    if (p->route == PA_MPI__ROUTE_PEER && (st = pa_mpi__peer_prepare(p)) != PA_OK)   /* dist_peer.c */
        return st;
    if (p->nrecv > 0 && !p->recv_direct && !p->pulls) {   /* the pulls unpack as they read */
        dense = pa__layout_dense(p->nrecv);
        if ((st = pa__plan_get(&p->recv_l, &dense, p->elm, p->recv_mem, p->buf_mem[1], &p->unpack)) != PA_OK ||
            (st = buffer_alloc(p, 1, p->nrecv)) != PA_OK)
            return st;
    }
    return p->route == PA_MPI__ROUTE_NCCL ? pa_mpi__nccl_prepare(p) : PA_OK;   /* dist_nccl.c */
}
