/*
 * parray — the Hopper gemm's plan and kernel source (pa_gemm_dmem's wgmma strategy, compute capability 9.0):
 * TF32, BF16 or FP16 operands with fp32 accumulators, the tiles of A and B brought into shared memory by the
 * bulk tensor copy engine (TMA) and multiplied by warpgroup MMAs (wgmma.mma_async) reading shared memory.
 *
 * A block of 384 threads computes a 128 x 256 tile of C: warpgroup 0 is the producer (one thread issues the
 * tensor copies, setmaxnreg lowers the group to 40 registers), warpgroups 1 and 2 the consumers (232 registers
 * each), each 64 rows x 256 columns of accumulators (128 fp32 registers a thread).  A k-tile is 128 bytes of K
 * (32 floats or 64 16-bit elements: one row of the 128-byte swizzle), `stages` of them (4: 48 KiB each) in a ring
 * of shared buffers with two mbarriers per stage: "full" (the copies' bytes landed) and "empty" (the 8 consumer
 * warps are done reading it).  The consumers issue BK / KS wgmma per k-tile, commit them as a group and wait for
 * the previous group, then release its stage.  The epilogue writes alpha * acc + beta * C through C's own layout
 * (C::at, any affine layout), rows and columns past M and N skipped; the tensor copies read past the operands'
 * edges as zeros, so M, N and K need not be multiples of the tile.  Blocks take their tiles in groups of 8 rows
 * of tiles, column by column, so that the blocks resident at once share their rows of A and columns of B in L2.
 *
 * The operands, as [rows][K] (A: M rows, B: N rows), take one of four forms: K-major (K contiguous, the rows a
 * multiple of 16 bytes apart: read directly), MN-major (16-bit B only: rows contiguous, read directly and given to
 * wgmma with its transpose bit), MN-major into registers (TF32 B with rows contiguous, the row-major case: wgmma
 * takes 32-bit operands from shared memory K-major only, but its A operand may come from registers, so the kernel
 * computes C^T = B^T A^T: each consumer reads its part of B's tile from shared memory into registers, two k-steps
 * at a time, and A's tile is the shared operand) or copied (any other layout whose two dimensions have one stride
 * each): a small transposing kernel first copies the operand into K-major scratch memory (stream-ordered), and the
 * gemm reads that.  Layouts of other shapes (blocked dimensions) are refused, and pa_gemm_dmem takes mma.sync.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tiles_internal.h"

/* The operand's [rows][K] view: element (r, k) at base + r * srow + k * sk. */
static int operand(const pa_type *X, int is_a, pa__wgmma_op *o)
{
    const pa_type *d0 = pa_type_child(X, 0), *d1 = pa_type_child(X, 1);
    const pa__layout *l = pa__type_layout(X);
    int64_t s0 = pa__gemm_single_stride(d0), s1 = pa__gemm_single_stride(d1);
    if (l == NULL || !l->affine || s0 == 0 || s1 == 0)
        return 0;
    o->base = l->base;
    if (is_a) {   /* A [M][K] */
        o->rows = pa_size(d0);
        o->k = pa_size(d1);
        o->srow = s0;
        o->sk = s1;
    } else {      /* B [K][N]: row n of the view is column n of B */
        o->rows = pa_size(d1);
        o->k = pa_size(d0);
        o->srow = s1;
        o->sk = s0;
    }
    /* a dimension of one element has no stride of its own: give it the one its neighbour needs */
    if (o->k == 1)
        o->sk = 1;
    if (o->rows == 1 && o->sk == 1)
        o->srow = o->k;
    return 1;
}

/* The form an operand takes: K-major, MN-major (16-bit B), or copied. */
static int form_of(const pa__wgmma_op *o, int is_a, size_t esz, int kmajor_only)
{
    int64_t v = (int64_t)(16 / esz);
    const int64_t far = (int64_t)1 << 36;   /* strides below 2^40 bytes, as the tensor map wants */
    if (o->sk == 1 && o->srow > 0 && o->srow % v == 0 && o->srow < far)
        return PA__WG_KMAJOR;
    if (!is_a && !kmajor_only && o->srow == 1 && o->sk > 0 && o->sk % v == 0 && o->sk < far)
        return esz == 2 ? PA__WG_MNMAJOR : PA__WG_MNREG;
    return PA__WG_COPY;
}

