/*
 * parray tests — tensor-core fragments as types, without a GPU: for every shape and operand, over row-major,
 * padded, transposed and windowed tiles, each (lane, register element) of the fragment type declared by
 * pa_mma_fragment is checked three ways: the library's walk of the fragment type, the generator's layouts
 * (what the generated lane_off/reg_off compute) and its coordinate formula all agree with a table written here
 * from the PTX ISA's fragment descriptions (groupID = lane >> 2, threadID_in_group = lane % 4); every element
 * of the operand is held exactly once; where ldmatrix is chosen, its documented distribution (thread t gets
 * row t/4, columns 2(t%4) and +1 of each 8x8 matrix; transposed, rows 2(t%4), +1 of column t/4) from the
 * row addresses the generator gives reproduces the fragment.  Bank conflicts are counted, and padding removes
 * them; where NVRTC is present the generated fragments compile for sm_90 in a kernel that runs mma.sync.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../src/tiles/tiles_internal.h"
#include "testutil.h"

/* The PTX ISA's fragment tables, written out case by case (not from the generator's spec). */
static void ptx_table(int shape, int op, int lane, int i, int *row, int *col)
{
    int g = lane >> 2, t = lane % 4;
    if (op == PA_MMA_C) {   /* c0..c3: (g, 2t + (i & 1)) for c0, c1; row g + 8 for c2, c3 */
        *row = i < 2 ? g : g + 8;
        *col = t * 2 + (i & 1);
        return;
    }
    if (shape == PA_MMA_M16N8K8_TF32) {
        if (op == PA_MMA_A) {   /* row g for a0, a2, g + 8 for a1, a3; col t for a0, a1, t + 4 for a2, a3 */
            *row = (i == 0 || i == 2) ? g : g + 8;
            *col = i < 2 ? t : t + 4;
        } else {                /* row t for b0, t + 4 for b1; col g */
            *row = i == 0 ? t : t + 4;
            *col = g;
        }
        return;
    }
    if (op == PA_MMA_A) {   /* row g for a0, a1, a4, a5, else g + 8; col 2t + (i & 1), + 8 for i >= 4 */
        *row = (i < 2 || (i >= 4 && i < 6)) ? g : g + 8;
        *col = t * 2 + (i & 1) + (i >= 4 ? 8 : 0);
    } else {                /* row 2t + (i & 1), + 8 for i >= 2; col g */
        *row = t * 2 + (i & 1) + (i >= 2 ? 8 : 0);
        *col = g;
    }
}

typedef struct kind {
    int shape, op, rows, cols, elems;
    const char *elm;
} kind;

static const kind kinds[] = {
    {PA_MMA_M16N8K8_TF32, PA_MMA_A, 16, 8, 4, "float"},   {PA_MMA_M16N8K8_TF32, PA_MMA_B, 8, 8, 2, "float"},
    {PA_MMA_M16N8K8_TF32, PA_MMA_C, 16, 8, 4, "float"},   {PA_MMA_M16N8K16_BF16, PA_MMA_A, 16, 16, 8, "bfloat16"},
    {PA_MMA_M16N8K16_BF16, PA_MMA_B, 16, 8, 4, "bfloat16"}, {PA_MMA_M16N8K16_BF16, PA_MMA_C, 16, 8, 4, "float"},
    {PA_MMA_M16N8K16_F16, PA_MMA_A, 16, 16, 8, "half"},   {PA_MMA_M16N8K16_F16, PA_MMA_B, 16, 8, 4, "half"},
};

/* Tiles of one operand: row-major, padded, stored transposed (padded), the corner of a larger buffer. */
static void declare_tiles(pa_scope *s, const kind *k)
{
    char d[1024];
    snprintf(d, sizeof d,
             "parray smem %s [%d][%d] T0; parray smem %s [%d][%d] P1; parray smem %s [#P1_0][%d # P1_1] T1;"
             "parray smem %s [%d][%d] P2; parray smem %s [%d # P2_1][#P2_0] T2;"
             "parray smem %s [3][64][72] P3; parray smem %s [%d # P3_1][%d # P3_2] T3;",
             k->elm, k->rows, k->cols, k->elm, k->rows, k->cols + 8, k->elm, k->cols, k->elm, k->cols, k->rows + 8,
             k->elm, k->rows, k->elm, k->elm, k->rows, k->cols);
    PA_CK_OK(pa_declare_text(s, d));
}

