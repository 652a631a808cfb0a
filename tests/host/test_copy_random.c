/*
 * Random copies through real types, compared element by element with the reference tree walk.
 *
 * Each round declares a pool of types of one size and element size in a fresh scope: a random dimension tree
 * T (up to 4 levels), a plain array, types whose dimensions refer to T's sub-trees in a random order and
 * grouping (permutations, transpositions in units), a window into a padded array and a permutation of that
 * window, a cyclic displacement and a reversing func().  Random pairs of the pool are copied with pa_copy
 * into a destination poisoned with 0xA5, and every byte is compared with what the reference walk
 * (pa__offset_walk) says, including the bytes the destination's offsets never reach.  The seed is printed.
 */
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "testutil.h"
#include "type_pool.h"

#define ROUNDS 2500
#define PAIRS 6

static pa_rng rng;

static unsigned char *buffer_for(const pa_type *t, int64_t *elems)
{
    int64_t lo, hi;
    PA_CK_OK(pa_extent(t, &lo, &hi));
    ck_assert_msg(lo >= 0, "%s has negative offsets", pa_type_name(t));
    *elems = hi + 1;
    return malloc((size_t)(hi + 1) * pa_elm_size(t));
}

static void check_pair(const pa_type *dt, const pa_type *st, uint64_t seed)
{
    int64_t dn, sn, e = (int64_t)pa_elm_size(dt);
    unsigned char *dst = buffer_for(dt, &dn), *src = buffer_for(st, &sn), *want = malloc((size_t)(dn * e));
    char dl[256], sl[256], line[1024];
    for (int64_t i = 0; i < sn * e; i++)
        src[i] = (unsigned char)pa_rng_next(&rng);
    memset(dst, 0xA5, (size_t)(dn * e));
    memset(want, 0xA5, (size_t)(dn * e));
    for (int64_t k = 0; k < pa_size(dt); k++)
        memcpy(want + pa__offset_walk(dt, k) * e, src + pa__offset_walk(st, k) * e, (size_t)e);
    PA_CK_OK(pa_copy(dt, dst, st, src));
    if (memcmp(dst, want, (size_t)(dn * e)) != 0) {
        int64_t i = 0;
        while (dst[i] == want[i]) i++;
        pa_layout_format(dt, dl, sizeof dl);
        pa_layout_format(st, sl, sizeof sl);
        pa_copy_explain(dt, st, line, sizeof line);
        ck_abort_msg("seed %llu: copy %s %s <- %s %s: byte %lld is 0x%02x, expected 0x%02x; %s",
                     (unsigned long long)seed, pa_type_name(dt), dl, pa_type_name(st), sl, (long long)i, dst[i],
                     want[i], line);
    }
    free(dst);
    free(src);
    free(want);
}

START_TEST(test_random_pairs)
{
    uint64_t seed = pa_test_seed("host_copy_random");
    static const int elms[] = {1, 2, 3, 4, 8, 12, 16, 5};
    rng.s = seed;
    for (int round = 0; round < ROUNDS; round++) {
        pa_type_pool p;
        int elm = elms[pa_rng_range(&rng, 0, 7)];
        pa_type_pool_make(&p, &rng, "paged", elm, pa_rng_range(&rng, 1, 8) == 1 ? 5000 : 400);
        for (int k = 0; k < PAIRS; k++) {
            int a = (int)pa_rng_range(&rng, 0, p.n - 1), b = (int)pa_rng_range(&rng, 0, p.n - 1);
            check_pair(p.t[a], p.t[b], seed);
        }
        pa_scope_destroy(p.scope);
    }
}
END_TEST

int main(void)
{
    Suite *s = suite_create("host_copy_random");
    TCase *tc = tcase_create("random");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, test_random_pairs);
    suite_add_tcase(s, tc);
    return pa_test_run(s);
}
