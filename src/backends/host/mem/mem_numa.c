/*
 * parray — the numa memory type: host memory placed by libnuma, on one node (opts->numa_node >= 0) or
 * interleaved page by page over every node (-1, the default).  libnuma hands out whole pages from mmap, so
 * any alignment up to the page size is met without asking for it; larger alignments are refused rather than
 * silently ignored.  A build without libnuma has mem_numa_none.c instead (src/meson.build chooses): the name
 * stays, and creating it says why.
 */
#include <numa.h>
#include <unistd.h>

#include "mem_internal.h"

static int numa_ops_available(void)
{
    return numa_available() >= 0;
}

/* Checks the node: -1 (interleave) or a node of this machine that has memory. */
static int numa_check_node(int node)
{
    int max = numa_max_node();
    if (node == -1)
        return PA_OK;
    if (node < -1 || node > max)
        return pa__err(PA_ERR_RANGE, "numa: node %d is out of range: use -1 to interleave, or 0..%d", node, max);
    if (!numa_bitmask_isbitset(numa_all_nodes_ptr, (unsigned)node))
        return pa__err(PA_ERR_RANGE, "numa: node %d has no memory this process may use", node);
    return PA_OK;
}

static int numa_ops_alloc(size_t bytes, const pa_mem_opts *opts, void **out, void **cookie)
{
    size_t alignment = opts->alignment;
    int node = opts->numa_node;
    long page = sysconf(_SC_PAGESIZE);
    void *p;
    int rc;

    if (numa_available() < 0)
        return pa__err(PA_ERR_NODEV, "numa: libnuma reports that NUMA is not available on this machine "
                                     "(numa_available() < 0); use paged memory instead");
    rc = pa__mem_check_alignment("numa", alignment);
    if (rc != PA_OK)
        return rc;
    if (alignment > (size_t)page)
        return pa__err(PA_ERR_INVAL, "numa: alignment %zu exceeds the page size %ld, the most libnuma gives",
                       alignment, page);
    rc = numa_check_node(node);
    if (rc != PA_OK)
        return rc;
    p = node >= 0 ? numa_alloc_onnode(bytes, node) : numa_alloc_interleaved(bytes);
    if (p == NULL) {
        if (node >= 0)
            return pa__err(PA_ERR_NOMEM, "numa: cannot allocate %zu bytes on node %d", bytes, node);
        return pa__err(PA_ERR_NOMEM, "numa: cannot allocate %zu bytes interleaved", bytes);
    }
    *out = p;
    *cookie = NULL;
    return PA_OK;
}

static int numa_ops_free(void *ptr, size_t bytes, void *cookie)
{
    (void)cookie;
    numa_free(ptr, bytes);
    return PA_OK;
}


const pa__mem_ops pa__mem_numa_ops = {
    .name = "numa",
    .host_accessible = 1,
    .available = numa_ops_available,
    .alloc = numa_ops_alloc,
    .free = numa_ops_free,
};
