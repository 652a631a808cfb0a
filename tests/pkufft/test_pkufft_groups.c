/*
 * The PKUFFT fast form's plane groups chosen by cost (examples/pkufft/pkufft_groups.c), on synthetic constants:
 * the prediction against a hand computation, more groups where the exchange is bandwidth-bound and its latency
 * small, one group where the latency dominates (small N, many GPUs), always a divisor of N/P and the cheapest of
 * them, and the defaults taken from the library's cost model.
 */
#include <math.h>

#include "pkufft.h"
#include "testutil.h"

/* A GPU whose exchange is slow against its transforms and whose groups are cheap. */
static pk_costs wire_bound(void)
{
    return (pk_costs){.nccl_bw = 50, .nccl_latency = 1000, .peer_ns = 100, .launch_ns = 0, .fused_ratio = 1,
                      .fft_bw = 600, .xy_share = 0.7};
}

START_TEST(test_predict_by_hand)
{
    /* N = 4 on 2 GPUs: 256 bytes a GPU, 32 ns of transforms (16 XY, 16 Z); a group's exchange of B bytes is
     * (B/2) over 1 byte/ns + 1 chunk x (100 + 10 x 1 peer) + 2 launches of 1 ns */
    pk_costs m = {.nccl_bw = 1, .nccl_latency = 100, .peer_ns = 10, .launch_ns = 1, .fused_ratio = 1, .fft_bw = 8,
                  .xy_share = 0.5};
    ck_assert_double_eq_tol(pk_fast_predict(&m, 4, 2, 1), 16 + (128 + 110 + 2) + 16, 1e-9);
    ck_assert_double_eq_tol(pk_fast_predict(&m, 4, 2, 2), 8 + (64 + 110 + 2) * 2 + 16, 1e-9);
    m.fused_ratio = 0.5;   /* the fused exchange at half the rate: the wire part doubles */
    ck_assert_double_eq_tol(pk_fast_predict(&m, 4, 2, 1), 16 + (256 + 110 + 2) + 16, 1e-9);
}
END_TEST

START_TEST(test_more_groups_when_wire_bound)
{
    pk_costs m = wire_bound();
    int g = pk_groups_by_cost(&m, 1024, 4, 16);
    ck_assert_int_gt(g, 1);
    ck_assert_int_eq(256 % g, 0);
    ck_assert(pk_fast_predict(&m, 1024, 4, g) < pk_fast_predict(&m, 1024, 4, 1));
    /* a faster network leaves less to hide: never more groups than the slower one chose */
    m.nccl_bw = 5000;
    ck_assert_int_le(pk_groups_by_cost(&m, 1024, 4, 16), g);
}
END_TEST

START_TEST(test_one_group_when_latency_dominates)
{
    pk_costs m = wire_bound();
    m.nccl_latency = 20000;
    m.peer_ns = 3000;
    ck_assert_int_eq(pk_groups_by_cost(&m, 32, 8, 16), 1);       /* tiny N: 4 planes, 32 KiB a GPU */
    ck_assert_int_eq(pk_groups_by_cost(&m, 1024, 256, 16), 1);   /* many GPUs: 255 peers a group */
}
END_TEST

START_TEST(test_limits)
{
    pk_costs m = wire_bound();
    ck_assert_int_eq(pk_groups_by_cost(&m, 1024, 1, 16), 1);     /* one process: no exchange to hide */
    ck_assert_int_eq(pk_groups_by_cost(&m, 8, 8, 16), 1);        /* one plane */
    ck_assert_int_eq(pk_groups_by_cost(&m, 1024, 4, 1), 1);      /* at most one asked */
    ck_assert_int_le(pk_groups_by_cost(&m, 1024, 4, 3), 3);
    m.nccl_bw = 0;
    ck_assert_int_eq(pk_groups_by_cost(&m, 1024, 4, 16), 1);     /* no rate: no choice */
    m = wire_bound();
    m.fft_bw = -1;
    ck_assert_int_eq(pk_groups_by_cost(&m, 1024, 4, 16), 1);
}
END_TEST

/* Over a range of constants and shapes, the choice is a divisor of N/P, at most `most`, and no other such
 * divisor is predicted cheaper. */
START_TEST(test_cheapest_divisor)
{
    const double bws[] = {10, 50, 280, 2000}, lats[] = {500, 5000, 20000, 100000};
    const int ns[] = {64, 96, 256, 1024}, ps[] = {2, 3, 4, 8, 16};
    for (size_t a = 0; a < 4; a++)
        for (size_t b = 0; b < 4; b++)
            for (size_t i = 0; i < 4; i++)
                for (size_t j = 0; j < 5; j++) {
                    pk_costs m = wire_bound();
                    m.nccl_bw = bws[a], m.nccl_latency = lats[b];
                    int n = ns[i], p = ps[j], planes = n / p, g = pk_groups_by_cost(&m, n, p, 12);
                    ck_assert_int_ge(g, 1);
                    ck_assert_int_le(g, 12);
                    ck_assert_msg(planes % g == 0, "%d groups of %d planes", g, planes);
                    for (int k = 1; k <= 12 && k <= planes; k++)
                        if (planes % k == 0)
                            ck_assert_msg(pk_fast_predict(&m, n, p, g) <= pk_fast_predict(&m, n, p, k),
                                          "N %d P %d: %d groups chosen, %d cheaper", n, p, g, k);
                }
}
END_TEST

START_TEST(test_defaults_from_cost_model)
{
    pk_costs m;
    double bw = 0, lat = 0;
    pk_costs_default(&m);
    ck_assert_int_eq(pa_cost_get("gpu_nccl_bw", &bw), PA_OK);
    ck_assert_int_eq(pa_cost_get("gpu_nccl_latency", &lat), PA_OK);
    ck_assert(m.nccl_bw == bw && m.nccl_latency == lat);
    ck_assert(m.peer_ns > 0 && m.launch_ns >= 0 && m.fused_ratio > 0 && m.fused_ratio <= 1 && m.fft_bw > 0);
    ck_assert(m.xy_share > 0 && m.xy_share < 1);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("pkufft_groups");
    TCase *tc = tcase_create("groups");
    tcase_add_test(tc, test_predict_by_hand);
    tcase_add_test(tc, test_more_groups_when_wire_bound);
    tcase_add_test(tc, test_one_group_when_latency_dominates);
    tcase_add_test(tc, test_limits);
    tcase_add_test(tc, test_cheapest_divisor);
    tcase_add_test(tc, test_defaults_from_cost_model);
    suite_add_tcase(s, tc);
    return pa_test_run(s);
}
