/*
 * hello_parallel — the manual's listing 3, CPU part: nested thread arrays.  The manual's outer array is an MPI
 * process array of 2; here it is a pthd array of 2 (MPI process arrays belong to the MPI backend).  Each of its
 * threads starts a pthd array of 2, and each of those starts its own array of 2 sub threads, which read the
 * ids of the threads above them through pa_ctx_parent.  The order is nondeterministic; the test compares
 * sorted lines.
 */
#include <stdio.h>

#include <parray/parray.h>

static pa_scope *scope;

static int sub(pa_ctx *ctx, void *arg)
{
    const pa_ctx *thread = pa_ctx_parent(ctx), *outer = pa_ctx_parent(thread);
    printf("Hello from sub thread %d %d %d\n", (int)pa_tid(outer), (int)pa_tid(thread), (int)pa_tid(ctx));
    return PA_OK;
}

static int thread(pa_ctx *ctx, void *arg)
{
    printf("Hello from thread %d %d\n", (int)pa_tid(pa_ctx_parent(ctx)), (int)pa_tid(ctx));
    return pa_for(pa_type_get(scope, "SUB"), sub, NULL, 0);
}

static int outer(pa_ctx *ctx, void *arg)
{
    printf("Hello from outer thread %d\n", (int)pa_tid(ctx));
    return pa_for(pa_type_get(scope, "THREADS"), thread, NULL, 0);
}

int main(void)
{
    if (pa_scope_create(NULL, &scope) != PA_OK ||
        pa_declare_text(scope, "parray pthd [2] OUTER; parray pthd [2] THREADS; parray pthd [2] SUB") != PA_OK ||
        pa_for(pa_type_get(scope, "OUTER"), outer, NULL, 0) != PA_OK) {
        fprintf(stderr, "hello_parallel: %s\n", pa_last_error());
        return 1;
    }
    pa_scope_destroy(scope);
    return 0;
}
