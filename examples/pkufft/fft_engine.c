/*
 * pkufft — the FFT engines: plans and their execution through cuFFT (built where the CUDA toolkit's cuFFT was
 * found, PKUFFT_CUFFT) or on the CPU (fft_cpu.c).  cuFFT runs on the legacy default stream, which the
 * library's copies wait for; exec waits for the transform so that a time taken after it is the transform's.
 * pk_plan_launch queues a transform on a stream of the program's own (pk_stream_make) instead, so that it runs
 * while the library moves other data (the fast form's pipeline).
 */
#include <stdio.h>
#include <stdlib.h>

#include "fft_engine.h"

#if PKUFFT_CUFFT
#include <cuda_runtime.h>
#include <cufft.h>

static _Thread_local char gpu_msg[200];

static const char *cufft_text(cufftResult r)
{
    switch (r) {
    case CUFFT_INVALID_PLAN: return "CUFFT_INVALID_PLAN";
    case CUFFT_ALLOC_FAILED: return "CUFFT_ALLOC_FAILED (out of GPU memory)";
    case CUFFT_INVALID_VALUE: return "CUFFT_INVALID_VALUE";
    case CUFFT_INTERNAL_ERROR: return "CUFFT_INTERNAL_ERROR";
    case CUFFT_SETUP_FAILED: return "CUFFT_SETUP_FAILED";
    case CUFFT_INVALID_SIZE: return "CUFFT_INVALID_SIZE";
    default: return "cuFFT error";
    }
}

static int gpu_fail(const char *what, cufftResult r, const char **msg)
{
    snprintf(gpu_msg, sizeof gpu_msg, "%s: %s (%d)", what, cufft_text(r), (int)r);
    *msg = gpu_msg;
    return -1;
}
#endif

int pk_have_cufft(void)
{
    return PKUFFT_CUFFT;
}

int pk_gpu_use(int dev, const char **msg)
{
#if PKUFFT_CUFFT
    cudaError_t e = cudaSetDevice(dev);
    if (e != cudaSuccess) {
        snprintf(gpu_msg, sizeof gpu_msg, "cudaSetDevice(%d): %s", dev, cudaGetErrorString(e));
        *msg = gpu_msg;
        return -1;
    }
    return 0;
#else
    (void)dev;
    *msg = "this build has no cuFFT";
    return -1;
#endif
}

int pk_plan_make(pk_engine_kind kind, int rank, int n, int64_t batch, int fail_on_purpose, pk_plan *out,
                 const char **msg)
{
    *out = (pk_plan){.kind = kind, .rank = rank, .n = n, .batch = batch};
    if (fail_on_purpose) {
        *msg = "plan failure requested (--fail-plan)";
        return -1;
    }
    if (kind == PK_ENGINE_CPU) {
        if (rank == 3) {
            *msg = "3-D plans are made for the GPU only (the CPU reference is pk_fft3d_reference)";
            return -1;
        }
        return 0;
    }
#if PKUFFT_CUFFT
    cufftHandle h;
    int dims[3] = {n, n, n};
    int64_t elems = rank == 3 ? (int64_t)n * n * n : rank == 2 ? (int64_t)n * n : n;
    if (batch > 0x7fffffff || elems * batch > 0x7fffffff) {
        *msg = "the batch is too large for one cuFFT plan";
        return -1;
    }
    cufftResult r = cufftPlanMany(&h, rank, dims, NULL, 1, (int)elems, NULL, 1, (int)elems, CUFFT_C2C, (int)batch);
    if (r != CUFFT_SUCCESS)
        return gpu_fail(rank == 3 ? "cufftPlanMany (3-D)" : rank == 2 ? "cufftPlanMany (2-D, the XY step)"
                                  : "cufftPlanMany (1-D, the Z step)", r, msg);
    out->impl = (void *)(intptr_t)h;
    return 0;
#else
    *msg = "this build has no cuFFT";
    return -1;
#endif
}

