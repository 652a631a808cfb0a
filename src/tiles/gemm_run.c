/*
 * parray — running the tiled gemm (gputile.h, pa_gemm_dmem): the kernel generated from the three types
 * (gemm_source.c) is compiled once per (layouts, shape, element type) and kept in a small table, so that a
 * repeated call costs a key, a lookup and a launch.  Built with the CUDA backend only.
 */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kernel_table.h"
#include "tiles_internal.h"

#define KEYLEN PA__KT_KEY

_Static_assert(sizeof(pa_gemm_info) <= PA__KT_EXTRA, "a kernel's information fits its table entry");
static pa__kernel_table table = PA__KERNEL_TABLE_INIT;

/* The layouts of the three types' dimensions, the element type, the shape and the current GPU. */
static int key_of(const pa_type *C, const pa_type *A, const pa_type *B, const pa_gemm_config *c, int aligned,
                  char *key)
{
    const pa_type *t[3] = {A, B, C};
    int at = snprintf(key, KEYLEN, "%s %d %d %d %d %d %d %d %d %d c%d al%d gpu%d", pa_elm(A), c->bm, c->bn, c->bk,
                      c->tm, c->tn, c->threads, c->lanes_n, c->min_blocks, c->stages, c->compute, aligned,
                      pa_cuda_get_device());
    for (int i = 0; i < 3; i++)
        for (int d = 0; d < 2; d++) {
            const pa__layout *l = pa__type_layout(pa_type_child(t[i], d));
            if (l == NULL || at >= KEYLEN - 2)
                return 0;
            at += snprintf(key + at, KEYLEN - (size_t)at, " ");
            at += pa__layout_format(l, key + at, KEYLEN - (size_t)at);
        }
    return at < KEYLEN - 1;
}

static int kernel_of(const pa_type *C, const pa_type *A, const pa_type *B, const pa_gemm_config *c, int aligned,
                     int warn, pa_cuda_function *fn, pa_gemm_info *info)
{
    char key[KEYLEN];
    int keyed = key_of(C, A, B, c, aligned, key), st;
    if (keyed && (*fn = pa__kt_find(&table, key, info, sizeof *info)) != NULL)
        return PA_OK;
    char *src = NULL;
    if ((st = pa__gemm_generate(C, A, B, c, aligned, &src, info)) != PA_OK)
        return st;
    st = pa_cuda_compile("pa_gemm_dmem", src, "pa_gemm_kernel", fn);
    free(src);
    pa_cuda_fninfo fi;
    if (st == PA_OK && (st = pa_cuda_function_info(*fn, c->threads, (size_t)info->smem_bytes, &fi)) == PA_OK) {
        if (fi.local_bytes > 0 && warn)
            fprintf(stderr, "parray: warning: pa_gemm_dmem: the %dx%dx%d kernel for %s uses %d bytes of local memory "
                    "per thread (spills)\n", c->bm, c->bn, c->bk, pa_type_name(C), fi.local_bytes);
        info->registers = fi.registers;
        info->smem_bytes += fi.smem_static;
        info->local_bytes = fi.local_bytes;
        info->blocks_per_sm = fi.blocks_per_sm;
    }
    if (st == PA_OK && keyed)
        pa__kt_keep(&table, key, *fn, info, sizeof *info);
    return st;
}

