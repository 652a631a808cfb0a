/*
 * parray — the base layer of the core (src/core/base/): errors, files read by name, environment variables.
 * Every layer of the core may include it; it includes no other internal header (docs/architecture.md).
 */
#ifndef PARRAY_BASE_H
#define PARRAY_BASE_H

#include <pthread.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>

#include "parray/parray.h"
/* The library implements every module: their headers too (parray.h gives the core alone with PA_CORE_ONLY). */
#include "parray/cuda.h"
#include "parray/gputile.h"
#include "parray/kernel.h"
#include "parray/matrix.h"
#include "parray/mpi.h"
#include "parray/ssb.h"

#define PA__HIDDEN __attribute__((visibility("hidden")))

/* ---- errors (src/core/base/error.c) ------------------------------------------------------------------------ */

/** Sets the calling thread's detailed message and returns status, for "return pa__err(...)". */
int pa__err(int status, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/** Re-raises the calling thread's last error with a prefix: "<prefix>: <previous detail>". */
int pa__err_wrap(int status, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/** The status of the calling thread's last pa__err (PA_OK after pa_error_clear): for callers of functions that
 *  report failure by NULL, such as pa_create. */
int pa__last_status(void);

/* ---- files read by name (src/core/base/file_read.c) ----------------------------------------------------------- */

/**
 * Opens path for reading without blocking and checks that it is a regular file of at most max bytes (0: no cap).
 * Messages begin with what ("ssb", "cost file").  \return PA_OK with *fd and *size; PA_ERR_SYS (cannot open:
 * errno is the open's), PA_ERR_INVAL (a FIFO, a device, a directory: errno EINVAL) or PA_ERR_SIZE (over max).
 */
int pa__open_regular(const char *what, const char *path, size_t max, int *fd, size_t *size);
/** Reads a whole regular file (pa__open_regular's checks) into a NUL-terminated buffer (*out, to free). */
int pa__read_regular(const char *what, const char *path, size_t max, char **out, size_t *len);

/* ---- environment variables (src/core/base/env.c) -------------------------------------------------------------- */

/*
 * Each reads a variable and validates it: unset gives the default silently; a value the documentation does not
 * allow gives a one-line warning on stderr (once per `once` flag, which each call site keeps) and the default.
 */
#include <stdatomic.h>
/** 1 and *out when value is a whole decimal integer in [lo, hi]; 0 otherwise (NULL, "", "3junk", "-3"...). */
int pa__env_parse_int(const char *value, long lo, long hi, long *out);
/** An integer in [lo, hi], else def; def_text (may be NULL) says what the default is in the warning. */
long pa__env_int(const char *name, long lo, long hi, long def, const char *def_text, atomic_int *once);
/** "1" is 1, "0" or unset is 0; anything else is a warning and 0. */
int pa__env_flag(const char *name, atomic_int *once);
/** The index of the value among words, else def (a warning when set to another word). */
int pa__env_choice(const char *name, const char *const *words, int nwords, int def, atomic_int *once);
/** The warning line itself ("parray: warning: NAME='value' is not EXPECTED; using the default (DFLT)"), once. */
void pa__env_warn(atomic_int *once, const char *name, const char *value, const char *expected, const char *dflt);
/** An absolute directory path shorter than max_len, else NULL (a warning when set but invalid). */
const char *pa__env_dir(const char *name, size_t max_len, atomic_int *once, const char *def_text);

#endif
