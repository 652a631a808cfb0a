/*
 * parray — how the CUDA copy strategies run (their probes and costs are in copy_cuda_strategies.c).
 *
 * Every executor is synchronous, like pa_copy: it returns after the data has landed.  Kernels and DMAs go to
 * the legacy default stream, so that they are ordered after whatever the caller queued there; the pipeline's
 * streams are blocking streams, which wait for that stream too.
 */
#include <string.h>

#include "cuda_backend.h"

pa_cuda__where pa_cuda__where_of(const pa__mem_ops *m)
{
    /* By identity: another backend's memory that the CPU cannot reach is none of ours. */
    if (m == &pa__mem_dmem_ops)
        return PA_CUDA__DEVICE;
    if (m == &pa__mem_pinned_ops)
        return PA_CUDA__PINNED;
    return !m || m->host_accessible ? PA_CUDA__PAGEABLE : PA_CUDA__OTHER;
}

int pa_cuda__side_dense(const pa__copy_shape *s, int dst)
{
    int order[PA__MAX_MODES], n = 0;
    const int64_t *st = dst ? s->dst_stride : s->src_stride;
    for (int m = 0; m < s->nmodes; m++) {
        if (dst ? s->dst_table[m] != NULL : s->src_table[m] != NULL)
            return 0;
        if (s->size[m] == 1)
            continue;
        if (st[m] < 0)
            return 0;
        int k = n++;
        for (; k > 0 && st[order[k - 1]] > st[m]; k--)
            order[k] = order[k - 1];
        order[k] = m;
    }
    int64_t expect = 1;
    for (int k = 0; k < n; k++) {
        if (st[order[k]] != expect)
            return 0;
        expect *= s->size[order[k]];
    }
    return 1;
}

static char *at(void *p, int64_t off, size_t elm)
{
    return (char *)p + pa__bytes(off, elm);
}

int pa_cuda__exec_dma_async(const pa__plan *p, void *dst, const void *src, void *stream)
{
    const pa__copy_shape *s = &p->shape;
    int st = pa_cuda__ready("copy");
    if (st != PA_OK)
        return st;
    size_t bytes = (size_t)pa__bytes(s->total, s->elm);
    cudaError_t e = cudaMemcpyAsync(at(dst, s->dst_base, s->elm), at((void *)src, s->src_base, s->elm), bytes,
                                    cudaMemcpyDefault, (cudaStream_t)stream);
    return e == cudaSuccess ? PA_OK : pa_cuda__fail(e, "copy: cudaMemcpy of %zu bytes", bytes);
}

int pa_cuda__exec_2d_async(const pa__plan *p, void *dst, const void *src, void *stream)
{
    const pa__copy_shape *s = &p->shape;
    int st = pa_cuda__ready("copy");
    if (st != PA_OK)
        return st;
    size_t e = s->elm, width = (size_t)pa__bytes(s->size[1], e), rows = (size_t)s->size[0];
    size_t dpitch = (size_t)pa__bytes(s->dst_stride[0], e), spitch = (size_t)pa__bytes(s->src_stride[0], e);
    cudaError_t err = cudaMemcpy2DAsync(at(dst, s->dst_base, e), dpitch, at((void *)src, s->src_base, e), spitch,
                                        width, rows, cudaMemcpyDefault, (cudaStream_t)stream);
    return err == cudaSuccess ? PA_OK
                              : pa_cuda__fail(err, "copy: cudaMemcpy2D of %zu rows of %zu bytes (pitches %zu, %zu)",
                                              rows, width, dpitch, spitch);
}

