/*
 * parray — measuring the peer route's rate (gpu_peer_bw of the cost model) in an MPI program whose processes share
 * one host and each drive a GPU, collective over the current communicator: pa_cost_calibrate after the NCCL
 * constants (cost_nccl.c).
 *
 * The peer route (dist_peer.c) moves an all-to-all by pulls: each process reads its block out of every other
 * process's device memory, mapped into it by CUDA IPC, all peers at once.  So the probe does that: each process
 * exports a 256 MiB device buffer, maps every other's, and times (the slowest process's median of five, between
 * barriers) an all-to-all in which it copies its share of every peer's buffer into its own second buffer, the
 * copies queued on one stream per peer (at most four) and waited for.  The rate is the bytes one process receives
 * from its peers over that time.  Where the processes are not on one host, device memory cannot be shared
 * (no IPC), or a process has no GPU, the constant keeps its value and the log says why.
 */
#include <stdlib.h>
#include <string.h>

#include "backends.h"
#include "cost_model.h"
#include "internal.h"
#include "mpi_backend.h"

#define BIG_BYTES ((size_t)256 << 20)   /* each process's buffer: what the others read their shares of */
#define STREAMS 4

typedef struct peer_probe {
    int rank, n;
    const pa__mem_ops *dmem;
    const pa__async_ops *as;
    char *mine, *into;                   /* device memory, BIG_BYTES each */
    void *cookie[2];
    void **theirs;                       /* [n]: every process's buffer mapped here (this one's: mine) */
    void *stream[STREAMS];
    size_t per;                          /* bytes each process reads from each other */
} peer_probe;

static int make_handle(void *ctx, char *handle)
{
    peer_probe *b = ctx;
    return b->dmem->ipc_export(b->mine, handle) == PA_OK;
}

static int open_handle(void *ctx, int q, const char *handle)
{
    peer_probe *b = ctx;
    return b->dmem->ipc_open(handle, &b->theirs[q]) == PA_OK;
}

/* One all-to-all of b->per bytes from every process's buffer, by queued pulls, waited for (a round for
 * pa_mpi__time_rounds, which has every process wait for the others' before a buffer is read again or freed). */
static int pull_round(void *ctx)
{
    peer_probe *b = ctx;
    int st = PA_OK, ns = b->n < STREAMS ? b->n : STREAMS;
    for (int k = 1; k < b->n && st == PA_OK; k++) {   /* the peers only: the route's own block stays home */
        int q = (b->rank + k) % b->n;
        st = b->as->copy(b->into + (size_t)q * b->per, (const char *)b->theirs[q] + (size_t)b->rank * b->per,
                         b->per, b->stream[k % ns]);
    }
    for (int i = 0; i < ns; i++) {
        int wst = pa__stream_wait(b->stream[i]);
        st = st != PA_OK ? st : wst;
    }
    return st;
}

int pa_mpi__calibrate_peer(pa__cost_model *m, FILE *log)
{
    MPI_Comm comm = pa_mpi__comm();
    peer_probe b = {0};
    pa_mpi__where(&b.rank, &b.n);
    b.dmem = pa__mem_find("dmem");
    b.as = pa__backends_async("calibrate: the peer route");
    int usable = b.dmem && b.as && b.dmem->ipc_export && b.dmem->ipc_open && b.dmem->ipc_close &&
                 b.dmem->available && b.dmem->available();
    if (!pa_mpi__all_ok(usable, comm)) {
        if (log && b.rank == 0)
            fprintf(log, "  peer: device memory cannot be shared between the processes here (no GPU, or no CUDA "
                    "IPC), the peer rate keeps its value\n");
        return PA_OK;
    }
    pa_mem_opts o;
    pa_mem_opts_init(&o);
    int st = PA_OK, ns = b.n < STREAMS ? b.n : STREAMS;
    int ok = b.dmem->alloc(BIG_BYTES, &o, (void **)&b.mine, &b.cookie[0]) == PA_OK &&
             b.dmem->alloc(BIG_BYTES, &o, (void **)&b.into, &b.cookie[1]) == PA_OK &&
             (b.theirs = calloc((size_t)b.n, sizeof *b.theirs)) != NULL;
    for (int i = 0; i < ns && ok; i++)
        ok = b.as->stream_new(&b.stream[i]) == PA_OK;
    if (!pa_mpi__all_ok(ok, comm)) {
        st = pa__err(PA_ERR_NOMEM, "calibrate: no room for 2 x %zu MiB of device memory (or a stream) on some "
                     "process", BIG_BYTES >> 20);
    } else {
        static const pa_mpi__node_sharing how = {make_handle, open_handle};
        b.theirs[b.rank] = b.mine;
        if (!pa_mpi__node_share(comm, b.rank, b.n, PA__IPC_HANDLE_BYTES, &how, &b)) {
            if (log && b.rank == 0)
                fprintf(log, "  peer: the processes are not on one host or a mapping was refused, the peer rate "
                        "keeps its value\n");
        } else {
            size_t per = b.per = BIG_BYTES / (size_t)b.n / 256 * 256;
            double ns_round = 0;
            if ((st = pa_mpi__time_rounds(comm, 5, 1, pull_round, &b, "a peer copy", &ns_round)) == PA_OK) {
                double got = (double)per * (b.n - 1), moving = ns_round - m->gpu_call;
                double bw = got / (moving > 1 ? moving : 1);
                m->gpu_peer_bw = bw < 0.1 ? 0.1 : bw > 5000 ? 5000 : bw;
                if (log && b.rank == 0)
                    fprintf(log, "  peer: %.1f bytes/ns received per GPU (every process pulls %zu MiB from its %d "
                            "peers at once)\n", m->gpu_peer_bw, (per * (size_t)(b.n - 1)) >> 20, b.n - 1);
            }
        }
    }
    for (int q = 0; b.theirs && q < b.n; q++)
        if (q != b.rank && b.theirs[q])
            b.dmem->ipc_close(b.theirs[q]);
    for (int i = 0; i < ns; i++)
        if (b.stream[i])
            b.as->stream_free(b.stream[i]);
    if (b.mine)
        b.dmem->free(b.mine, BIG_BYTES, b.cookie[0]);
    if (b.into)
        b.dmem->free(b.into, BIG_BYTES, b.cookie[1]);
    free(b.theirs);
    return st;
}
