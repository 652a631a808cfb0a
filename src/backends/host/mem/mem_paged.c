/*
 * parray — the paged memory type: ordinary host memory from posix_memalign, aligned to opts->alignment
 * (64 bytes, a cache line, by default) so that vectorised copy kernels never start in the middle of a line.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "mem_internal.h"

static int paged_available(void)
{
    return 1;
}

static int paged_alloc(size_t bytes, const pa_mem_opts *opts, void **out, void **cookie)
{
    size_t alignment = opts->alignment;
    void *p = NULL;
    int rc = pa__mem_check_alignment("paged", alignment);
    if (rc != PA_OK)
        return rc;
    rc = posix_memalign(&p, alignment, bytes);
    if (rc == ENOMEM)
        return pa__err(PA_ERR_NOMEM, "paged: cannot allocate %zu bytes (aligned to %zu)", bytes, alignment);
    if (rc != 0)
        return pa__err(PA_ERR_INVAL, "paged: posix_memalign(%zu bytes, alignment %zu) failed: %s", bytes,
                       alignment, strerror(rc));
    *out = p;
    *cookie = NULL;
    return PA_OK;
}

static int paged_free(void *ptr, size_t bytes, void *cookie)
{
    (void)bytes;
    (void)cookie;
    free(ptr);
    return PA_OK;
}

const pa__mem_ops pa__mem_paged_ops = {
    .name = "paged",
    .host_accessible = 1,
    .available = paged_available,
    .alloc = paged_alloc,
    .free = paged_free,
};
