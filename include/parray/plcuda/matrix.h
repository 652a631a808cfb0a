/*
 * parray — PL/CUDA device library "matrix" (#plcuda_include "matrix"): the array-based matrix of
 * <parray/matrix.h> on the GPU.  A matrix is a 16-byte header {elm, height, width, magic} followed by its
 * elements, column-major: element (i, j) is at values[j * height + i].
 *
 *     pa_matrix_height(m), pa_matrix_width(m), PA_MATRIX_AT(m, float, i, j)
 *     pa_matrix_rawsize(elm, height, width)          bytes of a matrix, header included
 *     pa_matrix_init(at, elm, height, width)          writes a header at `at` (e.g. in results) and returns it
 *
 * Device code for NVRTC, after the PL/CUDA prelude (which defines pa_matrix); no standard library.
 */
#ifndef PARRAY_PLCUDA_MATRIX_H
#define PARRAY_PLCUDA_MATRIX_H

#define PA_MATRIX_MAGIC 0x584d4150
#define PA_MATRIX_SHORT 1
#define PA_MATRIX_INT 2
#define PA_MATRIX_LONG 3
#define PA_MATRIX_FLOAT 4
#define PA_MATRIX_DOUBLE 5

static __device__ __forceinline__ unsigned long pa_matrix_elm_size(int elm)
{
    return elm == PA_MATRIX_SHORT ? 2 : (elm == PA_MATRIX_INT || elm == PA_MATRIX_FLOAT) ? 4
         : (elm == PA_MATRIX_LONG || elm == PA_MATRIX_DOUBLE) ? 8 : 0;
}

static __device__ __forceinline__ unsigned long pa_matrix_rawsize(int elm, long height, long width)
{
    return sizeof(pa_matrix) + (unsigned long)height * (unsigned long)width * pa_matrix_elm_size(elm);
}

static __device__ __forceinline__ int pa_matrix_height(const pa_matrix *m) { return m->height; }
static __device__ __forceinline__ int pa_matrix_width(const pa_matrix *m) { return m->width; }
static __device__ __forceinline__ void *pa_matrix_values(const pa_matrix *m) { return (char *)m + sizeof(pa_matrix); }

#define PA_MATRIX_AT(m, T, i, j) (((T *)pa_matrix_values(m))[(long)(j) * (m)->height + (i)])

static __device__ __forceinline__ pa_matrix *pa_matrix_init(void *at, int elm, int height, int width)
{
    pa_matrix *m = (pa_matrix *)at;
    m->elm = elm;
    m->height = height;
    m->width = width;
    m->magic = PA_MATRIX_MAGIC;
    return m;
}

#endif
