/*
 * parray — thread arrays (PARRAY's for over thread types), their contexts, sync, parallel regions, and for
 * over data types (map).
 *
 * A thread type is declared like any other type, with a thread mtt: "pthd [3][4]", "omp [8]", "mic [4][2]".
 * Its dimension tree is the shape of the thread array: pa_for(PTHD, fn, &x, sizeof x) starts size(PTHD)
 * threads, each calling fn with its own context and its own copy of x (PARRAY's as clause), and returns when
 * every thread has returned.  Threads come from a pool that persists between launches, so a short for costs
 * microseconds.  Inside a thread, pa_tid(ctx) is the overall thread id (row-major over the leaves of the
 * dimension tree), pa_tid_path(ctx, "0") the id along one dimension (PARRAY's tid_0), and pa_sync(ctx, "1")
 * a barrier of the threads that share every index outside dimension 1 (PARRAY's sync_1).  A thread may start
 * its own array (nesting).  docs/threads.md describes the model with examples.
 *
 * Errors are reported as described in error.h.  The first thread whose callback fails decides the status of
 * pa_for (or of pa_parallel_end); every thread is still joined.
 */
#ifndef PARRAY_THREAD_H
#define PARRAY_THREAD_H

#include <stddef.h>
#include <stdint.h>

#include "error.h"
#include "type.h"

