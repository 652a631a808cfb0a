/*
 * parray — the chunked exchange of the NCCL routes (chunk_exchange.h): one loop for processes and for threads.
 */
#include <stdatomic.h>

#include "chunk_exchange.h"

int pa__chunks_wanted(double busiest, int n)
{
    static atomic_int warned;
    double want = busiest / (n > 1 ? n - 1 : 1) / (double)PA__CHUNK_BYTES;
    long forced = pa__env_int("PA_NCCL_CHUNKS", 1, PA__CHUNKS_MAX, 0, "chosen by size", &warned);
    if (forced > 0)
        return (int)forced;
    return want < 1 ? 1 : want > PA__CHUNKS_MAX ? PA__CHUNKS_MAX : (int)want;
}

int pa__chunk_streams_make(pa__chunk_streams *s, const pa__devcomm_ops *dc, int chunks)
{
    int st = PA_OK;
    for (int i = 0; i < PA__NSTREAMS && st == PA_OK; i++)
        if (!s->stream[i])
            st = dc->stream_new(&s->stream[i], i == PA__S_XFER);
    if (st == PA_OK && !s->ev_start)
        st = dc->event_new(&s->ev_start);
    for (int c = 0; c < (chunks > 0 ? chunks : 1) && st == PA_OK; c++) {
        if (!s->ev_packed[c])
            st = dc->event_new(&s->ev_packed[c]);
        if (st == PA_OK && !s->ev_recvd[c])
            st = dc->event_new(&s->ev_recvd[c]);
    }
    return st;
}

void pa__chunk_streams_free(pa__chunk_streams *s, const pa__devcomm_ops *dc)
{
    if (!dc)
        return;
    for (int i = 0; i < PA__NSTREAMS; i++)
        if (s->stream[i])
            dc->stream_free(s->stream[i]);
    if (s->ev_start)
        dc->event_free(s->ev_start);
    for (int c = 0; c < PA__CHUNKS_MAX; c++) {
        if (s->ev_packed[c])
            dc->event_free(s->ev_packed[c]);
        if (s->ev_recvd[c])
            dc->event_free(s->ev_recvd[c]);
    }
    *s = (pa__chunk_streams){0};
}

static int rank_of(const pa__chunk_exchange *x, int q)
{
    return x->pair_first < 0 ? q : q == x->pair_first ? 0 : 1;
}

/* 1 when nothing is packed or unpacked, in one chunk: every slice sent and received in place, the own block (if
 * any) sent to itself.  Then there is nothing to overlap, and the group runs on the legacy default stream. */
static int in_place_only(const pa__chunk_exchange *x)
{
    if (x->chunks != 1 || (x->self && !x->self_direct))
        return 0;
    for (int q = 0; q < x->n; q++)
        if (q != x->me && ((x->scnt[q] && !x->send[q].direct) || (x->rcnt[q] && !x->recv[q].direct)))
            return 0;
    return 1;
}

/* The transfers of chunk c into x->xs and x->xr (*ns and *nr of them): every peer's slice, read from or written
 * to the array itself where direct, else the packed buffers; in the first chunk, where both of its sides are
 * contiguous, the own block sent to itself (as NCCL's own all-to-all does). */
static void chunk_xfers(const pa__chunk_exchange *x, int c, void *dst, const void *src, int *ns, int *nr)
{
    int me = x->me, C = x->chunks;
    size_t e = x->elm;
    *ns = *nr = 0;
    if (c == 0 && x->self && x->self_direct) {
        size_t bytes = (size_t)pa__bytes(x->scnt[me], e);
        x->xs[(*ns)++] = (pa__xfer){rank_of(x, me), (char *)src + pa__bytes(x->self_sbase, e), bytes};
        x->xr[(*nr)++] = (pa__xfer){rank_of(x, me), (char *)dst + pa__bytes(x->self_rbase, e), bytes};
    }
    for (int q = 0; q < x->n; q++) {
        if (q == me)
            continue;
        const pa__slice *s = x->scnt[q] ? &x->send[q * C + c] : NULL, *r = x->rcnt[q] ? &x->recv[q * C + c] : NULL;
        if (s)
            x->xs[(*ns)++] = (pa__xfer){rank_of(x, q), s->direct ? (char *)src + pa__bytes(s->base, e)
                                                                  : x->sbuf + pa__bytes(s->pos, e),
                                        (size_t)pa__bytes(s->n, e)};
        if (r)
            x->xr[(*nr)++] = (pa__xfer){rank_of(x, q), r->direct ? (char *)dst + pa__bytes(r->base, e)
                                                                  : x->rbuf + pa__bytes(r->pos, e),
                                        (size_t)pa__bytes(r->n, e)};
    }
}

