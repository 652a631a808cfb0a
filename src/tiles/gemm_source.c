/*
 * parray — the tiled gemm's kernel source, generated from the three dmem types (the manual's section 7.1).
 *
 * A block computes a bm x bn tile of C.  Its threads load a bm x bk tile of A and a bk x bn tile of B
 * cooperatively into shared memory (A stored transposed, k-major, so that each thread later reads its tm rows
 * as vectors), double-buffered: the next tiles are loaded into registers (the copies' frags) while the current
 * ones are multiplied, stored into the other buffer, and one barrier per step separates the two.  Each thread
 * keeps tm x tn results in registers (an rmem type) and reads, per k, tm values of A and tn of B from shared
 * memory (two halves of each, bm/2 and bn/2 apart, so that a warp's reads spread over the banks).
 *
 * Every piece is a generated type or copy (gputile.h): A, B and C are the user's types; SA, SB the shared
 * buffers with the padding the generator picks (the one whose store costs the fewest wavefronts); RA, RB, RC
 * registers; fra/frb the per-thread fragment copies; lda_t/ldb_t the tile loads, made from the types' layouts
 * cut at the tile sizes (pa__tile_divide); stc a thread's results into C (with beta 0; C is read and written
 * element by element otherwise, which keeps the registers of the old values out of the main loop).  A type whose dimensions do not cut into shifted copies of one tile
 * is read element by element through its own offsets instead (lda/ldb's generic form) — the same kernel text,
 * only slower, which is the manual's point: the layout is in the type.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tiles_internal.h"

#define ADD(st, call) \
    do {              \
        if ((st) == PA_OK) \
            (st) = (call); \
    } while (0)

typedef struct gemm_shape {
    int64_t m, n, k;
    const char *elm;   /* "float" or "double" */
    size_t esz;
} gemm_shape;

static int check_types(const pa_type *C, const pa_type *A, const pa_type *B, gemm_shape *g, const char *what)
{
    const pa_type *t[3] = {A, B, C};
    const char *nm[3] = {"A", "B", "C"};
    for (int i = 0; i < 3; i++) {
        if (t[i] == NULL)
            return pa__err(PA_ERR_INVAL, "%s: NULL type %s", what, nm[i]);
        if (strcmp(pa_mtt(t[i]), "dmem") != 0)
            return pa__err(PA_ERR_MTT, "%s: %s (%s) is %s memory; the GPU gemm takes dmem types", what, nm[i],
                           pa_type_name(t[i]), pa_mtt(t[i]));
        if (pa_ndim(t[i]) != 2)
            return pa__err(PA_ERR_INVAL, "%s: %s (%s) has %d top-level dimensions; a matrix has 2", what, nm[i],
                           pa_type_name(t[i]), pa_ndim(t[i]));
        if (strcmp(pa_elm(t[i]), "float") != 0 && strcmp(pa_elm(t[i]), "double") != 0)
            return pa__err(PA_ERR_ELM, "%s: %s (%s) has elements of %s; the gemm takes float or double (TF32 through "
                           "pa_gemm_config.compute; half and bfloat16 A and B with a float C)", what,
                           nm[i], pa_type_name(t[i]), pa_elm(t[i]));
        if (strcmp(pa_elm(t[i]), pa_elm(A)) != 0)
            return pa__err(PA_ERR_ELM, "%s: A has %s elements but %s has %s", what, pa_elm(A), nm[i], pa_elm(t[i]));
    }
    g->m = pa_size(pa_type_child(A, 0));
    g->k = pa_size(pa_type_child(A, 1));
    g->n = pa_size(pa_type_child(B, 1));
    if (pa_size(pa_type_child(B, 0)) != g->k || pa_size(pa_type_child(C, 0)) != g->m ||
        pa_size(pa_type_child(C, 1)) != g->n)
        return pa__err(PA_ERR_SIZE, "%s: A is %lldx%lld, B %lldx%lld, C %lldx%lld; C = A B needs [M][K], [K][N], "
                       "[M][N]", what, (long long)g->m, (long long)g->k, (long long)pa_size(pa_type_child(B, 0)),
                       (long long)g->n, (long long)pa_size(pa_type_child(C, 0)), (long long)pa_size(pa_type_child(C, 1)));
    if (g->m > INT32_MAX / 2 || g->n > INT32_MAX / 2 || g->k > INT32_MAX / 2 || g->m < 1 || g->n < 1 || g->k < 1)
        return pa__err(PA_ERR_RANGE, "%s: sizes %lld, %lld, %lld; each must be in 1 .. 2^30", what, (long long)g->m,
                       (long long)g->n, (long long)g->k);
    g->elm = pa_elm(A);
    g->esz = pa_elm_size(A);
    return PA_OK;
}

