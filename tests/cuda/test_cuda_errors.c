/*
 * The CUDA backend's errors, as two suites (tests/meson.build runs this program as each): cuda_errors_nogpu,
 * without a GPU (or without the backend), checks that every GPU call fails cleanly with PA_ERR_NODEV and a
 * message saying why, while planning and host copies still work; cuda_errors_gpu, with a GPU, checks the bad
 * inputs: allocating past the card, an invalid device number, copies between types of different sizes.  Each
 * is skipped (77) where it cannot check anything, rather than passing empty.
 */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "testutil.h"
#include <parray/cuda.h>

static pa_scope *scope;

static void setup(void)
{
    PA_CK_OK(pa_scope_create(NULL, &scope));
}

static void teardown(void)
{
    pa_scope_destroy(scope);
}

/* The status of a pa_create that failed, read back from the message's "ERR_NAME:" prefix. */
static int create_status(const pa_type *t)
{
    void *p = pa_create(t);
    if (p) {
        pa_destroy(t, p);
        return PA_OK;
    }
    const char *msg = pa_last_error();
    for (int st = -1; st >= -20; st--) {
        size_t n = strlen(pa_status_name(st));
        if (strncmp(msg, pa_status_name(st), n) == 0 && msg[n] == ':')
            return st;
    }
    return PA_ERR_INVAL;
}

static const pa_type *parse(const char *decl)
{
    const pa_type *t = pa_type_parse(scope, decl);
    ck_assert_msg(t, "%s: %s", decl, pa_last_error());
    return t;
}

START_TEST(test_no_gpu)
{
    PA_CK_ERR(pa_cuda_device_count(), PA_ERR_NODEV);
    if (pa_test_built("cuda")) {
        ck_assert_msg(strstr(pa_last_error(), "no usable GPU"), "%s", pa_last_error());
    } else {
        ck_assert_msg(strstr(pa_last_error(), "no CUDA backend"), "%s", pa_last_error());
    }
    PA_CK_ERR(pa_cuda_set_device(0), PA_ERR_NODEV);
    PA_CK_ERR(pa_cuda_get_device(), PA_ERR_NODEV);
    pa_cuda_fninfo info;
    PA_CK_ERR(pa_cuda_function_info((pa_cuda_function)0x1, 128, 0, &info), PA_ERR_NODEV);
    ck_assert_int_eq(pa_mtt_available("dmem"), 0);
    ck_assert_int_eq(pa_mtt_available("pinned"), 0);
    ck_assert_int_eq(pa_mtt_available("paged"), 1);

    const pa_type *dev = parse("dmem float [64][32]"), *pin = parse("pinned float [64][32]");
    const pa_type *host = parse("paged float [64][32]");
    PA_CK_OK(pa_declare(scope, "D", "dmem float [64][32]"));
    const pa_type *tr = parse("dmem float [[#D_1][#D_0]]");
    if (pa_test_built("cuda")) {
        PA_CK_ERR(create_status(dev), PA_ERR_NODEV);
        ck_assert_msg(strstr(pa_last_error(), "dmem") && strstr(pa_last_error(), "no usable GPU"), "%s",
                      pa_last_error());
        PA_CK_ERR(create_status(pin), PA_ERR_NODEV);
        ck_assert_msg(strstr(pa_last_error(), "pinned"), "%s", pa_last_error());

        /* Planning needs no GPU: the plan is explained; running it says there is none, and writes nothing. */
        char line[512];
        ck_assert_int_gt(pa_copy_explain(dev, host, line, sizeof line), 0);
        ck_assert_msg(strstr(line, "strategy=cuda_dma"), "%s", line);
        ck_assert_int_gt(pa_copy_explain(tr, host, line, sizeof line), 0);
        ck_assert_msg(strstr(line, "strategy=cuda_stage_permute") && strstr(line, "staging"), "%s", line);
        PA_CK_OK(pa_declare(scope, "V", "pinned float [[20][30][200]]"));
        const pa_type *v = parse("pinned float [[10 # disp(3) # V_0][12 # disp(5) # V_1][150 # disp(7) # V_2]]");
        ck_assert_int_gt(pa_copy_explain(parse("dmem float [10][12][150]"), v, line, sizeof line), 0);
        ck_assert_msg(strstr(line, "strategy=cuda_3d") && strstr(line, "10 slices of 12 rows of 600 bytes") &&
                      strstr(line, "async=queued"), "%s", line);
        ck_assert_int_gt(pa_copy_explain(tr, dev, line, sizeof line), 0);
        ck_assert_msg(strstr(line, "strategy=cuda_permute") && strstr(line, "tiled"), "%s", line);
        float src[64 * 32], dst[64 * 32];
        memset(src, 0, sizeof src);
        memset(dst, 0xA5, sizeof dst);
        PA_CK_ERR(pa_copy(dev, dst, host, src), PA_ERR_NODEV);
        ck_assert_msg(strstr(pa_last_error(), "no usable GPU"), "%s", pa_last_error());
        PA_CK_ERR(pa_copy(host, dst, dev, src), PA_ERR_NODEV);
        for (size_t i = 0; i < sizeof dst; i++)
            ck_assert_int_eq(((unsigned char *)dst)[i], 0xA5);
        /* pinned <-> paged is a host copy, and pinned memory is ordinary host memory to it. */
        PA_CK_OK(pa_copy(pin, dst, host, src));
        /* On a stream: host copies run at once on the default stream; a stream of a GPU that is not there, and
         * a GPU copy, are errors that write nothing. */
        memset(dst, 0xA5, sizeof dst);
        PA_CK_OK(pa_copy_async(host, dst, host, src, NULL));
        ck_assert_int_eq(dst[5], 0.0f);
        memset(dst, 0xA5, sizeof dst);
        PA_CK_ERR(pa_copy_async(host, dst, host, src, (void *)0x10), PA_ERR_NODEV);
        PA_CK_ERR(pa_copy_async(dev, dst, host, src, NULL), PA_ERR_NODEV);
        for (size_t i = 0; i < sizeof dst; i++)
            ck_assert_int_eq(((unsigned char *)dst)[i], 0xA5);
        /* A refused layout walks; with a dmem side it stages through a host image, which needs the GPU. */
        const pa_type *wrap = parse("paged float [4194305 # [7]]"), *dflat = parse("dmem float [4194305]");
        ck_assert_int_gt(pa_copy_explain(dflat, wrap, line, sizeof line), 0);
        ck_assert_msg(strstr(line, "strategy=walk") && strstr(line, "destination staged"), "%s", line);
        PA_CK_ERR(pa_copy(dflat, dst, wrap, src), PA_ERR_NODEV);
        /* Kernels: the launch needs a GPU; the descriptions do not. */
        pa_dthreads th;
        PA_CK_OK(pa_cuda_threads(parse("cuda [1000]"), 0, &th));
        PA_CK_ERR(pa_cuda_for(&th, (pa_cuda_function)0x1, NULL, 0), PA_ERR_NODEV);
    } else {
        PA_CK_ERR(create_status(dev), PA_ERR_MTT);
        ck_assert_msg(strstr(pa_last_error(), "CUDA backend"), "%s", pa_last_error());
        float a[64 * 32], b[64 * 32];
        memset(a, 0, sizeof a);
        PA_CK_ERR(pa_copy_async(host, b, host, a, (void *)0x10), PA_ERR_NODEV);
        PA_CK_OK(pa_copy_async(host, b, host, a, NULL));
        (void)pin;
        (void)host;
        (void)tr;
    }
}
END_TEST

