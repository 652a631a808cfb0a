/*
 * Kernels for suite query_ssb_gpu: each block-wide primitive of <parray/query/block.h> run by nvcc-compiled
 * kernels over small columns whose last tile is partial, with host wrappers that move the data (the suite
 * compares with its CPU reference).  Tile: 64 threads x 3 items.
 */
#include <cuda_runtime.h>

#include "parray/query/block.h"

#define BT 64
#define IPT 3
#define TILE (BT * IPT)

/* Predicates into a selection (between, or eq), then select: the selected rows appended to out. */
__global__ void k_select(const int *col, int n, int lo, int hi, int alt, int *out, unsigned long long *counter,
                         int *counts)
{
    __shared__ int shm_items[TILE];
    __shared__ int shm[BT / 32 + 1];
    int first = blockIdx.x * TILE, m = n - first < TILE ? n - first : TILE;
    int items[IPT], sel[IPT], valid[IPT];
    pa_qb_load<BT, IPT>(col + first, m, items);
    pa_qb_sel_init<BT, IPT>(m, valid);
    pa_qb_sel_init<BT, IPT>(m, sel);
    pa_qb_and<IPT>(items, pa_qb_between<int>{lo, hi}, sel);
    pa_qb_or<IPT>(items, pa_qb_eq<int>{alt}, valid, sel);
    int mine = pa_qb_count<IPT>(sel);
    int total = pa_qb_select<BT, IPT>(items, sel, out, counter, shm_items, shm);
    atomicAdd(&counts[0], mine);
    if (threadIdx.x == 0)
        atomicAdd(&counts[1], total);
}

/* Direct load written back in place, and the block sums of the items (lt predicate: only items < limit). */
__global__ void k_direct_sum(const int *col, int n, int limit, int *copy, unsigned long long *sum)
{
    __shared__ long long shm[BT / 32];
    int first = blockIdx.x * TILE, m = n - first < TILE ? n - first : TILE;
    int items[IPT], sel[IPT];
    pa_qb_load_direct<BT, IPT>(col + first, m, items);
    pa_qb_sel_init_direct<BT, IPT>(m, sel);
    long long s = 0;
#pragma unroll
    for (int k = 0; k < IPT; k++)
        if (sel[k]) {
            copy[first + threadIdx.x * IPT + k] = items[k];
            s += items[k] < limit ? items[k] : 0;
        }
    pa_qb_sum<BT>(s, shm, sum);
}

__global__ void k_build(const int *keys, const int *vals, int n, pa_qb_ht ht)
{
    int first = blockIdx.x * TILE, m = n - first < TILE ? n - first : TILE;
    int k[IPT], v[IPT], sel[IPT];
    pa_qb_load<BT, IPT>(keys + first, m, k);
    pa_qb_sel_init<BT, IPT>(m, sel);
    pa_qb_load_sel<BT, IPT>(vals + first, sel, v);
    pa_qb_build<IPT>(ht, k, v, sel);
}

/* Probes: out = the value, or PA_QB_EMPTY; semi = 1 when present. */
__global__ void k_probe(const int *keys, int n, pa_qb_ht ht, int *out, int *semi)
{
    int first = blockIdx.x * TILE, m = n - first < TILE ? n - first : TILE;
    int k[IPT], v[IPT], sel[IPT], sel2[IPT];
    pa_qb_load<BT, IPT>(keys + first, m, k);
    pa_qb_sel_init<BT, IPT>(m, sel);
    pa_qb_sel_init<BT, IPT>(m, sel2);
    pa_qb_probe<IPT>(ht, k, sel, v);
    pa_qb_probe_semi<IPT>(ht, k, sel2);
#pragma unroll
    for (int i = 0; i < IPT; i++)
        if (i * BT + (int)threadIdx.x < m) {
            out[first + i * BT + threadIdx.x] = sel[i] ? v[i] : PA_QB_EMPTY;
            semi[first + i * BT + threadIdx.x] = sel2[i];
        }
}

