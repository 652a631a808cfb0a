/*
 * parray — cache-blocked host transposes.
 *
 * Applies when one mode (a) is contiguous on the destination and another (b) on the source, as in a 2-D
 * transpose, possibly inside a higher-rank shape and possibly in units: when the innermost mode is contiguous
 * on both sides (the manual's [[n][n]][m] transposition moves units of m elements), a and b are contiguous
 * in units of that run.  The (a, b) panel is walked in square tiles small enough that the tile's source and
 * destination lines stay in L1 while it is moved, so every line fetched is used whole; the remaining modes
 * are walked by the odometer.
 */
#include <stdint.h>
#include <string.h>

#include "copy_host.h"
#include "cost_model.h"

/*
 * The largest tile edge in units is the cost model's host_transpose_tile (default 64); the edge is halved until
 * a tile fits the 16 KiB staging buffer (64 for 4-byte units, 32 for 16-byte ones).  Measured with
 * bench/copy_calibrate (tiles), one thread, 4096x4096 floats: edge 8 -> 1.8 GB/s, 16 -> 3.1, 32 -> 3.3, 64 ->
 * 4.1 (memcpy: 8.1); unstaged 32x32 tiles ran 1.1 and the plain element loop 0.5.
 */
/*
 * 1: while a tile moves, the next tile's source rows are prefetched, for units of up to 8 bytes.  A tile's
 * source rows (256 B for 64 floats) are too short for the hardware's stream detection.  bench/host_probe on the
 * 16-core host, 8192^2 floats with streaming stores: 0.334 -> 0.352 of memcpy on one thread, 0.70 -> 0.73 on 8,
 * 0.70 -> 0.78 on 16; for 16-byte units (512-B rows) it helped on 1 and 2 threads and cost on 8 and 16.
 */
int pa__transpose_prefetch = 1;

/* Prefetches ta source rows of row bytes, ssa apart: a tile's rows are too short for the hardware's streams. */
static void prefetch_rows(const char *s, int64_t ta, int64_t ssa, int64_t row)
{
    for (int64_t r = 0; r < ta; r++)
        for (int64_t b = 0; b < row; b += 64)
            __builtin_prefetch(s + r * ssa + b, 0, 3);
}

static int affine(const pa__copy_shape *s, int m)
{
    return !s->dst_table[m] && !s->src_table[m];
}

int pa__transpose_modes(const pa__copy_shape *s, int *a, int *b, int64_t *unit)
{
    int last = s->nmodes - 1;
    int64_t u = 1;
    if (s->nmodes >= 3 && affine(s, last) && s->dst_stride[last] == 1 && s->src_stride[last] == 1) {
        u = s->size[last];
        last--;
    }
    *a = *b = -1;
    for (int m = last; m >= 0; m--) {
        if (!affine(s, m))
            continue;
        if (*a < 0 && s->dst_stride[m] == u)
            *a = m;
        else if (*b < 0 && (s->src_stride[m] == u || s->src_stride[m] == -u))
            *b = m;
    }
    *unit = u;
    return *a >= 0 && *b >= 0;
}

#ifdef __SSE2__
#include <emmintrin.h>

/*
 * Writes the destination rows of a staged tile of 4-byte units with 4x4 register transposes: four 16-byte
 * loads from four buffer rows become four 16-byte stores into four destination rows.  The edges beyond the
 * last multiple of 4 are left to the caller.
 */
static void unstage_4(char *d, const char *buf, int64_t ta, int64_t tb, int64_t dsb, int64_t row)
{
    for (int64_t ib = 0; ib + 4 <= tb; ib += 4)
        for (int64_t ia = 0; ia + 4 <= ta; ia += 4) {
            const char *b = buf + ia * row + ib * 4;
            __m128 r0 = _mm_loadu_ps((const float *)b), r1 = _mm_loadu_ps((const float *)(b + row));
            __m128 r2 = _mm_loadu_ps((const float *)(b + 2 * row)), r3 = _mm_loadu_ps((const float *)(b + 3 * row));
            _MM_TRANSPOSE4_PS(r0, r1, r2, r3);
            char *o = d + ib * dsb + ia * 4;
            _mm_storeu_ps((float *)o, r0);
            _mm_storeu_ps((float *)(o + dsb), r1);
            _mm_storeu_ps((float *)(o + 2 * dsb), r2);
            _mm_storeu_ps((float *)(o + 3 * dsb), r3);
        }
}

