/*
 * bench/ssb's rows beyond one GPU's memory and beyond one GPU (issue 31):
 *
 * Streaming (--stream): the engine in PA_SSB_GPU_STREAM mode, lineorder's columns in page-locked host memory
 * copied chunk by chunk while the kernels run.  Per query: the median time (CUDA events on the caller's stream
 * around everything the query queues, captured once into a CUDA graph as the GPU rows do: "gpu ms"; plain
 * launches: "stream ms"), the bytes of lineorder it reads, the
 * floor (those bytes at the pinned host-to-device rate measured in this run: copies of 1 GiB of cudaHostAlloc'd
 * memory on one stream, median of 5), our fraction of it (floor / time) against the target 0.80, and whether the
 * result equals the CPU tile engine's.
 *
 * Several GPUs (--gpus N, or every GPU where there are several): lineorder split over N GPUs, each holding the
 * dimensions; per query the one-GPU engine's time (the anchor, on GPU 0, in the mode it chooses), the N GPUs'
 * time, the speed-up and its target (0.8 x N: 3.2 on four GPUs), and the result against the CPU's.  Both are
 * timed as CUDA graphs (one capture of the query's launches on every GPU: the host's launch gaps, N times as many
 * with N GPUs, taken away) and as plain launches ("str ms").
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpu_bench.h"
#include "ssb_bench.h"

/* The pinned host-to-device rate in bytes per ms: the median of 5 copies of 1 GiB on one stream. */
static double pinned_rate(cudaStream_t st, cudaEvent_t e0, cudaEvent_t e1)
{
    size_t bytes = (size_t)1 << 30;
    void *h = NULL, *d = NULL;
    double t[5];
    CK(cudaHostAlloc(&h, bytes, cudaHostAllocDefault));
    CK(cudaMalloc(&d, bytes));
    memset(h, 1, bytes);
    CK(cudaMemcpyAsync(d, h, bytes, cudaMemcpyHostToDevice, st));   /* warm */
    for (int r = 0; r < 5; r++) {
        float ms;
        CK(cudaEventRecord(e0, st));
        CK(cudaMemcpyAsync(d, h, bytes, cudaMemcpyHostToDevice, st));
        CK(cudaEventRecord(e1, st));
        CK(cudaEventSynchronize(e1));
        CK(cudaEventElapsedTime(&ms, e0, e1));
        t[r] = ms;
    }
    CK(cudaFree(d));
    CK(cudaFreeHost(h));
    return (double)bytes / ssb_bench_median(t, 5);
}

/* The median of runs times of work on st between two events: the plain stream launch of q on g, or (exec not
 * NULL) the graph exec. */
static double time_runs(pa_ssb_gpu *g, int q, cudaGraphExec_t exec, int runs, cudaStream_t st, cudaEvent_t e0,
                        cudaEvent_t e1)
{
    double *t = malloc((size_t)runs * sizeof *t);
    if (!t)
        exit(1);
    for (int k = 0; k < runs; k++) {
        float ms;
        CK(cudaEventRecord(e0, st));
        if (exec)
            CK(cudaGraphLaunch(exec, st));
        else
            PK(pa_ssb_gpu_launch(g, q, st));
        CK(cudaEventRecord(e1, st));
        CK(cudaEventSynchronize(e1));
        CK(cudaEventElapsedTime(&ms, e0, e1));
        t[k] = ms;
    }
    double m = ssb_bench_median(t, runs);
    free(t);
    return m;
}

/*
 * Query q on engine g: the median time of plain launches on st (*stream_ms) and of the same launches captured
 * once into a CUDA graph (the return; the stream's where capture fails, said once): the graph takes the host's
 * launch gaps away, which with several GPUs or many chunks are many launches.  The result in *r.
 */
