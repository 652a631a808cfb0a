/*
 * parray — PL/CUDA functions on a GPU: compilation, the kernels loaded per device, and the launch
 * configuration of each kernel (threads, block size and why, shared memory), which pa_kernel_explain prints.
 *
 * Block size: #plcuda_kernel_blocksz when given; else the largest block the kernel can run with
 * #plcuda_kernel_maxthreads (compiled with __launch_bounds__(1024)); else the occupancy API's suggestion for the
 * kernel's registers and the per-block shared memory.  A kernel with fewer threads than that gets one block of
 * exactly its threads.
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "../cuda_backend.h"
#include "internal.h"
#include "plcuda_call.h"

/* The NVRTC options of a function: -rdc=true when it includes "dynpara", -device-int128 when it includes
 * "numeric" or "money" (a numeric or money signature includes them). */
static const char *const *pa__plc_options(const pa_kernel *k, int *n)
{
    static const char *const both[] = {"-rdc=true", "-device-int128"};
    *n = k->parsed.rdc + k->parsed.int128;
    return k->parsed.rdc ? both : both + 1;
}

int pa_kernel_compile(pa_kernel *k, int arch)
{
    const pa_cuda__image *img;
    if (!k || arch < 0)
        return pa__err(PA_ERR_INVAL, "pa_kernel_compile: NULL function or negative architecture");
    int nopts;
    const char *const *opts = pa__plc_options(k, &nopts);
    return pa_cuda__rtc_compile(k->name, k->source, opts, nopts, arch, &img);
}

int pa__plc_kernels(pa_kernel *k, pa_cuda__rtc_kernel *out[PA__PLC_NBLOCKS])
{
    const pa_cuda__image *img;
    pa_cuda__rtc_kernel *got[PA__PLC_NBLOCKS] = {NULL};
    char entry[160];
    int dev = 0, st = pa_cuda__ready(k->name);
    cudaError_t e;
    if (st != PA_OK)
        return st;
    if ((e = cudaGetDevice(&dev)) != cudaSuccess)
        return pa_cuda__fail(e, "%s: cudaGetDevice", k->name);
    if (dev >= PA__PLC_MAX_DEVICES)
        return pa__err(PA_ERR_RANGE, "%s: GPU %d: PL/CUDA functions run on GPUs 0..%d", k->name, dev,
                       PA__PLC_MAX_DEVICES - 1);
    pthread_mutex_lock(&k->lock);
    memcpy(got, k->loaded[dev], sizeof got);
    pthread_mutex_unlock(&k->lock);
    if (!got[PA__PLC_MAIN]) {
        int nopts;
        const char *const *opts = pa__plc_options(k, &nopts);
        if ((st = pa_cuda__rtc_compile(k->name, k->source, opts, nopts, 0, &img)) != PA_OK)
            return st;
        for (int b = PA__PLC_PREP; b < PA__PLC_NBLOCKS; b++) {
            if (!k->parsed.blocks[b].present)
                continue;
            pa__plc_entry(k->name, b, entry, sizeof entry);
            if ((st = pa_cuda__rtc_load(img, entry, &got[b])) != PA_OK)
                return st;
        }
        pthread_mutex_lock(&k->lock);
        memcpy(k->loaded[dev], got, sizeof got);
        pthread_mutex_unlock(&k->lock);
    }
    memcpy(out, got, sizeof got);
    return PA_OK;
}

/* The block size of one kernel and why; kern NULL when no GPU is present. */
static int block_size(const pa_kernel *k, int b, pa_cuda__rtc_kernel *kern, int64_t kb, int64_t blocksz,
                      pa__plc_launch *l)
{
    int maxb = 1024, suggested = 0, st;
    if (kern && (st = pa_cuda__rtc_kernel_limits(kern, (size_t)blocksz, &maxb, &suggested)) != PA_OK)
        return st;
    if (kb > 0) {
        if (kb > maxb)
            return pa__err(PA_ERR_RANGE, "%s: #plcuda_kernel_blocksz %lld in #plcuda_%s: the kernel runs at most %d "
                           "threads per block", k->name, (long long)kb, pa__plc_stage_names[b], maxb);
        l->block = (int)kb;
        l->why = "#plcuda_kernel_blocksz";
    } else if (k->parsed.blocks[b].maxthreads) {
        l->block = maxb;
        l->why = kern ? "#plcuda_kernel_maxthreads: the kernel's limit" : "#plcuda_kernel_maxthreads (no GPU: 1024)";
    } else if (kern) {
        l->block = suggested;
        l->why = "occupancy API";
    } else {
        l->block = 0;
        l->why = "auto: the occupancy API decides at launch (no GPU now)";
    }
    return PA_OK;
}

