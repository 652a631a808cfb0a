/*
 * parray — DLPack: arrays to and from the tensor interchange format of NumPy, PyTorch, CuPy and JAX.
 *
 * Export: an array of a type whose offsets are strided-affine over its dimensions (contiguous, transposed,
 * windowed, stepped or reversed, in paged, numa, mmap, vmem, pinned or dmem memory) becomes a DLManagedTensor
 * that a framework takes over (numpy.from_dlpack, torch.from_dlpack, cupy.from_dlpack through a capsule named
 * "dltensor").  Import: a DLTensor (shape and strides in elements) becomes an anonymous type of its scope and a
 * pointer, to use with pa_copy, pa_for, pa_cuda_map and the rest.  docs/dlpack.md has a round trip.
 *
 * Memory is never copied and never changes hands: an exported tensor borrows the array (keep the array alive
 * until the consumer calls the tensor's deleter, which frees only the tensor's own description), and an imported
 * array borrows the tensor's memory (keep the DLManagedTensor alive while the type and pointer are used, then
 * call its deleter yourself).
 *
 * The DLPack structures come from <dlpack/dlpack.h> (Debian's libdlpack-dev) where the compiler finds it;
 * otherwise this header defines the same ABI (DLPack 0.6 to 0.8: DLDevice, DLDataType, DLTensor,
 * DLManagedTensor) under the same include guard, so that a later #include <dlpack/dlpack.h> is a no-op.
 */
#ifndef PARRAY_DLPACK_H
#define PARRAY_DLPACK_H

#include <stdint.h>

#include "error.h"
#include "type.h"

#if !defined(PA_DLPACK_OWN_ABI) && defined(__has_include)
#if __has_include(<dlpack/dlpack.h>)
#include <dlpack/dlpack.h>
#endif
#endif

#ifndef DLPACK_DLPACK_H_
#define DLPACK_DLPACK_H_
/* DLPack's ABI, written from the specification: the fields and values below are what every producer and
 * consumer agrees on. */
#ifdef __cplusplus
extern "C" {
#endif
typedef enum {
    kDLCPU = 1,          /* host memory */
    kDLCUDA = 2,         /* CUDA device memory */
    kDLCUDAHost = 3,     /* CUDA pinned host memory (cudaMallocHost) */
    kDLCUDAManaged = 13  /* CUDA managed memory */
} DLDeviceType;
typedef struct {
    DLDeviceType device_type;
    int device_id;
} DLDevice;
typedef enum {
    kDLInt = 0U,
    kDLUInt = 1U,
    kDLFloat = 2U,
    kDLOpaqueHandle = 3U,
    kDLBfloat = 4U,
    kDLComplex = 5U
} DLDataTypeCode;
typedef struct {
    uint8_t code;    /* a DLDataTypeCode */
    uint8_t bits;    /* bits of one lane */
    uint16_t lanes;  /* 1, or the width of a vector type */
} DLDataType;
typedef struct {
    void *data;           /* the allocation (CUDA: a device pointer) */
    DLDevice device;
    int ndim;
    DLDataType dtype;
    int64_t *shape;       /* ndim sizes */
    int64_t *strides;     /* ndim strides in elements, or NULL for a compact row-major tensor */
    uint64_t byte_offset; /* bytes from data to element (0, ..., 0) */
} DLTensor;
typedef struct DLManagedTensor {
    DLTensor dl_tensor;
    void *manager_ctx;
    void (*deleter)(struct DLManagedTensor *self);
} DLManagedTensor;
#ifdef __cplusplus
}
#endif
#endif /* DLPACK_DLPACK_H_ */

