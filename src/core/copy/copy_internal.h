/*
 * parray — the copy layer of the core (src/core/copy/): what pa_copy (copy.c) shares with its helpers: the walk
 * of last resort, piecewise copies, the checks of a copy's pointers.  The top of the core with dlpack/; above
 * plans (plan.h) and distributed types (dist.h); docs/architecture.md.
 */
#ifndef PARRAY_COPY_INTERNAL_H
#define PARRAY_COPY_INTERNAL_H

#include "dist.h"
#include "mem_internal.h"
#include "plan.h"

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

/* ---- a copy's pointers (copy_check.c, copy_overlap.c) ------------------------------------------------ */

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

#endif
