/*
 * parray — the CUDA copy strategies: name, probe (does it apply, at what estimated cost, and why) and exec.
 *
 * They apply when at least one side is device memory (pinned <-> paged is a host copy).  Costs are the bytes
 * over the ceilings measured on the lent H100 (shared/PERFORMANCE.md) plus a fixed cost per synchronous CUDA
 * call; they only have to rank the strategies for one shape.  The strategies:
 *  - cuda_dma: one cudaMemcpy, when both sides are one contiguous run;
 *  - cuda_2d: one cudaMemcpy2D, when the copy is rows of a run common to both sides;
 *  - cuda_3d: one cudaMemcpy3D, when the copy is slices of such rows (each side's slice a whole number of
 *    its rows: cudaMemcpy3D's pitched model);
 *  - cuda_permute: dmem -> dmem through the generic permute kernel (permute.cu);
 *  - cuda_stage_permute: the host side is a dense block: DMA it to or from a device staging buffer and
 *    permute on the device;
 *  - cuda_stage_pack: any host side: pack it on the host into pinned staging in loop order, DMA, permute;
 *  - cuda_pageable_pipeline: pageable host memory through a ring of pinned chunks filled by several threads.
 */
#include <stdio.h>

#include "cuda_backend.h"

/*
 * The constants come from the cost model (src/core/plan/cost.c; `parray calibrate` measures them where a GPU is
 * usable).  The built-in ones, from the ceilings of PERFORMANCE.md on the H100: bytes per ns of pinned and
 * pageable DMA each way, and of device -> device copies (2994 GB/s counting read and write, so 1497 bytes
 * copied per ns; the tiled transpose 2799, so 1400); a synchronous CUDA call (a DMA or a launch, then a
 * synchronisation), ns; cudaMemcpy2D's cost per row beyond its bytes (16-byte rows ran 9.3 GB/s across PCIe,
 * 1.7 ns a row, 0.3 of them bytes, and 273 GB/s read + write on the device); device work per word moved by the
 * direct kernel (index arithmetic), ns summed over the whole GPU; a host thread's memcpy into or out of pinned
 * memory, bytes per ns; host packing per element through the gather loops, ns; the pipeline's start (threads,
 * first chunk), ns.
 */
#define BW_H2D_PINNED (pa__cost()->gpu_h2d_pinned)
#define BW_D2H_PINNED (pa__cost()->gpu_d2h_pinned)
#define BW_H2D_PAGEABLE (pa__cost()->gpu_h2d_pageable)
#define BW_D2H_PAGEABLE (pa__cost()->gpu_d2h_pageable)
#define BW_D2D_RW (pa__cost()->gpu_d2d_rw)
#define BW_TILED_RW (pa__cost()->gpu_tiled_rw)
#define T_CALL (pa__cost()->gpu_call)
#define T_ROW_PCIE (pa__cost()->gpu_row_pcie)
#define T_ROW_D2D (pa__cost()->gpu_row_d2d)
#define T_WORD (pa__cost()->gpu_word)
#define BW_HOST_THREAD (pa__cost()->gpu_host_thread_bw)
#define T_PACK_ELEM (pa__cost()->gpu_pack_elem)
#define T_PACK_STRIDED_ELEM (pa__cost()->gpu_pack_strided_elem)
#define T_PIPE_START (pa__cost()->gpu_pipe_start)
#define MiB (1024.0 * 1024.0)

static int on_device(const pa__copy_shape *s, int dst)
{
    return pa_cuda__where_of(dst ? s->dst_mem : s->src_mem) == PA_CUDA__DEVICE;
}

/* 1 when both sides are memory this backend knows and at least one is on the device. */
static int ours(const pa__copy_shape *s)
{
    pa_cuda__where d = pa_cuda__where_of(s->dst_mem), r = pa_cuda__where_of(s->src_mem);
    return d != PA_CUDA__OTHER && r != PA_CUDA__OTHER && (d == PA_CUDA__DEVICE || r == PA_CUDA__DEVICE);
}

static int affine(const pa__copy_shape *s)
{
    for (int m = 0; m < s->nmodes; m++)
        if (s->dst_table[m] || s->src_table[m])
            return 0;
    return 1;
}

static double bytes_of(const pa__copy_shape *s)
{
    return (double)pa__bytes(s->total, s->elm);
}

/* The DMA rate between the two sides, bytes per ns; pageable is the driver's own path. */
static double dma_bw(const pa__copy_shape *s)
{
    int dd = on_device(s, 1), sd = on_device(s, 0);
    if (dd && sd)
        return BW_D2D_RW / 2;
    pa_cuda__where host = pa_cuda__where_of(dd ? s->src_mem : s->dst_mem);
    if (dd)
        return host == PA_CUDA__PINNED ? BW_H2D_PINNED : BW_H2D_PAGEABLE;
    return host == PA_CUDA__PINNED ? BW_D2H_PINNED : BW_D2H_PAGEABLE;
}

