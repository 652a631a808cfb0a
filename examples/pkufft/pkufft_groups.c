/*
 * pkufft — how many plane groups the fast form pipelines (pk_fft_device_fast), chosen by cost.
 *
 * Cutting the slab's N/P planes into G groups lets the XY transforms of group g + 1 run while group g is
 * exchanged, but each group's exchange pays the NCCL route's latency again: a group per chunk of every peer's
 * block, a per-peer cost in each group and a pack and an unpack launch per peer and chunk.  So groups win when the
 * exchange is bandwidth-bound and lose when its latency dominates (small N, many GPUs).  The prediction is the
 * one-node form of docs/scaling.md's model (scripts/scaling_model.py, Model.fast), with the wire rate and the
 * group latency from the library's cost model (pa_cost_get: what `parray calibrate` measured on the route's
 * communicator) and the transforms' rate from a measured run (bench/fft times one group first):
 *
 *     T(G) = xy/G + (G-1) max(xy/G, X(b/G)) + X(b/G) + z
 *     X(B) = C (L + c (P-1)) + 2 (P-1) C t_launch + (B/P)(P-1) / (r W),   C = clamp((B/P) / 32 MiB, 1, 16)
 *
 * over the divisors G of N/P up to `most`, the fewest groups among equal times.
 */
#include <math.h>

#include "pkufft.h"

#define CHUNK_BYTES (32.0 * 1024 * 1024)   /* the route's chunk per peer (dist_nccl.c) */
#define MAX_CHUNKS 16

void pk_costs_default(pk_costs *m)
{
    double v;
    m->nccl_bw = pa_cost_get("gpu_nccl_bw", &v) == PA_OK ? v : 280.0;
    m->nccl_latency = pa_cost_get("gpu_nccl_latency", &v) == PA_OK ? v : 20000.0;
    m->peer_ns = 3000.0;       /* NCCL's cost per peer of a group (docs/scaling.md's inputs) */
    m->launch_ns = 2000.0;     /* one pack or unpack launch (stated there) */
    m->fused_ratio = 0.737;    /* our fused exchange against NCCL's plain one, P = 4 (measured there) */
    m->fft_bw = 596.5;         /* one H200's XY + Z transforms: 8 GiB in 14.40 ms (derived there) */
    m->xy_share = 0.678;       /* XY's share of them (measured there) */
}

/* One GPU's exchange of b bytes over p GPUs through the route, ns. */
static double exchange_ns(const pk_costs *m, double b, int p)
{
    double per = b / p;
    double c = floor(per / CHUNK_BYTES);
    c = c < 1 ? 1 : c > MAX_CHUNKS ? MAX_CHUNKS : c;
    double wire = per * (p - 1) / (m->nccl_bw * m->fused_ratio);
    return wire + c * (m->nccl_latency + m->peer_ns * (p - 1)) + 2.0 * (p - 1) * c * m->launch_ns;
}

double pk_fast_predict(const pk_costs *m, int n, int p, int groups)
{
    double cube = (double)n * n * n, b = 8.0 * cube / p, t = 8.0 * cube / m->fft_bw / p;
    double xy = m->xy_share * t, z = t - xy, xy1 = xy / groups;
    if (p == 1)   /* no exchange through the route (a copy on the GPU, not modelled): the transforms */
        return t;
    double x = exchange_ns(m, b / groups, p);
    return xy1 + (groups - 1) * (xy1 > x ? xy1 : x) + x + z;
}

int pk_groups_by_cost(const pk_costs *m, int n, int p, int most)
{
    int planes = p > 0 ? n / p : 0, best = 1;
    if (p <= 1 || planes < 2 || !(m->nccl_bw > 0) || !(m->fft_bw > 0) || !(m->fused_ratio > 0))
        return 1;
    double best_ns = pk_fast_predict(m, n, p, 1);
    for (int g = 2; g <= most && g <= planes; g++) {
        if (planes % g)
            continue;
        double ns = pk_fast_predict(m, n, p, g);
        if (ns < best_ns * (1 - 1e-9))
            best = g, best_ns = ns;
    }
    return best;
}
