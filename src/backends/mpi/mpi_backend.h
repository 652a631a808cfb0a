/*
 * parray — the MPI backend's internal declarations: the communicator copies run on, the mpimem allocator,
 * distributed-copy plans and their execution.  Included only by the files of src/backends/mpi.
 */
#ifndef PARRAY_MPI_BACKEND_H
#define PARRAY_MPI_BACKEND_H

#include <mpi.h>
#include <pthread.h>

#include "lru.h"
#include "mpi_services.h"
#include "internal.h"
#include "plan.h"

/* ---- communicators (mpi_comm.c; the rest in mpi_services.h) ----------------------------------------------- */

/** Sets (or, with MPI_COMM_NULL, clears) the calling thread's process-array communicator.  \return the
 *  previous setting, for restoring it. */
MPI_Comm pa_mpi__set_comm(MPI_Comm comm);
/** Rank and size of the current communicator: 0 and 1 when MPI is not running (a single process). */
void pa_mpi__where(int *rank, int *nprocs);

/* ---- distributed-copy plans (dist_plan.c) -------------------------------------------------------------- */

typedef enum pa_mpi__kind {
    PA_MPI__LOCAL,       /* every element stays on one process: a host copy there */
    PA_MPI__SENDRECV,    /* every element goes from one process to one other: MPI_Send + MPI_Recv */
    PA_MPI__SCATTER,     /* one root sends an equal block to every process: MPI_Scatter */
    PA_MPI__GATHER,      /* every process sends an equal block to one root: MPI_Gather */
    PA_MPI__ALLTOALL,    /* every pair exchanges an equal block: MPI_Alltoall */
    PA_MPI__ALLTOALLV    /* anything else: pack by destination, MPI_Alltoallv, unpack by source */
} pa_mpi__kind;

/* How the bytes of a plan reach MPI (dist_device.c). */
typedef enum pa_mpi__route {
    PA_MPI__ROUTE_HOST,      /* both sides in host memory */
    PA_MPI__ROUTE_DEVICE,    /* a side in device memory, and MPI moves device memory: device buffers */
    PA_MPI__ROUTE_STAGED,    /* a side in device memory, staged through pinned host buffers */
    PA_MPI__ROUTE_PEER,      /* both sides in device memory on one host: copies between the processes' device
                                buffers (dist_peer.c) */
    PA_MPI__ROUTE_SHM,       /* both sides in host memory on one host: packed into shared memory, unpacked by
                                the receivers (dist_shm.c) */
    PA_MPI__ROUTE_NCCL       /* both sides in device memory: NCCL between the processes' GPUs (dist_nccl.c) */
} pa_mpi__route;

struct pa_mpi__nccl;

/* Seconds a plan spent, summed over its runs (PA_MPI_TIMES=1; dist_copy.c prints them at exit). */
typedef struct pa_mpi__times {
    double make;                     /* making the plan: its lists, host or device plans and buffers */
    double pack, self, mpi, unpack;  /* the collective kinds' steps; self: the own block (dist_self.c) */
    double total;                    /* whole copies, checks included */
    long runs;
} pa_mpi__times;

/*
 * A plan for one rank of one communicator size.  The elements a rank sends are ordered by destination rank,
 * then by flat index; those it receives by source rank, then by flat index, so that both ends of every pair
 * agree on the order without exchanging it.  send_l and recv_l are those orders as layouts of the user's
 * arrays (affine where the offsets allow, else a gather table); "direct" sides are contiguous and are handed
 * to MPI in place, the others are packed or unpacked through host copy plans and a buffer owned by the plan.
 */
