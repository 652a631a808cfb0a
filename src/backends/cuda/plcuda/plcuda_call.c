/*
 * parray — calling a PL/CUDA function: arguments to the GPU, prep → main → post, the status and the result
 * back.
 *
 * Everything a call needs on the GPU lives in one buffer, used on the calling thread's per-thread stream: the
 * control block, the results and working buffers, and the host arrays and matrices copied in.  Kernels on one
 * stream run in order, so prep finishes before main starts and main before post.  Device arrays are passed as
 * they are.  Threads calling at once use their own streams and buffers.
 *
 * The memory is the calling thread's buffer on the GPU, kept between calls (arena_get), with two control
 * blocks used in turn.  A stream-ordered
 * allocation per call from the device's default pool (release threshold 0) was given back to the driver at
 * every synchronisation of the program, and the next call mapped it again: calls measured 70-90 us, not 15.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../cuda_backend.h"
#include "internal.h"
#include "plcuda_call.h"

#define ALIGN(x) (((x) + 255) & ~(size_t)255)
#define STREAM cudaStreamPerThread

/* One argument as the kernel sees it. */
typedef struct slot {
    _Alignas(16) unsigned char value[16];   /* a scalar's bytes (16 for numeric) */
    void *dptr;             /* arrays and matrices on the GPU */
    long len;               /* array elements */
    size_t bytes, off;      /* host data copied in: bytes at offset off of the allocation; 0 when passed as is */
} slot;

typedef struct call {
    pa_kernel *k;
    const pa_arg *args;
    int nargs;
    slot s[PA__PLC_MAX_ARGS];
    pa__plc_config cfg;
    char *dev;              /* the thread's buffer (arena_get) */
    struct arena *ar;       /* its owner, and the GPU it is on */
    int gpu, slot;          /* the control block this call uses (0 or 1) */
    int cleared_other;      /* a kernel of this call cleared the other control block */
    size_t results_off, work_off, total;
    pa__plc_ctl ctl;
} call;

/* Device to host on the calling thread's stream (not the legacy stream, which would wait for other threads). */
static cudaError_t d2h(void *dst, const void *src, size_t n)
{
    cudaError_t e = cudaMemcpyAsync(dst, src, n, cudaMemcpyDeviceToHost, STREAM);
    return e == cudaSuccess ? cudaStreamSynchronize(STREAM) : e;
}

/*
 * The calling thread's device memory for calls on the current GPU: one buffer per thread and GPU, grown when a
 * call needs more, kept between calls and freed when the thread exits.  A call synchronises its stream before
 * it returns, and the next call of the thread is ordered after it on the same stream, so reusing the buffer is
 * safe; it saves an allocation and a free per call (P6: a warm call within 2 us of a raw launch).
 */
typedef struct arena {
    char *ptr[PA__PLC_MAX_DEVICES];
    size_t cap[PA__PLC_MAX_DEVICES];
    /* Two control blocks at the start of the buffer, used in turn: a call's first kernel clears the other one
     * (the previous call's, read already), so no call spends a memset on its own.  dirty[d][i]: block i may
     * hold a previous call's values; cur[d]: the block the next call uses. */
    int dirty[PA__PLC_MAX_DEVICES][2];
    int cur[PA__PLC_MAX_DEVICES];
} arena;

static pthread_key_t arena_key;
static pthread_once_t arena_once = PTHREAD_ONCE_INIT;

static void arena_free(void *p)
{
    arena *a = p;
    for (int d = 0; d < PA__PLC_MAX_DEVICES; d++)
        if (a->ptr[d] && cudaSetDevice(d) == cudaSuccess)
            (void)cudaFree(a->ptr[d]);
    (void)cudaGetLastError();
    free(a);
}

static void arena_init(void)
{
    (void)pthread_key_create(&arena_key, arena_free);
}

