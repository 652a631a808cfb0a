/*
 * A PL/CUDA function over the "tile" device library's 2-D tiles and block reductions, shared by plcuda_compile
 * (compiled for sm_90 without a GPU) and plcuda_gpu (run and checked on the host).
 *
 * tile_scale(src, dst, rows, cols): the rows x cols row-major matrix is cut into 8 x 16 tiles on a grid that
 * starts 3 rows above and 5 columns left of the matrix, so the edge tiles lie partly outside it.  One block of
 * 128 threads per tile: pa_tile_load brings the tile into shared memory (zero outside the matrix), pa_block_max
 * and pa_block_min give the largest and smallest element inside the matrix, every element becomes
 * 2 * x + (max - min), and pa_tile_store writes the tile back to dst, skipping what lies outside.  The result is
 * the number of loaded elements outside the matrix that were not zero (0 when pa_tile_load fills them).
 */
#ifndef PARRAY_TEST_TILE_KERNEL_H
#define PARRAY_TEST_TILE_KERNEL_H

#include <parray/kernel.h>

enum { TILE_H = 8, TILE_W = 16, TILE_R0 = -3, TILE_C0 = -5 };

static const char *const tile_scale_src =
    "#plcuda_include \"tile\"\n"
    "#plcuda_begin\n"
    "#plcuda_num_threads tile_threads\n"
    "#plcuda_kernel_blocksz 128\n"
    "#plcuda_shmem_blocksz 1024\n"
    "  extern __shared__ float shm[];\n"
    "  float *tile = shm, *red = shm + 128;\n"
    "  const int th = 8, tw = 16;\n"
    "  long tiles_x = (arg4 + 5 + tw - 1) / tw;\n"
    "  long r0 = (long)(blockIdx.x / tiles_x) * th - 3, c0 = (long)(blockIdx.x % tiles_x) * tw - 5;\n"
    "  pa_tile_load(tile, arg1, arg3, arg4, arg4, r0, c0, th, tw);\n"
    "  float hi = -1e30f, lo = 1e30f;\n"
    "  int outside_nonzero = 0;\n"
    "  for (int k = threadIdx.x; k < th * tw; k += blockDim.x) {\n"
    "    long r = r0 + k / tw, c = c0 + k % tw;\n"
    "    if (r >= 0 && r < arg3 && c >= 0 && c < arg4) {\n"
    "      hi = tile[k] > hi ? tile[k] : hi;\n"
    "      lo = tile[k] < lo ? tile[k] : lo;\n"
    "    } else if (tile[k] != 0.0f) {\n"
    "      outside_nonzero++;\n"
    "    }\n"
    "  }\n"
    "  float bmax = pa_block_max(hi, red), bmin = pa_block_min(lo, red);\n"
    "  for (int k = threadIdx.x; k < th * tw; k += blockDim.x)\n"
    "    tile[k] = 2.0f * tile[k] + (bmax - bmin);\n"
    "  pa_tile_store(tile, arg2, arg3, arg4, arg4, r0, c0, th, tw);\n"
    "  if (outside_nonzero) atomicAdd(retval, outside_nonzero);\n"
    "#plcuda_end\n";

static const char *const tile_scale_sig = "int (const float[], inout float[], int, int)";

/* One block of 128 threads per tile of the grid that covers the matrix from (-3, -5). */
static inline int64_t tile_threads(const pa_arg *args, int nargs, void *ret, void *ctx)
{
    (void)nargs, (void)ret, (void)ctx;
    int64_t rows = *(const int *)args[2].ptr, cols = *(const int *)args[3].ptr;
    return ((rows - TILE_R0 + TILE_H - 1) / TILE_H) * ((cols - TILE_C0 + TILE_W - 1) / TILE_W) * 128;
}

static const pa_kernel_func tile_scale_funcs[] = {{"tile_threads", tile_threads, NULL}};

#endif
