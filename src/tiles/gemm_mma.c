/*
 * parray — the tensor-core gemm's kernel source (pa_gemm_dmem with TF32, BF16 or FP16 operands and fp32
 * accumulators), generated from the three dmem types like the fp32 kernel (gemm_source.c).
 *
 * A block computes a bm x bn tile of C with threads / 32 warps, each a tm x tn part of it as (tm/16) x (tn/8)
 * mma tiles.  The k-tiles of A (bm x bk) and B (bk x bn) reach shared memory by the generated cooperative copies'
 * asynchronous forms (cp.async) into `stages` buffers, stages - 1 in flight; each k-step of 8 (TF32) or 16
 * elements, a warp loads its fragments from shared memory through the fragment types of mma_fragment.c (FA over
 * the shared tile of A, FB over B's: ldmatrix where it fits, else the planner's vectors) and issues the mma.sync
 * instructions.  The shared tiles keep the operand's contiguous dimension contiguous (so the tile copies move
 * 16-byte vectors) and are padded by the amount whose fragment loads and tile stores cost the fewest shared-memory
 * wavefronts.  Edges: tiles past M, N or K are zero-filled by the copies' predicated forms and the results are
 * written element by element where they fall inside C, through C's own at() (any affine layout of C).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tiles_internal.h"

#define ADD(st, call)      \
    do {                   \
        if ((st) == PA_OK) \
            (st) = (call); \
    } while (0)

typedef struct mma_kind {
    int shape, ks;          /* PA_MMA_*, k per instruction */
    const char *elm, *fn;   /* operand element type, the device instruction */
} mma_kind;

static const mma_kind kinds[] = {
    {PA_MMA_M16N8K8_TF32, 8, "float", "pa_mma_m16n8k8_tf32"},
    {PA_MMA_M16N8K16_BF16, 16, "bfloat16", "pa_mma_m16n8k16_bf16"},
    {PA_MMA_M16N8K16_F16, 16, "half", "pa_mma_m16n8k16_f16"},
};

int pa__gemm_mma_shape(const pa_type *A, const pa_gemm_config *config)
{
    const char *e = A ? pa_elm(A) : NULL;
    if (e == NULL)
        return 0;
    if (strcmp(e, "bfloat16") == 0)
        return PA_MMA_M16N8K16_BF16;
    if (strcmp(e, "half") == 0)
        return PA_MMA_M16N8K16_F16;
    return config != NULL && config->compute == PA_GEMM_TF32 ? PA_MMA_M16N8K8_TF32 : 0;
}

/* The default shapes, fastest first, as measured on the H200 (2026-11-29, eight shapes through bench/sgemm's
 * PA_SGEMM_MMA_CONFIGS at n = 4096 and 8192 x 1024 x 4096): TF32 128 x 256 x 32 in warps of 64 x 64 (0.39 of
 * cuBLAS), the same in 128 x 128 blocks two to a multiprocessor (0.38-0.39); 16-bit 128 x 128 x 64 in four warps
 * of 64 x 64, two blocks a multiprocessor (0.37-0.38), the same with k-steps of 32 (0.37); last, the shape with
 * warps of 64 x 32 (0.30-0.32), whose kernels never spill.  pa_gemm_dmem takes the first whose kernel for the
 * operands' layouts does not spill registers. */
int pa__gemm_mma_default(int shape, int i, pa_gemm_config *out)
{
    static const pa_gemm_config tf32[] = {{128, 256, 32, 64, 64, 256, 0, 1, 3, 0},
                                          {128, 128, 32, 64, 64, 128, 0, 2, 3, 0},
                                          {128, 128, 32, 64, 32, 256, 0, 1, 3, 0}};
    static const pa_gemm_config b16[] = {{128, 128, 64, 64, 64, 128, 0, 2, 3, 0},
                                         {128, 128, 32, 64, 64, 128, 0, 2, 3, 0},
                                         {128, 128, 32, 64, 32, 256, 0, 1, 4, 0}};
    const pa_gemm_config *list = shape == PA_MMA_M16N8K8_TF32 ? tf32 : b16;
    if (i < 0 || i >= 3)
        return 0;
    *out = list[i];
    return 1;
}

