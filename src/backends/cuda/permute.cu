/*
 * parray — the generic device permute: dst[dst_off(k)] = src[src_off(k)] over a loop nest of up to 32 modes.
 *
 * The nest is first rewritten in words: the innermost mode, when it is contiguous on both sides, is folded
 * into a unit (a run of bytes common to both sides), and the widest word (16, 8, 4, 2 or 1 bytes) dividing the
 * unit, every stride and both base addresses is chosen, so that a unit of 12 bytes moves as three 4-byte words
 * and a float4 as one 16-byte word.  Two kernels then share the work:
 *  - tiled: when one mode is contiguous on the destination and another on the source (a transpose in units of
 *    up to 64 bytes), 32x32-unit tiles go through shared memory so that both the loads and the stores are
 *    coalesced; the remaining modes are looped over by the grid.  4-byte units with 16-byte aligned strides
 *    (float and int transposes) take tiles of 128 x 32 words moved as 16-byte vectors on both sides instead;
 *    either way the tiles are handed out in bands of tile rows (TileNest), so that the tiles in flight stay
 *    within a compact part of both arrays;
 *  - direct: every other nest, one word per thread step, offsets from the flat index by division (a fast
 *    multiply-shift division when the index fits 31 bits); gathered modes read their offsets from device tables.
 *    Runs of 1 KiB or more whose destination rows are not all on 128-byte boundaries (a window into a matrix,
 *    whose elements start 16 bytes past its header) are placed on the destination's lines: each run's words are
 *    shifted within a padded run so that every warp stores whole 128-byte lines (aligned runs, WordNest).
 * Both are compiled ahead of time for every word width; nothing is generated at run time.
 */
#include <stdint.h>

#include "cuda_internal.h"

