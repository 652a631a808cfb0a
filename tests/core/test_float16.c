/* parray tests — the 16-bit float element types: half and bfloat16 in declarations (2-byte elements, the name
 * kept and printed, copies between them refused as different types of one size would not be), and the host
 * conversions of float16.h: every one of the 65536 bit patterns of each converts to float and back unchanged
 * (NaNs stay NaNs), and random floats round to the nearest representable value, ties to even, checked against
 * a search over all finite values (an oracle that knows nothing of the bit tricks). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "parray/float16.h"
#include "testutil.h"

START_TEST(test_declare)
{
    pa_scope *s;
    char buf[256];
    PA_CK_OK(pa_scope_create(NULL, &s));
    PA_CK_OK(pa_declare_text(s, "parray paged bfloat16 [4][8] B; parray dmem half [16] H; parray smem bfloat16 [#B_1][#B_0] BT;"));
    const pa_type *b = pa_type_get(s, "B"), *h = pa_type_get(s, "H"), *bt = pa_type_get(s, "BT");
    ck_assert_str_eq(pa_elm(b), "bfloat16");
    ck_assert_uint_eq(pa_elm_size(b), 2);
    ck_assert_uint_eq(pa_elm_size(h), 2);
    ck_assert_str_eq(pa_elm(bt), "bfloat16");   /* taken from the referred type */
    ck_assert_int_gt(pa_type_format(b, buf, sizeof buf), 0);
    ck_assert_msg(strstr(buf, "bfloat16") != NULL, "%s", buf);
    /* an array of them is created and copied like any 2-byte element */
    uint16_t *a = pa_create(b);
    ck_assert_ptr_nonnull(a);
    for (int i = 0; i < 32; i++)
        a[i] = pa_bf16_from_float((float)i);
    const pa_type *t = pa_type_parse(s, "paged bfloat16 [#B_1][#B_0]");
    uint16_t *c = pa_create(t);
    ck_assert_ptr_nonnull(c);
    PA_CK_OK(pa_copy(t, c, b, a));
    for (int i = 0; i < 4; i++)
        for (int j = 0; j < 8; j++)
            ck_assert_float_eq(pa_bf16_to_float(c[i * 8 + j]), (float)(j * 4 + i));   /* t(j, i) is B(i, j) */
    PA_CK_OK(pa_destroy(b, a));
    PA_CK_OK(pa_destroy(t, c));
    /* the name is not a prefix match: "bfloat" alone is unknown */
    ck_assert_ptr_null(pa_type_parse(s, "paged bfloat [4]"));
    pa_scope_destroy(s);
}
END_TEST

static float f_of(uint32_t x)
{
    float f;
    memcpy(&f, &x, 4);
    return f;
}

START_TEST(test_every_pattern_round_trips)
{
    for (uint32_t v = 0; v < 65536; v++) {
        float h = pa_half_to_float((uint16_t)v), b = pa_bf16_to_float((uint16_t)v);
        if (isnan(h))
            ck_assert(isnan(pa_half_to_float(pa_half_from_float(h))));
        else
            ck_assert_uint_eq(pa_half_from_float(h), v);
        if (isnan(b))
            ck_assert(isnan(pa_bf16_to_float(pa_bf16_from_float(b))));
        else
            ck_assert_uint_eq(pa_bf16_from_float(b), v);
    }
    /* fixed points the formats define */
    ck_assert_float_eq(pa_half_to_float(0x3c00), 1.0f);
    ck_assert_float_eq(pa_half_to_float(0x7bff), 65504.0f);
    ck_assert_float_eq(pa_half_to_float(0x0001), ldexpf(1.0f, -24));
    ck_assert_float_eq(pa_bf16_to_float(0x3f80), 1.0f);
    ck_assert(isinf(pa_half_to_float(0x7c00)));
}
END_TEST

/* The nearest finite value to x among the 65536 patterns of a format, ties to the even pattern; -1 beyond. */
static int nearest(float x, float (*to)(uint16_t), float max_finite, float ulp_at_max)
{
    double ax = fabs((double)x);
    if (ax >= (double)max_finite + (double)ulp_at_max / 2)
        return -1;
    int best = -1;
    double bd = INFINITY;
    for (uint32_t v = 0; v < 65536; v++) {
        float y = to((uint16_t)v);
        if (!isfinite(y) || signbit(y) != signbit(x))
            continue;
        double d = fabs((double)y - (double)x);
        if (d < bd || (d == bd && !(v & 1u))) {
            bd = d;
            best = (int)v;
        }
    }
    return best;
}

START_TEST(test_rounding_matches_the_nearest_value)
{
    pa_rng r = {pa_test_seed("float16 rounding")};
    for (int i = 0; i < 600; i++) {
        /* random sign, an exponent across both formats' ranges (and subnormal halves), random mantissa bits */
        uint32_t e = 95u + (uint32_t)(pa_rng_next(&r) % 50u), m = (uint32_t)(pa_rng_next(&r) & 0x7fffffu);
        if (i % 4 == 0)
            m &= ~0x1fffu, m |= 0x1000u;   /* exactly halfway between two halves */
        if (i % 4 == 1)
            m &= ~0xffffu, m |= 0x8000u;   /* exactly halfway between two bfloat16s */
        float x = f_of((uint32_t)(pa_rng_next(&r) & 1u) << 31 | e << 23 | m);
        int want = nearest(x, pa_half_to_float, 65504.0f, 32.0f);
        uint16_t got = pa_half_from_float(x);
        if (want < 0)
            ck_assert_msg(isinf(pa_half_to_float(got)), "%a -> %#x, want infinity", (double)x, got);
        else if ((want & 0x7fff) == 0)
            ck_assert_msg((got & 0x7fff) == 0, "%a -> %#x, want zero", (double)x, got);
        else
            ck_assert_msg(got == want, "half(%a) = %#x, the nearest is %#x", (double)x, got, want);
        want = nearest(x, pa_bf16_to_float, f_of(0x7f7f0000u), ldexpf(1.0f, 120));
        got = pa_bf16_from_float(x);
        ck_assert_msg(got == want, "bfloat16(%a) = %#x, the nearest is %#x", (double)x, got, want);
    }
    ck_assert_uint_eq(pa_half_from_float(65519.0f), 0x7bff);
    ck_assert_uint_eq(pa_half_from_float(65520.0f), 0x7c00);
    ck_assert_uint_eq(pa_half_from_float(-1e9f), 0xfc00);
    ck_assert_uint_eq(pa_half_from_float(ldexpf(1.0f, -25)), 0x0000);
    ck_assert_uint_eq(pa_half_from_float(ldexpf(1.5f, -25)), 0x0001);
    ck_assert_uint_eq(pa_bf16_from_float(1.0f + ldexpf(1.0f, -8)), 0x3f80);        /* tie, to even */
    ck_assert_uint_eq(pa_bf16_from_float(1.0f + 3 * ldexpf(1.0f, -8)), 0x3f82);    /* tie, to even */
    ck_assert(isnan(pa_bf16_to_float(pa_bf16_from_float(NAN))));
    ck_assert(isnan(pa_half_to_float(pa_half_from_float(NAN))));
}
END_TEST

int main(void)
{
    Suite *s = suite_create("core_float16");
    TCase *tc = tcase_create("float16");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, test_declare);
    tcase_add_test(tc, test_every_pattern_round_trips);
    tcase_add_test(tc, test_rounding_matches_the_nearest_value);
    suite_add_tcase(s, tc);
    return pa_test_run(s);
}
