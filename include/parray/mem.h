/*
 * parray — memory: create and destroy arrays of a type's memory type.
 *
 * The pointer and its type stay separate, as in PARRAY: the same pointer may be read through several types.
 * pa_create() allocates enough elements for every offset of the type (its extent: the largest offset + 1,
 * which is the size for ordinary types and more for a window into a larger array).
 *
 * Host memory types: paged (aligned malloc), numa (libnuma: on a node, or interleaved), mmap (a file image;
 * destroy writes it back).  Other memory types come with their backends (pinned, dmem, mpimem, gamem).  A gamem
 * array's pointer is an opaque handle (only pa_copy and Global Arrays reach its elements), and pa_create and
 * pa_destroy of a gamem type are collective over the processes that run them (see mpi.h).
 */
#ifndef PARRAY_MEM_H
#define PARRAY_MEM_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "error.h"
#include "type.h"

#ifdef __cplusplus
extern "C" {
#endif

/**
 * Options for pa_create_opts(); initialise with pa_mem_opts_init(), then set the fields you need.  Room to grow:
 * `size` (set by pa_mem_opts_init to the size of the structure the program was compiled with) lets a later
 * library tell which fields a program knows, and the reserved words are for fields to come (keep them zero).
 */
typedef struct pa_mem_opts {
    size_t size;          /**< sizeof(pa_mem_opts) as the program saw it: set by pa_mem_opts_init */
    size_t alignment;     /**< paged/numa: alignment in bytes, a power of two (default 64) */
    int numa_node;        /**< numa: the node to place on; -1 (default) interleaves over all nodes */
    int mmap_fd;          /**< mmap: file descriptor (PARRAY's mmap_file); -1 maps anonymous memory */
    off_t mmap_offset;    /**< mmap: offset in the file, a multiple of the page size (default 0) */
    int mmap_prot;        /**< mmap: PROT_* (default PROT_READ|PROT_WRITE) */
    int mmap_flags;       /**< mmap: MAP_* (default 0: MAP_SHARED for a file, MAP_PRIVATE|MAP_ANONYMOUS
                               when mmap_fd is -1, where MAP_ANONYMOUS is always added) */
    void *mmap_addr;      /**< mmap: address hint (default NULL) */
    uint64_t reserved[8]; /**< for later options: zero */
} pa_mem_opts;

/** Fills opts with the defaults. */
PA_API void pa_mem_opts_init(pa_mem_opts *opts);

/**
 * Allocates an array of the type's memory type (PARRAY's create/malloc) with default options.  An empty type
 * (a dimension of size 0) gets room for one element, a distinct array; gamem has no empty arrays
 * (PA_ERR_UNSUPPORTED).
 * \return the pointer, or NULL with the error set: PA_ERR_INVAL (NULL type, bad options: alignment, mmap
 *         descriptor, offset or flags), PA_ERR_MTT (a thread type, no memory type, or no allocator for it in
 *         this build: the message names the missing backend), PA_ERR_NODEV (numa: built without libnuma, or
 *         NUMA not available on this machine), PA_ERR_ELM (no element type), PA_ERR_RANGE (negative offsets,
 *         a byte count that overflows, an mmap file shorter than offset + bytes, a numa node out of range),
 *         PA_ERR_NOMEM (with the byte count), PA_ERR_SYS (fstat or mmap failed, with errno's text).
 */
PA_API void *pa_create(const pa_type *type);

/** As pa_create() with options (NULL: defaults). */
PA_API void *pa_create_opts(const pa_type *type, const pa_mem_opts *opts);

/**
 * Frees an array made by pa_create() (PARRAY's destroy).  For mmap the image is written back (msync) and
 * unmapped.  NULL is accepted and does nothing.
 * \return PA_OK, PA_ERR_INVAL (NULL type; the pointer was not made by pa_create, was already destroyed,
 *         or was made for another memory type),
 *         PA_ERR_SYS (msync/munmap failed; the mapping is still released where possible).
 */
PA_API int pa_destroy(const pa_type *type, void *ptr);

/**
 * Number of bytes pa_create() allocates for the type: (largest offset + 1) * element size.
 * \return the count, or 0 with the error set (PA_ERR_INVAL, PA_ERR_MTT for a thread type, PA_ERR_ELM,
 *         PA_ERR_RANGE); 0 with no error for an empty type (a dimension of size 0).
 */
PA_API size_t pa_alloc_bytes(const pa_type *type);

/** \return 1 if the memory type name is known and usable on this machine, else 0. */
PA_API int pa_mtt_available(const char *mtt);

/**
 * The Global Arrays handle of a gamem array: PARRAY's integer handle (manual §3.4), for Global Arrays' own
 * calls on it, such as listing 17's GA_Print_distribution(data).  data is the pointer pa_create returned (a
 * reserved address range, not memory: only pa_copy and Global Arrays reach the elements); it is valid on the
 * processes that created the array.
 * \return PA_OK with *handle set, else (*handle untouched) PA_ERR_INVAL (NULL argument, or data is not inside a
 *         live gamem array of this process) or PA_ERR_MTT (no gamem here: a build without Global Arrays, or a
 *         program linked with the shared library, which cannot contain it; the message says which).
 */
PA_API int pa_gamem_handle(const void *data, int *handle);

#ifdef __cplusplus
}
#endif
#endif
