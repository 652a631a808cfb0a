/*
 * parray — instances: a declaration with its parameters bound and every size, displacement and reference
 * resolved into a tree of pa_type nodes.
 */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "type_internal.h"

static _Atomic uint64_t var_generation = 1;
static _Atomic uint64_t last_serial;
static _Thread_local int ref_depth;

void pa__bump_var_generation(void)
{
    var_generation++;
}

uint64_t pa__type_serial(const pa_type *t)
{
    return t->serial;
}

int pa__pair_current(const pa__pair *p)
{
    return p->dt->serial == p->dser && p->st->serial == p->sser;
}

typedef struct build {
    pa__inst *inst;
    pa__env env;
} build;

static void node_free(pa_type *n)
{
    for (int i = 0; i < n->ntables; i++)
        free(n->tables[i]);
    free(n->tables);
    free(n->layout);
    if (n->dist)
        n->dist_free(n->dist);
    if (n->pieces)
        n->pieces_free(n->pieces);
    free(n->child);
    free(n->fn);
    free(n->name);
    pa__node_release(n);
}

void pa__inst_free(pa__inst *in)
{
    if (!in)
        return;
    for (pa_type *n = in->nodes, *next; n; n = next) {
        next = n->next_alloc;
        node_free(n);
    }
    free(in->args);
    free(in);
}

static int new_node(build *b, pa_type *parent, int index, pa_type **out)
{
    pa_type *n;
    if (b->inst->nnodes >= PA__MAX_NODES)
        return pa__err(PA_ERR_RANGE, "in \"%s\": the type has more than %d dimensions", b->env.text, PA__MAX_NODES);
    if (!(n = pa__node_alloc()))
        return pa__err(PA_ERR_NOMEM, "no memory for a dimension");
    n->inst = b->inst;
    n->serial = ++last_serial;
    n->parent = parent;
    n->index = index;
    n->next_alloc = b->inst->nodes;
    b->inst->nodes = n;
    b->inst->nnodes++;
    *out = n;
    return PA_OK;
}

static int add_fn(pa_type *n, pa__fn f)
{
    pa__fn *p = realloc(n->fn, (size_t)(n->nfn + 1) * sizeof *p);
    if (!p)
        return pa__err(PA_ERR_NOMEM, "no memory for a dimension");
    n->fn = p;
    n->fn[n->nfn++] = f;
    return PA_OK;
}

int pa__split_ref(pa_scope *s, const char *ref, pa__decl **d, int *path, int *depth)
{
    char name[128];
    size_t len = strlen(ref);
    int n = 0;
    if (len >= sizeof name)
        return pa__err(PA_ERR_NAME, "type name '%.40s...' is too long", ref);
    while (len >= 2 && isdigit((unsigned char)ref[len - 1]) && ref[len - 2] == '_') {
        if (n >= PA__MAX_DEPTH)
            return pa__err(PA_ERR_DIM, "dimension path of '%s' is too deep", ref);
        n++;
        len -= 2;
    }
    for (int i = 0; i < n; i++)
        path[i] = ref[len + 1 + 2 * i] - '0';
    memcpy(name, ref, len);
    name[len] = '\0';
    if (!(*d = pa__scope_find_decl(s, name)))
        return pa__err(PA_ERR_NAME, "type '%s' is not declared", name);
    *depth = n;
    return PA_OK;
}

const pa_type *pa__node_path(const pa_type *t, const int *path, int depth, const char *what)
{
    for (int i = 0; i < depth; i++) {
        if (path[i] >= t->nchild) {
            pa__err(PA_ERR_DIM, "%s: dimension %s has %d sub-dimension%s, so it has no sub-dimension %d", what,
                    t->name, t->nchild, t->nchild == 1 ? "" : "s", path[i]);
            return NULL;
        }
        t = t->child[path[i]];
    }
    return t;
}

