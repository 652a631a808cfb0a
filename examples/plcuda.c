/*
 * The PL/CUDA chapter's example as a C program: gpu_add(int, int) registered from source, its generated kernel
 * printed (plcuda_function_source), compiled for sm_90 (no GPU needed), and called on the GPU when there is
 * one: gpu_add(100, 200) = 300.
 */
#include <stdio.h>

#include <parray/parray.h>
#include <parray/kernel.h>

static const char *source =
    "#plcuda_include \"cuda_mathlib.h\"\n"
    "#plcuda_begin\n"
    "  if (get_global_id() == 0)\n"
    "    *retval = pgfn_int4pl(kcxt, arg1, arg2);\n"
    "#plcuda_end\n";

int main(void)
{
    pa_kernel *k;
    int a = 100, b = 200, sum = 0, st;
    if ((st = pa_kernel_create("gpu_add", "int (int, int)", source, NULL, 0, &k)) != PA_OK) {
        fprintf(stderr, "%s\n", pa_last_error());
        return 1;
    }
    printf("%s\n", pa_kernel_source(k));
    st = pa_kernel_compile(k, 90);
    printf("compile for sm_90: %s\n", st == PA_OK ? "ok" : pa_last_error());
    pa_arg args[] = {PA_ARG(&a), PA_ARG(&b)};
    if ((st = pa_kernel_call(k, args, 2, &sum)) == PA_OK)
        printf("gpu_add(%d, %d) = %d\n", a, b, sum);
    else
        printf("gpu_add(%d, %d): %s\n", a, b, pa_last_error());
    pa_kernel_destroy(k);
    return 0;
}
