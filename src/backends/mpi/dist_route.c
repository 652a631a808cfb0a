/*
 * parray — the route of a distributed copy with a side in device memory, chosen by cost as the patterns are
 * (dist_patterns.c): every route that is possible predicts its time for the busiest process from the cost
 * model's constants, and the cheapest is taken; explanations name it and the runner-up.
 *
 *  - NCCL (dist_nccl.c): one group per chunk; packing and unpacking overlap the transfers, so the bytes over
 *    NCCL's rate and a group's latency per chunk;
 *  - CUDA-aware MPI (device buffers handed to MPI): MPI's rate, where MPI says it moves device memory;
 *  - peer copies (dist_peer.c, all-to-alls on one host): two collectives around the pulls, which read every
 *    peer's block over the peer rate, all at once, straight from the sources where the first run finds that
 *    possible (else packed first, one pass more);
 *  - staged through pinned host buffers: each byte over DMA twice and through MPI's host transport.
 *
 * PA_MPI_ROUTE names one (nccl, mpi-device, peer, staged) for tests and comparisons; one that is not possible
 * for the plan is warned about once and the cheapest taken.  The older switches still work: PA_MPI_CUDA_AWARE=1
 * is PA_MPI_ROUTE=mpi-device (=0 rules that route out), PA_MPI_PEER=0 rules out the peer route.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cost_model.h"
#include "mpi_backend.h"

static const char *const route_words[] = {"auto", "nccl", "mpi-device", "peer", "staged"};
static const pa_mpi__route route_of_word[] = {PA_MPI__ROUTE_HOST, PA_MPI__ROUTE_NCCL, PA_MPI__ROUTE_DEVICE,
                                              PA_MPI__ROUTE_PEER, PA_MPI__ROUTE_STAGED};

/* The predicted time of route r for p, or a negative number when r is not possible for p. */
static double predict(const pa_mpi__dplan *p, pa_mpi__route r)
{
    const pa__cost_model *m = pa__cost();
    const char *why;
    double b = p->busiest, gpu_pass = 2 * b / m->gpu_d2d_rw;   /* one pass over the bytes on the GPU */
    int chunks = (int)(b / (32 << 20)) + 1;
    const char *aware = getenv("PA_MPI_CUDA_AWARE");
    switch (r) {
    case PA_MPI__ROUTE_NCCL:
        if (!pa_mpi__nccl_possible(p, &why))
            return -1;
        return m->gpu_nccl_latency * (chunks < 16 ? chunks : 16) + b / m->gpu_nccl_bw;   /* packing overlapped */
    case PA_MPI__ROUTE_DEVICE:
        if (aware && *aware ? strcmp(aware, "0") == 0 : !pa_mpi__cuda_aware())
            return -1;
        return m->mpi_latency * p->nprocs + b / m->gpu_peer_bw + 2 * gpu_pass;
    case PA_MPI__ROUTE_PEER:
        if (!pa_mpi__peer_possible(p))   /* PA_MPI_PEER=0 and a refused set-up included */
            return -1;
        /* two collectives, packing (none where the pulls read the sources directly, which the first run decides),
         * the pulls over the peer rate, all peers at once.  Only what every process knows alike goes in: the
         * processes must choose the same route (whether this process's blocks are one layout each may differ). */
        return 2 * m->mpi_latency * p->nprocs + m->gpu_call + b / m->gpu_peer_bw + gpu_pass;
    case PA_MPI__ROUTE_STAGED:   /* two synchronous DMAs (device -> pinned, pinned -> device) around MPI's */
        return 2 * m->gpu_call + b / m->gpu_d2h_pinned + b / m->gpu_h2d_pinned + m->mpi_latency * p->nprocs +
               b / m->mpi_net_bw;
    default:
        return -1;
    }
}

pa_mpi__route pa_mpi__route_choose(pa_mpi__dplan *p)
{
    static atomic_int warned, bad_warned;
    static const pa_mpi__route candidates[] = {PA_MPI__ROUTE_NCCL, PA_MPI__ROUTE_DEVICE, PA_MPI__ROUTE_PEER,
                                               PA_MPI__ROUTE_STAGED};
    pa_mpi__route best = PA_MPI__ROUTE_STAGED;
    double best_ns = -1, next_ns = -1;
    int next = -1;
    for (size_t i = 0; i < sizeof candidates / sizeof candidates[0]; i++) {
        double ns = predict(p, candidates[i]);
        if (ns < 0)
            continue;
        if (best_ns < 0 || ns < best_ns) {
            if (best_ns >= 0)
                next = (int)best, next_ns = best_ns;
            best = candidates[i], best_ns = ns;
        } else if (next < 0 || ns < next_ns) {
            next = (int)candidates[i], next_ns = ns;
        }
    }
    /* a route named by PA_MPI_ROUTE, or forced by PA_MPI_CUDA_AWARE=1 as before */
    int w = pa__env_choice("PA_MPI_ROUTE", route_words, 5, 0, &warned);
    const char *aware = getenv("PA_MPI_CUDA_AWARE");
    if (w == 0 && aware && *aware && strcmp(aware, "0") != 0)
        w = 2;
    if (w > 0) {
        pa_mpi__route want = route_of_word[w];
        double ns = predict(p, want);
        if (ns >= 0 && want != best) {
            next = (int)best, next_ns = best_ns;
            best = want, best_ns = ns;
        } else if (ns < 0 && atomic_exchange(&bad_warned, 1) == 0) {
            fprintf(stderr, "parray: PA_MPI_ROUTE=%s is not possible for this copy (%s); the cheapest route "
                    "is taken\n", route_words[w], w == 1 ? "NCCL is not usable here, or a side is not dmem"
                    : w == 3 ? "not an all-to-all between dmem arrays, or PA_MPI_PEER=0" : "not available");
        }
    }
    p->route_ns = best_ns;
    p->route_next = next;
    p->route_next_ns = next_ns;
    return best;
}