__global__ void k_group(const int *gkeys, const int *vals, int n, unsigned long long *dense, int *okeys,
                        unsigned long long *osums, int osize, int *full)
{
    int first = blockIdx.x * TILE, m = n - first < TILE ? n - first : TILE;
    int g[IPT], v[IPT], sel[IPT];
    long long w[IPT];
    pa_qb_load<BT, IPT>(gkeys + first, m, g);
    pa_qb_sel_init<BT, IPT>(m, sel);
    pa_qb_load_sel<BT, IPT>(vals + first, sel, v);
#pragma unroll
    for (int i = 0; i < IPT; i++)
        w[i] = v[i];
    pa_qb_group_add_dense<IPT>(dense, g, w, sel);
    if (!pa_qb_group_add_open<IPT>(okeys, osums, osize, g, w, sel))
        atomicExch(full, 1);
}

__global__ void k_scan(const int *in, int *out, int *total)
{
    __shared__ int shm[BT / 32 + 1];
    int t;
    out[threadIdx.x] = pa_qb_scan_exclusive<BT>(in[threadIdx.x], shm, &t);
    if (threadIdx.x == 0)
        *total = t;
}

/* ---- host wrappers ------------------------------------------------------------------------------------------- */

#define TRY(x)                                                                                                     \
    do {                                                                                                           \
        if ((x) != cudaSuccess)                                                                                    \
            goto fail;                                                                                             \
    } while (0)

static int blocks(int n)
{
    return (n + TILE - 1) / TILE;
}

static void *dup_to_gpu(const void *h, size_t bytes)
{
    void *d = NULL;
    if (cudaMalloc(&d, bytes ? bytes : 4) != cudaSuccess)
        return NULL;
    if (h && cudaMemcpy(d, h, bytes, cudaMemcpyHostToDevice) != cudaSuccess) {
        cudaFree(d);
        return NULL;
    }
    if (!h)
        cudaMemset(d, 0, bytes ? bytes : 4);
    return d;
}

extern "C" int pa_test_qb_select(const int *col, int n, int lo, int hi, int alt, int *out, int *nout, int *counts)
{
    int rc = -1, *dcol = (int *)dup_to_gpu(col, n * 4), *dout = (int *)dup_to_gpu(out, n * 4);   /* poisoned */
    int *dcounts = (int *)dup_to_gpu(NULL, 8);
    unsigned long long *dctr = (unsigned long long *)dup_to_gpu(NULL, 8), ctr = 0;
    if (!dcol || !dout || !dcounts || !dctr)
        goto fail;
    k_select<<<blocks(n), BT>>>(dcol, n, lo, hi, alt, dout, dctr, dcounts);
    TRY(cudaDeviceSynchronize());
    TRY(cudaMemcpy(&ctr, dctr, 8, cudaMemcpyDeviceToHost));
    TRY(cudaMemcpy(out, dout, n * 4, cudaMemcpyDeviceToHost));
    TRY(cudaMemcpy(counts, dcounts, 8, cudaMemcpyDeviceToHost));
    *nout = (int)ctr;
    rc = 0;
fail:
    cudaFree(dcol);
    cudaFree(dout);
    cudaFree(dcounts);
    cudaFree(dctr);
    return rc;
}

extern "C" int pa_test_qb_direct_sum(const int *col, int n, int limit, int *copy, long long *sum)
{
    int rc = -1, *dcol = (int *)dup_to_gpu(col, n * 4), *dcopy = (int *)dup_to_gpu(copy, n * 4);
    unsigned long long *dsum = (unsigned long long *)dup_to_gpu(NULL, 8);
    if (!dcol || !dcopy || !dsum)
        goto fail;
    k_direct_sum<<<blocks(n), BT>>>(dcol, n, limit, dcopy, dsum);
    TRY(cudaDeviceSynchronize());
    TRY(cudaMemcpy(copy, dcopy, n * 4, cudaMemcpyDeviceToHost));
    TRY(cudaMemcpy(sum, dsum, 8, cudaMemcpyDeviceToHost));
    rc = 0;
fail:
    cudaFree(dcol);
    cudaFree(dcopy);
    cudaFree(dsum);
    return rc;
}

