/*
 * parray — the memory layer of the core (src/core/mem/): the allocation table and pointers' memory types, and
 * the host and CUDA allocators' declarations (defined in their backends).  Above layouts (layout.h); the mtt
 * names are the type layer's (types.h).  Included by src/core/mem/, the layers above and the allocators; never
 * by a public header.
 */
#ifndef PARRAY_MEM_INTERNAL_H
#define PARRAY_MEM_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include "layout.h"

/* ---- host allocators (src/backends/host/mem/mem_*.c), listed in the host backend's description ---- */

/*
 * The core always passes the allocators a filled-in pa_mem_opts (the defaults when the caller gave NULL), and
 * bytes > 0; allocators set the error message themselves on failure.
 */

extern const pa__mem_ops pa__mem_paged_ops;
extern const pa__mem_ops pa__mem_mmap_ops;
extern const pa__mem_ops pa__mem_numa_ops;
/** vmem: vector-aligned buffers within the SIMD register file (src/backends/host/mem/mem_vmem.c). */
extern const pa__mem_ops pa__mem_vmem_ops;
/** The most bytes a vmem array may hold: the register file of the SIMD set chosen at run time. */
size_t pa__vmem_limit(void);
/* The CUDA backend's allocators (src/backends/cuda/mem_cuda.c), listed in its description. */
extern const pa__mem_ops pa__mem_pinned_ops;
extern const pa__mem_ops pa__mem_dmem_ops;

/** The default alignment of paged and numa arrays, in bytes (a cache line). */
#define PA__MEM_DEFAULT_ALIGNMENT 64

/**
 * Checks an alignment request: a power of two, at least sizeof(void *) (posix_memalign's own rule).
 * \return PA_OK, or PA_ERR_INVAL with a message naming the memory type and the value.
 */
int pa__mem_check_alignment(const char *mtt, size_t alignment);

/* ---- pointers' memory types (src/core/mem/mem_registry.c) ---------------------------------------------- */

/** The memory type of a pointer made by pa_create, or inside an array it made (looked up by range in the
 *  allocation registry), or NULL. */
const pa__mem_ops *pa__mem_of(const void *ptr);
/** pa__mem_of for two pointers under one lock (pa__mem_blocks2 in mem_internal.h also gives the blocks). */
void pa__mem_of2(const void *a, const void *b, const pa__mem_ops **out_a, const pa__mem_ops **out_b);


/* ---- the allocation table (src/core/mem/mem_registry.c) --------------------------------------------------- */

/* What pa_destroy needs to release a pointer made by pa_create. */
typedef struct pa__alloc_rec {
    const pa__mem_ops *ops;
    size_t bytes;
    void *cookie;           /* the allocator's own per-allocation datum */
} pa__alloc_rec;

/** Outcome of pa__alloc_unregister. */
typedef enum pa__alloc_take {
    PA__ALLOC_TAKEN,        /* found with the expected allocator and removed; *out holds its record */
    PA__ALLOC_UNKNOWN,      /* not in the table: never made by pa_create, or already destroyed */
    PA__ALLOC_OTHER_MTT     /* made by another allocator; left in place, *out holds its record */
} pa__alloc_take;

/**
 * Records a new allocation.
 * \return PA_OK, PA_ERR_NOMEM, or PA_ERR_EXISTS when ptr is already recorded (nothing is changed then).
 *         No message is set; the caller words it.
 */
int pa__alloc_register(void *ptr, const pa__alloc_rec *rec);

/** Looks up ptr and removes it only when it was made by expect (compared by pointer).  Thread-safe. */
pa__alloc_take pa__alloc_unregister(const void *ptr, const pa__mem_ops *expect, pa__alloc_rec *out);

/** Copies ptr's record to *out when ptr was made by pa_create (the matrix module asks a matrix's bytes).
 *  \return 1 when found, else 0 (*out untouched).  Thread-safe. */
int pa__alloc_lookup(const void *ptr, pa__alloc_rec *out);

/** The block of the allocation table that holds a pointer: its allocator (NULL: no block holds it, the pointer is
 *  not the library's), its first byte and its size. */
typedef struct pa__block {
    const pa__mem_ops *ops;
    uintptr_t start;
    size_t bytes;
} pa__block;

/** The blocks that hold a and b (a copy's destination and source), under one lock.  Thread-safe. */
void pa__mem_blocks2(const void *a, const void *b, pa__block *out_a, pa__block *out_b);

/** Number of live allocations in the table (for tests and leak checks). */
size_t pa__alloc_count(void);

#endif
