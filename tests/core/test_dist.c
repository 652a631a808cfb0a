/*
 * Distributed types without MPI running: offsets "on" the thread and memory parts (manual §5.5, listing 40),
 * the core's split into process and local layouts checked against them at every index, and distributed
 * copies in a single process (no mpirun): fine when every element is on process 0, a clear error otherwise,
 * and PA_ERR_NODEV in a build without the MPI backend.
 */
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "testutil.h"
#include <parray/mpi.h>

static pa_scope *scope;

static void setup(void)
{
    PA_CK_OK(pa_scope_create(NULL, &scope));
    PA_CK_OK(pa_declare_text(scope,
        "PTHD = pthd [4]\n"
        "DMEM = dmem float [4096]\n"
        "DATA = [#PTHD][#DMEM]\n"                   /* listing 40 */
        "M2 = mpi [2][2]\n"
        "D36 = paged int [2][2]\n"
        "S36 = [#M2][#D36]\n"
        "T36 = [[#M2_1][#D36_0]][[#M2_0][#D36_1]]\n"   /* listing 36 */
        "A = paged int [[3][3]][2]\n"
        "N = mpi [3]\n"
        "C = [[#N][#A_0_1]][#A_1]\n"                /* section 1.4 */
        "D = [[#A_0_1][#N]][#A_1]\n"
        "P = mpi [4]\n"
        "D3 = paged int [3]\n"
        "ON0 = [1 # P][#D3]\n"
        "ON1 = [1 # disp(1) # P][#D3]\n"
        "BAD = [[#P][#D3] # disp(1)]\n"
        "PD = paged float [4][4096]\n"));
}

static void teardown(void)
{
    pa_scope_destroy(scope);
}

START_TEST(test_listing40)
{
    const pa_type *data = pa_type_get(scope, "DATA");
    ck_assert_ptr_nonnull(data);
    ck_assert_str_eq(pa_mtt(data), "distributed");
    ck_assert_int_eq(pa_offset_on(data, PA_ON_THREAD, 4098), 1);
    ck_assert_int_eq(pa_offset_on(data, PA_ON_LOCAL, 4098), 2);
    /* A memory type is all on thread 0; a thread type is all thread. */
    const pa_type *a = pa_type_get(scope, "A"), *n = pa_type_get(scope, "N");
    ck_assert_int_eq(pa_offset_on(a, PA_ON_THREAD, 7), 0);
    ck_assert_int_eq(pa_offset_on(a, PA_ON_LOCAL, 7), pa_offset(a, 7));
    ck_assert_int_eq(pa_offset_on(n, PA_ON_THREAD, 2), 2);
}
END_TEST

START_TEST(test_mixtomix_and_transpose_offsets)
{
    const pa_type *t = pa_type_get(scope, "T36"), *d = pa_type_get(scope, "D");
    /* T36 index ((a,b),(c,e)): process a + 2c, local 2b + e. */
    for (int k = 0; k < 16; k++) {
        int a = k >> 3 & 1, b = k >> 2 & 1, c = k >> 1 & 1, e = k & 1;
        ck_assert_int_eq(pa_offset_on(t, PA_ON_THREAD, k), a + 2 * c);
        ck_assert_int_eq(pa_offset_on(t, PA_ON_LOCAL, k), 2 * b + e);
    }
    /* D index ((a,b),c): process b, local A_0_1(a) + A_1(c) = 2a + c. */
    for (int k = 0; k < 18; k++)
        ck_assert_int_eq(pa_offset_on(d, PA_ON_LOCAL, k) * 10 + pa_offset_on(d, PA_ON_THREAD, k),
                         (2 * (k / 6) + k % 2) * 10 + (k / 2) % 3);
}
END_TEST

/* The compiled split agrees with the tree walk at every index of every distributed type here. */
START_TEST(test_split_matches_walk)
{
    const char *names[] = {"DATA", "S36", "T36", "C", "D", "ON1", "A"};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        const pa_type *t = pa_type_get(scope, names[i]);
        pa__dist_split s;
        PA_CK_OK(pa__dist_split_of(t, &s));
        for (int64_t k = 0; k < pa_size(t); k += 1 + pa_size(t) / 2000) {
            ck_assert_int_eq(pa__layout_offset(&s.pid, k), pa_offset_on(t, PA_ON_THREAD, k));
            ck_assert_int_eq(pa__layout_offset(&s.local, k), pa_offset_on(t, PA_ON_LOCAL, k));
        }
    }
}
END_TEST

START_TEST(test_bad_input)
{
    const pa_type *data = pa_type_get(scope, "DATA");
    ck_assert_int_eq(pa_offset_on(data, PA_ON_THREAD, 4 * 4096), PA_BAD_OFFSET);
    ck_assert_int_eq(pa_offset_on(NULL, PA_ON_THREAD, 0), PA_BAD_OFFSET);
    ck_assert_int_eq(pa_offset_on(data, (pa_on)7, 0), PA_BAD_OFFSET);
    /* A displacement on a dimension that mixes processes and memory has no meaning per part. */
    const pa_type *bad = pa_type_get(scope, "BAD");
    ck_assert_ptr_nonnull(bad);
    ck_assert_str_eq(pa_mtt(bad), "distributed");
    pa_error_clear();
    ck_assert_int_eq(pa_offset_on(bad, PA_ON_THREAD, 0), PA_BAD_OFFSET);
    ck_assert_ptr_nonnull(strstr(pa_last_error(), "ERR_UNSUPPORTED"));
}
END_TEST

