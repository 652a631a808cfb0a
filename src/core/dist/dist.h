/*
 * parray — the distributed-types layer of the core (src/core/dist/): the split of a type that mixes thread-type
 * dimensions with memory dimensions into process and local layouts, and darray's packing.  Above layouts
 * (layout.h) and the backend list (pa__dist_ops, backends.h); below the copy layer; docs/architecture.md.
 */
#ifndef PARRAY_DIST_H
#define PARRAY_DIST_H

#include "layout.h"

/* ---- distributed types (dist.c; copies in the backend of the thread type) ------------ -------------------- */

/*
 * A distributed type (DESIGN §4, manual §5.5) mixes thread-type dimensions (mpi [n]) with memory dimensions.
 * The core splits it into two layouts over the same flat index: the process (thread) offset of every element
 * and its local (memory) offset.  Both have the type's size; a dimension of the other kind contributes a mode
 * of stride 0.
 */
typedef struct pa__dist_pack pa__dist_pack;
typedef struct pa__dist_split {
    pa__layout pid;          /* the thread-type part: the rank in the process array */
    pa__layout local;        /* the memory part: the element offset in that process's array, as the local type
                                places it (read offsets through pa__dist_local, which packs where `pack` is set) */
    pa__dist_pack *pack;     /* several axes, an inner one uneven: local arrays packed as darray's (dist_pack.c);
                                then local.affine is 0.  Owned here */
    const char *thread_mtt;  /* "mpi", "pthd", ...; "" for a local type (every element on pid 0) */
    const char *memory_mtt;  /* the memory type of the local part ("any" when unspecified) */
    int64_t *owned[2 * PA__MAX_MODES];   /* gather tables of windowed parts (uneven distributions), owned here */
    int nowned;
} pa__dist_split;

/** Frees the tables a split owns (its windowed parts' and its packing); the struct itself is the caller's. */
void pa__dist_split_release(pa__dist_split *s);
/** The local offset of flat index k: packed where the split packs (darray's local arrays), else its local
 *  layout's. */
int64_t pa__dist_local(const pa__dist_split *s, int64_t k);
/**
 * The packing of a distributed dimension over several axes (dist_pack.c): made (*out non-NULL) only
 * when an axis other than the outermost of the local array is dealt unevenly; then each process's local array
 * is exactly its own extents, row-major in the local type's order of the axes, as MPI_Type_create_darray packs
 * it.  \return PA_OK (*out NULL when nothing is to be packed) or an error of the axes' splits or PA_ERR_NOMEM.
 */
int pa__dist_pack_make(const pa_type *n, pa__dist_pack **out);
void pa__dist_pack_free(pa__dist_pack *p);
/** 1 when a dimension may need packing: distributed, not a window, several axes, one of them holds a window. */
int pa__dist_pack_candidate(const pa_type *n);

/** 1 when the type (or dimension) has thread-type dimensions mixed with memory dimensions. */
int pa__type_distributed(const pa_type *t);
/**
 * Splits a distributed type, or a local type (pid 0 for every element), into its two layouts.  The structs
 * are zeroed first, so equal inputs give byte-equal outputs.  Gathered modes point into the types' tables.
 * A distributed dimension may be a window of another one, [n # disp(d) # step(k) # DIST] (a size, then
 * displacements and steps, then a reference to a distributed type): index i is DIST's index c(i) mod
 * size(DIST), c the chain applied in order (disp adds, step multiplies), so [n # DIST] with n < size(DIST) is an uneven distribution (block or cyclic(k) as MPI's darray
 * deals them, processes owning fewer elements or none).  A window's modes are gather tables the split owns
 * unless they are affine; release them with pa__dist_split_release.
 * \return PA_OK, PA_ERR_UNSUPPORTED (a displacement or func on a distributed dimension, two thread types,
 *         too many modes) or a layout compilation error; the message names the type.
 */
int pa__dist_split_of(const pa_type *t, pa__dist_split *out);
/** The split of a type in *out, made once and kept with the type (freed with it).  \return PA_OK, or the
 *  failure's status (pa__dist_split_of's, PA_ERR_PARAM, PA_ERR_NOMEM) with the message set and *out NULL. */
int pa__dist_split_get(const pa_type *t, const pa__dist_split **out);
/** pa__dist_split_get for callers that need only the split: NULL on failure. */
const pa__dist_split *pa__type_dist_split(const pa_type *t);

/**
 * Finds affine modes for a list of n offsets (in list order), innermost first by the longest arithmetic runs,
 * checked against every entry.  \return 1 with out filled (coalesced) when the list is affine, else 0.
 */
int pa__offsets_affine(const int64_t *t, int64_t n, pa__layout *out);

/**
 * The run of a copy from s to d: the largest r dividing the copy's size such that over every aligned block of r
 * flat indices both process layouts are constant and each local layout is one affine sub-layout from the block's
 * first offset (its innermost affine modes, the outermost possibly split); 1 where a side is packed.  Each
 * side's sub-layout (base 0, size r) in *dsub and *ssub.  Distributed planners walk by runs: O(size / r).
 */
int64_t pa__dist_run(const pa__dist_split *d, const pa__dist_split *s, pa__layout *dsub, pa__layout *ssub);

/** The hooks for a copy with at least one distributed side in *out.  \return PA_OK, or the status with the
 *  message set and *out NULL: no backend for the pair (PA_ERR_UNSUPPORTED, PA_ERR_NODEV) or a split's error. */
int pa__dist_ops_for(const pa_type *dt, const pa_type *st, const pa__dist_ops **out);

#endif
