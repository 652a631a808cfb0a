/*
 * parray — the NCCL backend's description for the core (src/core/backends/backends.h): no memory types or copy
 * strategies of its own, only the device collectives that distributed copies of device memory run on (the MPI
 * backend's NCCL route, src/backends/mpi/dist_nccl.c, and the pthd all-to-all's between the GPUs of one
 * process, src/backends/host/copy/copy_exchange_gpu.c).  PA_BACKENDS=-nccl switches it off; NCCL itself is
 * loaded at the first use (nccl_lib.c).
 */
#include "nccl_backend.h"

const pa__devcomm_ops pa_nccl__devcomm = {
    .id_bytes = sizeof(ncclUniqueId),
    .make_id = pa_nccl__make_id,
    .comm_init = pa_nccl__comm_init,
    .comm_free = pa_nccl__comm_free,
    .device_key = pa_nccl__device_key,
    .current = pa_nccl__current,
    .group = pa_nccl__group,
    .stream_new = pa_nccl__stream_new,
    .stream_free = pa_nccl__stream_free,
    .event_new = pa_nccl__event_new,
    .event_free = pa_nccl__event_free,
    .record = pa_nccl__record,
    .wait = pa_nccl__wait,
    .sync = pa_nccl__sync,
    .copy = pa_nccl__copy,
};

const pa__backend pa__backend_nccl = {
    .name = "nccl",
    .what = "NCCL: distributed copies of device memory between GPUs (NVLink, InfiniBand), loaded at run time",
    .probe = pa_nccl__probe,
    .devcomm = &pa_nccl__devcomm,
};
