/* parray — reading several statements of declarations and variables (pa_declare_text). */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "type_internal.h"

static char *trim(char *s)
{
    char *e;
    while (isspace((unsigned char)*s))
        s++;
    e = s + strlen(s);
    while (e > s && isspace((unsigned char)e[-1]))
        *--e = '\0';
    return s;
}

static int set_var(pa_scope *s, char *stmt)
{
    char *eq = strchr(stmt, '='), *name;
    pa__lexer lx;
    pa__expr *e = NULL;
    pa__env env = {0};
    int64_t v;
    int st;
    if (!eq)
        return pa__err(PA_ERR_PARSE, "expected 'var NAME = expression' in \"%s\"", stmt);
    *eq = '\0';
    name = trim(stmt + 3);
    env.scope = s;
    env.text = eq + 1;
    pa__lex_init(&lx, eq + 1);
    if ((st = pa__lex_next(&lx)) || (st = pa__parse_expr(&lx, &e)))
        return st;
    if (lx.kind != PA__T_EOF)
        st = pa__syntax(&lx, "the end of the expression");
    else if ((st = pa__expr_eval(e, &env, &v)) == PA_OK)
        st = pa_scope_set_int(s, name, v);
    pa__expr_free(e);
    return st;
}

static int statement(pa_scope *s, char *stmt)
{
    char *eq, *end, *name;
    if (strncmp(stmt, "var", 3) == 0 && isspace((unsigned char)stmt[3]))
        return set_var(s, stmt);
    if (strncmp(stmt, "parray", 6) == 0 && isspace((unsigned char)stmt[6])) {
        /* parray <decl> NAME: the name is the last word. */
        end = stmt + strlen(stmt);
        name = end;
        while (name > stmt && (isalnum((unsigned char)name[-1]) || name[-1] == '_'))
            name--;
        if (name == end || !isspace((unsigned char)name[-1]))
            return pa__err(PA_ERR_PARSE, "expected 'parray <declaration> NAME' in \"%s\"", stmt);
        name[-1] = '\0';
        return pa_declare(s, name, trim(stmt + 6));
    }
    if ((eq = strchr(stmt, '=')) != NULL) {
        *eq = '\0';
        return pa_declare(s, trim(stmt), trim(eq + 1));
    }
    return pa__err(PA_ERR_PARSE, "expected 'parray <declaration> NAME', 'NAME = <declaration>' or 'var NAME = <expr>' in \"%s\"",
                   stmt);
}

int pa_declare_text(pa_scope *s, const char *text)
{
    char *copy, *p;
    int line = 1, st = PA_OK;
    if (!s || !text)
        return pa__err(PA_ERR_INVAL, "pa_declare_text: NULL %s", s ? "text" : "scope");
    if (!(copy = pa__strdup(text)))
        return pa__err(PA_ERR_NOMEM, "no memory for the declarations");
    for (p = copy; *p && st == PA_OK;) {
        size_t n = strcspn(p, ";\n");
        char sep = p[n], *c, *stmt;
        p[n] = '\0';
        if ((c = strstr(p, "//")) != NULL)
            *c = '\0';
        stmt = trim(p);
        if (*stmt && (st = statement(s, stmt)) != PA_OK)
            pa__err_wrap(st, "line %d", line);
        line += sep == '\n';
        p += n + (sep != '\0');
    }
    free(copy);
    return st;
}
