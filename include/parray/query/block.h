/*
 * parray — block-wide query primitives over tiles (after Crystal, SIGMOD 2020): device code for nvcc and for
 * NVRTC (it includes nothing); the hash table's struct also compiles as host C, to pass it as a kernel argument.  docs/query-primitives.md shows how a query is written with them.
 *
 * A tile is BT x IPT consecutive rows of a column, held by one thread block of BT threads, IPT items per
 * thread in registers (an rmem array int items[IPT]).  BT and IPT are template arguments, so they are
 * compile-time constants: every loop over the items unrolls and the items stay in registers.  (The tile shape
 * is given as these two constants; when the rmem/smem types of the tiles work land, a kernel can take them from
 * such a type's static layout instead.)  Two arrangements of a tile's rows over the threads:
 *
 *     striped  item k of thread t is row k * BT + t: each load instruction of a warp reads 32 consecutive
 *              ints (128 bytes, whole sectors) — the coalesced arrangement, used by the queries;
 *     direct   item k of thread t is row t * IPT + k: each thread's items are consecutive (what a scan or a
 *              per-thread sequential step wants); a warp's load spans 32 x IPT x 4 bytes per instruction.
 *
 * The last tile of a column may be partial: n (rows in this tile, 0 < n <= BT * IPT) bounds every access.  A
 * selection is an int flags[IPT] (1: the row is still in) that predicates narrow; items past n are never in.
 *
 * Costs, in global-memory traffic per tile of n rows (elements of 4 bytes):
 *     pa_qb_load_*            4n bytes read, whole 32-byte sectors (striped: 4 sectors per warp instruction)
 *     pa_qb_load_sel          only the sectors holding a selected row: 4n bytes at most, about
 *                             min(1, 8 s) x 4n for selectivity s (a sector holds 8 rows)
 *     predicates, pa_qb_sel_* none (registers)
 *     pa_qb_build_perfect     one 4-byte store per selected row into the table (kmax - kmin + 1 slots)
 *     pa_qb_build_open        per selected row one 4-byte atomicCAS (plus one per collision) and a 4-byte store
 *     pa_qb_probe_*           per selected row one 4-byte random read (perfect) or 8 bytes per probe step (open);
 *                             served by L2 while the table fits in it (H100: 50 MB)
 *     pa_qb_sum               one 8-byte atomicAdd per tile (a block reduction in registers and shared memory)
 *     pa_qb_group_add_dense   one 8-byte atomicAdd per selected row, at slot index (L2 atomics)
 *     pa_qb_group_add_open    per selected row a 4-byte atomicCAS per probe step, then an 8-byte atomicAdd
 *     pa_qb_scan_exclusive    none global; 4 bytes of shared memory per warp
 *     pa_qb_select            one 8-byte atomicAdd per tile, then 4 bytes written per selected row, consecutive
 *                             (rows are shuffled through shared memory first so the writes are coalesced)
 */
#ifndef PARRAY_QUERY_BLOCK_H
#define PARRAY_QUERY_BLOCK_H

#define PA_QB_EMPTY (-2147483647 - 1)   /* an empty hash-table slot: no key or value may be INT_MIN */

/**
 * A hash table from int keys to int values in global memory.  Perfect hashing (open == 0): slots[key - kmin],
 * size slots, for keys in a dense range; a slot holds the value or PA_QB_EMPTY.  Open addressing (open == 1):
 * size (a power of two) pairs {key, value} at slots[2 h], slots[2 h + 1], linear probing from a multiplicative
 * hash.  Both start with every slot PA_QB_EMPTY.  A key-only table stores value 0.
 */
typedef struct pa_qb_ht {
    int *slots;
    int kmin;
    int size;
    int open;
} pa_qb_ht;

#if defined(__CUDACC__) || defined(__CUDACC_RTC__)

/* ---- loads ----------------------------------------------------------------------------------------------- */

/** Striped load: items[k] = col[k * BT + threadIdx.x] for rows below n (col points at the tile's first row). */
template <int BT, int IPT, typename T> __device__ __forceinline__ void pa_qb_load(const T *col, int n, T (&items)[IPT])
{
    if (n == BT * IPT) {
#pragma unroll
        for (int k = 0; k < IPT; k++)
            items[k] = col[k * BT + threadIdx.x];
    } else {
#pragma unroll
        for (int k = 0; k < IPT; k++)
            if (k * BT + (int)threadIdx.x < n)
                items[k] = col[k * BT + threadIdx.x];
    }
}