static cudaError_t arena_get(size_t bytes, char **out, arena **aout, int *dev_out)
{
    int dev = 0;
    cudaError_t e = cudaGetDevice(&dev);
    if (e != cudaSuccess)
        return e;
    if (dev >= PA__PLC_MAX_DEVICES)
        return cudaErrorInvalidDevice;
    pthread_once(&arena_once, arena_init);
    arena *a = pthread_getspecific(arena_key);
    if (!a) {
        if (!(a = calloc(1, sizeof *a)))
            return cudaErrorMemoryAllocation;
        if (pthread_setspecific(arena_key, a) != 0) {
            free(a);
            return cudaErrorMemoryAllocation;
        }
    }
    if (a->cap[dev] < bytes) {
        size_t cap = bytes < 4096 ? 4096 : bytes + bytes / 2;
        if (a->ptr[dev] && (e = cudaStreamSynchronize(STREAM)) == cudaSuccess)
            e = cudaFree(a->ptr[dev]);
        a->ptr[dev] = NULL;
        a->cap[dev] = 0;
        if (e != cudaSuccess || (e = cudaMalloc((void **)&a->ptr[dev], cap)) != cudaSuccess)
            return e;
        a->cap[dev] = cap;
        a->dirty[dev][0] = a->dirty[dev][1] = 1;
    }
    *out = a->ptr[dev];
    *aout = a;
    *dev_out = dev;
    return cudaSuccess;
}

static int is_device(const void *p)
{
    struct cudaPointerAttributes a;
    if (cudaPointerGetAttributes(&a, p) != cudaSuccess) {
        (void)cudaGetLastError();
        return 0;
    }
    return a.type == cudaMemoryTypeDevice || a.type == cudaMemoryTypeManaged;
}

static int array_arg(call *c, int i, const pa__plc_tspec *t)
{
    const pa_arg *a = &c->args[i];
    size_t esz = (size_t)t->scalar->size, bytes;
    if (a->type) {
        if (pa_elm_size(a->type) != esz)
            return pa__err(PA_ERR_PARAM, "%s: argument %d is %s[] but its type's elements have %zu bytes", c->k->name,
                           i + 1, t->scalar->name, pa_elm_size(a->type));
        if (!(bytes = pa_alloc_bytes(a->type)))
            return pa__err_wrap(PA_ERR_PARAM, "%s: argument %d", c->k->name, i + 1);
    } else {
        if (a->count < 0)
            return pa__err(PA_ERR_PARAM, "%s: argument %d: negative element count", c->k->name, i + 1);
        bytes = (size_t)a->count * esz;
    }
    if (bytes && !a->ptr)
        return pa__err(PA_ERR_PARAM, "%s: argument %d: NULL array of %zu bytes", c->k->name, i + 1, bytes);
    c->s[i].len = (long)(bytes / esz);
    if (bytes && is_device(a->ptr))
        c->s[i].dptr = (void *)a->ptr;
    else
        c->s[i].bytes = bytes;
    return PA_OK;
}

static int matrix_arg(call *c, int i, const pa__plc_tspec *t)
{
    const pa_matrix *m = c->args[i].ptr;
    pa_matrix h;
    if (!m)
        return pa__err(PA_ERR_PARAM, "%s: argument %d: NULL matrix", c->k->name, i + 1);
    int dev = is_device(m);
    if (dev && d2h(&h, m, sizeof h) != cudaSuccess)
        return pa_cuda__fail(cudaGetLastError(), "%s: argument %d: reading the matrix header", c->k->name, i + 1);
    if (!dev)
        h = *m;
    size_t bytes = pa_matrix_rawsize(h.elm, h.height, h.width);
    if (pa_matrix_validate(&h, bytes ? bytes : sizeof h) != PA_OK)
        return pa__err_wrap(PA_ERR_PARAM, "%s: argument %d", c->k->name, i + 1);
    if (h.elm != t->scalar->matrix_elm)
        return pa__err(PA_ERR_PARAM, "%s: argument %d is matrix %s, the matrix has element type %d", c->k->name, i + 1,
                       t->scalar->name, h.elm);
    if (dev)
        c->s[i].dptr = (void *)m;
    else
        c->s[i].bytes = bytes;
    return PA_OK;
}

