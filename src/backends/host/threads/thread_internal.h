/*
 * parray — internal declarations of the CPU thread arrays: the pool, thread-array shapes, launches and their
 * contexts, barriers, binding and the run walker shared by map and tile.
 */
#ifndef PARRAY_THREAD_INTERNAL_H
#define PARRAY_THREAD_INTERNAL_H

#include <pthread.h>
#include <stdatomic.h>

#include "internal.h"
#include "tshape.h"
#include "parray/thread.h"
#include "parray/tile.h"
#include "parray/topology.h"

/* ---- the pool (thread_pool.c) ------------------------------------------------------------------------- */

/*
 * A job for one pool worker: run(arg) is the work; the worker then returns itself to the idle list and only
 * then calls finish(arg), so that a caller woken by finish finds the worker idle again and the pool does not
 * grow under back-to-back launches.
 */
typedef struct pa__job {
    void (*run)(void *arg);
    void (*finish)(void *arg);
    void *arg;
} pa__job;

/** Hands a job to an idle worker, creating one when none is idle.  \return PA_OK, PA_ERR_SYS or NOMEM. */
int pa__pool_submit(const pa__job *job);
/** A worker of the pool (thread_pool.c). */
typedef struct pa__worker pa__worker;
/**
 * Forks: hands run(arg0 + i * stride) to n idle workers (creating those missing), ws[i] receiving worker i;
 * *started says how many were handed over, also on failure.  Their ends are awaited with pa__pool_join.
 * \return PA_OK, PA_ERR_SYS or NOMEM.
 */
int pa__pool_fork(void (*run)(void *), char *arg0, size_t stride, int64_t n, pa__worker **ws, int64_t *started);
/** Joins a fork: waits for the n workers' jobs to end, then returns them to the pool.  threads (the array's
 *  size) decides whether the waiting yields the CPU at once. */
void pa__pool_join(pa__worker **ws, int64_t n, int64_t threads);
/** Number of workers the pool has created so far (for tests). */
int pa__pool_size(void);

/* ---- barriers (thread_sync.c) ------------------------------------------------------------------------- */

typedef struct pa__barrier {
    pthread_mutex_t mu;
    pthread_cond_t cv;
    int64_t need, arrived;
    uint64_t generation;
} pa__barrier;

void pa__barrier_init(pa__barrier *b, int64_t need);
void pa__barrier_destroy(pa__barrier *b);
void pa__barrier_wait(pa__barrier *b);

/* ---- launches (thread_launch.c) ----------------------------------------------------------------------- */

typedef enum pa__engine { PA__ENGINE_PTHD, PA__ENGINE_OMP } pa__engine;

typedef struct pa__launch pa__launch;

/* struct pa_ctx is in internal.h: other backends' arrays (MPI process arrays) make contexts too. */

struct pa__launch {
    const pa_type *self;        /* NULL for internal arrays */
    pa_thread_fn fn;
    void *arg;                  /* private copies: arg_size bytes per thread, or NULL */
    void *internal_arg;         /* internal arrays (map): one arg shared by reference */
    size_t arg_size;
    pa__engine engine;
    int bind;                   /* pa_bind, or -1 for the mic grid */
    int mic_tpc;                /* threads per core of a mic grid */
    const pa_ctx *parent;
    pa__worker **team;          /* pthd: the workers running threads first .. n-1 (pa__pool_fork) */
    int64_t nteam;              /* how many were started */
    atomic_long remaining;      /* an asynchronous omp launch: 1 until its host job ends */
    pthread_mutex_t mu;
    pthread_cond_t done_cv;
    atomic_int waiter_sleeps;   /* the waiter sleeps on done_cv: the finisher must broadcast */
    atomic_int released;        /* the last unit's finisher no longer touches the launch */
    int status;                 /* the first failure */
    int64_t failed_tid;
    const void **exchange;      /* one slot per thread: the source arrays of an all-to-all (copy_exchange.c) */
    void *xgpu;                 /* the all-to-all's NCCL route: what the threads share (copy_exchange_gpu.c) */
    pa__launch *next;           /* in a parallel region */
    /* The large members last: launch_new zeroes the fields above, msg's first byte and the shape's nodes'
     * barriers only, and copies only the shape's counted nodes (pa_for makes a launch every call). */
    char msg[384];
    _Atomic(pa__barrier *) barriers[PA__MAX_TNODES];   /* per node, n / size(node) groups, made on first use */
    pa__tshape shape;
    pa_ctx ctx[];               /* one per thread */
};

