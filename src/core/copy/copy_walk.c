/*
 * parray — the copy of last resort: element by element through the reference walk.
 *
 * The layout compiler refuses types whose offset tables would pass its budget (a wrap of millions of
 * elements through a small dimension, costly chains of references; see docs/architecture.md), and the copy
 * planner works on compiled layouts.  A copy still never refuses two types of the same size: this path
 * evaluates the refused side's offsets with pa__offset_walk, the semantics the compiler is tested against (the
 * other side, when it compiled, through its layout).  Memory the CPU
 * cannot address (dmem) is staged through a host image of the side's extent, read first and, for the
 * destination, written back whole, so the bytes between the type's elements keep their values.  It is slow
 * (a tree walk per element) and says so in its explanation.
 */
#include <stdlib.h>
#include <string.h>

#include "copy_internal.h"

typedef struct walk_side {
    const pa_type *t;
    const pa__layout *l;    /* the compiled layout, when the compiler did not refuse this side */
    char *ptr;              /* the caller's pointer */
    int64_t lo, hi;         /* the extent of offsets, by walking */
    char *image;            /* a host image of [lo, hi] when the memory is not host-accessible, else NULL */
} walk_side;

static int host_accessible(const pa_type *t)
{
    const char *m = pa_mtt(t);
    const pa__mem_ops *ops = m && strcmp(m, "any") != 0 ? pa__mem_find(m) : NULL;
    return ops == NULL || ops->host_accessible;
}

/* The offset of flat index k: through the compiled layout where there is one, else the walk. */
static int64_t offset_of(const walk_side *s, int64_t k)
{
    return s->l ? pa__layout_offset(s->l, k) : pa__offset_walk(s->t, k);
}

static void extent_of(walk_side *s)
{
    if (s->l) {
        s->lo = s->l->min_off;
        s->hi = s->l->max_off;
        return;
    }
    int64_t n = pa_size(s->t);
    s->lo = s->hi = n > 0 ? pa__offset_walk(s->t, 0) : 0;
    for (int64_t k = 1; k < n; k++) {
        int64_t o = pa__offset_walk(s->t, k);
        s->lo = o < s->lo ? o : s->lo;
        s->hi = o > s->hi ? o : s->hi;
    }
}

/* Moves a side's image to (to_image 1) or from its memory with one contiguous copy between flat types. */
static int move_image(walk_side *s, size_t e, int to_image)
{
    pa_scope *sc;
    char dev[96], host[96];
    long long n = (long long)(s->hi - s->lo + 1);
    int st = pa_scope_create(NULL, &sc);
    if (st != PA_OK)
        return st;
    snprintf(dev, sizeof dev, "%s bytes%zu [%lld]", pa_mtt(s->t), e, n);
    snprintf(host, sizeof host, "paged bytes%zu [%lld]", e, n);
    const pa_type *td = pa_type_parse(sc, dev), *th = pa_type_parse(sc, host);
    char *mem = s->ptr + pa__bytes(s->lo, e);
    if (!td || !th)
        st = pa__err_wrap(PA_ERR_NOMEM, "copy (walk): staging types for %s", pa_type_name(s->t));
    else
        st = to_image ? pa_copy(th, s->image, td, mem) : pa_copy(td, mem, th, s->image);
    pa_scope_destroy(sc);
    return st;
}

static int stage(walk_side *s, size_t e, int always)
{
    if (!always && host_accessible(s->t))   /* used in place: no image, no extent */
        return PA_OK;
    extent_of(s);
    uint64_t bytes = (uint64_t)(s->hi - s->lo + 1) * e;
    if (bytes > SIZE_MAX / 2 || !(s->image = malloc((size_t)bytes)))
        return pa__err(PA_ERR_NOMEM, "copy (walk): a host image of %llu bytes for %s", (unsigned long long)bytes,
                       pa_type_name(s->t));
    return move_image(s, e, 1);
}

/* The element of offset o: in the image when there is one, else in the memory itself. */
static char *element(const walk_side *s, int64_t o, size_t e)
{
    return s->image ? s->image + pa__bytes(o - s->lo, e) : s->ptr + pa__bytes(o, e);
}

/* src_image: the source is read whole into a host image first, so that writing the destination cannot change
 * what is still to be read (the two overlap in memory). */
static int walk(const pa_type *dt, void *dst, const pa_type *st, const void *src, int src_image)
{
    size_t e = pa_elm_size(dt);
    walk_side d = {dt, pa__type_layout(dt), dst, 0, 0, NULL}, s = {st, pa__type_layout(st), (char *)src, 0, 0, NULL};
    int rc = stage(&d, e, 0);
    if (rc == PA_OK)
        rc = stage(&s, e, src_image);
    if (rc != PA_OK)
        goto done;
    for (int64_t k = 0, n = pa_size(dt); k < n; k++)
        memcpy(element(&d, offset_of(&d, k), e), element(&s, offset_of(&s, k), e), e);
    if (d.image)
        rc = move_image(&d, e, 0);
done:
    free(d.image);
    free(s.image);
    return rc;
}

int pa__copy_walk(const pa_type *dt, void *dst, const pa_type *st, const void *src)
{
    int64_t dlo, dhi, slo, shi;
    size_t e = pa_elm_size(dt);
    /* Overlapping sides (the extents by the walk, which this path pays for anyway) go through a source image. */
    int apart = pa_extent(dt, &dlo, &dhi) == PA_OK && pa_extent(st, &slo, &shi) == PA_OK &&
                ((uintptr_t)dst + (uintptr_t)(dlo * (int64_t)e) >= (uintptr_t)src + (uintptr_t)((shi + 1) * (int64_t)e) ||
                 (uintptr_t)src + (uintptr_t)(slo * (int64_t)e) >= (uintptr_t)dst + (uintptr_t)((dhi + 1) * (int64_t)e));
    pa_error_clear();
    return walk(dt, dst, st, src, !apart);
}

int pa__copy_walk_explain(const pa_type *dt, const pa_type *st, char *buf, size_t len)
{
    const pa_type *refused = pa__type_layout(dt) ? st : dt;
    return snprintf(buf, len, "copy %lld x %zu B: strategy=walk threads=1 async=waits \xe2\x80\x94 the layout of %s is "
                    "refused by the compiler (offset tables past its budget): element by element through the "
                    "reference offsets%s%s (slow)", (long long)pa_size(dt), pa_elm_size(dt), pa_type_name(refused),
                    host_accessible(dt) ? "" : ", the destination staged through a host image",
                    host_accessible(st) ? "" : ", the source staged through a host image");
}
