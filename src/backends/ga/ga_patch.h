/*
 * parray — the Global Arrays backend's patches (copy_box.c cuts a copy into them, copy_patch.c moves each):
 * the cut modes, the state of one transfer and one patch.  Included by those two files only.
 */
#ifndef PARRAY_GA_PATCH_H
#define PARRAY_GA_PATCH_H

#include "ga_backend.h"

#define PA_GA__MAX_BMODES (PA__MAX_MODES * PA_GA__MAX_DIMS + 1)

/* One mode of a copy after the cut: n indices; the gamem side in units, the host side in bytes. */
typedef struct pa_ga__mode {
    int64_t n;
    int64_t gstep, hstep;           /* affine sides */
    const int64_t *gtab, *htab;     /* gathered sides: element offsets */
    int dim;                        /* the dimension it runs along, -1 when it cannot be part of a patch */
    int64_t skip;                   /* its step along dim */
} pa_ga__mode;

/* One transfer: the array, its dimensions and steps in units, the cut modes, the patch's and the others. */
typedef struct pa_ga__job {
    const pa_ga__array *a;
    int put, r;
    size_t elm, unit;
    int64_t c, D[PA_GA__MAX_DIMS], S[PA_GA__MAX_DIMS];
    int nm, nbox, nouter;
    pa_ga__mode m[PA_GA__MAX_BMODES];
    int box[PA_GA__MAX_DIMS];       /* patch modes, outermost first */
    int outer[PA_GA__MAX_BMODES];
    char *buf;
    int64_t bufsize;
} pa_ga__job;

/* One patch: its modes (indices into m, outermost first), the index range of each. */
typedef struct pa_ga__patch {
    int q;
    int ms[PA_GA__MAX_DIMS];
    int64_t from[PA_GA__MAX_DIMS], cnt[PA_GA__MAX_DIMS];
} pa_ga__patch;

/* Element i of a mode: its unit offset on the gamem side, its byte offset on the host side. */
static inline int64_t gpart(const pa_ga__job *j, const pa_ga__mode *b, int64_t i)
{
    return b->gtab ? b->gtab[i] * j->c : i * b->gstep;
}

static inline int64_t hpart(const pa_ga__job *j, const pa_ga__mode *b, int64_t i)
{
    return b->htab ? pa__bytes(b->htab[i], j->elm) : i * b->hstep;
}

/* The row-major subscript of unit offset o. */
static inline void subscript(const pa_ga__job *j, int64_t o, int64_t *sub)
{
    for (int d = j->r - 1; d >= 0; d--) {
        sub[d] = o % j->D[d];
        o /= j->D[d];
    }
}

/** Sorts a patch's modes by dimension: ord[] gets positions in c->ms, outermost dimension first. */
void pa_ga__by_dim(const pa_ga__job *j, const pa_ga__patch *c, int *ord);
/** The host side's leading dimensions as it is, when its strides form the patch's buffer.  \return 1 if so. */
int pa_ga__host_ld(const pa_ga__job *j, const pa_ga__patch *c, const int *ord, int64_t *ldp);
/** Moves one patch whose modes start at unit offset o (host h), every mode at index from.  \return status. */
int pa_ga__one_call(pa_ga__job *j, const pa_ga__patch *c, int64_t o, char *h);

#endif
