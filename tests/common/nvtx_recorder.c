/* The NVTX recorder of nvtx_recorder.h: a statically linked NVTX tool. */
#define NVTX_NO_IMPL   /* a tool: the types and ids, not the implementation */
#include <nvtx3/nvToolsExt.h>
#include <stdio.h>
#include <time.h>

#include "nvtx_recorder.h"

enum { MAX_DEPTH = 64 };

pa_test_range pa_test_ranges[PA_TEST_MAX_RANGES];
int pa_test_nranges, pa_test_range_depth;
static int open_stack[MAX_DEPTH];
static double t0;

static double now_us(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e6 + ts.tv_nsec / 1e3;
}

void pa_test_ranges_reset(void)
{
    pa_test_nranges = 0;
    t0 = now_us();
}

const char *pa_test_range_category(uint32_t category)
{
    static const char *const names[] = {"?", "pa_copy", "pa_cuda_for", "pa_cuda_map", "pa_kernel_call"};
    return category < sizeof names / sizeof names[0] ? names[category] : "?";
}

static int NVTX_API on_push(nvtxDomainHandle_t domain, const nvtxEventAttributes_t *a)
{
    (void)domain;
    if (pa_test_nranges < PA_TEST_MAX_RANGES && pa_test_range_depth < MAX_DEPTH) {
        pa_test_range *r = &pa_test_ranges[pa_test_nranges];
        r->depth = pa_test_range_depth;
        r->category = a->category;
        snprintf(r->message, sizeof r->message, "%s",
                 a->messageType == NVTX_MESSAGE_TYPE_ASCII && a->message.ascii ? a->message.ascii : "?");
        r->start = now_us() - t0;
        r->end = -1;
        open_stack[pa_test_range_depth] = pa_test_nranges++;
    }
    return ++pa_test_range_depth;
}

static int NVTX_API on_pop(nvtxDomainHandle_t domain)
{
    (void)domain;
    if (pa_test_range_depth > 0 && pa_test_range_depth <= MAX_DEPTH)
        pa_test_ranges[open_stack[pa_test_range_depth - 1]].end = now_us() - t0;
    return pa_test_range_depth--;
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