/* One exchange with nothing to pack or unpack: one group on the legacy default stream (so after the caller's
 * earlier work there, as NCCL's own calls go), waited for: none of the events and streams of the pipeline. */
static int run_in_place(const pa__chunk_exchange *x, void *dst, const void *src)
{
    int ns, nr;
    chunk_xfers(x, 0, dst, src, &ns, &nr);
    int st = x->dc->group(x->comm, x->xs, ns, x->xr, nr, NULL);
    int wst = x->dc->sync(NULL);   /* also after a failed group: nothing may still run on the arrays */
    return st != PA_OK ? st : wst;
}

int pa__chunk_exchange_run(const pa__chunk_exchange *x, void *dst, const void *src)
{
    if (in_place_only(x))
        return run_in_place(x, dst, src);
    const pa__devcomm_ops *dc = x->dc;
    void *const *stream = x->st->stream;
    int st, me = x->me, C = x->chunks;
    st = dc->record(x->st->ev_start, NULL);   /* after the caller's earlier work on the legacy default stream */
    for (int i = 0; i < PA__NSTREAMS && st == PA_OK; i++)
        st = dc->wait(stream[i], x->st->ev_start);
    if (st == PA_OK && x->self && !x->self_direct)
        st = pa__plan_exec_async(x->self, dst, x->self_rbase, src, x->self_sbase, stream[PA__S_SELF]);
    for (int c = 0; c < C && st == PA_OK; c++) {
        int ns, nr;
        for (int q = 0; q < x->n && st == PA_OK; q++) {   /* chunk c of every peer's slice packed */
            const pa__slice *s = q != me && x->scnt[q] ? &x->send[q * C + c] : NULL;
            if (s && s->plan)
                st = pa__plan_exec_async(s->plan, x->sbuf, s->pos, src, s->base, stream[PA__S_PACK]);
        }
        chunk_xfers(x, c, dst, src, &ns, &nr);
        if (st == PA_OK)
            st = dc->record(x->st->ev_packed[c], stream[PA__S_PACK]);
        if (st == PA_OK)
            st = dc->wait(stream[PA__S_XFER], x->st->ev_packed[c]);
        if (st == PA_OK)
            st = dc->group(x->comm, x->xs, ns, x->xr, nr, stream[PA__S_XFER]);
        if (st == PA_OK)
            st = dc->record(x->st->ev_recvd[c], stream[PA__S_XFER]);
        if (st == PA_OK)
            st = dc->wait(stream[PA__S_UNPACK], x->st->ev_recvd[c]);
        for (int q = 0; q < x->n && st == PA_OK; q++) {
            const pa__slice *r = q != me && x->rcnt[q] ? &x->recv[q * C + c] : NULL;
            if (r && r->plan)
                st = pa__plan_exec_async(r->plan, dst, r->base, x->rbuf, r->pos, stream[PA__S_UNPACK]);
        }
    }
    /* the unpack stream waited for the last group, which waited for the last packing: it and the own block's
     * stream are all there is to wait for, unless something failed on the way (then every stream) */
    for (int i = 0; i < PA__NSTREAMS; i++) {
        if (st == PA_OK && i != PA__S_UNPACK && i != PA__S_SELF)
            continue;
        int sst = stream[i] ? dc->sync(stream[i]) : PA_OK;
        st = st != PA_OK ? st : sst;
    }
    return st;
}