int pa__gemm_parts(int t, size_t esz)
{
    int v = (int)(16 / esz);
    return v >= 1 && t % v == 0 && t / v >= 2 ? t / v : 2;
}

int pa__gemm_config(const pa_gemm_config *in, size_t esz, pa_gemm_config *out, const char *what)
{
    pa_gemm_config c = esz == 8 ? (pa_gemm_config){64, 64, 8, 4, 4, 256, 0, 0, 0, 0}
                                : (pa_gemm_config){128, 128, 8, 8, 8, 256, 0, 0, 0, 0};
    if (in != NULL)
        c = *in;
    int v = (int)(16 / esz), tx = c.tm > 0 && c.tn > 0 ? c.bn / c.tn : 0, ty = c.tm > 0 ? c.bm / c.tm : 0;
    int pm = pa__gemm_parts(c.tm, esz), pn = pa__gemm_parts(c.tn, esz);
    if (c.stages == 0)
        c.stages = PA__GEMM_DEFAULT_STAGES;
    if (c.stages < 1 || c.stages > 8)
        return pa__err(PA_ERR_PARAM, "%s: stages=%d; 1 (through registers) or 2..8 shared buffers filled by "
                       "asynchronous copies", what, c.stages);
    /* by default a warp's lanes run along n over a row of threads (the shape measured for P7); 8 gives warps
     * of 4 x 8 lanes, which read fewer distinct shared-memory words per request (not measured yet) */
    if (c.lanes_n == 0)
        c.lanes_n = tx < 32 ? tx : 32;
    if (c.min_blocks == 0)
        c.min_blocks = c.threads <= 256 ? 2 : 1;
    if (c.lanes_n < 1 || c.lanes_n > 32 || 32 % c.lanes_n || (tx > 0 && tx % c.lanes_n) ||
        (ty > 0 && ty % (32 / c.lanes_n)) || c.min_blocks < 1 || c.min_blocks > 32)
        return pa__err(PA_ERR_PARAM, "%s: lanes_n=%d min_blocks=%d: lanes_n must divide 32 and the %d threads along n, "
                       "32/lanes_n the %d along m; min_blocks 1..32", what, c.lanes_n, c.min_blocks, tx, ty);
    if (c.bm < 2 || c.bn < 2 || c.bk < 1 || c.tm < 2 || c.tn < 2 || c.tm % pm || c.tn % pn || c.bm % c.tm ||
        c.bn % c.tn || (c.bm / c.tm) * (c.bn / c.tn) != c.threads || c.threads % 32 || c.threads > 1024 ||
        (c.bm * c.bk) % c.threads || (c.bk * c.bn) % c.threads || c.bm % pm || c.bn % pn ||
        (c.bm / pm) % v || (c.bn / pn) % v || c.tm * c.tn * (int)esz > 512)
        return pa__err(PA_ERR_PARAM, "%s: the shape bm=%d bn=%d bk=%d tm=%d tn=%d threads=%d breaks the rules of "
                       "gputile.h (tm, tn even and dividing bm, bn; (bm/tm)(bn/tn) = threads, a multiple of 32; tiles "
                       "a multiple of the threads; bm/pm, bn/pn multiples of 16 bytes, where a thread's tm rows lie "
                       "in pm parts, pm = tm*size/16 when that is 2 or more, else 2 (pn likewise); tm*tn results "
                       "within 512 bytes)",
                       what, c.bm, c.bn, c.bk, c.tm, c.tn, c.threads);
    *out = c;
    return PA_OK;
}

/* The layout of a [t0][t1] tile of a matrix type (top-level dimensions cut at t0 and t1), base 0; 0 if none. */
int pa__gemm_tile2(const pa_type *X, int64_t t0, int64_t t1, pa__layout *out)
{
    const pa__layout *l0 = pa__type_layout(pa_type_child(X, 0)), *l1 = pa__type_layout(pa_type_child(X, 1));
    pa__layout a, b;
    if (l0 == NULL || l1 == NULL || !pa__tile_divide(l0, t0, &a) || !pa__tile_divide(l1, t1, &b) ||
        a.size != t0 || b.size != t1 || a.nmodes + b.nmodes > PA__MAX_MODES)
        return 0;
    memset(out, 0, sizeof *out);
    out->affine = 1;
    out->size = t0 * t1;
    out->nmodes = a.nmodes + b.nmodes;
    memcpy(out->modes, a.modes, (size_t)a.nmodes * sizeof a.modes[0]);
    memcpy(out->modes + a.nmodes, b.modes, (size_t)b.nmodes * sizeof b.modes[0]);
    out->min_off = (a.min_off - a.base) + (b.min_off - b.base);
    out->max_off = (a.max_off - a.base) + (b.max_off - b.base);
    pa__layout_coalesce(out);
    return 1;
}

