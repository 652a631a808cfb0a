/*
 * parray — run-time compiled kernels inside the CUDA backend: CUDA C++ source compiled by NVRTC to a cubin
 * (cached in memory and on disk), loaded on the current device through the driver API, and launched.
 *
 * Both NVRTC (libnvrtc) and the driver (libcuda) are loaded lazily with dlopen on first use, so the library
 * loads on machines that have neither; the calls below then fail with PA_ERR_NODEV and a message that names
 * the library that could not be loaded.  Compilation needs NVRTC only, not a GPU: pa_cuda__rtc_compile works
 * on a machine without a driver when arch is given.
 *
 * Users of this interface: the dmem map (map_cuda.c) and the PL/CUDA functions (kernel.h).
 */
#ifndef PARRAY_CUDA_RTC_H
#define PARRAY_CUDA_RTC_H

#include <stddef.h>

#include <cuda_runtime_api.h>

#include "parray/type.h"

/** A compiled image: a cubin for one architecture.  Owned by the cache; valid until the process exits. */
typedef struct pa_cuda__image pa_cuda__image;

/** A kernel loaded on one device (a CUfunction behind it).  Owned by the cache; valid until exit. */
typedef struct pa_cuda__rtc_kernel pa_cuda__rtc_kernel;

/**
 * Compiles source with NVRTC for sm_<arch> (arch 0: the current device's compute capability), with the given
 * extra options (may be NULL when nopts is 0).  Identical requests (a hash of source, options, architecture
 * and NVRTC version) are answered from the memory cache, then from the disk cache, before compiling.
 * \return PA_OK and *out; PA_ERR_COMPILE with NVRTC's log in the message (name labels it); PA_ERR_NODEV when
 *         NVRTC cannot be loaded (or arch 0 and no GPU); PA_ERR_NOMEM.
 */
int pa_cuda__rtc_compile(const char *name, const char *source, const char *const *opts, int nopts, int arch,
                         const pa_cuda__image **out);

/** The cubin bytes of an image. */
const void *pa_cuda__image_data(const pa_cuda__image *img, size_t *size);

/**
 * Compiles (as above, arch 0) and loads the kernel called entry (an extern "C" __global__ function of source)
 * on the current device; later calls with the same source, options and entry on the same device return the
 * same kernel at the cost of a hash and a lookup.  (Named _get_kernel: C gives typedef and function names one
 * name space, so it cannot share the name of the type pa_cuda__rtc_kernel.)
 * \return PA_OK and *out; the errors of pa_cuda__rtc_compile; PA_ERR_SYS (the driver refused the module or
 *         has no such entry, with the driver's words).
 */
int pa_cuda__rtc_get_kernel(const char *name, const char *source, const char *const *opts, int nopts,
                            const char *entry, pa_cuda__rtc_kernel **out);

/** The CUfunction of a loaded kernel (for pa_cuda_compile, whose callers launch it with pa_cuda_for). */
void *pa_cuda__rtc_function(const pa_cuda__rtc_kernel *k);

/**
 * Launches a loaded kernel (cuLaunchKernel) with the kernel's parameter pointers, asynchronously on stream.
 * \return PA_OK or PA_ERR_SYS / PA_ERR_NODEV with the driver's words.
 */
int pa_cuda__rtc_launch(const pa_cuda__rtc_kernel *k, dim3 grid, dim3 block, size_t shmem, cudaStream_t stream,
                        void **params);

/**
 * The source of the kernel pa_cuda_map generates for a type with compiled layout l (affine), an element
 * function fn defined in source, and an argument of words 8-byte words (map_cuda.c).  Entry "pa_map_kernel".
 * \return the source (the caller frees it), or NULL with PA_ERR_NOMEM set.
 */
struct pa__layout;
char *pa_cuda__map_source(const pa_type *t, const struct pa__layout *l, const char *source, const char *fn,
                          size_t words);

#endif