namespace {

constexpr int MAXM = PA_CUDA__MAX_MODES;
constexpr int TILE = 32;
constexpr int THREADS = 256;
constexpr int ILP = 4;

/* Division by a run-time constant as a multiply and a shift (valid for dividends below 2^31). */
struct FastDiv {
    uint32_t d, mul, shift;
};

FastDiv make_div(uint32_t d)
{
    FastDiv f{d, 0, 0};
    while ((1ull << f.shift) < d)
        f.shift++;
    f.mul = (uint32_t)(((1ull << 32) * ((1ull << f.shift) - d)) / d + 1);
    return f;
}

__device__ __forceinline__ uint32_t div_q(uint32_t n, const FastDiv &f)
{
    return (__umulhi(n, f.mul) + n) >> f.shift;
}

/*
 * A nest in words, as the direct kernel reads it.
 *
 * Aligned runs (run > 0): the innermost mode is a run of `run` words contiguous on both sides, padded to
 * size[n - 1] virtual words, a multiple of the words of a 128-byte line (lmask + 1).  Virtual word v of a run
 * whose destination starts o = (its address in words) mod (lmask + 1) into a line is the run's word v - o (none
 * when outside 0 .. run - 1), so that the warps, whose 32 flat indices start on a multiple of 32, each store
 * whole lines of the destination instead of straddling one more line with half-written sectors at both ends;
 * the padding costs at most two lines of idle threads per run.
 */
struct WordNest {
    int n;
    int64_t total;
    int64_t tmul;                          /* words per element, for table entries */
    int64_t size[MAXM];
    FastDiv div[MAXM];
    int64_t ds[MAXM], ss[MAXM];
    const int64_t *dt[MAXM], *st[MAXM];
    int64_t run;                           /* aligned runs: the run's words, else 0 */
    uint64_t dword0, lmask;                /* aligned runs: the destination's address in words; line words - 1 */
};

/*
 * What the tiled kernel reads: the transposed modes a (contiguous on dst) and b (contiguous on src), in units
 * of uw words, and the outer modes, whose offsets each block computes once per tile.
 *
 * Tile order: the (a, b) plane of tiles is cut into bands of `band` tile rows along a; the tiles of a band go
 * down a first (ta, ta+1, .. within the band, then the next tb).  With band 1 this is the plain row-major order
 * (tb fastest), in which the ~1000 tiles in flight share one or two tile rows: their reads cover a few source
 * rows but their writes touch every row of the destination, 512 bytes each — on a 1 GiB float matrix all of
 * its 2 MiB pages at once.  Bands (band_of) keep both sides' in-flight footprint near 1/8 of that.
 *
 * Tile placement: tile (ta, tb) covers a in [ta * A - sa, ..) and b in [tb * 32 - sb, ..), where the shifts put
 * the tiles' rows on 128-byte boundaries of the destination (along a) and of the source (along b) when the
 * arrays do not start on one: a matrix's elements start 16 bytes after its header, and tiles cut from element 0
 * then wrote every 512-byte row with a half sector at each end, which the memory completes by reading it first.
 * The first and last tiles along each mode are partial (the edge path).
 */
struct TileNest {
    int n;
    int uw;
    int64_t na, nb, tiles_a, tiles_b, ntiles;
    int64_t band;                          /* tile rows per band, 1 .. tiles_a */
    int64_t sa, sb;                        /* the tiles' shifts along a and b, in units (below) */
    FastDiv div_plane, div_bandt, div_band;   /* tiles_a * tiles_b, band * tiles_b, band (when ntiles < 2^31) */
    FastDiv div[MAXM];                     /* the outer modes' sizes, when ntiles < 2^31 */
    int64_t ssa, dsb;                      /* src stride of a, dst stride of b, in words */
    int64_t size[MAXM], ds[MAXM], ss[MAXM];
};

template <typename I>
__device__ __forceinline__ I divide(I n, const WordNest &p, int m)
{
    if constexpr (sizeof(I) == 4)
        return (I)div_q((uint32_t)n, p.div[m]);
    else
        return n / (I)p.size[m];
}

/* The offsets of flat index k; false for a padding word of an aligned run (RUNS), which moves nothing. */
template <typename I, bool RUNS>
__device__ __forceinline__ bool offsets(const WordNest &p, I k, int64_t &doff, int64_t &soff)
{
    doff = 0;
    soff = 0;
    int top = p.n - 1;
    int64_t v = 0;
    if (RUNS) {
        I q = divide<I>(k, p, top);
        v = (int64_t)(k - q * (I)p.size[top]);
        k = q;
        top--;
    }
    for (int m = top; m >= 0; m--) {
        I q = divide<I>(k, p, m);
        I digit = k - q * (I)p.size[m];
        k = q;
        doff += p.dt[m] ? p.dt[m][digit] * p.tmul : (int64_t)digit * p.ds[m];
        soff += p.st[m] ? p.st[m][digit] * p.tmul : (int64_t)digit * p.ss[m];
    }
    if (RUNS) {
        int64_t i = v - (int64_t)((p.dword0 + (uint64_t)doff) & p.lmask);
        if (i < 0 || i >= p.run)
            return false;
        doff += i;
        soff += i;
    }
    return true;
}

template <typename W, typename I, bool RUNS>
__global__ void __launch_bounds__(THREADS) direct(const __grid_constant__ WordNest p, W *__restrict__ dst,
                                                  const W *__restrict__ src)
{
    const I step = (I)gridDim.x * THREADS;
    const I total = (I)p.total;
    for (I k = (I)blockIdx.x * THREADS + threadIdx.x; k < total; k += ILP * step) {
        /* ILP independent loads in flight before the first store. */
        W v[ILP];
        int64_t d[ILP];
        bool ok[ILP];
#pragma unroll
        for (int j = 0; j < ILP; j++) {
            I kj = k + (I)j * step;
            int64_t s;
            ok[j] = kj < total && offsets<I, RUNS>(p, kj, d[j], s);
            if (ok[j])
                v[j] = src[s];
        }
#pragma unroll
        for (int j = 0; j < ILP; j++)
            if (ok[j])
                dst[d[j]] = v[j];
    }
}

/* Where tile t starts: its tile coordinates along a and b (in band order, above), and the offsets (in words) of
 * its outer modes. */
template <bool FAST>
__device__ __forceinline__ void tile_origin(const TileNest &p, int64_t t, int64_t &ta, int64_t &tb, int64_t &doff,
                                            int64_t &soff)
{
    doff = 0;
    soff = 0;
    if (FAST) {
        /* The tile index by multiply-shift divisions: 64-bit ones would cost more than the tile's copy. */
        uint32_t u = (uint32_t)t, o = div_q(u, p.div_plane);
        uint32_t idx = u - o * p.div_plane.d, g = div_q(idx, p.div_bandt);
        uint32_t r = idx - g * p.div_bandt.d, a_lo = g * (uint32_t)p.band;
        uint32_t h = min((uint32_t)p.band, (uint32_t)p.tiles_a - a_lo);   /* the last band may be shorter */
        uint32_t q = h == (uint32_t)p.band ? div_q(r, p.div_band) : r / h;
        ta = a_lo + (r - q * h);
        tb = q;
        u = o;
        for (int m = p.n - 1; m >= 0; m--) {
            q = div_q(u, p.div[m]);
            uint32_t digit = u - q * p.div[m].d;
            u = q;
            doff += (int64_t)digit * p.ds[m];
            soff += (int64_t)digit * p.ss[m];
        }
    } else {
        int64_t plane = p.tiles_a * p.tiles_b, o = t / plane, idx = t - o * plane;
        int64_t g = idx / (p.band * p.tiles_b), r = idx - g * p.band * p.tiles_b, a_lo = g * p.band;
        int64_t h = min(p.band, p.tiles_a - a_lo);
        ta = a_lo + r % h;
        tb = r / h;
        for (int m = p.n - 1; m >= 0; m--) {
            int64_t digit = o % p.size[m];
            o /= p.size[m];
            doff += digit * p.ds[m];
            soff += digit * p.ss[m];
        }
    }
}

/*
 * UWC: words per unit when known at compile time (1, 2 or 4), else 0 (read from p.uw).  Each thread moves
 * 4 * uw words per phase, in batches of 4 loads issued before their 4 stores, so that several loads are in
 * flight at once.
 */
template <typename W, int UWC, bool FAST>
__global__ void __launch_bounds__(THREADS) tiled(const __grid_constant__ TileNest p, W *__restrict__ dst,
                                                 const W *__restrict__ src)
{
    extern __shared__ uint4 smem_raw[];
    W *tile = reinterpret_cast<W *>(smem_raw);
    const int uw = UWC ? UWC : p.uw;
    const int rowlen = TILE * uw;          /* words of one tile row */
    const int pitch = rowlen + 1;          /* one word of padding keeps the column reads off one bank */
    const int iters = TILE * TILE / THREADS * uw;
    for (int64_t t = blockIdx.x; t < p.ntiles; t += gridDim.x) {
        int64_t ta, tb, doff, soff;
        tile_origin<FAST>(p, t, ta, tb, doff, soff);
        const int64_t a0 = ta * TILE - p.sa, b0 = tb * TILE - p.sb;
        /* the tile's units inside the arrays: a in [a0 + la, a0 + ea), b in [b0 + lb, b0 + eb) */
        const int la = (int)max((int64_t)0, -a0), lb = (int)max((int64_t)0, -b0);
        const int ea = (int)min((int64_t)TILE, p.na - a0), eb = (int)min((int64_t)TILE, p.nb - b0);
        /* Rows of the tile along a: each reads its units contiguous on the source. */
        const int64_t s0 = soff + a0 * p.ssa + b0 * uw;
        const int slo = lb * uw, shi = eb * uw;
        for (int k0 = 0; k0 < iters; k0 += 4) {
            W v[4];
#pragma unroll
            for (int j = 0; j < 4; j++) {
                int i = (k0 + j) * THREADS + threadIdx.x, ai = i / rowlen, c = i - ai * rowlen;
                if (ai >= la && ai < ea && c >= slo && c < shi)
                    v[j] = src[s0 + ai * p.ssa + c];
            }
#pragma unroll
            for (int j = 0; j < 4; j++) {
                int i = (k0 + j) * THREADS + threadIdx.x, ai = i / rowlen, c = i - ai * rowlen;
                if (ai >= la && ai < ea && c >= slo && c < shi)
                    tile[ai * pitch + c] = v[j];
            }
        }
        __syncthreads();
        /* Rows of the destination along b: each writes its units contiguous on the destination. */
        const int64_t d0 = doff + b0 * p.dsb + a0 * uw;
        const int dlo = la * uw, dhi = ea * uw;
        for (int k0 = 0; k0 < iters; k0 += 4) {
#pragma unroll
            for (int j = 0; j < 4; j++) {
                int i = (k0 + j) * THREADS + threadIdx.x, bi = i / rowlen, c = i - bi * rowlen;
                if (bi >= lb && bi < eb && c >= dlo && c < dhi) {
                    int ai = c / uw, w = c - ai * uw;
                    dst[d0 + bi * p.dsb + c] = tile[ai * pitch + bi * uw + w];
                }
            }
        }
        __syncthreads();
    }
}

/*
 * 4-byte units moved as 16-byte vectors on both sides, for a transpose whose strides and bases are 16-byte
 * aligned: tiles of TA (along a) by 32 (along b) words.  The 32-word tile kernel above has 16 bytes of loads
 * in flight per thread, too few to cover the memory's latency; here each thread issues TA / 32 loads of 16
 * bytes before its first store.  The tile rows are padded to 33 words and the lanes of a warp take 4 rows by 8
 * vectors on both sides, so that neither the scattering stores into the tile nor the gathering loads from it
 * meet a bank conflict.  Edge tiles go word by word.
 */
template <int TA, bool FAST>
__global__ void __launch_bounds__(THREADS) tiled_vec4(const __grid_constant__ TileNest p, uint32_t *__restrict__ dst,
                                                      const uint32_t *__restrict__ src)
{
    constexpr int P = TILE + 1, PASSES = TA / 32;
    static_assert(THREADS == 256 && TILE == 32 && TA % 32 == 0, "8 warps of 4 rows by 8 vectors per pass");
    __shared__ uint32_t tile[TA * P];
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    for (int64_t t = blockIdx.x; t < p.ntiles; t += gridDim.x) {
        int64_t ta, tb, doff, soff;
        tile_origin<FAST>(p, t, ta, tb, doff, soff);
        const int64_t a0 = ta * TA - p.sa, b0 = tb * TILE - p.sb;
        if (a0 >= 0 && a0 + TA <= p.na && b0 >= 0 && b0 + TILE <= p.nb) {
            const uint32_t *s = src + soff + a0 * p.ssa + b0;
            uint32_t *d = dst + doff + b0 * p.dsb + a0;
            uint4 v[PASSES];
            const int q = threadIdx.x & 7;
#pragma unroll
            for (int k = 0; k < PASSES; k++) {
                int row = (k * THREADS + threadIdx.x) >> 3;
                v[k] = *reinterpret_cast<const uint4 *>(s + row * p.ssa + 4 * q);
            }
#pragma unroll
            for (int k = 0; k < PASSES; k++) {
                uint32_t *r = tile + ((k * THREADS + threadIdx.x) >> 3) * P + 4 * q;
                r[0] = v[k].x;
                r[1] = v[k].y;
                r[2] = v[k].z;
                r[3] = v[k].w;
            }
            __syncthreads();
            const int bi = warp * 4 + (lane >> 3);
#pragma unroll
            for (int k = 0; k < PASSES; k++) {
                int c = 4 * (k * 8 + (lane & 7));
                uint4 w = {tile[c * P + bi], tile[(c + 1) * P + bi], tile[(c + 2) * P + bi], tile[(c + 3) * P + bi]};
                *reinterpret_cast<uint4 *>(d + bi * p.dsb + c) = w;
            }
        } else {
            /* an edge tile, word by word: a in [a0 + la, a0 + ea), b in [b0 + lb, b0 + eb) */
            const int la = (int)max((int64_t)0, -a0), lb = (int)max((int64_t)0, -b0);
            const int ea = (int)min((int64_t)TA, p.na - a0), eb = (int)min((int64_t)TILE, p.nb - b0);
            const int64_t s0 = soff + a0 * p.ssa + b0, d0 = doff + b0 * p.dsb + a0;
            for (int i = threadIdx.x; i < TA * TILE; i += THREADS) {
                int ai = i / TILE, c = i - ai * TILE;
                if (ai >= la && ai < ea && c >= lb && c < eb)
                    tile[ai * P + c] = src[s0 + ai * p.ssa + c];
            }
            __syncthreads();
            for (int i = threadIdx.x; i < TA * TILE; i += THREADS) {
                int bi = i / TA, c = i - bi * TA;
                if (bi >= lb && bi < eb && c >= la && c < ea)
                    dst[d0 + bi * p.dsb + c] = tile[c * P + bi];
            }
        }
        __syncthreads();
    }
}

/* The nest in bytes, with the unit folded out: what both the info and the launch start from. */
struct Prepared {
    int n;
    int64_t elm, unit;
    int word, align;
    int64_t size[MAXM], ds[MAXM], ss[MAXM];
    const int64_t *dt[MAXM], *st[MAXM];
    int a, b;                              /* tiled modes, or -1 */
};

void prepare(const pa_cuda__nest *in, int align, Prepared *p)
{
    const int64_t e = (int64_t)in->elm;
    int n = in->nmodes, tables = 0;
    p->elm = e;
    p->unit = e;
    p->align = align;
    int last = n - 1;
    if (n > 0 && !in->dst_table[last] && !in->src_table[last] && in->dst_stride[last] == 1 &&
        in->src_stride[last] == 1) {
        p->unit = in->size[last] * e;
        n--;
    }
    p->n = n;
    for (int m = 0; m < n; m++) {
        p->size[m] = in->size[m];
        p->ds[m] = in->dst_stride[m] * e;
        p->ss[m] = in->src_stride[m] * e;
        p->dt[m] = in->dst_table[m];
        p->st[m] = in->src_table[m];
        tables |= p->dt[m] || p->st[m];
    }
    int w = 16;
    for (;; w /= 2) {
        bool ok = p->unit % w == 0 && align % w == 0 && !(tables && e % w);
        for (int m = 0; ok && m < n; m++)
            ok = (p->dt[m] || p->ds[m] % w == 0) && (p->st[m] || p->ss[m] % w == 0);
        if (ok || w == 1)
            break;
    }
    p->word = w;
    p->a = p->b = -1;
    if (tables || p->unit > 64)
        return;
    for (int m = n - 1; m >= 0; m--) {
        if (p->a < 0 && p->ds[m] == p->unit && p->size[m] > 1)
            p->a = m;
        else if (p->b < 0 && p->ss[m] == p->unit && p->size[m] > 1)
            p->b = m;
    }
    if (p->a < 0 || p->b < 0)
        p->a = p->b = -1;
}

/* Aligned runs (WordNest) for runs of at least RUN_MIN bytes when some run's destination may start inside a
 * 128-byte line: the base, a stride or a gathered mode; unaligned_runs_set turns them off (benchmarks). */
constexpr int LINE = 128;
constexpr int64_t RUN_MIN = 1024;
int unaligned_runs_set = 0;

bool aligned_runs(const Prepared &p, const void *dst)
{
    if (__atomic_load_n(&unaligned_runs_set, __ATOMIC_RELAXED) || p.unit < RUN_MIN || p.unit == p.word)
        return false;
    bool off = (uintptr_t)dst % LINE != 0;
    for (int m = 0; m < p.n; m++)
        off = off || p.dt[m] || p.ds[m] % LINE != 0;
    return off;
}

template <typename W>
cudaError_t launch_direct(const Prepared &p, void *dst, const void *src, cudaStream_t stream, int sms)
{
    WordNest wn{};
    const int64_t w = p.word, uw = p.unit / w;
    int n = 0;
    for (int m = 0; m < p.n; m++, n++) {
        wn.size[n] = p.size[m];
        wn.ds[n] = p.ds[m] / w;
        wn.ss[n] = p.ss[m] / w;
        wn.dt[n] = p.dt[m];
        wn.st[n] = p.st[m];
    }
    int64_t inner = uw;
    if (aligned_runs(p, dst)) {
        const int64_t line = LINE / w;
        wn.run = uw;
        wn.lmask = (uint64_t)(line - 1);
        wn.dword0 = (uint64_t)((uintptr_t)dst / (uintptr_t)w);
        inner = (uw + line - 1 + line - 1) / line * line;   /* room for a shift of up to line - 1 words */
    }
    if (inner > 1) {
        wn.size[n] = inner;
        wn.ds[n] = wn.ss[n] = 1;
        n++;
    }
    wn.n = n;
    wn.tmul = p.elm / w;                   /* tables hold element offsets; with tables w divides elm */
    wn.total = inner;
    for (int m = 0; m < p.n; m++)
        wn.total *= p.size[m];
    if (wn.total == 0)
        return cudaSuccess;
    int64_t blocks = (wn.total + (int64_t)THREADS * ILP - 1) / ((int64_t)THREADS * ILP);
    if (blocks > (int64_t)sms * 64)
        blocks = (int64_t)sms * 64;
    W *d = (W *)dst;
    const W *s = (const W *)src;
    if (wn.total < (1ll << 31)) {
        for (int m = 0; m < n; m++)
            wn.div[m] = make_div((uint32_t)wn.size[m]);
        if (wn.run)
            direct<W, uint32_t, true><<<(unsigned)blocks, THREADS, 0, stream>>>(wn, d, s);
        else
            direct<W, uint32_t, false><<<(unsigned)blocks, THREADS, 0, stream>>>(wn, d, s);
    } else if (wn.run) {
        direct<W, uint64_t, true><<<(unsigned)blocks, THREADS, 0, stream>>>(wn, d, s);
    } else {
        direct<W, uint64_t, false><<<(unsigned)blocks, THREADS, 0, stream>>>(wn, d, s);
    }
    return cudaGetLastError();
}

/* Tiles of units over 32 bytes take more than the default 48 KiB of shared memory: raise the kernel's limit. */
template <typename W>
cudaError_t run_tiled(void (*k)(TileNest, W *, const W *), int64_t blocks, size_t smem, cudaStream_t stream,
                      const TileNest &tn, void *dst, const void *src)
{
    if (smem > 48 * 1024) {
        cudaError_t e = cudaFuncSetAttribute(k, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)smem);
        if (e != cudaSuccess)
            return e;
    }
    k<<<(unsigned)blocks, THREADS, smem, stream>>>(tn, (W *)dst, (const W *)src);
    return cudaGetLastError();
}

