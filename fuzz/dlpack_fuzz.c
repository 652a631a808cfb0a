/*
 * dlpack_fuzz — a libFuzzer target for DLPack import (pa_dlpack_import) and the export of what it imports.
 *
 * The input is read as a stream of choices: ndim (-2 .. 40), each axis's size (mostly small, sometimes anything
 * up to 64 bits), strides (absent, small, or anything), the data type's code, bits and lanes, the device type, a
 * byte offset (small, or anything) and where data points: into a pool of 4096 floats, into an array pa_create
 * made, or NULL.  The import must give a clear error or a type whose every offset the target can check; when the
 * tensor lies inside the pool (or the array), the target reads every element through the type (a copy to a
 * compact array) and exports the type back.  Strides and offsets at the ends of int64 must never overflow (UBSan
 * aborts on signed overflow).  See fuzz/README.md.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <parray/dlpack.h>
#include <parray/parray.h>

typedef struct stream {
    const uint8_t *p;
    size_t n;
} stream;

static uint64_t take(stream *s, int bytes)
{
    uint64_t v = 0;
    for (int i = 0; i < bytes; i++)
        v = v << 8 | (s->n ? (s->n--, *s->p++) : 0);
    return v;
}

/* Mostly a small number in [-shift, small - shift), now and then any 64-bit value. */
static int64_t number(stream *s, int64_t small, int64_t shift)
{
    uint64_t how = take(s, 1);
    if (how < 224)
        return (int64_t)(how % (uint64_t)small) - shift;
    return (int64_t)take(s, 8);
}

static float pool[4096];
static float out[4096];

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    stream s = {data, size};
    int64_t shape[40], strides[40];
    DLTensor t;
    memset(&t, 0, sizeof t);
    t.ndim = (int)(take(&s, 1) % 43) - 2;
    int nd = t.ndim > 0 ? t.ndim : 0;
    for (int k = 0; k < nd; k++)
        shape[k] = number(&s, 6, 1);   /* -1 .. 4 */
    int with_strides = take(&s, 1) & 1;
    for (int k = 0; k < nd; k++)
        strides[k] = number(&s, 40, 20);
    t.shape = shape;
    t.strides = with_strides ? strides : NULL;
    static const uint8_t codes[] = {kDLInt, kDLUInt, kDLFloat, kDLBfloat, kDLComplex, PA_DLPACK_BOOL, 9};
    uint64_t dt = take(&s, 2);
    t.dtype.code = codes[dt % 7];
    t.dtype.bits = (uint8_t)(dt >> 3 & 1 ? 8u << (dt >> 4 & 3) : dt >> 4);
    t.dtype.lanes = (uint16_t)(dt >> 7 & 1 ? 1 + (dt >> 8 & 3) : 1);
    uint64_t dev = take(&s, 1);
    t.device.device_type = (DLDeviceType)(dev < 200 ? kDLCPU : dev % 16);
    t.byte_offset = take(&s, 1) < 200 ? take(&s, 1) * 4 : take(&s, 8);
    pa_scope *scope = NULL;
    if (pa_scope_create(NULL, &scope) != PA_OK)
        abort();
    const pa_type *A = pa_type_parse(scope, "paged float [64]");
    float *a = pa_create(A);
    uint64_t where = take(&s, 1) % 4;
    float *base = where == 0 ? pool : where == 1 ? a : NULL;
    size_t cap = where == 0 ? 4096 : 64;
    t.data = base ? base + take(&s, 1) % (where == 0 ? 2048 : 64) : NULL;
    const pa_type *ty = NULL;
    void *p = NULL;
    int rc = pa_dlpack_import(scope, &t, &ty, &p);
    int64_t lo, hi, n;
    /* Host memory only: a tensor that says it is on a GPU (here, in the pool) gives a dmem type, which the copy
     * rightly refuses for a host pointer. */
    if (rc == PA_OK && t.device.device_type == kDLCPU && (n = pa_size(ty)) >= 0 && pa_extent(ty, &lo, &hi) == PA_OK &&
        base && p && n <= 4096 &&
        pa_elm_size(ty) == sizeof(float) && lo >= 0 && (char *)p >= (char *)base &&
        (char *)p + (hi + 1) * 4 <= (char *)(base + cap)) {
        /* Every element through the imported type, into a compact array; then back out as a tensor. */
        char decl[48];
        snprintf(decl, sizeof decl, "paged float [%lld]", (long long)(n > 0 ? n : 1));
        const pa_type *flat = pa_type_parse(scope, decl);
        if (n > 0 && flat && pa_copy(flat, out, ty, p) != PA_OK)
            abort();
        DLManagedTensor *m = NULL;
        if (pa_dlpack_export(ty, p, &m) == PA_OK)
            m->deleter(m);
    } else if (rc != PA_OK && (ty != NULL || p != NULL)) {
        abort();   /* outputs untouched on error */
    }
    pa_destroy(A, a);
    pa_scope_destroy(scope);
    return 0;
}
