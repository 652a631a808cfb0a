/*
 * parray — the list of backends and PA_BACKENDS.
 *
 * The one place of the core that knows which backends this build has (`#if PA_HAVE_*`); everything else walks
 * the list.  PA_BACKENDS, read once at the first use, switches backends off: a comma-separated list of names,
 * each "-name" (off) or "name" (on); when a plain name is listed, only the listed backends are on.  The host
 * backend (pthread) is always on.  A switched-off backend is as if it were not built, except that errors say
 * PA_BACKENDS switched it off.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backends.h"
#include "pa_config.h"

#define MAX_BACKENDS 8

/*
 * Every backend PARRAY has, the one spelling of the list: X(name, 1 when this library has it built in), in the
 * order parray info prints them.  Those built in are probed in this order; gamem lives in libparray_gamem.a
 * and registers itself late (pa__backend_register_late), so it is never built in here.
 */
#define PA__BACKENDS(X)                                                                                       \
    X(pthread, 1)                                                                                             \
    X(cuda, PA_HAVE_CUDA)                                                                                     \
    X(mpi, PA_HAVE_MPI)                                                                                       \
    X(gamem, 0)                                                                                               \
    X(nccl, PA_HAVE_NCCL)

#define ENTRY_0(name)
#define ENTRY_1(name) &pa__backend_##name,
#define ENTRY_(name, have) ENTRY_##have(name)
#define ENTRY(name, have) ENTRY_(name, have)   /* have expanded to 0 or 1 first */
#define COUNT(name, have) +(have)
#define NAME(name, have) #name,
#define LISTED(name, have) " " #name

/* Built-in backends in probing order, then those registered late (before main, so read-only afterwards). */
static const pa__backend *list[MAX_BACKENDS] = {PA__BACKENDS(ENTRY)};
static int nlist = 0 PA__BACKENDS(COUNT);
/* Names PARRAY has backends for in some build: listing one this build lacks is not a mistake. */
static const char *const all_names[] = {PA__BACKENDS(NAME)};
#define ALL_NAMES PA__BACKENDS(LISTED)   /* " pthread cuda mpi gamem nccl", for messages */
static unsigned off_mask;          /* bit i: list[i] switched off */
static pthread_once_t once = PTHREAD_ONCE_INIT;

static int index_of(const char *name, size_t len)
{
    for (int i = 0; i < nlist; i++)
        if (strlen(list[i]->name) == len && strncmp(list[i]->name, name, len) == 0)
            return i;
    return -1;
}

static int known_name(const char *name, size_t len)
{
    for (size_t i = 0; i < sizeof all_names / sizeof all_names[0]; i++)
        if (strlen(all_names[i]) == len && strncmp(all_names[i], name, len) == 0)
            return 1;
    return 0;
}

static void read_env(void)
{
    const char *v = getenv("PA_BACKENDS");
    unsigned on = 0, off = 0;
    int plain = 0;
    if (!v || !*v)
        return;
    for (const char *p = v; *p;) {
        size_t len = strcspn(p, ",");
        int minus = *p == '-' || *p == '+';
        const char *name = p + minus;
        size_t nlen = len - (size_t)minus;
        int i = index_of(name, nlen);
        if (i < 0 && !known_name(name, nlen))
            fprintf(stderr, "parray: PA_BACKENDS: unknown backend '%.*s' (one of:" ALL_NAMES "); ignored\n",
                    (int)nlen, name);
        else if (i >= 0 && *p == '-')
            off |= 1u << i;
        else if (i >= 0)
            on |= 1u << i;
        plain |= *p != '-' && *p != '+';
        p += len + (p[len] == ',');
    }
    unsigned mask = off | (plain ? ~on : 0);
    for (int i = 0; i < nlist; i++)
        if ((mask >> i & 1) && list[i]->required) {
            fprintf(stderr, "parray: PA_BACKENDS: the %s backend cannot be switched off; it stays on\n",
                    list[i]->name);
            mask &= ~(1u << i);
        }
    off_mask = mask;
}

static void init(void)
{
    pthread_once(&once, read_env);
}

int pa__backend_count(void)
{
    return nlist;
}

