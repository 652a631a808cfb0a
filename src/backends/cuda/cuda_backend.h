/*
 * parray — declarations shared by the CUDA backend's C files (never by the core, which sees the backend only
 * through its description, pa__backend_cuda in backend_cuda.c).
 */
#ifndef PARRAY_CUDA_BACKEND_H
#define PARRAY_CUDA_BACKEND_H

#include <stddef.h>

#include "cuda_internal.h"
#include "mem_internal.h"
#include "backends.h"
#include "internal.h"

/* NVTX ranges around the library's work (the backend's trace hooks): trace_nvtx.c where the toolkit has NVTX3
 * (meson option nvtx), else trace_none.c, whose hooks are NULL. */
extern const pa__trace_ops pa__cuda_trace;

/* ---- devices and errors (cuda_device.c) ---------------------------------------------------------------- */

/** 1 when at least one GPU is usable and the backend is switched on (probed once; sets no message). */
int pa_cuda__usable(void);
/** pa_cuda__usable, with why not in why (the backend's probe). */
int pa_cuda__probe(char *why, size_t len);
/**
 * The GPU that holds device (or managed) memory at p, for DLPack's device_id (mem_cuda.c; the backend's
 * pointer_device hook).  \return PA_OK with *dev set; PA_ERR_MTT (p is host memory, with the message naming
 * what); PA_ERR_NODEV (no usable GPU).
 */
int pa__cuda_pointer_device(const void *p, const char *what, int *dev);
/**
 * Waits for a stream (the backend's stream_wait): a cudaStream_t, or NULL for the legacy default stream of the
 * current GPU and the work of blocking streams ordered before its end.  \return PA_OK, PA_ERR_NODEV (a stream
 * and no GPU) or the failure of the work waited for (PA_ERR_SYS with CUDA's words).
 */
int pa_cuda__stream_wait(void *stream);
/** Streams, events, queued copies and page-locking for code above the core (cuda_async.c). */
extern const pa__async_ops pa_cuda__async_ops;
/** Architecture-specific kernels, tensor maps and stream-ordered scratch memory (rtc_gpu.c). */
extern const pa__gpu_ops pa_cuda__gpu_ops;
/** The CUDA strategies, NULL-terminated (copy_cuda_strategies.c). */
extern const pa__strategy *const pa__cuda_strategies[];
/** PA_OK when a GPU is usable, else PA_ERR_NODEV with "<what>: <why none>". */
int pa_cuda__ready(const char *what);
/**
 * Reports a failed CUDA call: "<what>: CUDA error N (name): text", as PA_ERR_NODEV (no driver or device),
 * PA_ERR_NOMEM (allocation), PA_ERR_RANGE (invalid device) or PA_ERR_SYS (anything else).  \return the status.
 */
