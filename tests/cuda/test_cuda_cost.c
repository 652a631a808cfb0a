/*
 * The GPU constants of the cost model (src/backends/cuda/cost_cuda.c): pa_cost_calibrate on this machine writes
 * them (they differ from the built-in ones and are read back from the file), and then the planner's predicted
 * time of each GPU case (pa_copy_query) is within a factor of two of the measured median of pa_copy: pinned
 * and pageable DMA both ways, a device transpose, a pinned transpose staged through the device, a pageable one
 * through the pipeline, 2-D rows.  Sizes of 16 to 64 MiB, where the fixed costs do not dominate.  Without a
 * GPU: 77 (skipped); the timing check is skipped in sanitizer builds.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "backends.h"
#include "testutil.h"

#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__) || !defined(__OPTIMIZE__)
#define TIMING_TRUSTED 0
#else
#define TIMING_TRUSTED 1
#endif

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec * 1e6 + (double)t.tv_nsec * 1e-3;
}

static int cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

typedef struct gcase {
    const char *dst, *src, *what;
} gcase;

static const gcase cases[] = {
    {"D", "P", "pinned -> dmem, 64 MiB"},
    {"P", "D", "dmem -> pinned, 64 MiB"},
    {"D", "H", "paged -> dmem, 64 MiB"},
    {"H", "D", "dmem -> paged, 64 MiB"},
    {"DT", "D", "dmem transpose 4096^2 float"},
    {"DT", "P", "pinned -> dmem transposed"},
    {"DT", "H", "paged -> dmem transposed"},
    {"DR", "PR", "pinned -> dmem, 2-D rows of 256 B"},
};

START_TEST(test_calibrated_predictions)
{
    char dir[64] = "/tmp/pa_gcost_XXXXXX", path[128], cmd[160];
    ck_assert_ptr_nonnull(mkdtemp(dir));
    snprintf(path, sizeof path, "%s/cost", dir);
    PA_CK_OK(pa_cost_calibrate(path, stderr));
    pa__cost_model back = *pa__cost_defaults();
    PA_CK_OK(pa__cost_read(path, &back, 1));
    ck_assert(back.gpu_h2d_pinned != pa__cost_defaults()->gpu_h2d_pinned);
    ck_assert(back.gpu_call != pa__cost_defaults()->gpu_call);
    /* the model in use is the file's (written with 6 significant digits) */
    ck_assert_double_eq_tol(back.gpu_tiled_rw, pa__cost()->gpu_tiled_rw, 1e-5 * back.gpu_tiled_rw);
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    ck_assert_int_eq(system(cmd), 0);
    if (!TIMING_TRUSTED)
        return;
    pa_scope *s;
    PA_CK_OK(pa_scope_create(NULL, &s));
    PA_CK_OK(pa_declare_text(s, "parray paged float [[4096][4096]] H\n"
                                "parray pinned float [[4096][4096]] P\n"
                                "parray dmem float [[4096][4096]] D\n"
                                "parray dmem float [[#D_1][#D_0]] DT\n"
                                "parray pinned float [[65536][128]] PBIG\n"
                                "parray pinned float [[65536 # PBIG_0][64 # PBIG_1]] PR\n"
                                "parray dmem float [65536][64] DR\n"));
    int bad = 0;
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        const pa_type *dt = pa_type_get(s, cases[c].dst), *st = pa_type_get(s, cases[c].src);
        ck_assert_msg(dt && st, "%s", pa_last_error());
        const pa_type *alloc_s = st == pa_type_get(s, "PR") ? pa_type_get(s, "PBIG") : st;
        void *d = pa_create(dt), *sp = pa_create(alloc_s);
        ck_assert_msg(d && sp, "%s", pa_last_error());
        pa_copy_info info;
        PA_CK_OK(pa_copy_query(dt, st, &info));
        double t[7];
        for (int r = -2; r < 7; r++) {
            double t0 = now();
            PA_CK_OK(pa_copy(dt, d, st, sp));
            if (r >= 0)
                t[r] = now() - t0;
        }
        qsort(t, 7, sizeof t[0], cmp);
        double ratio = info.predicted_us / t[3];
        int ok = ratio >= 0.5 && ratio <= 2.0;
        bad += !ok;
        fprintf(stderr, "cuda_cost: %-36s %-24s predicted %9.1f us, measured %9.1f us, ratio %.2f %s\n",
                cases[c].what, info.strategy, info.predicted_us, t[3], ratio, ok ? "" : "(outside 2x)");
        pa_destroy(dt, d);
        pa_destroy(alloc_s, sp);
    }
    pa_scope_destroy(s);
    ck_assert_msg(bad == 0, "%d GPU cases predicted outside a factor of two (see above)", bad);
}
END_TEST

int main(void)
{
    if (pa_test_skip_without_gpu("cuda_cost"))
        return 77;
    Suite *su = suite_create("cuda_cost");
    TCase *tc = tcase_create("cost");
    tcase_set_timeout(tc, 300);
    tcase_add_test(tc, test_calibrated_predictions);
    suite_add_tcase(su, tc);
    return pa_test_run(su);
}
