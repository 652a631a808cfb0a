/*
 * bench/ssb — target P8 (PERFORMANCE.md): the Star Schema Benchmark's 13 queries with the data resident on the
 * GPU.  Per query: the median of the GPU times over the runs (CUDA events around everything the query queues:
 * hash-table fills and builds, the group table's clear and the lineorder kernel), the bytes of lineorder
 * columns it reads, the floor (those bytes / 3.0 TB/s) and our fraction of it (floor / time), against the
 * target (q1.x >= 0.90, joins >= 0.50); then the CPU implementation's median time on the same machine, and
 * whether the GPU's result equals the CPU's.
 *
 *     ssb [-s SF] [-r RUNS] [-c CPU_RUNS] [--seed N] [--csv FILE]   defaults: scale factor 1, 21 runs, 3 CPU runs
 *
 * --csv writes the table's rows again to FILE as comma-separated values with one header line (scripts/plots.py
 * draws docs/performance.md's SSB plot from such a file).
 *
 * A query's launches (up to ten kernels) are also captured once into a CUDA graph (stream capture around
 * pa_ssb_gpu_launch) and timed as one graph launch: the same kernels without the host's launch gaps.  Both
 * times are printed; the fraction of the floor uses the graph's ("gpu ms"), the plain stream's is "stream ms".
 *
 * The data are generated in memory on every core (no disk).  Exit status 0 when every result matched (the
 * targets are reported, pass or fail, not enforced by the status), 1 otherwise, 77 without a GPU.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "gpu_bench.h"
#include <parray/ssb.h>

#define FLOOR_BW 3.0e12

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static double median(double *v, int n)
{
    qsort(v, (size_t)n, sizeof *v, cmp_double);
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

static double now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

int main(int argc, char **argv)
{
    double sf = 1;
    int runs = 21, cpu_runs = 3, bad = 0, misses = 0, graph_note = 0;
    unsigned long long seed = 42;
    const char *csv_path = NULL;
    for (int i = 1; i + 1 < argc; i += 2) {
        if (!strcmp(argv[i], "-s"))
            sf = atof(argv[i + 1]);
        else if (!strcmp(argv[i], "-r"))
            runs = atoi(argv[i + 1]);
        else if (!strcmp(argv[i], "-c"))
            cpu_runs = atoi(argv[i + 1]);
        else if (!strcmp(argv[i], "--seed"))
            seed = strtoull(argv[i + 1], NULL, 10);
        else if (!strcmp(argv[i], "--csv"))
            csv_path = argv[i + 1];
    }
    if (runs < 1 || runs > 1000 || cpu_runs < 0 || cpu_runs > 100 || !(sf > 0)) {
        fprintf(stderr, "usage: ssb [-s SF] [-r RUNS] [-c CPU_RUNS] [--seed N] [--csv FILE]\n");
        return 2;
    }
    cudaEvent_t ev0, ev1;
    int st = gpu_bench_start("ssb", runs, &ev0, &ev1);
    if (st)
        return st;
    FILE *csv = NULL;
    if (csv_path && !(csv = fopen(csv_path, "w"))) {
        perror(csv_path);
        return 2;
    }
    if (csv)
        fprintf(csv, "query,sf,mb_read,floor_ms,gpu_ms,stream_ms,of_floor,target,cpu_ms,result\n");
    cudaStream_t stream;
    CK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
    pa_ssb_db *db = NULL;
    pa_ssb_gpu *gpu = NULL;
    double t0 = now_ms();
    PK(pa_ssb_generate(sf, seed, 0, &db));
    double tgen = now_ms() - t0;
    t0 = now_ms();
    PK(pa_ssb_gpu_create(db, &gpu));
    const char *tile = getenv("PA_SSB_TILE");
    printf("P8 Star Schema Benchmark, scale factor %g (seed %llu): lineorder %lld rows, generated in %.0f ms on "
           "every core; to the GPU and compiled in %.0f ms; tiles %s\n", sf, seed,
           (long long)pa_ssb_rows(db, PA_SSB_LINEORDER), tgen, now_ms() - t0, tile && *tile ? tile : "128x4");
    printf("floor = lineorder bytes read / %.1f TB/s; target q1.x >= 0.90 of the floor, joins >= 0.50\n\n",
           FLOOR_BW / 1e12);
    printf("%-6s %10s %10s %10s %10s %8s %6s %6s %10s %8s %s\n", "query", "MB read", "floor ms", "gpu ms",
           "stream ms", "of floor", "target", "", "cpu ms", "cpu/gpu", "result");
    double *t = malloc((size_t)runs * sizeof *t), *ts = malloc((size_t)runs * sizeof *ts), *tc = malloc(((size_t)cpu_runs + 1) * sizeof *tc);
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
        double gms = median(t, runs), sms = median(ts, runs), cms = 0;
        for (int r = 0; r < cpu_runs; r++) {
            pa_ssb_result_destroy(&rc);
            t0 = now_ms();
            PK(pa_ssb_run_cpu(db, q, 0, &rc));
            tc[r] = now_ms() - t0;
        }
        if (cpu_runs == 0) {
            PK(pa_ssb_run_cpu(db, q, 0, &rc));
        } else {
            cms = median(tc, cpu_runs);
        }
        char why[256];
        int same = pa_ssb_result_equal(&rg, &rc, why, sizeof why);
        double bytes = (double)pa_ssb_fact_bytes(db, q), floor_ms = bytes / FLOOR_BW * 1e3;
        double frac = floor_ms / gms, target = q < 3 ? 0.90 : 0.50;
        misses += frac < target;
        bad += !same;
        printf("%-6s %10.1f %10.4f %10.4f %10.4f %8.3f %6.2f %6s %10.2f %8.1f %s%s\n", pa_ssb_query_name(q),
               bytes / 1e6, floor_ms, gms, sms, frac, target, frac >= target ? "pass" : "FAIL", cms, gms > 0 ? cms / gms : 0,
               same ? "= cpu" : "DIFFERS: ", same ? "" : why);
        if (csv)
            fprintf(csv, "%s,%g,%.1f,%.4f,%.4f,%.4f,%.3f,%.2f,%.2f,%s\n", pa_ssb_query_name(q), sf, bytes / 1e6,
                    floor_ms, gms, sms, frac, target, cms, same ? "equal" : "differs");
        pa_ssb_result_destroy(&rg);
        pa_ssb_result_destroy(&rc);
    }
    printf("\n%d of %d queries meet their target; %d results differ from the CPU's\n", PA_SSB_NQUERIES - misses,
           PA_SSB_NQUERIES, bad);
    if (csv && fclose(csv) != 0)
        perror(csv_path), bad++;
    free(t);
    free(ts);
    free(tc);
    pa_ssb_gpu_destroy(gpu);
    pa_ssb_destroy(db);
    cudaStreamDestroy(stream);
    return bad ? 1 : 0;
}
