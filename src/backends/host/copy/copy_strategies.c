/*
 * parray — the host copy strategies: name, probe (does it apply, and at what estimated cost) and exec.
 *
 * The cost model is deliberately simple: the memory traffic a strategy causes divided by the bandwidth, plus a
 * fixed cost per unit of work (per memcpy call, per element, per tile).  Traffic counts whole cache lines for
 * a side that is walked with a stride of a line or more and the touched bytes otherwise.  It only has to rank
 * the strategies on one shape correctly; the constants below were measured on the development machine (AMD
 * EPYC, 2 cores, 512 KiB L2 per core, 32 MiB L3) with bench/copy_calibrate, and their exact values matter
 * only near the crossovers.
 */
#include <stdio.h>
#include <string.h>

#include "copy_host.h"
#include "cost_model.h"

/*
 * The constants come from the cost model (src/core/plan/cost.c: built-in values, or the file `parray calibrate`
 * wrote).  The built-in ones: bytes of read + write traffic per ns on one thread (a 64 MiB memcpy moves 7-8
 * GB/s, 14-16 B/ns both ways); the fixed cost of one memcpy call on a short run and of one unit moved by the
 * specialised element loops beyond its traffic, ns (bench/copy_calibrate over 48 MiB of rows: memcpy_runs 6.3
 * ns per 8-byte run, 7.7 per 32, 11.3 per 64, 13.1 per 96; the loops 0.5-0.65 ns per 4-byte element, 8.5 ns per
 * 64-byte row folded into one unit, 15.5 per 96-byte row, so rows up to 64 bytes go to the loops and longer ones
 * to memcpy_runs, which the model reproduces); starting one innermost loop; the extra cost of an element whose
 * offsets come from tables; one transpose tile's set-up.
 */
#define PA__BW_BYTES_PER_NS (pa__cost()->host_bw)
#define PA__T_MEMCPY_CALL (pa__cost()->host_memcpy_call)
#define PA__T_LOOP_UNIT (pa__cost()->host_loop_unit)
#define PA__T_LOOP_START (pa__cost()->host_loop_start)
#define PA__T_GATHER_ELEM (pa__cost()->host_gather_elem)
#define PA__T_TILE (pa__cost()->host_tile)
/* A cache line, bytes. */
#define PA__LINE 64.0
/* Innermost runs up to this many bytes are folded into one unit by the loops (copy_loops.c). */
#define PA__LOOP_FOLD_MAX 64

static int host(const pa__copy_shape *s)
{
    return (!s->dst_mem || s->dst_mem->host_accessible) && (!s->src_mem || s->src_mem->host_accessible);
}

static int all_affine(const pa__copy_shape *s)
{
    for (int m = 0; m < s->nmodes; m++)
        if (s->dst_table[m] || s->src_table[m])
            return 0;
    return 1;
}

/* Traffic in bytes of n accesses of `unit` bytes at a stride of `step` bytes (lines counted whole). */
static double traffic(double n, double unit, double step)
{
    if (step < 0) step = -step;
    if (step == 0) return unit;                 /* the same bytes every time: cached */
    if (step < unit) step = unit;
    return n * (step < PA__LINE ? step : PA__LINE > unit ? PA__LINE : unit);
}

/* ---- memcpy: one run ------------------------------------------------------------------------------------ */

static int probe_memcpy(const pa__copy_shape *s, double *cost, char *why, size_t len)
{
    if (!host(s) || s->nmodes != 1 || !all_affine(s) || s->dst_stride[0] != 1 || s->src_stride[0] != 1)
        return 0;
    double bytes = (double)pa__bytes(s->total, s->elm);
    *cost = 2 * bytes / PA__BW_BYTES_PER_NS + PA__T_MEMCPY_CALL;
    snprintf(why, len, "one contiguous run of %.0f bytes on both sides", bytes);
    return 1;
}

/* ---- memcpy runs ------------------------------------------------------------------------------------------ */

