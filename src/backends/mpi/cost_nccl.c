/*
 * parray — measuring the NCCL route's constants of the cost model (pa_cost_calibrate in an MPI program whose
 * processes each drive a GPU of their own), collective over the current communicator.
 *
 * The route's price (dist_route.c) is a group's latency per chunk plus the bytes one GPU sends over its NCCL
 * rate.  Both are measured on the communicator the NCCL route itself uses (made here if new, and kept for the
 * copies that follow): the slowest process's median time of an all-to-all of 4 KiB per peer (the latency: one
 * group, sends and receives, and the wait for it) and of 256 MiB per process spread over its peers (the rate,
 * after the latency is taken off).  Where NCCL is not loadable, a process has no GPU or two share one, the
 * constants keep their values and the log says why.
 */
#include <stdlib.h>
#include <string.h>

#include "backends.h"
#include "cost_model.h"
#include "internal.h"
#include "mpi_backend.h"

#define BIG_BYTES ((size_t)256 << 20)   /* what each process sends in the big all-to-all, over its peers */
#define SMALL_PER_PEER ((size_t)4096)
#define SMALL_REPEATS 20                /* small exchanges per timed round */

typedef struct probe {
    MPI_Comm comm;
    int rank, n;
    const pa__devcomm_ops *dc;
    void *nc, *stream;
    char *send, *recv;                  /* device memory, BIG_BYTES each */
    pa__xfer *xs, *xr;
} probe;

/* One all-to-all of per bytes to and from every peer, waited for. */
static int exchange(probe *b, size_t per)
{
    int k = 0;
    for (int q = 0; q < b->n; q++) {
        if (q == b->rank)
            continue;
        b->xs[k] = (pa__xfer){.peer = q, .buf = b->send + (size_t)q * per, .bytes = per};
        b->xr[k] = (pa__xfer){.peer = q, .buf = b->recv + (size_t)q * per, .bytes = per};
        k++;
    }
    int st = b->dc->group(b->nc, b->xs, k, b->xr, k, b->stream);
    return st == PA_OK ? b->dc->sync(b->stream) : st;
}

/* One round for pa_mpi__time_rounds: an all-to-all of per bytes to and from every peer. */
typedef struct round_of {
    probe *b;
    size_t per;
} round_of;

static int exchange_round(void *ctx)
{
    round_of *r = ctx;
    return exchange(r->b, r->per);
}

static int timed(probe *b, size_t per, int rounds, int repeats, double *ns)
{
    round_of r = {b, per};
    return pa_mpi__time_rounds(b->comm, rounds, repeats, exchange_round, &r, "the NCCL exchange", ns);
}

int pa_mpi__calibrate_nccl(pa__cost_model *m, FILE *log)
{
    probe b = {.comm = pa_mpi__comm()};
    const char *why = NULL;
    pa_mpi__where(&b.rank, &b.n);
    b.dc = pa__backends_devcomm(&why);
    const pa__mem_ops *dmem = pa__mem_find("dmem");
    if (!pa_mpi__all_ok(b.dc != NULL && dmem != NULL, b.comm)) {
        if (log && b.rank == 0)
            fprintf(log, "  nccl: %s, the NCCL constants keep their values\n",
                    b.dc == NULL && why ? why : "NCCL or device memory is missing on some process");
        return PA_OK;
    }
    int st = pa_mpi__nccl_comm(b.comm, b.dc, -1, -1, &b.nc, &why);
    if (st == PA_ERR_UNSUPPORTED) {   /* agreed on by every process */
        if (log && b.rank == 0)
            fprintf(log, "  nccl: %s, the NCCL constants keep their values\n", why);
        return PA_OK;
    }
    if (st != PA_OK)
        return pa__err_wrap(st, "calibrate: the NCCL communicator");
    void *cs = NULL, *cr = NULL;
    pa_mem_opts o;
    pa_mem_opts_init(&o);
    int ok = dmem->alloc(BIG_BYTES, &o, (void **)&b.send, &cs) == PA_OK &&
             dmem->alloc(BIG_BYTES, &o, (void **)&b.recv, &cr) == PA_OK &&
             b.dc->stream_new(&b.stream, 1) == PA_OK && (b.xs = calloc((size_t)b.n, sizeof *b.xs)) != NULL &&
             (b.xr = calloc((size_t)b.n, sizeof *b.xr)) != NULL;
    double small = 0, big = 0;
    size_t per = BIG_BYTES / (size_t)b.n / 256 * 256;
    if (!pa_mpi__all_ok(ok, b.comm))
        st = pa__err(PA_ERR_NOMEM, "calibrate: no room for 2 x %zu MiB of device memory (or a stream) on some "
                     "process", BIG_BYTES >> 20);
    if (st == PA_OK)
        st = timed(&b, SMALL_PER_PEER, 9, SMALL_REPEATS, &small);
    if (st == PA_OK)
        st = timed(&b, per, 5, 1, &big);
    if (st == PA_OK) {
        double sent = (double)per * (b.n - 1), moving = big - small;
        m->gpu_nccl_latency = small < 1000 ? 1000 : small > 1e7 ? 1e7 : small;
        m->gpu_nccl_bw = sent / (moving > 1 ? moving : 1);
        m->gpu_nccl_bw = m->gpu_nccl_bw < 0.1 ? 0.1 : m->gpu_nccl_bw > 5000 ? 5000 : m->gpu_nccl_bw;
        if (log && b.rank == 0)
            fprintf(log, "  nccl: one group %.0f ns, %.1f bytes/ns sent per GPU (all-to-all of %zu MiB per process "
                    "between %d GPUs)\n", m->gpu_nccl_latency, m->gpu_nccl_bw, (per * (size_t)(b.n - 1)) >> 20, b.n);
    }
    if (b.stream)
        b.dc->stream_free(b.stream);
    if (b.send)
        dmem->free(b.send, BIG_BYTES, cs);
    if (b.recv)
        dmem->free(b.recv, BIG_BYTES, cr);
    free(b.xs);
    free(b.xr);
    return st;
}
