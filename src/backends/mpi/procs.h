/*
 * parray — the MPI process arrays' internal protocol between rank 0 (which drafts) and the idle ranks
 * (procs.c, procs_launch.c).
 *
 * A draft message is one MPI_BYTE message with tag PA_MPI__TAG_DRAFT from rank 0: a pa_mpi__draft_head, the
 * array's n world ranks (int32, in tid order), the task's name, the thread type's declaration (so that the
 * drafted processes can answer pa_self and pa_tid_path) and the argument bytes.  Each drafted rank answers
 * with one pa_mpi__result (tag PA_MPI__TAG_DONE) to the rank that drafted it.  A head with cmd
 * PA_MPI__CMD_STOP releases an idle rank from pa_mpi_main.
 *
 * Rank 0 keeps the pool of idle ranks.  A process of an array that starts a nested array asks rank 0 for n
 * ranks (PA_MPI__TAG_REQ with n; the answer, PA_MPI__TAG_GRANT, is a status and the ranks), drafts them itself,
 * collects their results, and gives them back (PA_MPI__TAG_FREE with n and the ranks).  A request is three
 * int32: n, the ranks to reserve for the new array besides (pa_mpi_reserve_procs) and the reserve to take the
 * ranks from (pa_mpi_use_reserved_procs: the world rank of process 0 of the array that owns it; 0 for the idle
 * pool).  A reserve is known by that rank, and it returns to the pool with the array's ranks.  Rank 0 answers while
 * it waits for an array of its own, which is whenever any task runs.  All of this travels on a duplicate of
 * MPI_COMM_WORLD, so that it never matches the user's messages.
 *
 * World calls (procs_world.c): the processes of an array that need every rank of the world to run a handler
 * together (starting Global Arrays, making one of its processor groups) ask rank 0 through their first
 * process (PA_MPI__TAG_WORLD, a pa_mpi__world_head, the array's world ranks and the argument bytes).  Rank 0
 * answers (PA_MPI__TAG_WORLD_REPLY, a pa_mpi__result) only after it has sent every idle rank the same message
 * as a draft message with cmd PA_MPI__CMD_WORLD, and refuses when a rank outside the array is busy elsewhere.
 */
#ifndef PARRAY_MPI_PROCS_H
#define PARRAY_MPI_PROCS_H

#include <stdint.h>

#include "mpi_backend.h"

enum { PA_MPI__TAG_DRAFT = 7101, PA_MPI__TAG_DONE = 7102, PA_MPI__TAG_GROUP = 7103, PA_MPI__TAG_REQ = 7104,
       PA_MPI__TAG_GRANT = 7105, PA_MPI__TAG_FREE = 7106, PA_MPI__TAG_WORLD = 7107,
       PA_MPI__TAG_WORLD_REPLY = 7108 };
enum { PA_MPI__CMD_RUN = 1, PA_MPI__CMD_STOP = 2, PA_MPI__CMD_WORLD = 3 };

typedef struct pa_mpi__draft_head {
    int32_t cmd, n, namelen, decllen;
    int32_t parent;            /* the rank that drafted: the result goes there */
    int32_t reserve;           /* ranks reserved for the array (pa_mpi_reserve_procs), 0 for none */
    int64_t argsize;
} pa_mpi__draft_head;

/* A world call: the head of the request and of the draft message that carries it to idle ranks. */
typedef struct pa_mpi__world_head {
    int32_t cmd;               /* PA_MPI__CMD_WORLD: where a draft head has its cmd */
    int32_t nmembers;          /* the requesting array's world ranks, which follow the head */
    char name[32];             /* the handler's registered name */
    int64_t argsize;           /* argument bytes, after the ranks */
} pa_mpi__world_head;

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
/** The protocol's communicator (a duplicate of MPI_COMM_WORLD made by pa_mpi_main). */
MPI_Comm pa_mpi__proto(void);

/* ---- the pool of idle ranks (procs_pool.c) ---- */

/** Rank 0: every other rank of the world starts idle.  \return PA_OK or PA_ERR_NOMEM. */
int pa_mpi__idle_init(int size);
/** Rank 0: releases every idle rank from pa_mpi_main. */
void pa_mpi__release_all(int size);
/**
 * Takes n idle ranks: from the pool on rank 0 (which must hold the draft lock), else asked of rank 0.  With
 * reserve > 0, as many more idle ranks are set aside in the same grant for the new array (whose process 0 is
 * ranks[0]); with from > 0 the n ranks come from the free ranks of the reserve of the array whose process 0 is
 * world rank `from` (not both).  Too few is PA_ERR_RANGE and takes nothing.
 */
int pa_mpi__pool_take(const pa_type *t, int n, int reserve, int from, int32_t *ranks);
/** Gives ranks taken by pa_mpi__pool_take back (to the pool, or to the reserve they came from), and the
 *  array's own reserve, if it has one, to the pool. */
void pa_mpi__pool_give(const int32_t *ranks, int n);
/** Waits for the results of the drafted ranks (serving other ranks' requests on rank 0).  \return status. */
int pa_mpi__collect(const pa_type *t, const int32_t *ranks, int n);
/** Rank 0's draft lock: arrays started from rank 0 run one after the other. */
void pa_mpi__draft_lock(void);
void pa_mpi__draft_unlock(void);
/** Rank 0's draft lock if free.  \return 1 when taken. */
int pa_mpi__draft_trylock(void);
/**
 * Rank 0 (holding the draft lock or answering in its collect loop): the idle ranks outside members[0..n).
 * \return the number of ranks outside members that are busy (in another array), 0 when every one is idle;
 *         idle[] gets the idle ranks (room for the world's size) and *nidle their number.
 */
int pa_mpi__pool_others(const int32_t *members, int n, int32_t *idle, int *nidle);

/* ---- world calls (procs_world.c) ---- */

/** Rank 0's collect loop: answers the world call request waiting from rank `from`. */
void pa_mpi__world_answer(int from);
/** An idle rank: runs the world call of a draft message with cmd PA_MPI__CMD_WORLD. */
void pa_mpi__world_run(const char *msg, int len);
/** Runs the task-end hook (procs_launch.c, after every task) and the main-end hook (pa_mpi_main). */
void pa_mpi__task_ended(void);
void pa_mpi__main_ended(void);

#endif
