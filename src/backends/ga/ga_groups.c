/*
 * parray — Global Arrays processor groups for gamem arrays made by some of the ranks: a process array under
 * pa_mpi_main (its drafted ranks), rank 0's own main there (rank 0 alone), or a process array of fewer ranks
 * than the world in SPMD code.  The array is created on the group of exactly those ranks, so that its
 * creation, its collective calls and its destruction involve them and nobody else.
 *
 * Who makes a group.  GA_Pgroup_create is collective over Global Arrays' default group (the world) in
 * ARMCI-MPI's default mode, and over the new group's members only when ARMCI_NONCOLLECTIVE_GROUPS is set
 * (ga_start.c sets it for programs linked with parray_gamem unless their environment says otherwise):
 *  - noncollective: the members make it alone, wherever they are: inside any process array, nested or beside
 *    others, or in SPMD code;
 *  - collective: the members ask every rank to make it with them, through a world call (procs_world.c) that
 *    rank 0 grants when every rank outside the array is idle under pa_mpi_main; when some are busy in other
 *    arrays, or outside pa_mpi_main, pa_create fails with a message saying so (never a wait, never a hang).
 * Groups are kept by their members (by their sorted world ranks) and reused by the next array on the same
 * ranks, since every group costs MPI communicators; they are released when pa_mpi_main ends and when MPI is
 * finalised, by every member, in one order everywhere (sorted by ranks).
 *
 * The default group.  Global Arrays' own collective calls (GA_Sync, GA_Print_distribution, GA_Nodeid) work on
 * its default group.  When a process array makes a gamem array on its group, that group becomes the default
 * on its processes until the task ends (and on rank 0 until its main ends), as in listing 17, whose processes
 * call GA_Print_distribution on the array; the world group is the default again afterwards.  Groups are always
 * made with the world as the default, since GA_Pgroup_create numbers ranks in the default group.
 */
#include <ga.h>
#include <stdlib.h>
#include <string.h>

#include "ga_backend.h"
#include "mpi_services.h"

_Static_assert(sizeof(int32_t) == sizeof(int), "world ranks are passed to GA_Pgroup_create as int");

typedef struct group {
    int n;
    int32_t *members;        /* sorted world ranks */
    int pgroup;
    struct group *next;
} group;

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static group *kept;
static int entered;          /* pa_ga__group_enter changed the default group */

static int cmp_rank(const void *a, const void *b)
{
    int32_t x = *(const int32_t *)a, y = *(const int32_t *)b;
    return (x > y) - (x < y);
}

/* The kept group of these sorted ranks, or -1. */
static int lookup(const int32_t *sorted, int n)
{
    int pg = -1;
    pthread_mutex_lock(&lock);
    for (const group *g = kept; g && pg < 0; g = g->next)
        if (g->n == n && memcmp(g->members, sorted, (size_t)n * sizeof *sorted) == 0)
            pg = g->pgroup;
    pthread_mutex_unlock(&lock);
    return pg;
}

/* 1 when this process is one of members[0..n). */
static int member(const int32_t *members, int n)
{
    int me = -1;
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    for (int i = 0; i < n; i++)
        if (members[i] == me)
            return 1;
    return 0;
}

/*
 * Makes the group of these world ranks on this rank (with the others that must take part) and keeps it when
 * this rank is a member.  Ranks outside it (in a world call) keep nothing: they never use the group, and
 * ARMCI-MPI cannot free its record of a group a rank is not in (GA_Pgroup_destroy there frees uninitialised
 * pointers); Global Arrays frees the rest of it when it ends.
 */
static int make(const int32_t *members, int n)
{
    int keep = member(members, n);
    group *g = keep ? calloc(1, sizeof *g) : NULL;
    if (g && !(g->members = malloc((size_t)n * sizeof *members))) {
        free(g);
        g = NULL;
    }
    int world = GA_Pgroup_get_world(), prev = GA_Pgroup_get_default();
    if (prev != world)
        GA_Pgroup_set_default(world);
    /* Global Arrays sorts (a copy of) the list itself.  The others are in the call now: take part even when
     * there is no memory to keep the group. */
    int pg = GA_Pgroup_create((int *)members, n);
    if (prev != world)
        GA_Pgroup_set_default(prev);
    if (!keep)
        return PA_OK;
    if (!g)
        return pa__err(PA_ERR_NOMEM, "gamem: no memory to keep a processor group of %d ranks", n);
    g->n = n;
    memcpy(g->members, members, (size_t)n * sizeof *members);
    qsort(g->members, (size_t)n, sizeof *members, cmp_rank);
    g->pgroup = pg;
    pthread_mutex_lock(&lock);
    g->next = kept;
    kept = g;
    pthread_mutex_unlock(&lock);
    return PA_OK;
}

/* The world call's handler: every rank makes the group of the requesting array's ranks (which its members
 * do not have, or the array would have found it). */