int pa__gemm_wgmma_plan(const pa_type *C, const pa_type *A, const pa_type *B, int shape, int kmajor_only,
                        pa__wgmma_plan *out, char *why, size_t whylen)
{
    memset(out, 0, sizeof *out);
    const char *want = shape == PA_MMA_M16N8K8_TF32 ? "float" : shape == PA_MMA_M16N8K16_BF16 ? "bfloat16" : "half";
    if (shape < PA_MMA_M16N8K8_TF32 || shape > PA_MMA_M16N8K16_F16) {
        snprintf(why, whylen, "not a tensor-core precision");
        return 0;
    }
    const pa_type *t[3] = {A, B, C};
    for (int i = 0; i < 3; i++)
        if (t[i] == NULL || pa_ndim(t[i]) != 2 || strcmp(pa_mtt(t[i]), "dmem") != 0 ||
            strcmp(pa_elm(t[i]), i == 2 ? "float" : want) != 0) {
            snprintf(why, whylen, "%s is not a two-dimensional dmem type of %s", i == 0 ? "A" : i == 1 ? "B" : "C",
                     i == 2 ? "float" : want);
            return 0;
        }
    size_t esz = pa_elm_size(A);
    out->shape = shape;
    out->esz = (int)esz;
    out->m = pa_size(pa_type_child(A, 0));
    out->k = pa_size(pa_type_child(A, 1));
    out->n = pa_size(pa_type_child(B, 1));
    if (pa_size(pa_type_child(B, 0)) != out->k || pa_size(pa_type_child(C, 0)) != out->m ||
        pa_size(pa_type_child(C, 1)) != out->n || out->m < 1 || out->n < 1 || out->k < 1 ||
        out->m > INT32_MAX / 2 || out->n > INT32_MAX / 2 || out->k > INT32_MAX / 2) {
        snprintf(why, whylen, "the sizes do not make C = A B (or exceed 2^30)");
        return 0;
    }
    const pa__layout *lc = pa__type_layout(C);
    if (lc == NULL || !lc->affine) {
        snprintf(why, whylen, "C's layout is not affine");
        return 0;
    }
    if (!operand(A, 1, &out->a) || !operand(B, 0, &out->b)) {
        snprintf(why, whylen, "%s has a dimension without a single stride", operand(A, 1, &out->a) ? "B" : "A");
        return 0;
    }
    out->a.form = form_of(&out->a, 1, esz, kmajor_only);
    out->b.form = form_of(&out->b, 0, esz, kmajor_only);
    out->bm = 128;
    out->bn = 256;
    out->bk = (int)(128 / esz);
    out->ks = shape == PA_MMA_M16N8K8_TF32 ? 8 : 16;
    out->stages = 4;
    out->threads = 384;
    /* the copied form's grid has a row of blocks per 32 rows */
    if ((out->a.form == PA__WG_COPY && out->a.rows > 32 * 65535LL) ||
        (out->b.form == PA__WG_COPY && out->b.rows > 32 * 65535LL) ||
        ((out->b.form == PA__WG_MNREG ? out->n : out->m) + out->bm - 1) / out->bm > 65535) {
        snprintf(why, whylen, "too many rows for the grid");
        return 0;
    }
    int64_t v = (int64_t)(16 / esz);
    out->kp = (out->k + v - 1) / v * v;
    /* C's rows in pairs of columns (8-byte stores) where its columns are contiguous and pairs stay aligned */
    int64_t sc0 = pa__gemm_single_stride(pa_type_child(C, 0)), sc1 = pa__gemm_single_stride(pa_type_child(C, 1));
    out->c_pairs = sc1 == 1 && sc0 % 2 == 0 && lc->base % 2 == 0;
    out->smem_bytes = out->stages * (out->bm + out->bn) * 128 + 1024;
    return 1;
}

