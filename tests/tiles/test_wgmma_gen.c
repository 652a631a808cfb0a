/*
 * parray tests — pa_gemm_dmem's Hopper strategy without a GPU (src/tiles/gemm_wgmma.c): which operands it reads
 * directly, which it copies K-major first and which types it refuses; then its kernels generated for every
 * precision and operand form, compiled by NVRTC for sm_90a (skipped, 77, without NVRTC) and, where cuobjdump is
 * installed, their machine code checked: warpgroup MMAs (HGMMA), the tensor copies (UTMALDG), no local memory
 * (no LDL/STL, no stack frame).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../../src/tiles/tiles_internal.h"
#include "pa_config.h"
#include "rtc_internal.h"
#include "testutil.h"

static const char *const elms[] = {"float", "bfloat16", "half"};
static const int shapes[] = {PA_MMA_M16N8K8_TF32, PA_MMA_M16N8K16_BF16, PA_MMA_M16N8K16_F16};

/* Plans C = A B for declarations of A and B over M, N, K (C row-major).  \return 1 with *p, or 0. */
static int plan(int e, int m, int n, int k, const char *adecl, const char *bdecl, int kmajor_only, pa__wgmma_plan *p)
{
    pa_scope *s;
    char d[1024], why[200];
    PA_CK_OK(pa_scope_create(NULL, &s));
    snprintf(d, sizeof d, "var M = %d; var N = %d; var K = %d; %s; %s; parray dmem float [M][N] C;", m, n, k, adecl,
             bdecl);
    PA_CK_OK(pa_declare_text(s, d));
    int ok = pa__gemm_wgmma_plan(pa_type_get(s, "C"), pa_type_get(s, "A"), pa_type_get(s, "B"), shapes[e],
                                 kmajor_only, p, why, sizeof why);
    if (!ok)
        ck_assert(why[0] != '\0');
    pa_scope_destroy(s);
    return ok;
}

START_TEST(operand_forms)
{
    pa__wgmma_plan p;
    char a[256], b[256], bt[256], at[256];
    for (int e = 0; e < 3; e++) {
        const char *x = elms[e];
        snprintf(a, sizeof a, "parray dmem %s [M][K] A", x);
        snprintf(b, sizeof b, "parray dmem %s [K][N] B", x);
        snprintf(bt, sizeof bt, "parray dmem %s [N][K] BS; parray dmem %s [#BS_1][#BS_0] B", x, x);
        snprintf(at, sizeof at, "parray dmem %s [K][M] AS; parray dmem %s [#AS_1][#AS_0] A", x, x);
        /* row-major A and B: A K-major; B N-contiguous, read with the transpose bit for 16 bits, into registers
         * for TF32 */
        ck_assert(plan(e, 4096, 4096, 4096, a, b, 0, &p));
        ck_assert_int_eq(p.a.form, PA__WG_KMAJOR);
        ck_assert_int_eq(p.b.form, e == 0 ? PA__WG_MNREG : PA__WG_MNMAJOR);
        ck_assert_int_eq(p.bk * p.esz, 128);
        ck_assert_int_eq(p.b.rows, 4096);
        ck_assert_int_eq(p.b.srow, 1);
        ck_assert_int_eq(p.b.sk, 4096);
        ck_assert_int_eq(p.c_pairs, 1);
        ck_assert(plan(e, 4096, 4096, 4096, a, b, 1, &p));   /* PA_GEMM_WGMMA=kmajor */
        ck_assert_int_eq(p.b.form, PA__WG_COPY);
        /* B transposed (K contiguous): read directly; A transposed: copied */
        ck_assert(plan(e, 8192, 1024, 4096, a, bt, 0, &p));
        ck_assert_int_eq(p.b.form, PA__WG_KMAJOR);
        ck_assert_int_eq(p.b.srow, 4096);
        ck_assert(plan(e, 300, 200, 77, at, bt, 0, &p));
        ck_assert_int_eq(p.a.form, PA__WG_COPY);
        ck_assert_int_eq(p.kp % (16 / p.esz), 0);
        ck_assert(p.kp >= 77 && p.kp < 77 + 16 / p.esz);
        /* rows 10 elements apart are not a multiple of 16 bytes: copied */
        ck_assert(plan(e, 64, 64, 10, a, bt, 0, &p));
        ck_assert_int_eq(p.a.form, PA__WG_COPY);
        ck_assert_int_eq(p.b.form, PA__WG_COPY);
        /* a window: the base and strides of the larger array */
        snprintf(a, sizeof a, "parray dmem %s [M + 3][K + 8] AW; parray dmem %s [M # disp(2) # AW_0][K # AW_1] A", x,
                 x);
        ck_assert(plan(e, 100, 64, 56, a, bt, 0, &p));
        ck_assert_int_eq(p.a.form, PA__WG_KMAJOR);
        ck_assert_int_eq(p.a.base, 2 * 64);
        ck_assert_int_eq(p.a.srow, 64);
        /* refused: a blocked dimension (no single stride), the wrong element types */
        snprintf(a, sizeof a, "parray dmem %s [[M/2][2]][K] AB; parray dmem %s [[#AB_0_1][#AB_0_0]][#AB_1] A", x, x);
        snprintf(b, sizeof b, "parray dmem %s [K][N] B", x);
        ck_assert(!plan(e, 64, 64, 64, a, b, 0, &p));
        snprintf(a, sizeof a, "parray dmem %s [M][K] A", e == 0 ? "half" : "float");
        ck_assert(!plan(e, 64, 64, 64, a, b, 0, &p));
    }
}
END_TEST