START_TEST(fragments_follow_the_ptx_tables)
{
    int ldm = 0, ldm_trans = 0;
    for (size_t ki = 0; ki < sizeof kinds / sizeof kinds[0]; ki++) {
        const kind *k = &kinds[ki];
        pa_scope *s;
        PA_CK_OK(pa_scope_create(NULL, &s));
        declare_tiles(s, k);
        for (int ti = 0; ti < 4; ti++) {
            char tile[8], frag[8];
            snprintf(tile, sizeof tile, "T%d", ti);
            snprintf(frag, sizeof frag, "F%d", ti);
            PA_CK_OK(pa_mma_fragment(s, frag, k->shape, k->op, tile));
            const pa_type *T = pa_type_get(s, tile), *F = pa_type_get(s, frag);
            ck_assert_int_eq(pa_size(F), 32 * k->elems);
            ck_assert_str_eq(pa_mtt(F), "smem");
            ck_assert_str_eq(pa_elm(F), k->elm);
            pa__tfrag f;
            PA_CK_OK(pa__tfrag_plan(F, k->shape, k->op, "test", &f));
            ck_assert_int_eq(f.elems, k->elems);
            int64_t tcols = pa_size(pa_type_child(T, 1));
            char *held = calloc((size_t)(k->rows * k->cols), 1);
            for (int lane = 0; lane < 32; lane++)
                for (int e = 0; e < k->elems; e++) {
                    int r, c, gr, gc;
                    ptx_table(k->shape, k->op, lane, e, &r, &c);
                    ck_assert(r >= 0 && r < k->rows && c >= 0 && c < k->cols);
                    held[r * k->cols + c]++;
                    ck_assert(pa__mma_coord(k->shape, k->op, lane, e, &gr, &gc));
                    ck_assert_msg(gr == r && gc == c, "kind %zu lane %d e %d: generator (%d, %d), PTX (%d, %d)", ki,
                                  lane, e, gr, gc, r, c);
                    int64_t want = pa_offset(T, r * tcols + c);
                    ck_assert_msg(pa_offset(F, lane * k->elems + e) == want, "kind %zu %s lane %d e %d", ki, tile,
                                  lane, e);
                    ck_assert_msg(pa__tfrag_off(&f, lane, e) == want, "kind %zu %s lane %d e %d: layouts", ki, tile,
                                  lane, e);
                }
            for (int i = 0; i < k->rows * k->cols; i++)
                ck_assert_int_eq(held[i], 1);
            free(held);
            if (f.ldmatrix) {   /* ldmatrix's distribution from the rows the generator addresses */
                ldm += !f.trans;
                ldm_trans += f.trans;
                for (int t = 0; t < 32; t++)
                    for (int j = 0; j < f.words; j++)
                        for (int p = 0; p < 2; p++) {
                            int64_t got = f.trans ? pa__tfrag_ldm_off(&f, 8 * j + 2 * (t % 4) + p) + t / 4
                                                  : pa__tfrag_ldm_off(&f, 8 * j + t / 4) + 2 * (t % 4) + p;
                            ck_assert_int_eq(got, pa__tfrag_off(&f, t, 2 * j + p));
                        }
            }
        }
        pa_scope_destroy(s);
    }
    /* row-major 16-bit A and padded ones load by ldmatrix; B stored k-major too; B row-major ([k][n]) by .trans */
    ck_assert_int_ge(ldm, 6);
    ck_assert_int_ge(ldm_trans, 4);
}
END_TEST

static int ways_of(const char *decl, int shape, int op, pa_tilegen_copy_info *info)
{
    pa_scope *s;
    PA_CK_OK(pa_scope_create(NULL, &s));
    PA_CK_OK(pa_declare_text(s, decl));
    pa_tilegen *g;
    PA_CK_OK(pa_tilegen_create(&g));
    PA_CK_OK(pa_mma_fragment(s, "F", shape, op, "T"));
    PA_CK_OK(pa_tilegen_fragment(g, "frag", pa_type_get(s, "F"), shape, op));
    PA_CK_OK(pa_tilegen_copy_info_of(g, "frag", info));
    pa_tilegen_destroy(g);
    pa_scope_destroy(s);
    return info->bank_ways;
}

