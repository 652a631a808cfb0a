/*
 * pkufft — the manual's GPU-cluster FFT (section 7.2, listing 46) written with parray: what the program's
 * files share.
 *
 * A complex N x N x N array (Z, Y, X) is distributed over P processes along Z (N/P planes each).  Each process
 * transforms its XY planes, an all-to-all whose source and destination types are not contiguous moves the
 * array so that it is distributed along Y with Z gathered on every process (the large- and medium-scale
 * transposition happen in the communication), each process transforms along Z after a small transposition on
 * its GPU, and the way back restores the distribution along Z.
 *
 * Two routes run the same steps:
 *  - host (the listing): the slab lives in pinned host memory; every plane goes to the GPU for its transform
 *    and comes back, and the all-to-all moves host memory;
 *  - device: the slab lives in device memory between the steps; the transforms run on the whole slab at once,
 *    and the all-to-all moves device memory, by whatever route the library's distributed copy finds (device
 *    buffers handed to MPI where MPI moves device memory, else through pinned host buffers; PA_PLAN_INFO=1
 *    prints the plan).
 * Without a GPU both routes run the transforms on the CPU (fft_cpu.c), over paged memory.
 */
#ifndef PKUFFT_H
#define PKUFFT_H

#include <parray/parray.h>

#include "fft_engine.h"

typedef enum { PK_ROUTE_HOST, PK_ROUTE_DEVICE } pk_route;

/* Seconds spent in each phase on the calling process (accumulated). */
typedef struct pk_times {
    double fft_xy, fft_z;    /* the transforms */
    double copies;           /* host <-> GPU copies and the GPU transpositions around the Z step */
    double alltoall;         /* both all-to-alls */
    double total;
} pk_times;

typedef struct pk_fast pk_fast;   /* the fast form's kept declarations, plans and stream (pkufft_steps.c) */

/* One process's view of one transform. */
typedef struct pk_ctx {
    pa_scope *s;             /* the listing's declarations */
    int k, p, n;             /* this process, the number of processes, the size */
    pk_engine_kind engine;
    int fail_plan;           /* 1: this process's plans fail (the test of that error path) */
    int groups;              /* the fast form's plane groups (pk_fast_groups); 0 or 1: one */
    pk_fast *fast;           /* made by pk_fft_device_fast's first call, freed by pk_fast_release */
    char hmem[16], dmem[16]; /* the memory types of the listing's host and device arrays on this engine */
} pk_ctx;

/** The listing's declarations (PROCS, HSTS, DEVS, SCATTER, and the device route's DSLAB, DSCATTER) in c->s.
 *  \return PA_OK or the library's status (message in pa_last_error()). */
int pk_declare(pk_ctx *c);

/** The subprogram's types in a new child scope of c->s (*out): HST, DEV, DEVT, S, T for the host route;
 *  DSL, DSLT, S, T, TZ for the device route.  \return PA_OK or the library's status. */
int pk_declare_exchange(pk_ctx *c, pk_route route, pa_scope **out);

/**
 * Collective over the process array: every process passes its value and gets everyone's in all[0..p).  It is
 * a distributed copy (an all-to-all of one int per pair, the manual's listing 34), so a failure that happened
 * on one process reaches every process before the next collective step.  \return PA_OK or the copy's status.
 */
int pk_agree(pk_ctx *c, int mine, int *all);

/** The first process whose value is not zero, or -1. */
int pk_first_failed(const pk_ctx *c, const int *all);

/**
 * The listing's subprogram fft(HSTS_1, DEVS_1, PROCS): host and hbuf are this process's slabs (HSTS_1), dev a
 * plane on the GPU (DEVS_1).  The result is in host.  Collective.  \return PA_OK or a status, the same on every
 * process (a step that fails on one is agreed on before the next collective step); *failed is the process
 * that failed first (-1 when none).
 */
int pk_fft_host(pk_ctx *c, void *host, void *hbuf, void *dev, pk_times *t, int *failed);

/** The device route: dslab and dbuf are this process's slabs in device memory (DSLAB); the result is in
 *  dslab.  Collective; as pk_fft_host. */
int pk_fft_device(pk_ctx *c, void *dslab, void *dbuf, pk_times *t, int *failed);

/**
 * The device route's fast form (as cuFFTMp's transposed output): the XY transforms, one all-to-all S -> TZ that
 * gathers Z innermost (the transposition happens in the exchange), and the Z transforms in place.  The result is
 * left in dbuf distributed along Y: process p holds y in [p N/P, (p + 1) N/P) as [y][x][z] (the type TZ of
 * pk_declare_exchange).  dslab is overwritten.  With c->groups > 1 the slab's planes go in pk_fast_groups(c)
 * groups: the XY transforms of group g + 1 run on a stream of their own while the all-to-all moves group g (the
 * same result; the exchange overlaps the transforms).  Its types, plans and stream are made at the first call
 * and kept in c->fast for later calls (pk_fast_release).  Collective; as pk_fft_host.
 */
int pk_fft_device_fast(pk_ctx *c, void *dslab, void *dbuf, pk_times *t, int *failed);

/** Frees what pk_fft_device_fast keeps between calls (its types, plans and stream); c->fast NULL is ignored. */
void pk_fast_release(pk_ctx *c);

/** The plane groups pk_fft_device_fast pipelines: the largest divisor of N/P not above c->groups (at least 1). */
int pk_fast_groups(const pk_ctx *c);

/* What the fast form's plane groups are chosen from (pkufft_groups.c): rates in bytes per ns, times in ns. */
typedef struct pk_costs {
    double nccl_bw;          /* one GPU's bytes through the NCCL route (the cost model's gpu_nccl_bw) */
    double nccl_latency;     /* one NCCL group (gpu_nccl_latency) */
    double peer_ns;          /* what each peer adds to a group */
    double launch_ns;        /* one pack or unpack kernel launch (a peer's slice of a chunk) */
    double fused_ratio;      /* the exchange with the layout change fused in, against the plain rate (0..1] */
    double fft_bw;           /* one GPU's XY + Z transforms: bytes of the N^3 array a ns */
    double xy_share;         /* the XY transforms' share of their time */
} pk_costs;

/** The library's cost model where it has the constants (pa_cost_get), docs/scaling.md's inputs for the rest. */
void pk_costs_default(pk_costs *m);

/** The fast form's predicted time on the slowest GPU, ns: N^3 over P GPUs in `groups` plane groups. */
double pk_fast_predict(const pk_costs *m, int n, int p, int groups);

/**
 * The plane groups to pipeline: the divisor G of N/P in [1, most] with the least pk_fast_predict (the fewest
 * groups among equal times); 1 for one process, one plane, or rates that are not positive.  More groups where
 * the exchange is bandwidth-bound and its latency small; one where the latency dominates (small N, many GPUs).
 */
int pk_groups_by_cost(const pk_costs *m, int n, int p, int most);

/** A monotonic clock in seconds. */
double pk_now(void);

#endif
