/*
 * parray — DLPack import: a DLTensor as an anonymous type and a pointer (include/parray/dlpack.h).
 *
 * A compact row-major tensor, and an empty one (a zero in its shape), is declared "[n0][n1]...".  Any other gets
 * one fixed dimension per axis, [n # step(s) # disp(d) # [M]]: the reference to the plain dimension [M] fixes
 * each axis's offsets at i * s + d (docs/types.md, references), and the root adds them.  d moves a reversed axis (s < 0) so that
 * every offset is at least 0, and the pointer moves down by the same amount.
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "dlpack_map.h"
#include "internal.h"

#define OFFSET_LIMIT ((int64_t)1 << 62)

/* Appends to buf at *at; \return 0 when it did not fit. */
static int put(char *buf, size_t len, size_t *at, const char *fmt, ...) __attribute__((format(printf, 4, 5)));
static int put(char *buf, size_t len, size_t *at, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(buf + *at, len - *at, fmt, ap);
    va_end(ap);
    if (n < 0 || (size_t)n >= len - *at)
        return 0;
    *at += (size_t)n;
    return 1;
}

int pa_dlpack_import(pa_scope *scope, const DLTensor *tensor, const pa_type **type, void **data)
{
    if (scope == NULL || tensor == NULL || type == NULL || data == NULL)
        return pa__err(PA_ERR_INVAL, "pa_dlpack_import: NULL %s", scope == NULL ? "scope" : tensor == NULL ?
                       "tensor" : "output");
    const DLTensor *t = tensor;
    int nd = t->ndim;
    if (nd < 0 || nd > PA__MAX_MODES)
        return pa__err(PA_ERR_INVAL, "pa_dlpack_import: ndim %d is outside 0..%d", nd, PA__MAX_MODES);
    if (nd > 0 && t->shape == NULL)
        return pa__err(PA_ERR_INVAL, "pa_dlpack_import: the tensor's shape is NULL");
    int empty = 0;   /* a zero in the shape: no elements, so data may be NULL (as PyTorch exports it) */
    for (int k = 0; k < nd; k++) {
        if (t->shape[k] < 0)
            return pa__err(PA_ERR_RANGE, "pa_dlpack_import: axis %d has size %lld", k, (long long)t->shape[k]);
        empty |= t->shape[k] == 0;
    }
    if (t->data == NULL && !empty)
        return pa__err(PA_ERR_INVAL, "pa_dlpack_import: the tensor's data is NULL");
    const char *mtt = pa__dl_mtt_of(t->device.device_type);
    if (mtt == NULL)
        return pa__err(PA_ERR_MTT, "pa_dlpack_import: device type %d has no memory type in parray (kDLCPU, "
                       "kDLCUDA, kDLCUDAHost and kDLCUDAManaged have)", (int)t->device.device_type);
    const char *elm = pa__dl_elm_of(t->dtype);
    if (elm == NULL)
        return pa__err(PA_ERR_ELM, "pa_dlpack_import: data type code %u, %u bits, %u lanes has no element type in "
                       "parray", t->dtype.code, t->dtype.bits, t->dtype.lanes);
    int64_t esz = (int64_t)t->dtype.bits * t->dtype.lanes / 8;

    /* Strides (compact when absent), the lowest and highest offset, and whether the tensor is compact. */
    int64_t stride[PA__MAX_MODES], lo = 0, hi = 0, run = 1;
    int compact = 1;
    for (int k = nd - 1; k >= 0 && !empty; k--) {
        int64_t n = t->shape[k];
        stride[k] = t->strides ? t->strides[k] : run;
        if (n > 1 && stride[k] != run)
            compact = 0;
        int64_t reach;
        if (__builtin_mul_overflow(n - 1, stride[k], &reach) || __builtin_mul_overflow(run, n, &run) ||
            (reach < 0 ? (lo += reach) < -OFFSET_LIMIT : (hi += reach) > OFFSET_LIMIT) || run > OFFSET_LIMIT)
            return pa__err(PA_ERR_RANGE, "pa_dlpack_import: axis %d (size %lld, stride %lld) takes offsets beyond "
                           "the library's 2^62", k, (long long)n, (long long)stride[k]);
    }
    if (hi - lo >= OFFSET_LIMIT)
        return pa__err(PA_ERR_RANGE, "pa_dlpack_import: the tensor spans more than 2^62 elements");

    char decl[64 + PA__MAX_MODES * 112];
    size_t at = 0;
    int ok = put(decl, sizeof decl, &at, "%s %s ", mtt, elm);
    if (nd == 0) {
        ok = put(decl, sizeof decl, &at, "[1]");
    } else if (compact || empty) {   /* an empty tensor's strides place nothing */
        for (int k = 0; k < nd && ok; k++)
            ok = put(decl, sizeof decl, &at, "[%lld]", (long long)t->shape[k]);
    } else {
        ok = nd == 1 || put(decl, sizeof decl, &at, "[");
        for (int k = 0; k < nd && ok; k++) {
            int64_t d = stride[k] < 0 ? -(t->shape[k] - 1) * stride[k] : 0;
            ok = put(decl, sizeof decl, &at, "[%lld # step(%lld) # disp(%lld) # [%lld]]", (long long)t->shape[k],
                     (long long)stride[k], (long long)d, (long long)(hi - lo + 1));
        }
        ok = ok && (nd == 1 || put(decl, sizeof decl, &at, "]"));
    }
    if (!ok)
        return pa__err(PA_ERR_INVAL, "pa_dlpack_import: the tensor's declaration does not fit %zu bytes",
                       sizeof decl);
    const pa_type *made = pa_type_parse(scope, decl);
    if (made == NULL)
        return pa__err_wrap(pa__last_status(), "pa_dlpack_import(%s)", decl);
    *type = made;
    *data = t->data == NULL ? NULL : (char *)t->data + t->byte_offset + lo * esz;
    return PA_OK;
}