static int check_args(call *c)
{
    int st;
    for (int i = 0; i < c->nargs; i++) {
        const pa__plc_tspec *t = &c->k->sig.args[i];
        if (t->kind == PA__PLC_SCALAR) {
            if (!c->args[i].ptr)
                return pa__err(PA_ERR_PARAM, "%s: argument %d: NULL pointer to a %s", c->k->name, i + 1,
                               t->scalar->name);
            memcpy(c->s[i].value, c->args[i].ptr, (size_t)t->scalar->size);
        } else if ((st = t->kind == PA__PLC_ARRAY ? array_arg(c, i, t) : matrix_arg(c, i, t)) != PA_OK) {
            return st;
        }
    }
    return PA_OK;
}

/* Lays out and fills the allocation: control block, results, working buffer, copied arguments. */
static int stage_in(call *c)
{
    cudaError_t e;
    size_t ctl = ALIGN(sizeof(pa__plc_ctl));
    c->results_off = 2 * ctl;
    c->work_off = c->results_off + ALIGN((size_t)c->cfg.results_bufsz);
    c->total = c->work_off + ALIGN((size_t)c->cfg.working_bufsz);
    for (int i = 0; i < c->nargs; i++)
        if (c->s[i].bytes) {
            c->s[i].off = c->total;
            c->total += ALIGN(c->s[i].bytes);
        }
    if ((e = arena_get(c->total, &c->dev, &c->ar, &c->gpu)) != cudaSuccess) {
        c->dev = NULL;
        return pa_cuda__fail(e, "%s: %zu bytes of device memory for the call", c->k->name, c->total);
    }
    c->slot = c->ar->cur[c->gpu];
    /* Normally the previous call's first kernel cleared this block; a call that launched none did not. */
    if (c->ar->dirty[c->gpu][c->slot] &&
        (e = cudaMemsetAsync(c->dev + c->slot * ctl, 0, sizeof(pa__plc_ctl), STREAM)) != cudaSuccess)
        return pa_cuda__fail(e, "%s: clearing the control block", c->k->name);
    c->ar->dirty[c->gpu][c->slot] = 1;
    c->ar->cur[c->gpu] = 1 - c->slot;
    for (int i = 0; i < c->nargs; i++)
        if (c->s[i].bytes) {
            c->s[i].dptr = c->dev + c->s[i].off;
            e = cudaMemcpyAsync(c->s[i].dptr, c->args[i].ptr, c->s[i].bytes, cudaMemcpyHostToDevice, STREAM);
            if (e != cudaSuccess)
                return pa_cuda__fail(e, "%s: argument %d to the GPU", c->k->name, i + 1);
        }
    return PA_OK;
}

static int launch_all(call *c, pa_cuda__rtc_kernel *const kerns[PA__PLC_NBLOCKS])
{
    void *params[4 + 2 * PA__PLC_MAX_ARGS];
    size_t cb = ALIGN(sizeof(pa__plc_ctl));
    void *ctl = c->dev + c->slot * cb, *other = c->dev + (1 - c->slot) * cb, *clear = other;
    void *results = c->cfg.results_bufsz ? c->dev + c->results_off : NULL;
    void *work = c->cfg.working_bufsz ? c->dev + c->work_off : NULL;
    int n = 0, st;
    params[n++] = &ctl;
    params[n++] = &clear;
    params[n++] = &work;
    params[n++] = &results;
    for (int i = 0; i < c->nargs; i++) {
        pa__plc_kind kind = c->k->sig.args[i].kind;
        params[n++] = kind == PA__PLC_SCALAR ? (void *)c->s[i].value : (void *)&c->s[i].dptr;
        if (kind == PA__PLC_ARRAY)
            params[n++] = &c->s[i].len;
    }
    for (int b = PA__PLC_PREP; b < PA__PLC_NBLOCKS; b++) {
        const pa__plc_launch *l = &c->cfg.st[b];
        if (!l->present || l->threads == 0)
            continue;
        dim3 grid = {l->grid, 1, 1}, block = {(unsigned)l->block, 1, 1};
        if ((st = pa_cuda__rtc_launch(kerns[b], grid, block, l->shmem, STREAM, params)) != PA_OK)
            return pa__err_wrap(st, "%s: #plcuda_%s kernel", c->k->name, pa__plc_stage_names[b]);
        c->cleared_other |= clear != NULL;
        clear = NULL;   /* the first kernel clears the other block; the later ones need not */
    }
    cudaError_t e = d2h(&c->ctl, ctl, sizeof c->ctl);
    if (e != cudaSuccess)
        return pa_cuda__fail(e, "%s: running the kernels", c->k->name);
    if (c->cleared_other)   /* the kernels ran to the end: the other block is zero */
        c->ar->dirty[c->gpu][1 - c->slot] = 0;
    return PA_OK;
}

