/*
 * parray — the CUDA backend's internal interface, shared by its C files and its CUDA C++ kernels
 * (permute.cu).  Only plain C types cross that boundary; the kernels' entry points are extern "C".
 */
#ifndef PARRAY_CUDA_INTERNAL_H
#define PARRAY_CUDA_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include <cuda_runtime_api.h>

#ifdef __cplusplus
extern "C" {
#endif

#define PA_CUDA__MAX_MODES 32

/*
 * A loop nest for the device permute: dst[dst_off(k)] = src[src_off(k)] for every flat index k, row-major over
 * the modes (modes[0] outermost).  Strides are in elements and may be negative; a gathered mode reads its
 * offsets (in elements) from a table in device memory instead.  The pointers passed with a nest point at the
 * element of offset 0 on each side.
 */
typedef struct pa_cuda__nest {
    int nmodes;
    size_t elm;
    int64_t size[PA_CUDA__MAX_MODES];
    int64_t dst_stride[PA_CUDA__MAX_MODES], src_stride[PA_CUDA__MAX_MODES];
    const int64_t *dst_table[PA_CUDA__MAX_MODES], *src_table[PA_CUDA__MAX_MODES];
} pa_cuda__nest;

/* How the permute kernel will run a nest: for costs and explanations. */
typedef enum pa_cuda__pkind { PA_CUDA__TILED, PA_CUDA__DIRECT } pa_cuda__pkind;
typedef struct pa_cuda__pinfo {
    pa_cuda__pkind kind;
    int word;               /* bytes per load and store: 1, 2, 4, 8 or 16 */
    int64_t unit;           /* bytes contiguous on both sides (a run), moved as unit/word words */
    int64_t na, nb;         /* tiled: the transposed modes' sizes (a contiguous on dst, b on src) */
    int vec_rows;           /* tiled: 0, or the rows (along a) of the 16-byte-vector tiles of 4-byte units */
    int band;               /* tiled: tile rows per band of the tile order (1: row-major order); direct: 0 */
} pa_cuda__pinfo;

/**
 * Says how pa_cuda__permute runs a nest with these base pointers' alignment (align: the largest power of two
 * dividing both addresses, or 16 when unknown).
 */
void pa_cuda__permute_info(const pa_cuda__nest *n, int align, pa_cuda__pinfo *out);

/**
 * Launches the permute kernel for a nest on a stream (asynchronously).
 * \return the CUDA status of the launch (cudaSuccess, or an error for the caller to report).
 */
cudaError_t pa_cuda__permute(const pa_cuda__nest *n, void *dst, const void *src, cudaStream_t stream);

/**
 * Sets the tile rows per band of the tiled transposes' tile order (permute.cu) for every later launch: band < 1
 * the defaults (16 rows of the 16-byte-vector tiles, 32 of the others), 1 the plain row-major order; returns the
 * previous setting (0: the defaults).  For benchmarks that compare the orders (bench/matrix); copies never need it.
 */
int pa_cuda__permute_set_band(int band);

/**
 * Caps the tiled transposes' grid at per_sm blocks per multiprocessor (fewer tiles in flight, each block looping
 * over more tiles; per_sm < 1: the default, up to 256 per SM, one tile per block) for every later launch; returns
 * the previous setting (0: the default).  For benchmarks, like pa_cuda__permute_set_band.
 */
int pa_cuda__permute_set_grid(int per_sm);

/**
 * on: the tiled transposes cut their tiles from element 0 (as before the shifts that put tile rows on 128-byte
 * boundaries, permute.cu's TileNest); 0: the default.  Returns the previous setting.  For benchmarks.
 */
int pa_cuda__permute_set_unshifted(int on);

/**
 * on: the direct kernel copies runs of 1 KiB or more word by word from their first word, as before the aligned
 * runs that put its stores on the destination's 128-byte lines (permute.cu's WordNest); 0: the default.
 * Returns the previous setting.  For benchmarks.
 */
int pa_cuda__permute_set_unaligned_runs(int on);

#ifdef __cplusplus
}
#endif
#endif
