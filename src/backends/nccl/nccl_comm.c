/*
 * parray — NCCL communicators and groups of transfers.
 *
 * A communicator joins the GPUs of the processes (or of the threads of one process) that call comm_init with one
 * id (made by one of them and broadcast by the MPI backend, or published to the other threads of a pthd array);
 * each brings the GPU current on its thread.  A group is the sends and
 * receives of one step of a distributed copy, queued together (NCCL then runs them concurrently, every link at
 * once), as bytes.
 */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "nccl_backend.h"

_Static_assert(sizeof(ncclUniqueId) <= 256, "an NCCL id fits the MPI backend's broadcast");

int pa_nccl__make_id(void *id)
{
    const char *why;
    const pa_nccl__lib *l = pa_nccl__load(&why);
    if (!l)
        return pa__err(PA_ERR_NODEV, "NCCL route: %s", why);
    ncclResult_t r = l->get_unique_id((ncclUniqueId *)id);
    return r == ncclSuccess ? PA_OK : pa_nccl__fail(r, NULL, "ncclGetUniqueId");
}

int pa_nccl__comm_init(const void *id, int rank, int nranks, void **out)
{
    const char *why;
    const pa_nccl__lib *l = pa_nccl__load(&why);
    *out = NULL;
    if (!l)
        return pa__err(PA_ERR_NODEV, "NCCL route: %s", why);
    ncclUniqueId uid;
    memcpy(&uid, id, sizeof uid);
    ncclComm_t comm = NULL;
    ncclResult_t r = l->comm_init_rank(&comm, nranks, uid, rank);
    if (r != ncclSuccess) {
        char what[96];
        snprintf(what, sizeof what, "ncclCommInitRank (rank %d of %d)", rank, nranks);
        return pa_nccl__fail(r, comm, what);
    }
    *out = comm;
    return PA_OK;
}

void pa_nccl__comm_free(void *comm)
{
    const pa_nccl__lib *l = pa_nccl__load(NULL);
    if (comm && l)
        l->comm_destroy((ncclComm_t)comm);
}

int pa_nccl__device_key(char *buf, size_t len)
{
    int dev = 0;
    char bus[64] = "", host[128] = "";
    cudaError_t e = cudaGetDevice(&dev);
    if (e == cudaSuccess)
        e = cudaDeviceGetPCIBusId(bus, (int)sizeof bus, dev);
    if (e != cudaSuccess)
        return pa_nccl__cuda_fail(e, "asking which GPU this process uses");
    if (gethostname(host, sizeof host - 1) != 0)
        snprintf(host, sizeof host, "?");
    snprintf(buf, len, "%s/%s", host, bus);
    return PA_OK;
}

int pa_nccl__current(int *dev)
{
    cudaError_t e = cudaGetDevice(dev);
    return e == cudaSuccess ? PA_OK : pa_nccl__cuda_fail(e, "asking which GPU this thread uses");
}

int pa_nccl__group(void *comm, const pa__xfer *sends, int nsends, const pa__xfer *recvs, int nrecvs, void *stream)
{
    const pa_nccl__lib *l = pa_nccl__load(NULL);
    ncclComm_t c = (ncclComm_t)comm;
    cudaStream_t s = (cudaStream_t)stream;
    if (!l)
        return pa__err(PA_ERR_NODEV, "NCCL route: NCCL is not loaded");
    ncclResult_t r = l->group_start();
    if (r != ncclSuccess)
        return pa_nccl__fail(r, c, "ncclGroupStart");
    ncclResult_t first = ncclSuccess;
    const char *what = "ncclSend";
    for (int i = 0; i < nsends && first == ncclSuccess; i++)
        if (sends[i].bytes)
            first = l->send(sends[i].buf, sends[i].bytes, ncclInt8, sends[i].peer, c, s);
    for (int i = 0; i < nrecvs && first == ncclSuccess; i++)
        if (recvs[i].bytes) {
            what = "ncclRecv";
            first = l->recv(recvs[i].buf, recvs[i].bytes, ncclInt8, recvs[i].peer, c, s);
        }
    r = l->group_end();   /* always closed, so that a failed group leaves no group open on this thread */
    if (first != ncclSuccess)
        return pa_nccl__fail(first, c, what);
    return r == ncclSuccess ? PA_OK : pa_nccl__fail(r, c, "ncclGroupEnd");
}
