/*
 * parray — tiling on the CPU (PARRAY's itile / otile / iotile).
 *
 * Tile t of an outer type is its flat indices [t*S, (t+1)*S), S = size(inner).  Where the outer types and the
 * inner one are affine on a few joint digits (tile_digits.c: the manual's tiled transposition has two tile digits
 * and two in-tile digits), a tile moves through the vector registers of vmem's SIMD set (tile_vmem.c): rows as
 * whole copies, a transposed tile transposed in registers.  With a tile function, each tile is staged into a
 * private buffer laid out by the inner type, in order on the calling thread (the callback sees tiles
 * deterministically).  Without one (pa_tile_copy's pure move) the move is pa_copy's (element k to element k, which
 * its planner makes over the copy threads), except inside a thread of a pa_for and between element types of one
 * size: there the staging buffer being unobservable, a tile goes from the source through registers straight to
 * the destination on the calling thread, tiles walked in groups (a few tiles along each of the last two tile
 * digits, so that the pages of both sides are reused).  Other layouts (gathered, or not splitting at the tile
 * size) are staged by joint run walks (thread_runs.c), serially.
 */
#include <stdlib.h>
#include <string.h>

#include "copy_host.h"
#include "mem_internal.h"
#include "thread_internal.h"
#include "tile_internal.h"

/*
 * Tiles are stored back into an outer array of at least this many bytes with streaming stores (runs of 256
 * bytes or more): such an array does not stay in the caches, and ordinary stores would read every destination
 * line before writing it.  The same bound as the copies' contiguous runs (copy_strategies.c: streamed from
 * 8 MiB on the 16-core host).  On that host listing 47's rows through vmem tiles moved 0.83 of an OpenMP
 * memcpy with ordinary stores (docs/gpu-results.md).
 */
#define PA__TILE_STREAM_BYTES ((int64_t)8 << 20)
#define PA__TILE_STREAM_RUN 256
/* A group of tiles walked together: about this many bytes, or strips of a transposition (group_shape). */
#define PA__TILE_GROUP_BYTES ((int64_t)64 << 10)
#define PA__TILE_STRIP_ROWS 32
#define PA__TILE_STRIP_BYTES 8192

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

/* A walk's status: a failing tile function's, with its message (if any) under ours. */
static int tile_status(int st, const char *what)
{
    if (st != PA_OK && pa_last_error()[0])   /* the callback's message, under ours (it lives in the buffer) */
        return pa__err_wrap(st, "%s: the tile function failed", what);
    if (st != PA_OK)
        return pa__err(st, "%s: the tile function failed (status %d, no message)", what, st);
    return st;
}

/* ---- planned walks (tile_digits.c) ------------------------------------------------------------------- */

typedef struct walker {
    const pa__tile_plan *p;
    const char *src;
    char *dst, *buf;           /* buf: the staging buffer of the ordered walk, NULL for a pure move */
    size_t e, bytes;           /* element size; the buffer's bytes */
    int stream, mode;
    pa_tile_fn fn;
    void *arg;
    int nouter;                /* tile digits before the last two */
    int64_t T0, T1, G, H;      /* the last two tile digits and the tiles of a group along each */
    int64_t ng0, ng1, units;   /* groups along each, and in all (x the outer digits) */
    int64_t ts0, ts1, td0, td1;
    int merge;                 /* 2: a group is one block (its tiles' last two digits extend the in-tile ones);
                                  1: a row of a group is (the last digit only); 0: tile by tile */
} walker;

/* Moves the in-tile digits: d[sum k_j * dst[j]] = s[sum k_j * src[j]]; the last two through the mover. */
static void move_digits(char *d, const int64_t *dst, const char *s, const int64_t *src, const int64_t *size, int nk,
                        size_t e, int stream)
{
    if (nk > 2) {
        for (int64_t i = 0; i < size[0]; i++)
            move_digits(d + i * dst[0] * (int64_t)e, dst + 1, s + i * src[0] * (int64_t)e, src + 1, size + 1,
                        nk - 1, e, stream);
        return;
    }
    int64_t R = nk == 2 ? size[0] : 1, C = nk >= 1 ? size[nk - 1] : 1;
    pa__tile_move(d, nk == 2 ? dst[0] : 0, nk >= 1 ? dst[nk - 1] : 1, s, nk == 2 ? src[0] : 0,
                  nk >= 1 ? src[nk - 1] : 1, R, C, e, stream);
}

/* One tile at source offset so and destination offset od (elements), tile index t. */
static int one_tile(const walker *w, int64_t so, int64_t od, int64_t t)
{
    const pa__tile_plan *p = w->p;
    int64_t e = (int64_t)w->e;
    if (w->buf == NULL) {
        move_digits(w->dst + od * e, p->kd, w->src + so * e, p->ks, p->ksize, p->nk, w->e, w->stream);
        return PA_OK;
    }
    char *b = w->buf + p->bbase * e;
    if (w->mode & PA_ITILE)
        move_digits(b, p->kb, w->src + so * e, p->ks, p->ksize, p->nk, w->e, 0);
    else
        memset(w->buf, 0, w->bytes);
    int st = w->fn != NULL ? w->fn(w->buf, t, w->arg) : PA_OK;
    if (st == PA_OK && (w->mode & PA_OTILE))
        move_digits(w->dst + od * e, p->kd, b, p->kb, p->ksize, p->nk, w->e, w->stream);
    return st;
}

