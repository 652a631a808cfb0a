/* parray — scopes: variables, user offset functions, element types and declared types. */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "type_internal.h"

char *pa__strdup(const char *s)
{
    size_t n = strlen(s) + 1;
    char *p = malloc(n);
    if (p)
        memcpy(p, s, n);
    return p;
}

int64_t pa__floor_mod(int64_t a, int64_t m)
{
    int64_t r = a % m;
    return r < 0 ? r + m : r;
}

int pa__valid_name(const char *name)
{
    size_t n;
    if (!name || !(isalpha((unsigned char)name[0]) || name[0] == '_'))
        return 0;
    for (n = 1; name[n]; n++)
        if (!isalnum((unsigned char)name[n]) && name[n] != '_')
            return 0;
    if (n > 120)
        return 0;
    /* "A_0" would be read as dimension 0 of A. */
    return !(n >= 2 && isdigit((unsigned char)name[n - 1]) && name[n - 2] == '_');
}

int pa_scope_create(pa_scope *parent, pa_scope **out)
{
    pthread_mutexattr_t attr;
    pa_scope *s;
    if (!out)
        return pa__err(PA_ERR_INVAL, "pa_scope_create: out is NULL");
    s = calloc(1, sizeof *s);
    if (!s)
        return pa__err(PA_ERR_NOMEM, "pa_scope_create: no memory for a scope");
    pthread_mutexattr_init(&attr);
    pthread_mutexattr_settype(&attr, PTHREAD_MUTEX_RECURSIVE);
    pthread_mutex_init(&s->lock, &attr);
    pthread_mutexattr_destroy(&attr);
    s->parent = parent;
    *out = s;
    return PA_OK;
}

static void free_decls(pa__decl *d)
{
    while (d) {
        pa__decl *next = d->next;
        pa__decl_free(d);
        d = next;
    }
}

void pa_scope_destroy(pa_scope *s)
{
    if (!s)
        return;
    free_decls(s->decls);
    free_decls(s->anon);
    for (struct pa__var *v = s->vars, *n; v; v = n) {
        n = v->next;
        free(v->name);
        free(v);
    }
    for (struct pa__func *f = s->funcs, *n; f; f = n) {
        n = f->next;
        free(f->name);
        free(f);
    }
    for (struct pa__elm *e = s->elms, *n; e; e = n) {
        n = e->next;
        free(e->name);
        free(e);
    }
    pa__names_free(&s->decl_names);
    pa__names_free(&s->var_names);
    pa__names_free(&s->func_names);
    pa__names_free(&s->elm_names);
    pthread_mutex_destroy(&s->lock);
    free(s);
}

void pa__scope_lock(pa_scope *s)
{
    pthread_mutex_lock(&s->lock);
}

void pa__scope_unlock(pa_scope *s)
{
    pthread_mutex_unlock(&s->lock);
}

int pa_scope_set_int(pa_scope *s, const char *name, int64_t value)
{
    struct pa__var *v;
    if (!s || !pa__valid_name(name))
        return pa__err(PA_ERR_INVAL, "pa_scope_set_int: %s", s ? "invalid variable name" : "scope is NULL");
    pa__scope_lock(s);
    v = pa__names_get(&s->var_names, name);
    if (!v) {
        v = calloc(1, sizeof *v);
        if (!v || !(v->name = pa__strdup(name)) || pa__names_put(&s->var_names, v->name, v)) {
            if (v)
                free(v->name);
            free(v);
            pa__scope_unlock(s);
            return pa__err(PA_ERR_NOMEM, "pa_scope_set_int: no memory");
        }
        v->next = s->vars;
        s->vars = v;
    }
    v->value = value;
    pa__bump_var_generation();
    pa__scope_unlock(s);
    return PA_OK;
}

int pa_scope_get_int(const pa_scope *s, const char *name, int64_t *out)
{
    if (!name || !out)
        return pa__err(PA_ERR_INVAL, "pa_scope_get_int: NULL argument");
    for (; s; s = s->parent) {
        const struct pa__var *v = pa__names_get(&s->var_names, name);
        if (v) {
            *out = v->value;
            return PA_OK;
        }
    }
    return pa__err(PA_ERR_NAME, "variable '%s' is not set", name);
}

