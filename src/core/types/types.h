/*
 * parray — the type language's layer of the core (src/core/types/) as the layers above it see it: type handles,
 * mtt names, the type model's accessors, numeric element types.  The declarations, instances and scopes behind
 * them are in type_internal.h.  Above base.h and the backend list (backends.h); docs/architecture.md.
 */
#ifndef PARRAY_TYPES_H
#define PARRAY_TYPES_H

#include "backends.h"
#include "base.h"

/* ---- type handles (src/core/types/type_nodes.c) ------------------------------------------------------------------ */

/**
 * PA_OK for a live type handle; PA_ERR_INVAL with a message naming fn for NULL, or for a stale handle (a type
 * whose scope was destroyed: its memory stays the library's, so the check reads no freed memory).
 */
int pa__type_usable(const pa_type *t, const char *fn);

/* ---- mtt names (src/core/types/mtt.c; allocators in the backends) -------------------------------------- */

typedef enum pa__mtt_kind { PA__MTT_NONE, PA__MTT_MEMORY, PA__MTT_THREAD } pa__mtt_kind;

/**
 * Why a memory type name has no allocator in this build, as a sentence fragment for error messages
 * ("it needs the CUDA backend, which this build does not have"); NULL for names that have one.
 */
const char *pa__mem_missing(const char *name);
/** The allocator for a memory type name (from the backend list), or NULL. */
const pa__mem_ops *pa__mem_find(const char *name);
/** Kind of an mtt name (memory, thread, or not an mtt). */
pa__mtt_kind pa__mtt_kind_of(const char *name);
/* ---- the type model (src/core/type_*.c) ----------------------------------------------------------------- */

/* Opaque here; the copy planner and backends use only the query functions and pa__type_layout. */

/** PA_OK for a bound type; PA_ERR_PARAM, with a message naming what asked, for the unbound handle of a type
 *  with parameters (pa_type_get of its bare name), PA_ERR_INVAL for NULL (src/core/types/instance.c). */
int pa__bound(const pa_type *t, const char *what);
/** Name of the mtt of a type ("any" when unspecified); the node's own mtt for a distributed type's dimension. */
const char *pa__type_mtt(const pa_type *t);
/**
 * A number that no other type or dimension made in this process has, not even one made later at the address
 * of a freed one (src/core/types/instance.c).  With its address it names a type across calls: types never change
 * once made, so whatever was worked out for a type still holds while both match.
 */
uint64_t pa__type_serial(const pa_type *t);

/* A (destination, source) pair of types as the per-thread memos of recent copies remember it (copy.c, and the
 * MPI backend's plans): by address and by serial. */
typedef struct pa__pair {
    const pa_type *dt, *st;
    uint64_t dser, sser;
} pa__pair;

static inline void pa__pair_set(pa__pair *p, const pa_type *dt, const pa_type *st)
{
    *p = (pa__pair){.dt = dt, .st = st, .dser = pa__type_serial(dt), .sser = pa__type_serial(st)};
}

/** 1 when the types at p's addresses are still the ones p was set for (src/core/types/instance.c). */
int pa__pair_current(const pa__pair *p);

/** 1 when p names these two (live) types; never for an empty (zeroed) pair, since dt and st are not NULL. */
static inline int pa__pair_is(const pa__pair *p, const pa_type *dt, const pa_type *st)
{
    return p->dt == dt && p->st == st && pa__pair_current(p);
}

/* numeric(p, s) element types (elm_decimal.c): 1 and the precision and scale when name is one (1 <= p <= 38,
 * 0 <= s <= p), else 0. */
int pa__elm_numeric(const char *name, int *precision, int *scale);
/* PA_OK unless name is a malformed numeric ("numeric" alone, "numeric(40,2)"): then PA_ERR_ELM saying why. */
int pa__elm_numeric_check(const char *name, const char *src, int col);
/* PA_OK unless both element types are numeric and a byte copy would change the values (scales differ) or
 * may not fit (a smaller precision): then PA_ERR_ELM naming both types. */
int pa__elm_copy_check(const char *dst_name, const char *dst_elm, const char *src_name, const char *src_elm);

#endif
