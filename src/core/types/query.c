/* parray — taking type handles (declare, get, parse, dimensions, binding) and querying them (the offsets:
 * layout/layout_query.c). */
#include <stdlib.h>
#include <string.h>

#include "type_internal.h"

/* A live type handle (not NULL, not stale); else the error is set, naming the function. */
#define LIVE(t, fn) (pa__type_usable((t), (fn)) == PA_OK)

/* Checks that every named reference in a declaration tree names a declared type. */
static int check_refs(pa_scope *s, const pa__decl *d, const pa__adim *a)
{
    pa__decl *target;
    int path[PA__MAX_DEPTH], depth, st;
    for (int k = 0; k < a->nitems; k++) {
        const pa__item *it = &a->items[k];
        if (it->kind == PA__I_REF && it->ref && (st = pa__split_ref(s, it->ref, &target, path, &depth)))
            return pa__err_wrap(st, "in \"%s\" at column %d", d->text, it->col);
        for (int i = 0; i < it->ndims; i++)
            if ((st = check_refs(s, d, it->dims[i])))
                return st;
    }
    return PA_OK;
}

int pa_declare(pa_scope *s, const char *name, const char *text)
{
    pa__decl *d = NULL;
    int st;
    if (!s || !name || !text)
        return pa__err(PA_ERR_INVAL, "pa_declare: NULL %s", !s ? "scope" : !name ? "name" : "declaration");
    if (!pa__valid_name(name))
        return pa__err(PA_ERR_INVAL, "'%s' is not a valid type name (an identifier not ending in _<digit>)", name);
    pa__scope_lock(s);
    pa__decl *e = pa__names_get(&s->decl_names, name);
    if (e) {
        pa__scope_unlock(s);
        return pa__err(PA_ERR_EXISTS, "type '%s' is already declared in this scope as \"%s\"", name, e->text);
    }
    if ((st = pa__parse_decl(s, text, &d)) || (st = check_refs(s, d, d->root)))
        goto fail;
    if (!(d->name = pa__strdup(name))) {
        st = pa__err(PA_ERR_NOMEM, "no memory for a declaration");
        goto fail;
    }
    if ((st = pa__scope_add_decl(s, d)))
        goto fail;
    pa__scope_unlock(s);
    return PA_OK;
fail:
    pa__scope_unlock(s);
    pa__decl_free(d);
    return st;
}

/* "Name_0_1<e, e>" */
const pa_type *pa_type_get(pa_scope *s, const char *ref)
{
    pa__lexer lx;
    pa__env env = {0};
    pa__decl *d;
    pa__inst *in;
    int64_t args[16];
    int nargs = 0, path[PA__MAX_DEPTH], depth, st;
    char name[128];
    if (!s || !ref) {
        pa__err(PA_ERR_INVAL, "pa_type_get: NULL %s", s ? "reference" : "scope");
        return NULL;
    }
    env.scope = s;
    env.text = ref;
    pa__lex_init(&lx, ref);
    if (pa__lex_next(&lx))
        return NULL;
    if (lx.kind != PA__T_IDENT) {
        pa__syntax(&lx, "a type name");
        return NULL;
    }
    snprintf(name, sizeof name, "%s", lx.ident);
    if (pa__lex_next(&lx))
        return NULL;
    if (pa__lex_is(&lx, '<')) {
        do {
            pa__expr *e = NULL;
            if (nargs >= 16) {
                pa__err(PA_ERR_PARAM, "in \"%s\": more than 16 parameters", ref);
                return NULL;
            }
            if (pa__lex_next(&lx) || pa__parse_expr(&lx, &e))
                return NULL;
            st = pa__expr_eval(e, &env, &args[nargs++]);
            pa__expr_free(e);
            if (st)
                return NULL;
        } while (pa__lex_is(&lx, ','));
        if (!pa__lex_is(&lx, '>') || pa__lex_next(&lx)) {
            pa__syntax(&lx, "',' or '>'");
            return NULL;
        }
    }
    char *on = NULL;
    if (pa__parse_on(&lx, &on))
        return NULL;
    if (lx.kind != PA__T_EOF) {
        free(on);
        pa__syntax(&lx, on ? "the end of the type reference" : "'<', \"on<mtt>\" or the end of the type reference");
        return NULL;
    }
    const pa_type *t = NULL;
    pa__scope_lock(s);
    st = pa__split_ref(s, name, &d, path, &depth);
    /* The bare name of a type with parameters is its unbound handle, for pa_type_bind. */
    if (st == PA_OK && nargs == 0 && depth == 0 && d->nparams > 0 && !on)
        st = pa__inst_unbound(d, &in);
    else if (st == PA_OK)
        st = pa__inst_get(d, args, nargs, &in);
    if (st == PA_OK && (t = pa__node_path(in->root, path, depth, ref)) && on)
        t = pa__type_on(t, on);
    pa__scope_unlock(s);
    free(on);
    return t;
}