const pa__backend *pa__backend_at(int i)
{
    return i >= 0 && i < nlist ? list[i] : NULL;
}

int pa__backend_on(const pa__backend *b)
{
    init();
    for (int i = 0; i < nlist; i++)
        if (list[i] == b)
            return !(off_mask >> i & 1);
    return 0;
}

const pa__backend *pa__backend_named(const char *name)
{
    int i = name ? index_of(name, strlen(name)) : -1;
    return i < 0 ? NULL : list[i];
}

int pa__backend_built(const char *name)
{
    return pa__backend_named(name) != NULL;
}

int pa__feature_built(const char *name)
{
    static const struct {
        const char *name;
        int on;
    } features[] = {{"numa", PA_HAVE_NUMA}, {"hwloc", PA_HAVE_HWLOC}, {"nvtx", PA_HAVE_NVTX},
                    {"openmp", PA_HAVE_OPENMP}};
    for (size_t i = 0; name && i < sizeof features / sizeof *features; i++)
        if (strcmp(name, features[i].name) == 0)
            return features[i].on;
    return 0;
}

int pa__backend_register_late(const pa__backend *b)
{
    if (index_of(b->name, strlen(b->name)) >= 0)
        return PA_ERR_EXISTS;
    if (nlist == MAX_BACKENDS)
        return PA_ERR_NOMEM;
    list[nlist++] = b;
    return PA_OK;
}

const char *pa__backend_elsewhere(const char *name)
{
    if (PA_HAVE_GA && strcmp(name, "gamem") == 0 && !pa__backend_named(name))
        return "gamem is available in the static library only (linked together with libparray_gamem.a): "
               "Debian's Global Arrays is not position-independent, so the shared library cannot contain it";
    return NULL;
}

const pa__host_kernels *pa__host(void)
{
    return pa__backend_pthread.kernels;
}

/* ---- what the core asks of every backend ---------------------------------------------------------------- */

/*
 * NULL is the default stream: the legacy stream of the current GPU, on which kernels launched without a stream
 * are queued and with which copies on blocking streams are ordered.  The backend that has streams waits for it
 * (and reports a kernel's fault); without such a backend nothing can be queued, and there is nothing to wait for.
 */
int pa__stream_wait(void *stream)
{
    for (int i = 0; i < nlist; i++)
        if (list[i]->stream_wait && pa__backend_on(list[i]))
            return list[i]->stream_wait(stream);
    if (stream == NULL)
        return PA_OK;
    return pa__err(PA_ERR_NODEV, "a copy on a CUDA stream: %s", pa__backend_built("cuda")
                   ? "the CUDA backend is switched off (PA_BACKENDS)"
                   : "this build has no CUDA backend (configure with -Dcuda=enabled where nvcc is installed)");
}

const pa__devcomm_ops *pa__backends_devcomm(const char **why)
{
    const char *reason = "this build has no NCCL backend (configure where nccl.h is found, or with -Dnccl_dir=)";
    for (int i = 0; i < nlist; i++) {
        if (!list[i]->devcomm)
            continue;
        char probe_why[256] = "";
        if (!pa__backend_on(list[i]))
            reason = "the NCCL backend is switched off (PA_BACKENDS)";
        else if (list[i]->probe && !list[i]->probe(probe_why, sizeof probe_why))
            reason = "NCCL cannot be loaded here (see parray info)";
        else
            return list[i]->devcomm;
    }
    if (why)
        *why = reason;
    return NULL;
}

/* Why no switched-on backend has a hook: the CUDA backend is the one with devices and a compiler today. */
static int no_device_backend(const char *what)
{
    return pa__err(PA_ERR_NODEV, "%s: %s", what, pa__backend_built("cuda")
                   ? "the CUDA backend is switched off (PA_BACKENDS)"
                   : "this build of parray has no CUDA backend (configure with -Dcuda=enabled where nvcc is installed)");
}

int pa__backends_pointer_device(const void *p, const char *what, int *dev)
{
    for (int i = 0; i < nlist; i++)
        if (list[i]->pointer_device && pa__backend_on(list[i]))
            return list[i]->pointer_device(p, what, dev);
    return no_device_backend(what);
}

