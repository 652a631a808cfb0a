/*
 * parray — the MPI backend's public calls in a build without it: the library is then one process, and
 * distributed copies and mpimem arrays report PA_ERR_NODEV through the core's tables (dist.c, mtt.c).
 */
#include "internal.h"

int pa_mpi_available(void)
{
    return 0;
}

int pa_mpi_rank(void)
{
    return 0;
}

int pa_mpi_nprocs(void)
{
    return 1;
}
