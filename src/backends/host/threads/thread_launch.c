/*
 * parray — pa_for over thread types: making a launch, handing its threads to the pool, joining them.
 *
 * A launch holds everything the threads of one array share: the shape, the per-thread contexts, the private
 * copies of the argument, the first error and the barriers.  Outside a parallel region the calling thread runs
 * thread 0 itself (unless the array is to be bound, which must not move the caller) and then waits; inside one
 * every thread goes to the pool and the region joins the launch at its end.
 */
#include <sched.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "copy_exchange_gpu.h"
#include "thread_internal.h"
#include "thread_region.h"

/* How many polls the caller makes for the end of an asynchronous omp array before it sleeps. */
#define PA__WAIT_SPIN 20000

static _Thread_local const pa_ctx *tl_ctx;

const pa_ctx *pa__current_ctx(void)
{
    return tl_ctx;
}

static void launch_record(pa__launch *l, int64_t tid, int st)
{
    pthread_mutex_lock(&l->mu);
    if (l->status == PA_OK) {
        l->status = st;
        l->failed_tid = tid;
        snprintf(l->msg, sizeof l->msg, "%s", pa_last_error());
    }
    pthread_mutex_unlock(&l->mu);
}

void pa__launch_run_one(pa__launch *l, int64_t tid)
{
    const pa_ctx *saved = tl_ctx;
    void *arg = l->arg ? (char *)l->arg + (size_t)tid * l->arg_size : l->internal_arg;
    int st = PA_OK;
    if (l->bind != PA_BIND_NONE)
        st = pa__bind_thread(l->bind, tid, l->shape.n, l->mic_tpc);
    if (st == PA_OK) {
        tl_ctx = &l->ctx[tid];
        st = l->fn(&l->ctx[tid], arg);
        tl_ctx = saved;
    }
    if (st == PA_OK)
        st = pa__region_leftover();
    if (st != PA_OK)
        launch_record(l, tid, st);
}

/*
 * Marks k units of an asynchronous omp launch finished.  The one that finishes the last wakes the waiter only if
 * it went to sleep (a Dekker handshake on waiter_sleeps and remaining, each side storing, fencing, then loading),
 * and then lets go of the launch (released), after which the waiter may free it.  (pthd launches are joined
 * through the workers' own reply lines instead: pa__pool_join.)
 */
static void launch_units_done(pa__launch *l, long k)
{
    if (atomic_fetch_sub_explicit(&l->remaining, k, memory_order_acq_rel) == k) {
        atomic_thread_fence(memory_order_seq_cst);
        if (atomic_load_explicit(&l->waiter_sleeps, memory_order_relaxed)) {
            pthread_mutex_lock(&l->mu);
            pthread_cond_broadcast(&l->done_cv);
            pthread_mutex_unlock(&l->mu);
        }
        atomic_store_explicit(&l->released, 1, memory_order_release);
    }
}

static void job_thread_run(void *p)
{
    pa_ctx *c = p;
    /* Threads of an unbound array must not keep a placement an earlier array gave their worker. */
    if (c->launch->bind == PA_BIND_NONE)
        pa__unbind_thread();
    pa__launch_run_one(c->launch, c->tid);
}

static void job_omp_run(void *p)
{
    pa__launch *l = p;
    int st = pa__omp_run(l);
    if (st != PA_OK)
        launch_record(l, 0, st);
}

static void job_omp_finish(void *p)
{
    launch_units_done(p, 1);
}

static int launch_new(const pa__tshape *shape, pa_thread_fn fn, const void *arg, size_t arg_size,
                      pa__launch **out)
{
    size_t head = sizeof(pa__launch) + (size_t)shape->n * sizeof(pa_ctx);
    size_t align = 64;
    size_t team_at = (head + sizeof(pa__worker *) - 1) / sizeof(pa__worker *) * sizeof(pa__worker *);
    size_t args_at = (team_at + (size_t)shape->n * sizeof(pa__worker *) + align - 1) / align * align;
    size_t total = args_at + (size_t)shape->n * arg_size;
    pa__launch *l = malloc(total);
    if (l == NULL)
        return pa__err(PA_ERR_NOMEM, "pa_for: cannot allocate a launch of %lld threads with %zu-byte arguments",
                       (long long)shape->n, arg_size);
    memset(l, 0, offsetof(pa__launch, msg));
    l->msg[0] = 0;
    for (int i = 0; i < shape->nnodes; i++)
        atomic_init(&l->barriers[i], NULL);
    pa__tshape_copy(&l->shape, shape);
    l->team = (pa__worker **)((char *)l + team_at);
    l->fn = fn;
    l->arg_size = arg_size;
    if (arg_size > 0) {
        l->arg = (char *)l + args_at;
        for (int64_t t = 0; t < shape->n; t++)
            memcpy((char *)l->arg + (size_t)t * arg_size, arg, arg_size);
    }
    l->parent = tl_ctx;
    for (int64_t t = 0; t < shape->n; t++)
        l->ctx[t] = (pa_ctx){.launch = l, .tid = t, .parent = tl_ctx};
    pthread_mutex_init(&l->mu, NULL);
    pthread_cond_init(&l->done_cv, NULL);
    *out = l;
    return PA_OK;
}