/** Direct load: items[k] = col[threadIdx.x * IPT + k] for rows below n. */
template <int BT, int IPT, typename T>
__device__ __forceinline__ void pa_qb_load_direct(const T *col, int n, T (&items)[IPT])
{
#pragma unroll
    for (int k = 0; k < IPT; k++)
        if ((int)threadIdx.x * IPT + k < n)
            items[k] = col[threadIdx.x * IPT + k];
}

/** Striped load of the selected rows only (the others keep their value). */
template <int BT, int IPT, typename T>
__device__ __forceinline__ void pa_qb_load_sel(const T *col, const int (&sel)[IPT], T (&items)[IPT])
{
#pragma unroll
    for (int k = 0; k < IPT; k++)
        if (sel[k])
            items[k] = col[k * BT + threadIdx.x];
}

/* ---- selections and predicates ---------------------------------------------------------------------------- */

/** A new selection: every striped row below n in. */
template <int BT, int IPT> __device__ __forceinline__ void pa_qb_sel_init(int n, int (&sel)[IPT])
{
#pragma unroll
    for (int k = 0; k < IPT; k++)
        sel[k] = k * BT + (int)threadIdx.x < n;
}

/** A new selection in the direct arrangement. */
template <int BT, int IPT> __device__ __forceinline__ void pa_qb_sel_init_direct(int n, int (&sel)[IPT])
{
#pragma unroll
    for (int k = 0; k < IPT; k++)
        sel[k] = (int)threadIdx.x * IPT + k < n;
}

/* Predicates on one value: function objects, so that and/or take any of them. */
template <typename T> struct pa_qb_eq { T v; __device__ bool operator()(T x) const { return x == v; } };
template <typename T> struct pa_qb_lt { T v; __device__ bool operator()(T x) const { return x < v; } };
template <typename T> struct pa_qb_gt { T v; __device__ bool operator()(T x) const { return x > v; } };
template <typename T> struct pa_qb_le { T v; __device__ bool operator()(T x) const { return x <= v; } };
template <typename T> struct pa_qb_ge { T v; __device__ bool operator()(T x) const { return x >= v; } };
/** lo <= x <= hi */
template <typename T> struct pa_qb_between {
    T lo, hi;
    __device__ bool operator()(T x) const { return x >= lo && x <= hi; }
};
/** lo <= x <= hi, or x == alt (an IN list of a range and one more value) */
template <typename T> struct pa_qb_between_or_eq {
    T lo, hi, alt;
    __device__ bool operator()(T x) const { return (x >= lo && x <= hi) || x == alt; }
};

/** sel &= pred(items): a conjunct (the row must already be selected). */
template <int IPT, typename T, typename P>
__device__ __forceinline__ void pa_qb_and(const T (&items)[IPT], P pred, int (&sel)[IPT])
{
#pragma unroll
    for (int k = 0; k < IPT; k++)
        sel[k] = sel[k] && pred(items[k]);
}

/** sel |= valid && pred(items): a disjunct; valid is the tile's initial selection (rows below n). */
template <int IPT, typename T, typename P>
__device__ __forceinline__ void pa_qb_or(const T (&items)[IPT], P pred, const int (&valid)[IPT], int (&sel)[IPT])
{
#pragma unroll
    for (int k = 0; k < IPT; k++)
        sel[k] = sel[k] || (valid[k] && pred(items[k]));
}

/** The number of the calling thread's selected items. */
template <int IPT> __device__ __forceinline__ int pa_qb_count(const int (&sel)[IPT])
{
    int c = 0;
#pragma unroll
    for (int k = 0; k < IPT; k++)
        c += sel[k] != 0;
    return c;
}

/* ---- hash tables -------------------------------------------------------------------------------------------- */


__device__ __forceinline__ unsigned pa_qb_hash(int key, int size)
{
    return ((unsigned)key * 2654435761u) & (unsigned)(size - 1);
}