int pa_gemm_dmem_async(const pa_type *C, void *c, const pa_type *A, const void *a, const pa_type *B,
                       const void *b, double alpha, double beta, const pa_gemm_config *config, void *stream,
                       pa_gemm_info *info)
{
    const char *what = "pa_gemm_dmem";
    if (c == NULL || a == NULL || b == NULL)
        return pa__err(PA_ERR_INVAL, "%s: NULL pointer %s", what, a == NULL ? "a" : b == NULL ? "b" : "c");
    if (C == NULL || A == NULL || B == NULL || pa_ndim(A) != 2 || pa_ndim(B) != 2 || pa_ndim(C) != 2)
        return pa__err(PA_ERR_INVAL, "%s: the types must be given, with two top-level dimensions each", what);
    pa_gemm_config cfg;
    int shape = pa__gemm_mma_shape(A, config), st;
    /* Hopper: the wgmma strategy, for the default shape (an explicit bm names an mma.sync shape) */
    if (shape && (config == NULL || config->bm == 0) &&
        (config == NULL || config->compute == PA_GEMM_FP32 || config->compute == PA_GEMM_TF32) &&
        (st = pa__gemm_wgmma_run(C, c, A, a, B, b, alpha, beta, shape, stream, info)) != 1) {
        if (st != PA_OK)
            return pa__err_wrap(st, "%s (wgmma)", what);
        return PA_OK;
    }
    if (shape)   /* the tensor cores: half or bfloat16 operands, or float with compute TF32 */
        st = pa__gemm_mma_config(config, shape, &cfg, what);
    else if (config != NULL && config->compute != PA_GEMM_FP32)
        st = pa__err(PA_ERR_PARAM, "%s: compute=%d; PA_GEMM_FP32 (0) or PA_GEMM_TF32", what, config->compute);
    else
        st = pa__gemm_config(config != NULL && config->bm == 0 ? NULL : config, pa_elm_size(A), &cfg, what);
    if (st != PA_OK)
        return st;
    pa_cuda_function fn;
    pa_gemm_info got;
    /* 16-byte aligned operands (as cudaMalloc gives) get the kernel without run-time alignment checks */
    int aligned = ((uintptr_t)a % 16 == 0) && ((uintptr_t)b % 16 == 0);
    if (shape && (config == NULL || config->bm == 0)) {
        /* the default shapes, fastest first: the first whose kernel for these layouts keeps to its registers */
        pa_gemm_config cand;
        for (int i = 0; pa__gemm_mma_default(shape, i, &cand); i++) {
            int last = !pa__gemm_mma_default(shape, i + 1, &(pa_gemm_config){0});
            cand.compute = config != NULL ? config->compute : PA_GEMM_FP32;
            if ((st = pa__gemm_mma_config(&cand, shape, &cfg, what)) != PA_OK ||
                (st = kernel_of(C, A, B, &cfg, aligned, last, &fn, &got)) != PA_OK)
                return st;
            if (got.local_bytes == 0)
                break;
        }
    } else if ((st = kernel_of(C, A, B, &cfg, aligned, 1, &fn, &got)) != PA_OK) {
        return st;
    }
    int64_t m = pa_size(pa_type_child(C, 0)), n = pa_size(pa_type_child(C, 1));
    int64_t gx = (n + cfg.bn - 1) / cfg.bn, gy = (m + cfg.bm - 1) / cfg.bm;
    if (gy > 65535)
        return pa__err(PA_ERR_RANGE, "%s: %lld rows make %lld row blocks, more than a grid's 65535", what,
                       (long long)m, (long long)gy);
    pa_dthreads th;
    memset(&th, 0, sizeof th);
    th.grid = 1;
    th.n = gx * gy * cfg.threads;
    th.gdim[0] = (unsigned)gx;
    th.gdim[1] = (unsigned)gy;
    th.gdim[2] = 1;
    th.bdim[0] = (unsigned)cfg.threads;
    th.bdim[1] = th.bdim[2] = 1;
    float fa = (float)alpha, fb = (float)beta;
    int dbl = !shape && pa_elm_size(A) == 8;
    void *params[] = {(void *)&a, (void *)&b, &c, dbl ? (void *)&alpha : (void *)&fa, dbl ? (void *)&beta : (void *)&fb};
    st = pa_cuda_for_async(&th, fn, params, (size_t)got.smem_bytes, stream);
    if (st == PA_OK && info) {
        *info = got;
        info->strategy = shape ? PA_GEMM_MMA_SYNC : PA_GEMM_SIMT;
    }
    return st;
}

int pa_gemm_dmem(const pa_type *C, void *c, const pa_type *A, const void *a, const pa_type *B, const void *b,
                 double alpha, double beta)
{
    /* Queued on the default stream; the wait reports the kernel's own failure. */
    int st = pa_gemm_dmem_async(C, c, A, a, B, b, alpha, beta, NULL, NULL, NULL);
    if (st == PA_OK && (st = pa__stream_wait(NULL)) != PA_OK)
        st = pa__err_wrap(st, "pa_gemm_dmem: the kernel");
    return st;
}
