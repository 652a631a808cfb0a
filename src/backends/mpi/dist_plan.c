/*
 * parray — planning a distributed copy on one rank.
 *
 * The two sides come split by the core (pa__dist_split): for every flat index k, the source process ps(k)
 * and local offset ls(k), the destination process pd(k) and local offset ld(k).  One pass over k counts the
 * elements of every (source, destination) pair; the count matrix is the same on every rank, so every rank
 * chooses the same pattern: the cheapest of those that apply (dist_patterns.c: a local copy, send/recv,
 * scatter, gather, alltoall, or pack+alltoallv+unpack, which applies to any matrix).  A second pass lists this rank's elements
 * in the order the pattern transfers them; the lists are then turned into layouts (affine when the offsets
 * follow one, which the usual row-block distributions do) and host copy plans for packing and unpacking.
 * Both passes go by runs: aligned blocks of `run` consecutive indices over which both process layouts are
 * constant and each local layout is the same affine sub-layout from the block's first offset (its innermost
 * modes, the outermost of them possibly split), so that they cost O(size / run) and the lists hold one entry
 * per run (pa__dist_run, src/core/dist/dist_runs.c); a list that is not affine is expanded to one entry per
 * element only then.  A transposing redistribution, whose destination's innermost stride is not 1, thus plans in
 * runs of whole planes, not element by element: 2^10 steps instead of 2^30 for the manual's FFT at N = 1024.
 * Plans are cached (dist_copy.c), so repeated copies cost only their transfer.
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
static int count_pairs(const pa__dist_split *d, const pa__dist_split *s, int nprocs, int64_t run, int64_t *c)
{
    for (int64_t k = 0; k < s->pid.size; k += run) {
        int64_t ps = pa__layout_offset(&s->pid, k), pd = pa__layout_offset(&d->pid, k);
        if (ps < 0 || ps >= nprocs || pd < 0 || pd >= nprocs)
            return pa__err(PA_ERR_RANGE, "distributed copy: element %lld lives on process %lld (%s side), but "
                           "the process array has %d process%s", (long long)k, (long long)(ps < 0 || ps >= nprocs
                           ? ps : pd), ps < 0 || ps >= nprocs ? "source" : "destination", nprocs,
                           nprocs == 1 ? " (MPI not running, or run without mpirun)" : "es");
        c[ps * nprocs + pd] += run;
    }
    return PA_OK;
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

/* Lists this rank's local offsets, one per run: sends by (destination, k), receives by (source, k). */
static int list_offsets(pa_mpi__dplan *p, const pa__dist_split *d, const pa__dist_split *s, int64_t run)
{
    int64_t *si = NULL, *ri = NULL;
    int n = p->nprocs, me = p->rank, st = PA_OK;
    p->tables[0] = malloc((size_t)(p->nsend ? p->nsend / run : 1) * sizeof(int64_t));
    p->tables[1] = malloc((size_t)(p->nrecv ? p->nrecv / run : 1) * sizeof(int64_t));
    si = malloc((size_t)n * sizeof *si);
    ri = malloc((size_t)n * sizeof *ri);
    if (!p->tables[0] || !p->tables[1] || !si || !ri) {
        st = pa__err(PA_ERR_NOMEM, "distributed copy: no memory to list %lld + %lld elements",
                     (long long)p->nsend, (long long)p->nrecv);
        goto fail;
    }
    for (int q = 0; q < n; q++)
        si[q] = p->sdispl[q] / run, ri[q] = p->rdispl[q] / run;
    for (int64_t k = 0; k < s->pid.size; k += run) {
        int64_t ps = pa__layout_offset(&s->pid, k), pd = pa__layout_offset(&d->pid, k);
        if (ps == me)
            p->tables[0][si[pd]++] = pa__dist_local(s, k);
        if (pd == me)
            p->tables[1][ri[ps]++] = pa__dist_local(d, k);
    }
fail:
    free(si);
    free(ri);
    return st;
}

/*
 * One side's layout over its list of n elements (n / run entries, each a run's first offset; sub the offsets
 * inside a run): affine (the runs' starts are, and sub goes inside), or one gathered mode over a table of every
 * element's offset (which the plan then keeps in place of the list).  \return PA_OK or PA_ERR_NOMEM.
 */
