/*
 * parray — distributed copies (pa_copy with an mpi-distributed side): checks, the plan cache, explanations.
 *
 * Every rank of the current communicator (its process array's, or MPI_COMM_WORLD in SPMD programs) calls
 * pa_copy with the same two types.  Every check that can fail before data moves depends only on the types and
 * the communicator's size, so all ranks fail alike and none is left waiting in a collective.  A local type
 * (one memory type) on either side lives on process 0, as in the manual.  A rank may pass NULL for an array
 * it neither reads nor writes.  Two limits follow from making no extra collective call per copy: a NULL array
 * where one is needed, or running out of memory for a new plan, fails on that rank only, and the others then
 * wait in the collective.
 *
 * Plans are cached (a bounded cache, src/core/base/lru.h) by the contents of both split layouts (and, when a split
 * has gather tables, as an uneven window's has, by the two types' serial numbers too, since the key holds
 * pointers to those tables, not their contents), the element size, the rank and the communicator's size,
 * hashed.  At most 64 plans are kept, the least recently used dropped first: plans hold buffers of their
 * copy's size, and uneven windows' plans are keyed by types that may be gone.  Which plans a rank keeps must
 * not differ between ranks that run the same copies: a plan whose first run sets up state with the other
 * processes (the shared-memory and peer routes: segments and mappings exchanged collectively) is never
 * evicted, since a rank that remade it alone would wait in that exchange for the others; every other plan
 * is made from the types alone, so a rank that dropped one and remakes it needs nobody.  Only copies change
 * the recency order (an explanation finds a plan without touching it, and does not file one it made).
 * Plans are made outside the cache's lock and filed after; a plan made twice by racing threads is dropped.
 * Before any of that, a copy looks in its thread's memo of recent pairs (dist_memo.c, which holds a
 * reference to each plan it names): a repeated copy finds its plan there and pays for nothing but the checks
 * of its pointers and the MPI call.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mpi_backend.h"

#define PLANS 64

typedef struct key {
    pa__layout l[4];
    uint64_t dser, sser;
    size_t elm;
    int rank, nprocs;
    const pa__mem_ops *recv_mem, *send_mem;
} key;

static pa_mpi__dplan *plan_of(const pa__lru_entry *e)
{
    return (pa_mpi__dplan *)((char *)e - offsetof(pa_mpi__dplan, lru));
}

static int same(const pa__lru_entry *e, const void *kv)
{
    const pa_mpi__dplan *p = plan_of(e);
    const key *k = kv;
    if (p->elm != k->elm || p->rank != k->rank || p->nprocs != k->nprocs || p->key_dser != k->dser ||
        p->key_sser != k->sser || p->recv_mem != k->recv_mem || p->send_mem != k->send_mem)
        return 0;
    for (int i = 0; i < 4; i++)
        if (!pa__layout_key_same(&p->key[i], &k->l[i]))
            return 0;
    return 1;
}

static uint64_t hash_of(const key *k)
{
    uint64_t h = pa__hash_mix(pa__hash_mix(k->dser, k->sser), (uint64_t)k->elm);
    h = pa__hash_mix(h, (uint64_t)k->rank << 32 | (uint32_t)k->nprocs);
    h = pa__hash_mix(h, (uint64_t)(uintptr_t)k->recv_mem ^ (uint64_t)(uintptr_t)k->send_mem << 1);
    for (int i = 0; i < 4; i++)
        h = pa__layout_key_hash(h, &k->l[i]);
    return h;
}

static void destroy(pa__lru_entry *e)
{
    pa_mpi__dplan_free(plan_of(e));
}

/* Plans with collective state set up at their first run: never evicted (see the head of the file). */
static int pinned(const pa__lru_entry *e)
{
    const pa_mpi__dplan *p = plan_of(e);
    return p->route == PA_MPI__ROUTE_SHM || p->route == PA_MPI__ROUTE_PEER || p->route == PA_MPI__ROUTE_NCCL ||
           p->shm_refused || p->peer_refused || p->nccl_refused;
}

static pa__lru cache = PA__LRU_INIT("distributed plans", PLANS, same, destroy, pinned);

void pa_mpi__dplan_hold(pa_mpi__dplan *p)
{
    pa__lru_ref(&p->lru);
}