static int resolve_ref(build *b, const pa__item *it, const pa_type **out)
{
    pa__decl *d;
    pa__inst *in;
    int64_t args[16];
    int path[PA__MAX_DEPTH], depth, st;
    const pa_type *t;
    if (it->target) {
        *out = it->target;
        return PA_OK;
    }
    if ((st = pa__split_ref(b->env.scope, it->ref, &d, path, &depth)))
        return pa__err_wrap(st, "in \"%s\" at column %d", b->env.text, it->col);
    if (it->nargs != d->nparams || it->nargs > 16)
        return pa__err(PA_ERR_PARAM, "in \"%s\" at column %d: %s takes %d parameter%s, %d given", b->env.text,
                       it->col, d->name, d->nparams, d->nparams == 1 ? "" : "s", it->nargs);
    for (int i = 0; i < it->nargs; i++)
        if ((st = pa__expr_eval(it->args[i], &b->env, &args[i])))
            return st;
    if (ref_depth >= PA__MAX_DEPTH)
        return pa__err(PA_ERR_RANGE, "in \"%s\" at column %d: references nested more than %d deep (a cycle?)",
                       b->env.text, it->col, PA__MAX_DEPTH);
    ref_depth++;
    st = pa__inst_get(d, args, it->nargs, &in);
    ref_depth--;
    if (st)
        return st;
    if (in->uses_vars)
        b->env.uses_vars = 1;
    if (!(t = pa__node_path(in->root, path, depth, b->env.text)))
        return PA_ERR_DIM;
    if (it->on && !(t = pa__type_on(t, it->on)))
        return pa__err_wrap(PA_ERR_MTT, "in \"%s\" at column %d", b->env.text, it->col);
    *out = t;
    return PA_OK;
}

/* A pure reference cites the whole sub-tree of its target: mirror it with alias nodes. */
static int mirror(build *b, pa_type *n, const pa_type *target)
{
    int st;
    n->alias = target;
    n->size = target->size;
    if (target->nchild == 0)
        return PA_OK;
    if (!(n->child = calloc((size_t)target->nchild, sizeof *n->child)))
        return pa__err(PA_ERR_NOMEM, "no memory for a dimension");
    for (int i = 0; i < target->nchild; i++) {
        if ((st = new_node(b, n, i, &n->child[n->nchild])))
            return st;
        n->nchild++;
        if ((st = mirror(b, n->child[i], target->child[i])))
            return st;
    }
    return PA_OK;
}

static int build_node(build *b, const pa__adim *a, pa_type *parent, int index, pa_type **out);
static int finish_node(pa_type *n, const pa__decl *d, const pa_type *elm_from, const char *base, const char *args);

static int build_children(build *b, pa_type *n, pa__adim *const *dims, int ndims)
{
    int st;
    if (!(n->child = calloc((size_t)ndims, sizeof *n->child)))
        return pa__err(PA_ERR_NOMEM, "no memory for a dimension");
    n->size = 1;
    int64_t nonzero = 1;   /* bounds the strides too: an empty dimension makes the size 0, not its neighbours' product */
    for (int i = 0; i < ndims; i++) {
        if ((st = build_node(b, dims[i], n, i, &n->child[i])))
            return st;
        n->nchild++;
        int64_t sz = n->child[i]->size;
        if (__builtin_mul_overflow(n->size, sz, &n->size) || n->size > PA__MAX_SIZE ||
            __builtin_mul_overflow(nonzero, sz ? sz : 1, &nonzero) || nonzero > PA__MAX_SIZE)
            return pa__err(PA_ERR_RANGE, "in \"%s\" at column %d: the dimension's size overflows", b->env.text,
                           dims[i]->col);
    }
    return PA_OK;
}

