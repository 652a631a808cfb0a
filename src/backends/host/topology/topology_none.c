/*
 * parray — topology and thread binding in a build without hwloc (src/meson.build builds this file instead of
 * topology_hwloc.c and topology_info.c): threads stay unbound, the queries say hwloc is missing, and `parray
 * info` prints what it knows without it.
 */
#include <unistd.h>

#include "thread_internal.h"

int pa__hwloc_available(void)
{
    return 0;
}

int pa__bind_thread(int policy, int64_t tid, int64_t n, int mic_tpc)
{
    return pa__err(PA_ERR_NODEV, "thread binding needs hwloc, which this build does not have");
}

void pa__unbind_thread(void)
{
}

int pa__bound_cpu(void)
{
    return -1;
}

int pa__bind_target_cpu(int policy, int64_t tid, int64_t n, int mic_tpc)
{
    return -1;
}

static int no_hwloc(const char *what)
{
    return pa__err(PA_ERR_NODEV, "%s needs hwloc, which this build does not have (meson -Dhwloc=enabled)", what);
}

int pa_topology_get(pa_topology_info *out)
{
    return out ? no_hwloc("pa_topology_get") : pa__err(PA_ERR_INVAL, "pa_topology_get: out is NULL");
}

int pa_topology_gpu(int i, pa_gpu_info *out)
{
    return no_hwloc("pa_topology_gpu");
}

int pa_topology_mic_grid(int *cores, int *threads_per_core)
{
    return no_hwloc("the mic grid");
}

int pa_topology_print(FILE *f)
{
    if (f == NULL)
        return pa__err(PA_ERR_INVAL, "pa_topology_print: the file is NULL");
    pa_host_share_info sh;
    pa__host_share(&sh);
    fprintf(f, "topology: unknown (built without hwloc); %ld CPUs online\n", sysconf(_SC_NPROCESSORS_ONLN));
    fprintf(f, "  this process: rank %d of %d on this node (%s), %d of %d CPUs: default threads %d\n",
            sh.local_rank, sh.local_ranks, sh.source, sh.cpus, sh.machine_cpus, sh.cpus);
    return no_hwloc("pa_topology_print");
}
