/*
 * parray — the CUDA backend's GPU features for generated kernels (backends.h, pa__gpu_ops): the current GPU's
 * compute capability, kernels compiled for its architecture-specific target (sm_90a: wgmma, setmaxnreg), tensor
 * maps for the bulk tensor copy engine (cuTensorMapEncodeTiled, resolved through cudart's driver entry points like
 * rtc_driver.c's calls) and scratch memory ordered on a stream (cudaMallocFromPoolAsync from a pool of our own).  The tiles' wgmma gemm uses them.
 */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cuda.h>

#include "cuda_backend.h"
#include "internal.h"
#include "rtc_internal.h"

static CUresult (*encode_tiled)(CUtensorMap *, CUtensorMapDataType, cuuint32_t, void *, const cuuint64_t *,
                                const cuuint64_t *, const cuuint32_t *, const cuuint32_t *, CUtensorMapInterleave,
                                CUtensorMapSwizzle, CUtensorMapL2promotion, CUtensorMapFloatOOBfill);
static pthread_once_t encode_once = PTHREAD_ONCE_INIT;
static char encode_why[160];

static void encode_load(void)
{
    enum cudaDriverEntryPointQueryResult q = cudaDriverEntryPointSymbolNotFound;
    void *fp = NULL;
    cudaError_t e = cudaGetDriverEntryPointByVersion("cuTensorMapEncodeTiled", &fp, 12000, cudaEnableDefault, &q);
    if (e != cudaSuccess || q != cudaDriverEntryPointSuccess || fp == NULL) {
        snprintf(encode_why, sizeof encode_why, "the CUDA driver has no entry point cuTensorMapEncodeTiled (CUDA "
                 "error %d: %s)", (int)e, cudaGetErrorString(e));
        (void)cudaGetLastError();
        return;
    }
    *(void **)&encode_tiled = fp;
}

static int capability(int *cc)
{
    return pa_cuda__current_arch("the Hopper gemm", cc);
}

static int load(const char *name, const char *source, const char *entry, int arch, void **fn)
{
    const pa_cuda__image *img;
    pa_cuda__rtc_kernel *k;
    int st = pa_cuda__rtc_compile(name, source, NULL, 0, arch, &img);
    if (st == PA_OK && (st = pa_cuda__rtc_load(img, entry, &k)) == PA_OK)
        *fn = pa_cuda__rtc_function(k);
    return st;
}

static int tensor_map(void *map, const pa__tmap_desc *d)
{
    static const CUtensorMapDataType kinds[] = {CU_TENSOR_MAP_DATA_TYPE_FLOAT32, CU_TENSOR_MAP_DATA_TYPE_BFLOAT16,
                                                CU_TENSOR_MAP_DATA_TYPE_FLOAT16};
    int st = pa_cuda__ready("a tensor map");
    if (st != PA_OK)
        return st;
    pthread_once(&encode_once, encode_load);
    if (encode_tiled == NULL)
        return pa__err(PA_ERR_NODEV, "a tensor map: %s", encode_why);
    if (map == NULL || d == NULL || d->elm_kind < 0 || d->elm_kind > 2 || (uintptr_t)map % 64 != 0)
        return pa__err(PA_ERR_INVAL, "a tensor map: bad arguments");
    cuuint64_t dims[2] = {d->dims[0], d->dims[1]}, strides[1] = {d->stride};
    cuuint32_t box[2] = {d->box[0], d->box[1]}, estr[2] = {1, 1};
    CUresult r = encode_tiled((CUtensorMap *)map, kinds[d->elm_kind], 2, (void *)d->base, dims, strides, box, estr,
                              CU_TENSOR_MAP_INTERLEAVE_NONE, CU_TENSOR_MAP_SWIZZLE_128B,
                              CU_TENSOR_MAP_L2_PROMOTION_L2_256B, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
    if (r != CUDA_SUCCESS)
        return pa__err(PA_ERR_PARAM, "cuTensorMapEncodeTiled: CUDA driver error %d for a tensor of %llu x %llu "
                       "elements at %p, rows %llu bytes apart, boxes of %u x %u", (int)r,
                       (unsigned long long)d->dims[0], (unsigned long long)d->dims[1], d->base,
                       (unsigned long long)d->stride, d->box[0], d->box[1]);
    return PA_OK;
}

/* The library's own pool per GPU: scratch freed on a stream goes back to it and stays (up to KEEP bytes) for the
 * next call instead of being returned to the driver at every synchronisation, as the default pool does; the
 * default pool's settings, which the application may rely on, are left alone. */
#define KEEP ((uint64_t)1 << 30)
static pthread_mutex_t pool_lock = PTHREAD_MUTEX_INITIALIZER;
static cudaMemPool_t pools[64];

static int pool_of(int dev, cudaMemPool_t *out)
{
    cudaError_t e = cudaSuccess;
    if (dev < 0 || dev >= 64)
        return pa__err(PA_ERR_RANGE, "scratch device memory: GPU %d", dev);
    pthread_mutex_lock(&pool_lock);
    if (pools[dev] == NULL) {
        struct cudaMemPoolProps props;
        memset(&props, 0, sizeof props);
        props.allocType = cudaMemAllocationTypePinned;
        props.location.type = cudaMemLocationTypeDevice;
        props.location.id = dev;
        uint64_t keep = KEEP;
        if ((e = cudaMemPoolCreate(&pools[dev], &props)) == cudaSuccess &&
            (e = cudaMemPoolSetAttribute(pools[dev], cudaMemPoolAttrReleaseThreshold, &keep)) != cudaSuccess) {
            cudaMemPoolDestroy(pools[dev]);
            pools[dev] = NULL;
        }
    }
    *out = pools[dev];
    pthread_mutex_unlock(&pool_lock);
    return e == cudaSuccess ? PA_OK : pa_cuda__fail(e, "a memory pool for scratch memory on GPU %d", dev);
}

static int scratch(size_t bytes, void *stream, void **out)
{
    int st = pa_cuda__ready("scratch device memory"), dev = 0;
    cudaMemPool_t pool = NULL;
    cudaError_t e;
    if (st != PA_OK)
        return st;
    if ((e = cudaGetDevice(&dev)) != cudaSuccess)
        return pa_cuda__fail(e, "scratch device memory: the current GPU");
    if ((st = pool_of(dev, &pool)) != PA_OK)
        return st;
    if ((e = cudaMallocFromPoolAsync(out, bytes, pool, (cudaStream_t)stream)) != cudaSuccess)
        return pa_cuda__fail(e, "%zu bytes of scratch device memory", bytes);
    return PA_OK;
}

static int scratch_free(void *p, void *stream)
{
    cudaError_t e = cudaFreeAsync(p, (cudaStream_t)stream);
    return e == cudaSuccess ? PA_OK : pa_cuda__fail(e, "freeing scratch device memory");
}

const pa__gpu_ops pa_cuda__gpu_ops = {capability, load, tensor_map, scratch, scratch_free};
