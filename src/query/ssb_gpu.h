/*
 * parray — SSB on the GPU: the state shared by its setup (ssb_gpu.c) and its launches (ssb_gpu_run.c).
 */
#ifndef PARRAY_SSB_GPU_H
#define PARRAY_SSB_GPU_H

#include "parray/query/block.h"
#include "ssb_internal.h"

enum { PA__SSB_K_FILL, PA__SSB_K_BUILD, PA__SSB_K_Q1, PA__SSB_K_Q2, PA__SSB_K_Q3, PA__SSB_K_Q4, PA__SSB_NK };

typedef struct pa__ssb_dbuf {
    void *ptr;
    const pa_type *type;
} pa__ssb_dbuf;

struct pa_ssb_gpu {
    const pa_ssb_db *db;
    pa_scope *scope;
    pa__ssb_dbuf col[PA__SSB_NCOLS];        /* dmem copies of the columns the queries read (others NULL) */
    pa__ssb_dbuf ht[PA__SSB_NDIMS];         /* each dimension's hash table */
    pa_qb_ht hts[PA__SSB_NDIMS];
    int64_t ht_ints[PA__SSB_NDIMS];
    pa__ssb_dbuf groups;                    /* the dense group table (64-bit sums) */
    int64_t gslots;
    int bt, ipt;                            /* the tile shape the kernels were compiled for */
    char source[160];                       /* their source (pa_ssb_gpu_source, or $PA_SSB_TILE's shape) */
    pa_cuda_function fn[PA__SSB_NK];
    pa_dthreads fact, fill, build[PA__SSB_NDIMS];
    pa__ssb_plan plan[PA_SSB_NQUERIES];
    void *stream[PA_SSB_NQUERIES];
    int launched[PA_SSB_NQUERIES];
};

#endif
