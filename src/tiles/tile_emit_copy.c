/*
 * parray — the text of a cooperative copy (gputile.h, pa_tilegen_copy) from its plan (tile_plan.c).
 *
 * Three helpers give, for a unit u, its flat index and both offsets as literal expressions over u; the loops
 * over a thread's units have literal trip counts (#pragma unroll), so with u = tid + j * nthreads every offset
 * is the thread's part plus a constant, and with one thread every offset is a constant (registers of an rmem
 * side stay registers).  A side that moves vectors checks its pointer's alignment once per call and otherwise
 * takes the element loop; the frag keeps each unit as a union of the vector and its elements.
 */
#include <stdio.h>
#include <string.h>

#include "tiles_internal.h"

/* u's digit expression of ordered mode m, times coef; nothing when the term vanishes. */
static void unit_terms(pa__tbuf *b, const pa__tcopy *c, int which, const char *sfx)
{
    int64_t uw = 1;
    for (int m = c->nj - 1; m >= 0; m--) {
        int inner = m == c->nj - 1;
        int64_t nu = inner ? c->j[m].size / c->v : c->j[m].size;
        int64_t step = inner ? c->v : 1;
        int64_t s = which == 0 ? c->j[m].kweight : which == 1 ? c->j[m].dstride : c->j[m].sstride;
        long long coef = (long long)(s * step);
        if (nu > 1 && coef != 0) {
            if (m == 0 && uw == 1)
                pa__tbuf_put(b, " + u * %lld%s", coef, sfx);
            else if (m == 0)
                pa__tbuf_put(b, " + (u / %lld%s) * %lld%s", (long long)uw, sfx, coef, sfx);
            else if (uw == 1)
                pa__tbuf_put(b, " + (u %% %lld%s) * %lld%s", (long long)nu, sfx, coef, sfx);
            else
                pa__tbuf_put(b, " + ((u / %lld%s) %% %lld%s) * %lld%s", (long long)uw, sfx, (long long)nu, sfx,
                             coef, sfx);
        }
        uw *= nu;
    }
}

static void helpers(pa__tbuf *b, const pa__tcopy *c, const char *it)
{
    const char *sfx = strcmp(it, "int") == 0 ? "" : "LL";
    if (c->generic) {
        pa__tbuf_put(b, "    static PA_TD %s kidx(%s u) { return u; }\n", it, it);
        pa__temit_offset_fn(b, "doff", c->dl, it);
        pa__temit_offset_fn(b, "soff", c->sl, it);
        return;
    }
    const char *names[] = {"kidx", "doff", "soff"};
    long long base[] = {0, (long long)c->dl->base, (long long)c->sl->base};
    for (int w = 0; w < 3; w++) {
        pa__tbuf_put(b, "    static PA_TD %s %s(%s u) { return %lld%s", it, names[w], it, base[w], sfx);
        unit_terms(b, c, w, sfx);
        pa__tbuf_put(b, "; }\n");
    }
}

/* The loop head over a thread's units: u, and a guard when the units do not divide evenly. */
static void loop_head(pa__tbuf *b, const pa__tcopy *c, const char *it)
{
    pa__tbuf_put(b, "#pragma unroll\n        for (int j = 0; j < %lld; j++) {\n", (long long)c->per_thread);
    pa__tbuf_put(b, "            const %s u = (%s)tid + (%s)j * %d;\n", it, it, it, c->nt);
    if (c->units % c->nt != 0)
        pa__tbuf_put(b, "            if (u >= %lld) break;\n", (long long)c->units);
}

/* The predicate "every top-level index of element e below its limit" over flat index expression kexpr. */
static void pred_cond(pa__tbuf *b, const pa__tcopy *c, const char *kexpr, const char *it)
{
    pa__tbuf_put(b, "(true");
    for (int d = 0; d < c->npred; d++)
        pa__tbuf_put(b, " && ((%s) / (%s)%lld) %% (%s)%lld < (%s)lim%d", kexpr, it, (long long)c->pred_weight[d], it,
                     (long long)c->pred_size[d], it, d);
    pa__tbuf_put(b, ")");
}

static void lim_params(pa__tbuf *b, const pa__tcopy *c)
{
    for (int d = 0; d < c->npred; d++)
        pa__tbuf_put(b, ", int lim%d", d);
}

