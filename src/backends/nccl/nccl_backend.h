/*
 * parray — the NCCL backend's internal declarations: NCCL loaded at run time (nccl_lib.c), communicators and
 * groups of transfers (nccl_comm.c), the CUDA streams and events around them (nccl_stream.c).  Included only by
 * the files of src/backends/nccl.
 */
#ifndef PARRAY_NCCL_BACKEND_H
#define PARRAY_NCCL_BACKEND_H

#include <cuda_runtime.h>
#include <nccl.h>

#include "backends.h"
#include "internal.h"

/* The NCCL calls parray makes, resolved from libnccl.so.2 at the first use (the library links no NCCL, so it
 * loads and runs where NCCL is absent; the NCCL route then says why it is not taken). */
typedef struct pa_nccl__lib {
    ncclResult_t (*get_version)(int *version);
    ncclResult_t (*get_unique_id)(ncclUniqueId *id);
    ncclResult_t (*comm_init_rank)(ncclComm_t *comm, int nranks, ncclUniqueId id, int rank);
    ncclResult_t (*comm_destroy)(ncclComm_t comm);
    ncclResult_t (*comm_abort)(ncclComm_t comm);
    ncclResult_t (*group_start)(void);
    ncclResult_t (*group_end)(void);
    ncclResult_t (*send)(const void *buf, size_t count, ncclDataType_t type, int peer, ncclComm_t comm,
                         cudaStream_t stream);
    ncclResult_t (*recv)(void *buf, size_t count, ncclDataType_t type, int peer, ncclComm_t comm,
                         cudaStream_t stream);
    const char *(*error_string)(ncclResult_t r);
    const char *(*last_error)(ncclComm_t comm);
    int version;               /* NCCL_VERSION_CODE of the library loaded */
    char path[256];            /* where it was loaded from */
} pa_nccl__lib;

/** NCCL, loaded once (thread-safe).  \return the calls, or NULL with why (a sentence) in *why. */
const pa_nccl__lib *pa_nccl__load(const char **why);
/** A failed NCCL call as PA_ERR_SYS with NCCL's words and what was done.  \return PA_ERR_SYS. */
int pa_nccl__fail(ncclResult_t r, ncclComm_t comm, const char *what);
/** A failed CUDA call likewise.  \return PA_ERR_SYS (PA_ERR_NODEV when there is no usable GPU). */
int pa_nccl__cuda_fail(cudaError_t e, const char *what);

/** The backend's probe: 1 when NCCL loads (why says which version, or why not). */
int pa_nccl__probe(char *why, size_t len);

/** The device collectives (nccl_comm.c with nccl_stream.c's streams). */
extern const pa__devcomm_ops pa_nccl__devcomm;

/* nccl_comm.c */
int pa_nccl__make_id(void *id);
int pa_nccl__comm_init(const void *id, int rank, int nranks, void **comm);
void pa_nccl__comm_free(void *comm);
int pa_nccl__device_key(char *buf, size_t len);
int pa_nccl__current(int *dev);
int pa_nccl__group(void *comm, const pa__xfer *sends, int nsends, const pa__xfer *recvs, int nrecvs, void *stream);

/* nccl_stream.c */
int pa_nccl__stream_new(void **stream, int urgent);
void pa_nccl__stream_free(void *stream);
int pa_nccl__event_new(void **event);
void pa_nccl__event_free(void *event);
int pa_nccl__record(void *event, void *stream);
int pa_nccl__wait(void *stream, void *event);
int pa_nccl__sync(void *stream);
int pa_nccl__copy(void *dst, const void *src, size_t bytes, void *stream);

#endif
