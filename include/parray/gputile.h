/*
 * parray — tiles on the GPU: smem and rmem types inside kernels, copies between dmem, smem and rmem done by the
 * threads of a dimension, sync of a thread dimension, pa_tile over dmem, and a tiled gemm (docs/tiles.md).
 *
 * Types are declared on the host as always (`parray smem float [32][17] S`, `parray rmem float [16][2] R`,
 * dmem types with their parameters bound).  A generator (pa_tilegen) writes CUDA C++ for the kernels that use
 * them, in which every size and stride is a literal:
 *
 *     struct S { typedef float elm_t; size, extent, bytes; off(k); at(i, j); };   S_0, S_1 likewise
 *     struct CUDA_1 { size; tid(); sync(); };                                      one per thread dimension
 *     struct ld { frag; load(f, src, tid); store(dst, f, tid); copy(dst, src, tid); _pred and _async forms };
 *
 * The source is compiled by NVRTC with the kernels that follow it (pa_tilegen_function, pa_cuda_compile) or
 * written as a header for nvcc (pa_tilegen_write).  Everything here builds without CUDA; compiling and running
 * need the CUDA backend (PA_ERR_NODEV otherwise).  Errors are reported as described in error.h.
 */
#ifndef PARRAY_GPUTILE_H
#define PARRAY_GPUTILE_H

#include <stddef.h>
#include <stdint.h>

#include "cuda.h"
#include "error.h"
#include "type.h"

