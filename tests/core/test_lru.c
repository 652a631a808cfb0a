/*
 * The bounded, hashed caches of distributed-copy plans (src/core/base/lru.c): filled past their bound they keep the
 * most recently used entries and destroy the others once no user holds them; pinned entries stay; an equal
 * entry made twice is filed once; a lookup that must not touch leaves the order; 16 threads finding and
 * filing at once (under TSan in CI) always get the entry of their key, and every entry made is destroyed once.
 */
#include <pthread.h>
#include <stdlib.h>

#include "lru.h"
#include "testutil.h"

typedef struct item {
    pa__lru_entry lru;
    int key, pin;
} item;

static atomic_int destroyed;

static int same(const pa__lru_entry *e, const void *k)
{
    return ((const item *)e)->key == *(const int *)k;
}

static void destroy(pa__lru_entry *e)
{
    atomic_fetch_add(&destroyed, 1);
    free(e);
}

static int pinned(const pa__lru_entry *e)
{
    return ((const item *)e)->pin;
}

/* A hash that sends every fourth key to the same bucket, so that chains are walked too. */
static uint64_t hash_of(int key)
{
    return (uint64_t)(key % 4) * PA__LRU_BUCKETS + (uint64_t)key / 4 * 7;
}

static item *make(int key)
{
    item *it = calloc(1, sizeof *it);
    ck_assert_ptr_nonnull(it);
    it->key = key;
    pa__lru_entry_init(&it->lru, hash_of(key));
    return it;
}

static item *find(pa__lru *c, int key, int touch)
{
    return (item *)pa__lru_find(c, hash_of(key), &key, touch);
}

/* Files key (made here) and gives back the caller's reference. */
static void put(pa__lru *c, int key)
{
    item *it = make(key);
    pa__lru_release(c, pa__lru_add(c, &it->lru, &key));
}

START_TEST(test_bound_and_order)
{
    pa__lru c = PA__LRU_INIT("test", 4, same, destroy, NULL);
    pa__lru_stats st;
    atomic_store(&destroyed, 0);
    for (int k = 0; k < 10; k++)
        put(&c, k);
    pa__lru_stats_of(&c, &st);
    ck_assert_int_eq(st.count, 4);
    ck_assert_int_eq(st.evictions, 6);
    ck_assert_int_eq(atomic_load(&destroyed), 6);
    for (int k = 0; k < 10; k++) {
        item *it = find(&c, k, 1);
        ck_assert_msg((it != NULL) == (k >= 6), "key %d %s", k, it ? "kept" : "dropped");
        if (it) {
            ck_assert_int_eq(it->key, k);
            pa__lru_release(&c, &it->lru);
        }
    }
    /* Recency: 6 is used (touched) again, 7 only looked at without touching: a new key drops 7, not 6. */
    pa__lru_release(&c, &find(&c, 6, 1)->lru);
    pa__lru_release(&c, &find(&c, 7, 0)->lru);
    put(&c, 10);
    item *six = find(&c, 6, 1), *seven = find(&c, 7, 1);
    ck_assert_ptr_nonnull(six);
    ck_assert_ptr_null(seven);
    /* A held entry outlives its eviction: destroyed only at the holder's release. */
    int before = atomic_load(&destroyed);
    pa__lru_set_capacity(&c, 1);   /* keeps the newest: 6 (just found) */
    pa__lru_stats_of(&c, &st);
    ck_assert_int_eq(st.count, 1);
    item *kept = find(&c, 6, 1);
    ck_assert_ptr_eq(kept, six);
    pa__lru_release(&c, &kept->lru);
    put(&c, 11);   /* evicts 6, which this test still holds */
    ck_assert_ptr_null(find(&c, 6, 1));
    ck_assert_int_eq(six->key, 6);
    int mid = atomic_load(&destroyed);
    pa__lru_release(&c, &six->lru);
    ck_assert_int_eq(atomic_load(&destroyed), mid + 1);
    ck_assert_int_gt(mid, before);
    pa__lru_clear(&c);
    pa__lru_stats_of(&c, &st);
    ck_assert_int_eq(st.count, 0);
    ck_assert_int_eq(atomic_load(&destroyed), 12);   /* every entry made (keys 0 to 11), once */
}
END_TEST

