/*
 * parray — slices of a layout, for the routes that move a distributed copy in chunks (the MPI backend's NCCL
 * route, src/backends/mpi/dist_nccl.c, and the pthd all-to-all's, src/backends/host/copy/copy_exchange_gpu.c):
 * the elements [start, start + n) of a layout as one layout where they are one, and the pack or unpack plan of
 * such a slice between the user's array and a dense buffer.
 */
#ifndef PARRAY_LAYOUT_SLICE_H
#define PARRAY_LAYOUT_SLICE_H

#include "plan.h"

/* One peer's part of one chunk on one side: a slice of the side's layout, and where it sits in the buffer. */
typedef struct pa__slice {
    int64_t n;                   /* elements */
    int64_t pos;                 /* first element in the packed (or received) order of the side */
    pa__plan *plan;              /* pack (dense <- layout) or unpack (layout <- dense); NULL when direct */
    int64_t base;                /* the slice's base offset in the user's array */
    int direct;                  /* one contiguous run: the transfer reads or writes the array itself */
} pa__slice;

/**
 * The elements [start, start + n) of l as one layout in *out (bases included; a gathered mode's table points
 * into l's), where they are one: a run of whole sub-blocks of one mode that does not wrap around it.
 * \return 1, or 0 when they are not one layout (or the range leaves l).
 */
int pa__layout_slice(const pa__layout *l, int64_t start, int64_t n, pa__layout *out);
/** The smallest and largest element offsets l reaches; unknown (l not one slice of itself): 0 and a huge
 *  number, which overlaps everything.  An empty layout: 0 and -1. */
void pa__layout_extent(const pa__layout *l, int64_t *lo, int64_t *hi);
/** 1 when l is one contiguous run of elements (one mode of stride 1, or a single element). */
int pa__layout_contiguous(const pa__layout *l);
/** The dense layout of n elements (stride 1, base 0). */
pa__layout pa__layout_dense(int64_t n);
/**
 * Slice [start, start + n) of l as *out, placed at element pos of a dense buffer: direct when it is one
 * contiguous run, else with its plan (unpack: l's memory <- the buffer; else the buffer <- l's memory), both
 * sides in memory mem.  *ok is 0 (and nothing made) when the elements are not one layout.
 * \return PA_OK, or the planner's error.
 */
int pa__slice_make(const pa__layout *l, int64_t start, int64_t n, int64_t pos, size_t elm,
                   const pa__mem_ops *mem, int unpack, pa__slice *out, int *ok);
/** 1 when a block of cnt elements from start of l cuts into `chunks` equal slices that are each one layout. */
int pa__layout_sliceable(const pa__layout *l, int64_t start, int64_t cnt, int chunks);

#endif
