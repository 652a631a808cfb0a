/*
 * parray — for over a dmem data type (the manual's listing 21): an element function given as CUDA source,
 * compiled by NVRTC into a kernel that visits every element of the array through the type's offsets.
 *
 * The generated kernel has the type's layout baked in as constants (each mode's size and stride), so the
 * compiler turns the index arithmetic into multiplications and shifts, and a contiguous type costs nothing
 * over a hand-written kernel.  Each (layout, element type, function source, argument size) is its own
 * kernel; the run-time compiler caches it in memory and on disk, so only the first map of a new layout pays
 * for a compile.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cuda_backend.h"
#include "rtc.h"

/* The C++ type the kernel gives the elements: the declared name where CUDA knows it, else a struct of bytes. */
static void elm_decl(const pa_type *t, char *buf, size_t len)
{
    const char *e = pa__elm_cuda_name(t);
    size_t n = pa_elm_size(t), a = n % 16 == 0 ? 16 : n % 8 == 0 ? 8 : n % 4 == 0 ? 4 : n % 2 == 0 ? 2 : 1;
    if (e)
        snprintf(buf, len, "typedef %s pa_elm_t;", e);
    else
        snprintf(buf, len, "struct __align__(%zu) pa_elm_t { unsigned char b[%zu]; };", a, n);
}

/* The offset of k through the layout, as C++ statements over the constants, in index type idx. */
static void offset_code(const pa__layout *l, const char *idx, char *buf, size_t len)
{
    const char *sfx = strcmp(idx, "int") == 0 ? "" : "LL";
    size_t at = (size_t)snprintf(buf, len, "%s q = k, off = %lld%s;", idx, (long long)l->base, sfx);
    for (int m = l->nmodes - 1; m >= 0 && at < len; m--) {
        long long size = l->modes[m].size, stride = l->modes[m].stride;
        if (m == 0)
            at += (size_t)snprintf(buf + at, len - at, " off += q * %lld%s;", stride, sfx);
        else
            at += (size_t)snprintf(buf + at, len - at, " off += (q %% %lld%s) * %lld%s; q /= %lld%s;", size, sfx,
                                   stride, sfx, size, sfx);
    }
}

/* 32-bit index arithmetic when every index and offset fits (cheaper divisions by the mode sizes). */
static const char *index_type(const pa__layout *l)
{
    return l->size <= INT32_MAX && l->max_off <= INT32_MAX && l->min_off >= -(int64_t)INT32_MAX ? "int"
                                                                                               : "long long";
}

static const char kernel_fmt[] =
    "%s\n"
    "#line 1 \"%s\"\n"
    "%s\n"
    "#line 1 \"parray map kernel\"\n"
    "struct pa_map_arg { unsigned long long w[%zu]; };\n"
    "extern \"C\" __global__ void __launch_bounds__(256) pa_map_kernel(char *base, long long n, pa_map_arg arg)\n"
    "{\n"
    "    %s k = (%s)blockIdx.x * 256 + (%s)threadIdx.x;\n"
    "    if (k < n) {\n"
    "        %s\n"
    "        %s(reinterpret_cast<pa_elm_t *>(base) + off, k, (const void *)&arg);\n"
    "    }\n"
    "}\n";

char *pa_cuda__map_source(const pa_type *t, const pa__layout *l, const char *source, const char *fn, size_t words)
{
    char elm[128], off[PA__MAX_MODES * 96 + 64];
    const char *idx = index_type(l);
    elm_decl(t, elm, sizeof elm);
    offset_code(l, idx, off, sizeof off);
    size_t len = sizeof kernel_fmt + strlen(elm) + strlen(source) + strlen(off) + 2 * strlen(fn) + 96;
    char *src = malloc(len);
    if (src == NULL) {
        pa__err(PA_ERR_NOMEM, "pa_cuda_map(%s): %zu bytes of kernel source", pa_type_name(t), len);
        return NULL;
    }
    snprintf(src, len, kernel_fmt, elm, fn, source, words, idx, idx, idx, off, fn);
    return src;
}