/* The stride of a dimension whose layout is one affine mode (or a single element), else 0. */
int64_t pa__gemm_single_stride(const pa_type *d)
{
    const pa__layout *l = pa__type_layout(d);
    return l == NULL || !l->affine || l->nmodes > 1 ? 0 : l->nmodes == 0 ? 1 : l->modes[0].stride;
}

/* The private types of the kernel: shared buffers with padding pad_a/pad_b, their views, registers. */
static int declare(pa_scope *s, const gemm_shape *g, const pa_gemm_config *c, int pad_a, int pad_b)
{
    char d[2048];
    int pm = pa__gemm_parts(c->tm, g->esz), pn = pa__gemm_parts(c->tn, g->esz), nbuf = c->stages < 2 ? 2 : c->stages;
    snprintf(d, sizeof d,
             "parray smem %s [%d][%d][%d] SA; parray smem %s [%d][%d][%d] SB;"
             "parray smem %s [%d # SA_2][%d # SA_1] SAT; parray smem %s [%d # SB_1][%d # SB_2] SBT;"
             "parray smem %s [%d][%d] HA; parray smem %s [#HA_0][%d # HA_1] SAF;"
             "parray smem %s [%d][%d] HB; parray smem %s [#HB_0][%d # HB_1] SBF;"
             "parray rmem %s [%d] RA; parray rmem %s [%d] RB; parray rmem %s [%d][%d] RC;",
             g->elm, nbuf, c->bk, c->bm + pad_a, g->elm, nbuf, c->bk, c->bn + pad_b, g->elm, c->bm, c->bk, g->elm,
             c->bk, c->bn, g->elm, pm, c->bm / pm, g->elm, c->tm / pm, g->elm, pn, c->bn / pn, g->elm, c->tn / pn,
             g->elm, c->tm, g->elm, c->tn, g->elm, c->tm, c->tn);
    return pa_declare_text(s, d);
}

/* The padding (in elements, keeping 16-byte rows) whose tile store costs the fewest wavefronts. */
static int pick_pad(const pa__layout *src, int64_t rows, int64_t cols, int transposed, const gemm_shape *g,
                    int threads, int vec_bytes)
{
    int best = 0, best_ways = 1 << 30, step = (int)(16 / g->esz);
    for (int pad = 0; pad <= 4 * step; pad += step) {
        pa__layout dst;
        memset(&dst, 0, sizeof dst);
        dst.affine = 1;
        dst.size = rows * cols;
        dst.nmodes = 2;
        /* the shared tile in the source's flat order: [rows][cols]; transposed: stored [cols][rows + pad] */
        dst.modes[0] = (pa__mode){rows, transposed ? 1 : cols + pad, NULL};
        dst.modes[1] = (pa__mode){cols, transposed ? rows + pad : 1, NULL};
        dst.max_off = (rows - 1) * dst.modes[0].stride + (cols - 1) * dst.modes[1].stride;
        pa__tcopy c;
        if (pa__tcopy_plan_v(&dst, PA__TMEM_SMEM, src, PA__TMEM_DMEM, g->esz, threads, 0, NULL, vec_bytes, "gemm",
                             &c) != PA_OK)
            continue;
        if (c.bank_ways < best_ways) {
            best_ways = c.bank_ways;
            best = pad;
        }
    }
    return best;
}

/* The unit of an asynchronous tile copy: 16 bytes when both the dmem tile and its shared layout (pad 0) take
 * vectors, else one element. */
static int tile_vec_bytes(const pa__layout *src, int64_t rows, int64_t cols, int transposed, const gemm_shape *g,
                          int threads)
{
    pa__layout dst;
    memset(&dst, 0, sizeof dst);
    dst.affine = 1;
    dst.size = rows * cols;
    dst.nmodes = 2;
    dst.modes[0] = (pa__mode){rows, transposed ? 1 : cols, NULL};
    dst.modes[1] = (pa__mode){cols, transposed ? rows : 1, NULL};
    dst.max_off = (rows - 1) * dst.modes[0].stride + (cols - 1) * dst.modes[1].stride;
    pa__tcopy c;
    if (pa__tcopy_plan(&dst, PA__TMEM_SMEM, src, PA__TMEM_DMEM, g->esz, threads, 0, NULL, "gemm", &c) != PA_OK)
        return (int)g->esz;
    return c.dvec && c.svec ? 16 : (int)g->esz;
}

