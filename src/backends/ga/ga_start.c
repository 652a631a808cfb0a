/*
 * parray — starting and ending Global Arrays for gamem.
 *
 * GA_Initialize is collective over every rank of MPI_COMM_WORLD.  A program may call it itself (listing 17
 * does, before _pa_main); otherwise the first pa_create of a gamem array starts it: directly where every rank
 * runs that code (SPMD), and through a world call (procs_world.c) where only a process array or rank 0's
 * main runs it under pa_mpi_main, which works when the other ranks are idle and is a clear error when some
 * are busy in other arrays.  Global Arrays started here is terminated when MPI is finalised (a delete
 * callback of an attribute on MPI_COMM_SELF, run by MPI_Finalize while MPI still works), after the processor
 * groups kept by ga_groups.c are released.
 *
 * Processor groups: ARMCI-MPI (the ARMCI under Debian's Global Arrays) makes them collectively over the whole
 * world unless ARMCI_NONCOLLECTIVE_GROUPS is set, in which case only the group's members take part.  Programs
 * linked with parray_gamem set it (unless their environment already sets it) before main, before anyone's
 * GA_Initialize reads it; pa_ga__noncollective_groups reads the same variable the same way ARMCI-MPI does.
 */
#include <ga.h>
#include <stdlib.h>

#include "ga_backend.h"
#include "mpi_services.h"
#include "pa_config.h"

int pa_ga__noncollective_groups(void)
{
#if PA_GA_ARMCI_MPI
    const char *v = getenv("ARMCI_NONCOLLECTIVE_GROUPS");
    return v && (v[0] == '1' || v[0] == 't' || v[0] == 'T' || v[0] == 'y' || v[0] == 'Y');
#else
    return 0;
#endif
}

/* MPI_Finalize deletes MPI_COMM_SELF's attributes first, while MPI still works: Global Arrays ends there. */
static int terminate_ga(MPI_Comm comm, int key, void *value, void *extra)
{
    (void)comm;
    (void)key;
    (void)value;
    (void)extra;
    if (GA_Initialized()) {
        GA_Pgroup_set_default(GA_Pgroup_get_world());
        pa_ga__groups_release();
        GA_Terminate();
    }
    pa_ga__groups_forget();
    return MPI_SUCCESS;
}

/* Starts Global Arrays on this rank (every rank of the world does so at the same time). */
static int start_here(void)
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
    pa_ga__groups_forget();   /* groups kept from a Global Arrays the program terminated itself are gone */
    GA_Initialize();
    return PA_OK;
}

/* The world call's handler: every rank starts Global Arrays. */
static int world_start(const int32_t *members, int n, const void *arg, size_t len)
{
    (void)members;
    (void)n;
    (void)arg;
    (void)len;
    return start_here();
}

int pa_ga__start(void)
{
    int here = 1, world = 1, st;
    if (!pa_mpi__running())
        return pa__err(PA_ERR_NODEV, "gamem: MPI is not initialised (Global Arrays runs on MPI: call MPI_Init "
                                     "or enter through pa_mpi_main first)");
    if (GA_Initialized())
        return PA_OK;
    MPI_Comm_size(pa_mpi__comm(), &here);
    MPI_Comm_size(MPI_COMM_WORLD, &world);
    if (here == world)
        return start_here();
    st = pa_mpi__world_call("GA_Initialize", NULL, 0);
    if (st != PA_OK)
        return pa__err_wrap(st, "gamem: Global Arrays is not running and only %d of the %d ranks run this code; "
                            "call GA_Initialize() on every process first (listing 17 does, before _pa_main)",
                            here, world);
    return PA_OK;
}

int pa_ga__start_register(void)
{
#if PA_GA_ARMCI_MPI
    setenv("ARMCI_NONCOLLECTIVE_GROUPS", "1", 0);   /* before main: before any GA_Initialize reads it */
#endif
    return pa_mpi__world_register("GA_Initialize", world_start);
}