/* The kernel of one map: its source made and compiled (or found in the caches). */
static int map_kernel(const pa_type *t, const pa__layout *l, const char *source, const char *fn, size_t words,
                      pa_cuda__rtc_kernel **out)
{
    char *src = pa_cuda__map_source(t, l, source, fn, words);
    if (src == NULL)
        return PA_ERR_NOMEM;
    char label[96];
    snprintf(label, sizeof label, "pa_cuda_map(%s, %s)", pa_type_name(t), fn);
    int st = pa_cuda__rtc_get_kernel(label, src, NULL, 0, "pa_map_kernel", out);
    free(src);
    return st;
}

static int map_launch(const pa_type *data, void *ptr, const char *source, const char *fn, const void *arg,
                      size_t arg_size, void *stream)
{
    if (data == NULL || ptr == NULL || source == NULL || fn == NULL || (arg == NULL && arg_size > 0))
        return pa__err(PA_ERR_INVAL, "pa_cuda_map: NULL %s", !data ? "type" : !ptr ? "array" : !source ? "source"
                                                           : !fn ? "function name" : "argument");
    if (strcmp(pa_mtt(data), "dmem") != 0)
        return pa__err(PA_ERR_MTT, "pa_cuda_map(%s): the type's memory is %s; pa_cuda_map runs over dmem arrays "
                       "(pa_map runs over host memory)", pa_type_name(data), pa_mtt(data));
    if (pa_elm_size(data) == 0)
        return pa__err(PA_ERR_ELM, "pa_cuda_map(%s): the type has no element type", pa_type_name(data));
    if (arg_size > 2048)
        return pa__err(PA_ERR_RANGE, "pa_cuda_map(%s): an argument of %zu bytes; kernel parameters hold at most "
                       "2048 here", pa_type_name(data), arg_size);
    const pa__layout *l = pa__type_layout(data);
    if (l == NULL)
        return pa__err_wrap(PA_ERR_UNSUPPORTED, "pa_cuda_map(%s)", pa_type_name(data));
    if (!l->affine)
        return pa__err(PA_ERR_UNSUPPORTED, "pa_cuda_map(%s): the layout needs offset tables (func or a wrap); "
                       "maps on the GPU take affine layouts", pa_type_name(data));
    size_t words = arg_size == 0 ? 1 : (arg_size + 7) / 8;
    pa_cuda__rtc_kernel *k;
    int st = map_kernel(data, l, source, fn, words, &k);
    if (st != PA_OK)
        return st;
    unsigned long long a[256];
    memset(a, 0, words * 8);
    if (arg_size)
        memcpy(a, arg, arg_size);
    long long n = l->size;
    int64_t blocks = (n + 255) / 256;   /* one thread per element */
    if (blocks > INT32_MAX)
        return pa__err(PA_ERR_RANGE, "pa_cuda_map(%s): %lld elements, more than one grid of blocks of 256 holds",
                       pa_type_name(data), n);
    dim3 grid = {(unsigned)blocks, 1, 1}, block = {256, 1, 1};
    void *params[] = {&ptr, &n, a};
    return n == 0 ? PA_OK : pa_cuda__rtc_launch(k, grid, block, 0, (cudaStream_t)stream, params);
}

/* The NVTX range (the backend's trace hooks, trace_nvtx.c) is named with the element function's name. */
int pa_cuda_map_async(const pa_type *data, void *ptr, const char *source, const char *fn, const void *arg,
                      size_t arg_size, void *stream)
{
    pa__trace_push(PA__TRACE_CUDA_MAP, fn ? fn : "(NULL)");
    int st = map_launch(data, ptr, source, fn, arg, arg_size, stream);
    pa__trace_pop();
    return st;
}

int pa_cuda_map(const pa_type *data, void *ptr, const char *source, const char *fn, const void *arg,
                size_t arg_size)
{
    pa__trace_push(PA__TRACE_CUDA_MAP, fn ? fn : "(NULL)");
    int st = map_launch(data, ptr, source, fn, arg, arg_size, NULL);
    if (st == PA_OK) {
        cudaError_t e = cudaStreamSynchronize(NULL);
        st = e == cudaSuccess ? PA_OK : pa_cuda__fail(e, "pa_cuda_map(%s, %s): the kernel", pa_type_name(data), fn);
    }
    pa__trace_pop();
    return st;
}
