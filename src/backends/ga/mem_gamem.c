/*
 * parray — the gamem memory type: arrays of Global Arrays (NGA_Create64 / GA_Destroy), manual §3.4.
 *
 * Creating and destroying are collective over every rank of MPI_COMM_WORLD (Global Arrays' world group), so
 * gamem arrays are made by SPMD code that all ranks run; a process array or the main of pa_mpi_main, where
 * the other ranks are busy elsewhere, gets PA_ERR_UNSUPPORTED instead of a hang.  Global Arrays is started
 * by the first pa_create unless the program started it itself, and is then terminated when MPI is finalised
 * (a delete callback of an attribute on MPI_COMM_SELF, run by MPI_Finalize while MPI still works).
 *
 * The pointer pa_create returns is a reserved range of the array's size (see ga_backend.h); copies map it
 * back to the handle through the list of live arrays kept here.
 */
#include <ga.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "ga_backend.h"
#include "mem_internal.h"
#include "mpi_backend.h"

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

/* MPI_Finalize deletes MPI_COMM_SELF's attributes first, while MPI still works: Global Arrays ends there. */
static int terminate_ga(MPI_Comm comm, int key, void *value, void *extra)
{
    (void)comm;
    (void)key;
    (void)value;
    (void)extra;
    if (GA_Initialized())
        GA_Terminate();
    return MPI_SUCCESS;
}

/* Starts Global Arrays if nobody has (collective over MPI_COMM_WORLD, as the caller's NGA_Create is). */
static int start_ga(void)
{
    int key = MPI_KEYVAL_INVALID;
    if (GA_Initialized())
        return PA_OK;
    int rc = MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, terminate_ga, &key, NULL);
    if (rc == MPI_SUCCESS)
        rc = MPI_Comm_set_attr(MPI_COMM_SELF, key, NULL);
    if (key != MPI_KEYVAL_INVALID)
        MPI_Comm_free_keyval(&key);   /* the attribute keeps it until MPI_Finalize deletes it */
    if (rc != MPI_SUCCESS)
        return pa_mpi__check(rc, "gamem: registering Global Arrays' termination at MPI_Finalize");
    GA_Initialize();
    return PA_OK;
}

/* The Global Arrays data type of the elements: by the element type's name, else by size (bytes move as is). */
static int ga_type_of(const pa_type *type, size_t elm, int *out)
{
    static const struct { const char *name; int type; size_t size; } named[] = {
        {"int", C_INT, sizeof(int)},      {"float", C_FLOAT, sizeof(float)}, {"double", C_DBL, sizeof(double)},
        {"long", C_LONG, sizeof(long)},   {"long long", C_LONGLONG, sizeof(long long)},
    };
    const char *name = pa_elm(type);
    for (size_t i = 0; name && i < sizeof named / sizeof named[0]; i++)
        if (strcmp(name, named[i].name) == 0 && named[i].size == elm) {
            *out = named[i].type;
            return PA_OK;
        }
    switch (elm) {
    case 4: *out = C_INT; return PA_OK;
    case 8: *out = C_DBL; return PA_OK;
    case 16: *out = C_DCPL; return PA_OK;
    default:
        return pa__err(PA_ERR_ELM, "gamem: elements of %zu bytes (%s) have no Global Arrays data type; use "
                                   "elements of 4, 8 or 16 bytes", elm, name ? name : "unnamed");
    }
}

/* Every rank of MPI_COMM_WORLD must take part: refuse where only some of them can. */
static int check_collective(void)
{
    int here = 1, world = 1;
    if (!pa_mpi__running())
        return pa__err(PA_ERR_NODEV, "gamem: MPI is not initialised (Global Arrays runs on MPI: call MPI_Init "
                                     "first and create gamem arrays on every rank)");
    MPI_Comm_size(pa_mpi__comm(), &here);
    MPI_Comm_size(MPI_COMM_WORLD, &world);
    if (here != world)
        return pa__err(PA_ERR_UNSUPPORTED, "gamem: arrays are created and destroyed collectively by all %d ranks "
                                           "of MPI_COMM_WORLD, but this code runs on %d of them (a process array "
                                           "or the main of pa_mpi_main); create them in SPMD code", world, here);
    return PA_OK;
}

static int gamem_available(void)
{
    return pa_mpi__running();
}

static int gamem_alloc_type(const pa_type *type, size_t bytes, const pa_mem_opts *opts, void **out,
                            void **cookie)
{
    size_t elm = pa_elm_size(type);
    int gtype = 0, rc;
    char name[64];
    (void)opts;
    if ((rc = check_collective()) != PA_OK || (rc = ga_type_of(type, elm, &gtype)) != PA_OK)
        return rc;
    pa_ga__array *a = calloc(1, sizeof *a);
    if (!a)
        return pa__err(PA_ERR_NOMEM, "gamem: out of memory for an array record");
    a->addr = mmap(NULL, bytes, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (a->addr == MAP_FAILED) {
        rc = pa__err(PA_ERR_NOMEM, "gamem: cannot reserve %zu bytes of address space for the handle", bytes);
        goto fail;
    }
    a->bytes = bytes;
    a->elm = elm;
    a->n = (int64_t)(bytes / elm);
    if ((rc = start_ga()) != PA_OK)
        goto fail;
    int64_t dims[1] = {a->n}, chunk[1] = {-1};
    snprintf(name, sizeof name, "%s", pa_type_name(type) ? pa_type_name(type) : "parray");
    a->handle = NGA_Create64(gtype, 1, dims, name, chunk);
    if (a->handle == 0) {
        rc = pa__err(PA_ERR_NOMEM, "gamem: NGA_Create64 of %lld elements of %zu bytes failed", (long long)a->n,
                     elm);
        goto fail;
    }
    pthread_mutex_lock(&arrays_lock);
    a->next = arrays;
    arrays = a;
    pthread_mutex_unlock(&arrays_lock);
    *out = a->addr;
    *cookie = a;
    return PA_OK;

fail:
    if (a->addr != MAP_FAILED && a->addr != NULL)
        munmap(a->addr, bytes);
    free(a);
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

static int gamem_free(void *ptr, size_t bytes, void *cookie)
{
    pa_ga__array *a = cookie;
    int rc = PA_OK;
    pthread_mutex_lock(&arrays_lock);
    for (pa_ga__array **link = &arrays; *link; link = &(*link)->next)
        if (*link == a) {
            *link = a->next;
            break;
        }
    pthread_mutex_unlock(&arrays_lock);
    if (!pa_mpi__running() || !GA_Initialized())
        rc = pa__err(PA_ERR_NODEV, "gamem: Global Arrays (or MPI) ended before the array was destroyed; its "
                                   "memory went with it");
    else if ((rc = check_collective()) == PA_OK)
        GA_Destroy(a->handle);
    munmap(ptr, bytes);
    free(a);
    return rc;
}

const pa__mem_ops pa_ga__mem_ops = {
    .name = "gamem",
    .host_accessible = 0,
    .available = gamem_available,
    .alloc = gamem_alloc,
    .free = gamem_free,
    .alloc_type = gamem_alloc_type,
};

/* Linked into programs that use the static library (-u pa_ga__mem_ops pulls this object in): adds gamem to the
 * registry before main. */
__attribute__((constructor)) static void register_gamem(void)
{
    pa__mtt_register_late(&pa_ga__mem_ops, pa_ga__strategies);
}