int pa_cuda__exec_3d_async(const pa__plan *p, void *dst, const void *src, void *stream)
{
    const pa__copy_shape *s = &p->shape;
    int st = pa_cuda__ready("copy");
    if (st != PA_OK)
        return st;
    size_t e = s->elm, width = (size_t)pa__bytes(s->size[2], e);
    struct cudaMemcpy3DParms m;
    memset(&m, 0, sizeof m);
    m.dstPtr.ptr = at(dst, s->dst_base, e);
    m.dstPtr.pitch = (size_t)pa__bytes(s->dst_stride[1], e);
    m.dstPtr.xsize = width;
    m.dstPtr.ysize = (size_t)(s->dst_stride[0] / s->dst_stride[1]);
    m.srcPtr.ptr = at((void *)src, s->src_base, e);
    m.srcPtr.pitch = (size_t)pa__bytes(s->src_stride[1], e);
    m.srcPtr.xsize = width;
    m.srcPtr.ysize = (size_t)(s->src_stride[0] / s->src_stride[1]);
    m.extent.width = width;
    m.extent.height = (size_t)s->size[1];
    m.extent.depth = (size_t)s->size[0];
    m.kind = cudaMemcpyDefault;
    cudaError_t err = cudaMemcpy3DAsync(&m, (cudaStream_t)stream);
    return err == cudaSuccess ? PA_OK
                              : pa_cuda__fail(err, "copy: cudaMemcpy3D of %lld slices of %lld rows of %zu bytes",
                                              (long long)s->size[0], (long long)s->size[1], width);
}

/* A queued copy made synchronous: the default stream, then waited for. */
static int finish(int st, const char *what)
{
    if (st != PA_OK)
        return st;
    cudaError_t e = cudaStreamSynchronize(0);
    return e == cudaSuccess ? PA_OK : pa_cuda__fail(e, "copy: %s", what);
}

int pa_cuda__exec_dma(const pa__plan *p, void *dst, const void *src)
{
    return finish(pa_cuda__exec_dma_async(p, dst, src, NULL), "cudaMemcpy");
}

int pa_cuda__exec_2d(const pa__plan *p, void *dst, const void *src)
{
    return finish(pa_cuda__exec_2d_async(p, dst, src, NULL), "cudaMemcpy2D");
}

int pa_cuda__exec_3d(const pa__plan *p, void *dst, const void *src)
{
    return finish(pa_cuda__exec_3d_async(p, dst, src, NULL), "cudaMemcpy3D");
}

void pa_cuda__nest_of(const pa__copy_shape *s, int host_side, int dense, pa_cuda__nest *n)
{
    memset(n, 0, sizeof *n);
    n->nmodes = s->nmodes;
    n->elm = s->elm;
    int64_t rm = 1;
    for (int m = s->nmodes - 1; m >= 0; m--) {
        n->size[m] = s->size[m];
        n->dst_stride[m] = s->dst_stride[m];
        n->src_stride[m] = s->src_stride[m];
        n->dst_table[m] = s->dst_table[m];
        n->src_table[m] = s->src_table[m];
        if (host_side >= 0 && !dense) {
            int64_t *st = host_side == 0 ? n->dst_stride : n->src_stride;
            st[m] = rm;
            if (host_side == 0) n->dst_table[m] = NULL;
            else n->src_table[m] = NULL;
        }
        rm *= s->size[m];
    }
}

/* Copies the nest's tables (host memory, owned by the plan) into the staging set's table slot, queued on its
 * stream, and points the nest at the copies. */
static int upload_tables(pa_cuda__stage *sg, pa_cuda__nest *n)
{
    size_t count = 0;
    for (int m = 0; m < n->nmodes; m++)
        count += (size_t)((n->dst_table[m] ? n->size[m] : 0) + (n->src_table[m] ? n->size[m] : 0));
    if (count == 0)
        return PA_OK;
    int64_t *dev;
    int st = pa_cuda__stage_dev(sg, PA_CUDA__STAGE_TABLES, count * sizeof *dev, (void **)&dev);
    if (st != PA_OK)
        return st;
    for (int m = 0; m < n->nmodes; m++) {
        const int64_t **t[2] = {&n->dst_table[m], &n->src_table[m]};
        for (int k = 0; k < 2; k++) {
            if (!*t[k])
                continue;
            cudaError_t e = cudaMemcpyAsync(dev, *t[k], (size_t)n->size[m] * sizeof *dev, cudaMemcpyHostToDevice,
                                            sg->stream);
            if (e != cudaSuccess)
                return pa_cuda__fail(e, "copy: uploading a gather table of %lld entries", (long long)n->size[m]);
            *t[k] = dev;
            dev += n->size[m];
        }
    }
    return PA_OK;
}

