/*
 * parray — measuring the GPU copies' constants of the cost model on this machine (pa_cost_calibrate, where a
 * GPU is usable; the current GPU).
 *
 * Each constant is measured by the transfer that isolates it, as the median of five runs after a warm-up, and
 * solved from the formula the strategies' probes use (copy_cuda_strategies.c), with the constants solved
 * before it: a synchronous call from an 8-byte DMA; the four DMA rates from 64 MiB pinned and pageable
 * copies each way; the device's read + write rate from a 64 MiB device copy, and the tiled transpose's from
 * the permute kernel on a 4096 x 4096 float transpose (run by the cuda_permute strategy itself); the cost of a
 * row of cudaMemcpy2D across PCIe and on the device from a million 16-byte rows; one host thread's copy
 * into pinned memory; the pageable pipeline's start from a 64 MiB pipeline run by its strategy; and the staged
 * pack's host step per element, from 64 MiB packed in order and from a 4096 x 4096 float source packed across
 * (a transpose).  The call is the fastest of its runs (a median caught scheduler delays: 29 us against 17).  The
 * cases that touch the GPU are each timed right after an untimed run of themselves: after the host-only cases the
 * GPU is idle, and its first call, kernels and transfers ran slower than a program's back-to-back copies.
 * The direct kernel's cost per word keeps its value.  Values outside a plausible range are clamped to it.
 */
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cost_model.h"
#include "cuda_backend.h"

#define REPS 5
#define BYTES ((size_t)64 << 20)

typedef struct bufs {
    char *dev[2], *pinned, *host;
} bufs;

enum { T_CALL, T_H2D_PIN, T_D2H_PIN, T_H2D_PAGE, T_D2H_PAGE, T_D2D, T_ROWS_PCIE, T_ROWS_D2D, T_HOST_THREAD,
       T_TILED, T_PIPE, T_PACK, T_PACK_T, NCASES };

#define ROWS ((size_t)1 << 20)   /* 16-byte rows, 32 bytes apart */

/* Runs case c once (synchronously).  \return PA_OK or an error. */
static int run(int c, const bufs *b, pa__plan *const *plans)
{
    cudaError_t e = cudaSuccess;
    switch (c) {
    case T_CALL: e = cudaMemcpy(b->dev[0], b->pinned, 8, cudaMemcpyHostToDevice); break;
    case T_H2D_PIN: e = cudaMemcpy(b->dev[0], b->pinned, BYTES, cudaMemcpyHostToDevice); break;
    case T_D2H_PIN: e = cudaMemcpy(b->pinned, b->dev[0], BYTES, cudaMemcpyDeviceToHost); break;
    case T_H2D_PAGE: e = cudaMemcpy(b->dev[0], b->host, BYTES, cudaMemcpyHostToDevice); break;
    case T_D2H_PAGE: e = cudaMemcpy(b->host, b->dev[0], BYTES, cudaMemcpyDeviceToHost); break;
    case T_D2D:
        e = cudaMemcpy(b->dev[1], b->dev[0], BYTES, cudaMemcpyDeviceToDevice);
        if (e == cudaSuccess) e = cudaDeviceSynchronize();
        break;
    case T_ROWS_PCIE: e = cudaMemcpy2D(b->dev[0], 32, b->pinned, 32, 16, ROWS, cudaMemcpyHostToDevice); break;
    case T_ROWS_D2D:
        e = cudaMemcpy2D(b->dev[1], 32, b->dev[0], 32, 16, ROWS, cudaMemcpyDeviceToDevice);
        if (e == cudaSuccess) e = cudaDeviceSynchronize();
        break;
    case T_HOST_THREAD: memcpy(b->pinned, b->host, BYTES); break;
    case T_TILED: return pa__strategy_named("cuda_permute")->exec(plans[0], b->dev[1], b->dev[0]);
    case T_PIPE: return pa__strategy_named("cuda_pageable_pipeline")->exec(plans[1], b->dev[0], b->host);
    case T_PACK: return pa_cuda__host_pack(&plans[1]->shape, 1, b->host, b->pinned);
    case T_PACK_T: return pa_cuda__host_pack(&plans[2]->shape, 1, b->host, b->pinned);
    }
    return e == cudaSuccess ? PA_OK : pa_cuda__fail(e, "calibrate: case %d", c);
}

