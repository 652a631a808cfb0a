/*
 * parray — the backends of this build: which are built and switched on.
 *
 * A backend brings memory types, copy strategies and thread arrays of one kind of hardware: pthread (the host,
 * always on), cuda (pinned and dmem memory, GPU copies and kernels), mpi (mpimem, process arrays, distributed
 * copies) and gamem (Global Arrays, in the static library libparray_gamem.a only).  The environment variable
 * PA_BACKENDS, read at the library's first use, switches them off: "-cuda" switches the CUDA backend off,
 * "-cuda,-mpi" both, and a list of plain names ("pthread,mpi") keeps only those on.  A switched-off backend is
 * as if it were not built: its memory types have no allocator (pa_create says PA_BACKENDS switched it off), its
 * strategies are not probed and its thread arrays are not launched.
 */
#ifndef PARRAY_BACKEND_H_PUBLIC
#define PARRAY_BACKEND_H_PUBLIC

#include <stdio.h>

#include "error.h"

#ifdef __cplusplus
extern "C" {
#endif

/**
 * Whether a backend is built and switched on.
 * \param name "pthread", "cuda", "mpi" or "gamem".
 * \return 1 when built (or, for gamem, linked in) and on; 0 when not built or switched off by PA_BACKENDS;
 *         PA_ERR_INVAL for NULL or another name.
 */
PA_API int pa_backend_on(const char *name);

/**
 * Prints one line per backend (what `parray info` shows): its name, whether it is on, off (PA_BACKENDS), not
 * built, or on but unusable on this machine (a CUDA backend without a GPU, with the reason), and what it brings.
 * Asking whether the CUDA backend is usable loads the CUDA driver.
 * \return PA_OK, or PA_ERR_INVAL for a NULL file.
 */
PA_API int pa_backends_print(FILE *f);

#ifdef __cplusplus
}
#endif

#endif