/* The direction in words, "pinned->dmem": a format fragment and its two arguments. */
static const char *const where_names[] = {"paged", "pinned", "dmem", "other"};
#define DIRF "%s->%s"
#define DIRA(s) where_names[pa_cuda__where_of((s)->src_mem)], where_names[pa_cuda__where_of((s)->dst_mem)]

/* The permute kernel's cost for a nest (whole-GPU time, ns) and how it runs, in words. */
static double permute_cost(const pa_cuda__nest *n, int64_t total, char *how, size_t len)
{
    pa_cuda__pinfo info;
    pa_cuda__permute_info(n, 16, &info);
    double bytes = (double)total * (double)n->elm, units = bytes / (double)info.unit;
    if (info.kind == PA_CUDA__TILED) {
        if (info.vec_rows)
            snprintf(how, len, "tiled %lldx%lld transpose of %lld-B units in 16-B vectors, %dx32 tiles in bands "
                     "of %d", (long long)info.nb, (long long)info.na, (long long)info.unit, info.vec_rows, info.band);
        else
            snprintf(how, len, "tiled %lldx%lld transpose of %lld-B units in %d-B words, bands of %d tile rows",
                     (long long)info.nb, (long long)info.na, (long long)info.unit, info.word, info.band);
        return 2 * bytes / BW_TILED_RW;
    }
    /* Direct: a side whose innermost unit is not contiguous costs a 32-byte sector per unit. */
    int last = n->nmodes - 1, fold = info.unit > (int64_t)n->elm || (n->nmodes == 1 && !n->dst_table[0] &&
                                                                       !n->src_table[0] && n->dst_stride[0] == 1 &&
                                                                       n->src_stride[0] == 1);
    int in = fold ? last - 1 : last;
    double traffic = 0;
    for (int side = 0; side < 2; side++) {
        const int64_t *st = side ? n->src_stride : n->dst_stride;
        const int64_t *const *tb = side ? n->src_table : n->dst_table;
        int contiguous = in < 0 || (!tb[in] && st[in] * (int64_t)n->elm == info.unit);
        traffic += contiguous || info.unit >= 32 ? bytes : units * 32.0;
    }
    snprintf(how, len, "direct over %lld-B units in %d-B words", (long long)info.unit, info.word);
    double t = traffic / BW_D2D_RW, w = bytes / info.word * T_WORD;
    return t > w ? t : w;
}

/* ---- cuda_dma ------------------------------------------------------------------------------------------ */

static int probe_dma(const pa__copy_shape *s, double *cost, char *why, size_t len)
{
    if (!ours(s) || s->nmodes != 1 || !affine(s) || s->dst_stride[0] != 1 ||
        s->src_stride[0] != 1)
        return 0;
    *cost = T_CALL + bytes_of(s) / dma_bw(s);
    snprintf(why, len, "one cudaMemcpy " DIRF " of %.0f contiguous bytes", DIRA(s), bytes_of(s));
    return 1;
}

/* ---- cuda_2d ------------------------------------------------------------------------------------------- */

static int probe_2d(const pa__copy_shape *s, double *cost, char *why, size_t len)
{
    if (!ours(s) || s->nmodes != 2 || !affine(s) || s->dst_stride[1] != 1 ||
        s->src_stride[1] != 1 || s->dst_stride[0] < s->size[1] || s->src_stride[0] < s->size[1] ||
        pa__bytes(s->dst_stride[0], s->elm) > INT32_MAX || pa__bytes(s->src_stride[0], s->elm) > INT32_MAX)
        return 0;
    double rows = (double)s->size[0], d2d = on_device(s, 1) && on_device(s, 0);
    *cost = T_CALL + rows * (d2d ? T_ROW_D2D : T_ROW_PCIE) + bytes_of(s) / dma_bw(s);
    snprintf(why, len, "one cudaMemcpy2D " DIRF " of %lld rows of %lld bytes", DIRA(s), (long long)s->size[0],
             (long long)pa__bytes(s->size[1], s->elm));
    return 1;
}

/* ---- cuda_3d ------------------------------------------------------------------------------------------- */

/* One side fits cudaMemcpy3D's pitched model: rows of at least the run, slices a whole number of rows. */
static int pitched_3d(const pa__copy_shape *s, const int64_t *st)
{
    return st[2] == 1 && st[1] >= s->size[2] && st[0] > 0 && st[0] % st[1] == 0 && st[0] / st[1] >= s->size[1] &&
           pa__bytes(st[1], s->elm) <= INT32_MAX;
}