static void lim_args(pa__tbuf *b, const pa__tcopy *c)
{
    for (int d = 0; d < c->npred; d++)
        pa__tbuf_put(b, ", lim%d", d);
}

static void head(pa__tbuf *b, const pa__tcopy *c, int side, const char *fn, int pred)
{
    if (side == 0)
        pa__tbuf_put(b, "    static PA_TDD void %s(frag &f, const elm_t *__restrict__ s, int tid", fn);
    else
        pa__tbuf_put(b, "    static PA_TDD void %s(elm_t *__restrict__ d, const frag &f, int tid", fn);
    if (pred)
        lim_params(b, c);
    pa__tbuf_put(b, ")\n    {\n");
}

/* The element loop of a load or a store, predicated or not. */
static void element_body(pa__tbuf *b, const pa__tcopy *c, const char *it, int side, int pred)
{
    long long din = c->generic ? 0 : (long long)c->j[c->nj - 1].dstride;
    long long sin = c->generic ? 0 : (long long)c->j[c->nj - 1].sstride;
    long long kin = c->generic ? 0 : (long long)c->j[c->nj - 1].kweight;
    loop_head(b, c, it);
    pa__tbuf_put(b, "            const %s k0 = kidx(u), d0 = doff(u), s0 = soff(u);\n", it);
    pa__tbuf_put(b, "            (void)k0; (void)d0; (void)s0;\n");
    pa__tbuf_put(b, "#pragma unroll\n            for (int e = 0; e < %d; e++) {\n", c->v);
    if (pred) {
        char kx[64];
        snprintf(kx, sizeof kx, "k0 + e * %lld", kin);
        pa__tbuf_put(b, "                const bool in = ");
        pred_cond(b, c, kx, it);
        pa__tbuf_put(b, ";\n");
    }
    if (side == 0)
        pa__tbuf_put(b, "                f.u[j].e[e] = %ss[s0 + e * %lld]%s;\n", pred ? "in ? " : "", sin,
                     pred ? " : elm_t()" : "");
    else
        pa__tbuf_put(b, "                %sd[d0 + e * %lld] = f.u[j].e[e];\n", pred ? "if (in) " : "", din);
    pa__tbuf_put(b, "            }\n        }\n    }\n");
}

/*
 * Per direction: NAME_aligned (vectors without a check, or the elements), NAME_e (elements) and NAME (the
 * alignment checked once: vectors or elements); then the predicated forms, elements always.
 */
static void bodies(pa__tbuf *b, const pa__tcopy *c, const char *it)
{
    int vb = c->v * (int)c->elm;
    for (int side = 0; side < 2; side++) {
        const char *nm = side ? "store" : "load";
        int vec = side ? c->dvec : c->svec;
        char fn[32];
        snprintf(fn, sizeof fn, "%s_e", nm);
        head(b, c, side, fn, 0);
        element_body(b, c, it, side, 0);
        snprintf(fn, sizeof fn, "%s_aligned", nm);
        head(b, c, side, fn, 0);
        if (!vec) {
            pa__tbuf_put(b, "        %s_e(%s, tid);\n    }\n", nm, side ? "d, f" : "f, s");
        } else {
            loop_head(b, c, it);
            if (side == 0)
                pa__tbuf_put(b, "            f.u[j].vec = *reinterpret_cast<const pa_vec_t<%d> *>(s + soff(u));\n",
                             vb);
            else
                pa__tbuf_put(b, "            *reinterpret_cast<pa_vec_t<%d> *>(d + doff(u)) = f.u[j].vec;\n", vb);
            pa__tbuf_put(b, "        }\n    }\n");
        }
        head(b, c, side, nm, 0);
        if (vec)
            pa__tbuf_put(b, "        if (pa_misaligned(%s + %lldLL, %d))\n            %s_e(%s, tid);\n        else\n"
                            "            %s_aligned(%s, tid);\n    }\n",
                         side ? "d" : "s", (long long)(side ? c->dl->base : c->sl->base), vb, nm,
                         side ? "d, f" : "f, s", nm, side ? "d, f" : "f, s");
        else
            pa__tbuf_put(b, "        %s_e(%s, tid);\n    }\n", nm, side ? "d, f" : "f, s");
        snprintf(fn, sizeof fn, "%s_pred", nm);
        head(b, c, side, fn, 1);
        element_body(b, c, it, side, 1);
    }
}

