/*
 * parray — running pa_gemm_dmem's wgmma strategy (gemm_wgmma.c) on a GPU of compute capability 9.0: the kernels
 * compiled for sm_90a and kept in a small table, the operands that the kernel cannot read directly copied into
 * K-major scratch memory on the same stream, the tensor maps encoded for this call's pointers, and the launch.
 * Everything reaches the GPU through the backend interface's GPU features (backends.h, pa__gpu_ops).
 *
 * PA_GEMM_WGMMA chooses: unset (or "auto"), the strategy where it applies, silently; "0", never (the mma.sync
 * kernels, for comparison); "1", where it applies, with the reason on stderr when it does not;
 * "kmajor", as "1" with an N-contiguous B copied into K-major scratch instead of read through the transpose bit
 * (16 bits) or into registers (TF32).  Built with the CUDA backend only.
 */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kernel_table.h"
#include "tiles_internal.h"

#define KEYLEN PA__KT_KEY

/* the gemm kernels with their resources (asked once: the query costs microseconds a call), and the copy kernels */
_Static_assert(sizeof(pa_cuda_fninfo) <= PA__KT_EXTRA, "a kernel's resources fit its table entry");
static pa__kernel_table table = PA__KERNEL_TABLE_INIT;

/* PA_GEMM_WGMMA: 0 off; 1 auto (silent); 2 on (reasons on stderr); 3 kmajor.  Another value warns once. */
static int mode(void)
{
    static const char *const words[] = {"0", "auto", "1", "kmajor"};
    static atomic_int warned;
    return pa__env_choice("PA_GEMM_WGMMA", words, 4, 1, &warned);
}

/* Does not apply: the caller takes mma.sync; said on stderr when PA_GEMM_WGMMA asked for wgmma. */
static int declined(int md, const char *why)
{
    if (md >= 2)
        fprintf(stderr, "parray: pa_gemm_dmem: not the wgmma strategy: %s\n", why);
    return 1;
}

static int gemm_kernel(const pa__gpu_ops *g, const pa__wgmma_plan *p, const pa_type *C, int c_pairs, int dev,
                       void **fn, pa_cuda_fninfo *fi)
{
    char key[KEYLEN];
    int at = snprintf(key, KEYLEN, "gemm s%d %lld %lld %lld f%d%d cp%d gpu%d C ", p->shape, (long long)p->m,
                      (long long)p->n, (long long)p->k, p->a.form, p->b.form, c_pairs, dev);
    at += pa__layout_format(pa__type_layout(C), key + at, KEYLEN - (size_t)at);
    for (int d = 0; d < 2 && at < KEYLEN - 2; d++) {
        at += pa__layout_format(pa__type_layout(pa_type_child(C, d)), key + at, KEYLEN - (size_t)at);
        at += snprintf(key + at, KEYLEN - (size_t)at, " ");
    }
    if (at >= KEYLEN - 1)
        return pa__err(PA_ERR_RANGE, "pa_gemm_dmem (wgmma): the kernel's key is too long");
    if ((*fn = pa__kt_find(&table, key, fi, sizeof *fi)) != NULL)
        return PA_OK;
    char *src = NULL;
    int st = pa__gemm_wgmma_generate(p, C, c_pairs, &src);
    if (st == PA_OK)
        st = g->load("pa_gemm_dmem_wgmma", src, "pa_gemm_wgmma", PA__ARCH_SPECIFIC, fn);
    free(src);
    memset(fi, 0, sizeof *fi);
    if (st == PA_OK && (st = pa_cuda_function_info((pa_cuda_function)*fn, p->threads, (size_t)p->smem_bytes, fi)) ==
        PA_OK) {
        if (fi->local_bytes > 0)
            fprintf(stderr, "parray: warning: pa_gemm_dmem: the wgmma kernel uses %d bytes of local memory per thread "
                    "(spills)\n", fi->local_bytes);
        pa__kt_keep(&table, key, *fn, fi, sizeof *fi);
    }
    return st;
}

