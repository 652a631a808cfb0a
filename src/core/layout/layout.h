/*
 * parray — the layout layer of the core (src/core/layout/): compiled layouts, the reference walk, pieces.  Above
 * the type language (types.h), below memory, plans and distributed types (docs/architecture.md).
 */
#ifndef PARRAY_LAYOUT_H
#define PARRAY_LAYOUT_H

#include "lru.h"
#include "types.h"

/* ---- compiled layouts (src/core/layout*.c) ------------------------------------------------------------- */

/*
 * A compiled layout: offset(k) = base + sum over modes m of contribution_m(digit_m(k)), where the digits are
 * k's row-major decomposition over the mode sizes (modes[0] outermost, modes[nmodes-1] innermost).  An
 * affine mode contributes digit*stride; a gathered mode (table != NULL) contributes table[digit].
 */
#define PA__MAX_MODES 32

typedef struct pa__mode {
    int64_t size;
    int64_t stride;         /* affine modes */
    const int64_t *table;   /* gathered modes: size entries, owned by the layout's type */
} pa__mode;

typedef struct pa__layout {
    int64_t size;           /* product of the mode sizes: the type's size */
    int64_t base;
    int64_t min_off, max_off;
    int nmodes;
    int affine;             /* 1 when no mode is gathered */
    pa__mode modes[PA__MAX_MODES];
} pa__layout;

/**
 * The compiled, coalesced layout of a type (made once, cached on the type) in *out.  \return PA_OK, or the
 * status of the failure with the message set and *out NULL: PA_ERR_PARAM (an unbound type), PA_ERR_UNSUPPORTED
 * (too irregular and too large: the copy walks or goes by pieces), PA_ERR_RANGE (offsets overflow),
 * PA_ERR_NOMEM.
 */
int pa__layout_get(const pa_type *t, const pa__layout **out);
/** pa__layout_get for callers that need only the layout: NULL on failure (the status is pa__layout_get's). */
const pa__layout *pa__type_layout(const pa_type *t);
/** Offset of flat index k through a compiled layout (0 <= k < size). */
int64_t pa__layout_offset(const pa__layout *l, int64_t k);
/** Merges adjacent affine modes where outer.stride == inner.stride * inner.size and drops size-1 modes. */
void pa__layout_coalesce(pa__layout *l);
/** Writes the canonical "(s0,s1):(d0,d1)+base" form.  \return as snprintf. */
int pa__layout_format(const pa__layout *l, char *buf, size_t len);
/* The keys of the LRU caches of plans (base/lru.h) that file by layouts (layout.c). */
/** Hashes a layout as a cache key: sizes, base, bounds, strides, and gathered modes by their tables' address. */
uint64_t pa__layout_key_hash(uint64_t h, const pa__layout *l);
/** 1 when two layouts are the same key (the fields pa__layout_key_hash reads: the modes in use only). */
int pa__layout_key_same(const pa__layout *a, const pa__layout *b);

/** The reference semantics: the offset of flat index i by walking the dimension tree (the test oracle). */
int64_t pa__offset_walk(const pa_type *t, int64_t i);

/*
 * A piecewise-affine layout (layout_pieces.c): the type's flat index is row-major over its digits (its leaves,
 * sizes dsize), and the digits' index space is cut into boxes, on each of which the type is affine.  A wrap
 * (the cyclic shift [n # disp(3) # [n]]) is two boxes; a wrap on each of two axes, four.  Made for types whose
 * one-layout compilation needs tables or is refused, so that copies run on strides whatever the size.
 */
#define PA__MAX_PIECES 64
#define PA__MAX_DIGITS 64

typedef struct pa__piece {
    const int64_t *lo, *len;  /* the box: digit d runs over lo[d] .. lo[d] + len[d] - 1 */
    pa__layout l;             /* offsets over the box's own flat index (row-major over len), affine */
} pa__piece;

typedef struct pa__pieces {
    int nd, n;
    int64_t dsize[PA__MAX_DIGITS];
    int64_t min_off, max_off;
    pa__piece *p;
    int64_t *boxes;           /* the lo and len arrays of every piece */
} pa__pieces;

/** The pieces of a type whose single layout has tables or was refused, made once and kept with the type; NULL
 *  (no error set) when the type's layout is affine or the type is not piecewise affine. */
const pa__pieces *pa__type_pieces(const pa_type *t);
void pa__pieces_free(pa__pieces *p);
/** Writes "{(sizes):(strides)+base over [lo..hi), ...}".  \return as snprintf. */
int pa__pieces_format(const pa__pieces *p, char *buf, size_t len);
/**
 * Restricts layout l, whose flat index is row-major over nd digits of sizes dsize, to the box lo + [0, len):
 * out's flat index is row-major over len.  Each digit of the box that is not whole must be one mode of l (after
 * its modes are cut at the digits' boundaries).  \return PA_OK, or PA_ERR_UNSUPPORTED when l does not split so.
 */
int pa__layout_restrict(const pa__layout *l, int nd, const int64_t *dsize, const int64_t *lo, const int64_t *len,
                        pa__layout *out);

/* ---- evaluation (walk.c, layout_compile.c) ------------------------------------------------------------- */

int64_t pa__node_offset(const pa_type *t, int64_t i);
/** As pa__node_offset, but references go through their targets' compiled layouts (for the compiler). */
int64_t pa__node_offset_fast(const pa_type *t, int64_t i);
/**
 * The compiler's limits: the most offsets one gather table may hold (pa__table_cap) and the most dimension visits
 * one compilation may make, nested tables and pieces included (pa__walk_cap); both 2^22 by default.  Past them a
 * type is refused (PA_ERR_UNSUPPORTED), not compiled.  pa__layout_set_limits changes both for the process (values
 * below 1 restore the defaults); the fuzz targets lower them so that large irregular types reach the refusals in
 * microseconds rather than fill tables of millions of entries.  Call it before types are compiled: the limits are
 * read without synchronisation.
 */
extern int64_t pa__table_cap, pa__walk_cap;
void pa__layout_set_limits(int64_t table_cap, int64_t walk_cap);
/** Limits the fast walk on this thread to a number of dimension visits (nested limits share the outer one);
 *  returns the previous limit for pa__walk_budget_end. */
int64_t pa__walk_budget_begin(int64_t visits);
/** 1 when the fast walk's budget on this thread has run out (the values it gives since are meaningless). */
int pa__walk_budget_spent(void);
/** Restores the previous limit.  \return PA_ERR_UNSUPPORTED if the budget ran out meanwhile, else PA_OK. */
int pa__walk_budget_end(int64_t saved);
int pa__layout_compile(const pa_type *t, pa__layout **out);
/**
 * Compiles t restricted to a box of its digits (lo + [0, len) each) without tables.  \return PA_OK with l
 * filled (affine), PA_OK with *nsplit > 0 when a reference wraps digit *split_digit at split_at[] (relative to
 * lo) so that the box must be cut there first, or PA_ERR_UNSUPPORTED (not piecewise affine).
 */
int pa__layout_compile_box(const pa_type *t, const int64_t *lo, const int64_t *len, pa__layout *l, int *split_digit,
                           int64_t *split_at, int *nsplit);
/** The sizes of t's digits (its leaves and pure references, row-major).  \return their number, or -1. */
int pa__layout_digits(const pa_type *t, int64_t *dsize);

#endif
