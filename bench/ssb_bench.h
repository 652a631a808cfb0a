/* bench/ssb's parts: the CPU rows (ssb.c, always built) and the GPU rows (ssb_gpu_rows.c, CUDA builds only). */
#ifndef PARRAY_SSB_BENCH_H
#define PARRAY_SSB_BENCH_H

#include <stdio.h>
#include <stdlib.h>

#include "parray/parray.h"
#include "parray/ssb.h"

/* A library call that must succeed: on failure its text and the library's message, then exit 1. */
#define OK(x)                                                                                                  \
    do {                                                                                                       \
        if ((x) != PA_OK) {                                                                                    \
            fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #x, pa_last_error());                     \
            exit(1);                                                                                           \
        }                                                                                                      \
    } while (0)

/* The options both parts read. */
typedef struct ssb_bench_opts {
    double sf;
    unsigned long long seed;
    int runs, cpu_runs, ref_runs, threads;
    FILE *csv;                  /* rows as comma-separated values, or NULL */
    int stream;                 /* --stream: the streaming rows (ssb_stream_rows.c) */
    long long chunk_rows;       /* --chunk: rows per streamed chunk (0: the engine's default) */
    int streams;                /* --streams (0: the engine's default) */
    int gpus;                   /* --gpus N: the multi-GPU rows over N GPUs (0: every GPU where there are several) */
} ssb_bench_opts;

/* The median of v[0 .. n) (sorts v). */
double ssb_bench_median(double *v, int n);
double ssb_bench_now_ms(void);

/* The lineorder columns query q reads (names; *n their count). */
const char *const *ssb_bench_fact_columns(int q, int *n);

/*
 * The GPU rows: per query the GPU's median time, its floor (the same bytes read by a plain kernel on the same
 * GPU in the same run) and the tile engine's result as the check.  \return 0 when every result matched, 1 when
 * one differed, 77 without a GPU (nothing printed but the reason).
 */
int ssb_bench_gpu(const pa_ssb_db *db, const ssb_bench_opts *o);

/* The streaming rows and the multi-GPU rows (ssb_stream_rows.c): \return as ssb_bench_gpu. */
int ssb_bench_stream(const pa_ssb_db *db, const ssb_bench_opts *o);
int ssb_bench_multi(const pa_ssb_db *db, const ssb_bench_opts *o);

/* The device's time to read `bytes` bytes of its memory once (a reduction kernel; median of runs), in ms;
 * negative when a CUDA call failed. */
double ssb_bench_gpu_read_ms(size_t bytes, int runs);

#endif