typedef struct pa_mpi__dplan {
    /* What every copy reads comes first (128 bytes), so that a small copy touches few lines besides MPI's. */
    pa_mpi__kind kind;
    int rank, nprocs;
    int src_root, dst_root;          /* SENDRECV, SCATTER (src_root), GATHER (dst_root), LOCAL (both) */
    int send_direct, recv_direct;
    int direct;                      /* nothing to pack, time or route: straight to the MPI call
                                        (pa_mpi__direct_run); set once the plan is complete (dist_copy.c) */
    int count;                       /* MPI count of blk elements (SENDRECV, SCATTER, GATHER, ALLTOALL) */
    int64_t send_off, recv_off;      /* bytes from the user's pointers to the first element sent, received */
    int scale;                       /* MPI count units per element: elm for MPI_BYTE, else 1 */
    size_t elm;
    int64_t blk;                     /* elements per pair (SCATTER, GATHER, ALLTOALL) */
    int64_t nsend, nrecv;            /* this rank's elements */
    int64_t send_base, recv_base;    /* send_l.base and recv_l.base */
    MPI_Datatype etype;              /* MPI_BYTE, or elm contiguous bytes when counts in bytes overflow */
    char *sbuf, *rbuf;               /* pack buffers when not direct */
    pa__plan *pack, *unpack, *local; /* host plans: send_l -> buffer, buffer -> recv_l, send_l -> recv_l */
    int *scount, *sdispl, *rcount, *rdispl;   /* per rank, in MPI count units (ALLTOALLV) */
    /* The rest: for making, explaining and freeing the plan. */
    int64_t total;                   /* elements in all */
    int64_t run;                     /* the plan's lists go by runs of this many elements (dist_plan.c) */
    const pa__mem_ops *send_mem, *recv_mem;   /* the user's arrays' memory when in device memory, else NULL */
    const pa__mem_ops *send_ops, *recv_ops;   /* their memory whatever it is (NULL: unspecified), for plans
                                                 that have a device side */
    const pa__mem_ops *buf_mem[2];   /* sbuf's and rbuf's allocator (pinned or dmem), NULL for malloc */
    void *buf_cookie[2];
    pa_mpi__route route;
    int peer_refused;                /* the peer route could not be set up: staged instead */
    int nccl_refused;                /* the NCCL route could not be set up: the next route instead */
    struct pa_mpi__nccl *nccl;       /* NCCL: slices, plans, streams (dist_nccl.c), NULL on other routes */
    double busiest;                  /* bytes the busiest process sends or receives across processes (the
                                        same on every rank: the routes' costs use it) */
    double route_ns, route_next_ns;  /* the chosen device route's estimate, the runner-up's (dist_route.c) */
    int route_next;                  /* the runner-up route, -1 when none */
    void **peer_sbuf;                /* PEER: every process's send buffer, mapped here (NULL before the first run) */
    struct pa_mpi__pulls *pulls;     /* PEER: every peer's block pulled and unpacked in one pass (dist_peer.c),
                                        NULL where a block is not one layout (copied whole, then unpacked) */
    int peer_direct;                 /* PEER: the pulls read the peers' source arrays where they are: 0 not set
                                        up yet (the first run does it), 1 yes, -1 no (packed first) */
    pa__layout send_l, recv_l;
    pthread_mutex_t run_lock;        /* copies through the same buffers from several threads take turns */
    int64_t *tables[2];              /* gather tables of send_l and recv_l when not affine */
    int owns_etype;                  /* etype was made (and is freed) by the plan */
    /* ALLTOALL with blocks that split both layouts: the own block copied in place (dist_self.c) */
    pa__plan *self, *blk_pack, *blk_unpack;   /* own block send_l -> recv_l; one block to or from a buffer */
    int *xcount;                     /* MPI_Alltoallv send and receive counts with the own block zero */
    int64_t send_boff, recv_boff;    /* the own block's first element in src and dst */
    int64_t send_lo, send_hi, recv_lo, recv_hi;   /* the elements send_l and recv_l reach (the overlap test) */
    char **shm_seg;                  /* SHM: every process's segment, mapped here (NULL before the first run) */
    int shm_refused;                 /* the shared-memory route could not be set up: plain host route instead */
    int timed;                       /* PA_MPI_TIMES=1 when the plan was made */
    pa_mpi__times times;
    double cost_ns;                  /* the chosen pattern's estimate (dist_patterns.c) */
    int runner_up;                   /* the next cheapest pattern's kind, -1 when none applied */
    double runner_up_ns;
    char why[256];                   /* the chosen pattern's reason */
    /* the cache key (dist_copy.c) */
    pa__layout key[4];               /* the splits' layouts: destination pid, local, source pid, local */
    uint64_t key_dser, key_sser;     /* the types' serials when a split has gather tables (uneven windows), whose
                                        contents the key does not hold; 0 when the contents are the key */
    pa__lru_entry lru;               /* its entry in the bounded cache of plans */
} pa_mpi__dplan;

/* ---- calibration (cost_mpi.c) ----------------------------------------------------------------------- */

struct pa__cost_model;
/** Measures the MPI constants (latency, bandwidth) by ping-pong between processes 0 and 1 of the current
 *  communicator, collectively; leaves them without MPI or with one process.  \return PA_OK or PA_ERR_NOMEM. */
int pa_mpi__calibrate(struct pa__cost_model *m, FILE *log);

