/* parray — the tokens of the declaration language. */
#include <ctype.h>
#include <string.h>

#include "type_internal.h"

void pa__lex_init(pa__lexer *lx, const char *src)
{
    memset(lx, 0, sizeof *lx);
    lx->src = src;
}

static void skip_blanks(const char *s, size_t *pos)
{
    while (s[*pos] == ' ' || s[*pos] == '\t' || s[*pos] == '\n' || s[*pos] == '\r')
        (*pos)++;
}

int pa__lex_next(pa__lexer *lx)
{
    const char *s = lx->src;
    skip_blanks(s, &lx->pos);
    lx->col = (int)lx->pos + 1;
    if (s[lx->pos] == '\0') {
        lx->kind = PA__T_EOF;
        return PA_OK;
    }
    if (isalpha((unsigned char)s[lx->pos]) || s[lx->pos] == '_') {
        size_t n = 0;
        while (isalnum((unsigned char)s[lx->pos]) || s[lx->pos] == '_') {
            if (n + 1 >= sizeof lx->ident)
                return lx->err = pa__err(PA_ERR_PARSE, "in \"%s\" at column %d: name longer than %zu characters",
                                         s, lx->col, sizeof lx->ident - 1);
            lx->ident[n++] = s[lx->pos++];
        }
        lx->ident[n] = '\0';
        lx->kind = PA__T_IDENT;
        return PA_OK;
    }
    if (isdigit((unsigned char)s[lx->pos])) {
        int64_t v = 0;
        while (isdigit((unsigned char)s[lx->pos])) {
            if (__builtin_mul_overflow(v, 10, &v) || __builtin_add_overflow(v, s[lx->pos] - '0', &v))
                return lx->err = pa__err(PA_ERR_PARSE, "in \"%s\" at column %d: number too large", s, lx->col);
            lx->pos++;
        }
        if (isalpha((unsigned char)s[lx->pos]) || s[lx->pos] == '_')
            return lx->err = pa__err(PA_ERR_PARSE, "in \"%s\" at column %d: malformed number", s, lx->col);
        lx->num = v;
        lx->kind = PA__T_NUM;
        return PA_OK;
    }
    if (strchr("[]#<>(),+-*/%", s[lx->pos])) {
        lx->punct = s[lx->pos++];
        lx->kind = PA__T_PUNCT;
        return PA_OK;
    }
    return lx->err = pa__err(PA_ERR_PARSE, "in \"%s\" at column %d: unexpected character '%c'", s, lx->col,
                             isprint((unsigned char)s[lx->pos]) ? s[lx->pos] : '?');
}

int pa__lex_is(const pa__lexer *lx, char punct)
{
    return lx->kind == PA__T_PUNCT && lx->punct == punct;
}

char pa__lex_peekc(const pa__lexer *lx)
{
    size_t p = lx->pos;
    skip_blanks(lx->src, &p);
    return lx->src[p];
}

int pa__syntax(const pa__lexer *lx, const char *expected)
{
    char found[160];
    switch (lx->kind) {
    case PA__T_EOF: snprintf(found, sizeof found, "end of declaration"); break;
    case PA__T_IDENT: snprintf(found, sizeof found, "'%s'", lx->ident); break;
    case PA__T_NUM: snprintf(found, sizeof found, "%lld", (long long)lx->num); break;
    default: snprintf(found, sizeof found, "'%c'", lx->punct); break;
    }
    return pa__err(PA_ERR_PARSE, "in \"%s\" at column %d: expected %s, found %s", lx->src, lx->col, expected,
                   found);
}