const pa_type *pa_type_parse(pa_scope *s, const char *text)
{
    pa__decl *d = NULL;
    pa__inst *in;
    if (!s || !text) {
        pa__err(PA_ERR_INVAL, "pa_type_parse: NULL %s", s ? "declaration" : "scope");
        return NULL;
    }
    pa__scope_lock(s);
    if (pa__parse_decl(s, text, &d) || check_refs(s, d, d->root))
        goto fail;
    if (d->nparams) {
        pa__err(PA_ERR_PARAM, "in \"%s\": an anonymous type cannot have parameters; declare it with a name", text);
        goto fail;
    }
    if (pa__inst_get(d, NULL, 0, &in))
        goto fail;
    d->next = s->anon;
    s->anon = d;
    pa__scope_unlock(s);
    return in->root;
fail:
    pa__scope_unlock(s);
    pa__decl_free(d);
    return NULL;
}

int pa__dim_path(const char *path, int *idx, int max)
{
    int n = 0;
    for (const char *p = path; *p; p++) {
        if (p != path && *p++ != '_')
            return -1;
        if (*p < '0' || *p > '9' || n >= max)
            return -1;
        idx[n++] = *p - '0';
    }
    return n;
}

const pa_type *pa_type_dim(const pa_type *t, const char *path)
{
    int idx[PA__MAX_DEPTH], n;
    if (!LIVE(t, "pa_type_dim"))
        return NULL;
    if (!path) {
        pa__err(PA_ERR_INVAL, "pa_type_dim: NULL path");
        return NULL;
    }
    if ((n = pa__dim_path(path, idx, PA__MAX_DEPTH)) < 0) {
        pa__err(PA_ERR_DIM, "'%s' is not a dimension path: \"\" or digits joined by '_', such as \"0_1\"", path);
        return NULL;
    }
    if (pa__bound(t, "pa_type_dim"))
        return NULL;
    return pa__node_path(t, idx, n, t->name);
}

const pa_type *pa_type_child(const pa_type *t, int i)
{
    if (!LIVE(t, "pa_type_child") || pa__bound(t, "pa_type_child"))
        return NULL;
    if (i < 0 || i >= t->nchild) {
        pa__err(PA_ERR_DIM, "%s has %d sub-dimensions; there is no sub-dimension %d", t->name, t->nchild, i);
        return NULL;
    }
    return t->child[i];
}

const pa_type *pa_type_root(const pa_type *t)
{
    if (!LIVE(t, "pa_type_root"))
        return NULL;
    while (t->parent)
        t = t->parent;
    return t;
}

const pa_type *pa_type_bind(const pa_type *t, int nargs, const int64_t *args)
{
    int path[PA__MAX_DEPTH], depth = 0;
    const pa_type *r;
    pa__inst *in;
    if (!LIVE(t, "pa_type_bind"))
        return NULL;
    if (nargs && !args) {
        pa__err(PA_ERR_INVAL, "pa_type_bind: NULL arguments");
        return NULL;
    }
    if (!t->inst->decl || !t->inst->decl->name) {
        pa__err(PA_ERR_PARAM, "%s is not a declared type with parameters", t->name);
        return NULL;
    }
    for (r = t; r->parent; r = r->parent)
        depth++;
    if (r != t->inst->root) {
        pa__err(PA_ERR_PARAM, "%s is inside a referenced tree; bind the type it belongs to", t->name);
        return NULL;
    }
    r = t;
    for (int i = depth - 1; i >= 0; i--, r = r->parent)
        path[i] = r->index;
    if (pa__inst_get(t->inst->decl, args, nargs, &in))
        return NULL;
    return pa__node_path(in->root, path, depth, t->name);
}

pa_scope *pa_type_scope(const pa_type *t)
{
    return LIVE(t, "pa_type_scope") && t->inst->decl ? t->inst->decl->scope : NULL;
}

int64_t pa_size(const pa_type *t)
{
    return !LIVE(t, "pa_size") ? -1 : t->inst->unbound ? (pa__bound(t, "pa_size"), -1) : t->size;
}

int pa_ndim(const pa_type *t)
{
    return !LIVE(t, "pa_ndim") ? -1 : t->inst->unbound ? (pa__bound(t, "pa_ndim"), -1) : t->nchild;
}

