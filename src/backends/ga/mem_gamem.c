/*
 * parray — the gamem memory type: arrays of Global Arrays (NGA_Create_config64 / GA_Destroy), manual §3.4.
 *
 * pa_create of a gamem type is collective over the processes that run the code: every rank in SPMD code (the
 * array lives on Global Arrays' world group), the processes of a process array (on their processor group,
 * ga_groups.c), or rank 0 alone in its main under pa_mpi_main (a group of one).  Global Arrays is started on
 * the way when nobody has started it (ga_start.c).  Steps that can fail on one process only (memory) are
 * agreed on by all of them before any collective step, so that a failure is an error on every one of them,
 * never a hang.
 *
 * An array made inside a process array (or rank 0's main) belongs to it: pa_destroy it there, collectively;
 * what is left when the task ends is destroyed then, by every process of the array together (the manual's
 * listing 17 never destroys its array).  pa_destroy elsewhere (on other processes than those that made it)
 * is refused with PA_ERR_UNSUPPORTED and the array stays live, since GA_Destroy there would wait for ever.
 *
 * The pointer pa_create returns is a reserved range of the array's size (ga_backend.h); copies map it back to
 * the array through the list of live arrays kept here, and pa_gamem_handle to its Global Arrays handle.
 */
#include <ga.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "backends.h"
#include "ga_backend.h"
#include "mem_internal.h"
#include "mpi_services.h"

static pthread_mutex_t arrays_lock = PTHREAD_MUTEX_INITIALIZER;
static pa_ga__array *arrays;

int pa_ga__find(const void *p, pa_ga__array *out)
{
    int found = 0;
    pthread_mutex_lock(&arrays_lock);
    for (const pa_ga__array *a = arrays; a && !found; a = a->next)
        if ((const char *)p >= a->addr && (const char *)p < a->addr + a->bytes) {
            *out = *a;
            found = 1;
        }
    pthread_mutex_unlock(&arrays_lock);
    return found;
}

int pa_ga__group_in_use(int pgroup)
{
    int used = 0;
    pthread_mutex_lock(&arrays_lock);
    for (const pa_ga__array *a = arrays; a && !used; a = a->next)
        used = a->pgroup == pgroup;
    pthread_mutex_unlock(&arrays_lock);
    return used;
}

static void unlink_array(pa_ga__array *a)
{
    pthread_mutex_lock(&arrays_lock);
    for (pa_ga__array **link = &arrays; *link; link = &(*link)->next)
        if (*link == a) {
            *link = a->next;
            break;
        }
    pthread_mutex_unlock(&arrays_lock);
}

/* Frees a record and what it holds; destroys its Global Array when it has one (collective over its group). */
static void release(pa_ga__array *a, int destroy)
{
    if (!a)
        return;
    if (destroy)
        GA_Destroy(a->handle);
    if (a->addr && a->addr != MAP_FAILED)
        munmap(a->addr, a->bytes);
    if (a->mgroup != MPI_GROUP_NULL)
        MPI_Group_free(&a->mgroup);
    free(a);
}

/* Every process of comm agrees on ok.  \return 1 when all of them say 1. */
static int all_agree(MPI_Comm comm, int ok)
{
    int all = 0;
    MPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_LAND, comm);
    return all;
}

