/*
 * The GPU constants of the cost model (src/backends/cuda/cost_cuda.c): pa_cost_calibrate on this machine writes
 * them (they differ from the built-in ones and are read back from the file), and the model's structure for GPU
 * copies under fixed constants.  Nothing is timed here: how close the calibrated predictions come to measured
 * copies is bench/cost_accuracy's GPU table (a timed check fails when the machine is loaded).  Without a GPU: 77
 * (skipped).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "backends.h"
#include "internal.h"
#include "testutil.h"

/* Calibration writes the GPU constants: they differ from the built-in ones, read back from the file without a
 * skipped line, each positive and finite, and the model in use is the file's (written with 6 significant
 * digits). */
START_TEST(test_calibration_writes_gpu_constants)
{
    char dir[64] = "/tmp/pa_gcost_XXXXXX", path[128], cmd[160];
    ck_assert_ptr_nonnull(mkdtemp(dir));
    snprintf(path, sizeof path, "%s/cost", dir);
    PA_CK_OK(pa_cost_calibrate(path, stderr));
    pa__cost_model back = *pa__cost_defaults();
    PA_CK_OK(pa__cost_read(path, &back, 1));
    ck_assert(back.gpu_h2d_pinned != pa__cost_defaults()->gpu_h2d_pinned);
    ck_assert(back.gpu_call != pa__cost_defaults()->gpu_call);
    const double gpu[] = {back.gpu_h2d_pinned, back.gpu_d2h_pinned, back.gpu_h2d_pageable, back.gpu_d2h_pageable,
                          back.gpu_d2d_rw, back.gpu_tiled_rw, back.gpu_call, back.gpu_word};
    for (size_t i = 0; i < sizeof gpu / sizeof gpu[0]; i++)
        ck_assert_msg(gpu[i] > 0 && gpu[i] < 1e12, "GPU constant %zu: %g", i, gpu[i]);
    ck_assert_double_eq_tol(back.gpu_tiled_rw, pa__cost()->gpu_tiled_rw, 1e-5 * back.gpu_tiled_rw);
    ck_assert_double_eq_tol(back.gpu_h2d_pinned, pa__cost()->gpu_h2d_pinned, 1e-5 * back.gpu_h2d_pinned);
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    ck_assert_int_eq(system(cmd), 0);
}
END_TEST

/* The model's structure for GPU copies under the built-in constants: a DMA's prediction grows with its bytes,
 * and halving the pinned bandwidth nearly doubles a large one's. */
START_TEST(test_gpu_predictions_follow_the_constants)
{
    pa__cost_set(pa__cost_defaults(), "test");
    pa_scope *s;
    PA_CK_OK(pa_scope_create(NULL, &s));
    double prev = 0, big = 0;
    for (int n = 256; n <= 4096; n *= 2) {
        char decl[160];
        pa_copy_info info;
        snprintf(decl, sizeof decl, "parray pinned float [%d][4096] P%d; parray dmem float [%d][4096] D%d;", n, n, n, n);
        PA_CK_OK(pa_declare_text(s, decl));
        snprintf(decl, sizeof decl, "D%d", n);
        const pa_type *d = pa_type_get(s, decl);
        snprintf(decl, sizeof decl, "P%d", n);
        PA_CK_OK(pa_copy_query(d, pa_type_get(s, decl), &info));
        ck_assert_msg(info.predicted_us > prev, "pinned -> dmem, %d rows: %.1f us after %.1f us", n,
                      info.predicted_us, prev);
        prev = big = info.predicted_us;
    }
    pa__cost_model m = *pa__cost_defaults();
    m.gpu_h2d_pinned /= 2;
    pa__cost_set(&m, "test");
    pa_copy_info info;
    PA_CK_OK(pa_copy_query(pa_type_get(s, "D4096"), pa_type_get(s, "P4096"), &info));
    ck_assert_msg(info.predicted_us > 1.8 * big && info.predicted_us < 2.2 * big,
                  "half the pinned bandwidth: %.1f us against %.1f us", info.predicted_us, big);
    pa_scope_destroy(s);
}
END_TEST

int main(void)
{
    if (pa_test_skip_without_gpu("cuda_cost"))
        return 77;
    Suite *su = suite_create("cuda_cost");
    TCase *tc = tcase_create("cost");
    tcase_set_timeout(tc, 300);
    tcase_add_test(tc, test_calibration_writes_gpu_constants);
    tcase_add_test(tc, test_gpu_predictions_follow_the_constants);
    suite_add_tcase(su, tc);
    return pa_test_run(su);
}
