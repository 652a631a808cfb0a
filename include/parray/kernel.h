/*
 * parray — PL/CUDA functions: GPU kernels registered from source at run time, compiled by NVRTC and called
 * like C functions (PG-Strom's PL/CUDA, docs/kernels.md).
 *
 * A function has a name, a signature and a source made of blocks:
 *
 *     #plcuda_decl      declarations (complete __device__ functions) placed before the kernels
 *     #plcuda_prep      body of the preparation kernel, run first
 *     #plcuda_begin     body of the main kernel (required)
 *     #plcuda_post      body of the post-process kernel, run last
 *     #plcuda_end       closes the current block (a block also ends where the next one begins)
 *
 * Blocks come in that order, each at most once.  Inside prep, begin and post, the directives
 * #plcuda_num_threads, #plcuda_shmem_unitsz, #plcuda_shmem_blocksz and #plcuda_kernel_blocksz take a constant
 * or the name of a callback (pa_kernel_func) and set that kernel's thread count (default 1), dynamic shared
 * memory per thread and per block (default 0) and threads per block (default: chosen by the occupancy API);
 * #plcuda_kernel_maxthreads asks for the largest block the kernel can run.  Anywhere: #plcuda_results_bufsz and
 * #plcuda_working_bufsz (constant or callback: bytes of the results and working buffers, default 0),
 * #plcuda_sanity_check <callback> (run before the launch; 0 rejects the arguments), #plcuda_cpu_fallback
 * <callback> (run instead when the kernel asks for a recheck on the CPU) and #plcuda_include "<name>" (a device
 * library: "math" — arithmetic with overflow checks, "matrix" — matrix access, "tile" — grid-stride loops, block
 * reductions and shared-memory tiles, "device" — <parray/device.h>, "time" — PostgreSQL dates and timestamps,
 * "text" — string compare and LIKE, "dynpara" — kernels that launch kernels (the function is then linked with
 * CUDA's device runtime), "numeric" — exact 38-digit decimals, "money" — amounts in cents; PG-Strom's
 * "cuda_mathlib.h", "cuda_matrix.h", "cuda_timelib.h", "cuda_textlib.h", "cuda_dynpara.h", "cuda_numeric.h" and
 * "cuda_money.h" are accepted as those).
 *
 * The signature is C-like: "ret (arg, arg, ...)".  Scalars: char, signed char, unsigned char, short,
 * unsigned short, int, unsigned (int), long, unsigned long, long long, unsigned long long, int8_t .. uint64_t,
 * float, double, bool, numeric (a numeric(p, s) element, 16 bytes) and money (8 bytes), whose libraries a
 * signature using them includes.  Arguments may also be arrays "T[]" (moved to the GPU; "inout T[]" are also copied back)
 * and matrices "matrix T" (T: short, int, long, float, double; see matrix.h).  The return type is void, a
 * scalar, "matrix T" or "bytes" (the last two are variable-length results built in the results buffer).
 *
 * In the kernels, arguments are arg1, arg2, ... (an array is a T * with its element count in argN_len; a
 * matrix a pa_matrix *), retval points at the return value (for variable-length results at a pa_varlena whose
 * value must point into the results buffer, or stay NULL for a NULL result), and results, workbuf and kcxt
 * (for pa_raise(kcxt, code) and pa_recheck_on_cpu(kcxt)) are in scope.
 *
 * Errors are reported as described in error.h.  Compilation and calls need the CUDA backend; in a build without
 * it, registration and pa_kernel_source still work and the rest returns PA_ERR_NODEV.
 */
#ifndef PARRAY_KERNEL_H
#define PARRAY_KERNEL_H

#include <stddef.h>
#include <stdint.h>

#include "error.h"
#include "matrix.h"
#include "type.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct pa_kernel pa_kernel;

/**
 * One argument of a call.  For a scalar, ptr points at a value of exactly the declared C type; for an array,
 * at its first element, with its parray type (the bytes moved are pa_alloc_bytes(type)) or, when type is NULL,
 * with count elements; for a matrix, at a pa_matrix.  Device (dmem) arrays are passed to the kernel as they
 * are; host arrays are copied.
 */
typedef struct pa_arg {
    const void *ptr;
    const pa_type *type;
    int64_t count;
} pa_arg;

/** A scalar or matrix argument. */
#define PA_ARG(p) ((pa_arg){(p), NULL, 0})
/** An array with its parray type. */
#define PA_ARG_ARRAY(p, t) ((pa_arg){(p), (t), 0})
/** An array of n elements. */
#define PA_ARG_N(p, n) ((pa_arg){(p), NULL, (n)})

