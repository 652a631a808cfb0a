/*
 * parray — the registry of memory-and-thread type (mtt) names.
 *
 * Every name PARRAY knows is listed once, with its kind and, for memory types, either the allocator this build
 * has for it or the reason it has none.  The host allocators are registered statically; a backend that is not
 * built leaves its names in the table without an allocator, so that pa_create can say which backend is
 * missing instead of calling the name unknown.
 */
#include <string.h>

#include "mem_internal.h"
#include "pa_config.h"

typedef struct mtt_entry {
    const char *name;
    pa__mtt_kind kind;
    const pa__mem_ops *ops;     /* memory types with an allocator in this build, else NULL */
    const char *missing;        /* memory types without one: why, as a fragment of a sentence */
} mtt_entry;

/*
 * The CUDA backend registers pinned and dmem under PA_HAVE_CUDA and the MPI backend mpimem under PA_HAVE_MPI.
 * gamem has no allocator in the table: the Global Arrays backend (src/backends/ga) is built into a separate
 * static library, because Debian's Global Arrays is not position-independent and cannot go into the shared
 * library, and that library's constructor registers it through pa__mtt_register_late.
 */
static const mtt_entry mtt_table[] = {
    {"paged", PA__MTT_MEMORY, &pa__mem_paged_ops, NULL},
    {"mmap", PA__MTT_MEMORY, &pa__mem_mmap_ops, NULL},
    {"numa", PA__MTT_MEMORY, &pa__mem_numa_ops, NULL},
#if PA_HAVE_CUDA
    {"pinned", PA__MTT_MEMORY, &pa__mem_pinned_ops, NULL},
    {"dmem", PA__MTT_MEMORY, &pa__mem_dmem_ops, NULL},
#else
    {"pinned", PA__MTT_MEMORY, NULL, "it needs the CUDA backend (cudaHostAlloc), which this build does not have"},
    {"dmem", PA__MTT_MEMORY, NULL, "it needs the CUDA backend (cudaMalloc), which this build does not have"},
#endif
#if PA_HAVE_MPI
    {"mpimem", PA__MTT_MEMORY, &pa__mem_mpimem_ops, NULL},
#else
    {"mpimem", PA__MTT_MEMORY, NULL, "it needs the MPI backend (MPI_Alloc_mem), which this build does not have"},
#endif
#if PA_HAVE_GA
    {"gamem", PA__MTT_MEMORY, NULL,
     "gamem is available in the static library only (linked together with libparray_gamem.a): Debian's Global "
     "Arrays is not position-independent, so the shared library cannot contain it"},
#else
    {"gamem", PA__MTT_MEMORY, NULL,
     "it needs the Global Arrays backend (NGA_Create), which this build does not have"},
#endif
    {"smem", PA__MTT_MEMORY, NULL,
     "CUDA shared memory exists only inside kernels and cannot be created from the host"},
    {"rmem", PA__MTT_MEMORY, NULL, "CUDA registers exist only inside kernels and cannot be created from the host"},
    {"micmem", PA__MTT_MEMORY, NULL, "it is Xeon Phi (MIC) memory, retired hardware with no backend in this build"},
    {"vmem", PA__MTT_MEMORY, &pa__mem_vmem_ops, NULL},
    {"pthd", PA__MTT_THREAD, NULL, NULL},
    {"omp", PA__MTT_THREAD, NULL, NULL},
    {"cuda", PA__MTT_THREAD, NULL, NULL},
    {"mpi", PA__MTT_THREAD, NULL, NULL},
    {"mic", PA__MTT_THREAD, NULL, NULL},
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

/* Set before main by pa__mtt_register_late (a constructor), read-only afterwards. */
static const pa__mem_ops *late_ops;
static const pa__strategy *const *late_strategies;

int pa__mtt_register_late(const pa__mem_ops *ops, const pa__strategy *const *strategies)
{
    const mtt_entry *e = mtt_lookup(ops ? ops->name : NULL);
    if (e == NULL || e->kind != PA__MTT_MEMORY || e->ops != NULL)
        return PA_ERR_MTT;
    late_ops = ops;
    late_strategies = strategies;
    return PA_OK;
}

const pa__strategy *const *pa__mtt_late_strategies(void)
{
    return late_strategies;
}

/* The allocator of an entry: its own, or the one registered late for its name. */
static const pa__mem_ops *ops_of(const mtt_entry *e)
{
    if (e->ops != NULL)
        return e->ops;
    return late_ops != NULL && strcmp(late_ops->name, e->name) == 0 ? late_ops : NULL;
}

pa__mtt_kind pa__mtt_kind_of(const char *name)
{
    const mtt_entry *e = mtt_lookup(name);
    return e ? e->kind : PA__MTT_NONE;
}

const pa__mem_ops *pa__mem_find(const char *name)
{
    const mtt_entry *e = mtt_lookup(name);
    return e ? ops_of(e) : NULL;
}

const char *pa__mem_missing(const char *name)
{
    const mtt_entry *e = mtt_lookup(name);
    if (e == NULL || e->kind != PA__MTT_MEMORY)
        return NULL;
    return ops_of(e) ? NULL : e->missing;
}

int pa_mtt_available(const char *mtt)
{
    const pa__mem_ops *ops = pa__mem_find(mtt);
    return ops != NULL && ops->available() ? 1 : 0;
}

int pa__mem_check_alignment(const char *mtt, size_t alignment)
{
    /* posix_memalign's own rule; a smaller power of two would be satisfied by any malloc anyway. */
    if (alignment < sizeof(void *) || (alignment & (alignment - 1)) != 0)
        return pa__err(PA_ERR_INVAL, "%s: alignment %zu is not a power of two of at least sizeof(void *) = %zu",
                       mtt, alignment, sizeof(void *));
    return PA_OK;
}