static int probe_3d(const pa__copy_shape *s, double *cost, char *why, size_t len)
{
    if (!ours(s) || s->nmodes != 3 || !affine(s) || !pitched_3d(s, s->dst_stride) || !pitched_3d(s, s->src_stride))
        return 0;
    double rows = (double)s->size[0] * (double)s->size[1], d2d = on_device(s, 1) && on_device(s, 0);
    *cost = T_CALL + rows * (d2d ? T_ROW_D2D : T_ROW_PCIE) + bytes_of(s) / dma_bw(s);
    snprintf(why, len, "one cudaMemcpy3D " DIRF " of %lld slices of %lld rows of %lld bytes", DIRA(s),
             (long long)s->size[0], (long long)s->size[1], (long long)pa__bytes(s->size[2], s->elm));
    return 1;
}

/* ---- cuda_permute: dmem -> dmem ----------------------------------------------------------------------- */

static int probe_permute(const pa__copy_shape *s, double *cost, char *why, size_t len)
{
    if (!ours(s) || !on_device(s, 1) || !on_device(s, 0))
        return 0;
    pa_cuda__nest n;
    char how[96];
    pa_cuda__nest_of(s, -1, 0, &n);
    *cost = T_CALL + permute_cost(&n, s->total, how, sizeof how) + (affine(s) ? 0 : T_CALL);
    snprintf(why, len, "device permute kernel: %s%s", how, affine(s) ? "" : ", gather tables uploaded");
    return 1;
}

/* ---- host <-> dmem through device staging ------------------------------------------------------------- */

/* The host side of a copy with one device side: 0 dst, 1 src; -1 when not exactly one side is device. */
static int host_side(const pa__copy_shape *s)
{
    int dd = on_device(s, 1), sd = on_device(s, 0);
    return !ours(s) || dd == sd ? -1 : dd ? 1 : 0;
}

static int probe_stage_permute(const pa__copy_shape *s, double *cost, char *why, size_t len)
{
    int h = host_side(s);
    if (h < 0 || !pa_cuda__side_dense(s, h == 0) || s->nmodes < 2)
        return 0;
    pa_cuda__nest n;
    char how[96];
    pa_cuda__nest_of(s, h, 1, &n);
    *cost = 2 * T_CALL + bytes_of(s) / dma_bw(s) + permute_cost(&n, s->total, how, sizeof how);
    snprintf(why, len, DIRF ": one DMA of the dense host block through a %.0f-byte device staging buffer, %s",
             DIRA(s), bytes_of(s), how);
    return 1;
}

static int probe_stage_pack(const pa__copy_shape *s, double *cost, char *why, size_t len)
{
    int h = host_side(s);
    if (h < 0)
        return 0;
    pa_cuda__nest n;
    char how[96];
    pa_cuda__nest_of(s, h, 0, &n);
    double bw = h == 0 ? BW_D2H_PINNED : BW_H2D_PINNED;
    int threads = pa__host()->threads_for(pa__bytes(s->total, s->elm), (int64_t)256 << 10);
    /* The pack walks the shape in loop order: the host side is read in order when its innermost stride is 1. */
    int in = s->nmodes - 1;
    int in_order = (h == 0 ? s->dst_stride[in] : s->src_stride[in]) == 1 && !(h == 0 ? s->dst_table[in] : s->src_table[in]);
    double elem = in_order ? T_PACK_ELEM : T_PACK_STRIDED_ELEM;
    *cost = 3 * T_CALL + (double)s->total * elem / threads + bytes_of(s) / bw +
            permute_cost(&n, s->total, how, sizeof how);
    snprintf(why, len, DIRF ": packed on the host in loop order into %.0f bytes of pinned staging, one DMA through "
             "device staging, %s", DIRA(s), bytes_of(s), how);
    return 1;
}

static int probe_pipeline(const pa__copy_shape *s, double *cost, char *why, size_t len)
{
    int h = host_side(s);
    if (h < 0 || pa_cuda__where_of(h == 0 ? s->dst_mem : s->src_mem) != PA_CUDA__PAGEABLE ||
        !pa_cuda__side_dense(s, h == 0))
        return 0;
    int threads = pa_cuda__pipeline_threads();
    double bw = h == 0 ? BW_D2H_PINNED : BW_H2D_PINNED, host = threads * BW_HOST_THREAD;
    char how[96] = "no device staging";
    double t = T_PIPE_START + bytes_of(s) / (host < bw ? host : bw) + (double)pa_cuda__pipeline_chunk() / BW_HOST_THREAD;
    if (s->nmodes > 1) {
        pa_cuda__nest n;
        pa_cuda__nest_of(s, h, 1, &n);
        t += T_CALL + permute_cost(&n, s->total, how, sizeof how);
    }
    *cost = t;
    size_t chunk = pa_cuda__pipeline_chunk();   /* whole MiB by default; KiB where PA_CUDA_PIPELINE_CHUNK_KB says */
    int mib = chunk % ((size_t)1 << 20) == 0;
    snprintf(why, len, DIRF ": %d host threads through 2 x %d pinned chunks of %zu %s each%s, %s", DIRA(s),
             threads, threads, chunk >> (mib ? 20 : 10), mib ? "MiB" : "KiB",
             s->nmodes > 1 ? " and a device staging buffer" : "", how);
    return 1;
}

