/* Offsets, sizes and stp of the manual's listings (DESIGN §2 test vectors), through the compiled layout and
 * through the reference walk. */
#include "internal.h"
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

static const pa_type *get(const char *ref)
{
    const pa_type *t = pa_type_get(s, ref);
    ck_assert_msg(t != NULL, "pa_type_get(%s): %s", ref, pa_last_error());
    return t;
}

/* Checks every offset of a type, both through pa_offset (the compiled layout) and the walk. */
static void expect(const char *ref, int n, const int64_t *want)
{
    const pa_type *t = get(ref);
    ck_assert_int_eq(pa_size(t), n);
    for (int i = 0; i < n; i++) {
        ck_assert_msg(pa__offset_walk(t, i) == want[i], "%s walk(%d) = %lld, want %lld", ref, i,
                      (long long)pa__offset_walk(t, i), (long long)want[i]);
        ck_assert_msg(pa_offset(t, i) == want[i], "%s(%d) = %lld, want %lld", ref, i, (long long)pa_offset(t, i),
                      (long long)want[i]);
    }
}

#define EXPECT(ref, ...)                                                                                   \
    do {                                                                                                   \
        const int64_t w_[] = {__VA_ARGS__};                                                                \
        expect(ref, (int)(sizeof w_ / sizeof w_[0]), w_);                                                  \
    } while (0)

START_TEST(test_plain)
{
    PA_CK_OK(pa_declare(s, "A", "pinned float [[3][3]][2]"));
    const pa_type *A = get("A");
    ck_assert_int_eq(pa_size(A), 18);
    ck_assert_int_eq(pa_ndim(A), 2);
    ck_assert_int_eq(pa_nleaves(A), 3);
    ck_assert_str_eq(pa_mtt(A), "pinned");
    ck_assert_str_eq(pa_elm(A), "float");
    ck_assert_int_eq(pa_elm_size(A), 4);
    ck_assert_int_eq(pa_size(get("A_0")), 9);
    EXPECT("A_0", 0, 2, 4, 6, 8, 10, 12, 14, 16);
    EXPECT("A_0_0", 0, 6, 12);
    EXPECT("A_0_1", 0, 2, 4);
    EXPECT("A_1", 0, 1);
    /* A(i,j,k) = i*6 + j*2 + k, A(i,j) = i*2 + j */
    ck_assert_int_eq(pa_offset_nd(A, 3, (int64_t[]){2, 1, 1}), 15);
    ck_assert_int_eq(pa_offset_nd(A, 2, (int64_t[]){4, 1}), 9);
    ck_assert_int_eq(pa_offset_nd(get("A_0"), 2, (int64_t[]){1, 2}), 10);
}
END_TEST

START_TEST(test_type_references)
{
    /* Listing 7 and its result, listing 8. */
    PA_CK_OK(pa_declare_text(s, "parray pinned float [[3][3]][2] A\n"
                                "parray dmem float [[7 # A_0]] B\n"
                                "parray dmem float [7 # A_0] C\n"
                                "parray dmem float [[2][2] # A_0] D\n"
                                "parray paged float [[#A_0_1][#A_0_0]] E\n"
                                "parray paged float [#A_0] F\n"));
    EXPECT("B_0", 0, 2, 4, 6, 8, 10, 12);
    EXPECT("C", 0, 2, 4, 6, 8, 10, 12);
    ck_assert_ptr_null(pa_type_get(s, "C_0"));
    ck_assert_int_eq(pa_ndim(get("C")), 0);
    EXPECT("D_0", 0, 4);
    EXPECT("E_0", 0, 2, 4);
    EXPECT("F_0", 0, 6, 12);
    EXPECT("F_1", 0, 2, 4);
    EXPECT("F", 0, 2, 4, 6, 8, 10, 12, 14, 16);
    ck_assert_str_eq(pa_mtt(get("F")), "paged");
}
END_TEST

START_TEST(test_transposition)
{
    /* Listing 5/6: copy A(a) to B(b) with a[k] = k gives b[B(k)] = k. */
    static const int64_t b_want[18] = {0, 1, 6, 7, 12, 13, 2, 3, 8, 9, 14, 15, 4, 5, 10, 11, 16, 17};
    int64_t b[18];
    PA_CK_OK(pa_declare_text(s, "var n = 3; var m = 2\nparray paged int [[n][n]][m] A\n"
                                "parray [[#A_0_1][#A_0_0]][#A_1] B"));
    const pa_type *A = get("A"), *B = get("B");
    ck_assert_str_eq(pa_elm(B), "int");
    ck_assert_str_eq(pa_mtt(B), "paged");
    for (int k = 0; k < 18; k++)
        b[pa_offset(B, k)] = pa_offset(A, k);
    for (int k = 0; k < 18; k++)
        ck_assert_int_eq(b[k], b_want[k]);
    /* B(a,b,c) = a*m + b*n*m + c */
    ck_assert_int_eq(pa_offset_nd(B, 3, (int64_t[]){2, 1, 1}), 2 * 2 + 1 * 6 + 1);
}
END_TEST