static double time_query(pa_ssb_gpu *g, int q, int runs, cudaStream_t st, cudaEvent_t e0, cudaEvent_t e1,
                         double *stream_ms, pa_ssb_result *r)
{
    static int noted;
    PK(pa_ssb_gpu_launch(g, q, st));   /* warm */
    PK(pa_ssb_gpu_result(g, q, r));
    pa_ssb_result_destroy(r);
    *stream_ms = time_runs(g, q, NULL, runs, st, e0, e1);
    cudaGraph_t graph = NULL;
    cudaGraphExec_t exec = NULL;
    int ok = cudaStreamBeginCapture(st, cudaStreamCaptureModeRelaxed) == cudaSuccess;
    if (ok) {
        int launched = pa_ssb_gpu_launch(g, q, st);
        ok = cudaStreamEndCapture(st, &graph) == cudaSuccess && launched == PA_OK &&
             cudaGraphInstantiate(&exec, graph, 0) == cudaSuccess;
    }
    if (!ok) {
        (void)cudaGetLastError();
        if (!noted++)
            printf("(no CUDA graph: %s; times are the stream's)\n", pa_last_error());
    }
    double ms = ok ? time_runs(g, q, exec, runs, st, e0, e1) : *stream_ms;
    if (exec)
        CK(cudaGraphExecDestroy(exec));
    if (graph)
        CK(cudaGraphDestroy(graph));
    PK(pa_ssb_gpu_result(g, q, r));
    return ms;
}

/* 1 when r equals the CPU tile engine's result for q (why set otherwise). */
static int same_as_cpu(const pa_ssb_db *db, int q, int threads, const pa_ssb_result *r, char *why, size_t len)
{
    pa_ssb_result c = {0};
    PK(pa_ssb_run_cpu_tiles(db, q, threads, &c));
    int same = pa_ssb_result_equal(r, &c, why, len);
    pa_ssb_result_destroy(&c);
    return same;
}

int ssb_bench_stream(const pa_ssb_db *db, const ssb_bench_opts *o)
{
    cudaEvent_t e0, e1;
    int st = gpu_bench_start("ssb (streaming rows)", o->runs, &e0, &e1), bad = 0, misses = 0;
    if (st)
        return st;
    cudaStream_t s;
    CK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    double rate = pinned_rate(s, e0, e1);
    pa_ssb_gpu_config c = {.mode = PA_SSB_GPU_STREAM, .chunk_rows = o->chunk_rows, .streams = o->streams};
    pa_ssb_gpu *g = NULL;
    double t0 = ssb_bench_now_ms();
    PK(pa_ssb_gpu_create_with(db, &c, &g));
    printf("GPU streaming: %s; set up in %.0f ms (page-locking the host columns included)\n", pa_ssb_gpu_describe(g),
           ssb_bench_now_ms() - t0);
    printf("floor = the query's lineorder bytes at the pinned host->device rate measured now, %.1f GB/s; "
           "target >= 0.80 of the floor\n\n", rate / 1e6);
    printf("%-6s %10s %10s %10s %10s %8s %6s %6s %s\n", "query", "MB read", "floor ms", "gpu ms", "stream ms",
           "of floor", "target", "", "result");
    for (int q = 0; q < PA_SSB_NQUERIES; q++) {
        pa_ssb_result r = {0};
        double sms, ms = time_query(g, q, o->runs, s, e0, e1, &sms, &r), bytes = (double)pa_ssb_fact_bytes(db, q);
        double floor_ms = bytes / rate, frac = floor_ms / ms;
        char why[256];
        int same = same_as_cpu(db, q, o->threads, &r, why, sizeof why);
        misses += frac < 0.80;
        bad += !same;
        printf("%-6s %10.1f %10.3f %10.3f %10.3f %8.3f %6.2f %6s %s%s\n", pa_ssb_query_name(q), bytes / 1e6,
               floor_ms, ms, sms, frac, 0.80, frac >= 0.80 ? "pass" : "FAIL", same ? "= cpu" : "DIFFERS: ",
               same ? "" : why);
        if (o->csv)
            fprintf(o->csv, "stream,%s,%g,,%.1f,%.4f,%.4f,%.4f,%.3f,0.80,,,%s\n", pa_ssb_query_name(q), o->sf,
                    bytes / 1e6, floor_ms, ms, sms, frac, same ? "equal" : "differs");
        pa_ssb_result_destroy(&r);
    }
    printf("\nstreaming: %d of %d queries meet the target; %d results differ from the CPU's\n\n",
           PA_SSB_NQUERIES - misses, PA_SSB_NQUERIES, bad);
    pa_ssb_gpu_destroy(g);
    CK(cudaStreamDestroy(s));
    CK(cudaEventDestroy(e0));
    CK(cudaEventDestroy(e1));
    return bad ? 1 : 0;
}