static const char kernel_head[] =
    "struct cfg { static constexpr int BM = %d, BN = %d, BK = %d, TM = %d, TN = %d, T = %d, TX = %d, HM = %d, "
    "HN = %d, LX = %d, PM = %d, PN = %d, NS = %d; static constexpr int M = %lld, N = %lld, K = %lld; };\n"
    "typedef %s E;\n"
    "extern \"C\" __global__ void __launch_bounds__(%d, %d) pa_gemm_kernel(const E *__restrict__ a, "
    "const E *__restrict__ b, E *__restrict__ c, E alpha, E beta)\n"
    "{\n"
    "    extern __shared__ __align__(16) unsigned char pa_dyn[];\n"
    "    E *sa = reinterpret_cast<E *>(pa_dyn), *sb = sa + SA::extent;\n"
    "    /* a warp covers 32/LX rows of LX threads: lanes along n, warps tiled over the block */\n"
    "    const int tid = threadIdx.x, lane = tid %% 32, warp = tid / 32;\n"
    "    const int tx = (warp %% (cfg::TX / cfg::LX)) * cfg::LX + lane %% cfg::LX;\n"
    "    const int ty = (warp / (cfg::TX / cfg::LX)) * (32 / cfg::LX) + lane / cfg::LX;\n"
    "    const int r0 = blockIdx.y * cfg::BM, c0 = blockIdx.x * cfg::BN;\n"
    "    PA_RMEM(RC, acc);\n    PA_RMEM(RA, ra);\n    PA_RMEM(RB, rb);\n"
    "#pragma unroll\n    for (int i = 0; i < (int)RC::extent; i++) acc[i] = E(0);\n"
    "    const int nk = (cfg::K + cfg::BK - 1) / cfg::BK;\n";

/* a k-tile's products from the shared buffers at sac/sbc (each thread's parts at ty*HM and tx*HN) */
static const char kernel_step[] =
    "#pragma unroll\n"
    "        for (int k = 0; k < cfg::BK; k++) {\n"
    "            fra::copy_aligned(ra, sac + SA_1::off(k), 0);\n"
    "            frb::copy_aligned(rb, sbc + SB_1::off(k), 0);\n"
    "#pragma unroll\n"
    "            for (int i = 0; i < cfg::TM; i++)\n"
    "#pragma unroll\n"
    "                for (int j = 0; j < cfg::TN; j++)\n"
    "                    acc[RC::at(i, j)] += ra[i] * rb[j];\n"
    "        }\n";

/* stages 1: the next tiles through registers (the copies' frags) into the other of two buffers */
static const char kernel_regs[] =
    "    lda::frag fa;\n    ldb::frag fb;\n"
    "    lda::load(fa, a, r0, 0, tid);\n    ldb::load(fb, b, 0, c0, tid);\n"
    "    lda::store(sa, fa, tid);\n    ldb::store(sb, fb, tid);\n    __syncthreads();\n"
    "    for (int kt = 0; kt < nk; kt++) {\n"
    "        const int cur = kt & 1;\n"
    "        const E *sac = sa + SA_0::off(cur) + ty * cfg::HM, *sbc = sb + SB_0::off(cur) + tx * cfg::HN;\n"
    "        if (kt + 1 < nk) {\n"
    "            lda::load(fa, a, r0, (kt + 1) * cfg::BK, tid);\n"
    "            ldb::load(fb, b, (kt + 1) * cfg::BK, c0, tid);\n"
    "        }\n"
    "%s"
    "        if (kt + 1 < nk) {\n"
    "            lda::store(sa + SA_0::off(cur ^ 1), fa, tid);\n"
    "            ldb::store(sb + SB_0::off(cur ^ 1), fb, tid);\n"
    "            __syncthreads();\n"
    "        }\n"
    "    }\n";

/* stages NS >= 2: asynchronous copies NS - 1 tiles ahead; one barrier per k-tile, after which the buffer the
 * previous step read is refilled */
static const char kernel_async[] =
    "#pragma unroll\n"
    "    for (int s = 0; s < cfg::NS - 1; s++) {\n"
    "        if (s < nk) {\n"
    "            lda::async(sa + SA_0::off(s), a, r0, s * cfg::BK, tid);\n"
    "            ldb::async(sb + SB_0::off(s), b, s * cfg::BK, c0, tid);\n"
    "        }\n"
    "        pa_cp_async_commit();\n"
    "    }\n"
    "    int rs = 0, ws = cfg::NS - 1;\n"
    "    for (int kt = 0; kt < nk; kt++) {\n"
    "        pa_cp_async_wait<cfg::NS - 2>();\n"
    "        __syncthreads();\n"
    "        if (kt + cfg::NS - 1 < nk) {\n"
    "            lda::async(sa + SA_0::off(ws), a, r0, (kt + cfg::NS - 1) * cfg::BK, tid);\n"
    "            ldb::async(sb + SB_0::off(ws), b, (kt + cfg::NS - 1) * cfg::BK, c0, tid);\n"
    "        }\n"
    "        pa_cp_async_commit();\n"
    "        const E *sac = sa + SA_0::off(rs) + ty * cfg::HM, *sbc = sb + SB_0::off(rs) + tx * cfg::HN;\n"
    "%s"
    "        rs = rs + 1 == cfg::NS ? 0 : rs + 1;\n"
    "        ws = ws + 1 == cfg::NS ? 0 : ws + 1;\n"
    "    }\n";

