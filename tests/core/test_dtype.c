/*
 * The device descriptions of device.h, checked on the host (no GPU needed): pa_dev_offset of a pa_dtype
 * against the reference walk for every index of random pool types and of the manual's types; the thread
 * shape of cuda thread types (launch dimensions, tid along every dimension path against the definition
 * "row-major over the leaves"); and the errors.
 */
#include <stdio.h>
#include <string.h>

#include "internal.h"
#include "testutil.h"
#include <parray/cuda.h>
#include "type_pool.h"

/* Every index of t through its pa_dtype against the reference walk. */
static void check_dtype(const pa_type *t)
{
    pa_dtype d;
    PA_CK_OK(pa_cuda_dtype(t, &d));
    ck_assert_int_eq(d.size, pa_size(t));
    ck_assert_int_eq(d.elm, (int)pa_elm_size(t));
    int64_t bad = -1;   /* the first wrong index (one assertion: Check's are costly by the million) */
    for (int64_t k = 0; k < pa_size(t) && bad < 0; k++)
        bad = pa_dev_offset(&d, k) == pa__offset_walk(t, k) ? -1 : k;
    ck_assert_msg(bad < 0, "%s: k=%lld device %lld walk %lld", pa_type_name(t), (long long)bad,
                  (long long)pa_dev_offset(&d, bad < 0 ? 0 : bad), (long long)pa__offset_walk(t, bad < 0 ? 0 : bad));
}

START_TEST(manual_types)
{
    pa_scope *s;
    PA_CK_OK(pa_scope_create(NULL, &s));
    PA_CK_OK(pa_declare(s, "A", "dmem float [[3][3]][2]"));
    PA_CK_OK(pa_declare(s, "B", "dmem float [[#A_0_1][#A_0_0]][#A_1]"));
    PA_CK_OK(pa_declare(s, "DATA", "dmem float [[100][100]]"));
    PA_CK_OK(pa_declare(s, "W", "dmem float [[80 # disp(10) # DATA_0][80 # disp(10) # DATA_1]]"));
    PA_CK_OK(pa_declare(s, "FROM", "<int n> dmem float [[n][n]]"));
    PA_CK_OK(pa_declare(s, "TO", "<int n> dmem float [[#FROM_1<n>][#FROM_0<n>]]"));
    const char *names[] = {"A", "A_0", "A_0_1", "B", "B_0", "W", "W_1", "DATA_0", "TO<5>", "FROM<7>"};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        const pa_type *t = pa_type_get(s, names[i]);
        ck_assert_msg(t != NULL, "%s: %s", names[i], pa_last_error());
        check_dtype(t);
    }
    pa_dtype d;
    PA_CK_OK(pa_cuda_dtype(pa_type_get(s, "W"), &d));
    ck_assert_int_eq(d.base, 1010);   /* WINDOW(0,0) = DATA(10,10) */
    pa_scope_destroy(s);
}
END_TEST

START_TEST(random_pool_types)
{
    pa_rng rng = {pa_test_seed("dtype random pool")};
    int checked = 0;
    for (int round = 0; round < 40; round++) {
        pa_type_pool p;
        pa_type_pool_make(&p, &rng, "dmem", 4, 4096);
        for (int i = 0; i < p.n; i++) {
            pa_dtype d;
            pa_error_clear();
            int st = pa_cuda_dtype(p.t[i], &d);
            if (st == PA_ERR_UNSUPPORTED)   /* the pool's func() and non-affine wraps need tables */
                continue;
            PA_CK_OK(st);
            check_dtype(p.t[i]);
            checked++;
        }
        pa_scope_destroy(p.scope);
    }
    ck_assert_int_gt(checked, 200);
}
END_TEST

/* The leaves of t in row-major order: their paths and sizes. */
static int leaves_of(const pa_type *t, const char *path, char paths[][24], int64_t *sizes, int n)
{
    if (pa_ndim(t) == 0) {
        snprintf(paths[n], 24, "%s", path);
        sizes[n] = pa_size(t);
        return n + 1;
    }
    for (int i = 0; i < pa_ndim(t); i++) {
        char sub[24];
        snprintf(sub, sizeof sub, "%s%s%d", path, path[0] ? "_" : "", i);
        n = leaves_of(pa_type_child(t, i), sub, paths, sizes, n);
    }
    return n;
}

/* The id along each path, as the manual defines it: tid's digits over the leaves, read under the path. */
static void check_paths(const pa_type *t, const pa_dthreads *d, const char *const *paths, int npaths)
{
    char lpath[16][24];
    int64_t lsize[16], digit[16];
    int nl = leaves_of(t, "", lpath, lsize, 0);
    for (int p = 0; p < npaths; p++) {
        int node = pa_dev_node(d, paths[p]);
        size_t len = strlen(paths[p]);
        ck_assert_msg(node >= 0, "path %s has no node", paths[p]);
        for (int64_t tid = 0; tid < d->n; tid++) {
            int64_t rest = tid, want = 0;
            for (int l = nl - 1; l >= 0; l--) {
                digit[l] = rest % lsize[l];
                rest /= lsize[l];
            }
            for (int l = 0; l < nl; l++)
                if (len == 0 || (strncmp(lpath[l], paths[p], len) == 0 && (lpath[l][len] == '\0' || lpath[l][len] == '_')))
                    want = want * lsize[l] + digit[l];
            ck_assert_msg(pa_dev_tid_node(d, node, tid) == want, "%s: tid %lld path %s: %lld, want %lld",
                          pa_type_name(t), (long long)tid, paths[p], (long long)pa_dev_tid_node(d, node, tid),
                          (long long)want);
        }
    }
}

