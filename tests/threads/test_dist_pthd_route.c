/*
 * The NCCL route of the all-to-all between threads (src/backends/host/copy/copy_exchange_gpu.c) on the CPU: the
 * route's agreement, slices, chunks, packing and unpacking run over host memory with stand-in device collectives
 * (pa__pthd_exchange_gpu_test): each thread's "GPU" is what the test says, a group's sends are queued per pair of
 * ranks and its receives wait for them, as NCCL's do.  Every exchange (the section 1.4 all-to-all, the PKUFFT
 * layout change in chunks, an uneven one) goes there and back and every element is compared with the types'
 * reference offsets (pa_offset_on), the destination poisoned first; the number of groups says the route ran.
 * Threads sharing a "GPU", PA_PTHD_ROUTE=peer and a NULL source fall back to the pulls, with the reason in
 * pa_copy_explain; the cost model's choice is followed without PA_PTHD_ROUTE.  The same exchanges on real GPUs:
 * tests/cuda/test_dist_threads_nccl.c.
 */
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "copy_exchange_gpu.h"
#include "cost_model.h"
#include "internal.h"
#include "testutil.h"

#define MAXT 8

/* ---- stand-in device collectives ------------------------------------------------------------------------------ */

typedef struct msg {
    struct msg *next;
    size_t bytes;
    char data[];
} msg;

typedef struct world {
    pthread_mutex_t mu;
    pthread_cond_t cv;
    msg *head[MAXT][MAXT], *tail[MAXT][MAXT];   /* [from][to] */
    int refs;
} world;

typedef struct fcomm {
    world *w;
    int rank, n;
} fcomm;

static atomic_int ids_made, inits, groups_run;
static _Thread_local int fake_dev = -1;
static int event_token;

static int f_make_id(void *id)
{
    world *w = calloc(1, sizeof *w);
    if (!w)
        return pa__err(PA_ERR_NOMEM, "stand-in make_id");
    pthread_mutex_init(&w->mu, NULL);
    pthread_cond_init(&w->cv, NULL);
    w->refs = 1;   /* the id's, dropped by the last comm_free */
    memcpy(id, &w, sizeof w);
    atomic_fetch_add(&ids_made, 1);
    return PA_OK;
}

static int f_comm_init(const void *id, int rank, int nranks, void **comm)
{
    world *w;
    memcpy(&w, id, sizeof w);
    fcomm *c = malloc(sizeof *c);
    if (!c || rank < 0 || rank >= nranks || nranks > MAXT) {
        free(c);
        return pa__err(PA_ERR_INVAL, "stand-in comm_init: rank %d of %d", rank, nranks);
    }
    *c = (fcomm){w, rank, nranks};
    pthread_mutex_lock(&w->mu);
    w->refs++;
    pthread_mutex_unlock(&w->mu);
    atomic_fetch_add(&inits, 1);
    *comm = c;
    return PA_OK;
}

static void f_comm_free(void *comm)
{
    fcomm *c = comm;
    world *w = c->w;
    pthread_mutex_lock(&w->mu);
    int last = --w->refs == 1;   /* the id's reference goes with the last communicator */
    pthread_mutex_unlock(&w->mu);
    if (last) {
        for (int i = 0; i < MAXT; i++)
            for (int j = 0; j < MAXT; j++)
                for (msg *m = w->head[i][j], *next; m; m = next) {
                    next = m->next;
                    free(m);
                }
        pthread_cond_destroy(&w->cv);
        pthread_mutex_destroy(&w->mu);
        free(w);
    }
    free(c);
}

static int f_device_key(char *buf, size_t len)
{
    snprintf(buf, len, "test/%d", fake_dev);
    return PA_OK;
}

static int f_current(int *dev)
{
    *dev = fake_dev;
    return fake_dev >= 0 ? PA_OK : pa__err(PA_ERR_NODEV, "stand-in: no device on this thread");
}

