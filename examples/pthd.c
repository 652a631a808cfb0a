/*
 * pthd — the manual's listing 24: an anonymous pthd [3][4] array; the main thread passes x = 5 by value
 * (PARRAY's as(int x), here the copied arg) and thread 5 prints its overall id and its id along dimension 0.
 */
#include <stdio.h>
#include <stdlib.h>

#include <parray/parray.h>

static int body(pa_ctx *ctx, void *arg)
{
    int x = *(int *)arg;
    if (pa_tid(ctx) == x)
        printf("tid=%d tid_0=%d\n", (int)pa_tid(ctx), (int)pa_tid_path(ctx, "0"));
    return PA_OK;
}

int main(void)
{
    pa_scope *scope = NULL;
    int x = 5;
    if (pa_scope_create(NULL, &scope) != PA_OK)
        return 1;
    /* for pthd [3][4] as(int x) { ... } */
    if (pa_for(pa_type_parse(scope, "pthd [3][4]"), body, &x, sizeof x) != PA_OK) {
        fprintf(stderr, "pthd: %s\n", pa_last_error());
        return 1;
    }
    pa_scope_destroy(scope);
    return 0;
}
