/*
 * parray — all-to-alls of host memory between the processes of one host, through shared memory.
 *
 * MPI moves a message between two processes of one host with one copy on one thread at best (Open MPI's vader
 * with CMA), and a packed all-to-all adds the pack and the unpack around it.  Where every process of the
 * communicator shares the host, the plan's send buffer is instead a POSIX shared-memory segment that every
 * other process maps once: each process packs the blocks it sends into its segment (on the threads of a host
 * copy), copies its own block in place (dist_self.c), and after a barrier unpacks each other process's block
 * for it straight out of that process's segment into its destination (on the threads of a host copy again); a
 * second barrier keeps the segments until every block is read.  MPI carries no bytes: two passes over the
 * data on all the process's threads instead of three, one of them on one thread.
 *
 * Taken for an all-to-all of host memory that needs packing (a side that is not contiguous) and whose layouts
 * split into blocks (dist_self.c).  The segments are made and mapped at the plan's first run, collectively
 * (names exchanged with MPI_Allgather, unlinked once every process has mapped them, so that nothing is left
 * in /dev/shm); where that fails on any process (not one host, no /dev/shm), every process remakes the plan
 * for the plain host route and runs that.  PA_MPI_SHM=0 turns the route off.
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "mpi_backend.h"

#define NAME_LEN 64

int pa_mpi__shm_possible(const pa_mpi__dplan *p)
{
    static atomic_int warned;
    return !p->shm_refused && !p->send_mem && !p->recv_mem && p->kind == PA_MPI__ALLTOALL && p->nprocs > 1 &&
           !(pa_mpi__contiguous(&p->send_l) && pa_mpi__contiguous(&p->recv_l)) && pa_mpi__self_blocks(p) &&
           pa_mpi__running() && pa_mpi__env_on("PA_MPI_SHM", &warned);
}

static size_t seg_bytes(const pa_mpi__dplan *p)
{
    return (size_t)pa__bytes(p->nsend, p->elm);
}

void pa_mpi__shm_free(pa_mpi__dplan *p)
{
    for (int q = 0; p->shm_seg && q < p->nprocs; q++)
        if (p->shm_seg[q])
            munmap(p->shm_seg[q], seg_bytes(p));
    free(p->shm_seg);
    p->shm_seg = NULL;
}

/* A segment of bytes under name: made (mine) or opened (a peer's) and mapped.  NULL on failure. */
static char *map_segment(const char *name, size_t bytes, int mine)
{
    int fd = shm_open(name, mine ? O_CREAT | O_EXCL | O_RDWR : O_RDONLY, 0600);
    if (fd < 0)
        return NULL;
    void *m = MAP_FAILED;
    /* posix_fallocate, not ftruncate: a full /dev/shm fails here rather than with SIGBUS at the first pack */
    if (!mine || posix_fallocate(fd, 0, (off_t)bytes) == 0)
        m = mmap(NULL, bytes, mine ? PROT_READ | PROT_WRITE : PROT_READ, MAP_SHARED, fd, 0);
    close(fd);
    return m == MAP_FAILED ? NULL : m;
}

typedef struct sharing {
    pa_mpi__dplan *p;
    char name[NAME_LEN];   /* this process's segment's, once made */
} sharing;

/* This process's segment, made and mapped; its name is the handle the others open. */
static int make_mine(void *ctx, char *mine)
{
    static unsigned long serial;
    sharing *sh = ctx;
    pa_mpi__dplan *p = sh->p;
    int wrank = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &wrank);
    snprintf(sh->name, sizeof sh->name, "/parray-%ld-%d-%lu", (long)getpid(), wrank, serial++);
    if (!(p->shm_seg = calloc((size_t)p->nprocs, sizeof *p->shm_seg)))
        return 0;
    if (!(p->shm_seg[p->rank] = map_segment(sh->name, seg_bytes(p), 1))) {
        shm_unlink(sh->name);   /* made but not mapped, or not made: nothing to keep */
        return 0;
    }
    memcpy(mine, sh->name, NAME_LEN);
    return 1;
}

static int open_peer(void *ctx, int q, const char *handle)
{
    pa_mpi__dplan *p = ((sharing *)ctx)->p;
    return (p->shm_seg[q] = map_segment(handle, seg_bytes(p), 0)) != NULL;
}

/* Makes this process's segment and maps every other one.  \return 1, or 0 when some process could not. */
static int map_all(pa_mpi__dplan *p, MPI_Comm comm)
{
    static const pa_mpi__node_sharing how = {make_mine, open_peer};
    sharing sh = {.p = p};
    int ok = pa_mpi__node_share(comm, p->rank, p->nprocs, NAME_LEN, &how, &sh);
    /* every process has mapped every segment it could: the names can go, so nothing is left in /dev/shm */
    if (p->shm_seg && p->shm_seg[p->rank])
        shm_unlink(sh.name);
    if (!ok)
        pa_mpi__shm_free(p);
    return ok;
}

int pa_mpi__shm_run(pa_mpi__dplan *p, MPI_Comm comm, void *dst, const void *src, pa_mpi__times *t)
{
    int n = p->nprocs, me = p->rank, st = PA_OK;
    if (!p->shm_seg && !map_all(p, comm)) {   /* every process remakes the plan for the plain host route */
        p->shm_refused = 1;
        if ((st = pa_mpi__route_remake(p, "shared memory is not possible here (not one host, or no POSIX shared "
                                          "memory)")) != PA_OK)
            return st;
        return pa_mpi__dplan_exec(p, comm, dst, src, t);
    }
    /* the own block in place unless the arrays overlap: then through the segment like the others */
    int self = pa_mpi__self_usable(p, dst, src);
    size_t bb = (size_t)pa__bytes(p->blk, p->elm);
    double t0 = pa_mpi__clock();
    for (int q = 0; q < n && st == PA_OK; q++)
        if (q != me || !self)
            st = pa__plan_exec(p->blk_pack, p->shm_seg[me] + (size_t)q * bb, 0, src,
                               pa__layout_offset(&p->send_l, (int64_t)q * p->blk));
    double t1 = pa_mpi__clock();
    if (st == PA_OK && self)
        st = pa__plan_exec(p->self, dst, p->recv_boff, src, p->send_boff);
    double t2 = pa_mpi__clock();
    /* a failed pack still takes part in both barriers (the others would wait), and says so after */
    int bst = pa_mpi__check(MPI_Barrier(comm), "MPI_Barrier");   /* every block packed */
    double t3 = pa_mpi__clock();
    for (int q = 0; q < n && st == PA_OK && bst == PA_OK; q++)
        if (q != me || !self)
            st = pa__plan_exec(p->blk_unpack, dst, pa__layout_offset(&p->recv_l, (int64_t)q * p->blk),
                               p->shm_seg[q] + (size_t)me * bb, 0);
    double t4 = pa_mpi__clock();
    int bst2 = pa_mpi__check(MPI_Barrier(comm), "MPI_Barrier");   /* every block read: segments may change */
    if (t) {
        t->pack += t1 - t0;
        t->self += t2 - t1;
        t->mpi += t3 - t2 + pa_mpi__clock() - t4;
        t->unpack += t4 - t3;
    }
    if (st == PA_OK)
        st = bst != PA_OK ? bst : bst2;
    return st;
}