/** Inserts the selected (key, value) pairs by perfect hashing (keys must lie in [kmin, kmin + size)). */
template <int IPT>
__device__ __forceinline__ void pa_qb_build_perfect(pa_qb_ht ht, const int (&keys)[IPT], const int (&vals)[IPT],
                                                    const int (&sel)[IPT])
{
#pragma unroll
    for (int k = 0; k < IPT; k++)
        if (sel[k])
            ht.slots[keys[k] - ht.kmin] = vals[k];
}

/** Inserts the selected (key, value) pairs by open addressing (keys distinct; the table must not be full). */
template <int IPT>
__device__ __forceinline__ void pa_qb_build_open(pa_qb_ht ht, const int (&keys)[IPT], const int (&vals)[IPT],
                                                 const int (&sel)[IPT])
{
#pragma unroll
    for (int k = 0; k < IPT; k++) {
        if (!sel[k])
            continue;
        unsigned h = pa_qb_hash(keys[k], ht.size);
        while (atomicCAS(&ht.slots[2 * h], PA_QB_EMPTY, keys[k]) != PA_QB_EMPTY)
            h = (h + 1) & (unsigned)(ht.size - 1);
        ht.slots[2 * h + 1] = vals[k];
    }
}

/** Either build, as the table says. */
template <int IPT>
__device__ __forceinline__ void pa_qb_build(pa_qb_ht ht, const int (&keys)[IPT], const int (&vals)[IPT],
                                            const int (&sel)[IPT])
{
    if (ht.open)
        pa_qb_build_open<IPT>(ht, keys, vals, sel);
    else
        pa_qb_build_perfect<IPT>(ht, keys, vals, sel);
}

/** One lookup: the value, or PA_QB_EMPTY for a key not in the table. */
__device__ __forceinline__ int pa_qb_lookup(pa_qb_ht ht, int key)
{
    if (!ht.open) {
        unsigned i = (unsigned)(key - ht.kmin);
        return i < (unsigned)ht.size ? ht.slots[i] : PA_QB_EMPTY;
    }
    for (unsigned h = pa_qb_hash(key, ht.size);; h = (h + 1) & (unsigned)(ht.size - 1)) {
        int k = ht.slots[2 * h];
        if (k == key)
            return ht.slots[2 * h + 1];
        if (k == PA_QB_EMPTY)
            return PA_QB_EMPTY;
    }
}

/** Probe with values: for each selected row, vals = the key's value; rows whose key is absent leave sel. */
template <int IPT>
__device__ __forceinline__ void pa_qb_probe(pa_qb_ht ht, const int (&keys)[IPT], int (&sel)[IPT], int (&vals)[IPT])
{
#pragma unroll
    for (int k = 0; k < IPT; k++)
        if (sel[k]) {
            vals[k] = pa_qb_lookup(ht, keys[k]);
            sel[k] = vals[k] != PA_QB_EMPTY;
        }
}

/** Probe for presence only (a semi-join). */
template <int IPT>
__device__ __forceinline__ void pa_qb_probe_semi(pa_qb_ht ht, const int (&keys)[IPT], int (&sel)[IPT])
{
#pragma unroll
    for (int k = 0; k < IPT; k++)
        if (sel[k])
            sel[k] = pa_qb_lookup(ht, keys[k]) != PA_QB_EMPTY;
}

/* ---- reductions, aggregation ------------------------------------------------------------------------------ */

/** The block's sum of one value per thread, valid in thread 0.  shm: BT / 32 values of shared memory. */
template <int BT, typename T> __device__ __forceinline__ T pa_qb_block_sum(T v, T *shm)
{
#pragma unroll
    for (int o = 16; o > 0; o /= 2)
        v += __shfl_down_sync(0xffffffffu, v, o);
    if ((threadIdx.x & 31) == 0)
        shm[threadIdx.x / 32] = v;
    __syncthreads();
    if (threadIdx.x == 0) {
        v = shm[0];
#pragma unroll
        for (int w = 1; w < BT / 32; w++)
            v += shm[w];
    }
    __syncthreads();
    return v;
}

/** Adds the block's sum of one value per thread to *out: one atomicAdd per tile. */
template <int BT>
__device__ __forceinline__ void pa_qb_sum(long long v, long long *shm, unsigned long long *out)
{
    long long s = pa_qb_block_sum<BT, long long>(v, shm);
    if (threadIdx.x == 0 && s != 0)
        atomicAdd(out, (unsigned long long)s);
}

