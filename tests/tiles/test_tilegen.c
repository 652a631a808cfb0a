/*
 * parray tests — the tile generator without a GPU: every copy plan is replayed thread by thread and checked
 * against the reference walk (each flat index moved exactly once, from and to the offsets the types give),
 * vectors only where both sides allow, bank-conflict counts of the manual's padded tile, sync() of thread
 * dimensions, the errors of bad input, and, where NVRTC is present, the generated source compiled for sm_90.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../../src/tiles/tiles_internal.h"
#include "testutil.h"
#include <parray/gputile.h>
#include "tile_pairs.h"

static pa__tmem mem_of(const pa_type *t)
{
    return (pa__tmem)pa__tmem_of(t, "test");
}

/* Replays plan c and checks it against the walk of dst and src. */
static void check_plan(const pa__tcopy *c, const pa_type *dst, const pa_type *src, const char *label)
{
    int64_t n = pa_size(dst);
    char *seen = calloc((size_t)n, 1);
    ck_assert(seen != NULL);
    int64_t k[16], d[16], s[16];
    for (int tid = 0; tid < c->nt; tid++)
        for (int64_t j = 0; j < c->per_thread; j++) {
            int m = pa__tcopy_unit(c, tid, j, k, d, s);
            for (int e = 0; e < m; e++) {
                ck_assert_msg(k[e] >= 0 && k[e] < n && !seen[k[e]], "%s: index %lld twice or out of range", label,
                              (long long)k[e]);
                seen[k[e]] = 1;
                ck_assert_msg(d[e] == pa__offset_walk(dst, k[e]) && s[e] == pa__offset_walk(src, k[e]),
                              "%s: k=%lld moves %lld <- %lld, the walk says %lld <- %lld", label, (long long)k[e],
                              (long long)d[e], (long long)s[e], (long long)pa__offset_walk(dst, k[e]),
                              (long long)pa__offset_walk(src, k[e]));
                if (c->svec)
                    ck_assert_msg(s[e] == s[0] + e && (s[0] - c->sl->base) % c->v == 0, "%s: source vector", label);
                if (c->dvec)
                    ck_assert_msg(d[e] == d[0] + e && (d[0] - c->dl->base) % c->v == 0, "%s: dest vector", label);
            }
        }
    for (int64_t i = 0; i < n; i++)
        ck_assert_msg(seen[i], "%s: index %lld never moved", label, (long long)i);
    free(seen);
}

START_TEST(random_pairs_follow_the_walk)
{
    pa_rng r = {pa_test_seed("tilegen random pairs")};
    static const int threads[] = {1, 32, 96, 128, 256};
    int vectors = 0;
    for (int it = 0; it < 150; it++) {
        tile_pair p;
        tile_pair_draw(&p, &r);
        pa_scope *s;
        ck_assert_int_eq(pa_scope_create(NULL, &s), PA_OK);
        ck_assert_int_eq(tile_pair_declare(&p, s), PA_OK);
        const pa_type *src = pa_type_get(s, "SRC"), *dst = pa_type_get(s, "DST"), *out = pa_type_get(s, "OUT");
        int nt = threads[pa_rng_range(&r, 1, 4)];
        pa__tcopy c;
        char label[64];
        snprintf(label, sizeof label, "pair %d (%d threads)", it, nt);
        ck_assert_int_eq(pa__tcopy_plan(pa__type_layout(dst), mem_of(dst), pa__type_layout(src), mem_of(src),
                                        (size_t)p.elm, nt, 0, NULL, label, &c), PA_OK);
        check_plan(&c, dst, src, label);
        vectors += c.svec || c.dvec;
        /* and back, smem to a plain dmem array; and a thread's registers for small tiles */
        ck_assert_int_eq(pa__tcopy_plan(pa__type_layout(out), PA__TMEM_DMEM, pa__type_layout(dst), PA__TMEM_SMEM,
                                        (size_t)p.elm, nt, 0, NULL, label, &c), PA_OK);
        check_plan(&c, out, dst, label);
        const pa_type *rd = pa_type_get(s, "RDST");
        ck_assert_int_eq(pa__tcopy_plan(pa__type_layout(rd), PA__TMEM_RMEM, pa__type_layout(src), PA__TMEM_DMEM,
                                        (size_t)p.elm, 1, 0, NULL, label, &c), PA_OK);
        check_plan(&c, rd, src, label);
        pa_scope_destroy(s);
    }
    ck_assert_msg(vectors > 15, "only %d of 150 pairs moved vectors", vectors);
}
END_TEST