int pa_nleaves(const pa_type *t)
{
    return !LIVE(t, "pa_nleaves") ? -1 : t->inst->unbound ? (pa__bound(t, "pa_nleaves"), -1) : t->nleaves;
}

const char *pa_elm(const pa_type *t)
{
    return LIVE(t, "pa_elm") ? t->elm : NULL;
}

size_t pa_elm_size(const pa_type *t)
{
    return LIVE(t, "pa_elm_size") ? t->elm_size : 0;
}

const char *pa_mtt(const pa_type *t)
{
    return LIVE(t, "pa_mtt") ? t->mtt : NULL;
}

const char *pa__type_mtt(const pa_type *t)
{
    return t->mtt;
}

const char *pa_type_name(const pa_type *t)
{
    return LIVE(t, "pa_type_name") ? t->name : NULL;
}

int pa_nparams(const pa_type *t)
{
    return LIVE(t, "pa_nparams") && t->inst->decl ? t->inst->decl->nparams : 0;
}

static int list_params(const pa_type *t, char *buf, size_t len, int what)
{
    size_t n = 0;
    int r;
    if (!LIVE(t, "pa_args/pa_vars/pa_para"))
        return PA_ERR_INVAL;
    if (!buf && len)
        return pa__err(PA_ERR_INVAL, "NULL buffer");
    if (what == 2 && pa__bound(t, "pa_para"))
        return PA_ERR_PARAM;
    if (len)
        buf[0] = '\0';
    for (int i = 0; i < pa_nparams(t); i++) {
        const pa__decl *d = t->inst->decl;
        const char *sep = i ? ", " : "";
        if (what == 0)
            r = snprintf(buf + (n < len ? n : len), n < len ? len - n : 0, "%s%s %s", sep, d->ptypes[i], d->pnames[i]);
        else if (what == 1)
            r = snprintf(buf + (n < len ? n : len), n < len ? len - n : 0, "%s%s", sep, d->pnames[i]);
        else
            r = snprintf(buf + (n < len ? n : len), n < len ? len - n : 0, "%s%lld", sep, (long long)t->inst->args[i]);
        n += (size_t)r;
    }
    return (int)n;
}

int pa_args(const pa_type *t, char *buf, size_t len)
{
    return list_params(t, buf, len, 0);
}

int pa_vars(const pa_type *t, char *buf, size_t len)
{
    return list_params(t, buf, len, 1);
}

int pa_para(const pa_type *t, char *buf, size_t len)
{
    return list_params(t, buf, len, 2);
}

/* T on<mtt>: a pure reference to t made with the builder in t's scope, with the mtt asked for; its nodes are
 * named "<t's dimension> on<mtt>". */
static int rename_on(pa_type *n, const char *mtt)
{
    size_t len = strlen(n->alias->name) + strlen(mtt) + 6;
    char *name = malloc(len);
    if (!name)
        return pa__err(PA_ERR_NOMEM, "no memory for a type name");
    snprintf(name, len, "%s on<%s>", n->alias->name, mtt);
    free(n->name);
    n->name = name;
    n->on = 1;
    for (int i = 0; i < n->nchild; i++)
        if (rename_on(n->child[i], mtt))
            return PA_ERR_NOMEM;
    return PA_OK;
}

const pa_type *pa__type_on(const pa_type *t, const char *mtt)
{
    pa_scope *s = t->inst->decl->scope;
    if (pa__bound(t, "on<...>"))
        return NULL;
    if (pa__mtt_kind_of(mtt) == PA__MTT_NONE) {
        pa__err(PA_ERR_MTT, "%s on<%s>: '%s' is not a memory or thread type", t->name, mtt, mtt);
        return NULL;
    }
    if (strcmp(t->mtt, "distributed") == 0) {
        pa__err(PA_ERR_UNSUPPORTED, "%s on<%s>: %s is distributed (a thread and a memory type); choosing the "
                "memory or thread types of its parts is not supported", t->name, mtt, t->name);
        return NULL;
    }
    if (strcmp(t->mtt, mtt) == 0)
        return t;
    pa_builder *b = NULL;
    pa_builder_start(s, mtt, NULL, &b);
    pa_dim *root = b ? pa_dim_ref(b, t) : NULL;
    const pa_type *r = root ? pa_builder_finish(b, root, NULL) : (pa_builder_destroy(b), NULL);
    if (!r || rename_on((pa_type *)r, mtt))
        return NULL;
    return r;
}

const pa_type *pa_type_on(const pa_type *t, const char *mtt)
{
    if (!t || !mtt) {
        pa__err(PA_ERR_INVAL, "pa_type_on: NULL %s", t ? "mtt" : "type");
        return NULL;
    }
    return pa__type_on(t, mtt);
}
