/*
 * parray ssb run — every query on the CPU and/or the GPU, each result printed with its time, and the GPU's
 * results checked against the CPU's (the reference).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <parray/parray.h>
#include <parray/cuda.h>
#include <parray/ssb.h>

#include "ssb_tool.h"

static double now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

int pa_tool_ssb_run(const char *dir, double sf, unsigned long long seed, int threads, int mode, int quiet,
                    const int *queries, int nq)
{
    pa_ssb_db *db = NULL;
    pa_ssb_gpu *gpu = NULL;
    int status = 0, cpu = mode != 2, use_gpu = mode == 2 || mode == 3;
    double t0 = now_ms();
    if (dir ? pa_ssb_read(dir, &db) : pa_ssb_generate(sf, seed, threads, &db)) {
        fprintf(stderr, "parray ssb: %s: %s\n", dir ? dir : "generate", pa_last_error());
        return 3;
    }
    fprintf(stderr, "%s scale factor %g: %lld lineorder rows in %.0f ms\n", dir ? "read" : "generated",
            pa_ssb_scale(db), (long long)pa_ssb_rows(db, PA_SSB_LINEORDER), now_ms() - t0);
    if (mode == 0)
        use_gpu = pa_cuda_device_count() > 0;
    if (use_gpu) {
        t0 = now_ms();
        if (pa_ssb_gpu_create(db, &gpu) != PA_OK) {
            fprintf(stderr, "parray ssb: the GPU: %s\n", pa_last_error());
            status = 3;
            goto done;
        }
        fprintf(stderr, "copied the columns to the GPU in %.0f ms\n", now_ms() - t0);
    }
    for (int i = 0; i < nq && status != 3; i++) {
        int q = queries[i];
        pa_ssb_result rc = {0}, rg = {0};
        double tc = 0, tg = 0;
        char why[256] = "";
        if (cpu) {
            t0 = now_ms();
            if (pa_ssb_run_cpu(db, q, threads, &rc) != PA_OK) {
                fprintf(stderr, "parray ssb: %s on the CPU: %s\n", pa_ssb_query_name(q), pa_last_error());
                status = 3;
                break;
            }
            tc = now_ms() - t0;
        }
        if (gpu) {
            /* The first run compiles the kernels (NVRTC, cached); the time is the second run's. */
            if (pa_ssb_gpu_run(gpu, q, &rg, NULL) != PA_OK || (pa_ssb_result_destroy(&rg), 0) ||
                pa_ssb_gpu_run(gpu, q, &rg, &tg) != PA_OK) {
                fprintf(stderr, "parray ssb: %s on the GPU: %s\n", pa_ssb_query_name(q), pa_last_error());
                pa_ssb_result_destroy(&rc);
                status = 3;
                break;
            }
        }
        printf("== %s: %lld rows", pa_ssb_query_name(q), (long long)(cpu ? rc.nrows : rg.nrows));
        if (cpu)
            printf(", cpu %.2f ms", tc);
        if (gpu)
            printf(", gpu %.3f ms", tg);
        if (cpu && gpu) {
            int same = pa_ssb_result_equal(&rg, &rc, why, sizeof why);
            printf(", gpu %s", same ? "matches the cpu" : "DIFFERS from the cpu: ");
            if (!same) {
                printf("%s", why);
                status = 1;
            }
        }
        printf("\n");
        if (!quiet)
            pa_ssb_result_print(db, cpu ? &rc : &rg, stdout);
        pa_ssb_result_destroy(&rc);
        pa_ssb_result_destroy(&rg);
    }
done:
    pa_ssb_gpu_destroy(gpu);
    pa_ssb_destroy(db);
    return status;
}