/* The manual's [32][17]: a transposing copy of a 32x32 tile through it is free of bank conflicts; [32][32]
 * without padding costs 32 wavefronts. */
START_TEST(padding_removes_bank_conflicts)
{
    pa_scope *s;
    ck_assert_int_eq(pa_scope_create(NULL, &s), PA_OK);
    ck_assert_int_eq(pa_declare_text(s, "parray dmem float [1024][1024] BIG; parray dmem float [[32 # BIG_0]"
                                        "[32 # BIG_1]] T; parray smem float [32][33] P; parray smem float [32][32] Q;"
                                        "parray smem float [32 # P_1][32 # P_0] PT; parray smem float [#Q_1][#Q_0] QT;"),
                     PA_OK);
    pa_tilegen *g;
    pa_tilegen_copy_info a, b;
    ck_assert_int_eq(pa_tilegen_create(&g), PA_OK);
    ck_assert_int_eq(pa_tilegen_copy(g, "padded", pa_type_get(s, "PT"), pa_type_get(s, "T"), 256), PA_OK);
    ck_assert_int_eq(pa_tilegen_copy(g, "plain", pa_type_get(s, "QT"), pa_type_get(s, "T"), 256), PA_OK);
    ck_assert_int_eq(pa_tilegen_copy_info_of(g, "padded", &a), PA_OK);
    ck_assert_int_eq(pa_tilegen_copy_info_of(g, "plain", &b), PA_OK);
    ck_assert_int_eq(a.bank_ways, 1);
    ck_assert_int_eq(b.bank_ways, 8);    /* a warp stores 4 vectors' columns into 4 rows: 8 words per bank */
    ck_assert_int_eq(a.src_vector, 1);   /* rows of 32 contiguous floats: 16-byte loads */
    ck_assert_int_eq(a.dst_vector, 0);
    ck_assert_int_eq(pa_tilegen_copy_info_of(g, "nothing", &a), PA_ERR_NAME);
    pa_tilegen_destroy(g);
    pa_scope_destroy(s);
}
END_TEST

START_TEST(sync_is_a_block_or_warp_barrier_or_an_error)
{
    pa_scope *s;
    ck_assert_int_eq(pa_scope_create(NULL, &s), PA_OK);
    ck_assert_int_eq(pa_declare(s, "CU", "cuda [[64][4]][[4][2][16]]"), PA_OK);
    pa_tilegen *g;
    ck_assert_int_eq(pa_tilegen_create(&g), PA_OK);
    ck_assert_int_eq(pa_tilegen_threads(g, "CUDA", pa_type_get(s, "CU"), PA_CUDA_GRID), PA_OK);
    const char *src = pa_tilegen_source(g);
    ck_assert_ptr_nonnull(strstr(src, "struct CUDA_1 {"));
    const char *b1 = strstr(src, "struct CUDA_1 {"), *b12 = strstr(src, "struct CUDA_1_2 {");
    const char *b10 = strstr(src, "struct CUDA_1_0 {"), *b0 = strstr(src, "struct CUDA_0 {");
    ck_assert(b1 && b12 && b10 && b0);
    ck_assert_ptr_nonnull(strstr(b1, "__syncthreads()"));
    ck_assert(strstr(b12, "__syncwarp(") < strstr(b12, "};"));          /* 16 threads inside a warp */
    ck_assert(strstr(b10, "__syncthreads()") < strstr(b10, "};"));      /* 4 x 32 threads: the block */
    ck_assert(strstr(b0, "no barrier") < strstr(b0, "};"));             /* across blocks */
    /* Written as a header for nvcc: "#pragma once", then the same text byte for byte; an unwritable path is
     * PA_ERR_SYS. */
    char path[] = "/tmp/pa_tilegen_write.XXXXXX", *want = NULL;
    int fd = mkstemp(path);
    ck_assert_int_ge(fd, 0);
    close(fd);
    ck_assert_int_gt(asprintf(&want, "#pragma once\n%s", src), 0);
    ck_assert_int_eq(pa_tilegen_write(g, path), PA_OK);
    FILE *f = fopen(path, "rb");
    ck_assert_ptr_nonnull(f);
    size_t len = strlen(want);
    char *back = malloc(len + 2);
    ck_assert_uint_eq(fread(back, 1, len + 1, f), len);
    fclose(f);
    unlink(path);
    ck_assert(memcmp(back, want, len) == 0);
    free(back);
    free(want);
    ck_assert_int_eq(pa_tilegen_write(g, "/nonexistent-dir/x.cuh"), PA_ERR_SYS);
    ck_assert_int_eq(pa_tilegen_write(NULL, path), PA_ERR_INVAL);
    ck_assert_int_eq(pa_tilegen_write(g, NULL), PA_ERR_INVAL);
    int st = pa_tilegen_compile(g, "sync_ok", "extern \"C\" __global__ void k(int *x) { CUDA_1::sync(); "
                                              "CUDA_1_2::sync(); x[CUDA_1::tid()] = (int)CUDA_0::tid(); }", 90);
    if (st != PA_ERR_NODEV) {
        ck_assert_msg(st == PA_OK, "%s", pa_last_error());
        st = pa_tilegen_compile(g, "sync_bad", "extern \"C\" __global__ void k(int *x) { CUDA_0::sync(); }", 90);
        ck_assert_int_eq(st, PA_ERR_COMPILE);
        ck_assert_ptr_nonnull(strstr(pa_last_error(), "no barrier"));
    }
    pa_tilegen_destroy(g);
    pa_scope_destroy(s);
}
END_TEST