void pa_mpi__dplan_release(pa_mpi__dplan *p)
{
    if (p)
        pa__lru_release(&cache, &p->lru);
}

void pa_mpi__plan_cache_stats(pa__lru_stats *out)
{
    pa__lru_stats_of(&cache, out);
}

void pa_mpi__plan_cache_capacity(int plans)
{
    pa__lru_set_capacity(&cache, plans);
}

static void free_cache(void)
{
    pa_mpi__memo_invalidate();
    pa_mpi__memo_drop_here();
    pa__lru_clear(&cache);
}

/* Memory the distributed copy can move: host memory of any host type, or device memory (dist_device.c) where
 * this build has the CUDA backend and the machine a GPU. */
static int check_memory(const pa_type *t, const pa__dist_split *s)
{
    if (strcmp(s->memory_mtt, "any") == 0)
        return PA_OK;
    const pa__mem_ops *ops = pa__mem_find(s->memory_mtt);
    if (ops && ops->host_accessible)
        return PA_OK;
    if (pa_mpi__device_memory(s) && ops->available && !ops->available())
        return pa__err(PA_ERR_NODEV, "distributed copy: %s is distributed over device memory (%s), but this "
                       "process has no usable GPU", pa_type_name(t), s->memory_mtt);
    if (pa_mpi__device_memory(s))
        return PA_OK;
    if (!ops && strcmp(s->memory_mtt, "dmem") == 0)
        return pa__err(PA_ERR_NODEV, "distributed copy: %s is distributed over device memory (dmem), which "
                       "needs the CUDA backend; this build does not have it", pa_type_name(t));
    return pa__err(PA_ERR_UNSUPPORTED, "distributed copy: %s is distributed over %s memory; only host memory "
                   "(paged, mpimem, mmap, numa, pinned) and device memory (dmem) can be sent", pa_type_name(t),
                   s->memory_mtt);
}

/* Checks the pair and finds (or makes) the plan, with a reference for the caller (pa_mpi__dplan_release).
 * filing 0 (an explanation) neither touches the cache's order nor files a plan it makes. */
static int prepare(const pa_type *dt, const pa_type *st, int filing, pa_mpi__dplan **out)
{
    static atomic_int hooked;
    const pa__dist_split *d, *s;
    int rc;
    *out = NULL;
    if (pa_size(dt) != pa_size(st))
        return pa__err(PA_ERR_SIZE, "distributed copy from %s (%lld elements) to %s (%lld elements): sizes "
                       "differ", pa_type_name(st), (long long)pa_size(st), pa_type_name(dt),
                       (long long)pa_size(dt));
    size_t de = pa_elm_size(dt), se = pa_elm_size(st);
    if (de == 0 || de != se)
        return pa__err(PA_ERR_ELM, "distributed copy from %s (%zu-byte elements) to %s (%zu-byte elements): "
                       "element sizes %s", pa_type_name(st), se, pa_type_name(dt), de,
                       de == 0 || se == 0 ? "unspecified" : "differ");
    if ((rc = pa__dist_split_get(dt, &d)) != PA_OK || (rc = pa__dist_split_get(st, &s)) != PA_OK)
        return rc;
    key k = {.l = {d->pid, d->local, s->pid, s->local}, .elm = de, .recv_mem = pa_mpi__device_memory(d),
             .send_mem = pa_mpi__device_memory(s)};
    pa_mpi__where(&k.rank, &k.nprocs);
    /* Gathered splits (uneven windows) are keyed by the types' serials, which are never reused; the plan holds
     * no pointer into them. */
    int gathered = !(d->pid.affine && d->local.affine && s->pid.affine && s->local.affine);
    k.dser = gathered ? pa__type_serial(dt) : 0;
    k.sser = gathered ? pa__type_serial(st) : 0;
    uint64_t h = hash_of(&k);
    pa__lru_entry *e = pa__lru_find(&cache, h, &k, filing);
    if (e) {
        *out = plan_of(e);
        return PA_OK;
    }
    double t0 = pa_mpi__clock();
    pa_mpi__dplan *p = NULL;
    if ((rc = check_memory(dt, d)) == PA_OK && (rc = check_memory(st, s)) == PA_OK &&
        (rc = pa_mpi__dplan_make(d, s, de, k.rank, k.nprocs, &p)) == PA_OK) {
        static atomic_int timed_warned;
        p->timed = pa__env_flag("PA_MPI_TIMES", &timed_warned);
        p->direct = pa_mpi__direct_possible(p);
        p->times.make = pa_mpi__clock() - t0;
        p->key_dser = k.dser;
        p->key_sser = k.sser;
        pa__lru_entry_init(&p->lru, h);
        if (filing) {
            if (atomic_exchange(&hooked, 1) == 0)
                atexit(free_cache);
            e = pa__lru_add(&cache, &p->lru, &k);
            static atomic_int warned;
            if (e == &p->lru && pa__env_flag("PA_PLAN_INFO", &warned)) {
                char line[1024];
                pa_mpi__dplan_explain(p, line, sizeof line);
                fprintf(stderr, "parray plan (rank %d): %s\n", k.rank, line);
            }
            p = plan_of(e);
        }
        *out = p;
    }
    if (rc == PA_ERR_UNSUPPORTED || rc == PA_ERR_NODEV)   /* check_memory's message names the type already */
        return rc;
    if (rc != PA_OK)
        return pa__err_wrap(rc, "copy from %s to %s", pa_type_name(st), pa_type_name(dt));
    return PA_OK;
}

