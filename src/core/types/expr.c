/* parray — integer expressions in sizes, displacements and parameters: parsing, evaluation, printing. */
#include <stdlib.h>
#include <string.h>

#include "type_internal.h"

static pa__expr *node(pa__xkind k, int col)
{
    pa__expr *e = calloc(1, sizeof *e);
    if (e) {
        e->kind = k;
        e->col = col;
    }
    return e;
}

void pa__expr_free(pa__expr *e)
{
    if (!e)
        return;
    pa__expr_free(e->a);
    pa__expr_free(e->b);
    free(e->name);
    free(e);
}

static int parse_sum(pa__lexer *lx, pa__expr **out, int depth);

static int parse_primary(pa__lexer *lx, pa__expr **out, int depth)
{
    pa__expr *e = NULL;
    int st, col = lx->col;
    if (depth > PA__MAX_DEPTH)
        return pa__err(PA_ERR_PARSE, "in \"%s\" at column %d: expression nested too deeply", lx->src, col);
    if (lx->kind == PA__T_NUM) {
        if (!(e = node(PA__X_NUM, col)))
            return pa__err(PA_ERR_NOMEM, "no memory for an expression");
        e->num = lx->num;
        *out = e;
        return pa__lex_next(lx);
    }
    if (lx->kind == PA__T_IDENT) {
        int is_size = strcmp(lx->ident, "size") == 0 && pa__lex_peekc(lx) == '(';
        if (is_size) {
            if ((st = pa__lex_next(lx)) || (st = pa__lex_next(lx)))
                return st;
            if (lx->kind != PA__T_IDENT)
                return pa__syntax(lx, "a type name in size(...)");
        }
        if (!(e = node(is_size ? PA__X_SIZE : PA__X_VAR, col)) || !(e->name = pa__strdup(lx->ident))) {
            pa__expr_free(e);
            return pa__err(PA_ERR_NOMEM, "no memory for an expression");
        }
        if ((st = pa__lex_next(lx)))
            goto fail;
        if (is_size) {
            if (!pa__lex_is(lx, ')')) {
                st = pa__syntax(lx, "')' after size(name");
                goto fail;
            }
            if ((st = pa__lex_next(lx)))
                goto fail;
        }
        *out = e;
        return PA_OK;
    }
    if (pa__lex_is(lx, '(')) {
        if ((st = pa__lex_next(lx)) || (st = parse_sum(lx, &e, depth + 1)))
            return st;
        if (!pa__lex_is(lx, ')')) {
            st = pa__syntax(lx, "')'");
            goto fail;
        }
        *out = e;
        return pa__lex_next(lx);
    }
    if (pa__lex_is(lx, '-')) {
        if ((st = pa__lex_next(lx)))
            return st;
        if (!(e = node(PA__X_NEG, col)))
            return pa__err(PA_ERR_NOMEM, "no memory for an expression");
        if ((st = parse_primary(lx, &e->a, depth + 1)))
            goto fail;
        *out = e;
        return PA_OK;
    }
    return pa__syntax(lx, "a number, a name or '('");
fail:
    pa__expr_free(e);
    return st;
}

static int parse_binary(pa__lexer *lx, pa__expr **out, int depth, const char *ops,
                        int (*sub)(pa__lexer *, pa__expr **, int))
{
    pa__expr *lhs = NULL, *e;
    int st = sub(lx, &lhs, depth);
    while (st == PA_OK && lx->kind == PA__T_PUNCT && strchr(ops, lx->punct)) {
        char op = lx->punct;
        pa__xkind k = op == '+' ? PA__X_ADD : op == '-' ? PA__X_SUB : op == '*' ? PA__X_MUL
                    : op == '/' ? PA__X_DIV : PA__X_MOD;
        if (!(e = node(k, lx->col))) {
            st = pa__err(PA_ERR_NOMEM, "no memory for an expression");
            break;
        }
        e->a = lhs;
        lhs = e;
        if ((st = pa__lex_next(lx)) == PA_OK)
            st = sub(lx, &e->b, depth);
    }
    if (st) {
        pa__expr_free(lhs);
        return st;
    }
    *out = lhs;
    return PA_OK;
}