/* The rows of tiled_vec4's tiles along a, when it can run the nest (4-byte units, 16-byte aligned bases and
 * strides, a whole tile's rows along a and columns along b), else 0. */
constexpr int VEC_ROWS = 128;

int vec4_tile(const Prepared &p)
{
    if (p.word != 4 || p.unit != 4 || p.align % 16)
        return 0;
    for (int m = 0; m < p.n; m++)
        if ((m != p.a && p.ds[m] % 16) || (m != p.b && p.ss[m] % 16))
            return 0;
    return p.size[p.a] >= VEC_ROWS && p.size[p.b] >= TILE ? VEC_ROWS : 0;
}

/* Tile rows per band: 16 for tiled_vec4's 128-row tiles, 32 for the 32-unit tiles, so that the ~1000 tiles in
 * flight span about as many rows on each side (some 2000 of tiled_vec4's words, 1000 units); band_set, when
 * not 0, overrides both (pa_cuda__permute_set_band; 1 is the plain row order). */
constexpr int VEC_BAND = 16, UNIT_BAND = 32;
int band_set = 0;
int unshifted_set = 0;   /* 1: tiles from element 0, as before the shifts (pa_cuda__permute_set_unshifted) */
int grid_set = 0;   /* the tiled kernels' blocks per SM when not 0 (pa_cuda__permute_set_grid), else 256 */

