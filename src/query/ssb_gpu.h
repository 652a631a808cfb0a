/*
 * parray — SSB on the GPU: the state shared by its setup (ssb_gpu.c) and its launches (ssb_gpu_run.c).
 *
 * An engine is one or more parts, each a GPU (the same GPU may hold several) and a contiguous range of lineorder
 * rows with its own copy of the dimension tables, hash tables, group table and kernels.  In the resident mode a
 * part holds its rows' fact columns in dmem; in the streaming mode they stay in (page-locked) host memory and a
 * query copies them chunk by chunk into the part's buffers, one buffer per stream, each chunk's copies and kernel
 * queued on the same stream (so a buffer is reused only after its last kernel), the streams taken in turn so that
 * one chunk's copy overlaps another's kernel.  Each part's group table holds its partial sums; the result adds
 * them on the host.
 */
#ifndef PARRAY_SSB_GPU_H
#define PARRAY_SSB_GPU_H

#include "backends.h"
#include "parray/query/block.h"
#include "ssb_internal.h"

enum { PA__SSB_K_FILL, PA__SSB_K_BUILD, PA__SSB_K_Q1, PA__SSB_K_Q2, PA__SSB_K_Q3, PA__SSB_K_Q4, PA__SSB_NK };

/* The most streams of a part, and lineorder columns a query reads (q4.x: 6). */
#define PA__SSB_MAX_STREAMS 8
#define PA__SSB_MAX_FACT 6
/* Streaming defaults: rows per chunk and streams. */
#define PA__SSB_CHUNK_ROWS (INT64_C(1) << 23)
#define PA__SSB_STREAMS 3

typedef struct pa__ssb_dbuf {
    void *ptr;
    const pa_type *type;
} pa__ssb_dbuf;

typedef struct pa__ssb_part {
    int device;
    int64_t lo, hi;                         /* its lineorder rows */
    pa__ssb_dbuf col[PA__SSB_NCOLS];        /* dmem: dimension columns; resident: also its rows of the fact columns */
    pa__ssb_dbuf buf[PA__SSB_MAX_STREAMS];  /* streaming: a chunk of PA__SSB_MAX_FACT columns per stream */
    pa__ssb_dbuf ht[PA__SSB_NDIMS];         /* each dimension's hash table */
    pa_qb_ht hts[PA__SSB_NDIMS];
    int64_t ht_ints[PA__SSB_NDIMS];
    pa__ssb_dbuf groups;                    /* the dense group table (64-bit sums) */
    pa_cuda_function fn[PA__SSB_NK];
    pa_dthreads fact, fact_last, fill, build[PA__SSB_NDIMS];   /* fact: the whole range or a full chunk */
    int64_t nchunks;                        /* streaming: chunks of chunk rows, the last one fact_last's */
    void *streams[PA__SSB_MAX_STREAMS];     /* own streams (none for one resident part: it uses the caller's) */
    void *done[PA__SSB_MAX_STREAMS];        /* an event per stream: its work of the last launch */
    void *built;                            /* stream 0's hash tables and cleared group table */
    int64_t bytes;                          /* the GPU memory it took */
} pa__ssb_part;

struct pa_ssb_gpu {
    const pa_ssb_db *db;
    pa_scope *scope;
    const pa__async_ops *as;                /* streams and events (several parts or streaming), else NULL */
    pa_ssb_gpu_mode mode;                   /* resident or stream, as chosen */
    int nparts, nstreams;
    int64_t chunk;                          /* streaming: rows per chunk */
    pa__ssb_part part[PA_SSB_GPU_MAX_DEVICES];
    int home;                               /* the GPU current at the creation: the callers' streams' */
    void *start;                            /* an event on the caller's stream that the parts' streams wait for */
    int locked[PA__SSB_NCOLS];              /* 1: this engine page-locked the host column */
    int unlocked;                           /* streaming from host columns that could not be page-locked */
    int64_t gslots;
    int bt, ipt;                            /* the tile shape the kernels were compiled for */
    char source[160];                       /* their source (pa_ssb_gpu_source, or $PA_SSB_TILE's shape) */
    char what[256];                         /* pa_ssb_gpu_describe */
    pa__ssb_plan plan[PA_SSB_NQUERIES];
    void *stream[PA_SSB_NQUERIES];
    int launched[PA_SSB_NQUERIES];
};

#endif
