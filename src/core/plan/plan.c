/*
 * parray — the copy planner: joint coalescing of two layouts into one loop nest, strategy selection, plans.
 *
 * Joint coalescing.  Both layouts enumerate the same flat index k row-major over their own modes.  A mode
 * boundary of either side (the product of the mode sizes inside it) is where the other side's loop nest must
 * be cut too.  An affine mode of size a and stride d splits exactly at an inner factor q dividing a:
 * (a, d) -> (a/q, d*q),(q, d).  Where a cut falls inside a gathered mode, or at a factor that does not divide
 * the mode, the cut is dropped, and the span between the surrounding good cuts becomes one mode; on each side
 * where that span holds more than one original mode, its offsets are expanded into a per-index table (always
 * correct, and rare: it needs sizes that do not divide each other).  The joint modes are then put in loop
 * order (smallest destination stride innermost, so that writes stream) and adjacent modes that are
 * contiguous on both sides are merged.  Any order is legal because a copy's elements are independent.
 */
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "plan.h"

/* A joint mode while planning: affine on a side when its table is NULL. */
typedef struct jmode {
    int64_t size, ds, ss;
    const int64_t *dt, *st;
} jmode;

#define PA__JMAX (2 * PA__MAX_MODES)

static int own_table(pa__plan *p, int64_t *t)
{
    int64_t **grown = realloc(p->owned, (size_t)(p->nowned + 1) * sizeof *grown);
    if (!grown) {
        free(t);
        return pa__err(PA_ERR_NOMEM, "out of memory while planning a copy");
    }
    p->owned = grown;
    p->owned[p->nowned++] = t;
    return PA_OK;
}

/* Copies a layout into the plan's key as it is (base set to 0), with its tables copied, so that the cache can
 * compare contents and the plan never points into a type that may be freed. */
static int copy_key(pa__plan *p, const pa__layout *in, pa__layout *key)
{
    *key = *in;
    key->base = 0;
    for (int m = 0; m < in->nmodes; m++) {
        const pa__mode *md = &in->modes[m];
        if (!md->table)
            continue;
        int64_t *t = malloc((size_t)md->size * sizeof *t);
        if (!t || own_table(p, t) != PA_OK)
            return pa__err(PA_ERR_NOMEM, "out of memory copying a gather table of %lld entries",
                           (long long)md->size);
        memcpy(t, md->table, (size_t)md->size * sizeof *t);
        key->modes[m].table = t;
    }
    return PA_OK;
}

/*
 * One side made ready for the joint split: size-1 modes dropped (a gathered one's only entry goes into the
 * base) and neighbours contiguous on this side merged, so that cuts the other side does not need never turn
 * into gathered spans.  The key's base is 0, so what coalescing adds to it is the shift for the shape's base.
 */
static void normalise_side(const pa__layout *in, pa__layout *out, int64_t *shift)
{
    *out = *in;
    pa__layout_coalesce(out);
    *shift = out->base;
}

/* cum[i] = product of the i innermost mode sizes, so cum[0] = 1 and cum[nmodes] = size. */
static void cumulative(const pa__layout *l, int64_t *cum)
{
    cum[0] = 1;
    for (int i = 0; i < l->nmodes; i++)
        cum[i + 1] = cum[i] * l->modes[l->nmodes - 1 - i].size;
}

/* The inner-first index of the mode of l holding position b strictly inside, or -1 when b is a boundary. */
static int mode_at(const int64_t *cum, int n, int64_t b)
{
    for (int i = 0; i < n; i++)
        if (cum[i] < b && b < cum[i + 1])
            return i;
    return -1;
}

/* A cut at b is good for a side when it is one of its boundaries or splits an affine mode exactly. */
static int cut_ok(const pa__layout *l, const int64_t *cum, int64_t b)
{
    int i = mode_at(cum, l->nmodes, b);
    if (i < 0)
        return 1;
    return !l->modes[l->nmodes - 1 - i].table && b % cum[i] == 0 && cum[i + 1] % b == 0;
}

/* The good cuts of both sides, ascending from 1 to size. */
static int good_cuts(const pa__layout *d, const int64_t *cd, const pa__layout *s, const int64_t *cs,
                     int64_t *cuts)
{
    int n = 0, i = 0, j = 0;
    while (i <= d->nmodes || j <= s->nmodes) {
        int64_t b;
        if (j > s->nmodes || (i <= d->nmodes && cd[i] <= cs[j]))
            b = cd[i];
        else
            b = cs[j];
        while (i <= d->nmodes && cd[i] == b) i++;
        while (j <= s->nmodes && cs[j] == b) j++;
        if (cut_ok(d, cd, b) && cut_ok(s, cs, b))
            cuts[n++] = b;
    }
    return n;
}