static int world_make(const int32_t *members, int n, const void *arg, size_t len)
{
    (void)arg;
    (void)len;
    return make(members, n);
}

/* Every process of comm agrees on ok.  \return 1 when all of them say 1. */
static int all_agree(MPI_Comm comm, int ok)
{
    int all = 0;
    MPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_LAND, comm);
    return all;
}

int pa_ga__group_for(const int32_t *members, int n, int *pgroup)
{
    MPI_Comm comm = pa_mpi__comm();
    int world = 1, st = PA_OK;
    MPI_Comm_size(MPI_COMM_WORLD, &world);
    if (n == world) {
        *pgroup = GA_Pgroup_get_world();
        return PA_OK;
    }
    int32_t *sorted = malloc((size_t)n * sizeof *sorted);
    if (sorted) {
        memcpy(sorted, members, (size_t)n * sizeof *sorted);
        qsort(sorted, (size_t)n, sizeof *sorted, cmp_rank);
    }
    if (!all_agree(comm, sorted != NULL)) {
        free(sorted);
        return pa__err(PA_ERR_NOMEM, "gamem: a process of the array has no memory for its group's ranks");
    }
    int pg = lookup(sorted, n);   /* kept by all of them or by none: they made it together */
    if (pg < 0) {
        if (pa_ga__noncollective_groups())
            st = make(sorted, n);
        else if ((st = pa_mpi__world_call("GA_Pgroup_create", NULL, 0)) != PA_OK && st != PA_ERR_NOMEM)
            st = pa__err_wrap(st, "gamem: ARMCI_NONCOLLECTIVE_GROUPS is off, so every rank must make this "
                              "array's processor group");
        if (!all_agree(comm, st == PA_OK) && st == PA_OK)
            st = pa__err(PA_ERR_NOMEM, "gamem: another process of the array could not make its group");
        pg = st == PA_OK ? lookup(sorted, n) : -1;
    }
    free(sorted);
    if (st == PA_OK)
        *pgroup = pg;
    return st;
}

void pa_ga__group_enter(int pgroup)
{
    if (pgroup == GA_Pgroup_get_world())
        return;
    GA_Pgroup_set_default(pgroup);
    entered = 1;
}

static void leave(void)
{
    if (entered && GA_Initialized())
        GA_Pgroup_set_default(GA_Pgroup_get_world());
    entered = 0;
}

/* Orders groups by their ranks, so that every process releases its groups in the same order. */
static int cmp_group(const void *a, const void *b)
{
    const group *x = *(group *const *)a, *y = *(group *const *)b;
    for (int i = 0; i < x->n && i < y->n; i++)
        if (x->members[i] != y->members[i])
            return (x->members[i] > y->members[i]) - (x->members[i] < y->members[i]);
    return (x->n > y->n) - (x->n < y->n);
}

void pa_ga__groups_release(void)
{
    size_t count = 0, k = 0;
    pthread_mutex_lock(&lock);
    for (group *g = kept; g; g = g->next)
        count++;
    group **all = count ? malloc(count * sizeof *all) : NULL;
    for (group *g = kept; all && g; g = g->next)
        all[k++] = g;
    if (all)
        kept = NULL;
    pthread_mutex_unlock(&lock);
    if (!all)
        return;   /* nothing kept, or no memory to order them: they stay (Global Arrays frees them at its end) */
    qsort(all, count, sizeof *all, cmp_group);
    for (size_t i = 0; i < count; i++) {
        group *g = all[i];
        if (pa_ga__group_in_use(g->pgroup)) {   /* an array still lives on it: keep it */
            pthread_mutex_lock(&lock);
            g->next = kept;
            kept = g;
            pthread_mutex_unlock(&lock);
            continue;
        }
        GA_Pgroup_destroy(g->pgroup);
        free(g->members);
        free(g);
    }
    free(all);
}

void pa_ga__groups_forget(void)
{
    pthread_mutex_lock(&lock);
    group *g = kept;
    kept = NULL;
    entered = 0;
    pthread_mutex_unlock(&lock);
    while (g) {
        group *next = g->next;
        free(g->members);
        free(g);
        g = next;
    }
}

/* The end of a task: its scoped arrays go (collectively over their groups), and the default group returns. */
static void task_end(void)
{
    if (!GA_Initialized())
        return;
    pa_ga__destroy_scoped();
    leave();
}

/* The end of pa_mpi_main (every rank): the same, and the kept groups are released. */
static void main_end(void)
{
    if (!GA_Initialized())
        return;
    pa_ga__destroy_scoped();
    leave();
    pa_ga__groups_release();
}

int pa_ga__groups_register(void)
{
    pa_mpi__on_task_end(task_end);
    pa_mpi__on_main_end(main_end);
    return pa_mpi__world_register("GA_Pgroup_create", world_make);
}
