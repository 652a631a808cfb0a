/*
 * parray — PL/CUDA signatures: "ret (arg, arg, ...)" with C scalar names, "T[]" and "inout T[]" arrays,
 * "matrix T" matrices, and "void" or "bytes" results.
 */
#include <ctype.h>
#include <stdio.h>
#include <string.h>

#include "internal.h"
#include "plcuda.h"

/* Device spellings avoid <stdint.h> (NVRTC has no standard library): long is 64-bit on both sides (LP64). */
static const pa__plc_scalar scalars[] = {
    {"char", "char", 1, 0},
    {"signed char", "signed char", 1, 0},
    {"unsigned char", "unsigned char", 1, 0},
    {"short", "short", 2, PA_MATRIX_SHORT},
    {"unsigned short", "unsigned short", 2, 0},
    {"int", "int", 4, PA_MATRIX_INT},
    {"unsigned int", "unsigned int", 4, 0},
    {"unsigned", "unsigned int", 4, 0},
    {"long", "long", 8, PA_MATRIX_LONG},
    {"unsigned long", "unsigned long", 8, 0},
    {"long long", "long long", 8, 0},
    {"unsigned long long", "unsigned long long", 8, 0},
    {"int8_t", "signed char", 1, 0},
    {"uint8_t", "unsigned char", 1, 0},
    {"int16_t", "short", 2, PA_MATRIX_SHORT},
    {"uint16_t", "unsigned short", 2, 0},
    {"int32_t", "int", 4, PA_MATRIX_INT},
    {"uint32_t", "unsigned int", 4, 0},
    {"int64_t", "long long", 8, PA_MATRIX_LONG},
    {"uint64_t", "unsigned long long", 8, 0},
    {"float", "float", 4, PA_MATRIX_FLOAT},
    {"double", "double", 8, PA_MATRIX_DOUBLE},
    {"bool", "bool", 1, 0},
    {"numeric", "pa_decimal128", 16, 0},    /* numeric(p, s)'s 16 bytes; the kernel knows the scale */
    {"money", "pa_money", 8, 0},
};

static const pa__plc_scalar *find_scalar(const char *name)
{
    for (size_t i = 0; i < sizeof scalars / sizeof *scalars; i++)
        if (strcmp(scalars[i].name, name) == 0)
            return &scalars[i];
    return NULL;
}

typedef struct cursor {
    const char *fname, *text, *p;
} cursor;

static int fail(const cursor *c, const char *what)
{
    return pa__err(PA_ERR_PARSE, "%s: signature \"%s\", column %d: %s", c->fname, c->text, (int)(c->p - c->text) + 1,
                   what);
}

static void skip_space(cursor *c)
{
    while (isspace((unsigned char)*c->p))
        c->p++;
}

/* Reads the words of one type up to ',', ')', '(' or '[' and joins them with single spaces. */
static int read_words(cursor *c, char *buf, size_t len)
{
    size_t n = 0;
    skip_space(c);
    while (isalpha((unsigned char)*c->p) || *c->p == '_') {
        const char *w = c->p;
        while (isalnum((unsigned char)*c->p) || *c->p == '_')
            c->p++;
        size_t wl = (size_t)(c->p - w);
        if (n + wl + 2 > len)
            return fail(c, "type name too long");
        if (n)
            buf[n++] = ' ';
        memcpy(buf + n, w, wl);
        n += wl;
        skip_space(c);
    }
    buf[n] = '\0';
    return n ? PA_OK : fail(c, "expected a type");
}

static const char *strip(const char *words, const char *prefix)
{
    size_t n = strlen(prefix);
    return strncmp(words, prefix, n) == 0 && words[n] == ' ' ? words + n + 1 : NULL;
}

/* One type: is_ret selects the return forms (void, bytes) over the argument forms (arrays). */
static int parse_tspec(cursor *c, int is_ret, pa__plc_tspec *t)
{
    char words[96];
    const char *rest, *start;
    skip_space(c);
    start = c->p;
    int st = read_words(c, words, sizeof words);
    if (st != PA_OK)
        return st;
    memset(t, 0, sizeof *t);
    const char *name = words;
    if ((rest = strip(name, "const")) != NULL)
        name = rest;
    if (is_ret && strcmp(name, "void") == 0)
        return (t->kind = PA__PLC_VOID), PA_OK;
    if (is_ret && strcmp(name, "bytes") == 0)
        return (t->kind = PA__PLC_BYTES), PA_OK;
    if ((rest = strip(name, "matrix")) != NULL) {
        t->kind = PA__PLC_MATRIX;
        if ((!(t->scalar = find_scalar(rest)) || !t->scalar->matrix_elm) && (c->p = start) != NULL)
            return fail(c, "a matrix holds short, int, long, float or double");
        return PA_OK;
    }
    if (!is_ret && (rest = strip(name, "inout")) != NULL) {
        t->inout = 1;
        name = rest;
    }
    if (!(t->scalar = find_scalar(name)) && (c->p = start) != NULL)
        return fail(c, "unknown type (scalars: char .. unsigned long long, int8_t .. uint64_t, float, double, bool)");
    t->kind = PA__PLC_SCALAR;
    if (!is_ret && c->p[0] == '[') {
        c->p++;
        skip_space(c);
        if (*c->p != ']')
            return fail(c, "expected ']' (arrays are written T[])");
        c->p++;
        skip_space(c);
        t->kind = PA__PLC_ARRAY;
    }
    if (t->inout && t->kind != PA__PLC_ARRAY)
        return fail(c, "inout applies to arrays only");
    return PA_OK;
}

int pa__plc_parse_sig(const char *fname, const char *text, pa__plc_sig *out)
{
    cursor c = {fname, text, text};
    pa__plc_sig sig;
    int st;
    memset(&sig, 0, sizeof sig);
    if ((st = parse_tspec(&c, 1, &sig.ret)) != PA_OK)
        return st;
    if (*c.p != '(')
        return fail(&c, "expected '(' after the return type");
    c.p++;
    skip_space(&c);
    if (strncmp(c.p, "void", 4) == 0 && !isalnum((unsigned char)c.p[4]) && c.p[4] != '_') {
        c.p += 4;
        skip_space(&c);
    } else {
        while (*c.p != ')') {
            if (sig.nargs == PA__PLC_MAX_ARGS)
                return fail(&c, "too many arguments (at most 64)");
            if ((st = parse_tspec(&c, 0, &sig.args[sig.nargs++])) != PA_OK)
                return st;
            if (*c.p == ',') {
                c.p++;
                skip_space(&c);
                if (*c.p == ')')
                    return fail(&c, "expected a type after ',' (no trailing comma)");
            } else if (*c.p != ')')
                return fail(&c, "expected ',' or ')'");
        }
    }
    if (*c.p != ')')
        return fail(&c, "expected ')'");
    c.p++;
    skip_space(&c);
    if (*c.p)
        return fail(&c, "unexpected text after ')'");
    *out = sig;
    return PA_OK;
}

int pa__plc_format_tspec(const pa__plc_tspec *t, char *buf, size_t len)
{
    switch (t->kind) {
    case PA__PLC_VOID: return snprintf(buf, len, "void");
    case PA__PLC_BYTES: return snprintf(buf, len, "bytes");
    case PA__PLC_MATRIX: return snprintf(buf, len, "matrix %s", t->scalar->name);
    case PA__PLC_ARRAY: return snprintf(buf, len, "%s%s[]", t->inout ? "inout " : "", t->scalar->name);
    default: return snprintf(buf, len, "%s", t->scalar->name);
    }
}