/* "# [...]": a reference to an anonymous dimension tree. */
static int build_anonymous(build *b, const pa__item *it, const pa_type **out)
{
    pa__adim wrapper = {0};
    pa__item item = *it;
    pa_type *n = NULL;
    int st;
    wrapper.items = &item;
    wrapper.nitems = 1;
    wrapper.col = it->col;
    item.kind = PA__I_DIMS;
    if (it->ndims == 1)
        st = build_node(b, it->dims[0], NULL, 0, &n);
    else
        st = build_node(b, &wrapper, NULL, 0, &n);
    if (st == PA_OK)
        st = finish_node(n, NULL, NULL, "(anonymous)", "");
    *out = n;
    return st;
}

static int size_item(const pa__adim *a)
{
    for (int k = 0; k < a->nitems; k++)
        if (a->items[k].kind == PA__I_EXPR || a->items[k].kind == PA__I_REF || a->items[k].kind == PA__I_DIMS)
            return k;
    return -1;
}

static int build_item(build *b, pa_type *n, const pa__item *it, int k, int si)
{
    pa__fn f = {0};
    int st;
    switch (it->kind) {
    case PA__I_EXPR:
        return pa__expr_eval(it->expr, &b->env, &n->size);
    case PA__I_DIMS:
        if (k == 0)
            return build_children(b, n, it->dims, it->ndims);
        f.kind = PA__F_REF;
        if ((st = build_anonymous(b, it, &f.target)))
            return st;
        break;
    case PA__I_REF:
        f.kind = PA__F_REF;
        if ((st = resolve_ref(b, it, &f.target)))
            return st;
        break;
    case PA__I_STEP:
    case PA__I_DISP:
        f.kind = it->kind == PA__I_STEP ? PA__F_STEP : PA__F_DISP;
        if ((st = pa__expr_eval(it->expr, &b->env, &f.disp)))
            return st;
        break;
    case PA__I_FUNC:
        f.kind = PA__F_FUNC;
        f.fn = it->fn;
        f.ctx = it->fn_ctx;
        f.fname = it->func;
        if (!f.fn && pa__scope_find_func(b->env.scope, it->func, &f.fn, &f.ctx))
            return pa__err(PA_ERR_NAME, "in \"%s\" at column %d: offset function '%s' is not defined (pa_scope_def_func)",
                           b->env.text, it->col, it->func);
        break;
    }
    if (k == si)
        n->size = f.target->size;
    if (f.kind == PA__F_FUNC || (f.kind == PA__F_REF && f.target->inst->has_func))
        b->inst->has_func = 1;
    return add_fn(n, f);
}

/* The most elements of n or of any dimension under it (an empty type's other dimensions keep their sizes). */
static int64_t most_elements(const pa_type *n)
{
    int64_t m = n->size;
    for (int i = 0; i < n->nchild; i++) {
        int64_t c = most_elements(n->child[i]);
        m = c > m ? c : m;
    }
    return m;
}

static int build_node(build *b, const pa__adim *a, pa_type *parent, int index, pa_type **out)
{
    pa_type *n = NULL;
    int st, si = size_item(a);
    if ((st = new_node(b, parent, index, &n)))
        return st;
    *out = n;
    if (si < 0)
        return pa__err(PA_ERR_PARSE, "in \"%s\" at column %d: the dimension has no size (a number, a type reference or sub-dimensions)",
                       b->env.text, a->col);
    if (a->nitems == 1 && a->items[0].kind == PA__I_REF) {
        const pa_type *target;
        if ((st = resolve_ref(b, &a->items[0], &target)))
            return st;
        b->inst->has_func |= target->inst->has_func;
        return mirror(b, n, target);
    }
    for (int k = 0; k < a->nitems; k++)
        if ((st = build_item(b, n, &a->items[k], k, si)))
            return st;
    if (n->size < 0 || n->size > PA__MAX_SIZE)
        return pa__err(PA_ERR_RANGE, "in \"%s\" at column %d: dimension size %lld is not in 0..2^50", b->env.text,
                       a->col, (long long)n->size);
    /* an empty dimension has no index: one with elements cannot pass its indices through it, nor can an empty
     * one whose sub-dimensions have elements (their offsets go through its chain) */
    int64_t most = most_elements(n);
    for (int k = 0; k < n->nfn && most > 0; k++)
        if (n->fn[k].kind == PA__F_REF && n->fn[k].target->size == 0)
            return pa__err(PA_ERR_RANGE, "in \"%s\" at column %d: a dimension of %lld elements%s refers to %s, which "
                           "has none (an empty dimension has no index to refer to)", b->env.text, a->col,
                           (long long)n->size, n->size == 0 ? " (with sub-dimensions that have elements)" : "",
                           pa_type_name(n->fn[k].target));
    for (int k = 0; k < n->nfn; k++)
        n->fixed |= n->fn[k].kind != PA__F_DISP && n->fn[k].kind != PA__F_STEP;
    return PA_OK;
}