void pa__launch_free(pa__launch *l)
{
    for (int i = 0; i < l->shape.nnodes; i++) {
        pa__barrier *b = atomic_load_explicit(&l->barriers[i], memory_order_acquire);
        if (b == NULL)
            continue;
        int64_t ngroups = l->shape.n / l->shape.nodes[i].size;
        for (int64_t g = 0; g < ngroups; g++)
            pa__barrier_destroy(&b[g]);
        free(b);
    }
    free(l->exchange);
    pa__pthd_exchange_gpu_end(l->xgpu);
    pthread_cond_destroy(&l->done_cv);
    pthread_mutex_destroy(&l->mu);
    free(l);
}

int pa__launch_start(pa__launch *l, int blocking)
{
    int inline0 = blocking && l->bind == PA_BIND_NONE;
    if (l->engine == PA__ENGINE_OMP) {
        if (blocking) {
            atomic_store(&l->remaining, 0);
            atomic_store(&l->released, 1);
            int st = pa__omp_run(l);
            if (st != PA_OK)
                launch_record(l, 0, st);
            return PA_OK;
        }
        atomic_store(&l->remaining, 1);
        pa__job job = {job_omp_run, job_omp_finish, l};
        int st = pa__pool_submit(&job);
        if (st != PA_OK)
            launch_units_done(l, 1);
        return st;
    }
    int64_t first = inline0 ? 1 : 0;
    int st = PA_OK;
    if (l->shape.n > first)
        st = pa__pool_fork(job_thread_run, (char *)&l->ctx[first], sizeof l->ctx[0], l->shape.n - first, l->team,
                           &l->nteam);
    if (st != PA_OK)   /* the threads already started still run (and are joined); record the failure */
        launch_record(l, first + l->nteam, st);
    if (inline0)
        pa__launch_run_one(l, 0);
    return PA_OK;
}

/* Waits for an omp launch's host job (asynchronous launches only; blocking ones ran on the caller). */
static void omp_wait(pa__launch *l)
{
    for (int i = 0; i < PA__WAIT_SPIN && atomic_load_explicit(&l->remaining, memory_order_acquire) > 0; i++) {
#if defined(__x86_64__) || defined(__i386__)
        __builtin_ia32_pause();
#endif
        if (i % 64 == 63)
            sched_yield();
    }
    if (atomic_load_explicit(&l->remaining, memory_order_acquire) > 0) {
        pthread_mutex_lock(&l->mu);
        atomic_store_explicit(&l->waiter_sleeps, 1, memory_order_relaxed);
        atomic_thread_fence(memory_order_seq_cst);
        while (atomic_load_explicit(&l->remaining, memory_order_acquire) > 0)
            pthread_cond_wait(&l->done_cv, &l->mu);
        pthread_mutex_unlock(&l->mu);
    }
    /* The finisher's last steps on the launch (a broadcast at most) take nanoseconds. */
    for (int i = 0; !atomic_load_explicit(&l->released, memory_order_acquire); i++)
        if (i % 64 == 63)
            sched_yield();
}

int pa__launch_wait(pa__launch *l)
{
    if (l->engine == PA__ENGINE_PTHD) {
        pa__pool_join(l->team, l->nteam, l->shape.n);
        l->nteam = 0;
    } else {
        omp_wait(l);
    }
    if (l->status == PA_OK)
        return PA_OK;
    const char *name = l->self ? pa_type_name(l->self) : "internal array";
    return pa__err(l->status, "%s: thread %lld of %lld failed: %s", name, (long long)l->failed_tid,
                   (long long)l->shape.n, l->msg[0] ? l->msg : pa_strerror(l->status));
}