static int f_group(void *comm, const pa__xfer *sends, int nsends, const pa__xfer *recvs, int nrecvs, void *stream)
{
    fcomm *c = comm;
    world *w = c->w;
    int st = PA_OK;
    (void)stream;
    atomic_fetch_add(&groups_run, 1);
    pthread_mutex_lock(&w->mu);
    for (int i = 0; i < nsends; i++) {
        const pa__xfer *x = &sends[i];
        msg *m = malloc(sizeof *m + x->bytes);
        if (!m || x->peer < 0 || x->peer >= c->n) {
            free(m);
            st = pa__err(PA_ERR_INVAL, "stand-in group: rank %d sends to %d", c->rank, x->peer);
            continue;
        }
        m->next = NULL;
        m->bytes = x->bytes;
        memcpy(m->data, x->buf, x->bytes);
        if (w->tail[c->rank][x->peer])
            w->tail[c->rank][x->peer]->next = m;
        else
            w->head[c->rank][x->peer] = m;
        w->tail[c->rank][x->peer] = m;
    }
    pthread_cond_broadcast(&w->cv);
    for (int i = 0; i < nrecvs && st == PA_OK; i++) {
        const pa__xfer *x = &recvs[i];
        while (!w->head[x->peer][c->rank])
            pthread_cond_wait(&w->cv, &w->mu);
        msg *m = w->head[x->peer][c->rank];
        if (!(w->head[x->peer][c->rank] = m->next))
            w->tail[x->peer][c->rank] = NULL;
        if (m->bytes != x->bytes)
            st = pa__err(PA_ERR_INVAL, "stand-in group: rank %d receives %zu bytes from %d, which sent %zu", c->rank,
                         x->bytes, x->peer, m->bytes);
        else
            memcpy(x->buf, m->data, x->bytes);
        free(m);
    }
    pthread_mutex_unlock(&w->mu);
    return st;
}

static int f_stream_new(void **stream, int urgent)
{
    (void)urgent;
    *stream = NULL;   /* host plans run at once on the default stream */
    return PA_OK;
}

static void f_free(void *p)
{
    (void)p;
}

static int f_event_new(void **event)
{
    *event = &event_token;
    return PA_OK;
}

static int f_record(void *event, void *stream)
{
    (void)event, (void)stream;
    return PA_OK;
}

static int f_sync(void *stream)
{
    (void)stream;
    return PA_OK;
}

static int f_copy(void *dst, const void *src, size_t bytes, void *stream)
{
    (void)stream;
    memcpy(dst, src, bytes);
    return PA_OK;
}

static const pa__devcomm_ops fake = {
    .id_bytes = sizeof(world *),
    .make_id = f_make_id,
    .comm_init = f_comm_init,
    .comm_free = f_comm_free,
    .device_key = f_device_key,
    .current = f_current,
    .group = f_group,
    .stream_new = f_stream_new,
    .stream_free = f_free,
    .event_new = f_event_new,
    .event_free = f_free,
    .record = f_record,
    .wait = f_record,
    .sync = f_sync,
    .copy = f_copy,
};

/* ---- the exchanges -------------------------------------------------------------------------------------------- */

static pa_scope *scope;
static int nthreads, shared_dev, null_src, *hin[MAXT], *hout[MAXT], *hback[MAXT];
static int64_t local_n;
static char explained[MAXT][2048];

static int value(int64_t k)
{
    return (int)(5 * k + 2);
}

static int exchange(pa_ctx *ctx, void *arg)
{
    int t = (int)pa_tid(ctx), calls = *(int *)arg, st = PA_OK;
    const pa_type *S = pa_type_get(scope, "S"), *T = pa_type_get(scope, "T");
    fake_dev = shared_dev && t == 1 ? 0 : t;
    int *src = malloc((size_t)local_n * sizeof *src), *dst = malloc((size_t)local_n * sizeof *dst);   /* the larger local size */
    if (!src || !dst)
        st = pa__err(PA_ERR_NOMEM, "thread %d", t);
    for (int c = 0; c < calls; c++) {   /* several in one launch: the shared slots alternate */
        for (int64_t i = 0; src && dst && i < local_n; i++)
            src[i] = hin[t][i], dst[i] = -7;
        int x1 = pa_copy(T, dst, S, null_src && t == 2 ? NULL : src);
        for (int64_t i = 0; src && i < local_n; i++)
            src[i] = -8;
        int x2 = pa_copy(S, src, T, dst);
        st = st != PA_OK ? st : x1 != PA_OK ? x1 : x2;
    }
    if (st == PA_OK) {
        memcpy(hout[t], dst, (size_t)local_n * sizeof *dst);
        memcpy(hback[t], src, (size_t)local_n * sizeof *src);
        if (pa_copy_explain(T, S, explained[t], sizeof explained[t]) < 0)
            st = pa__err(PA_ERR_SYS, "thread %d: pa_copy_explain: %s", t, pa_last_error());
    }
    free(src);
    free(dst);
    fake_dev = -1;
    return st;
}

/* Declares the case, runs two launches of `calls` round trips each, checks every element and that every thread's
 * explanation names want.  \return the groups the stand-in collectives ran. */