/*
 * The asynchronous forms of a copy from device into shared memory (cp.async through pa_cp_async): copy_async_e
 * (one request per element), copy_async_aligned (one per unit where both sides move vectors), copy_async (the
 * alignment checked once) and copy_async_pred (elements; outside the edges the destination gets zeros).  The
 * caller closes the group (pa_cp_async_commit) and waits (pa_cp_async_wait) before a barrier.  Elements of
 * other sizes than 4, 8 and 16 bytes are copied synchronously by the same names.
 */
static void async_bodies(pa__tbuf *b, const pa__tcopy *c, const char *it)
{
    int vb = c->v * (int)c->elm, eb = (int)c->elm;
    long long din = c->generic ? 0 : (long long)c->j[c->nj - 1].dstride;
    long long sin = c->generic ? 0 : (long long)c->j[c->nj - 1].sstride;
    long long kin = c->generic ? 0 : (long long)c->j[c->nj - 1].kweight;
    const char *dsig = "(elm_t *__restrict__ d, const elm_t *__restrict__ s, int tid";
    if (eb != 4 && eb != 8 && eb != 16) {
        pa__tbuf_put(b, "    static PA_TDD void copy_async_e%s) { frag f; load_e(f, s, tid); store_e(d, f, tid); }\n",
                     dsig);
        if (c->dvec && c->svec && (vb == 4 || vb == 8 || vb == 16)) {
            /* whole vectors of small elements (2-byte floats) still go by cp.async; single elements cannot */
            pa__tbuf_put(b, "    static PA_TDD void copy_async_aligned%s)\n    {\n", dsig);
            loop_head(b, c, it);
            pa__tbuf_put(b, "            pa_cp_async<%d>(d + doff(u), s + soff(u));\n        }\n    }\n", vb);
            pa__tbuf_put(b, "    static PA_TDD void copy_async%s)\n    {\n"
                            "        if (pa_misaligned(s + %lldLL, %d) || pa_misaligned(d + %lldLL, %d))\n"
                            "            copy_async_e(d, s, tid);\n        else\n            copy_async_aligned(d, s, tid);\n"
                            "    }\n", dsig, (long long)c->sl->base, vb, (long long)c->dl->base, vb);
        } else {
            pa__tbuf_put(b, "    static PA_TDD void copy_async_aligned%s) { copy_aligned(d, s, tid); }\n"
                            "    static PA_TDD void copy_async%s) { copy(d, s, tid); }\n", dsig, dsig);
        }
        pa__tbuf_put(b, "    static PA_TDD void copy_async_pred%s", dsig);
        lim_params(b, c);
        pa__tbuf_put(b, ") { copy_pred(d, s, tid");
        lim_args(b, c);
        pa__tbuf_put(b, "); }\n");
        return;
    }
    pa__tbuf_put(b, "    static PA_TDD void copy_async_e%s)\n    {\n", dsig);
    loop_head(b, c, it);
    pa__tbuf_put(b, "            const %s d0 = doff(u), s0 = soff(u);\n"
                    "#pragma unroll\n            for (int e = 0; e < %d; e++)\n"
                    "                pa_cp_async<%d>(d + d0 + e * %lld, s + s0 + e * %lld);\n        }\n    }\n",
                 it, c->v, eb, din, sin);
    pa__tbuf_put(b, "    static PA_TDD void copy_async_aligned%s)\n    {\n", dsig);
    if (c->dvec && c->svec && c->v > 1) {
        loop_head(b, c, it);
        pa__tbuf_put(b, "            pa_cp_async<%d>(d + doff(u), s + soff(u));\n        }\n    }\n", vb);
        pa__tbuf_put(b, "    static PA_TDD void copy_async%s)\n    {\n"
                        "        if (pa_misaligned(s + %lldLL, %d) || pa_misaligned(d + %lldLL, %d))\n"
                        "            copy_async_e(d, s, tid);\n        else\n            copy_async_aligned(d, s, tid);\n"
                        "    }\n", dsig, (long long)c->sl->base, vb, (long long)c->dl->base, vb);
    } else {
        pa__tbuf_put(b, "        copy_async_e(d, s, tid);\n    }\n");
        pa__tbuf_put(b, "    static PA_TDD void copy_async%s) { copy_async_e(d, s, tid); }\n", dsig);
    }
    pa__tbuf_put(b, "    static PA_TDD void copy_async_pred%s", dsig);
    lim_params(b, c);
    pa__tbuf_put(b, ")\n    {\n");
    loop_head(b, c, it);
    pa__tbuf_put(b, "            const %s k0 = kidx(u), d0 = doff(u), s0 = soff(u);\n            (void)k0;\n"
                    "#pragma unroll\n            for (int e = 0; e < %d; e++) {\n                const bool in = ",
                 it, c->v);
    char kx[64];
    snprintf(kx, sizeof kx, "k0 + e * %lld", kin);
    pred_cond(b, c, kx, it);
    pa__tbuf_put(b, ";\n                if (in)\n                    pa_cp_async<%d>(d + d0 + e * %lld, s + s0 + e * %lld);\n"
                    "                else\n                    d[d0 + e * %lld] = elm_t();\n            }\n        }\n    }\n",
                 eb, din, sin, din);
}

