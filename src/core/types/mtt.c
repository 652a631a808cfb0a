/*
 * parray — the registry of memory-and-thread type (mtt) names.
 *
 * Every name PARRAY knows is listed once, with its kind and, for memory types, the backend whose allocator it
 * is (the allocators are in the backends' descriptions, src/core/backends/backends.c) or why none can allocate it.  A
 * backend that is not built or is switched off leaves its names here without an allocator, so that pa_create
 * can say which backend is missing instead of calling the name unknown.
 */
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>

#include "types.h"

typedef struct mtt_entry {
    const char *name;
    pa__mtt_kind kind;
    const char *backend;        /* memory types: the backend whose allocator it is (backends.c has the list) */
    const char *needs;          /* memory types of other backends: what they need, as a fragment of a sentence */
    const char *never;          /* memory types no backend can allocate: why, as a fragment of a sentence */
} mtt_entry;

/* Every name PARRAY knows; the allocators come from the backends' descriptions (pa__backends_mem). */
static const mtt_entry mtt_table[] = {
    {"paged", PA__MTT_MEMORY, "pthread", NULL, NULL},
    {"mmap", PA__MTT_MEMORY, "pthread", NULL, NULL},
    {"numa", PA__MTT_MEMORY, "pthread", NULL, NULL},
    {"vmem", PA__MTT_MEMORY, "pthread", NULL, NULL},
    {"pinned", PA__MTT_MEMORY, "cuda", "it needs the CUDA backend (cudaHostAlloc)", NULL},
    {"dmem", PA__MTT_MEMORY, "cuda", "it needs the CUDA backend (cudaMalloc)", NULL},
    {"mpimem", PA__MTT_MEMORY, "mpi", "it needs the MPI backend (MPI_Alloc_mem)", NULL},
    {"gamem", PA__MTT_MEMORY, "gamem", "it needs the Global Arrays backend (NGA_Create)", NULL},
    {"smem", PA__MTT_MEMORY, NULL, NULL, "CUDA shared memory exists only inside kernels and cannot be created from "
     "the host"},
    {"rmem", PA__MTT_MEMORY, NULL, NULL, "CUDA registers exist only inside kernels and cannot be created from the "
     "host"},
    {"micmem", PA__MTT_MEMORY, NULL, NULL, "it is Xeon Phi (MIC) memory, retired hardware with no backend in this "
     "build"},
    {"pthd", PA__MTT_THREAD, NULL, NULL, NULL},
    {"omp", PA__MTT_THREAD, NULL, NULL, NULL},
    {"cuda", PA__MTT_THREAD, NULL, NULL, NULL},
    {"mpi", PA__MTT_THREAD, NULL, NULL, NULL},
    {"mic", PA__MTT_THREAD, NULL, NULL, NULL},
};

static const mtt_entry *mtt_lookup(const char *name)
{
    if (name == NULL)
        return NULL;
    for (size_t i = 0; i < sizeof mtt_table / sizeof mtt_table[0]; i++)
        if (strcmp(mtt_table[i].name, name) == 0)
            return &mtt_table[i];
    return NULL;
}

pa__mtt_kind pa__mtt_kind_of(const char *name)
{
    const mtt_entry *e = mtt_lookup(name);
    return e ? e->kind : PA__MTT_NONE;
}

/* Allocators found, by entry: every copy asks for its sides' memory, and a backend's allocator never changes
 * once found (PA_BACKENDS is read once; late registration only adds).  Misses are not kept: they are errors. */
static const pa__mem_ops *_Atomic found[sizeof mtt_table / sizeof mtt_table[0]];

const pa__mem_ops *pa__mem_find(const char *name)
{
    const mtt_entry *e = mtt_lookup(name);
    if (!e || !e->backend)
        return NULL;
    const pa__mem_ops *ops = atomic_load_explicit(&found[e - mtt_table], memory_order_acquire);
    if (!ops && (ops = pa__backends_mem(name, NULL)))
        atomic_store_explicit(&found[e - mtt_table], ops, memory_order_release);
    return ops;
}

const char *pa__mem_missing(const char *name)
{
    static _Thread_local char why[320];
    const mtt_entry *e = mtt_lookup(name);
    const pa__backend *owner;
    if (e == NULL || e->kind != PA__MTT_MEMORY)
        return NULL;
    if (!e->backend)
        return e->never;
    if (pa__backends_mem(name, &owner))
        return NULL;
    if (owner)
        snprintf(why, sizeof why, "%s, which is switched off (PA_BACKENDS)", e->needs);
    else if (pa__backend_elsewhere(e->backend))
        snprintf(why, sizeof why, "%s", pa__backend_elsewhere(e->backend));
    else
        snprintf(why, sizeof why, "%s, which this build does not have", e->needs);
    return why;
}

int pa_mtt_available(const char *mtt)
{
    const pa__mem_ops *ops = pa__mem_find(mtt);
    return ops != NULL && ops->available() ? 1 : 0;
}
