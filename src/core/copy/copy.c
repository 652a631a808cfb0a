/*
 * parray — copy between any two layouts: the public entry points.
 *
 * Everything that can fail is checked before a byte is written: the arguments, the sizes, the element sizes,
 * the memory types, the compiled layouts and the plan.  The plan comes from the cache (plan_cache.c), so a
 * repeated copy between the same pair of types costs a hash and a few compares before its kernel runs.
 */
#include <stdio.h>
#include <string.h>

#include "copy_internal.h"

/* The memory ops of a type's mtt: NULL for unspecified ("any") memory, which is treated as host memory.  A
 * memory type without an allocator in this build has no copy strategy either. */
static int memory_of(const pa_type *t, const pa__mem_ops **out)
{
    const char *name = pa_mtt(t);
    *out = NULL;
    if (!name || strcmp(name, "any") == 0)
        return PA_OK;
    *out = pa__mem_find(name);
    return *out ? PA_OK : PA_ERR_MTT;
}

/* The checks of a pair of types that come before its layouts: usable, bound, sizes, element sizes, memory
 * types (their ops in *dm and *sm). */
static int check_pair(const pa_type *dt, const pa_type *st, const pa__mem_ops **dmo, const pa__mem_ops **smo)
{
    const pa__mem_ops *dm, *sm;
    int usable = pa__type_usable(dt, "copy (destination)");
    if (usable != PA_OK || (usable = pa__type_usable(st, "copy (source)")) != PA_OK)
        return usable;
    if (pa__bound(dt, "copy") || pa__bound(st, "copy"))
        return PA_ERR_PARAM;
    int64_t dsize = pa_size(dt), ssize = pa_size(st);
    if (dsize != ssize)
        return pa__err(PA_ERR_SIZE, "copy from %s (%lld elements) to %s (%lld elements): sizes differ",
                       pa_type_name(st), (long long)ssize, pa_type_name(dt), (long long)dsize);
    size_t de = pa_elm_size(dt), se = pa_elm_size(st);
    if (de == 0 || se == 0 || de != se)
        return pa__err(PA_ERR_ELM, "copy from %s (%s, %zu bytes) to %s (%s, %zu bytes): element sizes %s",
                       pa_type_name(st), pa_elm(st), se, pa_type_name(dt), pa_elm(dt), de,
                       de == 0 || se == 0 ? "unspecified" : "differ");
    int dec = pa__elm_copy_check(pa_type_name(dt), pa_elm(dt), pa_type_name(st), pa_elm(st));
    if (dec != PA_OK)
        return dec;
    if (memory_of(dt, &dm) != PA_OK || memory_of(st, &sm) != PA_OK) {
        /* Why the side without an allocator has none (a backend not built, or switched off by PA_BACKENDS). */
        const char *side = dm == NULL && pa_mtt(dt) && strcmp(pa_mtt(dt), "any") != 0 ? pa_mtt(dt) : pa_mtt(st);
        const char *why = side ? pa__mem_missing(side) : NULL;
        char note[400] = "";
        if (why)
            snprintf(note, sizeof note, " (%s: %s)", side, why);
        return pa__err(PA_ERR_MTT, "copy from %s (%s) to %s (%s): no copy strategy exists for this pair of "
                       "memory types yet%s", pa_type_name(st), pa_mtt(st), pa_type_name(dt), pa_mtt(dt), note);
    }
    *dmo = dm;
    *smo = sm;
    return PA_OK;
}

/* 1 when a copy between two types moves nothing: both empty (check_pair still checks them; an unbound handle,
 * which has no size either, fails there with PA_ERR_PARAM). */
static int empty_pair(const pa_type *dt, const pa_type *st)
{
    return pa__type_usable(dt, "copy") == PA_OK && pa__type_usable(st, "copy") == PA_OK && pa_size(dt) == 0 &&
           pa_size(st) == 0;
}

/*
 * Checks a pair of types and finds their plan; *dl and *sl get the compiled layouts.  When the compiler refuses
 * a layout (PA_ERR_UNSUPPORTED: tables past its budget), the result is PA_OK with *out NULL: the copy walks.
 */
