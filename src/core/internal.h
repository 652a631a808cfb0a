/*
 * parray — internal declarations shared by the core and the backends.  Never included from a public header.
 */
#ifndef PARRAY_INTERNAL_H
#define PARRAY_INTERNAL_H

/*
 * What the core offers the code above it (src/backends/, src/kernels/, src/tiles/, src/matrix/, src/query/, the
 * tests): every layer's header, bottom up.  Files of the core include their own layer's headers and those below
 * it instead (scripts/check-layers.sh), never this one.
 */
#include "base.h"
#include "backends.h"
#include "types.h"
#include "layout.h"
#include "mem_internal.h"
#include "plan.h"
#include "dist.h"
#include "copy_internal.h"

/* ---- device code (src/kernels/dtype.c) -------------------------------------------------------------------- */

/** The CUDA C++ name of t's element type where device code knows it under a name ("float", "int4"; int32_t is
 *  "int"), else NULL: generated kernels then give the elements a struct of pa_elm_size(t) bytes. */
const char *pa__elm_cuda_name(const pa_type *t);

/* ---- this process's share of the host (src/backends/host/topology/host_share.c) ------------------------ */

/** Records the ranks sharing this node, as the MPI backend's shared-memory communicator found them. */
void pa__node_share_set(int local_rank, int local_ranks);
/** This process's share of the host (pa_host_share without the NULL check).  \return PA_OK. */
int pa__host_share(pa_host_share_info *out);
/** CPUs this process's threads may use by default: its share of the host (at least 1). */
int pa__process_cpus(void);

#endif