/* One side of the joint mode spanning positions [v, w): a stride, a whole table, or an expanded table. */
static int side_of_span(pa__plan *p, const pa__layout *l, const int64_t *cum, int64_t v, int64_t w,
                        int64_t *stride, const int64_t **table)
{
    int first = -1, count = 0;
    for (int i = 0; i < l->nmodes; i++)
        if (cum[i] < w && cum[i + 1] > v) {
            if (first < 0) first = i;
            count++;
        }
    const pa__mode *md = &l->modes[l->nmodes - 1 - first];
    *stride = 0;
    *table = NULL;
    if (count == 1) {
        if (md->table) *table = md->table;     /* good cuts never fall inside a gathered mode */
        else *stride = md->stride * (v / cum[first]);
        return PA_OK;
    }
    int64_t g = w / v;
    int64_t *t = malloc((size_t)g * sizeof *t);
    if (!t || own_table(p, t) != PA_OK)
        return pa__err(PA_ERR_NOMEM, "out of memory expanding a gathered span of %lld entries", (long long)g);
    for (int64_t k = 0; k < g; k++) {
        int64_t off = 0;
        for (int i = first; i < first + count; i++) {
            const pa__mode *mi = &l->modes[l->nmodes - 1 - i];
            int64_t digit = (k * v / cum[i]) % mi->size;
            off += mi->table ? mi->table[digit] : digit * mi->stride;
        }
        t[k] = off;
    }
    *table = t;
    return PA_OK;
}

/* Splits both (size-1-free) layouts at their good cuts: jm[0] outermost.  \return the count or an error. */
static int joint_split(pa__plan *p, const pa__layout *d, const pa__layout *s, jmode *jm)
{
    int64_t cd[PA__MAX_MODES + 1], cs[PA__MAX_MODES + 1], cuts[2 * PA__MAX_MODES + 2];
    cumulative(d, cd);
    cumulative(s, cs);
    int ncuts = good_cuts(d, cd, s, cs, cuts);
    int n = ncuts - 1;
    for (int c = 0; c < n; c++) {
        jmode *j = &jm[n - 1 - c];
        j->size = cuts[c + 1] / cuts[c];
        int st = side_of_span(p, d, cd, cuts[c], cuts[c + 1], &j->ds, &j->dt);
        if (st == PA_OK)
            st = side_of_span(p, s, cs, cuts[c], cuts[c + 1], &j->ss, &j->st);
        if (st != PA_OK)
            return st;
    }
    return n;
}

/* The typical distance between neighbouring offsets of one side, for ordering loops. */
static int64_t typical_step(int64_t size, int64_t stride, const int64_t *table)
{
    if (!table)
        return stride < 0 ? -stride : stride;
    int64_t span = table[size - 1] - table[0];
    return (span < 0 ? -span : span) / (size - 1);
}

/* Orders modes outermost-first by descending destination step, then source step (a stable insertion sort). */
static void order_modes(jmode *jm, int n)
{
    for (int i = 1; i < n; i++) {
        jmode x = jm[i];
        int64_t xd = typical_step(x.size, x.ds, x.dt), xs = typical_step(x.size, x.ss, x.st);
        int k = i - 1;
        for (; k >= 0; k--) {
            int64_t kd = typical_step(jm[k].size, jm[k].ds, jm[k].dt);
            int64_t ks = typical_step(jm[k].size, jm[k].ss, jm[k].st);
            if (kd > xd || (kd == xd && ks >= xs))
                break;
            jm[k + 1] = jm[k];
        }
        jm[k + 1] = x;
    }
}

/* Merges neighbours contiguous on both sides (outer stride = inner stride * inner size).  \return new n. */
static int merge_modes(jmode *jm, int n)
{
    int out = 0;
    for (int i = 0; i < n; i++) {
        if (out > 0) {
            jmode *o = &jm[out - 1];
            const jmode *in = &jm[i];
            if (!o->dt && !o->st && !in->dt && !in->st && o->ds == in->ds * in->size &&
                o->ss == in->ss * in->size) {
                o->size *= in->size;
                o->ds = in->ds;
                o->ss = in->ss;
                continue;
            }
        }
        jm[out++] = jm[i];
    }
    return out;
}

/* Makes every affine destination stride non-negative by running a mode backwards on both sides (legal
 * because the elements are independent), which lets reversed copies use runs and plain loops. */
