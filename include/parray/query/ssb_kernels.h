/*
 * parray — the Star Schema Benchmark's 13 queries on the GPU, written with the block-wide primitives of
 * <parray/query/block.h>.  Device code for NVRTC and nvcc: define PA_SSB_BT (threads per block) and PA_SSB_IPT
 * (items per thread) before including it; src/query/ssb_gpu.c compiles it through pa_cuda_compile and launches
 * the kernels with pa_cuda_for.  docs/query-primitives.md walks through q2.1.
 *
 * A query is: the dimension tables' hash tables built first (pa_ssb_build, one launch per joined dimension;
 * a table maps a key to its group attribute minus the attribute's smallest value, or 0 for a semi-join), then
 * one kernel over lineorder with one tile per thread block.  A tile's rows are probed against the most
 * selective dimension first, and each later column is loaded only for the rows still selected.  Matching rows
 * add their aggregate into a dense table of 64-bit sums at slot = sum over the dimensions of value x mult
 * (the host chooses mult so that slots are the ORDER BY's mixed radix).  q1.x have no joins: the date filter
 * is a range of lo_orderdate, and the sum is reduced in the block with one atomic per tile.
 */
#ifndef PARRAY_QUERY_SSB_KERNELS_H
#define PARRAY_QUERY_SSB_KERNELS_H

#include <parray/query/block.h>

#if !defined(PA_SSB_BT) || !defined(PA_SSB_IPT)
#error "define PA_SSB_BT and PA_SSB_IPT (the tile shape) before including parray/query/ssb_kernels.h"
#endif

#define PA_SSB_TILE (PA_SSB_BT * PA_SSB_IPT)

/* The tile of this block: its first row and its number of rows. */
__device__ __forceinline__ int pa_ssb_tile(long long n, long long *first)
{
    *first = (long long)blockIdx.x * PA_SSB_TILE;
    long long left = n - *first;
    return left < PA_SSB_TILE ? (int)left : PA_SSB_TILE;
}

/** p[0 .. n) = v, over any grid (hash tables start PA_QB_EMPTY, group tables 0). */
extern "C" __global__ void pa_ssb_fill(int *p, long long n, int v)
{
    for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += (long long)gridDim.x * blockDim.x)
        p[i] = v;
}

/**
 * Builds a dimension's hash table: the rows whose f0 and f1 pass (lo <= x <= hi or x == alt; a NULL column is no
 * filter) insert key -> vals - vmin (vals NULL: 0).  One tile per block.
 */
extern "C" __global__ void __launch_bounds__(PA_SSB_BT)
    pa_ssb_build(const int *keys, long long n, const int *f0, int lo0, int hi0, int alt0, const int *f1, int lo1,
                 int hi1, int alt1, const int *vals, int vmin, pa_qb_ht ht)
{
    long long first;
    int m = pa_ssb_tile(n, &first);
    int k[PA_SSB_IPT], x[PA_SSB_IPT], v[PA_SSB_IPT], sel[PA_SSB_IPT];
    pa_qb_sel_init<PA_SSB_BT, PA_SSB_IPT>(m, sel);
    if (f0) {
        pa_qb_load<PA_SSB_BT, PA_SSB_IPT>(f0 + first, m, x);
        pa_qb_and<PA_SSB_IPT>(x, pa_qb_between_or_eq<int>{lo0, hi0, alt0}, sel);
    }
    if (f1) {
        pa_qb_load_sel<PA_SSB_BT, PA_SSB_IPT>(f1 + first, sel, x);
        pa_qb_and<PA_SSB_IPT>(x, pa_qb_between_or_eq<int>{lo1, hi1, alt1}, sel);
    }
    pa_qb_load_sel<PA_SSB_BT, PA_SSB_IPT>(keys + first, sel, k);
#pragma unroll
    for (int i = 0; i < PA_SSB_IPT; i++)
        v[i] = 0;
    if (vals)
        pa_qb_load_sel<PA_SSB_BT, PA_SSB_IPT>(vals + first, sel, v);
#pragma unroll
    for (int i = 0; i < PA_SSB_IPT; i++)
        v[i] = vals ? v[i] - vmin : 0;
    pa_qb_build<PA_SSB_IPT>(ht, k, v, sel);
}

