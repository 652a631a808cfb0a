/*
 * Suite core_hardening: bad input on the core's newer surfaces (issue 27), each a clear error and nothing
 * half-done, never a write out of bounds or undefined behaviour (the suite runs under ASan + UBSan in CI):
 *   - a pointer inside an array made by pa_create as a copy's destination or source, whose type's extent from
 *     there leaves the array (the allocation table's range lookup);
 *   - steps and displacements near the ends of int64 before a wrapping reference (layout composition);
 *   - DLPack: 11 to 32 dimensions, strides at the ends of int64, byte offsets outside the array, empty arrays;
 *   - a FIFO, a device or a directory named as a matrix CSV file.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <sys/stat.h>
#include <unistd.h>

#include "parray/dlpack.h"
#include "parray/matrix.h"
#include "testutil.h"

static pa_scope *s;

static void setup(void)
{
    PA_CK_OK(pa_scope_create(NULL, &s));
}

static void teardown(void)
{
    pa_scope_destroy(s);
}

/* ---- interior pointers ---------------------------------------------------------------------------------- */

START_TEST(interior_pointer_copy)
{
    const pa_type *A = pa_type_parse(s, "paged float [16]"), *H = pa_type_parse(s, "paged float [8]");
    PA_CK_OK(pa_declare_text(s, "T = paged float [[4][4]]\nTT = paged float [[4 # T_1][4 # T_0]]"));
    const pa_type *T = pa_type_get(s, "T"), *TT = pa_type_get(s, "TT");
    ck_assert(A && H && T && TT);
    float *a = pa_create(A), *b = pa_create(A);
    ck_assert(a && b);
    for (int i = 0; i < 16; i++) {
        a[i] = (float)i;
        b[i] = -1;
    }
    /* The case: one element past the allocation. */
    PA_CK_ERR(pa_copy(A, a + 1, A, a), PA_ERR_RANGE);
    ck_assert_msg(strstr(pa_last_error(), "destination") && strstr(pa_last_error(), "leave the array"), "%s",
                  pa_last_error());
    PA_CK_ERR(pa_copy(A, b, A, a + 1), PA_ERR_RANGE);
    ck_assert_msg(strstr(pa_last_error(), "source"), "%s", pa_last_error());
    PA_CK_ERR(pa_copy(H, b + 9, H, a), PA_ERR_RANGE);
    PA_CK_ERR(pa_copy_async(H, b + 9, H, a, NULL), PA_ERR_RANGE);
    PA_CK_ERR(pa_copy(TT, b + 1, T, a), PA_ERR_RANGE);   /* through the planner's transposition too */
    for (int i = 0; i < 16; i++)
        ck_assert_msg(b[i] == -1 && a[i] == (float)i, "element %d was written by a refused copy", i);
    /* Inside the array: halves copied through interior pointers. */
    PA_CK_OK(pa_copy(H, b + 8, H, a));
    PA_CK_OK(pa_copy(H, b, H, a + 8));
    for (int i = 0; i < 16; i++)
        ck_assert_int_eq((int)b[i], (i + 8) % 16);
    /* Memory the library did not allocate is the program's to keep in bounds: not checked. */
    float own[17] = {0};
    PA_CK_OK(pa_copy(A, own + 1, A, a));
    ck_assert(own[16] == 15);
    PA_CK_OK(pa_destroy(A, a));
    PA_CK_OK(pa_destroy(A, b));
}
END_TEST

/* Many live arrays: the lookup finds each one's block, first and last element, and none past its end. */
START_TEST(interior_pointer_many)
{
    enum { N = 300 };
    const pa_type *A = pa_type_parse(s, "paged int [5]"), *E = pa_type_parse(s, "paged int [1]");
    int *p[N];
    int one = 7;
    for (int i = 0; i < N; i++)
        ck_assert_ptr_nonnull(p[i] = pa_create(A));
    for (int i = N - 1; i >= 0; i -= 3) {
        PA_CK_OK(pa_copy(E, p[i] + 4, E, &one));
        ck_assert_int_eq(p[i][4], 7);
        PA_CK_ERR(pa_copy(A, p[i] + 1, A, p[i]), PA_ERR_RANGE);
    }
    for (int i = 0; i < N; i += 2)
        PA_CK_OK(pa_destroy(A, p[i]));
    for (int i = 1; i < N; i += 2) {
        PA_CK_ERR(pa_copy(A, p[i] + 2, A, p[i]), PA_ERR_RANGE);
        PA_CK_OK(pa_destroy(A, p[i]));
    }
}
END_TEST


