/*
 * parray — array types and thread arrays inside GPU kernels.
 *
 * This header compiles three ways: as plain C on the host (where the structs are filled by pa_cuda_dtype and
 * pa_cuda_threads of cuda.h), under nvcc, and under NVRTC (it includes nothing, so no standard headers are
 * needed).  A kernel receives the structs by value, as ordinary kernel parameters, and evaluates offsets and
 * thread ids with the inline functions below; every size and stride is a value in the struct, so a type with
 * parameters (the manual's FROM<n>) is bound on the host and its values travel with it (listing 39).
 *
 *   pa_dtype     a data type's compiled layout: offset(k) = base + sum of digit_m(k) * stride_m over at most
 *                PA_DEV_MAX_MODES affine modes (the same size:stride layout that `parray show` prints).
 *   pa_dthreads  a cuda thread type: its thread count, the launch shape, and every dimension's (inner, size)
 *                so that tid along a dimension path is (tid / inner) % size, as on the CPU.
 *
 * Thread ids follow the manual (section 4.8): row-major over the leaves of the thread type.  By default the
 * threads are regrouped into blocks of PA_DEV_BLOCK (256) threads, one-dimensional, and threads past the
 * type's size must do nothing (pa_dev_active).  With the grid convention (PA_CUDA_GRID) the type has two
 * top-level dimensions, the grid and the block, each of at most three leaves; the rightmost leaf is x.
 */
#ifndef PARRAY_DEVICE_H
#define PARRAY_DEVICE_H

#define PA_DEV_MAX_MODES 8
#define PA_DEV_MAX_TNODES 16
#define PA_DEV_BLOCK 256

#if defined(__CUDACC__) || defined(__CUDACC_RTC__)
#define PA_DEV_HD __host__ __device__ __forceinline__
#define PA_DEV_D __device__ __forceinline__
#else
#define PA_DEV_HD static inline
#endif

/** A data type's compiled layout, passed to kernels by value (152 bytes). */
typedef struct pa_dtype {
    long long size;                       /* elements */
    long long base;                       /* offset of flat index 0, in elements */
    int nmodes;                           /* 0 .. PA_DEV_MAX_MODES; modes[0] outermost */
    int elm;                              /* bytes per element */
    long long msize[PA_DEV_MAX_MODES];
    long long mstride[PA_DEV_MAX_MODES];  /* in elements, may be negative */
} pa_dtype;

/** A cuda thread type, passed to kernels by value. */
typedef struct pa_dthreads {
    long long n;                          /* threads of the type (the launch may round up to whole blocks) */
    int grid;                             /* 1: grid convention, 0: blocks of PA_DEV_BLOCK */
    int nnodes;                           /* dimensions, in depth-first order; node 0 is the whole type */
    unsigned gdim[3], bdim[3];            /* the launch: grid and block, x y z */
    long long inner[PA_DEV_MAX_TNODES];   /* product of the sizes of the leaves after the node's last leaf */
    long long size[PA_DEV_MAX_TNODES];
    signed char child[PA_DEV_MAX_TNODES]; /* the node's first child, or -1 for a leaf */
    signed char next[PA_DEV_MAX_TNODES];  /* the node's next sibling, or -1 for the last child */
} pa_dthreads;

/** The offset (in elements) of flat index k of a type: its layout applied to k's row-major digits. */
PA_DEV_HD long long pa_dev_offset(const pa_dtype *t, long long k)
{
    long long off = t->base;
    for (int m = t->nmodes - 1; m >= 0; m--) {
        long long s = t->msize[m];
        off += (k % s) * t->mstride[m];
        k /= s;
    }
    return off;
}

/** The id along node i of thread tid (i from pa_dev_node or pa_cuda_thread_node). */
PA_DEV_HD long long pa_dev_tid_node(const pa_dthreads *t, int i, long long tid)
{
    return (tid / t->inner[i]) % t->size[i];
}

/**
 * The node of a dimension path ("" the whole type, "0", "0_1", ...), or -1 when the type has no such
 * dimension.  Paths name children by one digit per level, separated by '_', as in the manual's tid_0_1.
 */
PA_DEV_HD int pa_dev_node(const pa_dthreads *t, const char *path)
{
    int node = 0;
    for (const char *p = path; *p; p++) {
        if (p != path && *p++ != '_')   /* digits joined by single '_': "_0", "0_" and "01" are not paths */
            return -1;
        int c = *p - '0', k = c >= 0 && c <= 9 ? t->child[node] : -1;
        while (k >= 0 && c-- > 0)
            k = t->next[k];
        if (k < 0)
            return -1;
        node = k;
    }
    return node;
}

#if defined(__CUDACC__) || defined(__CUDACC_RTC__)
/** The calling CUDA thread's overall id in the thread type (PARRAY's tid). */
PA_DEV_D long long pa_dev_tid(const pa_dthreads *t)
{
    if (!t->grid)
        return ((long long)blockIdx.y * gridDim.x + blockIdx.x) * (long long)blockDim.x + threadIdx.x;
    long long b = ((long long)blockIdx.z * gridDim.y + blockIdx.y) * gridDim.x + blockIdx.x;
    long long r = ((long long)threadIdx.z * blockDim.y + threadIdx.y) * blockDim.x + threadIdx.x;
    return b * ((long long)blockDim.x * blockDim.y * blockDim.z) + r;
}

/** 1 when the calling thread is one of the type's threads (the launch rounds up to whole blocks). */
PA_DEV_D int pa_dev_active(const pa_dthreads *t)
{
    return pa_dev_tid(t) < t->n;
}

/** The calling thread's id along a dimension path (PARRAY's tid_0_1); -1 for a path the type lacks. */
PA_DEV_D long long pa_dev_tid_path(const pa_dthreads *t, const char *path)
{
    int i = pa_dev_node(t, path);
    return i < 0 ? -1 : pa_dev_tid_node(t, i, pa_dev_tid(t));
}
#endif

#endif