/* The plan from the thread's memo (*held 0: the memo's reference keeps it), else from prepare (*held 1: the
 * caller releases it; remembered in the memo, which takes a reference of its own). */
static int plan_for(const pa_type *dt, const pa_type *st, pa_mpi__dplan **out, int *held, MPI_Comm *comm)
{
    uint64_t epoch;
    int rc;
    *held = 0;
    if ((*out = pa_mpi__memo_find(dt, st, comm)))
        return PA_OK;
    epoch = pa_mpi__memo_epoch();
    if ((rc = prepare(dt, st, 1, out)) != PA_OK)
        return rc;
    *held = 1;
    *comm = pa_mpi__comm();
    pa_mpi__memo_put(dt, st, epoch, *out, *comm);
    return PA_OK;
}

/* A gamem array on one side and an mpi-distributed one on the other (dist_gamem.c): *yes, with the checks of
 * prepare and the splits. */
static int gamem_route(const pa_type *dt, const pa_type *st, const pa__dist_split **d, const pa__dist_split **s,
                       int *yes, char *names, size_t len)
{
    int rc;
    *yes = 0;
    if ((rc = pa__dist_split_get(dt, d)) != PA_OK || (rc = pa__dist_split_get(st, s)) != PA_OK)
        return rc;
    if (!pa_mpi__gamem_pair(*d, *s))
        return PA_OK;
    snprintf(names, len, "from %s to %s", pa_type_name(st), pa_type_name(dt));
    if (pa_size(dt) != pa_size(st) || pa_elm_size(dt) == 0 || pa_elm_size(dt) != pa_elm_size(st))
        return pa__err(pa_size(dt) != pa_size(st) ? PA_ERR_SIZE : PA_ERR_ELM, "copy %s: sizes (%lld, %lld) or "
                       "element sizes (%zu, %zu B) differ", names, (long long)pa_size(st), (long long)pa_size(dt),
                       pa_elm_size(st), pa_elm_size(dt));
    *yes = 1;
    return PA_OK;
}