/* One wgmma's opening: the function's head (its parameters after the accumulators in params), the predicate on
 * operand pred, the instruction and the nd accumulator operands %0 .. %nd-1. */
static void emit_wgmma_head(pa__tbuf *b, const pa__wgmma_plan *p, const char *fn, const char *params, int pred)
{
    int nd = p->bn / 2;
    const char *ty = p->shape == PA_MMA_M16N8K8_TF32 ? "tf32" : p->shape == PA_MMA_M16N8K16_BF16 ? "bf16" : "f16";
    pa__tbuf_put(b, "static __device__ __forceinline__ void %s(float (&d)[%d], %s)\n{\n    asm volatile(\"{\\n.reg "
                    ".pred p;\\nsetp.ne.b32 p, %%%d, 0;\\n\"\n        \"wgmma.mma_async.sync.aligned.m64n%dk%d.f32.%s.%s {\"\n"
                    "        \"", fn, nd, params, pred, p->bn, p->ks, ty, ty);
    for (int i = 0; i < nd; i++)
        pa__tbuf_put(b, "%%%d%s%s", i, i + 1 < nd ? ", " : "", (i + 1) % 16 == 0 && i + 1 < nd ? "\"\n        \"" : "");
}

/* The accumulators' bindings ("+f"(d[i])) after the instruction's text. */
static void emit_wgmma_acc(pa__tbuf *b, int nd)
{
    for (int i = 0; i < nd; i++)
        pa__tbuf_put(b, "\"+f\"(d[%d])%s%s", i, i + 1 < nd ? ", " : "", (i + 1) % 8 == 0 ? "\n          " : "");
}

/* The warpgroup MMA of the plan's precision over the whole 256 columns: d (128 registers) += A(da) B(db). */
static void emit_wgmma(pa__tbuf *b, const pa__wgmma_plan *p)
{
    int nd = p->bn / 2;
    emit_wgmma_head(b, p, "pa_wgmma", "unsigned long long da, unsigned long long db", nd + 2);
    if (p->shape == PA_MMA_M16N8K8_TF32)
        pa__tbuf_put(b, "}, %%%d, %%%d, p, 1, 1;\\n}\\n\"\n        : ", nd, nd + 1);
    else
        pa__tbuf_put(b, "}, %%%d, %%%d, p, 1, 1, 0, %d;\\n}\\n\"\n        : ", nd, nd + 1,
                     p->b.form == PA__WG_MNMAJOR);
    emit_wgmma_acc(b, nd);
    pa__tbuf_put(b, "\n        : \"l\"(da), \"l\"(db), \"r\"(1));\n}\n");
    if (p->b.form != PA__WG_MNREG)
        return;
    /* the same with A from registers (four tf32 a thread: rows g and g + 8 of the warp's 16, columns t and t + 4) */
    emit_wgmma_head(b, p, "pa_wgmma_ra", "const unsigned (&a)[4], unsigned long long db", nd + 5);
    pa__tbuf_put(b, "}, {%%%d, %%%d, %%%d, %%%d}, %%%d, p, 1, 1;\\n}\\n\"\n        : ", nd, nd + 1, nd + 2, nd + 3,
                 nd + 4);
    emit_wgmma_acc(b, nd);
    pa__tbuf_put(b, "\n        : \"r\"(a[0]), \"r\"(a[1]), \"r\"(a[2]), \"r\"(a[3]), \"l\"(db), \"r\"(1));\n}\n");
}