/* No mpirun, no MPI_Init: one process.  Copies that stay on process 0 work; others name the process count. */
START_TEST(test_single_process)
{
    int src[3] = {4, 5, 6}, dst[3] = {0, 0, 0};
    const pa_type *d3 = pa_type_get(scope, "D3"), *on0 = pa_type_get(scope, "ON0"), *on1 = pa_type_get(scope, "ON1");
    const pa_type *pthd = pa_type_get(scope, "DATA"), *s36 = pa_type_get(scope, "S36");
    ck_assert_int_eq(pa_mpi_rank(), 0);
    ck_assert_int_eq(pa_mpi_nprocs(), 1);
    if (pa_mpi_available()) {
        PA_CK_OK(pa_copy(on0, dst, d3, src));
        ck_assert_int_eq(dst[2], 6);
        PA_CK_ERR(pa_copy(on1, dst, d3, src), PA_ERR_RANGE);
        ck_assert_ptr_nonnull(strstr(pa_last_error(), "process"));
    } else {
        PA_CK_ERR(pa_copy(on0, dst, d3, src), PA_ERR_NODEV);
        ck_assert_ptr_nonnull(strstr(pa_last_error(), "MPI backend"));
    }
    /* Distributed over pthd threads, or over two thread types: not copies this library makes yet. */
    PA_CK_ERR(pa_copy(s36, dst, pthd, src), PA_ERR_UNSUPPORTED);
    PA_CK_ERR(pa_copy(pa_type_get(scope, "PD"), dst, pthd, src), PA_ERR_UNSUPPORTED);
    ck_assert_ptr_nonnull(strstr(pa_last_error(), "pthd"));
}
END_TEST

static int one_process(pa_ctx *ctx, void *arg)
{
    *(int *)arg == 5 && pa_tid(ctx) == 0 && pa_ctx_size(ctx) == 1 ? (void)0 : abort();
    return pa_sync(ctx, "");
}

/* Without mpirun an mpi [1] array is this process; larger ones are a clear error. */
START_TEST(test_single_process_array)
{
    int five = 5;
    if (!pa_mpi_available()) {
        PA_CK_ERR(pa_for(pa_type_get(scope, "N"), one_process, &five, sizeof five), PA_ERR_NODEV);
        return;
    }
    PA_CK_OK(pa_for(pa_type_parse(scope, "mpi [1]"), one_process, &five, sizeof five));
    PA_CK_ERR(pa_for(pa_type_get(scope, "N"), one_process, &five, sizeof five), PA_ERR_RANGE);
    ck_assert_ptr_nonnull(strstr(pa_last_error(), "mpirun"));
}
END_TEST

/*
 * The per-thread memos of recent copies (copy.c, the MPI backend) name a pair of types by address and serial:
 * a type made where a freed one was must not pass for it, whatever address the allocator hands out.
 */
START_TEST(test_pair_names_types)
{
    pa__pair p, empty;
    pa_scope *s = NULL;
    const pa_type *c = pa_type_get(scope, "C"), *d = pa_type_get(scope, "D");
    ck_assert_uint_ne(pa__type_serial(c), pa__type_serial(d));
    ck_assert_uint_ne(pa__type_serial(c), pa__type_serial(pa_type_dim(c, "0")));
    memset(&empty, 0, sizeof empty);
    ck_assert(!pa__pair_is(&empty, c, d));
    pa__pair_set(&p, c, d);
    ck_assert(pa__pair_is(&p, c, d));
    ck_assert(!pa__pair_is(&p, d, c));
    p.sser++;                                        /* as if d had been freed and another made at its address */
    ck_assert(!pa__pair_is(&p, c, d));
    /* Made again after its scope is gone: a new serial, larger than every earlier one, wherever it lands. */
    PA_CK_OK(pa_scope_create(NULL, &s));
    PA_CK_OK(pa_declare_text(s, "E = paged int [4]"));
    const pa_type *e = pa_type_get(s, "E");
    uint64_t old = pa__type_serial(e);
    pa__pair_set(&p, e, e);
    pa_scope_destroy(s);
    PA_CK_OK(pa_scope_create(NULL, &s));
    PA_CK_OK(pa_declare_text(s, "E = paged int [4]"));
    e = pa_type_get(s, "E");
    ck_assert_uint_gt(pa__type_serial(e), old);
    ck_assert(!pa__pair_is(&p, e, e));
    pa_scope_destroy(s);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("dist");
    TCase *tc = tcase_create("dist");
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_add_test(tc, test_listing40);
    tcase_add_test(tc, test_mixtomix_and_transpose_offsets);
    tcase_add_test(tc, test_split_matches_walk);
    tcase_add_test(tc, test_bad_input);
    tcase_add_test(tc, test_single_process);
    tcase_add_test(tc, test_single_process_array);
    tcase_add_test(tc, test_pair_names_types);
    suite_add_tcase(s, tc);
    return pa_test_run(s);
}