START_TEST(bad_input_is_refused_with_the_byte_counts)
{
    pa_scope *s;
    ck_assert_int_eq(pa_scope_create(NULL, &s), PA_OK);
    ck_assert_int_eq(pa_declare_text(s, "parray smem float [256][256] HUGE; parray rmem float [32][32] FAT;"
                                        "parray paged float [4][4] HOST; parray smem float [4][4] S;"
                                        "parray rmem float [4][4] R; parray smem float [4][5] S5;"
                                        "parray smem double [4][4] SD;"),
                     PA_OK);
    pa_tilegen *g;
    ck_assert_int_eq(pa_tilegen_create(&g), PA_OK);
    ck_assert_int_eq(pa_tilegen_type(g, "HUGE", pa_type_get(s, "HUGE")), PA_ERR_RANGE);
    ck_assert_ptr_nonnull(strstr(pa_last_error(), "262144 bytes"));
    ck_assert_int_eq(pa_tilegen_type(g, "FAT", pa_type_get(s, "FAT")), PA_ERR_RANGE);
    ck_assert_ptr_nonnull(strstr(pa_last_error(), "4096 bytes"));
    ck_assert_int_eq(pa_tilegen_type(g, "HOST", pa_type_get(s, "HOST")), PA_ERR_MTT);
    ck_assert_int_eq(pa_tilegen_type(g, "1bad", pa_type_get(s, "S")), PA_ERR_INVAL);
    ck_assert_int_eq(pa_tilegen_type(g, "S", pa_type_get(s, "S")), PA_OK);
    ck_assert_int_eq(pa_tilegen_type(g, "S", pa_type_get(s, "S")), PA_ERR_INVAL);   /* the name twice */
    ck_assert_int_eq(pa_tilegen_copy(g, "c1", pa_type_get(s, "R"), pa_type_get(s, "S"), 32), PA_ERR_PARAM);
    ck_assert_int_eq(pa_tilegen_copy(g, "c2", pa_type_get(s, "S5"), pa_type_get(s, "S"), 32), PA_ERR_SIZE);
    ck_assert_int_eq(pa_tilegen_copy(g, "c3", pa_type_get(s, "SD"), pa_type_get(s, "S"), 32), PA_ERR_ELM);
    ck_assert_int_eq(pa_tilegen_copy(g, "c4", pa_type_get(s, "R"), pa_type_get(s, "S"), 0), PA_ERR_RANGE);
    ck_assert_int_eq(pa_tilegen_copy(g, "c5", pa_type_get(s, "R"), pa_type_get(s, "S"), 1), PA_OK);
    ck_assert_int_eq(pa_tilegen_type(NULL, "X", pa_type_get(s, "S")), PA_ERR_INVAL);
    /* a kernel that does not compile: NVRTC's log names the caller's line */
    int st = pa_tilegen_compile(g, "broken", "\n\nextern \"C\" __global__ void k() { no_such_thing(); }", 90);
    if (st != PA_ERR_NODEV) {
        ck_assert_int_eq(st, PA_ERR_COMPILE);
        ck_assert_ptr_nonnull(strstr(pa_last_error(), "broken(3)"));
    }
    pa_tilegen_destroy(g);
    pa_scope_destroy(s);
}
END_TEST

