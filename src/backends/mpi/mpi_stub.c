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

int pa_mpi_main(int argc, char **argv, int (*main_fn)(int argc, char **argv))
{
    if (!main_fn)
        return pa__err(PA_ERR_INVAL, "pa_mpi_main: NULL main function");
    return main_fn(argc, argv);
}

int pa_mpi_register(const char *name, pa_thread_fn fn)
{
    if (!name || !name[0] || !fn)
        return pa__err(PA_ERR_INVAL, "pa_mpi_register: %s", !fn ? "NULL function" : "empty or NULL name");
    return PA_OK;
}

int pa_mpi_reserve_procs(int n)
{
    return pa__err(PA_ERR_NODEV, "pa_mpi_reserve_procs(%d): process arrays need the MPI backend, which this build "
                   "does not have (configure with -Dmpi=enabled where Open MPI is installed)", n);
}

int pa_mpi_use_reserved_procs(void)
{
    return pa__err(PA_ERR_NODEV, "pa_mpi_use_reserved_procs: process arrays need the MPI backend, which this build "
                   "does not have (configure with -Dmpi=enabled where Open MPI is installed)");
}

int pa_mpi_node_share(void)
{
    return pa__err(PA_ERR_NODEV, "pa_mpi_node_share: this build has no MPI backend; the launcher's environment "
                   "(or PA_NODE_RANKS) gives the ranks on the node");
}