/* Walks groups [u0, u1): each is up to G x H tiles of the last two tile digits, at one value of the others. */
static int walk_units(const walker *w, int64_t u0, int64_t u1)
{
    const pa__tile_plan *p = w->p;
    for (int64_t u = u0; u < u1; u++) {
        int64_t g1 = u % w->ng1, rest = u / w->ng1, g0 = rest % w->ng0, o = rest / w->ng0, tout = o;
        int64_t so = p->sbase, od = p->dbase;
        for (int j = w->nouter - 1; j >= 0; j--) {
            int64_t dg = o % p->tsize[j];
            o /= p->tsize[j];
            so += dg * p->ts[j];
            od += dg * p->td[j];
        }
        int64_t a1 = g0 * w->G + w->G < w->T0 ? g0 * w->G + w->G : w->T0;
        int64_t b1 = g1 * w->H + w->H < w->T1 ? g1 * w->H + w->H : w->T1;
        if (w->merge) {   /* a pure move: the group's tiles as one block (or one row of blocks per t0) */
            int64_t size[PA__TILE_DIGITS], e = (int64_t)w->e;
            memcpy(size, p->ksize, sizeof size);
            size[p->nk - 1] *= b1 - g1 * w->H;
            if (w->merge == 2)
                size[p->nk - 2] *= a1 - g0 * w->G;
            for (int64_t t0 = g0 * w->G; t0 < (w->merge == 2 ? g0 * w->G + 1 : a1); t0++) {
                int64_t s0 = so + t0 * w->ts0 + g1 * w->H * w->ts1, d0 = od + t0 * w->td0 + g1 * w->H * w->td1;
                move_digits(w->dst + d0 * e, p->kd, w->src + s0 * e, p->ks, size, p->nk, w->e, w->stream);
            }
            continue;
        }
        for (int64_t t0 = g0 * w->G; t0 < a1; t0++)
            for (int64_t t1 = g1 * w->H; t1 < b1; t1++) {
                int st = one_tile(w, so + t0 * w->ts0 + t1 * w->ts1, od + t0 * w->td0 + t1 * w->td1,
                                  (tout * w->T0 + t0) * w->T1 + t1);
                if (st != PA_OK)
                    return st;
            }
    }
    return PA_OK;
}

/*
 * The groups of a pure move.  A transposition (the source contiguous along one in-tile digit, the destination
 * along the other) is walked in strips of PA__TILE_STRIP_ROWS rows of the source, PA__TILE_STRIP_BYTES of each
 * row at a time: the source read as that many sequential streams, each destination row written whole lines at a
 * time, and the pages of both sides few enough for the TLB (copy_strips.c measured the same shape for
 * pa_copy's transposes on the 16-core host).  Other moves go PA__TILE_GROUP_BYTES at a time.  Where the tiles'
 * last two digits continue the in-tile ones on both sides, a group is moved as one block.
 */
static void group_shape(const pa__tile_plan *p, size_t e, walker *w)
{
    int nk = p->nk, nt = p->nt;
    int64_t S = 1;
    for (int j = 0; j < nk; j++)
        S *= p->ksize[j];
    int64_t tiles = PA__TILE_GROUP_BYTES / (S * (int64_t)e);
    w->G = 1;
    w->H = tiles > 1 ? tiles : 1;
    if (nk >= 2) {
        int64_t K0 = p->ksize[nk - 2], K1 = p->ksize[nk - 1], G = 0, H = 0;
        if (p->ks[nk - 1] == 1 && p->kd[nk - 2] == 1)
            G = (PA__TILE_STRIP_ROWS + K0 - 1) / K0, H = PA__TILE_STRIP_BYTES / (K1 * (int64_t)e);
        else if (p->ks[nk - 2] == 1 && p->kd[nk - 1] == 1)
            G = PA__TILE_STRIP_BYTES / (K0 * (int64_t)e), H = (PA__TILE_STRIP_ROWS + K1 - 1) / K1;
        if (G > 0 || H > 0)
            w->G = G > 1 ? G : 1, w->H = H > 1 ? H : 1;
    }
    if (nt < 2)
        w->G = 1;
    int m1 = nk >= 1 && nt >= 1 && w->ts1 == p->ksize[nk - 1] * p->ks[nk - 1] &&
             w->td1 == p->ksize[nk - 1] * p->kd[nk - 1];
    int m0 = nk >= 2 && nt >= 2 && w->ts0 == p->ksize[nk - 2] * p->ks[nk - 2] &&
             w->td0 == p->ksize[nk - 2] * p->kd[nk - 2];
    w->merge = m1 ? (m0 ? 2 : 1) : 0;
}

