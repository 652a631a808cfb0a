/*
 * Sixteen user threads copying at once (issue 18): through types of one shared scope (one plan cache entry for
 * all, looked up concurrently), through types of scopes each thread makes and destroys (plans made and dropped
 * while others copy), large transposes that split over the pool's workers (copies from several user threads
 * sharing it: copy_threads.c), explanations, copies of arrays distributed over pthd threads inside pa_for, and,
 * where a GPU is usable, host <-> dmem copies.  Every copy is checked element by element.  Run under TSan in
 * CI (.ci/run), where a data race or a lock-order inversion fails it.
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "testutil.h"
#include <parray/cuda.h>

enum { USERS = 16, ROUNDS = 6 };

static pa_scope *shared;

typedef struct user {
    int id, gpu;
    int status;
    char msg[512];
} user;

static int failed(user *u, const char *what)
{
    u->status = -1;
    snprintf(u->msg, sizeof u->msg, "user %d: %s (%s)", u->id, what, pa_last_error());
    return -1;
}

/* dst = transpose of src through the types T <- S (n x n floats), checked. */
static int transpose(user *u, const pa_type *t, const pa_type *s, int n, float *dst, float *src, int salt)
{
    for (int i = 0; i < n * n; i++)
        src[i] = (float)(i % 4093 + salt);
    memset(dst, 0, (size_t)n * n * sizeof *dst);
    if (pa_copy(t, dst, s, src) != PA_OK)
        return failed(u, "pa_copy (transpose)");
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++)
            if (dst[i * n + j] != src[j * n + i])
                return failed(u, "a transposed element differs");
    return 0;
}

/* Inside pa_for over pthd [4]: each thread copies its column of the shared array and back, negated. */
typedef struct dist_arg {
    const int *in;
    int *out;
} dist_arg;

static int columns(pa_ctx *ctx, void *arg)
{
    const dist_arg *a = arg;
    int local[8];
    int st = pa_copy(pa_type_get(shared, "COLS"), local, pa_type_get(shared, "HM"), a->in);
    for (int i = 0; i < 8; i++)
        local[i] = -local[i];
    (void)ctx;
    return st != PA_OK ? st : pa_copy(pa_type_get(shared, "HM"), a->out, pa_type_get(shared, "COLS"), local);
}

static int own_scope(user *u, int round)
{
    pa_scope *s;
    char text[256];
    int src[100], dst[36];
    if (pa_scope_create(NULL, &s) != PA_OK)
        return failed(u, "pa_scope_create");
    snprintf(text, sizeof text, "D = paged int [[10][10]]\nW = [[6 # disp(%d) # D_0][6 # disp(2) # D_1]]\n"
             "C = paged int [6][6]\n", 1 + (u->id + round) % 4);
    if (pa_declare_text(s, text) != PA_OK) {
        pa_scope_destroy(s);
        return failed(u, "pa_declare_text");
    }
    for (int i = 0; i < 100; i++)
        src[i] = i * 7 + u->id;
    int rc = pa_copy(pa_type_get(s, "C"), dst, pa_type_get(s, "W"), src), r0 = 1 + (u->id + round) % 4;
    for (int i = 0; rc == PA_OK && i < 36; i++)
        if (dst[i] != src[(r0 + i / 6) * 10 + 2 + i % 6])
            rc = PA_ERR_INVAL;
    pa_scope_destroy(s);
    return rc == PA_OK ? 0 : failed(u, "a window copy through a scope of its own");
}

static int gpu_round_trip(user *u, float *host, float *back, int n)
{
    const pa_type *h = pa_type_get(shared, "H"), *d = pa_type_get(shared, "DV");
    void *dev = pa_create(d);
    if (!dev)
        return failed(u, "pa_create (dmem)");
    for (int i = 0; i < n; i++)
        host[i] = (float)(i + u->id);
    int rc = pa_copy(d, dev, h, host);
    if (rc == PA_OK)
        rc = pa_copy(h, back, d, dev);
    pa_destroy(d, dev);
    if (rc != PA_OK)
        return failed(u, "a copy to or from dmem");
    return memcmp(host, back, (size_t)n * sizeof *host) == 0 ? 0 : failed(u, "dmem round trip differs");
}

static void *run(void *arg)
{
    user *u = arg;
    enum { BIG = 512, SMALL = 64 };
    float *a = malloc((size_t)BIG * BIG * sizeof *a), *b = malloc((size_t)BIG * BIG * sizeof *b);
    int in[32], out[32];
    char line[1024];
    if (!a || !b) {
        failed(u, "no memory");
        goto done;
    }
    for (int r = 0; r < ROUNDS && u->status == 0; r++) {
        if (transpose(u, pa_type_get(shared, "ST"), pa_type_get(shared, "S"), SMALL, a, b, u->id * 10 + r) ||
            (r % 2 == u->id % 2 &&
             transpose(u, pa_type_get(shared, "BT"), pa_type_get(shared, "B"), BIG, a, b, u->id + r)) ||
            own_scope(u, r))
            break;
        if (pa_copy_explain(pa_type_get(shared, "BT"), pa_type_get(shared, "B"), line, sizeof line) < 0 ||
            !strstr(line, "strategy=transpose") || !strstr(line, "predicted=")) {
            failed(u, "the explanation");
            break;
        }
        for (int i = 0; i < 32; i++)
            in[i] = u->id * 100 + r * 32 + i, out[i] = 0;
        dist_arg da = {in, out};
        if (pa_for(pa_type_get(shared, "P4"), columns, &da, sizeof da) != PA_OK) {
            failed(u, "pa_for with distributed copies");
            break;
        }
        for (int i = 0; i < 32; i++)
            if (out[i] != -in[i]) {
                failed(u, "a distributed copy's element differs");
                break;
            }
        if (u->gpu && gpu_round_trip(u, a, b, 1 << 16))
            break;
    }
done:
    free(a);
    free(b);
    return NULL;
}

START_TEST(test_sixteen_users)
{
    pthread_t th[USERS];
    user us[USERS];
    int gpu = pa_cuda_device_count() > 0;
    pa_error_clear();
    PA_CK_OK(pa_scope_create(NULL, &shared));
    PA_CK_OK(pa_declare_text(shared,
        "S = paged float [[64][64]]\nST = paged float [[#S_1][#S_0]]\n"
        "B = paged float [[512][512]]\nBT = paged float [[#B_1][#B_0]]\n"
        "P4 = pthd [4]\nHM = paged int [8][4]\nL8 = paged int [8]\nCOLS = [#L8][#P4]\n"
        "H = paged float [65536]\nDV = dmem float [65536]\n"));
    for (int i = 0; i < USERS; i++) {
        us[i] = (user){.id = i, .gpu = gpu};
        ck_assert_int_eq(pthread_create(&th[i], NULL, run, &us[i]), 0);
    }
    for (int i = 0; i < USERS; i++)
        pthread_join(th[i], NULL);
    for (int i = 0; i < USERS; i++)
        ck_assert_msg(us[i].status == 0, "%s", us[i].msg);
    pa_scope_destroy(shared);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("threads_stress");
    TCase *tc = tcase_create("stress");
    tcase_set_timeout(tc, 300);
    tcase_add_test(tc, test_sixteen_users);
    suite_add_tcase(s, tc);
    return pa_test_run(s);
}
