/*
 * Host memory types through types: pa_create, pa_destroy and pa_alloc_bytes on paged, mmap and numa types,
 * and every error they report.  The allocator-level cases are in test_mem_alloc.c.
 */
#include <stdio.h>
#include <stdlib.h>

#include "mem_internal.h"
#include "test_mem.h"
#include "testutil.h"

/* Under AddressSanitizer, let impossible allocations return NULL (PA_ERR_NOMEM) instead of aborting. */
const char *__asan_default_options(void);
const char *__asan_default_options(void)
{
    return "allocator_may_return_null=1";
}

int main(void)
{
    Suite *s = suite_create("host_mem");
    suite_add_tcase(s, pa_test_mem_alloc_tcase());
    return pa_test_run(s);
}