/* Runs cuobjdump (when installed) on a cubin: 1 with the text in buf, 0 when there is no cuobjdump. */
static int disassemble(const void *bin, size_t size, const char *what, char **out)
{
    const char *tool = "/usr/local/cuda/bin/cuobjdump";
    if (access(tool, X_OK) != 0)
        return 0;
    char path[] = "/tmp/pa_wgmma_cubin.XXXXXX", cmd[400];
    int fd = mkstemp(path);
    ck_assert(fd >= 0);
    ck_assert_int_eq(write(fd, bin, size), (ssize_t)size);
    close(fd);
    snprintf(cmd, sizeof cmd, "%s -%s %s 2>&1", tool, what, path);
    FILE *f = popen(cmd, "r");
    ck_assert_ptr_nonnull(f);
    size_t cap = 1 << 20, len = 0, got;
    char *text = malloc(cap + 1);
    ck_assert_ptr_nonnull(text);
    while ((got = fread(text + len, 1, cap - len, f)) > 0) {
        len += got;
        if (len == cap) {
            cap *= 2;
            text = realloc(text, cap + 1);
            ck_assert_ptr_nonnull(text);
        }
    }
    text[len] = '\0';
    pclose(f);
    unlink(path);
    *out = text;
    return 1;
}

static int count(const char *text, const char *what)
{
    int n = 0;
    for (const char *p = text; (p = strstr(p, what)) != NULL; p += strlen(what))
        n++;
    return n;
}

/* Where nvcc is installed, the same source through nvcc for sm_90a with ptxas's report: no spills, no stack
 * frame, no setmaxnreg ignored (C7508) and no wgmma serialized (the "Potential Performance Loss" warnings). */
