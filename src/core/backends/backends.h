/*
 * parray — the one interface between the core and its backends.
 *
 * A backend (src/backends/<name>/) describes itself in one pa__backend: its memory types, copy strategies,
 * hooks for copies of arrays distributed over its thread type, the launcher of its thread arrays, how to wait
 * for its streams, and, for the host backend, the copy kernels that other backends' staged copies use.  The
 * core keeps one list of them (src/core/backends/backends.c, the only file of the core that knows which backends a
 * build has) and walks it: the core never names a backend's function, and a backend never includes another's
 * internal header.  PA_BACKENDS switches backends off at start (docs/architecture.md).
 *
 * The list is the second layer of the core, above base.h alone: every layer above walks it for its own hooks
 * (types.h: allocators by mtt name; plan.h: strategies; dist.h: distributed copies), so the vtables name the
 * upper layers' types only through pointers.
 */
#ifndef PARRAY_BACKENDS_H
#define PARRAY_BACKENDS_H

#include "base.h"

/* The vtables' types of the layers above (plan.h, cost_model.h), reached here only through pointers. */
typedef struct pa__strategy pa__strategy;
typedef struct pa__host_kernels pa__host_kernels;
typedef struct pa__cost_model pa__cost_model;

/* ---- memory types' allocators (their names: types.h; the allocation table: mem_internal.h) -------------- */

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
     * naming the allocation at base (ipc_base finds the start of the one holding any pointer); open maps another
     * process's handle here; close unmaps it; copy moves
     * bytes between any two device addresses of this host (a mapped one included) and waits. */
    int (*ipc_export)(const void *base, void *handle);
    int (*ipc_base)(const void *ptr, const void **base);   /* the start of the allocation that holds ptr */
    int (*ipc_open)(const void *handle, void **out);
    int (*ipc_close)(void *ptr);
    int (*ipc_copy)(void *dst, const void *src, size_t bytes);
} pa__mem_ops;

/** The size of a pa__mem_ops IPC handle (a cudaIpcMemHandle_t). */
#define PA__IPC_HANDLE_BYTES 64

/* ---- distributed copies (the splits: dist.h) ------------------------------------------------------------- */

/* The hooks a backend that owns a thread type gives the core for distributed copies. */
typedef struct pa__dist_ops {
    const char *thread_mtt;
    int (*copy)(const pa_type *dt, void *dst, const pa_type *st, const void *src);
    int (*explain)(const pa_type *dt, const pa_type *st, char *buf, size_t len);
    int (*query)(const pa_type *dt, const pa_type *st, struct pa_copy_info *info);   /* optional (pa_copy_query) */
} pa__dist_ops;

/* ---- thread arrays of other backends (pa__launcher_for: backends.c; MPI process arrays) ----------- */

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

/* ---- streams --------------------------------------------------------------------------------------------- */

/**
 * Waits until everything queued on a stream (a cudaStream_t; NULL the default stream) has finished: what a
 * synchronous strategy does first in pa_copy_async.  The core asks the backend with streams (CUDA); without
 * one switched on, only NULL is a stream (backends.c).
 * \return PA_OK, PA_ERR_NODEV (a stream and no CUDA backend) or PA_ERR_SYS.
 */
int pa__stream_wait(void *stream);

/* ---- asynchronous device work (the SSB engine's streaming mode) ------------------------------------------- */

/*
 * Streams, events and queued copies on the current GPU, for code above the core that overlaps copies with
 * kernels (src/query/ssb_gpu*.c).  Every call returns PA_OK or a status with the message set.
 */
typedef struct pa__async_ops {
    int (*stream_new)(void **stream);                           /* a stream that does not wait for the legacy one */
    void (*stream_free)(void *stream);
    int (*event_new)(void **event);                             /* without timing */
    void (*event_free)(void *event);
    int (*record)(void *event, void *stream);                   /* stream NULL: the legacy default stream */
    int (*wait)(void *stream, void *event);                     /* stream waits for event (of any GPU) */
    int (*copy)(void *dst, const void *src, size_t bytes, void *stream);   /* host or device, either way, queued */
    /* Page-locks [p, p + bytes) for every GPU (queued copies from it then run at the bus's rate); *mine gets 1
     * when this call locked it (then unlock it), 0 when it was locked already. */
    int (*host_lock)(void *p, size_t bytes, int *mine);
    int (*host_unlock)(void *p);
    int (*mem_info)(size_t *free_bytes, size_t *total_bytes);   /* the current GPU's memory */
} pa__async_ops;

/** The asynchronous device work of the first switched-on backend that has it; NULL with the message set (no
 *  such backend built or on) otherwise. */
const pa__async_ops *pa__backends_async(const char *what);

/* ---- the backends' descriptions -------------------------------------------------------------------------- */


/* One transfer of a group between the GPUs of a device communicator: bytes to or from peer. */
typedef struct pa__xfer {
    int peer;
    void *buf;          /* device memory (read for a send, written for a receive) */
    size_t bytes;
} pa__xfer;

