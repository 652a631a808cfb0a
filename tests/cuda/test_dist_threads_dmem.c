/*
 * The all-to-all between threads over device memory (manual section 1.4: data over n GPUs exchanged by n CPU
 * threads).  Four pthd threads each own a column of a 16x4 matrix in dmem on GPU tid mod (number of GPUs), and
 * exchange it into rows (and back) with one collective pa_copy per thread; with several GPUs the pulls are
 * copies between GPUs.  Also an uneven pair (block of 13 <-> cyclic(2) over 3 threads), and the transposition at
 * 2^20 x 4, large enough for the pulls to be queued on several streams at once.  Each thread moves its
 * arrays to and from the host with ordinary copies; the host checks every element.  Without a GPU (or the
 * CUDA backend) the suite exits 77 (skipped).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "parray/cuda.h"
#include "internal.h"
#include "testutil.h"

static pa_scope *scope;
static int *host_in[4], *host_out[4], device[4];
static int len = 16;   /* elements of every thread's local arrays on the host */
static int scale = 1000;   /* host_in[t][j] = scale t + j: unique while j < scale */
static const char *from, *to, *from_local, *to_local, *from_host, *to_host;

static int exchange(pa_ctx *ctx, void *arg)
{
    int t = (int)pa_tid(ctx), st, ngpu = pa_cuda_device_count();
    (void)arg;
    if ((st = pa_cuda_set_device(t % ngpu)) != PA_OK)
        return st;
    device[t] = pa_cuda_get_device();   /* where this thread's arrays are made */
    const pa_type *sl = pa_type_get(scope, from_local), *dl = pa_type_get(scope, to_local);
    void *src = pa_create(sl), *dst = pa_create(dl);
    if (!src || !dst)
        return pa__err(PA_ERR_NOMEM, "thread %d: pa_create on GPU %d: %s", t, t % ngpu, pa_last_error());
    st = pa_copy(sl, src, pa_type_get(scope, from_host), host_in[t]);
    if (st == PA_OK)   /* collective: every thread */
        st = pa_copy(pa_type_get(scope, to), dst, pa_type_get(scope, from), src);
    if (st == PA_OK)
        st = pa_copy(pa_type_get(scope, to_host), host_out[t], dl, dst);
    pa_destroy(sl, src);
    pa_destroy(dl, dst);
    return st;
}

/*
 * Runs the exchange and checks where the arrays were: on min(threads, GPUs) distinct GPUs, so that with two GPUs
 * or more the pulls really were copies between GPUs (the line printed says how many GPUs the arrays spanned).
 */
static void run(const char *text, const char *thr, int (*want)(int t, int j, int *ok))
{
    PA_CK_OK(pa_scope_create(NULL, &scope));
    PA_CK_OK(pa_declare_text(scope, text));
    for (int t = 0; t < 4; t++) {
        device[t] = -1;
        host_in[t] = malloc((size_t)len * sizeof(int));
        host_out[t] = malloc((size_t)len * sizeof(int));
        ck_assert(host_in[t] && host_out[t]);
        for (int j = 0; j < len; j++)
            host_in[t][j] = scale * t + j, host_out[t][j] = -1;
    }
    const pa_type *threads = pa_type_get(scope, thr);
    PA_CK_OK(pa_for(threads, exchange, NULL, 0));
    int ngpu = pa_cuda_device_count(), spanned = 0, n = (int)pa_size(threads);
    for (int t = 0; t < n; t++) {
        int seen = 0;
        for (int u = 0; u < t; u++)
            seen |= device[u] == device[t];
        spanned += !seen;
    }
    fprintf(stderr, "dist_threads_dmem: %d threads' arrays on %d of %d GPU(s)%s\n", n, spanned, ngpu,
            spanned > 1 ? ": the pulls crossed GPUs" : "");
    ck_assert_int_eq(spanned, n < ngpu ? n : ngpu);
    for (int t = 0; t < 4; t++)
        for (int j = 0; j < len; j++) {
            int ok = 0, w = want(t, j, &ok);
            if (ok)
                ck_assert_msg(host_out[t][j] == w, "thread %d element %d: %d, expected %d", t, j, host_out[t][j], w);
        }
    for (int t = 0; t < 4; t++) {
        free(host_in[t]);
        free(host_out[t]);
    }
    pa_scope_destroy(scope);
}

/* COLS: thread t holds column t of a 16x4 matrix (flat f = 4i + t at local i); ROWS: thread t holds rows 4t..4t+3
 * (flat 16t + j at local j).  host_in[t][i] is column t's element i, so flat f holds 1000 (f % 4) + f / 4. */
static int want_rows(int t, int j, int *ok)
{
    int f = 16 * t + j;
    *ok = 1;
    return 1000 * (f % 4) + f / 4;
}

START_TEST(test_columns_to_rows)
{
    len = 16, scale = 1000;
    from = "COLS", to = "ROWS", from_local = "LD", to_local = "LD", from_host = "LH", to_host = "LH";
    run("P = pthd [4]\nLD = dmem int [16]\nLH = paged int [16]\nCOLS = [#LD][#P]\nROWS = [#P][#LD]", "P",
        want_rows);
}
END_TEST

/* The same transposition of a (2^20 x 4) int matrix: every thread receives 1 MiB from each of the four, 4 MiB in
 * all, which the pulls queue on several streams at once (copy_exchange.c, from 4 MiB a thread). */
static int want_rows_large(int t, int j, int *ok)
{
    int f = len * t + j;
    *ok = 1;
    return scale * (f % 4) + f / 4;
}

START_TEST(test_columns_to_rows_large)
{
    len = 1 << 20, scale = 1 << 24;
    from = "COLS", to = "ROWS", from_local = "LD", to_local = "LD", from_host = "LH", to_host = "LH";
    run("P = pthd [4]\nLD = dmem int [1048576]\nLH = paged int [1048576]\nCOLS = [#LD][#P]\nROWS = [#P][#LD]", "P",
        want_rows_large);
}
END_TEST

/* Block of 13 over 3 threads (5, 5, 3) into cyclic(2) (thread t: blocks t, t + 3, ... of 2). */
static int want_cyclic(int t, int j, int *ok)
{
    int f = (j / 2 * 3 + t) * 2 + j % 2;
    *ok = t < 3 && f < 13 && j < 6;
    return 1000 * (f / 5) + f % 5;
}

START_TEST(test_uneven)
{
    len = 16, scale = 1000;
    from = "U", to = "V", from_local = "LB", to_local = "LC", from_host = "HB", to_host = "HC";
    run("P = pthd [3]\nLB = dmem int [5]\nHB = paged int [5]\nLC = dmem int [3][2]\nHC = paged int [6]\n"
        "U = [13 # [#P][#LB]]\nV = [13 # [#LC_0][#P][#LC_1]]", "P", want_cyclic);
}
END_TEST

int main(void)
{
    if (pa_test_skip_without_gpu("dist_threads_dmem"))
        return 77;
    /* Counted in a child process (testutil): a CUDA call here, before Check forks, would leave the tests' children
     * with an unusable context (cudaErrorInitializationError). */
    fprintf(stderr, "dist_threads_dmem: %d GPU(s)\n", pa_test_gpu_count());
    Suite *s = suite_create("dist_threads_dmem");
    TCase *tc = tcase_create("dist_threads_dmem");
    tcase_set_timeout(tc, 300);
    tcase_add_test(tc, test_columns_to_rows);
    tcase_add_test(tc, test_uneven);
    tcase_add_test(tc, test_columns_to_rows_large);
    suite_add_tcase(s, tc);
    return pa_test_run(s);
}