void pa__temit_copy(pa__tbuf *b, const char *name, const pa__tcopy *c, const char *elm_decl, const char *comment)
{
    int small = c->dl->max_off < INT32_MAX && c->sl->max_off < INT32_MAX && c->dl->min_off > -(int64_t)INT32_MAX &&
                c->sl->min_off > -(int64_t)INT32_MAX && c->dl->size < INT32_MAX / 2;
    const char *it = small ? "int" : "long long";
    int vb = c->v * (int)c->elm;
    pa__tbuf_put(b, "/* %s: %s; %d threads, %lld unit%s of %d element%s per thread (%s: %s vectors, %s), ", name,
                 comment, c->nt, (long long)c->per_thread, c->per_thread == 1 ? "" : "s", c->v,
                 c->v == 1 ? "" : "s", c->generic ? "element by element" : "joint modes",
                 c->svec ? "source" : c->dvec ? "destination" : "no", c->svec && c->dvec ? "both" : "one side");
    if (c->bank_ways)
        pa__tbuf_put(b, "shared-memory wavefronts of warp 0's first request: %d */\n", c->bank_ways);
    else
        pa__tbuf_put(b, "no shared memory side */\n");
    pa__tbuf_put(b, "struct %s {\n    %s\n", name, elm_decl);
    pa__tbuf_put(b, "    static constexpr int nthreads = %d, v = %d;\n", c->nt, c->v);
    pa__tbuf_put(b, "    static constexpr long long units = %lldLL, per_thread = %lldLL;\n", (long long)c->units,
                 (long long)c->per_thread);
    if (vb == 4 || vb == 8 || vb == 16)
        pa__tbuf_put(b, "    union unit { pa_vec_t<%d> vec; elm_t e[%d]; };\n", vb, c->v);
    else
        pa__tbuf_put(b, "    struct unit { elm_t e[%d]; };\n", c->v);
    pa__tbuf_put(b, "    struct frag { unit u[%lld]; };\n", (long long)c->per_thread);
    helpers(b, c, it);
    bodies(b, c, it);
    pa__tbuf_put(b, "    static PA_TDD void copy(elm_t *__restrict__ d, const elm_t *__restrict__ s, int tid) "
                    "{ frag f; load(f, s, tid); store(d, f, tid); }\n");
    pa__tbuf_put(b, "    static PA_TDD void copy_aligned(elm_t *__restrict__ d, const elm_t *__restrict__ s, int tid) "
                    "{ frag f; load_aligned(f, s, tid); store_aligned(d, f, tid); }\n");
    pa__tbuf_put(b, "    static PA_TDD void copy_pred(elm_t *__restrict__ d, const elm_t *__restrict__ s, int tid");
    lim_params(b, c);
    /* the edges are the dmem side's: a dmem destination is left alone there, any other gets the zeros */
    pa__tbuf_put(b, ") { frag f; load_pred(f, s, tid");
    lim_args(b, c);
    if (c->dmem == PA__TMEM_DMEM) {
        pa__tbuf_put(b, "); store_pred(d, f, tid");
        lim_args(b, c);
    } else {
        pa__tbuf_put(b, "); store(d, f, tid");
    }
    pa__tbuf_put(b, "); }\n");
    if (c->dmem == PA__TMEM_SMEM && c->smem == PA__TMEM_DMEM)
        async_bodies(b, c, it);
    pa__tbuf_put(b, "};\n");
}
