/*
 * parray — copies of arrays distributed over pthd threads (manual listing 41): DATA = [#PTHD][#HMEM_1] puts
 * row k of HMEM in thread k's own local array.  Every thread of a pthd array calls pa_copy with its own local
 * array and copies its part: the elements whose thread id is its own.  The other side is either a shared
 * (local) array, or distributed over the same threads in the same way (each thread then copies between its
 * own two arrays).  Threads share memory, so no messages are needed; a thread cannot reach another thread's
 * local array, so copies that move elements between threads are not supported.
 *
 * Each call lists the calling thread's elements (O(size)), turns both sides' lists into layouts and runs a
 * host plan between them.
 */
#include <stdlib.h>
#include <string.h>

#include "thread_internal.h"
#include "plan.h"

static int same_pid(const pa__dist_split *a, const pa__dist_split *b)
{
    return !memcmp(&a->pid, &b->pid, sizeof a->pid);
}

/* The checks; *sel is the process layout that chooses the elements. */
static int check(const pa_type *dt, const pa__dist_split *d, const pa_type *st, const pa__dist_split *s,
                 const pa__layout **sel)
{
    if (pa_size(dt) != pa_size(st) || pa_elm_size(dt) == 0 || pa_elm_size(dt) != pa_elm_size(st))
        return pa__err(pa_size(dt) != pa_size(st) ? PA_ERR_SIZE : PA_ERR_ELM, "copy from %s (%lld x %zu B) to %s "
                       "(%lld x %zu B): sizes or element sizes differ", pa_type_name(st), (long long)pa_size(st),
                       pa_elm_size(st), pa_type_name(dt), (long long)pa_size(dt), pa_elm_size(dt));
    if (*d->thread_mtt && *s->thread_mtt && !same_pid(d, s))
        return pa__err(PA_ERR_UNSUPPORTED, "copy from %s to %s: both are distributed over pthd threads, "
                       "differently; a thread can only reach its own local arrays", pa_type_name(st),
                       pa_type_name(dt));
    for (int i = 0; i < 2; i++) {
        const pa__dist_split *x = i ? s : d;
        const pa__mem_ops *ops = strcmp(x->memory_mtt, "any") ? pa__mem_find(x->memory_mtt) : NULL;
        if (strcmp(x->memory_mtt, "any") && (!ops || !ops->host_accessible))
            return pa__err(PA_ERR_UNSUPPORTED, "copy from %s to %s: pthd-distributed copies need host memory, "
                           "not %s", pa_type_name(st), pa_type_name(dt), x->memory_mtt);
    }
    *sel = *d->thread_mtt ? &d->pid : &s->pid;
    return PA_OK;
}

/* Lists the local offsets of both sides for the elements on thread tid (of n threads). */
static int list(const pa__layout *sel, const pa__dist_split *d, const pa__dist_split *s, int64_t tid,
                int64_t nthreads, int64_t **td, int64_t **ts, int64_t *count)
{
    int64_t n = 0, total = sel->size;
    *td = malloc((size_t)total * sizeof **td);
    *ts = malloc((size_t)total * sizeof **ts);
    if (!*td || !*ts)
        return pa__err(PA_ERR_NOMEM, "pthd-distributed copy: no memory to list %lld elements", (long long)total);
    for (int64_t k = 0; k < total; k++) {
        int64_t p = pa__layout_offset(sel, k);
        if (p < 0 || p >= nthreads)
            return pa__err(PA_ERR_RANGE, "pthd-distributed copy: element %lld lives on thread %lld, but the "
                           "array has %lld threads", (long long)k, (long long)p, (long long)nthreads);
        if (p == tid) {
            (*td)[n] = pa__layout_offset(&d->local, k);
            (*ts)[n++] = pa__layout_offset(&s->local, k);
        }
    }
    *count = n;
    return PA_OK;
}

static void as_layout(int64_t *t, int64_t n, pa__layout *out)
{
    if (pa__offsets_affine(t, n, out))
        return;
    memset(out, 0, sizeof *out);
    out->size = n;
    out->nmodes = 1;
    out->modes[0] = (pa__mode){.size = n, .table = t};
}

/* The calling thread's plan; *count is 0 when it has no elements. */
static int thread_plan(const pa_type *dt, const pa_type *st, pa__plan **plan, pa__layout *ld, pa__layout *ls,
                       int64_t *count, int64_t *tid)
{
    const pa__dist_split *d = pa__type_dist_split(dt), *s = d ? pa__type_dist_split(st) : NULL;
    const pa__layout *sel = NULL;
    const pa_ctx *ctx = pa__current_ctx();
    int64_t *td = NULL, *ts = NULL;
    int rc;
    *plan = NULL;
    if (!d || !s)
        return PA_ERR_UNSUPPORTED;
    if ((rc = check(dt, d, st, s, &sel)) != PA_OK)
        return rc;
    if (!ctx)
        return pa__err(PA_ERR_UNSUPPORTED, "copy from %s to %s: arrays distributed over pthd threads are copied "
                       "by the threads themselves; call pa_copy inside pa_for over the thread type",
                       pa_type_name(st), pa_type_name(dt));
    *tid = pa_tid(ctx);
    rc = list(sel, d, s, *tid, pa_ctx_size(ctx), &td, &ts, count);
    if (rc == PA_OK && *count > 0) {
        as_layout(td, *count, ld);
        as_layout(ts, *count, ls);
        rc = pa__plan_get(ld, ls, pa_elm_size(dt), NULL, NULL, plan);   /* the plan copies the tables */
    }
    free(td);
    free(ts);
    return rc;
}

static int pthd_copy(const pa_type *dt, void *dst, const pa_type *st, const void *src)
{
    pa__plan *p;
    pa__layout ld, ls;
    int64_t n, tid;
    int rc = thread_plan(dt, st, &p, &ld, &ls, &n, &tid);
    if (rc != PA_OK || n == 0)
        return rc;
    if (!dst || !src)
        rc = pa__err(PA_ERR_INVAL, "copy from %s to %s: NULL %s on thread %lld", pa_type_name(st),
                     pa_type_name(dt), dst ? "source" : "destination", (long long)tid);
    else
        rc = pa__plan_exec(p, dst, ld.base, src, ls.base);
    pa__plan_unref(p);
    return rc;
}

static int pthd_explain(const pa_type *dt, const pa_type *st, char *buf, size_t len)
{
    pa__plan *p;
    pa__layout ld, ls;
    int64_t n, tid;
    char host[400] = "nothing to copy";
    int rc = thread_plan(dt, st, &p, &ld, &ls, &n, &tid);
    if (rc != PA_OK)
        return rc;
    if (p)
        pa__plan_explain(p, host, sizeof host);
    pa__plan_unref(p);
    return snprintf(buf, len, "pthd-distributed copy: each thread copies its own part; thread %lld: %s",
                    (long long)tid, host);
}

const pa__dist_ops pa__pthd_dist_ops = {
    .thread_mtt = "pthd",
    .copy = pthd_copy,
    .explain = pthd_explain,
};
