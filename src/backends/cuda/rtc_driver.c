/*
 * parray — run-time compiled kernels on a device: the CUDA driver API without linking libcuda.
 *
 * The driver's entry points come from the statically linked cudart (cudaGetDriverEntryPointByVersion), which
 * has already loaded libcuda for its own use, so the driver calls run against the same driver and, once
 * cudaFree(0) has made the runtime's primary context current on the calling thread, in the same context as
 * cudart's allocations and streams.  <cuda.h> is included for its types only.
 *
 * Modules are loaded once per (image, device) and kernels looked up once per (image, entry, device); both are
 * kept until exit, so the kernel pointers handed out stay valid.
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include <cuda.h>

#include "cuda_backend.h"
#include "internal.h"
#include "rtc_internal.h"

struct pa_cuda__rtc_kernel {
    const pa_cuda__image *img;
    char *entry;
    int device;
    CUcontext ctx;
    CUmodule mod;
    CUfunction fn;
    /* The last answer of pa_cuda__rtc_kernel_limits, for lim_shmem bytes per block (under the lock). */
    int lim_valid, lim_max, lim_suggested;
    size_t lim_shmem;
    struct pa_cuda__rtc_kernel *next;
};

static struct {
    CUresult (*load)(CUmodule *, const void *);
    CUresult (*get_function)(CUfunction *, CUmodule, const char *);
    CUresult (*launch)(CUfunction, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned, CUstream,
                       void **, void **);
    CUresult (*ctx_current)(CUcontext *);
    CUresult (*func_attr)(int *, CUfunction_attribute, CUfunction);
    CUresult (*func_set_attr)(CUfunction, CUfunction_attribute, int);
    CUresult (*occupancy)(int *, int *, CUfunction, CUoccupancyB2DSize, size_t, int);
    CUresult (*error_string)(CUresult, const char **);
    CUresult (*active_blocks)(int *, CUfunction, int, size_t);
    CUresult (*device_get)(CUdevice *, int);
    CUresult (*primary_state)(CUdevice, unsigned *, int *);
} drv;

static pthread_once_t drv_once = PTHREAD_ONCE_INIT;
static int drv_ok;
static char drv_why[256];
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pa_cuda__rtc_kernel *kernels;

static int entry_point(const char *sym, void **fp)
{
    enum cudaDriverEntryPointQueryResult q = cudaDriverEntryPointSymbolNotFound;
    cudaError_t e = cudaGetDriverEntryPointByVersion(sym, fp, 12000, cudaEnableDefault, &q);
    if (e != cudaSuccess || q != cudaDriverEntryPointSuccess || !*fp) {
        snprintf(drv_why, sizeof drv_why, "the CUDA driver has no entry point %s (CUDA error %d: %s)", sym, (int)e,
                 cudaGetErrorString(e));
        (void)cudaGetLastError();
        return 0;
    }
    return 1;
}

static void drv_load(void)
{
    drv_ok = entry_point("cuModuleLoadData", (void **)&drv.load) &&
             entry_point("cuModuleGetFunction", (void **)&drv.get_function) &&
             entry_point("cuLaunchKernel", (void **)&drv.launch) &&
             entry_point("cuCtxGetCurrent", (void **)&drv.ctx_current) &&
             entry_point("cuFuncGetAttribute", (void **)&drv.func_attr) &&
             entry_point("cuFuncSetAttribute", (void **)&drv.func_set_attr) &&
             entry_point("cuOccupancyMaxPotentialBlockSize", (void **)&drv.occupancy) &&
             entry_point("cuGetErrorString", (void **)&drv.error_string) &&
             entry_point("cuOccupancyMaxActiveBlocksPerMultiprocessor", (void **)&drv.active_blocks) &&
             entry_point("cuDeviceGet", (void **)&drv.device_get) &&
             entry_point("cuDevicePrimaryCtxGetState", (void **)&drv.primary_state);
}

