/*
 * parray — the chunked exchange both NCCL routes run (the MPI backend's, src/backends/mpi/dist_nccl.c, between
 * processes; the host backend's, src/backends/host/copy/copy_exchange_gpu_plan.c, between the threads of one
 * process): every peer's block cut into C chunks (slices, layout_slice.h), chunk c packed on one stream, sent and
 * received as one group of the device collectives (pa__devcomm_ops) on a second, unpacked on a third, the own
 * block on a fourth, so that packing, transfers and unpacking of successive chunks overlap.
 */
#ifndef PARRAY_CHUNK_EXCHANGE_H
#define PARRAY_CHUNK_EXCHANGE_H

#include "backends.h"
#include "layout_slice.h"

#define PA__CHUNKS_MAX 16
#define PA__CHUNK_BYTES (32LL << 20)   /* aim per peer and chunk: a group costs about 20 us (an 8 MiB chunk's
                                          transfer only 28 us), so chunks only as small as overlapping needs */

enum { PA__S_PACK, PA__S_XFER, PA__S_UNPACK, PA__S_SELF, PA__NSTREAMS };

/* The streams and events of one plan's exchange (made once, kept with the plan). */
typedef struct pa__chunk_streams {
    void *stream[PA__NSTREAMS];
    void *ev_start, *ev_packed[PA__CHUNKS_MAX], *ev_recvd[PA__CHUNKS_MAX];
} pa__chunk_streams;

/* One run of a chunked exchange: what the loop reads. */
typedef struct pa__chunk_exchange {
    const pa__devcomm_ops *dc;
    void *comm;                      /* the device communicator */
    pa__chunk_streams *st;
    int n, me, chunks;               /* peers (this one included), this one, C */
    int pair_first;                  /* -1: peer q is rank q of comm; else a pair's communicator: q == pair_first
                                        is its rank 0, any other q its rank 1 */
    size_t elm;
    const int64_t *scnt, *rcnt;      /* elements to and from every peer */
    const pa__slice *send, *recv;    /* [q * chunks + c] for the peers with elements */
    char *sbuf, *rbuf;               /* the packed blocks (where a slice is not direct) */
    const pa__plan *self;            /* the own block's copy plan, or NULL */
    int self_direct;                 /* both its sides contiguous: sent to itself in the first group */
    int64_t self_sbase, self_rbase;
    pa__xfer *xs, *xr;               /* room for n transfers each */
} pa__chunk_exchange;

/** The chunks wanted for the busiest member's bytes to or from its n - 1 peers: one per PA__CHUNK_BYTES a peer,
 *  1 to PA__CHUNKS_MAX (PA_NCCL_CHUNKS forces a count).  The same on every member that passes the same numbers. */
int pa__chunks_wanted(double busiest, int n);
/** Makes the streams and the events of `chunks` chunks that *s lacks (the transfer stream urgent).
 *  \return PA_OK or the collectives' error. */
int pa__chunk_streams_make(pa__chunk_streams *s, const pa__devcomm_ops *dc, int chunks);
/** Frees them (NULL ones are skipped) and zeroes *s. */
void pa__chunk_streams_free(pa__chunk_streams *s, const pa__devcomm_ops *dc);
/**
 * Runs the exchange dst <- src after the caller's earlier work on the legacy default stream, and waits for it:
 * chunk by chunk, packing, one group of sends and receives, unpacking; the own block by its plan on the fourth
 * stream.  Collective over the communicator's members.  \return PA_OK or the first error (every stream is
 * waited for then too, so that nothing still runs on the buffers).
 */
int pa__chunk_exchange_run(const pa__chunk_exchange *x, void *dst, const void *src);

#endif