static int run(const char *text, int calls, const char *want)
{
    PA_CK_OK(pa_scope_create(NULL, &scope));
    PA_CK_OK(pa_declare_text(scope, text));
    const pa_type *S = pa_type_get(scope, "S"), *T = pa_type_get(scope, "T"), *P = pa_type_get(scope, "P");
    int64_t total = pa_size(S);
    nthreads = (int)pa_size(P);
    local_n = pa_size(pa_type_get(scope, "L"));   /* S's local type; T's is LT where the case has one */
    if (strstr(text, "LT = "))
        local_n = pa_size(pa_type_get(scope, "LT")) > local_n ? pa_size(pa_type_get(scope, "LT")) : local_n;
    ck_assert_int_eq(pa_size(T), total);
    for (int t = 0; t < nthreads; t++) {
        hin[t] = malloc((size_t)local_n * sizeof(int));
        hout[t] = malloc((size_t)local_n * sizeof(int));
        hback[t] = malloc((size_t)local_n * sizeof(int));
        ck_assert(hin[t] && hout[t] && hback[t]);
        for (int64_t i = 0; i < local_n; i++)
            hin[t][i] = -1;
    }
    for (int64_t k = 0; k < total; k++) {
        int64_t p = pa_offset_on(S, PA_ON_THREAD, k), o = pa_offset_on(S, PA_ON_LOCAL, k);
        if (p < 0 || p >= nthreads || o < 0 || o >= local_n)
            ck_abort_msg("element %lld: thread %lld, local %lld", (long long)k, (long long)p, (long long)o);
        hin[p][o] = value(k);
    }
    atomic_store(&groups_run, 0);
    for (int launch = 0; launch < 2; launch++) {
        for (int t = 0; t < nthreads; t++)
            for (int64_t i = 0; i < local_n; i++)
                hout[t][i] = hback[t][i] = -9;
        PA_CK_OK(pa_for(P, exchange, &calls, sizeof calls));
        for (int64_t k = 0; k < total; k++) {
            int64_t p = pa_offset_on(T, PA_ON_THREAD, k), o = pa_offset_on(T, PA_ON_LOCAL, k);
            if (hout[p][o] != value(k))   /* one assertion at the end: Check reports every one it passes */
                ck_abort_msg("launch %d, element %lld (thread %lld, local %lld): %d, expected %d", launch,
                             (long long)k, (long long)p, (long long)o, hout[p][o], value(k));
        }
        for (int t = 0; t < nthreads; t++)
            for (int64_t i = 0; i < local_n; i++)
                if (hin[t][i] != -1 && hback[t][i] != hin[t][i])   /* a window's unused tail is not copied */
                    ck_abort_msg("launch %d, back on thread %d, local %lld: %d, expected %d", launch, t, (long long)i,
                                 hback[t][i], hin[t][i]);
        for (int t = 0; t < nthreads; t++)
            ck_assert_msg(strstr(explained[t], want), "thread %d: no \"%s\" in: %s", t, want, explained[t]);
    }
    for (int t = 0; t < nthreads; t++) {
        free(hin[t]);
        free(hout[t]);
        free(hback[t]);
    }
    pa_scope_destroy(scope);
    return atomic_load(&groups_run);
}

static const char *plain4 = "P = pthd [4]\nL = paged int [4][24]\nS = [#P][#L_0][#L_1]\nT = [#L_0][#P][#L_1]\n";
static const char *fft4 = "P = pthd [4]\nL = paged int [4][[16][16]]\nS = [#P][#L]\nT = [[#L_1_0][#P][#L_0][#L_1_1]]\n";

static void setup(void)
{
    pa__pthd_exchange_gpu_test(&fake);
    atomic_store(&ids_made, 0);
    atomic_store(&inits, 0);
    unsetenv("PA_NCCL_CHUNKS");
    setenv("PA_PTHD_ROUTE", "nccl", 1);
}

static void teardown(void)
{
    pa__pthd_exchange_gpu_test(NULL);
}

/* Section 1.4's all-to-all: every pair's block contiguous on both sides, one group per copy and thread (2 copies
 * a round trip, 3 round trips, 4 threads, 2 launches); one set of communicators, made once and borrowed again. */
START_TEST(test_plain)
{
    int groups = run(plain4, 3, "route: NCCL (one communicator per thread's GPU; 1 chunk per peer");
    ck_assert_int_eq(groups, 2 * 3 * 4 * 2);
    ck_assert_int_eq(atomic_load(&ids_made), 1);
    ck_assert_int_eq(atomic_load(&inits), 4);
    ck_assert_ptr_nonnull(strstr(explained[0], "6 of 6 slices sent or received in place"));
    ck_assert_ptr_nonnull(strstr(explained[2], "own block sent to itself in the first group"));
}
END_TEST

/* The PKUFFT layout change: blocks packed and unpacked, cut into 4 chunks (4 groups a copy). */
START_TEST(test_fft_chunks)
{
    setenv("PA_NCCL_CHUNKS", "4", 1);
    int groups = run(fft4, 2, "route: NCCL (one communicator per thread's GPU; 4 chunks per peer");
    ck_assert_int_eq(groups, 2 * 2 * 4 * 4 * 2);
}
END_TEST