int pa__gemm_mma_config(const pa_gemm_config *in, int shape, pa_gemm_config *out, const char *what)
{
    const mma_kind *k = &kinds[shape - 1];
    pa_gemm_config c;
    pa__gemm_mma_default(shape, 0, &c);
    if (in != NULL && in->bm != 0)
        c = *in;
    c.compute = shape == PA_MMA_M16N8K8_TF32 ? PA_GEMM_TF32 : PA_GEMM_FP32;
    if (in != NULL && in->compute != PA_GEMM_FP32 && in->compute != PA_GEMM_TF32)
        return pa__err(PA_ERR_PARAM, "%s: compute=%d; PA_GEMM_FP32 (0) or PA_GEMM_TF32", what, in->compute);
    if (c.stages == 0)
        c.stages = 3;
    if (c.min_blocks == 0)
        c.min_blocks = 1;
    int warps = c.tm > 0 && c.tn > 0 ? (c.bm / c.tm) * (c.bn / c.tn) : 0;
    if (c.bm < 16 || c.bn < 8 || c.tm < 16 || c.tn < 8 || c.tm % 16 || c.tn % 8 || c.bm % c.tm || c.bn % c.tn ||
        c.bk < k->ks || c.bk % k->ks || c.bk > 256 || c.threads != 32 * warps || c.threads > 1024 ||
        (c.tm / 16) * (c.tn / 8) * 4 > 128 || c.stages < 2 || c.stages > 8 || c.min_blocks < 1 || c.min_blocks > 32)
        return pa__err(PA_ERR_PARAM, "%s: the tensor-core shape bm=%d bn=%d bk=%d tm=%d tn=%d threads=%d stages=%d "
                       "breaks its rules (tm x tn per warp, tm a multiple of 16 and tn of 8 dividing bm and bn; threads "
                       "= 32 (bm/tm)(bn/tn); bk a multiple of %d; at most 128 accumulators per thread; stages 2..8)",
                       what, c.bm, c.bn, c.bk, c.tm, c.tn, c.threads, c.stages, k->ks);
    *out = c;
    return PA_OK;
}

static int check_types(const pa_type *C, const pa_type *A, const pa_type *B, const mma_kind *k, int64_t *m,
                       int64_t *n, int64_t *kk, const char *what)
{
    const pa_type *t[3] = {A, B, C};
    const char *nm[3] = {"A", "B", "C"};
    for (int i = 0; i < 3; i++) {
        if (t[i] == NULL || pa_ndim(t[i]) != 2)
            return pa__err(PA_ERR_INVAL, "%s: %s must be given, with two top-level dimensions", what, nm[i]);
        if (strcmp(pa_mtt(t[i]), "dmem") != 0)
            return pa__err(PA_ERR_MTT, "%s: %s (%s) is %s memory; the GPU gemm takes dmem types", what, nm[i],
                           pa_type_name(t[i]), pa_mtt(t[i]));
        const char *want = i == 2 ? "float" : k->elm;
        if (strcmp(pa_elm(t[i]), want) != 0)
            return pa__err(PA_ERR_ELM, "%s: %s (%s) has %s elements; the %s gemm takes A and B of %s and C of float "
                           "(fp32 accumulators)", what, nm[i], pa_type_name(t[i]), pa_elm(t[i]),
                           k->shape == PA_MMA_M16N8K8_TF32 ? "TF32" : k->elm, k->elm);
    }
    *m = pa_size(pa_type_child(A, 0));
    *kk = pa_size(pa_type_child(A, 1));
    *n = pa_size(pa_type_child(B, 1));
    if (pa_size(pa_type_child(B, 0)) != *kk || pa_size(pa_type_child(C, 0)) != *m || pa_size(pa_type_child(C, 1)) != *n)
        return pa__err(PA_ERR_SIZE, "%s: A is %lldx%lld, B %lldx%lld, C %lldx%lld; C = A B needs [M][K], [K][N], "
                       "[M][N]", what, (long long)*m, (long long)*kk, (long long)pa_size(pa_type_child(B, 0)),
                       (long long)*n, (long long)pa_size(pa_type_child(C, 0)), (long long)pa_size(pa_type_child(C, 1)));
    if (*m > INT32_MAX / 2 || *n > INT32_MAX / 2 || *kk > INT32_MAX / 2 || *m < 1 || *n < 1 || *kk < 1)
        return pa__err(PA_ERR_RANGE, "%s: sizes %lld, %lld, %lld; each must be in 1 .. 2^30", what, (long long)*m,
                       (long long)*n, (long long)*kk);
    return PA_OK;
}