/* The host threads each strategy runs on, for the explanation: the pipeline's, the packing's, else one. */
static int threads_pipeline(const pa__plan *p)
{
    (void)p;
    return pa_cuda__pipeline_threads();
}

static int threads_pack(const pa__plan *p)
{
    return pa__host()->threads_for(pa__bytes(p->shape.total, p->shape.elm), (int64_t)256 << 10);
}

/* Every executor runs where the copy's device memory is (copy_devices.c). */
#define ON_DEVICES(fn)                                                                                    \
    static int fn##_dev(const pa__plan *p, void *dst, const void *src)                                    \
    {                                                                                                     \
        return pa_cuda__on_devices(p, dst, src, pa_cuda__##fn);                                           \
    }
#define ON_DEVICES_ASYNC(fn)                                                                              \
    ON_DEVICES(fn)                                                                                        \
    static int fn##_async_dev(const pa__plan *p, void *dst, const void *src, void *stream)                \
    {                                                                                                     \
        return pa_cuda__on_devices_async(p, dst, src, stream, pa_cuda__##fn##_async, pa_cuda__##fn);      \
    }
ON_DEVICES_ASYNC(exec_dma)
ON_DEVICES_ASYNC(exec_2d)
ON_DEVICES_ASYNC(exec_3d)
ON_DEVICES_ASYNC(exec_permute)
ON_DEVICES(exec_staged)
ON_DEVICES(exec_pack)
ON_DEVICES(exec_pipeline)

static const pa__strategy cuda_dma = {.name = "cuda_dma", .probe = probe_dma,
                                      .exec = exec_dma_dev, .exec_async = exec_dma_async_dev};
static const pa__strategy cuda_2d = {.name = "cuda_2d", .probe = probe_2d,
                                     .exec = exec_2d_dev, .exec_async = exec_2d_async_dev};
static const pa__strategy cuda_3d = {.name = "cuda_3d", .probe = probe_3d,
                                     .exec = exec_3d_dev, .exec_async = exec_3d_async_dev};
static const pa__strategy cuda_permute = {.name = "cuda_permute", .probe = probe_permute,
                                          .exec = exec_permute_dev, .exec_async = exec_permute_async_dev};
static const pa__strategy cuda_stage_permute = {.name = "cuda_stage_permute", .probe = probe_stage_permute,
                                                .exec = exec_staged_dev};
static const pa__strategy cuda_stage_pack = {.name = "cuda_stage_pack", .probe = probe_stage_pack,
                                             .exec = exec_pack_dev, .threads = threads_pack};
static const pa__strategy cuda_pipeline = {.name = "cuda_pageable_pipeline", .probe = probe_pipeline,
                                           .exec = exec_pipeline_dev, .threads = threads_pipeline};

const pa__strategy *const pa__cuda_strategies[] = {&cuda_dma, &cuda_2d, &cuda_3d, &cuda_permute,
                                                    &cuda_stage_permute, &cuda_stage_pack, &cuda_pipeline,
                                                    NULL};

/* The executors themselves, before the wrapping above (the cross-GPU executor and its tests run them). */
static const struct {
    const pa__strategy *strategy;
    pa_cuda__exec_fn exec;
} raw[] = {
    {&cuda_dma, pa_cuda__exec_dma},          {&cuda_2d, pa_cuda__exec_2d},
    {&cuda_3d, pa_cuda__exec_3d},            {&cuda_permute, pa_cuda__exec_permute},
    {&cuda_stage_permute, pa_cuda__exec_staged}, {&cuda_stage_pack, pa_cuda__exec_pack},
    {&cuda_pipeline, pa_cuda__exec_pipeline},
};

pa_cuda__exec_fn pa_cuda__exec_of(const pa__strategy *st)
{
    for (size_t i = 0; i < sizeof raw / sizeof raw[0]; i++)
        if (raw[i].strategy == st)
            return raw[i].exec;
    return NULL;
}
