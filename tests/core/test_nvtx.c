/*
 * NVTX ranges (src/core/trace.h) without Nsight Systems: this program is its own NVTX tool.  NVTX3 looks for a
 * statically linked injection through the symbol InitializeInjectionNvtx2_fnptr, which is defined here; its
 * initialiser subscribes to the range callbacks and records every range the library opens (domain, category,
 * message) and closes.  Host copies are traced without a GPU, so this runs in CI: each pa_copy opens one range of
 * category pa_copy named with the strategy its plan chose (the same name pa_copy_explain prints), or "walk", or
 * "through a temporary (overlap)", and closes it.  Built only where NVTX is built in.
 */
#define NVTX_NO_IMPL   /* a tool: the types and ids, not the implementation */
#include <nvtx3/nvToolsExt.h>
#include <string.h>

#include "testutil.h"

enum { MAX_EVENTS = 64 };
static struct { int push; uint32_t category; char message[96]; } events[MAX_EVENTS];
static int nevents, depth;

static int NVTX_API on_push(nvtxDomainHandle_t domain, const nvtxEventAttributes_t *a)
{
    (void)domain;
    if (nevents < MAX_EVENTS) {
        events[nevents].push = 1;
        events[nevents].category = a->category;
        snprintf(events[nevents].message, sizeof events[nevents].message, "%s",
                 a->messageType == NVTX_MESSAGE_TYPE_ASCII && a->message.ascii ? a->message.ascii : "?");
        nevents++;
    }
    return ++depth;
}

static int NVTX_API on_pop(nvtxDomainHandle_t domain)
{
    (void)domain;
    if (nevents < MAX_EVENTS)
        events[nevents++].push = 0;
    return depth--;
}

static int NVTX_API init_injection(NvtxGetExportTableFunc_t get)
{
    const NvtxExportTableCallbacks *cb = get(NVTX_ETID_CALLBACKS);
    NvtxFunctionTable table = NULL;
    unsigned int size = 0;
    if (!cb || !cb->GetModuleFunctionTable(NVTX_CB_MODULE_CORE2, &table, &size) ||
        size <= NVTX_CBID_CORE2_DomainRangePop)
        return 0;
    *table[NVTX_CBID_CORE2_DomainRangePushEx] = (NvtxFunctionPointer)on_push;
    *table[NVTX_CBID_CORE2_DomainRangePop] = (NvtxFunctionPointer)on_pop;
    return 1;
}

/* NVTX3's hook for a statically linked tool (nvtxDetail/nvtxInit.h). */
NvtxInitializeInjectionNvtxFunc_t InitializeInjectionNvtx2_fnptr = init_injection;

/* The strategy pa_copy_explain names: "copy ... strategy=NAME ...". */
static void strategy_of(const pa_type *dt, const pa_type *st, char *out, size_t len)
{
    char line[512];
    ck_assert_int_ge(pa_copy_explain(dt, st, line, sizeof line), 0);
    const char *p = strstr(line, "strategy=");
    ck_assert_ptr_nonnull(p);
    p += 9;
    size_t n = strcspn(p, " ");
    snprintf(out, len, "%.*s", (int)(n < len ? n : len - 1), p);
}

START_TEST(test_copy_ranges)
{
    pa_scope *s;
    float a[64], b[64];
    char want[64];
    PA_CK_OK(pa_scope_create(NULL, &s));
    PA_CK_OK(pa_declare(s, "A", "paged float [8][8]"));
    PA_CK_OK(pa_declare(s, "T", "paged float [[#A_1][#A_0]]"));
    const pa_type *A = pa_type_get(s, "A"), *T = pa_type_get(s, "T");
    for (int i = 0; i < 64; i++)
        a[i] = (float)i;
    nevents = 0;
    PA_CK_OK(pa_copy(A, b, A, a));
    PA_CK_OK(pa_copy(T, b, A, a));
    PA_CK_OK(pa_copy(T, a, A, a));   /* in place: through a temporary */
    ck_assert_int_eq(nevents, 6);
    for (int i = 0; i < 6; i++)
        ck_assert_int_eq(events[i].push, i % 2 == 0);
    for (int i = 0; i < 6; i += 2) {
        printf("range %d: category %u (pa_copy), \"%s\"\n", i / 2, events[i].category, events[i].message);
        ck_assert_uint_eq(events[i].category, 1);
    }
    strategy_of(A, A, want, sizeof want);
    ck_assert_str_eq(events[0].message, want);
    strategy_of(T, A, want, sizeof want);
    ck_assert_str_eq(events[2].message, want);
    ck_assert_str_eq(events[4].message, "through a temporary (overlap)");
    ck_assert_int_eq(depth, 0);
    /* A failed copy opens no range. */
    nevents = 0;
    PA_CK_ERR(pa_copy(A, b, pa_type_parse(s, "paged float [63]"), a), PA_ERR_SIZE);
    ck_assert_int_eq(nevents, 0);
    pa_scope_destroy(s);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("nvtx");
    TCase *tc = tcase_create("nvtx");
    tcase_add_test(tc, test_copy_ranges);
    suite_add_tcase(s, tc);
    return pa_test_run(s);
}