/*
 * stages 1 with k-steps of 16 or more: an operand whose tile moves as 16-byte vectors on both sides (aa, ab) goes
 * by cp.async straight into the other buffer, the other through registers as in kernel_regs; the asynchronous
 * copies are waited for before the barrier.  Fewer registers in flight leave room for the longer k-step.
 */
static void hybrid_loop(pa__tbuf *k, int aa, int ab)
{
    if (!aa)
        pa__tbuf_put(k, "    lda::frag fa;\n");
    if (!ab)
        pa__tbuf_put(k, "    ldb::frag fb;\n");
    pa__tbuf_put(k, aa ? "    lda::async(sa, a, r0, 0, tid);\n" : "    lda::load(fa, a, r0, 0, tid);\n    lda::store(sa, fa, tid);\n");
    pa__tbuf_put(k, ab ? "    ldb::async(sb, b, 0, c0, tid);\n" : "    ldb::load(fb, b, 0, c0, tid);\n    ldb::store(sb, fb, tid);\n");
    pa__tbuf_put(k, "    pa_cp_async_commit();\n    pa_cp_async_wait<0>();\n    __syncthreads();\n"
                    "    for (int kt = 0; kt < nk; kt++) {\n        const int cur = kt & 1;\n"
                    "        const E *sac = sa + SA_0::off(cur) + ty * cfg::HM, *sbc = sb + SB_0::off(cur) + tx * cfg::HN;\n"
                    "        if (kt + 1 < nk) {\n");
    pa__tbuf_put(k, aa ? "            lda::async(sa + SA_0::off(cur ^ 1), a, r0, (kt + 1) * cfg::BK, tid);\n"
                       : "            lda::load(fa, a, r0, (kt + 1) * cfg::BK, tid);\n");
    pa__tbuf_put(k, ab ? "            ldb::async(sb + SB_0::off(cur ^ 1), b, (kt + 1) * cfg::BK, c0, tid);\n"
                       : "            ldb::load(fb, b, (kt + 1) * cfg::BK, c0, tid);\n");
    pa__tbuf_put(k, "            pa_cp_async_commit();\n        }\n%s        if (kt + 1 < nk) {\n", kernel_step);
    if (!aa)
        pa__tbuf_put(k, "            lda::store(sa + SA_0::off(cur ^ 1), fa, tid);\n");
    if (!ab)
        pa__tbuf_put(k, "            ldb::store(sb + SB_0::off(cur ^ 1), fb, tid);\n");
    pa__tbuf_put(k, "            pa_cp_async_wait<0>();\n            __syncthreads();\n        }\n    }\n");
}

static const char kernel_tail[] =
    "    epilogue(c, acc, r0, c0, tx, ty, alpha, beta);\n"
    "}\n";

/*
 * lda/ldb: the fast tile load of a generated copy (NAME_t through registers, NAME_a asynchronous), or the
 * element-by-element load through the type (its async form loads and stores at once).
 */
