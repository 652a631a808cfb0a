/*
 * parray — the Global Arrays backend's internal declarations (the gamem memory type and its copies).  Included
 * only by the files of src/backends/ga, which are built into the static library parray_gamem, and by its tests.
 *
 * A gamem "pointer" is the start of a reserved, inaccessible (PROT_NONE) range of the array's size in bytes:
 * the copy planner's pointer arithmetic (base offsets, windows) then stays inside it, and the distance from
 * the start is the element offset in the array.  A stray load or store through it faults at once instead of
 * touching someone else's memory.
 *
 * The Global Array behind it has the dimensions of the type it was created from when that type is plain
 * row-major (its offsets are its flat indices, as for "gamem int [3][[4][2]]": a 3 x 4 x 2 Global Array),
 * else one dimension of the type's extent; an element that is not one Global Arrays data type is several
 * (12 bytes: three C_INT), which adds a last dimension of that count.  Either way the element at offset o is
 * the one whose row-major subscript is o, so copies need only the dimensions to find their patches.
 */
#ifndef PARRAY_GA_BACKEND_H
#define PARRAY_GA_BACKEND_H

#include <mpi.h>
#include <stddef.h>
#include <stdint.h>

#include "internal.h"
#include "plan.h"

#define PA_GA__MAX_DIMS 7   /* GA_MAX_DIM */

/** How elements are stored: count units of Global Arrays type gtype, unit bytes each. */
typedef struct pa_ga__etype {
    int gtype;
    size_t unit;
    int count;
} pa_ga__etype;

/** One live gamem array. */
typedef struct pa_ga__array {
    char *addr;                  /* the reserved range: the pointer pa_create returned */
    size_t bytes, elm;
    int64_t n;                   /* elements (bytes / elm) */
    int handle;                  /* the Global Arrays handle */
    int pgroup;                  /* its processor group (GA_Pgroup_get_world() for the whole world) */
    MPI_Comm comm;               /* the communicator of the processes that made it (pa_mpi__comm()) */
    MPI_Group mgroup;            /* their group: a destroy must be made by the same processes */
    int scoped;                  /* made inside a process array (or rank 0's main): destroyed when it ends */
    unsigned long owner;         /* the thread that made it (pthread_t as a number), for scoped arrays */
    pa_ga__etype et;
    int ndims;
    int64_t dims[PA_GA__MAX_DIMS];   /* in units; the last is et.count when et.count > 1 */
    struct pa_ga__array *next;
} pa_ga__array;

/* ---- the allocator (mem_gamem.c) ---- */

/** The gamem allocator. */
extern const pa__mem_ops pa_ga__mem_ops;
/** Finds the live array whose reserved range holds p; *out gets a copy.  \return 1 if found, else 0. */
int pa_ga__find(const void *p, pa_ga__array *out);
/** 1 when a live array uses processor group pgroup. */
int pa_ga__group_in_use(int pgroup);
/** Destroys the scoped arrays this thread made (collective over their groups), at the end of their task. */
void pa_ga__destroy_scoped(void);

/* ---- element types and dimensions (ga_shape.c) ---- */

/** The storage of elements of elm bytes of type's element type.  \return PA_OK or PA_ERR_ELM. */
int pa_ga__etype_of(const pa_type *type, size_t elm, pa_ga__etype *out);
/** The Global Array's dimensions (in units) for n elements created from type (see above). */
void pa_ga__dims_of(const pa_type *type, int64_t n, const pa_ga__etype *et, int64_t *dims, int *ndims);

/* ---- starting and ending Global Arrays (ga_start.c) ---- */

/** Starts Global Arrays where needed, collectively over the calling processes.  \return PA_OK or an error. */
int pa_ga__start(void);
/** 1 when processor groups are made by their members alone (ARMCI-MPI with ARMCI_NONCOLLECTIVE_GROUPS). */
int pa_ga__noncollective_groups(void);
/** Before main (mem_gamem.c's constructor): turns on noncollective groups, registers the world call. */
int pa_ga__start_register(void);

/* ---- processor groups (ga_groups.c) ---- */

/**
 * The processor group of the calling processes: members[0..n) are the world ranks of pa_mpi__comm(), and
 * every one of them calls this together.  The world group when they are the whole world; else a kept group,
 * or one made now (ga_groups.c says by whom).  \return PA_OK or an error, the same on every one of them.
 */
int pa_ga__group_for(const int32_t *members, int n, int *pgroup);
/** Makes pgroup Global Arrays' default group on this process until its task (or pa_mpi_main's main) ends. */
void pa_ga__group_enter(int pgroup);
/** Destroys the kept groups no live array uses (this process's part of them), in one order on every process. */
void pa_ga__groups_release(void);
/** Forgets the kept groups without destroying them (Global Arrays has ended). */
void pa_ga__groups_forget(void);
/** Before main (mem_gamem.c's constructor): registers the world call and the end-of-task hooks. */
int pa_ga__groups_register(void);

/* ---- copies (copy_gamem.c, copy_box.c) ---- */

/** The gamem copy strategies, NULL-terminated. */
extern const pa__strategy *const pa_ga__strategies[];
/** Bytes of a gamem to gamem copy's buffer (between two arrays): 16 MiB; tests make it small. */
extern int64_t pa_ga__slice_bytes;

/*
 * A copy between one Global Array and host memory: modes outermost first, the gamem side's element offsets
 * (affine or gathered) from gbase, the host side's from host.
 */
typedef struct pa_ga__xfer {
    int nmodes;
    int64_t size[PA__MAX_MODES];
    int64_t gstride[PA__MAX_MODES], hstride[PA__MAX_MODES];
    const int64_t *gtab[PA__MAX_MODES], *htab[PA__MAX_MODES];
    int64_t gbase;
    char *host;
    size_t elm;
} pa_ga__xfer;

/** Checks that every element of x lies inside array a.  \return PA_OK or PA_ERR_RANGE. */
int pa_ga__xfer_check(const pa_ga__array *a, const pa_ga__xfer *x);
/** Moves x: host -> Global Array (put) or back, in patches of the array's dimensions.  \return PA_OK or an error. */
int pa_ga__xfer_move(const pa_ga__array *a, const pa_ga__xfer *x, int put);

/** What the last copy on this thread did: Global Arrays calls, strided ones, elements in the largest patch. */
typedef struct pa_ga__stats {
    int64_t calls, strided, largest, packed;
} pa_ga__stats;
/** The statistics of the last gamem copy made by this thread (tests). */
void pa_ga__last_stats(pa_ga__stats *out);
/** Clears this thread's statistics (at the start of a copy). */
void pa_ga__stats_reset(void);

#endif
