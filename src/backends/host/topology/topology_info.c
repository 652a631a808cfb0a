/*
 * parray — the public topology queries and the one-screen description printed by `parray info`, through hwloc
 * (built where hwloc is found; topology_none.c otherwise).
 */
#include <string.h>
#include <unistd.h>

#include <hwloc.h>

#include "thread_internal.h"

static hwloc_topology_t topo_or_err(const char *what)
{
    hwloc_topology_t t = pa__hwloc_topology();
    if (t == NULL)
        pa__err(PA_ERR_NODEV, "%s: hwloc could not load the topology", what);
    return t;
}

static int nobjs(hwloc_topology_t t, hwloc_obj_type_t type)
{
    int n = hwloc_get_nbobjs_by_type(t, type);
    return n < 0 ? 0 : n;
}

/* A GPU's object under a PCI device: its first GPU or CoProc OS device, or else the PCI device itself when it
 * is a display or 3D controller (PCI class 0x03xx).  OS devices come from hwloc's NVML, CUDA or DRM
 * components, which a machine may lack (the lent H100 has the PCI device but no such component), while the
 * PCI device and its locality are always there. */
static hwloc_obj_t gpu_under(hwloc_obj_t pci)
{
    for (hwloc_obj_t os = pci->io_first_child; os; os = os->next_sibling)
        if (os->type == HWLOC_OBJ_OS_DEVICE &&
            (os->attr->osdev.type == HWLOC_OBJ_OSDEV_GPU || os->attr->osdev.type == HWLOC_OBJ_OSDEV_COPROC))
            return os;
    return (pci->attr->pcidev.class_id >> 8) == 0x03 ? pci : NULL;
}

/* The i-th GPU, one per physical GPU. */
static hwloc_obj_t gpu_obj(hwloc_topology_t t, int want)
{
    int i = 0;
    for (hwloc_obj_t pci = hwloc_get_next_pcidev(t, NULL); pci; pci = hwloc_get_next_pcidev(t, pci)) {
        hwloc_obj_t g = gpu_under(pci);
        if (g && i++ == want)
            return g;
    }
    return NULL;
}

int pa_topology_get(pa_topology_info *out)
{
    if (out == NULL)
        return pa__err(PA_ERR_INVAL, "pa_topology_get: out is NULL");
    hwloc_topology_t t = topo_or_err("pa_topology_get");
    if (t == NULL)
        return PA_ERR_NODEV;
    pa_topology_info info = {nobjs(t, HWLOC_OBJ_PACKAGE), nobjs(t, HWLOC_OBJ_CORE), nobjs(t, HWLOC_OBJ_PU),
                             nobjs(t, HWLOC_OBJ_NUMANODE), 0};
    while (gpu_obj(t, info.gpus) != NULL)
        info.gpus++;
    *out = info;
    return PA_OK;
}

int pa_topology_gpu(int i, pa_gpu_info *out)
{
    if (out == NULL)
        return pa__err(PA_ERR_INVAL, "pa_topology_gpu: out is NULL");
    hwloc_topology_t t = topo_or_err("pa_topology_gpu");
    if (t == NULL)
        return PA_ERR_NODEV;
    hwloc_obj_t os = i >= 0 ? gpu_obj(t, i) : NULL;
    if (os == NULL)
        return pa__err(PA_ERR_RANGE, "pa_topology_gpu(%d): hwloc sees no GPU %d", i, i);
    pa_gpu_info g = {.numa_node = -1};
    const char *model = hwloc_obj_get_info_by_name(os, "GPUModel");
    if (!model)
        model = hwloc_obj_get_info_by_name(os, "PCIDevice");
    if (os->type == HWLOC_OBJ_PCI_DEVICE)
        snprintf(g.name, sizeof g.name, "pci %04x:%04x%s%s", os->attr->pcidev.vendor_id, os->attr->pcidev.device_id,
                 model ? " " : "", model ? model : "");
    else
        snprintf(g.name, sizeof g.name, "%s%s%s", os->name ? os->name : "gpu", model ? " " : "", model ? model : "");
    hwloc_obj_t pci = os->type == HWLOC_OBJ_PCI_DEVICE ? os : os->parent;
    if (pci && pci->type == HWLOC_OBJ_PCI_DEVICE)
        snprintf(g.pci, sizeof g.pci, "%04x:%02x:%02x.%01x", pci->attr->pcidev.domain, pci->attr->pcidev.bus,
                 pci->attr->pcidev.dev, pci->attr->pcidev.func);
    hwloc_obj_t near = hwloc_get_non_io_ancestor_obj(t, os);
    if (near && near->cpuset)
        hwloc_bitmap_list_snprintf(g.cpuset, sizeof g.cpuset, near->cpuset);
    if (near && near->nodeset) {
        hwloc_obj_t node = hwloc_get_next_obj_by_type(t, HWLOC_OBJ_NUMANODE, NULL);
        for (; node; node = node->next_cousin)
            if (hwloc_bitmap_isincluded(node->nodeset, near->nodeset)) {
                g.numa_node = (int)node->logical_index;
                break;
            }
    }
    *out = g;
    return PA_OK;
}

