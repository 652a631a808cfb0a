/*
 * parray — distributed types (manual §5.5): offsets "on" a thread or memory type, and the split of a
 * distributed type into a process layout and a local layout for the backends' distributed copies.
 *
 * A distributed type has no single mtt: its dimensions mix a thread type (mpi [n]) with a memory type.  As in
 * the manual, the mtt of an outer dimension dominates its sub-dimensions, so the tree is walked down through
 * the dimensions whose mtt is "distributed" (they mix both kinds) to the first dimensions of a single kind;
 * each of those adds its own offset (its references' offsets) to the part of its kind.  The index is
 * decomposed row-major over the mixed dimensions' children, exactly as pa_offset decomposes it.
 */
#include <stdlib.h>
#include <string.h>

#include "dist.h"
#include "type_internal.h"

static int is_mixed(const pa_type *n)
{
    return strcmp(n->mtt, "distributed") == 0;
}

static int is_thread(const pa_type *n)
{
    return pa__mtt_kind_of(n->mtt) == PA__MTT_THREAD;
}

/* A mixed dimension that is a pure reference evaluates as its target. */
static const pa_type *resolve(const pa_type *n)
{
    while (n->alias && is_mixed(n->alias))
        n = n->alias;
    return n;
}

int pa__type_distributed(const pa_type *t)
{
    return t && is_mixed(t);
}

/*
 * A window of a distributed type: [n # disp(d) # step(k) # DIST], no sub-dimensions, a chain of displacements
 * and steps ending in one reference to a mixed dimension.  Its index is DIST's index after the chain.
 */
static const pa_type *window_target(const pa_type *n)
{
    if (n->alias || n->nchild > 0 || n->nfn == 0)
        return NULL;
    const pa__fn *last = &n->fn[n->nfn - 1];
    if (last->kind != PA__F_REF || !is_mixed(last->target))
        return NULL;
    for (int k = 0; k < n->nfn - 1; k++)
        if (n->fn[k].kind != PA__F_DISP && n->fn[k].kind != PA__F_STEP)
            return NULL;
    return last->target;
}

/* The target's index of a window's index i (taken modulo the target's size, as every reference does). */
static int window_index(const pa_type *n, int64_t i, int64_t *x)
{
    int bad = 0;
    for (int k = 0; k < n->nfn - 1; k++)
        bad |= n->fn[k].kind == PA__F_DISP ? __builtin_add_overflow(i, n->fn[k].disp, &i)
                                           : __builtin_mul_overflow(i, n->fn[k].disp, &i);
    if (bad)
        return pa__err(PA_ERR_RANGE, "distributed type %s: the index of %s overflows in its displacements and "
                       "steps", pa_type_name(pa_type_root(n)), pa_type_name(n));
    *x = pa__floor_mod(i, n->fn[n->nfn - 1].target->size);
    return PA_OK;
}

/* Mixed dimensions are split into children or are windows: a displacement or func alone has no meaning per
 * part. */
static int check_mixed(const pa_type *n)
{
    if (window_target(n))
        return PA_OK;
    if (n->nfn > 0 || n->nchild == 0)
        return pa__err(PA_ERR_UNSUPPORTED, "distributed type %s: dimension %s mixes thread and memory "
                       "dimensions and has %s; only its sub-dimensions may carry references, displacements or "
                       "functions (or it is a window [n # disp(d) # step(k) # DIST] of a distributed DIST)",
                       pa_type_name(pa_type_root(n)), pa_type_name(n),
                       n->nfn > 0 ? "a reference chain of its own" : "no sub-dimensions");
    return PA_OK;
}