/* What may fail on one process alone: the record, its reserved range, the ranks.  \return 1 when all is well. */
static int prepare(size_t bytes, size_t elm, MPI_Comm comm, pa_ga__array **out, int32_t **members, int *n)
{
    pa_ga__array *a = calloc(1, sizeof *a);
    *out = a;
    if (!a)
        return 0;
    a->mgroup = MPI_GROUP_NULL;
    a->addr = mmap(NULL, bytes, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (a->addr == MAP_FAILED)
        return 0;
    a->bytes = bytes;
    a->elm = elm;
    a->n = (int64_t)(bytes / elm);
    a->comm = comm;
    a->scoped = comm != MPI_COMM_WORLD;
    a->owner = (unsigned long)pthread_self();
    if (MPI_Comm_group(comm, &a->mgroup) != MPI_SUCCESS)
        return 0;
    return pa_mpi__members(comm, members, n) == PA_OK;
}

/* Creates the Global Array of a prepared record on group pg. */
static int create(const pa_type *type, pa_ga__array *a, int pg)
{
    char name[32];   /* Global Arrays aborts on names longer than 31 characters */
    int64_t chunk[PA_GA__MAX_DIMS];
    pa_ga__dims_of(type, a->n, &a->et, a->dims, &a->ndims);
    for (int i = 0; i < a->ndims; i++)
        chunk[i] = -1;
    if (a->et.count > 1)
        chunk[a->ndims - 1] = a->et.count;   /* an element stays whole on one process */
    snprintf(name, sizeof name, "%s", pa_type_name(type) ? pa_type_name(type) : "parray");
    a->pgroup = pg;
    a->handle = NGA_Create_config64(a->et.gtype, a->ndims, a->dims, name, chunk, pg);
    if (a->handle == 0)
        return pa__err(PA_ERR_NOMEM, "gamem: NGA_Create_config64 of %lld elements of %zu bytes failed",
                       (long long)a->n, a->elm);
    return PA_OK;
}

static int gamem_alloc_type(const pa_type *type, size_t bytes, const pa_mem_opts *opts, void **out,
                            void **cookie)
{
    size_t elm = pa_elm_size(type);
    pa_ga__etype et;
    pa_ga__array *a = NULL;
    int32_t *members = NULL;
    int n = 0, pg = 0, rc;
    (void)opts;
    if (!pa_mpi__running())
        return pa__err(PA_ERR_NODEV, "gamem: MPI is not initialised (Global Arrays runs on MPI: call MPI_Init "
                                     "or enter through pa_mpi_main first)");
    if ((rc = pa_ga__etype_of(type, elm, &et)) != PA_OK)
        return rc;
    MPI_Comm comm = pa_mpi__comm();
    if (!all_agree(comm, prepare(bytes, elm, comm, &a, &members, &n))) {
        rc = pa__err(PA_ERR_NOMEM, "gamem: a process has no memory (or address space) for the record of an "
                                   "array of %zu bytes", bytes);
        goto fail;
    }
    a->et = et;
    if ((rc = pa_ga__start()) != PA_OK || (rc = pa_ga__group_for(members, n, &pg)) != PA_OK ||
        (rc = create(type, a, pg)) != PA_OK)
        goto fail;
    free(members);
    if (a->scoped)
        pa_ga__group_enter(pg);
    pthread_mutex_lock(&arrays_lock);
    a->next = arrays;
    arrays = a;
    pthread_mutex_unlock(&arrays_lock);
    *out = a->addr;
    *cookie = a;
    return PA_OK;

fail:
    free(members);
    release(a, 0);
    return rc;
}

static int gamem_alloc(size_t bytes, const pa_mem_opts *opts, void **out, void **cookie)
{
    (void)bytes;
    (void)opts;
    (void)out;
    (void)cookie;
    return pa__err(PA_ERR_INVAL, "gamem: arrays are created from a type (pa_create), which gives their elements");
}

/* 1 when the calling processes are those that created a (its destroy is collective over them). */
static int made_here(const pa_ga__array *a)
{
    MPI_Group here = MPI_GROUP_NULL;
    int same = MPI_UNEQUAL;
    MPI_Comm_group(pa_mpi__comm(), &here);
    MPI_Group_compare(here, a->mgroup, &same);
    MPI_Group_free(&here);
    return same == MPI_IDENT || same == MPI_SIMILAR;
}

static int gamem_free(void *ptr, size_t bytes, void *cookie)
{
    pa_ga__array *a = cookie;
    if (!pa_mpi__running() || !GA_Initialized()) {
        unlink_array(a);
        if (!pa_mpi__running())
            a->mgroup = MPI_GROUP_NULL;   /* gone with MPI */
        release(a, 0);
        return pa__err(PA_ERR_NODEV, "gamem: Global Arrays (or MPI) ended before the array was destroyed; its "
                                     "memory went with it");
    }
    if (!made_here(a)) {
        pa__alloc_rec rec = {&pa_ga__mem_ops, bytes, cookie};
        pa__alloc_register(ptr, &rec);   /* the array stays live: put back what pa_destroy took */
        return pa__err(PA_ERR_UNSUPPORTED, "gamem: the array was created by other processes than those that "
                       "destroy it here; GA_Destroy is collective over the processes that created it, so "
                       "destroy it there (in the same process array, or in SPMD code on every rank)");
    }
    unlink_array(a);
    release(a, 1);
    return PA_OK;
}

void pa_ga__destroy_scoped(void)
{
    unsigned long self = (unsigned long)pthread_self();
    MPI_Comm comm = pa_mpi__comm();
    pa_ga__array *mine = NULL, **tail = &mine;
    pthread_mutex_lock(&arrays_lock);
    for (pa_ga__array **link = &arrays; *link;) {
        pa_ga__array *a = *link;
        if (a->scoped && a->owner == self && a->comm == comm) {
            *link = a->next;   /* newest first, the same order on every process of the array */
            a->next = NULL;
            *tail = a;
            tail = &a->next;
        } else {
            link = &a->next;
        }
    }
    pthread_mutex_unlock(&arrays_lock);
    while (mine) {
        pa_ga__array *next = mine->next;
        pa__alloc_rec rec;
        pa__alloc_unregister(mine->addr, &pa_ga__mem_ops, &rec);
        release(mine, 1);
        mine = next;
    }
}

static int gamem_handle(const void *ptr, int *out)
{
    pa_ga__array a;
    if (!pa_ga__find(ptr, &a))
        return pa__err(PA_ERR_INVAL, "pa_gamem_handle: %p is not inside a live gamem array of this process",
                       ptr);
    *out = a.handle;
    return PA_OK;
}

static int gamem_available(void)
{
    return pa_mpi__running();
}

const pa__mem_ops pa_ga__mem_ops = {
    .name = "gamem",
    .host_accessible = 0,
    .available = gamem_available,
    .alloc = gamem_alloc,
    .free = gamem_free,
    .alloc_type = gamem_alloc_type,
    .handle = gamem_handle,
};

/* Linked into programs that use the static library (-u pa_ga__mem_ops pulls this object in): adds gamem to the
 * registry, Global Arrays' world calls and the end-of-task hooks before main. */
static const pa__mem_ops *const ga_mem[] = {&pa_ga__mem_ops, NULL};

static const pa__backend ga_backend = {
    .name = "gamem",
    .what = "gamem memory through Global Arrays (static library), its puts, gets and copies",
    .mem = ga_mem,
    .strategies = pa_ga__strategies,
};

__attribute__((constructor)) static void register_gamem(void)
{
    pa__backend_register_late(&ga_backend);
    pa_ga__start_register();
    pa_ga__groups_register();
}
