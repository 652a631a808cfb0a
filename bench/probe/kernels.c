/*
 * bench/kernels — target P6: the cost of PL/CUDA functions.
 *
 *   cold compile       NVRTC compiling a function's generated source (empty disk cache), disk write included
 *   disk-cache hit     the same request after the memory cache is forgotten: file read and checks
 *   memory-cache hit   the same request again: a hash and a lookup
 *   warm call          pa_kernel_call of a registered gpu_add (1 thread): allocation, launch, status and result
 *                      back, on the per-thread stream
 *   raw launch         cuLaunchKernel of the same cubin's kernel with a preallocated control block, then the
 *                      4-byte result back and a stream synchronisation (the least a call can do), on a stream
 *                      of its own; each raw launch runs right after a warm call, and the overhead is the
 *                      median of the pairs' differences
 *
 * Medians of repeated runs, in microseconds (compiles in milliseconds).  Without a GPU the compile rows are
 * measured for sm_90 and the program exits 77 (skipped) after printing them.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "rtc_internal.h"
#include "parray/parray.h"
#include <parray/cuda.h>
#include <parray/kernel.h>
#include "bench_clock.h"

#define CHECK(expr)                                                                                    \
    do {                                                                                               \
        int st_ = (expr);                                                                              \
        if (st_ != PA_OK) {                                                                            \
            fprintf(stderr, "%s: %s\n", #expr, pa_last_error());                                      \
            exit(1);                                                                                   \
        }                                                                                              \
    } while (0)

static void compile_rows(pa_kernel *k, int arch)
{
    enum { R = 20 };
    double t[R], t0;
    t0 = now();
    CHECK(pa_kernel_compile(k, arch));
    printf("%-22s %10.1f ms\n", "cold compile", 1e3 * (now() - t0));
    for (int i = 0; i < R; i++) {
        pa_cuda__rtc_forget();
        t0 = now();
        CHECK(pa_kernel_compile(k, arch));
        t[i] = now() - t0;
    }
    printf("%-22s %10.1f us\n", "disk-cache hit", 1e6 * median(t, R));
    for (int i = 0; i < R; i++) {
        t0 = now();
        CHECK(pa_kernel_compile(k, arch));
        t[i] = now() - t0;
    }
    printf("%-22s %10.2f us\n", "memory-cache hit", 1e6 * median(t, R));
}

static void launch_rows(pa_kernel *k)
{
    enum { R = 2000 };
    static double tw[R], tr[R], td[R];
    int a = 100, b = 200, r = 0, rr = 0;
    pa_arg args[] = {PA_ARG(&a), PA_ARG(&b)};
    for (int i = 0; i < 50; i++)
        CHECK(pa_kernel_call(k, args, 2, &r));
    /* The same cubin's kernel, launched directly. */
    const pa_cuda__image *img;
    pa_cuda__rtc_kernel *kern;
    void *ctl, *clear = NULL, *work = NULL, *res = NULL;
    CHECK(pa_cuda__rtc_compile("bench_add", pa_kernel_source(k), NULL, 0, 0, &img));
    CHECK(pa_cuda__rtc_load(img, "plcuda_bench_add_main", &kern));
    if (cudaMalloc(&ctl, 256) != cudaSuccess || cudaMemset(ctl, 0, 256) != cudaSuccess) {
        fprintf(stderr, "cudaMalloc failed\n");
        exit(1);
    }
    void *params[] = {&ctl, &clear, &work, &res, &a, &b};
    dim3 one = {1, 1, 1};
    /* Its own stream: work a call leaves queued for the GPU's idle time (the clearing of its control block)
     * must not be charged to the anchor. */
    cudaStream_t rs;
    if (cudaStreamCreateWithFlags(&rs, cudaStreamNonBlocking) != cudaSuccess) {
        fprintf(stderr, "cudaStreamCreate failed\n");
        exit(1);
    }
    /* Interleaved, so that both see the same clocks and the same state of the machine. */
    for (int i = 0; i < R; i++) {
        double t0 = now();
        CHECK(pa_kernel_call(k, args, 2, &r));
        tw[i] = now() - t0;
        t0 = now();
        CHECK(pa_cuda__rtc_launch(kern, one, one, 0, rs, params));
        cudaMemcpyAsync(&rr, (char *)ctl + 16, sizeof rr, cudaMemcpyDeviceToHost, rs);
        cudaStreamSynchronize(rs);
        tr[i] = now() - t0;
        td[i] = tw[i] - tr[i];
    }
    if (r != 300)
        fprintf(stderr, "warning: gpu_add gave %d\n", r);
    /* The overhead is the median of the pairs' differences: each pair ran back to back, in the same state. */
    double w = median(tw, R), raw = median(tr, R), d = median(td, R);
    printf("%-22s %10.2f us\n", "warm call", 1e6 * w);
    printf("%-22s %10.2f us\n", "raw launch", 1e6 * raw);
    printf("%-22s %10.2f us   (median of the pairs' differences; target <= 2 us: %s)\n", "warm overhead", 1e6 * d,
           d <= 2e-6 ? "pass" : "FAIL");
    cudaStreamDestroy(rs);
    cudaFree(ctl);
}

int main(void)
{
    char dir[] = "/tmp/pa_bench_kernels.XXXXXX", src[512], cmd[128];
    pa_kernel *k;
    int gpu = pa_cuda_device_count() > 0;
    if (!mkdtemp(dir))
        return 1;
    setenv("PA_KERNEL_CACHE", dir, 1);
    /* A source no cache has seen: the cold compile is cold. */
    snprintf(src, sizeof src, "// run %ld.%d\n#plcuda_include \"math\"\n#plcuda_begin\n"
             "  if (get_global_id() == 0)\n    *retval = pa_add_int(kcxt, arg1, arg2);\n#plcuda_end\n",
             (long)time(NULL), (int)getpid());
    CHECK(pa_kernel_create("bench_add", "int (int, int)", src, NULL, 0, &k));
    printf("P6: PL/CUDA function costs (%s)\n", gpu ? "current GPU" : "no GPU: compiles for sm_90 only");
    printf("%-22s %13s\n", "what", "median");
    compile_rows(k, gpu ? 0 : 90);
    if (gpu)
        launch_rows(k);
    pa_kernel_destroy(k);
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    if (system(cmd) != 0)
        fprintf(stderr, "could not remove %s\n", dir);
    return gpu ? 0 : 77;
}