/* A copy whose plan was not in the memo (p NULL), or is and needs more than its MPI call. */
__attribute__((noinline)) static int dist_copy_planned(const pa_type *dt, void *dst, const pa_type *st,
                                                       const void *src, pa_mpi__dplan *p, MPI_Comm comm)
{
    const pa__dist_split *gd, *gs;
    char names[256];
    int held = 0, yes, rc;
    /* A pair in the memo has a plan, so it is no gamem pair: a repeated copy skips the route's look-up. */
    if (!p) {
        rc = gamem_route(dt, st, &gd, &gs, &yes, names, sizeof names);
        if (rc != PA_OK || yes)
            return rc != PA_OK ? rc : pa_mpi__gamem_copy(gd, dst, gs, src, pa_elm_size(dt), pa__type_serial(dt),
                                                         pa__type_serial(st), names);
        if ((rc = plan_for(dt, st, &p, &held, &comm)) != PA_OK)
            return rc;
    }
    if ((p->nrecv > 0 && !dst) || (p->nsend > 0 && !src))
        rc = pa__err(PA_ERR_INVAL, "distributed copy from %s to %s: rank %d %s %lld elements but its %s "
                     "pointer is NULL", pa_type_name(st), pa_type_name(dt), p->rank,
                     !dst && p->nrecv ? "receives" : "sends", (long long)(!dst && p->nrecv ? p->nrecv : p->nsend),
                     !dst && p->nrecv ? "destination" : "source");
    else if (p->direct)
        rc = pa_mpi__direct_run(p, comm, dst, src);
    else if (p->sbuf || p->rbuf || p->route == PA_MPI__ROUTE_SHM || p->route == PA_MPI__ROUTE_NCCL || p->timed) {
        /* buffers, streams, times: one run at a time */
        pthread_mutex_lock(&p->run_lock);
        double t0 = p->timed ? pa_mpi__clock() : 0;
        rc = pa_mpi__dplan_exec(p, comm, dst, src, p->timed ? &p->times : NULL);
        if (p->timed) {
            p->times.total += pa_mpi__clock() - t0;
            p->times.runs++;
        }
        pthread_mutex_unlock(&p->run_lock);
    } else {
        rc = pa_mpi__dplan_exec(p, comm, dst, src, NULL);
    }
    if (held)
        pa_mpi__dplan_release(p);
    return rc;
}

/* A repeated copy whose plan is its MPI call alone (p->direct) pays for the memo and the pointer checks only;
 * everything else goes through dist_copy_planned. */
static int dist_copy(const pa_type *dt, void *dst, const pa_type *st, const void *src)
{
    MPI_Comm comm = MPI_COMM_NULL;
    pa_mpi__dplan *p = pa_mpi__memo_find(dt, st, &comm);
    if (p && p->direct && (dst || p->nrecv == 0) && (src || p->nsend == 0))
        return pa_mpi__direct_run(p, comm, dst, src);
    return dist_copy_planned(dt, dst, st, src, p, comm);
}

int pa_mpi__dplan_explain(const pa_mpi__dplan *p, char *buf, size_t len)
{
    char pattern[96];
    const char *how = p->kind == PA_MPI__LOCAL ? (p->send_mem || p->recv_mem ? "a copy on that process"
                                                  : "a host copy on that process") : p->send_direct && p->recv_direct
                      ? "sent and received in place" : p->send_direct ? "sent in place, unpacked after receiving"
                      : p->recv_direct ? "packed, received in place" : "packed and unpacked";
    switch (p->kind) {
    case PA_MPI__LOCAL: snprintf(pattern, sizeof pattern, "all on process %d", p->src_root); break;
    case PA_MPI__SENDRECV: snprintf(pattern, sizeof pattern, "process %d -> %d", p->src_root, p->dst_root); break;
    case PA_MPI__SCATTER: snprintf(pattern, sizeof pattern, "root %d, %lld per process", p->src_root,
                                   (long long)p->blk); break;
    case PA_MPI__GATHER: snprintf(pattern, sizeof pattern, "root %d, %lld per process", p->dst_root,
                                  (long long)p->blk); break;
    case PA_MPI__ALLTOALL: snprintf(pattern, sizeof pattern, "%lld per pair", (long long)p->blk); break;
    default: snprintf(pattern, sizeof pattern, "uneven pairs"); break;
    }
    int device = p->send_mem || p->recv_mem;
    char next[96] = "";
    if (p->runner_up >= 0)
        snprintf(next, sizeof next, "; next: %s at %.3g us", pa_mpi__kind_name((pa_mpi__kind)p->runner_up),
                 p->runner_up_ns * 1e-3);
    int routed = device || p->route == PA_MPI__ROUTE_SHM;
    char detail[512] = "";
    if (routed && p->kind != PA_MPI__LOCAL && device) {
        int n = 0;
        if (p->route == PA_MPI__ROUTE_NCCL)
            n = pa_mpi__nccl_explain(p, detail, sizeof detail);
        else if (p->route == PA_MPI__ROUTE_PEER)
            n = pa_mpi__peer_explain(p, detail, sizeof detail);
        n = n < 0 ? 0 : n;
        if (p->route_ns >= 0 && (size_t)n < sizeof detail)
            n += snprintf(detail + n, sizeof detail - (size_t)n, ", predicted %.3g us", p->route_ns * 1e-3);
        if (p->route_next >= 0 && n >= 0 && (size_t)n < sizeof detail)
            snprintf(detail + n, sizeof detail - (size_t)n, "; next route: %s at %.3g us",
                     pa_mpi__route_name((pa_mpi__route)p->route_next), p->route_next_ns * 1e-3);
    }
    return snprintf(buf, len, "distributed copy %lld x %zu B over %d process%s: strategy=%s (%s) predicted=%.3g us; "
                    "rank %d sends %lld and receives %lld (planned in runs of %lld) \xe2\x80\x94 %s; %s%s%s%s%s%s",
                    (long long)p->total, p->elm, p->nprocs, p->nprocs == 1 ? "" : "es", pa_mpi__kind_name(p->kind),
                    pattern, p->cost_ns * 1e-3, p->rank, (long long)p->nsend, (long long)p->nrecv, (long long)p->run,
                    p->why, how, !p->self ? ""
                    : p->recv_mem && p->send_mem ? "; own block copied on the GPU, not through MPI"
                    : "; own block copied in place, not through MPI", !routed ? "" : "; route: ",
                    !routed ? "" : p->kind == PA_MPI__LOCAL ? "a copy on the GPU" : pa_mpi__route_name(p->route),
                    detail, next);
}