/* The tiled kernels' grid: one block per tile up to 256 per SM (or the set number), looping over the rest. */
int64_t tile_blocks(int64_t ntiles, int sms)
{
    int g = __atomic_load_n(&grid_set, __ATOMIC_RELAXED);
    int64_t cap = (int64_t)sms * (g > 0 ? g : 256);
    return ntiles < cap ? ntiles : cap;
}

int band_of(int dflt)
{
    int b = __atomic_load_n(&band_set, __ATOMIC_RELAXED);
    return b > 0 ? b : dflt;
}

/* The shift, in units of ub bytes, that puts tile boundaries on 128-byte boundaries of an array whose element 0
 * is at addr (TileNest): 0 for units under 4 bytes (a tile row would not span 128 bytes) or not dividing. */
int64_t shift_of(const void *addr, int64_t ub)
{
    int64_t r = (int64_t)((uintptr_t)addr % 128);
    if (__atomic_load_n(&unshifted_set, __ATOMIC_RELAXED) || ub < 4 || r % ub)
        return 0;
    return r / ub;
}

/* The band (clamped to the tile rows there are) and, for ntiles < 2^31, the fast divisors of the tile index. */
void set_order(TileNest &tn, int64_t band)
{
    tn.band = band < 1 ? 1 : band > tn.tiles_a ? tn.tiles_a : band;
    if (tn.ntiles < (1ll << 31)) {
        tn.div_plane = make_div((uint32_t)(tn.tiles_a * tn.tiles_b));
        tn.div_bandt = make_div((uint32_t)(tn.band * tn.tiles_b));
        tn.div_band = make_div((uint32_t)tn.band);
        for (int m = 0; m < tn.n; m++)
            tn.div[m] = make_div((uint32_t)tn.size[m]);
    }
}

