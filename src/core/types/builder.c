/* parray — the builder API: the same declaration trees as the parser makes, built by a program. */
#include <stdlib.h>
#include <string.h>

#include "type_internal.h"

struct pa_dim {
    pa__adim *a;
    pa_builder *b;
    int owned;                /* 1 once it is a sub-dimension of another dimension or the root */
    int depth;                /* brackets nested in it, itself included (the parser's limit applies) */
    pa_dim *next;
};

struct pa_builder {
    pa_scope *scope;
    char *mtt, *elm;
    size_t elm_size;
    pa_dim *dims;
};

int pa_builder_start(pa_scope *s, const char *mtt, const char *elm, pa_builder **out)
{
    pa_builder *b;
    if (!s || !out)
        return pa__err(PA_ERR_INVAL, "pa_builder_start: NULL %s", !s ? "scope" : "out");
    if (mtt && pa__mtt_kind_of(mtt) == PA__MTT_NONE)
        return pa__err(PA_ERR_MTT, "pa_builder_start: '%s' is not a memory or thread type", mtt);
    if (elm && !pa__scope_elm_size(s, elm))
        return pa__err(PA_ERR_ELM, "pa_builder_start: unknown element type '%s'", elm);
    if (!(b = calloc(1, sizeof *b)) || (mtt && !(b->mtt = pa__strdup(mtt))) || (elm && !(b->elm = pa__strdup(elm)))) {
        if (b) {
            free(b->mtt);
            free(b);
        }
        return pa__err(PA_ERR_NOMEM, "no memory for a builder");
    }
    b->scope = s;
    b->elm_size = elm ? pa__scope_elm_size(s, elm) : 0;
    *out = b;
    return PA_OK;
}

void pa_builder_destroy(pa_builder *b)
{
    if (!b)
        return;
    for (pa_dim *d = b->dims, *n; d; d = n) {
        n = d->next;
        if (!d->owned)
            pa__adim_free(d->a);
        free(d);
    }
    free(b->mtt);
    free(b->elm);
    free(b);
}

static pa__item *new_item(pa_dim *d, pa__ikind kind)
{
    pa__item *p = realloc(d->a->items, (size_t)(d->a->nitems + 1) * sizeof *p);
    if (!p) {
        pa__err(PA_ERR_NOMEM, "no memory for a dimension");
        return NULL;
    }
    d->a->items = p;
    p += d->a->nitems++;
    memset(p, 0, sizeof *p);
    p->kind = kind;
    return p;
}

static pa__expr *num(int64_t v)
{
    pa__expr *e = calloc(1, sizeof *e);
    if (e) {
        e->kind = PA__X_NUM;
        e->num = v;
    } else {
        pa__err(PA_ERR_NOMEM, "no memory for a dimension");
    }
    return e;
}

static pa_dim *new_dim(pa_builder *b)
{
    pa_dim *d;
    if (!b) {
        pa__err(PA_ERR_INVAL, "NULL builder");
        return NULL;
    }
    if (!(d = calloc(1, sizeof *d)) || !(d->a = calloc(1, sizeof *d->a))) {
        free(d);
        pa__err(PA_ERR_NOMEM, "no memory for a dimension");
        return NULL;
    }
    d->b = b;
    d->depth = 1;
    d->next = b->dims;
    b->dims = d;
    return d;
}

pa_dim *pa_dim_size(pa_builder *b, int64_t size)
{
    pa_dim *d;
    pa__item *it;
    if (size < 0 || size > PA__MAX_SIZE) {
        pa__err(PA_ERR_RANGE, "pa_dim_size: size %lld is not in 0..2^50", (long long)size);
        return NULL;
    }
    if (!(d = new_dim(b)) || !(it = new_item(d, PA__I_EXPR)) || !(it->expr = num(size)))
        return NULL;
    return d;
}

