/*
 * parray — the key of pthd-distributed plans and the layout of an offset list (copy_dist_key.h).
 */
#include <string.h>

#include "copy_dist_key.h"
#include "lru.h"

void pa__pthd_key_set(pa__pthd_key *k, const pa__dist_split *d, const pa__dist_split *s, size_t elm, int64_t tid,
                      int64_t n, uint64_t dser, uint64_t sser)
{
    /* gathered splits (uneven windows) are told apart by the types' serials, which are never reused */
    int gathered = !(d->pid.affine && d->local.affine && s->pid.affine && s->local.affine);
    *k = (pa__pthd_key){.l = {d->pid, d->local, s->pid, s->local}, .dser = gathered ? dser : 0,
                        .sser = gathered ? sser : 0, .elm = elm, .tid = tid, .nthreads = n};
}

int pa__pthd_key_same(const pa__pthd_key *a, const pa__pthd_key *b)
{
    if (a->elm != b->elm || a->tid != b->tid || a->nthreads != b->nthreads || a->dser != b->dser ||
        a->sser != b->sser)
        return 0;
    for (int i = 0; i < 4; i++)
        if (!pa__layout_key_same(&a->l[i], &b->l[i]))
            return 0;
    return 1;
}

uint64_t pa__pthd_key_hash(const pa__pthd_key *k)
{
    uint64_t h = pa__hash_mix(pa__hash_mix(k->dser, k->sser), (uint64_t)k->elm);
    h = pa__hash_mix(pa__hash_mix(h, (uint64_t)k->tid), (uint64_t)k->nthreads);
    for (int i = 0; i < 4; i++)
        h = pa__layout_key_hash(h, &k->l[i]);
    return h;
}

void pa__pthd_offsets_layout(int64_t *t, int64_t n, pa__layout *out)
{
    if (pa__offsets_affine(t, n, out))
        return;
    memset(out, 0, sizeof *out);
    out->size = n;
    out->nmodes = 1;
    out->modes[0] = (pa__mode){.size = n, .table = t};
}

static int64_t mode_offset(const pa__mode *m, int64_t i)
{
    return m->table ? m->table[i] : i * m->stride;
}

void pa__pthd_walk_start(pa__pthd_walker *w, const pa__layout *l)
{
    w->l = l;
    w->off = l->base;
    for (int m = 0; m < l->nmodes; m++) {
        w->idx[m] = 0;
        w->off += mode_offset(&l->modes[m], 0);
    }
}

void pa__pthd_walk_next(pa__pthd_walker *w)
{
    const pa__layout *l = w->l;
    for (int m = l->nmodes - 1; m >= 0; m--) {
        const pa__mode *md = &l->modes[m];
        w->off -= mode_offset(md, w->idx[m]);
        if (++w->idx[m] < md->size) {
            w->off += mode_offset(md, w->idx[m]);
            return;
        }
        w->idx[m] = 0;
        w->off += mode_offset(md, 0);
    }
}