/*
 * The shared buffer of one operand: [NS][rows][cols + pad] with its contiguous dimension innermost, and the
 * logical view (the operand's [R][C] of stage 0) as VIEW.  inner_first: the operand's first dimension is the
 * contiguous one in shared memory.
 */
static int declare_buf(pa_scope *s, const char *buf, const char *view, const char *elm, int ns, int r, int c,
                       int second_contig, int pad)
{
    char d[512];
    if (second_contig)
        snprintf(d, sizeof d, "parray smem %s [%d][%d][%d] %s; parray smem %s [%d # %s_1][%d # %s_2] %s;", elm, ns, r,
                 c + pad, buf, elm, r, buf, c, buf, view);
    else
        snprintf(d, sizeof d, "parray smem %s [%d][%d][%d] %s; parray smem %s [%d # %s_2][%d # %s_1] %s;", elm, ns, c,
                 r + pad, buf, elm, r, buf, c, buf, view);
    return pa_declare_text(s, d);
}

/* The pad (elements, keeping 16-byte rows) whose fragment loads and tile stores cost the fewest wavefronts. */
static int pick_pad(const mma_kind *k, int op, const pa__layout *tile, int r, int c, int second_contig, int threads,
                    size_t esz)
{
    int step = (int)(16 / esz), best = 0, best_cost = 1 << 30;
    for (int pad = 0; pad <= 4 * step; pad += step) {
        pa_scope *s;
        if (pa_scope_create(NULL, &s) != PA_OK)
            return 0;
        int cost = 1 << 29;
        pa__tfrag f;
        if (declare_buf(s, "BUF", "VIEW", k->elm, 1, r, c, second_contig, pad) == PA_OK &&
            pa_mma_fragment(s, "FR", k->shape, op, "VIEW") == PA_OK &&
            pa__tfrag_plan(pa_type_get(s, "FR"), k->shape, op, "gemm", &f) == PA_OK) {
            cost = 4 * f.bank_ways;
            pa__tcopy cp;
            if (tile != NULL && pa__tcopy_plan(pa__type_layout(pa_type_get(s, "VIEW")), PA__TMEM_SMEM, tile,
                                               PA__TMEM_DMEM, esz, threads, 0, NULL, "gemm", &cp) == PA_OK)
                cost += cp.bank_ways;
        }
        pa_scope_destroy(s);
        if (cost < best_cost) {
            best_cost = cost;
            best = pad;
        }
    }
    return best;
}