static int64_t on_walk(const pa_type *n, pa_on which, int64_t i, int *st)
{
    n = resolve(n);
    if (!is_mixed(n))
        return is_thread(n) == (which == PA_ON_THREAD) ? pa__offset_walk(n, i) : 0;
    if ((*st = check_mixed(n)) != PA_OK)
        return 0;
    const pa_type *target = window_target(n);
    if (target) {
        int64_t x = 0;
        return (*st = window_index(n, i, &x)) == PA_OK ? on_walk(target, which, x, st) : 0;
    }
    if (which == PA_ON_LOCAL && pa__dist_pack_candidate(n)) {   /* several axes, maybe packed (dist_pack.c) */
        const pa__dist_split *ds;
        if ((*st = pa__dist_split_get(n, &ds)) != PA_OK)
            return 0;
        if (ds->pack)
            return pa__dist_local(ds, i);
    }
    int64_t sum = 0;
    for (int c = n->nchild - 1; c >= 0 && *st == PA_OK; c--) {
        const pa_type *ch = n->child[c];
        sum += on_walk(ch, which, i % ch->size, st);
        i /= ch->size;
    }
    return sum;
}

int64_t pa_offset_on(const pa_type *type, pa_on which, int64_t i)
{
    int st = PA_OK;
    if (!type || (which != PA_ON_THREAD && which != PA_ON_LOCAL))
        return pa__err(PA_ERR_INVAL, "pa_offset_on: %s", type ? "which is neither PA_ON_THREAD nor PA_ON_LOCAL"
                       : "NULL type"), PA_BAD_OFFSET;
    if (pa__bound(type, "pa_offset_on"))
        return PA_BAD_OFFSET;
    if (i < 0 || i >= type->size)
        return pa__err(PA_ERR_RANGE, "pa_offset_on(%s, %lld): the index is outside [0, %lld)",
                       pa_type_name(type), (long long)i, (long long)type->size), PA_BAD_OFFSET;
    int64_t off = on_walk(type, which, i, &st);
    return st == PA_OK ? off : PA_BAD_OFFSET;
}

/* ---- the split into two layouts ------------------------------------------------------------------------ */

/* The mtt of one kind a part adds: equal to what the split has, or the first. */
static int merge_mtt(const pa_type *n, const char **name, const char *mtt)
{
    if (!*mtt || strcmp(mtt, "any") == 0)
        return PA_OK;
    if (**name && strcmp(*name, mtt) != 0)
        return pa__err(PA_ERR_UNSUPPORTED, "distributed type %s mixes %s and %s dimensions: at most one thread "
                       "type and one memory type are supported", pa_type_name(pa_type_root(n)), *name, mtt);
    *name = mtt;
    return PA_OK;
}

/* Appends one pure dimension: its layout's modes to its own kind, a stride-0 mode of its size to the other. */
static int append_part(pa__dist_split *s, const pa_type *n)
{
    const pa__layout *l = pa__type_layout(n);
    if (!l)
        return pa__err_wrap(PA_ERR_INVAL, "distributed type %s", pa_type_name(pa_type_root(n)));
    pa__layout *own = is_thread(n) ? &s->pid : &s->local, *other = is_thread(n) ? &s->local : &s->pid;
    int st = merge_mtt(n, is_thread(n) ? &s->thread_mtt : &s->memory_mtt, n->mtt);
    if (st != PA_OK)
        return st;
    if (own->nmodes + l->nmodes > PA__MAX_MODES || other->nmodes + 1 > PA__MAX_MODES)
        return pa__err(PA_ERR_UNSUPPORTED, "distributed type %s has more than %d modes",
                       pa_type_name(pa_type_root(n)), PA__MAX_MODES);
    for (int m = 0; m < l->nmodes; m++)
        own->modes[own->nmodes++] = l->modes[m];
    own->base += l->base;
    own->affine &= l->affine;
    other->modes[other->nmodes++] = (pa__mode){.size = n->size, .stride = 0};
    pa__layout_coalesce(own);
    pa__layout_coalesce(other);
    return PA_OK;
}

/* Appends one side of a window: the modes of its list of offsets when they are affine, else the list as a
 * gather table the split keeps.  Takes t. */