void pa__gemm_loader(pa__tbuf *b, const char *nm, const char *X, int is_a, int fast, int async, int full,
                     int aligned, const char *sview, const char *rows, const char *cols, int units)
{
    const char *t0 = is_a ? "cfg::BM" : "cfg::BK", *t1 = is_a ? "cfg::BK" : "cfg::BN";
    const char *al = aligned ? "_aligned" : "";
    if (fast) {
        /* with every tile whole (the sizes divide) the edge form is left out; with the pointers and every tile's
         * origin 16-byte aligned, so is the alignment check */
        if (async)
            pa__tbuf_put(b, "struct %s {\n"
                            "    static PA_TDD void async(E *s, const E *p, int i0, int j0, int tid)\n    {\n"
                            "        const E *q = p + %s::at(i0, j0);\n", nm, X);
        else
            pa__tbuf_put(b, "struct %s {\n    typedef %s_t::frag frag;\n"
                            "    static PA_TDD void load(frag &f, const E *p, int i0, int j0, int tid)\n    {\n"
                            "        const E *q = p + %s::at(i0, j0);\n", nm, nm, X);
        if (full)
            pa__tbuf_put(b, async ? "        %s_a::copy_async%s(s, q, tid);\n    }\n"
                                  : "        %s_t::load%s(f, q, tid);\n    }\n", nm, al);
        else if (async)
            pa__tbuf_put(b, "        if (i0 + %s <= %s && j0 + %s <= %s)\n            %s_a::copy_async%s(s, q, tid);\n"
                            "        else\n            %s_a::copy_async_pred(s, q, tid, %s - i0, %s - j0);\n    }\n",
                         t0, rows, t1, cols, nm, al, nm, rows, cols);
        else
            pa__tbuf_put(b, "        if (i0 + %s <= %s && j0 + %s <= %s)\n            %s_t::load%s(f, q, tid);\n"
                            "        else\n            %s_t::load_pred(f, q, tid, %s - i0, %s - j0);\n    }\n",
                         t0, rows, t1, cols, nm, al, nm, rows, cols);
        if (!async)
            pa__tbuf_put(b, "    static PA_TDD void store(E *s, const frag &f, int tid) { %s_t::store_aligned(s, f, tid); }\n",
                         nm);
        pa__tbuf_put(b, "};\n");
        return;
    }
    pa__tbuf_put(b, "struct %s {\n    struct frag { E e[%d]; };\n"
                    "    static PA_TDD void load(frag &f, const E *p, int i0, int j0, int tid)\n    {\n"
                    "#pragma unroll\n        for (int j = 0; j < %d; j++) {\n"
                    "            const int u = tid + j * cfg::T, i = i0 + u / %s, k = j0 + u %% %s;\n"
                    "            f.e[j] = i < %s && k < %s ? p[%s::at(i, k)] : E();\n        }\n    }\n"
                    "    static PA_TDD void store(E *s, const frag &f, int tid)\n    {\n"
                    "#pragma unroll\n        for (int j = 0; j < %d; j++) s[%s::off(tid + j * cfg::T)] = f.e[j];\n"
                    "    }\n"
                    "    static PA_TDD void async(E *s, const E *p, int i0, int j0, int tid)\n"
                    "    { frag f; load(f, p, i0, j0, tid); store(s, f, tid); }\n};\n",
                 nm, units, units, t1, t1, rows, cols, X, units, sview);
}

static void epilogue(pa__tbuf *b, int fast)
{
    pa__tbuf_put(b, "static PA_TDD void epilogue(E *c, E *acc, int r0, int c0, int tx, int ty, E alpha, E beta)\n{\n"
                    "    const int cr = r0 + ty * cfg::HM, cc = c0 + tx * cfg::HN;\n");
    if (fast)
        pa__tbuf_put(b, "    if (r0 + cfg::BM <= cfg::M && c0 + cfg::BN <= cfg::N && beta == E(0)) {\n"
                        "#pragma unroll\n        for (int i = 0; i < (int)RC::extent; i++) acc[i] = alpha * acc[i];\n"
                        "        stc::copy(c + C::at(cr, cc), acc, 0);\n        return;\n    }\n");
    pa__tbuf_put(b, "#pragma unroll\n    for (int i = 0; i < cfg::TM; i++)\n#pragma unroll\n"
                    "        for (int j = 0; j < cfg::TN; j++) {\n"
                    "            const int row = cr + (i / cfg::HM) * (cfg::BM / cfg::PM) + i %% cfg::HM;\n"
                    "            const int col = cc + (j / cfg::HN) * (cfg::BN / cfg::PN) + j %% cfg::HN;\n"
                    "            if (row < cfg::M && col < cfg::N) {\n"
                    "                E *q = c + C::at(row, col);\n"
                    "                *q = alpha * acc[RC::at(i, j)] + (beta != E(0) ? beta * *q : E(0));\n"
                    "            }\n        }\n}\n");
}