/* ---- the patterns as strategies (dist_patterns.c) ------------------------------------------------------ */

/* A pattern: the kind it makes, and its probe of the count matrix (summarised). */
struct pa_mpi__summary;
struct pa__cost_model;
typedef struct pa_mpi__pattern {
    pa_mpi__kind kind;
    int (*probe)(const struct pa_mpi__summary *s, const struct pa__cost_model *m, double *ns, char *why, size_t len);
} pa_mpi__pattern;

/** The patterns, in probing order (for tests: *n of them). */
const pa_mpi__pattern *pa_mpi__patterns(int *n);
/**
 * Probes every pattern on the count matrix c (nprocs x nprocs, source-major) and sets the plan's kind, roots,
 * block, estimate, reason and runner-up from the cheapest.  \return PA_OK or PA_ERR_UNSUPPORTED (none applies).
 */
int pa_mpi__pattern_choose(pa_mpi__dplan *p, const int64_t *c);

/** Makes the plan for dst <- src on this rank.  \return PA_OK or an error naming the types. */
int pa_mpi__dplan_make(const pa__dist_split *dst, const pa__dist_split *src, size_t elm, int rank, int nprocs,
                       pa_mpi__dplan **out);
/** Frees a plan.  NULL is ignored. */
void pa_mpi__dplan_free(pa_mpi__dplan *p);
/** Another reference to a cached plan the caller holds one of; pa_mpi__dplan_release gives one back (the last
 *  frees the plan once the cache has dropped it). */
void pa_mpi__dplan_hold(pa_mpi__dplan *p);
void pa_mpi__dplan_release(pa_mpi__dplan *p);
/** The cache of plans (its size, hits, evictions), and its capacity (at least 1; default 64 plans, besides
 *  those whose first run set up state with the other processes, which are never evicted).  For tests. */
void pa_mpi__plan_cache_stats(pa__lru_stats *out);
void pa_mpi__plan_cache_capacity(int plans);
/** The one-line explanation of a plan, as pa_copy_explain gives it.  \return as snprintf. */
int pa_mpi__dplan_explain(const pa_mpi__dplan *p, char *buf, size_t len);
/** Prints a plan's times (PA_MPI_TIMES=1) to stderr: one line, as pa_mpi__dplan_explain's plus the times. */
void pa_mpi__times_print(const pa_mpi__dplan *p);
/** A switch of the MPI backend that is on unless set to 0 (PA_MPI_SELF, PA_MPI_SHM, PA_MPI_PEER): 1 or 0; a value
 *  other than 0 or 1 warns once and counts as 1. */
int pa_mpi__env_on(const char *name, atomic_int *once);
/** The name of a plan's kind as the MPI call it maps to ("MPI_Alltoall"). */
const char *pa_mpi__kind_name(pa_mpi__kind k);

/* ---- device memory and the MPI buffers (dist_device.c) ------------------------------------------------- */

/** The allocator of a split's memory when it is device memory (dmem), else NULL (host memory). */
const pa__mem_ops *pa_mpi__device_memory(const pa__dist_split *s);
/** 1 when MPI moves device memory: PA_MPI_CUDA_AWARE when set, else Open MPI's MPIX_Query_cuda_support(). */
int pa_mpi__cuda_aware(void);
/** The route's words for explanations. */
const char *pa_mpi__route_name(pa_mpi__route r);
/** 1 when a layout is one contiguous run from its base. */
int pa_mpi__contiguous(const pa__layout *l);
/** Chooses the route and makes the pack, unpack or local plans and the MPI buffers of a classified plan whose
 *  send_l, recv_l, send_mem and recv_mem are set.  \return PA_OK or an error. */
int pa_mpi__buffer_plans(pa_mpi__dplan *p);
/** Frees the MPI buffers through their allocators. */
void pa_mpi__buffers_free(pa_mpi__dplan *p);

/* ---- the routes of device sides, costed (dist_route.c) ------------------------------------------------- */

/** Chooses the route of a plan with a device side: the cheapest of those possible (NCCL, CUDA-aware MPI, peer
 *  copies, staging), or the one PA_MPI_ROUTE names; sets route_ns, route_next and route_next_ns.  Depends only
 *  on what every rank knows alike, so every rank chooses the same. */
pa_mpi__route pa_mpi__route_choose(pa_mpi__dplan *p);

/* ---- NCCL between the processes' GPUs (dist_nccl.c) ----------------------------------------------------- */
struct pa__devcomm_ops;