static const char kernel_text[] =
    "extern \"C\" __global__ void __launch_bounds__(cfg::T, %d) pa_gemm_kernel(const E *__restrict__ a, "
    "const E *__restrict__ b, float *__restrict__ c, float alpha, float beta)\n"
    "{\n"
    "    extern __shared__ __align__(16) unsigned char pa_dyn[];\n"
    "    E *sa = reinterpret_cast<E *>(pa_dyn), *sb = sa + SA::extent;\n"
    "    const int tid = threadIdx.x, lane = tid & 31, warp = tid >> 5;\n"
    "    const int wr = (warp / cfg::WN) * cfg::TM, wc = (warp %% cfg::WN) * cfg::TN;\n"
    "    const int r0 = blockIdx.y * cfg::BM, c0 = blockIdx.x * cfg::BN;\n"
    "    float acc[cfg::MI][cfg::NI][4];\n"
    "#pragma unroll\n    for (int i = 0; i < cfg::MI; i++)\n#pragma unroll\n        for (int j = 0; j < cfg::NI; j++)\n"
    "#pragma unroll\n            for (int e = 0; e < 4; e++) acc[i][j][e] = 0.0f;\n"
    "    const int nk = (cfg::K + cfg::BK - 1) / cfg::BK;\n"
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
    "        const E *sac = sa + SA_0::off(rs), *sbc = sb + SB_0::off(rs);\n"
    "#pragma unroll\n"
    "        for (int kk = 0; kk < cfg::BK; kk += cfg::KS) {\n"
    "            unsigned af[cfg::MI][4], bf[cfg::NI][2];\n"
    "#pragma unroll\n"
    "            for (int i = 0; i < cfg::MI; i++) fa::%s(af[i], sac + SAT::at(wr + i * 16, kk), lane);\n"
    "#pragma unroll\n"
    "            for (int j = 0; j < cfg::NI; j++) fb::%s(bf[j], sbc + SBT::at(kk, wc + j * 8), lane);\n"
    "#pragma unroll\n"
    "            for (int i = 0; i < cfg::MI; i++)\n"
    "#pragma unroll\n"
    "                for (int j = 0; j < cfg::NI; j++) %s(acc[i][j], af[i], bf[j]);\n"
    "        }\n"
    "        rs = rs + 1 == cfg::NS ? 0 : rs + 1;\n"
    "        ws = ws + 1 == cfg::NS ? 0 : ws + 1;\n"
    "    }\n"
    "    pa_cp_async_wait<0>();\n"
    "#pragma unroll\n"
    "    for (int i = 0; i < cfg::MI; i++)\n"
    "#pragma unroll\n"
    "        for (int j = 0; j < cfg::NI; j++)\n"
    "#pragma unroll\n"
    "            for (int e = 0; e < 4; e++) {\n"
    "                const int row = r0 + wr + i * 16 + fc::row(lane, e), col = c0 + wc + j * 8 + fc::col(lane, e);\n"
    "                if (row < cfg::M && col < cfg::N) {\n"
    "                    float *q = c + C::at(row, col);\n"
    "                    *q = alpha * acc[i][j][e] + (beta != 0.0f ? beta * *q : 0.0f);\n"
    "                }\n"
    "            }\n"
    "}\n";