static int append_list(pa__dist_split *s, pa__layout *own, int64_t *t, int64_t n, const pa_type *w)
{
    pa__layout aff;
    if (pa__offsets_affine(t, n, &aff)) {
        free(t);
        if (own->nmodes + aff.nmodes > PA__MAX_MODES)
            return pa__err(PA_ERR_UNSUPPORTED, "distributed type %s has more than %d modes",
                           pa_type_name(pa_type_root(w)), PA__MAX_MODES);
        for (int m = 0; m < aff.nmodes; m++)
            own->modes[own->nmodes++] = aff.modes[m];
        own->base += aff.base;
    } else {
        if (own->nmodes + 1 > PA__MAX_MODES || s->nowned == 2 * PA__MAX_MODES) {
            free(t);
            return pa__err(PA_ERR_UNSUPPORTED, "distributed type %s has more than %d modes",
                           pa_type_name(pa_type_root(w)), PA__MAX_MODES);
        }
        s->owned[s->nowned++] = t;
        own->modes[own->nmodes++] = (pa__mode){.size = n, .table = t};
    }
    pa__layout_coalesce(own);
    return PA_OK;
}

/* Appends n's process and local offsets as lists: for each of its indices, those of ts at the same index, or
 * at the window's target index (window). */
static int append_lists(pa__dist_split *s, const pa_type *n, const pa__dist_split *ts, int window)
{
    int st;
    int64_t m = n->size ? n->size : 1;
    int64_t *tp = malloc((size_t)m * sizeof *tp), *tl = malloc((size_t)m * sizeof *tl);
    if (!tp || !tl) {
        free(tp);
        free(tl);
        return pa__err(PA_ERR_NOMEM, "distributed type %s: no memory for the offsets of %s (%lld elements)",
                       pa_type_name(pa_type_root(n)), pa_type_name(n), (long long)n->size);
    }
    for (int64_t i = 0, x = 0; i < n->size; i++) {
        if (window && (st = window_index(n, i, &x)) != PA_OK) {
            free(tp);
            free(tl);
            return st;
        }
        tp[i] = pa__layout_offset(&ts->pid, window ? x : i);
        tl[i] = pa__dist_local(ts, window ? x : i);
    }
    if ((st = append_list(s, &s->pid, tp, n->size, n)) != PA_OK) {
        free(tl);
        return st;
    }
    return append_list(s, &s->local, tl, n->size, n);
}

/* 1 when a window's chain leaves the index as it is ([n # DIST], disp(0), step(1)): a prefix of DIST. */
static int is_prefix(const pa_type *n)
{
    for (int k = 0; k < n->nfn - 1; k++)
        if (n->fn[k].disp != (n->fn[k].kind == PA__F_DISP ? 0 : 1))
            return 0;
    return 1;
}

/*
 * Appends a window [n # ... # DIST]: for each of its indices, DIST's process and local offsets.  A prefix that
 * comes first (outermost in both layouts) takes DIST's affine modes as they are: their product is DIST's size,
 * larger than the window's, but the flat indices of the type only reach the window's part of the outermost
 * digit, and pa__layout_offset never bounds the outermost digit.  So a 1-D block or cyclic(k) window needs no
 * table whatever its size.
 */
static int append_window(pa__dist_split *s, const pa_type *n, const pa_type *target)
{
    const pa__dist_split *ts;
    int st = pa__dist_split_get(target, &ts);
    if (st != PA_OK)
        return pa__err_wrap(st, "distributed type %s", pa_type_name(pa_type_root(n)));
    if ((st = merge_mtt(n, &s->thread_mtt, ts->thread_mtt)) != PA_OK ||
        (st = merge_mtt(n, &s->memory_mtt, ts->memory_mtt)) != PA_OK)
        return st;
    if (s->pid.nmodes == 0 && s->local.nmodes == 0 && is_prefix(n) && n->size <= target->size &&
        ts->pid.affine && ts->local.affine) {
        for (int w = 0; w < 2; w++) {
            pa__layout *own = w ? &s->local : &s->pid;
            const pa__layout *from = w ? &ts->local : &ts->pid;
            memcpy(own->modes, from->modes, (size_t)from->nmodes * sizeof *own->modes);
            own->nmodes = from->nmodes;
            own->base += from->base;
        }
        return PA_OK;
    }
    return append_lists(s, n, ts, 1);
}

