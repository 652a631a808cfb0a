/*
 * parray — other processes' device allocations mapped into this one (CUDA IPC), kept for the copies that follow.
 *
 * The peer route's direct pulls (dist_peer.c) read every peer's source array where it is; each copy names the
 * peers' allocations by their IPC handles, and a handle may be opened only once per process, so the mappings are
 * kept in a small table: a copy takes a reference to each mapping it reads (opening it on first use) and drops it
 * when its reads are done.  When the table is full, the mapping unused longest is closed; when every entry is in
 * use, a mapping is opened for the one copy and closed after it.  The table is the process's, guarded by one lock
 * that is never held across a collective; MPI_Finalize closes what it holds (dist_memo.c watches for it).
 *
 * The price of keeping: an array another process frees stays allocated on its GPU while it is mapped here, so a
 * program that makes and frees many source arrays holds up to MAPS of them per process until they are pushed
 * out (16: both arrays of a forward and backward exchange between 8 processes stay mapped).
 */
#include <pthread.h>
#include <string.h>

#include "mpi_backend.h"

#define MAPS 16

typedef struct ipc_map {
    char handle[PA__IPC_HANDLE_BYTES];
    void *ptr;                   /* NULL: a free entry */
    const pa__mem_ops *mem;
    int refs;
    unsigned long long used;     /* the clock of its last acquire */
} ipc_map;

static ipc_map maps[MAPS];
static unsigned long long clock_;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

/* Closes every mapping no copy holds (the lock held).  \return how many. */
static int drop_unused(void)
{
    int n = 0;
    for (int i = 0; i < MAPS; i++)
        if (maps[i].ptr && maps[i].refs == 0) {
            maps[i].mem->ipc_close(maps[i].ptr);
            maps[i].ptr = NULL;
            n++;
        }
    return n;
}

int pa_mpi__ipc_acquire(const pa__mem_ops *mem, const char *handle, void **ptr, int *entry)
{
    pthread_mutex_lock(&lock);
    int free_at = -1, old_at = -1;
    for (int i = 0; i < MAPS; i++) {
        ipc_map *m = &maps[i];
        if (m->ptr && m->mem == mem && memcmp(m->handle, handle, PA__IPC_HANDLE_BYTES) == 0) {
            m->refs++;
            m->used = ++clock_;
            *ptr = m->ptr;
            *entry = i;
            pthread_mutex_unlock(&lock);
            return PA_OK;
        }
        if (!m->ptr && free_at < 0)
            free_at = i;
        if (m->ptr && m->refs == 0 && (old_at < 0 || m->used < maps[old_at].used))
            old_at = i;
    }
    int at = free_at >= 0 ? free_at : old_at, st = PA_OK;
    if (at >= 0 && maps[at].ptr) {   /* the table is full: the mapping unused longest goes */
        maps[at].mem->ipc_close(maps[at].ptr);
        maps[at].ptr = NULL;
    }
    void *p = NULL;
    if ((st = mem->ipc_open(handle, &p)) != PA_OK) {
        /* The allocation may be mapped here already under an older handle: its owner freed an array (whose
         * memory the mapping kept) and was given the same allocation back.  Every mapping no copy holds is
         * closed, and the open tried once more. */
        if (!drop_unused() || (st = mem->ipc_open(handle, &p)) != PA_OK) {
            pthread_mutex_unlock(&lock);
            return st;
        }
        for (at = 0; at < MAPS && maps[at].ptr; at++)   /* a free entry, or none (in use: kept for one use) */
            ;
        at = at < MAPS ? at : -1;
    }
    *ptr = p;
    *entry = at;
    if (at >= 0) {
        maps[at] = (ipc_map){.ptr = p, .mem = mem, .refs = 1, .used = ++clock_};
        memcpy(maps[at].handle, handle, PA__IPC_HANDLE_BYTES);
    }
    pthread_mutex_unlock(&lock);
    return PA_OK;
}

void pa_mpi__ipc_release(const pa__mem_ops *mem, void *ptr, int entry)
{
    if (!ptr)
        return;
    if (entry < 0) {   /* opened for one copy: every entry was in use */
        mem->ipc_close(ptr);
        return;
    }
    pthread_mutex_lock(&lock);
    if (maps[entry].ptr == ptr && maps[entry].refs > 0)
        maps[entry].refs--;
    pthread_mutex_unlock(&lock);
}

void pa_mpi__ipc_close_all(void)
{
    pthread_mutex_lock(&lock);
    drop_unused();
    pthread_mutex_unlock(&lock);
}