/* ---- layout composition near the ends of int64 -------------------------------------------------------- */

/* A step(INT64_MIN) or a disp(INT64_MAX) before a wrapping reference: a clear answer (offsets or a RANGE error
 * naming the overflow), never signed overflow in the compiler (UBSan in CI aborts on it). */
static const char *const extreme[] = {
    "paged int [3 # step(-9223372036854775808) # [4]]",
    "paged int [3 # step(-9223372036854775807) # [4]]",
    "paged int [3 # disp(9223372036854775807) # [4]]",
    "paged int [2 # step(4611686018427387904) # disp(4611686018427387904) # [5]]",
    "paged int [[2 # step(-9223372036854775808) # [3]][4 # disp(9223372036854775807) # [6]]]",
    "paged int [3 # step(9223372036854775807) # [[4][2]]]",
    "paged int [3 # disp(-9223372036854775807) # step(3) # [7]]",
};

START_TEST(layout_extremes)
{
    const pa_type *t = pa_type_parse(s, extreme[_i]);
    if (t == NULL) {   /* refused at the declaration: then with a clear status */
        ck_assert_msg(pa_last_error()[0] != '\0', "%s: NULL without a message", extreme[_i]);
        return;
    }
    int64_t lo = 0, hi = 0, off = 0;
    int rc = pa_extent(t, &lo, &hi);
    ck_assert_msg(rc == PA_OK || rc == PA_ERR_RANGE || rc == PA_ERR_UNSUPPORTED, "%s: %s", extreme[_i],
                  pa_last_error());
    if (rc != PA_OK)
        ck_assert_msg(strlen(pa_last_error()) > 10, "%s: no message", extreme[_i]);
    for (int64_t i = 0; i < pa_size(t); i++) {
        off = pa_offset(t, i);
        ck_assert_msg(off != PA_BAD_OFFSET || strstr(pa_last_error(), "overflow"), "%s index %lld: %s", extreme[_i],
                      (long long)i, pa_last_error());
        if (off != PA_BAD_OFFSET)   /* an offset that exists lies in the reference's array */
            ck_assert_msg(off >= 0 && off < 64, "%s index %lld: offset %lld", extreme[_i], (long long)i,
                          (long long)off);
    }
    char buf[256];
    pa_layout_format(t, buf, sizeof buf);
}
END_TEST

/* ---- DLPack ------------------------------------------------------------------------------------------- */

static float pool[1 << 12];

static DLTensor tensor(int64_t *shape, int64_t *strides, int ndim, void *data)
{
    DLTensor t;
    memset(&t, 0, sizeof t);
    t.data = data;
    t.device.device_type = kDLCPU;
    t.ndim = ndim;
    t.dtype.code = kDLFloat;
    t.dtype.bits = 32;
    t.dtype.lanes = 1;
    t.shape = shape;
    t.strides = strides;
    return t;
}