/*
 * Device collectives (the NCCL backend): communicators between the GPUs of several processes, groups of sends
 * and receives between them on a stream, and the streams and events that order packing, transfers and
 * unpacking.  The MPI backend bootstraps communicators (it broadcasts the id) and plans what moves, as the
 * pthread backend does for the all-to-all between threads on several GPUs of one process (one communicator
 * per thread); this backend moves it.  Every call returns PA_OK or a status with the message set.
 */
typedef struct pa__devcomm_ops {
    size_t id_bytes;                                            /* bytes of a communicator's id */
    int (*make_id)(void *id);                                   /* one process makes it, the others receive it */
    /* Joins communicator id as rank of nranks on the calling thread's current GPU (collective over them). */
    int (*comm_init)(const void *id, int rank, int nranks, void **comm);
    void (*comm_free)(void *comm);
    /* The calling thread's current GPU as "host/PCI bus id" (processes on one GPU see the same key). */
    int (*device_key)(char *buf, size_t len);
    /* The calling thread's current GPU as its CUDA device number (one process: the pthd all-to-all's threads). */
    int (*current)(int *dev);
    /* Queues the sends and receives as one group on stream (NULL: the legacy default stream). */
    int (*group)(void *comm, const pa__xfer *sends, int nsends, const pa__xfer *recvs, int nrecvs, void *stream);
    /* A stream that does not wait for the legacy one; urgent: of the highest priority (the transfers). */
    int (*stream_new)(void **stream, int urgent);
    void (*stream_free)(void *stream);
    int (*event_new)(void **event);
    void (*event_free)(void *event);
    int (*record)(void *event, void *stream);                   /* stream NULL: the legacy default stream */
    int (*wait)(void *stream, void *event);                     /* stream waits for event */
    int (*sync)(void *stream);                                  /* the host waits for stream (NULL: legacy) */
    int (*copy)(void *dst, const void *src, size_t bytes, void *stream);   /* device to device, queued */
} pa__devcomm_ops;

/* The kinds of work a profiler range names (pa__trace_push's cat): one category per kind of call. */
enum { PA__TRACE_COPY = 1, PA__TRACE_CUDA_FOR = 2, PA__TRACE_CUDA_MAP = 3, PA__TRACE_KERNEL = 4 };

/* A profiler's ranges around the library's work (the CUDA backend's: NVTX, domain "parray", so that Nsight
 * Systems shows what the library did); push opens a range of category cat named name (a string that outlives
 * the range) on the calling thread, pop closes its innermost. */
typedef struct pa__trace_ops {
    void (*push)(int cat, const char *name);
    void (*pop)(void);
} pa__trace_ops;

/* pa__backend.compile's and pa__gpu_ops.load's arch: ORed into the compute capability (or into 0, the current
 * GPU's) it asks for the architecture-specific target sm_XYa, whose instructions (wgmma, setmaxnreg) run on that
 * architecture only. */
#define PA__ARCH_SPECIFIC 0x10000

/* A 2-D tiled tensor map for the bulk tensor copy engine (a CUtensorMap of 128 bytes): the tensor at base (16-byte
 * aligned) has dims[0] elements along its contiguous dimension and dims[1] rows stride bytes apart (a multiple of
 * 16); a copy moves a box of box[0] x box[1] elements (box[0] * elm at most 128 bytes: 128-byte swizzle), and
 * reads past the tensor's edges as zeros. */
typedef struct pa__tmap_desc {
    int elm_kind;                /* 0: 4-byte float, 1: bfloat16, 2: half */
    const void *base;
    uint64_t dims[2];
    uint64_t stride;             /* bytes between rows */
    uint32_t box[2];
} pa__tmap_desc;

/* A GPU's own features for generated kernels (the tiles' wgmma gemm).  Every call returns PA_OK or a status
 * with the message set. */
typedef struct pa__gpu_ops {
    int (*capability)(int *cc);                  /* the current GPU's compute capability, major * 10 + minor */
    /* Compiles source for the current GPU (arch 0, or PA__ARCH_SPECIFIC: its sm_XYa target) and loads entry. */
    int (*load)(const char *name, const char *source, const char *entry, int arch, void **fn);
    int (*tensor_map)(void *map, const pa__tmap_desc *d);   /* map: 128 bytes, 64-byte aligned */
    /* Device memory ordered on stream (NULL: the legacy default stream): usable by work queued there after
     * the call, freed after the work queued before scratch_free. */
    int (*scratch)(size_t bytes, void *stream, void **out);
    int (*scratch_free)(void *p, void *stream);
} pa__gpu_ops;

