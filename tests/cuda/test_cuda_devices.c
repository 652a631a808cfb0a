/*
 * Copies whose device memory is on other GPUs (copy_devices.c), compared byte by byte with the reference walk,
 * destinations poisoned with 0xA5 first.
 *
 * On any machine with a GPU, the cross-GPU executor runs on GPU 0 as if the source were on another GPU: through
 * a copy of the source's extent (what two GPUs without peer access get) and reading the source directly (peer
 * access), for a transpose both ways, a displaced window and a reversal.  With two GPUs or more, arrays are
 * also made on GPUs 1 and 0 and copied by pa_copy both ways (and by the executor, staged and direct, and by
 * pa_copy_async), and between host memory and GPU 1 while GPU 0 is current.  Without a GPU the suite exits 77 (skipped).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cuda_backend.h"
#include "internal.h"
#include "testutil.h"
#include <parray/cuda.h>

static pa_rng rng;

static const char *const decls =
    "parray dmem float [300][520] A\n"
    "parray dmem float [[#A_1][#A_0]] AT\n"
    "parray dmem int [64][80] P\n"
    "parray dmem int [[40 # disp(9) # P_0][50 # disp(20) # P_1]] W\n"
    "parray dmem int [[#W_1][#W_0]] WT\n"
    "parray dmem bytes12 [1000] R\n"
    "parray dmem bytes12 [1000 # func(rev)] RR\n"
    "parray paged float [300][520] H\n"
    "parray paged float [[#H_1][#H_0]] HT\n";

/* How a test copies dt <- st: by pa_copy, by pa_copy_async on the default stream (read back after a
 * cudaDeviceSynchronize), or by the cross-GPU executor (staged or direct). */
enum how { PA_COPY, PA_COPY_ASYNC, CROSS_DIRECT, CROSS_STAGED };

/* The executor of a dmem -> dmem plan's strategy itself: the strategy's own exec runs through
 * pa_cuda__on_devices, which would hand a copy across two GPUs back to pa_cuda__cross. */
static pa_cuda__exec_fn raw_exec(const pa__plan *p)
{
    pa_cuda__exec_fn f = pa_cuda__exec_of(p->strategy);
    ck_assert_msg(f != NULL, "no executor for strategy %s", p->strategy->name);
    return f;
}

/* Makes dt's array on GPU ddev and st's on GPU sdev (when dmem), copies, compares, and frees both. */
static void check(pa_scope *sc, const char *dname, int ddev, const char *sname, int sdev, enum how how)
{
    const pa_type *dt = pa_type_get(sc, dname), *st = pa_type_get(sc, sname);
    ck_assert_msg(dt && st, "%s", pa_last_error());
    int64_t e = (int64_t)pa_elm_size(dt);
    PA_CK_OK(pa_cuda_set_device(ddev));
    void *dst = pa_create(dt);
    PA_CK_OK(pa_cuda_set_device(sdev));
    void *src = pa_create(st);
    PA_CK_OK(pa_cuda_set_device(0));
    ck_assert_msg(dst && src, "%s", pa_last_error());
    pa_test_pair c;
    pa_test_pair_fill(&c, sc, &rng, dt, dst, st, src);
    if (how == PA_COPY) {
        PA_CK_OK(pa_copy(dt, dst, st, src));
    } else if (how == PA_COPY_ASYNC) {
        PA_CK_OK(pa_copy_async(dt, dst, st, src, NULL));
        ck_assert_int_eq(cudaDeviceSynchronize(), cudaSuccess);
    } else {
        const pa__layout *dl = pa__type_layout(dt), *sl = pa__type_layout(st);
        pa__plan *p = NULL;
        ck_assert_msg(dl && sl, "%s", pa_last_error());
        PA_CK_OK(pa__plan_get(dl, sl, (size_t)e, &pa__mem_dmem_ops, &pa__mem_dmem_ops, &p));
        PA_CK_OK(pa_cuda__cross(p, (char *)dst + dl->base * e, (const char *)src + sl->base * e, ddev, sdev,
                                how == CROSS_STAGED, raw_exec(p)));
        PA_CK_OK(pa_cuda_set_device(0));   /* the executor leaves ddev current; its callers restore */
        pa__plan_unref(p);
    }
    int cur = pa_cuda_get_device();
    ck_assert_msg(cur == 0, "the copy left GPU %d current instead of GPU 0", cur);
    int64_t i = pa_test_pair_diff(&c, sc, dt, dst);
    ck_assert_msg(i < 0, "%s (GPU %d) <- %s (GPU %d), %s: byte %lld is 0x%02x, expected 0x%02x", dname, ddev, sname,
                  sdev, how == PA_COPY ? "pa_copy" : how == PA_COPY_ASYNC ? "pa_copy_async"
                  : how == CROSS_STAGED ? "staged" : "direct",
                  (long long)i, i < 0 ? 0 : c.got[i], i < 0 ? 0 : c.want[i]);
    PA_CK_OK(pa_destroy(dt, dst));
    PA_CK_OK(pa_destroy(st, src));
    pa_test_pair_free(&c);
}

