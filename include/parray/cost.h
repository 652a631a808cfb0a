/*
 * parray — the copy planner's cost model: measured on this machine, stored in a file, read at start.
 *
 * The planner chooses each copy's strategy by estimated time (pa_copy_explain shows it as predicted=).  The
 * estimates use constants (memory bandwidth, the cost of a memcpy call, of a loop step, of a transpose tile,
 * PCIe bandwidths, an MPI message's latency...).  Built-in values were measured on the development machines;
 * pa_cost_calibrate (the command `parray calibrate`) measures them here and writes them to a file that the
 * library reads at its first copy: PA_COST_FILE when set, else $XDG_CACHE_HOME/parray/cost, else
 * ~/.cache/parray/cost.  The file holds one "name value" line per constant (# starts a comment); a file that
 * names only some keeps the built-in values of the others, and lines that do not parse are warned about on
 * stderr and skipped.  Only a regular file of at most 1 MiB is read: a directory, a FIFO or a device such as
 * /dev/zero is refused without blocking (one line on stderr) and the built-in values are used.
 */
#ifndef PARRAY_COST_H_PUBLIC
#define PARRAY_COST_H_PUBLIC

#include <stddef.h>
#include <stdio.h>

#include "error.h"

#ifdef __cplusplus
extern "C" {
#endif

/**
 * The path of the cost file the library reads: PA_COST_FILE, else $XDG_CACHE_HOME/parray/cost (an absolute
 * XDG_CACHE_HOME), else $HOME/.cache/parray/cost.
 * \return the path's length (as snprintf: the path is cut when len is too small), PA_ERR_INVAL (NULL buffer
 *         with len > 0) or PA_ERR_NAME (none of the three variables is set).
 */
PA_API int pa_cost_path(char *buf, size_t len);

/**
 * Measures the cost model's constants on this machine: the host copies' (one thread, median of several runs
 * of 8-16 MiB copies; about a second), the GPU copies' where the CUDA backend is on and a GPU is usable, and
 * the MPI constants in an MPI program of two processes or more (then collective over the current communicator:
 * every process calls it, and all write the same values).  Constants it does not measure keep the values in
 * use.  Writes them to path (NULL: pa_cost_path's, with its
 * directory made), and uses them in this process from then on (plans made before are dropped); call it while
 * no other thread copies.
 * \param log where to print what was measured (NULL: nothing).
 * \return PA_OK, PA_ERR_SYS (the file cannot be written), PA_ERR_NAME (no path) or PA_ERR_NOMEM.
 */
PA_API int pa_cost_calibrate(const char *path, FILE *log);

/**
 * Prints the cost model in use, one constant a line, and where it came from (the file, or the built-in
 * defaults).  \return PA_OK or PA_ERR_INVAL (NULL file).
 */
PA_API int pa_cost_print(FILE *f);

/**
 * One constant of the cost model in use, by its name in the cost file and in pa_cost_print's list
 * ("gpu_nccl_bw", "mpi_latency"...), into *value (in the model's units: ns, bytes per ns).  For programs that
 * make their own choices from the machine's measured rates (bench/fft's plane groups).
 * \return PA_OK, PA_ERR_INVAL (NULL name or value) or PA_ERR_NAME (no such constant; *value unchanged).
 */
PA_API int pa_cost_get(const char *name, double *value);

#ifdef __cplusplus
}
#endif

#endif
