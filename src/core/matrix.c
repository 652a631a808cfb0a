/* parray — the array-based matrix's header, size and checks (matrix.h). */
#include <stdlib.h>
#include <string.h>

#include "internal.h"

#define HEADER ((size_t)sizeof(pa_matrix))

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

size_t pa_matrix_rawsize(int elm, int64_t height, int64_t width)
{
    size_t e = pa_matrix_elm_size(elm);
    if (!e || height < 0 || width < 0 || height > INT32_MAX || width > INT32_MAX)
        return 0;
    /* height, width < 2^31 and e <= 8: the product stays below 2^65 only if checked. */
    unsigned __int128 n = (unsigned __int128)height * (unsigned __int128)width * e + HEADER;
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
    free(m);
}

void *pa_matrix_data(pa_matrix *m)
{
    return (char *)m + HEADER;
}

int pa_matrix_validate(const pa_matrix *m, size_t bytes)
{
    size_t need;
    if (!m || bytes < HEADER)
        return pa__err(PA_ERR_INVAL, "matrix: %s", m ? "shorter than its header" : "NULL");
    if (m->magic != PA_MATRIX_MAGIC)
        return pa__err(PA_ERR_INVAL, "matrix: bad magic 0x%08x", (unsigned)m->magic);
    if (!(need = pa_matrix_rawsize(m->elm, m->height, m->width)))
        return pa__err(PA_ERR_INVAL, "matrix: element type %d or dimensions %d x %d not valid", m->elm, m->height,
                       m->width);
    if (need > bytes)
        return pa__err(PA_ERR_INVAL, "matrix: %d x %d needs %zu bytes, has %zu", m->height, m->width, need, bytes);
    return PA_OK;
}
