/*
 * parray — planning a distributed copy on one rank.
 *
 * The two sides come split by the core (pa__dist_split): for every flat index k, the source process ps(k)
 * and local offset ls(k), the destination process pd(k) and local offset ld(k).  One pass over k counts the
 * elements of every (source, destination) pair; the count matrix is the same on every rank, so every rank
 * recognises the same pattern (one pair: send/recv or a local copy; one full row: scatter; one full column:
 * gather; every pair equal: alltoall; anything else: alltoallv).  A second pass lists this rank's elements
 * in the order the pattern transfers them; the lists are then turned into layouts (affine when the offsets
 * follow one, which the usual row-block distributions do) and host copy plans for packing and unpacking.
 * The passes cost O(size) once; plans are cached (dist_copy.c), so repeated copies cost only their transfer.
 */
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "mpi_backend.h"

const char *pa_mpi__kind_name(pa_mpi__kind k)
{
    static const char *const names[] = {"local copy", "MPI_Send+MPI_Recv", "MPI_Scatter", "MPI_Gather",
                                        "MPI_Alltoall", "pack+MPI_Alltoallv+unpack"};
    return names[k];
}

/* Counts the elements of every (source rank, destination rank) pair; ranks outside nprocs are an error. */
static int count_pairs(const pa__dist_split *d, const pa__dist_split *s, int nprocs, int64_t *c)
{
    for (int64_t k = 0; k < s->pid.size; k++) {
        int64_t ps = pa__layout_offset(&s->pid, k), pd = pa__layout_offset(&d->pid, k);
        if (ps < 0 || ps >= nprocs || pd < 0 || pd >= nprocs)
            return pa__err(PA_ERR_RANGE, "distributed copy: element %lld lives on process %lld (%s side), but "
                           "the process array has %d process%s", (long long)k, (long long)(ps < 0 || ps >= nprocs
                           ? ps : pd), ps < 0 || ps >= nprocs ? "source" : "destination", nprocs,
                           nprocs == 1 ? " (MPI not running, or run without mpirun)" : "es");
        c[ps * nprocs + pd]++;
    }
    return PA_OK;
}

/* Recognises the pattern of the count matrix. */
static void classify(pa_mpi__dplan *p, const int64_t *c)
{
    int n = p->nprocs, pairs = 0, r0 = -1, q0 = -1, row = 1, col = 1, all = 1;
    for (int r = 0; r < n; r++)
        for (int q = 0; q < n; q++)
            if (c[r * n + q]) {
                pairs++;
                if (r0 < 0) r0 = r, q0 = q;
            }
    p->src_root = r0;
    p->dst_root = q0;
    int64_t blk = c[r0 * n + q0];
    for (int r = 0; r < n; r++)
        for (int q = 0; q < n; q++) {
            int64_t v = c[r * n + q];
            all &= v == blk;
            row &= v == (r == r0 ? blk : 0);
            col &= v == (q == q0 ? blk : 0);
        }
    p->blk = blk;
    if (pairs == 1)
        p->kind = r0 == q0 ? PA_MPI__LOCAL : PA_MPI__SENDRECV;
    else if (row)
        p->kind = PA_MPI__SCATTER;
    else if (col)
        p->kind = PA_MPI__GATHER;
    else if (all)
        p->kind = PA_MPI__ALLTOALL;
    else
        p->kind = PA_MPI__ALLTOALLV;
}

/* Per-rank counts and displacements of this rank's sends and receives (elements; MPI takes ints). */
static int rank_counts(pa_mpi__dplan *p, const int64_t *c)
{
    int n = p->nprocs, me = p->rank;
    int64_t so = 0, ro = 0;
    if (!(p->scount = calloc((size_t)n * 4, sizeof(int))))
        return pa__err(PA_ERR_NOMEM, "distributed copy: no memory for the counts of %d processes", n);
    p->sdispl = p->scount + n;
    p->rcount = p->scount + 2 * n;
    p->rdispl = p->scount + 3 * n;
    for (int q = 0; q < n; q++) {
        if (c[me * n + q] > INT_MAX || c[q * n + me] > INT_MAX || so > INT_MAX || ro > INT_MAX)
            return pa__err(PA_ERR_UNSUPPORTED, "distributed copy: more than %d elements between two processes",
                           INT_MAX);
        p->scount[q] = (int)c[me * n + q];
        p->sdispl[q] = (int)so;
        p->rcount[q] = (int)c[q * n + me];
        p->rdispl[q] = (int)ro;
        so += c[me * n + q];
        ro += c[q * n + me];
    }
    p->nsend = so;
    p->nrecv = ro;
    return PA_OK;
}

/* Lists this rank's local offsets: sends by (destination, k), receives by (source, k). */
static int list_offsets(pa_mpi__dplan *p, const pa__dist_split *d, const pa__dist_split *s)
{
    int64_t *si = NULL, *ri = NULL;
    int n = p->nprocs, me = p->rank, st = PA_OK;
    p->tables[0] = malloc((size_t)(p->nsend ? p->nsend : 1) * sizeof(int64_t));
    p->tables[1] = malloc((size_t)(p->nrecv ? p->nrecv : 1) * sizeof(int64_t));
    si = malloc((size_t)n * sizeof *si);
    ri = malloc((size_t)n * sizeof *ri);
    if (!p->tables[0] || !p->tables[1] || !si || !ri) {
        st = pa__err(PA_ERR_NOMEM, "distributed copy: no memory to list %lld + %lld elements",
                     (long long)p->nsend, (long long)p->nrecv);
        goto fail;
    }
    for (int q = 0; q < n; q++)
        si[q] = p->sdispl[q], ri[q] = p->rdispl[q];
    for (int64_t k = 0; k < s->pid.size; k++) {
        int64_t ps = pa__layout_offset(&s->pid, k), pd = pa__layout_offset(&d->pid, k);
        if (ps == me)
            p->tables[0][si[pd]++] = pa__layout_offset(&s->local, k);
        if (pd == me)
            p->tables[1][ri[ps]++] = pa__layout_offset(&d->local, k);
    }
fail:
    free(si);
    free(ri);
    return st;
}

