/*
 * parray — the per-thread memo of recent distributed copies: the plan and the communicator of the last few
 * (destination, source) pairs of types this thread copied.
 *
 * A copy repeated in a loop is the common case, and a small one costs MPI a few microseconds.  The checks and
 * the plan-cache lookup of dist_copy.c cost a sizeable part of that: comparing both split layouts with every
 * cached plan's key (3 KiB of memcmp per plan), the cache's mutex, and four MPI queries (MPI_Initialized and
 * MPI_Finalized take a lock in Open MPI).  A pair found here skips all of it and is only copied.
 *
 * What an entry says holds while its two types live and this thread's communicator stays the same: types
 * never change once made (a pair names them by address and serial, pa__pair), and a plan depends only on the
 * types, the rank and the size of the communicator.  The communicator a thread uses changes when a process
 * array's task starts or ends (pa_mpi__set_comm), when pa_mpi_main starts or ends, and when MPI is finalised;
 * each bumps one epoch, and entries of an older epoch are ignored.  An entry holds a reference to its plan,
 * so a plan the bounded cache of dist_copy.c drops stays alive while a memo names it; the reference is given
 * back when the entry is pushed out, and when the thread ends (a thread-specific key's destructor).
 */
#include <stdatomic.h>
#include <string.h>

#include "mpi_backend.h"

#define MEMO 8

typedef struct entry {
    pa__pair pair;
    uint64_t epoch;
    pa_mpi__dplan *plan;
    MPI_Comm comm;
} entry;

/* Most recently used first: a hit moves to the front, a new entry goes there and the last one drops out. */
static _Thread_local struct memo {
    entry e[MEMO];
} memo;

static _Atomic uint64_t epoch = 1;   /* entries start at 0: never current */

uint64_t pa_mpi__memo_epoch(void)
{
    return atomic_load_explicit(&epoch, memory_order_acquire);
}

void pa_mpi__memo_invalidate(void)
{
    atomic_fetch_add_explicit(&epoch, 1, memory_order_acq_rel);
}

/* The calling thread's memo.  Taken once per look-up through this call: GCC would otherwise recompute the
 * thread-local address (a call to __tls_get_addr in a shared library) at every entry it looks at. */
__attribute__((noinline)) static struct memo *memo_here(void)
{
    return &memo;
}

pa_mpi__dplan *pa_mpi__memo_find(const pa_type *dt, const pa_type *st, MPI_Comm *comm)
{
    struct memo *m = memo_here();
    uint64_t now = pa_mpi__memo_epoch();
    for (int i = 0; i < MEMO; i++)
        if (m->e[i].epoch == now && pa__pair_is(&m->e[i].pair, dt, st)) {
            if (i > 0) {
                entry hit = m->e[i];
                memmove(&m->e[1], &m->e[0], (size_t)i * sizeof hit);
                m->e[0] = hit;
            }
            *comm = m->e[0].comm;
            return m->e[0].plan;
        }
    return NULL;
}

/* MPI_Finalize deletes MPI_COMM_SELF's attributes before anything else (the standard's "user functions at
 * process termination"): the moment to drop every entry, since copies are single-process after it. */
static int on_finalize(MPI_Comm comm, int key, void *value, void *extra)
{
    (void)comm, (void)key, (void)value, (void)extra;
    pa_mpi__memo_invalidate();
    pa_mpi__ipc_close_all();   /* the other processes' arrays mapped for the peer route's direct pulls */
    return MPI_SUCCESS;
}

/* Sets the attribute whose deletion tells of MPI_Finalize, once.  \return 1 when it is set. */
static int watch_finalize(void)
{
    static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
    static int watching;
    int key, ok;
    pthread_mutex_lock(&lock);
    if (!watching && MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, on_finalize, &key, NULL) == MPI_SUCCESS) {
        watching = MPI_Comm_set_attr(MPI_COMM_SELF, key, NULL) == MPI_SUCCESS;
        MPI_Comm_free_keyval(&key);   /* the attribute keeps the key until MPI_Finalize deletes it */
    }
    ok = watching;
    pthread_mutex_unlock(&lock);
    return ok;
}

void pa_mpi__memo_drop_here(void)
{
    struct memo *m = memo_here();
    for (int i = 0; i < MEMO; i++) {
        pa_mpi__dplan *p = m->e[i].plan;
        m->e[i] = (entry){0};
        pa_mpi__dplan_release(p);
    }
}

static pthread_key_t thread_end;
static pthread_once_t thread_end_once = PTHREAD_ONCE_INIT;

static void at_thread_end(void *unused)
{
    (void)unused;
    pa_mpi__memo_drop_here();
}

static void make_thread_end(void)
{
    (void)pthread_key_create(&thread_end, at_thread_end);
}

void pa_mpi__memo_put(const pa_type *dt, const pa_type *st, uint64_t made_in, pa_mpi__dplan *plan, MPI_Comm comm)
{
    static _Thread_local int hooked;
    struct memo *m = memo_here();
    /* Without MPI the plan is for one process; MPI_Init may come later, and nothing would tell. */
    if (!pa_mpi__running() || !watch_finalize())
        return;
    if (!hooked) {   /* gives the references back when this thread ends */
        pthread_once(&thread_end_once, make_thread_end);
        hooked = pthread_setspecific(thread_end, &hooked) == 0;
    }
    pa_mpi__dplan_hold(plan);
    pa_mpi__dplan_release(m->e[MEMO - 1].plan);
    memmove(&m->e[1], &m->e[0], (MEMO - 1) * sizeof m->e[0]);
    entry *e = &m->e[0];
    pa__pair_set(&e->pair, dt, st);
    e->epoch = made_in;
    e->plan = plan;
    e->comm = comm;
}