/* A variable-length result: retval's value must point into the results buffer. */
static int var_result(call *c, void *ret)
{
    const pa_kernel *k = c->k;
    uint64_t base = (uint64_t)(uintptr_t)(c->dev + c->results_off), end = base + (uint64_t)c->cfg.results_bufsz;
    uint64_t v = c->ctl.var_value, n = c->ctl.var_length;
    void *host = NULL;
    cudaError_t e;
    if (v == 0 || c->ctl.var_isnull) {
        if (k->sig.ret.kind == PA__PLC_MATRIX)
            *(pa_matrix **)ret = NULL;
        else
            *(pa_bytes *)ret = (pa_bytes){NULL, 0};
        return PA_OK;
    }
    if (v < base || v >= end)
        return pa__err(PA_ERR_KERNEL, "%s: retval->value points outside the results buffer (%lld bytes): not written "
                       "back", k->name, (long long)c->cfg.results_bufsz);
    if (k->sig.ret.kind == PA__PLC_MATRIX) {
        pa_matrix h;
        if (end - v < sizeof h)
            return pa__err(PA_ERR_KERNEL, "%s: the result matrix's header overruns the results buffer", k->name);
        if ((e = d2h(&h, (void *)(uintptr_t)v, sizeof h)) != cudaSuccess)
            return pa_cuda__fail(e, "%s: reading the result matrix", k->name);
        n = pa_matrix_rawsize(h.elm, h.height, h.width);
        if (pa_matrix_validate(&h, n ? n : sizeof h) != PA_OK)
            return pa__err_wrap(PA_ERR_KERNEL, "%s: the result is not a matrix %s", k->name, k->sig.ret.scalar->name);
        if (h.elm != k->sig.ret.scalar->matrix_elm)
            return pa__err(PA_ERR_KERNEL, "%s: the result matrix has element type %d, the signature says matrix %s",
                           k->name, h.elm, k->sig.ret.scalar->name);
    }
    if (n > end - v)
        return pa__err(PA_ERR_KERNEL, "%s: the result (%llu bytes) overruns the results buffer", k->name,
                       (unsigned long long)n);
    if (!(host = malloc(n ? n : 1)))
        return pa__err(PA_ERR_NOMEM, "%s: %llu bytes for the result", k->name, (unsigned long long)n);
    if (n && (e = d2h(host, (void *)(uintptr_t)v, n)) != cudaSuccess) {
        free(host);
        return pa_cuda__fail(e, "%s: reading the result", k->name);
    }
    if (k->sig.ret.kind == PA__PLC_MATRIX)
        *(pa_matrix **)ret = host;
    else
        *(pa_bytes *)ret = (pa_bytes){host, n};
    return PA_OK;
}

static int copy_back(call *c)
{
    for (int i = 0; i < c->nargs; i++)
        if (c->k->sig.args[i].inout && c->s[i].bytes) {
            cudaError_t e = d2h((void *)c->args[i].ptr, c->s[i].dptr, c->s[i].bytes);
            if (e != cudaSuccess)
                return pa_cuda__fail(e, "%s: argument %d back to the host", c->k->name, i + 1);
        }
    return PA_OK;
}

