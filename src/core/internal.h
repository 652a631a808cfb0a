/*
 * parray — internal declarations shared by the core and the backends.  Never included from a public header.
 */
#ifndef PARRAY_INTERNAL_H
#define PARRAY_INTERNAL_H

#include <pthread.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>

#include "parray/parray.h"
/* The library implements every module: their headers too (parray.h gives the core alone with PA_CORE_ONLY). */
#include "parray/cuda.h"
#include "parray/gputile.h"
#include "parray/kernel.h"
#include "parray/matrix.h"
#include "parray/mpi.h"
#include "parray/ssb.h"

#define PA__HIDDEN __attribute__((visibility("hidden")))

/* ---- errors (src/core/error.c) ------------------------------------------------------------------------ */

/** Sets the calling thread's detailed message and returns status, for "return pa__err(...)". */
int pa__err(int status, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/** Re-raises the calling thread's last error with a prefix: "<prefix>: <previous detail>". */
int pa__err_wrap(int status, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/** The status of the calling thread's last pa__err (PA_OK after pa_error_clear): for callers of functions that
 *  report failure by NULL, such as pa_create. */
int pa__last_status(void);

/* ---- files read by name (src/core/file_read.c) ----------------------------------------------------------- */

/**
 * Opens path for reading without blocking and checks that it is a regular file of at most max bytes (0: no cap).
 * Messages begin with what ("ssb", "cost file").  \return PA_OK with *fd and *size; PA_ERR_SYS (cannot open:
 * errno is the open's), PA_ERR_INVAL (a FIFO, a device, a directory: errno EINVAL) or PA_ERR_SIZE (over max).
 */
int pa__open_regular(const char *what, const char *path, size_t max, int *fd, size_t *size);
/** Reads a whole regular file (pa__open_regular's checks) into a NUL-terminated buffer (*out, to free). */
int pa__read_regular(const char *what, const char *path, size_t max, char **out, size_t *len);

/* ---- type handles (src/core/type_nodes.c) ------------------------------------------------------------------ */

/**
 * PA_OK for a live type handle; PA_ERR_INVAL with a message naming fn for NULL, or for a stale handle (a type
 * whose scope was destroyed: its memory stays the library's, so the check reads no freed memory).
 */
int pa__type_usable(const pa_type *t, const char *fn);

/* ---- device code (src/kernels/dtype.c) -------------------------------------------------------------------- */

/** The CUDA C++ name of t's element type where device code knows it under a name ("float", "int4"; int32_t is
 *  "int"), else NULL: generated kernels then give the elements a struct of pa_elm_size(t) bytes. */
const char *pa__elm_cuda_name(const pa_type *t);

/* ---- environment variables (src/core/env.c) -------------------------------------------------------------- */

/*
 * Each reads a variable and validates it: unset gives the default silently; a value the documentation does not
 * allow gives a one-line warning on stderr (once per `once` flag, which each call site keeps) and the default.
 */
#include <stdatomic.h>
/** 1 and *out when value is a whole decimal integer in [lo, hi]; 0 otherwise (NULL, "", "3junk", "-3"...). */
int pa__env_parse_int(const char *value, long lo, long hi, long *out);
/** An integer in [lo, hi], else def; def_text (may be NULL) says what the default is in the warning. */
long pa__env_int(const char *name, long lo, long hi, long def, const char *def_text, atomic_int *once);
/** "1" is 1, "0" or unset is 0; anything else is a warning and 0. */
int pa__env_flag(const char *name, atomic_int *once);
/** The index of the value among words, else def (a warning when set to another word). */
int pa__env_choice(const char *name, const char *const *words, int nwords, int def, atomic_int *once);
/** The warning line itself ("parray: warning: NAME='value' is not EXPECTED; using the default (DFLT)"), once. */
void pa__env_warn(atomic_int *once, const char *name, const char *value, const char *expected, const char *dflt);
/** An absolute directory path shorter than max_len, else NULL (a warning when set but invalid). */
const char *pa__env_dir(const char *name, size_t max_len, atomic_int *once, const char *def_text);

/* ---- compiled layouts (src/core/layout*.c) ------------------------------------------------------------- */

/*
 * A compiled layout: offset(k) = base + sum over modes m of contribution_m(digit_m(k)), where the digits are
 * k's row-major decomposition over the mode sizes (modes[0] outermost, modes[nmodes-1] innermost).  An
 * affine mode contributes digit*stride; a gathered mode (table != NULL) contributes table[digit].
 */
#define PA__MAX_MODES 32

typedef struct pa__mode {
    int64_t size;
    int64_t stride;         /* affine modes */
    const int64_t *table;   /* gathered modes: size entries, owned by the layout's type */
} pa__mode;

typedef struct pa__layout {
    int64_t size;           /* product of the mode sizes: the type's size */
    int64_t base;
    int64_t min_off, max_off;
    int nmodes;
    int affine;             /* 1 when no mode is gathered */
    pa__mode modes[PA__MAX_MODES];
} pa__layout;

/**
 * The compiled, coalesced layout of a type (made once, cached on the type) in *out.  \return PA_OK, or the
 * status of the failure with the message set and *out NULL: PA_ERR_PARAM (an unbound type), PA_ERR_UNSUPPORTED
 * (too irregular and too large: the copy walks or goes by pieces), PA_ERR_RANGE (offsets overflow),
 * PA_ERR_NOMEM.
 */
int pa__layout_get(const pa_type *t, const pa__layout **out);
/** pa__layout_get for callers that need only the layout: NULL on failure (the status is pa__layout_get's). */
const pa__layout *pa__type_layout(const pa_type *t);
/** Offset of flat index k through a compiled layout (0 <= k < size). */
int64_t pa__layout_offset(const pa__layout *l, int64_t k);
/** Merges adjacent affine modes where outer.stride == inner.stride * inner.size and drops size-1 modes. */
void pa__layout_coalesce(pa__layout *l);
/** Writes the canonical "(s0,s1):(d0,d1)+base" form.  \return as snprintf. */
int pa__layout_format(const pa__layout *l, char *buf, size_t len);
/** The reference semantics: the offset of flat index i by walking the dimension tree (the test oracle). */
int64_t pa__offset_walk(const pa_type *t, int64_t i);

/*
 * A piecewise-affine layout (layout_pieces.c): the type's flat index is row-major over its digits (its leaves,
 * sizes dsize), and the digits' index space is cut into boxes, on each of which the type is affine.  A wrap
 * (the cyclic shift [n # disp(3) # [n]]) is two boxes; a wrap on each of two axes, four.  Made for types whose
 * one-layout compilation needs tables or is refused, so that copies run on strides whatever the size.
 */
#define PA__MAX_PIECES 64
#define PA__MAX_DIGITS 64

typedef struct pa__piece {
    const int64_t *lo, *len;  /* the box: digit d runs over lo[d] .. lo[d] + len[d] - 1 */
    pa__layout l;             /* offsets over the box's own flat index (row-major over len), affine */
} pa__piece;

typedef struct pa__pieces {
    int nd, n;
    int64_t dsize[PA__MAX_DIGITS];
    int64_t min_off, max_off;
    pa__piece *p;
    int64_t *boxes;           /* the lo and len arrays of every piece */
} pa__pieces;

/** The pieces of a type whose single layout has tables or was refused, made once and kept with the type; NULL
 *  (no error set) when the type's layout is affine or the type is not piecewise affine. */
const pa__pieces *pa__type_pieces(const pa_type *t);
void pa__pieces_free(pa__pieces *p);
/** Writes "{(sizes):(strides)+base over [lo..hi), ...}".  \return as snprintf. */
int pa__pieces_format(const pa__pieces *p, char *buf, size_t len);
/**
 * Restricts layout l, whose flat index is row-major over nd digits of sizes dsize, to the box lo + [0, len):
 * out's flat index is row-major over len.  Each digit of the box that is not whole must be one mode of l (after
 * its modes are cut at the digits' boundaries).  \return PA_OK, or PA_ERR_UNSUPPORTED when l does not split so.
 */
int pa__layout_restrict(const pa__layout *l, int nd, const int64_t *dsize, const int64_t *lo, const int64_t *len,
                        pa__layout *out);

/* ---- memory types (src/core/mtt.c; allocators in the backends) ----------------------------------------- */

struct pa__strategy;
typedef struct pa__strategy pa__strategy;

typedef enum pa__mtt_kind { PA__MTT_NONE, PA__MTT_MEMORY, PA__MTT_THREAD } pa__mtt_kind;

/** An allocator for one memory type, registered by a backend. */
typedef struct pa__mem_ops {
    const char *name;                  /* "paged", "mmap", "numa", ... */
    int host_accessible;               /* 1 when the CPU may load and store it directly */
    int (*available)(void);            /* 1 when usable on this machine */
    int (*alloc)(size_t bytes, const pa_mem_opts *opts, void **out, void **cookie);
    int (*free)(void *ptr, size_t bytes, void *cookie);
    /* Optional: an allocator that needs the type (its element type, e.g. gamem's Global Arrays data type);
     * pa_create calls it instead of alloc when set. */
    int (*alloc_type)(const pa_type *type, size_t bytes, const pa_mem_opts *opts, void **out, void **cookie);
    /* Optional: the backend's own integer handle of a live array (gamem: its Global Arrays handle). */
    int (*handle)(const void *ptr, int *out);
    /* Optional, for memory the CPU cannot reach: whether a pointer that pa_create did not make (a foreign one,
     * or one inside an array) is memory of this kind: 1 yes, 0 no (a host pointer for dmem), -1 unknown. */
    int (*holds)(const void *ptr);
    /* Optional (dmem): sharing an allocation with other processes of the host (CUDA IPC), for distributed
     * copies that copy between the processes' device memory directly.  export writes PA__IPC_HANDLE_BYTES
     * naming the allocation at base; open maps another process's handle here; close unmaps it; copy moves
     * bytes between any two device addresses of this host (a mapped one included) and waits. */
    int (*ipc_export)(const void *base, void *handle);
    int (*ipc_open)(const void *handle, void **out);
    int (*ipc_close)(void *ptr);
    int (*ipc_copy)(void *dst, const void *src, size_t bytes);
} pa__mem_ops;

/** The size of a pa__mem_ops IPC handle (a cudaIpcMemHandle_t). */
#define PA__IPC_HANDLE_BYTES 64

/** The allocator for a memory type name, or NULL. */
const pa__mem_ops *pa__mem_find(const char *name);
/** Kind of an mtt name (memory, thread, or not an mtt). */
pa__mtt_kind pa__mtt_kind_of(const char *name);
/** The memory type of a pointer made by pa_create, or inside an array it made (looked up by range in the
 *  allocation registry), or NULL. */
const pa__mem_ops *pa__mem_of(const void *ptr);
/** pa__mem_of for two pointers under one lock (pa__mem_blocks2 in mem_internal.h also gives the blocks). */
void pa__mem_of2(const void *a, const void *b, const pa__mem_ops **out_a, const pa__mem_ops **out_b);

/* ---- copy strategies (src/core/plan*.c; kernels in the backends) -------------------------------------- */

/* The jointly coalesced shape of a copy: the same loop nest over both sides. */
typedef struct pa__copy_shape {
    int nmodes;                      /* modes[0] outermost */
    int64_t size[PA__MAX_MODES];
    int64_t dst_stride[PA__MAX_MODES];
    int64_t src_stride[PA__MAX_MODES];
    const int64_t *dst_table[PA__MAX_MODES];   /* gathered modes, else NULL */
    const int64_t *src_table[PA__MAX_MODES];
    int64_t dst_base, src_base;
    size_t elm;                      /* bytes per element */
    int64_t total;                   /* elements */
    const pa__mem_ops *dst_mem, *src_mem;
} pa__copy_shape;

struct pa__plan;

/*
 * A copy strategy: a name, a probe that says whether it applies to a shape and at what estimated cost (in
 * nanoseconds), and its operations.  Backends list theirs in a table; the planner picks the cheapest.
 */
struct pa__strategy {
    const char *name;
    int (*probe)(const pa__copy_shape *shape, double *cost, char *why, size_t whylen);
    int (*exec)(const struct pa__plan *plan, void *dst, const void *src);
    /* Queues the copy on a stream and returns (NULL: the strategy runs synchronously, after the stream). */
    int (*exec_async)(const struct pa__plan *plan, void *dst, const void *src, void *stream);
    /* Optional, for the explanation: the host threads a plan runs on now (NULL: 1), whether it writes with
     * streaming stores (NULL: no), and why it takes its threads (NULL: nothing to say). */
    int (*threads)(const struct pa__plan *plan);
    int (*streams)(const struct pa__plan *plan);
    int (*threads_note)(const struct pa__plan *plan, char *buf, size_t len);
    /* Optional: the predicted time of a plan as it runs now, ns (NULL: the probe's cost). */
    double (*predict)(const struct pa__plan *plan);
};

/**
 * Waits until everything queued on a stream (a cudaStream_t; NULL the default stream) has finished: what a
 * synchronous strategy does first in pa_copy_async.  The core asks the backend with streams (CUDA); without
 * one switched on, only NULL is a stream (src/core/backends.c).
 * \return PA_OK, PA_ERR_NODEV (a stream and no CUDA backend) or PA_ERR_SYS.
 */
int pa__stream_wait(void *stream);


/* ---- distributed types (src/core/dist.c; copies in the backend of the thread type) -------------------- */

/*
 * A distributed type (DESIGN §4, manual §5.5) mixes thread-type dimensions (mpi [n]) with memory dimensions.
 * The core splits it into two layouts over the same flat index: the process (thread) offset of every element
 * and its local (memory) offset.  Both have the type's size; a dimension of the other kind contributes a mode
 * of stride 0.
 */
typedef struct pa__dist_pack pa__dist_pack;
typedef struct pa__dist_split {
    pa__layout pid;          /* the thread-type part: the rank in the process array */
    pa__layout local;        /* the memory part: the element offset in that process's array, as the local type
                                places it (read offsets through pa__dist_local, which packs where `pack` is set) */
    pa__dist_pack *pack;     /* several axes, an inner one uneven: local arrays packed as darray's (dist_pack.c);
                                then local.affine is 0.  Owned here */
    const char *thread_mtt;  /* "mpi", "pthd", ...; "" for a local type (every element on pid 0) */
    const char *memory_mtt;  /* the memory type of the local part ("any" when unspecified) */
    int64_t *owned[2 * PA__MAX_MODES];   /* gather tables of windowed parts (uneven distributions), owned here */
    int nowned;
} pa__dist_split;

/** Frees the tables a split owns (its windowed parts' and its packing); the struct itself is the caller's. */
void pa__dist_split_release(pa__dist_split *s);
/** The local offset of flat index k: packed where the split packs (darray's local arrays), else its local
 *  layout's. */
int64_t pa__dist_local(const pa__dist_split *s, int64_t k);
/**
 * The packing of a distributed dimension over several axes (src/core/dist_pack.c): made (*out non-NULL) only
 * when an axis other than the outermost of the local array is dealt unevenly; then each process's local array
 * is exactly its own extents, row-major in the local type's order of the axes, as MPI_Type_create_darray packs
 * it.  \return PA_OK (*out NULL when nothing is to be packed) or an error of the axes' splits or PA_ERR_NOMEM.
 */
int pa__dist_pack_make(const pa_type *n, pa__dist_pack **out);
void pa__dist_pack_free(pa__dist_pack *p);
/** 1 when a dimension may need packing: distributed, not a window, several axes, one of them holds a window. */
int pa__dist_pack_candidate(const pa_type *n);

/** 1 when the type (or dimension) has thread-type dimensions mixed with memory dimensions. */
int pa__type_distributed(const pa_type *t);
/**
 * Splits a distributed type, or a local type (pid 0 for every element), into its two layouts.  The structs
 * are zeroed first, so equal inputs give byte-equal outputs.  Gathered modes point into the types' tables.
 * A distributed dimension may be a window of another one, [n # disp(d) # step(k) # DIST] (a size, then
 * displacements and steps, then a reference to a distributed type): index i is DIST's index c(i) mod
 * size(DIST), c the chain applied in order (disp adds, step multiplies), so [n # DIST] with n < size(DIST) is an uneven distribution (block or cyclic(k) as MPI's darray
 * deals them, processes owning fewer elements or none).  A window's modes are gather tables the split owns
 * unless they are affine; release them with pa__dist_split_release.
 * \return PA_OK, PA_ERR_UNSUPPORTED (a displacement or func on a distributed dimension, two thread types,
 *         too many modes) or a layout compilation error; the message names the type.
 */
int pa__dist_split_of(const pa_type *t, pa__dist_split *out);
/** The split of a type in *out, made once and kept with the type (freed with it).  \return PA_OK, or the
 *  failure's status (pa__dist_split_of's, PA_ERR_PARAM, PA_ERR_NOMEM) with the message set and *out NULL. */
int pa__dist_split_get(const pa_type *t, const pa__dist_split **out);
/** pa__dist_split_get for callers that need only the split: NULL on failure. */
const pa__dist_split *pa__type_dist_split(const pa_type *t);

/**
 * Finds affine modes for a list of n offsets (in list order), innermost first by the longest arithmetic runs,
 * checked against every entry.  \return 1 with out filled (coalesced) when the list is affine, else 0.
 */
int pa__offsets_affine(const int64_t *t, int64_t n, pa__layout *out);

/* The hooks a backend that owns a thread type gives the core for distributed copies. */
typedef struct pa__dist_ops {
    const char *thread_mtt;
    int (*copy)(const pa_type *dt, void *dst, const pa_type *st, const void *src);
    int (*explain)(const pa_type *dt, const pa_type *st, char *buf, size_t len);
    int (*query)(const pa_type *dt, const pa_type *st, struct pa_copy_info *info);   /* optional (pa_copy_query) */
} pa__dist_ops;

/** The hooks for a copy with at least one distributed side in *out.  \return PA_OK, or the status with the
 *  message set and *out NULL: no backend for the pair (PA_ERR_UNSUPPORTED, PA_ERR_NODEV) or a split's error. */
int pa__dist_ops_for(const pa_type *dt, const pa_type *st, const pa__dist_ops **out);

/* ---- thread arrays of other backends (src/core/dist.c: the table; MPI process arrays) ------------------ */

/*
 * pa_for (pthread backend) hands thread types it does not run to the launcher the core lists for their mtt,
 * and the context accessors (pa_tid, pa_ctx_size, pa_self, pa_tid_path, pa_sync) answer from `ext` for the
 * contexts those launchers make.
 */
typedef struct pa__ext_ctx {
    int64_t size;                  /* processes in the array */
    const pa_type *self;           /* its thread type, NULL when unknown */
    /* A barrier of the processes in group (-1: the whole array); tid orders them.  Path is for messages. */
    int (*sync)(const struct pa__ext_ctx *x, int64_t tid, int64_t group, const char *path);
    void *data;                    /* the launcher's own */
} pa__ext_ctx;

struct pa__launch;
struct pa_ctx {
    struct pa__launch *launch;     /* arrays of the pthread backend; NULL for other backends' */
    int64_t tid;
    const pa_ctx *parent;
    const pa__ext_ctx *ext;        /* other backends' arrays */
};

typedef struct pa__launcher {
    const char *mtt;
    int (*launch)(const pa_type *t, pa_thread_fn fn, const void *arg, size_t arg_size);
} pa__launcher;

/** The launcher of another backend for a thread mtt ("mpi"), or NULL when pa_for runs it (or none does). */
const pa__launcher *pa__launcher_for(const char *mtt);

/* ---- the type model (src/core/type_*.c) ----------------------------------------------------------------- */

/* Opaque here; the copy planner and backends use only the query functions and pa__type_layout. */

/** PA_OK for a bound type; PA_ERR_PARAM, with a message naming what asked, for the unbound handle of a type
 *  with parameters (pa_type_get of its bare name), PA_ERR_INVAL for NULL (src/core/instance.c). */
int pa__bound(const pa_type *t, const char *what);
/** Name of the mtt of a type ("any" when unspecified); the node's own mtt for a distributed type's dimension. */
const char *pa__type_mtt(const pa_type *t);
/**
 * A number that no other type or dimension made in this process has, not even one made later at the address
 * of a freed one (src/core/instance.c).  With its address it names a type across calls: types never change
 * once made, so whatever was worked out for a type still holds while both match.
 */
uint64_t pa__type_serial(const pa_type *t);

/* A (destination, source) pair of types as the per-thread memos of recent copies remember it (copy.c, and the
 * MPI backend's plans): by address and by serial. */
typedef struct pa__pair {
    const pa_type *dt, *st;
    uint64_t dser, sser;
} pa__pair;

static inline void pa__pair_set(pa__pair *p, const pa_type *dt, const pa_type *st)
{
    *p = (pa__pair){.dt = dt, .st = st, .dser = pa__type_serial(dt), .sser = pa__type_serial(st)};
}

/** 1 when the types at p's addresses are still the ones p was set for (src/core/instance.c). */
int pa__pair_current(const pa__pair *p);

/** 1 when p names these two (live) types; never for an empty (zeroed) pair, since dt and st are not NULL. */
static inline int pa__pair_is(const pa__pair *p, const pa_type *dt, const pa_type *st)
{
    return p->dt == dt && p->st == st && pa__pair_current(p);
}

/* ---- this process's share of the host (src/backends/pthread/host_share.c) ---------------------------------- */

/** Records the ranks sharing this node, as the MPI backend's shared-memory communicator found them. */
void pa__node_share_set(int local_rank, int local_ranks);
/** This process's share of the host (pa_host_share without the NULL check).  \return PA_OK. */
int pa__host_share(pa_host_share_info *out);
/** CPUs this process's threads may use by default: its share of the host (at least 1). */
int pa__process_cpus(void);

/* numeric(p, s) element types (elm_decimal.c): 1 and the precision and scale when name is one (1 <= p <= 38,
 * 0 <= s <= p), else 0. */
int pa__elm_numeric(const char *name, int *precision, int *scale);
/* PA_OK unless name is a malformed numeric ("numeric" alone, "numeric(40,2)"): then PA_ERR_ELM saying why. */
int pa__elm_numeric_check(const char *name, const char *src, int col);
/* PA_OK unless both element types are numeric and a byte copy would change the values (scales differ) or
 * may not fit (a smaller precision): then PA_ERR_ELM naming both types. */
int pa__elm_copy_check(const char *dst_name, const char *dst_elm, const char *src_name, const char *src_elm);

#endif