/** Starts a launch's threads; blocking launches run thread 0 on the caller.  \return PA_OK or an error. */
int pa__launch_start(pa__launch *l, int blocking);
/** Waits for every thread of a launch.  \return PA_OK or the first thread's error (message re-raised). */
int pa__launch_wait(pa__launch *l);
/** Frees a finished launch. */
void pa__launch_free(pa__launch *l);
/** Starts a launch and, outside a parallel region, waits for it and frees it. */
int pa__launch_go(pa__launch *l);
/** Runs thread tid of a launch on the calling thread (binding it first when asked) and records its status. */
void pa__launch_run_one(pa__launch *l, int64_t tid);
/** The current thread's context (set while a callback runs), or NULL. */
const pa_ctx *pa__current_ctx(void);
/** Runs every thread of an omp launch in an OpenMP parallel region (thread_omp.c).  \return PA_OK or NODEV. */
int pa__omp_run(pa__launch *l);
/** 1 when this build has OpenMP. */
int pa__omp_available(void);
/** Runs fn on a flat array of n threads of the pool (used by map): like pa_for without a type. */
int pa__for_flat(int64_t n, pa_thread_fn fn, void *arg);

/* ---- the all-to-all between threads (copy_exchange.c) ------------------------------------------------- */

/**
 * A copy between two arrays distributed over the calling thread's pthd array in different ways: collective
 * (every thread calls it with its own local arrays); names is "from S to D" for messages.  \return PA_OK or an
 * error (the same on every thread for errors of the types).
 */
int pa__pthd_exchange(const pa__dist_split *d, const pa__dist_split *s, size_t elm, const pa_ctx *ctx,
                      void *dst, const void *src, const char *names, uint64_t dser, uint64_t sser);
/** The calling thread's explanation of such a copy.  \return as snprintf, or an error.  dser and sser are the
 *  types' serials (pa__type_serial), which key the cached plans of splits with gather tables. */
int pa__pthd_exchange_explain(const pa__dist_split *d, const pa__dist_split *s, size_t elm, const pa_ctx *ctx,
                              char *buf, size_t len, uint64_t dser, uint64_t sser);

/* ---- binding (topology.c) ------------------------------------------------------------------------------ */

/** Binds the calling thread for thread tid of an array of n threads (policy or mic grid).  \return PA_OK... */
int pa__bind_thread(int policy, int64_t tid, int64_t n, int mic_tpc);
/** Removes the calling thread's binding if it has one. */
void pa__unbind_thread(void);
/** The loaded hwloc topology (hwloc_topology_t), or NULL without hwloc. */
void *pa__hwloc_topology(void);
/** 1 when hwloc is in the build and loaded. */
int pa__hwloc_available(void);
/** The OS index of the CPU the calling thread is bound to, or -1 when unbound (for tests). */
int pa__bound_cpu(void);
/** The OS index of the CPU that binding policy gives thread tid of n, or -1 (for tests). */
int pa__bind_target_cpu(int policy, int64_t tid, int64_t n, int mic_tpc);

/* ---- runs of a compiled layout (thread_runs.c) --------------------------------------------------------- */

/** Calls run over [k0, k1) of one layout in maximal runs of the innermost mode. */
void pa__runs1(const pa__layout *l, char *base, size_t elm, int64_t k0, int64_t k1, pa_run_fn run, void *arg);

/** A joint run of two layouts: n indices from k (of l1), offsets o1, o2, strides s1, s2 (in elements). */
typedef void (*pa__run2_fn)(int64_t k, int64_t n, int64_t o1, int64_t s1, int64_t o2, int64_t s2, void *arg);
/** Calls run over indices a0 + i of l1 and b0 + i of l2, i in [0, n), in runs that are runs of both. */
void pa__runs2(const pa__layout *l1, int64_t a0, const pa__layout *l2, int64_t b0, int64_t n, pa__run2_fn run,
               void *arg);

/** Checks that a data type is mappable on the CPU.  \return PA_OK or an error naming the type. */
int pa__check_host_type(const pa_type *t, const char *what);

#endif
