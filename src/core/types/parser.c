/* parray — the declaration parser: text to a declaration tree (pa__decl). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "type_internal.h"

static void item_free(pa__item *it)
{
    pa__expr_free(it->expr);
    free(it->ref);
    for (int i = 0; i < it->nargs; i++)
        pa__expr_free(it->args[i]);
    free(it->args);
    for (int i = 0; i < it->ndims; i++)
        pa__adim_free(it->dims[i]);
    free(it->dims);
    free(it->func);
    free(it->on);
}

void pa__adim_free(pa__adim *d)
{
    if (!d)
        return;
    for (int i = 0; i < d->nitems; i++)
        item_free(&d->items[i]);
    free(d->items);
    free(d);
}

void pa__decl_free(pa__decl *d)
{
    if (!d)
        return;
    while (d->insts) {
        pa__inst *n = d->insts->next;
        pa__inst_free(d->insts);
        d->insts = n;
    }
    pa__inst_free(d->unbound);
    for (int i = 0; i < d->nparams; i++) {
        free(d->pnames[i]);
        free(d->ptypes[i]);
    }
    free(d->pnames);
    free(d->ptypes);
    free(d->name);
    free(d->text);
    free(d->mtt);
    free(d->elm);
    pa__adim_free(d->root);
    free(d);
}

static int grow(void **arr, int n, size_t elsize)
{
    void *p = realloc(*arr, (size_t)(n + 1) * elsize);
    if (!p)
        return pa__err(PA_ERR_NOMEM, "no memory while parsing");
    *arr = p;
    memset((char *)p + (size_t)n * elsize, 0, elsize);
    return PA_OK;
}

static int parse_dim(pa__lexer *lx, pa__adim **out, int depth);

/* dim {dim}: a list of sibling dimensions, starting at '['. */
static int parse_dims(pa__lexer *lx, pa__adim ***dims, int *ndims, int depth)
{
    int st;
    while (pa__lex_is(lx, '[')) {
        if (*ndims >= PA__MAX_CHILDREN)
            return pa__err(PA_ERR_PARSE, "in \"%s\" at column %d: more than %d sub-dimensions", lx->src, lx->col,
                           PA__MAX_CHILDREN);
        if ((st = grow((void **)dims, *ndims, sizeof **dims)))
            return st;
        if ((st = parse_dim(lx, &(*dims)[*ndims], depth + 1)))
            return st;
        (*ndims)++;
    }
    return PA_OK;
}

/* "on <mtt>" after a reference (the manual's T on<mtt>), or nothing. */
int pa__parse_on(pa__lexer *lx, char **on)
{
    int st;
    if (lx->kind != PA__T_IDENT || strcmp(lx->ident, "on") != 0 || pa__lex_peekc(lx) != '<')
        return PA_OK;
    if ((st = pa__lex_next(lx)) || (st = pa__lex_next(lx)))   /* "on" and '<' */
        return st;
    if (lx->kind != PA__T_IDENT)
        return pa__syntax(lx, "a memory or thread type in on<...>");
    if (pa__mtt_kind_of(lx->ident) == PA__MTT_NONE)
        return pa__err(PA_ERR_MTT, "at column %d: '%s' in on<...> is not a memory or thread type", lx->col,
                       lx->ident);
    if (!(*on = pa__strdup(lx->ident)))
        return pa__err(PA_ERR_NOMEM, "no memory while parsing");
    if ((st = pa__lex_next(lx)))
        return st;
    if (!pa__lex_is(lx, '>'))
        return pa__syntax(lx, "'>' to close on<");
    return pa__lex_next(lx);
}