static void flip_negative(jmode *jm, int n, int64_t *dbase, int64_t *sbase)
{
    for (int i = 0; i < n; i++) {
        jmode *j = &jm[i];
        if (j->dt || j->st || j->ds >= 0)
            continue;
        *dbase += j->ds * (j->size - 1);
        *sbase += j->ss * (j->size - 1);
        j->ds = -j->ds;
        j->ss = -j->ss;
    }
}

static int build_shape(pa__plan *p, size_t elm)
{
    jmode jm[PA__JMAX];
    pa__layout d, s;
    pa__copy_shape *sh = &p->shape;
    normalise_side(&p->key_dst, &d, &sh->dst_base);
    normalise_side(&p->key_src, &s, &sh->src_base);
    int n = joint_split(p, &d, &s, jm);
    if (n < 0)
        return n;
    flip_negative(jm, n, &sh->dst_base, &sh->src_base);
    n = merge_modes(jm, n);
    order_modes(jm, n);
    n = merge_modes(jm, n);
    if (n > PA__MAX_MODES)
        return pa__err(PA_ERR_UNSUPPORTED, "the joint loop nest of this copy has %d modes (at most %d)", n,
                       PA__MAX_MODES);
    if (n == 0) {   /* a single element: one mode of size 1 keeps every kernel's loops simple */
        jm[0] = (jmode){.size = 1, .ds = 1, .ss = 1};
        n = 1;
    }
    sh->nmodes = n;
    for (int i = 0; i < n; i++) {
        sh->size[i] = jm[i].size;
        sh->dst_stride[i] = jm[i].ds;
        sh->src_stride[i] = jm[i].ss;
        sh->dst_table[i] = jm[i].dt;
        sh->src_table[i] = jm[i].st;
    }
    sh->elm = elm;
    sh->total = p->key_dst.size;
    return PA_OK;
}

/* Keeps a strategy that applies when it is the first or the cheapest so far. */
static void consider(pa__plan *p, const pa__strategy *st, double cost, const char *why)
{
    if (!p->strategy || cost < p->cost_ns) {
        p->strategy = st;
        p->cost_ns = cost;
        memcpy(p->why, why, sizeof p->why);
    }
}

/* Probes every strategy of every table (and those a late backend registered) and keeps the cheapest. */
static int select_strategy(pa__plan *p)
{
    p->strategy = NULL;
    for (int b = 0; b < pa__backend_count(); b++) {
        const pa__backend *be = pa__backend_at(b);
        for (int i = 0; be->strategies && pa__backend_on(be) && be->strategies[i]; i++) {
            const pa__strategy *st = be->strategies[i];
            double cost = 0;
            char why[sizeof p->why];
            why[0] = '\0';
            if (!st->probe(&p->shape, &cost, why, sizeof why))
                continue;
            consider(p, st, cost, why);
        }
    }
    if (!p->strategy)
        return pa__err(PA_ERR_MTT, "no copy strategy exists yet from %s memory to %s memory",
                       p->shape.src_mem ? p->shape.src_mem->name : "host",
                       p->shape.dst_mem ? p->shape.dst_mem->name : "host");
    return PA_OK;
}

int pa__plan_make(const pa__layout *dst, const pa__layout *src, size_t elm, const pa__mem_ops *dst_mem,
                  const pa__mem_ops *src_mem, pa__plan **out)
{
    pa__plan *p = NULL;
    int st;
    if (!dst || !src || !out)
        return pa__err(PA_ERR_INVAL, "pa__plan_make: NULL layout or output");
    if (dst->size != src->size)
        return pa__err(PA_ERR_SIZE, "copy between layouts of %lld and %lld elements", (long long)dst->size,
                       (long long)src->size);
    if (elm == 0 || elm > 4096)
        return pa__err(PA_ERR_ELM, "element size %zu (must be 1..4096 bytes)", elm);
    p = calloc(1, sizeof *p);
    if (!p)
        return pa__err(PA_ERR_NOMEM, "out of memory while planning a copy");
    atomic_init(&p->refs, 1);
    p->shape.dst_mem = dst_mem;
    p->shape.src_mem = src_mem;
    p->hash = pa__plan_hash(dst, src, elm, dst_mem, src_mem);
    if ((st = copy_key(p, dst, &p->key_dst)) != PA_OK || (st = copy_key(p, src, &p->key_src)) != PA_OK ||
        (st = build_shape(p, elm)) != PA_OK || (st = select_strategy(p)) != PA_OK)
        goto fail;
    *out = p;
    return PA_OK;
fail:
    pa__plan_unref(p);
    return st;
}

void pa__plan_ref(pa__plan *p)
{
    atomic_fetch_add_explicit(&p->refs, 1, memory_order_relaxed);
}

