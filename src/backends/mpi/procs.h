/*
 * parray — the MPI process arrays' internal protocol between rank 0 (which drafts) and the idle ranks
 * (procs.c, procs_launch.c).
 *
 * A draft message is one MPI_BYTE message with tag PA_MPI__TAG_DRAFT from rank 0: a pa_mpi__draft_head, the
 * array's n world ranks (int32, in tid order), the task's name, the thread type's declaration (so that the
 * drafted processes can answer pa_self and pa_tid_path) and the argument bytes.  Each drafted rank answers
 * with one pa_mpi__result (tag PA_MPI__TAG_DONE).  A head with cmd PA_MPI__CMD_STOP releases an idle rank
 * from pa_mpi_main.
 */
#ifndef PARRAY_MPI_PROCS_H
#define PARRAY_MPI_PROCS_H

#include <stdint.h>

#include "mpi_backend.h"

enum { PA_MPI__TAG_DRAFT = 7101, PA_MPI__TAG_DONE = 7102, PA_MPI__TAG_GROUP = 7103 };
enum { PA_MPI__CMD_RUN = 1, PA_MPI__CMD_STOP = 2 };

typedef struct pa_mpi__draft_head {
    int32_t cmd, n, namelen, decllen;
    int64_t argsize;
} pa_mpi__draft_head;

typedef struct pa_mpi__result {
    int32_t status;
    char msg[480];
} pa_mpi__result;

/** The registered name of a task function, or NULL (procs.c). */
const char *pa_mpi__task_name(pa_thread_fn fn);
/** The task registered under a name, or NULL (procs.c). */
pa_thread_fn pa_mpi__task_fn(const char *name);
/** 1 while pa_mpi_main runs on this process (procs.c). */
int pa_mpi__served(void);
/** Runs the task of a draft message on this rank.  \return its status (message set on failure). */
int pa_mpi__run_drafted(const char *msg, int len);
/** Rank 0: every other rank of the world starts idle. */
void pa_mpi__idle_init(int size);
/** Rank 0: releases every idle rank from pa_mpi_main. */
void pa_mpi__release_all(int size);

#endif