static int probe_memcpy_runs(const pa__copy_shape *s, double *cost, char *why, size_t len)
{
    int in = s->nmodes - 1;
    if (!host(s) || s->nmodes < 2 || s->dst_table[in] || s->src_table[in] || s->dst_stride[in] != 1 ||
        s->src_stride[in] != 1)
        return 0;
    double bytes = (double)pa__bytes(s->total, s->elm), runs = (double)(s->total / s->size[in]);
    *cost = 2 * bytes / PA__BW_BYTES_PER_NS + runs * PA__T_MEMCPY_CALL;
    snprintf(why, len, "rows of %lld contiguous elements on both sides", (long long)s->size[in]);
    return 1;
}

/* ---- strided element loops -------------------------------------------------------------------------------- */

static int probe_loops(const pa__copy_shape *s, double *cost, char *why, size_t len)
{
    if (!host(s) || !all_affine(s))
        return 0;
    int in = s->nmodes - 1;
    double unit = (double)s->elm;
    if (s->nmodes > 1 && s->dst_stride[in] == 1 && s->src_stride[in] == 1 &&
        pa__bytes(s->size[in], s->elm) <= PA__LOOP_FOLD_MAX) {
        unit = (double)pa__bytes(s->size[in], s->elm);
        in--;
    }
    double units = (double)pa__bytes(s->total, s->elm) / unit;
    double t = traffic(units, unit, (double)pa__bytes(s->dst_stride[in], s->elm)) +
               traffic(units, unit, (double)pa__bytes(s->src_stride[in], s->elm));
    *cost = t / PA__BW_BYTES_PER_NS + units * PA__T_LOOP_UNIT + units / (double)s->size[in] * PA__T_LOOP_START;
    snprintf(why, len, "element loop over units of %.0f B, inner strides dst %lld src %lld", unit,
             (long long)s->dst_stride[in], (long long)s->src_stride[in]);
    return 1;
}

/* ---- reversals: stride 1 on one side, -1 on the other ------------------------------------------------------- */

static int probe_reverse(const pa__copy_shape *s, double *cost, char *why, size_t len)
{
    int in = s->nmodes - 1;
    if (!host(s) || !all_affine(s) || s->elm > 8 || 16 % s->elm || s->dst_stride[in] * s->src_stride[in] != -1)
        return 0;
    double bytes = (double)pa__bytes(s->total, s->elm);
    /* Each element costs its own calibrated constant besides its traffic (with the traffic alone a 16 MiB reversal
     * ran 1.7-1.9x the prediction on the development machine); the default, half a loop unit, keeps the loops
     * from ever winning a reversal. */
    *cost = 2 * bytes / PA__BW_BYTES_PER_NS + (double)s->total * pa__cost()->host_reverse_elem +
            (double)(s->total / s->size[in]) * PA__T_LOOP_START;
    snprintf(why, len, "rows of %lld elements reversed in 16-byte vectors", (long long)s->size[in]);
    return 1;
}

/* ---- cache-blocked transpose -------------------------------------------------------------------------------- */

static int probe_transpose(const pa__copy_shape *s, double *cost, char *why, size_t len)
{
    int a, b;
    int64_t u;
    if (!host(s) || !pa__transpose_modes(s, &a, &b, &u))
        return 0;
    double bytes = (double)pa__bytes(s->total, s->elm), units = (double)(s->total / u);
    int edge = pa__transpose_edge(pa__bytes(u, s->elm));
    double tile = (double)edge, tiles = units / (tile * tile);
    *cost = 2 * bytes / PA__BW_BYTES_PER_NS + units * pa__cost()->host_transpose_unit + tiles * PA__T_TILE;
    snprintf(why, len, "transpose of %lldx%lld units of %lld B in %dx%d tiles", (long long)s->size[b],
             (long long)s->size[a], (long long)pa__bytes(u, s->elm), edge, edge);
    return 1;
}

/* ---- gather: any layout ------------------------------------------------------------------------------------ */