/* One side's layout over its list: affine, or one gathered mode over the table (which the plan then keeps). */
static void layout_of(pa_mpi__dplan *p, int which, int64_t n, pa__layout *out)
{
    int64_t *t = p->tables[which];
    if (n > 0 && pa__offsets_affine(t, n, out))
        return;
    memset(out, 0, sizeof *out);
    out->size = n;
    out->nmodes = n > 1 ? 1 : 0;
    out->base = n == 1 ? t[0] : 0;
    out->modes[0] = (pa__mode){.size = n, .table = t};
    out->affine = n <= 1;
}

int pa_mpi__contiguous(const pa__layout *l)
{
    return l->affine && (l->nmodes == 0 || (l->nmodes == 1 && l->modes[0].stride == 1));
}

/*
 * The MPI datatype and the count unit.  Predefined MPI_BYTE with counts in bytes is Open MPI's fast path (a
 * derived type of elm bytes ran 1.6x slower for a 1 MiB scatter over shared memory), so it is used whenever
 * every count in bytes fits in an int; otherwise a contiguous type of elm bytes with counts in elements.
 */
static int element_type(pa_mpi__dplan *p)
{
    int st;
    int64_t most = p->blk > p->nsend ? p->blk : p->nsend;
    most = most > p->nrecv ? most : p->nrecv;
    p->scale = 1;
    if (!pa_mpi__running())
        return PA_OK;
    if (most * (int64_t)p->elm <= INT_MAX) {
        p->etype = MPI_BYTE;
        p->scale = (int)p->elm;
        for (int q = 0; q < 4 * p->nprocs; q++)
            p->scount[q] *= p->scale;
        return PA_OK;
    }
    if ((st = pa_mpi__check(MPI_Type_contiguous((int)p->elm, MPI_BYTE, &p->etype), "MPI_Type_contiguous")))
        return st;
    p->owns_etype = 1;
    return pa_mpi__check(MPI_Type_commit(&p->etype), "MPI_Type_commit");
}

int pa_mpi__dplan_make(const pa__dist_split *dst, const pa__dist_split *src, size_t elm, int rank, int nprocs,
                       pa_mpi__dplan **out)
{
    int64_t *c = NULL;
    int st;
    pa_mpi__dplan *p = calloc(1, sizeof *p);
    if (!p || !(c = calloc((size_t)nprocs * (size_t)nprocs, sizeof *c))) {
        st = pa__err(PA_ERR_NOMEM, "distributed copy: no memory for a plan over %d processes", nprocs);
        goto fail;
    }
    p->etype = MPI_DATATYPE_NULL;
    pthread_mutex_init(&p->run_lock, NULL);
    p->rank = rank;
    p->nprocs = nprocs;
    p->elm = elm;
    p->total = src->pid.size;
    p->key_dst = *dst;
    p->key_src = *src;
    p->key_dst.thread_mtt = p->key_dst.memory_mtt = p->key_src.thread_mtt = p->key_src.memory_mtt = NULL;
    p->send_mem = pa_mpi__device_memory(src);
    p->recv_mem = pa_mpi__device_memory(dst);
    p->send_ops = strcmp(src->memory_mtt, "any") ? pa__mem_find(src->memory_mtt) : NULL;
    p->recv_ops = strcmp(dst->memory_mtt, "any") ? pa__mem_find(dst->memory_mtt) : NULL;
    if ((st = count_pairs(dst, src, nprocs, c)) != PA_OK || (st = rank_counts(p, c)) != PA_OK)
        goto fail;
    classify(p, c);
    if ((st = list_offsets(p, dst, src)) != PA_OK)
        goto fail;
    layout_of(p, 0, p->nsend, &p->send_l);
    layout_of(p, 1, p->nrecv, &p->recv_l);
    p->send_base = p->send_l.base;
    p->recv_base = p->recv_l.base;
    for (int w = 0; w < 2; w++)
        if ((w ? p->recv_l : p->send_l).affine) {   /* the layouts do not point into their lists then */
            free(p->tables[w]);
            p->tables[w] = NULL;
        }
    if ((st = pa_mpi__buffer_plans(p)) != PA_OK)   /* dist_device.c: pack/unpack plans and MPI buffers */
        goto fail;
    if ((st = element_type(p)) != PA_OK)
        goto fail;
    free(c);
    *out = p;
    return PA_OK;
fail:
    free(c);
    pa_mpi__dplan_free(p);
    return st;
}

void pa_mpi__dplan_free(pa_mpi__dplan *p)
{
    if (!p)
        return;
    pa__plan_unref(p->pack);
    pa__plan_unref(p->unpack);
    pa__plan_unref(p->local);
    if (p->owns_etype && pa_mpi__running())
        MPI_Type_free(&p->etype);
    pa_mpi__buffers_free(p);
    free(p->tables[0]);
    free(p->tables[1]);
    free(p->scount);
    pthread_mutex_destroy(&p->run_lock);
    free(p);
}
