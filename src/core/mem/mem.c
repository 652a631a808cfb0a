/*
 * parray — create and destroy arrays (PARRAY's create/malloc and destroy).
 *
 * pa_create sizes the array from the type's extent, not its size: a window into a larger array reaches
 * offsets past its own size, and every offset the type can produce must land inside the allocation.  The
 * memory type's allocator (src/core/types/mtt.c) does the work, and the allocation table (mem_registry.c) remembers
 * who made each pointer, so that pa_destroy can refuse what it did not make.
 */
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>

#include "mem_internal.h"

void pa_mem_opts_init(pa_mem_opts *opts)
{
    if (opts == NULL)
        return;
    memset(opts, 0, sizeof *opts);
    opts->size = sizeof *opts;
    opts->alignment = PA__MEM_DEFAULT_ALIGNMENT;
    opts->numa_node = -1;
    opts->mmap_fd = -1;
    opts->mmap_offset = 0;
    opts->mmap_prot = PROT_READ | PROT_WRITE;
    /* 0 lets the allocator choose: MAP_SHARED for a file, MAP_PRIVATE | MAP_ANONYMOUS without one. */
    opts->mmap_flags = 0;
    opts->mmap_addr = NULL;
}

/* The name a message uses for a type: its handle name, or a placeholder if even that is missing. */
static const char *type_label(const pa_type *type)
{
    const char *name = pa_type_name(type);
    return name ? name : "(unnamed)";
}

/*
 * Reports a type whose mtt is no memory type: "distributed" (its references span several memory or thread
 * types, e.g. a process dimension over a memory dimension), "any" (none given) or a name the registry lacks.
 */
static int distributed_or_unknown(const pa_type *type, const char *mtt)
{
    if (mtt != NULL && strcmp(mtt, "distributed") == 0)
        return pa__err(PA_ERR_MTT, "cannot allocate '%s': it is a distributed type, whose dimensions refer to "
                                   "types of several memory or thread types; create its memory part instead",
                       type_label(type));
    return pa__err(PA_ERR_MTT, "cannot allocate '%s': '%s' is not a memory type; declare the type with one "
                               "(e.g. \"paged float [...]\")", type_label(type), mtt ? mtt : "(null)");
}

size_t pa_alloc_bytes(const pa_type *type)
{
    int64_t min_off, max_off;
    size_t elm, bytes;
    const char *mtt;
    int rc;

    if (type == NULL) {
        pa__err(PA_ERR_INVAL, "pa_alloc_bytes: the type is NULL");
        return 0;
    }
    mtt = pa_mtt(type);
    if (pa__mtt_kind_of(mtt) == PA__MTT_THREAD) {
        pa__err(PA_ERR_MTT, "cannot allocate a thread type: '%s' is of thread type '%s'", type_label(type), mtt);
        return 0;
    }
    if (mtt != NULL && strcmp(mtt, "distributed") == 0) {
        /* Offsets through a thread dimension are not addresses in one array: there is no byte count. */
        distributed_or_unknown(type, mtt);
        return 0;
    }
    elm = pa_elm_size(type);
    if (elm == 0) {
        pa__err(PA_ERR_ELM, "type '%s' has no element type, so its arrays have no size in bytes; "
                            "declare one (e.g. \"paged float [...]\")", type_label(type));
        return 0;
    }
    rc = pa_extent(type, &min_off, &max_off);
    if (rc != PA_OK)
        return 0;   /* pa_extent has set the message */
    if (min_off < 0) {
        pa__err(PA_ERR_RANGE, "type '%s' reaches negative offsets (down to %lld); an array made by pa_create "
                              "starts at offset 0", type_label(type), (long long)min_off);
        return 0;
    }
    if (max_off == INT64_MAX || (uint64_t)max_off + 1 > SIZE_MAX ||
        __builtin_mul_overflow((size_t)max_off + 1, elm, &bytes)) {
        pa__err(PA_ERR_RANGE, "type '%s' needs %llu elements (largest offset %lld) of %zu bytes, which "
                              "overflows a byte count", type_label(type), (unsigned long long)max_off + 1,
                (long long)max_off, elm);
        return 0;
    }
    return bytes;
}

/* The allocator of a type's memory type, or NULL with the reason in the error message. */
static const pa__mem_ops *ops_for_type(const pa_type *type)
{
    const char *mtt = pa_mtt(type);
    const pa__mem_ops *ops = pa__mem_find(mtt);
    const char *missing;

    if (ops != NULL)
        return ops;
    switch (pa__mtt_kind_of(mtt)) {
    case PA__MTT_THREAD:
        pa__err(PA_ERR_MTT, "cannot allocate a thread type: '%s' is of thread type '%s'", type_label(type), mtt);
        break;
    case PA__MTT_MEMORY:
        missing = pa__mem_missing(mtt);
        pa__err(PA_ERR_MTT, "cannot allocate '%s' of memory type '%s': %s", type_label(type), mtt,
                missing ? missing : "no allocator is registered for it");
        break;
    default:
        distributed_or_unknown(type, mtt);
        break;
    }
    return NULL;
}