int pa_topology_mic_grid(int *cores, int *threads_per_core)
{
    if (cores == NULL || threads_per_core == NULL)
        return pa__err(PA_ERR_INVAL, "pa_topology_mic_grid: NULL output");
    hwloc_topology_t t = topo_or_err("pa_topology_mic_grid");
    if (t == NULL)
        return PA_ERR_NODEV;
    int nc = nobjs(t, HWLOC_OBJ_CORE), np = nobjs(t, HWLOC_OBJ_PU);
    if (nc <= 0)
        nc = np;
    *cores = nc;
    *threads_per_core = nc > 0 && np / nc > 0 ? np / nc : 1;
    return PA_OK;
}

int pa_topology_print(FILE *f)
{
    pa_topology_info info;
    char buf[256];
    if (f == NULL)
        return pa__err(PA_ERR_INVAL, "pa_topology_print: the file is NULL");
    int st = pa_topology_get(&info);
    if (st != PA_OK) {
        fprintf(f, "topology: unknown (%s); %ld CPUs online\n", pa_last_error(), sysconf(_SC_NPROCESSORS_ONLN));
        return st;
    }
    hwloc_topology_t t = pa__hwloc_topology();
    fprintf(f, "topology: %d package%s, %d cores, %d hardware threads (%d per core), %d NUMA node%s, %d GPU%s\n",
            info.packages, info.packages == 1 ? "" : "s", info.cores, info.pus,
            info.cores > 0 ? info.pus / info.cores : 1, info.numa_nodes, info.numa_nodes == 1 ? "" : "s",
            info.gpus, info.gpus == 1 ? "" : "s");
    for (hwloc_obj_t n = hwloc_get_next_obj_by_type(t, HWLOC_OBJ_NUMANODE, NULL); n; n = n->next_cousin) {
        hwloc_bitmap_list_snprintf(buf, sizeof buf, n->cpuset);
        fprintf(f, "  numa %u: cpus %s, %llu MiB\n", n->logical_index, buf,
                (unsigned long long)(n->attr->numanode.local_memory >> 20));
    }
    for (int i = 0; i < info.gpus; i++) {
        pa_gpu_info g;
        if (pa_topology_gpu(i, &g) == PA_OK)
            fprintf(f, "  gpu %d: %s, pci %s, near numa %d, cpus %s\n", i, g.name, g.pci[0] ? g.pci : "?",
                    g.numa_node, g.cpuset[0] ? g.cpuset : "?");
    }
    pa_host_share_info sh;
    pa__host_share(&sh);
    fprintf(f, "  this process: rank %d of %d on this node (%s), %d of %d CPUs%s: default threads %d "
            "(copies, pa_map), bound threads from CPU %d\n", sh.local_rank, sh.local_ranks, sh.source,
            sh.cpus, sh.machine_cpus, sh.bound_by_launcher ? " (bound by the launcher)" : "", sh.cpus,
            sh.first_cpu);
    static const char *const names[] = {"none", "compact", "spread"};
    fprintf(f, "  pthd binding: %s; mic grid: [%d][%d]\n", names[pa_threads_get_binding()], info.cores,
            info.cores > 0 ? info.pus / info.cores : 1);
    return PA_OK;
}