/* Every pair's copies in one source, compiled once for sm_90 (where NVRTC is present). */
START_TEST(generated_copies_compile)
{
    pa_rng r = {pa_test_seed("tilegen compile")};
    pa_tilegen *g;
    ck_assert_int_eq(pa_tilegen_create(&g), PA_OK);
    pa_scope *keep[6];
    int rmem[6];
    for (int it = 0; it < 6; it++) {
        tile_pair p;
        tile_pair_draw(&p, &r);
        ck_assert_int_eq(pa_scope_create(NULL, &keep[it]), PA_OK);
        ck_assert_int_eq(tile_pair_declare(&p, keep[it]), PA_OK);
        char a[32], b[32], c[32], t[32];
        snprintf(a, sizeof a, "ld%d", it);
        snprintf(b, sizeof b, "st%d", it);
        snprintf(c, sizeof c, "rg%d", it);
        snprintf(t, sizeof t, "STO%d", it);
        ck_assert_int_eq(pa_tilegen_type(g, t, pa_type_get(keep[it], "STO")), PA_OK);
        snprintf(t, sizeof t, "RD%d", it);
        int small = p.size * p.elm <= 1020;   /* a thread's registers */
        if (small)
            ck_assert_int_eq(pa_tilegen_type(g, t, pa_type_get(keep[it], "RDST")), PA_OK);
        rmem[it] = small;
        ck_assert_int_eq(pa_tilegen_copy(g, a, pa_type_get(keep[it], "DST"), pa_type_get(keep[it], "SRC"), 128), PA_OK);
        ck_assert_int_eq(pa_tilegen_copy(g, b, pa_type_get(keep[it], "OUT"), pa_type_get(keep[it], "DST"), 128), PA_OK);
        if (small)
            ck_assert_int_eq(pa_tilegen_copy(g, c, pa_type_get(keep[it], "RDST"), pa_type_get(keep[it], "SRC"), 1),
                             PA_OK);
    }
    char kernels[8192];
    int at = 0;
    for (int it = 0; it < 6; it++)
        at += snprintf(kernels + at, sizeof kernels - (size_t)at,
                       "extern \"C\" __global__ void k%d(ld%d::elm_t *big, ld%d::elm_t *out) {\n"
                       "  PA_SMEM(STO%d, s);\n  ld%d::copy(s, big, threadIdx.x);\n  __syncthreads();\n"
                       "  st%d::copy(out, s, threadIdx.x);\n}\n",
                       it, it, it, it, it, it);
    for (int it = 0; it < 6; it++)
        if (rmem[it])
            at += snprintf(kernels + at, sizeof kernels - (size_t)at,
                           "extern \"C\" __global__ void r%d(rg%d::elm_t *big, rg%d::elm_t *out) {\n"
                           "  PA_RMEM(RD%d, r);\n  rg%d::copy(r, big, 0);\n  out[threadIdx.x] = r[RD%d::extent - 1];\n"
                           "}\n", it, it, it, it, it, it);
    int st = pa_tilegen_compile(g, "pairs", kernels, 90);
    if (st != PA_ERR_NODEV)
        ck_assert_msg(st == PA_OK, "%s", pa_last_error());
    for (int it = 0; it < 6; it++)
        pa_scope_destroy(keep[it]);
    pa_tilegen_destroy(g);
}
END_TEST

/* pa_tile_dmem's kernels (a tile-divisible outer type and a permuted one, all three modes) and the gemm's
 * (row-major, and transposed A with edges) compile for sm_90, where NVRTC is present. */
