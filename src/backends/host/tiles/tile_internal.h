/*
 * parray — internal declarations of pa_tile / pa_tile_copy on the CPU: the tile plan (a tile's elements as a few
 * strided digits, tile_digits.c) and the vmem register-tile mover (tile_vmem.c).
 */
#ifndef PARRAY_TILE_INTERNAL_H
#define PARRAY_TILE_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include "internal.h"

/* ---- the SIMD set of vmem (mem_vmem.c) ------------------------------------------------------------------ */

#define PA__VMEM_SCALAR 0   /* sse2 or scalar: the movers use plain loops */
#define PA__VMEM_AVX2 1
#define PA__VMEM_AVX512 2

/** The SIMD set vmem chose (pa_vmem_isa) as one of the PA__VMEM_ levels. */
int pa__vmem_level(void);

/* ---- tile plans (tile_digits.c) --------------------------------------------------------------------------- */

#define PA__TILE_DIGITS 8

/*
 * Tile t of an outer type is its flat indices [t*S, (t+1)*S).  A plan writes both the tile index t and the
 * index k inside a tile as digits (row-major, outermost first) on which the source's, the destination's and
 * the buffer's offsets are affine:
 *     src offset of (t, k) = sbase + sum tdig_i * ts[i] + sum kdig_j * ks[j]     (the same with d and b)
 * Adjacent digits are merged where all sides allow, so the manual's tiled transposition has two tile digits
 * (block row, block column) and two in-tile digits (row, column) with the source contiguous along the column
 * and the destination along the row.
 */
typedef struct pa__tile_plan {
    int nt, nk;                                          /* tile digits, in-tile digits */
    int64_t tsize[PA__TILE_DIGITS], ts[PA__TILE_DIGITS], td[PA__TILE_DIGITS];
    int64_t ksize[PA__TILE_DIGITS], ks[PA__TILE_DIGITS], kd[PA__TILE_DIGITS], kb[PA__TILE_DIGITS];
    int64_t sbase, dbase, bbase;
} pa__tile_plan;

/**
 * Plans the tiles of S elements of src and dst (layouts of the same size) through the buffer layout inner (size
 * S).  \return 1 and *p when every layout is affine and splits so, in at most PA__TILE_DIGITS digits each; 0
 * otherwise (the caller then walks joint runs).
 */
int pa__tile_plan_make(const pa__layout *src, const pa__layout *dst, const pa__layout *inner, int64_t S,
                       pa__tile_plan *p);

/* ---- the register-tile mover (tile_vmem.c) ------------------------------------------------------------- */

/**
 * Moves an R x C block of e-byte elements, d[i*dr + j*dc] = s[i*sr + j*sc] (strides in elements), through the
 * vector registers of vmem's SIMD set: rows contiguous on both sides are copied whole; a block contiguous along
 * j in the source and along i in the destination (or the other way round) is transposed in registers, 16 x 16
 * 4-byte or 8 x 8 8-byte elements at a time on AVX-512 (16 x 8 and 8 x 4 on AVX2), each destination row of a
 * block one 64-byte line.  stream: whole aligned lines
 * of the destination are written with streaming stores (the caller fences, pa__stream_fence).
 */
void pa__tile_move(char *d, int64_t dr, int64_t dc, const char *s, int64_t sr, int64_t sc, int64_t R, int64_t C,
                   size_t e, int stream);

#endif
