/*
 * parray — how a gamem array is laid out in Global Arrays: the data type of its elements and its dimensions
 * (ga_backend.h says why any row-major shape is right).
 *
 * Elements.  A named element type that Global Arrays has (int, float, double, long, long long, char) keeps
 * its own data type, so that Global Arrays' own views of the array (GA_Print_distribution, GA_Print) name it.
 * Any other element of elm bytes is stored as elm/8 C_LONGLONG when 8 divides elm, else elm/4 C_INT when 4
 * does, else elm C_CHAR: the bytes move exactly as they are (Global Arrays copies, it does not convert), and
 * the wider units make fewer, larger transfers.  (GA_Print_distribution does not print C_CHAR arrays.)
 *
 * Dimensions.  A type whose compiled layout is the identity (offset(k) = k: no references, displacements,
 * functions or windows) gets the sizes of its leaf dimensions, outermost first (leaves of size 1 left out,
 * the outermost merged when there are more than Global Arrays' seven): "gamem int [3][[4][2]]" is a
 * 3 x 4 x 2 Global Array, distributed by Global Arrays over all three, as the manual's listing 18 shows.  Any
 * other type is one dimension of its extent: its offsets are not the flat indices of a box, so no shape of
 * its own describes the storage.  An element of several units adds a last dimension of their count, kept
 * whole on one process (its chunk is the count).
 */
#include <ga.h>
#include <string.h>

#include "ga_backend.h"

int pa_ga__etype_of(const pa_type *type, size_t elm, pa_ga__etype *out)
{
    static const struct { const char *name; int type; size_t size; } named[] = {
        {"int", C_INT, sizeof(int)},          {"float", C_FLOAT, sizeof(float)},
        {"double", C_DBL, sizeof(double)},    {"long", C_LONG, sizeof(long)},
        {"long long", C_LONGLONG, sizeof(long long)}, {"char", C_CHAR, 1},
    };
    const char *name = pa_elm(type);
    if (elm == 0)
        return pa__err(PA_ERR_ELM, "gamem: the type has no element type");
    for (size_t i = 0; name && i < sizeof named / sizeof named[0]; i++)
        if (strcmp(name, named[i].name) == 0 && named[i].size == elm) {
            *out = (pa_ga__etype){named[i].type, elm, 1};
            return PA_OK;
        }
    if (elm % sizeof(long long) == 0)
        *out = (pa_ga__etype){C_LONGLONG, sizeof(long long), (int)(elm / sizeof(long long))};
    else if (elm % sizeof(int) == 0)
        *out = (pa_ga__etype){C_INT, sizeof(int), (int)(elm / sizeof(int))};
    else
        *out = (pa_ga__etype){C_CHAR, 1, (int)elm};
    return PA_OK;
}

/* 1 when the type's offsets are its flat indices 0..n-1. */
static int identity(const pa_type *type, int64_t n)
{
    const pa__layout *l = pa__type_layout(type);
    if (!l || !l->affine || l->base != 0 || l->size != n)
        return 0;
    if (l->nmodes == 0)
        return n == 1;
    return l->nmodes == 1 && l->modes[0].stride == 1;
}

/* Appends the sizes of t's leaves (those larger than 1) to out.  \return 0 when there are more than max. */
static int leaves(const pa_type *t, int64_t *out, int *k, int max)
{
    int nd = pa_ndim(t);
    if (nd <= 0) {
        int64_t size = pa_size(t);
        if (size > 1 && *k == max)
            return 0;
        if (size > 1)
            out[(*k)++] = size;
        return 1;
    }
    for (int i = 0; i < nd; i++) {
        const pa_type *c = pa_type_child(t, i);
        if (!c || !leaves(c, out, k, max))
            return 0;
    }
    return 1;
}

void pa_ga__dims_of(const pa_type *type, int64_t n, const pa_ga__etype *et, int64_t *dims, int *ndims)
{
    int room = et->count > 1 ? PA_GA__MAX_DIMS - 1 : PA_GA__MAX_DIMS, k = 0;
    int64_t all[64], product = 1;
    if (identity(type, n) && leaves(type, all, &k, 64)) {
        for (int i = 0; i < k; i++)
            product *= all[i];
        if (product != n)
            k = 0;
    } else {
        k = 0;
    }
    if (k > room) {   /* merge the outermost leaves into one dimension */
        int merge = k - room + 1;
        for (int i = 1; i < merge; i++)
            all[0] *= all[i];
        memmove(all + 1, all + merge, (size_t)(k - merge) * sizeof all[0]);
        k = room;
    }
    if (k == 0)
        all[k++] = n;
    memcpy(dims, all, (size_t)k * sizeof *dims);
    if (et->count > 1)
        dims[k++] = et->count;
    *ndims = k;
}
