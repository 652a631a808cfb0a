/*
 * sync — the manual's listing 30: two pthd threads; thread 0 waits at the barrier before it prints, thread 1
 * sleeps, prints, then reaches the barrier, so "ends" always comes before "begins".  The manual sleeps 5 s;
 * 0.2 s shows the same.
 */
#include <stdio.h>
#include <unistd.h>

#include <parray/parray.h>

static int body(pa_ctx *ctx, void *arg)
{
    if (pa_tid(ctx) == 0) {
        pa_sync(ctx, "");
        printf("pthd thread %d begins\n", (int)pa_tid(ctx));
        fflush(stdout);
    }
    if (pa_tid(ctx) == 1) {
        usleep(200000);
        printf("pthd thread %d ends\n", (int)pa_tid(ctx));
        fflush(stdout);
        pa_sync(ctx, "");
    }
    return PA_OK;
}

int main(void)
{
    pa_scope *scope = NULL;
    if (pa_scope_create(NULL, &scope) != PA_OK || pa_for(pa_type_parse(scope, "pthd [2]"), body, NULL, 0) != PA_OK) {
        fprintf(stderr, "sync: %s\n", pa_last_error());
        return 1;
    }
    pa_scope_destroy(scope);
    return 0;
}