/* The memory/thread type a sub-tree's references agree on: NULL for none, "distributed" for several. */
static const char *derive_mtt(const pa_type *n)
{
    const char *m = NULL, *c;
    if (n->alias)
        return strcmp(n->alias->mtt, "any") ? n->alias->mtt : NULL;
    for (int k = 0; k < n->nfn; k++)
        if (n->fn[k].kind == PA__F_REF && strcmp(n->fn[k].target->mtt, "any") != 0) {
            c = n->fn[k].target->mtt;
            m = !m || strcmp(m, c) == 0 ? c : "distributed";
        }
    for (int i = 0; i < n->nchild; i++)
        if ((c = derive_mtt(n->child[i])))
            m = !m || strcmp(m, c) == 0 ? c : "distributed";
    return m;
}

static const pa_type *first_elm(const pa_type *n)
{
    const pa_type *r;
    if (n->alias)
        return n->alias->elm_size ? n->alias : NULL;
    for (int k = 0; k < n->nfn; k++)   /* a target without one (a distributed sub-tree in place) looks inside */
        if (n->fn[k].kind == PA__F_REF && (r = n->fn[k].target->elm_size ? n->fn[k].target
                                                                           : first_elm(n->fn[k].target)))
            return r;
    for (int i = 0; i < n->nchild; i++)
        if ((r = first_elm(n->child[i])))
            return r;
    return NULL;
}

static int finish_node(pa_type *n, const pa__decl *d, const pa_type *elm_from, const char *base, const char *args)
{
    const char *m = d && d->mtt ? d->mtt : derive_mtt(n);
    size_t len = strlen(base) + strlen(args) + 1;
    n->mtt = m ? m : n->parent ? n->parent->mtt : "any";
    n->elm = d && d->elm ? d->elm : elm_from ? elm_from->elm : "void";
    n->elm_size = d && d->elm ? d->elm_size : elm_from ? elm_from->elm_size : 0;
    if (!(n->name = malloc(len)))
        return pa__err(PA_ERR_NOMEM, "no memory for a type name");
    snprintf(n->name, len, "%s%s", base, args);
    n->nleaves = n->nchild ? 0 : 1;
    for (int i = 0; i < n->nchild; i++) {
        char sub[160];
        int st;
        n->child[i]->stride_in_parent = 1;
        for (int j = i + 1; j < n->nchild; j++)
            n->child[i]->stride_in_parent *= n->child[j]->size;
        snprintf(sub, sizeof sub, "%s_%d", base, i);
        if ((st = finish_node(n->child[i], d, elm_from, sub, args)))
            return st;
        n->nleaves += n->child[i]->nleaves;
    }
    return PA_OK;
}