/** 1 when a plan may take the NCCL route (both sides dmem, not local, NCCL loadable); else 0 and *why. */
int pa_mpi__nccl_possible(const pa_mpi__dplan *p, const char **why);
/** Makes an NCCL plan's slices, pack/unpack plans and own-block plan (after pa_mpi__buffer_plans' buffers).
 *  \return PA_OK or an error. */
int pa_mpi__nccl_prepare(pa_mpi__dplan *p);
/** Runs an NCCL plan (collective over the processes it involves); its first run makes or finds the
 *  communicator, or remakes the plan for the next route where NCCL is not possible on every process. */
int pa_mpi__nccl_run(pa_mpi__dplan *p, MPI_Comm comm, void *dst, const void *src, pa_mpi__times *t);
/** Frees what pa_mpi__nccl_prepare and the runs made (the communicator stays with the MPI communicator). */
void pa_mpi__nccl_free(pa_mpi__dplan *p);
/**
 * The NCCL communicator between the members of comm (a, b = -1, -1: all of them; else the pair of ranks a and
 * b, which alone call it), made if new and kept with comm.  Collective over the members.  \return PA_OK with
 * *out, PA_ERR_UNSUPPORTED with *why where NCCL or a GPU of one's own is missing on some member (every member
 * says so), or another error.
 */
int pa_mpi__nccl_comm(MPI_Comm comm, const struct pa__devcomm_ops *dc, int a, int b, void **out, const char **why);
/** How a pointer's GPU is found (pa__backends_pointer_device's signature). */
typedef int (*pa_mpi__pointer_device_fn)(const void *p, const char *what, int *dev);
/**
 * The check before every NCCL run (dist_nccl_check.c), collective over the members (all of comm; the pair of a
 * send/recv): every member set itself up (local: PA_OK, or its own status), its plan is for comm's size, its
 * current GPU (cur_dev) is its communicator's (comm_dev), and the arrays it sends from and receives into are on
 * that GPU.  \return PA_OK on every member, or on every member the same error naming the first rank that failed
 * and the GPUs: PA_ERR_SYS (a member's set-up failed; that member gets its own status back), PA_ERR_INVAL (an
 * array on another GPU, not device memory, another GPU current), PA_ERR_RANGE (the sizes differ), or MPI's.
 */
int pa_mpi__nccl_check(const pa_mpi__dplan *p, MPI_Comm comm, int comm_dev, int cur_dev, void *dst,
                       const void *src, int local);
/** For tests: how the check finds a pointer's GPU instead of the backends' hook (NULL: the hook again). */
void pa_mpi__nccl_test_pointer_device(pa_mpi__pointer_device_fn fn);
/** Measures the NCCL route's constants (cost_nccl.c) where every process has a GPU of its own. */
int pa_mpi__calibrate_nccl(struct pa__cost_model *m, FILE *log);
/** The slowest process's median time (ns) of one call of round(ctx), over `rounds` rounds (at most 16) of
 *  `repeats` calls each after a warm-up round, the processes meeting before each round and agreeing after it.
 *  Collective over comm; a failure on any process stops every one (`what` names the round).  \return PA_OK or the
 *  error. */
int pa_mpi__time_rounds(MPI_Comm comm, int rounds, int repeats, int (*round)(void *ctx), void *ctx,
                        const char *what, double *ns);
/** Measures the peer route's rate (gpu_peer_bw: every process pulling its share of every other's device buffer
 *  at once, cost_peer.c) where the processes share a host and device memory; elsewhere keeps it and logs why.
 *  Collective.  \return PA_OK or an error. */
int pa_mpi__calibrate_peer(struct pa__cost_model *m, FILE *log);
/** The NCCL route's words for explanations (chunks, slices in place).  \return as snprintf. */
int pa_mpi__nccl_explain(const pa_mpi__dplan *p, char *buf, size_t len);

/* ---- peer copies between the processes' device memory on one host (dist_peer.c) ----------------------- */

/** 1 when a plan may take the peer route: an all-to-all with both sides in a device memory that shares
 *  allocations between processes, and PA_MPI_PEER=1 (whether all processes share a host is asked at the first
 *  run). */
int pa_mpi__peer_possible(const pa_mpi__dplan *p);
/** Runs a PEER plan (collective); at its first run it maps the other processes' send buffers, or remakes the
 *  plan for the staged route where that is not possible on every process.  \return PA_OK or an error. */
