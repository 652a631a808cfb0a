/*
 * parray — for over data types in host memory (PARRAY's for k A(a)): an element or run function over every
 * element, through the type's compiled offsets, over pool threads.  Each thread owns one contiguous range of
 * flat indices (like OpenMP's static schedule, so pages first touched by a map are touched by the same thread
 * the next time) and maps it in chunks from its front; a thread done with its own range takes chunks from the
 * back of the others'.  So when some threads get less of the memory system than others (measured on the lent
 * 16-vCPU host: threads of one static split finish up to 1.4x apart), the map ends near the threads' average
 * time instead of the slowest thread's.
 */
#include <stdatomic.h>
#include <stdlib.h>
#include <unistd.h>

#include "thread_internal.h"

/* Below this many elements per thread a map runs on fewer threads; a wake-up costs about a microsecond.  A
 * range is split into at most PA__MAP_CHUNKS chunks of at least this many elements. */
#define PA__MAP_GRAIN 2048
#define PA__MAP_CHUNKS 16

/* One thread's range [lo, lo + len) in nchunks chunks; the chunks not yet taken are front .. back-1, packed in
 * one word (front in the low half) so that the owner (taking the front) and thieves (taking the back) claim
 * each chunk exactly once. */
typedef struct map_part {
    _Alignas(64) _Atomic uint64_t left;   /* one cache line a part */
    int64_t lo, len, nchunks;
} map_part;

static _Atomic int num_threads;   /* 0: not read from PA_NUM_THREADS yet */

int pa_threads_get_num(void)
{
    int n = atomic_load_explicit(&num_threads, memory_order_relaxed);
    if (n == 0) {
        static atomic_int warned;
        long cpus = pa__process_cpus();   /* this process's share: the node's ranks share the cores */
        cpus = cpus >= 1 && cpus <= PA_MAX_THREADS ? cpus : cpus > PA_MAX_THREADS ? PA_MAX_THREADS : 1;
        n = (int)pa__env_int("PA_NUM_THREADS", 1, PA_MAX_THREADS, cpus, "this process's share of the CPUs", &warned);
        atomic_store_explicit(&num_threads, n, memory_order_relaxed);
    }
    return n;
}

int pa_threads_set_num(int n)
{
    if (n < 1 || n > PA_MAX_THREADS)
        return pa__err(PA_ERR_RANGE, "pa_threads_set_num(%d): outside 1..%d", n, PA_MAX_THREADS);
    atomic_store_explicit(&num_threads, n, memory_order_relaxed);
    return PA_OK;
}

typedef struct map_job {
    const pa__layout *l1, *l2;
    char *p1, *p2;
    int64_t n;
    pa_run_fn run;      /* pa_map_runs: the caller's run function, called with arg */
    pa_run_fn loop;     /* pa_map: the per-element loop, called with &call */
    pa_run2_fn loop2;   /* pa_map2: the same over two arrays */
    void *arg;
    pa_elem_call call;
    map_part *parts;   /* one per thread; NULL: each thread maps its range alone */
} map_job;

/* pa_map2's runs of both arrays, as pointers and strides, to its per-element loop. */
static void elem2_run(int64_t k, int64_t n, int64_t o1, int64_t s1, int64_t o2, int64_t s2, void *p)
{
    const map_job *j = p;
    j->loop2(j->p1 + o1 * (int64_t)j->call.elm, s1, j->p2 + o2 * (int64_t)j->call.elm2, s2, k, n,
             (void *)&j->call);
}

/* Maps the contiguous range of flat indices [lo, hi): a chunk, or a whole static range. */
static void map_range(const map_job *j, int64_t lo, int64_t hi)
{
    if (j->loop2 != NULL)
        pa__runs2(j->l1, lo, j->l2, lo, hi - lo, elem2_run, (void *)j);
    else if (j->run != NULL)
        pa__runs1(j->l1, j->p1, j->call.elm, lo, hi, j->run, j->arg);
    else
        pa__runs1(j->l1, j->p1, j->call.elm, lo, hi, j->loop, (void *)&j->call);
}

/* Claims a chunk of part q from its front (the owner) or its back (a thief).  \return 0 when none is left. */
static int map_claim(map_part *q, int back, int64_t *lo, int64_t *hi)
{
    uint64_t w = atomic_load_explicit(&q->left, memory_order_relaxed), c;
    for (;;) {
        uint64_t front = w & 0xffffffffu, end = w >> 32;
        if (front >= end)
            return 0;
        c = back ? end - 1 : front;
        uint64_t next = back ? w - (1ull << 32) : w + 1;
        if (atomic_compare_exchange_weak_explicit(&q->left, &w, next, memory_order_relaxed, memory_order_relaxed))
            break;
    }
    *lo = q->lo + q->len * (int64_t)c / q->nchunks;
    *hi = q->lo + q->len * ((int64_t)c + 1) / q->nchunks;
    return 1;
}

