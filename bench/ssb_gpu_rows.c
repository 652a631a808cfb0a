/*
 * bench/ssb's GPU rows (target P8): the 13 queries with the data resident on the GPU.  Per query: the median of
 * the GPU times over the runs (CUDA events around everything the query queues: hash-table fills and builds, the
 * group table's clear and the lineorder kernel), the bytes of lineorder columns it reads, the floor and our
 * fraction of it (floor / time) against the target (q1.x >= 0.90, joins >= 0.50), and whether the GPU's result
 * equals the CPU reference's.
 *
 * The floor is measured in the same run on the same GPU: the median time of a plain kernel reading as many
 * bytes of device memory (ssb_read.cu), not a bandwidth taken from a data sheet.
 *
 * A query's launches (up to ten kernels) are also captured once into a CUDA graph (stream capture around
 * pa_ssb_gpu_launch) and timed as one graph launch: the same kernels without the host's launch gaps.  Both
 * times are printed; the fraction of the floor uses the graph's ("gpu ms"), the plain stream's is "stream ms".
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpu_bench.h"
#include "ssb_bench.h"

int ssb_bench_gpu(const pa_ssb_db *db, const ssb_bench_opts *o)
{
    int runs = o->runs, bad = 0, misses = 0, graph_note = 0;
    cudaEvent_t ev0, ev1;
    int st = gpu_bench_start("ssb (gpu rows)", runs, &ev0, &ev1);
    if (st)
        return st;
    cudaStream_t stream;
    CK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
    pa_ssb_gpu *gpu = NULL;
    double t0 = ssb_bench_now_ms();
    PK(pa_ssb_gpu_create(db, &gpu));
    const char *tile = getenv("PA_SSB_TILE");
    double probe = ssb_bench_gpu_read_ms((size_t)pa_ssb_fact_bytes(db, 12), runs);
    if (probe <= 0) {
        fprintf(stderr, "ssb: the read kernel failed\n");
        return 1;
    }
    printf("GPU: to the GPU and compiled in %.0f ms; tiles %s; the device read %.1f MB in %.4f ms (%.0f GB/s)\n",
           ssb_bench_now_ms() - t0, tile && *tile ? tile : "128x4", pa_ssb_fact_bytes(db, 12) / 1e6, probe,
           pa_ssb_fact_bytes(db, 12) / probe / 1e6);
    printf("floor = a kernel reading the query's bytes on this GPU, this run; target q1.x >= 0.90 of the floor, "
           "joins >= 0.50\n\n");
    printf("%-6s %10s %10s %8s %10s %10s %8s %6s %6s %s\n", "query", "MB read", "floor ms", "GB/s", "gpu ms",
           "stream ms", "of floor", "target", "", "result");
    double *t = malloc((size_t)runs * sizeof *t), *ts = malloc((size_t)runs * sizeof *ts);
    for (int q = 0; q < PA_SSB_NQUERIES; q++) {
        pa_ssb_result rg = {0}, rc = {0};
        PK(pa_ssb_gpu_launch(gpu, q, stream));   /* warm: kernels loaded, caches touched */
        PK(pa_ssb_gpu_result(gpu, q, &rg));
        pa_ssb_result_destroy(&rg);
        for (int r = 0; r < runs; r++) {
            float ms;
            CK(cudaEventRecord(ev0, stream));
            PK(pa_ssb_gpu_launch(gpu, q, stream));
            CK(cudaEventRecord(ev1, stream));
            CK(cudaEventSynchronize(ev1));
            CK(cudaEventElapsedTime(&ms, ev0, ev1));
            ts[r] = ms;
        }
        cudaGraph_t graph = NULL;
        cudaGraphExec_t exec = NULL;
        int graph_ok = cudaStreamBeginCapture(stream, cudaStreamCaptureModeRelaxed) == cudaSuccess;
        if (graph_ok) {
            int launched = pa_ssb_gpu_launch(gpu, q, stream);
            graph_ok = cudaStreamEndCapture(stream, &graph) == cudaSuccess && launched == PA_OK &&
                       cudaGraphInstantiate(&exec, graph, 0) == cudaSuccess;
        }
        if (!graph_ok) {
            (void)cudaGetLastError();
            if (!graph_note++)
                printf("(no CUDA graph: %s; gpu ms are the stream's)\n", pa_last_error());
        }
        for (int r = 0; r < runs; r++) {
            float ms;
            if (!graph_ok) {
                t[r] = ts[r];
                continue;
            }
            CK(cudaEventRecord(ev0, stream));
            CK(cudaGraphLaunch(exec, stream));
            CK(cudaEventRecord(ev1, stream));
            CK(cudaEventSynchronize(ev1));
            CK(cudaEventElapsedTime(&ms, ev0, ev1));
            t[r] = ms;
        }
        if (exec)
            CK(cudaGraphExecDestroy(exec));
        if (graph)
            CK(cudaGraphDestroy(graph));
        PK(pa_ssb_gpu_result(gpu, q, &rg));
        double gms = ssb_bench_median(t, runs), sms = ssb_bench_median(ts, runs);
        PK(pa_ssb_run_cpu(db, q, o->threads, &rc));
        char why[256];
        int same = pa_ssb_result_equal(&rg, &rc, why, sizeof why);
        double bytes = (double)pa_ssb_fact_bytes(db, q), floor_ms = ssb_bench_gpu_read_ms((size_t)bytes, runs);
        double frac = floor_ms / gms, target = q < 3 ? 0.90 : 0.50;
        misses += frac < target;
        bad += !same;
        printf("%-6s %10.1f %10.4f %8.0f %10.4f %10.4f %8.3f %6.2f %6s %s%s\n", pa_ssb_query_name(q), bytes / 1e6,
               floor_ms, bytes / floor_ms / 1e6, gms, sms, frac, target, frac >= target ? "pass" : "FAIL",
               same ? "= cpu" : "DIFFERS: ", same ? "" : why);
        if (o->csv)
            fprintf(o->csv, "gpu,%s,%g,,%.1f,%.4f,%.4f,%.4f,%.3f,%.2f,,,%s\n", pa_ssb_query_name(q), o->sf,
                    bytes / 1e6, floor_ms, gms, sms, frac, target, same ? "equal" : "differs");
        pa_ssb_result_destroy(&rg);
        pa_ssb_result_destroy(&rc);
    }
    printf("\n%d of %d queries meet their target; %d results differ from the CPU's\n\n", PA_SSB_NQUERIES - misses,
           PA_SSB_NQUERIES, bad);
    free(t);
    free(ts);
    pa_ssb_gpu_destroy(gpu);
    cudaStreamDestroy(stream);
    return bad ? 1 : 0;
}
