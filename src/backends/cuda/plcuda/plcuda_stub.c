/*
 * parray — the PL/CUDA calls that need the CUDA backend, in a build without it.  Registration and
 * pa_kernel_source work in every build (plcuda_kernel.c); these say clearly that nothing can be compiled or run.
 */
#include "internal.h"
#include "plcuda.h"

static int no_cuda(const char *call, const pa_kernel *k)
{
    return pa__err(PA_ERR_NODEV, "%s(%s): this build of parray has no CUDA backend (configure with -Dcuda=enabled "
                                 "where nvcc is installed)", call, k ? k->name : "NULL");
}

int pa_kernel_compile(pa_kernel *k, int arch)
{
    (void)arch;
    return no_cuda("pa_kernel_compile", k);
}

int pa_kernel_call(pa_kernel *k, const pa_arg *args, int nargs, void *ret)
{
    (void)args, (void)nargs, (void)ret;
    return no_cuda("pa_kernel_call", k);
}

int pa_kernel_explain(pa_kernel *k, const pa_arg *args, int nargs, char *buf, size_t len)
{
    (void)args, (void)nargs, (void)buf, (void)len;
    return no_cuda("pa_kernel_explain", k);
}