/* Asked without creating anything; when the driver cannot say, the answer is 1 (the caller then waits). */
int pa_cuda__primary_active(int device)
{
    CUdevice d;
    unsigned flags = 0;
    int active = 1;
    pthread_once(&drv_once, drv_load);
    if (!drv_ok || drv.device_get(&d, device) != CUDA_SUCCESS || drv.primary_state(d, &flags, &active) != CUDA_SUCCESS)
        return 1;
    return active != 0;
}

/* The GPU and context driver_ready last found current on this thread. */
static _Thread_local int tl_device = -1;
static _Thread_local CUcontext tl_ctx;

/* A GPU, the driver's entry points, and the runtime's primary context current on this thread. */
static int driver_ready(const char *what, int *device, CUcontext *ctx)
{
    int st = pa_cuda__ready(what);
    cudaError_t e;
    if (st != PA_OK)
        return st;
    pthread_once(&drv_once, drv_load);
    if (!drv_ok)
        return pa__err(PA_ERR_NODEV, "%s: %s", what, drv_why);
    if ((e = cudaGetDevice(device)) != cudaSuccess)
        return pa_cuda__fail(e, "%s: asking for the current GPU", what);
    /* The context this thread made current last time for this GPU is still current: nothing to do.  cudaFree(0)
     * is needed only the first time (it creates the primary context); it is also an API call that a stream
     * capture in global mode forbids, so a launch into a CUDA graph must not reach it. */
    if (tl_device == *device && tl_ctx && drv.ctx_current(ctx) == CUDA_SUCCESS && *ctx == tl_ctx)
        return PA_OK;
    if ((e = cudaFree(NULL)) != cudaSuccess)
        return pa_cuda__fail(e, "%s: making the device's primary context current", what);
    if (drv.ctx_current(ctx) != CUDA_SUCCESS || !*ctx)
        return pa__err(PA_ERR_SYS, "%s: no current CUDA context after cudaFree(0)", what);
    tl_device = *device;
    tl_ctx = *ctx;
    return PA_OK;
}

static int drv_fail(CUresult r, const char *what, const char *entry)
{
    const char *text = NULL;
    if (drv.error_string(r, &text) != CUDA_SUCCESS || !text)
        text = "unknown driver error";
    int st = r == CUDA_ERROR_OUT_OF_MEMORY ? PA_ERR_NOMEM
           : (r == CUDA_ERROR_NO_DEVICE || r == CUDA_ERROR_NO_BINARY_FOR_GPU) ? PA_ERR_NODEV
           : PA_ERR_SYS;
    return pa__err(st, "%s(%s): CUDA driver error %d: %s", what, entry, (int)r, text);
}

static pa_cuda__rtc_kernel *find(const pa_cuda__image *img, const char *entry, int device, CUmodule *mod)
{
    for (pa_cuda__rtc_kernel *k = kernels; k; k = k->next)
        if (k->img == img && k->device == device) {
            *mod = k->mod;
            if (strcmp(k->entry, entry) == 0)
                return k;
        }
    return NULL;
}

int pa_cuda__rtc_load(const pa_cuda__image *img, const char *entry, pa_cuda__rtc_kernel **out)
{
    int device = 0, st;
    CUcontext ctx = NULL;
    CUmodule mod = NULL;
    CUresult r;
    pa_cuda__rtc_kernel *k;
    if ((st = driver_ready("pa_cuda__rtc_load", &device, &ctx)) != PA_OK)
        return st;
    pthread_mutex_lock(&lock);
    if ((k = find(img, entry, device, &mod)) != NULL)
        goto done;
    if (!(k = calloc(1, sizeof *k)) || !(k->entry = strdup(entry))) {
        st = pa__err(PA_ERR_NOMEM, "pa_cuda__rtc_load(%s): out of memory", entry);
        goto fail;
    }
    if (!mod) {
        if ((r = drv.load(&mod, pa_cuda__image_data(img, NULL))) != CUDA_SUCCESS) {
            st = drv_fail(r, "cuModuleLoadData", entry);
            goto fail;
        }
        pa_cuda__rtc_count_load();
    }
    if ((r = drv.get_function(&k->fn, mod, entry)) != CUDA_SUCCESS) {
        /* The module stays loaded (other entries may be asked for); it is freed with the context. */
        st = drv_fail(r, "cuModuleGetFunction", entry);
        goto fail;
    }
    k->img = img;
    k->device = device;
    k->ctx = ctx;
    k->mod = mod;
    k->next = kernels;
    kernels = k;
done:
    pthread_mutex_unlock(&lock);
    *out = k;
    return PA_OK;
fail:
    pthread_mutex_unlock(&lock);
    if (k)
        free(k->entry);
    free(k);
    return st;
}

