/*
 * parray — the Global Arrays backend's internal declarations (the gamem memory type and its copies).  Included
 * only by the files of src/backends/ga, which are built into the static library parray_gamem.
 *
 * A gamem "pointer" is the start of a reserved, inaccessible (PROT_NONE) range of the array's size in bytes:
 * the copy planner's pointer arithmetic (base offsets, windows) then stays inside it, and the distance from
 * the start is the element offset in the Global Array, a one-dimensional array of that many elements.  A
 * stray load or store through it faults at once instead of touching someone else's memory.
 */
#ifndef PARRAY_GA_BACKEND_H
#define PARRAY_GA_BACKEND_H

#include <stddef.h>
#include <stdint.h>

#include "plan.h"

/** One live gamem array. */
typedef struct pa_ga__array {
    char *addr;                  /* the reserved range: the pointer pa_create returned */
    size_t bytes, elm;
    int64_t n;                   /* elements in the Global Array (bytes / elm) */
    int handle;                  /* the Global Arrays handle */
    struct pa_ga__array *next;
} pa_ga__array;

/** The gamem allocator (mem_gamem.c). */
extern const pa__mem_ops pa_ga__mem_ops;
/** The gamem copy strategies (copy_gamem.c), NULL-terminated. */
extern const pa__strategy *const pa_ga__strategies[];

/** Finds the live array whose reserved range holds p; *out gets a copy.  \return 1 if found, else 0. */
int pa_ga__find(const void *p, pa_ga__array *out);

#endif