/* 11 to 32 axes (once refused past the manual's 10 sub-dimensions): every element's offset is the tensor's. */
START_TEST(dlpack_many_axes)
{
    int nd = 11 + _i * 7 > 32 ? 32 : 11 + _i * 7;   /* 11, 18, 25, 32 */
    for (int strided = 0; strided < 2; strided++) {
        int64_t shape[32], strides[32], run = 1;
        for (int k = nd - 1; k >= 0; k--) {
            shape[k] = k % 5 == 2 ? 2 : k % 7 == 3 && nd < 20 ? 3 : 1;
            strides[k] = strided && k % 2 ? -run : run;
            run *= shape[k];
        }
        int64_t lo = 0;
        for (int k = 0; k < nd; k++)
            lo += strides[k] < 0 ? (shape[k] - 1) * strides[k] : 0;
        DLTensor t = tensor(shape, strided ? strides : NULL, nd, pool + 2048);
        const pa_type *ty = NULL;
        void *p = NULL;
        PA_CK_OK(pa_dlpack_import(s, &t, &ty, &p));
        ck_assert_int_eq(pa_size(ty), run);
        ck_assert_ptr_eq(p, pool + 2048 + lo);
        /* Element i (row-major over the axes) is at sum(idx_k * stride_k) from data, so at that - lo from p. */
        for (int64_t i = 0; i < run; i++) {
            int64_t rest = i, want = 0, off = -1;
            for (int k = nd - 1; k >= 0; k--) {
                want += rest % shape[k] * strides[k];
                rest /= shape[k];
            }
            off = pa_offset(ty, i);
            ck_assert_msg(off == want - lo, "%d axes (%s) element %lld: offset %lld, wanted %lld", nd,
                          strided ? "strided" : "compact", (long long)i, (long long)off, (long long)(want - lo));
        }
        /* It exports back (a group of axes that is itself strided may come out as one axis) and imports again
         * to the same offsets. */
        DLManagedTensor *m = NULL;
        PA_CK_OK(pa_dlpack_export(ty, p, &m));
        int64_t n = 1;
        for (int k = 0; k < m->dl_tensor.ndim; k++)
            n *= m->dl_tensor.shape[k];
        ck_assert_int_eq(n, run);
        const pa_type *again = NULL;
        void *q = NULL;
        PA_CK_OK(pa_dlpack_import(s, &m->dl_tensor, &again, &q));
        ck_assert_ptr_eq(q, p);
        for (int64_t i = 0; i < run; i++)
            ck_assert_int_eq(pa_offset(again, i), pa_offset(ty, i));
        m->deleter(m);
    }
}
END_TEST

/* Strides at the ends of int64, and byte offsets that leave the address space or the array pa_create made. */
START_TEST(dlpack_extreme_strides)
{
    const pa_type *ty = NULL;
    void *p = NULL;
    static const int64_t bad[][2] = {{INT64_MIN, 1}, {INT64_MIN / 2, 1}, {INT64_MAX, 1}, {(INT64_C(1) << 61) + 1, -(INT64_C(1) << 61)},
                                     {-(INT64_C(1) << 62), -(INT64_C(1) << 62)}};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        int64_t shape[2] = {3, 3}, strides[2] = {bad[i][0], bad[i][1]};
        DLTensor t = tensor(shape, strides, 2, pool);
        PA_CK_ERR(pa_dlpack_import(s, &t, &ty, &p), PA_ERR_RANGE);
    }
    int64_t shape[1] = {4};
    DLTensor t = tensor(shape, NULL, 1, pool);
    t.byte_offset = UINT64_MAX - 3;
    PA_CK_ERR(pa_dlpack_import(s, &t, &ty, &p), PA_ERR_RANGE);
    t.byte_offset = (uint64_t)1 << 63;
    PA_CK_ERR(pa_dlpack_import(s, &t, &ty, &p), PA_ERR_RANGE);
    t.data = (void *)(UINTPTR_MAX - 64);
    t.byte_offset = 128;
    PA_CK_ERR(pa_dlpack_import(s, &t, &ty, &p), PA_ERR_RANGE);
    ck_assert_msg(strstr(pa_last_error(), "address space"), "%s", pa_last_error());
    /* Into an array pa_create made: inside is fine, past its end (or before its start) is refused. */
    const pa_type *A = pa_type_parse(s, "paged float [16]");
    float *a = pa_create(A);
    t = tensor(shape, NULL, 1, a);
    t.byte_offset = 12 * sizeof(float);
    PA_CK_OK(pa_dlpack_import(s, &t, &ty, &p));
    ck_assert_ptr_eq(p, a + 12);
    t.byte_offset = 13 * sizeof(float);
    PA_CK_ERR(pa_dlpack_import(s, &t, &ty, &p), PA_ERR_RANGE);
    ck_assert_msg(strstr(pa_last_error(), "made by pa_create"), "%s", pa_last_error());
    int64_t back[1] = {-1};
    t = tensor(shape, back, 1, a + 2);   /* elements a[2], a[1], a[0], a[-1] */
    PA_CK_ERR(pa_dlpack_import(s, &t, &ty, &p), PA_ERR_RANGE);
    t.data = a + 3;
    PA_CK_OK(pa_dlpack_import(s, &t, &ty, &p));
    ck_assert_ptr_eq(p, a);
    PA_CK_OK(pa_destroy(A, a));
}
END_TEST