/** q1.x: sum(lo_extendedprice * lo_discount) over rows with lo_orderdate, lo_quantity, lo_discount in range. */
extern "C" __global__ void __launch_bounds__(PA_SSB_BT)
    pa_ssb_q1(const int *lo_orderdate, const int *lo_quantity, const int *lo_discount, const int *lo_extendedprice,
              long long n, int date_lo, int date_hi, int qty_lo, int qty_hi, int disc_lo, int disc_hi,
              unsigned long long *out)
{
    __shared__ long long shm[PA_SSB_BT / 32];
    long long first;
    int m = pa_ssb_tile(n, &first);
    int x[PA_SSB_IPT], disc[PA_SSB_IPT], sel[PA_SSB_IPT];
    pa_qb_load<PA_SSB_BT, PA_SSB_IPT>(lo_orderdate + first, m, x);
    pa_qb_sel_init<PA_SSB_BT, PA_SSB_IPT>(m, sel);
    pa_qb_and<PA_SSB_IPT>(x, pa_qb_between<int>{date_lo, date_hi}, sel);
    pa_qb_load_sel<PA_SSB_BT, PA_SSB_IPT>(lo_quantity + first, sel, x);
    pa_qb_and<PA_SSB_IPT>(x, pa_qb_between<int>{qty_lo, qty_hi}, sel);
    pa_qb_load_sel<PA_SSB_BT, PA_SSB_IPT>(lo_discount + first, sel, disc);
    pa_qb_and<PA_SSB_IPT>(disc, pa_qb_between<int>{disc_lo, disc_hi}, sel);
    pa_qb_load_sel<PA_SSB_BT, PA_SSB_IPT>(lo_extendedprice + first, sel, x);
    long long sum = 0;
#pragma unroll
    for (int i = 0; i < PA_SSB_IPT; i++)
        if (sel[i])
            sum += (long long)x[i] * disc[i];
    pa_qb_sum<PA_SSB_BT>(sum, shm, out);
}

/* Probes one more dimension: load its foreign key for the selected rows, probe, add value x mult to the slot. */
__device__ __forceinline__ void pa_ssb_join(const int *fk, pa_qb_ht ht, int mult, int (&sel)[PA_SSB_IPT],
                                            int (&slot)[PA_SSB_IPT])
{
    int k[PA_SSB_IPT], v[PA_SSB_IPT];
    pa_qb_load_sel<PA_SSB_BT, PA_SSB_IPT>(fk, sel, k);
    pa_qb_probe<PA_SSB_IPT>(ht, k, sel, v);
#pragma unroll
    for (int i = 0; i < PA_SSB_IPT; i++)
        slot[i] += sel[i] ? v[i] * mult : 0;
}

/** q2.x: sum(lo_revenue) by (d_year, p_brand1): probe supplier (region), then part (brand), then date. */
extern "C" __global__ void __launch_bounds__(PA_SSB_BT)
    pa_ssb_q2(const int *lo_suppkey, const int *lo_partkey, const int *lo_orderdate, const int *lo_revenue,
              long long n, pa_qb_ht supp, pa_qb_ht part, pa_qb_ht date, int mpart, int mdate,
              unsigned long long *groups)
{
    long long first;
    int m = pa_ssb_tile(n, &first);
    int k[PA_SSB_IPT], sel[PA_SSB_IPT], slot[PA_SSB_IPT] = {0};
    long long rev[PA_SSB_IPT];
    pa_qb_load<PA_SSB_BT, PA_SSB_IPT>(lo_suppkey + first, m, k);
    pa_qb_sel_init<PA_SSB_BT, PA_SSB_IPT>(m, sel);
    pa_qb_probe_semi<PA_SSB_IPT>(supp, k, sel);
    pa_ssb_join(lo_partkey + first, part, mpart, sel, slot);
    pa_ssb_join(lo_orderdate + first, date, mdate, sel, slot);
    pa_qb_load_sel<PA_SSB_BT, PA_SSB_IPT>(lo_revenue + first, sel, k);
#pragma unroll
    for (int i = 0; i < PA_SSB_IPT; i++)
        rev[i] = k[i];
    pa_qb_group_add_dense<PA_SSB_IPT>(groups, slot, rev, sel);
}