/* The permute on the set's stream, waited for. */
static int permute(pa_cuda__stage *sg, const pa_cuda__nest *n, void *dst, const void *src)
{
    cudaError_t e = pa_cuda__permute(n, dst, src, sg->stream);
    if (e == cudaSuccess)
        e = cudaStreamSynchronize(sg->stream);
    return e == cudaSuccess ? PA_OK : pa_cuda__fail(e, "copy: the device permute kernel");
}

int pa_cuda__exec_permute(const pa__plan *p, void *dst, const void *src)
{
    const pa__copy_shape *s = &p->shape;
    pa_cuda__nest n;
    pa_cuda__stage *sg;
    int st = pa_cuda__ready("copy");
    if (st != PA_OK)
        return st;
    pa_cuda__nest_of(s, -1, 0, &n);
    if ((st = pa_cuda__stage_take(&sg)) != PA_OK)
        return st;
    st = upload_tables(sg, &n);
    if (st == PA_OK)
        st = permute(sg, &n, at(dst, s->dst_base, s->elm), at((void *)src, s->src_base, s->elm));
    pa_cuda__stage_give(sg);
    return st;
}

int pa_cuda__exec_permute_async(const pa__plan *p, void *dst, const void *src, void *stream)
{
    const pa__copy_shape *s = &p->shape;
    pa_cuda__nest n;
    pa_cuda__nest_of(s, -1, 0, &n);
    for (int m = 0; m < n.nmodes; m++)
        if (n.dst_table[m] || n.src_table[m]) {
            /* Tables go through a shared staging buffer that must outlive the kernel: run synchronously. */
            int st = pa_cuda__stream_wait(stream);
            return st != PA_OK ? st : pa_cuda__exec_permute(p, dst, src);
        }
    int st = pa_cuda__ready("copy");
    if (st != PA_OK)
        return st;
    cudaError_t e = pa_cuda__permute(&n, at(dst, s->dst_base, s->elm), at((void *)src, s->src_base, s->elm),
                                     (cudaStream_t)stream);
    return e == cudaSuccess ? PA_OK : pa_cuda__fail(e, "copy: the device permute kernel");
}

/* Packs (h2d) or unpacks the host side to or from row-major order in buf, on the host's copy threads. */
int pa_cuda__host_pack(const pa__copy_shape *s, int h2d, char *host, char *buf)
{
    pa__copy_shape h = *s;
    int64_t rm = 1;
    for (int m = s->nmodes - 1; m >= 0; m--) {
        int64_t *st = h2d ? h.dst_stride : h.src_stride;
        st[m] = rm;
        if (h2d) h.dst_table[m] = NULL;
        else h.src_table[m] = NULL;
        rm *= s->size[m];
    }
    if (h2d) h.dst_base = 0;
    else h.src_base = 0;
    h.dst_mem = h.src_mem = NULL;
    const pa__host_kernels *k = pa__host();
    int threads = k->threads_for(pa__bytes(s->total, s->elm), (int64_t)256 << 10);
    return h2d ? k->parallel(&h, buf, host, threads, k->gather) : k->parallel(&h, host, buf, threads, k->gather);
}

typedef enum how { DENSE_DMA, PACK, PIPELINE } how;

/* One DMA (or the pipeline) between the host image and the device staging buffer, on the set's stream; the
 * pipeline and a device-to-host DMA are complete on return (the host reads what arrived). */