static int prepare(const pa_type *dt, const pa_type *st, const pa__layout **dl, const pa__layout **sl,
                   const pa__mem_ops **dmo, const pa__mem_ops **smo, pa__plan **out, pa__piece_plan *pp)
{
    const pa__mem_ops *dm, *sm;
    int chk = check_pair(dt, st, dmo, smo);
    if (chk != PA_OK)
        return chk;
    dm = *dmo;
    sm = *smo;
    size_t de = pa_elm_size(dt);
    *out = NULL;
    /* A side that needs tables or was refused may be piecewise affine: then one plan per piece (pp->n > 0). */
    int ps = pp ? pa__piece_plan_make(dt, st, de, dm, sm, pp) : PA_ERR_UNSUPPORTED;
    if (ps != PA_ERR_UNSUPPORTED)
        return ps;
    int status = pa__layout_get(dt, dl);
    if (status == PA_OK)
        status = pa__layout_get(st, sl);
    if (status != PA_OK)
        return status == PA_ERR_UNSUPPORTED ? PA_OK : status;
    return pa__plan_get(*dl, *sl, de, dm, sm, out);
}

/*
 * The backends of the last few distributed pairs this thread copied.  Finding a pair's backend walks both types
 * and compares names (about 160 instructions), which a small distributed copy repeated in a loop should not
 * pay every time; a pair found here goes straight to its backend.  Per thread, so without a lock.
 */
#define DIST_MEMO 4
static _Thread_local struct dist_memo {
    struct { pa__pair pair; const pa__dist_ops *ops; } e[DIST_MEMO];
    unsigned next;
} dist_memo;

/* The calling thread's memo.  Taken once per copy through this call: GCC would otherwise recompute the
 * thread-local address (a call to __tls_get_addr in a shared library) at every entry it looks at. */
__attribute__((noinline)) static struct dist_memo *memo_here(void)
{
    return &dist_memo;
}

/* The backend of a distributed pair in the calling thread's memo, or NULL.  A remembered pair is live: a
 * destroyed type's node is zeroed, its serial with it (type_nodes.c). */
static inline const pa__dist_ops *remembered(const pa_type *dt, const pa_type *st)
{
    struct dist_memo *m = memo_here();
    for (int i = 0; dt && st && i < DIST_MEMO; i++)
        if (pa__pair_is(&m->e[i].pair, dt, st))
            return m->e[i].ops;
    return NULL;
}

/* A copy with a distributed side goes to the backend of its thread type (MPI, pthd): 0 when neither is, else 1
 * with *ops its hooks, or NULL and *status why there is none. */
static int distributed(const pa_type *dt, const pa_type *st, const pa__dist_ops **ops, int *status)
{
    struct dist_memo *m;
    *status = PA_OK;
    if ((*ops = remembered(dt, st)))
        return 1;
    m = memo_here();
    if (pa__type_usable(dt, "copy") != PA_OK || pa__type_usable(st, "copy") != PA_OK)
        return 0;   /* prepare() says which */
    if (!pa__type_distributed(dt) && !pa__type_distributed(st))
        return 0;
    if ((*status = pa__dist_ops_for(dt, st, ops)) == PA_OK) {   /* not remembered without one: each copy says why */
        unsigned i = m->next++ % DIST_MEMO;
        pa__pair_set(&m->e[i].pair, dt, st);
        m->e[i].ops = *ops;
    }
    return 1;
}

/*
 * A prepared copy between two pointers: their memory checked against the types, then the plan, the walk, or
 * (sides that overlap in memory) a copy through a temporary; one that changes nothing is skipped.  The plan's
 * reference is dropped.  stream: NULL for pa_copy, else the stream pa_copy_async queues on (an overlapping copy
 * waits for it and runs synchronously).
 */
