/*
 * parray — PL/CUDA functions on a GPU (CUDA builds only): declarations shared by plcuda_launch.c and
 * plcuda_call.c.
 */
#ifndef PARRAY_PLCUDA_CALL_H
#define PARRAY_PLCUDA_CALL_H

#include "plcuda.h"
#include "../rtc_internal.h"

/* How one kernel runs for a call. */
typedef struct pa__plc_launch {
    int present;
    int64_t threads;
    int block;              /* threads per block; 0: not known without a GPU */
    unsigned grid;
    int clamped;            /* one block of exactly the thread count */
    const char *why;        /* where the block size comes from */
    int64_t unitsz, blocksz;
    size_t shmem;           /* dynamic shared memory per block */
} pa__plc_launch;

typedef struct pa__plc_config {
    pa__plc_launch st[PA__PLC_NBLOCKS];
    int64_t results_bufsz, working_bufsz;
} pa__plc_config;

/** The function's kernels on the current GPU (compiled and loaded on first use).  \return PA_OK or an error. */
int pa__plc_kernels(pa_kernel *k, pa_cuda__rtc_kernel *out[PA__PLC_NBLOCKS]);

/** The configuration of a call (kerns NULL: without a GPU).  \return PA_OK or the callbacks' errors. */
int pa__plc_configure(const pa_kernel *k, pa_cuda__rtc_kernel *const kerns[PA__PLC_NBLOCKS], const pa_arg *args,
                   int nargs, pa__plc_config *cfg);

/** Writes a configuration as pa_kernel_explain does.  \return as snprintf. */
int pa__plc_format(const pa_kernel *k, const pa__plc_config *cfg, char *buf, size_t len);

#endif
