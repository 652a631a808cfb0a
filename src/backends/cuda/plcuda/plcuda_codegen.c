/*
 * parray — the CUDA source of a PL/CUDA function: a prelude (the control block, the kernel context, error
 * raising, thread ids), the requested device libraries, the user's declarations, and for each of prep, main
 * and post a device function holding the user's code and an extern "C" kernel that calls it.
 *
 * The user's code is preceded by #line directives carrying its line numbers in the user's source under the
 * file name "<function>", so that NVRTC's messages and pa_raise's line point at the user's lines; generated
 * code is numbered as "<function>.cu".
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "plcuda.h"

static const char prelude[] =
    "/* ---- parray PL/CUDA prelude ---- */\n"
    "typedef struct pa_varlena { void *value; unsigned long long length; int isnull; int pad_; } pa_varlena;\n"
    "typedef struct pa_kctl {\n"
    "    int status, code, line, stage;\n"
    "    unsigned long long retval[2];\n"
    "    pa_varlena var;\n"
    "} pa_kctl;\n"
    "typedef struct pa_kcxt { pa_kctl *ctl; int stage; } pa_kcxt;\n"
    "typedef struct pa_matrix { int elm, height, width, magic; } pa_matrix;\n"
    "#define PA_KSTATUS_ERROR 1\n"
    "#define PA_KSTATUS_RECHECK 2\n"
    "static __device__ __forceinline__ long pa_global_id(void) { return (long)blockIdx.x * blockDim.x + threadIdx.x; }\n"
    "static __device__ __forceinline__ long pa_global_size(void) { return (long)gridDim.x * blockDim.x; }\n"
    "static __device__ __forceinline__ int pa_local_id(void) { return (int)threadIdx.x; }\n"
    "static __device__ __forceinline__ int pa_local_size(void) { return (int)blockDim.x; }\n"
    "#define get_global_id pa_global_id\n"
    "#define get_global_size pa_global_size\n"
    "#define get_local_id pa_local_id\n"
    "#define get_local_size pa_local_size\n"
    "static __device__ void pa__raise(pa_kcxt *kcxt, int status, int code, int line)\n"
    "{\n"
    "    if (atomicCAS(&kcxt->ctl->status, 0, status) == 0) {\n"
    "        kcxt->ctl->code = code;\n"
    "        kcxt->ctl->line = line;\n"
    "        kcxt->ctl->stage = kcxt->stage;\n"
    "    }\n"
    "}\n"
    "/* Raises an error (code: any int) at the caller's line: the call returns PA_ERR_KERNEL. */\n"
    "#define pa_raise(kcxt, code) pa__raise((kcxt), PA_KSTATUS_ERROR, (code), __LINE__)\n"
    "/* Asks for the CPU fallback: the GPU's results are discarded. */\n"
    "#define pa_recheck_on_cpu(kcxt) pa__raise((kcxt), PA_KSTATUS_RECHECK, 0, __LINE__)\n"
    "/* 1 once any thread raised an error or asked for a recheck. */\n"
    "#define pa_failed(kcxt) (*(volatile int *)&(kcxt)->ctl->status != 0)\n";

typedef struct out {
    char *buf;
    size_t len, cap;
    int lines;      /* newlines written so far */
    int nomem;
} out;