static int make_inst(pa__decl *d, const int64_t *args, int nargs, pa__inst **out)
{
    build b = {0};
    char argstr[256] = "";
    int st;
    if (!(b.inst = calloc(1, sizeof *b.inst)) ||
        (nargs && !(b.inst->args = malloc((size_t)nargs * sizeof *args)))) {
        free(b.inst);
        return pa__err(PA_ERR_NOMEM, "no memory for a type instance");
    }
    if (nargs)
        memcpy(b.inst->args, args, (size_t)nargs * sizeof *args);
    b.inst->nargs = nargs;
    b.inst->decl = d;
    b.inst->var_gen = var_generation;
    b.env.scope = d->scope;
    b.env.decl = d;
    b.env.args = args;
    b.env.text = d->text;
    if ((st = build_node(&b, d->root, NULL, 0, &b.inst->root)))
        goto fail;
    for (int i = 0; i < nargs; i++) {
        size_t l = strlen(argstr);
        snprintf(argstr + l, sizeof argstr - l, "%s%lld%s", i ? "," : "<", (long long)args[i],
                 i == nargs - 1 ? ">" : "");
    }
    if ((st = finish_node(b.inst->root, d, first_elm(b.inst->root), d->name ? d->name : "(anonymous)", argstr)))
        goto fail;
    b.inst->uses_vars = b.env.uses_vars;
    *out = b.inst;
    return PA_OK;
fail:
    pa__inst_free(b.inst);
    return st;
}

int pa__inst_unbound(pa__decl *d, pa__inst **out)
{
    pa__inst *in;
    pa_type *n = NULL;
    pa__scope_lock(d->scope);
    if (!(in = d->unbound)) {
        if (!(in = calloc(1, sizeof *in)) || !(n = pa__node_alloc()) || !(n->name = pa__strdup(d->name))) {
            if (n)
                pa__node_release(n);
            free(in);
            pa__scope_unlock(d->scope);
            return pa__err(PA_ERR_NOMEM, "no memory for the handle of %s", d->name);
        }
        /* One node with no size (0) and no sub-dimensions: whatever reads it unchecked does nothing. */
        in->decl = d;
        in->unbound = 1;
        in->root = in->nodes = n;
        in->nnodes = 1;
        n->inst = in;
        n->serial = ++last_serial;
        n->mtt = d->mtt ? d->mtt : "any";
        n->elm = d->elm ? d->elm : "void";
        n->elm_size = d->elm ? d->elm_size : 0;
        d->unbound = in;
    }
    pa__scope_unlock(d->scope);
    *out = in;
    return PA_OK;
}

int pa__bound(const pa_type *t, const char *what)
{
    if (!t)
        return pa__err(PA_ERR_INVAL, "%s: NULL type", what);
    if (!t->inst->unbound)
        return PA_OK;
    const pa__decl *d = t->inst->decl;
    char params[256] = "";
    for (int i = 0; i < d->nparams; i++) {
        size_t l = strlen(params);
        snprintf(params + l, sizeof params - l, "%s%s %s", i ? ", " : "", d->ptypes[i], d->pnames[i]);
    }
    return pa__err(PA_ERR_PARAM, "%s: %s has parameters <%s> that are not bound; bind them first "
                   "(pa_type_bind, or \"%s<...>\")", what, d->name, params, d->name);
}

int pa__inst_get(pa__decl *d, const int64_t *args, int nargs, pa__inst **out)
{
    pa__inst *in;
    int st = PA_OK;
    if (nargs != d->nparams)
        return pa__err(PA_ERR_PARAM, "%s takes %d parameter%s, %d given", d->name ? d->name : "the type", d->nparams,
                       d->nparams == 1 ? "" : "s", nargs);
    pa__scope_lock(d->scope);
    for (in = d->insts; in; in = in->next)
        if ((nargs == 0 || memcmp(in->args, args, (size_t)nargs * sizeof *args) == 0) &&
            (!in->uses_vars || in->var_gen == var_generation))
            break;
    if (!in && (st = make_inst(d, args, nargs, &in)) == PA_OK) {
        in->next = d->insts;
        d->insts = in;
    }
    pa__scope_unlock(d->scope);
    if (st == PA_OK)
        *out = in;
    return st;
}