START_TEST(test_pinned_and_duplicates)
{
    pa__lru c = PA__LRU_INIT("test", 2, same, destroy, pinned);
    pa__lru_stats st;
    atomic_store(&destroyed, 0);
    item *p = make(100);
    p->pin = 1;
    int key = 100;
    pa__lru_release(&c, pa__lru_add(&c, &p->lru, &key));
    for (int k = 0; k < 5; k++)
        put(&c, k);
    pa__lru_stats_of(&c, &st);
    ck_assert_int_eq(st.count, 3);   /* two unpinned and the pinned one, the oldest, never evicted */
    item *it = find(&c, 100, 1);
    ck_assert_ptr_eq(it, p);
    pa__lru_release(&c, &it->lru);
    /* The same key made twice (two threads that both missed): the first filed is kept, the second dropped. */
    item *a = make(4);
    key = 4;
    pa__lru_entry *got = pa__lru_add(&c, &a->lru, &key);
    ck_assert_ptr_ne(got, &a->lru);
    ck_assert_int_eq(((item *)got)->key, 4);
    pa__lru_release(&c, got);
    pa__lru_stats_of(&c, &st);
    ck_assert_int_eq(st.duplicates, 1);
    ck_assert_int_eq(atomic_load(&destroyed), 3 + 1);
    pa__lru_clear(&c);
    ck_assert_int_eq(atomic_load(&destroyed), 7);
}
END_TEST

/* 16 threads find-or-make-and-file 64 keys in a cache of 16, checking every entry they get. */
static pa__lru shared = PA__LRU_INIT("shared", 16, same, destroy, NULL);
static atomic_int made, wrong;

static void *worker(void *arg)
{
    unsigned x = (unsigned)(uintptr_t)arg * 2654435761u + 1;
    for (int i = 0; i < 2000; i++) {
        x = x * 1103515245u + 12345u;
        int key = (int)((x >> 8) % 64);
        item *it = find(&shared, key, 1);
        if (!it) {
            item *m = make(key);
            atomic_fetch_add(&made, 1);
            it = (item *)pa__lru_add(&shared, &m->lru, &key);
        }
        if (it->key != key)
            atomic_fetch_add(&wrong, 1);
        pa__lru_release(&shared, &it->lru);
    }
    return NULL;
}

START_TEST(test_threads)
{
    pthread_t t[16];
    atomic_store(&destroyed, 0);
    for (int i = 0; i < 16; i++)
        ck_assert_int_eq(pthread_create(&t[i], NULL, worker, (void *)(uintptr_t)i), 0);
    for (int i = 0; i < 16; i++)
        pthread_join(t[i], NULL);
    pa__lru_stats st;
    pa__lru_stats_of(&shared, &st);
    ck_assert_int_eq(atomic_load(&wrong), 0);
    ck_assert_int_le(st.count, 16);
    ck_assert_int_eq(st.hits + st.misses, 16 * 2000);
    ck_assert_int_eq(atomic_load(&destroyed) + st.count, atomic_load(&made));
    pa__lru_clear(&shared);
    ck_assert_int_eq(atomic_load(&destroyed), atomic_load(&made));
}
END_TEST

int main(void)
{
    Suite *s = suite_create("core_lru");
    TCase *tc = tcase_create("lru");
    tcase_add_test(tc, test_bound_and_order);
    tcase_add_test(tc, test_pinned_and_duplicates);
    tcase_add_test(tc, test_threads);
    suite_add_tcase(s, tc);
    return pa_test_run(s);
}
