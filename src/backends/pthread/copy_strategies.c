/*
 * parray — the host copy strategies: name, probe (does it apply, and at what estimated cost) and exec.
 *
 * The cost model is deliberately simple: the memory traffic a strategy causes divided by the bandwidth, plus a
 * fixed cost per unit of work (per memcpy call, per element, per tile).  Traffic counts whole cache lines for
 * a side that is walked with a stride of a line or more and the touched bytes otherwise.  It only has to rank
 * the strategies on one shape correctly; the constants below were measured on the development machine (AMD
 * EPYC, 2 cores, 512 KiB L2 per core, 32 MiB L3) with bench/copy_host, and their exact values matter only
 * near the crossovers.
 */
#include <stdio.h>

#include "plan.h"

/* Bytes of read + write traffic per ns on one thread: a 64 MiB memcpy moves ~9.5 GB/s, i.e. 19 B/ns both ways. */
#define PA__BW_BYTES_PER_NS 19.0
/* Fixed cost of one memcpy call on a short run (call, size dispatch, tail handling), ns. */
#define PA__T_MEMCPY_CALL 6.0
/* Cost of one unit moved by the specialised element loops beyond its traffic, ns. */
#define PA__T_LOOP_UNIT 0.5
/* Cost of starting one innermost loop (odometer step, loop set-up), ns. */
#define PA__T_LOOP_START 5.0
/* Extra cost of one element when its offsets come from tables, ns. */
#define PA__T_GATHER_ELEM 1.0
/* Cost of one transpose tile's set-up (loop and pointer arithmetic), ns. */
#define PA__T_TILE 20.0
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

static int threaded(const pa__plan *p, void *dst, const void *src, pa__copy_kernel k)
{
    const pa__copy_shape *s = &p->shape;
    return pa__copy_parallel(s, dst, src, pa__copy_threads_for(pa__bytes(s->total, s->elm)), k);
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

static int exec_memcpy(const pa__plan *p, void *dst, const void *src)
{
    return threaded(p, dst, src, pa__kern_memcpy);
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

static int exec_memcpy_runs(const pa__plan *p, void *dst, const void *src)
{
    return threaded(p, dst, src, pa__kern_memcpy_runs);
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

static int exec_loops(const pa__plan *p, void *dst, const void *src)
{
    return threaded(p, dst, src, pa__kern_loops);
}

/* ---- cache-blocked transpose -------------------------------------------------------------------------------- */

static int probe_transpose(const pa__copy_shape *s, double *cost, char *why, size_t len)
{
    int a, b;
    int64_t u;
    if (!host(s) || !pa__transpose_modes(s, &a, &b, &u))
        return 0;
    double bytes = (double)pa__bytes(s->total, s->elm), units = (double)(s->total / u);
    double tile = (double)pa__transpose_tile, tiles = units / (tile * tile);
    *cost = 2 * bytes / PA__BW_BYTES_PER_NS + units * PA__T_LOOP_UNIT + tiles * PA__T_TILE;
    snprintf(why, len, "transpose of %lldx%lld units of %lld B in %dx%d tiles", (long long)s->size[b],
             (long long)s->size[a], (long long)pa__bytes(u, s->elm), pa__transpose_tile, pa__transpose_tile);
    return 1;
}

static int exec_transpose(const pa__plan *p, void *dst, const void *src)
{
    return threaded(p, dst, src, pa__kern_transpose);
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

static int exec_gather(const pa__plan *p, void *dst, const void *src)
{
    return threaded(p, dst, src, pa__kern_gather);
}

static const pa__strategy memcpy_one = {"memcpy", probe_memcpy, exec_memcpy};
static const pa__strategy memcpy_runs = {"memcpy_runs", probe_memcpy_runs, exec_memcpy_runs};
static const pa__strategy loops = {"loops", probe_loops, exec_loops};
static const pa__strategy transpose = {"transpose", probe_transpose, exec_transpose};
static const pa__strategy gather = {"gather", probe_gather, exec_gather};

const pa__strategy *const pa__host_strategies[] = {&memcpy_one, &memcpy_runs, &transpose, &loops, &gather, NULL};
