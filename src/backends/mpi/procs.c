/*
 * parray — MPI process arrays, the library's main and the idle processes (DESIGN §5, manual §4.12).
 *
 * Every rank enters pa_mpi_main().  Rank 0 runs the user's main; the other ranks wait, idle, to be drafted.
 * pa_for over an mpi thread type on rank 0 (procs_launch.c) drafts idle ranks: it sends each a draft message
 * (the array's ranks, the task's registered name, the thread type's declaration and the argument bytes),
 * the drafted ranks build their own communicator, run the task with a context whose tid is their place in
 * the array, and send rank 0 their status (and message).  When the user's main returns, rank 0 releases
 * every idle rank and all return from pa_mpi_main.  Tasks are found by name because a function's address
 * means nothing to another process; every rank registers the same tasks before pa_mpi_main.
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "procs.h"

#define MAX_TASKS 256

static struct task { char name[64]; pa_thread_fn fn; } tasks[MAX_TASKS];
static int ntasks;
static pthread_mutex_t tasks_lock = PTHREAD_MUTEX_INITIALIZER;
static int served;   /* 1 while pa_mpi_main runs */
static MPI_Comm proto = MPI_COMM_NULL;

int pa_mpi_register(const char *name, pa_thread_fn fn)
{
    int st = PA_OK;
    if (!name || !fn || !name[0] || strlen(name) >= sizeof tasks[0].name)
        return pa__err(PA_ERR_INVAL, "pa_mpi_register: %s", !name || !name[0] ? "empty or NULL name" : !fn
                       ? "NULL function" : "the name is longer than 63 characters");
    pthread_mutex_lock(&tasks_lock);
    for (int i = 0; i < ntasks && st == PA_OK; i++)
        if (strcmp(tasks[i].name, name) == 0 && tasks[i].fn != fn)
            st = pa__err(PA_ERR_EXISTS, "pa_mpi_register: task \"%s\" is already registered with another "
                         "function", name);
        else if (strcmp(tasks[i].name, name) == 0)
            goto done;
    if (st == PA_OK && ntasks == MAX_TASKS)
        st = pa__err(PA_ERR_RANGE, "pa_mpi_register: more than %d tasks", MAX_TASKS);
    if (st == PA_OK) {
        snprintf(tasks[ntasks].name, sizeof tasks[0].name, "%s", name);
        tasks[ntasks++].fn = fn;
    }
done:
    pthread_mutex_unlock(&tasks_lock);
    return st;
}

const char *pa_mpi__task_name(pa_thread_fn fn)
{
    const char *name = NULL;
    pthread_mutex_lock(&tasks_lock);
    for (int i = 0; i < ntasks && !name; i++)
        if (tasks[i].fn == fn)
            name = tasks[i].name;
    pthread_mutex_unlock(&tasks_lock);
    return name;
}

pa_thread_fn pa_mpi__task_fn(const char *name)
{
    pa_thread_fn fn = NULL;
    pthread_mutex_lock(&tasks_lock);
    for (int i = 0; i < ntasks && !fn; i++)
        if (strcmp(tasks[i].name, name) == 0)
            fn = tasks[i].fn;
    pthread_mutex_unlock(&tasks_lock);
    return fn;
}

int pa_mpi__served(void)
{
    return served;
}

MPI_Comm pa_mpi__proto(void)
{
    return proto;
}

/* Runs one drafted task on this rank and reports to the rank that drafted it. */
static void serve_one(char *msg, int len, int parent)
{
    pa_mpi__result res;
    memset(&res, 0, sizeof res);
    res.status = pa_mpi__run_drafted(msg, len);
    if (res.status != PA_OK)
        snprintf(res.msg, sizeof res.msg, "%s", pa_last_error());
    MPI_Send(&res, (int)sizeof res, MPI_BYTE, parent, PA_MPI__TAG_DONE, proto);
}

/* The idle loop of ranks 1..n-1: run drafted tasks (from rank 0 or a nesting process) and world calls (from
 * rank 0) until rank 0 says stop. */
static void serve(void)
{
    for (;;) {
        MPI_Status status;
        pa_mpi__draft_head head;
        int len = 0;
        MPI_Probe(MPI_ANY_SOURCE, PA_MPI__TAG_DRAFT, proto, &status);
        MPI_Get_count(&status, MPI_BYTE, &len);
        char *msg = malloc(len > (int)sizeof head ? (size_t)len : sizeof head);
        if (!msg)
            abort();   /* the drafting process waits for this rank's result: failing loudly beats a hang */
        MPI_Recv(msg, len, MPI_BYTE, status.MPI_SOURCE, PA_MPI__TAG_DRAFT, proto, MPI_STATUS_IGNORE);
        memcpy(&head, msg, sizeof head);
        if (head.cmd == PA_MPI__CMD_STOP) {
            free(msg);
            return;
        }
        if (head.cmd == PA_MPI__CMD_WORLD)
            pa_mpi__world_run(msg, len);
        else
            serve_one(msg, len, status.MPI_SOURCE);
        free(msg);
    }
}

int pa_mpi_main(int argc, char **argv, int (*main_fn)(int argc, char **argv))
{
    int init = 0, provided = 0, rank = 0, size = 1, rc = 0;
    if (!main_fn)
        return pa__err(PA_ERR_INVAL, "pa_mpi_main: NULL main function");
    MPI_Initialized(&init);
    if (!init && MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided) != MPI_SUCCESS)
        return pa__err(PA_ERR_SYS, "pa_mpi_main: MPI_Init_thread failed");
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Comm_dup(MPI_COMM_WORLD, &proto);
    pa_mpi_node_share();   /* the ranks on this node share its cores: each process sizes its threads to its part */
    served = 1;
    pa_mpi__memo_invalidate();   /* rank 0's main now copies over MPI_COMM_SELF (mpi_comm.c) */
    if (rank == 0) {
        rc = pa_mpi__idle_init(size) == PA_OK ? main_fn(argc, argv) : PA_ERR_NOMEM;
        pa_mpi__release_all(size);
    } else {
        serve();
    }
    pa_mpi__main_ended();
    served = 0;
    pa_mpi__memo_invalidate();
    MPI_Comm_free(&proto);
    if (!init)
        MPI_Finalize();
    return rc;
}