/* The walk of a plan: a pure move in groups, or the staged walk in order. */
static int planned_walk(const tile_args *a, const pa__tile_plan *p, pa_tile_fn fn, void *arg, int stream,
                        const char *what)
{
    size_t e = pa_elm_size(a->inner);
    walker w = {.p = p, .src = a->src, .dst = a->dst, .e = e, .stream = stream, .mode = a->mode, .fn = fn,
                .arg = arg, .T0 = 1, .T1 = 1};
    int nt = p->nt;
    if (nt >= 1)
        w.T1 = p->tsize[nt - 1], w.ts1 = p->ts[nt - 1], w.td1 = p->td[nt - 1];
    if (nt >= 2)
        w.T0 = p->tsize[nt - 2], w.ts0 = p->ts[nt - 2], w.td0 = p->td[nt - 2];
    w.nouter = nt > 2 ? nt - 2 : 0;
    int pure = fn == NULL && a->mode == PA_IOTILE;
    w.G = w.H = 1;
    if (pure)
        group_shape(p, e, &w);
    w.ng0 = (w.T0 + w.G - 1) / w.G;
    w.ng1 = (w.T1 + w.H - 1) / w.H;
    w.units = w.ng0 * w.ng1;
    for (int j = 0; j < w.nouter; j++)
        w.units *= p->tsize[j];
    int st = PA_OK;
    if (pure) {   /* on the calling thread: pa_tile_copy gives other pure moves to pa_copy */
        walk_units(&w, 0, w.units);
    } else {
        int64_t mn, mx;
        if (pa_extent(a->inner, &mn, &mx) != PA_OK)
            return pa__err_wrap(PA_ERR_INVAL, "%s", what);
        w.bytes = ((size_t)(mx + 1) * e + 63) / 64 * 64;
        w.buf = aligned_alloc(64, w.bytes);
        if (w.buf == NULL)
            return pa__err(PA_ERR_NOMEM, "%s: cannot allocate a %zu-byte tile of %s", what, w.bytes,
                           pa_type_name(a->inner));
        st = walk_units(&w, 0, w.units);
        free(w.buf);
    }
    if (stream)
        pa__stream_fence();
    return tile_status(st, what);
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
    pa_error_clear();   /* so that a failing tile function's own message, if any, is the one reported */
    if (pa_extent(a->inner, &mn, &mx) != PA_OK || mn < 0)
        return pa__err(PA_ERR_INVAL, "%s: inner %s reaches offset %lld; a tile buffer starts at offset 0", what,
                       pa_type_name(a->inner), (long long)mn);
    pa__tile_plan plan;
    if (pa__tile_plan_make(ls, ld, li, S, &plan))
        return planned_walk(a, &plan, fn, arg, stream, what);
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
    return tile_status(st, what);
}

int pa_tile(const pa_type *outer, void *data, const pa_type *inner, int mode, pa_tile_fn fn, void *arg)
{
    int st = tile_check(outer, data, inner, "pa_tile");
    if (st != PA_OK)
        return st;
    if (mode != PA_ITILE && mode != PA_OTILE && mode != PA_IOTILE)
        return pa__err(PA_ERR_INVAL, "pa_tile over %s: mode %d is not PA_ITILE, PA_OTILE or PA_IOTILE",
                       pa_type_name(outer), mode);
    if (fn == NULL && (mode & PA_ITILE))   /* each tile would be stored back as it was loaded: nothing changes */
        return PA_OK;
    tile_args a = {outer, outer, inner, data, data, mode};
    return tile_walk(&a, fn, arg, "pa_tile");
}

int pa_tile_copy(const pa_type *dst_outer, void *dst, const pa_type *src_outer, const void *src,
                 const pa_type *inner, pa_tile_fn fn, void *arg)
{
    int st = tile_check(src_outer, src, inner, "pa_tile_copy");
    if (st == PA_OK)
        st = tile_check(dst_outer, dst, inner, "pa_tile_copy");
    if (st != PA_OK)
        return st;
    if (pa_size(src_outer) != pa_size(dst_outer))
        return pa__err(PA_ERR_SIZE, "pa_tile_copy: source %s has %lld elements but destination %s has %lld",
                       pa_type_name(src_outer), (long long)pa_size(src_outer), pa_type_name(dst_outer),
                       (long long)pa_size(dst_outer));
    /* A pure move is element k of src_outer to element k of dst_outer for every k: pa_copy's definition.  Its
     * planner moves the listing's transposition through the same 16 x 16 register blocks in strips over the
     * copy threads, 1.43 of an OpenMP memcpy at 16 threads on the lent host where the tile walk moved 0.70-0.95
     * (docs/gpu-results.md, 2026-11-26).  Inside a thread of a pa_for the walk below runs on that thread. */
    if (fn == NULL && pa__current_ctx() == NULL && strcmp(pa_elm(src_outer), pa_elm(dst_outer)) == 0) {
        st = pa_copy(dst_outer, dst, src_outer, src);
        return st == PA_OK ? PA_OK : pa__err_wrap(st, "pa_tile_copy (a move without a tile function, made by pa_copy)");
    }
    tile_args a = {src_outer, dst_outer, inner, src, dst, PA_IOTILE};
    return tile_walk(&a, fn, arg, "pa_tile_copy");
}
