/*
 * parray — the pthread backend's host copy code, its own declarations: the kernels, the two-level loops, the
 * transpose's helpers and the odometer every kernel steps its outer modes with.  The core and the other
 * backends reach it only through the backend's description (backend_pthread.c: strategies, pa__host's copy
 * services); outside src/backends/host only its white-box tests and benchmarks include this header.
 */
#ifndef PARRAY_COPY_HOST_H
#define PARRAY_COPY_HOST_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "internal.h"
#include "plan.h"

/* ---- threads (copy_threads.c) ------------------------------------------------------------------------- */

/** Sets the most threads a host copy may use (0: the number of cores): pa_copy_set_threads. */
void pa__copy_threads_set(int n);
/** Threads worth using for a copy of this many bytes now: min(limit, bytes / chunk), at least 1. */
int pa__copy_threads_for(int64_t bytes, int64_t chunk);
/** Runs kernel over shape on up to nthreads threads, splitting one mode into contiguous slices. */
int pa__copy_parallel(const pa__copy_shape *shape, char *dst, const char *src, int nthreads,
                      pa__copy_kernel kernel);
/** The same, cutting the given mode (-1: the outermost with two slices per thread, as pa__copy_parallel). */
int pa__copy_parallel_on(const pa__copy_shape *shape, char *dst, const char *src, int nthreads,
                         pa__copy_kernel kernel, int mode);

/** The most threads a copy may use now: min(cores, pa_copy_set_threads value). */
int pa__copy_threads_limit(void);
/** Slices per thread a parallel copy is cut into (copy_threads.c; bench/host_probe varies it). */
extern int pa__copy_slices;

/* ---- strategies (copy_strategies.c) ------------------------------------------------------------------ */

/** The host strategies, NULL-terminated (in the backend's description). */
extern const pa__strategy *const pa__host_strategies[];
/** The threads a host plan runs on now; whether it writes with streaming stores; why it takes its threads. */
int pa__host_threads(const pa__plan *p);
int pa__host_streams(const pa__plan *p);
int pa__host_threads_note(const pa__plan *p, char *buf, size_t len);
/**
 * The kernels of the host strategy of this name: kernel[0] with ordinary stores, kernel[1] with streaming
 * stores, kernel[2] with streaming stores for a copy on one thread (NULL where there is no such variant, or
 * where it is one of the other two).  \return 1 when the strategy is a host one, else 0.
 */
int pa__host_kernels_of(const char *strategy, pa__copy_kernel kernel[3]);
/** The kernel a host plan runs when it runs on this many threads (NULL for a plan of no host strategy). */
pa__copy_kernel pa__host_kernel_on(const pa__plan *p, int threads);

/** Measures the host copies' constants of the cost model on this machine into *m (cost_host.c). */
struct pa__cost_model;
int pa__host_calibrate(struct pa__cost_model *m, FILE *log);

/** The hooks for arrays distributed over pthd threads (copy_dist.c). */
extern const pa__dist_ops pa__pthd_dist_ops;

/* ---- host kernels (copy_*.c) -------------------------------------------------------------------------- */

/** The gather kernel: any shape, offsets from tables where the shape has them (copy_gather.c). */
int pa__kern_gather(const pa__copy_shape *s, char *dst, const char *src);
/** Copies n bytes with streaming stores (copy_runs.c); call pa__stream_fence() after the last one. */
void pa__stream_copy(char *d, const char *s, size_t n);
void pa__stream_fence(void);

int pa__kern_memcpy(const pa__copy_shape *s, char *dst, const char *src);
int pa__kern_memcpy_runs(const pa__copy_shape *s, char *dst, const char *src);
int pa__kern_loops(const pa__copy_shape *s, char *dst, const char *src);
int pa__kern_transpose(const pa__copy_shape *s, char *dst, const char *src);
/* Variants with streaming (non-temporal) stores, for destinations much larger than the caches. */
int pa__kern_memcpy_nt(const pa__copy_shape *s, char *dst, const char *src);
int pa__kern_memcpy_runs_nt(const pa__copy_shape *s, char *dst, const char *src);
int pa__kern_transpose_nt(const pa__copy_shape *s, char *dst, const char *src);
/* Reversals: the innermost mode has stride 1 on one side and -1 on the other (copy_reverse.c). */
int pa__kern_reverse(const pa__copy_shape *s, char *dst, const char *src);
int pa__kern_reverse_nt(const pa__copy_shape *s, char *dst, const char *src);
/* Rows with streaming stores for a copy on one thread (four interleaved prefetched streams per row). */
int pa__kern_memcpy_runs_nt1(const pa__copy_shape *s, char *dst, const char *src);
/** Streaming copy for a copy on one thread: 16 KiB blocks as four interleaved, prefetched 4 KiB streams. */
void pa__stream_copy_1t(char *d, const char *s, size_t n);
/*
 * A two-level nest moving units of `unit` bytes: for i < n1, j < n0: copy d + i*dd1 + j*dd0 <- s + i*sd1 + j*sd0
 * (byte strides), specialised for common unit sizes (copy_loops.c); the transpose's tiles use it too.
 */