static int measure(const bufs *b, pa__plan *const *plans, double *ns)
{
    double t[NCASES][REPS];
    for (int r = -1; r < REPS; r++)
        for (int c = 0; c < NCASES; c++) {
            /* Every case that touches the GPU right after an untimed twin, as a program's copies run back to
             * back: after the host-only cases the GPU had gone idle, the call took 46 us against 8 and the tiled
             * transpose ran at 1500-1700 bytes/ns against 2850 warm, predicted at 1.8-2.1x of its time (H200,
             * 2026-11-26); and once the 64 MiB pinned copy to the GPU read 27.2 bytes/ns where the test then
             * measured 54 (H100, 2026-11-26, session 8). */
            int warm = c != T_HOST_THREAD && c != T_PACK && c != T_PACK_T;
            int st = warm ? run(c, b, plans) : PA_OK;
            if (st != PA_OK)
                return st;
            double t0 = pa__cost_now();
            st = run(c, b, plans);
            if (st != PA_OK)
                return st;
            if (r >= 0)
                t[c][r] = pa__cost_now() - t0;
        }
    for (int c = 0; c < NCASES; c++) {
        pa__cost_sort(t[c], REPS);
        ns[c] = c == T_CALL ? t[c][0] : t[c][REPS / 2];   /* the call: its fastest, without the scheduler's */
    }
    return PA_OK;
}

