/*
 * parray — the numa memory type in a build without libnuma (src/meson.build builds this file instead of
 * mem_numa.c): the name stays known, nothing is available, and creating an array says why.
 */
#include "mem_internal.h"

static int numa_ops_available(void)
{
    return 0;
}

static int numa_ops_alloc(size_t bytes, const pa_mem_opts *opts, void **out, void **cookie)
{
    (void)bytes;
    (void)opts;
    (void)out;
    (void)cookie;
    return pa__err(PA_ERR_NODEV, "numa: parray was built without libnuma; rebuild with libnuma "
                                 "(meson -Dnuma=enabled) or use paged memory");
}

static int numa_ops_free(void *ptr, size_t bytes, void *cookie)
{
    /* Nothing can have been allocated without libnuma. */
    (void)ptr;
    (void)bytes;
    (void)cookie;
    return pa__err(PA_ERR_NODEV, "numa: parray was built without libnuma");
}

const pa__mem_ops pa__mem_numa_ops = {
    .name = "numa",
    .host_accessible = 1,
    .available = numa_ops_available,
    .alloc = numa_ops_alloc,
    .free = numa_ops_free,
};