typedef void (*pa__loop2_fn)(char *d, const char *s, int64_t n1, int64_t dd1, int64_t sd1, int64_t n0,
                             int64_t dd0, int64_t sd0, size_t unit);
pa__loop2_fn pa__loop2_for(size_t unit);
/** Finds the transpose's modes: a (contiguous on dst), b (contiguous on src) and the unit.  \return 1 if found. */
int pa__transpose_modes(const pa__copy_shape *s, int *a, int *b, int64_t *unit);
/** 0: no prefetch of the next tile's source rows, 1: for units up to 8 bytes (default), 2: always. */
extern int pa__transpose_prefetch;
/** The tile edge the transpose uses for units of this many bytes (the cost model's largest edge, halved until a
 *  tile fits the staging buffer). */
int pa__transpose_edge(int64_t unit_bytes);
/** The transpose kernel with a given largest tile edge (the benchmarks vary it) and stores (nt: 0 ordinary,
 *  1 streaming), without changing what other copies use. */
int pa__kern_transpose_tile(const pa__copy_shape *s, char *dst, const char *src, int tile, int nt);

/*
 * Whole-line streaming strips (copy_strips.c): fn moves rows [0, rows) x columns [0, ncol) of a strip, rows a
 * multiple of `rows` and ncol of `cols`; the destination's rows (dsb bytes apart) must start on 64-byte lines.
 * block: the strips are walked over column blocks of this many units at a time (0: all columns at once).
 * prefetch: bytes ahead in each source row that fn prefetches (0: none), hint 1 into L2, 0 into L1; past a
 * strip's end fn prefetches the next strip's rows (`rows` on), which the caller walks next in a column block.
 */
typedef struct pa__strip {
    void (*fn)(const struct pa__strip *k, char *d, const char *s, int64_t rows, int64_t ncol, int64_t ssa,
               int64_t dsb);
    int64_t rows, cols, block, prefetch;
    int hint;
} pa__strip;
/** The strip kernel for units of U bytes on this CPU (AVX-512 where it has it, chosen at run time).
 *  \return 1 and *out, or 0 where there is none (other unit sizes, no AVX2 for 4-byte units). */
int pa__strip_plan(int64_t U, pa__strip *out);
#if defined(__x86_64__) && defined(__SSE2__)
/** 16 x 16 4-byte units transposed through AVX-512 registers: 16 source rows of one 64-byte line each (ss bytes
 *  apart) become 16 destination lines (ds bytes apart), with streaming stores when stream (the destination's
 *  lines aligned), else ordinary ones.  Only where the CPU has AVX-512F (copy_strips.c; tile_vmem.c). */
void pa__t16x16_4(char *d, int64_t ds, const char *s, int64_t ss, int stream);
#endif
/** The 4-byte strips' rows (16, 32 or 64, default 32) and column block in units (0: none; default 1024); the
 *  lines prefetched ahead in each source row by the 4- and 16-byte strips (0: none), into L2 (hint 1) or L1;
 *  wide4: the 4-byte strips through AVX-512 16x16 transposes where the CPU has AVX-512 (default 1; prefetch
 *  default 0).  The benchmarks vary them. */
extern int pa__strip_rows4, pa__strip_block4, pa__strip_prefetch4, pa__strip_prefetch16, pa__strip_hint,
    pa__strip_wide4;

/*
 * An odometer over a subset of a shape's modes (the outer loops of every kernel), with offsets kept in bytes.
 * Gathered modes step by table differences, affine ones by their stride.
 */
typedef struct pa__odo {
    int n;
    int64_t idx[PA__MAX_MODES], size[PA__MAX_MODES];
    int64_t dstep[PA__MAX_MODES], sstep[PA__MAX_MODES];
    const int64_t *dtab[PA__MAX_MODES], *stab[PA__MAX_MODES];
    int64_t doff, soff;
    int64_t elm;
} pa__odo;

/** Starts an odometer over the modes listed in which[0..n) (outermost first), at the shape's bases. */
void pa__odo_init(pa__odo *o, const pa__copy_shape *s, const int *which, int n);
/** Advances to the next position.  \return 0 after the last one. */
static inline int pa__odo_next(pa__odo *o)
{
    for (int m = o->n - 1; m >= 0; m--) {
        int64_t i = o->idx[m];
        if (i + 1 < o->size[m]) {
            o->idx[m] = i + 1;
            if (o->dtab[m]) o->doff += (o->dtab[m][i + 1] - o->dtab[m][i]) * o->elm;
            else o->doff += o->dstep[m];
            if (o->stab[m]) o->soff += (o->stab[m][i + 1] - o->stab[m][i]) * o->elm;
            else o->soff += o->sstep[m];
            return 1;
        }
        o->idx[m] = 0;
        if (o->dtab[m]) o->doff -= (o->dtab[m][i] - o->dtab[m][0]) * o->elm;
        else o->doff -= o->dstep[m] * i;
        if (o->stab[m]) o->soff -= (o->stab[m][i] - o->stab[m][0]) * o->elm;
        else o->soff -= o->sstep[m] * i;
    }
    return 0;
}

#endif