static int probe_gather(const pa__copy_shape *s, double *cost, char *why, size_t len)
{
    if (!host(s))
        return 0;
    int in = s->nmodes - 1, nd = 0, ns = 0;
    for (int m = 0; m < s->nmodes; m++) {
        nd += s->dst_table[m] != NULL;
        ns += s->src_table[m] != NULL;
    }
    double n = (double)s->total, e = (double)s->elm;
    double dstep = s->dst_table[in] ? PA__LINE : (double)pa__bytes(s->dst_stride[in], s->elm);
    double sstep = s->src_table[in] ? PA__LINE : (double)pa__bytes(s->src_stride[in], s->elm);
    *cost = (traffic(n, e, dstep) + traffic(n, e, sstep)) / PA__BW_BYTES_PER_NS +
            n * (PA__T_LOOP_UNIT + PA__T_GATHER_ELEM) + n / (double)s->size[in] * PA__T_LOOP_START;
    snprintf(why, len, "element loop reading offsets from %d destination and %d source tables", nd, ns);
    return 1;
}

static int exec_host(const pa__plan *p, void *dst, const void *src);

static double predict_host(const pa__plan *p);

#define HOST_STRATEGY(var, name, probe)                                                                       \
    static const pa__strategy var = {name, probe, exec_host, NULL, pa__host_threads, pa__host_streams,         \
                                     pa__host_threads_note, predict_host}
HOST_STRATEGY(memcpy_one, "memcpy", probe_memcpy);
HOST_STRATEGY(memcpy_runs, "memcpy_runs", probe_memcpy_runs);
HOST_STRATEGY(loops, "loops", probe_loops);
HOST_STRATEGY(transpose, "transpose", probe_transpose);
HOST_STRATEGY(gather, "gather", probe_gather);
HOST_STRATEGY(reverse, "reverse", probe_reverse);
#undef HOST_STRATEGY

const pa__strategy *const pa__host_strategies[] = {&memcpy_one, &memcpy_runs, &transpose, &loops, &gather, &reverse,
                                                   NULL};

/*
 * How each strategy runs: its kernels (with ordinary and with streaming stores) and the bytes per thread below
 * which another thread does not pay.
 * - Threads: a copy takes one thread per `chunk` bytes, at most this process's share of the host's CPUs
 *   (host_share.c: with several MPI ranks on the node, each its part).  Waking a parked worker costs about
 *   40-90 us on the 16-core host and a polling one 1-14 us (bench/host_probe, start), so a thread pays from
 *   about 1 MiB of memory-bound copying (100-200 us of a thread's bandwidth) and 256 KiB of core-bound work
 *   (transposes, element loops, gathers: 44 us against 36 us on two threads on the development machine).
 * - Streaming stores pay once the destination no longer fits the caches alongside the source.  Transposes:
 *   8 MiB 8.9 GB/s streamed against 7.2, 4 MiB 9.9 against 15.5, so from 8 MiB; on the 16-core host 256 MiB
 *   transposes ran 2-3x faster streamed than not at every thread count.  Runs of 32 KiB: 16 MiB 19.8 against
 *   13.7, 8 MiB 20.5 against 27.5, so from 16 MiB.  Rows shorter than 256 B are not streamed, because their
 *   partial lines would be flushed half empty.
 * - One contiguous run on one thread goes to glibc's memcpy, which streams large blocks as four interleaved
 *   prefetched streams (9.2-10.8 GB/s on one thread of the 16-core host, our plain streaming loop 7.1); on two
 *   threads or more the plain streaming loop wins (62 against 43 GB/s on 16), and rows on one thread take the
 *   interleaved streaming loop (pa__stream_copy_1t).
 */
#define PA__NT_MIN_RUN 256
#define MiB ((int64_t)1 << 20)
#define KiB ((int64_t)1 << 10)

typedef struct host_run {
    const pa__strategy *strategy;
    pa__copy_kernel kernel, kernel_nt, kernel_nt1;   /* ordinary, streaming, streaming on one thread */
    int64_t chunk;           /* bytes per thread */
    int64_t nt_bytes;        /* streaming stores from this many bytes on */
} host_run;

