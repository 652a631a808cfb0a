/*
 * parray — PL/CUDA function objects: registration (signature, blocks, generated source), the public queries,
 * and the evaluation of directive values.  Plain C: it works in builds without CUDA.
 */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "plcuda.h"

static int valid_name(const char *name)
{
    size_t n = name ? strlen(name) : 0;
    if (n == 0 || n > 64 || !(isalpha((unsigned char)name[0]) || name[0] == '_'))
        return 0;
    for (size_t i = 1; i < n; i++)
        if (!(isalnum((unsigned char)name[i]) || name[i] == '_'))
            return 0;
    return 1;
}

static int copy_funcs(pa_kernel *k, const pa_kernel_func *funcs, int nfuncs)
{
    if (nfuncs == 0)
        return PA_OK;
    if (!(k->funcs = calloc((size_t)nfuncs, sizeof *k->funcs)))
        return pa__err(PA_ERR_NOMEM, "%s: out of memory", k->name);
    k->nfuncs = nfuncs;
    for (int i = 0; i < nfuncs; i++) {
        k->funcs[i] = funcs[i];
        if (funcs[i].name && !(k->funcs[i].name = strdup(funcs[i].name)))
            return pa__err(PA_ERR_NOMEM, "%s: out of memory", k->name);
    }
    return PA_OK;
}

int pa_kernel_create(const char *name, const char *signature, const char *source, const pa_kernel_func *funcs,
                     int nfuncs, pa_kernel **out)
{
    pa_kernel *k = NULL;
    int st;
    if (!valid_name(name))
        return pa__err(PA_ERR_INVAL, "pa_kernel_create: the name \"%s\" is not an identifier of 1 to 64 characters",
                       name ? name : "(null)");
    if (!signature || !source || !out || nfuncs < 0 || (nfuncs > 0 && !funcs))
        return pa__err(PA_ERR_INVAL, "pa_kernel_create(%s): NULL signature, source or output, or bad funcs", name);
    if (!(k = calloc(1, sizeof *k)) || !(k->name = strdup(name))) {
        free(k);
        return pa__err(PA_ERR_NOMEM, "pa_kernel_create(%s): out of memory", name);
    }
    pthread_mutex_init(&k->lock, NULL);
    k->parsed.sanity_fn = k->parsed.fallback_fn = -1;
    if ((st = pa__plc_parse_sig(name, signature, &k->sig)) != PA_OK || (st = copy_funcs(k, funcs, nfuncs)) != PA_OK ||
        (st = pa__plc_parse(name, source, k->funcs, k->nfuncs, &k->parsed)) != PA_OK ||
        (pa__plc_sig_includes(&k->sig, &k->parsed), 0) ||
        (st = pa__plc_codegen(name, &k->sig, &k->parsed, &k->source)) != PA_OK)
        goto fail;
    if ((k->sig.ret.kind == PA__PLC_MATRIX || k->sig.ret.kind == PA__PLC_BYTES) && !k->parsed.results_bufsz.set) {
        st = pa__err(PA_ERR_PARSE, "%s: a variable-length result (%s) needs #plcuda_results_bufsz", name,
                     k->sig.ret.kind == PA__PLC_MATRIX ? "matrix" : "bytes");
        goto fail;
    }
    *out = k;
    return PA_OK;
fail:
    pa_kernel_destroy(k);
    return st;
}

void pa_kernel_destroy(pa_kernel *k)
{
    if (!k)
        return;
    pa__plc_parsed_free(&k->parsed);
    for (int i = 0; i < k->nfuncs; i++)
        free((char *)k->funcs[i].name);
    free(k->funcs);
    free(k->source);
    free(k->name);
    pthread_mutex_destroy(&k->lock);
    free(k);
}

const char *pa_kernel_source(const pa_kernel *k)
{
    return k ? k->source : NULL;
}

const char *pa_kernel_name(const pa_kernel *k)
{
    return k ? k->name : NULL;
}

int pa_kernel_nargs(const pa_kernel *k)
{
    return k ? k->sig.nargs : PA_ERR_INVAL;
}

int pa__plc_eval(const pa_kernel *k, const pa__plc_value *v, int64_t dflt, const pa_arg *args, int nargs,
                 const char *what, int64_t *out)
{
    if (!v->set) {
        *out = dflt;
        return PA_OK;
    }
    if (v->fn < 0) {
        *out = v->constant;
        return PA_OK;
    }
    const pa_kernel_func *f = &k->funcs[v->fn];
    int64_t x = f->fn(args, nargs, NULL, f->ctx);
    if (x < 0)
        return pa__err(PA_ERR_RANGE, "%s: #plcuda_%s (line %d): callback %s returned %lld", k->name, what, v->line,
                       f->name, (long long)x);
    *out = x;
    return PA_OK;
}
