/*
 * parray — MPI: mpimem arrays, arrays distributed over MPI processes, and copies between them.
 *
 * A distributed type mixes a thread-type dimension with memory dimensions (manual §5.5):
 *     M = mpi [3];  D = paged int [3][3];  S = [#M][#D_1];  T = [#D_0][#M][#D_1]
 * S puts row i of a 3x3 array on process i.  pa_copy(T, t, S, s) between two such types (or between one and
 * a local type, which lives on process 0) is a collective call: every process of the communicator calls it
 * with the same types, passing its own local arrays (NULL where it has none).  The planner recognises the
 * MPI patterns and says which it chose through pa_copy_explain(): one pair of processes (MPI_Isend +
 * MPI_Recv, listing 33), one root to all (MPI_Scatter, listing 35), all to one root (MPI_Gather), equal
 * blocks between every pair (MPI_Alltoall, listing 34), anything else (pack, MPI_Alltoallv, unpack:
 * listing 36).  pa_offset_on() (type.h) gives an element's process and local offset.
 *
 * The communicator is MPI_COMM_WORLD in SPMD programs (every rank runs the same code after MPI_Init).
 * Without MPI running the library is a single process: rank 0 of 1, and a distributed copy that needs more
 * processes fails with PA_ERR_RANGE.  mpimem arrays (MPI_Alloc_mem) are host memory: pa_create them while MPI
 * runs and copy them like paged arrays.
 */
#ifndef PARRAY_MPI_H
#define PARRAY_MPI_H

#include "error.h"

#ifdef __cplusplus
extern "C" {
#endif

/** \return 1 when this build has the MPI backend, else 0. */
PA_API int pa_mpi_available(void);

/** \return the calling process's rank in the communicator distributed copies use now (0 without MPI). */
PA_API int pa_mpi_rank(void);

/** \return the size of the communicator distributed copies use now (1 without MPI). */
PA_API int pa_mpi_nprocs(void);

#ifdef __cplusplus
}
#endif
#endif
