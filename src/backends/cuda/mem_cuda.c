/*
 * parray — the CUDA memory types: pinned (page-locked host memory from cudaHostAlloc, which the GPU reaches by
 * DMA at full PCIe speed and the CPU reads like any host memory) and dmem (device memory from cudaMalloc on
 * the calling thread's current GPU).
 */
#include <pthread.h>
#include <stdint.h>
#include <string.h>

#include "cuda_backend.h"

static int cuda_available(void)
{
    return pa_cuda__usable();
}

/* The free and total memory of the current GPU, for out-of-memory messages ("free" unknown: 0). */
static void device_memory(int *dev, size_t *free_b, size_t *total_b)
{
    *dev = -1;
    *free_b = *total_b = 0;
    if (cudaGetDevice(dev) != cudaSuccess || cudaMemGetInfo(free_b, total_b) != cudaSuccess)
        (void)cudaGetLastError();
}

static int pinned_alloc(size_t bytes, const pa_mem_opts *opts, void **out, void **cookie)
{
    (void)opts;
    void *p = NULL;
    int st = pa_cuda__ready("pinned");
    if (st != PA_OK)
        return st;
    /* Portable: the pages are pinned for every GPU, not only the current one. */
    cudaError_t e = cudaHostAlloc(&p, bytes, cudaHostAllocPortable);
    if (e == cudaErrorMemoryAllocation) {
        (void)cudaGetLastError();
        return pa__err(PA_ERR_NOMEM, "pinned: cannot allocate %zu bytes of page-locked host memory "
                                     "(cudaHostAlloc: %s)", bytes, cudaGetErrorString(e));
    }
    if (e != cudaSuccess)
        return pa_cuda__fail(e, "pinned: cudaHostAlloc(%zu bytes)", bytes);
    *out = p;
    *cookie = NULL;
    return PA_OK;
}

static int pinned_free(void *ptr, size_t bytes, void *cookie)
{
    (void)cookie;
    cudaError_t e = cudaFreeHost(ptr);
    return e == cudaSuccess ? PA_OK : pa_cuda__fail(e, "pinned: cudaFreeHost of %zu bytes", bytes);
}

static int dmem_alloc(size_t bytes, const pa_mem_opts *opts, void **out, void **cookie)
{
    (void)opts;
    void *p = NULL;
    int st = pa_cuda__ready("dmem");
    if (st != PA_OK)
        return st;
    cudaError_t e = cudaMalloc(&p, bytes);
    if (e == cudaErrorMemoryAllocation) {
        int dev;
        size_t free_b, total_b;
        (void)cudaGetLastError();
        device_memory(&dev, &free_b, &total_b);
        return pa__err(PA_ERR_NOMEM, "dmem: cannot allocate %zu bytes on GPU %d, which has %zu of %zu bytes "
                                     "free (cudaMalloc: %s)", bytes, dev, free_b, total_b, cudaGetErrorString(e));
    }
    if (e != cudaSuccess)
        return pa_cuda__fail(e, "dmem: cudaMalloc(%zu bytes)", bytes);
    /* Remember the device, so that the free runs there even if the caller has switched GPUs since. */
    int dev = 0;
    if (cudaGetDevice(&dev) != cudaSuccess)
        (void)cudaGetLastError();
    *out = p;
    *cookie = (void *)(intptr_t)dev;
    return PA_OK;
}

static int dmem_free(void *ptr, size_t bytes, void *cookie)
{
    int cur = 0, dev = (int)(intptr_t)cookie;
    cudaError_t e = cudaGetDevice(&cur);
    if (e == cudaSuccess && cur != dev)
        e = cudaSetDevice(dev);
    if (e == cudaSuccess)
        e = cudaFree(ptr);
    if (cur != dev)
        (void)cudaSetDevice(cur);
    return e == cudaSuccess ? PA_OK : pa_cuda__fail(e, "dmem: cudaFree of %zu bytes on GPU %d", bytes, dev);
}

/* Whether a pointer pa_create did not make is device memory (cudaMalloc'd by the program, or another library's
 * through DLPack): asked of the driver.  Host memory the driver does not know is "no"; a failed query "unknown". */
static int dmem_holds(const void *ptr)
{
    struct cudaPointerAttributes a;
    if (!pa_cuda__usable())
        return -1;
    cudaError_t e = cudaPointerGetAttributes(&a, ptr);
    if (e != cudaSuccess) {
        (void)cudaGetLastError();
        return -1;
    }
    return a.type == cudaMemoryTypeDevice || a.type == cudaMemoryTypeManaged ? 1 : 0;
}