static const char helpers[] =
    "struct __align__(64) pa_tmap { unsigned long long w[16]; };\n"
    "static __device__ __forceinline__ void pa_mbar_init(unsigned bar, unsigned count)\n"
    "{ asm volatile(\"mbarrier.init.shared::cta.b64 [%0], %1;\\n\" :: \"r\"(bar), \"r\"(count) : \"memory\"); }\n"
    "static __device__ __forceinline__ void pa_mbar_expect(unsigned bar, unsigned bytes)\n"
    "{ asm volatile(\"mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;\\n\" :: \"r\"(bar), \"r\"(bytes) : "
    "\"memory\"); }\n"
    "static __device__ __forceinline__ void pa_mbar_arrive(unsigned bar)\n"
    "{ asm volatile(\"mbarrier.arrive.shared::cta.b64 _, [%0];\\n\" :: \"r\"(bar) : \"memory\"); }\n"
    "/* waits for the phase of parity `parity` to complete; a wait of 10 s (a pipeline that can never go on: a\n"
    "   byte count or an arrival count that does not match) traps, so that a mistake shows as a launch failure\n"
    "   rather than a hang */\n"
    "static __device__ __forceinline__ void pa_mbar_wait(unsigned bar, unsigned parity)\n"
    "{\n"
    "    unsigned done = 0;\n"
    "    unsigned long long t0 = 0, now;\n"
    "    for (;;) {\n"
    "        asm volatile(\"{\\n.reg .pred p;\\nmbarrier.try_wait.parity.shared::cta.b64 p, [%1], %2;\\n\"\n"
    "                     \"selp.u32 %0, 1, 0, p;\\n}\\n\" : \"=r\"(done) : \"r\"(bar), \"r\"(parity) : \"memory\");\n"
    "        if (done)\n"
    "            return;\n"
    "        asm volatile(\"mov.u64 %0, %%globaltimer;\" : \"=l\"(now));\n"
    "        if (t0 == 0)\n"
    "            t0 = now;\n"
    "        else if (now - t0 > 10000000000ull)\n"
    "            __trap();\n"
    "    }\n"
    "}\n"
    "/* a box of the tensor map at (x: the contiguous dimension, y) into shared memory at dst, counted on bar */\n"
    "static __device__ __forceinline__ void pa_tma2(unsigned dst, const pa_tmap *map, int x, int y, unsigned bar)\n"
    "{\n"
    "    asm volatile(\"cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes \"\n"
    "                 \"[%0], [%1, {%2, %3}], [%4];\\n\" :: \"r\"(dst), \"l\"(reinterpret_cast<unsigned long long>(map)),\n"
    "                 \"r\"(x), \"r\"(y), \"r\"(bar) : \"memory\");\n"
    "}\n"
    "static __device__ __forceinline__ void pa_wgmma_fence() { asm volatile(\"wgmma.fence.sync.aligned;\\n\" ::: "
    "\"memory\"); }\n"
    "static __device__ __forceinline__ void pa_wgmma_commit() { asm volatile(\"wgmma.commit_group.sync.aligned;\\n\" "
    ":: : \"memory\"); }\n"
    "template <int N> static __device__ __forceinline__ void pa_wgmma_wait()\n"
    "{ asm volatile(\"wgmma.wait_group.sync.aligned %0;\\n\" :: \"n\"(N) : \"memory\"); }\n"
    "/* a shared-memory matrix descriptor with 128-byte swizzle: start address, leading and stride byte offsets */\n"
    "static __device__ __forceinline__ unsigned long long pa_wgmma_desc(unsigned addr, unsigned lbo, unsigned sbo)\n"
    "{\n"
    "    return (unsigned long long)((addr & 0x3FFFF) >> 4) | ((unsigned long long)(lbo >> 4) << 16) |\n"
    "           ((unsigned long long)(sbo >> 4) << 32) | (1ull << 62);\n"
    "}\n";

/* The kernel.  P is the wgmma's A operand (PT rows, split between the consumers) and Q its B operand (QT columns):
 * A and B of C = A B, or, with REGA (a TF32 B with N contiguous), B^T and A of C^T = B^T A^T, P's tile then read
 * from shared memory into registers.  PR and QR are P's and Q's extents (M and N, or N and M). */
