/*
 * parray — the PL/CUDA source: blocks (#plcuda_decl, _prep, _begin, _post, _end) and directives, read line by
 * line.  Blocks must come in the order decl, prep, begin, post, each at most once; a block ends at #plcuda_end
 * or where the next begins.  Directive lines inside a block are kept as empty lines, so that the code's line
 * numbers stay those of the user's source (the generated #line directives rely on it).  Every error names the
 * function, the line and the directive.
 */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "plcuda.h"

const char *const pa__plc_stage_names[PA__PLC_NBLOCKS] = {"decl", "prep", "begin", "post"};
const char *const pa__plc_value_names[PA__PLC_NSTAGEVALS] = {"num_threads", "shmem_unitsz", "shmem_blocksz",
                                                            "kernel_blocksz"};

/* The headers a function's signature can need by itself (one object each: includes are compared by address). */
static const char PA__PLC_NUMERIC_H[] = "parray/plcuda/numeric.h";
static const char PA__PLC_MONEY_H[] = "parray/plcuda/money.h";

/* #plcuda_include names: ours, and PG-Strom's for the same libraries. */
static const struct { const char *name, *header; } includes[] = {
    {"math", "parray/plcuda/math.h"},     {"cuda_mathlib.h", "parray/plcuda/math.h"},
    {"matrix", "parray/plcuda/matrix.h"}, {"cuda_matrix.h", "parray/plcuda/matrix.h"},
    {"tile", "parray/plcuda/tile.h"},     {"device", "parray/device.h"},
    {"time", "parray/plcuda/time.h"},     {"cuda_timelib.h", "parray/plcuda/time.h"},
    {"text", "parray/plcuda/text.h"},     {"cuda_textlib.h", "parray/plcuda/text.h"},
    {"dynpara", "parray/plcuda/dynpara.h"}, {"cuda_dynpara.h", "parray/plcuda/dynpara.h"},
    {"numeric", PA__PLC_NUMERIC_H},       {"cuda_numeric.h", PA__PLC_NUMERIC_H},
    {"money", PA__PLC_MONEY_H},           {"cuda_money.h", PA__PLC_MONEY_H},
};

typedef struct reader {
    const char *fname;
    int line;
    const char *directive;          /* the directive being read, for messages */
    const pa_kernel_func *funcs;
    int nfuncs;
    int cur, last;                  /* the open block (-1: none) and the last one opened */
    pa__plc_parsed *out;
    size_t cap[PA__PLC_NBLOCKS], len[PA__PLC_NBLOCKS];
} reader;

static int fail(const reader *r, int status, const char *what)
{
    if (r->directive)
        return pa__err(status, "%s line %d: #plcuda_%s: %s", r->fname, r->line, r->directive, what);
    return pa__err(status, "%s line %d: %s", r->fname, r->line, what);
}

static int append(reader *r, int b, const char *text, size_t n)
{
    pa__plc_block *blk = &r->out->blocks[b];
    if (r->len[b] + n + 2 > r->cap[b]) {
        size_t cap = (r->cap[b] + n + 2) * 2;
        char *p = realloc(blk->code, cap);
        if (!p)
            return pa__err(PA_ERR_NOMEM, "%s: out of memory for the source", r->fname);
        blk->code = p;
        r->cap[b] = cap;
    }
    memcpy(blk->code + r->len[b], text, n);
    r->len[b] += n;
    blk->code[r->len[b]++] = '\n';
    blk->code[r->len[b]] = '\0';
    return PA_OK;
}

static const char *skip_space(const char *p, const char *end)
{
    while (p < end && isspace((unsigned char)*p))
        p++;
    return p;
}

/* The argument of a directive must be absent. */
static int no_arg(const reader *r, const char *arg, const char *end)
{
    return skip_space(arg, end) == end ? PA_OK : fail(r, PA_ERR_PARSE, "takes no argument");
}

static int find_func(const reader *r, const char *name, size_t n, int *out)
{
    for (int i = 0; i < r->nfuncs; i++)
        if (r->funcs[i].name && strlen(r->funcs[i].name) == n && strncmp(r->funcs[i].name, name, n) == 0) {
            if (!r->funcs[i].fn)
                return fail(r, PA_ERR_INVAL, "the callback has a NULL function pointer");
            *out = i;
            return PA_OK;
        }
    char msg[160];
    snprintf(msg, sizeof msg, "no callback named '%.*s' was given to pa_kernel_create", (int)(n > 64 ? 64 : n), name);
    return fail(r, PA_ERR_NAME, msg);
}

