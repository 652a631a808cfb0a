/*
 * Leases of a few resources per key (src/core/base/leases.c), the CPU side of the CUDA backend's staging sets:
 * one taker alone always gets index 0; 16 threads taking and giving back on two keys never share an index,
 * never hold more than the key's indices at once, wait when all are taken, and all finish (under TSan in CI).
 */
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <unistd.h>

#include "leases.h"
#include "testutil.h"

#define PER 4
#define THREADS 16

static pa__leases l = PA__LEASES_INIT(PER);
static atomic_int holder[2][PER], held[2], over, shared_index;

START_TEST(test_one_taker)
{
    pa__leases one = PA__LEASES_INIT(PER);
    for (int i = 0; i < 5; i++) {
        int k = pa__lease_take(&one, 3);
        ck_assert_int_eq(k, 0);
        ck_assert(pa__lease_taken(&one, 3, 0));
        pa__lease_give(&one, 3, k);
    }
    int a = pa__lease_take(&one, 3), b = pa__lease_take(&one, 3), c = pa__lease_take(&one, 5);
    ck_assert_int_eq(a, 0);
    ck_assert_int_eq(b, 1);
    ck_assert_int_eq(c, 0);   /* keys are separate */
    pa__lease_give(&one, 3, a);
    ck_assert_int_eq(pa__lease_take(&one, 3), 0);   /* the lowest free one */
    int peak;
    long waits;
    pa__lease_stats(&one, &peak, &waits);
    ck_assert_int_eq(peak, 3);
    ck_assert_int_eq(waits, 0);
}
END_TEST

static void *worker(void *arg)
{
    int key = (int)(intptr_t)arg % 2;
    for (int i = 0; i < 300; i++) {
        int k = pa__lease_take(&l, key);
        if (atomic_fetch_add(&holder[key][k], 1) != 0)
            atomic_store(&shared_index, 1);
        if (atomic_fetch_add(&held[key], 1) + 1 > PER)
            atomic_store(&over, 1);
        if (i % 50 == 0)
            usleep(100);   /* hold it a while: the others must wait */
        atomic_fetch_sub(&held[key], 1);
        atomic_fetch_sub(&holder[key][k], 1);
        pa__lease_give(&l, key, k);
    }
    return NULL;
}

START_TEST(test_threads)
{
    pthread_t t[THREADS];
    for (int i = 0; i < THREADS; i++)
        ck_assert_int_eq(pthread_create(&t[i], NULL, worker, (void *)(intptr_t)i), 0);
    for (int i = 0; i < THREADS; i++)
        pthread_join(t[i], NULL);
    ck_assert_int_eq(atomic_load(&shared_index), 0);
    ck_assert_int_eq(atomic_load(&over), 0);
    int peak;
    long waits;
    pa__lease_stats(&l, &peak, &waits);
    ck_assert_int_le(peak, 2 * PER);
    ck_assert_int_ge(peak, 2);
    for (int key = 0; key < 2; key++)
        for (int k = 0; k < PER; k++)
            ck_assert(!pa__lease_taken(&l, key, k));
}
END_TEST

int main(void)
{
    Suite *s = suite_create("core_leases");
    TCase *tc = tcase_create("leases");
    tcase_add_test(tc, test_one_taker);
    tcase_add_test(tc, test_threads);
    suite_add_tcase(s, tc);
    return pa_test_run(s);
}
