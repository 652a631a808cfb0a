/*
 * parray — pa_tile and pa_tile_copy over dmem (gputile.h): PARRAY's itile/otile/iotile with the inner memory a
 * block's shared memory and the tile's body a device function.
 *
 * The kernel is generated per (outer layouts, inner type, function): one block per tile (grid-stride over the
 * tiles), the tile loaded into dynamic shared memory by a generated cooperative copy, __syncthreads, the user's
 * function called by every thread, __syncthreads, and the tile stored by another copy.  Tile t is the run of
 * flat indices [t*S, (t+1)*S) of the outer type, as on the CPU; where the outer layout cuts into shifted copies
 * of one tile (pa__tile_divide) the copies are static layouts (coalesced, vectors where allowed), else each
 * element's offset comes from the outer type's static layout.  Built with the CUDA backend only.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tiles_internal.h"

#define NT_MAX 256

/* ld (load: 1) or st (0) for tile t between shared memory s and the outer array p of static type OUTn. */
static int tile_copy(pa_tilegen *g, pa__tbuf *k, const char *nm, const pa_type *outer, const pa_type *inner,
                     int load, int nt, const char *outer_name)
{
    const pa__layout *ol = pa__type_layout(outer), *il = pa__type_layout(inner);
    pa__layout tl;
    int64_t S = pa_size(inner);
    if (pa__tile_divide(ol, S, &tl) && tl.size == S) {
        char name[32];
        snprintf(name, sizeof name, "%s_t", nm);
        int st = load ? pa__tilegen_copy_layouts(g, name, il, PA__TMEM_SMEM, &tl, PA__TMEM_DMEM, inner, nt, 0, NULL,
                                                 "a tile of the outer type into shared memory")
                      : pa__tilegen_copy_layouts(g, name, &tl, PA__TMEM_DMEM, il, PA__TMEM_SMEM, inner, nt, 0, NULL,
                                                 "a tile from shared memory into the outer type");
        if (st != PA_OK)
            return st;
        if (load)
            pa__tbuf_put(k, "static PA_TDD void %s(const E *p, E *s, long long t) { %s_t::copy(s, p + (%s::off(t * "
                            "%lldLL) - %lldLL), threadIdx.x); }\n", nm, nm, outer_name, (long long)S, (long long)tl.base);
        else
            pa__tbuf_put(k, "static PA_TDD void %s(E *p, const E *s, long long t) { %s_t::copy(p + (%s::off(t * "
                            "%lldLL) - %lldLL), s, threadIdx.x); }\n", nm, nm, outer_name, (long long)S, (long long)tl.base);
        return PA_OK;
    }
    pa__tbuf_put(k, "static PA_TDD void %s(%sE *p, %sE *s, long long t)\n{\n    for (int k = threadIdx.x; k < %lld; k "
                    "+= %d) %s;\n}\n", nm, load ? "const " : "", load ? "" : "const ", (long long)S, nt,
                 load ? "s[pa_inner::off(k)] = p[OUT0::off(t * (OUT0::index_t)pa_inner::size + k)]"
                      : "p[OUT1::off(t * (OUT1::index_t)pa_inner::size + k)] = s[pa_inner::off(k)]");
    (void)outer_name;
    return PA_OK;
}

static const char kernel_fmt[] =
    "struct pa_tile_arg { unsigned long long w[%zu]; };\n"
    "extern \"C\" __global__ void __launch_bounds__(%d) pa_tile_kernel(const E *src, E *dst, long long ntiles, "
    "pa_tile_arg arg)\n{\n"
    "    extern __shared__ __align__(16) unsigned char pa_dyn[];\n"
    "    E *s = reinterpret_cast<E *>(pa_dyn);\n"
    "    for (long long t = blockIdx.x; t < ntiles; t += gridDim.x) {\n"
    "        %s\n        __syncthreads();\n"
    "        %s(s, t, threadIdx.x, %d, (const void *)&arg);\n        __syncthreads();\n"
    "        %s\n        __syncthreads();\n    }\n}\n";

