/*
 * The list of backends (src/core/backends/): which are on, PA_BACKENDS switching them off, what a switched-off
 * backend's memory types and streams say, and the planner's choice of strategy looked up by name.
 *
 * Run twice by meson: as it is, and with PA_BACKENDS=-cuda (suite core_backends_nocuda), where the CUDA backend,
 * built or not, must be off with clear errors (test_cuda_off), and where it is on, test_cuda_on checks what it
 * then gives.  The expectations follow from the environment and the build.
 */
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "backends.h"
#include "parray/dlpack.h"
#include "parray/gputile.h"
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

/* Whether this run switched the CUDA backend off. */
static int cuda_switched_off(void)
{
    const char *v = getenv("PA_BACKENDS");
    return v && strstr(v, "-cuda") != NULL;
}

START_TEST(test_list)
{
    ck_assert_int_eq(pa_backend_on("pthread"), 1);
    ck_assert_int_eq(pa_backend_on("cuda"), pa_test_built("cuda") && !cuda_switched_off());
    ck_assert_int_eq(pa_backend_on("mpi"), pa_test_built("mpi"));
    ck_assert_int_eq(pa_backend_on("gamem"), pa__backend_named("gamem") != NULL);   /* on where linked in */
    PA_CK_ERR(pa_backend_on("opencl"), PA_ERR_INVAL);
    PA_CK_ERR(pa_backend_on(NULL), PA_ERR_INVAL);
    /* Every backend of the list has a name and a description; exactly one is required, the host's. */
    int required = 0;
    for (int i = 0; i < pa__backend_count(); i++) {
        const pa__backend *b = pa__backend_at(i);
        ck_assert(b && b->name && b->what);
        required += b->required;
    }
    ck_assert_int_eq(required, 1);
    ck_assert_ptr_null(pa__backend_at(pa__backend_count()));
    ck_assert_ptr_nonnull(pa__host());
}
END_TEST

START_TEST(test_print)
{
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    ck_assert_ptr_nonnull(f);
    PA_CK_OK(pa_backends_print(f));
    fclose(f);
    ck_assert_msg(strstr(text, "pthread  on") != NULL, "%s", text);
    if (pa_test_built("cuda") && cuda_switched_off())
        ck_assert_msg(strstr(text, "cuda     off (PA_BACKENDS)") != NULL, "%s", text);
    if (!pa_test_built("cuda"))
        ck_assert_msg(strstr(text, "cuda     not built") != NULL, "%s", text);
    free(text);
    PA_CK_ERR(pa_backends_print(NULL), PA_ERR_INVAL);
}
END_TEST

/* dmem and pinned without the CUDA backend: the names are known, creating arrays fails and says why. */
START_TEST(test_cuda_off)
{
    PA_CK_OK(pa_declare(scope, "D", "dmem float [64]"));
    PA_CK_OK(pa_declare(scope, "P", "pinned float [64]"));
    PA_CK_OK(pa_declare(scope, "H", "paged float [64]"));
    const pa_type *d = pa_type_get(scope, "D"), *p = pa_type_get(scope, "P"), *h = pa_type_get(scope, "H");
    const char *why = pa_test_built("cuda") ? "switched off (PA_BACKENDS)" : "which this build does not have";
    ck_assert_ptr_null(pa_create(d));
    ck_assert_int_eq(pa__last_status(), PA_ERR_MTT);
    ck_assert_msg(strstr(pa_last_error(), "CUDA backend") && strstr(pa_last_error(), why), "%s", pa_last_error());
    ck_assert_ptr_null(pa_create(p));
    ck_assert_msg(strstr(pa_last_error(), why), "%s", pa_last_error());
    ck_assert_int_eq(pa_mtt_available("dmem"), 0);
    /* No strategy of the backend is probed: a copy from host to dmem has none. */
    float *host = pa_create(h);
    ck_assert_ptr_nonnull(host);
    char line[256];
    PA_CK_ERR(pa_copy_explain(d, h, line, sizeof line), PA_ERR_MTT);
    ck_assert_ptr_null(pa__strategy_named("cuda_dma"));
    /* Streams: only the default one. */
    PA_CK_OK(pa_copy_async(h, host, h, host, NULL));
    PA_CK_ERR(pa_copy_async(h, host, h, host, (void *)host), PA_ERR_NODEV);
    ck_assert_msg(strstr(pa_last_error(), pa_test_built("cuda") ? "switched off" : "no CUDA backend"), "%s",
                  pa_last_error());
    /* The core reaches the backend's devices and compiler only through the backend list (pointer_device and
     * compile): a dmem tensor's export and the tiles' compiler say why there is none. */
    float buf[64];
    DLManagedTensor *tensor = NULL;
    PA_CK_ERR(pa_dlpack_export(d, buf, &tensor), PA_ERR_NODEV);
    ck_assert_ptr_null(tensor);
    ck_assert_msg(strstr(pa_last_error(), "pa_dlpack_export") &&
                      strstr(pa_last_error(), pa_test_built("cuda") ? "switched off" : "no CUDA backend"),
                  "%s", pa_last_error());
    pa_tilegen *g = NULL;
    PA_CK_OK(pa_tilegen_create(&g));
    PA_CK_ERR(pa_tilegen_compile(g, "k", "extern \"C\" __global__ void k() {}", 90), PA_ERR_NODEV);
    ck_assert_msg(strstr(pa_last_error(), "pa_tilegen_compile"), "%s", pa_last_error());
    if (pa_test_built("cuda"))
        ck_assert_msg(strstr(pa_last_error(), "switched off (PA_BACKENDS)"), "%s", pa_last_error());
    pa_tilegen_destroy(g);
    /* The backend's own calls say so too, without touching a driver. */
    PA_CK_ERR(pa_cuda_device_count(), PA_ERR_NODEV);
    if (pa_test_built("cuda"))
        ck_assert_msg(strstr(pa_last_error(), "switched off (PA_BACKENDS)"), "%s", pa_last_error());
    PA_CK_OK(pa_destroy(h, host));
}
END_TEST