/* tiled_vec4's grid: the tile counts along a change with the taller tiles. */
cudaError_t launch_vec4(TileNest tn, void *dst, const void *src, cudaStream_t stream, int sms)
{
    tn.tiles_a = (tn.na + tn.sa + VEC_ROWS - 1) / VEC_ROWS;
    int64_t ntiles = tn.tiles_a * tn.tiles_b;
    for (int m = 0; m < tn.n; m++)
        ntiles *= tn.size[m];
    tn.ntiles = ntiles;
    set_order(tn, band_of(VEC_BAND));
    int64_t blocks = tile_blocks(ntiles, sms);
    uint32_t *d = (uint32_t *)dst;
    const uint32_t *s = (const uint32_t *)src;
    if (ntiles < (1ll << 31)) {
        tiled_vec4<VEC_ROWS, true><<<(unsigned)blocks, THREADS, 0, stream>>>(tn, d, s);
    } else {
        tiled_vec4<VEC_ROWS, false><<<(unsigned)blocks, THREADS, 0, stream>>>(tn, d, s);
    }
    return cudaGetLastError();
}

template <typename W>
cudaError_t launch_tiled(const Prepared &p, void *dst, const void *src, cudaStream_t stream, int sms)
{
    TileNest tn{};
    const int64_t w = p.word;
    tn.uw = (int)(p.unit / w);
    tn.na = p.size[p.a];
    tn.nb = p.size[p.b];
    tn.ssa = p.ss[p.a] / w;
    tn.dsb = p.ds[p.b] / w;
    tn.sa = shift_of(dst, p.unit);
    tn.sb = shift_of(src, p.unit);
    tn.tiles_a = (tn.na + tn.sa + TILE - 1) / TILE;
    tn.tiles_b = (tn.nb + tn.sb + TILE - 1) / TILE;
    tn.ntiles = tn.tiles_a * tn.tiles_b;
    for (int m = 0; m < p.n; m++) {
        if (m == p.a || m == p.b)
            continue;
        tn.size[tn.n] = p.size[m];
        tn.ds[tn.n] = p.ds[m] / w;
        tn.ss[tn.n] = p.ss[m] / w;
        tn.ntiles *= p.size[m];
        tn.n++;
    }
    if (tn.ntiles == 0)
        return cudaSuccess;
    if (vec4_tile(p))
        return launch_vec4(tn, dst, src, stream, sms);
    set_order(tn, band_of(UNIT_BAND));
    size_t smem = (size_t)TILE * (TILE * tn.uw + 1) * (size_t)w;
    int64_t blocks = tile_blocks(tn.ntiles, sms);
    if (tn.ntiles < (1ll << 31)) {
        switch (tn.uw) {
        case 1: return run_tiled(tiled<W, 1, true>, blocks, smem, stream, tn, dst, src);
        case 2: return run_tiled(tiled<W, 2, true>, blocks, smem, stream, tn, dst, src);
        case 4: return run_tiled(tiled<W, 4, true>, blocks, smem, stream, tn, dst, src);
        default: return run_tiled(tiled<W, 0, true>, blocks, smem, stream, tn, dst, src);
        }
    }
    return run_tiled(tiled<W, 0, false>, blocks, smem, stream, tn, dst, src);
}

