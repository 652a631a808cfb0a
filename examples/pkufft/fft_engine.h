/*
 * pkufft — the FFT steps of the distributed transform, on a GPU through cuFFT or on the CPU.
 *
 * The distributed 3-D FFT (pkufft.c) needs two kinds of local transforms: batches of 2-D transforms of N x N
 * planes (the XY step) and batches of 1-D transforms of N contiguous elements (the Z step, after the data has
 * been transposed so that Z is contiguous).  An engine does them in place, forward, on complex floats, in the
 * memory its kind works on: device memory (dmem) for cuFFT, host memory for the CPU engine.  The CPU engine is
 * this example's own code (radix 2 where N is a power of two, a direct transform otherwise), so that the
 * distributed transpositions are checked on machines without a GPU, and it gives the reference transform that
 * the CPU path is compared with.
 */
#ifndef PKUFFT_FFT_ENGINE_H
#define PKUFFT_FFT_ENGINE_H

#include <stdint.h>

typedef struct { float x, y; } pk_complex;   /* the layout of float2 and cufftComplex */

typedef enum { PK_ENGINE_CPU, PK_ENGINE_GPU } pk_engine_kind;

/* A planned batch of in-place forward transforms: `batch` transforms of `rank` (1, 2, or on the GPU 3)
 * dimensions of size n each, stored one after the other (n^rank contiguous elements each). */
typedef struct pk_plan {
    pk_engine_kind kind;
    int rank, n;
    int64_t batch;
    void *impl;          /* the cuFFT handle, or the CPU engine's tables */
} pk_plan;

/** 1 when this build has cuFFT. */
int pk_have_cufft(void);

/** Makes GPU dev current for this program's own CUDA calls (cuFFT, the waits) as pa_cuda_set_device does for
 *  the library's.  \return 0, or -1 (*msg). */
int pk_gpu_use(int dev, const char **msg);

/**
 * Makes a plan.  For the GPU the plan is made on the calling thread's current GPU.  fail_on_purpose makes it
 * fail as a plan failure would (the example's test of that error path).  \return 0, or -1 with *msg set to a
 * static or thread-local message.
 */
int pk_plan_make(pk_engine_kind kind, int rank, int n, int64_t batch, int fail_on_purpose, pk_plan *out,
                 const char **msg);
/** Runs the plan in place on data (device memory for the GPU) and waits for it.  \return 0 or -1 (*msg). */
int pk_plan_exec(const pk_plan *p, void *data, const char **msg);
/**
 * A stream on which transforms run beside the library's copies (pk_plan_launch): a non-blocking CUDA stream on
 * the GPU, so that neither the legacy default stream nor the library's copy streams wait for it; on the CPU none
 * (*stream is NULL and launches run at once).  \return 0 or -1 (*msg).
 */
int pk_stream_make(pk_engine_kind kind, void **stream, const char **msg);
/** Queues the plan's transform of data on stream (GPU; NULL is the legacy default stream) and returns; on the
 *  CPU it runs the transform.  \return 0 or -1 (*msg); a fault of the queued work shows at pk_stream_wait. */
int pk_plan_launch(const pk_plan *p, void *data, void *stream, const char **msg);
/** Waits until stream (from pk_stream_make) has run everything queued on it.  \return 0 or -1 (*msg). */
int pk_stream_wait(pk_engine_kind kind, void *stream, const char **msg);
/** Frees a stream from pk_stream_make (NULL is ignored); it waits for the stream's work first. */
void pk_stream_destroy(pk_engine_kind kind, void *stream);
/** Frees a plan (a zeroed one is ignored). */
void pk_plan_destroy(pk_plan *p);

/**
 * The reference: the whole 3-D forward transform of an n x n x n array in place, on one GPU (a cufftPlan3d,
 * data in device memory) or on the CPU (data in host memory; line by line along each axis, in double
 * precision).  \return 0 or -1 (*msg).
 */
int pk_fft3d_reference(pk_engine_kind kind, int n, void *data, const char **msg);

/* ---- the CPU transforms (fft_cpu.c) ----------------------------------------------------------------------- */

/** count transforms of length n, element stride `stride`, the first elements `dist` apart (in elements);
 *  direct_only: the O(n^2) transform even where n is a power of two.  \return 0, or -1 (no memory). */
int pk_cpu_lines(pk_complex *data, int n, int64_t count, int64_t stride, int64_t dist, int direct_only);

#endif
