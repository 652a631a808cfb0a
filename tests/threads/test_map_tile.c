/*
 * tests/threads: for over data types (pa_map, pa_map_runs, pa_map2, their _using forms) through transposed,
 * windowed and gathered types compared with the reference offsets, chunks taken from a slow thread, and tiling
 * round trips and the tiled transposition.
 */
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "testutil.h"
#include "thread_internal.h"

static pa_scope *scope;

static void setup(void)
{
    ck_assert_int_eq(pa_scope_create(NULL, &scope), PA_OK);
    /* Arrays here are large enough to be split over several threads. */
    ck_assert_int_eq(pa_threads_set_num(4), PA_OK);
}

static void teardown(void)
{
    pa_scope_destroy(scope);
}

/* Writes k + 1 into element k, and counts the visits of each offset. */
typedef struct visit {
    int64_t *buf;
    atomic_int *hits;
} visit;

static void mark(void *e, int64_t k, void *arg)
{
    visit *v = arg;
    *(int64_t *)e = k + 1;
    atomic_fetch_add(&v->hits[(int64_t *)e - v->buf], 1);
}

/* The same as a run function, through PA_ELEM_RUNS (thread.h). */
PA_ELEM_RUNS(mark_run, mark, int64_t)

/* A caller's own per-element loop for pa_map_using: checks what the library hands it, counts its runs. */
static atomic_long own_loop_runs;
static void own_loop(void *first, int64_t stride, int64_t k0, int64_t n, void *call)
{
    const pa_elem_call *c = call;
    ck_assert_ptr_eq(c->elem, mark);
    ck_assert_uint_eq(c->elm, sizeof(int64_t));
    atomic_fetch_add(&own_loop_runs, 1);
    for (int64_t i = 0; i < n; i++)
        c->elem((int64_t *)first + i * stride, k0 + i, c->arg);
}

/* How check_map maps: thread.h's pa_map macro (its loop compiled here), pa_map_runs, the library's exported
 * pa_map (its loop compiled there), pa_map_using with own_loop. */
enum { BY_MACRO, BY_RUNS, BY_EXPORTED, BY_OWN_LOOP, BY_COUNT };

/* Maps over t and checks: element T(k) holds k + 1, each element of T visited once, nothing else touched. */
static void check_map(const pa_type *t, int64_t span, int how)
{
    ck_assert_msg(t != NULL, "%s", pa_last_error());
    int64_t *buf = malloc((size_t)span * sizeof *buf);
    atomic_int *hits = calloc((size_t)span, sizeof *hits);
    for (int64_t i = 0; i < span; i++)
        buf[i] = -7;
    visit v = {buf, hits};
    atomic_store(&own_loop_runs, 0);
    if (how == BY_RUNS)
        PA_CK_OK(pa_map_runs(t, buf, mark_run, &v));
    else if (how == BY_EXPORTED)
        PA_CK_OK((pa_map)(t, buf, mark, &v));
    else if (how == BY_OWN_LOOP)
        PA_CK_OK(pa_map_using(t, buf, mark, &v, own_loop));
    else
        PA_CK_OK(pa_map(t, buf, mark, &v));
    ck_assert(how == BY_OWN_LOOP ? atomic_load(&own_loop_runs) > 0 : atomic_load(&own_loop_runs) == 0);
    int64_t n = pa_size(t), touched = 0;
    for (int64_t k = 0; k < n; k++) {
        int64_t off = pa_offset(t, k);
        ck_assert_msg(buf[off] == k + 1, "%s: element %lld (offset %lld) holds %lld", pa_type_name(t),
                      (long long)k, (long long)off, (long long)buf[off]);
        ck_assert_int_eq(atomic_load(&hits[off]), 1);
    }
    for (int64_t i = 0; i < span; i++)
        touched += buf[i] != -7;
    ck_assert_int_eq(touched, n);
    free(hits);
    free(buf);
}

START_TEST(map_plain_transposed_window)
{
    PA_CK_OK(pa_declare(scope, "A", "paged long [[60][60]][4]"));
    PA_CK_OK(pa_declare(scope, "B", "[[#A_0_1][#A_0_0]][#A_1]"));
    PA_CK_OK(pa_declare(scope, "DATA", "paged long [[100][100]]"));
    PA_CK_OK(pa_declare(scope, "WINDOW", "[[80 # disp(10) # DATA_0][80 # disp(10) # DATA_1]]"));
    PA_CK_OK(pa_declare(scope, "G", "paged long [10000 # disp(3) # [10000]]"));
    for (int how = 0; how < BY_COUNT; how++) {
        check_map(pa_type_get(scope, "A"), 14400, how);
        check_map(pa_type_get(scope, "B"), 14400, how);
        check_map(pa_type_get(scope, "WINDOW"), 10000, how);
        check_map(pa_type_get(scope, "G"), 10000, how);
        check_map(pa_type_get(scope, "A_0"), 14400, how);
    }
}
END_TEST