static const char kernel_text[] =
    "extern \"C\" __global__ void __launch_bounds__(384, 1) pa_gemm_wgmma(const __grid_constant__ pa_tmap ta,\n"
    "    const __grid_constant__ pa_tmap tb, float *__restrict__ c, float alpha, float beta)\n"
    "{\n"
    "    extern __shared__ __align__(1024) unsigned char pa_dyn[];\n"
    "    __shared__ __align__(8) unsigned long long full[cfg::NS], empty[cfg::NS];\n"
    "    /* the swizzled buffers start on a 1024-byte boundary (the swizzle's period): matrix base offset 0 */\n"
    "    const unsigned sa = (pa_smem_addr(pa_dyn) + 1023u) & ~1023u, sb = sa + cfg::NS * cfg::ABYTES;\n"
    "    const int tid = threadIdx.x, wg = tid / 128;\n"
    "    /* blocks in groups of GM rows of tiles, column by column, so that the blocks resident at once share rows of P\n"
    "       and columns of Q in L2 (the grid's x is Q's tiles, y P's) */\n"
    "    const int gx = gridDim.x, gy = gridDim.y, id = blockIdx.y * gx + blockIdx.x, per = cfg::GM * gx;\n"
    "    const int first = id / per * cfg::GM, gm = gy - first < cfg::GM ? gy - first : cfg::GM;\n"
    "    const int p0 = (first + id %% per %% gm) * cfg::PT, q0 = (id %% per / gm) * cfg::QT;\n"
    "    constexpr int nk = (cfg::K + cfg::BK - 1) / cfg::BK;\n"
    "    if (tid == 0) {\n"
    "        for (int s = 0; s < cfg::NS; s++) {\n"
    "            pa_mbar_init(pa_smem_addr(&full[s]), 1);\n"
    "            pa_mbar_init(pa_smem_addr(&empty[s]), 8);   /* the consumers' 8 warps */\n"
    "        }\n"
    "        asm volatile(\"fence.mbarrier_init.release.cluster;\\n\" ::: \"memory\");\n"
    "    }\n"
    "    __syncthreads();\n"
    "    if (wg == 0) {\n"
    "        asm volatile(\"setmaxnreg.dec.sync.aligned.u32 40;\\n\" ::: \"memory\");\n"
    "        if (tid == 0) {\n"
    "            for (int kt = 0; kt < nk; kt++) {\n"
    "                const int s = kt %% cfg::NS;\n"
    "                pa_mbar_wait(pa_smem_addr(&empty[s]), ((kt / cfg::NS) & 1) ^ 1);\n"
    "                const unsigned bar = pa_smem_addr(&full[s]);\n"
    "                pa_mbar_expect(bar, cfg::ABYTES + cfg::BBYTES);\n"
    "                if (cfg::REGA) {   /* P's rows contiguous: boxes of 32 rows x BK */\n"
    "#pragma unroll\n"
    "                    for (int i = 0; i < cfg::PT / 32; i++)\n"
    "                        pa_tma2(sa + s * cfg::ABYTES + i * cfg::BK * 128, &ta, p0 + 32 * i, kt * cfg::BK, bar);\n"
    "                } else {\n"
    "                    pa_tma2(sa + s * cfg::ABYTES, &ta, kt * cfg::BK, p0, bar);\n"
    "                }\n"
    "                if (cfg::BMN) {   /* Q's columns contiguous: boxes of 64 columns x BK */\n"
    "#pragma unroll\n"
    "                    for (int i = 0; i < cfg::QT / 64; i++)\n"
    "                        pa_tma2(sb + s * cfg::BBYTES + i * cfg::BK * 128, &tb, q0 + 64 * i, kt * cfg::BK, bar);\n"
    "                } else {\n"
    "                    pa_tma2(sb + s * cfg::BBYTES, &tb, kt * cfg::BK, q0, bar);\n"
    "                }\n"
    "            }\n"
    "        }\n"
    "    } else {\n"
    "        asm volatile(\"setmaxnreg.inc.sync.aligned.u32 232;\\n\" ::: \"memory\");\n"
    "        const int cw = wg - 1, warp = (tid / 32) %% 4, lane = tid %% 32;\n"
    "        float d[cfg::QT / 2];\n"
    "#pragma unroll\n"
    "        for (int i = 0; i < cfg::QT / 2; i++) d[i] = 0.0f;\n"
    "        if (cfg::REGA) {\n"
    "#if PA_WGMMA_REGA\n"
    "            /* this thread's elements of P: rows r and r + 8 (one 32-row box, column r %% 32 of its 128-byte rows),\n"
    "               k = t and t + 4 of each k-step of 8 (the k-steps 1024 bytes apart); the 16-byte chunk XOR the row\n"
    "               %% 8 as the copy engine's 128-byte swizzle put it */\n"
    "            /* RH k-steps' A registers loaded at once: 2 keeps the consumer within its registers (4 makes ptxas\n"
    "               serialise the wgmma for want of them, C7512) */\n"
    "            constexpr int RH = PA_WGMMA_RH;\n"
    "            const int r = cw * 64 + warp * 16 + lane / 4, t = lane %% 4, col = r %% 32;\n"
    "            unsigned off[2][2];\n"
    "#pragma unroll\n"
    "            for (int h = 0; h < 2; h++)\n"
    "#pragma unroll\n"
    "                for (int e = 0; e < 2; e++) {\n"
    "                    const int k = t + 4 * e, cc = col + 8 * h;\n"
    "                    off[h][e] = (r / 32) * cfg::BK * 128 + k * 128 + (((cc / 4) ^ k) * 16) + (cc %% 4) * 4;\n"
    "                }\n"
    "            /* the registers are written only while no wgmma of this warpgroup is in flight (ptxas serialises the\n"
    "               wgmma otherwise, C7513): each k-tile's group is waited for before the next k-tile's loads; the other\n"
    "               consumer's group keeps the tensor cores busy meanwhile */\n"
    "            unsigned fr[RH][4];\n"
    "            for (int kt = 0; kt < nk; kt++) {\n"
    "                const int s = kt %% cfg::NS;\n"
    "                pa_mbar_wait(pa_smem_addr(&full[s]), (kt / cfg::NS) & 1);\n"
    "                const unsigned a0 = sa + s * cfg::ABYTES, b0 = sb + s * cfg::BBYTES;\n"
    "#pragma unroll\n"
    "                for (int k0 = 0; k0 < cfg::BK / cfg::KS; k0 += RH) {   /* RH k-steps a group */\n"
    "#pragma unroll\n"
    "                    for (int i = 0; i < RH; i++) {\n"
    "                        const unsigned at = a0 + (k0 + i) * 1024;\n"
    "                        asm volatile(\"ld.shared.b32 %%0, [%%1];\\n\" : \"=r\"(fr[i][0]) : \"r\"(at + off[0][0]));\n"
    "                        asm volatile(\"ld.shared.b32 %%0, [%%1];\\n\" : \"=r\"(fr[i][1]) : \"r\"(at + off[1][0]));\n"
    "                        asm volatile(\"ld.shared.b32 %%0, [%%1];\\n\" : \"=r\"(fr[i][2]) : \"r\"(at + off[0][1]));\n"
    "                        asm volatile(\"ld.shared.b32 %%0, [%%1];\\n\" : \"=r\"(fr[i][3]) : \"r\"(at + off[1][1]));\n"
    "                    }\n"
    "                    pa_wgmma_fence();\n"
    "#pragma unroll\n"
    "                    for (int i = 0; i < RH; i++)\n"
    "                        pa_wgmma_ra(d, fr[i], pa_wgmma_desc(b0 + (k0 + i) * 32, 16, 1024));\n"
    "                    pa_wgmma_commit();\n"
    "                    pa_wgmma_wait<0>();\n"
    "                }\n"
    "                if (lane == 0)\n"
    "                    pa_mbar_arrive(pa_smem_addr(&empty[s]));\n"
    "            }\n"
    "#endif\n"
    "        } else {\n"
    "            for (int kt = 0; kt < nk; kt++) {\n"
    "                const int s = kt %% cfg::NS;\n"
    "                pa_mbar_wait(pa_smem_addr(&full[s]), (kt / cfg::NS) & 1);\n"
    "                const unsigned a0 = sa + s * cfg::ABYTES + cw * 64 * 128, b0 = sb + s * cfg::BBYTES;\n"
    "                pa_wgmma_fence();\n"
    "#pragma unroll\n"
    "                for (int kk = 0; kk < cfg::BK / cfg::KS; kk++) {\n"
    "                    /* P: rows of 128 bytes, 8-row groups 1024 bytes apart, a k-step 32 bytes along the row; Q the\n"
    "                       same when K-major, else 64-column boxes BK * 128 bytes apart and a k-step of KS rows */\n"
    "                    const unsigned long long da = pa_wgmma_desc(a0 + kk * 32, 16, 1024);\n"
    "                    const unsigned long long db = cfg::BMN ? pa_wgmma_desc(b0 + kk * cfg::KS * 128, cfg::BK * 128, 1024)\n"
    "                                                           : pa_wgmma_desc(b0 + kk * 32, 16, 1024);\n"
    "                    pa_wgmma(d, da, db);\n"
    "                }\n"
    "                pa_wgmma_commit();\n"
    "                pa_wgmma_wait<1>();   /* the previous k-tile's group is done: its stage is free */\n"
    "                if (kt > 0 && lane == 0)\n"
    "                    pa_mbar_arrive(pa_smem_addr(&empty[(kt - 1) %% cfg::NS]));\n"
    "            }\n"
    "        }\n"
    "        pa_wgmma_wait<0>();\n"
    "        /* accumulator j*4 + e: row lane/4 (+8 for e >= 2) of the warp's 16, column 8j + 2(lane%%4) (+1 for odd e);\n"
    "           with TR the product is C^T: element (row, col) is C's (col, row) */\n"
    "        const int r0 = p0 + cw * 64 + warp * 16 + lane / 4, c0 = q0 + 2 * (lane %% 4);\n"
    "        const bool rb = beta != 0.0f;\n"
    "#pragma unroll\n"
    "        for (int j = 0; j < cfg::QT / 8; j++)\n"
    "#pragma unroll\n"
    "            for (int h = 0; h < 2; h++) {\n"
    "                const int row = r0 + 8 * h, col = c0 + 8 * j;\n"
    "                if (row >= cfg::PR || col >= cfg::QR)\n"
    "                    continue;\n"
    "                float v0 = alpha * d[4 * j + 2 * h], v1 = alpha * d[4 * j + 2 * h + 1];\n"
    "                float *q = c + (cfg::TR ? C::at(col, row) : C::at(row, col));\n"
    "                if (cfg::CP && col + 1 < cfg::QR) {\n"
    "                    float2 *q2 = reinterpret_cast<float2 *>(q);\n"
    "                    if (rb) {\n"
    "                        const float2 o = *q2;\n"
    "                        v0 += beta * o.x;\n"
    "                        v1 += beta * o.y;\n"
    "                    }\n"
    "                    *q2 = make_float2(v0, v1);\n"
    "                } else {\n"
    "                    *q = v0 + (rb ? beta * *q : 0.0f);\n"
    "                    if (col + 1 < cfg::QR) {\n"
    "                        float *q1 = c + (cfg::TR ? C::at(col + 1, row) : C::at(row, col + 1));\n"
    "                        *q1 = v1 + (rb ? beta * *q1 : 0.0f);\n"
    "                    }\n"
    "                }\n"
    "            }\n"
    "    }\n"
    "}\n";

