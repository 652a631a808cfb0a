/*
 * parray — the machine's topology through hwloc: packages, cores, hardware threads, NUMA nodes and GPUs with
 * their locality.  Without hwloc in the build, the calls report PA_ERR_NODEV (pa_topology_print prints what
 * the OS says instead).
 */
#ifndef PARRAY_TOPOLOGY_H
#define PARRAY_TOPOLOGY_H

#include <stdio.h>

#include "error.h"

#ifdef __cplusplus
extern "C" {
#endif

/** Counts of the machine's parts (those the process may use). */
typedef struct pa_topology_info {
    int packages;        /* sockets */
    int cores;
    int pus;             /* hardware threads */
    int numa_nodes;
    int gpus;            /* GPU OS devices hwloc sees (CUDA, OpenCL, NVML, DRM ...), one per physical GPU */
} pa_topology_info;

/** One GPU and where it sits. */
typedef struct pa_gpu_info {
    char name[64];       /* the OS device's name, e.g. "cuda0" or "card0", and the model when known */
    char pci[32];        /* PCI bus id, "" when unknown */
    int numa_node;       /* the nearest NUMA node's logical index, -1 when unknown */
    char cpuset[128];    /* the CPUs close to it, as a list ("0-15"), "" when unknown */
} pa_gpu_info;

/** Fills the counts.  \return PA_OK, PA_ERR_INVAL (NULL) or PA_ERR_NODEV (no hwloc, or it failed). */
PA_API int pa_topology_get(pa_topology_info *out);

/** Describes GPU i (0 <= i < gpus).  \return PA_OK, PA_ERR_INVAL, PA_ERR_RANGE or PA_ERR_NODEV. */
PA_API int pa_topology_gpu(int i, pa_gpu_info *out);

/**
 * Prints the topology in a few lines (what tools/parray info shows): counts, the hardware threads per core,
 * NUMA nodes with their CPUs, GPUs with their locality, and the thread binding in force.
 * \return PA_OK, PA_ERR_INVAL (NULL file) or PA_ERR_NODEV (no hwloc: a line saying so is still printed).
 */
PA_API int pa_topology_print(FILE *f);

/**
 * The grid a retired Xeon Phi "mic" thread type maps to on this machine: [cores][threads per core].  Declare
 * "mic [c][t]" with these values to get one thread pinned per hardware thread.
 * \return PA_OK, PA_ERR_INVAL or PA_ERR_NODEV (no hwloc).
 */
PA_API int pa_topology_mic_grid(int *cores, int *threads_per_core);

/**
 * This process's share of the host, from which its default thread counts come (pa_copy's threads, which
 * pa_tile_copy's moves use, pa_map's, the pthd pool's binding slice): when several MPI ranks share the node, each takes its part of the
 * CPUs, so that ranks x threads never oversubscribe the cores by default.
 */
typedef struct pa_host_share_info {
    int local_rank;        /* this process's index among the ranks on its node (0 without MPI) */
    int local_ranks;       /* ranks on this node (1 without MPI) */
    int machine_cpus;      /* CPUs online */
    int allowed_cpus;      /* CPUs in the process's affinity mask when it started */
    int cpus;              /* this process's share: its default thread count */
    int first_cpu;         /* the first CPU (OS index) of its slice, where bound threads start */
    int bound_by_launcher; /* 1 when the mask was narrower than the machine (mpirun --bind-to core ...) */
    char source[48];       /* where local_ranks came from: "MPI shared-memory communicator", "Open MPI's
                              environment", "PA_NODE_RANKS", ... */
} pa_host_share_info;

/**
 * Fills this process's share of the host.  The ranks on the node come from the MPI backend's shared-memory
 * communicator once pa_mpi_main (or pa_mpi_node_share) has run, else from the launcher's environment;
 * PA_NODE_RANKS=n (and PA_NODE_RANK=r) set them by hand, PA_NODE_RANKS=1 turns the division off.
 * \return PA_OK or PA_ERR_INVAL (NULL).
 */
PA_API int pa_host_share(pa_host_share_info *out);

#ifdef __cplusplus
}
#endif
#endif