/** q3.x: sum(lo_revenue) by (customer attribute, supplier attribute, d_year): customer, supplier, date. */
extern "C" __global__ void __launch_bounds__(PA_SSB_BT)
    pa_ssb_q3(const int *lo_custkey, const int *lo_suppkey, const int *lo_orderdate, const int *lo_revenue,
              long long n, pa_qb_ht cust, pa_qb_ht supp, pa_qb_ht date, int mcust, int msupp, int mdate,
              unsigned long long *groups)
{
    long long first;
    int m = pa_ssb_tile(n, &first);
    int k[PA_SSB_IPT], v[PA_SSB_IPT], sel[PA_SSB_IPT], slot[PA_SSB_IPT];
    long long rev[PA_SSB_IPT];
    pa_qb_load<PA_SSB_BT, PA_SSB_IPT>(lo_custkey + first, m, k);
    pa_qb_sel_init<PA_SSB_BT, PA_SSB_IPT>(m, sel);
    pa_qb_probe<PA_SSB_IPT>(cust, k, sel, v);
#pragma unroll
    for (int i = 0; i < PA_SSB_IPT; i++)
        slot[i] = sel[i] ? v[i] * mcust : 0;
    pa_ssb_join(lo_suppkey + first, supp, msupp, sel, slot);
    pa_ssb_join(lo_orderdate + first, date, mdate, sel, slot);
    pa_qb_load_sel<PA_SSB_BT, PA_SSB_IPT>(lo_revenue + first, sel, k);
#pragma unroll
    for (int i = 0; i < PA_SSB_IPT; i++)
        rev[i] = k[i];
    pa_qb_group_add_dense<PA_SSB_IPT>(groups, slot, rev, sel);
}

/** q4.x: sum(lo_revenue - lo_supplycost) by (d_year, ...): customer, supplier, part, date. */
extern "C" __global__ void __launch_bounds__(PA_SSB_BT)
    pa_ssb_q4(const int *lo_custkey, const int *lo_suppkey, const int *lo_partkey, const int *lo_orderdate,
              const int *lo_revenue, const int *lo_supplycost, long long n, pa_qb_ht cust, pa_qb_ht supp,
              pa_qb_ht part, pa_qb_ht date, int mcust, int msupp, int mpart, int mdate, unsigned long long *groups)
{
    long long first;
    int m = pa_ssb_tile(n, &first);
    int k[PA_SSB_IPT], c[PA_SSB_IPT], v[PA_SSB_IPT], sel[PA_SSB_IPT], slot[PA_SSB_IPT];
    long long profit[PA_SSB_IPT];
    pa_qb_load<PA_SSB_BT, PA_SSB_IPT>(lo_custkey + first, m, k);
    pa_qb_sel_init<PA_SSB_BT, PA_SSB_IPT>(m, sel);
    pa_qb_probe<PA_SSB_IPT>(cust, k, sel, v);
#pragma unroll
    for (int i = 0; i < PA_SSB_IPT; i++)
        slot[i] = sel[i] ? v[i] * mcust : 0;
    pa_ssb_join(lo_suppkey + first, supp, msupp, sel, slot);
    pa_ssb_join(lo_partkey + first, part, mpart, sel, slot);
    pa_ssb_join(lo_orderdate + first, date, mdate, sel, slot);
    pa_qb_load_sel<PA_SSB_BT, PA_SSB_IPT>(lo_revenue + first, sel, k);
    pa_qb_load_sel<PA_SSB_BT, PA_SSB_IPT>(lo_supplycost + first, sel, c);
#pragma unroll
    for (int i = 0; i < PA_SSB_IPT; i++)
        profit[i] = (long long)k[i] - c[i];
    pa_qb_group_add_dense<PA_SSB_IPT>(groups, slot, profit, sel);
}

#endif