static int parse_ref(pa__lexer *lx, pa__item *it)
{
    int st;
    it->kind = PA__I_REF;
    if (!(it->ref = pa__strdup(lx->ident)))
        return pa__err(PA_ERR_NOMEM, "no memory while parsing");
    if ((st = pa__lex_next(lx)))
        return st;
    if (!pa__lex_is(lx, '<'))
        return pa__parse_on(lx, &it->on);
    do {
        if ((st = pa__lex_next(lx)) || (st = grow((void **)&it->args, it->nargs, sizeof *it->args)))
            return st;
        if ((st = pa__parse_expr(lx, &it->args[it->nargs])))
            return st;
        it->nargs++;
    } while (pa__lex_is(lx, ','));
    if (!pa__lex_is(lx, '>'))
        return pa__syntax(lx, "',' or '>' after a parameter");
    if ((st = pa__lex_next(lx)))
        return st;
    return pa__parse_on(lx, &it->on);
}

static int parse_call(pa__lexer *lx, pa__item *it)
{
    int st, is_step = strcmp(lx->ident, "step") == 0, is_disp = is_step || strcmp(lx->ident, "disp") == 0;
    it->kind = is_step ? PA__I_STEP : is_disp ? PA__I_DISP : PA__I_FUNC;
    if ((st = pa__lex_next(lx)) || (st = pa__lex_next(lx)))   /* the name and '(' */
        return st;
    if (is_disp) {
        if ((st = pa__parse_expr(lx, &it->expr)))
            return st;
    } else {
        if (lx->kind != PA__T_IDENT)
            return pa__syntax(lx, "the name of an offset function in func(...)");
        if (!(it->func = pa__strdup(lx->ident)))
            return pa__err(PA_ERR_NOMEM, "no memory while parsing");
        if ((st = pa__lex_next(lx)))
            return st;
    }
    if (!pa__lex_is(lx, ')'))
        return pa__syntax(lx, is_step ? "')' to close step(" : is_disp ? "')' to close disp(" : "')' to close func(");
    return pa__lex_next(lx);
}

static int is_call(const pa__lexer *lx)
{
    return lx->kind == PA__T_IDENT &&
           (strcmp(lx->ident, "disp") == 0 || strcmp(lx->ident, "func") == 0 || strcmp(lx->ident, "step") == 0) &&
           pa__lex_peekc(lx) == '(';
}

/* One item of a chain.  first: no '#' stood before it, so a name starts a size expression. */
static int parse_item(pa__lexer *lx, pa__item *it, int after_hash, int depth)
{
    it->col = lx->col;
    if (pa__lex_is(lx, '[')) {
        it->kind = PA__I_DIMS;
        return parse_dims(lx, &it->dims, &it->ndims, depth);
    }
    if (is_call(lx))
        return parse_call(lx, it);
    if (after_hash) {
        if (lx->kind != PA__T_IDENT)
            return pa__syntax(lx, "a type name, disp(...), step(...), func(...) or '[' after '#'");
        return parse_ref(lx, it);
    }
    it->kind = PA__I_EXPR;
    return pa__parse_expr(lx, &it->expr);
}

static int parse_chain(pa__lexer *lx, pa__adim *d, int depth);

/* '[' chain ']'.  On failure nothing is left allocated and *out stays NULL. */
static int parse_dim(pa__lexer *lx, pa__adim **out, int depth)
{
    pa__adim *d;
    int st;
    if (depth > PA__MAX_DEPTH)
        return pa__err(PA_ERR_PARSE, "in \"%s\" at column %d: dimensions nested more than %d deep", lx->src,
                       lx->col, PA__MAX_DEPTH);
    if (!(d = calloc(1, sizeof *d)))
        return pa__err(PA_ERR_NOMEM, "no memory while parsing");
    d->col = lx->col;
    if ((st = parse_chain(lx, d, depth))) {
        pa__adim_free(d);
        return st;
    }
    *out = d;
    return PA_OK;
}

