/*
 * parray — the pthread backend's description for the core (src/core/backends/backends.h): the host memory types, the
 * host copy strategies, copies of arrays distributed over pthd threads, the copy thread limit, and the host
 * copy kernels that other backends' staged copies use.  The host backend cannot be switched off.
 */
#include "backends.h"
#include "copy_host.h"
#include "mem_internal.h"

static const pa__mem_ops *const host_mem[] = {&pa__mem_paged_ops, &pa__mem_mmap_ops, &pa__mem_numa_ops,
                                              &pa__mem_vmem_ops, NULL};

static const pa__host_kernels host_kernels = {
    .threads_for = pa__copy_threads_for,
    .parallel = pa__copy_parallel,
    .gather = pa__kern_gather,
    .stream_copy = pa__stream_copy,
    .stream_fence = pa__stream_fence,
};

const pa__backend pa__backend_pthread = {
    .name = "pthread",
    .what = "host memory (paged, mmap, numa, vmem), host copies, pthd/omp thread arrays",
    .required = 1,
    .mem = host_mem,
    .strategies = pa__host_strategies,
    .dist = &pa__pthd_dist_ops,
    .set_threads = pa__copy_threads_set,
    .kernels = &host_kernels,
    .calibrate = pa__host_calibrate,
};
