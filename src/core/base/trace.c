/* parray — NVTX ranges (trace.h): compiled only where NVTX is built in. */
#include <pthread.h>

#include <nvtx3/nvToolsExt.h>

#include "trace.h"

static nvtxDomainHandle_t domain;
static pthread_once_t once = PTHREAD_ONCE_INIT;

static void init(void)
{
    domain = nvtxDomainCreateA("parray");
    nvtxDomainNameCategoryA(domain, PA__TRACE_COPY, "pa_copy");
    nvtxDomainNameCategoryA(domain, PA__TRACE_CUDA_FOR, "pa_cuda_for");
    nvtxDomainNameCategoryA(domain, PA__TRACE_CUDA_MAP, "pa_cuda_map");
    nvtxDomainNameCategoryA(domain, PA__TRACE_KERNEL, "pa_kernel_call");
}

void pa__trace_push(int cat, const char *name)
{
    nvtxEventAttributes_t a = {0};
    pthread_once(&once, init);
    a.version = NVTX_VERSION;
    a.size = NVTX_EVENT_ATTRIB_STRUCT_SIZE;
    a.category = (uint32_t)cat;
    a.messageType = NVTX_MESSAGE_TYPE_ASCII;
    a.message.ascii = name;
    nvtxDomainRangePushEx(domain, &a);
}

void pa__trace_pop(void)
{
    nvtxDomainRangePop(domain);
}