int pa_cuda__fail(cudaError_t e, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* ---- kernel launches (rtc_driver.c, beside the other driver entry points) --------------------------------- */

/**
 * Launches fn (a CUfunction) on the current device through the driver's cuLaunchKernel, asynchronously on
 * stream.  what names the caller in messages.  \return PA_OK, PA_ERR_NODEV, PA_ERR_INVAL or PA_ERR_SYS.
 */
int pa_cuda__launch(void *fn, dim3 grid, dim3 block, size_t shmem, cudaStream_t stream, void **params,
                    const char *what);

/** 0 when the primary context of GPU device is known not to be active (nothing can be queued on it), else 1. */
int pa_cuda__primary_active(int device);

/* ---- staging buffers (cuda_staging.c) ------------------------------------------------------------------ */

/*
 * Staged copies borrow a staging set (a GPU's stream and buffers that the library allocates on first use,
 * keeps, grown as needed, for later copies, and frees at exit): pa_cuda__stage_take leases the lowest free set
 * of the current GPU (waiting when all PA_CUDA__STAGE_SETS are taken) and pa_cuda__stage_give returns it; the
 * buffers of a set are the holder's alone until then.
 */
enum { PA_CUDA__STAGE_DATA, PA_CUDA__STAGE_TABLES, PA_CUDA__STAGE_SLOTS };
#define PA_CUDA__RING_MAX 16
#define PA_CUDA__STAGE_SETS 4   /* staged copies that run at once on one GPU */

typedef struct pa_cuda__ring {
    int nthreads;
    size_t chunk;
    void *buf[PA_CUDA__RING_MAX][2];         /* pinned, chunk bytes each: two per thread (double buffering) */
    cudaStream_t stream[PA_CUDA__RING_MAX];
    cudaEvent_t done[PA_CUDA__RING_MAX][2];  /* recorded after each buffer's DMA */
} pa_cuda__ring;

typedef struct pa_cuda__stage {
    int device, index;
    cudaStream_t stream;                     /* blocking: it waits for the legacy default stream's earlier work */
    void *buf[PA_CUDA__STAGE_SLOTS];         /* device buffers */
    size_t bytes[PA_CUDA__STAGE_SLOTS];
    void *pinned;
    size_t pinned_bytes;
    pa_cuda__ring ring;
    int ring_ready;
} pa_cuda__stage;

/** Leases a staging set of the current GPU.  \return PA_OK or an error (no GPU, its stream not made). */
int pa_cuda__stage_take(pa_cuda__stage **out);
/** Gives a set back.  NULL is ignored. */
void pa_cuda__stage_give(pa_cuda__stage *s);
/** A device buffer of at least bytes in one of the set's slots.  \return PA_OK or an error. */
int pa_cuda__stage_dev(pa_cuda__stage *s, int slot, size_t bytes, void **out);
/** A pinned host buffer of at least bytes. */
int pa_cuda__stage_pinned(pa_cuda__stage *s, size_t bytes, void **out);
/** The set's pinned ring for the pageable pipeline, for nthreads threads of chunk bytes. */
int pa_cuda__stage_ring(pa_cuda__stage *s, int nthreads, size_t chunk, pa_cuda__ring **out);
/** Bytes of device and pinned memory the staging sets hold now (for tests and explanations). */
size_t pa_cuda__stage_held(void);
/** Sets in use (made), the most leased at once, and how many copies waited for one (for tests). */
void pa_cuda__stage_stats(int *used, int *peak, long *waits);
/** Frees every staging set no copy holds (run at exit; tests may call it). */
void pa_cuda__stage_release(void);

/* ---- calibration (cost_cuda.c) ---------------------------------------------------------------------- */

/** Measures the cost model's GPU constants on the current GPU into *m (the backend's calibrate hook); with no
 *  usable GPU it leaves them and says so on log.  \return PA_OK or an error of a CUDA call. */
int pa_cuda__calibrate(pa__cost_model *m, FILE *log);

/* ---- the pageable pipeline (copy_pipeline.c) ----------------------------------------------------------- */

/** Host threads the pipeline uses (PA_CUDA_PIPELINE_THREADS, default 8, at most PA_CUDA__RING_MAX). */
int pa_cuda__pipeline_threads(void);
/** Bytes per pipeline chunk (PA_CUDA_PIPELINE_CHUNK_KB, 64 KiB to 64 MiB, else PA_CUDA_PIPELINE_CHUNK_MB, 1 to
 *  64; default 4 MiB). */
size_t pa_cuda__pipeline_chunk(void);
/**
 * Copies bytes between pageable host memory and device memory through the pinned ring of the staging set the
 * caller holds: h2d 1 copies host src to device dst, 0 device src to host dst.  Synchronous.
 */
int pa_cuda__pipeline(pa_cuda__stage *sg, void *dst, const void *src, size_t bytes, int h2d);

/* ---- the copy executors (copy_cuda_exec.c) -------------------------------------------------------------- */

/* Where a side of a copy lives. */
typedef enum pa_cuda__where { PA_CUDA__PAGEABLE, PA_CUDA__PINNED, PA_CUDA__DEVICE, PA_CUDA__OTHER } pa_cuda__where;
pa_cuda__where pa_cuda__where_of(const pa__mem_ops *m);
/** 1 when one side (dst 1, src 0) of an affine shape covers a dense block from its base with strides >= 0. */
int pa_cuda__side_dense(const pa__copy_shape *s, int dst);

/**
 * The shape as a device nest; the host side (0 dst, 1 src, -1 none) takes the staging image's strides: its own
 * when dense, else row-major over the shape (the order in which the host side is packed), without tables.
 */
void pa_cuda__nest_of(const pa__copy_shape *s, int host_side, int dense, pa_cuda__nest *n);

int pa_cuda__exec_dma(const struct pa__plan *p, void *dst, const void *src);
int pa_cuda__exec_dma_async(const struct pa__plan *p, void *dst, const void *src, void *stream);
int pa_cuda__exec_3d(const struct pa__plan *p, void *dst, const void *src);
int pa_cuda__exec_3d_async(const struct pa__plan *p, void *dst, const void *src, void *stream);
int pa_cuda__exec_2d_async(const struct pa__plan *p, void *dst, const void *src, void *stream);
int pa_cuda__exec_permute_async(const struct pa__plan *p, void *dst, const void *src, void *stream);
int pa_cuda__exec_2d(const struct pa__plan *p, void *dst, const void *src);
int pa_cuda__exec_permute(const struct pa__plan *p, void *dst, const void *src);
int pa_cuda__exec_staged(const struct pa__plan *p, void *dst, const void *src);
int pa_cuda__exec_pack(const struct pa__plan *p, void *dst, const void *src);
/**
 * The staged pack's host step: the host side of s (the source when h2d, else the destination) to or from buf,
 * buf in row-major order of s's shape, through the host gather kernel on the threads the copy's size is worth.
 */
int pa_cuda__host_pack(const struct pa__copy_shape *s, int h2d, char *host, char *buf);
int pa_cuda__exec_pipeline(const struct pa__plan *p, void *dst, const void *src);

/* ---- device memory on other GPUs (copy_devices.c) --------------------------------------------------------- */

typedef int (*pa_cuda__exec_fn)(const struct pa__plan *p, void *dst, const void *src);
typedef int (*pa_cuda__exec_async_fn)(const struct pa__plan *p, void *dst, const void *src, void *stream);

/** The number of GPUs found by the first probe (0 when none). */
int pa_cuda__device_count(void);
/**
 * Runs an executor where the copy's dmem sides are: unchanged when they are on the current GPU (always, with one
 * GPU); else on their GPU, or across two GPUs as pa_cuda__cross does; the current GPU is restored after.
 */
int pa_cuda__on_devices(const struct pa__plan *p, void *dst, const void *src, pa_cuda__exec_fn run);
/** A strategy's executor itself, without the wrapping by pa_cuda__on_devices (NULL: not a CUDA strategy). */
pa_cuda__exec_fn pa_cuda__exec_of(const pa__strategy *st);
/** The same for a queued executor: queued when everything is on the current GPU, else waited for and run. */
int pa_cuda__on_devices_async(const struct pa__plan *p, void *dst, const void *src, void *stream,
                              pa_cuda__exec_async_fn queue, pa_cuda__exec_fn run);
/**
 * Runs a copy from dmem on GPU sdev to dmem on GPU ddev on GPU ddev (made current; the caller restores it):
 * reading the source directly when ddev == sdev or ddev may map sdev's memory (unless stage), else through a
 * copy of the source's extent in a buffer of ddev's, freed before returning.
 */
int pa_cuda__cross(const struct pa__plan *p, void *dst, const void *src, int ddev, int sdev, int stage,
                   pa_cuda__exec_fn run);

#endif
