/*
 * Copies whose source and destination overlap in memory (src/core/copy/copy_overlap.c), and pointers whose memory is
 * not their type's (src/core/copy/copy_check.c).
 *
 * pa_copy reads the source as it was before the copy, as if through a temporary: a shift inside one array
 * (identical layouts), a transposition in place, and random pairs of types over one buffer at random shifts are
 * compared byte for byte with a reference that copies through a temporary by the reference walk.  Before the
 * change the shift ran memcpy on overlapping ranges (AddressSanitizer: memcpy-param-overlap) and the results
 * were wrong.  A pointer pa_create made for one memory type, given with a type of a memory the CPU cannot
 * reach (or the reverse), is PA_ERR_MTT naming both.
 */
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "mem_internal.h"
#include "testutil.h"
#include "type_pool.h"

static pa_scope *scope;

static void setup(void)
{
    PA_CK_OK(pa_scope_create(NULL, &scope));
}

static void teardown(void)
{
    pa_scope_destroy(scope);
}

/* A[1..n) <- A[0..n-1): identical layouts one element apart, both directions, sync and async. */
START_TEST(test_shift_identical_layouts)
{
    enum { N = 1000 };
    const pa_type *A = pa_type_parse(scope, "paged int [999]");
    int a[N], want[N];
    for (int dir = 0; dir < 2; dir++)
        for (int async = 0; async < 2; async++) {
            for (int i = 0; i < N; i++)
                a[i] = want[i] = i * 7 + 1;
            memmove(dir ? want : want + 1, dir ? want + 1 : want, (N - 1) * sizeof(int));
            if (async)
                PA_CK_OK(pa_copy_async(A, dir ? a : a + 1, A, dir ? a + 1 : a, NULL));
            else
                PA_CK_OK(pa_copy(A, dir ? a : a + 1, A, dir ? a + 1 : a));
            for (int i = 0; i < N; i++)
                ck_assert_msg(a[i] == want[i], "dir %d async %d: a[%d] = %d, expected %d", dir, async, i, a[i],
                              want[i]);
        }
}
END_TEST

/* The same elements onto themselves: nothing changes, nothing fails. */
START_TEST(test_same_elements)
{
    const pa_type *A = pa_type_parse(scope, "paged double [[7][9]]");
    double a[63], b[63];
    for (int i = 0; i < 63; i++)
        a[i] = b[i] = i * 0.5;
    PA_CK_OK(pa_copy(A, a, A, a));
    ck_assert(memcmp(a, b, sizeof a) == 0);
}
END_TEST

/* Transpositions in place: square (a true transpose) and rectangular (the permutation the types give). */
START_TEST(test_transpose_in_place)
{
    static const int dims[][2] = {{8, 8}, {5, 5}, {3, 7}, {64, 48}};
    for (size_t c = 0; c < sizeof dims / sizeof dims[0]; c++) {
        int n = dims[c][0], m = dims[c][1];
        char decl[64];
        pa_scope *s;
        PA_CK_OK(pa_scope_create(NULL, &s));
        snprintf(decl, sizeof decl, "paged float [%d][%d]", n, m);
        PA_CK_OK(pa_declare(s, "A", decl));
        PA_CK_OK(pa_declare(s, "T", "paged float [[#A_1][#A_0]]"));
        const pa_type *A = pa_type_get(s, "A"), *T = pa_type_get(s, "T");
        float *a = malloc((size_t)n * m * sizeof *a), *orig = malloc((size_t)n * m * sizeof *a);
        for (int i = 0; i < n * m; i++)
            a[i] = orig[i] = (float)i;
        /* a[T(k)] = old a[A(k)], for k = (i, j): T(i, j) = j*m + i... as the reference walk says. */
        PA_CK_OK(pa_copy(T, a, A, a));
        for (int64_t k = 0; k < n * m; k++) {
            int64_t to = pa__offset_walk(T, k), from = pa__offset_walk(A, k);
            ck_assert_msg(a[to] == orig[from], "%dx%d: element %lld is %g, expected %g", n, m, (long long)to,
                          a[to], orig[from]);
        }
        if (n == m)   /* a square one is the transpose */
            for (int i = 0; i < n; i++)
                for (int j = 0; j < n; j++)
                    ck_assert(a[i * n + j] == orig[j * n + i]);
        free(a);
        free(orig);
        pa_scope_destroy(s);
    }
}
END_TEST

/* Random pairs of a type pool over one buffer, the source shifted by -3..3 elements, against a reference that
 * copies through a temporary. */