/*
 * The same questions with the CUDA backend on (main adds this test instead of test_cuda_off then): the names and
 * strategies are there, dmem is available exactly when a GPU is usable, the print says why not when none is, a
 * host copy on the default stream waits for nothing and succeeds whether or not a GPU is there.
 */
START_TEST(test_cuda_on)
{
    ck_assert_ptr_nonnull(pa__strategy_named("cuda_dma"));
    int gpu = pa_cuda_device_count() > 0;
    ck_assert_int_eq(pa_mtt_available("dmem"), gpu);
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    ck_assert_ptr_nonnull(f);
    PA_CK_OK(pa_backends_print(f));
    fclose(f);
    ck_assert_msg(strstr(text, gpu ? "cuda     on  " : "cuda     on, unusable here") != NULL, "%s", text);
    free(text);
    PA_CK_OK(pa_declare(scope, "H", "paged float [64]"));
    const pa_type *h = pa_type_get(scope, "H");
    float *a = pa_create(h), *b = pa_create(h);
    ck_assert(a && b);
    for (int i = 0; i < 64; i++)
        a[i] = (float)i, b[i] = -1.0f;
    PA_CK_OK(pa_copy_async(h, b, h, a, NULL));
    for (int i = 0; i < 64; i++)
        ck_assert(b[i] == (float)i);
    PA_CK_OK(pa_destroy(h, a));
    PA_CK_OK(pa_destroy(h, b));
}
END_TEST

/* The planner's choice for each pattern, each expected strategy found by its name in the backends' lists. */
static void expect(const char *dst, const char *src, const char *name)
{
    char decl[256];
    snprintf(decl, sizeof decl, "%s", dst);
    PA_CK_OK(pa_declare(scope, "X", decl));
    PA_CK_OK(pa_declare(scope, "Y", src));
    const pa__layout *dl = pa__type_layout(pa_type_get(scope, "X")), *sl = pa__type_layout(pa_type_get(scope, "Y"));
    ck_assert(dl && sl);
    const pa__strategy *want = pa__strategy_named(name);
    ck_assert_msg(want != NULL, "no strategy is called %s", name);
    pa__plan *p;
    PA_CK_OK(pa__plan_get(dl, sl, 4, NULL, NULL, &p));
    ck_assert_msg(p->strategy == want, "%s <- %s: chose %s, expected %s", dst, src, p->strategy->name, name);
    pa__plan_unref(p);
    pa_scope_destroy(scope);
    PA_CK_OK(pa_scope_create(NULL, &scope));
}

START_TEST(test_choice_by_name)
{
    expect("float [4096]", "float [4096]", "memcpy");
    expect("float [[80][80]]", "float [[80 # disp(10) # [100]][80 # disp(10) # [100]]]", "memcpy_runs");
    expect("float [[256][256]]", "float [[#X_1][#X_0]]", "transpose");
    expect("float [2000]", "float [2000 # step(-1) # disp(1999) # [2000]]", "reverse");
    expect("float [[64][3]]", "float [[64 # [100]][3]]", "loops");
    ck_assert_ptr_null(pa__strategy_named("no_such_strategy"));
}
END_TEST

int main(void)
{
    Suite *s = suite_create("core_backends");
    TCase *tc = tcase_create("backends");
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_add_test(tc, test_list);
    tcase_add_test(tc, test_print);
    /* One of the two, as the build and the environment have the CUDA backend: neither passes without asserting. */
    if (pa_test_built("cuda") && !cuda_switched_off())
        tcase_add_test(tc, test_cuda_on);
    else
        tcase_add_test(tc, test_cuda_off);
    tcase_add_test(tc, test_choice_by_name);
    suite_add_tcase(s, tc);
    return pa_test_run(s);
}