#ifdef __cplusplus
extern "C" {
#endif

/** A generated source: static types, thread dimensions and copies, in the order they were added. */
typedef struct pa_tilegen pa_tilegen;

/** \return PA_OK and *out (an empty source that includes <parray/plcuda/tiles.h>); PA_ERR_INVAL; PA_ERR_NOMEM. */
PA_API int pa_tilegen_create(pa_tilegen **out);

/** Frees a generator.  NULL is ignored. */
PA_API void pa_tilegen_destroy(pa_tilegen *g);

/**
 * Adds a static layout struct NAME for type t (dmem, smem or rmem; parameters bound), and NAME_0, NAME_1, ...
 * for each of its dimensions, named by path as in the manual (S_0_1).  Each struct has elm_t, the constants
 * size (elements), extent (elements from offset 0 to the largest offset, what an array needs), bytes, and
 * off(k) (the offset of flat index k); a type with sub-dimensions also has at(i0, i1, ...) over its top-level
 * dimensions.  Declare arrays in a kernel with PA_SMEM(S, s) and PA_RMEM(R, r) (<parray/plcuda/tiles.h>).
 * \return PA_OK; PA_ERR_INVAL (NULL, a name that is not a C identifier, a name used twice); PA_ERR_MTT (not
 *         dmem/smem/rmem); PA_ERR_UNSUPPORTED (a layout that needs offset tables); PA_ERR_RANGE (an smem type
 *         larger than a block's 227 KiB of shared memory, an rmem type over 255 registers of 4 bytes, or smem or
 *         rmem offsets below 0; the message names the type and the byte counts); PA_ERR_NOMEM.
 */
PA_API int pa_tilegen_type(pa_tilegen *g, const char *name, const pa_type *t);

/**
 * Adds a struct per dimension of a cuda thread type: NAME (the whole type), NAME_0, NAME_1_0, ..., each with
 * size, tid() (the calling thread's id along the dimension, PARRAY's tid_1_0) and sync() (PARRAY's sync_1_0:
 * the barrier of the threads that share the other indices).  sync() is __syncthreads() when those threads lie
 * in one block (every thread of the block must reach it), __syncwarp(mask) when they lie in one warp, and a
 * compile error naming the dimension where no barrier covers them (threads in different blocks).  flags: 0
 * (blocks of 256) or PA_CUDA_GRID, as pa_cuda_threads.
 * \return PA_OK; the errors of pa_cuda_threads; PA_ERR_INVAL (name); PA_ERR_NOMEM.
 */
PA_API int pa_tilegen_threads(pa_tilegen *g, const char *name, const pa_type *threads, int flags);

/**
 * Adds a copy struct NAME for dst[D(k)] = src[S(k)] over every flat index k, done by nthreads threads (the size
 * of the cuda thread dimension that copies; 1 for a thread's own copy).  The struct has
 *
 *     load(frag &f, const elm_t *src, int tid)    store(elm_t *dst, const frag &f, int tid)
 *     copy(elm_t *dst, const elm_t *src, int tid) (load then store)
 *     load_pred(f, src, tid, lim0, lim1, ...)     store_pred(dst, f, tid, lim0, ...)   copy_pred(...)
 *     load_aligned, store_aligned, copy_aligned (as load, store, copy)
 *
 * where tid is the thread's id along the dimension, frag a thread's registers between load and store (for
 * prefetching the next tile while computing on this one), and the _pred forms treat the elements whose index
 * along a top-level dimension of the edge type (the dmem side, else the source) is not below lim of that
 * dimension as outside: load_pred gives zeros for them, store_pred skips them, and copy_pred leaves a dmem
 * destination alone there and writes zeros into an smem or rmem one (a partial tile at the array's edge).
 * load_aligned, store_aligned and copy_aligned skip the run-time alignment check (for pointers the caller
 * knows to be aligned to the vector).  The dmem side is read or written by consecutive threads at consecutive
 * addresses where its layout has a contiguous dimension, in 4-, 8- or 16-byte vectors where both layouts
 * allow (checked again at run time: a misaligned pointer takes the element path).  Shared-memory bank
 * conflicts are not removed by the generator: pad the smem type (the manual's [32][17]); the generated
 * comment says how many wavefronts warp 0's first request costs.  An rmem side must be copied by 1 thread.
 * A copy from a dmem into an smem type also has asynchronous forms (cp.async on sm_80 and later, a plain copy
 * before): copy_async(dst, src, tid), copy_async_aligned and copy_async_pred(dst, src, tid, lim0, ...) (zeros
 * written outside the edges); they return before the data lands: close the group with pa_cp_async_commit(),
 * then pa_cp_async_wait<N>() (at most N groups still in flight) and a barrier before the tile is read.  Units
 * that are not vectors on both sides go as one request per element.
 * \return PA_OK; PA_ERR_SIZE (the types' sizes differ); PA_ERR_ELM (element sizes differ); PA_ERR_MTT;
 *         PA_ERR_PARAM (rmem with nthreads > 1); PA_ERR_RANGE (nthreads not in 1..1024); PA_ERR_UNSUPPORTED;
 *         PA_ERR_INVAL; PA_ERR_NOMEM.
 */
PA_API int pa_tilegen_copy(pa_tilegen *g, const char *name, const pa_type *dst, const pa_type *src, int nthreads);

/**
 * How a copy added by pa_tilegen_copy runs: elements per unit (vector), units per thread, whether each side
 * moves vectors, the shared-memory wavefronts of warp 0's first request (1: no bank conflict; 0: no smem side).
 */
typedef struct pa_tilegen_copy_info {
    int vector;          /* elements per unit */
    int64_t per_thread;  /* units per thread */
    int dst_vector, src_vector;
    int bank_ways;
    int generic;         /* 1: the layouts do not split at each other's boundaries; offsets element by element */
    int ldmatrix;        /* a fragment (pa_tilegen_fragment): matrices per ldmatrix, 0 when it does not fit */
    int trans;           /* 1: ldmatrix's .trans form */
} pa_tilegen_copy_info;

/** \return PA_OK and *out for the copy (or fragment) called name; PA_ERR_NAME when there is none; PA_ERR_INVAL. */
PA_API int pa_tilegen_copy_info_of(const pa_tilegen *g, const char *name, pa_tilegen_copy_info *out);

/* ---- tensor cores: mma fragments as types ---------------------------------------------------------------- */

/** Warp-level matrix-multiply shapes (mma.sync, sm_80 and later), all with fp32 accumulators. */
enum pa_mma_shape {
    PA_MMA_M16N8K8_TF32 = 1,   /* float operands read as TF32 (the low 13 mantissa bits ignored) */
    PA_MMA_M16N8K16_BF16 = 2,  /* bfloat16 operands */
    PA_MMA_M16N8K16_F16 = 3    /* half operands */
};
/** The operands of D = A B + C: A is [16][k], B [k][8], C and D [16][8] (k = 8 or 16 by the shape). */
enum pa_mma_operand { PA_MMA_A = 0, PA_MMA_B = 1, PA_MMA_C = 2 };

/**
 * Declares NAME in scope s: the fragment of operand op of an mma shape over tile, the name of a declared type
 * with two top-level dimensions (rows, columns) at least the operand's size (the operand is its first rows and
 * columns), of any affine layout: row-major, padded, transposed, a window of a larger buffer.  The fragment is
 * the type [[8 # ..][4 # ..]][[2 # ..]...] over the tile's dimensions: dimension 0 is the warp's 32 lanes
 * (PTX's groupID = lane / 4, then threadID_in_group = lane % 4), dimension 1 the lane's register elements in
 * the order mma.sync takes them (docs/tiles.md lists them); element (lane, e) is at the offset of the tile
 * element that lane holds in register element e.  Its memory and element types are the tile's.
 * \return PA_OK; PA_ERR_INVAL (NULL, bad shape or operand, a tile without two dimensions); PA_ERR_NAME (no such
 *         tile); PA_ERR_SIZE (the tile is smaller than the operand); PA_ERR_ELM (the tile's element type is not
 *         the shape's: float for TF32 and every C, bfloat16 or half for the 16-bit shapes' A and B); the errors
 *         of pa_declare.
 */
PA_API int pa_mma_fragment(pa_scope *s, const char *name, int shape, int op, const char *tile);

/**
 * Adds struct NAME for a fragment type frag (pa_mma_fragment's, over an smem tile; C's also over dmem):
 *
 *     elm_t; lanes (32), elems, words (32-bit registers), rows, cols (the operand), v, ldm, ldm_trans
 *     lane_off(lane), reg_off(e)         offsets of dimension 0 and 1: element e of lane is at t[lane_off + reg_off]
 *     row(lane, e), col(lane, e)         the operand coordinates of element e of lane (for edges)
 *     load(w, t, lane)                   A and B: the lane's registers unsigned w[words] from tile t, packed as
 *                                        mma.sync takes them; C: elm_t c[elems]; load_aligned skips the check of
 *                                        t's alignment to the vector, load_e moves elements
 *     load_ldm(w, t, lane)               16-bit A and B where rows (or columns: .trans) of 8 elements are 16
 *                                        contiguous, 16-byte aligned bytes: one ldmatrix (t 16-byte aligned)
 *     store(t, c, lane), store_e         C: the lane's elements into the tile
 *
 * The load is the copy planner's copy of dimension 1 into a thread's registers (vectors where the layout
 * allows); pa_tilegen_copy_info_of(g, NAME) gives its vector, ldmatrix and the shared-memory wavefronts of the
 * warp's worst request (1: free of bank conflicts; pad the tile type where it is more).  Registers for the
 * instructions: pa_mma_m16n8k8_tf32, pa_mma_m16n8k16_bf16, pa_mma_m16n8k16_f16 (<parray/plcuda/tiles.h>).
 * \return PA_OK; PA_ERR_INVAL (NULL, bad shape or operand, a name used before); PA_ERR_MTT (not smem, or
 *         dmem for A or B); PA_ERR_SIZE (not a fragment of that operand: 32 lanes and its element count);
 *         PA_ERR_ELM; PA_ERR_UNSUPPORTED; PA_ERR_NOMEM.
 */
PA_API int pa_tilegen_fragment(pa_tilegen *g, const char *name, const pa_type *frag, int shape, int op);

/** The generated source so far (valid until the next call on g). */
PA_API const char *pa_tilegen_source(const pa_tilegen *g);

/** Writes the source as a header for nvcc.  \return PA_OK; PA_ERR_SYS (the file); PA_ERR_INVAL. */
PA_API int pa_tilegen_write(const pa_tilegen *g, const char *path);

/**
 * Compiles the generated source followed by kernels (CUDA C++ with extern "C" __global__ functions) with
 * NVRTC for sm_<arch> (0: the current GPU), through the kernel caches; no GPU is needed when arch is given.
 * \return PA_OK; PA_ERR_COMPILE (NVRTC's log, the kernels' lines numbered from 1 as "name"); PA_ERR_NODEV.
 */
PA_API int pa_tilegen_compile(const pa_tilegen *g, const char *name, const char *kernels, int arch);

/**
 * As pa_tilegen_compile for the current GPU, then the kernel entry loaded for pa_cuda_for; a kernel that uses
 * local memory (spilled registers, e.g. an rmem type indexed by values the compiler cannot fold) gets a warning
 * on stderr with the byte count.
 */
PA_API int pa_tilegen_function(const pa_tilegen *g, const char *name, const char *kernels, const char *entry,
                               pa_cuda_function *out);

/* ---- pa_tile over dmem ------------------------------------------------------------------------------------ */

/**
 * PARRAY's tile over device memory: tile t of data (seen through the dmem type outer) is its flat indices
 * [t*S, (t+1)*S), S = size(inner), as pa_tile (tile.h) on the CPU.  One block of threads per tile loads it into
 * shared memory laid out by the smem type inner (PA_ITILE), runs the device function fn on it, and stores it
 * back (PA_OTILE; an otile-only walk starts from a zeroed tile).  source defines
 *
 *     __device__ void fn(pa_elm_t *tile, long long t, int tid, int nthreads, const void *arg)
 *
 * called by every thread of the tile's block (tid in [0, nthreads)); tile[pa_inner::off(k)] is element k of
 * the tile (pa_inner is inner's static layout).  arg points at a copy of arg_size bytes.  The kernel is
 * generated per (types, function), compiled by NVRTC and cached.
 * \return PA_OK; PA_ERR_INVAL (NULL, bad mode); PA_ERR_MTT (outer not dmem or inner not smem); PA_ERR_SIZE
 *         (size(outer) not a multiple of size(inner)); PA_ERR_ELM; PA_ERR_RANGE (inner larger than a block's
 *         shared memory, arg_size over 2048); PA_ERR_UNSUPPORTED; PA_ERR_COMPILE; PA_ERR_NODEV; PA_ERR_SYS.
 */
PA_API int pa_tile_dmem(const pa_type *outer, void *data, const pa_type *inner, int mode, const char *source,
                        const char *fn, const void *arg, size_t arg_size);

/**
 * pa_tile_copy over dmem, destination first: tile t of src (src_outer) is loaded, fn runs, the tile is stored as
 * tile t of dst (dst_outer).  \return as pa_tile_dmem.
 */
PA_API int pa_tile_copy_dmem(const pa_type *dst_outer, void *dst, const pa_type *src_outer, const void *src,
                             const pa_type *inner, const char *source, const char *fn, const void *arg,
                             size_t arg_size);

/**
 * Deprecated: pa_tile_copy_dmem with the source first (pa_tile2_dmem(src_outer, src, dst_outer, dst, ...) is
 * pa_tile_copy_dmem(dst_outer, dst, src_outer, src, ...)); removed in the next release.
 */
PA_API PA_DEPRECATED("use pa_tile_copy_dmem (destination first)") int pa_tile2_dmem(const pa_type *src_outer,
    const void *src, const pa_type *dst_outer, void *dst, const pa_type *inner, const char *source, const char *fn,
    const void *arg, size_t arg_size);

/* ---- gemm on dmem types ----------------------------------------------------------------------------------- */

/**
 * A gemm kernel's shape: block tile bm x bn, k-step bk, threads, each thread's tm x tn results; lanes_n: how
 * many lanes of a warp lie along n (the rest along m; 0: the threads along n, at most 32);
 * min_blocks: resident blocks per multiprocessor asked of the compiler (0: 2 for blocks of up to 256 threads);
 * stages: how the tiles of A and B reach shared memory: 1 through registers into two shared buffers (the next
 * tiles loaded while the current ones are multiplied; with bk >= 16 an operand whose tile moves as 16-byte
 * vectors on both sides goes by cp.async into the other buffer instead), 2 to 8 by asynchronous copies
 * (cp.async) into that many shared buffers, stages - 1 tiles in flight; 0 the default.
 */
typedef struct pa_gemm_config {
    int bm, bn, bk;
    int tm, tn;
    int threads;
    int lanes_n;
    int min_blocks;
    int stages;
    int compute;   /* float operands: PA_GEMM_FP32 (0, the default) or PA_GEMM_TF32 (tensor cores) */
} pa_gemm_config;

/** pa_gemm_config.compute: how float operands are multiplied (half and bfloat16 operands always take the
 * tensor cores, with fp32 accumulators). */
enum pa_gemm_compute { PA_GEMM_FP32 = 0, PA_GEMM_TF32 = 1 };

/**
 * pa_gemm_info.strategy: which kernel a gemm ran.  PA_GEMM_SIMT: the fp32/fp64 kernel of fused multiply-adds;
 * PA_GEMM_MMA_SYNC: the tensor-core kernel of warp-level mma.sync (sm_80 and later); PA_GEMM_WGMMA: on a GPU of
 * compute capability 9.0 (Hopper), the kernel of warpgroup MMAs (wgmma, compiled for sm_90a) fed by the bulk tensor
 * copy engine, taken by default for TF32, BF16 and FP16 wherever both operands' dimensions have one stride each
 * (docs/tiles.md); the environment variable PA_GEMM_WGMMA=0 turns it off (mma.sync then runs, for comparison).
 */
enum pa_gemm_strategy { PA_GEMM_SIMT = 0, PA_GEMM_MMA_SYNC = 1, PA_GEMM_WGMMA = 2 };

/** What a gemm ran, for benchmarks: the strategy, the shape, the kernel's resources and the occupancy. */
typedef struct pa_gemm_info {
    pa_gemm_config config;
    int registers;           /* per thread */
    int smem_bytes;          /* per block (the shared tiles, double-buffered) */
    int local_bytes;         /* per thread: spills */
    int blocks_per_sm;       /* resident blocks per multiprocessor */
    int fast_a, fast_b, fast_c;   /* 1: the type's tiles are shifted copies of one static tile layout */
    int strategy;            /* enum pa_gemm_strategy: the kernel that ran */
    int copied;              /* PA_GEMM_WGMMA: operands first copied K-major into scratch memory (1: A, 2: B) */
} pa_gemm_info;

/**
 * C = alpha * A * B + beta * C on the current GPU, for float or double dmem types: A of [M][K], B of [K][N], C of
 * [M][N] by their top-level dimensions, each dimension any affine layout (row-major, transposed, blocked,
 * windows of larger arrays); the tiled kernel is generated from the three types (the manual's section 7.1),
 * compiled by NVRTC and cached; half and bfloat16 operands (and float with compute PA_GEMM_TF32) take the tensor
 * cores: on a Hopper GPU the wgmma strategy where A's and B's dimensions have one stride each, else mma.sync
 * (pa_gemm_strategy).  Tiles of a type whose dimensions do not cut into shifted copies of one tile
 * are read element by element (correct, slower).  Waits for the result: the kernel is queued on the
 * default stream and the call waits for that stream, so also for work queued there before it; a fault of
 * either is returned as PA_ERR_SYS.  With beta 0, C is not read.
 * \return PA_OK; PA_ERR_INVAL (NULL, not two top-level dimensions each); PA_ERR_SIZE (the shapes do not
 *         match); PA_ERR_MTT (not dmem); PA_ERR_ELM (not float or double, or mixed); PA_ERR_UNSUPPORTED;
 *         PA_ERR_COMPILE; PA_ERR_NODEV; PA_ERR_SYS.
 */
PA_API int pa_gemm_dmem(const pa_type *C, void *c, const pa_type *A, const void *a, const pa_type *B,
                        const void *b, double alpha, double beta);

/**
 * As pa_gemm_dmem with a kernel shape (NULL: the default for the element type; bm, bn divisible by tm, tn,
 * (bm/tm)*(bn/tn) == threads, threads a multiple of 32, bm*bk and bk*bn multiples of threads), queued on stream
 * (a cudaStream_t, NULL the default stream) without waiting, and what ran in *info (may be NULL).  With a and b
 * 16-byte aligned and sizes the tiles divide, the kernel's loop has no alignment or edge branches.
 * \return as pa_gemm_dmem; PA_ERR_PARAM for a shape that breaks those rules.
 */
PA_API int pa_gemm_dmem_async(const pa_type *C, void *c, const pa_type *A, const void *a, const pa_type *B,
                              const void *b, double alpha, double beta, const pa_gemm_config *config, void *stream,
                              pa_gemm_info *info);

/**
 * The generated CUDA source of the gemm kernel for these types (the caller frees it), or NULL (error set): the
 * kernel pa_gemm_dmem runs when a and b are 16-byte aligned (the SIMT or mma.sync kernel; on a Hopper GPU the
 * tensor-core precisions run the wgmma strategy's kernel instead, whose source this does not give).
 */
PA_API char *pa_gemm_dmem_source(const pa_type *C, const pa_type *A, const pa_type *B, const pa_gemm_config *config);

#ifdef __cplusplus
}
#endif
#endif