/* Checks the thread type and fills the launch's engine and binding.  \return PA_OK or an error. */
static int thread_kind(const pa_type *t, pa__engine *engine, int *bind)
{
    const char *mtt = pa_mtt(t);
    if (strcmp(mtt, "pthd") == 0) {
        *engine = PA__ENGINE_PTHD;
        *bind = pa_threads_get_binding();
        return PA_OK;
    }
    if (strcmp(mtt, "omp") == 0) {
        if (!pa__omp_available())
            return pa__err(PA_ERR_NODEV, "pa_for over %s: omp thread arrays need OpenMP, which this build does "
                           "not have (meson -Dopenmp=enabled); pthd works without it", pa_type_name(t));
        *engine = PA__ENGINE_OMP;
        *bind = PA_BIND_NONE;
        return PA_OK;
    }
    if (strcmp(mtt, "mic") == 0) {
        if (!pa__hwloc_available())
            return pa__err(PA_ERR_NODEV, "pa_for over %s: mic threads are pinned through hwloc, which this "
                           "build does not have (meson -Dhwloc=enabled)", pa_type_name(t));
        *engine = PA__ENGINE_PTHD;
        *bind = -1;
        return PA_OK;
    }
    if (strcmp(mtt, "cuda") == 0)   /* a C callback cannot run on a GPU: the body is a kernel */
        return pa__err(PA_ERR_MTT, "pa_for over %s: cuda thread arrays run a kernel, not a C function; describe "
                       "the type with pa_cuda_threads and launch the kernel with pa_cuda_for (cuda.h)",
                       pa_type_name(t));
    if (strcmp(mtt, "mpi") == 0)
        return pa__err(PA_ERR_NODEV, "pa_for over %s: mpi thread arrays need the MPI backend, which this build "
                       "does not have", pa_type_name(t));
    if (strcmp(mtt, "any") == 0)
        return pa__err(PA_ERR_MTT, "pa_for over %s: the type has no thread type; declare it as "
                       "\"pthd [...]\" or \"omp [...]\"", pa_type_name(t));
    return pa__err(PA_ERR_MTT, "pa_for over %s: %s is a memory type, not a thread type; use pa_map to run a "
                   "function over the elements of a data type", pa_type_name(t), mtt);
}

int pa_for(const pa_type *threads, pa_thread_fn fn, const void *arg, size_t arg_size)
{
    pa__launch *l = NULL;
    pa__tshape shape;
    pa__engine engine = PA__ENGINE_PTHD;
    int bind = PA_BIND_NONE, st;
    if (threads != NULL && pa__type_usable(threads, "pa_for") != PA_OK)
        return PA_ERR_INVAL;
    if (threads == NULL || fn == NULL || (arg == NULL && arg_size > 0))
        return pa__err(PA_ERR_INVAL, "pa_for: %s is NULL", threads == NULL ? "the thread type"
                       : fn == NULL ? "the thread function" : "arg (with arg_size > 0)");
    const pa__launcher *other = pa__launcher_for(pa_mtt(threads));
    if (other != NULL)
        return other->launch(threads, fn, arg, arg_size);
    st = thread_kind(threads, &engine, &bind);
    if (st != PA_OK)
        return st;
    st = pa__tshape_of(threads, &shape);
    if (st != PA_OK)
        return st;
    if (shape.n < 1 || shape.n > PA_MAX_THREADS)
        return pa__err(PA_ERR_RANGE, "pa_for over %s: %lld threads, outside 1..%d (PA_MAX_THREADS)",
                       pa_type_name(threads), (long long)shape.n, PA_MAX_THREADS);
    st = launch_new(&shape, fn, arg, arg_size, &l);
    if (st != PA_OK)
        return st;
    l->self = threads;
    l->engine = engine;
    l->bind = bind;
    l->mic_tpc = shape.nleaves >= 2 ? (int)shape.leaf_size[shape.nleaves - 1] : 0;
    return pa__launch_go(l);
}

int pa__launch_go(pa__launch *l)
{
    pa__region *r = pa__region_current();
    int st = pa__launch_start(l, r == NULL);
    if (r != NULL && st == PA_OK) {
        pa__region_add(r, l);
        return PA_OK;
    }
    int wst = pa__launch_wait(l);
    pa__launch_free(l);
    return st != PA_OK ? st : wst;
}

int pa__for_flat(int64_t n, pa_thread_fn fn, void *arg)
{
    pa__tshape shape;
    pa__launch *l = NULL;
    pa__tshape_flat(n, &shape);
    int st = launch_new(&shape, fn, NULL, 0, &l);
    if (st != PA_OK)
        return st;
    l->engine = PA__ENGINE_PTHD;
    l->bind = pa_threads_get_binding();
    /* Internal arrays pass arg by reference: every thread sees the caller's arg. */
    l->internal_arg = arg;
    int sst = pa__launch_start(l, 1);
    int wst = pa__launch_wait(l);
    pa__launch_free(l);
    return sst != PA_OK ? sst : wst;
}
