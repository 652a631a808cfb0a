/*
 * parray — a copy's pointers against its types, checked before a byte moves: each pointer's memory (the
 * allocation table, one lookup for both) against its type's memory type; where the pointer lies inside an array
 * pa_create made, the type's extent from that pointer against the array's bytes (a copy to a + 1 through the
 * array's own type would write one element past it); and the two sides' byte ranges against each other
 * (overlap).  Pointers the library did not allocate are not checked: their bounds are the program's to keep.
 */
#include <string.h>

#include "copy_internal.h"
#include "type_internal.h"

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

/* The message of a side whose extent leaves its array: apart, so that the check itself stays a few instructions. */
__attribute__((cold, noinline)) static int extent_error(const char *what, const pa_type *t, const void *ptr,
                                                        const pa__block *b, int64_t lo, int64_t hi)
{
    return pa__err(PA_ERR_RANGE, "copy: the %s %s at %p (byte %lld of a %zu-byte %s array made by pa_create) "
                   "reaches offsets %lld .. %lld of %zu-byte elements, which leave the array", what, pa_type_name(t),
                   ptr, (long long)((uintptr_t)ptr - b->start), b->bytes, b->ops->name, (long long)lo, (long long)hi,
                   t->elm_size);
}

/*
 * One side's extent against the block that holds its pointer: the bytes from offset min_off to max_off (elements
 * of the type's size) must lie inside it.  Blocks of allocators that make arrays from a type (gamem: the pointer
 * is a handle to distributed patches) are not plain byte ranges and are left alone.
 */
static inline int check_extent(const char *what, const pa_type *t, const void *ptr, const pa__block *b,
                               const pa__layout *l)
{
    int64_t lo, hi, at = (int64_t)((uintptr_t)ptr - b->start), first, last;
    if (b->ops == NULL || b->ops->alloc_type != NULL)
        return PA_OK;
    if (l) {
        lo = l->min_off;
        hi = l->max_off;
    } else {
        int rc = pa_extent(t, &lo, &hi);
        if (rc != PA_OK)
            return rc;
    }
    int64_t e = (int64_t)t->elm_size;   /* a live type (the copy checked it): no pa_elm_size call per copy */
    if (__builtin_mul_overflow(lo, e, &first) || __builtin_add_overflow(first, at, &first) ||
        __builtin_add_overflow(hi, 1, &last) || __builtin_mul_overflow(last, e, &last) ||
        __builtin_add_overflow(last, at, &last) || first < 0 || (uint64_t)last > b->bytes)
        return extent_error(what, t, ptr, b, lo, hi);
    return PA_OK;
}

int pa__copy_check_memory(const pa_type *dt, const void *dst, const pa__mem_ops *dm, const pa_type *st,
                          const void *src, const pa__mem_ops *sm, const pa__layout *dl, const pa__layout *sl)
{
    pa__block db, sb;
    pa__mem_blocks2(dst, src, &db, &sb);
    int rc = check_side("destination", dt, dst, dm, db.ops);
    if (rc == PA_OK)
        rc = check_side("source", st, src, sm, sb.ops);
    if (rc == PA_OK)
        rc = check_extent("destination", dt, dst, &db, dl);
    return rc != PA_OK ? rc : check_extent("source", st, src, &sb, sl);
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