int pa_mpi__env_on(const char *name, atomic_int *once)
{
    static const char *const words[] = {"0", "1"};
    return pa__env_choice(name, words, 2, 1, once);
}

void pa_mpi__times_print(const pa_mpi__dplan *p)
{
    char line[1024];
    const pa_mpi__times *t = &p->times;
    double n = t->runs > 0 ? (double)t->runs : 1;
    pa_mpi__dplan_explain(p, line, sizeof line);
    fprintf(stderr, "parray times (rank %d): %s \xe2\x80\x94 made in %.3f ms; %ld runs, per run %.3f ms (pack %.3f, "
            "own block %.3f, MPI %.3f, unpack %.3f)\n", p->rank, line, 1e3 * t->make, t->runs, 1e3 * t->total / n,
            1e3 * t->pack / n, 1e3 * t->self / n, 1e3 * t->mpi / n, 1e3 * t->unpack / n);
}

static int dist_explain(const pa_type *dt, const pa_type *st, char *buf, size_t len)
{
    pa_mpi__dplan *p;
    const pa__dist_split *gd, *gs;
    char names[256];
    int yes, rc = gamem_route(dt, st, &gd, &gs, &yes, names, sizeof names);
    if (rc != PA_OK || yes)
        return rc != PA_OK ? rc : pa_mpi__gamem_explain(gd, gs, pa_elm_size(dt), buf, len,
                                                                    pa__type_serial(dt), pa__type_serial(st), names);
    if ((rc = prepare(dt, st, 0, &p)) != PA_OK)
        return rc;
    rc = pa_mpi__dplan_explain(p, buf, len);
    pa_mpi__dplan_release(p);
    return rc;
}

static int dist_query(const pa_type *dt, const pa_type *st, pa_copy_info *info)
{
    pa_mpi__dplan *p;
    const pa__dist_split *gd, *gs;
    char names[256];
    int yes, rc = gamem_route(dt, st, &gd, &gs, &yes, names, sizeof names);
    if (rc != PA_OK)
        return rc;
    if (yes)
        return pa__err(PA_ERR_UNSUPPORTED, "copy_query %s: gamem copies answer through pa_copy_explain only",
                       names);
    if ((rc = prepare(dt, st, 0, &p)) != PA_OK)
        return rc;
    *info = (pa_copy_info){.strategy = pa_mpi__kind_name(p->kind), .threads = 1, .predicted_us = p->cost_ns * 1e-3};
    pa_mpi__dplan_release(p);
    return PA_OK;
}

const pa__dist_ops pa__mpi_dist_ops = {
    .thread_mtt = "mpi",
    .copy = dist_copy,
    .explain = dist_explain,
    .query = dist_query,
};
