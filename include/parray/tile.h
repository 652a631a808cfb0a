/*
 * parray — tiling on the CPU (PARRAY's for TYPE1(data) itile|otile|iotile TYPE2).
 *
 * An outer type over large memory is cut into tiles of the size of an inner type; each tile is staged into a
 * small buffer laid out by the inner type (on the CPU: a cache-sized block), the callback runs on it, and the
 * tile is stored back.  Tile t is the run of outer flat indices [t*S, (t+1)*S) with S = size(inner):
 *     itile (load):   tile[inner(k)] = data[outer(t*S + k)]     for k in [0, S)
 *     otile (store):  data[outer(t*S + k)] = tile[inner(k)]
 * so the outer type decides which elements form a tile and in which order: declare it tile-major, e.g. for
 * 256-element blocks of A = paged float [[n/16][16]][[n/16][16]],  T = [[#A_0_0][#A_1_0]][[#A_0_1][#A_1_1]].
 * docs/threads.md shows the manual's tiled transposition (listing 23) built this way.
 */
#ifndef PARRAY_TILE_H
#define PARRAY_TILE_H

#include <stdint.h>

#include "error.h"
#include "type.h"

#ifdef __cplusplus
extern "C" {
#endif

/** Tiling modes: load each tile (itile), store each tile (otile), or both (iotile). */
#define PA_ITILE 1
#define PA_OTILE 2
#define PA_IOTILE (PA_ITILE | PA_OTILE)

/**
 * A tile's body: tile is the staged buffer (laid out by the inner type), t the tile's index.
 * \return PA_OK, or an error that stops the walk and is returned by pa_tile.
 */
typedef int (*pa_tile_fn)(void *tile, int64_t t, void *arg);

/**
 * Walks the tiles of data (seen through outer): loads tile t into a private buffer of the inner type when mode
 * has PA_ITILE, runs fn, stores it back when mode has PA_OTILE.  With fn, tiles are walked in order on the
 * calling thread; an otile-only walk starts every tile from a zeroed buffer.  Without fn nothing can look at a
 * tile, so itile and iotile change nothing and return at once (after the checks).
 * \return PA_OK; fn's first error; PA_ERR_INVAL (NULL, bad mode, inner with negative offsets); PA_ERR_SIZE
 *         (size(outer) not a multiple of size(inner), a vmem inner larger than the register file); PA_ERR_ELM
 *         (element sizes differ or are missing); PA_ERR_NODEV (memory the CPU cannot address); PA_ERR_NOMEM.
 */
PA_API int pa_tile(const pa_type *outer, void *data, const pa_type *inner, int mode, pa_tile_fn fn, void *arg);

/**
 * The out-of-place form, destination first as in pa_copy: tile t of src (through src_outer) is loaded, fn runs,
 * and the buffer is stored as tile t of dst (through dst_outer).  With a dst_outer that lists the tiles of dst in transposed order this is a
 * cache-blocked transposition (the manual's listing 23).  Without fn (a pure move) nothing can look at a tile, so
 * the move is element k of src_outer to element k of dst_outer for every k: pa_copy(dst_outer, dst, src_outer,
 * src) makes it (its planner moves a transposition through 16 x 16 register blocks over the copy threads) when
 * the two element types are the same; inside a thread of a pa_for, or between element types of the same size,
 * each tile goes from src through vector registers to dst on the calling thread, transposed there where the two
 * sides run along different dimensions (the inner type, a vmem tile within the register file in the listing, is
 * the unit the registers hold; AVX-512 or AVX2 as vmem chose at run time), with streaming stores into
 * destinations of 8 MiB or more.
 * \return as pa_tile, and PA_ERR_SIZE when the outer types differ in size.
 */
PA_API int pa_tile_copy(const pa_type *dst_outer, void *dst, const pa_type *src_outer, const void *src,
                        const pa_type *inner, pa_tile_fn fn, void *arg);

/**
 * Deprecated: pa_tile_copy with the source first (pa_tile2(src_outer, src, dst_outer, dst, ...) is
 * pa_tile_copy(dst_outer, dst, src_outer, src, ...)); removed in the next release.
 */
PA_API PA_DEPRECATED("use pa_tile_copy (destination first)") int pa_tile2(const pa_type *src_outer,
    const void *src, const pa_type *dst_outer, void *dst, const pa_type *inner, pa_tile_fn fn, void *arg);

#ifdef __cplusplus
}
#endif
#endif