int ssb_bench_multi(const pa_ssb_db *db, const ssb_bench_opts *o)
{
    int count = pa_cuda_device_count(), n = o->gpus;
    if (count <= 0)
        return 77;
    if (n == 0 && count < 2) {
        printf("(no multi-GPU rows: one GPU; --gpus N splits over GPU 0 N times to check the split)\n\n");
        return 0;
    }
    n = n ? n : count;
    if (n > PA_SSB_GPU_MAX_DEVICES)
        n = PA_SSB_GPU_MAX_DEVICES;
    cudaEvent_t e0, e1;
    int st = gpu_bench_start("ssb (multi-GPU rows)", o->runs, &e0, &e1), bad = 0, misses = 0;
    if (st)
        return st;
    PK(pa_cuda_set_device(0));
    cudaStream_t s;
    CK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    pa_ssb_gpu_config one = {.chunk_rows = o->chunk_rows, .streams = o->streams};
    pa_ssb_gpu_config many = one;
    many.ndevices = n;
    for (int i = 0; i < n; i++)
        many.devices[i] = i < count ? i : i % count;
    pa_ssb_gpu *g1 = NULL, *gn = NULL;
    PK(pa_ssb_gpu_create_with(db, &one, &g1));
    PK(pa_ssb_gpu_create_with(db, &many, &gn));
    double target = 0.8 * n;
    printf("multi-GPU: anchor %s\n           ours   %s\ntarget: speed-up >= %.1f (0.8 x %d GPUs)%s\n\n",
           pa_ssb_gpu_describe(g1), pa_ssb_gpu_describe(gn), target, n,
           n > count ? " (GPUs listed more than once: the split is checked, the speed-up is not meaningful)" : "");
    printf("%-6s %10s %10s %8s %6s %6s %12s %12s %s\n", "query", "1 GPU ms", "ours ms", "speed-up", "target", "",
           "1 GPU str ms", "ours str ms", "result");
    for (int q = 0; q < PA_SSB_NQUERIES; q++) {
        pa_ssb_result r1 = {0}, rn = {0};
        double as, bs, a = time_query(g1, q, o->runs, s, e0, e1, &as, &r1);
        double b = time_query(gn, q, o->runs, s, e0, e1, &bs, &rn);
        char why[256];
        int same = same_as_cpu(db, q, o->threads, &rn, why, sizeof why) &&
                   same_as_cpu(db, q, o->threads, &r1, why, sizeof why);
        double up = a / b;
        misses += up < target;
        bad += !same;
        printf("%-6s %10.3f %10.3f %8.2f %6.1f %6s %12.3f %12.3f %s%s\n", pa_ssb_query_name(q), a, b, up, target,
               up >= target ? "pass" : "FAIL", as, bs, same ? "= cpu" : "DIFFERS: ", same ? "" : why);
        if (o->csv)
            fprintf(o->csv, "multi%d,%s,%g,,,%.4f,%.4f,%.4f,%.3f,%.1f,,,%s\n", n, pa_ssb_query_name(q), o->sf, a, b, bs,
                    up, target, same ? "equal" : "differs");
        pa_ssb_result_destroy(&r1);
        pa_ssb_result_destroy(&rn);
    }
    printf("\nmulti-GPU: %d of %d queries meet the target; %d results differ from the CPU's\n\n",
           PA_SSB_NQUERIES - misses, PA_SSB_NQUERIES, bad);
    pa_ssb_gpu_destroy(gn);
    pa_ssb_gpu_destroy(g1);
    CK(cudaStreamDestroy(s));
    CK(cudaEventDestroy(e0));
    CK(cudaEventDestroy(e1));
    return bad ? 1 : 0;
}
