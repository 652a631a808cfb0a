/*
 * parallel — the manual's listing 31, CPU part: inside a parallel region the main thread starts two thread
 * arrays that run at the same time; pa_parallel_end joins both.  The manual's second array is an MPI process
 * array; here it is a second pthd array (MPI process arrays belong to the MPI backend).  The program also
 * measures that the arrays overlapped: each sleeps 0.2 s, and together they take well under 0.4 s.
 * Lines from different threads interleave nondeterministically; the test compares sorted lines.
 */
#include <stdio.h>
#include <time.h>
#include <unistd.h>

#include <parray/parray.h>

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec * 1e-9;
}

static int first(pa_ctx *ctx, void *arg)
{
    printf("pthd thread %d begins\n", (int)pa_tid(ctx));
    usleep(200000);
    printf("pthd thread %d ends\n", (int)pa_tid(ctx));
    return PA_OK;
}

static int second(pa_ctx *ctx, void *arg)
{
    printf("second array thread %d begins\n", (int)pa_tid(ctx));
    usleep(200000);
    printf("second array thread %d ends\n", (int)pa_tid(ctx));
    return PA_OK;
}

int main(void)
{
    pa_scope *scope = NULL;
    double t0 = now();
    if (pa_scope_create(NULL, &scope) != PA_OK || pa_parallel_begin() != PA_OK ||
        pa_for(pa_type_parse(scope, "pthd [3]"), first, NULL, 0) != PA_OK ||
        pa_for(pa_type_parse(scope, "pthd [2]"), second, NULL, 0) != PA_OK || pa_parallel_end() != PA_OK) {
        fprintf(stderr, "parallel: %s\n", pa_last_error());
        return 1;
    }
    double took = now() - t0;
    printf("the two arrays overlapped: %s\n", took < 0.35 ? "yes" : "no");
    pa_scope_destroy(scope);
    return 0;
}
