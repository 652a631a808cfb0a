/* parray — the canonical declaration of a type, with every value bound (pa_type_format). */
#include <string.h>

#include "type_internal.h"

typedef struct out { char *buf; size_t len, n; } out;

static void put(out *o, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void put(out *o, const char *fmt, ...)
{
    va_list ap;
    int r;
    va_start(ap, fmt);
    r = vsnprintf(o->buf + (o->n < o->len ? o->n : o->len), o->n < o->len ? o->len - o->n : 0, fmt, ap);
    va_end(ap);
    if (r > 0)
        o->n += (size_t)r;
}

static void dim(out *o, const pa_type *t, int bracket);

static void target(out *o, const pa_type *t)
{
    if (t->on) {
        target(o, t->alias);
        put(o, " on<%s>", t->mtt);
        return;
    }
    if (t->inst->decl && t->inst->decl->name && t->inst->root == pa_type_root(t))
        put(o, "%s", t->name);
    else
        dim(o, t, 1);      /* an anonymous tree: print it in place */
}

static void dim(out *o, const pa_type *t, int bracket)
{
    if (t->alias) {
        put(o, "[#");
        target(o, t->alias);
        put(o, "]");
        return;
    }
    if (bracket)
        put(o, "[");
    if (t->nchild)
        for (int i = 0; i < t->nchild; i++)
            dim(o, t->child[i], 1);
    else
        put(o, "%lld", (long long)t->size);
    for (int k = 0; k < t->nfn; k++) {
        const pa__fn *f = &t->fn[k];
        if (f->kind == PA__F_DISP) {
            put(o, " # disp(%lld)", (long long)f->disp);
        } else if (f->kind == PA__F_STEP) {
            put(o, " # step(%lld)", (long long)f->disp);
        } else if (f->kind == PA__F_FUNC) {
            put(o, " # func(%s)", f->fname ? f->fname : "<callback>");
        } else {
            put(o, " # ");
            target(o, f->target);
        }
    }
    if (bracket)
        put(o, "]");
}

int pa_type_format(const pa_type *t, char *buf, size_t len)
{
    out o = {buf, len, 0};
    if (pa__type_usable(t, "pa_type_format") != PA_OK)
        return PA_ERR_INVAL;
    if (!buf && len)
        return pa__err(PA_ERR_INVAL, "pa_type_format: NULL buffer");
    if (len)
        buf[0] = '\0';
    if (pa__bound(t, "pa_type_format"))
        return PA_ERR_PARAM;
    if (strcmp(t->mtt, "any") != 0 && strcmp(t->mtt, "distributed") != 0)
        put(&o, "%s ", t->mtt);
    if (t->elm_size)
        put(&o, "%s ", t->elm);
    /* Several sub-dimensions of a plain dimension are written side by side, as in "[[3][3]][2]". */
    dim(&o, t, !(t->nchild >= 2 && t->nfn == 0 && !t->alias));
    return (int)o.n;
}
