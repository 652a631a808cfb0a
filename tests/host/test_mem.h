/* The host_mem suite's parts: test_mem.c (through types, and main) and test_mem_alloc.c (allocators). */
#ifndef PARRAY_TEST_MEM_H
#define PARRAY_TEST_MEM_H

#include <check.h>

/** The allocator-level cases: mtt registry, paged, mmap and numa ops, the allocation table. */
TCase *pa_test_mem_alloc_tcase(void);
/** Adds the numa allocator's test to tc: its allocations where numa memory is usable, else its refusal. */
void pa_test_mem_add_numa(TCase *tc, int usable);

#endif