int pa_cuda__rtc_get_kernel(const char *name, const char *source, const char *const *opts, int nopts,
                            const char *entry, pa_cuda__rtc_kernel **out)
{
    const pa_cuda__image *img;
    int st = pa_cuda__rtc_compile(name, source, opts, nopts, 0, &img);
    return st != PA_OK ? st : pa_cuda__rtc_load(img, entry, out);
}

/* Past 48 KiB a function's dynamic shared memory must be allowed first.  Where the block would need more than
 * the GPU's opt-in limit the driver only says "invalid argument": then the limit is looked up and named. */
static int raise_smem(CUfunction fn, size_t shmem, const char *what, CUresult *r)
{
    int dev = 0, optin = 0, stat = 0;
    *r = CUDA_SUCCESS;
    if (shmem <= 48 * 1024 ||
        (*r = drv.func_set_attr(fn, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, (int)shmem)) == CUDA_SUCCESS)
        return PA_OK;
    if (cudaGetDevice(&dev) == cudaSuccess &&
        cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, dev) == cudaSuccess &&
        drv.func_attr(&stat, CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES, fn) == CUDA_SUCCESS && optin > 0 &&
        shmem + (size_t)stat > (size_t)optin) {
        *r = CUDA_SUCCESS;   /* the caller takes this refusal as it is, not as the driver's invalid value */
        return pa__err(PA_ERR_PARAM, "%s: a block would need %zu bytes of shared memory (%zu dynamic, %d static); "
                       "GPU %d allows %d: choose a smaller tile or fewer stages", what, shmem + (size_t)stat, shmem,
                       stat, dev, optin);
    }
    return drv_fail(*r, "cuFuncSetAttribute", what);
}

/* The launch itself, in the current context: the dynamic shared memory limit raised past 48 KiB where needed,
 * then cuLaunchKernel.  *r gets the driver's result.  \return PA_OK or the driver's error, named by what. */
static int launch_now(CUfunction fn, dim3 grid, dim3 block, size_t shmem, cudaStream_t stream, void **params,
                      const char *what, CUresult *r)
{
    int st = raise_smem(fn, shmem, what, r);
    if (st != PA_OK)
        return st;
    *r = drv.launch(fn, grid.x, grid.y, grid.z, block.x, block.y, block.z, (unsigned)shmem, (CUstream)stream, params,
                    NULL);
    return *r == CUDA_SUCCESS ? PA_OK : drv_fail(*r, "cuLaunchKernel", what);
}

int pa_cuda__rtc_launch(const pa_cuda__rtc_kernel *k, dim3 grid, dim3 block, size_t shmem, cudaStream_t stream,
                        void **params)
{
    CUcontext cur = NULL;
    CUresult r;
    int device = -1;
    /* Launches stay cheap when this thread already has the kernel's context current (the common case). */
    if (drv.ctx_current(&cur) != CUDA_SUCCESS || cur != k->ctx) {
        if (cudaGetDevice(&device) != cudaSuccess || device != k->device)
            return pa__err(PA_ERR_INVAL, "pa_cuda__rtc_launch(%s): loaded on GPU %d, current GPU is %d", k->entry,
                           k->device, device);
        if (cudaFree(NULL) != cudaSuccess)
            return pa_cuda__fail(cudaGetLastError(), "pa_cuda__rtc_launch(%s)", k->entry);
    }
    return launch_now(k->fn, grid, block, shmem, stream, params, k->entry, &r);
}

