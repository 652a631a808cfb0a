/*
 * parray — GPU copies whose device memory is not on the calling thread's current GPU.
 *
 * A dmem array lives on the GPU that was current when it was created (the manual's _PA_INIT_GPU(n) is
 * pa_cuda_set_device(n)).  The executors launch kernels and borrow staging buffers on the current GPU, so every
 * CUDA executor runs through pa_cuda__on_devices, which on a machine with one GPU only calls it.  With several:
 *  - dmem on one GPU (one side, or both on the same GPU): that GPU is made current for the copy and the
 *    caller's current GPU is restored after, so the kernels, staging buffers and DMAs are that GPU's;
 *  - dmem on two GPUs: the copy runs on the destination's GPU.  When that GPU may map the source's memory
 *    (peer access, enabled on first use for the pair), the executor reads the source directly; otherwise the
 *    source's extent is first copied into a buffer on the destination's GPU (cudaMemcpyPeer), and the executor
 *    reads that copy.  The buffer is the copy's own and is freed before the call returns.
 * The queued variants run on the caller's stream when everything is on the current GPU, or when the destination
 * is and the current GPU may map the source's; otherwise they wait for the stream and run synchronously (a
 * stream belongs to one GPU).
 */
#include "cuda_backend.h"

/* The smallest and largest element offsets of one side of a shape (relative to its pointer). */
static void side_extent(const pa__copy_shape *s, int dst, int64_t *lo, int64_t *hi)
{
    int64_t a = dst ? s->dst_base : s->src_base, b = a;
    for (int m = 0; m < s->nmodes; m++) {
        const int64_t *t = dst ? s->dst_table[m] : s->src_table[m];
        int64_t st = dst ? s->dst_stride[m] : s->src_stride[m], mn = 0, mx = 0;
        if (s->size[m] == 0) {
            *lo = *hi = a;
            return;
        }
        if (t) {
            mn = mx = t[0];
            for (int64_t i = 1; i < s->size[m]; i++) {
                mn = t[i] < mn ? t[i] : mn;
                mx = t[i] > mx ? t[i] : mx;
            }
        } else if (st < 0) {
            mn = st * (s->size[m] - 1);
        } else {
            mx = st * (s->size[m] - 1);
        }
        a += mn;
        b += mx;
    }
    *lo = a;
    *hi = b;
}

/* The GPU holding one side's memory (dst 1, src 0), or -1 for host memory.  Asked of the lowest element the
 * copy touches, which lies inside the array's allocation whatever the layout's base. */
static int device_of(const pa__copy_shape *s, int dst, const void *base, int *dev)
{
    *dev = -1;
    if (pa_cuda__where_of(dst ? s->dst_mem : s->src_mem) != PA_CUDA__DEVICE)
        return PA_OK;
    int64_t lo, hi;
    side_extent(s, dst, &lo, &hi);
    const void *p = (const char *)base + pa__bytes(lo, s->elm);
    struct cudaPointerAttributes a;
    cudaError_t e = cudaPointerGetAttributes(&a, p);
    if (e != cudaSuccess)
        return pa_cuda__fail(e, "copy: finding the GPU of device pointer %p", p);
    if (a.type != cudaMemoryTypeDevice && a.type != cudaMemoryTypeManaged)
        return pa__err(PA_ERR_INVAL, "copy: %p was given as dmem but is not device memory", p);
    *dev = a.device;
    return PA_OK;
}

static int enable_peer(int dev, int peer)
{
    cudaError_t e = cudaDeviceEnablePeerAccess(peer, 0);
    if (e == cudaErrorPeerAccessAlreadyEnabled) {
        (void)cudaGetLastError();
        return PA_OK;
    }
    return e == cudaSuccess ? PA_OK : pa_cuda__fail(e, "copy: enabling GPU %d's access to GPU %d", dev, peer);
}