/* Elements of the first thread's range are slow; each element records the thread that mapped it. */
typedef struct slow_first {
    int64_t slow_below;
    pthread_t *by;
    atomic_int *hits;
} slow_first;

static void slow_first_elem(void *e, int64_t k, void *arg)
{
    const slow_first *s = arg;
    if (k < s->slow_below) {
        struct timespec t0, t1;
        clock_gettime(CLOCK_MONOTONIC, &t0);
        do
            clock_gettime(CLOCK_MONOTONIC, &t1);
        while ((t1.tv_sec - t0.tv_sec) * 1000000000L + (t1.tv_nsec - t0.tv_nsec) < 1000);
    }
    s->by[k] = pthread_self();
    atomic_fetch_add(&s->hits[k], 1);
    *(int64_t *)e = k;
}

/* A thread done with its own range takes chunks from the back of a slower thread's range: the first thread's
 * range (slow elements) ends up mapped by more than one thread, and still every element exactly once. */
START_TEST(map_steals_from_slow_thread)
{
    const int64_t n = 4 * 16 * 2048;
    const pa_type *t = pa_type_parse(scope, "paged long [131072]");
    int64_t *a = pa_create(t);
    slow_first s = {n / 4, calloc(n, sizeof(pthread_t)), calloc(n, sizeof(atomic_int))};
    ck_assert(a != NULL && s.by != NULL && s.hits != NULL);
    PA_CK_OK(pa_map(t, a, slow_first_elem, &s));
    int other = 0;
    for (int64_t k = 0; k < n; k++) {
        ck_assert_int_eq(atomic_load(&s.hits[k]), 1);
        ck_assert_int_eq(a[k], k);
        other += k < n / 4 && !pthread_equal(s.by[k], s.by[0]);
    }
    ck_assert_msg(other > 0, "no other thread took part of the slow range");
    /* A chunk is mapped by one thread: the first 2048 elements by the same one. */
    for (int64_t k = 0; k < 2048; k++)
        ck_assert(pthread_equal(s.by[k], s.by[0]));
    free(s.by);
    free(s.hits);
    PA_CK_OK(pa_destroy(t, a));
}
END_TEST

/* Listing 19: for k A(a) a[k] = k + 1 over paged int [4]. */
static void listing19(void *e, int64_t k, void *arg)
{
    *(int *)e = (int)k + 1;
}

START_TEST(map_listing19_small)
{
    const pa_type *a = pa_type_parse(scope, "paged int [4]");
    int *p = pa_create(a);
    ck_assert_ptr_nonnull(p);
    PA_CK_OK(pa_map(a, p, listing19, NULL));
    for (int k = 0; k < 4; k++)
        ck_assert_int_eq(p[k], k + 1);
    PA_CK_OK(pa_destroy(a, p));
}
END_TEST

static void add_pair(void *e1, void *e2, int64_t k, void *arg)
{
    *(int64_t *)e1 += *(int64_t *)e2 * 1000 + k;
}

/* A caller's own loop for pa_map2_using: the same calls as pa_elem2_loop, with the sizes checked. */
static void own_loop2(void *first1, int64_t stride1, void *first2, int64_t stride2, int64_t k0, int64_t n, void *call)
{
    const pa_elem_call *c = call;
    ck_assert_uint_eq(c->elm, sizeof(int64_t));
    ck_assert_uint_eq(c->elm2, sizeof(int64_t));
    for (int64_t i = 0; i < n; i++)
        c->elem2((int64_t *)first1 + i * stride1, (int64_t *)first2 + i * stride2, k0 + i, c->arg);
}

START_TEST(map2_transpose_pairs)
{
    PA_CK_OK(pa_declare(scope, "M", "paged long [[50][70]]"));
    PA_CK_OK(pa_declare(scope, "MT", "[[#M_1][#M_0]]"));
    const pa_type *m = pa_type_get(scope, "M"), *mt = pa_type_get(scope, "MT");
    int64_t *a = calloc(3500, sizeof *a), *b = malloc(3500 * sizeof *b);
    for (int i = 0; i < 3500; i++)
        b[i] = i;
    /* The macro, the exported function and a loop of our own each add their term once. */
    PA_CK_OK(pa_map2(m, a, mt, b, add_pair, NULL));
    PA_CK_OK((pa_map2)(m, a, mt, b, add_pair, NULL));
    PA_CK_OK(pa_map2_using(m, a, mt, b, add_pair, NULL, own_loop2));
    for (int64_t k = 0; k < 3500; k++)
        ck_assert_int_eq(a[pa_offset(m, k)], 3 * (b[pa_offset(mt, k)] * 1000 + k));
    PA_CK_ERR(pa_map2(m, a, pa_type_parse(scope, "paged long [3]"), b, add_pair, NULL), PA_ERR_SIZE);
    PA_CK_ERR(pa_map2_using(m, a, mt, b, add_pair, NULL, NULL), PA_ERR_INVAL);
    ck_assert_msg(strstr(pa_last_error(), "loop function is NULL") != NULL, "%s", pa_last_error());
    free(a);
    free(b);
}
END_TEST