int pa__backends_compile(const char *what, const char *name, const char *source, int arch)
{
    for (int i = 0; i < nlist; i++)
        if (list[i]->compile && pa__backend_on(list[i]))
            return list[i]->compile(name, source, arch);
    return no_device_backend(what);
}

const pa__gpu_ops *pa__backends_gpu(const char *what)
{
    for (int i = 0; i < nlist; i++)
        if (list[i]->gpu && pa__backend_on(list[i]))
            return list[i]->gpu;
    no_device_backend(what);
    return NULL;
}

static const pa__trace_ops *tracer(void)
{
    init();
    for (int i = 0; i < nlist; i++)
        if (list[i]->trace && list[i]->trace->push && !(off_mask >> i & 1))
            return list[i]->trace;
    return NULL;
}

void pa__trace_push(int cat, const char *name)
{
    const pa__trace_ops *t = tracer();
    if (t)
        t->push(cat, name);
}

void pa__trace_pop(void)
{
    const pa__trace_ops *t = tracer();
    if (t)
        t->pop();
}

const pa__async_ops *pa__backends_async(const char *what)
{
    for (int i = 0; i < nlist; i++)
        if (list[i]->async && pa__backend_on(list[i]))
            return list[i]->async;
    (void)no_device_backend(what);
    return NULL;
}

void pa__backends_set_threads(int n)
{
    for (int i = 0; i < nlist; i++)
        if (list[i]->set_threads && pa__backend_on(list[i]))
            list[i]->set_threads(n);
}

const pa__mem_ops *pa__backends_mem(const char *name, const pa__backend **owner)
{
    for (int i = 0; i < nlist; i++)
        for (int k = 0; list[i]->mem && list[i]->mem[k]; k++)
            if (strcmp(list[i]->mem[k]->name, name) == 0) {
                if (owner)
                    *owner = list[i];
                return pa__backend_on(list[i]) ? list[i]->mem[k] : NULL;
            }
    if (owner)
        *owner = NULL;
    return NULL;
}

const pa__dist_ops *pa__backends_dist(const char *thread_mtt, const pa__backend **owner)
{
    for (int i = 0; i < nlist; i++)
        if (list[i]->dist && strcmp(list[i]->dist->thread_mtt, thread_mtt) == 0) {
            if (owner)
                *owner = list[i];
            return pa__backend_on(list[i]) ? list[i]->dist : NULL;
        }
    if (owner)
        *owner = NULL;
    return NULL;
}

const pa__launcher *pa__launcher_for(const char *mtt)
{
    for (int i = 0; mtt && i < nlist; i++)
        if (list[i]->launcher && strcmp(list[i]->launcher->mtt, mtt) == 0 && pa__backend_on(list[i]))
            return list[i]->launcher;
    return NULL;
}

int pa_backend_on(const char *name)
{
    const pa__backend *b;
    if (!name)
        return pa__err(PA_ERR_INVAL, "pa_backend_on: NULL name");
    if (!(b = pa__backend_named(name)))
        return known_name(name, strlen(name)) ? 0 : pa__err(PA_ERR_INVAL, "pa_backend_on: no backend is "
                                                            "called '%s' (one of:" ALL_NAMES ")", name);
    return pa__backend_on(b);
}

int pa_backends_print(FILE *f)
{
    if (!f)
        return pa__err(PA_ERR_INVAL, "pa_backends_print: the file is NULL");
    fprintf(f, "backends:\n");
    for (size_t k = 0; k < sizeof all_names / sizeof all_names[0]; k++) {
        const pa__backend *b = pa__backend_named(all_names[k]);
        char why[256] = "";
        if (!b) {
            fprintf(f, "  %-8s not built%s\n", all_names[k], pa__backend_elsewhere(all_names[k])
                    ? " into the shared library (link libparray_gamem.a)" : "");
            continue;
        }
        int on = pa__backend_on(b);
        int usable = on && (!b->probe || b->probe(why, sizeof why));
        fprintf(f, "  %-8s %s  %s%s%s\n", b->name, !on ? "off (PA_BACKENDS)" : usable ? "on" : "on, unusable here",
                b->what, *why ? ": " : "", why);
    }
    return PA_OK;
}