START_TEST(thread_shapes)
{
    pa_scope *s;
    PA_CK_OK(pa_scope_create(NULL, &s));
    PA_CK_OK(pa_declare(s, "G", "cuda [[4][8]][[2][32]]"));
    PA_CK_OK(pa_declare(s, "F", "cuda [1000]"));
    PA_CK_OK(pa_declare(s, "S", "cuda [[3][5]]"));
    const pa_type *g = pa_type_get(s, "G");
    pa_dthreads d;
    PA_CK_OK(pa_cuda_threads(g, PA_CUDA_GRID, &d));
    ck_assert_int_eq(d.n, 2048);
    ck_assert_int_eq(d.grid, 1);
    /* The rightmost leaf is x. */
    ck_assert_uint_eq(d.gdim[0], 8); ck_assert_uint_eq(d.gdim[1], 4); ck_assert_uint_eq(d.gdim[2], 1);
    ck_assert_uint_eq(d.bdim[0], 32); ck_assert_uint_eq(d.bdim[1], 2); ck_assert_uint_eq(d.bdim[2], 1);
    const char *paths[] = {"", "0", "1", "0_0", "0_1", "1_0", "1_1"};
    check_paths(g, &d, paths, 7);
    /* tid_0_1 of thread 5*64 + 3 is 5 (block x), tid_1_1 is 3 (thread x). */
    ck_assert_int_eq(pa_dev_tid_node(&d, pa_dev_node(&d, "0_1"), 5 * 64 + 3), 5);
    ck_assert_int_eq(pa_dev_tid_node(&d, pa_dev_node(&d, "1_1"), 5 * 64 + 3), 3);
    ck_assert_int_eq(pa_dev_node(&d, "2"), -1);
    ck_assert_int_eq(pa_dev_node(&d, "0_1_0"), -1);
    ck_assert_int_eq(pa_dev_node(&d, "x"), -1);

    /* Without the grid convention the same type is 2048 threads in blocks of 256. */
    PA_CK_OK(pa_cuda_threads(g, 0, &d));
    ck_assert_uint_eq(d.bdim[0], 256); ck_assert_uint_eq(d.gdim[0], 8);
    check_paths(g, &d, paths, 7);
    PA_CK_OK(pa_cuda_threads(pa_type_get(s, "F"), 0, &d));
    ck_assert_uint_eq(d.bdim[0], 256); ck_assert_uint_eq(d.gdim[0], 4); ck_assert_int_eq(d.n, 1000);
    PA_CK_OK(pa_cuda_threads(pa_type_get(s, "S"), 0, &d));
    ck_assert_uint_eq(d.bdim[0], 15); ck_assert_uint_eq(d.gdim[0], 1);
    const char *spaths[] = {"0", "1"};
    check_paths(pa_type_get(s, "S"), &d, spaths, 2);
    pa_scope_destroy(s);
}
END_TEST

START_TEST(errors)
{
    pa_scope *s;
    pa_dthreads d;
    pa_dtype t;
    PA_CK_OK(pa_scope_create(NULL, &s));
    PA_CK_OK(pa_declare(s, "P", "pthd [4]"));
    PA_CK_OK(pa_declare(s, "C1", "cuda [4096]"));
    PA_CK_OK(pa_declare(s, "BIG", "cuda [[4][2048]]"));
    PA_CK_OK(pa_declare(s, "FOUR", "cuda [[2][2][2][2]][[2][2]]"));
    PA_CK_OK(pa_declare(s, "Y", "cuda [[70000][2]][[32]]"));
    PA_CK_ERR(pa_cuda_threads(pa_type_get(s, "P"), 0, &d), PA_ERR_MTT);
    PA_CK_ERR(pa_cuda_threads(pa_type_get(s, "C1"), PA_CUDA_GRID, &d), PA_ERR_DIM);
    PA_CK_ERR(pa_cuda_threads(pa_type_get(s, "BIG"), PA_CUDA_GRID, &d), PA_ERR_RANGE);
    ck_assert_ptr_nonnull(strstr(pa_last_error(), "1024"));
    PA_CK_ERR(pa_cuda_threads(pa_type_get(s, "FOUR"), PA_CUDA_GRID, &d), PA_ERR_RANGE);
    ck_assert_ptr_nonnull(strstr(pa_last_error(), "3 leaves"));
    PA_CK_ERR(pa_cuda_threads(pa_type_get(s, "Y"), PA_CUDA_GRID, &d), PA_ERR_RANGE);
    PA_CK_ERR(pa_cuda_threads(pa_type_get(s, "C1"), 4, &d), PA_ERR_INVAL);
    PA_CK_ERR(pa_cuda_threads(NULL, 0, &d), PA_ERR_INVAL);
    PA_CK_OK(pa_declare(s, "CYC", "paged int [10 # disp(3) # [7]]"));
    PA_CK_ERR(pa_cuda_dtype(pa_type_get(s, "CYC"), &t), PA_ERR_UNSUPPORTED);
    PA_CK_ERR(pa_cuda_dtype(NULL, &t), PA_ERR_INVAL);
    pa_scope_destroy(s);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("core_dtype");
    TCase *tc = tcase_create("dtype");
    tcase_add_test(tc, manual_types);
    tcase_add_test(tc, random_pool_types);
    tcase_add_test(tc, thread_shapes);
    tcase_add_test(tc, errors);
    suite_add_tcase(s, tc);
    return pa_test_run(s);
}