START_TEST(map_bad_input)
{
    int x[4];
    PA_CK_ERR(pa_map(pa_type_parse(scope, "dmem float [4]"), x, listing19, NULL), PA_ERR_NODEV);
    ck_assert_msg(strstr(pa_last_error(), "dmem") != NULL, "%s", pa_last_error());
    PA_CK_ERR(pa_map(pa_type_parse(scope, "pthd [4]"), x, listing19, NULL), PA_ERR_MTT);
    PA_CK_ERR(pa_map(pa_type_parse(scope, "paged [4]"), x, listing19, NULL), PA_ERR_ELM);
    PA_CK_ERR(pa_map(pa_type_parse(scope, "paged int [4]"), NULL, listing19, NULL), PA_ERR_INVAL);
    PA_CK_ERR(pa_map(pa_type_parse(scope, "paged int [4]"), x, NULL, NULL), PA_ERR_INVAL);
    PA_CK_ERR((pa_map)(pa_type_parse(scope, "paged int [4]"), x, NULL, NULL), PA_ERR_INVAL);
    PA_CK_ERR(pa_map_using(pa_type_parse(scope, "paged int [4]"), x, listing19, NULL, NULL), PA_ERR_INVAL);
    ck_assert_msg(strstr(pa_last_error(), "loop function is NULL") != NULL, "%s", pa_last_error());
    PA_CK_ERR(pa_threads_set_num(0), PA_ERR_RANGE);
    PA_CK_ERR(pa_threads_set_num(PA_MAX_THREADS + 1), PA_ERR_RANGE);
}
END_TEST

/* ---- tile ---------------------------------------------------------------------------------------------- */

static int add_tile_index(void *tile, int64_t t, void *arg)
{
    float *f = tile;
    int64_t s = *(int64_t *)arg;
    for (int64_t i = 0; i < s; i++)
        f[i] += (float)(t * 1000);
    return PA_OK;
}

/* The tile-major view of a 64 x 96 matrix in 16 x 32 blocks. */
static void declare_tiles(void)
{
    PA_CK_OK(pa_declare(scope, "MAT", "paged float [[4][16]][[3][32]]"));
    PA_CK_OK(pa_declare(scope, "TILED", "[[#MAT_0_0][#MAT_1_0]][[#MAT_0_1][#MAT_1_1]]"));
    PA_CK_OK(pa_declare(scope, "BLOCK", "paged float [16][32]"));
}

START_TEST(tile_round_trips)
{
    declare_tiles();
    const pa_type *tiled = pa_type_get(scope, "TILED"), *block = pa_type_get(scope, "BLOCK");
    float *m = malloc(64 * 96 * sizeof *m);
    for (int i = 0; i < 64 * 96; i++)
        m[i] = (float)i;
    int64_t s = 512;
    /* iotile: every element gets its tile's index * 1000; tile t is block (t / 3, t % 3). */
    PA_CK_OK(pa_tile(tiled, m, block, PA_IOTILE, add_tile_index, &s));
    for (int r = 0; r < 64; r++)
        for (int c = 0; c < 96; c++)
            ck_assert_float_eq(m[r * 96 + c], (float)(r * 96 + c) + (float)((r / 16 * 3 + c / 32) * 1000));
    /* itile alone leaves the data as it is; otile alone stores zero-started tiles. */
    float *snap = malloc(64 * 96 * sizeof *snap);
    memcpy(snap, m, 64 * 96 * sizeof *m);
    PA_CK_OK(pa_tile(tiled, m, block, PA_ITILE, add_tile_index, &s));
    ck_assert_int_eq(memcmp(snap, m, 64 * 96 * sizeof *m), 0);
    free(snap);
    PA_CK_OK(pa_tile(tiled, m, block, PA_OTILE, add_tile_index, &s));
    for (int r = 0; r < 64; r++)
        for (int c = 0; c < 96; c++)
            ck_assert_float_eq(m[r * 96 + c], (float)((r / 16 * 3 + c / 32) * 1000));
    free(m);
}
END_TEST