void pa__plan_unref(pa__plan *p)
{
    if (!p || atomic_fetch_sub_explicit(&p->refs, 1, memory_order_acq_rel) != 1)
        return;
    for (int i = 0; i < p->nowned; i++)
        free(p->owned[i]);
    free(p->owned);
    free(p);
}

int pa__plan_exec(const pa__plan *p, void *dst, int64_t dst_base, const void *src, int64_t src_base)
{
    /* Pointer arithmetic on the bases happens once here; kernels add the shape's own offsets. */
    char *d = (char *)dst + pa__bytes(dst_base, p->shape.elm);
    const char *s = (const char *)src + pa__bytes(src_base, p->shape.elm);
    return p->strategy->exec(p, d, s);
}

int pa__plan_exec_async(const pa__plan *p, void *dst, int64_t dst_base, const void *src, int64_t src_base,
                        void *stream)
{
    char *d = (char *)dst + pa__bytes(dst_base, p->shape.elm);
    const char *s = (const char *)src + pa__bytes(src_base, p->shape.elm);
    if (p->strategy->exec_async)
        return p->strategy->exec_async(p, d, s, stream);
    int st = pa__stream_wait(stream);
    return st != PA_OK ? st : p->strategy->exec(p, d, s);
}

/* Appends formatted text at *at, counting what did not fit as snprintf does. */
static void put(char *buf, size_t len, size_t *at, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(buf + (*at < len ? *at : len), *at < len ? len - *at : 0, fmt, ap);
    va_end(ap);
    *at += n > 0 ? (size_t)n : 0;
}

/* Appends one side's strides, "dst(80,1)", with '*' for gathered modes. */
static void format_side(const pa__copy_shape *s, int dst, char *buf, size_t len, size_t *at)
{
    put(buf, len, at, "%s(", dst ? "dst" : "src");
    for (int i = 0; i < s->nmodes; i++) {
        const char *sep = i ? "," : "";
        if (dst ? s->dst_table[i] : s->src_table[i]) put(buf, len, at, "%s*", sep);
        else put(buf, len, at, "%s%lld", sep, (long long)(dst ? s->dst_stride[i] : s->src_stride[i]));
    }
    put(buf, len, at, ")");
}

void pa__plan_info(const pa__plan *p, pa_copy_info *info)
{
    const pa__strategy *st = p->strategy;
    *info = (pa_copy_info){.strategy = st->name, .threads = st->threads ? st->threads(p) : 1,
                           .queued = st->exec_async != NULL, .streaming = st->streams && st->streams(p),
                           .predicted_us = (st->predict ? st->predict(p) : p->cost_ns) * 1e-3};
}

int pa__plan_explain(const pa__plan *p, char *buf, size_t len)
{
    const pa__copy_shape *s = &p->shape;
    char shape[1024];
    size_t at = 0;
    put(shape, sizeof shape, &at, "(");
    for (int i = 0; i < s->nmodes; i++)
        put(shape, sizeof shape, &at, "%s%lld", i ? "," : "", (long long)s->size[i]);
    put(shape, sizeof shape, &at, "):");
    format_side(s, 1, shape, sizeof shape, &at);
    format_side(s, 0, shape, sizeof shape, &at);
    int in = s->nmodes - 1;
    int64_t run = (!s->dst_table[in] && !s->src_table[in] && s->dst_stride[in] == 1 && s->src_stride[in] == 1)
                      ? s->size[in] : 1;
    const pa__strategy *st = p->strategy;
    char note[128] = "";
    if (st->threads_note)
        st->threads_note(p, note, sizeof note);
    double ns = st->predict ? st->predict(p) : p->cost_ns;
    return snprintf(buf, len, "copy %lld x %zu B: strategy=%s shape=%s run=%lld B threads=%d async=%s "
                    "predicted=%.3g us \xe2\x80\x94 %s%s%s", (long long)s->total, s->elm, st->name, shape,
                    (long long)pa__bytes(run, s->elm), st->threads ? st->threads(p) : 1,
                    st->exec_async ? "queued" : "waits", ns * 1e-3, p->why,
                    st->streams && st->streams(p) ? ", streaming stores" : "", note);
}

const pa__strategy *pa__strategy_named(const char *name)
{
    for (int i = 0; i < pa__backend_count(); i++) {
        const pa__backend *b = pa__backend_at(i);
        const pa__strategy *const *s = pa__backend_on(b) ? b->strategies : NULL;
        for (int k = 0; s && s[k]; k++)
            if (strcmp(s[k]->name, name) == 0)
                return s[k];
    }
    return NULL;
}
