/* parray — the CUDA backend's NVTX ranges (its trace hooks, backends.h): domain "parray", one category per kind of
 * call, the message the copy's strategy or the kernel's name.  Compiled where the toolkit has NVTX3 (meson option
 * nvtx, auto); trace_none.c otherwise. */
#include <pthread.h>

#include <nvtx3/nvToolsExt.h>

#include "cuda_backend.h"

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

static void push(int cat, const char *name)
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

static void pop(void)
{
    nvtxDomainRangePop(domain);
}

const pa__trace_ops pa__cuda_trace = {push, pop};