START_TEST(test_window_and_stp)
{
    PA_CK_OK(pa_declare(s, "DATA", "paged float [[100][100]]"));
    PA_CK_OK(pa_declare(s, "WINDOW", "paged float [[80 # disp(10) # DATA_0][80 # disp(10) # DATA_1]]"));
    const pa_type *W = get("WINDOW");
    ck_assert_int_eq(pa_offset_nd(W, 2, (int64_t[]){0, 0}), 1010);
    for (int i = 0; i < 80; i += 7)
        for (int j = 0; j < 80; j += 3)
            ck_assert_int_eq(pa_offset_nd(W, 2, (int64_t[]){i, j}), (i + 10) * 100 + j + 10);
    ck_assert_int_eq(pa_stp(get("DATA")), 1);
    ck_assert_int_eq(pa_stp(get("DATA_0")), 100);
    ck_assert_int_eq(pa_stp(get("DATA_1")), 1);
    ck_assert_int_eq(pa_stp(W), 0);
    ck_assert_int_eq(pa_stp(get("WINDOW_0")), 100);
    ck_assert_int_eq(pa_stp(get("WINDOW_1")), 1);
    ck_assert(pa_cnt(get("DATA")));
    ck_assert(!pa_cnt(W));
    int64_t lo, hi;
    PA_CK_OK(pa_extent(W, &lo, &hi));
    ck_assert_int_eq(lo, 1010);
    ck_assert_int_eq(hi, 89 * 100 + 89);
}
END_TEST

START_TEST(test_stp_manual)
{
    PA_CK_OK(pa_declare(s, "A", "paged float [[3][3]][2]"));
    PA_CK_OK(pa_declare(s, "B", "paged float [[#A_0_1][#A_0_0]][#A_1]"));
    ck_assert_int_eq(pa_stp(get("A")), 1);
    ck_assert_int_eq(pa_stp(get("A_1")), 1);
    ck_assert_int_eq(pa_stp(get("A_0")), 2);
    ck_assert_int_eq(pa_stp(get("A_0_1")), 2);
    ck_assert_int_eq(pa_stp(get("A_0_0")), 6);
    ck_assert_int_eq(pa_stp(get("B")), 0);
    ck_assert_int_eq(pa_stp(get("B_0")), 0);
    ck_assert_int_eq(pa_stp(get("B_0_1")), 6);
    ck_assert_int_eq(pa_stp(get("B_1")), 1);
    ck_assert(pa_cnt(get("A")));
    ck_assert(!pa_cnt(get("B")));
}
END_TEST

START_TEST(test_cyclic)
{
    PA_CK_OK(pa_declare(s, "G", "[10 # disp(3) # [10]]"));
    EXPECT("G", 3, 4, 5, 6, 7, 8, 9, 0, 1, 2);
    ck_assert_str_eq(pa_mtt(get("G")), "any");
    ck_assert_str_eq(pa_elm(get("G")), "void");
}
END_TEST

static int64_t table[100];
static int64_t id;
static int64_t access_fn(int64_t i, void *ctx)
{
    (void)ctx;
    for (int64_t j = 0; j < id; j++)
        if (table[j] == i)
            return j;
    table[id] = i;
    return id++;
}

START_TEST(test_func)
{
    /* Listing 13/14: offsets recorded in the order they are first asked for. */
    id = 0;
    PA_CK_OK(pa_scope_def_func(s, "access", access_fn, NULL));
    PA_CK_OK(pa_declare(s, "DATA", "[1000 # func(access)]"));
    const pa_type *D = get("DATA");
    ck_assert_int_eq(pa__offset_walk(D, 6), 0);
    ck_assert_int_eq(pa__offset_walk(D, 5), 1);
    ck_assert_int_eq(pa__offset_walk(D, 4), 2);
    ck_assert_int_eq(pa__offset_walk(D, 6), 0);
}
END_TEST

