/*
 * parray — the array-based matrix (PG-Strom's array_matrix): a 2-D array of one element type without NULLs,
 * stored as a 16-byte header followed by the packed elements, column-major (element (i, j) at
 * data[j * height + i]).  The same bytes are used on the host and on the GPU, so a matrix moves between them
 * with one copy; PL/CUDA functions (kernel.h) take and return matrices in this form.
 *
 * A matrix lives in any memory the library can address from the host or a GPU: plain malloc'd memory (the
 * results of PL/CUDA calls, and the deprecated pa_matrix_create), or an array of paged, pinned, numa or dmem
 * memory made by pa_matrix_create_in (pa_create underneath: the allocation table knows its memory type and size).  Every
 * call below takes a matrix in any of them and puts its result in the memory of its (first) argument; a dmem
 * matrix is worked on by the GPU.  A matrix is also a parray type: pa_matrix_type gives the type that views
 * its elements by (row, column), so pa_copy, pa_map, pa_for and tiles work on matrices unchanged.
 *
 * The SQL functions of PG-Strom's PL/CUDA chapter and their calls here (docs/manual-map.md):
 *     array_matrix(variadic arg, ...)    pa_matrix_rows_* (row by row, blocks), pa_matrix_from_columns,
 *                                        pa_matrix_from_csv
 *     matrix_unnest(array)               pa_matrix_unnest_rows (a callback per row), pa_matrix_unnest_columns
 *     rbind(array, array) / rbind(array) pa_matrix_rbind / pa_matrix_rbind_n
 *     cbind(array, array) / cbind(array) pa_matrix_cbind / pa_matrix_cbind_n
 *     transpose(array)                   pa_matrix_transpose
 *     array_matrix_validation(anyarray)  pa_matrix_validate (bytes given), pa_matrix_check (any memory)
 *     array_matrix_height / _width       pa_matrix_nrows / pa_matrix_ncols
 *     array_matrix_rawsize(t, h, w)      pa_matrix_rawsize
 * and pa_matrix_gemm (C = A B on host threads or the GPU).
 *
 * Errors are reported as described in error.h; outputs are written only on success, and a failing call
 * leaves nothing allocated.
 */
#ifndef PARRAY_MATRIX_H
#define PARRAY_MATRIX_H

#include <stddef.h>
#include <stdint.h>

#include "error.h"
#include "type.h"

