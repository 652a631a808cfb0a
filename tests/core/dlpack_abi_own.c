/*
 * The DLPack ABI as include/parray/dlpack.h defines it itself (PA_DLPACK_OWN_ABI), measured for the suite
 * core_dlpack, which compares it with <dlpack/dlpack.h> where that header is installed.
 */
#define PA_DLPACK_OWN_ABI 1
#include <stddef.h>

#include "parray/dlpack.h"
#include "dlpack_abi.h"

void pa_test_dlpack_abi_own(size_t out[PA_TEST_DLPACK_ABI_N])
{
    PA_TEST_DLPACK_ABI_FILL(out);
}