static int copy_kernel(const pa__gpu_ops *g, const pa__wgmma_op *o, int64_t kp, size_t esz, int dev, void **fn)
{
    char key[KEYLEN];
    snprintf(key, KEYLEN, "copy %lld %lld %lld %lld %lld %zu gpu%d", (long long)o->rows, (long long)o->k,
             (long long)o->srow, (long long)o->sk, (long long)kp, esz, dev);
    if ((*fn = pa__kt_find(&table, key, NULL, 0)) != NULL)
        return PA_OK;
    char *src = pa__gemm_wgmma_copy_source(o, kp, esz);
    if (src == NULL)
        return PA_ERR_NOMEM;
    int st = g->load("pa_gemm_dmem_kmajor", src, "pa_wgmma_kmajor", 0, fn);
    free(src);
    if (st == PA_OK)
        pa__kt_keep(&table, key, *fn, NULL, 0);
    return st;
}

/* Queues the copy of operand o at x (its element (0, 0)) into K-major scratch *out. */
static int copy_operand(const pa__gpu_ops *g, void *fn, const pa__wgmma_op *o, const void *x, int64_t kp,
                        size_t esz, void *stream, void **out)
{
    int st = g->scratch((size_t)(o->rows * kp) * esz, stream, out);
    if (st != PA_OK)
        return st;
    pa_dthreads th;
    memset(&th, 0, sizeof th);
    th.grid = 1;
    th.gdim[0] = (unsigned)((o->k + 31) / 32);
    th.gdim[1] = (unsigned)((o->rows + 31) / 32);
    th.gdim[2] = 1;
    th.bdim[0] = 32;
    th.bdim[1] = 8;
    th.bdim[2] = 1;
    th.n = (long long)th.gdim[0] * th.gdim[1] * 256;
    void *params[] = {(void *)&x, out};
    return pa_cuda_for_async(&th, (pa_cuda_function)fn, params, 0, stream);
}

/* The tensor map of operand o (at x; copied: rows kp elements apart) with boxes of rows x BK (or, MN-major, of
 * 64 columns x BK rows). */
static int operand_map(const pa__gpu_ops *g, const pa__wgmma_plan *p, const pa__wgmma_op *o, const void *x,
                       int box_rows, void *map)
{
    pa__tmap_desc d;
    memset(&d, 0, sizeof d);
    d.elm_kind = p->shape == PA_MMA_M16N8K8_TF32 ? 0 : p->shape == PA_MMA_M16N8K16_BF16 ? 1 : 2;
    d.base = x;
    if (o->form == PA__WG_MNMAJOR || o->form == PA__WG_MNREG) {   /* rows contiguous: boxes of 128 bytes of rows */
        d.dims[0] = (uint64_t)o->rows;
        d.dims[1] = (uint64_t)o->k;
        d.stride = (uint64_t)o->sk * (uint64_t)p->esz;
        d.box[0] = (uint32_t)(128 / p->esz);
        d.box[1] = (uint32_t)p->bk;
    } else {
        d.dims[0] = (uint64_t)o->k;
        d.dims[1] = (uint64_t)o->rows;
        d.stride = (uint64_t)(o->form == PA__WG_COPY ? p->kp : o->srow) * (uint64_t)p->esz;
        d.box[0] = (uint32_t)p->bk;
        d.box[1] = (uint32_t)box_rows;
    }
    return g->tensor_map(map, &d);
}

