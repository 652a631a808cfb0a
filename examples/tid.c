/*
 * tid — the manual's listing 29: the same as listing 24 through a declared thread type,
 * parray {pthd [3][4]} PTHD; thread 5 of the 3 x 4 array has tid_0 = 5 / 4 = 1.
 */
#include <stdio.h>
#include <stdlib.h>

#include <parray/parray.h>

static int body(pa_ctx *ctx, void *arg)
{
    int i = *(int *)arg;
    if (pa_tid(ctx) == i)
        printf("tid=%d tid_0=%d\n", (int)pa_tid(ctx), (int)pa_tid_path(ctx, "0"));
    return PA_OK;
}

int main(void)
{
    pa_scope *scope = NULL;
    int i = 5;
    if (pa_scope_create(NULL, &scope) != PA_OK || pa_declare(scope, "PTHD", "pthd [3][4]") != PA_OK ||
        pa_for(pa_type_get(scope, "PTHD"), body, &i, sizeof i) != PA_OK) {
        fprintf(stderr, "tid: %s\n", pa_last_error());
        return 1;
    }
    pa_scope_destroy(scope);
    return 0;
}
