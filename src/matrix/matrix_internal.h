/*
 * parray — the matrix module's internal declarations (src/matrix/): where a matrix lives, raw allocation in any
 * memory type, header and zero-fill access across memories, and the view types every operation copies through.
 * Never included by a public header.
 */
#ifndef PARRAY_MATRIX_INTERNAL_H
#define PARRAY_MATRIX_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include "internal.h"
#include "parray/copy.h"
#include "parray/matrix.h"
#include "parray/mem.h"

#define PA__MATRIX_HEADER ((size_t)sizeof(pa_matrix))

/* Where a matrix lives. */
typedef struct pa__mloc {
    const char *mtt;   /* "paged" for malloc'd matrices */
    int device;        /* 1 for dmem: the CPU cannot touch it */
    size_t bytes;      /* the allocation's size when made by pa_create, else 0 (unknown) */
    int registered;    /* 1 when made by pa_create */
} pa__mloc;

/** Finds where m lives.  \return PA_OK, or PA_ERR_MTT for memory the module cannot reach (gamem, mpimem, mmap). */
int pa__matrix_locate(const pa_matrix *m, pa__mloc *out);

/** Reads m's header into *h and checks it against the allocation.  \return as pa_matrix_check. */
int pa__matrix_read_header(const pa_matrix *m, const pa__mloc *loc, pa_matrix *h);

/**
 * Allocates a matrix of h in memory mtt (NULL: paged) with its header written and its elements NOT cleared.
 * \return PA_OK and *out, or an error with nothing allocated.
 */
int pa__matrix_alloc(const char *mtt, const pa_matrix *h, pa_matrix **out);

/**
 * Zeroes a block of a matrix's elements: count runs of len elements, the first at element off, the next ones
 * every pitch elements (column-major pads of rbind/cbind).  Host memory by memset, dmem on the GPU: waited for,
 * or with queue set only queued on the default stream (pa__matrix_gpu_wait).
 */
int pa__matrix_zero(pa_matrix *m, const pa__mloc *loc, size_t esz, int64_t off, int64_t len, int64_t pitch,
                    int64_t count, int queue);

/* Element orders of a view: the flat index runs over (row, column) row-major, or column by column. */
typedef enum pa__morder { PA__BY_ROWS, PA__BY_COLUMNS } pa__morder;

/**
 * A parray type over the window rows x cols of a matrix of height ld stored in mtt, whose element (0, 0) is at
 * element offset base from the matrix pointer: offset(i, j) = base + j * ld + i, flat index i * cols + j
 * (PA__BY_ROWS) or j * rows + i (PA__BY_COLUMNS).  Declared anonymously in scope.  rows, cols >= 1.
 * \return the type or NULL with the error set.
 */
const pa_type *pa__matrix_view(pa_scope *scope, const char *mtt, int elm, int64_t rows, int64_t cols, int64_t ld,
                               int64_t base, pa__morder order);

/*
 * The view cache: rbind, cbind and transpose take their windows from a process-wide cache of views, so that a
 * repeated operation (the same shapes, a loop over batches) neither parses nor compiles its types again and
 * its copies find their plans in the per-thread memos.  A caller brackets its gets with begin and end; the
 * cache's views stay valid until end.  The cache holds VIEW_SLOTS views and is emptied, when full, by the next
 * begin that finds no other user; a get that finds it full meanwhile declares into the caller's own scope.
 */
typedef struct pa__mviews {
    pa_scope *own;   /* the views that did not fit in the cache, destroyed by end */
} pa__mviews;

/** Starts using the view cache. */
void pa__matrix_views_begin(pa__mviews *v);

/** pa__matrix_view's window, from the cache (or v's own scope).  \return the type or NULL with the error set. */
const pa_type *pa__matrix_view_get(pa__mviews *v, const char *mtt, int elm, int64_t rows, int64_t cols, int64_t ld,
                                   int64_t base, pa__morder order);

/** Stops using the view cache: the views got since begin may be dropped from then on. */
void pa__matrix_views_end(pa__mviews *v);

/** The element offset of a matrix's element (0, 0) from its pointer: 16 / element size. */
static inline int64_t pa__matrix_base(size_t esz)
{
    return (int64_t)(PA__MATRIX_HEADER / esz);
}

/* ---- the GPU side (matrix_gpu.c; matrix_gpu_stub.c in builds without CUDA) ---------------------------- */

/** Copies bytes between host and device memory (to_device: host src to device dst).  \return PA_OK or an error. */
int pa__matrix_gpu_memcpy(void *dst, const void *src, size_t bytes, int to_device);

/** cudaMemset2D on the current GPU: count rows of len bytes every pitch bytes from dst; waited for, or with
 *  queue set queued on the default stream. */
int pa__matrix_gpu_zero2d(void *dst, size_t pitch, size_t len, size_t count, int queue);

/** Waits for the default stream (the copies and zero fills rbind and cbind queue).  \return PA_OK or the error of
 *  what was queued. */
int pa__matrix_gpu_wait(void);

/** C = A B on the GPU for dmem matrices whose headers are ha, hb (checked: float/double, inner sizes equal),
 *  through pa_gemm_dmem (matrix_gpu.c); c is allocated with C's header. */
int pa__matrix_gpu_gemm(const pa_matrix *a, const pa_matrix *ha, const pa_matrix *b, const pa_matrix *hb,
                        pa_matrix *c);

/**
 * The generated source of the GPU multiply's kernel for float or double matrices m x k times k x n (malloc'd,
 * the caller frees; NULL with the error set, always without CUDA), for the test that compiles it without a GPU.
 */
char *pa__matrix_gemm_source(int elm, int64_t m, int64_t n, int64_t k);

#endif