int pa__tile_dmem_source(const pa_type *src_o, const pa_type *dst_o, const pa_type *inner, int mode,
                         const char *source, const char *fn, size_t words, int nt, char **out)
{
    pa_tilegen *g = NULL;
    pa__tbuf k = {0};
    char elm[160];
    int st = pa_tilegen_create(&g);
    if (st == PA_OK)
        st = pa_tilegen_type(g, "OUT0", src_o);
    if (st == PA_OK)
        st = pa_tilegen_type(g, "OUT1", dst_o);
    if (st == PA_OK)
        st = pa_tilegen_type(g, "pa_inner", inner);
    pa__elm_cuda_decl(inner, "E", elm, sizeof elm);
    pa__tbuf_put(&k, "%s\ntypedef E pa_elm_t;\n", elm);
    if (st == PA_OK && (mode & PA_ITILE))
        st = tile_copy(g, &k, "pa_load", src_o, inner, 1, nt, "OUT0");
    if (st == PA_OK && (mode & PA_OTILE))
        st = tile_copy(g, &k, "pa_store", dst_o, inner, 0, nt, "OUT1");
    if (st != PA_OK)
        goto done;
    pa__tbuf_put(&k, "#line 1 \"%s\"\n%s\n#line 1 \"parray tile kernel\"\n", fn, source);
    pa__tbuf_put(&k, kernel_fmt, words, nt,
                 mode & PA_ITILE ? "pa_load(src, s, t);"
                                 : "for (int k = threadIdx.x; k < (int)pa_inner::extent; k += blockDim.x) s[k] = E();",
                 fn, nt, mode & PA_OTILE ? "pa_store(dst, s, t);" : "");
    if ((st = k.st) == PA_OK)
        st = pa__tilegen_put(g, k.s);
    if (st == PA_OK && (*out = strdup(pa_tilegen_source(g))) == NULL)
        st = pa__err(PA_ERR_NOMEM, "pa_tile_dmem: the kernel's source");
done:
    pa__tbuf_free(&k);
    pa_tilegen_destroy(g);
    return st;
}

static int check(const pa_type *outer, const void *data, const pa_type *inner, const char *what)
{
    if (outer == NULL || data == NULL || inner == NULL)
        return pa__err(PA_ERR_INVAL, "%s: the %s is NULL", what,
                       outer == NULL ? "outer type" : data == NULL ? "data pointer" : "inner type");
    if (strcmp(pa_mtt(outer), "dmem") != 0)
        return pa__err(PA_ERR_MTT, "%s: outer %s is %s memory; this is the GPU's tile over dmem (pa_tile runs on "
                       "host memory)", what, pa_type_name(outer), pa_mtt(outer));
    if (strcmp(pa_mtt(inner), "smem") != 0)
        return pa__err(PA_ERR_MTT, "%s: inner %s is %s memory; tiles of dmem go through smem", what,
                       pa_type_name(inner), pa_mtt(inner));
    if (pa_elm_size(outer) != pa_elm_size(inner) || pa_elm_size(inner) == 0)
        return pa__err(PA_ERR_ELM, "%s: outer %s has %zu-byte elements but inner %s has %zu", what,
                       pa_type_name(outer), pa_elm_size(outer), pa_type_name(inner), pa_elm_size(inner));
    if (pa_size(inner) == 0 || pa_size(outer) % pa_size(inner) != 0)
        return pa__err(PA_ERR_SIZE, "%s: outer %s has %lld elements, not a multiple of the %lld of inner %s", what,
                       pa_type_name(outer), (long long)pa_size(outer), (long long)pa_size(inner),
                       pa_type_name(inner));
    return PA_OK;
}