static int parse_chain(pa__lexer *lx, pa__adim *d, int depth)
{
    int st, after_hash = 0;
    if ((st = pa__lex_next(lx)))
        return st;
    if (pa__lex_is(lx, ']'))
        return pa__syntax(lx, "a size, a type reference or sub-dimensions inside '[]'");
    if (pa__lex_is(lx, '#')) {
        after_hash = 1;
        if ((st = pa__lex_next(lx)))
            return st;
    }
    for (;;) {
        if (d->nitems >= 16)
            return pa__err(PA_ERR_PARSE, "in \"%s\" at column %d: more than 16 items in one dimension", lx->src,
                           lx->col);
        if ((st = grow((void **)&d->items, d->nitems, sizeof *d->items)))
            return st;
        st = parse_item(lx, &d->items[d->nitems++], after_hash, depth);
        if (st)
            return st;
        if (!pa__lex_is(lx, '#'))
            break;
        after_hash = 1;
        if ((st = pa__lex_next(lx)))
            return st;
    }
    if (!pa__lex_is(lx, ']'))
        return pa__syntax(lx, "'#' or ']'");
    return pa__lex_next(lx);
}

/* <int y, int x> */
static int parse_params(pa__lexer *lx, pa__decl *d)
{
    int st;
    do {
        char type[128] = "";
        if ((st = pa__lex_next(lx)))
            return st;
        if (lx->kind != PA__T_IDENT)
            return pa__syntax(lx, "a parameter such as 'int n'");
        while (lx->kind == PA__T_IDENT && pa__lex_peekc(lx) != ',' && pa__lex_peekc(lx) != '>') {
            if (strlen(type) + strlen(lx->ident) + 2 > sizeof type)
                return pa__syntax(lx, "a shorter parameter type");
            if (type[0])
                strcat(type, " ");
            strcat(type, lx->ident);
            if ((st = pa__lex_next(lx)))
                return st;
        }
        if (lx->kind != PA__T_IDENT || !type[0])
            return pa__syntax(lx, "a parameter type followed by its name, such as 'int n'");
        for (int i = 0; i < d->nparams; i++)
            if (strcmp(d->pnames[i], lx->ident) == 0)
                return pa__err(PA_ERR_PARSE, "in \"%s\" at column %d: parameter '%s' is declared twice", lx->src,
                               lx->col, lx->ident);
        if ((st = grow((void **)&d->pnames, d->nparams, sizeof *d->pnames)) ||
            (st = grow((void **)&d->ptypes, d->nparams, sizeof *d->ptypes)))
            return st;
        d->pnames[d->nparams] = pa__strdup(lx->ident);
        d->ptypes[d->nparams] = pa__strdup(type);
        d->nparams++;
        if (!d->pnames[d->nparams - 1] || !d->ptypes[d->nparams - 1])
            return pa__err(PA_ERR_NOMEM, "no memory while parsing");
        if ((st = pa__lex_next(lx)))
            return st;
    } while (pa__lex_is(lx, ','));
    if (!pa__lex_is(lx, '>'))
        return pa__syntax(lx, "',' or '>' after a parameter");
    return pa__lex_next(lx);
}

/* numeric's "(p, s)" or "(p)" after the word, read into words as "numeric(p,s)"; the token after ')' is next. */
static int numeric_args(pa__lexer *lx, char *words, size_t len)
{
    int64_t v[2] = {0, 0};
    int n = 0, st;
    if ((st = pa__lex_next(lx)))   /* '(' */
        return st;
    do {
        if ((st = pa__lex_next(lx)))
            return st;
        if (lx->kind != PA__T_NUM)
            return pa__syntax(lx, "numeric's precision and scale, as in numeric(18,2)");
        v[n++] = lx->num > 999 ? 999 : lx->num;
        if ((st = pa__lex_next(lx)))
            return st;
    } while (n < 2 && pa__lex_is(lx, ','));
    if (!pa__lex_is(lx, ')'))
        return pa__syntax(lx, "')' after numeric's precision and scale");
    snprintf(words + strlen(words), len - strlen(words), "(%lld,%lld)", (long long)v[0], (long long)v[1]);
    return pa__lex_next(lx);
}