static int stage_config(const pa_kernel *k, int b, pa_cuda__rtc_kernel *kern, const pa_arg *args, int nargs,
                        pa__plc_launch *l)
{
    const pa__plc_block *blk = &k->parsed.blocks[b];
    int64_t v[PA__PLC_NSTAGEVALS];
    static const int64_t dflt[PA__PLC_NSTAGEVALS] = {1, 0, 0, 0};
    int st;
    memset(l, 0, sizeof *l);
    if (!blk->present)
        return PA_OK;
    for (int i = 0; i < PA__PLC_NSTAGEVALS; i++)
        if ((st = pa__plc_eval(k, &blk->vals[i], dflt[i], args, nargs, pa__plc_value_names[i], &v[i])) != PA_OK)
            return st;
    l->present = 1;
    l->threads = v[PA__PLC_NUM_THREADS];
    if ((st = block_size(k, b, kern, v[PA__PLC_KERNEL_BLOCKSZ], v[PA__PLC_SHMEM_BLOCKSZ], l)) != PA_OK)
        return st;
    if (l->block > 0 && l->threads < l->block) {
        l->block = (int)(l->threads > 0 ? l->threads : 1);
        l->clamped = 1;
    }
    if (l->block > 0) {
        int64_t grid = (l->threads + l->block - 1) / l->block;
        if (grid > 0x7fffffff)
            return pa__err(PA_ERR_RANGE, "%s: #plcuda_%s: %lld threads need %lld blocks (at most 2^31-1)", k->name,
                           pa__plc_stage_names[b], (long long)l->threads, (long long)grid);
        l->grid = (unsigned)grid;
        l->shmem = (size_t)(v[PA__PLC_SHMEM_UNITSZ] * l->block + v[PA__PLC_SHMEM_BLOCKSZ]);
    }
    l->unitsz = v[PA__PLC_SHMEM_UNITSZ];
    l->blocksz = v[PA__PLC_SHMEM_BLOCKSZ];
    return PA_OK;
}

int pa__plc_configure(const pa_kernel *k, pa_cuda__rtc_kernel *const kerns[PA__PLC_NBLOCKS], const pa_arg *args,
                   int nargs, pa__plc_config *cfg)
{
    int st;
    memset(cfg, 0, sizeof *cfg);
    if ((st = pa__plc_eval(k, &k->parsed.results_bufsz, 0, args, nargs, "results_bufsz", &cfg->results_bufsz)) !=
            PA_OK ||
        (st = pa__plc_eval(k, &k->parsed.working_bufsz, 0, args, nargs, "working_bufsz", &cfg->working_bufsz)) !=
            PA_OK)
        return st;
    for (int b = PA__PLC_PREP; b < PA__PLC_NBLOCKS; b++)
        if ((st = stage_config(k, b, kerns ? kerns[b] : NULL, args, nargs, &cfg->st[b])) != PA_OK)
            return st;
    return PA_OK;
}

/* Appends to buf (len bytes, NULL when len is 0) as snprintf would at offset *total; *total counts every byte. */
static void appendf(char *buf, size_t len, int *total, const char *fmt, ...) __attribute__((format(printf, 4, 5)));
static void appendf(char *buf, size_t len, int *total, const char *fmt, ...)
{
    size_t n = (size_t)*total;
    va_list ap;
    va_start(ap, fmt);
    int r = vsnprintf(n < len ? buf + n : NULL, n < len ? len - n : 0, fmt, ap);
    va_end(ap);
    if (r > 0)
        *total += r;
}

int pa__plc_format(const pa_kernel *k, const pa__plc_config *cfg, char *buf, size_t len)
{
    int total = 0;
    appendf(buf, len, &total, "%s: results buffer %lld bytes, working buffer %lld bytes\n", k->name,
            (long long)cfg->results_bufsz, (long long)cfg->working_bufsz);
    for (int b = PA__PLC_PREP; b < PA__PLC_NBLOCKS; b++) {
        const pa__plc_launch *l = &cfg->st[b];
        if (!l->present)
            continue;
        if (l->threads == 0)
            appendf(buf, len, &total, "  %s: 0 threads: not launched\n", pa__plc_stage_names[b]);
        else if (l->block == 0)
            appendf(buf, len, &total, "  %s: %lld threads, block size %s, shared memory %lld bytes/thread + %lld "
                    "bytes/block\n", pa__plc_stage_names[b], (long long)l->threads, l->why, (long long)l->unitsz,
                    (long long)l->blocksz);
        else
            appendf(buf, len, &total, "  %s: %lld threads = %u blocks x %d threads (%s%s), shared memory %zu "
                    "bytes/block\n", pa__plc_stage_names[b], (long long)l->threads, l->grid, l->block, l->why,
                    l->clamped ? ", one block of the thread count" : "", l->shmem);
    }
    return total;
}

int pa_kernel_explain(pa_kernel *k, const pa_arg *args, int nargs, char *buf, size_t len)
{
    pa_cuda__rtc_kernel *kerns[PA__PLC_NBLOCKS] = {NULL};
    pa__plc_config cfg;
    int st;
    if (!k || (len > 0 && !buf))
        return pa__err(PA_ERR_INVAL, "pa_kernel_explain: NULL function or buffer");
    if (nargs != k->sig.nargs || (nargs > 0 && !args))
        return pa__err(PA_ERR_PARAM, "%s: %d arguments given, the signature has %d", k->name, nargs, k->sig.nargs);
    if (pa_cuda__usable() && (st = pa__plc_kernels(k, kerns)) != PA_OK)
        return st;
    if ((st = pa__plc_configure(k, pa_cuda__usable() ? kerns : NULL, args, nargs, &cfg)) != PA_OK)
        return st;
    return pa__plc_format(k, &cfg, buf, len);
}
