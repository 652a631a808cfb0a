/*
 * plcuda_fuzz — a libFuzzer target for the PL/CUDA front end: the function signature and the #plcuda_*
 * directive parser (pa_kernel_create), and the code generator (pa_kernel_source) on what parses.
 *
 * The input is a signature and a source separated by the byte 0x1e (no separator: the whole input is the source,
 * under the signature "int (int, float[])").  No GPU is needed: creating a kernel parses and generates its
 * CUDA source without compiling it.  Every malformed signature or directive must be a clear PA_ERR_PARSE (or
 * another status) naming where, never a crash or a leak.  See fuzz/README.md.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <parray/kernel.h>
#include <parray/parray.h>

#include "fuzz_files.h"   /* fuzz_split */

/* Callbacks that directives may name (num_threads f, shmem_unitsz g, ...); never called here. */
static int64_t fn(const pa_arg *args, int nargs, void *ret, void *ctx)
{
    (void)args;
    (void)nargs;
    (void)ret;
    (void)ctx;
    return 1;
}
static const pa_kernel_func funcs[] = {{"f", fn, NULL}, {"threads_fn", fn, NULL}, {"size_fn", fn, NULL}};

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const uint8_t *part[2];
    size_t len[2];
    int n = fuzz_split(data, size, 0x1e, 2, part, len);
    char *sig = malloc(len[0] + 1), *src = malloc((n == 2 ? len[1] : 0) + 1);
    if (!sig || !src)
        abort();
    memcpy(sig, part[0], len[0]);
    sig[len[0]] = '\0';
    if (n == 2)
        memcpy(src, part[1], len[1]);
    src[n == 2 ? len[1] : 0] = '\0';
    pa_kernel *k = NULL;
    int rc = n == 2 ? pa_kernel_create("fuzzfn", sig, src, funcs, 3, &k)
                    : pa_kernel_create("fuzzfn", "int (int, float[])", sig, funcs, 3, &k);
    if (rc == PA_OK) {
        const char *cu = pa_kernel_source(k);
        if (cu == NULL || pa_kernel_nargs(k) < 0 || pa_kernel_name(k) == NULL)
            abort();
        pa_kernel_destroy(k);
    } else if (k != NULL || pa_last_error()[0] == '\0') {
        abort();
    }
    free(sig);
    free(src);
    return 0;
}