int pa_mpi__peer_run(pa_mpi__dplan *p, MPI_Comm comm, void *dst, const void *src);
/** Maps the allocation another process of the host exported as handle (a process-wide table of mappings, opened
 *  once each, the one unused longest closed when full): *ptr its start here, *entry what to release it by.
 *  \return PA_OK or the allocator's error.  Thread-safe; not collective. */
int pa_mpi__ipc_acquire(const pa__mem_ops *mem, const char *handle, void **ptr, int *entry);
/** Drops a mapping acquire gave (closed now where it was opened for one use). */
void pa_mpi__ipc_release(const pa__mem_ops *mem, void *ptr, int entry);
/** Closes every mapping no copy is using (at MPI_Finalize). */
void pa_mpi__ipc_close_all(void);
/** Makes a PEER plan's pulls where every peer's block of the receive layout is one layout (then the plan needs
 *  no receive buffer): p->pulls stays NULL otherwise.  \return PA_OK or an error (the planner's, no memory). */
int pa_mpi__peer_prepare(pa_mpi__dplan *p);
/** The peer route's words for explanations (pulls or whole copies).  \return as snprintf. */
int pa_mpi__peer_explain(const pa_mpi__dplan *p, char *buf, size_t len);
/** Unmaps the other processes' send buffers and frees the pulls. */
void pa_mpi__peer_free(pa_mpi__dplan *p);

/* ---- what the one-host routes share (dist_node.c) -------------------------------------------------------- */

/** Every process agrees on ok (collective over comm).  \return 1 when every process's ok was 1. */
int pa_mpi__all_ok(int ok, MPI_Comm comm);

#define PA_MPI__NODE_HANDLE_MAX 64   /* bytes of the largest handle a process passes (a name, an IPC handle) */

/* How a one-host route shares what each process makes: make fills this process's handle (len bytes) and
 * returns 1, or 0 where it could not; open opens process q's handle and returns 1, or 0. */
typedef struct pa_mpi__node_sharing {
    int (*make)(void *ctx, char *mine);
    int (*open)(void *ctx, int q, const char *handle);
} pa_mpi__node_sharing;

/**
 * A one-host route's set-up (collective over comm, which has nprocs processes; this one is rank): unless every
 * process runs on this host, 0 at once; else every process makes its handle of len bytes (at most
 * PA_MPI__NODE_HANDLE_MAX), they are exchanged, and every process opens every other's.  \return 1 when every
 * process made and opened everything, else 0 on every process (the caller undoes what it made and opened).
 */
int pa_mpi__node_share(MPI_Comm comm, int rank, int nprocs, size_t len, const pa_mpi__node_sharing *how, void *ctx);
/** Remakes a plan whose one-host route could not be set up on every process, for the route without sharing
 *  (the caller set shm_refused or peer_refused first): its own-block, pack and unpack plans and its buffers
 *  are freed and made again; with PA_PLAN_INFO, says why (a phrase) on stderr.  \return PA_OK or an error. */
int pa_mpi__route_remake(pa_mpi__dplan *p, const char *why);

/* ---- host all-to-alls through shared memory on one host (dist_shm.c) ---------------------------------- */

/** 1 when a plan may take the shared-memory route: an all-to-all of host memory that needs packing, whose
 *  layouts split into blocks, PA_MPI_SHM not 0 (whether all processes share a host is asked at the first run). */
int pa_mpi__shm_possible(const pa_mpi__dplan *p);
/** Runs a SHM plan (collective); at its first run it makes and maps the segments, or remakes the plan for the
 *  plain host route where that is not possible on every process.  Adds the steps' seconds to *t (the barriers
 *  count as MPI).  \return PA_OK or an error. */
int pa_mpi__shm_run(pa_mpi__dplan *p, MPI_Comm comm, void *dst, const void *src, pa_mpi__times *t);
/** Unmaps the segments. */
void pa_mpi__shm_free(pa_mpi__dplan *p);

/* ---- the per-thread memo of recent distributed copies (dist_memo.c) ------------------------------------ */

/** The plan and communicator this thread last used to copy st to dt, or NULL when it has none that still
 *  holds (see dist_memo.c for when one stops holding). */
pa_mpi__dplan *pa_mpi__memo_find(const pa_type *dt, const pa_type *st, MPI_Comm *comm);
/** Remembers a cached plan for the pair.  made_in is pa_mpi__memo_epoch() read before the plan's rank and
 *  communicator were: an entry of an epoch that ended meanwhile is never found.  Nothing is remembered while
 *  MPI is not running. */