/** A variable-length "bytes" result: malloc'd data (free it), NULL for a NULL result. */
typedef struct pa_bytes {
    void *data;
    size_t size;
} pa_bytes;

/**
 * A callback named by a directive.  It gets the call's arguments.  As the value of num_threads, shmem_unitsz,
 * shmem_blocksz, kernel_blocksz, results_bufsz or working_bufsz it returns the value (negative: the call fails
 * with PA_ERR_RANGE) and ret is NULL.  As sanity_check it returns nonzero to accept the arguments.  As
 * cpu_fallback it computes the result into ret (as pa_kernel_call's ret) and returns PA_OK or an error status.
 */
typedef int64_t (*pa_kernel_fn)(const pa_arg *args, int nargs, void *ret, void *ctx);

/** A named callback for the directives of one function. */
typedef struct pa_kernel_func {
    const char *name;
    pa_kernel_fn fn;
    void *ctx;
} pa_kernel_func;

/**
 * Registers a PL/CUDA function: parses the signature and the source's blocks and directives and generates the
 * kernels' CUDA source (not compiled yet: see pa_kernel_compile).  Directives name callbacks from funcs.
 * \return PA_OK and *out; PA_ERR_PARSE (signature or source; the message names the line and the directive),
 *         PA_ERR_NAME (a directive names a callback not in funcs), PA_ERR_INVAL (NULL or bad name), PA_ERR_NOMEM.
 */
PA_API int pa_kernel_create(const char *name, const char *signature, const char *source, const pa_kernel_func *funcs,
                            int nfuncs, pa_kernel **out);

/** Frees a function.  NULL is ignored.  It must not be in use by another thread. */
PA_API void pa_kernel_destroy(pa_kernel *k);

/**
 * The generated CUDA source of the kernels (PG-Strom's plcuda_function_source); the user's code sits between
 * "---- code by pl/cuda function ----" comments.  Valid until pa_kernel_destroy.
 */
PA_API const char *pa_kernel_source(const pa_kernel *k);

/**
 * Compiles the function with NVRTC for sm_<arch> (0: the current GPU's architecture), through the memory and
 * disk caches (kernels.md).  Calls compile on first use; this call reports errors early and works without a
 * GPU when arch is given.
 * \return PA_OK; PA_ERR_COMPILE (NVRTC's log, with lines numbered as in the user's source); PA_ERR_NODEV (no
 *         CUDA backend, no NVRTC, or arch 0 without a GPU); PA_ERR_INVAL; PA_ERR_NOMEM.
 */
PA_API int pa_kernel_compile(pa_kernel *k, int arch);

/**
 * Calls the function on the current GPU: runs the sanity check, sizes the buffers and kernels from the
 * directives, moves the arguments to the GPU, runs prep, main and post in order, and brings back the result.
 * ret points at storage of the return type for a scalar, at a pa_matrix * for "matrix T" (a malloc'd matrix,
 * NULL for a NULL result; free with pa_matrix_destroy), at a pa_bytes for "bytes"; it may be NULL for void.
 * When the kernel asks for a recheck on the CPU, the results are discarded and the cpu_fallback callback runs.
 * Safe to call from several threads at once.
 * \return PA_OK; PA_ERR_KERNEL (the kernel raised an error: the code, kernel and line are in the message; or a
 *         recheck without a fallback; or a result outside the results buffer); PA_ERR_PARAM (wrong argument
 *         count, or an array whose element size or count does not fit); PA_ERR_INVAL (the sanity check
 *         rejected the arguments); PA_ERR_RANGE (a callback returned a negative size, or a size the GPU cannot
 *         launch); the errors of pa_kernel_compile; PA_ERR_SYS (the driver); the fallback's own status.
 */
PA_API int pa_kernel_call(pa_kernel *k, const pa_arg *args, int nargs, void *ret);

/**
 * Says how a call with these arguments would run, one line per kernel: threads, blocks, threads per block and
 * why (directive, maxthreads, occupancy API, or "auto" when no GPU is present), shared memory, and the buffer
 * sizes.  The callbacks are called; nothing is launched.  PA_KERNEL_INFO=1 prints this to stderr for every call.
 * \return the length of the whole text (as snprintf), or a negative status (as pa_kernel_call's sizing errors).
 */
PA_API int pa_kernel_explain(pa_kernel *k, const pa_arg *args, int nargs, char *buf, size_t len);

/** The function's name and its number of arguments. */
PA_API const char *pa_kernel_name(const pa_kernel *k);
PA_API int pa_kernel_nargs(const pa_kernel *k);

#ifdef __cplusplus
}
#endif
#endif