#ifdef __cplusplus
extern "C" {
#endif

/** Element types of a matrix: int16, int32, int64, float, double (PG-Strom's smallint .. float). */
typedef enum pa_matrix_elm {
    PA_MATRIX_SHORT = 1,
    PA_MATRIX_INT = 2,
    PA_MATRIX_LONG = 3,
    PA_MATRIX_FLOAT = 4,
    PA_MATRIX_DOUBLE = 5
} pa_matrix_elm;

/** The header; the elements follow it at byte 16 (pa_matrix_data). */
typedef struct pa_matrix {
    int32_t elm;        /* a pa_matrix_elm */
    int32_t height;     /* rows, >= 0 */
    int32_t width;      /* columns, >= 0 */
    int32_t magic;      /* PA_MATRIX_MAGIC */
} pa_matrix;

#define PA_MATRIX_MAGIC 0x584d4150 /* "PAMX" */

/* ---- the format ----------------------------------------------------------------------------------- */

/** Bytes of one element of elm, 0 for an unknown elm. */
PA_API size_t pa_matrix_elm_size(int elm);

/** The parray element type name of elm ("int16_t", "int32_t", "int64_t", "float", "double"), NULL if unknown. */
PA_API const char *pa_matrix_elm_name(int elm);

/**
 * Bytes a matrix of elm, height and width occupies, header included (PG-Strom's array_matrix_rawsize), for
 * results_bufsz and working_bufsz callbacks.  \return the size, or 0 for an unknown elm, negative dimensions,
 * dimensions above 2^31-1, or a size that does not fit in 2^62.
 */
PA_API size_t pa_matrix_rawsize(int elm, int64_t height, int64_t width);


/**
 * Allocates a zeroed matrix in memory of type mtt ("paged", "pinned", "numa", "dmem" on the current GPU; NULL
 * is "paged") through pa_create, with its header written.
 * \return PA_OK and *out; PA_ERR_INVAL (elm unknown, a dimension negative or above 2^31-1, NULL out),
 *         PA_ERR_MTT (not a memory type, or one the matrix module cannot reach: gamem, mpimem, mmap), and the
 *         errors of pa_create (PA_ERR_NOMEM, PA_ERR_NODEV for dmem without a GPU).
 */
PA_API int pa_matrix_create_in(const char *mtt, int elm, int64_t height, int64_t width, pa_matrix **out);

/**
 * Deprecated (a constructor returns a status and its object through its last parameter): allocates a zeroed
 * matrix in malloc'd host memory (free with pa_matrix_destroy or free).  Use pa_matrix_create_in(NULL, elm,
 * height, width, &m), a paged matrix freed with pa_matrix_destroy.  Removed in the next release.
 * \return the matrix, or NULL with the error set: PA_ERR_INVAL (elm unknown, dimension negative or above
 *         2^31-1), PA_ERR_NOMEM.
 */
PA_API PA_DEPRECATED("use pa_matrix_create_in(NULL, ...)") pa_matrix *pa_matrix_create(int elm, int64_t height,
                                                                                          int64_t width);

/**
 * Frees a matrix from pa_matrix_create_in, pa_matrix_create, any call below or a PL/CUDA call, in whatever
 * memory it lives.  NULL is ignored.
 */
PA_API void pa_matrix_destroy(pa_matrix *m);

/** The first element (column 0, row 0) of a matrix in any memory (a device pointer for dmem). */
PA_API void *pa_matrix_data(pa_matrix *m);

/**
 * Checks that bytes bytes of host memory at m hold a sound matrix (PG-Strom's array_matrix_validation):
 * magic, known elm, dimensions in [0, 2^31-1], and rawsize <= bytes.  \return PA_OK or PA_ERR_INVAL with the reason.
 */
PA_API int pa_matrix_validate(const pa_matrix *m, size_t bytes);

/**
 * array_matrix_validation for a matrix in any memory: reads its header (from the GPU for dmem) and checks it
 * as pa_matrix_validate does, against the allocation's size when the matrix was made by pa_create (else
 * against its own rawsize).  \return PA_OK or PA_ERR_INVAL with the reason; PA_ERR_NODEV, PA_ERR_SYS reading
 * a dmem header.
 */
PA_API int pa_matrix_check(const pa_matrix *m);

/** Reads and checks (as pa_matrix_check) the header of a matrix in any memory into *out.  \return as pa_matrix_check. */
PA_API int pa_matrix_header(const pa_matrix *m, pa_matrix *out);

/** array_matrix_height: the rows of a matrix in any memory.  \return the height, or -1 with the error set. */
PA_API int64_t pa_matrix_nrows(const pa_matrix *m);

/** array_matrix_width: the columns of a matrix in any memory.  \return the width, or -1 with the error set. */
PA_API int64_t pa_matrix_ncols(const pa_matrix *m);

/* Deprecated (sizes are 64-bit): pa_matrix_nrows and pa_matrix_ncols as int32_t; removed in the next release. */
PA_API PA_DEPRECATED("use pa_matrix_nrows (int64_t)") int32_t pa_matrix_height(const pa_matrix *m);
PA_API PA_DEPRECATED("use pa_matrix_ncols (int64_t)") int32_t pa_matrix_width(const pa_matrix *m);

/** The memory type a matrix lives in: its allocation's ("paged", "pinned", "dmem", ...), "paged" for malloc'd. */
PA_API const char *pa_matrix_mtt(const pa_matrix *m);

/* ---- the matrix as a parray type ------------------------------------------------------------------------- */

/**
 * The parray type, declared anonymously in scope, that views a matrix's elements by (row, column): a 2-D type
 * [height][width] of the matrix's element type and memory type whose offset (i, j) is the element's position
 * counted in elements from the matrix pointer itself (header included: 16 / element size + j * height + i).
 * Pass the pa_matrix pointer as the array: pa_copy(pa_matrix_type(s, m), m, ...).  Its flat index is
 * row-major (i * width + j), so a copy from a row-major block of rows fills the matrix.
 * \return the type, or NULL with the error set: PA_ERR_INVAL (NULL), PA_ERR_RANGE (an empty matrix: parray
 *         types have no dimension of size 0), the errors of pa_matrix_check.
 */
PA_API const pa_type *pa_matrix_type(pa_scope *scope, const pa_matrix *m);

/** As pa_matrix_type for a matrix described by mtt (NULL: paged), elm, height and width. */
PA_API const pa_type *pa_matrix_type_of(pa_scope *scope, const char *mtt, int elm, int64_t height, int64_t width);

/**
 * A copy of a matrix in memory of type mtt (NULL: paged): the same bytes, moved by one pa_copy.
 * \return PA_OK and *out, or the errors of pa_matrix_check, pa_matrix_create_in and pa_copy.
 */
PA_API int pa_matrix_copy_to(const pa_matrix *m, const char *mtt, pa_matrix **out);

/* ---- building from rows (array_matrix) ------------------------------------------------------------------ */

/** Rows gathered for a matrix: PG-Strom's aggregate array_matrix(variadic arg, ...). */
typedef struct pa_matrix_rows pa_matrix_rows;

/**
 * Starts gathering rows of width elements of type elm.
 * \return PA_OK and *out; PA_ERR_INVAL (elm unknown, width negative or above 2^31-1, NULL out), PA_ERR_NOMEM.
 */
PA_API int pa_matrix_rows_create(int elm, int64_t width, pa_matrix_rows **out);

/** Adds one row: width elements of the element type at row.  \return PA_OK, PA_ERR_INVAL, PA_ERR_RANGE (2^31-1 rows), PA_ERR_NOMEM. */
PA_API int pa_matrix_rows_add(pa_matrix_rows *r, const void *row);

/** Adds n rows stored row-major at rows (n * width elements).  \return as pa_matrix_rows_add. */
PA_API int pa_matrix_rows_add_block(pa_matrix_rows *r, const void *rows, int64_t n);

/** The number of rows added so far, or -1 for NULL. */
PA_API int64_t pa_matrix_rows_count(const pa_matrix_rows *r);

/**
 * Makes the matrix of the rows added so far (height = their count; 0 rows give an empty matrix) in memory of
 * type mtt (NULL: paged); the rows stay and more may be added.  The rows are put in column order by pa_copy.
 * \return PA_OK and *out, or the errors of pa_matrix_create_in and pa_copy.
 */
PA_API int pa_matrix_rows_finish(const pa_matrix_rows *r, const char *mtt, pa_matrix **out);

/** Frees the gathered rows.  NULL is ignored. */
PA_API void pa_matrix_rows_destroy(pa_matrix_rows *r);

/**
 * Builds a height x width matrix from width column arrays (host memory, height elements of elm each) in
 * memory of type mtt (NULL: paged).  \return PA_OK and *out; PA_ERR_INVAL (NULL column, bad dimensions or elm),
 * the errors of pa_matrix_create_in and pa_copy.
 */
PA_API int pa_matrix_from_columns(int elm, int64_t height, int64_t width, const void *const *cols, const char *mtt,
                                  pa_matrix **out);

/** pa_matrix_from_csv flag: the first non-empty line is a header of column names (its field count is the width). */
#define PA_MATRIX_CSV_HEADER 1

/**
 * Reads a CSV file of numbers into a matrix of elm in memory of type mtt (NULL: paged): one row per non-empty
 * line, fields separated by ',' with optional spaces or tabs around them, "\n" or "\r\n" line ends.  The width
 * is the field count of the header (PA_MATRIX_CSV_HEADER) or of the first row.  Integers must fit elm's range;
 * float and double fields are anything strtod reads.  The file is parsed by several threads.
 * \return PA_OK and *out; PA_ERR_SYS (the file cannot be opened or read: errno's words); PA_ERR_PARSE naming
 *         the file, the line and the field: a row of another width ("line 7: 3 fields, expected 4"), a field
 *         that is not a number of the type, an empty field; a header with an empty name; PA_ERR_RANGE (an
 *         integer out of elm's range, more than 2^31-1 rows); PA_ERR_INVAL; PA_ERR_NOMEM.
 */
PA_API int pa_matrix_from_csv(const char *path, int elm, int flags, const char *mtt, pa_matrix **out);

/* ---- back to rows (matrix_unnest) ----------------------------------------------------------------------- */

/**
 * Called once per row by pa_matrix_unnest_rows with the row's index and its width elements (host memory, valid
 * during the call).  \return 0 to go on; any other value stops the walk and is returned by pa_matrix_unnest_rows.
 */
typedef int (*pa_matrix_unnest_fn)(int64_t row, const void *values, int64_t width, void *ctx);

/**
 * PG-Strom's matrix_unnest: calls fn for every row, in order (a dmem matrix is brought to the host first, in
 * blocks of rows).  \return PA_OK, fn's nonzero value, or the errors of pa_matrix_check, PA_ERR_INVAL, PA_ERR_NOMEM.
 */
PA_API int pa_matrix_unnest_rows(const pa_matrix *m, pa_matrix_unnest_fn fn, void *ctx);

/** Deprecated (sizes are 64-bit): the row callback of pa_matrix_unnest, with an int32_t width. */
typedef int (*pa_matrix_row_fn)(int64_t row, const void *values, int32_t width, void *ctx);

/** Deprecated: pa_matrix_unnest_rows with an int32_t width in the callback; removed in the next release. */
PA_API PA_DEPRECATED("use pa_matrix_unnest_rows (int64_t width)") int pa_matrix_unnest(const pa_matrix *m,
                                                                                       pa_matrix_row_fn fn, void *ctx);

/**
 * Writes column j of m to cols[j] (host memory of height elements each) for every column.
 * \return PA_OK, PA_ERR_INVAL (a NULL column), the errors of pa_matrix_check and pa_copy.
 */
PA_API int pa_matrix_unnest_columns(const pa_matrix *m, void *const *cols);

/* ---- rbind, cbind, transpose ---------------------------------------------------------------------------- */

/**
 * rbind(a, b): a above b, in a's memory.  The result is (ha + hb) x max(wa, wb); the columns a narrower
 * matrix lacks are zero.  Both must have the same element type.
 * \return PA_OK and *out; PA_ERR_ELM (element types differ: both named), PA_ERR_RANGE (the height would pass
 *         2^31-1), PA_ERR_INVAL, the errors of pa_matrix_check, pa_matrix_create_in and pa_copy.
 */
PA_API int pa_matrix_rbind(const pa_matrix *a, const pa_matrix *b, pa_matrix **out);

/** cbind(a, b): a left of b, in a's memory; max(ha, hb) x (wa + wb), zero below the shorter.  \return as pa_matrix_rbind. */
PA_API int pa_matrix_cbind(const pa_matrix *a, const pa_matrix *b, pa_matrix **out);

/**
 * The aggregate rbind(array): the n matrices one above the other, in the first's memory, zero-padded to the
 * widest.  \return as pa_matrix_rbind; PA_ERR_INVAL for n < 1 or a NULL matrix (its index named).
 */
PA_API int pa_matrix_rbind_n(const pa_matrix *const *ms, int n, pa_matrix **out);

/** The aggregate cbind(array): side by side, zero-padded to the tallest.  \return as pa_matrix_rbind_n. */
PA_API int pa_matrix_cbind_n(const pa_matrix *const *ms, int n, pa_matrix **out);

/**
 * transpose(array): the width x height matrix t(j, i) = m(i, j), in m's memory, made by one pa_copy from m's
 * (row, column) type to t's columns (the planner's transpose on the host or the GPU).
 * \return PA_OK and *out, or the errors of pa_matrix_check, pa_matrix_create_in and pa_copy.
 */
PA_API int pa_matrix_transpose(const pa_matrix *m, pa_matrix **out);

/**
 * The aggregate rbind stored in an existing matrix dst (any memory; the destination first, as in pa_copy) of
 * exactly the result's shape and element type: nothing is allocated, so repeated binds into one buffer cost only
 * their copies.
 * \return as pa_matrix_rbind_n; PA_ERR_SIZE or PA_ERR_ELM when dst does not fit the result (both named).
 */
PA_API int pa_matrix_store_rbind(pa_matrix *dst, const pa_matrix *const *ms, int n);

/** The aggregate cbind stored in an existing matrix dst.  \return as pa_matrix_store_rbind. */
PA_API int pa_matrix_store_cbind(pa_matrix *dst, const pa_matrix *const *ms, int n);

/** transpose stored in an existing width x height matrix dst of m's element type.  \return as pa_matrix_store_rbind. */
PA_API int pa_matrix_store_transpose(pa_matrix *dst, const pa_matrix *m);

/* Deprecated (the destination last): pa_matrix_store_* with the output matrix last; removed in the next release. */
PA_API PA_DEPRECATED("use pa_matrix_store_rbind (destination first)") int pa_matrix_rbind_into(
    const pa_matrix *const *ms, int n, pa_matrix *out);
PA_API PA_DEPRECATED("use pa_matrix_store_cbind (destination first)") int pa_matrix_cbind_into(
    const pa_matrix *const *ms, int n, pa_matrix *out);
PA_API PA_DEPRECATED("use pa_matrix_store_transpose (destination first)") int pa_matrix_transpose_into(
    const pa_matrix *m, pa_matrix *t);

/* ---- multiply ------------------------------------------------------------------------------------------- */

/**
 * C = A B for float or double matrices (A m x k, B k x n, C m x n), in A's memory: on host threads (pa_for over
 * pthd) for host matrices, on the current GPU for dmem ones (B moved there first if it is elsewhere) through the
 * tile-type gemm pa_gemm_dmem (gputile.h) over the matrices' own bytes; there the first multiply of each shape
 * generates and compiles its kernel (NVRTC; cached in memory and on disk).  An inner dimension of 0 gives a zero C.
 * \return PA_OK and *out; PA_ERR_SIZE (A's width is not B's height), PA_ERR_ELM (element types differ, or not
 *         float or double), the errors of pa_matrix_check, pa_matrix_create_in and pa_gemm_dmem.
 */
PA_API int pa_matrix_gemm(const pa_matrix *a, const pa_matrix *b, pa_matrix **out);

#ifdef __cplusplus
}
#endif
#endif