int pa_cuda__rtc_kernel_limits(const pa_cuda__rtc_kernel *k, size_t shmem_per_block, int *max_block,
                               int *suggested_block)
{
    int grid = 0, block = 0, maxb = 0;
    CUresult r;
    /* Every call of a PL/CUDA function asks; the occupancy API costs microseconds, so the answer is kept. */
    pa_cuda__rtc_kernel *mk = (pa_cuda__rtc_kernel *)k;
    pthread_mutex_lock(&lock);
    int hit = mk->lim_valid && mk->lim_shmem == shmem_per_block;
    if (hit) {
        *max_block = mk->lim_max;
        *suggested_block = mk->lim_suggested;
    }
    pthread_mutex_unlock(&lock);
    if (hit)
        return PA_OK;
    if ((r = drv.func_attr(&maxb, CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK, k->fn)) != CUDA_SUCCESS)
        return drv_fail(r, "cuFuncGetAttribute", k->entry);
    if ((r = drv.occupancy(&grid, &block, k->fn, NULL, shmem_per_block, maxb)) != CUDA_SUCCESS)
        return drv_fail(r, "cuOccupancyMaxPotentialBlockSize", k->entry);
    *max_block = maxb;
    *suggested_block = block > 0 ? block : maxb;
    pthread_mutex_lock(&lock);
    mk->lim_valid = 1;
    mk->lim_shmem = shmem_per_block;
    mk->lim_max = *max_block;
    mk->lim_suggested = *suggested_block;
    pthread_mutex_unlock(&lock);
    return PA_OK;
}

int pa_cuda__launch(void *fn, dim3 grid, dim3 block, size_t shmem, cudaStream_t stream, void **params,
                    const char *what)
{
    int device = 0, st;
    CUcontext ctx = NULL;
    CUresult r;
    if ((st = driver_ready(what, &device, &ctx)) != PA_OK)
        return st;
    if ((st = launch_now((CUfunction)fn, grid, block, shmem, stream, params, what, &r)) == PA_OK)
        return PA_OK;
    return r == CUDA_ERROR_INVALID_VALUE || r == CUDA_ERROR_INVALID_HANDLE
               ? pa__err_wrap(PA_ERR_INVAL, "%ux%ux%u blocks of %ux%ux%u threads, %zu bytes of shared memory", grid.x,
                              grid.y, grid.z, block.x, block.y, block.z, shmem)
               : st;
}

void *pa_cuda__rtc_function(const pa_cuda__rtc_kernel *k)
{
    return (void *)k->fn;
}

int pa_cuda_function_info(pa_cuda_function fn, int block, size_t shmem, pa_cuda_fninfo *out)
{
    const char *what = "pa_cuda_function_info";
    int device = 0, st;
    CUcontext ctx = NULL;
    CUresult r = CUDA_SUCCESS;
    if (fn == NULL || out == NULL || block < 1)
        return pa__err(PA_ERR_INVAL, "%s: %s", what, fn == NULL ? "NULL function" : out == NULL ? "NULL output"
                                                                                            : "block below 1");
    if ((st = driver_ready(what, &device, &ctx)) != PA_OK)
        return st;
    CUfunction f = (CUfunction)fn;
    pa_cuda_fninfo i = {0};
    if ((r = drv.func_attr(&i.registers, CU_FUNC_ATTRIBUTE_NUM_REGS, f)) != CUDA_SUCCESS ||
        (r = drv.func_attr(&i.smem_static, CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES, f)) != CUDA_SUCCESS ||
        (r = drv.func_attr(&i.local_bytes, CU_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES, f)) != CUDA_SUCCESS ||
        (r = drv.func_attr(&i.max_threads, CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK, f)) != CUDA_SUCCESS)
        return drv_fail(r, "cuFuncGetAttribute", what);
    /* past 48 KiB the occupancy counts only once the function's dynamic limit is raised, as a launch does */
    if ((st = raise_smem(f, shmem, what, &r)) != PA_OK)
        return st;
    if ((r = drv.active_blocks(&i.blocks_per_sm, f, block, shmem)) != CUDA_SUCCESS)
        return drv_fail(r, "cuOccupancyMaxActiveBlocksPerMultiprocessor", what);
    *out = i;
    return PA_OK;
}
