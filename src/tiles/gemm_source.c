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
            return pa__err(PA_ERR_ELM, "%s: %s (%s) has elements of %s; the gemm takes float or double", what,
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

int pa__gemm_config(const pa_gemm_config *in, size_t esz, pa_gemm_config *out, const char *what)
{
    pa_gemm_config c = esz == 8 ? (pa_gemm_config){64, 64, 8, 4, 4, 256, 0, 0}
                                : (pa_gemm_config){128, 128, 8, 8, 8, 256, 0, 0};
    if (in != NULL)
        c = *in;
    int v = (int)(16 / esz), tx = c.tm > 0 && c.tn > 0 ? c.bn / c.tn : 0, ty = c.tm > 0 ? c.bm / c.tm : 0;
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
    if (c.bm < 2 || c.bn < 2 || c.bk < 1 || c.tm < 2 || c.tn < 2 || c.tm % 2 || c.tn % 2 || c.bm % c.tm ||
        c.bn % c.tn || (c.bm / c.tm) * (c.bn / c.tn) != c.threads || c.threads % 32 || c.threads > 1024 ||
        (c.bm * c.bk) % c.threads || (c.bk * c.bn) % c.threads || c.bm % 2 || c.bn % 2 ||
        (c.bm / 2) % v || (c.bn / 2) % v || c.tm * c.tn * (int)esz > 512)
        return pa__err(PA_ERR_PARAM, "%s: the shape bm=%d bn=%d bk=%d tm=%d tn=%d threads=%d breaks the rules of "
                       "gputile.h (tm, tn even and dividing bm, bn; (bm/tm)(bn/tn) = threads, a multiple of 32; tiles "
                       "a multiple of the threads; bm/2, bn/2 multiples of 16 bytes; tm*tn results within 512 bytes)",
                       what, c.bm, c.bn, c.bk, c.tm, c.tn, c.threads);
    *out = c;
    return PA_OK;
}

/* The layout of a [t0][t1] tile of a matrix type (top-level dimensions cut at t0 and t1), base 0; 0 if none. */
static int tile2(const pa_type *X, int64_t t0, int64_t t1, pa__layout *out)
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
static int64_t single_stride(const pa_type *d)
{
    const pa__layout *l = pa__type_layout(d);
    return l == NULL || !l->affine || l->nmodes > 1 ? 0 : l->nmodes == 0 ? 1 : l->modes[0].stride;
}

/* The private types of the kernel: shared buffers with padding pad_a/pad_b, their views, registers. */
static int declare(pa_scope *s, const gemm_shape *g, const pa_gemm_config *c, int pad_a, int pad_b)
{
    char d[2048];
    int hm = c->tm / 2, hn = c->tn / 2;
    snprintf(d, sizeof d,
             "parray smem %s [2][%d][%d] SA; parray smem %s [2][%d][%d] SB;"
             "parray smem %s [%d # SA_2][%d # SA_1] SAT; parray smem %s [%d # SB_1][%d # SB_2] SBT;"
             "parray smem %s [2][%d] HA; parray smem %s [#HA_0][%d # HA_1] SAF;"
             "parray smem %s [2][%d] HB; parray smem %s [#HB_0][%d # HB_1] SBF;"
             "parray rmem %s [%d] RA; parray rmem %s [%d] RB; parray rmem %s [%d][%d] RC;",
             g->elm, c->bk, c->bm + pad_a, g->elm, c->bk, c->bn + pad_b, g->elm, c->bm, c->bk, g->elm, c->bk, c->bn,
             g->elm, c->bm / 2, g->elm, hm, g->elm, c->bn / 2, g->elm, hn, g->elm, c->tm, g->elm, c->tn, g->elm,
             c->tm, c->tn);
    return pa_declare_text(s, d);
}

/* The padding (in elements, keeping 16-byte rows) whose tile store costs the fewest wavefronts. */
static int pick_pad(const pa__layout *src, int64_t rows, int64_t cols, int transposed, const gemm_shape *g,
                    int threads)
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
        if (pa__tcopy_plan(&dst, PA__TMEM_SMEM, src, PA__TMEM_DMEM, g->esz, threads, 0, NULL, "gemm", &c) != PA_OK)
            continue;
        if (c.bank_ways < best_ways) {
            best_ways = c.bank_ways;
            best = pad;
        }
    }
    return best;
}