/* The same with 2x2 transposes of 8-byte units. */
static void unstage_8(char *d, const char *buf, int64_t ta, int64_t tb, int64_t dsb, int64_t row)
{
    for (int64_t ib = 0; ib + 2 <= tb; ib += 2)
        for (int64_t ia = 0; ia + 2 <= ta; ia += 2) {
            const char *b = buf + ia * row + ib * 8;
            __m128d r0 = _mm_loadu_pd((const double *)b), r1 = _mm_loadu_pd((const double *)(b + row));
            char *o = d + ib * dsb + ia * 8;
            _mm_storeu_pd((double *)o, _mm_unpacklo_pd(r0, r1));
            _mm_storeu_pd((double *)(o + dsb), _mm_unpackhi_pd(r0, r1));
        }
}
#endif

/* Writes the destination rows of a staged tile: vector transposes where they apply, the nest elsewhere. */
static void unstage(char *d, const char *buf, int64_t ta, int64_t tb, int64_t U, int64_t dsb, int64_t row,
                    pa__loop2_fn fn)
{
    int64_t q = 1;
#ifdef __SSE2__
    if (U == 4) {
        unstage_4(d, buf, ta, tb, dsb, row);
        q = 4;
    } else if (U == 8) {
        unstage_8(d, buf, ta, tb, dsb, row);
        q = 2;
    }
#endif
    int64_t ta_q = ta / q * q, tb_q = tb / q * q;
    if (ta_q < ta)   /* the right edge: the last columns of every row */
        fn(d + ta_q * U, buf + ta_q * row, tb, dsb, U, ta - ta_q, U, row, (size_t)U);
    if (tb_q < tb)   /* the bottom edge: the last rows, left part */
        fn(d + tb_q * dsb, buf + tb_q * U, tb - tb_q, dsb, U, ta_q, U, row, (size_t)U);
    if (q == 1)
        fn(d, buf, tb, dsb, U, ta, U, row, (size_t)U);
}

/* Bytes of each of the two L1-resident staging buffers a tile goes through. */
#define PA__TILE_BUFFER 16384

/*
 * Moves one ta x tb tile (a: contiguous on dst, b: contiguous on src) through a contiguous buffer: the source's
 * tb-unit rows are read whole into it, then every destination row is written whole from its columns.  Going
 * straight from source to destination would touch ta source rows a large power-of-two stride apart at once,
 * which map to the same few cache sets and evict each other; the buffer's rows do not.  With streaming
 * stores (nt) the destination rows are first assembled in a second buffer and then streamed whole, because
 * streaming 16 bytes at a time into four rows at once flushes partial lines (measured: 1.7 against 3.7 GB/s).
 */
static void tile_staged(char *d, const char *s, int64_t ta, int64_t tb, int64_t U, int64_t ssa, int64_t dsb,
                        int64_t sdb, char *buf, char *out, pa__loop2_fn fn, int nt)
{
    int64_t row = tb * U, orow = ta * U;
    if (sdb == U)
        for (int64_t ia = 0; ia < ta; ia++)
            memcpy(buf + ia * row, s + ia * ssa, (size_t)row);
    else
        fn(buf, s, ta, row, ssa, tb, U, sdb, (size_t)U);
    if (!nt) {
        unstage(d, buf, ta, tb, U, dsb, row, fn);
        return;
    }
    unstage(out, buf, ta, tb, U, orow, row, fn);
    for (int64_t ib = 0; ib < tb; ib++)
        pa__stream_copy(d + ib * dsb, out + ib * orow, (size_t)orow);
}

static int edge_from(int T, int64_t unit_bytes)
{
    while (T > 4 && (int64_t)T * T * unit_bytes > PA__TILE_BUFFER)
        T /= 2;
    return T;
}

int pa__transpose_edge(int64_t unit_bytes)
{
    return edge_from((int)pa__cost()->host_transpose_tile, unit_bytes);
}

/* One (a, b) panel's geometry and the tile machinery, shared by the tiles and the strips around them. */
typedef struct panel {
    int64_t U, ssa, dsb, sdb, T;
    int staged, prefetch, nt;
    pa__loop2_fn fn;
    char *buf, *out;
} panel;

/* Moves units [ia0, ia1) x [ib0, ib1) of the panel at (d, sp) in T x T tiles. */
static void tiles(const panel *p, char *d, const char *sp, int64_t ia0, int64_t ia1, int64_t ib0, int64_t ib1)
{
    int64_t T = p->T, U = p->U;
    for (int64_t ib = ib0; ib < ib1; ib += T) {
        int64_t tb = ib1 - ib < T ? ib1 - ib : T;
        for (int64_t ia = ia0; ia < ia1; ia += T) {
            int64_t ta = ia1 - ia < T ? ia1 - ia : T;
            char *dt = d + ia * U + ib * p->dsb;
            const char *st = sp + ia * p->ssa + ib * p->sdb;
            if (p->prefetch && ia + T < ia1)
                prefetch_rows(st + T * p->ssa, ia1 - ia - T < T ? ia1 - ia - T : T, p->ssa, tb * U);
            if (p->staged) tile_staged(dt, st, ta, tb, U, p->ssa, p->dsb, p->sdb, p->buf, p->out, p->fn, p->nt);
            else p->fn(dt, st, tb, p->dsb, p->sdb, ta, U, p->ssa, (size_t)U);
        }
    }
}

