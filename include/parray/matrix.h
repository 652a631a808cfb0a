/*
 * parray — the array-based matrix (PG-Strom's array_matrix): a 2-D array of one element type without NULLs,
 * stored as a 16-byte header followed by the packed elements, column-major (element (i, j) at
 * data[j * height + i]).  The same bytes are used on the host and on the GPU, so a matrix moves between them
 * with one copy; PL/CUDA functions (kernel.h) take and return matrices in this form.
 *
 * This is the minimal form the kernels need; the matrix module (build from rows, unnest, rbind/cbind,
 * transpose) builds on it.
 */
#ifndef PARRAY_MATRIX_H
#define PARRAY_MATRIX_H

#include <stddef.h>
#include <stdint.h>

#include "error.h"

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

/** Bytes of one element of elm, 0 for an unknown elm. */
PA_API size_t pa_matrix_elm_size(int elm);

/**
 * Bytes a matrix of elm, height and width occupies, header included (PG-Strom's array_matrix_rawsize), for
 * results_bufsz and working_bufsz callbacks.  \return the size, or 0 for an unknown elm, negative dimensions
 * or a size that does not fit in 2^62.
 */
PA_API size_t pa_matrix_rawsize(int elm, int64_t height, int64_t width);

/**
 * Allocates a zeroed matrix (malloc; free with pa_matrix_destroy or free).
 * \return the matrix, or NULL with the error set: PA_ERR_INVAL (elm unknown, dimension negative or above
 *         2^31-1), PA_ERR_NOMEM.
 */
PA_API pa_matrix *pa_matrix_create(int elm, int64_t height, int64_t width);

/** Frees a matrix from pa_matrix_create or a PL/CUDA call.  NULL is ignored. */
PA_API void pa_matrix_destroy(pa_matrix *m);

/** The first element (column 0, row 0). */
PA_API void *pa_matrix_data(pa_matrix *m);

/**
 * Checks that bytes bytes at m hold a sound matrix (PG-Strom's array_matrix_validation): magic, known elm,
 * non-negative dimensions, and rawsize <= bytes.  \return PA_OK or PA_ERR_INVAL with the reason.
 */
PA_API int pa_matrix_validate(const pa_matrix *m, size_t bytes);

#ifdef __cplusplus
}
#endif
#endif