int pa__gemm_mma_generate(const pa_type *C, const pa_type *A, const pa_type *B, const pa_gemm_config *config,
                          int shape, int aligned, char **source, pa_gemm_info *info)
{
    const char *what = "pa_gemm_dmem";
    const mma_kind *k = &kinds[shape - 1];
    pa_gemm_config c;
    int64_t m = 0, n = 0, kk = 0;
    pa_scope *s = NULL;
    pa_tilegen *gen = NULL;
    pa__tbuf body = {0};
    int st = check_types(C, A, B, k, &m, &n, &kk, what);
    ADD(st, pa__gemm_mma_config(config, shape, &c, what));
    ADD(st, pa_scope_create(NULL, &s));
    if (st != PA_OK)
        goto fail;
    size_t esz = pa_elm_size(A);
    pa__layout at, bt;
    int fast_a = pa__gemm_tile2(A, c.bm, c.bk, &at), fast_b = pa__gemm_tile2(B, c.bk, c.bn, &bt);
    /* the shared tiles keep the dimension that is contiguous in device memory contiguous */
    int a_kc = pa__gemm_single_stride(pa_type_child(A, 1)) == 1 || pa__gemm_single_stride(pa_type_child(A, 0)) != 1;
    int b_nc = pa__gemm_single_stride(pa_type_child(B, 1)) == 1 || pa__gemm_single_stride(pa_type_child(B, 0)) != 1;
    int pad_a = pick_pad(k, PA_MMA_A, fast_a ? &at : NULL, c.bm, c.bk, a_kc, c.threads, esz);
    int pad_b = pick_pad(k, PA_MMA_B, fast_b ? &bt : NULL, c.bk, c.bn, b_nc, c.threads, esz);
    ADD(st, declare_buf(s, "SA", "SAT", k->elm, c.stages, c.bm, c.bk, a_kc, pad_a));
    ADD(st, declare_buf(s, "SB", "SBT", k->elm, c.stages, c.bk, c.bn, b_nc, pad_b));
    ADD(st, pa_declare_text(s, "parray smem float [16][8] SC;"));
    ADD(st, pa_mma_fragment(s, "FA", shape, PA_MMA_A, "SAT"));
    ADD(st, pa_mma_fragment(s, "FB", shape, PA_MMA_B, "SBT"));
    ADD(st, pa_mma_fragment(s, "FC", shape, PA_MMA_C, "SC"));
    ADD(st, pa_tilegen_create(&gen));
    ADD(st, pa_tilegen_type(gen, "A", A));
    ADD(st, pa_tilegen_type(gen, "B", B));
    ADD(st, pa_tilegen_type(gen, "C", C));
    ADD(st, pa_tilegen_type(gen, "SA", pa_type_get(s, "SA")));
    ADD(st, pa_tilegen_type(gen, "SB", pa_type_get(s, "SB")));
    ADD(st, pa_tilegen_type(gen, "SAT", pa_type_get(s, "SAT")));
    ADD(st, pa_tilegen_type(gen, "SBT", pa_type_get(s, "SBT")));
    ADD(st, pa_tilegen_fragment(gen, "fa", pa_type_get(s, "FA"), shape, PA_MMA_A));
    ADD(st, pa_tilegen_fragment(gen, "fb", pa_type_get(s, "FB"), shape, PA_MMA_B));
    ADD(st, pa_tilegen_fragment(gen, "fc", pa_type_get(s, "FC"), shape, PA_MMA_C));
    int64_t pa2[2] = {c.bm, c.bk}, pb2[2] = {c.bk, c.bn};
    if (fast_a)
        ADD(st, pa__tilegen_copy_layouts(gen, "lda_a", pa__type_layout(pa_type_get(s, "SAT")), PA__TMEM_SMEM, &at,
                                         PA__TMEM_DMEM, A, c.threads, 2, pa2, "a tile of A into shared memory"));
    if (fast_b)
        ADD(st, pa__tilegen_copy_layouts(gen, "ldb_a", pa__type_layout(pa_type_get(s, "SBT")), PA__TMEM_SMEM, &bt,
                                         PA__TMEM_DMEM, B, c.threads, 2, pb2, "a tile of B into shared memory"));
    if (st != PA_OK)
        goto fail;
    pa_tilegen_copy_info ia, ib;
    pa_tilegen_copy_info_of(gen, "fa", &ia);
    pa_tilegen_copy_info_of(gen, "fb", &ib);
    char elm[160];
    pa__elm_cuda_decl(A, "E", elm, sizeof elm);
    pa__tbuf_put(&body, "struct cfg { static constexpr int BM = %d, BN = %d, BK = %d, TM = %d, TN = %d, WN = %d, MI = %d, "
                        "NI = %d, KS = %d, T = %d, NS = %d; static constexpr int M = %lld, N = %lld, K = %lld; };\n%s\n",
                 c.bm, c.bn, c.bk, c.tm, c.tn, c.bn / c.tn, c.tm / 16, c.tn / 8, k->ks, c.threads, c.stages,
                 (long long)m, (long long)n, (long long)kk, elm);
    int v = (int)(16 / esz);
    int full_a = m % c.bm == 0 && kk % c.bk == 0, full_b = kk % c.bk == 0 && n % c.bn == 0;
    int al_a = aligned && pa__gemm_origins_aligned(A, c.bm, c.bk, v);
    int al_b = aligned && pa__gemm_origins_aligned(B, c.bk, c.bn, v);
    pa__gemm_loader(&body, "lda", "A", 1, fast_a, 1, full_a, al_a, "SAT", "cfg::M", "cfg::K", c.bm * c.bk / c.threads);
    pa__gemm_loader(&body, "ldb", "B", 0, fast_b, 1, full_b, al_b, "SBT", "cfg::K", "cfg::N", c.bk * c.bn / c.threads);
    pa__tbuf_put(&body, kernel_text, c.min_blocks, ia.ldmatrix ? "load_ldm" : "load_aligned",
                 ib.ldmatrix ? "load_ldm" : "load_aligned", k->fn);
    st = body.st != PA_OK ? pa__err(PA_ERR_NOMEM, "%s: the kernel's source", what) : pa__tilegen_put(gen, body.s);
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
        info->smem_bytes = (int)((pa__type_layout(pa_type_get(s, "SA"))->max_off + 1 +
                                  pa__type_layout(pa_type_get(s, "SB"))->max_off + 1) * (int64_t)esz);
    }
fail:
    pa__tbuf_free(&body);
    pa_tilegen_destroy(gen);
    if (s)
        pa_scope_destroy(s);
    return st;
}