/* Adds the thread's C tile copies (registers <-> C) when both of C's dimensions are one affine mode. */
static int c_copies(pa_tilegen *gen, pa_scope *s, const pa_type *C, const pa_gemm_config *c, size_t esz, int *fast)
{
    int pm = pa__gemm_parts(c->tm, esz), pn = pa__gemm_parts(c->tn, esz);
    int64_t s0 = pa__gemm_single_stride(pa_type_child(C, 0)), s1 = pa__gemm_single_stride(pa_type_child(C, 1));
    *fast = s0 != 0 && s1 != 0;
    if (!*fast)
        return PA_OK;
    pa__layout ct;
    memset(&ct, 0, sizeof ct);
    ct.affine = 1;
    ct.size = (int64_t)c->tm * c->tn;
    ct.nmodes = 4;
    ct.modes[0] = (pa__mode){pm, (int64_t)(c->bm / pm) * s0, NULL};
    ct.modes[1] = (pa__mode){c->tm / pm, s0, NULL};
    ct.modes[2] = (pa__mode){pn, (int64_t)(c->bn / pn) * s1, NULL};
    ct.modes[3] = (pa__mode){c->tn / pn, s1, NULL};
    for (int m = 0; m < 4; m++) {
        int64_t span = (ct.modes[m].size - 1) * ct.modes[m].stride;
        if (span > 0)
            ct.max_off += span;
        else
            ct.min_off += span;
    }
    const pa_type *rc = pa_type_get(s, "RC");
    const pa__layout *rl = pa__type_layout(rc);
    int st = pa__tilegen_copy_layouts(gen, "stc", &ct, PA__TMEM_DMEM, rl, PA__TMEM_RMEM, rc, 1, 0, NULL,
                                      "a thread's results into C");
    return st;
}

/* 1 when every tile of X ([t0][t1] cuts of its two dimensions) starts at an offset that is a multiple of v. */
int pa__gemm_origins_aligned(const pa_type *X, int64_t t0, int64_t t1, int v)
{
    const int64_t t[2] = {t0, t1};
    for (int d = 0; d < 2; d++) {
        const pa__layout *l = pa__type_layout(pa_type_child(X, d));
        if (l == NULL || !l->affine)
            return 0;
        for (int64_t i = 0; i < l->size; i += t[d])
            if (pa__layout_offset(l, i) % v != 0)
                return 0;
    }
    return 1;
}

