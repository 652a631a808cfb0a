/*
 * parray — the machine's topology through hwloc, thread binding for pthd arrays and the mic grid (built where
 * hwloc is found; topology_none.c otherwise).
 *
 * The topology is loaded once, on first use, with I/O devices kept so that GPUs and their locality show.
 * Binding places thread tid of an array of n threads on one hardware thread (PU): compact takes PUs in
 * hwloc's logical order (filling each core first), spread takes one PU per core first, spacing the threads
 * over the cores (and so over packages).  A worker remembers where it is bound, so rebinding costs a system
 * call only when the placement changes.
 */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <hwloc.h>

#include "thread_internal.h"

static hwloc_topology_t topo;
static int topo_ok;
static pthread_once_t topo_once = PTHREAD_ONCE_INIT;
static _Thread_local int tl_bound_pu = -1;   /* logical PU index the calling thread is bound to */

static void topo_load(void)
{
    if (hwloc_topology_init(&topo) != 0)
        return;
    hwloc_topology_set_io_types_filter(topo, HWLOC_TYPE_FILTER_KEEP_IMPORTANT);
    if (hwloc_topology_load(topo) != 0) {
        hwloc_topology_destroy(topo);
        return;
    }
    topo_ok = 1;
}

static int topo_get(void)
{
    pthread_once(&topo_once, topo_load);
    return topo_ok;
}

int pa__hwloc_available(void)
{
    return topo_get();
}

static int count(hwloc_obj_type_t t)
{
    int n = hwloc_get_nbobjs_by_type(topo, t);
    return n < 0 ? 0 : n;
}

/* The logical PU for thread tid of n under a policy, or -1. */
static int target_pu(int policy, int64_t tid, int64_t n, int mic_tpc)
{
    int npu = count(HWLOC_OBJ_PU), ncore = count(HWLOC_OBJ_CORE);
    if (npu <= 0)
        return -1;
    if (ncore <= 0)
        ncore = npu;
    int tpc = npu / ncore > 0 ? npu / ncore : 1;
    int64_t core, ht;
    /* Ranks sharing the node each bind within their own block of cores (host_share.c); a launcher's binding
     * already narrowed what hwloc shows. */
    pa_host_share_info sh;
    pa__host_share(&sh);
    if (!sh.bound_by_launcher && sh.local_ranks > 1 && sh.local_ranks <= ncore) {
        int per = ncore / sh.local_ranks;
        hwloc_obj_t c0 = hwloc_get_obj_by_type(topo, HWLOC_OBJ_CORE, (unsigned)(sh.local_rank * per));
        if (c0 != NULL && policy != -1) {
            int64_t k = policy == PA_BIND_COMPACT ? (tid / tpc) % per : (n <= per ? tid * per / n : tid % per);
            hwloc_obj_t c = hwloc_get_obj_by_type(topo, HWLOC_OBJ_CORE, (unsigned)(sh.local_rank * per + k));
            ht = policy == PA_BIND_COMPACT ? tid % tpc : (n <= per ? 0 : (tid / per) % tpc);
            hwloc_obj_t pu = c ? hwloc_get_obj_inside_cpuset_by_type(topo, c->cpuset, HWLOC_OBJ_PU, (unsigned)ht) : NULL;
            if (pu != NULL)
                return (int)pu->logical_index;
        }
    }
    if (policy == PA_BIND_COMPACT)
        return (int)(tid % npu);
    if (policy == PA_BIND_SPREAD) {
        core = n <= ncore ? tid * ncore / n : tid % ncore;
        ht = n <= ncore ? 0 : (tid / ncore) % tpc;
    } else {
        /* mic: [cores][threads per core] grid; the row is the core, the column the hardware thread. */
        int cols = mic_tpc > 0 ? mic_tpc : tpc;
        core = (tid / cols) % ncore;
        ht = (tid % cols) % tpc;
    }
    hwloc_obj_t c = hwloc_get_obj_by_type(topo, HWLOC_OBJ_CORE, (unsigned)core);
    if (c == NULL)
        return (int)(tid % npu);
    hwloc_obj_t pu = hwloc_get_obj_inside_cpuset_by_type(topo, c->cpuset, HWLOC_OBJ_PU, (unsigned)ht);
    return pu ? (int)pu->logical_index : (int)(tid % npu);
}

int pa__bind_thread(int policy, int64_t tid, int64_t n, int mic_tpc)
{
    if (!topo_get())
        return pa__err(PA_ERR_NODEV, "thread binding: hwloc could not load the topology");
    int pu = target_pu(policy, tid, n, mic_tpc);
    if (pu < 0 || pu == tl_bound_pu)
        return PA_OK;
    hwloc_obj_t o = hwloc_get_obj_by_type(topo, HWLOC_OBJ_PU, (unsigned)pu);
    if (o == NULL || hwloc_set_cpubind(topo, o->cpuset, HWLOC_CPUBIND_THREAD) != 0)
        return pa__err(PA_ERR_SYS, "thread binding: cannot bind thread %lld of %lld to PU %d",
                       (long long)tid, (long long)n, pu);
    tl_bound_pu = pu;
    return PA_OK;
}

void pa__unbind_thread(void)
{
    if (tl_bound_pu < 0)
        return;
    hwloc_set_cpubind(topo, hwloc_topology_get_allowed_cpuset(topo), HWLOC_CPUBIND_THREAD);
    tl_bound_pu = -1;
}

int pa__bound_cpu(void)
{
    if (tl_bound_pu < 0)
        return -1;
    return (int)hwloc_get_obj_by_type(topo, HWLOC_OBJ_PU, (unsigned)tl_bound_pu)->os_index;
}

int pa__bind_target_cpu(int policy, int64_t tid, int64_t n, int mic_tpc)
{
    if (!topo_get())
        return -1;
    int pu = target_pu(policy, tid, n, mic_tpc);
    return pu < 0 ? -1 : (int)hwloc_get_obj_by_type(topo, HWLOC_OBJ_PU, (unsigned)pu)->os_index;
}

void *pa__hwloc_topology(void)
{
    return topo_get() ? (void *)topo : NULL;
}