int pa__gemm_wgmma_generate(const pa__wgmma_plan *p, const pa_type *C, int c_pairs, char **source)
{
    const char *what = "pa_gemm_dmem (wgmma)";
    pa_tilegen *gen = NULL;
    pa__tbuf body = {0};
    int st = pa_tilegen_create(&gen);
    if (st == PA_OK)
        st = pa_tilegen_type(gen, "C", C);
    if (st != PA_OK)
        goto fail;
    int rega = p->b.form == PA__WG_MNREG;
    pa__tbuf_put(&body, "#define PA_WGMMA_RH %d\n#define PA_WGMMA_REGA %d\n"
                        "struct cfg { static constexpr int PT = %d, QT = %d, BK = %d, KS = %d, NS = %d, BMN = %d, REGA = %d, "
                        "TR = %d, CP = %d, GM = 8, ABYTES = %d, BBYTES = %d; static constexpr int PR = %lld, QR = %lld, "
                        "K = %lld; };\n",
                 2, rega, p->bm, p->bn, p->bk, p->ks, p->stages, p->b.form == PA__WG_MNMAJOR, rega, rega,
                 rega ? 0 : c_pairs, p->bm * 128, p->bn * 128, (long long)(rega ? p->n : p->m),
                 (long long)(rega ? p->m : p->n), (long long)p->k);
    pa__tbuf_put(&body, "%s", helpers);
    emit_wgmma(&body, p);
    pa__tbuf_put(&body, kernel_text);
    st = body.st != PA_OK ? pa__err(PA_ERR_NOMEM, "%s: the kernel's source", what) : pa__tilegen_put(gen, body.s);
    if (st == PA_OK && (*source = strdup(pa_tilegen_source(gen))) == NULL)
        st = pa__err(PA_ERR_NOMEM, "%s: the kernel's source", what);
fail:
    pa__tbuf_free(&body);
    pa_tilegen_destroy(gen);
    return st;
}

