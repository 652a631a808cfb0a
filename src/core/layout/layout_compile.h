/*
 * parray — the state of one layout compilation, shared by the symbolic composition (layout_compile.c) and the
 * assembly of its result into modes, tables and extents (layout_assemble.c).  Private to src/core/layout/.
 */
#ifndef PARRAY_LAYOUT_COMPILE_H
#define PARRAY_LAYOUT_COMPILE_H

#include <stddef.h>
#include <stdint.h>

#include "layout.h"
#include "type_internal.h"

#define MAXD 64            /* digits under one dimension */
#define MAXP 256           /* parts in one value */
#define MAXG 32            /* groups */
#define TABLE_CAP pa__table_cap   /* offsets in one table (2^22, 32 MiB, by default): more is refused, not compiled */
#define WALK_CAP pa__walk_cap     /* dimension visits for one compilation, nested ones included (2^22: ~30 ms) */

typedef struct part { int digit; int64_t order, size, coeff; } part;
typedef struct group { int ndig; int dig[MAXD]; int64_t n; int64_t *table; int live; } group;
typedef struct symval { int64_t cst; int np, ng, touched; part p[MAXP]; int g[MAXG]; } symval;

typedef struct comp {
    int nd;
    int64_t dsize[MAXD];
    const pa_type *dnode[MAXD];
    int kind[MAXD];                  /* 0 none, 1 parts, 2 alias, 3 group */
    const pa__layout *alias[MAXD];
    int group_of[MAXD];
    part fp[MAXP];                   /* final parts */
    int nfp;
    group gr[MAXG];
    int ngr;
    int64_t base;
    /* Piecewise compilation (pa__pieces_compile): the digits restricted to a box, lo[d] + [0, dsize[d]);
     * tables are refused, and a reference that wraps one whole digit asks for a split of the box there. */
    int pieces;
    int64_t rlo[MAXD];
    int split_digit, nsplit;
    int64_t split_at[8];
} comp;

enum { FAIL_IRREGULAR = 1,           /* not compilable symbolically: fall back to one table */
       SPLIT = 2 };                  /* piecewise mode: split the box at split_at[] of split_digit and retry */

/* ---- the symbolic composition (layout_compile.c) ---------------------------------------------------------- */

/** Numbers the digits (leaves and pure references) under n, row-major, in c.  \return 0, or FAIL_IRREGULAR. */
int pa__compile_digits(comp *c, const pa_type *n);
/** Orders final parts by digit, then from the outermost part of a digit inward (qsort). */
int pa__compile_part_cmp(const void *a, const void *b);
/** The symbolic compilation of t, whose digits are numbered: every digit's final form in c.  \return 0,
 *  FAIL_IRREGULAR, SPLIT (piecewise mode) or an error status with the message set. */
int pa__compile_sym(comp *c, pa_type *t, symval *v);

#endif