static int parse_product(pa__lexer *lx, pa__expr **out, int depth)
{
    return parse_binary(lx, out, depth + 1, "*/%", parse_primary);
}

static int parse_sum(pa__lexer *lx, pa__expr **out, int depth)
{
    return parse_binary(lx, out, depth + 1, "+-", parse_product);
}

int pa__parse_expr(pa__lexer *lx, pa__expr **out)
{
    return parse_sum(lx, out, 0);
}

static int lookup_name(const pa__expr *e, pa__env *env, int64_t *out)
{
    if (env->decl)
        for (int i = 0; i < env->decl->nparams; i++)
            if (strcmp(env->decl->pnames[i], e->name) == 0) {
                *out = env->args[i];
                return PA_OK;
            }
    if (pa_scope_get_int(env->scope, e->name, out) == PA_OK) {
        env->uses_vars = 1;
        return PA_OK;
    }
    return pa__err(PA_ERR_NAME, "in \"%s\" at column %d: '%s' is neither a parameter nor a variable of the scope",
                   env->text, e->col, e->name);
}

int pa__expr_eval(const pa__expr *e, pa__env *env, int64_t *out)
{
    int64_t a = 0, b = 0, r = 0;
    int st, bad = 0;
    switch (e->kind) {
    case PA__X_NUM: *out = e->num; return PA_OK;
    case PA__X_VAR: return lookup_name(e, env, out);
    case PA__X_SIZE: {
        const pa_type *t = pa_type_get(env->scope, e->name);
        if (!t)
            return PA_ERR_NAME;
        env->uses_vars = 1;
        *out = pa_size(t);
        return PA_OK;
    }
    default: break;
    }
    if ((st = pa__expr_eval(e->a, env, &a)) || (e->b && (st = pa__expr_eval(e->b, env, &b))))
        return st;
    switch (e->kind) {
    case PA__X_NEG: bad = __builtin_sub_overflow((int64_t)0, a, &r); break;
    case PA__X_ADD: bad = __builtin_add_overflow(a, b, &r); break;
    case PA__X_SUB: bad = __builtin_sub_overflow(a, b, &r); break;
    case PA__X_MUL: bad = __builtin_mul_overflow(a, b, &r); break;
    case PA__X_DIV:
    case PA__X_MOD:
        if (b == 0)
            return pa__err(PA_ERR_RANGE, "in \"%s\" at column %d: division by zero", env->text, e->col);
        if (a == INT64_MIN && b == -1)
            bad = 1;
        else
            r = e->kind == PA__X_DIV ? a / b : a % b;
        break;
    default: break;
    }
    if (bad)
        return pa__err(PA_ERR_RANGE, "in \"%s\" at column %d: integer overflow", env->text, e->col);
    *out = r;
    return PA_OK;
}

int pa__expr_format(const pa__expr *e, char *buf, size_t len)
{
    static const char ops[] = {[PA__X_ADD] = '+', [PA__X_SUB] = '-', [PA__X_MUL] = '*', [PA__X_DIV] = '/',
                               [PA__X_MOD] = '%'};
    char a[256], b[256];
    switch (e->kind) {
    case PA__X_NUM: return snprintf(buf, len, "%lld", (long long)e->num);
    case PA__X_VAR: return snprintf(buf, len, "%s", e->name);
    case PA__X_SIZE: return snprintf(buf, len, "size(%s)", e->name);
    case PA__X_NEG: pa__expr_format(e->a, a, sizeof a); return snprintf(buf, len, "-%s", a);
    default:
        pa__expr_format(e->a, a, sizeof a);
        pa__expr_format(e->b, b, sizeof b);
        return snprintf(buf, len, "(%s%c%s)", a, ops[e->kind], b);
    }
}
