/*
 * parray — a copy's pointers against its types, checked before a byte moves: each pointer's memory (the
 * allocation table, one lookup for both) against its type's memory type, and the two sides' byte ranges against
 * each other (overlap).
 */
#include <string.h>

#include "plan.h"

/* Whether memory of kind m is reached by the CPU; NULL ("any", or host memory pa_create did not make) is. */
static int host_side(const pa__mem_ops *m)
{
    return m == NULL || m->host_accessible;
}

/* One side: the pointer's memory (or NULL) against the type's.  Same kind, or both reached by the CPU. */
static int check_side(const char *what, const pa_type *t, const void *ptr, const pa__mem_ops *want,
                      const pa__mem_ops *got)
{
    if (got != NULL) {
        if (got == want || (host_side(got) && host_side(want)))
            return PA_OK;
        return pa__err(PA_ERR_MTT, "copy: the %s pointer %p is %s memory (made by pa_create) but its type %s is "
                       "%s", what, ptr, got->name, pa_type_name(t), want ? want->name : "host memory (any)");
    }
    /* Not made by pa_create (the program's own memory, or a pointer inside an array): only memory the CPU
     * cannot reach can be asked about, by its backend. */
    if (want != NULL && !want->host_accessible && want->holds != NULL && want->holds(ptr) == 0)
        return pa__err(PA_ERR_MTT, "copy: the %s pointer %p is host memory but its type %s is %s", what, ptr,
                       pa_type_name(t), want->name);
    return PA_OK;
}

int pa__copy_check_memory(const pa_type *dt, const void *dst, const pa__mem_ops *dm, const pa_type *st,
                          const void *src, const pa__mem_ops *sm)
{
    const pa__mem_ops *dgot, *sgot;
    pa__mem_of2(dst, src, &dgot, &sgot);
    int rc = check_side("destination", dt, dst, dm, dgot);
    return rc != PA_OK ? rc : check_side("source", st, src, sm, sgot);
}

/* The address of element offset o of a side (element size e), as an integer. */
static uintptr_t address(const void *p, int64_t o, size_t e)
{
    return (uintptr_t)p + (uintptr_t)(o * (int64_t)e);
}

int pa__copy_overlap(const pa__layout *dl, const void *dst, const pa__mem_ops *dm, const pa__layout *sl,
                     const void *src, const pa__mem_ops *sm, size_t e)
{
    /* Host memory on both sides, or one memory type with a plain allocator (dmem) for the temporary.  Others
     * (gamem: its strategies move Global Arrays patches through host buffers) are left to their strategies. */
    if (!(host_side(dm) && host_side(sm)) && !(dm == sm && dm->alloc != NULL && dm->alloc_type == NULL))
        return PA__NO_OVERLAP;
    uintptr_t d0 = address(dst, dl->min_off, e), d1 = address(dst, dl->max_off + 1, e);
    uintptr_t s0 = address(src, sl->min_off, e), s1 = address(src, sl->max_off + 1, e);
    if (d0 >= s1 || s0 >= d1)
        return PA__NO_OVERLAP;
    /* The same elements in the same order: every element is copied onto itself. */
    if (address(dst, dl->base, e) == address(src, sl->base, e) && dl->nmodes == sl->nmodes) {
        int same = 1;
        for (int m = 0; m < dl->nmodes && same; m++) {
            const pa__mode *a = &dl->modes[m], *b = &sl->modes[m];
            same = a->size == b->size && !a->table == !b->table &&
                   (a->table ? memcmp(a->table, b->table, (size_t)a->size * sizeof *a->table) == 0
                             : a->stride == b->stride);
        }
        if (same)
            return PA__OVERLAP_SAME;
    }
    return PA__OVERLAP;
}