static int layout_of(pa_mpi__dplan *p, int which, int64_t n, int64_t run, const pa__layout *sub, pa__layout *out)
{
    int64_t *t = p->tables[which], nb = n / run;
    if (nb > 0 && pa__offsets_affine(t, nb, out) && (run == 1 || out->nmodes + sub->nmodes <= PA__MAX_MODES)) {
        if (run > 1) {
            for (int m = 0; m < sub->nmodes; m++)
                out->modes[out->nmodes++] = sub->modes[m];
            out->size = n;
            pa__layout_coalesce(out);
        }
        return PA_OK;
    }
    if (run > 1 && n > 0) {   /* expand the runs into a table of every element */
        int64_t *full = malloc((size_t)n * sizeof *full), *in = malloc((size_t)run * sizeof *in);
        if (!full || !in) {
            free(full);
            free(in);
            return pa__err(PA_ERR_NOMEM, "distributed copy: no memory to list %lld elements", (long long)n);
        }
        for (int64_t i = 0; i < run; i++)
            in[i] = pa__layout_offset(sub, i);
        for (int64_t b = 0; b < nb; b++)
            for (int64_t i = 0; i < run; i++)
                full[b * run + i] = t[b] + in[i];
        free(in);
        free(t);
        p->tables[which] = t = full;
    }
    memset(out, 0, sizeof *out);
    out->size = n;
    out->nmodes = n > 1 ? 1 : 0;
    out->base = n == 1 ? t[0] : 0;
    out->modes[0] = (pa__mode){.size = n, .table = t};
    out->affine = n <= 1;
    return PA_OK;
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
    p->route_next = -1;
    pthread_mutex_init(&p->run_lock, NULL);
    p->rank = rank;
    p->nprocs = nprocs;
    p->elm = elm;
    p->total = src->pid.size;
    p->key[0] = dst->pid;
    p->key[1] = dst->local;
    p->key[2] = src->pid;
    p->key[3] = src->local;
    p->send_mem = pa_mpi__device_memory(src);
    p->recv_mem = pa_mpi__device_memory(dst);
    p->send_ops = strcmp(src->memory_mtt, "any") ? pa__mem_find(src->memory_mtt) : NULL;
    p->recv_ops = strcmp(dst->memory_mtt, "any") ? pa__mem_find(dst->memory_mtt) : NULL;
    pa__layout dsub, ssub;
    int64_t run = p->run = pa__dist_run(dst, src, &dsub, &ssub);
    if ((st = count_pairs(dst, src, nprocs, run, c)) != PA_OK || (st = rank_counts(p, c)) != PA_OK)
        goto fail;
    if ((st = pa_mpi__pattern_choose(p, c)) != PA_OK)   /* dist_patterns.c */
        goto fail;
    if ((st = list_offsets(p, dst, src, run)) != PA_OK || (st = layout_of(p, 0, p->nsend, run, &ssub, &p->send_l)) != PA_OK ||
        (st = layout_of(p, 1, p->nrecv, run, &dsub, &p->recv_l)) != PA_OK)
        goto fail;
    p->send_base = p->send_l.base;
    p->recv_base = p->recv_l.base;
    for (int w = 0; w < 2; w++)
        if ((w ? p->recv_l : p->send_l).affine) {   /* the layouts do not point into their lists then */
            free(p->tables[w]);
            p->tables[w] = NULL;
        }
    if ((st = pa_mpi__buffer_plans(p)) != PA_OK)   /* dist_device.c: pack/unpack plans and MPI buffers */
        goto fail;
    if ((st = element_type(p)) != PA_OK || (st = pa_mpi__self_plans(p)) != PA_OK)   /* dist_self.c */
        goto fail;
    p->count = (int)(p->blk * p->scale);   /* element_type made sure it fits */
    p->send_off = pa__bytes(p->send_base, p->elm);
    p->recv_off = pa__bytes(p->recv_base, p->elm);
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
    if (p->timed && p->times.runs > 0)
        pa_mpi__times_print(p);
    pa__plan_unref(p->pack);
    pa__plan_unref(p->unpack);
    pa__plan_unref(p->local);
    pa_mpi__self_free(p);
    if (p->owns_etype && pa_mpi__running())
        MPI_Type_free(&p->etype);
    pa_mpi__peer_free(p);
    pa_mpi__nccl_free(p);
    pa_mpi__shm_free(p);
    pa_mpi__buffers_free(p);
    free(p->tables[0]);
    free(p->tables[1]);
    free(p->scount);
    pthread_mutex_destroy(&p->run_lock);
    free(p);
}