#ifdef __cplusplus
extern "C" {
#endif

/** DLPack's code of a boolean element (DLPack 0.8, kDLBool), which the 0.6 header does not name. */
#define PA_DLPACK_BOOL 6

/**
 * Describes the array at data, of the given type, as a DLManagedTensor (*out; its deleter frees the description
 * only, never the array).  The tensor's shape is the type's dimensions (pa_ndim of them, each pa_type_child's
 * size; one dimension for a leaf type); where those are not strided-affine but the leaf dimensions are (a
 * dimension that is itself a transposed pair), the leaves.  Strides are in elements and may be zero or
 * negative; the offset of element (0, ..., 0) is the tensor's byte_offset.  The device is kDLCPU for paged,
 * numa, mmap and vmem, kDLCUDAHost for pinned, and kDLCUDA with the GPU that holds data for dmem.  Element
 * types: the integer types (char, short, int, long, the fixed-width ones, size_t), half, bfloat16 (kDLBfloat),
 * float and double (lanes 1), float2/float4/double2/int2/int4 (lanes 2 or 4) and bool (PA_DLPACK_BOOL).  An empty type (no
 * elements) exports as a tensor with a zero in its shape, compact strides and byte_offset 0.
 * \return PA_OK, or (nothing made) PA_ERR_INVAL (NULL argument, stale type), PA_ERR_PARAM (unbound type),
 *         PA_ERR_MTT (no memory type, one DLPack has no device for such as mpimem or gamem, or data is of
 *         another memory type than the type's: a host pointer for dmem, an array pa_create made for another mtt),
 *         PA_ERR_ELM (an element type with no DLPack data type: long double, bytesN, a user type),
 *         PA_ERR_UNSUPPORTED (the layout is not strided-affine over the dimensions or the leaves: a wrap, a
 *         func, a gather; the message shows the layout), PA_ERR_NODEV (dmem without a usable GPU) or
 *         PA_ERR_NOMEM.
 */
PA_API int pa_dlpack_export(const pa_type *type, void *data, DLManagedTensor **out);

/**
 * Makes an anonymous type of scope with the tensor's shape, strides (NULL: compact row-major), element type and
 * memory (*type), and the pointer its offsets are relative to (*data): offsets run from 0, so that the
 * element of the lowest address, which a negative stride may put before element (0, ..., 0), is at offset 0.
 * kDLCPU gives paged, kDLCUDAHost pinned, kDLCUDA and kDLCUDAManaged dmem (the GPU is the tensor's
 * device_id: pa_cuda_set_device to it before launching kernels on it).  Element types: Int and UInt of 8 to 64
 * bits, Float of 16, 32 and 64 bits (half, float, double), Bfloat of 16 bits (bfloat16), Float 32 and 64 and Int 32 in 2 or 4 lanes (float2,
 * float4, double2, int2, int4), Complex 64 and 128 (as float2 and double2: real, imaginary) and bool.
 * A tensor with a zero in its shape gives an empty type of the same shape (docs/types.md: no elements, copies
 * move nothing) and its data pointer, which may be NULL (PyTorch exports empty tensors so).  Nothing is copied: the
 * memory stays the tensor's (see the top of this header).  The type's declaration is the strided form
 * [n # step(s) # disp(d) # [M]] per dimension (pa_type_format shows it).  Up to 10 axes are the type's
 * dimensions; 11 to 32 axes (past the manual's 10 sub-dimensions per dimension) are grouped, in order, into
 * 2 to 4 dimensions of 5 to 10 axes each, whose leaves are the axes (the offsets are the tensor's).  The bytes the
 * tensor spans from data + byte_offset must be addresses (no wrap around the address space), and where data
 * points into an array pa_create made, they must lie inside it.
 * \return PA_OK, or (*type and *data untouched) PA_ERR_INVAL (NULL argument, ndim < 0 or above 32, NULL shape,
 *         NULL data in a tensor with elements), PA_ERR_MTT (another device type),
 *         PA_ERR_ELM (another data type, naming code, bits and lanes), PA_ERR_RANGE (a negative size, offsets
 *         beyond the library's ±2^62, a byte_offset above 2^62 or bytes that leave the address space or the
 *         pa_create array data points into) or PA_ERR_NOMEM.
 */
PA_API int pa_dlpack_import(pa_scope *scope, const DLTensor *tensor, const pa_type **type, void **data);

#ifdef __cplusplus
}
#endif
#endif
