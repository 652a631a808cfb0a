/*
 * parray — the runs of a copy between two split types (dist.h, pa__dist_run): aligned blocks of consecutive flat
 * indices over which both process (thread) layouts are constant and each local layout is one affine sub-layout
 * from the block's first offset, so that the distributed planners (the MPI backend's dist_plan.c, the pthd
 * copies' copy_dist.c) walk a copy by blocks instead of by elements.
 */
#include <string.h>

#include "dist.h"

static int64_t gcd(int64_t a, int64_t b)
{
    while (b) {
        int64_t t = a % b;
        a = b;
        b = t;
    }
    return a;
}

/* The indices over which a process layout is constant: the product of its innermost stride-0 modes. */
static int64_t constant_span(const pa__layout *l)
{
    int64_t c = 1;
    if (l->nmodes == 0)
        return l->size;
    for (int m = l->nmodes - 1; m >= 0 && !l->modes[m].table && l->modes[m].stride == 0; m--)
        c *= l->modes[m].size;
    return c;
}

/*
 * The largest divisor of r whose aligned blocks of indices the local layout l maps by one affine sub-layout
 * from each block's first offset: the product of l's innermost affine modes that r's divisor takes whole, times
 * a divisor of the next mode's size.  The sub-layout (base 0) in *sub when sub is not NULL.
 */
static int64_t affine_fit(const pa__layout *l, int64_t r, pa__layout *sub)
{
    int64_t acc = 1;
    int m = l->nmodes - 1, first = l->nmodes;
    for (; m >= 0 && !l->modes[m].table; m--) {
        int64_t s = l->modes[m].size;
        if (s < 1)
            break;
        if ((r / acc) % s == 0) {
            acc *= s;
            first = m;
            continue;
        }
        int64_t q = gcd(r / acc, s);
        if (q > 1) {
            acc *= q;
            first = m;
        }
        break;
    }
    if (sub) {
        memset(sub, 0, sizeof *sub);
        sub->size = acc;
        sub->affine = 1;
        for (int k = first; k < l->nmodes; k++)
            sub->modes[sub->nmodes++] = l->modes[k];
        if (sub->nmodes > 0) {   /* the outermost may be split: its size is what fits */
            int64_t inner = 1;
            for (int k = 1; k < sub->nmodes; k++)
                inner *= sub->modes[k].size;
            sub->modes[0].size = acc / inner;
        }
    }
    return acc;
}

int64_t pa__dist_run(const pa__dist_split *d, const pa__dist_split *s, pa__layout *dsub, pa__layout *ssub)
{
    int64_t r = 1;
    if (!d->pack && !s->pack) {   /* packed local arrays (dist_pack.c): element by element */
        r = gcd(constant_span(&s->pid), constant_span(&d->pid));
        r = r > 0 && s->pid.size % r == 0 ? r : 1;
        for (int64_t was = 0; was != r;) {   /* each side's fit divides r: at most log2(r) rounds */
            was = r;
            r = affine_fit(&d->local, affine_fit(&s->local, r, NULL), NULL);
        }
    }
    affine_fit(&d->local, r, dsub);
    affine_fit(&s->local, r, ssub);
    return r;
}