static const char copy_text[] =
    "struct cpy { static constexpr long long R = %lld, K = %lld, SR = %lld, SK = %lld, KP = %lld; "
    "static constexpr bool RC = %d; };\n"
    "typedef %s E;\n"
    "/* dst[r][k] (rows KP elements apart) = src[r * SR + k * SK], through a 32 x 32 shared tile so that both sides\n"
    "   move along their contiguous dimension (RC: the source's rows are contiguous) */\n"
    "extern \"C\" __global__ void __launch_bounds__(256) pa_wgmma_kmajor(const E *__restrict__ src, E *__restrict__ dst)\n"
    "{\n"
    "    __shared__ E t[32][33];\n"
    "    const int tx = threadIdx.x, ty = threadIdx.y;\n"
    "    const long long r0 = blockIdx.y * 32LL, k0 = blockIdx.x * 32LL;\n"
    "#pragma unroll\n"
    "    for (int q = 0; q < 32; q += 8) {\n"
    "        const int j = ty + q;\n"
    "        const long long r = cpy::RC ? r0 + tx : r0 + j, k = cpy::RC ? k0 + j : k0 + tx;\n"
    "        if (r < cpy::R && k < cpy::K)\n"
    "            t[j][tx] = src[r * cpy::SR + k * cpy::SK];\n"
    "    }\n"
    "    __syncthreads();\n"
    "#pragma unroll\n"
    "    for (int q = 0; q < 32; q += 8) {\n"
    "        const int j = ty + q;\n"
    "        const long long r = r0 + j, k = k0 + tx;\n"
    "        if (r < cpy::R && k < cpy::K)\n"
    "            dst[r * cpy::KP + k] = cpy::RC ? t[tx][j] : t[j][tx];\n"
    "    }\n"
    "}\n";

char *pa__gemm_wgmma_copy_source(const pa__wgmma_op *o, int64_t kp, size_t esz)
{
    pa__tbuf b = {0};
    pa__tbuf_put(&b, copy_text, (long long)o->rows, (long long)o->k, (long long)o->srow, (long long)o->sk,
                 (long long)kp, o->srow == 1 && o->sk != 1, esz == 4 ? "float" : "unsigned short");
    if (b.st != PA_OK) {
        pa__tbuf_free(&b);
        pa__err(PA_ERR_NOMEM, "pa_gemm_dmem (wgmma): the copy kernel's source");
        return NULL;
    }
    return b.s;
}
