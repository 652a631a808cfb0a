/*
 * Slices of a layout (src/core/plan/layout_slice.c), which the NCCL routes of processes and of pthd threads cut their
 * blocks into: every slice the function accepts maps its elements to the layout's own offsets (checked against
 * pa__layout_offset for every start and length of random affine and gathered layouts), the runs of whole
 * sub-blocks are accepted, extents and contiguity agree with the offsets, and a slice's pack and unpack plans
 * move exactly its elements (a poisoned dense buffer).
 */
#include <stdlib.h>
#include <string.h>

#include "layout_slice.h"
#include "testutil.h"

static pa__layout random_layout(pa_rng *r, int64_t *table)
{
    pa__layout l;
    memset(&l, 0, sizeof l);
    l.nmodes = (int)pa_rng_range(r, 1, 3);
    l.size = 1;
    l.affine = 1;
    l.base = pa_rng_range(r, 0, 6);
    for (int m = 0; m < l.nmodes; m++) {
        int64_t size = pa_rng_range(r, 1, 5), stride = pa_rng_range(r, -8, 31);
        l.modes[m] = (pa__mode){.size = size, .stride = stride};
        l.size *= size;
    }
    if (table && pa_rng_range(r, 0, 2) == 0) {   /* one gathered mode */
        int m = (int)pa_rng_range(r, 0, l.nmodes - 1);
        for (int64_t i = 0; i < l.modes[m].size; i++)
            table[i] = pa_rng_range(r, -20, 79);
        l.modes[m] = (pa__mode){.size = l.modes[m].size, .table = table};
        l.affine = 0;
    }
    return l;
}

START_TEST(test_slices_match_offsets)
{
    pa_rng r = {pa_test_seed("core_slice")};
    int64_t table[8];
    long accepted = 0, whole = 0;
    for (int round = 0; round < 300; round++) {
        pa__layout l = random_layout(&r, table);
        for (int64_t start = 0; start < l.size; start++)
            for (int64_t n = 1; start + n <= l.size; n++) {
                pa__layout s;
                if (!pa__layout_slice(&l, start, n, &s))
                    continue;
                accepted++;
                ck_assert_int_eq(s.size, n);
                for (int64_t i = 0; i < n; i++) {
                    int64_t want = pa__layout_offset(&l, start + i), got = pa__layout_offset(&s, i);
                    if (got != want)
                        ck_abort_msg("round %d, slice [%lld, +%lld), element %lld: %lld, expected %lld", round,
                                     (long long)start, (long long)n, (long long)i, (long long)got, (long long)want);
                    ck_assert(got >= s.min_off && got <= s.max_off);
                }
            }
        /* whole sub-blocks of the outermost mode are always one layout, and the whole layout is */
        int64_t inner = l.size / l.modes[0].size;
        for (int64_t i = 0; i < l.modes[0].size; i++) {
            pa__layout s;
            ck_assert(pa__layout_slice(&l, i * inner, inner, &s));
            whole++;
        }
        pa__layout s;
        ck_assert(pa__layout_slice(&l, 0, l.size, &s));
        ck_assert(!pa__layout_slice(&l, 0, l.size + 1, &s));
        ck_assert(!pa__layout_slice(&l, -1, 1, &s));
        ck_assert(!pa__layout_slice(&l, 0, 0, &s));
        ck_assert(pa__layout_sliceable(&l, 0, l.size, 1));
        ck_assert(pa__layout_sliceable(&l, 0, l.size, (int)l.modes[0].size));
        ck_assert(!pa__layout_sliceable(&l, 0, l.size, 0));
        /* the extent is the offsets' */
        int64_t lo, hi, mlo = INT64_MAX, mhi = INT64_MIN;
        pa__layout_extent(&l, &lo, &hi);
        for (int64_t k = 0; k < l.size; k++) {
            int64_t o = pa__layout_offset(&l, k);
            mlo = o < mlo ? o : mlo;
            mhi = o > mhi ? o : mhi;
        }
        ck_assert_int_eq(lo, mlo);
        ck_assert_int_eq(hi, mhi);
    }
    ck_assert_int_gt(accepted, whole);
}
END_TEST