int pa_cuda__calibrate(pa__cost_model *m, FILE *log)
{
    bufs b = {0};
    pa__plan *plans[3] = {0};
    double t[NCASES];
    int st = pa_cuda__ready("calibrate");
    if (st != PA_OK) {
        if (log)
            fprintf(log, "  cuda: no usable GPU, the GPU constants keep their values (%s)\n", pa_last_error());
        return PA_OK;
    }
    cudaError_t e = cudaMalloc((void **)&b.dev[0], BYTES);
    if (e == cudaSuccess) e = cudaMalloc((void **)&b.dev[1], BYTES);
    if (e == cudaSuccess) e = cudaHostAlloc((void **)&b.pinned, BYTES, cudaHostAllocPortable);
    if (e != cudaSuccess) {
        st = pa_cuda__fail(e, "calibrate: 192 MiB of device and pinned buffers");
        goto done;
    }
    if (!(b.host = malloc(BYTES))) {
        st = pa__err(PA_ERR_NOMEM, "calibrate: 64 MiB of host memory");
        goto done;
    }
    memset(b.host, 1, BYTES);
    memset(b.pinned, 2, BYTES);
    /* The strategies' own plans: a 4096 x 4096 float transpose on the device, a 64 MiB pageable upload. */
    const pa__mem_ops *dmem = pa__mem_find("dmem"), *paged = pa__mem_find("paged");
    int64_t n = 4096, words = (int64_t)(BYTES / 4);
    pa__layout tl[2] = {pa__cost_affine(2, (int64_t[]){n, n}, (int64_t[]){n, 1}),
                        pa__cost_affine(2, (int64_t[]){n, n}, (int64_t[]){1, n})};
    pa__layout pl = pa__cost_affine(1, (int64_t[]){words}, (int64_t[]){1});
    if ((st = pa__plan_make(&tl[0], &tl[1], 4, dmem, dmem, &plans[0])) != PA_OK ||
        (st = pa__plan_make(&pl, &pl, 4, dmem, paged, &plans[1])) != PA_OK ||
        (st = pa__plan_make(&tl[0], &tl[1], 4, dmem, paged, &plans[2])) != PA_OK ||
        (st = measure(&b, plans, t)) != PA_OK)
        goto done;

    pa__cost_model c = *m;
    double bytes = (double)BYTES, call = t[T_CALL];
    c.gpu_call = pa__cost_clamp(call, 500, 100000);
    c.gpu_h2d_pinned = pa__cost_clamp(bytes / (t[T_H2D_PIN] - call > 1 ? t[T_H2D_PIN] - call : 1), 0.5, 1000);
    c.gpu_d2h_pinned = pa__cost_clamp(bytes / (t[T_D2H_PIN] - call > 1 ? t[T_D2H_PIN] - call : 1), 0.5, 1000);
    c.gpu_h2d_pageable = pa__cost_clamp(bytes / (t[T_H2D_PAGE] - call > 1 ? t[T_H2D_PAGE] - call : 1), 0.2, 1000);
    c.gpu_d2h_pageable = pa__cost_clamp(bytes / (t[T_D2H_PAGE] - call > 1 ? t[T_D2H_PAGE] - call : 1), 0.2, 1000);
    c.gpu_d2d_rw = pa__cost_clamp(2 * bytes / (t[T_D2D] - call > 1 ? t[T_D2D] - call : 1), 10, 100000);
    c.gpu_tiled_rw = pa__cost_clamp(2 * bytes / (t[T_TILED] - call > 1 ? t[T_TILED] - call : 1), 10, 100000);
    double rb = 16.0 * (double)ROWS;
    c.gpu_row_pcie = pa__cost_clamp((t[T_ROWS_PCIE] - call - rb / c.gpu_h2d_pinned) / (double)ROWS, 0.001, 1000);
    c.gpu_row_d2d = pa__cost_clamp((t[T_ROWS_D2D] - call - rb / (c.gpu_d2d_rw / 2)) / (double)ROWS, 0.0005, 1000);
    c.gpu_host_thread_bw = pa__cost_clamp(bytes / t[T_HOST_THREAD], 0.2, 1000);
    int threads = pa_cuda__pipeline_threads();
    double host = threads * c.gpu_host_thread_bw, bw = host < c.gpu_h2d_pinned ? host : c.gpu_h2d_pinned;
    c.gpu_pipe_start = pa__cost_clamp(t[T_PIPE] - bytes / bw - (double)pa_cuda__pipeline_chunk() / c.gpu_host_thread_bw,
                             1000, 1e7);
    /* The staged pack's host step on the threads a 64 MiB copy is worth: in order, and across a transpose. */
    double pack_threads = pa__host()->threads_for((int64_t)BYTES, (int64_t)256 << 10);
    c.gpu_pack_elem = pa__cost_clamp(t[T_PACK] * pack_threads / (double)words, 0.01, 100);
    c.gpu_pack_strided_elem = pa__cost_clamp(t[T_PACK_T] * pack_threads / (double)words, 0.01, 200);
    if (log)
        fprintf(log, "  cuda: call %.0f ns; pinned %.1f / %.1f and pageable %.1f / %.1f bytes/ns (to / from the "
                "GPU); device copy %.0f, tiled transpose %.0f bytes/ns read + write; 2-D row %.3f ns across PCIe, "
                "%.4f on the device; host thread into pinned %.1f bytes/ns; pipeline start %.0f ns; pack %.2f ns an "
                "element in order, %.2f across (one thread)\n", c.gpu_call,
                c.gpu_h2d_pinned, c.gpu_d2h_pinned, c.gpu_h2d_pageable, c.gpu_d2h_pageable, c.gpu_d2d_rw,
                c.gpu_tiled_rw, c.gpu_row_pcie, c.gpu_row_d2d, c.gpu_host_thread_bw, c.gpu_pipe_start,
                c.gpu_pack_elem, c.gpu_pack_strided_elem);
    *m = c;
done:
    pa__plan_unref(plans[0]);
    pa__plan_unref(plans[1]);
    pa__plan_unref(plans[2]);
    if (b.dev[0]) (void)cudaFree(b.dev[0]);
    if (b.dev[1]) (void)cudaFree(b.dev[1]);
    if (b.pinned) (void)cudaFreeHost(b.pinned);
    free(b.host);
    return st;
}