static const char kernel_fmt[] =
    "struct cfg { static constexpr int BM = %d, BN = %d, BK = %d, TM = %d, TN = %d, T = %d, TX = %d, HM = %d, "
    "HN = %d, LX = %d; static constexpr int M = %lld, N = %lld, K = %lld; };\n"
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
    "    lda::frag fa;\n    ldb::frag fb;\n"
    "    const int nk = (cfg::K + cfg::BK - 1) / cfg::BK;\n"
    "    lda::load(fa, a, r0, 0, tid);\n    ldb::load(fb, b, 0, c0, tid);\n"
    "    lda::store(sa, fa, tid);\n    ldb::store(sb, fb, tid);\n    __syncthreads();\n"
    "    for (int kt = 0; kt < nk; kt++) {\n"
    "        const int cur = kt & 1;\n"
    "        const E *sac = sa + SA_0::off(cur) + ty * cfg::HM, *sbc = sb + SB_0::off(cur) + tx * cfg::HN;\n"
    "        if (kt + 1 < nk) {\n"
    "            lda::load(fa, a, r0, (kt + 1) * cfg::BK, tid);\n"
    "            ldb::load(fb, b, (kt + 1) * cfg::BK, c0, tid);\n"
    "        }\n"
    "#pragma unroll\n"
    "        for (int k = 0; k < cfg::BK; k++) {\n"
    "            fra::copy_aligned(ra, sac + SA_1::off(k), 0);\n"
    "            frb::copy_aligned(rb, sbc + SB_1::off(k), 0);\n"
    "#pragma unroll\n"
    "            for (int i = 0; i < cfg::TM; i++)\n"
    "#pragma unroll\n"
    "                for (int j = 0; j < cfg::TN; j++)\n"
    "                    acc[RC::at(i, j)] += ra[i] * rb[j];\n"
    "        }\n"
    "        if (kt + 1 < nk) {\n"
    "            lda::store(sa + SA_0::off(cur ^ 1), fa, tid);\n"
    "            ldb::store(sb + SB_0::off(cur ^ 1), fb, tid);\n"
    "            __syncthreads();\n"
    "        }\n"
    "    }\n"
    "    epilogue(c, acc, r0, c0, tx, ty, alpha, beta);\n"
    "}\n";

/* lda/ldb: the fast tile load of a generated copy, or the element-by-element load through the type. */
static void loader(pa__tbuf *b, const char *nm, const char *X, const char *tile_t, int fast, const char *sview,
                   const char *rows, const char *cols, int units)
{
    if (fast) {
        pa__tbuf_put(b, "struct %s {\n    typedef %s_t::frag frag;\n"
                        "    static PA_TDD void load(frag &f, const E *p, int i0, int j0, int tid)\n    {\n"
                        "        const E *q = p + %s::at(i0, j0);\n"
                        "        if (i0 + %s <= %s && j0 + %s <= %s)\n            %s_t::load(f, q, tid);\n"
                        "        else\n            %s_t::load_pred(f, q, tid, %s - i0, %s - j0);\n    }\n"
                        "    static PA_TDD void store(E *s, const frag &f, int tid) { %s_t::store_aligned(s, f, tid); }\n"
                        "};\n", nm, nm, X, tile_t[0] == 'A' ? "cfg::BM" : "cfg::BK", rows,
                     tile_t[0] == 'A' ? "cfg::BK" : "cfg::BN", cols, nm, nm, rows, cols, nm);
        return;
    }
    const char *ti = tile_t[0] == 'A' ? "cfg::BK" : "cfg::BN";
    pa__tbuf_put(b, "struct %s {\n    struct frag { E e[%d]; };\n"
                    "    static PA_TDD void load(frag &f, const E *p, int i0, int j0, int tid)\n    {\n"
                    "#pragma unroll\n        for (int j = 0; j < %d; j++) {\n"
                    "            const int u = tid + j * cfg::T, i = i0 + u / %s, k = j0 + u %% %s;\n"
                    "            f.e[j] = i < %s && k < %s ? p[%s::at(i, k)] : E(0);\n        }\n    }\n"
                    "    static PA_TDD void store(E *s, const frag &f, int tid)\n    {\n"
                    "#pragma unroll\n        for (int j = 0; j < %d; j++) s[%s::off(tid + j * cfg::T)] = f.e[j];\n"
                    "    }\n};\n", nm, units, units, ti, ti, rows, cols, X, units, sview);
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
                    "            const int row = cr + (i / cfg::HM) * (cfg::BM / 2) + i %% cfg::HM;\n"
                    "            const int col = cc + (j / cfg::HN) * (cfg::BN / 2) + j %% cfg::HN;\n"
                    "            if (row < cfg::M && col < cfg::N) {\n"
                    "                E *q = c + C::at(row, col);\n"
                    "                *q = alpha * acc[RC::at(i, j)] + (beta != E(0) ? beta * *q : E(0));\n"
                    "            }\n        }\n}\n");
}