START_TEST(padding_removes_fragment_bank_conflicts)
{
    pa_tilegen_copy_info in;
    /* TF32 A in a 128 x 32 k-tile: rows 32 floats apart put the 8 groups in one bank; 36 spreads them */
    ck_assert_int_eq(ways_of("parray smem float [128][32] S; parray smem float [16 # S_0][8 # S_1] T;",
                             PA_MMA_M16N8K8_TF32, PA_MMA_A, &in), 8);
    ck_assert_int_eq(ways_of("parray smem float [128][36] S; parray smem float [16 # S_0][8 # S_1] T;",
                             PA_MMA_M16N8K8_TF32, PA_MMA_A, &in), 1);
    ck_assert_int_eq(in.vector, 1);
    /* TF32 B stored [k][n]: 128 + 8 columns */
    ck_assert_int_eq(ways_of("parray smem float [32][128] S; parray smem float [8 # S_0][8 # S_1] T;",
                             PA_MMA_M16N8K8_TF32, PA_MMA_B, &in), 4);
    ck_assert_int_eq(ways_of("parray smem float [32][136] S; parray smem float [8 # S_0][8 # S_1] T;",
                             PA_MMA_M16N8K8_TF32, PA_MMA_B, &in), 1);
    /* BF16 A by ldmatrix: rows of 64 bytes... 32 + 8 elements per row is conflict-free */
    ck_assert_int_eq(ways_of("parray smem bfloat16 [128][32] S; parray smem bfloat16 [16 # S_0][16 # S_1] T;",
                             PA_MMA_M16N8K16_BF16, PA_MMA_A, &in), 4);   /* rows 64 bytes apart: 4 share a bank group */
    ck_assert_int_eq(in.ldmatrix, 4);
    ck_assert_int_eq(in.trans, 0);
    ck_assert_int_eq(ways_of("parray smem bfloat16 [128][40] S; parray smem bfloat16 [16 # S_0][16 # S_1] T;",
                             PA_MMA_M16N8K16_BF16, PA_MMA_A, &in), 1);
    /* BF16 B stored [k][n] row-major: ldmatrix.trans, rows 256 bytes apart all in one bank group */
    ck_assert_int_eq(ways_of("parray smem bfloat16 [32][128] S; parray smem bfloat16 [16 # S_0][8 # S_1] T;",
                             PA_MMA_M16N8K16_BF16, PA_MMA_B, &in), 8);
    ck_assert_int_eq(in.ldmatrix, 2);
    ck_assert_int_eq(in.trans, 1);
    ck_assert_int_eq(ways_of("parray smem bfloat16 [32][136] S; parray smem bfloat16 [16 # S_0][8 # S_1] T;",
                             PA_MMA_M16N8K16_BF16, PA_MMA_B, &in), 1);
    /* B stored n-major ([n][k]) with an odd row: no ldmatrix (rows not 16-byte aligned), pairs as 32-bit words */
    ck_assert_int_eq(ways_of("parray smem half [128][34] S; parray smem half [#S_1][#S_0] U;"
                             "parray smem half [16 # U_0][8 # U_1] T;", PA_MMA_M16N8K16_F16, PA_MMA_B, &in), 2);
    ck_assert_int_eq(in.ldmatrix, 0);
    ck_assert_int_eq(in.vector, 2);
}
END_TEST