static int result(call *c, void *ret)
{
    switch (c->k->sig.ret.kind) {
    case PA__PLC_SCALAR:
        memcpy(ret, c->ctl.retval, (size_t)c->k->sig.ret.scalar->size);
        return PA_OK;
    case PA__PLC_MATRIX:
    case PA__PLC_BYTES:
        return var_result(c, ret);
    default:
        return PA_OK;
    }
}

/* PA_KERNEL_INFO=1 prints each call's configuration to stderr. */
static void announce(const call *c)
{
    static atomic_int warned;
    if (!pa__env_flag("PA_KERNEL_INFO", &warned))
        return;
    char text[1536];
    pa__plc_format(c->k, &c->cfg, text, sizeof text);
    fprintf(stderr, "parray: %s", text);
}

static int run(call *c, void *ret)
{
    pa_cuda__rtc_kernel *kerns[PA__PLC_NBLOCKS] = {NULL};
    pa_kernel *k = c->k;
    int st;
    if ((st = check_args(c)) != PA_OK)
        return st;
    if (k->parsed.sanity_fn >= 0) {
        const pa_kernel_func *f = &k->funcs[k->parsed.sanity_fn];
        if (!f->fn(c->args, c->nargs, NULL, f->ctx))
            return pa__err(PA_ERR_INVAL, "%s: the sanity check %s rejected the arguments", k->name, f->name);
    }
    if ((st = pa__plc_kernels(k, kerns)) != PA_OK ||
        (st = pa__plc_configure(k, kerns, c->args, c->nargs, &c->cfg)) != PA_OK || (st = stage_in(c)) != PA_OK)
        return st;
    announce(c);
    if ((st = launch_all(c, kerns)) != PA_OK)
        return st;
    if (c->ctl.status == 1)
        return pa__err(PA_ERR_KERNEL, "%s: the #plcuda_%s kernel raised error %d at line %d", k->name,
                       pa__plc_stage_names[c->ctl.stage >= 0 && c->ctl.stage < PA__PLC_NBLOCKS ? c->ctl.stage : 0],
                       c->ctl.code, c->ctl.line);
    if (c->ctl.status == 2) {
        if (k->parsed.fallback_fn < 0)
            return pa__err(PA_ERR_KERNEL, "%s: the kernel asked for a recheck on the CPU (line %d) but the function "
                           "has no #plcuda_cpu_fallback", k->name, c->ctl.line);
        const pa_kernel_func *f = &k->funcs[k->parsed.fallback_fn];
        return (int)f->fn(c->args, c->nargs, ret, f->ctx);
    }
    if ((st = copy_back(c)) != PA_OK)
        return st;
    return result(c, ret);
}

int pa_kernel_call(pa_kernel *k, const pa_arg *args, int nargs, void *ret)
{
    call *c;
    int st;
    if (!k)
        return pa__err(PA_ERR_INVAL, "pa_kernel_call: NULL function");
    if (nargs != k->sig.nargs || (nargs > 0 && !args))
        return pa__err(PA_ERR_PARAM, "%s: %d arguments given, the signature has %d", k->name, nargs, k->sig.nargs);
    if (!ret && k->sig.ret.kind != PA__PLC_VOID)
        return pa__err(PA_ERR_INVAL, "%s: NULL result pointer for a non-void function", k->name);
    if (!(c = calloc(1, sizeof *c)))
        return pa__err(PA_ERR_NOMEM, "%s: out of memory", k->name);
    c->k = k;
    c->args = args;
    c->nargs = nargs;
    pa__trace_push(PA__TRACE_KERNEL, k->name);   /* the NVTX range (the backend's trace hooks, trace_nvtx.c): the PL/CUDA function's name */
    st = run(c, ret);
    pa__trace_pop();
    free(c);
    return st;
}
