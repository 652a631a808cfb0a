/*
 * parray — text for kernels: a growing buffer, the C++ name of an element type, and a type's static layout
 * written as a struct whose members are literals (gputile.h lists them).
 *
 * An offset is one expression of the flat index k: base + sum over modes of ((k / w) % size) * stride with w
 * the product of the inner modes' sizes, every number a literal, so that the compiler turns the divisions into
 * multiplications and shifts and folds them away where k is known.  The index type is int where every index
 * and offset fits in 32 bits (cheaper arithmetic), else long long.
 */
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tiles_internal.h"

void pa__tbuf_put(pa__tbuf *b, const char *fmt, ...)
{
    if (b->st != PA_OK)
        return;
    for (;;) {
        va_list ap;
        va_start(ap, fmt);
        size_t room = b->cap - b->len;
        int n = vsnprintf(b->s ? b->s + b->len : NULL, b->s ? room : 0, fmt, ap);
        va_end(ap);
        if (n < 0) {
            b->st = PA_ERR_INVAL;
            return;
        }
        if (b->s && (size_t)n < room) {
            b->len += (size_t)n;
            return;
        }
        size_t cap = b->cap ? b->cap : 4096;
        while (cap < b->len + (size_t)n + 1)
            cap *= 2;
        char *s = realloc(b->s, cap);
        if (s == NULL) {
            b->st = PA_ERR_NOMEM;
            return;
        }
        if (b->s == NULL)
            s[0] = '\0';
        b->s = s;
        b->cap = cap;
    }
}

void pa__tbuf_free(pa__tbuf *b)
{
    free(b->s);
    memset(b, 0, sizeof *b);
}

void pa__elm_cuda_decl(const pa_type *t, const char *name, char *buf, size_t len)
{
    const char *e = pa__elm_cuda_name(t), *n = pa_elm(t);
    if (e == NULL && n != NULL && strcmp(n, "half") == 0)
        e = "pa_half";   /* the 16-bit floats as their bits (<parray/plcuda/tiles.h>) */
    else if (e == NULL && n != NULL && strcmp(n, "bfloat16") == 0)
        e = "pa_bf16";
    if (e)
        snprintf(buf, len, "typedef %s %s;", e, name);
    else
        snprintf(buf, len, "typedef pa_bytes<%zu> %s;", pa_elm_size(t), name);
}

static int fits32(const pa__layout *l)
{
    return l->size <= INT32_MAX && l->max_off < INT32_MAX && l->min_off > -(int64_t)INT32_MAX;
}

/* "base + ((k / w) % n) * d + ..." for layout l, index variable k, suffix sfx ("" or "LL"). */
static void offset_expr(pa__tbuf *b, const pa__layout *l, const char *k, const char *sfx)
{
    pa__tbuf_put(b, "%lld%s", (long long)l->base, sfx);
    int64_t w = 1;
    for (int m = l->nmodes - 1; m >= 0; m--) {
        long long n = l->modes[m].size, d = l->modes[m].stride;
        if (n > 1 && d != 0) {
            if (m == 0 && w == 1)
                pa__tbuf_put(b, " + %s * %lld%s", k, d, sfx);
            else if (m == 0)
                pa__tbuf_put(b, " + (%s / %lld%s) * %lld%s", k, (long long)w, sfx, d, sfx);
            else if (w == 1)
                pa__tbuf_put(b, " + (%s %% %lld%s) * %lld%s", k, n, sfx, d, sfx);
            else
                pa__tbuf_put(b, " + ((%s / %lld%s) %% %lld%s) * %lld%s", k, (long long)w, sfx, n, sfx, d, sfx);
        }
        w *= l->modes[m].size;
    }
}

void pa__temit_layout(pa__tbuf *b, const char *name, const pa__layout *l, const char *elm_decl, size_t elm,
                      const char *comment, const char *extra)
{
    int small = fits32(l);
    const char *it = small ? "int" : "long long", *sfx = small ? "" : "LL";
    char fmt[512];
    pa__layout_format(l, fmt, sizeof fmt);
    long long extent = l->size > 0 ? (long long)l->max_off + 1 : 0;
    pa__tbuf_put(b, "/* %s: %s, layout %s */\nstruct %s {\n    %s\n", name, comment, fmt, name, elm_decl);
    pa__tbuf_put(b, "    typedef %s index_t;\n", it);
    pa__tbuf_put(b, "    static constexpr long long size = %lldLL, base = %lldLL, extent = %lldLL, bytes = %lldLL;\n",
                 (long long)l->size, (long long)l->base, extent, extent * (long long)elm);
    pa__tbuf_put(b, "    static PA_TD %s off(%s k) { return ", it, it);
    offset_expr(b, l, "k", sfx);
    pa__tbuf_put(b, "; }\n%s};\n", extra ? extra : "");
}

/* The offset expression of a layout as a free-standing helper (used by the copy emitter). */
void pa__temit_offset_fn(pa__tbuf *b, const char *fn, const pa__layout *l, const char *it)
{
    pa__tbuf_put(b, "    static PA_TD %s %s(%s k) { return ", it, fn, it);
    offset_expr(b, l, "k", strcmp(it, "int") == 0 ? "" : "LL");
    pa__tbuf_put(b, "; }\n");
}

int pa__tmem_of(const pa_type *t, const char *what)
{
    const char *m = pa_mtt(t);
    if (strcmp(m, "dmem") == 0)
        return PA__TMEM_DMEM;
    if (strcmp(m, "smem") == 0)
        return PA__TMEM_SMEM;
    if (strcmp(m, "rmem") == 0)
        return PA__TMEM_RMEM;
    return pa__err(PA_ERR_MTT, "%s: %s is %s memory; tiles inside kernels are dmem, smem or rmem", what,
                   pa_type_name(t), m);
}