START_TEST(tile_transposition)
{
    /* Listing 23 on the CPU: B = transpose(A) through 16 x 16 tiles staged in a cache-sized buffer. */
    PA_CK_OK(pa_declare(scope, "A", "paged float [[8][16]][[8][16]]"));
    PA_CK_OK(pa_declare(scope, "B", "paged float [[8][16]][[8][16]]"));
    PA_CK_OK(pa_declare(scope, "TA", "[[#A_0_0][#A_1_0]][[#A_0_1][#A_1_1]]"));
    PA_CK_OK(pa_declare(scope, "TB", "[[#B_1_0][#B_0_0]][[#B_1_1][#B_0_1]]"));
    PA_CK_OK(pa_declare(scope, "TILE", "paged float [16][16]"));
    float *a = malloc(128 * 128 * sizeof *a), *b = calloc(128 * 128, sizeof *b);
    for (int i = 0; i < 128 * 128; i++)
        a[i] = (float)i;
    PA_CK_OK(pa_tile_copy(pa_type_get(scope, "TB"), b, pa_type_get(scope, "TA"), a, pa_type_get(scope, "TILE"), NULL,
                          NULL));
    for (int r = 0; r < 128; r++)
        for (int c = 0; c < 128; c++)
            ck_assert_float_eq(b[c * 128 + r], a[r * 128 + c]);
    free(a);
    free(b);
}
END_TEST

static int tile_fails(void *tile, int64_t t, void *arg)
{
    return t == 2 ? PA_ERR_RANGE : PA_OK;
}

/* A tile function that fails through a library call: its message must come back once, under pa_tile's. */
static int tile_fails_with_message(void *tile, int64_t t, void *arg)
{
    return t == 1 && pa_type_get(arg, "NO_SUCH_TYPE") == NULL ? PA_ERR_NAME : PA_OK;
}

START_TEST(tile_keeps_callback_message)
{
    declare_tiles();
    const pa_type *tiled = pa_type_get(scope, "TILED"), *block = pa_type_get(scope, "BLOCK");
    float m[64 * 96];
    memset(m, 0, sizeof m);
    PA_CK_ERR(pa_tile(tiled, m, block, PA_IOTILE, tile_fails_with_message, scope), PA_ERR_NAME);
    const char *msg = pa_last_error();
    ck_assert_msg(strncmp(msg, "ERR_NAME: pa_tile", 17) == 0, "message: %s", msg);
    ck_assert_msg(strstr(msg, "the tile function failed: ") != NULL, "message: %s", msg);
    ck_assert_msg(strstr(msg, "NO_SUCH_TYPE") != NULL, "the callback's message is lost: %s", msg);
    ck_assert_msg(strstr(msg, "failed: ERR_") == NULL && strstr(strstr(msg, "failed") + 1, "failed") == NULL,
                  "the message is garbled: %s", msg);
    /* A failing callback that sets no message gets one saying so. */
    PA_CK_ERR(pa_tile(tiled, m, block, PA_IOTILE, tile_fails, NULL), PA_ERR_RANGE);
    ck_assert_msg(strstr(pa_last_error(), "no message") != NULL, "message: %s", pa_last_error());
}
END_TEST

START_TEST(tile_bad_input)
{
    declare_tiles();
    const pa_type *tiled = pa_type_get(scope, "TILED"), *block = pa_type_get(scope, "BLOCK");
    float m[64 * 96];
    memset(m, 0, sizeof m);
    PA_CK_ERR(pa_tile(tiled, m, pa_type_parse(scope, "paged float [10][10]"), PA_ITILE, NULL, NULL), PA_ERR_SIZE);
    PA_CK_ERR(pa_tile(tiled, m, pa_type_parse(scope, "paged double [16][32]"), PA_ITILE, NULL, NULL), PA_ERR_ELM);
    PA_CK_ERR(pa_tile(tiled, m, block, 7, NULL, NULL), PA_ERR_INVAL);
    PA_CK_ERR(pa_tile(tiled, NULL, block, PA_ITILE, NULL, NULL), PA_ERR_INVAL);
    PA_CK_ERR(pa_tile(pa_type_parse(scope, "dmem float [512]"), m, block, PA_ITILE, NULL, NULL), PA_ERR_NODEV);
    PA_CK_ERR(pa_tile(tiled, m, block, PA_IOTILE, tile_fails, NULL), PA_ERR_RANGE);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("threads_map_tile");
    TCase *tc = tcase_create("map_tile");
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_add_test(tc, map_plain_transposed_window);
    tcase_add_test(tc, tile_keeps_callback_message);
    tcase_add_test(tc, map_listing19_small);
    tcase_add_test(tc, map_steals_from_slow_thread);
    tcase_add_test(tc, map2_transpose_pairs);
    tcase_add_test(tc, map_bad_input);
    tcase_add_test(tc, tile_round_trips);
    tcase_add_test(tc, tile_transposition);
    tcase_add_test(tc, tile_bad_input);
    suite_add_tcase(s, tc);
    return pa_test_run(s);
}