START_TEST(test_bad_input_gpu)
{
    int n = pa_cuda_device_count();
    ck_assert_int_gt(n, 0);
    PA_CK_ERR(pa_cuda_set_device(n), PA_ERR_RANGE);
    ck_assert_msg(strstr(pa_last_error(), "GPU"), "%s", pa_last_error());
    PA_CK_ERR(pa_cuda_set_device(-1), PA_ERR_RANGE);
    PA_CK_OK(pa_cuda_set_device(0));
    ck_assert_int_eq(pa_cuda_get_device(), 0);
    ck_assert_int_eq(pa_mtt_available("dmem"), 1);

    /* 16 TiB is beyond any card: PA_ERR_NOMEM with the byte count. */
    const pa_type *huge = parse("dmem char [4096][4096][1048576]");
    PA_CK_ERR(create_status(huge), PA_ERR_NOMEM);
    ck_assert_msg(strstr(pa_last_error(), "17592186044416"), "%s", pa_last_error());
    /* The failure leaves the device usable. */
    const pa_type *a = parse("dmem int [16][16]"), *b = parse("dmem int [15][16]");
    void *pa = pa_create(a), *pb = pa_create(b);
    ck_assert_msg(pa && pb, "%s", pa_last_error());
    PA_CK_ERR(pa_copy(b, pb, a, pa), PA_ERR_SIZE);
    ck_assert_msg(strstr(pa_last_error(), "256") && strstr(pa_last_error(), "240"), "%s", pa_last_error());
    PA_CK_ERR(pa_copy(parse("dmem double [16][16]"), pa, a, pa), PA_ERR_ELM);
    PA_CK_ERR(pa_destroy(parse("pinned int [16][16]"), pa), PA_ERR_INVAL);
    PA_CK_OK(pa_destroy(a, pa));
    PA_CK_OK(pa_destroy(b, pb));
}
END_TEST

static const char *gpu_suite_name(int argc, char **argv)
{
    return argc > 1 && strcmp(argv[1], "gpu") == 0 ? "cuda_errors_gpu" : "cuda_errors_nogpu";
}

int main(int argc, char **argv)
{
    int gpu = pa_test_member(argc, argv, gpu_suite_name(argc, argv));
    Suite *s = suite_create(gpu_suite_name(argc, argv));
    TCase *tc = tcase_create("errors");
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_add_test(tc, gpu ? test_bad_input_gpu : test_no_gpu);
    suite_add_tcase(s, tc);
    return pa_test_run(s);
}