/*
 * With streaming stores, the rows of the panel whose destination starts on a 64-byte line go through whole-line
 * strips (copy_strips.c) and only the rows before the first line, after the last whole strip and the columns
 * after the last whole step through tiles.  Where the strip kernel asks for column blocks, all strips walk one
 * block of columns before the next: a strip writes one line into each destination row of the columns it walks,
 * and over 8192 columns those lines lie in 8192 pages, more than the TLB holds (the strip probe on the 16-core
 * host, 8192^2 floats on one thread: 0.69 of memcpy in blocks of 1024 columns, 0.66 without, 0.72 on huge pages).
 */
static void panel_move(const panel *p, const pa__strip *k, char *d, const char *sp, int64_t na, int64_t nb)
{
    int64_t U = p->U, mis = (int64_t)((uintptr_t)d % 64);
    if (!k || p->sdb != U || p->dsb % 64 != 0 || mis % U != 0) {
        tiles(p, d, sp, 0, na, 0, nb);
        return;
    }
    int64_t head = (64 - mis) % 64 / U;
    int64_t body = na > head ? (na - head) / k->rows * k->rows : 0, cols = nb / k->cols * k->cols;
    if (body == 0 || cols == 0) {
        tiles(p, d, sp, 0, na, 0, nb);
        return;
    }
    tiles(p, d, sp, 0, head, 0, nb);
    int64_t blk = k->block > 0 && k->block < cols ? k->block : cols;
    for (int64_t cb = 0; cb < cols; cb += blk) {
        int64_t w = cols - cb < blk ? cols - cb : blk;
        for (int64_t ia = head; ia < head + body; ia += k->rows)
            k->fn(k, d + ia * U + cb * p->dsb, sp + ia * p->ssa + cb * U, k->rows, w, p->ssa, p->dsb);
    }
    tiles(p, d, sp, head, head + body, cols, nb);
    tiles(p, d, sp, head + body, na, 0, nb);
}

/* nt: 0 ordinary stores, 1 streaming stores; tile: the largest edge (0: the cost model's). */
static int transpose(const pa__copy_shape *s, char *dst, const char *src, int nt, int tile)
{
    int a, b;
    int64_t u;
    if (!pa__transpose_modes(s, &a, &b, &u))   /* a slice too thin to keep its transpose: loop it */
        return pa__kern_gather(s, dst, src);
    int unit_mode = u > 1 ? s->nmodes - 1 : -1;
    int outer[PA__MAX_MODES], nouter = 0;
    for (int m = 0; m < s->nmodes; m++)
        if (m != a && m != b && m != unit_mode)
            outer[nouter++] = m;
    _Alignas(64) char buf[PA__TILE_BUFFER], out[PA__TILE_BUFFER];
    panel p;
    p.U = pa__bytes(u, s->elm);
    p.ssa = pa__bytes(s->src_stride[a], s->elm);   /* a: contiguous on dst, strided on src */
    p.dsb = pa__bytes(s->dst_stride[b], s->elm);   /* b: contiguous on src, strided on dst */
    p.sdb = pa__bytes(s->src_stride[b], s->elm);
    p.T = tile > 0 ? edge_from(tile, p.U) : pa__transpose_edge(p.U);
    p.staged = p.T * p.T * p.U <= PA__TILE_BUFFER;
    p.fn = pa__loop2_for((size_t)p.U);
    p.prefetch = pa__transpose_prefetch == 1 ? p.U <= 8 : pa__transpose_prefetch == 2;
    p.nt = nt != 0;
    p.buf = buf, p.out = out;
    pa__strip strip;
    const pa__strip *k = nt && pa__strip_plan(p.U, &strip) ? &strip : NULL;
    int64_t na = s->size[a], nb = s->size[b];
    pa__odo o;
    pa__odo_init(&o, s, outer, nouter);
    do
        panel_move(&p, k, dst + o.doff, src + o.soff, na, nb);
    while (pa__odo_next(&o));
    if (nt)
        pa__stream_fence();
    return PA_OK;
}

int pa__kern_transpose(const pa__copy_shape *s, char *dst, const char *src)
{
    return transpose(s, dst, src, 0, 0);
}

int pa__kern_transpose_nt(const pa__copy_shape *s, char *dst, const char *src)
{
    return transpose(s, dst, src, 1, 0);
}

int pa__kern_transpose_tile(const pa__copy_shape *s, char *dst, const char *src, int tile, int nt)
{
    return transpose(s, dst, src, nt, tile);
}