START_TEST(tile_and_gemm_kernels_compile)
{
    pa_scope *s;
    ck_assert_int_eq(pa_scope_create(NULL, &s), PA_OK);
    ck_assert_int_eq(pa_declare_text(s, "parray dmem int [64][24][8] D; parray dmem int [#D_2][#D_0][#D_1] P;"
                                        "parray smem int [24][9] IS; parray smem int [8 # IS_1][#IS_0] IN;"
                                        "parray dmem float [300][77] A; parray dmem float [77][300] AS;"
                                        "parray dmem float [#AS_1][#AS_0] AT; parray dmem float [77][200] B;"
                                        "parray dmem float [300][200] C;"),
                     PA_OK);
    static const char fn[] = "__device__ void fn(pa_elm_t *tile, long long t, int tid, int nt, const void *arg)\n"
                             "{ for (int k = tid; k < (int)pa_inner::size; k += nt) tile[pa_inner::off(k)] += 1; }\n";
    const char *outer[2] = {"D", "P"};
    char *src = NULL;
    pa_tilegen *g;
    ck_assert_int_eq(pa_tilegen_create(&g), PA_OK);
    for (int i = 0; i < 2; i++)
        for (int mode = 1; mode <= 3; mode++) {
            const pa_type *o = pa_type_get(s, outer[i]);
            int st = pa__tile_dmem_source(o, o, pa_type_get(s, "IN"), mode, fn, "fn", 1, 192, &src);
            if (st == PA_ERR_NODEV)
                goto done;
            ck_assert_msg(st == PA_OK, "%s", pa_last_error());
            ck_assert_ptr_nonnull(strstr(src, "pa_tile_kernel"));
            if (i == 1 && mode == 3) {   /* one compile: the permuted outer type both ways */
                st = pa_tilegen_compile(g, "tile", src, 90);
                ck_assert_msg(st == PA_OK || st == PA_ERR_NODEV, "%s", pa_last_error());
            }
            free(src);
            src = NULL;
        }
    src = pa_gemm_dmem_source(pa_type_get(s, "C"), pa_type_get(s, "AT"), pa_type_get(s, "B"), NULL);
    ck_assert_msg(src != NULL, "%s", pa_last_error());
    int st = pa_tilegen_compile(g, "gemm", src, 90);
    ck_assert_msg(st == PA_OK || st == PA_ERR_NODEV, "%s", pa_last_error());
    free(src);
    src = NULL;
    /* the asynchronous form (three stages, 8 x 16 results in four parts) with edges, and a row-major A */
    pa_gemm_config async = {128, 128, 8, 8, 16, 128, 8, 2, 3, 0};
    src = pa_gemm_dmem_source(pa_type_get(s, "C"), pa_type_get(s, "A"), pa_type_get(s, "B"), &async);
    ck_assert_msg(src != NULL, "%s", pa_last_error());
    ck_assert_ptr_nonnull(strstr(src, "copy_async_pred"));
    ck_assert_ptr_nonnull(strstr(src, "pa_cp_async_wait<cfg::NS - 2>"));
    st = pa_tilegen_compile(g, "gemm_async", src, 90);
    ck_assert_msg(st == PA_OK || st == PA_ERR_NODEV, "%s", pa_last_error());
    free(src);
    src = NULL;
    /* k-steps of 16 through registers: B goes by cp.async, A (row-major) through registers */
    pa_gemm_config hybrid = {128, 128, 16, 8, 8, 256, 0, 0, 1, 0};
    src = pa_gemm_dmem_source(pa_type_get(s, "C"), pa_type_get(s, "A"), pa_type_get(s, "B"), &hybrid);
    ck_assert_msg(src != NULL, "%s", pa_last_error());
    ck_assert_ptr_nonnull(strstr(src, "ldb::async(sb + SB_0::off(cur ^ 1)"));
    ck_assert_ptr_nonnull(strstr(src, "lda::store(sa + SA_0::off(cur ^ 1), fa, tid)"));
    st = pa_tilegen_compile(g, "gemm_hybrid", src, 90);
    ck_assert_msg(st == PA_OK || st == PA_ERR_NODEV, "%s", pa_last_error());
    free(src);
    src = NULL;
    pa_gemm_config bad = {128, 128, 8, 8, 8, 100, 0, 0, 0, 0}, bad_stages = {128, 128, 8, 8, 8, 256, 0, 0, 9, 0};
    ck_assert_ptr_null(pa_gemm_dmem_source(pa_type_get(s, "C"), pa_type_get(s, "A"), pa_type_get(s, "B"),
                                           &bad_stages));
    ck_assert_ptr_nonnull(strstr(pa_last_error(), "stages=9"));
    ck_assert_ptr_null(pa_gemm_dmem_source(pa_type_get(s, "C"), pa_type_get(s, "A"), pa_type_get(s, "B"), &bad));
    ck_assert_ptr_null(pa_gemm_dmem_source(pa_type_get(s, "C"), pa_type_get(s, "B"), pa_type_get(s, "A"), NULL));
done:
    free(src);
    pa_tilegen_destroy(g);
    pa_scope_destroy(s);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("tiles_gen");
    TCase *tc = tcase_create("tilegen");
    tcase_add_checked_fixture(tc, pa_test_cache_setup, pa_test_cache_teardown);
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, random_pairs_follow_the_walk);
    tcase_add_test(tc, padding_removes_bank_conflicts);
    tcase_add_test(tc, sync_is_a_block_or_warp_barrier_or_an_error);
    tcase_add_test(tc, bad_input_is_refused_with_the_byte_counts);
    tcase_add_test(tc, generated_copies_compile);
    tcase_add_test(tc, tile_and_gemm_kernels_compile);
    suite_add_tcase(s, tc);
    return pa_test_run(s);
}