/* CUDA IPC for the MPI backend's peer copies (see pa__mem_ops). */
static int dmem_ipc_export(const void *base, void *handle)
{
    cudaIpcMemHandle_t h;
    _Static_assert(sizeof h <= PA__IPC_HANDLE_BYTES, "an IPC handle fits PA__IPC_HANDLE_BYTES");
    cudaError_t e = cudaIpcGetMemHandle(&h, (void *)base);
    if (e != cudaSuccess)
        return pa_cuda__fail(e, "dmem: cudaIpcGetMemHandle");
    memset(handle, 0, PA__IPC_HANDLE_BYTES);
    memcpy(handle, &h, sizeof h);
    return PA_OK;
}

/* cuMemGetAddressRange, from the driver cudart has loaded (as rtc_driver.c's entry points), looked up once. */
typedef int (*range_fn)(uintptr_t *base, size_t *size, uintptr_t ptr);
static range_fn range;
static pthread_once_t range_once = PTHREAD_ONCE_INIT;

static void range_load(void)
{
    enum cudaDriverEntryPointQueryResult q = cudaDriverEntryPointSymbolNotFound;
    void *fp = NULL;
    if (cudaGetDriverEntryPointByVersion("cuMemGetAddressRange", &fp, 12000, cudaEnableDefault, &q) == cudaSuccess &&
        q == cudaDriverEntryPointSuccess)
        range = (range_fn)fp;
    (void)cudaGetLastError();
}

static int dmem_ipc_base(const void *ptr, const void **base)
{
    uintptr_t b = 0;
    size_t size = 0;
    pthread_once(&range_once, range_load);
    if (!range)
        return pa__err(PA_ERR_NODEV, "dmem: the CUDA driver has no cuMemGetAddressRange");
    int r = range(&b, &size, (uintptr_t)ptr);
    if (r != 0 || !b)
        return pa__err(PA_ERR_INVAL, "dmem: %p is not in a device allocation (driver error %d)", ptr, r);
    *base = (const void *)b;
    return PA_OK;
}

static int dmem_ipc_open(const void *handle, void **out)
{
    cudaIpcMemHandle_t h;
    memcpy(&h, handle, sizeof h);
    cudaError_t e = cudaIpcOpenMemHandle(out, h, cudaIpcMemLazyEnablePeerAccess);
    return e == cudaSuccess ? PA_OK : pa_cuda__fail(e, "dmem: cudaIpcOpenMemHandle");
}

static int dmem_ipc_close(void *ptr)
{
    cudaError_t e = cudaIpcCloseMemHandle(ptr);
    return e == cudaSuccess ? PA_OK : pa_cuda__fail(e, "dmem: cudaIpcCloseMemHandle");
}

/* Waits for the copy: a device -> device cudaMemcpy may return before it ends, and the other process may change its
 * buffer once this one says it has read it. */
static int dmem_ipc_copy(void *dst, const void *src, size_t bytes)
{
    cudaError_t e = cudaMemcpy(dst, src, bytes, cudaMemcpyDefault);
    if (e == cudaSuccess)
        e = cudaDeviceSynchronize();
    return e == cudaSuccess ? PA_OK : pa_cuda__fail(e, "dmem: cudaMemcpy of %zu bytes between processes", bytes);
}

const pa__mem_ops pa__mem_pinned_ops = {
    .name = "pinned",
    .host_accessible = 1,
    .available = cuda_available,
    .alloc = pinned_alloc,
    .free = pinned_free,
};

const pa__mem_ops pa__mem_dmem_ops = {
    .name = "dmem",
    .host_accessible = 0,
    .available = cuda_available,
    .alloc = dmem_alloc,
    .free = dmem_free,
    .holds = dmem_holds,
    .ipc_export = dmem_ipc_export,
    .ipc_base = dmem_ipc_base,
    .ipc_open = dmem_ipc_open,
    .ipc_close = dmem_ipc_close,
    .ipc_copy = dmem_ipc_copy,
};

int pa__cuda_pointer_device(const void *p, const char *what, int *dev)
{
    int st = pa_cuda__ready(what);
    if (st != PA_OK)
        return st;
    struct cudaPointerAttributes a;
    cudaError_t e = cudaPointerGetAttributes(&a, p);
    if (e != cudaSuccess)
        return pa_cuda__fail(e, "%s: finding the GPU of pointer %p", what, p);
    if (a.type != cudaMemoryTypeDevice && a.type != cudaMemoryTypeManaged)
        return pa__err(PA_ERR_MTT, "%s: %p is not device memory (it is %s memory) but the type is dmem", what, p,
                       a.type == cudaMemoryTypeHost ? "pinned host" : "host");
    *dev = a.device;
    return PA_OK;
}
