/*
 * parray ssb run — every query on the CPU and/or the GPU, each result printed with its time, and the GPU's
 * results checked against the CPU's.  The CPU runs the tile engine (pa_ssb_run_cpu_tiles, the default), the
 * reference (pa_ssb_run_cpu, --engine ref), or both (--engine both: the tile engine's result checked against
 * the reference's, both timed).  Only the columns the queries read are generated or read; the GPU engine's
 * setup comes from the PA_SSB_GPU_* variables (ssb.h: mode, memory limit, chunk, streams, GPUs) and is printed.
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

/* The CPU's run of q by the engine asked for: *ms its time. */
static int run_cpu(const pa_ssb_db *db, int q, int threads, int ref, pa_ssb_result *r, double *ms)
{
    double t0 = now_ms();
    int rc = ref ? pa_ssb_run_cpu(db, q, threads, r) : pa_ssb_run_cpu_tiles(db, q, threads, r);
    *ms = now_ms() - t0;
    if (rc != PA_OK)
        fprintf(stderr, "parray ssb: %s on the CPU (%s): %s\n", pa_ssb_query_name(q), ref ? "the reference" : "tiles",
                pa_last_error());
    return rc;
}

int pa_tool_ssb_run(const pa_tool_ssb_run_opts *o)
{
    const char *dir = o->dir;
    int threads = o->threads, mode = o->mode, quiet = o->quiet, nq = o->nq;
    const int *queries = o->queries;
    pa_ssb_db *db = NULL;
    pa_ssb_gpu *gpu = NULL;
    int status = 0, cpu = mode != 2, use_gpu = mode == 2 || mode == 3;
    double t0 = now_ms();
    /* Only the columns the queries read (lineorder's 9 of 17). */
    if (dir ? pa_ssb_read_with(dir, PA_SSB_QUERY_COLUMNS, &db)
            : pa_ssb_generate_with(o->sf, o->seed, threads, PA_SSB_QUERY_COLUMNS, &db)) {
        fprintf(stderr, "parray ssb: %s: %s\n", dir ? dir : "generate", pa_last_error());
        return 3;
    }
    pa_ssb_set_variant(db, (pa_ssb_variant)o->variant);
    fprintf(stderr, "%s scale factor %g: %lld lineorder rows in %.0f ms; the columns the queries read held, "
            "%.2f GB\n", dir ? "read" : "generated", pa_ssb_scale(db), (long long)pa_ssb_rows(db, PA_SSB_LINEORDER),
            now_ms() - t0, (double)pa_ssb_bytes(db) / 1e9);
    if (mode == 0)
        use_gpu = pa_cuda_device_count() > 0;
    if (use_gpu) {
        t0 = now_ms();
        if (pa_ssb_gpu_create(db, &gpu) != PA_OK) {
            fprintf(stderr, "parray ssb: the GPU: %s\n", pa_last_error());
            status = 3;
            goto done;
        }
        fprintf(stderr, "GPU set up in %.0f ms: %s\n", now_ms() - t0, pa_ssb_gpu_describe(gpu));
    }
    for (int i = 0; i < nq && status != 3; i++) {
        int q = queries[i];
        pa_ssb_result rc = {0}, rg = {0}, rr = {0};
        double tc = 0, tg = 0, tr = 0;
        char why[256] = "";
        if (cpu && (run_cpu(db, q, threads, o->engine == 1, &rc, &tc) != PA_OK ||
                    (o->engine == 2 && run_cpu(db, q, threads, 1, &rr, &tr) != PA_OK))) {
            pa_ssb_result_destroy(&rc);
            status = 3;
            break;
        }
        if (gpu) {
            /* The first run compiles the kernels (NVRTC, cached); the time is the second run's. */
            if (pa_ssb_gpu_run(gpu, q, &rg, NULL) != PA_OK || (pa_ssb_result_destroy(&rg), 0) ||
                pa_ssb_gpu_run(gpu, q, &rg, &tg) != PA_OK) {
                fprintf(stderr, "parray ssb: %s on the GPU: %s\n", pa_ssb_query_name(q), pa_last_error());
                pa_ssb_result_destroy(&rc);
                pa_ssb_result_destroy(&rr);
                status = 3;
                break;
            }
        }
        printf("== %s: %lld rows", pa_ssb_query_name(q), (long long)(cpu ? rc.nrows : rg.nrows));
        if (cpu)
            printf(", cpu %.2f ms", tc);
        if (cpu && o->engine == 2) {
            int same = pa_ssb_result_equal(&rc, &rr, why, sizeof why);
            printf(", ref %.2f ms, tiles %s", tr, same ? "match the ref" : "DIFFER from the ref: ");
            if (!same) {
                printf("%s", why);
                status = 1;
            }
        }
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
        pa_ssb_result_destroy(&rr);
    }
done:
    pa_ssb_gpu_destroy(gpu);
    pa_ssb_destroy(db);
    return status;
}