pa_dim *pa_dim_tree(pa_builder *b, int n, pa_dim *const *children)
{
    pa_dim *d;
    pa__item *it;
    if (n < 1 || n > PA__MAX_CHILDREN || !children) {
        pa__err(PA_ERR_RANGE, "pa_dim_tree: %d sub-dimensions (1..%d)", n, PA__MAX_CHILDREN);
        return NULL;
    }
    int depth = 0;
    for (int i = 0; i < n; i++) {
        if (!children[i] || children[i]->b != b || children[i]->owned) {
            pa__err(PA_ERR_INVAL, "pa_dim_tree: sub-dimension %d is NULL, of another builder or already used", i);
            return NULL;
        }
        for (int j = 0; j < i; j++)
            if (children[j] == children[i]) {
                pa__err(PA_ERR_INVAL, "pa_dim_tree: sub-dimensions %d and %d are the same dimension (a dimension "
                        "has one place in a tree)", j, i);
                return NULL;
            }
        depth = children[i]->depth > depth ? children[i]->depth : depth;
    }
    if (depth + 1 > PA__MAX_DEPTH) {
        pa__err(PA_ERR_RANGE, "pa_dim_tree: the tree would be %d dimensions deep; declarations nest at most %d",
                depth + 1, PA__MAX_DEPTH);
        return NULL;
    }
    if (!(d = new_dim(b)) || !(it = new_item(d, PA__I_DIMS)) || !(it->dims = calloc((size_t)n, sizeof *it->dims)))
        return NULL;
    for (int i = 0; i < n; i++) {
        it->dims[i] = children[i]->a;
        children[i]->owned = 1;
    }
    it->ndims = n;
    d->depth = depth + 1;
    return d;
}

pa_dim *pa_dim_ref(pa_builder *b, const pa_type *target)
{
    pa_dim *d;
    if (!target) {
        pa__err(PA_ERR_INVAL, "pa_dim_ref: NULL target");
        return NULL;
    }
    if (!(d = new_dim(b)) || pa_dim_then_ref(d, target))
        return NULL;
    return d;
}

int pa_dim_then_ref(pa_dim *d, const pa_type *target)
{
    pa__item *it;
    if (!d || !target)
        return pa__err(PA_ERR_INVAL, "pa_dim_then_ref: NULL %s", d ? "target" : "dimension");
    if (!(it = new_item(d, PA__I_REF)))
        return PA_ERR_NOMEM;
    it->target = target;
    return PA_OK;
}

int pa_dim_then_disp(pa_dim *d, int64_t e)
{
    pa__item *it;
    if (!d)
        return pa__err(PA_ERR_INVAL, "pa_dim_then_disp: NULL dimension");
    if (!(it = new_item(d, PA__I_DISP)) || !(it->expr = num(e)))
        return PA_ERR_NOMEM;
    return PA_OK;
}

int pa_dim_then_step(pa_dim *d, int64_t factor)
{
    pa__item *it;
    if (!d)
        return pa__err(PA_ERR_INVAL, "pa_dim_then_step: NULL dimension");
    if (!(it = new_item(d, PA__I_STEP)) || !(it->expr = num(factor)))
        return PA_ERR_NOMEM;
    return PA_OK;
}

int pa_dim_then_func(pa_dim *d, pa_offset_fn fn, void *ctx)
{
    pa__item *it;
    if (!d || !fn)
        return pa__err(PA_ERR_INVAL, "pa_dim_then_func: NULL %s", d ? "function" : "dimension");
    if (!(it = new_item(d, PA__I_FUNC)))
        return PA_ERR_NOMEM;
    it->fn = fn;
    it->fn_ctx = ctx;
    return PA_OK;
}

const pa_type *pa_builder_finish(pa_builder *b, pa_dim *root, const char *name)
{
    pa__decl *d = NULL;
    pa__inst *in;
    pa_scope *s;
    if (!b || !root || root->b != b || root->owned) {
        pa__err(PA_ERR_INVAL, "pa_builder_finish: NULL builder or root, or a root already used");
        pa_builder_destroy(b);
        return NULL;
    }
    s = b->scope;
    if (name && (!pa__valid_name(name) || pa__scope_find_decl(s, name))) {
        pa__err(pa__valid_name(name) ? PA_ERR_EXISTS : PA_ERR_INVAL, "pa_builder_finish: '%s' is %s", name,
                pa__valid_name(name) ? "already declared" : "not a valid type name");
        pa_builder_destroy(b);
        return NULL;
    }
    if (!(d = calloc(1, sizeof *d)) || !(d->text = pa__strdup("(built)")) || (name && !(d->name = pa__strdup(name)))) {
        pa__err(PA_ERR_NOMEM, "no memory for a declaration");
        goto fail;
    }
    d->scope = s;
    d->mtt = b->mtt;
    d->elm = b->elm;
    d->elm_size = b->elm_size;
    b->mtt = b->elm = NULL;
    d->root = root->a;
    root->owned = 1;
    pa_builder_destroy(b);
    b = NULL;
    if (pa__inst_get(d, NULL, 0, &in))
        goto fail;
    pa__scope_lock(s);
    if (name) {
        if (pa__scope_add_decl(s, d)) {
            pa__scope_unlock(s);
            goto fail;
        }
    } else {
        d->next = s->anon;
        s->anon = d;
    }
    pa__scope_unlock(s);
    return in->root;
fail:
    pa__decl_free(d);
    pa_builder_destroy(b);
    return NULL;
}