/** Group-by into a dense table: table[slot] += value for each selected row (signed sums wrap as two's complement). */
template <int IPT>
__device__ __forceinline__ void pa_qb_group_add_dense(unsigned long long *table, const int (&slot)[IPT],
                                                      const long long (&v)[IPT], const int (&sel)[IPT])
{
#pragma unroll
    for (int k = 0; k < IPT; k++)
        if (sel[k])
            atomicAdd(&table[slot[k]], (unsigned long long)v[k]);
}

/**
 * Group-by into an open-addressing table of size (a power of two) int keys and 64-bit sums, keys initially
 * PA_QB_EMPTY and sums 0: the group key is claimed with atomicCAS, then its sum takes an atomicAdd.  Returns 0
 * in every thread whose row found the table full (the caller should raise an error), else 1.
 */
template <int IPT>
__device__ __forceinline__ int pa_qb_group_add_open(int *keys, unsigned long long *sums, int size,
                                                    const int (&gkey)[IPT], const long long (&v)[IPT],
                                                    const int (&sel)[IPT])
{
    int ok = 1;
#pragma unroll
    for (int k = 0; k < IPT; k++) {
        if (!sel[k])
            continue;
        unsigned h = pa_qb_hash(gkey[k], size);
        int steps = 0;
        for (;;) {
            int old = keys[h];
            if (old == PA_QB_EMPTY)
                old = atomicCAS(&keys[h], PA_QB_EMPTY, gkey[k]);
            if (old == PA_QB_EMPTY || old == gkey[k]) {
                atomicAdd(&sums[h], (unsigned long long)v[k]);
                break;
            }
            if (++steps == size) {
                ok = 0;
                break;
            }
            h = (h + 1) & (unsigned)(size - 1);
        }
    }
    return ok;
}

/* ---- scan and shuffle: materialising selected rows --------------------------------------------------------- */

/**
 * Block-wide exclusive prefix sum of one int per thread; *total gets the block's sum (in every thread).
 * shm: BT / 32 + 1 ints of shared memory.
 */
template <int BT> __device__ __forceinline__ int pa_qb_scan_exclusive(int v, int *shm, int *total)
{
    int lane = threadIdx.x & 31, warp = threadIdx.x / 32, x = v;
#pragma unroll
    for (int o = 1; o < 32; o *= 2) {
        int y = __shfl_up_sync(0xffffffffu, x, o);
        if (lane >= o)
            x += y;
    }
    if (lane == 31)
        shm[warp] = x;
    __syncthreads();
    if (threadIdx.x == 0) {
        int run = 0;
        for (int w = 0; w < BT / 32; w++) {
            int t = shm[w];
            shm[w] = run;
            run += t;
        }
        shm[BT / 32] = run;
    }
    __syncthreads();
    int r = shm[warp] + x - v;
    *total = shm[BT / 32];
    __syncthreads();
    return r;
}

/**
 * Appends the selected striped items of the tile to out, keeping their order within the tile: the block
 * counts them (scan), takes its place in out with one atomicAdd on *counter, gathers them in shared memory
 * (shm_items: BT * IPT values) and writes them out consecutively.  Returns the number
 * appended by the block.  Tiles land in out in the order their atomics happen.  shm: BT / 32 + 1 ints.
 */
template <int BT, int IPT, typename T>
__device__ __forceinline__ int pa_qb_select(const T (&items)[IPT], const int (&sel)[IPT], T *out,
                                            unsigned long long *counter, T *shm_items, int *shm)
{
    /* Rank by the striped row number: count per item column k, in order of k then thread. */
    int base = 0, total = 0;
#pragma unroll
    for (int k = 0; k < IPT; k++) {
        int t;
        int r = pa_qb_scan_exclusive<BT>(sel[k] ? 1 : 0, shm, &t);
        if (sel[k])
            shm_items[base + r] = items[k];
        base += t;
    }
    __shared__ unsigned long long at;
    total = base;
    if (threadIdx.x == 0)
        at = total ? atomicAdd(counter, (unsigned long long)total) : 0;
    __syncthreads();
    for (int i = threadIdx.x; i < total; i += BT)
        out[at + i] = shm_items[i];
    __syncthreads();
    return total;
}

#endif
#endif
