/*
 * parray — PL/CUDA device library "tile" (#plcuda_include "tile"): loops over a kernel's threads, block-wide
 * reductions, and 2-D tiles moved between global and shared memory by a whole block.
 *
 *     PA_FOR_EACH(i, n) { ... }                 grid-stride loop: every i in [0, n) once over the kernel's threads
 *     pa_block_sum(v, shm), pa_block_max(v, shm), pa_block_min(v, shm)
 *                                               the block's reduction of one value per thread, returned to every
 *                                               thread; shm holds blockDim.x values (e.g. the dynamic shared
 *                                               memory of #plcuda_shmem_unitsz sizeof(T)); any block size
 *     pa_tile_load(tile, src, rows, cols, ld, r0, c0, th, tw)
 *                                               tile[th][tw] (row-major, shared) = src[r0.., c0..] of a row-major
 *                                               rows x cols matrix with leading dimension ld; outside it, 0
 *     pa_tile_store(tile, dst, rows, cols, ld, r0, c0, th, tw)   the reverse, skipping what lies outside
 *
 * Every function is called by all threads of the block (they synchronise it).  Device code for NVRTC, after the
 * PL/CUDA prelude; no standard library.
 */
#ifndef PARRAY_PLCUDA_TILE_H
#define PARRAY_PLCUDA_TILE_H

#define PA_FOR_EACH(i, n) for (long i = pa_global_id(); i < (long)(n); i += pa_global_size())

/* A tree over any number of threads: each round folds the upper part of the active range onto the lower. */
#define PA__BLOCK_REDUCE(name, combine)                                                                  \
    template <typename T> static __device__ T name(T v, T *shm)                                          \
    {                                                                                                    \
        unsigned t = threadIdx.x, active = blockDim.x;                                                   \
        shm[t] = v;                                                                                      \
        __syncthreads();                                                                                 \
        while (active > 1) {                                                                             \
            unsigned half = (active + 1) / 2;                                                            \
            if (t < active - half) {                                                                     \
                T a = shm[t], b = shm[t + half];                                                         \
                shm[t] = combine;                                                                        \
            }                                                                                            \
            __syncthreads();                                                                             \
            active = half;                                                                               \
        }                                                                                                \
        T r = shm[0];                                                                                    \
        __syncthreads();                                                                                 \
        return r;                                                                                        \
    }
PA__BLOCK_REDUCE(pa_block_sum, a + b)
PA__BLOCK_REDUCE(pa_block_max, a > b ? a : b)
PA__BLOCK_REDUCE(pa_block_min, a < b ? a : b)

template <typename T>
static __device__ void pa_tile_load(T *tile, const T *src, long rows, long cols, long ld, long r0, long c0, int th,
                                    int tw)
{
    for (int k = threadIdx.x; k < th * tw; k += blockDim.x) {
        long r = r0 + k / tw, c = c0 + k % tw;
        tile[k] = (r >= 0 && r < rows && c >= 0 && c < cols) ? src[r * ld + c] : (T)0;
    }
    __syncthreads();
}

template <typename T>
static __device__ void pa_tile_store(const T *tile, T *dst, long rows, long cols, long ld, long r0, long c0, int th,
                                     int tw)
{
    __syncthreads();
    for (int k = threadIdx.x; k < th * tw; k += blockDim.x) {
        long r = r0 + k / tw, c = c0 + k % tw;
        if (r >= 0 && r < rows && c >= 0 && c < cols)
            dst[r * ld + c] = tile[k];
    }
    __syncthreads();
}

#endif
