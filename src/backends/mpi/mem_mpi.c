/*
 * parray — the mpimem memory type: host memory from MPI_Alloc_mem, which an MPI library may register with the
 * network for faster transfers.  It is ordinary host memory to the CPU, so copies to and from it go through
 * the host planner.  MPI must be initialised while such arrays are created and destroyed.
 */
#include "mem_internal.h"
#include "mpi_backend.h"

static int mpimem_available(void)
{
    return pa_mpi__running();
}

static int mpimem_alloc(size_t bytes, const pa_mem_opts *opts, void **out, void **cookie)
{
    void *p = NULL;
    (void)opts;
    if (!pa_mpi__running())
        return pa__err(PA_ERR_NODEV, "mpimem: MPI is not initialised (call MPI_Init or pa_mpi_main first)");
    if (bytes > (size_t)INT64_MAX || (MPI_Aint)bytes < 0)
        return pa__err(PA_ERR_RANGE, "mpimem: %zu bytes do not fit in an MPI_Aint", bytes);
    int rc = MPI_Alloc_mem((MPI_Aint)bytes, MPI_INFO_NULL, &p);
    if (rc != MPI_SUCCESS || p == NULL)
        return pa__err(PA_ERR_NOMEM, "mpimem: MPI_Alloc_mem of %zu bytes failed", bytes);
    *out = p;
    *cookie = NULL;
    return PA_OK;
}

static int mpimem_free(void *ptr, size_t bytes, void *cookie)
{
    (void)bytes;
    (void)cookie;
    if (!pa_mpi__running())
        return pa__err(PA_ERR_NODEV, "mpimem: MPI was finalised before the array was destroyed");
    return pa_mpi__check(MPI_Free_mem(ptr), "mpimem: MPI_Free_mem");
}

const pa__mem_ops pa__mem_mpimem_ops = {
    .name = "mpimem",
    .host_accessible = 1,
    .available = mpimem_available,
    .alloc = mpimem_alloc,
    .free = mpimem_free,
};