static int map_thread(pa_ctx *ctx, void *p)
{
    const map_job *j = p;
    int64_t t = pa_tid(ctx), nt = pa_ctx_size(ctx), lo, hi;
    if (j->parts == NULL) {
        map_range(j, j->n * t / nt, j->n * (t + 1) / nt);
        return PA_OK;
    }
    for (int64_t u = 0; u < nt; u++)
        for (map_part *q = &j->parts[(t + u) % nt]; map_claim(q, u != 0, &lo, &hi);)
            map_range(j, lo, hi);
    return PA_OK;
}

static int map_go(map_job *j)
{
    int64_t nt = pa_threads_get_num();
    if (nt > (j->n + PA__MAP_GRAIN - 1) / PA__MAP_GRAIN)
        nt = (j->n + PA__MAP_GRAIN - 1) / PA__MAP_GRAIN;
    if (nt <= 1) {
        map_range(j, 0, j->n);
        return PA_OK;
    }
    /* The parts live on this stack up to 64 threads; beyond, on the heap (without it, static ranges). */
    map_part local[64];
    j->parts = nt <= 64 ? local : aligned_alloc(64, (size_t)nt * sizeof *j->parts);
    for (int64_t t = 0; j->parts != NULL && t < nt; t++) {
        map_part *q = &j->parts[t];
        q->lo = j->n * t / nt;
        q->len = j->n * (t + 1) / nt - q->lo;
        q->nchunks = q->len / PA__MAP_GRAIN < PA__MAP_CHUNKS ? q->len / PA__MAP_GRAIN : PA__MAP_CHUNKS;
        q->nchunks = q->nchunks < 1 ? 1 : q->nchunks;
        atomic_init(&q->left, (uint64_t)q->nchunks << 32);
    }
    int st = pa__for_flat(nt, map_thread, j);
    if (j->parts != local)
        free(j->parts);
    return st;
}

static int map_prepare(const pa_type *t, void *ptr, const char *what, const pa__layout **l)
{
    if (pa__type_usable(t, what) != PA_OK)
        return PA_ERR_INVAL;
    if (ptr == NULL)
        return pa__err(PA_ERR_INVAL, "%s: the data pointer is NULL", what);
    int st = pa__check_host_type(t, what);
    if (st != PA_OK)
        return st;
    *l = pa__type_layout(t);
    return *l ? PA_OK : pa__err_wrap(PA_ERR_INVAL, "%s over %s", what, pa_type_name(t));
}

int pa_map_using(const pa_type *data, void *ptr, pa_elem_fn elem, void *arg, pa_run_fn loop)
{
    map_job j = {.p1 = ptr, .loop = loop, .call = {.elem = elem, .arg = arg}};
    int st = map_prepare(data, ptr, "pa_map", &j.l1);
    if (st != PA_OK)
        return st;
    if (elem == NULL || loop == NULL)
        return pa__err(PA_ERR_INVAL, "pa_map over %s: the %s function is NULL", pa_type_name(data),
                       elem == NULL ? "element" : "loop");
    j.call.elm = pa_elm_size(data);
    j.n = pa_size(data);
    return map_go(&j);
}

/* The exported function, for callers that do not see thread.h's macro (FFI, function pointers): its loop is the
 * library's own copy of pa_elem_loop. */
int pa_map(const pa_type *data, void *ptr, pa_elem_fn elem, void *arg)
{
    return pa_map_using(data, ptr, elem, arg, pa_elem_loop);
}

int pa_map_runs(const pa_type *data, void *ptr, pa_run_fn run, void *arg)
{
    map_job j = {.p1 = ptr, .run = run, .arg = arg};
    int st = map_prepare(data, ptr, "pa_map_runs", &j.l1);
    if (st != PA_OK)
        return st;
    if (run == NULL)
        return pa__err(PA_ERR_INVAL, "pa_map_runs over %s: the run function is NULL", pa_type_name(data));
    j.call.elm = pa_elm_size(data);
    j.n = pa_size(data);
    return map_go(&j);
}

int pa_map2_using(const pa_type *t1, void *p1, const pa_type *t2, void *p2, pa_elem2_fn elem, void *arg,
                  pa_run2_fn loop)
{
    map_job j = {.p1 = p1, .p2 = p2, .loop2 = loop, .call = {.elem2 = elem, .arg = arg}};
    int st = map_prepare(t1, p1, "pa_map2", &j.l1);
    if (st == PA_OK)
        st = map_prepare(t2, p2, "pa_map2", &j.l2);
    if (st != PA_OK)
        return st;
    if (elem == NULL || loop == NULL)
        return pa__err(PA_ERR_INVAL, "pa_map2: the %s function is NULL", elem == NULL ? "element" : "loop");
    if (pa_size(t1) != pa_size(t2))
        return pa__err(PA_ERR_SIZE, "pa_map2: %s has %lld elements but %s has %lld", pa_type_name(t1),
                       (long long)pa_size(t1), pa_type_name(t2), (long long)pa_size(t2));
    j.call.elm = pa_elm_size(t1);
    j.call.elm2 = pa_elm_size(t2);
    j.n = pa_size(t1);
    return map_go(&j);
}

int pa_map2(const pa_type *t1, void *p1, const pa_type *t2, void *p2, pa_elem2_fn elem, void *arg)
{
    return pa_map2_using(t1, p1, t2, p2, elem, arg, pa_elem2_loop);
}