int pa__gemm_wgmma_run(const pa_type *C, void *c, const pa_type *A, const void *a, const pa_type *B, const void *b,
                       double alpha, double beta, int shape, void *stream, pa_gemm_info *info)
{
    int md = mode(), cc = 0, st;
    char why[200];
    if (md == 0)
        return 1;
    const pa__gpu_ops *g = pa__backends_gpu("pa_gemm_dmem");
    if (g == NULL)
        return declined(md, "no GPU backend with architecture-specific kernels");
    if ((st = g->capability(&cc)) != PA_OK || cc != 90) {
        snprintf(why, sizeof why, "the GPU's compute capability is %d.%d, not 9.0", cc / 10, cc % 10);
        return declined(md, why);
    }
    pa__wgmma_plan p;
    if (!pa__gemm_wgmma_plan(C, A, B, shape, md == 3, &p, why, sizeof why))
        return declined(md, why);
    size_t esz = (size_t)p.esz;
    const void *xa = (const char *)a + p.a.base * (int64_t)esz, *xb = (const char *)b + p.b.base * (int64_t)esz;
    /* the tensor maps want 16-byte aligned bases: an operand whose first element is not is copied */
    if ((uintptr_t)xa % 16 != 0)
        p.a.form = PA__WG_COPY;
    if ((uintptr_t)xb % 16 != 0)
        p.b.form = PA__WG_COPY;
    int c_pairs = p.c_pairs && (uintptr_t)c % 8 == 0;
    int dev = pa_cuda_get_device();
    void *fn = NULL, *fa = NULL, *fb = NULL;
    pa_cuda_fninfo fi;
    if ((st = gemm_kernel(g, &p, C, c_pairs, dev, &fn, &fi)) != PA_OK ||
        (p.a.form == PA__WG_COPY && (st = copy_kernel(g, &p.a, p.kp, esz, dev, &fa)) != PA_OK) ||
        (p.b.form == PA__WG_COPY && (st = copy_kernel(g, &p.b, p.kp, esz, dev, &fb)) != PA_OK)) {
        snprintf(why, sizeof why, "compiling its kernels failed: %s", pa_last_error());
        return declined(md, why);
    }
    _Alignas(64) unsigned char ma[128], mb[128];
    void *sa = NULL, *sb = NULL;
    /* the scratch pointers are not known before the copies are queued; their tensor maps follow them */
    if (p.a.form == PA__WG_COPY && (st = copy_operand(g, fa, &p.a, xa, p.kp, esz, stream, &sa)) != PA_OK)
        goto done;
    if (p.b.form == PA__WG_COPY && (st = copy_operand(g, fb, &p.b, xb, p.kp, esz, stream, &sb)) != PA_OK)
        goto done;
    /* the kernel's P operand (its first map, the block's bm rows) and Q operand (bn columns): A and B, or with B's
     * tile from registers (C^T = B^T A^T) B and A */
    int rega = p.b.form == PA__WG_MNREG;
    if ((st = operand_map(g, &p, &p.a, sa ? sa : xa, rega ? p.bn : p.bm, rega ? mb : ma)) != PA_OK ||
        (st = operand_map(g, &p, &p.b, sb ? sb : xb, rega ? p.bm : p.bn, rega ? ma : mb)) != PA_OK)
        goto done;
    int64_t pext = rega ? p.n : p.m, qext = rega ? p.m : p.n;
    pa_dthreads th;
    memset(&th, 0, sizeof th);
    th.grid = 1;
    th.gdim[0] = (unsigned)((qext + p.bn - 1) / p.bn);
    th.gdim[1] = (unsigned)((pext + p.bm - 1) / p.bm);
    th.gdim[2] = 1;
    th.bdim[0] = (unsigned)p.threads;
    th.bdim[1] = th.bdim[2] = 1;
    th.n = (long long)th.gdim[0] * th.gdim[1] * p.threads;
    float fal = (float)alpha, fbe = (float)beta;
    void *params[] = {ma, mb, &c, &fal, &fbe};
    st = pa_cuda_for_async(&th, (pa_cuda_function)fn, params, (size_t)p.smem_bytes, stream);
    if (st == PA_OK && info) {
        memset(info, 0, sizeof *info);
        /* the block's tile of C: bm x bn, or bn x bm where the kernel computes C^T */
        info->config = (pa_gemm_config){rega ? p.bn : p.bm, rega ? p.bm : p.bn, p.bk, rega ? p.bn : 64,
                                        rega ? 64 : p.bn, p.threads, 0, 1, p.stages,
                                        shape == PA_MMA_M16N8K8_TF32 ? PA_GEMM_TF32 : PA_GEMM_FP32};
        info->strategy = PA_GEMM_WGMMA;
        info->copied = (sa ? 1 : 0) | (sb ? 2 : 0);
        info->fast_a = info->fast_b = info->fast_c = 1;
        info->smem_bytes = p.smem_bytes + fi.smem_static;
        info->registers = fi.registers;
        info->local_bytes = fi.local_bytes;
        info->blocks_per_sm = fi.blocks_per_sm;
    }
done:
    /* stream-ordered: freed after the gemm queued before */
    if (sa)
        g->scratch_free(sa, stream);
    if (sb)
        g->scratch_free(sb, stream);
    /* a tensor map or launch shape the driver refused, or no scratch memory: mma.sync does the gemm (what was
     * queued so far only wrote scratch) */
    if (st == PA_ERR_PARAM || st == PA_ERR_NOMEM) {
        snprintf(why, sizeof why, "%s", pa_last_error());
        return declined(md, why);
    }
    return st;
}
