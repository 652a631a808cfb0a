/*
 * parray — copy between any two layouts (PARRAY's "copy S(src) to D(dst)").
 *
 * pa_copy sets dst[dst_type(k)] = src[src_type(k)] for every flat index k in [0, size).  Both types must have
 * the same size and element size.  The planner compiles both types, coalesces their layouts jointly and picks
 * a strategy (memcpy runs, element loops specialised by size, cache-blocked transposes, gathers, several
 * threads for large copies).  Plans are cached per pair of types.  Setting PA_PLAN_INFO=1 in the environment
 * prints the one-line explanation of every plan when it is made.
 */
#ifndef PARRAY_COPY_H
#define PARRAY_COPY_H

#include <stddef.h>

#include "error.h"
#include "type.h"

#ifdef __cplusplus
extern "C" {
#endif

/**
 * Copies every element of src (read through src_type) to dst (written through dst_type).  Source and
 * destination must not overlap.  When dst_type maps several indices to the same offset (a stride of 0, a
 * func that repeats), one of their source elements lands there; which one is unspecified, since the loops
 * may be reordered and split over threads.  Between two empty types (size 0) nothing moves and the pointers
 * are not read (NULL will do); the types are checked as for any copy.
 * \return PA_OK, PA_ERR_INVAL (NULL argument), PA_ERR_SIZE (sizes differ: both sizes are in the message),
 *         PA_ERR_ELM (element sizes differ or are unspecified), PA_ERR_MTT (no strategy for the memory types),
 *         PA_ERR_RANGE (dst or src points into an array pa_create made, and its type's extent from there leaves
 *         that array: pa_copy(A, a + 1, A, a); pointers the library did not allocate are not checked),
 *         PA_ERR_NOMEM, PA_ERR_NODEV (a dmem side and no usable GPU: nothing is written), PA_ERR_SYS (a CUDA
 *         call failed during a GPU copy; CUDA's error is in the message, and the destination may be partly
 *         written).  Otherwise nothing is written when an error is returned.  A layout the compiler refuses
 *         (offset tables past its budget) is no error: such a copy runs element by element through the
 *         reference offsets (explained as strategy=walk; a dmem side is staged through a host image).
 * When either type is distributed (its dimensions mix a thread type with memory, manual §5.5), the copy is
 * made by the backend of the thread type: over mpi, a collective call of every process of the communicator
 * (mpi.h); over pthd, each thread of a pa_for copies its own part, and between two arrays distributed over
 * the threads differently (the all-to-all) every thread of the array calls it, collectively.  Between a gamem
 * array and an mpi-distributed one every rank moves its own part one-sidedly, collectively.  Uneven
 * distributions are windows [n # DIST] (docs/types.md).  Further errors then: PA_ERR_RANGE (an element on a
 * process or thread the array does not have), PA_ERR_UNSUPPORTED (memory the backend cannot move, two thread
 * types, a pthd copy outside its array), PA_ERR_INVAL (a NULL array whose elements are needed; on the NCCL
 * route, a process's dmem array on another GPU than its communicator's: every process returns it, naming that
 * process and both GPUs), PA_ERR_NODEV (no MPI backend in this build).
 */
PA_API int pa_copy(const pa_type *dst_type, void *dst, const pa_type *src_type, const void *src);

/**
 * pa_copy on a CUDA stream (a cudaStream_t; NULL is the default stream): copies between pinned and device
 * memory by DMA or cudaMemcpy2D, and device-side layout changes by the permute kernel, are queued on the
 * stream and the call returns at once; the copy has happened when the stream reaches it.  Every other copy
 * (host memory on both sides, pageable memory, staging through library buffers, gather tables) first waits
 * for the stream's earlier work and then runs as pa_copy does, so it is complete when the call returns.  For
 * NULL that is the legacy default stream of the current GPU, with the work of blocking streams ordered before
 * it (kernels and copies queued by the library or by the program); a fault of that work is returned as
 * PA_ERR_SYS.  Where the GPU's primary context is not active, nothing can be queued and nothing is waited for.
 * pa_copy_explain says which ("async=queued" or "async=waits").  The arrays must stay allocated until the
 * stream has reached the copy.
 * \return as pa_copy; errors of a queued copy itself show at the next synchronisation of the stream;
 *         PA_ERR_SYS (the earlier work waited for failed: CUDA's error is in the message).
 *         PA_ERR_NODEV for a non-NULL stream in a build without the CUDA backend.
 */
PA_API int pa_copy_async(const pa_type *dst_type, void *dst, const pa_type *src_type, const void *src,
                         void *stream);

/**
 * Writes one line saying what pa_copy(dst_type, ..., src_type, ...) does: the strategy, the jointly
 * coalesced shape, the run length, the number of threads, whether pa_copy_async queues it or waits, and why.
 * \return the length of the full line (as snprintf), or a negative error (as pa_copy).
 */
PA_API int pa_copy_explain(const pa_type *dst_type, const pa_type *src_type, char *buf, size_t len);

/** What the planner chose for a copy (pa_copy_query): the fields of pa_copy_explain's line as values. */
typedef struct pa_copy_info {
    const char *strategy;  /**< the strategy's name, as explain prints it ("memcpy_runs", "transpose", "cuda_2d",
                                "walk", "MPI_Alltoall", ...); a string of the library's, valid for the process */
    int threads;           /**< host threads the copy runs on (1 for a distributed copy's own transfer) */
    int pieces;            /**< 0 for one plan, else the number of pieces (the other fields: the largest's) */
    int queued;            /**< 1 when pa_copy_async queues the copy on the stream, 0 when it waits */
    int streaming;         /**< 1 when the host side is written with streaming stores */
    double predicted_us;   /**< the planner's predicted time, microseconds; negative when it has none */
} pa_copy_info;

/**
 * Says what pa_copy(dst_type, ..., src_type, ...) would do, as values (what pa_copy_explain writes in words),
 * without moving data: the strategy chosen by name, the threads, the pieces, whether pa_copy_async queues it,
 * streaming stores and the predicted time.  Plans are made and cached as for pa_copy.  For a distributed copy
 * over mpi it is collective, like pa_copy_explain.
 * \return PA_OK, PA_ERR_INVAL (info NULL), PA_ERR_UNSUPPORTED (a distributed copy whose backend has no query:
 *         the pthd-distributed copies) or an error as pa_copy's checks give it.
 */
PA_API int pa_copy_query(const pa_type *dst_type, const pa_type *src_type, pa_copy_info *info);

/**
 * Sets the most threads a host copy may use (0: the default, this process's share of the host's CPUs, see
 * pa_host_share in topology.h; PA_COPY_THREADS in the environment gives the initial value).  \return PA_OK.
 */
PA_API int pa_copy_set_threads(int nthreads);

#ifdef __cplusplus
}
#endif
#endif