/* A callback name: an identifier alone on the rest of the line. */
static int read_name(const reader *r, const char *p, const char *end, int *fn)
{
    const char *s = p = skip_space(p, end);
    if (p == end || !(isalpha((unsigned char)*p) || *p == '_'))
        return fail(r, PA_ERR_PARSE, "expected the name of a callback");
    while (p < end && (isalnum((unsigned char)*p) || *p == '_'))
        p++;
    if (skip_space(p, end) != end)
        return fail(r, PA_ERR_PARSE, "unexpected text after the callback name");
    return find_func(r, s, (size_t)(p - s), fn);
}

/* A constant (decimal, 0x hex or octal, >= 0) or a callback name. */
static int read_value(const reader *r, const char *p, const char *end, pa__plc_value *v)
{
    char num[32], *e;
    p = skip_space(p, end);
    if (v->set)
        return fail(r, PA_ERR_PARSE, "given twice");
    v->set = 1;
    v->line = r->line;
    v->fn = -1;
    if (p < end && isdigit((unsigned char)*p)) {
        size_t n = (size_t)(skip_space(p, end) == end ? 0 : end - p);
        while (n > 0 && isspace((unsigned char)p[n - 1]))
            n--;
        if (n >= sizeof num)
            return fail(r, PA_ERR_PARSE, "constant too long");
        memcpy(num, p, n);
        num[n] = '\0';
        errno = 0;
        long long x = strtoll(num, &e, 0);
        if (*e != '\0')
            return fail(r, PA_ERR_PARSE, "expected a constant or a callback name, e.g. 1024 or my_size_fn");
        if (errno == ERANGE || x < 0)
            return fail(r, PA_ERR_PARSE, "constant out of range");
        v->constant = x;
        return PA_OK;
    }
    if (p == end || *p == '-')
        return fail(r, PA_ERR_PARSE, "expected a constant >= 0 or a callback name");
    return read_name(r, p, end, &v->fn);
}

/* Adds a header to the function's includes once; "numeric" and "money" need NVRTC's 128-bit integers. */
static void add_include(pa__plc_parsed *o, const char *header)
{
    for (int j = 0; j < o->ninclude; j++)
        if (o->include[j] == header)
            return;
    o->include[o->ninclude++] = header;
    o->rdc |= strcmp(header, "parray/plcuda/dynpara.h") == 0;
    o->int128 |= header == PA__PLC_NUMERIC_H || header == PA__PLC_MONEY_H;
}

static int read_include(reader *r, const char *p, const char *end)
{
    pa__plc_parsed *o = r->out;
    p = skip_space(p, end);
    const char *q = p < end && *p == '"' ? memchr(p + 1, '"', (size_t)(end - p - 1)) : NULL;
    if (!q || skip_space(q + 1, end) != end)
        return fail(r, PA_ERR_PARSE, "expected a quoted library name, e.g. #plcuda_include \"math\"");
    size_t n = (size_t)(q - p - 1);
    for (size_t i = 0; i < sizeof includes / sizeof *includes; i++)
        if (strlen(includes[i].name) == n && strncmp(includes[i].name, p + 1, n) == 0) {
            add_include(o, includes[i].header);
            return PA_OK;
        }
    return fail(r, PA_ERR_PARSE, "unknown library (known: \"math\", \"matrix\", \"tile\", \"device\", \"time\", "
                                 "\"text\", \"dynpara\", \"numeric\", \"money\"; PG-Strom's \"cuda_mathlib.h\", "
                                 "\"cuda_matrix.h\", \"cuda_timelib.h\", \"cuda_textlib.h\", \"cuda_dynpara.h\", "
                                 "\"cuda_numeric.h\", \"cuda_money.h\")");
}

void pa__plc_sig_includes(const pa__plc_sig *sig, pa__plc_parsed *p)
{
    for (int i = -1; i < sig->nargs; i++) {
        const pa__plc_scalar *t = (i < 0 ? &sig->ret : &sig->args[i])->scalar;
        if (t && strcmp(t->name, "numeric") == 0)
            add_include(p, PA__PLC_NUMERIC_H);
        else if (t && strcmp(t->name, "money") == 0)
            add_include(p, PA__PLC_MONEY_H);
    }
}

static int open_block(reader *r, int b, const char *arg, const char *end)
{
    int st = no_arg(r, arg, end);
    if (st != PA_OK)
        return st;
    if (r->out->blocks[b].present)
        return fail(r, PA_ERR_PARSE, "this block appears twice");
    if (b < r->last)
        return fail(r, PA_ERR_PARSE, "blocks out of order (they come in the order #plcuda_decl, #plcuda_prep, "
                                     "#plcuda_begin, #plcuda_post)");
    r->out->blocks[b].present = 1;
    r->out->blocks[b].line = r->line;
    r->cur = r->last = b;
    return PA_OK;
}