static int run(const pa_type *src_o, const void *src, const pa_type *dst_o, void *dst, const pa_type *inner,
               int mode, const char *source, const char *fn, const void *arg, size_t arg_size, const char *what)
{
    if (source == NULL || fn == NULL || (arg == NULL && arg_size > 0))
        return pa__err(PA_ERR_INVAL, "%s: NULL %s", what, source == NULL ? "source" : fn == NULL ? "function name"
                                                                                                : "argument");
    if (arg_size > 2048)
        return pa__err(PA_ERR_RANGE, "%s: an argument of %zu bytes; kernel parameters hold at most 2048 here", what,
                       arg_size);
    int64_t S = pa_size(inner), ntiles = pa_size(src_o) / S;
    int nt = S >= NT_MAX ? NT_MAX : (int)((S + 31) / 32 * 32);
    size_t words = arg_size == 0 ? 1 : (arg_size + 7) / 8;
    char *source_all = NULL;
    int st = pa__tile_dmem_source(src_o, dst_o, inner, mode, source, fn, words, nt, &source_all);
    if (st != PA_OK)
        return st;
    pa_cuda_function f;
    st = pa_cuda_compile(fn, source_all, "pa_tile_kernel", &f);
    free(source_all);
    if (st != PA_OK)
        return st;
    const pa__layout *il = pa__type_layout(inner);
    size_t shmem = ((size_t)(il->max_off + 1) * pa_elm_size(inner) + 15) / 16 * 16;
    unsigned long long a[256];
    memset(a, 0, words * 8);
    if (arg_size)
        memcpy(a, arg, arg_size);
    pa_dthreads th;
    memset(&th, 0, sizeof th);
    th.grid = 1;
    th.gdim[0] = (unsigned)(ntiles < 8192 ? ntiles : 8192);
    th.gdim[1] = th.gdim[2] = 1;
    th.bdim[0] = (unsigned)nt;
    th.bdim[1] = th.bdim[2] = 1;
    th.n = (long long)th.gdim[0] * nt;
    void *params[] = {(void *)&src, &dst, &ntiles, a};
    if (ntiles == 0)
        return PA_OK;
    st = pa_cuda_for(&th, f, params, shmem);
    return st == PA_OK ? PA_OK : pa__err_wrap(st, "%s over %s", what, pa_type_name(src_o));
}

int pa_tile_dmem(const pa_type *outer, void *data, const pa_type *inner, int mode, const char *source,
                 const char *fn, const void *arg, size_t arg_size)
{
    int st = check(outer, data, inner, "pa_tile_dmem");
    if (st != PA_OK)
        return st;
    if (mode != PA_ITILE && mode != PA_OTILE && mode != PA_IOTILE)
        return pa__err(PA_ERR_INVAL, "pa_tile_dmem over %s: mode %d is not PA_ITILE, PA_OTILE or PA_IOTILE",
                       pa_type_name(outer), mode);
    return run(outer, data, outer, data, inner, mode, source, fn, arg, arg_size, "pa_tile_dmem");
}

int pa_tile_copy_dmem(const pa_type *dst_outer, void *dst, const pa_type *src_outer, const void *src,
                      const pa_type *inner, const char *source, const char *fn, const void *arg, size_t arg_size)
{
    int st = check(src_outer, src, inner, "pa_tile_copy_dmem");
    if (st == PA_OK)
        st = check(dst_outer, dst, inner, "pa_tile_copy_dmem");
    if (st != PA_OK)
        return st;
    if (pa_size(src_outer) != pa_size(dst_outer))
        return pa__err(PA_ERR_SIZE, "pa_tile_copy_dmem: source %s has %lld elements but destination %s has %lld",
                       pa_type_name(src_outer), (long long)pa_size(src_outer), pa_type_name(dst_outer),
                       (long long)pa_size(dst_outer));
    return run(src_outer, src, dst_outer, dst, inner, PA_IOTILE, source, fn, arg, arg_size, "pa_tile_copy_dmem");
}