static const host_run host_runs[] = {
    {&memcpy_one, pa__kern_memcpy, pa__kern_memcpy_nt, pa__kern_memcpy, 1 * MiB, 16 * MiB},
    {&memcpy_runs, pa__kern_memcpy_runs, pa__kern_memcpy_runs_nt, pa__kern_memcpy_runs_nt1, 1 * MiB, 16 * MiB},
    {&transpose, pa__kern_transpose, pa__kern_transpose_nt, pa__kern_transpose_nt, 256 * KiB, 8 * MiB},
    {&loops, pa__kern_loops, NULL, NULL, 256 * KiB, 0},
    {&gather, pa__kern_gather, NULL, NULL, 256 * KiB, 0},
    {&reverse, pa__kern_reverse, pa__kern_reverse_nt, pa__kern_reverse_nt, 1 * MiB, 16 * MiB},
};

static const host_run *host_run_of(const pa__plan *p)
{
    for (size_t i = 0; i < sizeof host_runs / sizeof host_runs[0]; i++)
        if (host_runs[i].strategy == p->strategy)
            return &host_runs[i];
    return NULL;
}

int pa__host_kernels_of(const char *strategy, pa__copy_kernel kernel[3])
{
    for (size_t i = 0; i < sizeof host_runs / sizeof host_runs[0]; i++)
        if (strcmp(host_runs[i].strategy->name, strategy) == 0) {
            const host_run *r = &host_runs[i];
            kernel[0] = r->kernel;
            kernel[1] = r->kernel_nt;
            kernel[2] = r->kernel_nt1 != r->kernel && r->kernel_nt1 != r->kernel_nt ? r->kernel_nt1 : NULL;
            return 1;
        }
    return 0;
}

int pa__host_threads(const pa__plan *p)
{
    const host_run *r = host_run_of(p);
    return r ? pa__copy_threads_for(pa__bytes(p->shape.total, p->shape.elm), r->chunk) : 1;
}

/* Whether the plan writes with streaming stores when it runs on t threads. */
static int streams_on(const pa__plan *p, const host_run *r, int t)
{
    const pa__copy_shape *s = &p->shape;
    int in = s->nmodes - 1;
    if (!r || !r->kernel_nt || pa__bytes(s->total, s->elm) < r->nt_bytes)
        return 0;
    if (r->strategy == &memcpy_one && t == 1)
        return 0;   /* glibc's memcpy streams one large run itself */
    return r->strategy != &memcpy_runs || pa__bytes(s->size[in], s->elm) >= PA__NT_MIN_RUN;
}

int pa__host_streams(const pa__plan *p)
{
    return streams_on(p, host_run_of(p), pa__host_threads(p));
}

pa__copy_kernel pa__host_kernel_on(const pa__plan *p, int threads)
{
    const host_run *r = host_run_of(p);
    if (!r)
        return NULL;
    return !streams_on(p, r, threads) ? r->kernel : threads == 1 ? r->kernel_nt1 : r->kernel_nt;
}

int pa__host_threads_note(const pa__plan *p, char *buf, size_t len)
{
    const host_run *r = host_run_of(p);
    if (r == NULL || pa__host_threads(p) < 2)   /* one thread needs no reason (and keeps golden lines stable) */
        return snprintf(buf, len, "%s", "");
    return snprintf(buf, len, "; threads: one per %lld KiB, at most %d (this process's share of the CPUs)",
                    (long long)(r->chunk / KiB), pa__copy_threads_limit());
}

/* The probe's one-thread estimate shared by the threads the plan runs on. */
static double predict_host(const pa__plan *p)
{
    return p->cost_ns / pa__host_threads(p);
}

static int exec_host(const pa__plan *p, void *dst, const void *src)
{
    const host_run *r = host_run_of(p);
    int t = pa__host_threads(p);
    int nt = streams_on(p, r, t), mode = -1, a, b;
    int64_t u;
    pa__copy_kernel k = pa__host_kernel_on(p, t);
    /* Streamed transposes are cut along the source's rows (mode a), so that every slice reads whole source rows
     * as long streams; cut along its columns, 64 slices of 8192 floats read 512 bytes of a row at a time, too
     * short for the prefetcher (bench/copy_host on 16 threads: 0.70 of memcpy, see docs/gpu-results.md). */
    if (nt && t > 1 && r->strategy == &transpose && pa__transpose_modes(&p->shape, &a, &b, &u) &&
        p->shape.size[a] >= 2 * (int64_t)t)
        mode = a;
    return pa__copy_parallel_on(&p->shape, dst, src, t, k, mode);
}