START_TEST(test_parameters)
{
    PA_CK_OK(pa_declare(s, "DATA", "paged int [[6][6]]"));
    PA_CK_OK(pa_declare(s, "WINDOW", "<int y, int x> paged int [[2 # disp(y) # DATA_0][4 # disp(x) # DATA_1]]"));
    const pa_type *w12 = get("WINDOW<1,2>"), *w41 = get("WINDOW<4, 1>");
    EXPECT("WINDOW<1,2>", 8, 9, 10, 11, 14, 15, 16, 17);
    EXPECT("WINDOW<4,1>", 25, 26, 27, 28, 31, 32, 33, 34);
    ck_assert_ptr_eq(w12, get("WINDOW<1,2>"));
    ck_assert_str_eq(pa_type_name(pa_type_child(w41, 0)), "WINDOW_0<4,1>");
    char buf[64];
    ck_assert_int_eq(pa_nparams(w12), 2);
    pa_args(w12, buf, sizeof buf);
    ck_assert_str_eq(buf, "int y, int x");
    pa_vars(w12, buf, sizeof buf);
    ck_assert_str_eq(buf, "y, x");
    pa_para(w41, buf, sizeof buf);
    ck_assert_str_eq(buf, "4, 1");
    ck_assert_ptr_eq(pa_type_bind(w12, 2, (int64_t[]){4, 1}), w41);
    /* references pass parameters on */
    PA_CK_OK(pa_declare(s, "FROM", "<int n> dmem float [[n][n]]"));
    PA_CK_OK(pa_declare(s, "TO", "<int n> dmem float [[#FROM_1<n>][#FROM_0<n>]]"));
    EXPECT("TO<3>", 0, 3, 6, 1, 4, 7, 2, 5, 8);
}
END_TEST

START_TEST(test_composition_rules)
{
    /* The manual's §5.1: C = [[[3][#A_1]][2]] # B: a regular part transformed by B, a fixed part kept. */
    PA_CK_OK(pa_declare_text(s, "A = pinned float [[3][3]][2]\nB = dmem float [[#A_0_1][#A_0_0]][#A_1]\n"
                                "C = dmem float [[[3][#A_1]][2] # B]"));
    const pa_type *B = get("B"), *C00 = get("C_0_0"), *C01 = get("C_0_1"), *C0 = get("C_0");
    for (int i = 0; i < 3; i++)
        ck_assert_int_eq(pa_offset(C00, i), pa_offset(B, (i % 3) * 2 * 2));
    for (int i = 0; i < 2; i++)
        ck_assert_int_eq(pa_offset(C01, i), pa_offset(get("A_1"), i));
    for (int i = 0; i < 6; i++)
        ck_assert_int_eq(pa_offset(C0, i), pa_offset(B, ((i / 2) % 3) * 2 * 2) + i % 2);
    /* Variables are read when a handle is taken. */
    PA_CK_OK(pa_declare_text(s, "var n = 4\nV = paged int [n][n]"));
    ck_assert_int_eq(pa_size(get("V")), 16);
    PA_CK_OK(pa_scope_set_int(s, "n", 5));
    ck_assert_int_eq(pa_size(get("V")), 25);
    /* size() in expressions */
    PA_CK_OK(pa_declare(s, "K", "cuda [size(V) / 5][5]"));
    ck_assert_int_eq(pa_size(get("K")), 25);
    ck_assert_str_eq(pa_mtt(get("K")), "cuda");
}
END_TEST

START_TEST(test_format)
{
    char buf[256];
    PA_CK_OK(pa_declare_text(s, "A = paged float [[3][3]][2]\nB = [[#A_0_1][#A_0_0]][#A_1]\n"
                                "DATA = paged float [[100][100]]\nW = [[80 # disp(10) # DATA_0][80 # disp(10) # DATA_1]]\n"
                                "G = [10 # disp(3) # [10]]"));
    pa_type_format(get("A"), buf, sizeof buf);
    ck_assert_str_eq(buf, "paged float [[3][3]][2]");
    pa_type_format(get("B"), buf, sizeof buf);
    ck_assert_str_eq(buf, "paged float [[#A_0_1][#A_0_0]][#A_1]");
    pa_type_format(get("W"), buf, sizeof buf);
    ck_assert_str_eq(buf, "paged float [80 # disp(10) # DATA_0][80 # disp(10) # DATA_1]");
    pa_type_format(get("G"), buf, sizeof buf);
    ck_assert_str_eq(buf, "[10 # disp(3) # [10]]");
    pa_layout_format(get("A"), buf, sizeof buf);
    ck_assert_str_eq(buf, "(18):(1)+0");
    pa_layout_format(get("B"), buf, sizeof buf);
    ck_assert_str_eq(buf, "(3,3,2):(2,6,1)+0");
    pa_layout_format(get("W"), buf, sizeof buf);
    ck_assert_str_eq(buf, "(80,80):(100,1)+1010");
    pa_layout_format(get("G"), buf, sizeof buf);
    ck_assert_str_eq(buf, "(10):(*)+0");
}
END_TEST

int main(void)
{
    Suite *su = suite_create("offsets");
    TCase *tc = tcase_create("manual");
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_add_test(tc, test_plain);
    tcase_add_test(tc, test_type_references);
    tcase_add_test(tc, test_transposition);
    tcase_add_test(tc, test_window_and_stp);
    tcase_add_test(tc, test_stp_manual);
    tcase_add_test(tc, test_cyclic);
    tcase_add_test(tc, test_func);
    tcase_add_test(tc, test_parameters);
    tcase_add_test(tc, test_composition_rules);
    tcase_add_test(tc, test_format);
    suite_add_tcase(su, tc);
    return pa_test_run(su);
}