static int64_t reverse(int64_t i, void *ctx)
{
    (void)ctx;
    return 999 - i;
}

/* A scope with the suite's types; rev is RR's offset function. */
static pa_scope *declare(void)
{
    pa_scope *s;
    PA_CK_OK(pa_scope_create(NULL, &s));
    PA_CK_OK(pa_scope_def_func(s, "rev", reverse, NULL));
    PA_CK_OK(pa_declare_text(s, decls));
    return s;
}

static const char *const pairs[][2] = {{"AT", "A"}, {"A", "AT"}, {"WT", "W"}, {"RR", "R"}};

START_TEST(test_cross_executor)
{
    rng.s = pa_test_seed("cuda_devices");
    pa_scope *s = declare();
    for (size_t i = 0; i < sizeof pairs / sizeof *pairs; i++) {
        check(s, pairs[i][0], 0, pairs[i][1], 0, CROSS_STAGED);
        check(s, pairs[i][0], 0, pairs[i][1], 0, CROSS_DIRECT);
    }
    pa_scope_destroy(s);
}
END_TEST

START_TEST(test_two_gpus)
{
    pa_scope *s;
    ck_assert_int_ge(pa_cuda_device_count(), 2);
    rng.s = pa_test_seed("cuda_devices");
    s = declare();
    for (size_t i = 0; i < sizeof pairs / sizeof *pairs; i++) {
        check(s, pairs[i][0], 0, pairs[i][1], 1, PA_COPY);
        check(s, pairs[i][0], 1, pairs[i][1], 0, PA_COPY);
        check(s, pairs[i][0], 1, pairs[i][1], 1, PA_COPY);
        check(s, pairs[i][0], 0, pairs[i][1], 1, CROSS_STAGED);   /* what GPUs without peer access get */
        check(s, pairs[i][0], 1, pairs[i][1], 0, CROSS_DIRECT);
    }
    check(s, "AT", 1, "H", 0, PA_COPY);
    check(s, "HT", 0, "A", 1, PA_COPY);
    check(s, "AT", 0, "A", 1, PA_COPY_ASYNC);   /* across GPUs: waits, then copies */
    check(s, "AT", 1, "A", 1, PA_COPY_ASYNC);   /* on GPU 1 while GPU 0 is current */
    pa_scope_destroy(s);
}
END_TEST

/* Two suites: cuda_devices (no argument: the cross-GPU executors on one GPU) and cuda_devices_two ("two": the
 * copies between two GPUs); each is skipped (77) on a machine with fewer GPUs than it needs. */
int main(int argc, char **argv)
{
    int two = argc > 1 && strcmp(argv[1], "two") == 0, n = pa_test_gpu_count();
    const char *name = two ? "cuda_devices_two" : "cuda_devices";
    if (n < (two ? 2 : 1)) {
        fprintf(stderr, "%s: skipped: %d usable GPU%s (or no CUDA backend in this build); it needs %d\n", name, n,
                n == 1 ? "" : "s", two ? 2 : 1);
        return 77;
    }
    Suite *s = suite_create(name);
    TCase *tc = tcase_create("devices");
    tcase_set_timeout(tc, 300);
    tcase_add_test(tc, two ? test_two_gpus : test_cross_executor);
    suite_add_tcase(s, tc);
    return pa_test_run(s);
}