static int transfer(pa_cuda__stage *sg, how w, void *to, const void *from, size_t bytes, int h2d)
{
    if (w == PIPELINE)
        return pa_cuda__pipeline(sg, to, from, bytes, h2d);
    cudaError_t e = cudaMemcpyAsync(to, from, bytes, h2d ? cudaMemcpyHostToDevice : cudaMemcpyDeviceToHost,
                                    sg->stream);
    if (e == cudaSuccess && !h2d)
        e = cudaStreamSynchronize(sg->stream);
    return e == cudaSuccess ? PA_OK : pa_cuda__fail(e, "copy: cudaMemcpy of %zu bytes through staging", bytes);
}

/*
 * Host <-> device through a device staging buffer holding the host side's image: the host side's own dense
 * block (DENSE_DMA, PIPELINE) or the host side packed in row-major order into pinned staging (PACK).  The
 * device permute moves between that image and the device side's layout.  Everything runs on a leased
 * staging set (cuda_staging.c), so copies from several threads run side by side.
 */
static int staged(const pa__plan *p, void *dst, const void *src, how w)
{
    const pa__copy_shape *s = &p->shape;
    int h2d = pa_cuda__where_of(s->src_mem) != PA_CUDA__DEVICE;
    size_t e = s->elm, bytes = (size_t)pa__bytes(s->total, e);
    char *d = at(dst, s->dst_base, e), *sp = at((void *)src, s->src_base, e);
    void *dev = NULL, *pin = NULL;
    pa_cuda__nest n;
    pa_cuda__stage *sg;
    int st = pa_cuda__ready("copy");
    if (st != PA_OK)
        return st;
    pa_cuda__nest_of(s, h2d ? 1 : 0, w != PACK, &n);
    int whole = s->nmodes == 1 && !s->dst_table[0] && !s->src_table[0] && s->dst_stride[0] == 1 &&
                s->src_stride[0] == 1;
    if ((st = pa_cuda__stage_take(&sg)) != PA_OK)
        return st;
    if (whole && w == PIPELINE) {   /* the same contiguous run on both sides: no staging on the device */
        st = pa_cuda__pipeline(sg, d, sp, bytes, h2d);
        goto done;
    }
    if ((st = pa_cuda__stage_dev(sg, PA_CUDA__STAGE_DATA, bytes, &dev)) != PA_OK ||
        (w == PACK && (st = pa_cuda__stage_pinned(sg, bytes, &pin)) != PA_OK) ||
        (st = upload_tables(sg, &n)) != PA_OK)
        goto done;
    if (h2d) {
        if (w == PACK && (st = pa_cuda__host_pack(s, 1, (char *)src, pin)) != PA_OK)
            goto done;
        if ((st = transfer(sg, w, dev, w == PACK ? pin : sp, bytes, 1)) != PA_OK)
            goto done;
        st = permute(sg, &n, d, dev);
    } else {
        if ((st = permute(sg, &n, dev, sp)) != PA_OK ||
            (st = transfer(sg, w, w == PACK ? pin : d, dev, bytes, 0)) != PA_OK)
            goto done;
        if (w == PACK)
            st = pa_cuda__host_pack(s, 0, dst, pin);
    }
done:
    if (st != PA_OK)   /* nothing of this copy may still run on the set's buffers when it is given back */
        (void)cudaStreamSynchronize(sg->stream);
    pa_cuda__stage_give(sg);
    return st;
}

int pa_cuda__exec_staged(const pa__plan *p, void *dst, const void *src)
{
    return staged(p, dst, src, DENSE_DMA);
}

int pa_cuda__exec_pack(const pa__plan *p, void *dst, const void *src)
{
    return staged(p, dst, src, PACK);
}

int pa_cuda__exec_pipeline(const pa__plan *p, void *dst, const void *src)
{
    return staged(p, dst, src, PIPELINE);
}