/* Builds a table (open: size slots of pairs; perfect: over [kmin, kmin + size)) and probes it. */
extern "C" int pa_test_qb_hash(int open, int kmin, int size, const int *keys, const int *vals, int n,
                               const int *probe, int np, int *out, int *semi)
{
    int rc = -1, ints = open ? 2 * size : size;
    int *dk = (int *)dup_to_gpu(keys, n * 4), *dv = (int *)dup_to_gpu(vals, n * 4), *dslots = NULL;
    int *dp = (int *)dup_to_gpu(probe, np * 4), *dout = (int *)dup_to_gpu(NULL, np * 4);
    int *dsemi = (int *)dup_to_gpu(NULL, np * 4);
    pa_qb_ht ht;
    if (!dk || !dv || !dp || !dout || !dsemi || cudaMalloc(&dslots, ints * 4) != cudaSuccess)
        goto fail;
    {
        int *h = (int *)malloc(ints * 4);
        for (int i = 0; i < ints; i++)
            h[i] = PA_QB_EMPTY;
        cudaMemcpy(dslots, h, ints * 4, cudaMemcpyHostToDevice);
        free(h);
    }
    ht.slots = dslots;
    ht.kmin = kmin;
    ht.size = size;
    ht.open = open;
    k_build<<<blocks(n), BT>>>(dk, dv, n, ht);
    k_probe<<<blocks(np), BT>>>(dp, np, ht, dout, dsemi);
    TRY(cudaDeviceSynchronize());
    TRY(cudaMemcpy(out, dout, np * 4, cudaMemcpyDeviceToHost));
    TRY(cudaMemcpy(semi, dsemi, np * 4, cudaMemcpyDeviceToHost));
    rc = 0;
fail:
    cudaFree(dk);
    cudaFree(dv);
    cudaFree(dp);
    cudaFree(dout);
    cudaFree(dsemi);
    cudaFree(dslots);
    return rc;
}

/* Group-by of n (key in [0, ngroups), value) rows: dense sums and an open table of osize slots. */
extern "C" int pa_test_qb_group(const int *gkeys, const int *vals, int n, int ngroups, long long *dense, int osize,
                                int *okeys, long long *osums, int *full)
{
    int rc = -1, *dg = (int *)dup_to_gpu(gkeys, n * 4), *dv = (int *)dup_to_gpu(vals, n * 4), *dok = NULL;
    unsigned long long *dd = (unsigned long long *)dup_to_gpu(NULL, ngroups * 8);
    unsigned long long *dos = (unsigned long long *)dup_to_gpu(NULL, osize * 8);
    int *dfull = (int *)dup_to_gpu(NULL, 4);
    int *h = (int *)malloc(osize * 4);
    for (int i = 0; i < osize; i++)
        h[i] = PA_QB_EMPTY;
    dok = (int *)dup_to_gpu(h, osize * 4);
    free(h);
    if (!dg || !dv || !dd || !dos || !dok || !dfull)
        goto fail;
    k_group<<<blocks(n), BT>>>(dg, dv, n, dd, dok, dos, osize, dfull);
    TRY(cudaDeviceSynchronize());
    TRY(cudaMemcpy(dense, dd, ngroups * 8, cudaMemcpyDeviceToHost));
    TRY(cudaMemcpy(okeys, dok, osize * 4, cudaMemcpyDeviceToHost));
    TRY(cudaMemcpy(osums, dos, osize * 8, cudaMemcpyDeviceToHost));
    TRY(cudaMemcpy(full, dfull, 4, cudaMemcpyDeviceToHost));
    rc = 0;
fail:
    cudaFree(dg);
    cudaFree(dv);
    cudaFree(dd);
    cudaFree(dos);
    cudaFree(dok);
    cudaFree(dfull);
    return rc;
}

extern "C" int pa_test_qb_scan(const int *in, int *out, int *total)
{
    int rc = -1, *din = (int *)dup_to_gpu(in, BT * 4), *dout = (int *)dup_to_gpu(NULL, BT * 4);
    int *dt = (int *)dup_to_gpu(NULL, 4);
    if (!din || !dout || !dt)
        goto fail;
    k_scan<<<1, BT>>>(din, dout, dt);
    TRY(cudaDeviceSynchronize());
    TRY(cudaMemcpy(out, dout, BT * 4, cudaMemcpyDeviceToHost));
    TRY(cudaMemcpy(total, dt, 4, cudaMemcpyDeviceToHost));
    rc = 0;
fail:
    cudaFree(din);
    cudaFree(dout);
    cudaFree(dt);
    return rc;
}