/* An empty array exports as a tensor with a zero in its shape (and imports back). */
START_TEST(dlpack_export_empty)
{
    static const char *const decl[] = {"paged float [0]", "paged float [3][0]", "paged float [[0][4]]"};
    for (size_t i = 0; i < sizeof decl / sizeof decl[0]; i++) {
        const pa_type *e = pa_type_parse(s, decl[i]);
        ck_assert_ptr_nonnull(e);
        void *a = pa_create(e);
        ck_assert_ptr_nonnull(a);
        DLManagedTensor *m = NULL;
        int rc = pa_dlpack_export(e, a, &m);
        ck_assert_msg(rc == PA_OK, "%s: %s", decl[i], pa_last_error());
        int64_t n = 1;
        for (int k = 0; k < m->dl_tensor.ndim; k++)
            n *= m->dl_tensor.shape[k];
        ck_assert_msg(n == 0 && m->dl_tensor.ndim >= 1, "%s: %d axes, %lld elements", decl[i], m->dl_tensor.ndim,
                      (long long)n);
        const pa_type *back = NULL;
        void *p = NULL;
        PA_CK_OK(pa_dlpack_import(s, &m->dl_tensor, &back, &p));
        ck_assert_int_eq(pa_size(back), 0);
        m->deleter(m);
        PA_CK_OK(pa_destroy(e, a));
    }
}
END_TEST

/* ---- files read by name ------------------------------------------------------------------------------ */

/* A FIFO or /dev/zero as a matrix CSV file: refused at once (the open does not block, nothing is read). */
START_TEST(csv_special_files)
{
    char dir[64] = "/tmp/pa_hard_XXXXXX", fifo[96];
    ck_assert_ptr_nonnull(mkdtemp(dir));
    snprintf(fifo, sizeof fifo, "%s/m.csv", dir);
    ck_assert_int_eq(mkfifo(fifo, 0600), 0);
    pa_matrix *m = NULL;
    alarm(60);
    PA_CK_ERR(pa_matrix_from_csv(fifo, PA_MATRIX_INT, 0, NULL, &m), PA_ERR_INVAL);
    ck_assert_msg(strstr(pa_last_error(), "is a FIFO, not a regular file"), "%s", pa_last_error());
    PA_CK_ERR(pa_matrix_from_csv("/dev/zero", PA_MATRIX_INT, 0, NULL, &m), PA_ERR_INVAL);
    ck_assert_msg(strstr(pa_last_error(), "character device"), "%s", pa_last_error());
    PA_CK_ERR(pa_matrix_from_csv(dir, PA_MATRIX_INT, 0, NULL, &m), PA_ERR_INVAL);
    alarm(0);
    ck_assert_ptr_null(m);
    unlink(fifo);
    rmdir(dir);
}
END_TEST

int main(void)
{
    Suite *su = suite_create("core_hardening");
    TCase *tc = tcase_create("hardening");
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_add_test(tc, interior_pointer_copy);
    tcase_add_test(tc, interior_pointer_many);
    tcase_add_loop_test(tc, layout_extremes, 0, (int)(sizeof extreme / sizeof extreme[0]));
    tcase_add_loop_test(tc, dlpack_many_axes, 0, 4);
    tcase_add_test(tc, dlpack_extreme_strides);
    tcase_add_test(tc, dlpack_export_empty);
    tcase_add_test(tc, csv_special_files);
    suite_add_tcase(su, tc);
    return pa_test_run(su);
}