/* Adds the thread's C tile copies (registers <-> C) when both of C's dimensions are one affine mode. */
static int c_copies(pa_tilegen *gen, pa_scope *s, const pa_type *C, const pa_gemm_config *c, int *fast)
{
    int64_t s0 = single_stride(pa_type_child(C, 0)), s1 = single_stride(pa_type_child(C, 1));
    *fast = s0 != 0 && s1 != 0;
    if (!*fast)
        return PA_OK;
    pa__layout ct;
    memset(&ct, 0, sizeof ct);
    ct.affine = 1;
    ct.size = (int64_t)c->tm * c->tn;
    ct.nmodes = 4;
    ct.modes[0] = (pa__mode){2, (int64_t)(c->bm / 2) * s0, NULL};
    ct.modes[1] = (pa__mode){c->tm / 2, s0, NULL};
    ct.modes[2] = (pa__mode){2, (int64_t)(c->bn / 2) * s1, NULL};
    ct.modes[3] = (pa__mode){c->tn / 2, s1, NULL};
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

int pa__gemm_generate(const pa_type *C, const pa_type *A, const pa_type *B, const pa_gemm_config *config,
                      char **source, pa_gemm_info *info)
{
    const char *what = "pa_gemm_dmem";
    gemm_shape g = {0};
    pa_gemm_config c;
    pa_scope *s = NULL;
    pa_tilegen *gen = NULL;
    pa__tbuf k = {0};
    pa__layout at, bt;
    int st = check_types(C, A, B, &g, what);
    ADD(st, pa__gemm_config(config, g.esz, &c, what));
    ADD(st, pa_scope_create(NULL, &s));
    if (st != PA_OK)
        goto fail;
    int fast_a = tile2(A, c.bm, c.bk, &at), fast_b = tile2(B, c.bk, c.bn, &bt), fast_c = 0;
    int pad_a = fast_a ? pick_pad(&at, c.bm, c.bk, 1, &g, c.threads) : (int)(16 / g.esz);
    int pad_b = fast_b ? pick_pad(&bt, c.bk, c.bn, 0, &g, c.threads) : 0;
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
        ADD(st, pa__tilegen_copy_layouts(gen, "lda_t", pa__type_layout(pa_type_get(s, "SAT")), PA__TMEM_SMEM, &at,
                                         PA__TMEM_DMEM, A, c.threads, 2, pa2, "a tile of A into shared memory"));
    if (fast_b)
        ADD(st, pa__tilegen_copy_layouts(gen, "ldb_t", pa__type_layout(pa_type_get(s, "SBT")), PA__TMEM_SMEM, &bt,
                                         PA__TMEM_DMEM, B, c.threads, 2, pb2, "a tile of B into shared memory"));
    ADD(st, c_copies(gen, s, C, &c, &fast_c));
    if (st != PA_OK)
        goto fail;
    pa__tbuf_put(&k, kernel_fmt, c.bm, c.bn, c.bk, c.tm, c.tn, c.threads, c.bn / c.tn, c.tm / 2, c.tn / 2, c.lanes_n,
                 (long long)g.m, (long long)g.n, (long long)g.k, g.elm, c.threads, c.min_blocks);
    /* the helpers go between cfg and the kernel: split the text at the kernel's line */
    char *kpos = k.s ? strstr(k.s, "extern \"C\"") : NULL;
    if (k.st != PA_OK || kpos == NULL) {
        st = pa__err(PA_ERR_NOMEM, "%s: the kernel's source", what);
        goto fail;
    }
    pa__tbuf body = {0};
    pa__tbuf_put(&body, "%.*s", (int)(kpos - k.s), k.s);
    loader(&body, "lda", "A", "A", fast_a, "SAT", "cfg::M", "cfg::K", c.bm * c.bk / c.threads);
    loader(&body, "ldb", "B", "B", fast_b, "SBT", "cfg::K", "cfg::N", c.bk * c.bn / c.threads);
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
    return pa__gemm_generate(C, A, B, config, &src, NULL) == PA_OK ? src : NULL;
}