static int run(const pa_type *dt, void *dst, const pa__layout *dl, const pa__mem_ops *dm, const pa_type *st,
               const void *src, const pa__layout *sl, const pa__mem_ops *sm, pa__plan *p, int async, void *stream)
{
    int rc = pa__copy_check_memory(dt, dst, dm, st, src, sm, p ? dl : NULL, p ? sl : NULL);
    if (rc == PA_OK && p == NULL) {
        rc = async ? pa__stream_wait(stream) : PA_OK;
        pa__trace_push(PA__TRACE_COPY, "walk");
        rc = rc != PA_OK ? rc : pa__copy_walk(dt, dst, st, src);
        pa__trace_pop();
        return rc;
    }
    if (rc != PA_OK) {
        pa__plan_unref(p);
        return rc;
    }
    switch (pa__copy_overlap(dl, dst, dm, sl, src, sm, pa_elm_size(dt))) {
    case PA__OVERLAP_SAME:
        rc = async ? pa__stream_wait(stream) : PA_OK;
        break;
    case PA__OVERLAP:
        rc = async ? pa__stream_wait(stream) : PA_OK;
        pa__trace_push(PA__TRACE_COPY, "through a temporary (overlap)");
        if (rc == PA_OK)
            rc = pa__copy_through_temp(dt, dl, dst, dm, st, sl, src, sm, pa_elm_size(dt));
        pa__trace_pop();
        break;
    default:
        pa__trace_push(PA__TRACE_COPY, p->strategy->name);
        rc = async ? pa__plan_exec_async(p, dst, dl->base, src, sl->base, stream)
                   : pa__plan_exec(p, dst, dl->base, src, sl->base);
        pa__trace_pop();
    }
    pa__plan_unref(p);
    return rc;
}

/*
 * A copy planned piece by piece: the memory checked as for any copy; sides that overlap in memory go back to the
 * one-layout path (which copies through a temporary).  \return the status, or 1 when the caller must fall back.
 */
static int run_pieces(const pa_type *dt, void *dst, const pa__mem_ops *dm, const pa_type *st, const void *src,
                      const pa__mem_ops *sm, pa__piece_plan *pp, int async, void *stream)
{
    pa__layout de = {0}, se = {0};
    int rc = pa__copy_check_memory(dt, dst, dm, st, src, sm, NULL, NULL);
    if (rc == PA_OK && (rc = pa_extent(dt, &de.min_off, &de.max_off)) == PA_OK &&
        (rc = pa_extent(st, &se.min_off, &se.max_off)) == PA_OK) {
        de.nmodes = 1;     /* for the overlap test only: extents, and never "the same layout" */
        if (pa__copy_overlap(&de, dst, dm, &se, src, sm, pa_elm_size(dt)) != PA__NO_OVERLAP)
            rc = 1;
        else
            rc = pa__piece_plan_exec(pp, dst, src, stream, async);
    }
    pa__piece_plan_free(pp);
    return rc;
}

/* pa_copy past the memo of distributed pairs. */
__attribute__((noinline)) static int copy_sync(const pa_type *dst_type, void *dst, const pa_type *src_type,
                                               const void *src)
{
    const pa__layout *dl, *sl;
    const pa__mem_ops *dm, *sm;
    const pa__dist_ops *ops;
    pa__plan *p = NULL;
    int st;
    if (distributed(dst_type, src_type, &ops, &st))
        return ops ? ops->copy(dst_type, dst, src_type, src) : st;
    if (empty_pair(dst_type, src_type))   /* nothing to move: the pointers are not read (NULL will do) */
        return check_pair(dst_type, src_type, &dm, &sm);
    if (!dst || !src)
        return pa__err(PA_ERR_INVAL, "copy: NULL %s pointer", !dst ? "destination" : "source");
    pa__piece_plan pp = {0};
    st = prepare(dst_type, src_type, &dl, &sl, &dm, &sm, &p, &pp);
    if (st == PA_OK && pp.n && (st = run_pieces(dst_type, dst, dm, src_type, src, sm, &pp, 0, NULL)) != 1)
        return st;
    if (st == 1)
        st = prepare(dst_type, src_type, &dl, &sl, &dm, &sm, &p, NULL);
    if (st != PA_OK)
        return st;
    return run(dst_type, dst, dl, dm, src_type, src, sl, sm, p, 0, NULL);
}

/* A distributed copy repeated in a loop goes straight to its backend: pa_copy itself then needs no frame, whose
 * saved registers were a tenth of what a 1 KiB MPI copy cost besides MPI. */
int pa_copy(const pa_type *dst_type, void *dst, const pa_type *src_type, const void *src)
{
    const pa__dist_ops *ops = remembered(dst_type, src_type);
    if (ops)
        return ops->copy(dst_type, dst, src_type, src);
    return copy_sync(dst_type, dst, src_type, src);
}

