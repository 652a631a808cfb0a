/*
 * parray — tiling on the CPU (PARRAY's itile / otile / iotile).
 *
 * Tile t of an outer type is its flat indices [t*S, (t+1)*S), S = size(inner); it is staged into a private
 * buffer laid out by the inner type.  Both directions are joint run walks (thread_runs.c) of the inner layout
 * against the outer one, so a tile whose rows are contiguous moves with memcpy.  Tiles are walked in order on
 * the calling thread: the callback sees tiles deterministically, and a caller that wants threads starts them
 * around pa_tile (each thread walking its own outer type or part).
 */
#include <stdlib.h>
#include <string.h>

#include "copy_host.h"
#include "mem_internal.h"
#include "thread_internal.h"

/*
 * Tiles are stored back into an outer array of at least this many bytes with streaming stores (runs of 256
 * bytes or more): such an array does not stay in the caches, and ordinary stores would read every destination
 * line before writing it.  The same bound as the copies' contiguous runs (copy_strategies.c: streamed from
 * 8 MiB on the 16-core host).  On that host listing 47's rows through vmem tiles moved 0.83 of an OpenMP
 * memcpy with ordinary stores (docs/gpu-results.md).
 */
#define PA__TILE_STREAM_BYTES ((int64_t)8 << 20)
#define PA__TILE_STREAM_RUN 256

typedef struct stage {
    char *dst;
    const char *src;
    size_t elm;
    int load;   /* 1: l1 is the inner (dst = tile), 0: l1 is the inner but data flows tile -> outer */
    int stream; /* store runs of PA__TILE_STREAM_RUN bytes or more with streaming stores */
} stage;

/* Copies one joint run; o1/s1 are in the tile (inner layout), o2/s2 in the outer array. */
static void stage_run(int64_t k, int64_t n, int64_t o1, int64_t s1, int64_t o2, int64_t s2, void *p)
{
    const stage *g = p;
    size_t e = g->elm;
    char *d = g->dst + (g->load ? o1 : o2) * (int64_t)e;
    const char *s = g->src + (g->load ? o2 : o1) * (int64_t)e;
    int64_t ds = (g->load ? s1 : s2) * (int64_t)e, ss = (g->load ? s2 : s1) * (int64_t)e;
    if (ds == (int64_t)e && ss == (int64_t)e) {
        if (g->stream && (size_t)n * e >= PA__TILE_STREAM_RUN)
            pa__stream_copy(d, s, (size_t)n * e);
        else
            memcpy(d, s, (size_t)n * e);
        return;
    }
    for (int64_t i = 0; i < n; i++, d += ds, s += ss)
        memcpy(d, s, e);
}

typedef struct tile_args {
    const pa_type *src_t, *dst_t, *inner;
    const char *src;
    char *dst;
    int mode;
} tile_args;

static int tile_check(const pa_type *outer, const void *data, const pa_type *inner, const char *what)
{
    if (outer == NULL || data == NULL || inner == NULL)
        return pa__err(PA_ERR_INVAL, "%s: the %s is NULL", what,
                       outer == NULL ? "outer type" : data == NULL ? "data pointer" : "inner type");
    if (pa__type_usable(outer, what) != PA_OK || pa__type_usable(inner, what) != PA_OK)
        return PA_ERR_INVAL;
    int st = pa__check_host_type(outer, what);
    if (st == PA_OK)
        st = pa__check_host_type(inner, what);
    if (st != PA_OK)
        return st;
    if (pa_elm_size(outer) != pa_elm_size(inner))
        return pa__err(PA_ERR_ELM, "%s: outer %s has %zu-byte elements but inner %s has %zu", what,
                       pa_type_name(outer), pa_elm_size(outer), pa_type_name(inner), pa_elm_size(inner));
    if (strcmp(pa_mtt(inner), "vmem") == 0 && pa_size(inner) * pa_elm_size(inner) > pa__vmem_limit())
        return pa__err(PA_ERR_SIZE, "%s: the vmem tile %s of %lld bytes does not fit the %s vector register file "
                       "(%d registers of %d bytes)", what, pa_type_name(inner),
                       (long long)(pa_size(inner) * (int64_t)pa_elm_size(inner)), pa_vmem_isa(), pa_vmem_registers(),
                       pa_vmem_width());
    if (pa_size(outer) % pa_size(inner) != 0)
        return pa__err(PA_ERR_SIZE, "%s: outer %s has %lld elements, not a multiple of the %lld of inner %s",
                       what, pa_type_name(outer), (long long)pa_size(outer), (long long)pa_size(inner),
                       pa_type_name(inner));
    return PA_OK;
}

