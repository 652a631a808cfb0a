/*
 * parray — the copy planner's internal interface (core).  The host copy services other backends use are in
 * backends.h (pa__host), the pthread backend's own declarations in src/backends/pthread/copy_host.h.
 *
 * The planner takes two compiled layouts, coalesces them jointly into one pa__copy_shape (internal.h), asks
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

#include "internal.h"

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

/* ---- planner (src/core/plan.c) ------------------------------------------------------------------------- */

/**
 * Makes a new plan for dst[dst(k)] = src[src(k)], k in [0, size).  NULL memory ops mean host memory.
 * \return PA_OK, PA_ERR_SIZE, PA_ERR_ELM, PA_ERR_MTT (no strategy applies) or PA_ERR_NOMEM.
 */
int pa__plan_make(const pa__layout *dst, const pa__layout *src, size_t elm, const pa__mem_ops *dst_mem,
                  const pa__mem_ops *src_mem, pa__plan **out);
/**
 * The copy of last resort (copy_walk.c), for types whose layout the compiler refuses: every offset through the
 * reference walk, memory the CPU cannot reach staged through host images, the source read whole first when the
 * two sides overlap in memory.  \return PA_OK or an error.
 */
int pa__copy_walk(const pa_type *dt, void *dst, const pa_type *st, const void *src);

/* A copy with a piecewise-affine side (copy_pieces.c): one plan per piece, with the pieces' bases. */
typedef struct pa__piece_plan {
    int n;
    struct { pa__plan *plan; int64_t dbase, sbase, size; } *e;
} pa__piece_plan;
/** Plans a copy piece by piece when either side has pieces.  \return PA_OK with pp filled, PA_ERR_UNSUPPORTED
 *  (no error set) when this path does not apply, or another error. */
int pa__piece_plan_make(const pa_type *dt, const pa_type *st, size_t elm, const pa__mem_ops *dm,
                        const pa__mem_ops *sm, pa__piece_plan *pp);
int pa__piece_plan_exec(const pa__piece_plan *pp, void *dst, const void *src, void *stream, int async);
int pa__piece_plan_explain(const pa__piece_plan *pp, char *buf, size_t len);
void pa__piece_plan_free(pa__piece_plan *pp);
/** Its one-line explanation, as pa__plan_explain. */
int pa__copy_walk_explain(const pa_type *dt, const pa_type *st, char *buf, size_t len);

/* ---- a copy's pointers (copy_check.c, copy_overlap.c) ---- */

/**
 * Each pointer's memory (the allocation table; for a pointer it does not hold, the type's backend when the CPU
 * cannot reach that memory) against its type's memory type; for a pointer inside an array pa_create made, the
 * type's extent from it (the compiled layout's, dl and sl, when the caller has them; NULL: pa_extent) against
 * the array's bytes.  \return PA_OK, PA_ERR_MTT naming both, or PA_ERR_RANGE (the extent leaves the array).
 */
int pa__copy_check_memory(const pa_type *dt, const void *dst, const pa__mem_ops *dm, const pa_type *st,
                          const void *src, const pa__mem_ops *sm, const pa__layout *dl, const pa__layout *sl);
enum { PA__NO_OVERLAP, PA__OVERLAP, PA__OVERLAP_SAME };
/** Whether the two sides' byte ranges overlap: PA__NO_OVERLAP, PA__OVERLAP, or PA__OVERLAP_SAME (the same
 *  elements at the same addresses in the same order: a copy that changes nothing).  Only between host memory
 *  on both sides or one memory type with a plain allocator (dmem); NO_OVERLAP for the others (gamem). */
int pa__copy_overlap(const pa__layout *dl, const void *dst, const pa__mem_ops *dm, const pa__layout *sl,
                     const void *src, const pa__mem_ops *sm, size_t e);
/** A copy between overlapping sides, through a contiguous temporary of the source's memory type. */
int pa__copy_through_temp(const pa_type *dt, const pa__layout *dl, void *dst, const pa__mem_ops *dm,
                          const pa_type *st, const pa__layout *sl, const void *src, const pa__mem_ops *sm, size_t e);

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

/* ---- plan cache (src/core/plan_cache.c) --------------------------------------------------------------- */

/**
 * Finds or makes the plan for these inputs; the caller owns one reference (pa__plan_unref).  When made,
 * PA_PLAN_INFO=1 prints its explanation to stderr.  \return as pa__plan_make.
 */
int pa__plan_get(const pa__layout *dst, const pa__layout *src, size_t elm, const pa__mem_ops *dst_mem,
                 const pa__mem_ops *src_mem, pa__plan **out);
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