template <typename W>
cudaError_t launch(const Prepared &p, void *dst, const void *src, cudaStream_t stream, int sms)
{
    return p.a >= 0 ? launch_tiled<W>(p, dst, src, stream, sms) : launch_direct<W>(p, dst, src, stream, sms);
}

int align_of(const void *dst, const void *src)
{
    uintptr_t x = (uintptr_t)dst | (uintptr_t)src;
    int a = 16;
    while (a > 1 && x % (uintptr_t)a)
        a /= 2;
    return a;
}

} // namespace

extern "C" int pa_cuda__permute_set_band(int band)
{
    return __atomic_exchange_n(&band_set, band < 1 ? 0 : band, __ATOMIC_RELAXED);
}

extern "C" int pa_cuda__permute_set_unshifted(int on)
{
    return __atomic_exchange_n(&unshifted_set, on ? 1 : 0, __ATOMIC_RELAXED);
}

extern "C" int pa_cuda__permute_set_unaligned_runs(int on)
{
    return __atomic_exchange_n(&unaligned_runs_set, on ? 1 : 0, __ATOMIC_RELAXED);
}

extern "C" int pa_cuda__permute_set_grid(int per_sm)
{
    return __atomic_exchange_n(&grid_set, per_sm < 1 ? 0 : per_sm, __ATOMIC_RELAXED);
}