/* Walks n (the split's own type when top): pure dimensions, windows, and dimensions of several axes, which a
 * split of an enclosing type takes as lists where their own split packs them. */
static int split_walk(pa__dist_split *s, const pa_type *n, int top)
{
    int st;
    n = resolve(n);
    if (!is_mixed(n))
        return append_part(s, n);
    if ((st = check_mixed(n)) != PA_OK)
        return st;
    const pa_type *target = window_target(n);
    if (target)
        return append_window(s, n, target);
    if (!top && pa__dist_pack_candidate(n)) {
        const pa__dist_split *ns;
        if ((st = pa__dist_split_get(n, &ns)) != PA_OK)
            return pa__err_wrap(st, "distributed type %s", pa_type_name(pa_type_root(n)));
        if (ns->pack) {
            if ((st = merge_mtt(n, &s->thread_mtt, ns->thread_mtt)) != PA_OK ||
                (st = merge_mtt(n, &s->memory_mtt, ns->memory_mtt)) != PA_OK)
                return st;
            return append_lists(s, n, ns, 0);
        }
    }
    for (int c = 0; c < n->nchild; c++)
        if ((st = split_walk(s, n->child[c], 0)) != PA_OK)
            return st;
    return PA_OK;
}

/* The extent of a layout, from its modes. */
static void extent(pa__layout *l)
{
    l->min_off = l->max_off = l->base;
    for (int m = 0; m < l->nmodes; m++) {
        const pa__mode *md = &l->modes[m];
        int64_t lo = 0, hi = 0;
        for (int64_t k = 0; md->table && k < md->size; k++) {
            lo = md->table[k] < lo || k == 0 ? md->table[k] : lo;
            hi = md->table[k] > hi || k == 0 ? md->table[k] : hi;
        }
        if (!md->table) {
            int64_t last = md->stride * (md->size - 1);
            lo = last < 0 ? last : 0;
            hi = last > 0 ? last : 0;
        }
        l->min_off += lo;
        l->max_off += hi;
    }
}

int pa__dist_split_of(const pa_type *t, pa__dist_split *out)
{
    pa__dist_split s;
    int st;
    memset(&s, 0, sizeof s);
    s.thread_mtt = s.memory_mtt = "";
    s.pid.affine = s.local.affine = 1;
    s.pid.size = s.local.size = t->size;
    if (!is_mixed(t) && is_thread(t))
        return pa__err(PA_ERR_MTT, "%s is a thread type (%s), not data", pa_type_name(t), t->mtt);
    if ((st = split_walk(&s, t, 1)) != PA_OK || (st = pa__dist_pack_make(t, &s.pack)) != PA_OK) {
        pa__dist_split_release(&s);
        return st;
    }
    if (s.pack)
        s.local.affine = 0;   /* offsets through pa__dist_local; keyed like gathered splits */
    if (!*s.memory_mtt)
        s.memory_mtt = "any";
    extent(&s.pid);
    extent(&s.local);
    *out = s;
    return PA_OK;
}

void pa__dist_split_release(pa__dist_split *s)
{
    for (int k = 0; k < s->nowned; k++)
        free(s->owned[k]);
    s->nowned = 0;
    pa__dist_pack_free(s->pack);
    s->pack = NULL;
}

/* A split kept on a node, freed with the node (type_internal.h). */
static void split_free(pa__dist_split *s)
{
    pa__dist_split_release(s);
    free(s);
}

int pa__dist_split_get(const pa_type *t, const pa__dist_split **out)
{
    pa__dist_split *d = __atomic_load_n(&((pa_type *)t)->dist, __ATOMIC_ACQUIRE);
    pa_scope *s = t->inst->decl->scope;
    int st = PA_OK;
    *out = d;
    if (d)
        return PA_OK;
    if ((st = pa__bound(t, "a distributed copy")) != PA_OK)
        return st;
    pa__scope_lock(s);
    if (!(d = t->dist)) {
        d = malloc(sizeof *d);
        if (!d)
            st = pa__err(PA_ERR_NOMEM, "%s: no memory for its distributed layouts", pa_type_name(t));
        else if ((st = pa__dist_split_of(t, d)) != PA_OK)
            free(d), d = NULL;
        else {
            ((pa_type *)t)->dist_free = split_free;
            __atomic_store_n(&((pa_type *)t)->dist, d, __ATOMIC_RELEASE);
        }
    }
    pa__scope_unlock(s);
    *out = d;
    return st;
}