int pa_cuda__cross(const pa__plan *p, void *dst, const void *src, int ddev, int sdev, int stage,
                   pa_cuda__exec_fn run)
{
    const pa__copy_shape *s = &p->shape;
    int can = 0;
    cudaError_t e = cudaSetDevice(ddev);
    if (e != cudaSuccess)
        return pa_cuda__fail(e, "copy: cudaSetDevice(%d)", ddev);
    if (!stage && ddev != sdev && cudaDeviceCanAccessPeer(&can, ddev, sdev) != cudaSuccess)
        can = 0;
    if (!stage && (ddev == sdev || (can && enable_peer(ddev, sdev) == PA_OK)))
        return run(p, dst, src);
    int64_t lo, hi;
    side_extent(s, 0, &lo, &hi);
    size_t bytes = (size_t)pa__bytes(hi - lo + 1, s->elm);
    char *buf = NULL;
    if ((e = cudaMalloc((void **)&buf, bytes)) != cudaSuccess)
        return pa_cuda__fail(e, "copy: a %zu-byte buffer on GPU %d for the source on GPU %d", bytes, ddev, sdev);
    const char *from = (const char *)src + pa__bytes(lo, s->elm);
    int st = PA_OK;
    e = cudaMemcpyPeer(buf, ddev, from, sdev, bytes);
    if (e != cudaSuccess)
        st = pa_cuda__fail(e, "copy: cudaMemcpyPeer of %zu bytes from GPU %d to GPU %d", bytes, sdev, ddev);
    else
        st = run(p, dst, buf - pa__bytes(lo, s->elm));
    cudaFree(buf);
    return st;
}

/* Where the copy must run: 0 when on the current GPU as it is, else 1 with the GPUs of both sides. */
static int elsewhere(const pa__plan *p, void *dst, const void *src, int *cur, int *ddev, int *sdev, int *st)
{
    *st = PA_OK;
    *ddev = *sdev = -1;
    if (pa_cuda__device_count() < 2)
        return 0;
    cudaError_t e = cudaGetDevice(cur);
    if (e != cudaSuccess) {
        *st = pa_cuda__fail(e, "copy: cudaGetDevice");
        return 1;
    }
    if ((*st = device_of(&p->shape, 1, dst, ddev)) != PA_OK || (*st = device_of(&p->shape, 0, src, sdev)) != PA_OK)
        return 1;
    return (*ddev >= 0 && *ddev != *cur) || (*sdev >= 0 && *sdev != *cur);
}

int pa_cuda__on_devices(const pa__plan *p, void *dst, const void *src, pa_cuda__exec_fn run)
{
    int cur, ddev, sdev, st;
    if (!elsewhere(p, dst, src, &cur, &ddev, &sdev, &st))
        return run(p, dst, src);
    if (st != PA_OK)
        return st;
    if (ddev >= 0 && sdev >= 0 && ddev != sdev) {
        st = pa_cuda__cross(p, dst, src, ddev, sdev, 0, run);
    } else {
        int to = ddev >= 0 ? ddev : sdev;
        cudaError_t e = cudaSetDevice(to);
        st = e == cudaSuccess ? run(p, dst, src) : pa_cuda__fail(e, "copy: cudaSetDevice(%d)", to);
    }
    cudaError_t e = cudaSetDevice(cur);
    return st != PA_OK || e == cudaSuccess ? st : pa_cuda__fail(e, "copy: restoring GPU %d", cur);
}

int pa_cuda__on_devices_async(const pa__plan *p, void *dst, const void *src, void *stream,
                              pa_cuda__exec_async_fn queue, pa_cuda__exec_fn run)
{
    int cur, ddev, sdev, st, can = 0;
    if (!elsewhere(p, dst, src, &cur, &ddev, &sdev, &st))
        return queue(p, dst, src, stream);
    if (st != PA_OK)
        return st;
    /* the destination on the current GPU (whose stream this is) and the source on one it may map: queued, the
     * kernels reading the source over the link (the MPI backend's pulls from other processes' buffers) */
    if (ddev == cur && sdev >= 0 && cudaDeviceCanAccessPeer(&can, cur, sdev) == cudaSuccess && can &&
        enable_peer(cur, sdev) == PA_OK)
        return queue(p, dst, src, stream);
    st = pa_cuda__stream_wait(stream);
    return st != PA_OK ? st : pa_cuda__on_devices(p, dst, src, run);
}