START_TEST(bad_fragments_are_refused)
{
    pa_scope *s;
    pa_tilegen *g;
    PA_CK_OK(pa_scope_create(NULL, &s));
    PA_CK_OK(pa_tilegen_create(&g));
    PA_CK_OK(pa_declare_text(s, "parray smem float [8][8] SMALL; parray smem double [16][8] DBL; parray smem float "
                                "[16][8] OK; parray smem float [16][16] OK16; parray smem float [128] FLAT; parray paged float [16][8] HOST;"));
    PA_CK_ERR(pa_mma_fragment(s, "F", PA_MMA_M16N8K8_TF32, PA_MMA_A, "SMALL"), PA_ERR_SIZE);
    ck_assert_msg(strstr(pa_last_error(), "8x8") && strstr(pa_last_error(), "16x8"), "%s", pa_last_error());
    PA_CK_ERR(pa_mma_fragment(s, "F", PA_MMA_M16N8K16_BF16, PA_MMA_A, "OK"), PA_ERR_SIZE);
    PA_CK_ERR(pa_mma_fragment(s, "F", PA_MMA_M16N8K8_TF32, PA_MMA_A, "DBL"), PA_ERR_ELM);
    PA_CK_ERR(pa_mma_fragment(s, "F", PA_MMA_M16N8K16_BF16, PA_MMA_A, "OK16"), PA_ERR_ELM);
    PA_CK_ERR(pa_mma_fragment(s, "F", PA_MMA_M16N8K8_TF32, PA_MMA_A, "FLAT"), PA_ERR_INVAL);
    /* a window that starts inside its buffer: each tile dimension is referred to twice (lanes, registers), so
     * its start would count twice; the origin goes into the pointer instead */
    PA_CK_OK(pa_declare_text(s, "parray smem float [64][72] BUF; parray smem float [16 # disp(16) # BUF_0][8 # BUF_1] WIN;"));
    PA_CK_ERR(pa_mma_fragment(s, "F", PA_MMA_M16N8K8_TF32, PA_MMA_A, "WIN"), PA_ERR_UNSUPPORTED);
    ck_assert_msg(strstr(pa_last_error(), "offset 1152"), "%s", pa_last_error());
    PA_CK_ERR(pa_mma_fragment(s, "F", 9, PA_MMA_A, "OK"), PA_ERR_INVAL);
    PA_CK_ERR(pa_mma_fragment(s, "F", PA_MMA_M16N8K8_TF32, 5, "OK"), PA_ERR_INVAL);
    PA_CK_ERR(pa_mma_fragment(s, "F", PA_MMA_M16N8K8_TF32, PA_MMA_A, "NOSUCH"), PA_ERR_NAME);
    PA_CK_ERR(pa_mma_fragment(NULL, "F", PA_MMA_M16N8K8_TF32, PA_MMA_A, "OK"), PA_ERR_INVAL);
    PA_CK_OK(pa_mma_fragment(s, "F", PA_MMA_M16N8K8_TF32, PA_MMA_A, "OK"));
    PA_CK_OK(pa_mma_fragment(s, "FH", PA_MMA_M16N8K8_TF32, PA_MMA_C, "HOST"));
    /* a fragment of A is not one of B (element count), nor of host memory */
    PA_CK_ERR(pa_tilegen_fragment(g, "fb", pa_type_get(s, "F"), PA_MMA_M16N8K8_TF32, PA_MMA_B), PA_ERR_SIZE);
    PA_CK_ERR(pa_tilegen_fragment(g, "fh", pa_type_get(s, "FH"), PA_MMA_M16N8K8_TF32, PA_MMA_C), PA_ERR_MTT);
    PA_CK_ERR(pa_tilegen_fragment(g, "f", pa_type_get(s, "OK"), PA_MMA_M16N8K8_TF32, PA_MMA_A), PA_ERR_SIZE);
    PA_CK_ERR(pa_tilegen_fragment(NULL, "f", pa_type_get(s, "F"), PA_MMA_M16N8K8_TF32, PA_MMA_A), PA_ERR_INVAL);
    PA_CK_OK(pa_tilegen_fragment(g, "fa", pa_type_get(s, "F"), PA_MMA_M16N8K8_TF32, PA_MMA_A));
    PA_CK_ERR(pa_tilegen_fragment(g, "fa", pa_type_get(s, "F"), PA_MMA_M16N8K8_TF32, PA_MMA_A), PA_ERR_INVAL);
    pa_tilegen_destroy(g);
    pa_scope_destroy(s);
}
END_TEST

