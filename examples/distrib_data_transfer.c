/*
 * distrib_data_transfer — the manual's listing 41: an array distributed over CPU threads.
 *
 * DATA's column dimension refers to the thread array PTHD and its row dimension to HMEM_1, a row of the host
 * array HMEM, so DATA puts row k of HMEM in thread k's own local array.  Every thread of PTHD creates its local
 * row and copies HMEM to DATA: it receives its own row.  The threads print in any order; the test compares
 * sorted lines.
 */
#include <stdio.h>
#include <stdlib.h>

#include <parray/parray.h>

static pa_scope *scope;
static int *data;

static int thread(pa_ctx *ctx, void *arg)
{
    const pa_type *row = pa_type_get(scope, "HMEM_1");
    int *ldata = pa_create(row), st;
    (void)arg;
    if (!ldata)
        return PA_ERR_NOMEM;
    st = pa_copy(pa_type_get(scope, "DATA"), ldata, pa_type_get(scope, "HMEM"), data);
    if (st == PA_OK)
        printf("%d on thread %d\n", ldata[0], (int)pa_tid(ctx));
    pa_destroy(row, ldata);
    return st;
}

int main(void)
{
    if (pa_scope_create(NULL, &scope) != PA_OK ||
        pa_declare_text(scope, "PTHD = pthd [4]\nHMEM = paged int [4][4096]\nDATA = [#PTHD][#HMEM_1]") != PA_OK)
        return fprintf(stderr, "distrib_data_transfer: %s\n", pa_last_error()), 1;
    const pa_type *hmem = pa_type_get(scope, "HMEM");
    data = pa_create(hmem);
    for (int64_t i = 0; data && i < pa_size(hmem); i++)
        data[i] = (int)i;
    if (!data || pa_for(pa_type_get(scope, "PTHD"), thread, NULL, 0) != PA_OK)
        return fprintf(stderr, "distrib_data_transfer: %s\n", pa_last_error()), 1;
    pa_destroy(hmem, data);
    pa_scope_destroy(scope);
    return 0;
}
