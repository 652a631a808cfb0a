/*
 * parray — what the three files of the pthd all-to-all's NCCL route share: a thread's plan and its run
 * (copy_exchange_gpu_plan.c), the sets of communicators (copy_exchange_gpu_comms.c) and the threads' agreement
 * (copy_exchange_gpu.c).  Included only by those three.
 */
#ifndef PARRAY_COPY_EXCHANGE_GPU_INTERNAL_H
#define PARRAY_COPY_EXCHANGE_GPU_INTERNAL_H

#include <stdatomic.h>

#include "backends.h"
#include "chunk_exchange.h"
#include "copy_dist_key.h"
#include "lru.h"

#define MAX_CHUNKS PA__CHUNKS_MAX
#define ID_MAX 256                 /* an NCCL id (128 bytes today) */

/* ---- a thread's plan (copy_exchange_gpu_plan.c) ---- */

typedef struct gkey {
    pa__pthd_key k;
    int dev;                     /* the thread's GPU: its buffers and streams are there */
} gkey;

typedef struct gplan {
    pa__lru_entry lru;
    gkey key;
    atomic_int busy;             /* a run holds it (a second, concurrent one makes its own) */
    int cached;
    const pa__devcomm_ops *dc;
    const pa__mem_ops *mem;      /* the arrays' (dmem; NULL: host memory, under test) */
    const pa__mem_ops *bufmem;   /* the buffers' */
    size_t elm;
    int n, me;
    int64_t *scnt, *sdsp, *rcnt, *rdsp;   /* elements per peer; dsp: the block's place in the buffer */
    pa__layout *sl, *rl;         /* per peer: the local offsets of the elements sent to it (received from it) */
    int64_t *stab, *rtab;        /* the offset lists that gathered ones among them point into */
    int64_t sent, recvd;         /* elements to and from the other threads */
    int64_t lo, hi, dlo, dhi;    /* the source's and the destination's offsets reached */
    int64_t busiest;             /* bytes the busiest thread sends to or receives from the others */
    unsigned feasible;           /* bit i: the blocks cut into 2^i chunks */
    int want, direct_only;
    double ns_nccl, ns_pull;
    int chunks;                  /* the slices below were made for; 0: none yet */
    pa__slice *send, *recv;      /* [q * chunks + c] */
    pa__plan *self;
    int self_direct;             /* both sides of the own block contiguous: a send to itself in the first group */
    int64_t self_sbase, self_rbase;
    void *sbuf, *rbuf, *scookie, *rcookie;
    size_t sbytes, rbytes;
    pa__chunk_streams cs;        /* the streams and events of the runs */
    pa__xfer *xs, *xr;
    char route[360];             /* the last run's route, for the explanation */
} gplan;

/** The memory ops of a split's local arrays when the CPU cannot reach them (dmem), else NULL. */
const pa__mem_ops *pa__xg_memory(const pa__dist_split *x);
/**
 * The calling thread's plan for its GPU dev, held for this run (release it with pa__xg_plan_release): cached
 * per thread and GPU; one that another run holds is not shared (this run makes its own).  mem: the arrays'
 * memory (NULL: host memory, under test).  \return PA_OK or an error of the listing (the pulls report it).
 */
int pa__xg_plan_for(const pa__dist_split *d, const pa__dist_split *s, size_t elm, int64_t tid, int64_t n,
                    uint64_t dser, uint64_t sser, int dev, const pa__devcomm_ops *dc, const pa__mem_ops *mem,
                    gplan **out);
/** Gives a plan back (NULL is ignored). */
void pa__xg_plan_release(gplan *p);
/** The route the cached plan of these arguments last took, into buf.  \return 1, or 0 when there is none. */
int pa__xg_route_of(const pa__dist_split *d, const pa__dist_split *s, size_t elm, int64_t tid, int64_t n,
                    uint64_t dser, uint64_t sser, int dev, char *buf, size_t len);
/** Slices for C chunks, buffers and streams (once per plan and chunk count).  \return PA_OK or an error. */
int pa__xg_prepare(gplan *p, int C);
/** The copy: chunks packed, sent and unpacked on three streams, the own block on a fourth; waits for them. */
int pa__xg_run(gplan *p, void *comm, void *dst, const void *src);

/* ---- communicators (copy_exchange_gpu_comms.c) ---- */

typedef struct cset {
    struct cset *next;
    int n, busy, fresh, bad;
    int *dev;                    /* rank t's GPU */
    void **comm;                 /* rank t's communicator, made by thread t */
    unsigned char id[ID_MAX];
    const pa__devcomm_ops *dc;
    unsigned long used;
} cset;

/** An idle set over these GPUs (rank t on dev[t]), or a new one (fresh: its id made here, its communicators by
 *  the threads; bad when the id could not be made).  NULL: no memory (the message set). */
cset *pa__xg_acquire(const pa__devcomm_ops *dc, const int *dev, int n);
/** Gives a set back; a bad one (its communicators could not all be made) is destroyed.  NULL is ignored. */
void pa__xg_give_back(cset *c);

#endif