static void put(out *o, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void put(out *o, const char *fmt, ...)
{
    va_list ap;
    for (int tries = 0; tries < 2 && !o->nomem; tries++) {
        va_start(ap, fmt);
        int n = vsnprintf(o->buf + o->len, o->cap - o->len, fmt, ap);
        va_end(ap);
        if (n < 0) {
            o->nomem = 1;
            return;
        }
        if ((size_t)n < o->cap - o->len) {
            for (int i = 0; i < n; i++)
                o->lines += o->buf[o->len + (size_t)i] == '\n';
            o->len += (size_t)n;
            return;
        }
        size_t cap = (o->cap + (size_t)n + 1) * 2;
        char *p = realloc(o->buf, cap);
        if (!p) {
            o->nomem = 1;
            return;
        }
        o->buf = p;
        o->cap = cap;
    }
}

/* Returns the numbering to the generated file after user code. */
static void resume(out *o, const char *fname)
{
    put(o, "#line %d \"%s.cu\"\n", o->lines + 2, fname);
}

void pa__plc_entry(const char *fname, int block, char *buf, size_t len)
{
    static const char *const suffix[PA__PLC_NBLOCKS] = {"decl", "prep", "main", "post"};
    snprintf(buf, len, "plcuda_%s_%s", fname, suffix[block]);
}

/* The parameter list after the fixed ones: "int arg1, const float *arg2, long arg2_len, ...". */
static void params(out *o, const pa__plc_sig *sig)
{
    for (int i = 0; i < sig->nargs; i++) {
        const pa__plc_tspec *t = &sig->args[i];
        if (t->kind == PA__PLC_SCALAR)
            put(o, ",\n        %s arg%d", t->scalar->cuda, i + 1);
        else if (t->kind == PA__PLC_ARRAY)
            put(o, ",\n        %s%s *arg%d, long arg%d_len", t->inout ? "" : "const ", t->scalar->cuda, i + 1, i + 1);
        else
            put(o, ",\n        const pa_matrix *arg%d", i + 1);
    }
}

static void arg_names(out *o, const pa__plc_sig *sig)
{
    for (int i = 0; i < sig->nargs; i++) {
        put(o, ", arg%d", i + 1);
        if (sig->args[i].kind == PA__PLC_ARRAY)
            put(o, ", arg%d_len", i + 1);
    }
}

static const char *ret_type(const pa__plc_sig *sig)
{
    switch (sig->ret.kind) {
    case PA__PLC_SCALAR: return sig->ret.scalar->cuda;
    case PA__PLC_MATRIX:
    case PA__PLC_BYTES: return "pa_varlena";
    default: return "void";
    }
}

static void stage(out *o, const char *fname, const pa__plc_sig *sig, const pa__plc_parsed *p, int b)
{
    char entry[160];
    const pa__plc_block *blk = &p->blocks[b];
    const char *rt = ret_type(sig);
    pa__plc_entry(fname, b, entry, sizeof entry);
    put(o, "\nstatic __device__ void\n__%s(pa_kcxt *kcxt, void *workbuf, void *results, %s *retval", entry, rt);
    params(o, sig);
    put(o, ")\n{\n    (void)kcxt; (void)workbuf; (void)results; (void)retval;\n");
    put(o, "    /* ---- code by pl/cuda function ---- */\n#line %d \"%s\"\n%s", blk->line + 1, fname,
        blk->code ? blk->code : "");
    resume(o, fname);
    put(o, "    /* ---- code by pl/cuda function ---- */\n}\n\n");
    put(o, "extern \"C\" __global__ void%s\n%s(pa_kctl *kctl, pa_kctl *pa_clear, void *workbuf, void *results",
        blk->maxthreads ? " __launch_bounds__(1024)" : "", entry);
    params(o, sig);
    /* pa_clear: the caller's other control block, read already, cleared here for its next call. */
    put(o, ")\n{\n    pa_kcxt kcxt;\n    kcxt.ctl = kctl;\n    kcxt.stage = %d;\n", b);
    put(o, "    if (pa_clear && blockIdx.x == 0 && threadIdx.x == 0) {\n"
           "        pa_kctl zero = {};\n        *pa_clear = zero;\n    }\n");
    if (sig->ret.kind == PA__PLC_SCALAR)
        put(o, "    %s *retval = (%s *)kctl->retval;\n", rt, rt);
    else if (sig->ret.kind == PA__PLC_VOID)
        put(o, "    void *retval = (void *)0;\n");
    else
        put(o, "    pa_varlena *retval = &kctl->var;\n");
    put(o, "    __%s(&kcxt, workbuf, results, retval", entry);
    arg_names(o, sig);
    put(o, ");\n}\n");
}

int pa__plc_codegen(const char *fname, const pa__plc_sig *sig, const pa__plc_parsed *p, char **result)
{
    out o = {malloc(8192), 0, 8192, 0, 0};
    char sigtext[64];
    if (!o.buf)
        return pa__err(PA_ERR_NOMEM, "%s: out of memory generating the kernel source", fname);
    put(&o, "/* PL/CUDA function %s: ", fname);
    pa__plc_format_tspec(&sig->ret, sigtext, sizeof sigtext);
    put(&o, "%s (", sigtext);
    for (int i = 0; i < sig->nargs; i++) {
        pa__plc_format_tspec(&sig->args[i], sigtext, sizeof sigtext);
        put(&o, "%s%s", i ? ", " : "", sigtext);
    }
    put(&o, ") */\n%s", prelude);
    for (int i = 0; i < p->ninclude; i++)
        put(&o, "#include <%s>\n", p->include[i]);
    if (p->blocks[PA__PLC_DECL].present) {
        put(&o, "\n/* ---- declarations by pl/cuda function ---- */\n#line %d \"%s\"\n%s",
            p->blocks[PA__PLC_DECL].line + 1, fname, p->blocks[PA__PLC_DECL].code ? p->blocks[PA__PLC_DECL].code : "");
        resume(&o, fname);
        put(&o, "/* ---- declarations by pl/cuda function ---- */\n");
    }
    for (int b = PA__PLC_PREP; b < PA__PLC_NBLOCKS; b++)
        if (p->blocks[b].present)
            stage(&o, fname, sig, p, b);
    if (o.nomem || !o.buf) {
        free(o.buf);
        return pa__err(PA_ERR_NOMEM, "%s: out of memory generating the kernel source", fname);
    }
    *result = o.buf;
    return PA_OK;
}
