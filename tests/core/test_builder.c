/* The builder makes the same types as the declaration language: compared offset by offset. */
#include "internal.h"
#include "testutil.h"

static void same_offsets(const pa_type *a, const pa_type *b)
{
    ck_assert_int_eq(pa_size(a), pa_size(b));
    for (int64_t i = 0; i < pa_size(a); i++) {
        ck_assert_int_eq(pa_offset(a, i), pa_offset(b, i));
        ck_assert_int_eq(pa__offset_walk(a, i), pa_offset(b, i));
    }
}

static int64_t reverse(int64_t i, void *ctx)
{
    return *(int64_t *)ctx - 1 - i;
}

START_TEST(test_builder_matches_text)
{
    pa_scope *s;
    int64_t n = 12;
    PA_CK_OK(pa_scope_create(NULL, &s));
    PA_CK_OK(pa_declare_text(s, "A = paged int [[3][4]][2]\nB = [[#A_0_1][#A_0_0]][#A_1]\n"
                                "DATA = paged float [[10][10]]\nW = [[6 # disp(2) # DATA_0][5 # disp(3) # DATA_1]]"));
    const pa_type *A = pa_type_get(s, "A");

    /* the transposition */
    pa_builder *b = NULL;
    PA_CK_OK(pa_builder_start(s, NULL, NULL, &b));
    pa_dim *col[2] = {pa_dim_ref(b, pa_type_dim(A, "0_1")), pa_dim_ref(b, pa_type_dim(A, "0_0"))};
    pa_dim *top[2] = {pa_dim_tree(b, 2, col), pa_dim_ref(b, pa_type_dim(A, "1"))};
    const pa_type *Bb = pa_builder_finish(b, pa_dim_tree(b, 2, top), "Bb");
    ck_assert_ptr_nonnull(Bb);
    same_offsets(Bb, pa_type_get(s, "B"));
    ck_assert_str_eq(pa_elm(Bb), "int");
    ck_assert_ptr_eq(pa_type_get(s, "Bb"), Bb);

    /* the window */
    const pa_type *D = pa_type_get(s, "DATA");
    b = NULL;
    PA_CK_OK(pa_builder_start(s, "paged", "float", &b));
    pa_dim *r = pa_dim_size(b, 6), *c = pa_dim_size(b, 5);
    PA_CK_OK(pa_dim_then_disp(r, 2));
    PA_CK_OK(pa_dim_then_ref(r, pa_type_child(D, 0)));
    PA_CK_OK(pa_dim_then_disp(c, 3));
    PA_CK_OK(pa_dim_then_ref(c, pa_type_child(D, 1)));
    const pa_type *Wb = pa_builder_finish(b, pa_dim_tree(b, 2, (pa_dim *[]){r, c}), NULL);
    ck_assert_ptr_nonnull(Wb);
    same_offsets(Wb, pa_type_get(s, "W"));

    /* a user offset function */
    b = NULL;
    PA_CK_OK(pa_builder_start(s, "paged", "double", &b));
    pa_dim *f = pa_dim_size(b, n);
    PA_CK_OK(pa_dim_then_func(f, reverse, &n));
    const pa_type *R = pa_builder_finish(b, f, "R");
    for (int64_t i = 0; i < n; i++)
        ck_assert_int_eq(pa_offset(R, i), n - 1 - i);
    ck_assert_int_eq(pa_stp(R), -1);
    pa_scope_destroy(s);
}
END_TEST

int main(void)
{
    Suite *su = suite_create("builder");
    TCase *tc = tcase_create("builder");
    tcase_add_test(tc, test_builder_matches_text);
    suite_add_tcase(su, tc);
    return pa_test_run(su);
}