int pa__gemm_generate(const pa_type *C, const pa_type *A, const pa_type *B, const pa_gemm_config *config,
                      int aligned, char **source, pa_gemm_info *info)
{
    const char *what = "pa_gemm_dmem";
    gemm_shape g = {0};
    pa_gemm_config c;
    pa_scope *s = NULL;
    pa_tilegen *gen = NULL;
    pa__tbuf k = {0};
    pa__layout at, bt;
    int shape = pa__gemm_mma_shape(A, config);
    if (shape)
        return pa__gemm_mma_generate(C, A, B, config, shape, aligned, source, info);
    if (config != NULL && config->compute != PA_GEMM_FP32 && config->compute != PA_GEMM_TF32)
        return pa__err(PA_ERR_PARAM, "%s: compute=%d; PA_GEMM_FP32 (0) or PA_GEMM_TF32", what, config->compute);
    if (config != NULL && config->bm == 0)
        config = NULL;   /* the default shape */
    int st = check_types(C, A, B, &g, what);
    ADD(st, pa__gemm_config(config, g.esz, &c, what));
    ADD(st, pa_scope_create(NULL, &s));
    if (st != PA_OK)
        goto fail;
    int fast_a = pa__gemm_tile2(A, c.bm, c.bk, &at), fast_b = pa__gemm_tile2(B, c.bk, c.bn, &bt), fast_c = 0;
    int async = c.stages >= 2;
    /* an asynchronous copy moves 16-byte vectors only where both sides take them; else single elements, dealt
     * along the dmem side so that a warp's requests read whole sectors */
    int vb_a = fast_a ? tile_vec_bytes(&at, c.bm, c.bk, 1, &g, c.threads) : 16;
    int vb_b = fast_b ? tile_vec_bytes(&bt, c.bk, c.bn, 0, &g, c.threads) : 16;
    /* which operands go asynchronously: both with stages >= 2; with stages 1 and k-steps of 16 or more, those
     * whose tiles move as 16-byte vectors both ways (hybrid_loop) */
    int aa = async || (c.bk >= 16 && fast_a && vb_a == 16), ab = async || (c.bk >= 16 && fast_b && vb_b == 16);
    if (!aa)
        vb_a = 16;
    if (!ab)
        vb_b = 16;
    int pad_a = fast_a ? pick_pad(&at, c.bm, c.bk, 1, &g, c.threads, vb_a) : (int)(16 / g.esz);
    int pad_b = fast_b ? pick_pad(&bt, c.bk, c.bn, 0, &g, c.threads, vb_b) : 0;
    ADD(st, declare(s, &g, &c, pad_a, pad_b));
    ADD(st, pa_tilegen_create(&gen));
    ADD(st, pa_tilegen_type(gen, "A", A));
    ADD(st, pa_tilegen_type(gen, "B", B));
    ADD(st, pa_tilegen_type(gen, "C", C));
    const char *own[] = {"SA", "SB", "SAT", "SBT", "RA", "RB", "RC"};
    for (int i = 0; i < 7; i++)
        ADD(st, pa_tilegen_type(gen, own[i], pa_type_get(s, own[i])));
    ADD(st, pa_tilegen_copy(gen, "fra", pa_type_get(s, "RA"), pa_type_get(s, "SAF"), 1));
    ADD(st, pa_tilegen_copy(gen, "frb", pa_type_get(s, "RB"), pa_type_get(s, "SBF"), 1));
    int64_t pa2[2] = {c.bm, c.bk}, pb2[2] = {c.bk, c.bn};
    if (fast_a)
        ADD(st, pa__tilegen_copy_layouts_v(gen, aa ? "lda_a" : "lda_t", pa__type_layout(pa_type_get(s, "SAT")),
                                           PA__TMEM_SMEM, &at, PA__TMEM_DMEM, A, c.threads, 2, pa2, vb_a,
                                           "a tile of A into shared memory"));
    if (fast_b)
        ADD(st, pa__tilegen_copy_layouts_v(gen, ab ? "ldb_a" : "ldb_t", pa__type_layout(pa_type_get(s, "SBT")),
                                           PA__TMEM_SMEM, &bt, PA__TMEM_DMEM, B, c.threads, 2, pb2, vb_b,
                                           "a tile of B into shared memory"));
    ADD(st, c_copies(gen, s, C, &c, g.esz, &fast_c));
    if (st != PA_OK)
        goto fail;
    int pm = pa__gemm_parts(c.tm, g.esz), pn = pa__gemm_parts(c.tn, g.esz);
    pa__tbuf_put(&k, kernel_head, c.bm, c.bn, c.bk, c.tm, c.tn, c.threads, c.bn / c.tn, c.tm / pm, c.tn / pn,
                 c.lanes_n, pm, pn, async ? c.stages : 2, (long long)g.m, (long long)g.n, (long long)g.k, g.elm,
                 c.threads, c.min_blocks);
    if (async)
        pa__tbuf_put(&k, kernel_async, kernel_step);
    else if (aa || ab)
        hybrid_loop(&k, aa, ab);
    else
        pa__tbuf_put(&k, kernel_regs, kernel_step);
    pa__tbuf_put(&k, "%s", kernel_tail);
    /* the helpers go between cfg and the kernel: split the text at the kernel's line */
    char *kpos = k.s ? strstr(k.s, "extern \"C\"") : NULL;
    if (k.st != PA_OK || kpos == NULL) {
        st = pa__err(PA_ERR_NOMEM, "%s: the kernel's source", what);
        goto fail;
    }
    pa__tbuf body = {0};
    pa__tbuf_put(&body, "%.*s", (int)(kpos - k.s), k.s);
    int v = (int)(16 / g.esz);
    int full_a = g.m % c.bm == 0 && g.k % c.bk == 0, full_b = g.k % c.bk == 0 && g.n % c.bn == 0;
    int al_a = aligned && pa__gemm_origins_aligned(A, c.bm, c.bk, v), al_b = aligned && pa__gemm_origins_aligned(B, c.bk, c.bn, v);
    pa__gemm_loader(&body, "lda", "A", 1, fast_a, aa, full_a, al_a, "SAT", "cfg::M", "cfg::K", c.bm * c.bk / c.threads);
    pa__gemm_loader(&body, "ldb", "B", 0, fast_b, ab, full_b, al_b, "SBT", "cfg::K", "cfg::N", c.bk * c.bn / c.threads);
    epilogue(&body, fast_c);
    pa__tbuf_put(&body, "%s", kpos);
    st = body.st != PA_OK ? body.st : pa__tilegen_put(gen, body.s);
    pa__tbuf_free(&body);
    if (st != PA_OK)
        goto fail;
    if ((*source = strdup(pa_tilegen_source(gen))) == NULL) {
        st = pa__err(PA_ERR_NOMEM, "%s: the kernel's source", what);
        goto fail;
    }
    if (info) {
        memset(info, 0, sizeof *info);
        info->config = c;
        info->fast_a = fast_a;
        info->fast_b = fast_b;
        info->fast_c = fast_c;
        info->smem_bytes = (int)((pa__type_layout(pa_type_get(s, "SA"))->max_off + 1 +
                                  pa__type_layout(pa_type_get(s, "SB"))->max_off + 1) * (int64_t)g.esz);
    }
fail:
    pa__tbuf_free(&k);
    pa_tilegen_destroy(gen);
    if (s)
        pa_scope_destroy(s);
    return st;
}

char *pa_gemm_dmem_source(const pa_type *C, const pa_type *A, const pa_type *B, const pa_gemm_config *config)
{
    char *src = NULL;
    return pa__gemm_generate(C, A, B, config, 1, &src, NULL) == PA_OK ? src : NULL;
}