START_TEST(test_contiguous_and_dense)
{
    pa__layout d = pa__layout_dense(12), l;
    ck_assert(pa__layout_contiguous(&d));
    for (int64_t k = 0; k < 12; k++)
        ck_assert_int_eq(pa__layout_offset(&d, k), k);
    memset(&l, 0, sizeof l);
    l.size = 12, l.nmodes = 2, l.affine = 1;
    l.modes[0] = (pa__mode){.size = 3, .stride = 4};
    l.modes[1] = (pa__mode){.size = 4, .stride = 1};
    ck_assert(!pa__layout_contiguous(&l));   /* not coalesced: two modes */
    pa__layout_coalesce(&l);
    ck_assert(pa__layout_contiguous(&l));
    l.modes[0].stride = 2;
    ck_assert(!pa__layout_contiguous(&l));
    pa__layout s;
    ck_assert(pa__layout_slice(&d, 5, 4, &s));   /* a run of a contiguous layout is contiguous */
    ck_assert(pa__layout_contiguous(&s));
    ck_assert_int_eq(s.base, 5);
}
END_TEST

/* A column block of a 6 x 8 row-major matrix: packed into the middle of a poisoned dense buffer and unpacked into
 * a poisoned matrix, through host plans. */
START_TEST(test_pack_unpack)
{
    pa__layout l;
    memset(&l, 0, sizeof l);
    l.size = 48, l.nmodes = 2, l.affine = 1, l.max_off = 47;
    l.modes[0] = (pa__mode){.size = 8, .stride = 1};    /* columns outer: the transposed order */
    l.modes[1] = (pa__mode){.size = 6, .stride = 8};
    int src[48], buf[40], back[48];
    for (int i = 0; i < 48; i++)
        src[i] = 100 + i, back[i] = -1;
    for (int i = 0; i < 40; i++)
        buf[i] = -2;
    pa__slice pk, up;
    int ok = 0;
    /* columns 2..4 (elements 12..29 of l), at position 5 of the buffer */
    PA_CK_OK(pa__slice_make(&l, 12, 18, 5, sizeof(int), NULL, 0, &pk, &ok));
    ck_assert(ok);
    ck_assert(!pk.direct);
    ck_assert_ptr_nonnull(pk.plan);
    ck_assert_int_eq(pk.pos, 5);
    ck_assert_int_eq(pk.n, 18);
    PA_CK_OK(pa__plan_exec(pk.plan, buf, pk.pos, src, pk.base));
    for (int i = 0; i < 40; i++) {
        int want = i < 5 || i >= 23 ? -2 : src[pa__layout_offset(&l, 12 + i - 5)];
        ck_assert_int_eq(buf[i], want);
    }
    PA_CK_OK(pa__slice_make(&l, 12, 18, 5, sizeof(int), NULL, 1, &up, &ok));
    ck_assert(ok);
    PA_CK_OK(pa__plan_exec(up.plan, back, up.base, buf, up.pos));
    for (int k = 0; k < 48; k++) {
        int64_t o = pa__layout_offset(&l, k);
        ck_assert_int_eq(back[o], k >= 12 && k < 30 ? src[o] : -1);
    }
    pa__plan_unref(pk.plan);
    pa__plan_unref(up.plan);
    /* a run that wraps around a mode is not one layout: nothing made */
    PA_CK_OK(pa__slice_make(&l, 3, 6, 0, sizeof(int), NULL, 0, &pk, &ok));
    ck_assert(!ok);
    ck_assert_ptr_null(pk.plan);
    /* a contiguous run is direct: no plan */
    pa__layout d = pa__layout_dense(48);
    PA_CK_OK(pa__slice_make(&d, 6, 10, 0, sizeof(int), NULL, 0, &pk, &ok));
    ck_assert(ok && pk.direct && !pk.plan);
    ck_assert_int_eq(pk.base, 6);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("core_slice");
    TCase *tc = tcase_create("core_slice");
    tcase_add_test(tc, test_slices_match_offsets);
    tcase_add_test(tc, test_contiguous_and_dense);
    tcase_add_test(tc, test_pack_unpack);
    suite_add_tcase(s, tc);
    return pa_test_run(s);
}
