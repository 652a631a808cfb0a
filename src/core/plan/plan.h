/*
 * parray — the plan layer of the core (src/core/plan/): the copy planner's internal interface.  The host copy services other backends use are in
 * backends.h (pa__host), the host backend's own declarations in src/backends/host/copy/copy_host.h.
 *
 * The planner takes two compiled layouts, coalesces them jointly into one pa__copy_shape (below), asks
 * every strategy table for a cost and keeps the cheapest strategy in a pa__plan.  Plans are reference counted
 * and cached by the contents of the two layouts (bases excluded: a plan is made relative to offset 0 and the
 * bases are added when it runs, so parameterised windows that differ only by their displacement share a plan).
 * A plan owns copies of every table it uses, so it never points into a type that may be freed.
 */
#ifndef PARRAY_PLAN_H
#define PARRAY_PLAN_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#include "cost_model.h"
#include "layout.h"

/* ---- copy strategies (src/core/plan*.c; kernels in the backends) -------------------------------------- */

/* The jointly coalesced shape of a copy: the same loop nest over both sides. */
typedef struct pa__copy_shape {
    int nmodes;                      /* modes[0] outermost */
    int64_t size[PA__MAX_MODES];
    int64_t dst_stride[PA__MAX_MODES];
    int64_t src_stride[PA__MAX_MODES];
    const int64_t *dst_table[PA__MAX_MODES];   /* gathered modes, else NULL */
    const int64_t *src_table[PA__MAX_MODES];
    int64_t dst_base, src_base;
    size_t elm;                      /* bytes per element */
    int64_t total;                   /* elements */
    const pa__mem_ops *dst_mem, *src_mem;
} pa__copy_shape;

struct pa__plan;

/*
 * A copy strategy: a name, a probe that says whether it applies to a shape and at what estimated cost (in
 * nanoseconds), and its operations.  Backends list theirs in a table; the planner picks the cheapest.
 */
struct pa__strategy {
    const char *name;
    int (*probe)(const pa__copy_shape *shape, double *cost, char *why, size_t whylen);
    int (*exec)(const struct pa__plan *plan, void *dst, const void *src);
    /* Queues the copy on a stream and returns (NULL: the strategy runs synchronously, after the stream). */
    int (*exec_async)(const struct pa__plan *plan, void *dst, const void *src, void *stream);
    /* Optional, for the explanation: the host threads a plan runs on now (NULL: 1), whether it writes with
     * streaming stores (NULL: no), and why it takes its threads (NULL: nothing to say). */
    int (*threads)(const struct pa__plan *plan);
    int (*streams)(const struct pa__plan *plan);
    int (*threads_note)(const struct pa__plan *plan, char *buf, size_t len);
    /* Optional: the predicted time of a plan as it runs now, ns (NULL: the probe's cost). */
    double (*predict)(const struct pa__plan *plan);
};


typedef struct pa__plan {
    pa__copy_shape shape;             /* relative to both layouts' bases (0); tables owned below */
    const pa__strategy *strategy;
    double cost_ns;                   /* the chosen strategy's estimate for one thread */
    int max_threads;                  /* most threads worth using for this many bytes */
    char why[512];                    /* the strategy's whole reason, for the explanation */
    /* The cache key: both layouts with their tables copied (base set to 0), element size and memory ops. */
    pa__layout key_dst, key_src;
    uint64_t hash;
    int64_t **owned;                  /* tables this plan allocated (key copies and expanded groups) */
    int nowned;
    atomic_int refs;
} pa__plan;

/* A kernel runs a (sub-)shape whose bases are absolute element offsets from dst and src. */
typedef int (*pa__copy_kernel)(const pa__copy_shape *shape, char *dst, const char *src);

/* The host copy services (the pthread backend's), for other backends' copies that pack and unpack host images
 * (the CUDA backend's staged copies and pipelines). */
struct pa__host_kernels {
    /* Threads worth using for a copy of this many bytes now: min(limit, bytes / chunk), at least 1. */
    int (*threads_for)(int64_t bytes, int64_t chunk);
    /* Runs kernel over shape on up to nthreads threads, splitting one mode into contiguous slices. */
    int (*parallel)(const pa__copy_shape *shape, char *dst, const char *src, int nthreads, pa__copy_kernel k);
    /* The gather kernel: any shape, offsets from tables where the shape has them. */
    pa__copy_kernel gather;
    /* n bytes with streaming stores; fence after the last one. */
    void (*stream_copy)(char *d, const char *s, size_t n);
    void (*stream_fence)(void);
};

/* ---- planner (src/core/plan/plan.c) ------------------------------------------------------------------------- */

/**
 * Makes a new plan for dst[dst(k)] = src[src(k)], k in [0, size).  NULL memory ops mean host memory.
 * \return PA_OK, PA_ERR_SIZE, PA_ERR_ELM, PA_ERR_MTT (no strategy applies) or PA_ERR_NOMEM.
 */
int pa__plan_make(const pa__layout *dst, const pa__layout *src, size_t elm, const pa__mem_ops *dst_mem,
                  const pa__mem_ops *src_mem, pa__plan **out);
/**
 * Runs a plan on a stream: queued when the strategy can be (exec_async), else synchronously after waiting for
 * the stream.
 */
int pa__plan_exec_async(const pa__plan *p, void *dst, int64_t dst_base, const void *src, int64_t src_base,
                        void *stream);
/** Runs a plan: the layouts' bases are passed here because the plan is relative to them. */
int pa__plan_exec(const pa__plan *p, void *dst, int64_t dst_base, const void *src, int64_t src_base);
/** Writes the one-line explanation.  \return as snprintf. */
int pa__plan_explain(const pa__plan *p, char *buf, size_t len);
/** The explanation's values (pa_copy_query): strategy, threads, queued, streaming stores, prediction. */
void pa__plan_info(const pa__plan *p, pa_copy_info *info);
/** Takes one more reference. */
void pa__plan_ref(pa__plan *p);
/** Drops a reference; the last one frees the plan.  NULL is ignored. */
void pa__plan_unref(pa__plan *p);
/** 1 when the plan was made for exactly these inputs (bases aside). */
int pa__plan_matches(const pa__plan *p, const pa__layout *dst, const pa__layout *src, size_t elm,
                     const pa__mem_ops *dst_mem, const pa__mem_ops *src_mem);
/** The hash of the inputs (bases aside) that the cache files plans under. */
uint64_t pa__plan_hash(const pa__layout *dst, const pa__layout *src, size_t elm, const pa__mem_ops *dst_mem,
                       const pa__mem_ops *src_mem);

/* ---- plan cache (src/core/plan/plan_cache.c) --------------------------------------------------------------- */

/**
 * Finds or makes the plan for these inputs; the caller owns one reference (pa__plan_unref).  When made,
 * PA_PLAN_INFO=1 prints its explanation to stderr.  \return as pa__plan_make.
 */
int pa__plan_get(const pa__layout *dst, const pa__layout *src, size_t elm, const pa__mem_ops *dst_mem,
                 const pa__mem_ops *src_mem, pa__plan **out);
/** A copy strategy of a switched-on backend by name, or NULL (for tests: the planner's choice by name). */
const pa__strategy *pa__strategy_named(const char *name);
/** Drops every cached plan (tests; also run at exit). */
void pa__plan_cache_clear(void);
/** Number of plans made (cache misses) since start, for tests. */
long pa__plan_cache_misses(void);

/** Byte offset of element offset off (elements may be up to 4096 bytes; offsets fit in int64 by contract). */
static inline int64_t pa__bytes(int64_t off, size_t elm)
{
    return off * (int64_t)elm;
}

#endif
