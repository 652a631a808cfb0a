/*
 * parray — what the MPI backend offers backends built on it (the Global Arrays backend, src/backends/ga): the
 * communicator of the calling process array, MPI errors as statuses, and world calls with their hooks.  The
 * only header of src/backends/mpi that another backend includes.
 */
#ifndef PARRAY_MPI_SERVICES_H
#define PARRAY_MPI_SERVICES_H

#include <mpi.h>
#include <stddef.h>
#include <stdint.h>

/** 1 when MPI is initialised and not finalised, so that MPI calls may be made. */
int pa_mpi__running(void);
/** The communicator distributed copies of the calling thread use: its process array's, else MPI_COMM_WORLD. */
MPI_Comm pa_mpi__comm(void);
/** Turns an MPI error code into PA_ERR_SYS with MPI's text and the call's name; PA_OK for MPI_SUCCESS. */
int pa_mpi__check(int rc, const char *call);

/* ---- world calls and task hooks (procs_world.c, procs.c) ------------------------------------------------ */

/**
 * The world ranks of comm's processes in comm's rank order.  \return PA_OK (*out malloc'd, *n its length) or
 * PA_ERR_NOMEM.
 */
int pa_mpi__members(MPI_Comm comm, int32_t **out, int *n);

/* A world call's handler: run by every rank of MPI_COMM_WORLD with the requesting array's world ranks. */
typedef int (*pa_mpi__world_fn)(const int32_t *members, int n, const void *arg, size_t len);

/**
 * Registers a handler under a name of at most 31 characters, before main (from a constructor), identically in
 * every process.  \return PA_OK, PA_ERR_INVAL or PA_ERR_RANGE (more than 8 handlers).
 */
int pa_mpi__world_register(const char *name, pa_mpi__world_fn fn);

/**
 * A world call: collective over the calling process array (every process of pa_mpi__comm() calls it with the
 * same arguments); every rank of MPI_COMM_WORLD then runs the handler together: the array's processes here,
 * rank 0 in the loop where it waits for its array, the idle ranks in their idle loop.  Possible only under
 * pa_mpi_main, and only when every rank outside the array is idle (not in another array, nested or not).
 * \return the handler's status on this process, or (on every process of the array, without running it)
 *         PA_ERR_UNSUPPORTED (not under pa_mpi_main, ranks busy elsewhere), PA_ERR_NAME (no such handler) or
 *         PA_ERR_NOMEM.
 */
int pa_mpi__world_call(const char *name, const void *arg, size_t len);

/** Sets the function run on a process after each task of a process array ends there (NULL: none). */
void pa_mpi__on_task_end(void (*fn)(void));
/** Sets the function run by every process before pa_mpi_main returns, after main (NULL: none). */
void pa_mpi__on_main_end(void (*fn)(void));

#endif