START_TEST(test_fft_whole)
{
    int groups = run(fft4, 1, "route: NCCL (one communicator per thread's GPU; 1 chunk per peer");
    ck_assert_int_eq(groups, 2 * 1 * 4 * 2);
    ck_assert_ptr_nonnull(strstr(explained[1], "own block copied on the GPU"));
}
END_TEST

/* Block of 13 over 3 threads into cyclic(2): uneven windows (gathered offsets), blocks of different sizes. */
START_TEST(test_uneven)
{
    int groups = run("P = pthd [3]\nL = paged int [5]\nLT = paged int [3][2]\nS = [13 # [#P][#L]]\n"
                     "T = [13 # [#LT_0][#P][#LT_1]]\n", 2, "route: NCCL");
    ck_assert_int_gt(groups, 0);
}
END_TEST

START_TEST(test_shared_device)
{
    shared_dev = 1;
    int groups = run(plain4, 2, "route: pulls (the NCCL route is not taken: threads 0 and 1 share GPU 0");
    shared_dev = 0;
    ck_assert_int_eq(groups, 0);
    ck_assert_int_eq(atomic_load(&ids_made), 0);
}
END_TEST

START_TEST(test_peer_asked)
{
    setenv("PA_PTHD_ROUTE", "peer", 1);
    ck_assert_int_eq(run(fft4, 1, "route: pulls (PA_PTHD_ROUTE=peer)"), 0);
}
END_TEST

/* Without PA_PTHD_ROUTE the cost model chooses: two threads and four, a few hundred bytes each (under the built-in
 * constants the pulls' one copy beats NCCL's latency, their three do not); what the model predicts is computed
 * here as the route's explanation says it does. */
START_TEST(test_cost_choice)
{
    unsetenv("PA_PTHD_ROUTE");
    const pa__cost_model *m = pa__cost();
    struct { const char *text; int n; double bytes; } cases[] = {
        {"P = pthd [2]\nL = paged int [2][24]\nS = [#P][#L_0][#L_1]\nT = [#L_0][#P][#L_1]\n", 2, 24 * 4},
        {"P = pthd [4]\nL = paged int [4][24]\nS = [#P][#L_0][#L_1]\nT = [#L_0][#P][#L_1]\n", 4, 3 * 24 * 4},
    };
    for (int i = 0; i < 2; i++) {
        double b = cases[i].bytes, nccl = m->gpu_nccl_latency * ((int)(b / (32 << 20)) + 1) + b / m->gpu_nccl_bw;
        double pull = (cases[i].n - 1) * m->gpu_call + b / m->gpu_peer_bw;
        int groups = run(cases[i].text, 1, nccl <= pull ? "route: NCCL" : "the pulls are predicted cheaper");
        ck_assert_int_eq(groups > 0, nccl <= pull);
    }
}
END_TEST

/* Without the stand-in collectives host memory never takes the route, whatever PA_PTHD_ROUTE says. */
START_TEST(test_host_memory)
{
    pa__pthd_exchange_gpu_test(NULL);
    ck_assert_int_eq(run(plain4, 1, "route: pulls (the NCCL route needs both sides in device memory)"), 0);
}
END_TEST

/* Thread 2 has no source array: every thread falls back to the pulls, which say so, and nobody is left waiting. */
static int missing(pa_ctx *ctx, void *arg)
{
    int t = (int)pa_tid(ctx), src[96], dst[96];
    (void)arg;
    fake_dev = t;
    memset(src, 0, sizeof src);
    int st = pa_copy(pa_type_get(scope, "T"), dst, pa_type_get(scope, "S"), t == 2 ? NULL : src);
    fake_dev = -1;
    return st;
}

START_TEST(test_null_source)
{
    PA_CK_OK(pa_scope_create(NULL, &scope));
    PA_CK_OK(pa_declare_text(scope, plain4));
    atomic_store(&groups_run, 0);
    int st = pa_for(pa_type_get(scope, "P"), missing, NULL, 0);
    ck_assert_int_eq(st, PA_ERR_INVAL);
    ck_assert_ptr_nonnull(strstr(pa_last_error(), "NULL"));
    ck_assert_int_eq(atomic_load(&groups_run), 0);
    pa_scope_destroy(scope);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("threads_route");
    TCase *tc = tcase_create("threads_route");
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, test_plain);
    tcase_add_test(tc, test_fft_chunks);
    tcase_add_test(tc, test_fft_whole);
    tcase_add_test(tc, test_uneven);
    tcase_add_test(tc, test_shared_device);
    tcase_add_test(tc, test_peer_asked);
    tcase_add_test(tc, test_cost_choice);
    tcase_add_test(tc, test_null_source);
    tcase_add_test(tc, test_host_memory);
    suite_add_tcase(s, tc);
    return pa_test_run(s);
}
