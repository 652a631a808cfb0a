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
#include "mem_internal.h"
#include "type_internal.h"

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

/*
 * The tensor's bytes: from byte_offset + lo * esz to byte_offset + (hi + 1) * esz past data.  Those must be
 * numbers and addresses (no wrap around the address space), and where data lies inside an array pa_create made
 * they must stay inside it; other memory's bounds are its producer's to keep (DLPack does not carry them).
 */
static int check_bytes(const DLTensor *t, int empty, int64_t lo, int64_t hi, int64_t esz)
{
    int64_t first, last;
    if (t->data == NULL)
        return PA_OK;
    if (empty) {   /* no elements, but the pointer data + byte_offset is still formed: it must be an address */
        if (t->byte_offset > (uint64_t)OFFSET_LIMIT || UINTPTR_MAX - (uintptr_t)t->data < t->byte_offset)
            return pa__err(PA_ERR_RANGE, "pa_dlpack_import: byte_offset %llu of the empty tensor leaves the "
                           "address space from data %p", (unsigned long long)t->byte_offset, t->data);
        return PA_OK;
    }
    if (t->byte_offset > (uint64_t)OFFSET_LIMIT || __builtin_mul_overflow(lo, esz, &first) ||
        __builtin_add_overflow(first, (int64_t)t->byte_offset, &first) || __builtin_mul_overflow(hi + 1, esz, &last) ||
        __builtin_add_overflow(last, (int64_t)t->byte_offset, &last) ||
        (first < 0 && (uintptr_t)t->data < (uintptr_t)-first) ||
        (last > 0 && UINTPTR_MAX - (uintptr_t)t->data < (uintptr_t)last))
        return pa__err(PA_ERR_RANGE, "pa_dlpack_import: byte_offset %llu with offsets %lld .. %lld of %lld-byte "
                       "elements leaves the address space from data %p", (unsigned long long)t->byte_offset,
                       (long long)lo, (long long)hi, (long long)esz, t->data);
    pa__block b, none;
    pa__mem_blocks2(t->data, NULL, &b, &none);
    uint64_t at = (uintptr_t)t->data - b.start;
    if (b.ops != NULL && b.ops->alloc_type == NULL &&
        ((first < 0 && (uint64_t)-first > at) || (last > 0 && (uint64_t)last > b.bytes - at)))
        return pa__err(PA_ERR_RANGE, "pa_dlpack_import: the tensor's bytes %lld .. %lld from data (byte_offset "
                       "%llu) leave the %zu-byte %s array made by pa_create that data points into (at byte %llu)",
                       (long long)first, (long long)last - 1, (unsigned long long)t->byte_offset, b.bytes,
                       b.ops->name, (unsigned long long)at);
    return PA_OK;
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
        int64_t reach;   /* checked before it is added: |reach| <= 2^62 and |lo|, |hi| <= 2^62 cannot overflow */
        if (__builtin_mul_overflow(n - 1, stride[k], &reach) || reach < -OFFSET_LIMIT || reach > OFFSET_LIMIT ||
            __builtin_mul_overflow(run, n, &run) ||
            (reach < 0 ? (lo += reach) < -OFFSET_LIMIT : (hi += reach) > OFFSET_LIMIT) || run > OFFSET_LIMIT)
            return pa__err(PA_ERR_RANGE, "pa_dlpack_import: axis %d (size %lld, stride %lld) takes offsets beyond "
                           "the library's 2^62", k, (long long)n, (long long)stride[k]);
    }
    if (hi - lo >= OFFSET_LIMIT)
        return pa__err(PA_ERR_RANGE, "pa_dlpack_import: the tensor spans more than 2^62 elements");
    int rc = check_bytes(t, empty, lo, hi, esz);
    if (rc != PA_OK)
        return rc;

    /* Up to PA__MAX_CHILDREN axes are the root's sub-dimensions; more are grouped, in order, into at most
     * PA__MAX_CHILDREN sub-dimensions of near-equal numbers of axes (the offsets are the same: row-major over
     * the groups' row-major axes, or the sum of the axes' fixed offsets). */
    int groups = nd > PA__MAX_CHILDREN ? (nd + PA__MAX_CHILDREN - 1) / PA__MAX_CHILDREN : 0;
    char decl[64 + PA__MAX_MODES * 120];
    size_t at = 0;
    int ok = put(decl, sizeof decl, &at, "%s %s ", mtt, elm);
    int plain = compact || empty;   /* an empty tensor's strides place nothing */
    if (nd == 0)
        ok = put(decl, sizeof decl, &at, "[1]");
    else if (!plain || groups)
        ok = nd == 1 || put(decl, sizeof decl, &at, "[");
    for (int k = 0; k < nd && ok; k++) {
        int first = groups && k * groups % nd < groups, last = groups && (k + 1) * groups % nd < groups;
        ok = !first || put(decl, sizeof decl, &at, "[");
        if (plain) {
            ok = ok && put(decl, sizeof decl, &at, "[%lld]", (long long)t->shape[k]);
        } else {
            int64_t d = stride[k] < 0 ? -(t->shape[k] - 1) * stride[k] : 0;   /* |d| <= 2^62, checked above */
            ok = ok && put(decl, sizeof decl, &at, "[%lld # step(%lld) # disp(%lld) # [%lld]]",
                           (long long)t->shape[k], (long long)stride[k], (long long)d, (long long)(hi - lo + 1));
        }
        ok = ok && (!last || put(decl, sizeof decl, &at, "]"));
    }
    if (nd > 0 && (!plain || groups))
        ok = ok && (nd == 1 || put(decl, sizeof decl, &at, "]"));
    if (!ok)
        return pa__err(PA_ERR_INVAL, "pa_dlpack_import: the tensor's declaration does not fit %zu bytes",
                       sizeof decl);
    const pa_type *made = pa_type_parse(scope, decl);
    if (made == NULL)
        return pa__err_wrap(pa__last_status(), "pa_dlpack_import(%s)", decl);
    *type = made;
    /* checked above: an address, so computed as one (an intermediate sum of pointer and offsets may not be) */
    *data = t->data == NULL ? NULL : (void *)((uintptr_t)t->data + (uintptr_t)t->byte_offset + (uintptr_t)(lo * esz));
    return PA_OK;
}