void *pa_create_opts(const pa_type *type, const pa_mem_opts *opts)
{
    pa_mem_opts defaults;
    const pa__mem_ops *ops;
    pa__alloc_rec rec;
    void *ptr = NULL;
    size_t bytes;
    int rc;

    if (pa__type_usable(type, "pa_create") != PA_OK)
        return NULL;
    if (opts == NULL) {
        pa_mem_opts_init(&defaults);
        opts = &defaults;
    }
    if (opts->size != sizeof *opts) {
        pa__err(PA_ERR_INVAL, "pa_create_opts(%s): the options' size is %zu, not %zu: initialise them with "
                "pa_mem_opts_init (or the program was compiled with other headers than this library's %s)",
                type ? pa_type_name(type) : "NULL", opts->size, sizeof *opts, PA_VERSION_STRING);
        return NULL;
    }
    ops = ops_for_type(type);
    if (ops == NULL)
        return NULL;
    bytes = pa_alloc_bytes(type);
    if (bytes == 0 && (pa_size(type) > 0 || pa__bound(type, "pa_create") != PA_OK))
        return NULL;   /* pa_alloc_bytes has said why; an unbound handle has no size, but is no empty type */
    if (bytes == 0) {   /* an empty type: room for one element, so that the pointer is a real, distinct array */
        if ((bytes = pa_elm_size(type)) == 0)
            return NULL;   /* pa_alloc_bytes has said why (no element type) */
        if (ops->alloc_type != NULL || ops->alloc == NULL) {
            pa__err(PA_ERR_UNSUPPORTED, "pa_create(%s): the type has no elements, and %s memory has no empty "
                    "arrays (its arrays are made in the type's shape, and no dimension may be 0 there)",
                    type_label(type), ops->name);
            return NULL;
        }
    }
    /* The allocator, not a prior available() check, reports unavailability: it knows the precise reason. */
    rc = ops->alloc_type ? ops->alloc_type(type, bytes, opts, &ptr, &rec.cookie)
                         : ops->alloc(bytes, opts, &ptr, &rec.cookie);
    if (rc != PA_OK)
        return NULL;
    rec.ops = ops;
    rec.bytes = bytes;
    rc = pa__alloc_register(ptr, &rec);
    if (rc != PA_OK)
        goto fail;
    return ptr;

fail:
    /* Release quietly: the registration failure is the error the caller should see. */
    ops->free(ptr, bytes, rec.cookie);
    if (rc == PA_ERR_EXISTS)
        pa__err(PA_ERR_INVAL, "pa_create: the %s allocator returned %p, which is already a live array "
                              "(was mmap_addr given with MAP_FIXED over an existing array?)", ops->name, ptr);
    else
        pa__err(PA_ERR_NOMEM, "pa_create: cannot record the new %zu-byte array in the allocation table", bytes);
    return NULL;
}

void *pa_create(const pa_type *type)
{
    return pa_create_opts(type, NULL);
}

int pa_destroy(const pa_type *type, void *ptr)
{
    const pa__mem_ops *ops;
    pa__alloc_rec rec;
    const char *mtt;

    if (ptr == NULL)
        return PA_OK;
    if (pa__type_usable(type, "pa_destroy") != PA_OK)
        return PA_ERR_INVAL;
    mtt = pa_mtt(type);
    ops = pa__mem_find(mtt);
    /* Any type of the array's memory type will do, whatever its size: the allocation table's record says what
     * to release (the bytes pa_create allocated), never the type. */
    switch (pa__alloc_unregister(ptr, ops, &rec)) {
    case PA__ALLOC_TAKEN:
        break;
    case PA__ALLOC_UNKNOWN:
        return pa__err(PA_ERR_INVAL, "pa_destroy(%s, %p): the pointer was not made by pa_create, or was already "
                                     "destroyed", type_label(type), ptr);
    case PA__ALLOC_OTHER_MTT:
    default:
        return pa__err(PA_ERR_INVAL, "pa_destroy(%s, %p): the array was made as %s memory, but the type is of "
                                     "%s '%s'; destroy it through a type of memory type %s", type_label(type),
                       ptr, rec.ops->name, pa__mtt_kind_of(mtt) == PA__MTT_THREAD ? "thread type" : "memory type",
                       mtt ? mtt : "(null)", rec.ops->name);
    }
    return ops->free(ptr, rec.bytes, rec.cookie);
}

int pa_gamem_handle(const void *data, int *handle)
{
    const pa__mem_ops *ops = pa__mem_find("gamem");
    const char *missing = pa__mem_missing("gamem");
    if (data == NULL || handle == NULL)
        return pa__err(PA_ERR_INVAL, "pa_gamem_handle: %s is NULL", data == NULL ? "the array" : "the handle");
    if (ops == NULL || ops->handle == NULL)
        return pa__err(PA_ERR_MTT, "pa_gamem_handle: %s", missing ? missing : "there is no gamem allocator");
    return ops->handle(data, handle);
}

int pa__mem_check_alignment(const char *mtt, size_t alignment)
{
    /* posix_memalign's own rule; a smaller power of two would be satisfied by any malloc anyway. */
    if (alignment < sizeof(void *) || (alignment & (alignment - 1)) != 0)
        return pa__err(PA_ERR_INVAL, "%s: alignment %zu is not a power of two of at least sizeof(void *) = %zu",
                       mtt, alignment, sizeof(void *));
    return PA_OK;
}