/* The directives that configure one kernel: only inside prep, begin or post. */
static int stage_directive(reader *r, const char *word, size_t wl, const char *arg, const char *end)
{
    if (r->cur <= PA__PLC_DECL)
        return fail(r, PA_ERR_PARSE, "only inside #plcuda_prep, #plcuda_begin or #plcuda_post");
    pa__plc_block *b = &r->out->blocks[r->cur];
    for (int i = 0; i < PA__PLC_NSTAGEVALS; i++)
        if (strlen(pa__plc_value_names[i]) == wl && strncmp(word, pa__plc_value_names[i], wl) == 0)
            return read_value(r, arg, end, &b->vals[i]);
    if (b->maxthreads)
        return fail(r, PA_ERR_PARSE, "given twice");
    b->maxthreads = 1;
    return no_arg(r, arg, end);
}

static int directive(reader *r, const char *p, const char *end)
{
    static const char *const words[] = {"decl", "prep", "begin", "post", "end", "num_threads", "shmem_unitsz",
        "shmem_blocksz", "kernel_blocksz", "kernel_maxthreads", "results_bufsz", "working_bufsz", "sanity_check",
        "cpu_fallback", "include"};
    const char *w = p;
    while (p < end && (isalnum((unsigned char)*p) || *p == '_'))
        p++;
    size_t wl = (size_t)(p - w);
    for (size_t i = 0; i < sizeof words / sizeof *words; i++)
        if (strlen(words[i]) == wl && strncmp(words[i], w, wl) == 0) {
            r->directive = words[i];
            if (i < 4)
                return open_block(r, (int)i, p, end);
            if (i == 4) {
                if (r->cur < 0)
                    return fail(r, PA_ERR_PARSE, "no block is open");
                r->cur = -1;
                return no_arg(r, p, end);
            }
            if (i < 10)
                return stage_directive(r, w, wl, p, end);
            if (i == 10)
                return read_value(r, p, end, &r->out->results_bufsz);
            if (i == 11)
                return read_value(r, p, end, &r->out->working_bufsz);
            if (i == 14)
                return read_include(r, p, end);
            int *fn = i == 12 ? &r->out->sanity_fn : &r->out->fallback_fn;
            if (*fn >= 0)
                return fail(r, PA_ERR_PARSE, "given twice");
            return read_name(r, p, end, fn);
        }
    char msg[128];
    snprintf(msg, sizeof msg, "unknown directive #plcuda_%.*s", (int)(wl > 40 ? 40 : wl), w);
    return fail(r, PA_ERR_PARSE, msg);
}

static int line(reader *r, const char *s, const char *end)
{
    const char *p = skip_space(s, end);
    int st;
    r->directive = NULL;
    if ((size_t)(end - p) >= 8 && strncmp(p, "#plcuda_", 8) == 0) {
        int was = r->cur;
        if ((st = directive(r, p + 8, end)) != PA_OK)
            return st;
        /* Inside a block the directive's line stays, empty, to keep the numbering. */
        return was >= 0 && r->cur == was ? append(r, was, "", 0) : PA_OK;
    }
    if (r->cur >= 0)
        return append(r, r->cur, s, (size_t)(end - s));
    if (p == end || (end - p >= 2 && p[0] == '/' && p[1] == '/'))
        return PA_OK;
    return fail(r, PA_ERR_PARSE, "code outside a block (open one with #plcuda_decl, #plcuda_prep, "
                                 "#plcuda_begin or #plcuda_post)");
}

int pa__plc_parse(const char *fname, const char *source, const pa_kernel_func *funcs, int nfuncs,
                  pa__plc_parsed *out)
{
    reader r = {fname, 0, NULL, funcs, nfuncs, -1, -1, out, {0}, {0}};
    int st = PA_OK;
    memset(out, 0, sizeof *out);
    out->sanity_fn = out->fallback_fn = -1;
    for (const char *s = source; *s && st == PA_OK;) {
        const char *e = strchr(s, '\n');
        if (!e)
            e = s + strlen(s);
        r.line++;
        st = line(&r, s, e);
        s = *e ? e + 1 : e;
    }
    if (st == PA_OK && !out->blocks[PA__PLC_MAIN].present)
        st = pa__err(PA_ERR_PARSE, "%s: no #plcuda_begin block (the main kernel is required)", fname);
    if (st != PA_OK)
        pa__plc_parsed_free(out);
    return st;
}

void pa__plc_parsed_free(pa__plc_parsed *p)
{
    for (int b = 0; b < PA__PLC_NBLOCKS; b++) {
        free(p->blocks[b].code);
        p->blocks[b].code = NULL;
    }
}
