/*
 * parray — the MPI backend's description for the core (src/core/backends/backends.h): mpimem memory, copies of arrays
 * distributed over mpi process arrays, and the process arrays' launcher.
 */
#include "backends.h"
#include "mpi_backend.h"

static const pa__mem_ops *const mpi_mem[] = {&pa__mem_mpimem_ops, NULL};

const pa__backend pa__backend_mpi = {
    .name = "mpi",
    .what = "mpimem memory, mpi process arrays, distributed copies",
    .mem = mpi_mem,
    .dist = &pa__mpi_dist_ops,
    .launcher = &pa__mpi_launcher,
    .calibrate = pa_mpi__calibrate,
};
