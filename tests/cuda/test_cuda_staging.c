/*
 * Staged GPU copies from several user threads at once (src/backends/cuda/cuda_staging.c): eight threads, each
 * with its own arrays, start every round together at a barrier and copy host -> device and back through
 * staging (transposes of pageable and pinned arrays, a window), each result checked element by element against
 * the types' offsets; the copies must have leased staging sets side by side (the most at once is at least two,
 * where one process-wide lock allowed one) and never more sets than a GPU has.  Without a GPU: 77 (skipped).
 */
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cuda_backend.h"
#include "testutil.h"
#include <parray/cuda.h>

#define THREADS 8
#define ROUNDS 6

static pthread_barrier_t start;
static atomic_int failures, staged_copies;
static char failure[512];

static void record_failure(const char *fmt, const char *a, const char *b)
{
    if (atomic_fetch_add(&failures, 1) == 0)
        snprintf(failure, sizeof failure, fmt, a, b);
}

/* Copies src -> dst, counting staged strategies, and checks every element through both types' offsets. */
static void copy_checked(const pa_type *dt, void *d, const pa_type *st, const void *s, const pa_type *dh,
                         void *dhost, const pa_type *sh, const void *shost)
{
    pa_copy_info info;
    if (pa_copy_query(dt, st, &info) != PA_OK || pa_copy(dt, d, st, s) != PA_OK) {
        record_failure("copy %s <- %s failed", pa_type_name(dt), pa_type_name(st));
        return;
    }
    if (!strncmp(info.strategy, "cuda_stage", 10) || !strcmp(info.strategy, "cuda_pageable_pipeline"))
        atomic_fetch_add(&staged_copies, 1);
    if (!dhost)
        return;
    /* dh/sh: the host images the check reads (the arrays themselves when on the host) */
    if (pa_copy(dh, dhost, dt, d) != PA_OK) {
        record_failure("read back %s <- %s failed", pa_type_name(dh), pa_type_name(dt));
        return;
    }
    for (int64_t k = 0; k < pa_size(dt); k++)
        if (((const float *)dhost)[pa_offset(dh, k)] != ((const float *)shost)[pa_offset(sh, k)]) {
            record_failure("copy %s <- %s: wrong element", pa_type_name(dt), pa_type_name(st));
            return;
        }
}

static void *worker(void *arg)
{
    int id = (int)(intptr_t)arg;
    pa_scope *s;
    if (pa_scope_create(NULL, &s) != PA_OK ||
        pa_declare_text(s, "parray paged float [[384][512]] A\n"
                           "parray pinned float [[384][512]] P\n"
                           "parray dmem float [[#A_1][#A_0]] DT\n"
                           "parray paged float [[#A_1][#A_0]] HT\n"
                           "parray paged float [[400][520]] BIG\n"
                           "parray paged float [[384 # disp(5) # BIG_0][512 # disp(3) # BIG_1]] WIN\n"
                           "parray dmem float [384][512] DW\n"
                           "parray paged float [384][512] HW") != PA_OK) {
        record_failure("declarations: %s%s", pa_last_error(), "");
        return NULL;
    }
    const pa_type *A = pa_type_get(s, "A"), *P = pa_type_get(s, "P"), *DT = pa_type_get(s, "DT"),
                  *HT = pa_type_get(s, "HT"), *BIG = pa_type_get(s, "BIG"), *WIN = pa_type_get(s, "WIN"),
                  *DW = pa_type_get(s, "DW"), *HW = pa_type_get(s, "HW");
    float *a = pa_create(A), *p = pa_create(P), *dt = pa_create(DT), *ht = pa_create(HT), *big = pa_create(BIG),
          *dw = pa_create(DW), *hw = pa_create(HW), *back = pa_create(A);
    if (!a || !p || !dt || !ht || !big || !dw || !hw || !back) {
        record_failure("pa_create: %s%s", pa_last_error(), "");
        return NULL;
    }
    for (int round = 0; round < ROUNDS; round++) {
        for (int64_t i = 0; i < 384 * 512; i++)
            a[i] = p[i] = (float)(id * 1000003 + round * 7919 + i);
        for (int64_t i = 0; i < 400 * 520; i++)
            big[i] = (float)(id * 31 + round + i);
        pthread_barrier_wait(&start);
        copy_checked(DT, dt, A, a, HT, ht, A, a);          /* pageable, transposed on the way */
        copy_checked(A, back, DT, dt, A, back, A, a);      /* and back (transposed again) */
        copy_checked(DT, dt, P, p, HT, ht, P, p);          /* pinned, transposed */
        copy_checked(DW, dw, WIN, big, HW, hw, WIN, big);  /* a window of a larger array */
    }
    pa_destroy(A, a), pa_destroy(P, p), pa_destroy(DT, dt), pa_destroy(HT, ht), pa_destroy(BIG, big);
    pa_destroy(DW, dw), pa_destroy(HW, hw), pa_destroy(A, back);
    pa_scope_destroy(s);
    return NULL;
}

START_TEST(test_concurrent_staged_copies)
{
    pthread_t t[THREADS];
    int used0, peak0, used, peak;
    long waits0, waits;
    pa_cuda__stage_stats(&used0, &peak0, &waits0);
    pthread_barrier_init(&start, NULL, THREADS);
    for (int i = 0; i < THREADS; i++)
        ck_assert_int_eq(pthread_create(&t[i], NULL, worker, (void *)(intptr_t)i), 0);
    for (int i = 0; i < THREADS; i++)
        pthread_join(t[i], NULL);
    pthread_barrier_destroy(&start);
    ck_assert_msg(atomic_load(&failures) == 0, "%d failures; the first: %s", atomic_load(&failures), failure);
    pa_cuda__stage_stats(&used, &peak, &waits);
    int gpus = pa_cuda_device_count();
    fprintf(stderr, "cuda_staging: %d staged copies; sets made %d, at most %d leased at once, %ld waits\n",
            atomic_load(&staged_copies), used, peak, waits);
    ck_assert_int_ge(atomic_load(&staged_copies), THREADS * ROUNDS);
    ck_assert_int_ge(peak, 2);
    ck_assert_int_le(used, PA_CUDA__STAGE_SETS * (gpus > 0 ? gpus : 1));
    ck_assert_int_le(peak, PA_CUDA__STAGE_SETS * (gpus > 0 ? gpus : 1));
    /* Released (no copy runs now) and made again by the next copy. */
    pa_cuda__stage_release();
    ck_assert_uint_eq(pa_cuda__stage_held(), 0);
}
END_TEST

int main(void)
{
    if (pa_test_skip_without_gpu("cuda_staging"))
        return 77;
    Suite *s = suite_create("cuda_staging");
    TCase *tc = tcase_create("staging");
    tcase_set_timeout(tc, 300);
    tcase_add_test(tc, test_concurrent_staged_copies);
    suite_add_tcase(s, tc);
    return pa_test_run(s);
}