const pa__dist_split *pa__type_dist_split(const pa_type *t)
{
    const pa__dist_split *d;
    return pa__dist_split_get(t, &d) == PA_OK ? d : NULL;
}

int pa__dist_ops_for(const pa_type *dt, const pa_type *st, const pa__dist_ops **out)
{
    const pa__dist_split *d, *s;
    int rc;
    *out = NULL;
    if ((rc = pa__dist_split_get(dt, &d)) != PA_OK || (rc = pa__dist_split_get(st, &s)) != PA_OK)
        return rc;
    const char *thr = *d->thread_mtt ? d->thread_mtt : s->thread_mtt;
    if (*d->thread_mtt && *s->thread_mtt && strcmp(d->thread_mtt, s->thread_mtt) != 0)
        return pa__err(PA_ERR_UNSUPPORTED, "copy from %s (over %s) to %s (over %s): distributed over different "
                       "thread types", pa_type_name(st), s->thread_mtt, pa_type_name(dt), d->thread_mtt);
    const pa__backend *owner;
    if ((*out = pa__backends_dist(thr, &owner)))
        return PA_OK;
    if (owner)
        return pa__err(PA_ERR_NODEV, "copy from %s to %s: arrays distributed over %s threads need the %s backend, "
                       "which is switched off (PA_BACKENDS)", pa_type_name(st), pa_type_name(dt), thr, owner->name);
    if (strcmp(thr, "mpi") == 0)
        return pa__err(PA_ERR_NODEV, "copy from %s to %s: arrays distributed over mpi processes need the MPI "
                       "backend, which this build does not have (configure with -Dmpi=enabled where Open MPI is "
                       "installed)", pa_type_name(st), pa_type_name(dt));
    return pa__err(PA_ERR_UNSUPPORTED, "copy from %s to %s: copies of arrays distributed over %s threads "
                   "are not supported yet (only over mpi process arrays and pthd threads)", pa_type_name(st),
                   pa_type_name(dt), *thr ? thr : "no");
}

/* ---- lists of offsets as layouts ---------------------------------------------------------------------- */

/* The largest divisor of n that is at most m (>= 1). */
static int64_t divisor_upto(int64_t n, int64_t m)
{
    while (m > 1 && n % m != 0)
        m--;
    return m;
}

/*
 * Finds affine modes for a list of offsets, innermost first: the longest arithmetic run from t[0] whose length
 * divides the rest, then the same over every run's first element, and so on; the result is checked against
 * every entry.  \return 1 when the list is affine (out filled), else 0.
 */
int pa__offsets_affine(const int64_t *t, int64_t n, pa__layout *out)
{
    pa__mode inner[PA__MAX_MODES];
    int nm = 0;
    int64_t step = 1;
    while (step < n && nm < PA__MAX_MODES) {
        int64_t stride = t[step] - t[0], len = 1;
        while (len * step < n && t[len * step] == t[0] + len * stride)
            len++;
        len = divisor_upto(n / step, len);
        if (len == 1)
            return 0;
        inner[nm++] = (pa__mode){.size = len, .stride = stride};
        step *= len;
    }
    if (step != n)
        return 0;
    memset(out, 0, sizeof *out);
    out->size = n;
    out->base = t[0];
    out->affine = 1;
    out->nmodes = nm;
    for (int m = 0; m < nm; m++)
        out->modes[m] = inner[nm - 1 - m];
    for (int64_t k = 0; k < n; k++)
        if (pa__layout_offset(out, k) != t[k])
            return 0;
    pa__layout_coalesce(out);
    return 1;
}