void pa_mpi__memo_put(const pa_type *dt, const pa_type *st, uint64_t made_in, pa_mpi__dplan *plan,
                      MPI_Comm comm);
/** Drops the calling thread's entries, giving their plans' references back. */
void pa_mpi__memo_drop_here(void);
/** The current epoch of the memo. */
uint64_t pa_mpi__memo_epoch(void);
/** Ends the current epoch, so that every thread's entries are dropped: the communicator copies use may have
 *  changed (a process array's task starts or ends, pa_mpi_main starts or ends), or cached plans are freed. */
void pa_mpi__memo_invalidate(void);

/* ---- the own block of an all-to-all (dist_self.c) ------------------------------------------------------ */

/** Makes the self and block plans of an ALLTOALL plan whose layouts split into blocks (else leaves them NULL:
 *  the plain run); after pa_mpi__buffer_plans and the element type.  PA_MPI_SELF=0: never.  \return PA_OK or
 *  an error. */
int pa_mpi__self_plans(pa_mpi__dplan *p);
/** Frees them. */
void pa_mpi__self_free(pa_mpi__dplan *p);
/** 1 when both of p's layouts split into blocks of p->blk elements (an ALLTOALL plan whose send_l and recv_l
 *  are set). */
int pa_mpi__self_blocks(const pa_mpi__dplan *p);
/** 1 when a run of p on these arrays may copy the own block in place: p has the plans, and the bytes the run
 *  reads do not overlap those it writes. */
int pa_mpi__self_usable(const pa_mpi__dplan *p, const void *dst, const void *src);
/** Runs an all-to-all that way: pack the other blocks, copy the own one, MPI_Alltoallv of the others, unpack.
 *  Adds the steps' seconds to *t when t is not NULL.  \return PA_OK or an error. */
int pa_mpi__self_run(const pa_mpi__dplan *p, MPI_Comm comm, void *dst, const void *src, pa_mpi__times *t);

/* ---- gamem <-> mpi-distributed copies (dist_gamem.c) ---------------------------------------------------- */

/** 1 when one side is a gamem array (not distributed) and the other is distributed over mpi processes. */
int pa_mpi__gamem_pair(const pa__dist_split *d, const pa__dist_split *s);
/** Such a copy, collective over the current communicator: each rank moves its own part one-sidedly between
 *  two barriers, through its plan, made on the first such copy and cached (dser and sser, the types' serials,
 *  key splits with tables).  names is "from S to D" for messages.  \return PA_OK or an error. */
int pa_mpi__gamem_copy(const pa__dist_split *d, void *dst, const pa__dist_split *s, const void *src, size_t elm,
                       uint64_t dser, uint64_t sser, const char *names);
/** This rank's explanation of such a copy (its plan made and cached if new).  \return as snprintf, or an error. */
int pa_mpi__gamem_explain(const pa__dist_split *d, const pa__dist_split *s, size_t elm, char *buf, size_t len,
                          uint64_t dser, uint64_t sser, const char *names);
/** How many such plans this process has made (cache misses), for tests. */
long pa_mpi__gamem_plans_made(void);

/* ---- execution (dist_exec.c) --------------------------------------------------------------------------- */

/** Runs a plan on comm (collective over comm for the collective kinds).  Adds the steps' seconds to *t when t
 *  is not NULL.  \return PA_OK or an error. */
int pa_mpi__dplan_exec(const pa_mpi__dplan *p, MPI_Comm comm, void *dst, const void *src, pa_mpi__times *t);
/** 1 when a complete plan can run as its MPI call alone: not local, host route, not timed, no own-block plans,
 *  no pack or unpack on this rank. */
int pa_mpi__direct_possible(const pa_mpi__dplan *p);
/** Runs such a plan (p->direct): the MPI call on the user's arrays, whose pointers the caller checked (not NULL
 *  where this rank sends or receives).  \return PA_OK or an error. */
int pa_mpi__direct_run(const pa_mpi__dplan *p, MPI_Comm comm, void *dst, const void *src);
/** A monotonic clock, seconds. */
double pa_mpi__clock(void);

/* ---- the backend's parts in its description (backend_mpi.c) ----------------------------------------------- */

extern const pa__mem_ops pa__mem_mpimem_ops;
/** The hooks for arrays distributed over mpi process arrays (dist_copy.c). */
extern const pa__dist_ops pa__mpi_dist_ops;
/** Process arrays (procs_launch.c). */
extern const pa__launcher pa__mpi_launcher;

#endif
