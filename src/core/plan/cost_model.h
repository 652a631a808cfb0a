/*
 * parray — the planner's cost model: every constant the strategies' estimates use, in one structure, with
 * built-in defaults (measured on the development machines), replaced at start by a file that `parray
 * calibrate` (pa_cost_calibrate) writes on the user's machine.  The file is PA_COST_FILE when set, else
 * $XDG_CACHE_HOME/parray/cost, else ~/.cache/parray/cost; it holds "name value" lines (# starts a comment) and
 * may name only some constants.
 */
#ifndef PARRAY_COST_MODEL_H
#define PARRAY_COST_MODEL_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

typedef struct pa__cost_model {
    /* host copies (pthread backend), one thread: bytes of read + write per ns, fixed costs in ns */
    double host_bw;             /* streaming bandwidth (a large memcpy moves bytes twice) */
    double host_memcpy_call;    /* one memcpy call on a short run */
    double host_loop_unit;      /* one unit moved by the specialised element loops, beyond its traffic */
    double host_loop_start;     /* starting one innermost loop */
    double host_gather_elem;    /* one element whose offsets come from tables, beyond the loop's unit */
    double host_tile;           /* one transpose tile's set-up */
    double host_transpose_unit; /* one unit moved by the transpose's tiles, beyond its traffic */
    double host_reverse_elem;   /* one element of a reversal (a shuffle in registers), beyond its traffic */
    double host_transpose_tile; /* the transpose's largest tile edge, units (halved until a tile fits 16 KiB) */
    /* GPU copies (cuda backend): bytes per ns and ns */
    double gpu_h2d_pinned, gpu_d2h_pinned, gpu_h2d_pageable, gpu_d2h_pageable;
    double gpu_d2d_rw, gpu_tiled_rw;   /* read + write on the device: cudaMemcpy, the tiled permute */
    double gpu_call;            /* a synchronous CUDA call */
    double gpu_row_pcie, gpu_row_d2d;  /* cudaMemcpy2D per row beyond its bytes */
    double gpu_word;            /* the permute kernel per word moved, summed over the GPU */
    double gpu_host_thread_bw;  /* one host thread's memcpy into or out of pinned memory */
    double gpu_pack_elem;       /* host packing per element through the gather loops, host side read in order */
    double gpu_pack_strided_elem; /* the same, host side read across its rows (a transposed pack) */
    double gpu_pipe_start;      /* the pageable pipeline's start */
    /* distributed copies (mpi backend) */
    double mpi_latency;         /* one message, ns */
    double mpi_net_bw;          /* the transport's bytes per ns for one process */
    double mpi_host_bw;         /* packing and unpacking, bytes of read + write per ns */
    /* the routes of distributed copies of device memory (mpi backend, dist_route.c) */
    double gpu_nccl_bw;         /* bytes per ns one GPU sends (and receives) through NCCL, summed over peers */
    double gpu_nccl_latency;    /* one NCCL group, ns */
    double gpu_peer_bw;         /* bytes per ns one process receives by the peer route's pulls (CUDA IPC, all
                                   peers at once; measured by parray calibrate where processes share GPUs' host) */
} pa__cost_model;

/** The model in use: the defaults with the file's values over them (read at the first call). */
const pa__cost_model *pa__cost(void);
/** The built-in defaults. */
const pa__cost_model *pa__cost_defaults(void);
/** Where the model in use came from: "built-in defaults" or the file's path. */
const char *pa__cost_source(void);
/**
 * Reads a cost file over *m (only the constants it names change).  Lines that do not parse, unknown names and
 * values that are not positive numbers are warned about on stderr (when warn) and skipped.  Only a regular file
 * of at most PA__COST_FILE_MAX bytes is read (a FIFO, a device such as /dev/zero or a directory is refused
 * without blocking).
 * \return PA_OK, PA_ERR_SYS (cannot be opened: the message says why), PA_ERR_INVAL (not a regular file),
 *         PA_ERR_SIZE (too large) or PA_ERR_PARSE (some line was skipped).
 */
#define PA__COST_FILE_MAX (1u << 20)
int pa__cost_read(const char *path, pa__cost_model *m, int warn);
/** Writes every constant of m to path, creating its directory.  \return PA_OK or PA_ERR_SYS. */
int pa__cost_write(const char *path, const pa__cost_model *m, const char *comment);
/** Uses m from now on in this process (copied), and drops the cached plans so that new ones use it. */
void pa__cost_set(const pa__cost_model *m, const char *source);

/* ---- for the backends' calibrate hooks (cost.c) ---- */
struct pa__layout;
/** A monotonic clock, ns. */
double pa__cost_now(void);
/** Sorts n timings in ascending order (the median is t[n / 2], the fastest t[0]). */
void pa__cost_sort(double *t, size_t n);
/** v clamped to [lo, hi]: a constant measured outside its plausible range. */
double pa__cost_clamp(double v, double lo, double hi);
/** An affine layout of n modes (outermost first) with these sizes and element strides, base 0. */
struct pa__layout pa__cost_affine(int n, const int64_t *size, const int64_t *stride);

#endif
