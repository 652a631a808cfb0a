/*
 * parray — MPI: mpimem arrays, arrays distributed over MPI processes, and copies between them.
 *
 * A distributed type mixes a thread-type dimension with memory dimensions (manual §5.5):
 *     M = mpi [3];  D = paged int [3][3];  S = [#M][#D_1];  T = [#D_0][#M][#D_1]
 * S puts row i of a 3x3 array on process i.  pa_copy(T, t, S, s) between two such types (or between one and
 * a local type, which lives on process 0) is a collective call: every process of the communicator calls it
 * with the same types, passing its own local arrays (NULL where it has none).  The planner recognises the
 * MPI patterns and says which it chose through pa_copy_explain(): one pair of processes (MPI_Send +
 * MPI_Recv, listing 33), one root to all (MPI_Scatter, listing 35), all to one root (MPI_Gather), equal
 * blocks between every pair (MPI_Alltoall, listing 34), anything else (pack, MPI_Alltoallv, unpack:
 * listing 36).  pa_offset_on() (type.h) gives an element's process and local offset.
 *
 * The communicator is MPI_COMM_WORLD in SPMD programs (every rank runs the same code after MPI_Init).
 * Without MPI running the library is a single process: rank 0 of 1, and a distributed copy that needs more
 * processes fails with PA_ERR_RANGE.  mpimem arrays (MPI_Alloc_mem) are host memory: pa_create them while MPI
 * runs and copy them like paged arrays.
 *
 * gamem arrays (Global Arrays, manual §3.4, static library with libparray_gamem.a only) are created
 * collectively by the processes that run the code: every rank in SPMD code, or the processes of a process
 * array (on a Global Arrays processor group of theirs, as in listing 17), or rank 0's main alone;
 * pa_gamem_handle() (mem.h) gives their Global Arrays handle.  docs/api.md says how groups are made and what
 * happens where ranks are busy in other arrays.
 */
#ifndef PARRAY_MPI_H
#define PARRAY_MPI_H

#include "error.h"
#include "thread.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- process arrays (manual §4.12) ------------------------------------------------------------------ */

/**
 * The library's main (PARRAY's _pa_main for MPI programs).  Every process enters it: it initialises MPI
 * (MPI_THREAD_MULTIPLE) unless the program already did, rank 0 runs main_fn(argc, argv), and every other rank
 * waits, idle, to be drafted into process arrays by pa_for over an mpi thread type.  When main_fn returns,
 * the idle ranks are released, MPI is finalised (when pa_mpi_main initialised it) and every process returns.
 * Inside main_fn, pa_for(T, fn, arg, size) with T = "mpi [n]" drafts n idle ranks, gives them their own
 * communicator, runs the task registered for fn on each with a copy of the arg bytes, and waits for them
 * (inside a parallel region it returns at once, and pa_parallel_end waits).  In a task, pa_tid is the
 * process's place in the array, pa_sync an MPI barrier of the array or of a dimension's groups (every process
 * calls it with the same path), and distributed copies use the array's communicator.  Arrays started from
 * several threads of rank 0 run one after the other (as in the manual); a task may start a nested array
 * (rank 0 grants it idle ranks).
 * Without mpirun the program is one process: an mpi [1] array runs on it and larger arrays fail.
 * In a build without MPI, main_fn simply runs.
 * \return main_fn's value on rank 0, 0 on the other ranks, or PA_ERR_INVAL (NULL main_fn) / PA_ERR_SYS (MPI
 *         could not be initialised).
 */
PA_API int pa_mpi_main(int argc, char **argv, int (*main_fn)(int argc, char **argv));

/**
 * Registers a task under a name, so that another process can find the function rank 0 passes to pa_for (an
 * address means nothing to another process).  Every process must register the same tasks before
 * pa_mpi_main; registering the same pair twice is harmless.
 * \return PA_OK, PA_ERR_INVAL (NULL or empty name, a name of 64 characters or more, NULL fn), PA_ERR_EXISTS
 *         (the name is taken by another function) or PA_ERR_RANGE (more than 256 tasks).
 */
PA_API int pa_mpi_register(const char *name, pa_thread_fn fn);

/**
 * Reserves processes for the next process array (the manual's _PA_RESERVE_PROCS(n)): the next pa_for over an
 * mpi type from the calling thread drafts its members and, in the same grant by rank 0, sets aside n more idle
 * ranks for that array, so that its processes can start nested arrays from them (pa_mpi_use_reserved_procs)
 * whatever other arrays take meanwhile.  When there are not that many idle ranks that pa_for fails at once
 * with PA_ERR_RANGE and takes none.  The reserve goes back to the idle pool when the array ends, failed or not.
 * One-shot and per thread; n = 0 clears it.  Not with pa_mpi_use_reserved_procs for the same array.
 * \return PA_OK, or PA_ERR_RANGE (n outside 0..PA_MAX_THREADS, or n > 0 outside pa_mpi_main, where there are
 *         no idle processes; PA_ERR_NODEV in a build without MPI).
 */
PA_API int pa_mpi_reserve_procs(int n);

/**
 * Uses the reserve (the manual's _PA_USE_RESERVED_PROCS): called in a task of a process array created after
 * pa_mpi_reserve_procs, it makes the next pa_for over an mpi type from the calling thread take its ranks from
 * the array's reserve instead of the idle pool, so that it succeeds even when other arrays have taken every
 * idle rank; the ranks go back to the reserve when that nested array ends.  Asking for more ranks than the
 * reserve holds free then is PA_ERR_RANGE at once.  One-shot and per thread.
 * \return PA_OK, or PA_ERR_RANGE (the calling process's array has no reserve, the caller is rank 0's main or
 *         no process of an array, or outside pa_mpi_main; PA_ERR_NODEV in a build without MPI).
 */
PA_API int pa_mpi_use_reserved_procs(void);

/* ---- where this process is ---------------------------------------------------------------------------- */

/** \return 1 when this build has the MPI backend, else 0. */
PA_API int pa_mpi_available(void);

/** \return the calling process's rank in the communicator distributed copies use now (0 without MPI). */
PA_API int pa_mpi_rank(void);

/** \return the size of the communicator distributed copies use now (1 without MPI). */
PA_API int pa_mpi_nprocs(void);

/**
 * Finds the ranks sharing this process's node (MPI_Comm_split_type with MPI_COMM_TYPE_SHARED over
 * MPI_COMM_WORLD) and gives this process its share of the cores for its threads (pa_host_share in
 * topology.h).  Collective over MPI_COMM_WORLD; pa_mpi_main calls it itself, SPMD programs may call it after
 * MPI_Init (before it, the launcher's environment tells the same where it can).
 * \return PA_OK, PA_ERR_NODEV (no MPI backend, or MPI not running) or PA_ERR_SYS (the split failed).
 */
PA_API int pa_mpi_node_share(void);

#ifdef __cplusplus
}
#endif
#endif