static void ptxas_report(const char *src, const char *elm, int m, int n, int k)
{
    char nvcc[512], dir[] = "/tmp/pa_wgmma_src.XXXXXX", cmd[2048], line[1024];
    snprintf(nvcc, sizeof nvcc, "%s/bin/nvcc", PA_CUDA_ROOT);
    if (access(nvcc, X_OK) != 0)
        return;
    ck_assert_ptr_nonnull(mkdtemp(dir));
    snprintf(cmd, sizeof cmd, "%s/k.cu", dir);
    FILE *f = fopen(cmd, "w");
    ck_assert_ptr_nonnull(f);
    fputs(src, f);
    fclose(f);
    snprintf(cmd, sizeof cmd, "%s -gencode arch=compute_90a,code=sm_90a -cubin -std=c++17 -I%s -Xptxas -v "
             "-o %s/k.cubin %s/k.cu 2>&1", nvcc, PA_SOURCE_INCDIR, dir, dir);
    FILE *p = popen(cmd, "r");
    ck_assert_ptr_nonnull(p);
    int spills = 0, warnings = 0, regs = -1, seen = 0;
    while (fgets(line, sizeof line, p)) {
        const char *u = strstr(line, "Used ");
        if (strstr(line, "pa_gemm_wgmma"))
            seen = 1;
        if (u && seen && regs < 0)
            regs = atoi(u + 5);
        if (strstr(line, "bytes spill") && !strstr(line, " 0 bytes spill stores, 0 bytes spill loads"))
            spills++;
        if (strstr(line, "bytes stack frame") && !strstr(line, " 0 bytes stack frame"))
            spills++;
        if (strstr(line, "arning") || strstr(line, "Performance Loss") || strstr(line, "C75")) {
            warnings++;
            printf("  ptxas: %s", line);
        }
    }
    int rc = pclose(p);
    ck_assert_msg(rc == 0, "%s: nvcc failed on the generated source (kept in %s)", elm, dir);
    printf("wgmma %-8s %5dx%5dx%5d: ptxas: %d registers at entry, %d spills, %d warnings\n", elm, m, n, k, regs,
           spills, warnings);
    ck_assert_msg(spills == 0 && warnings == 0, "%s %dx%dx%d: ptxas reports spills or warnings (source in %s)", elm,
                  m, n, k, dir);
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    ck_assert_int_eq(system(cmd), 0);
}

