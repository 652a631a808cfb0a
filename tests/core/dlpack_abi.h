/*
 * The sizes, offsets and values that make DLPack's ABI, gathered the same way under either definition of the
 * structures (tests/core/dlpack_abi_own.c and test_dlpack.c).
 */
#ifndef PARRAY_TEST_DLPACK_ABI_H
#define PARRAY_TEST_DLPACK_ABI_H

#include <stddef.h>

#define PA_TEST_DLPACK_ABI_N 24
#define PA_TEST_DLPACK_ABI_FILL(o)                                                                            \
    do {                                                                                                  \
        size_t v_[] = {sizeof(DLDevice), offsetof(DLDevice, device_id), sizeof(DLDataType),               \
                       offsetof(DLDataType, bits), offsetof(DLDataType, lanes), sizeof(DLTensor),         \
                       offsetof(DLTensor, device), offsetof(DLTensor, ndim), offsetof(DLTensor, dtype),   \
                       offsetof(DLTensor, shape), offsetof(DLTensor, strides),                            \
                       offsetof(DLTensor, byte_offset), sizeof(DLManagedTensor),                          \
                       offsetof(DLManagedTensor, manager_ctx), offsetof(DLManagedTensor, deleter),        \
                       kDLCPU, kDLCUDA, kDLCUDAHost, kDLCUDAManaged, kDLInt, kDLUInt, kDLFloat, kDLBfloat, \
                       kDLComplex};                                                                       \
        _Static_assert(sizeof v_ / sizeof v_[0] == PA_TEST_DLPACK_ABI_N, "24 facts");                     \
        for (size_t i_ = 0; i_ < PA_TEST_DLPACK_ABI_N; i_++)                                              \
            (o)[i_] = v_[i_];                                                                             \
    } while (0)

void pa_test_dlpack_abi_own(size_t out[PA_TEST_DLPACK_ABI_N]);

#endif