int pa_scope_def_func(pa_scope *s, const char *name, pa_offset_fn fn, void *ctx)
{
    struct pa__func *f;
    if (!s || !fn || !pa__valid_name(name))
        return pa__err(PA_ERR_INVAL, "pa_scope_def_func: NULL scope or function, or invalid name");
    pa__scope_lock(s);
    if (pa__names_get(&s->func_names, name)) {
        pa__scope_unlock(s);
        return pa__err(PA_ERR_EXISTS, "offset function '%s' is already defined", name);
    }
    f = calloc(1, sizeof *f);
    if (!f || !(f->name = pa__strdup(name)) || pa__names_put(&s->func_names, f->name, f)) {
        if (f)
            free(f->name);
        free(f);
        pa__scope_unlock(s);
        return pa__err(PA_ERR_NOMEM, "pa_scope_def_func: no memory");
    }
    f->fn = fn;
    f->ctx = ctx;
    f->next = s->funcs;
    s->funcs = f;
    pa__scope_unlock(s);
    return PA_OK;
}

int pa__scope_find_func(pa_scope *s, const char *name, pa_offset_fn *fn, void **ctx)
{
    for (; s; s = s->parent) {
        struct pa__func *f = pa__names_get(&s->func_names, name);
        if (f) {
            *fn = f->fn;
            *ctx = f->ctx;
            return PA_OK;
        }
    }
    return PA_ERR_NAME;
}

static const struct { const char *name; size_t size; } builtin_elms[] = {
    {"char", 1}, {"signed char", 1}, {"unsigned char", 1}, {"int8_t", 1}, {"uint8_t", 1}, {"bool", 1},
    {"short", 2}, {"unsigned short", 2}, {"int16_t", 2}, {"uint16_t", 2}, {"half", 2}, {"bfloat16", 2},
    {"int", 4}, {"unsigned", 4}, {"unsigned int", 4}, {"int32_t", 4}, {"uint32_t", 4}, {"float", 4},
    {"long", 8}, {"unsigned long", 8}, {"long long", 8}, {"unsigned long long", 8}, {"int64_t", 8},
    {"uint64_t", 8}, {"size_t", 8}, {"double", 8}, {"float2", 8}, {"int2", 8}, {"money", 8},
    {"float4", 16}, {"double2", 16}, {"int4", 16}, {"long double", 16},
};

size_t pa__scope_elm_size(pa_scope *s, const char *name)
{
    char *end;
    int p, sc;
    if (pa__elm_numeric(name, &p, &sc))
        return 16;   /* numeric(p, s): Arrow's decimal128, whatever p */
    for (size_t i = 0; i < sizeof builtin_elms / sizeof builtin_elms[0]; i++)
        if (strcmp(builtin_elms[i].name, name) == 0)
            return builtin_elms[i].size;
    if (strncmp(name, "bytes", 5) == 0 && isdigit((unsigned char)name[5])) {
        unsigned long n = strtoul(name + 5, &end, 10);
        if (*end == '\0' && n >= 1 && n <= 4096)
            return n;
    }
    for (; s; s = s->parent) {
        struct pa__elm *e = pa__names_get(&s->elm_names, name);
        if (e)
            return e->size;
    }
    return 0;
}

int pa_scope_def_elm(pa_scope *s, const char *name, size_t size)
{
    struct pa__elm *e;
    if (!s || !pa__valid_name(name) || size < 1 || size > 4096)
        return pa__err(PA_ERR_INVAL, "pa_scope_def_elm: invalid scope, name or size %zu (1..4096)", size);
    pa__scope_lock(s);
    if (pa__scope_elm_size(s, name)) {
        pa__scope_unlock(s);
        return pa__err(PA_ERR_EXISTS, "element type '%s' is already defined", name);
    }
    e = calloc(1, sizeof *e);
    if (!e || !(e->name = pa__strdup(name)) || pa__names_put(&s->elm_names, e->name, e)) {
        if (e)
            free(e->name);
        free(e);
        pa__scope_unlock(s);
        return pa__err(PA_ERR_NOMEM, "pa_scope_def_elm: no memory");
    }
    e->size = size;
    e->next = s->elms;
    s->elms = e;
    pa__scope_unlock(s);
    return PA_OK;
}

pa__decl *pa__scope_find_decl(pa_scope *s, const char *name)
{
    for (; s; s = s->parent) {
        pa__decl *d = pa__names_get(&s->decl_names, name);
        if (d)
            return d;
    }
    return NULL;
}

int pa__scope_add_decl(pa_scope *s, pa__decl *d)
{
    int st = pa__names_put(&s->decl_names, d->name, d);
    if (st == PA_OK) {
        d->next = s->decls;
        s->decls = d;
    }
    return st;
}