typedef struct pa__backend {
    const char *name;                         /* "pthread", "cuda", "mpi", "gamem": what PA_BACKENDS names */
    const char *what;                         /* a few words for parray info */
    int required;                             /* 1: cannot be switched off (the host backend) */
    /* 1 when this machine can run it now (NULL: always); may be slow (loads a driver): parray info only. */
    int (*probe)(char *why, size_t len);
    const pa__mem_ops *const *mem;            /* its memory types' allocators, NULL-terminated, or NULL */
    const pa__strategy *const *strategies;    /* its copy strategies, NULL-terminated, or NULL */
    const pa__dist_ops *dist;                 /* copies of arrays distributed over its thread type, or NULL */
    const pa__launcher *launcher;             /* thread arrays of its thread type that pa_for hands over, or NULL */
    int (*stream_wait)(void *stream);         /* waits for one of its streams; NULL: the default stream */
    void (*set_threads)(int n);               /* pa_copy_set_threads, for a backend with host copy threads */
    const pa__host_kernels *kernels;          /* the host backend's copy services, else NULL */
    /* Measures its constants of the cost model on this machine into *m (NULL: it measures none). */
    int (*calibrate)(pa__cost_model *m, FILE *log);
    const pa__devcomm_ops *devcomm;           /* its collectives between GPUs (nccl), or NULL */
    /* The device that holds its device memory at p (DLPack's device_id), or NULL: it has no devices.  Returns
     * PA_OK with *dev set, PA_ERR_MTT (p is not its device memory; the message names what) or PA_ERR_NODEV. */
    int (*pointer_device)(const void *p, const char *what, int *dev);
    /* Compiles device source for architecture arch (0: the current device's) into its kernel caches, so that
     * later loads of the same source are hits; NULL: it compiles nothing.  Returns PA_OK, PA_ERR_COMPILE (the
     * compiler's log in the message, labelled name), PA_ERR_NODEV or PA_ERR_NOMEM. */
    int (*compile)(const char *name, const char *source, int arch);
    const pa__trace_ops *trace;               /* its profiler's ranges, or NULL (or push NULL: none built in) */
    const pa__async_ops *async;               /* streams, events and queued copies (cuda), or NULL */
    const pa__gpu_ops *gpu;                   /* architecture-specific kernels and tensor maps (cuda), or NULL */
} pa__backend;

/* Each backend's description, defined in its own folder (backend_<name>.c). */
extern const pa__backend pa__backend_pthread;
extern const pa__backend pa__backend_cuda;
extern const pa__backend pa__backend_mpi;
extern const pa__backend pa__backend_nccl;

/** The number of backends this build knows (built in, or registered late), switched on or not. */
int pa__backend_count(void);
/** The i-th backend (0 <= i < count), in the order the planner probes strategies; NULL past the end. */
const pa__backend *pa__backend_at(int i);
/** 1 when b is switched on (PA_BACKENDS). */
int pa__backend_on(const pa__backend *b);
/** A backend of this build by name (switched on or not), or NULL. */
const pa__backend *pa__backend_named(const char *name);
/** 1 when a backend of this name was built into this library or registered (switched on or not). */
int pa__backend_built(const char *name);
/** 1 when this library was built with the optional library name ("numa": libnuma, "hwloc", "nvtx", "openmp"):
 * what tests ask at run time instead of testing PA_HAVE_* (backends.c is the only file that does). */
int pa__feature_built(const char *name);
/**
 * Registers a backend built outside the shared library (gamem, in libparray_gamem.a), from a constructor
 * before main.  \return PA_OK, PA_ERR_EXISTS (its name is taken) or PA_ERR_NOMEM (the list is full).
 */
int pa__backend_register_late(const pa__backend *b);
/** Why a backend of this build is not in the list because it lives in another library (gamem), else NULL. */
const char *pa__backend_elsewhere(const char *name);
/** The host copy services (the pthread backend's, which cannot be switched off). */
const pa__host_kernels *pa__host(void);
/** The allocator of a memory type from the backend that has it, NULL when none does or it is switched off;
 *  *owner (may be NULL) gets that backend, switched on or not, or NULL. */
const pa__mem_ops *pa__backends_mem(const char *name, const pa__backend **owner);
/** The distributed-copy hooks for a thread type, as pa__backends_mem. */
const pa__dist_ops *pa__backends_dist(const char *thread_mtt, const pa__backend **owner);
/** The device collectives of the first switched-on backend that has them, or NULL (*why: the reason, when not
 *  NULL: not built, switched off, or its library not loadable). */
const pa__devcomm_ops *pa__backends_devcomm(const char **why);
/** The device of p through the first switched-on backend with a pointer_device hook; PA_ERR_NODEV (naming what)
 *  when none is built or on. */
int pa__backends_pointer_device(const void *p, const char *what, int *dev);
/** Compiles device source through the first switched-on backend with a compile hook; PA_ERR_NODEV (naming
 *  what) when none is built or on. */
int pa__backends_compile(const char *what, const char *name, const char *source, int arch);

/** The GPU features of the first switched-on backend that has them; NULL with PA_ERR_NODEV set (naming what)
 *  when none is built or on. */
const pa__gpu_ops *pa__backends_gpu(const char *what);

/* Opens / closes a profiler range (pa__trace_ops) with the first backend switched on that has one; nothing
 * (a few loads) where none has. */
void pa__trace_push(int cat, const char *name);
void pa__trace_pop(void);
/** pa_copy_set_threads: tells every switched-on backend that has host copy threads. */
void pa__backends_set_threads(int n);

#endif