extern "C" void pa_cuda__permute_info(const pa_cuda__nest *n, int align, pa_cuda__pinfo *out)
{
    Prepared p;
    prepare(n, align, &p);
    out->kind = p.a >= 0 ? PA_CUDA__TILED : PA_CUDA__DIRECT;
    out->word = p.word;
    out->unit = p.unit;
    out->na = p.a >= 0 ? p.size[p.a] : 0;
    out->nb = p.b >= 0 ? p.size[p.b] : 0;
    out->vec_rows = p.a >= 0 ? vec4_tile(p) : 0;
    out->band = p.a < 0 ? 0 : band_of(out->vec_rows ? VEC_BAND : UNIT_BAND);
}

extern "C" cudaError_t pa_cuda__permute(const pa_cuda__nest *n, void *dst, const void *src, cudaStream_t stream)
{
    Prepared p;
    prepare(n, align_of(dst, src), &p);
    int dev = 0, sms = 0;
    cudaError_t e = cudaGetDevice(&dev);
    if (e == cudaSuccess)
        e = cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev);
    if (e != cudaSuccess)
        return e;
    switch (p.word) {
    case 16: return launch<uint4>(p, dst, src, stream, sms);
    case 8: return launch<uint2>(p, dst, src, stream, sms);
    case 4: return launch<uint32_t>(p, dst, src, stream, sms);
    case 2: return launch<uint16_t>(p, dst, src, stream, sms);
    default: return launch<uint8_t>(p, dst, src, stream, sms);
    }
}
