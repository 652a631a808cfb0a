/* parray — compiled layouts: evaluation, coalescing, the canonical text form and the per-type cache. */
#include <stdlib.h>
#include <string.h>

#include "layout.h"
#include "type_internal.h"

int64_t pa__layout_offset(const pa__layout *l, int64_t k)
{
    int64_t off = l->base;
    for (int m = l->nmodes - 1; m >= 0; m--) {
        const pa__mode *md = &l->modes[m];
        int64_t d = k % md->size;
        k /= md->size;
        off += md->table ? md->table[d] : d * md->stride;
    }
    return off;
}

/*
 * @post the layout maps every k to the same offset as before, no mode has size 1 (unless the layout is a
 *       single element, which then has no modes), and no two adjacent affine modes satisfy
 *       outer.stride == inner.stride * inner.size.
 */
void pa__layout_coalesce(pa__layout *l)
{
    int n = 0;
    for (int i = 0; i < l->nmodes; i++) {
        pa__mode m = l->modes[i];
        if (m.size == 1) {
            if (m.table)
                l->base += m.table[0];    /* a gathered single element still contributes its entry */
            continue;
        }
        if (n > 0 && !m.table && !l->modes[n - 1].table && l->modes[n - 1].stride == m.stride * m.size) {
            l->modes[n - 1].size *= m.size;
            l->modes[n - 1].stride = m.stride;
            continue;
        }
        l->modes[n++] = m;
    }
    l->nmodes = n;
    l->affine = 1;
    for (int i = 0; i < n; i++)
        if (l->modes[i].table)
            l->affine = 0;
}

int pa__layout_format(const pa__layout *l, char *buf, size_t len)
{
    char s[512] = "(", d[512] = "(";
    for (int i = 0; i < l->nmodes; i++) {
        size_t a = strlen(s), b = strlen(d);
        snprintf(s + a, sizeof s - a, "%s%lld", i ? "," : "", (long long)l->modes[i].size);
        if (l->modes[i].table)
            snprintf(d + b, sizeof d - b, "%s*", i ? "," : "");
        else
            snprintf(d + b, sizeof d - b, "%s%lld", i ? "," : "", (long long)l->modes[i].stride);
    }
    if (l->nmodes == 0)
        return snprintf(buf, len, "(1):(0)%+lld", (long long)l->base);
    return snprintf(buf, len, "%s):%s)%s%lld", s, d, l->base < 0 ? "" : "+", (long long)l->base);
}

int pa__layout_get(const pa_type *t, const pa__layout **out)
{
    pa__layout *l = __atomic_load_n(&((pa_type *)t)->layout, __ATOMIC_ACQUIRE);
    pa_scope *s = t->inst->decl->scope;
    int st = PA_OK;
    *out = l;
    if (l)
        return PA_OK;
    if ((st = pa__bound(t, "layout")) != PA_OK)
        return st;
    pa__scope_lock(s);
    l = t->layout;
    if (!l && t->layout_status) {
        st = pa__err(t->layout_status, "%s could not be compiled into a layout (%s)", t->name,
                     t->layout_status == PA_ERR_RANGE ? "its offsets overflow: they must lie within +-2^62"
                                                      : "too irregular and too large");
    } else if (!l) {
        st = pa__layout_compile(t, &l);
        if (st == PA_OK)
            __atomic_store_n(&((pa_type *)t)->layout, l, __ATOMIC_RELEASE);
        else if (st != PA_ERR_NOMEM)
            ((pa_type *)t)->layout_status = st;
    }
    pa__scope_unlock(s);
    *out = l;
    return st;
}

const pa__layout *pa__type_layout(const pa_type *t)
{
    const pa__layout *l;
    return pa__layout_get(t, &l) == PA_OK ? l : NULL;
}

int pa_layout_format(const pa_type *t, char *buf, size_t len)
{
    const pa__layout *l;
    if (pa__type_usable(t, "pa_layout_format") != PA_OK)
        return PA_ERR_INVAL;
    if (!buf && len)
        return pa__err(PA_ERR_INVAL, "pa_layout_format: NULL buffer");
    int st = pa__layout_get(t, &l);
    if (st != PA_OK) {
        const pa__pieces *p = st == PA_ERR_UNSUPPORTED ? pa__type_pieces(t) : NULL;
        if (p)
            return pa__pieces_format(p, buf, len);
        return pa__layout_get(t, &l);  /* its message again, in case the pieces' attempt set another */
    }
    return pa__layout_format(l, buf, len);
}

uint64_t pa__layout_key_hash(uint64_t h, const pa__layout *l)
{
    h = pa__hash_mix(h, (uint64_t)l->size);
    h = pa__hash_mix(h, (uint64_t)l->base);
    h = pa__hash_mix(h, (uint64_t)l->nmodes);
    for (int m = 0; m < l->nmodes; m++) {
        const pa__mode *md = &l->modes[m];
        h = pa__hash_mix(h, (uint64_t)md->size);
        h = pa__hash_mix(h, md->table ? (uint64_t)(uintptr_t)md->table : (uint64_t)md->stride);
    }
    return h;
}

int pa__layout_key_same(const pa__layout *a, const pa__layout *b)
{
    return a->size == b->size && a->base == b->base && a->min_off == b->min_off && a->max_off == b->max_off &&
           a->nmodes == b->nmodes && a->affine == b->affine &&
           !memcmp(a->modes, b->modes, (size_t)a->nmodes * sizeof a->modes[0]);
}