static int tile_walk(const tile_args *a, pa_tile_fn fn, void *arg, const char *what)
{
    const pa__layout *ls = pa__type_layout(a->src_t), *ld = pa__type_layout(a->dst_t);
    const pa__layout *li = pa__type_layout(a->inner);
    int64_t mn, mx, S = pa_size(a->inner), ntiles = pa_size(a->src_t) / S;
    size_t e = pa_elm_size(a->inner);
    int stream = (a->mode & PA_OTILE) && pa_size(a->dst_t) * (int64_t)e >= PA__TILE_STREAM_BYTES;
    char *buf = NULL;
    int st = PA_OK;
    if (ls == NULL || ld == NULL || li == NULL)
        return pa__err_wrap(PA_ERR_INVAL, "%s", what);
    pa_clear_error();   /* so that a failing tile function's own message, if any, is the one reported */
    if (pa_extent(a->inner, &mn, &mx) != PA_OK || mn < 0)
        return pa__err(PA_ERR_INVAL, "%s: inner %s reaches offset %lld; a tile buffer starts at offset 0", what,
                       pa_type_name(a->inner), (long long)mn);
    size_t bytes = ((size_t)(mx + 1) * e + 63) / 64 * 64;
    buf = aligned_alloc(64, bytes);
    if (buf == NULL)
        return pa__err(PA_ERR_NOMEM, "%s: cannot allocate a %zu-byte tile of %s", what, bytes,
                       pa_type_name(a->inner));
    for (int64_t t = 0; t < ntiles && st == PA_OK; t++) {
        if (a->mode & PA_ITILE) {
            stage g = {buf, a->src, e, 1, 0};
            pa__runs2(li, 0, ls, t * S, S, stage_run, &g);
        } else {
            memset(buf, 0, bytes);
        }
        if (fn != NULL && (st = fn(buf, t, arg)) != PA_OK)
            break;
        if (a->mode & PA_OTILE) {
            stage g = {a->dst, buf, e, 0, stream};
            pa__runs2(li, 0, ld, t * S, S, stage_run, &g);
        }
    }
    if (stream)
        pa__stream_fence();
    free(buf);
    if (st != PA_OK && pa_last_error()[0])   /* the callback's message, under ours (it lives in the buffer) */
        return pa__err_wrap(st, "%s: the tile function failed", what);
    if (st != PA_OK)
        return pa__err(st, "%s: the tile function failed (status %d, no message)", what, st);
    return st;
}

int pa_tile(const pa_type *outer, void *data, const pa_type *inner, int mode, pa_tile_fn fn, void *arg)
{
    int st = tile_check(outer, data, inner, "pa_tile");
    if (st != PA_OK)
        return st;
    if (mode != PA_ITILE && mode != PA_OTILE && mode != PA_IOTILE)
        return pa__err(PA_ERR_INVAL, "pa_tile over %s: mode %d is not PA_ITILE, PA_OTILE or PA_IOTILE",
                       pa_type_name(outer), mode);
    tile_args a = {outer, outer, inner, data, data, mode};
    return tile_walk(&a, fn, arg, "pa_tile");
}

int pa_tile2(const pa_type *src_outer, const void *src, const pa_type *dst_outer, void *dst,
             const pa_type *inner, pa_tile_fn fn, void *arg)
{
    int st = tile_check(src_outer, src, inner, "pa_tile2");
    if (st == PA_OK)
        st = tile_check(dst_outer, dst, inner, "pa_tile2");
    if (st != PA_OK)
        return st;
    if (pa_size(src_outer) != pa_size(dst_outer))
        return pa__err(PA_ERR_SIZE, "pa_tile2: source %s has %lld elements but destination %s has %lld",
                       pa_type_name(src_outer), (long long)pa_size(src_outer), pa_type_name(dst_outer),
                       (long long)pa_size(dst_outer));
    tile_args a = {src_outer, dst_outer, inner, src, dst, PA_IOTILE};
    return tile_walk(&a, fn, arg, "pa_tile2");
}