/* One warp's 16x8 product of each shape through the generated fragments: compiles for sm_90 where NVRTC is. */
START_TEST(fragments_compile_into_an_mma_kernel)
{
    pa_scope *s;
    pa_tilegen *g;
    PA_CK_OK(pa_scope_create(NULL, &s));
    PA_CK_OK(pa_tilegen_create(&g));
    PA_CK_OK(pa_declare_text(s, "parray smem float [16][12] TA; parray smem float [8][12] TB; parray dmem float [64][64] C;"
                                "parray smem bfloat16 [16][24] HA; parray smem bfloat16 [16][16] HB;"
                                "parray smem half [16][24] GA; parray smem half [8][24] GBS; parray smem half [#GBS_1][#GBS_0] GB;"));
    PA_CK_OK(pa_mma_fragment(s, "FA", PA_MMA_M16N8K8_TF32, PA_MMA_A, "TA"));
    PA_CK_OK(pa_mma_fragment(s, "FB", PA_MMA_M16N8K8_TF32, PA_MMA_B, "TB"));
    PA_CK_OK(pa_mma_fragment(s, "FC", PA_MMA_M16N8K8_TF32, PA_MMA_C, "C"));
    PA_CK_OK(pa_mma_fragment(s, "HFA", PA_MMA_M16N8K16_BF16, PA_MMA_A, "HA"));
    PA_CK_OK(pa_mma_fragment(s, "HFB", PA_MMA_M16N8K16_BF16, PA_MMA_B, "HB"));
    PA_CK_OK(pa_mma_fragment(s, "GFA", PA_MMA_M16N8K16_F16, PA_MMA_A, "GA"));
    PA_CK_OK(pa_mma_fragment(s, "GFB", PA_MMA_M16N8K16_F16, PA_MMA_B, "GB"));
    const char *types[] = {"TA", "TB", "HA", "HB", "GA", "GBS"};
    for (int i = 0; i < 6; i++)
        PA_CK_OK(pa_tilegen_type(g, types[i], pa_type_get(s, types[i])));
    PA_CK_OK(pa_tilegen_fragment(g, "fa", pa_type_get(s, "FA"), PA_MMA_M16N8K8_TF32, PA_MMA_A));
    PA_CK_OK(pa_tilegen_fragment(g, "fb", pa_type_get(s, "FB"), PA_MMA_M16N8K8_TF32, PA_MMA_B));
    PA_CK_OK(pa_tilegen_fragment(g, "fc", pa_type_get(s, "FC"), PA_MMA_M16N8K8_TF32, PA_MMA_C));
    PA_CK_OK(pa_tilegen_fragment(g, "hfa", pa_type_get(s, "HFA"), PA_MMA_M16N8K16_BF16, PA_MMA_A));
    PA_CK_OK(pa_tilegen_fragment(g, "hfb", pa_type_get(s, "HFB"), PA_MMA_M16N8K16_BF16, PA_MMA_B));
    PA_CK_OK(pa_tilegen_fragment(g, "gfa", pa_type_get(s, "GFA"), PA_MMA_M16N8K16_F16, PA_MMA_A));
    PA_CK_OK(pa_tilegen_fragment(g, "gfb", pa_type_get(s, "GFB"), PA_MMA_M16N8K16_F16, PA_MMA_B));
    pa_tilegen_copy_info in;
    PA_CK_OK(pa_tilegen_copy_info_of(g, "hfa", &in));
    ck_assert_int_eq(in.ldmatrix, 4);
    PA_CK_OK(pa_tilegen_copy_info_of(g, "gfb", &in));   /* B stored [n][k]: rows of k contiguous */
    ck_assert_int_eq(in.ldmatrix, 2);
    ck_assert_int_eq(in.trans, 0);
    const char *src = pa_tilegen_source(g);
    ck_assert_ptr_nonnull(strstr(src, "struct fa {"));
    ck_assert_ptr_nonnull(strstr(src, "load_ldm"));
    static const char k[] =
        "extern \"C\" __global__ void mma_all(const float *a, const float *b, const pa_bf16 *ha, const pa_bf16 *hb,\n"
        "                                     const pa_half *ga, const pa_half *gb, float *c)\n"
        "{\n"
        "    PA_SMEM(TA, sa); PA_SMEM(TB, sb); PA_SMEM(HA, sha); PA_SMEM(HB, shb); PA_SMEM(GA, sga); PA_SMEM(GBS, sgb);\n"
        "    const int lane = threadIdx.x;\n"
        "    for (int i = lane; i < (int)TA::extent; i += 32) sa[i] = a[i];\n"
        "    for (int i = lane; i < (int)TB::extent; i += 32) sb[i] = b[i];\n"
        "    for (int i = lane; i < (int)HA::extent; i += 32) sha[i] = ha[i];\n"
        "    for (int i = lane; i < (int)HB::extent; i += 32) shb[i] = hb[i];\n"
        "    for (int i = lane; i < (int)GA::extent; i += 32) sga[i] = ga[i];\n"
        "    for (int i = lane; i < (int)GBS::extent; i += 32) sgb[i] = gb[i];\n"
        "    __syncwarp();\n"
        "    unsigned wa[4], wb[2];\n"
        "    float acc[4];\n"
        "    fc::load(acc, c, lane);\n"
        "    fa::load(wa, sa, lane); fb::load(wb, sb, lane); pa_mma_m16n8k8_tf32(acc, wa, wb);\n"
        "    hfa::load_ldm(wa, sha, lane); hfb::load_ldm(wb, shb, lane); pa_mma_m16n8k16_bf16(acc, wa, wb);\n"
        "    hfa::load(wa, sha, lane); hfb::load(wb, shb, lane); pa_mma_m16n8k16_bf16(acc, wa, wb);\n"
        "    gfa::load_ldm(wa, sga, lane); gfb::load_ldm(wb, sgb, lane); pa_mma_m16n8k16_f16(acc, wa, wb);\n"
        "    acc[0] += pa_bf16_float(sha[0]) + pa_half_float(sga[0]) + fc::row(lane, 0) * fc::col(lane, 3);\n"
        "    fc::store(c, acc, lane);\n"
        "}\n";
    int st = pa_tilegen_compile(g, "mma_all", k, 90);
    if (st != PA_ERR_NODEV)
        ck_assert_msg(st == PA_OK, "%s", pa_last_error());
    pa_tilegen_destroy(g);
    pa_scope_destroy(s);
}
END_TEST