/* The words before the first '[': [mtt] [element type]. */
static int parse_words(pa__lexer *lx, pa_scope *scope, pa__decl *d)
{
    char words[256] = "";
    int st, col = lx->col;
    while (lx->kind == PA__T_IDENT) {
        if (!d->mtt && !words[0] && pa__mtt_kind_of(lx->ident) != PA__MTT_NONE) {
            if (!(d->mtt = pa__strdup(lx->ident)))
                return pa__err(PA_ERR_NOMEM, "no memory while parsing");
        } else {
            if (!words[0])
                col = lx->col;
            if (strlen(words) + strlen(lx->ident) + 2 > sizeof words)
                return pa__syntax(lx, "a shorter element type");
            if (words[0])
                strcat(words, " ");
            strcat(words, lx->ident);
            if (strcmp(words, "numeric") == 0 && pa__lex_peekc(lx) == '(') {
                if ((st = numeric_args(lx, words, sizeof words)))
                    return st;
                continue;
            }
        }
        if ((st = pa__lex_next(lx)))
            return st;
    }
    if (!words[0])
        return PA_OK;
    d->elm_size = pa__scope_elm_size(scope, words);
    if (!d->elm_size && (st = pa__elm_numeric_check(words, lx->src, col)))
        return st;
    if (!d->elm_size) {
        if (!d->mtt && !strchr(words, ' '))
            return pa__err(PA_ERR_MTT, "in \"%s\" at column %d: '%s' is neither a memory/thread type nor an element type",
                           lx->src, col, words);
        if (!d->mtt)
            return pa__err(PA_ERR_MTT, "in \"%s\" at column %d: unknown memory/thread type or element type '%s'",
                           lx->src, col, words);
        return pa__err(PA_ERR_ELM, "in \"%s\" at column %d: unknown element type '%s'", lx->src, col, words);
    }
    if (!(d->elm = pa__strdup(words)))
        return pa__err(PA_ERR_NOMEM, "no memory while parsing");
    return PA_OK;
}

int pa__parse_decl(pa_scope *scope, const char *text, pa__decl **out)
{
    pa__lexer lx;
    pa__decl *d = calloc(1, sizeof *d);
    pa__adim **dims = NULL;
    int ndims = 0, st;
    if (!d || !(d->text = pa__strdup(text))) {
        free(d);
        return pa__err(PA_ERR_NOMEM, "no memory while parsing");
    }
    d->scope = scope;
    pa__lex_init(&lx, d->text);
    if ((st = pa__lex_next(&lx)))
        goto fail;
    if (pa__lex_is(&lx, '<') && (st = parse_params(&lx, d)))
        goto fail;
    if ((st = parse_words(&lx, scope, d)))
        goto fail;
    if (!pa__lex_is(&lx, '[')) {
        st = pa__syntax(&lx, "'[' to start the dimension tree");
        goto fail;
    }
    if ((st = parse_dims(&lx, &dims, &ndims, 0)))
        goto fail;
    if (lx.kind != PA__T_EOF) {
        st = pa__syntax(&lx, "'[' or the end of the declaration");
        goto fail;
    }
    if (ndims == 1) {
        d->root = dims[0];
    } else {
        /* Several top-level siblings form an implicit root dimension. */
        if (!(d->root = calloc(1, sizeof *d->root)) || !(d->root->items = calloc(1, sizeof *d->root->items))) {
            st = pa__err(PA_ERR_NOMEM, "no memory while parsing");
            goto fail;
        }
        d->root->nitems = 1;
        d->root->col = 1;
        d->root->items[0].kind = PA__I_DIMS;
        d->root->items[0].dims = dims;
        d->root->items[0].ndims = ndims;
        d->root->items[0].col = 1;
        dims = NULL;
        ndims = 0;
    }
    free(dims);
    *out = d;
    return PA_OK;
fail:
    for (int i = 0; i < ndims; i++)
        pa__adim_free(dims[i]);
    free(dims);
    pa__decl_free(d);
    return st;
}