int pk_plan_launch(const pk_plan *p, void *data, void *stream, const char **msg)
{
    if (p->kind == PK_ENGINE_CPU) {
        pk_complex *d = data;
        int n = p->n;
        int rc = 0;
        (void)stream;
        if (p->rank == 1)
            return pk_cpu_lines(d, n, p->batch, 1, n, 0) ? (*msg = "no memory for the CPU transform", -1) : 0;
        for (int64_t b = 0; b < p->batch && rc == 0; b++) {
            pk_complex *plane = d + b * (int64_t)n * n;
            rc = pk_cpu_lines(plane, n, n, 1, n, 0) || pk_cpu_lines(plane, n, n, n, 1, 0);
        }
        return rc ? (*msg = "no memory for the CPU transform", -1) : 0;
    }
#if PKUFFT_CUFFT
    cufftHandle h = (cufftHandle)(intptr_t)p->impl;
    cufftResult r = cufftSetStream(h, (cudaStream_t)stream);
    if (r == CUFFT_SUCCESS)
        r = cufftExecC2C(h, data, data, CUFFT_FORWARD);
    return r == CUFFT_SUCCESS ? 0 : gpu_fail("cufftExecC2C", r, msg);
#else
    (void)stream;
    *msg = "this build has no cuFFT";
    return -1;
#endif
}

int pk_stream_wait(pk_engine_kind kind, void *stream, const char **msg)
{
    if (kind == PK_ENGINE_CPU)
        return 0;
#if PKUFFT_CUFFT
    cudaError_t e = cudaStreamSynchronize((cudaStream_t)stream);
    if (e != cudaSuccess) {
        snprintf(gpu_msg, sizeof gpu_msg, "cufftExecC2C: %s", cudaGetErrorString(e));
        *msg = gpu_msg;
        return -1;
    }
    return 0;
#else
    (void)stream;
    *msg = "this build has no cuFFT";
    return -1;
#endif
}

int pk_plan_exec(const pk_plan *p, void *data, const char **msg)
{
    return pk_plan_launch(p, data, NULL, msg) || pk_stream_wait(p->kind, NULL, msg) ? -1 : 0;
}

int pk_stream_make(pk_engine_kind kind, void **stream, const char **msg)
{
    *stream = NULL;
    if (kind == PK_ENGINE_CPU)
        return 0;
#if PKUFFT_CUFFT
    cudaStream_t s;
    cudaError_t e = cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking);
    if (e != cudaSuccess) {
        snprintf(gpu_msg, sizeof gpu_msg, "cudaStreamCreateWithFlags: %s", cudaGetErrorString(e));
        *msg = gpu_msg;
        return -1;
    }
    *stream = s;
    return 0;
#else
    *msg = "this build has no cuFFT";
    return -1;
#endif
}

void pk_stream_destroy(pk_engine_kind kind, void *stream)
{
#if PKUFFT_CUFFT
    if (kind == PK_ENGINE_GPU && stream) {
        cudaStreamSynchronize((cudaStream_t)stream);
        cudaStreamDestroy((cudaStream_t)stream);
    }
#else
    (void)kind;
    (void)stream;
#endif
}

void pk_plan_destroy(pk_plan *p)
{
#if PKUFFT_CUFFT
    if (p->kind == PK_ENGINE_GPU && p->impl)
        cufftDestroy((cufftHandle)(intptr_t)p->impl);
#endif
    p->impl = NULL;
}

int pk_fft3d_reference(pk_engine_kind kind, int n, void *data, const char **msg)
{
    if (kind == PK_ENGINE_CPU) {
        pk_complex *d = data;
        int64_t nn = (int64_t)n * n;
        int direct = n <= 64, rc = 0;
        rc |= pk_cpu_lines(d, n, nn, 1, n, direct);                  /* along X */
        for (int64_t z = 0; z < n && !rc; z++)
            rc |= pk_cpu_lines(d + z * nn, n, n, n, 1, direct);      /* along Y, plane by plane */
        rc |= pk_cpu_lines(d, n, nn, nn, 1, direct);                 /* along Z */
        return rc ? (*msg = "no memory for the CPU reference", -1) : 0;
    }
#if PKUFFT_CUFFT
    cufftHandle h;
    cufftResult r = cufftPlan3d(&h, n, n, n, CUFFT_C2C);
    if (r != CUFFT_SUCCESS)
        return gpu_fail("cufftPlan3d (the reference)", r, msg);
    r = cufftExecC2C(h, data, data, CUFFT_FORWARD);
    cudaError_t e = cudaDeviceSynchronize();
    cufftDestroy(h);
    if (r != CUFFT_SUCCESS)
        return gpu_fail("cufftExecC2C (the reference)", r, msg);
    if (e != cudaSuccess) {
        snprintf(gpu_msg, sizeof gpu_msg, "the reference: %s", cudaGetErrorString(e));
        *msg = gpu_msg;
        return -1;
    }
    return 0;
#else
    *msg = "this build has no cuFFT";
    return -1;
#endif
}
