/*
 * parray tests — a random pool of types of one size and element size, for copy tests: a random dimension tree
 * T (up to 4 levels), a plain array, three types referring to T's sub-trees in a random order and grouping
 * (permutations, transpositions in units), a window into a padded array and a permutation of that window, a
 * cyclic displacement and a reversing func().  Shared by the host and GPU random-copy suites.
 */
#ifndef PARRAY_TYPE_POOL_H
#define PARRAY_TYPE_POOL_H

#include "testutil.h"

#define PA_POOL_MAX 12

typedef struct pa_type_pool {
    pa_scope *scope;            /* made by pa_type_pool_make; the caller destroys it */
    const pa_type *t[PA_POOL_MAX];
    int n;
    int64_t size;               /* every type of the pool has this size */
    int64_t rev_n;              /* the context of the pool's "rev" offset function */
} pa_type_pool;

/*
 * Declares a pool in a fresh scope, every type of memory type mtt and element type bytes<elm>, drawing from
 * rng; budget bounds the product of T's leaf sizes.  The same rng state gives the same types.
 */
void pa_type_pool_make(pa_type_pool *p, pa_rng *rng, const char *mtt, int elm, int64_t budget);

#endif