int pa_copy_async(const pa_type *dst_type, void *dst, const pa_type *src_type, const void *src, void *stream)
{
    const pa__layout *dl, *sl;
    const pa__mem_ops *dm, *sm;
    const pa__dist_ops *ops;
    pa__plan *p = NULL;
    int st;
    if (distributed(dst_type, src_type, &ops, &st)) {   /* distributed copies are collective and synchronous */
        if (!ops)
            return st;
        st = pa__stream_wait(stream);
        return st != PA_OK ? st : pa_copy(dst_type, dst, src_type, src);
    }
    if (empty_pair(dst_type, src_type))
        return check_pair(dst_type, src_type, &dm, &sm);
    if (!dst || !src)
        return pa__err(PA_ERR_INVAL, "copy: NULL %s pointer", !dst ? "destination" : "source");
    pa__piece_plan pp = {0};
    st = prepare(dst_type, src_type, &dl, &sl, &dm, &sm, &p, &pp);
    if (st == PA_OK && pp.n && (st = run_pieces(dst_type, dst, dm, src_type, src, sm, &pp, 1, stream)) != 1)
        return st;
    if (st == 1)
        st = prepare(dst_type, src_type, &dl, &sl, &dm, &sm, &p, NULL);
    if (st != PA_OK)
        return st;
    return run(dst_type, dst, dl, dm, src_type, src, sl, sm, p, 1, stream);
}

int pa_copy_explain(const pa_type *dst_type, const pa_type *src_type, char *buf, size_t len)
{
    const pa__layout *dl, *sl;
    const pa__mem_ops *dm, *sm;
    const pa__dist_ops *ops;
    pa__plan *p = NULL;
    int st;
    if (!buf && len > 0)
        return pa__err(PA_ERR_INVAL, "copy_explain: NULL buffer of length %zu", len);
    if (distributed(dst_type, src_type, &ops, &st))
        return ops ? ops->explain(dst_type, src_type, buf, len) : st;
    if (empty_pair(dst_type, src_type))
        return (st = check_pair(dst_type, src_type, &dm, &sm)) != PA_OK ? st
               : snprintf(buf, len, "copy of 0 elements: nothing to move (strategy=none)");
    pa__piece_plan pp = {0};
    st = prepare(dst_type, src_type, &dl, &sl, &dm, &sm, &p, &pp);
    if (st != PA_OK)
        return st;
    if (pp.n) {
        int n = pa__piece_plan_explain(&pp, buf, len);
        pa__piece_plan_free(&pp);
        return n;
    }
    if (p == NULL)
        return pa__copy_walk_explain(dst_type, src_type, buf, len);
    int n = pa__plan_explain(p, buf, len);
    pa__plan_unref(p);
    return n;
}

int pa_copy_query(const pa_type *dst_type, const pa_type *src_type, pa_copy_info *info)
{
    const pa__layout *dl, *sl;
    const pa__mem_ops *dm, *sm;
    const pa__dist_ops *ops;
    pa__plan *p = NULL;
    int st;
    if (!info)
        return pa__err(PA_ERR_INVAL, "copy_query: NULL info");
    if (distributed(dst_type, src_type, &ops, &st)) {
        if (ops && !ops->query)
            return pa__err(PA_ERR_UNSUPPORTED, "copy_query: copies distributed over %s answer through "
                           "pa_copy_explain only", ops->thread_mtt);
        return ops ? ops->query(dst_type, src_type, info) : st;
    }
    if (empty_pair(dst_type, src_type)) {
        if ((st = check_pair(dst_type, src_type, &dm, &sm)) == PA_OK)
            *info = (pa_copy_info){.strategy = "none", .threads = 0, .predicted_us = 0};
        return st;
    }
    pa__piece_plan pp = {0};
    if ((st = prepare(dst_type, src_type, &dl, &sl, &dm, &sm, &p, &pp)) != PA_OK)
        return st;
    if (pp.n) {
        int big = 0;
        for (int i = 1; i < pp.n; i++)
            if (pp.e[i].size > pp.e[big].size)
                big = i;
        pa__plan_info(pp.e[big].plan, info);
        info->pieces = pp.n;
        pa__piece_plan_free(&pp);
    } else if (p) {
        pa__plan_info(p, info);
        pa__plan_unref(p);
    } else {   /* the walk (pa__copy_walk_explain) */
        *info = (pa_copy_info){.strategy = "walk", .threads = 1, .predicted_us = -1};
    }
    return PA_OK;
}

int pa_copy_set_threads(int nthreads)
{
    if (nthreads < 0)
        return pa__err(PA_ERR_INVAL, "copy_set_threads: %d threads", nthreads);
    pa__backends_set_threads(nthreads);
    return PA_OK;
}
