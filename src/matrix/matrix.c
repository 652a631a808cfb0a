/*
 * parray — the array-based matrix's format: element types, header, size and checks (matrix.h), and the
 * malloc'd host matrices of the deprecated pa_matrix_create (the form PL/CUDA calls return).
 */
#include <stdlib.h>
#include <string.h>

#include "matrix_internal.h"
#include "mem_internal.h"

size_t pa_matrix_elm_size(int elm)
{
    switch (elm) {
    case PA_MATRIX_SHORT: return 2;
    case PA_MATRIX_INT:
    case PA_MATRIX_FLOAT: return 4;
    case PA_MATRIX_LONG:
    case PA_MATRIX_DOUBLE: return 8;
    default: return 0;
    }
}

const char *pa_matrix_elm_name(int elm)
{
    switch (elm) {
    case PA_MATRIX_SHORT: return "int16_t";
    case PA_MATRIX_INT: return "int32_t";
    case PA_MATRIX_LONG: return "int64_t";
    case PA_MATRIX_FLOAT: return "float";
    case PA_MATRIX_DOUBLE: return "double";
    default: return NULL;
    }
}

size_t pa_matrix_rawsize(int elm, int64_t height, int64_t width)
{
    size_t e = pa_matrix_elm_size(elm);
    if (!e || height < 0 || width < 0 || height > INT32_MAX || width > INT32_MAX)
        return 0;
    /* height, width < 2^31 and e <= 8: the product stays below 2^65 only if checked. */
    unsigned __int128 n = (unsigned __int128)height * (unsigned __int128)width * e + PA__MATRIX_HEADER;
    return n > ((unsigned __int128)1 << 62) ? 0 : (size_t)n;
}

pa_matrix *pa_matrix_create(int elm, int64_t height, int64_t width)
{
    size_t n = pa_matrix_rawsize(elm, height, width);
    pa_matrix *m;
    if (!n) {
        pa__err(PA_ERR_INVAL, "pa_matrix_create(elm %d, %lld x %lld): unknown element type or bad dimensions", elm,
                (long long)height, (long long)width);
        return NULL;
    }
    if (!(m = calloc(1, n))) {
        pa__err(PA_ERR_NOMEM, "pa_matrix_create: %zu bytes", n);
        return NULL;
    }
    m->elm = elm;
    m->height = (int32_t)height;
    m->width = (int32_t)width;
    m->magic = PA_MATRIX_MAGIC;
    return m;
}

void pa_matrix_destroy(pa_matrix *m)
{
    pa__alloc_rec rec;
    pa_scope *s = NULL;
    char decl[64];
    if (!m)
        return;
    if (!pa__alloc_lookup(m, &rec)) {
        free(m);
        return;
    }
    /* Made by pa_create: released through a type of its own memory type (only the mtt is checked). */
    snprintf(decl, sizeof decl, "%s char [1]", rec.ops->name);
    if (pa_scope_create(NULL, &s) == PA_OK)
        pa_destroy(pa_type_parse(s, decl), m);
    pa_scope_destroy(s);
}

void *pa_matrix_data(pa_matrix *m)
{
    return (char *)m + PA__MATRIX_HEADER;
}

int pa_matrix_validate(const pa_matrix *m, size_t bytes)
{
    size_t need;
    if (!m || bytes < PA__MATRIX_HEADER)
        return pa__err(PA_ERR_INVAL, "matrix: %s", m ? "shorter than its header" : "NULL");
    if (m->magic != PA_MATRIX_MAGIC)
        return pa__err(PA_ERR_INVAL, "matrix: bad magic 0x%08x (a matrix starts with 0x%08x)", (unsigned)m->magic,
                       (unsigned)PA_MATRIX_MAGIC);
    if (!(need = pa_matrix_rawsize(m->elm, m->height, m->width)))
        return pa__err(PA_ERR_INVAL, "matrix: element type %d or dimensions %d x %d not valid", m->elm, m->height,
                       m->width);
    if (need > bytes)
        return pa__err(PA_ERR_INVAL, "matrix: %d x %d %s needs %zu bytes, its buffer has %zu", m->height, m->width,
                       pa_matrix_elm_name(m->elm), need, bytes);
    return PA_OK;
}
