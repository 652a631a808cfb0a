/*
 * parray — the paged memory type: ordinary host memory from posix_memalign, aligned to opts->alignment
 * (64 bytes, a cache line, by default) so that vectorised copy kernels never start in the middle of a line.
 *
 * Arrays of 32 MiB or more are aligned to 2 MiB and offered to the kernel's transparent huge pages
 * (madvise MADV_HUGEPAGE; PA_HUGEPAGES=0 turns it off): a transpose or any strided walk of a large array
 * touches a new 4 KiB page for nearly every row it reads, more pages than the TLB holds, while 2 MiB pages
 * cover the whole array.  Where the kernel has huge pages off, the advice changes nothing.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

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
    const char *env = getenv("PA_HUGEPAGES");
    int huge = bytes >= ((size_t)32 << 20) && !(env && strcmp(env, "0") == 0);
    if (huge && alignment < ((size_t)2 << 20))
        alignment = (size_t)2 << 20;
    rc = posix_memalign(&p, alignment, bytes);
    if (rc == ENOMEM)
        return pa__err(PA_ERR_NOMEM, "paged: cannot allocate %zu bytes (aligned to %zu)", bytes, alignment);
    if (rc != 0)
        return pa__err(PA_ERR_INVAL, "paged: posix_memalign(%zu bytes, alignment %zu) failed: %s", bytes,
                       alignment, strerror(rc));
#ifdef MADV_HUGEPAGE
    if (huge)
        madvise(p, bytes / ((size_t)2 << 20) * ((size_t)2 << 20), MADV_HUGEPAGE);   /* advice: failure is harmless */
#endif
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