#ifdef __cplusplus
extern "C" {
#endif

/** The context of one thread of a running thread array; valid only inside that thread's callback. */
typedef struct pa_ctx pa_ctx;

/**
 * A thread's body.  arg points to the thread's own copy of the bytes given to pa_for (NULL when none).
 * \return PA_OK, or an error status (set a message with the thread's own failing parray call, or leave it);
 *         any nonzero value is passed to the caller of pa_for.
 */
typedef int (*pa_thread_fn)(pa_ctx *ctx, void *arg);

/** The most threads one array may have (a limit against absurd counts, not a hardware limit). */
#define PA_MAX_THREADS 4096

/**
 * Runs a thread array: one call of fn per thread of the thread type, each with a private copy of the arg_size
 * bytes at arg (PARRAY's "for TYPE as(...)").  pthd threads come from the library's pool; omp threads from an
 * OpenMP parallel region; mic threads are pthd threads pinned one per hardware thread of a
 * [cores][threads per core] grid (see topology.h); mpi arrays are MPI process arrays (see mpi.h: the task is
 * registered by name and runs on drafted processes).  Inside a parallel region the call starts the threads
 * and returns at once; pa_parallel_end() joins them.  May be called from inside a thread (nesting).
 * \return PA_OK; the first failing thread's status; PA_ERR_INVAL (NULL fn or type, arg NULL with arg_size > 0);
 *         PA_ERR_MTT (the type is not a thread type: use pa_map for data types; or a cuda type, whose body
 *         is a kernel: use pa_cuda_for of cuda.h); PA_ERR_RANGE (more than PA_MAX_THREADS threads);
 *         PA_ERR_NODEV (omp without OpenMP, mic or binding without hwloc, mpi types in builds without MPI); PA_ERR_NOMEM; PA_ERR_SYS (a thread could not be
 *         created); mpi arrays add the errors listed in mpi.h.
 */
PA_API int pa_for(const pa_type *threads, pa_thread_fn fn, const void *arg, size_t arg_size);

/** The thread's overall id in [0, pa_ctx_size(ctx)) (PARRAY's tid); 0 for NULL (the main context). */
PA_API int64_t pa_tid(const pa_ctx *ctx);

/**
 * The thread's id along a dimension of its thread type (PARRAY's tid_0, tid_0_1): the row-major index formed
 * by the leaf indices under that dimension.  For pthd [3][4], thread 5 has tid_path "0" = 1 and "1" = 1.
 * "" is the overall id.
 * \return the id, or -1 with PA_ERR_DIM (no such dimension) or PA_ERR_INVAL (NULL).
 */
PA_API int64_t pa_tid_path(const pa_ctx *ctx, const char *path);

/** Number of threads of the array the context belongs to (PARRAY's size(self)); 1 for NULL (main). */
PA_API int64_t pa_ctx_size(const pa_ctx *ctx);

/** The thread type of the current array (PARRAY's self); NULL for NULL and for internal arrays (pa_map). */
PA_API const pa_type *pa_self(const pa_ctx *ctx);

/** The context of the thread that started this array, or NULL when it was started from outside any array. */
PA_API const pa_ctx *pa_ctx_parent(const pa_ctx *ctx);

/**
 * Barrier over a dimension path (PARRAY's sync_d...): waits until every thread that shares this thread's
 * indices outside dimension path has called pa_sync with the same path.  "" synchronizes the whole array.
 * Every thread of a group must call it the same number of times, as in PARRAY.
 * \return PA_OK, PA_ERR_DIM (no such dimension in the thread type), PA_ERR_INVAL (NULL) or PA_ERR_NOMEM.
 */
PA_API int pa_sync(pa_ctx *ctx, const char *path);

/**
 * Opens a parallel region on the calling thread (PARRAY's parallel): until the matching pa_parallel_end, each
 * pa_for starts its threads and returns at once.  Regions nest.
 * \return PA_OK or PA_ERR_NOMEM.
 */
PA_API int pa_parallel_begin(void);

/**
 * Closes the innermost parallel region of the calling thread: waits for every array started in it.
 * \return PA_OK, the status of the first array (in launch order) that failed, or PA_ERR_INVAL (no region).
 */
PA_API int pa_parallel_end(void);

/* ---- binding and the default number of threads ------------------------------------------------------ */

/** Thread placement for pthd arrays (needs hwloc; mic arrays are always pinned). */
typedef enum pa_bind {
    PA_BIND_NONE = 0,   /* leave placement to the OS (the default) */
    PA_BIND_COMPACT,    /* thread i on hardware thread i, filling each core before the next */
    PA_BIND_SPREAD      /* threads spread over cores (and packages) first, one hardware thread per core */
} pa_bind;

/**
 * Sets the placement of the threads of later pthd arrays, process-wide.  PA_BIND (compact, spread, none) in
 * the environment gives the initial value.
 * \return PA_OK, PA_ERR_INVAL (unknown policy) or PA_ERR_NODEV (compact/spread without hwloc).
 */
PA_API int pa_threads_set_binding(pa_bind policy);

/** The current placement policy. */
PA_API pa_bind pa_threads_get_binding(void);

/**
 * Sets the number of threads used by pa_map (PA_NUM_THREADS in the environment gives the initial value, else
 * this process's share of the CPUs).  pa_tile and pa_tile_copy with a tile function walk tiles in order on
 * the calling thread; pa_tile_copy's move without one is a copy, on pa_copy's threads (pa_copy_set_threads).
 * \return PA_OK or PA_ERR_RANGE (n < 1 or n > PA_MAX_THREADS).
 */
PA_API int pa_threads_set_num(int n);

/** The number of threads used by pa_map. */
PA_API int pa_threads_get_num(void);

/* Deprecated names (verb before the noun), removed in the next release: the same calls as the names they name. */
PA_API PA_DEPRECATED("use pa_threads_set_binding") int pa_set_binding(pa_bind policy);
PA_API PA_DEPRECATED("use pa_threads_get_binding") pa_bind pa_get_binding(void);
PA_API PA_DEPRECATED("use pa_threads_set_num") int pa_set_num_threads(int n);
PA_API PA_DEPRECATED("use pa_threads_get_num") int pa_get_num_threads(void);

/* ---- for over data types (map) ---------------------------------------------------------------------- */

/** An element function: elem points at element k (k is the flat index in the type, PARRAY's for k A(a)). */
typedef void (*pa_elem_fn)(void *elem, int64_t k, void *arg);

/** An element function over two arrays: e1 = &a[T1(k)], e2 = &b[T2(k)]. */
typedef void (*pa_elem2_fn)(void *e1, void *e2, int64_t k, void *arg);

/**
 * A run function: n consecutive flat indices k0 .. k0+n-1 whose elements are first, first + stride, ...
 * (stride in elements, may be 0 or negative).  Lets an element loop vectorise.
 */
typedef void (*pa_run_fn)(void *first, int64_t stride, int64_t k0, int64_t n, void *arg);

/**
 * Maps elem over every element of ptr seen through type data (PARRAY's for k A(a)): elem(ptr + data(k), k)
 * for every flat index k, over pa_threads_get_num() pool threads (at least 2048 elements a thread).  Each
 * thread owns a contiguous range of k and maps it in chunks from its front; a thread done with its own takes
 * chunks from the back of the others' ranges, so a thread that gets less of the machine delays the map less.
 * Every k is visited exactly once, through the type's offsets, so a transposed or windowed type touches
 * exactly its elements.  elem must be safe to call from several threads at once.
 *
 * pa_map is also a macro for pa_map_using(data, ptr, elem, arg, pa_elem_loop), so that the loop which calls
 * elem once per element is compiled into the caller's program, next to elem, instead of into the library: on
 * current Intel cores an indirect call to a function more than 4 GiB away (from a shared library into the
 * executable) costs up to 1.5x a near one (docs/threads.md).  (pa_map)(...) or a pointer to pa_map calls the
 * library's function, whose loop is the library's copy of pa_elem_loop.  Define PA_NO_MAP_MACROS before
 * including parray.h to keep the plain functions.
 * \return PA_OK; PA_ERR_INVAL (NULL argument); PA_ERR_ELM (no element type); PA_ERR_MTT (a thread type);
 *         PA_ERR_NODEV (memory the CPU cannot address, such as dmem without the CUDA backend).
 */
PA_API int pa_map(const pa_type *data, void *ptr, pa_elem_fn elem, void *arg);

/**
 * What a per-element loop (pa_elem_loop, pa_elem2_loop) receives as its last argument: the element function,
 * its argument and the element sizes in bytes (elm2 and elem2 for pa_map2 only).  Filled by the library.
 */
typedef struct pa_elem_call {
    pa_elem_fn elem;
    pa_elem2_fn elem2;
    void *arg;
    size_t elm, elm2;
} pa_elem_call;

/**
 * A run function over two arrays: n consecutive flat indices k0 .. k0+n-1 whose elements are first1,
 * first1 + stride1, ... and first2, first2 + stride2, ... (strides in elements of each array).
 */
typedef void (*pa_run2_fn)(void *first1, int64_t stride1, void *first2, int64_t stride2, int64_t k0, int64_t n,
                           void *arg);

/**
 * pa_map whose per-element calls are made by loop, a run function that receives a pa_elem_call (pa_elem_loop,
 * or a loop of the caller's own).  pa_map(data, ptr, elem, arg) is pa_map_using(data, ptr, elem, arg,
 * pa_elem_loop).  \return as pa_map, and PA_ERR_INVAL when loop is NULL.
 */
PA_API int pa_map_using(const pa_type *data, void *ptr, pa_elem_fn elem, void *arg, pa_run_fn loop);

/**
 * The per-element loop of pa_map: call->elem(first + i * stride * call->elm, k0 + i, call->arg) for i in 0..n-1.
 * static inline, so every file that uses pa_map has its own copy, near its element functions.
 */
static inline void pa_elem_loop(void *first, int64_t stride, int64_t k0, int64_t n, void *call)
{
    const pa_elem_call *c = (const pa_elem_call *)call;
    pa_elem_fn f = c->elem;
    void *arg = c->arg;
    char *e = (char *)first;
    int64_t step = stride * (int64_t)c->elm;
    for (int64_t k = k0, end = k0 + n; k < end; k++, e += step)
        f(e, k, arg);
}

/** pa_map over runs of elements: run(first, stride, k0, n) covers every k once.  \return as pa_map. */
PA_API int pa_map_runs(const pa_type *data, void *ptr, pa_run_fn run, void *arg);

/**
 * Defines `static void NAME(void *first, int64_t stride, int64_t k0, int64_t n, void *arg)`, a run function that
 * calls the element function ELEM (a pa_elem_fn) on each element of a run, the elements being of C type T (of
 * the data type's element size).  Where ELEM's definition is visible (in the same file, or static inline in a
 * header) the compiler inlines it into the run's loop and can vectorise it, so pa_map_runs(data, ptr, NAME, arg)
 * does what pa_map(data, ptr, ELEM, arg) does without an indirect call per element, which pa_map cannot avoid
 * (it receives ELEM at run time): on few threads that call costs more than the memory (docs/threads.md).
 */
#define PA_ELEM_RUNS(NAME, ELEM, T)                                                                               \
    static void NAME(void *pa_first_, int64_t pa_stride_, int64_t pa_k0_, int64_t pa_n_, void *pa_arg_)         \
    {                                                                                                             \
        T *pa_e_ = (T *)pa_first_;                                                                                \
        if (pa_stride_ == 1)                                                                                      \
            for (int64_t pa_i_ = 0; pa_i_ < pa_n_; pa_i_++)                                                       \
                ELEM(pa_e_ + pa_i_, pa_k0_ + pa_i_, pa_arg_);                                                     \
        else                                                                                                      \
            for (int64_t pa_i_ = 0; pa_i_ < pa_n_; pa_i_++)                                                       \
                ELEM(pa_e_ + pa_i_ * pa_stride_, pa_k0_ + pa_i_, pa_arg_);                                        \
    }

/**
 * pa_map over two arrays of the same size: elem(p1 + t1(k), p2 + t2(k), k) for every k.  Like pa_map, also a
 * macro for pa_map2_using(t1, p1, t2, p2, elem, arg, pa_elem2_loop).
 * \return as pa_map, and PA_ERR_SIZE when the sizes differ.
 */
PA_API int pa_map2(const pa_type *t1, void *p1, const pa_type *t2, void *p2, pa_elem2_fn elem, void *arg);

/**
 * pa_map2 whose per-element calls are made by loop, a pa_run2_fn that receives a pa_elem_call (pa_elem2_loop, or
 * a loop of the caller's own).  \return as pa_map2, and PA_ERR_INVAL when loop is NULL.
 */
PA_API int pa_map2_using(const pa_type *t1, void *p1, const pa_type *t2, void *p2, pa_elem2_fn elem, void *arg,
                         pa_run2_fn loop);

/** The per-element loop of pa_map2: call->elem2(first1 + i * stride1 * elm, first2 + i * stride2 * elm2, k0 + i). */
static inline void pa_elem2_loop(void *first1, int64_t stride1, void *first2, int64_t stride2, int64_t k0, int64_t n,
                                 void *call)
{
    const pa_elem_call *c = (const pa_elem_call *)call;
    pa_elem2_fn f = c->elem2;
    void *arg = c->arg;
    char *a = (char *)first1, *b = (char *)first2;
    int64_t da = stride1 * (int64_t)c->elm, db = stride2 * (int64_t)c->elm2;
    for (int64_t k = k0, end = k0 + n; k < end; k++, a += da, b += db)
        f(a, b, k, arg);
}

#if !defined(PA_NO_MAP_MACROS) && !defined(PA_BUILDING_LIBRARY)
#define pa_map(data, ptr, elem, arg) pa_map_using((data), (ptr), (elem), (arg), pa_elem_loop)
#define pa_map2(t1, p1, t2, p2, elem, arg) pa_map2_using((t1), (p1), (t2), (p2), (elem), (arg), pa_elem2_loop)
#endif

#ifdef __cplusplus
}
#endif
#endif
