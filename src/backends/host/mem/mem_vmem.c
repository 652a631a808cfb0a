/*
 * parray — the vmem memory type on the CPU (include/parray/vmem.h): vector-aligned buffers no larger than the
 * vector register file of the widest SIMD set this CPU has, chosen once at run time (cpuid through the
 * compiler's __builtin_cpu_supports; PA_VMEM_ISA may choose a smaller set).
 */
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "mem_internal.h"
#include "tile_internal.h"

typedef struct vmem_isa {
    const char *name;
    int width, registers, level;   /* level: PA__VMEM_ (the tile movers' kernels) */
} vmem_isa;

static const vmem_isa isas[] = {
    {"avx512", 64, 32, PA__VMEM_AVX512},
    {"avx2", 32, 16, PA__VMEM_AVX2},
    {"sse2", 16, 16, PA__VMEM_SCALAR},
    {"scalar", 8, 16, PA__VMEM_SCALAR},
};

static int supported(const vmem_isa *i)
{
#if defined(__x86_64__) || defined(__i386__)
    if (strcmp(i->name, "avx512") == 0)
        return __builtin_cpu_supports("avx512f");
    if (strcmp(i->name, "avx2") == 0)
        return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
    if (strcmp(i->name, "sse2") == 0)
        return __builtin_cpu_supports("sse2");
#endif
    return strcmp(i->name, "scalar") == 0;
}

/* The widest supported set, or the one PA_VMEM_ISA names when it is supported. */
static const vmem_isa *isa(void)
{
    static _Atomic(const vmem_isa *) chosen;
    const vmem_isa *c = atomic_load_explicit(&chosen, memory_order_acquire);
    if (c != NULL)
        return c;
    static atomic_int warned;
    const char *env = getenv("PA_VMEM_ISA");
    int named = 0;
    for (size_t k = 0; k < sizeof isas / sizeof isas[0] && c == NULL; k++) {
        named |= env != NULL && strcmp(env, isas[k].name) == 0;
        if (supported(&isas[k]) && (env == NULL || strcmp(env, isas[k].name) == 0))
            c = &isas[k];
    }
    if (env != NULL && c == NULL)   /* a name that is no set, or one this CPU lacks: warn, then the widest */
        pa__env_warn(&warned, "PA_VMEM_ISA", env, named ? "a set this CPU supports" : "one of avx512, avx2, sse2, scalar",
                     "the widest set this CPU has");
    if (c == NULL)   /* an unknown or unsupported name: the widest set */
        for (size_t k = 0; k < sizeof isas / sizeof isas[0] && c == NULL; k++)
            if (supported(&isas[k]))
                c = &isas[k];
    atomic_store_explicit(&chosen, c, memory_order_release);   /* every thread computes the same */
    return c;
}

const char *pa_vmem_isa(void)
{
    return isa()->name;
}

int pa_vmem_width(void)
{
    return isa()->width;
}

int pa_vmem_registers(void)
{
    return isa()->registers;
}

int pa__vmem_level(void)
{
    return isa()->level;
}

size_t pa__vmem_limit(void)
{
    return (size_t)isa()->width * (size_t)isa()->registers;
}

static int vmem_available(void)
{
    return 1;
}

static int vmem_alloc(size_t bytes, const pa_mem_opts *opts, void **out, void **cookie)
{
    size_t width = (size_t)pa_vmem_width(), alignment = opts->alignment > width ? opts->alignment : width;
    if (bytes > pa__vmem_limit())
        return pa__err(PA_ERR_SIZE, "vmem: %zu bytes do not fit the %s vector register file (%d registers of %d "
                       "bytes, %zu bytes); declare a smaller vmem type or use paged memory", bytes, pa_vmem_isa(),
                       pa_vmem_registers(), pa_vmem_width(), pa__vmem_limit());
    int rc = pa__mem_check_alignment("vmem", alignment);
    if (rc != PA_OK)
        return rc;
    void *p = aligned_alloc(alignment, (bytes + alignment - 1) / alignment * alignment);
    if (p == NULL)
        return pa__err(PA_ERR_NOMEM, "vmem: cannot allocate %zu bytes", bytes);
    *out = p;
    *cookie = NULL;
    return PA_OK;
}

static int vmem_free(void *ptr, size_t bytes, void *cookie)
{
    (void)bytes;
    (void)cookie;
    free(ptr);
    return PA_OK;
}

const pa__mem_ops pa__mem_vmem_ops = {
    .name = "vmem",
    .host_accessible = 1,
    .available = vmem_available,
    .alloc = vmem_alloc,
    .free = vmem_free,
};