/* The tensor-core gemm's kernels for each precision, with edges and a transposed B, compile for sm_90 (ptxas
 * checks the mma.sync and ldmatrix forms); bad shapes and element types are refused with the rule named. */
START_TEST(tensor_core_gemm_kernels_compile)
{
    pa_scope *s;
    pa_tilegen *g;
    PA_CK_OK(pa_scope_create(NULL, &s));
    PA_CK_OK(pa_tilegen_create(&g));
    PA_CK_OK(pa_declare_text(s, "parray dmem float [300][77] A; parray dmem float [77][200] B; parray dmem float [300][200] C;"
                                "parray dmem bfloat16 [300][77] HA; parray dmem bfloat16 [200][77] HBS;"
                                "parray dmem bfloat16 [#HBS_1][#HBS_0] HB; parray dmem half [300][77] GA;"
                                "parray dmem half [77][200] GB; parray dmem double [300][77] DA;"
                                "parray dmem bfloat16 [300][200] HC; parray dmem float [77][300] AS;"
                                "parray dmem float [#AS_1][#AS_0] AT;"
                                /* 16-bit A stored with m contiguous: the element-wise loader (it once wrote E(0),
                                 * which the 16-bit element structs cannot take: NVRTC refused it on the H200) */
                                "parray dmem bfloat16 [77][300] HAS; parray dmem bfloat16 [#HAS_1][#HAS_0] HAT;"
                                "parray dmem half [77][300] GAS; parray dmem half [#GAS_1][#GAS_0] GAT;"));
    const pa_type *C = pa_type_get(s, "C");
    pa_gemm_config tf32 = {0};
    tf32.compute = PA_GEMM_TF32;
    struct { const char *a, *b, *name; const pa_gemm_config *cfg; const char *mma; int ldm; } cases[] = {
        {"A", "B", "gemm_tf32", &tf32, "m16n8k8.row.col.f32.tf32", 0},
        {"AT", "B", "gemm_tf32_at", &tf32, "m16n8k8.row.col.f32.tf32", 0},
        {"HA", "HB", "gemm_bf16_bt", NULL, "m16n8k16.row.col.f32.bf16", 1},
        {"GA", "GB", "gemm_f16", NULL, "m16n8k16.row.col.f32.f16", 1},
        {"HAT", "HB", "gemm_bf16_at_bt", NULL, "m16n8k16.row.col.f32.bf16", 0},
        {"GAT", "GB", "gemm_f16_at", NULL, "m16n8k16.row.col.f32.f16", 0},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char *src = pa_gemm_dmem_source(C, pa_type_get(s, cases[i].a), pa_type_get(s, cases[i].b), cases[i].cfg);
        ck_assert_msg(src != NULL, "%s: %s", cases[i].name, pa_last_error());
        ck_assert_ptr_nonnull(strstr(src, "copy_async_pred"));   /* edges: 300 and 200 are not multiples of 128 */
        ck_assert_ptr_nonnull(strstr(src, "struct fa {"));
        if (cases[i].ldm)   /* 16-bit operands stored with k or n contiguous: ldmatrix for both */
            ck_assert_msg(strstr(src, "fa::load_ldm") && strstr(src, "fb::load_ldm"), "%s", cases[i].name);
        int st = pa_tilegen_compile(g, cases[i].name, src, 90);
        free(src);
        if (st == PA_ERR_NODEV)
            break;
        ck_assert_msg(st == PA_OK, "%s: %s", cases[i].name, pa_last_error());
    }
    /* the fp32 kernel is untouched by compute 0 with a zero shape (the default) */
    pa_gemm_config fp32 = {0};
    char *src = pa_gemm_dmem_source(C, pa_type_get(s, "A"), pa_type_get(s, "B"), &fp32);
    ck_assert_msg(src != NULL && strstr(src, "pa_mma") == NULL, "%s", pa_last_error());
    free(src);
    pa_gemm_config bad = {128, 128, 24, 64, 32, 256, 0, 1, 3, PA_GEMM_TF32};   /* bk not a multiple of 8 ... is: 24 */
    bad.bk = 12;
    ck_assert_ptr_null(pa_gemm_dmem_source(C, pa_type_get(s, "A"), pa_type_get(s, "B"), &bad));
    ck_assert_msg(strstr(pa_last_error(), "bk a multiple of 8"), "%s", pa_last_error());
    bad = (pa_gemm_config){128, 128, 32, 64, 32, 128, 0, 1, 3, PA_GEMM_TF32};   /* 8 warps' tiles, 4 warps */
    ck_assert_ptr_null(pa_gemm_dmem_source(C, pa_type_get(s, "A"), pa_type_get(s, "B"), &bad));
    bad.compute = 7;
    ck_assert_ptr_null(pa_gemm_dmem_source(C, pa_type_get(s, "A"), pa_type_get(s, "B"), &bad));
    ck_assert_msg(strstr(pa_last_error(), "compute=7"), "%s", pa_last_error());
    /* TF32 of double, a bfloat16 C, mixed 16-bit operands */
    ck_assert_ptr_null(pa_gemm_dmem_source(C, pa_type_get(s, "DA"), pa_type_get(s, "B"), &tf32));
    ck_assert_ptr_null(pa_gemm_dmem_source(pa_type_get(s, "HC"), pa_type_get(s, "HA"), pa_type_get(s, "HB"), NULL));
    ck_assert_msg(strstr(pa_last_error(), "C of float"), "%s", pa_last_error());
    ck_assert_ptr_null(pa_gemm_dmem_source(C, pa_type_get(s, "HA"), pa_type_get(s, "GB"), NULL));
    pa_tilegen_destroy(g);
    pa_scope_destroy(s);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("tiles_mma");
    TCase *tc = tcase_create("fragments");
    tcase_add_checked_fixture(tc, pa_test_cache_setup, pa_test_cache_teardown);
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, fragments_follow_the_ptx_tables);
    tcase_add_test(tc, padding_removes_fragment_bank_conflicts);
    tcase_add_test(tc, bad_fragments_are_refused);
    tcase_add_test(tc, fragments_compile_into_an_mma_kernel);
    tcase_add_test(tc, tensor_core_gemm_kernels_compile);
    suite_add_tcase(s, tc);
    return pa_test_run(s);
}