START_TEST(test_random_in_place)
{
    pa_rng rng = {pa_test_seed("host_copy_overlap")};
    uint64_t seed = rng.s;
    for (int round = 0; round < 200; round++) {
        pa_type_pool p;
        int e = (int)pa_rng_range(&rng, 1, 12);
        pa_type_pool_make(&p, &rng, "paged", e, 300);
        for (int k = 0; k < 4; k++) {
            const pa_type *dt = p.t[pa_rng_range(&rng, 0, p.n - 1)], *st = p.t[pa_rng_range(&rng, 0, p.n - 1)];
            int64_t shift = pa_rng_range(&rng, -3, 3), dlo, dhi, slo, shi, n = pa_size(dt);
            PA_CK_OK(pa_extent(dt, &dlo, &dhi));
            PA_CK_OK(pa_extent(st, &slo, &shi));
            int64_t lo = dlo < slo + shift ? dlo : slo + shift, hi = dhi > shi + shift ? dhi : shi + shift;
            size_t bytes = (size_t)(hi - lo + 1) * (size_t)e;
            unsigned char *buf = malloc(bytes), *want = malloc(bytes), *tmp = malloc((size_t)n * (size_t)e);
            for (size_t i = 0; i < bytes; i++)
                buf[i] = want[i] = (unsigned char)pa_rng_next(&rng);
            for (int64_t i = 0; i < n; i++)
                memcpy(tmp + i * e, want + (pa__offset_walk(st, i) + shift - lo) * e, (size_t)e);
            for (int64_t i = 0; i < n; i++)
                memcpy(want + (pa__offset_walk(dt, i) - lo) * e, tmp + i * e, (size_t)e);
            unsigned char *base = buf - lo * e;
            PA_CK_OK(pa_copy(dt, base, st, base + shift * e));
            size_t i = 0;
            while (i < bytes && buf[i] == want[i])
                i++;
            ck_assert_msg(i == bytes, "seed %llu round %d: %s <- %s shifted %lld: byte %zu is 0x%02x, "
                              "expected 0x%02x", (unsigned long long)seed, round, pa_type_name(dt),
                              pa_type_name(st), (long long)shift, i, buf[i], want[i]);
            free(buf);
            free(want);
            free(tmp);
        }
        pa_scope_destroy(p.scope);
    }
}
END_TEST

/* A pointer pa_create made for memory the CPU cannot reach, given with a host type (and the reverse): here a
 * record of the allocation table stands for a dmem array, so that the check runs without a GPU. */
START_TEST(test_mistyped_pointers)
{
    const pa__mem_ops *dmem = pa__mem_find("dmem"), *paged = pa__mem_find("paged");
    const pa_type *P = pa_type_parse(scope, "paged int [16]"), *M = pa_type_parse(scope, "mmap int [16]");
    int fake_device[16], host[16] = {0};
    if (dmem != NULL) {
        pa__alloc_rec rec = {dmem, sizeof fake_device, NULL}, out;
        PA_CK_OK(pa__alloc_register(fake_device, &rec));
        PA_CK_ERR(pa_copy(P, fake_device, P, host), PA_ERR_MTT);
        ck_assert_msg(strstr(pa_last_error(), "destination") && strstr(pa_last_error(), "dmem") &&
                      strstr(pa_last_error(), "paged"), "%s", pa_last_error());
        PA_CK_ERR(pa_copy(P, host, P, fake_device), PA_ERR_MTT);
        ck_assert_msg(strstr(pa_last_error(), "source"), "%s", pa_last_error());
        ck_assert_int_eq(pa__alloc_unregister(fake_device, dmem, &out), PA__ALLOC_TAKEN);
    }
    /* A paged array given with a dmem type: refused before any CUDA call, so also without a GPU. */
    int *a = pa_create(P);
    ck_assert_ptr_nonnull(a);
    ck_assert_ptr_eq(pa__mem_of(a), paged);
    const pa_type *D = pa_type_parse(scope, "dmem int [16]");
    if (dmem != NULL) {
        PA_CK_ERR(pa_copy(D, a, P, host), PA_ERR_MTT);
        ck_assert_msg(strstr(pa_last_error(), "paged memory (made by pa_create)") &&
                      strstr(pa_last_error(), "is dmem"), "%s", pa_last_error());
    }
    /* Host memory of another kind through a host type is fine (pinned read as paged, paged as mmap). */
    for (int i = 0; i < 16; i++)
        host[i] = i;
    PA_CK_OK(pa_copy(M, a, P, host));
    for (int i = 0; i < 16; i++)
        ck_assert_int_eq(a[i], i);
    PA_CK_OK(pa_destroy(P, a));
}
END_TEST

int main(void)
{
    Suite *s = suite_create("host_copy_overlap");
    TCase *tc = tcase_create("overlap");
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_add_test(tc, test_shift_identical_layouts);
    tcase_add_test(tc, test_same_elements);
    tcase_add_test(tc, test_transpose_in_place);
    tcase_add_test(tc, test_random_in_place);
    tcase_add_test(tc, test_mistyped_pointers);
    suite_add_tcase(s, tc);
    return pa_test_run(s);
}