static void compile_one(int e, int m, int n, int k, const char *adecl, const char *bdecl, int kmajor_only)
{
    pa_scope *s;
    char d[1024];
    PA_CK_OK(pa_scope_create(NULL, &s));
    snprintf(d, sizeof d, "var M = %d; var N = %d; var K = %d; %s; %s; parray dmem float [M][N] C;", m, n, k, adecl,
             bdecl);
    PA_CK_OK(pa_declare_text(s, d));
    pa__wgmma_plan p;
    char why[200];
    const pa_type *C = pa_type_get(s, "C");
    ck_assert(pa__gemm_wgmma_plan(C, pa_type_get(s, "A"), pa_type_get(s, "B"), shapes[e], kmajor_only, &p, why,
                                  sizeof why));
    char *src = NULL;
    PA_CK_OK(pa__gemm_wgmma_generate(&p, C, p.c_pairs, &src));
    ck_assert(strstr(src, "wgmma.mma_async") && strstr(src, "cp.async.bulk.tensor"));
    /* the instruction of the precision, B's transpose bit exactly where B is MN-major, 128-byte swizzle */
    char want[96];
    snprintf(want, sizeof want, "m64n256k%d.f32.%s.%s", e == 0 ? 8 : 16, e == 0 ? "tf32" : e == 1 ? "bf16" : "f16",
             e == 0 ? "tf32" : e == 1 ? "bf16" : "f16");
    ck_assert_msg(strstr(src, want), "%s: no %s", elms[e], want);
    if (e == 0)
        ck_assert(strstr(src, "p, 1, 1;"));
    else
        ck_assert(strstr(src, p.b.form == PA__WG_MNMAJOR ? "p, 1, 1, 0, 1;" : "p, 1, 1, 0, 0;"));
    ck_assert(strstr(src, "BMN = 1") ? p.b.form == PA__WG_MNMAJOR : p.b.form != PA__WG_MNMAJOR);
    ck_assert(strstr(src, "(1ull << 62)"));
    ck_assert(strstr(src, "{%128, %129, %130, %131}") ? p.b.form == PA__WG_MNREG : p.b.form != PA__WG_MNREG);
    ck_assert(strstr(src, "REGA = 1") ? p.b.form == PA__WG_MNREG : p.b.form != PA__WG_MNREG);
    if (getenv("PA_WGMMA_PRINT"))   /* for reading: the generated source */
        printf("---- %s %dx%dx%d\n%s\n----\n", elms[e], m, n, k, src);
    const pa_cuda__image *img;
    int st = pa_cuda__rtc_compile("wgmma_gen", src, NULL, 0, 90 | PA__ARCH_SPECIFIC, &img);
    ck_assert_msg(st == PA_OK, "%s %dx%dx%d: %s", elms[e], m, n, k, pa_last_error());
    size_t size;
    const void *bin = pa_cuda__image_data(img, &size);
    char *sass = NULL, *res = NULL;
    if (disassemble(bin, size, "sass", &sass) && disassemble(bin, size, "res-usage", &res)) {
        ck_assert_msg(count(sass, "HGMMA") >= p.bk / p.ks, "%s: no HGMMA in the SASS", elms[e]);
        ck_assert_msg(count(sass, "UTMALDG") >= 1, "%s: no tensor copy (UTMALDG) in the SASS", elms[e]);
        ck_assert_msg(count(sass, "LDL") == 0 && count(sass, "STL") == 0, "%s: local memory in the SASS", elms[e]);
        ck_assert_msg(strstr(res, "STACK:0") && strstr(res, "LOCAL:0"), "%s: %s", elms[e], res);
        printf("wgmma %-8s %5dx%5dx%5d forms A %d B %d: %d HGMMA, %s", elms[e], m, n, k, p.a.form, p.b.form,
               count(sass, "HGMMA"), strstr(res, "REG:") ? strstr(res, "REG:") : "\n");
    } else {
        printf("wgmma %-8s %5dx%5dx%5d: compiled for sm_90a (no cuobjdump: SASS not checked)\n", elms[e], m, n, k);
    }
    free(sass);
    free(res);
    ptxas_report(src, elms[e], m, n, k);
    /* the transposing copy, where an operand needs it */
    if (p.b.form == PA__WG_COPY) {
        char *cs = pa__gemm_wgmma_copy_source(&p.b, p.kp, (size_t)p.esz);
        ck_assert_ptr_nonnull(cs);
        PA_CK_OK(pa_cuda__rtc_compile("wgmma_copy", cs, NULL, 0, 90, &img));
        free(cs);
    }
    free(src);
    pa_scope_destroy(s);
}

START_TEST(kernels_compile_for_sm_90a)
{
    char a[256], b[256], bt[256];
    for (int e = 0; e < 3; e++) {
        const char *x = elms[e];
        snprintf(a, sizeof a, "parray dmem %s [M][K] A", x);
        snprintf(b, sizeof b, "parray dmem %s [K][N] B", x);
        snprintf(bt, sizeof bt, "parray dmem %s [N][K] BS; parray dmem %s [#BS_1][#BS_0] B", x, x);
        compile_one(e, 4096, 4096, 4096, a, b, 0);
        compile_one(e, 8192, 1024, 4096, a, bt, 0);
        compile_one(e, 300, 200, 77, a, b, 1);
        compile_one(e, 333, 290, 200, a, b, 0);
    }
}
END_TEST

int main(void)
{
    Suite *s = suite_create("tiles_wgmma");
    TCase *tc = tcase_create("plan");
    tcase_add_test(tc, operand_forms);
    suite_add_tcase(s, tc);
    if (pa_cuda__nvrtc_load() != PA_OK) {
        printf("tiles_wgmma: NVRTC not loadable (%s): the compile checks skipped\n", pa_last_error());
        return pa_test_run(s) != 0 ? 1 : 77;
    }
    TCase *tk = tcase_create("compile");
    tcase_add_checked_fixture(tk, pa_test_cache_setup, pa_test_cache_teardown);
    tcase_set_timeout(tk, 600);
    tcase_add_test(tk, kernels_compile_for_sm_90a);
    suite_add_tcase(s, tk);
    return pa_test_run(s);
}
