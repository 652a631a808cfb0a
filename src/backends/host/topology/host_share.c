/*
 * parray — this process's share of the host: how many CPUs its threads may use by default.
 *
 * Several MPI ranks often run on one node.  If each sized its thread pools for the whole machine, 16 ranks on
 * 16 cores would each start up to 16 copy threads, and ranks x threads would oversubscribe the cores 16 times
 * (bench/mpi_copy's packed all-to-all at 16 ranks ran 6x slower than MPI's own for that reason).  So a
 * process's default thread count is its share: the CPUs of its affinity mask when the launcher already bound
 * it to fewer than the machine has (mpirun --bind-to core), else the machine's CPUs divided by the ranks on its
 * node, and its slice for binding is the local rank's block of that size.  The ranks on the node come from the
 * MPI backend (MPI_Comm_split_type with MPI_COMM_TYPE_SHARED, called from pa_mpi_main or pa_mpi_node_share)
 * and, before that or without MPI in the build, from the launcher's environment (Open MPI's
 * OMPI_COMM_WORLD_LOCAL_SIZE, MPICH's MPI_LOCALNRANKS, Slurm's SLURM_NTASKS_PER_NODE).  PA_NODE_RANKS=1 turns
 * the division off.
 */
#include <sched.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "thread_internal.h"

static struct {
    pthread_mutex_t mu;
    int known;               /* the fields below are filled */
    int set_by_mpi;          /* pa__node_share_set was called: the environment is not read again */
    int local_rank, local_ranks;
    char source[48];
} share = {PTHREAD_MUTEX_INITIALIZER, 0, 0, 0, 1, ""};

/*
 * pa__process_cpus's answer, cached: (generation << 32) | cpus, 0 before the first.  The pool's polling
 * workers and joiners ask for it; through share.mu, 15 workers asking at once on the 16-core host queued on the
 * mutex and slept, and an empty pa_for over 16 threads took 16-24 us (bench/threads).  The generation moves
 * whenever the share changes (pa__node_share_set).
 */
static _Atomic uint64_t cpus_cache;
static atomic_uint share_generation;

/* An integer variable in [lo, hi]; ours (PA_NODE_RANKS, PA_NODE_RANK) warn when set to anything else, the
 * launchers' are only skipped. */
static int env_int(const char *name, long lo, long hi, const char *dflt, atomic_int *once, int *out)
{
    const char *v = getenv(name);
    long x;
    char expected[64];
    if (v == NULL)
        return 0;
    if (pa__env_parse_int(v, lo, hi, &x)) {
        *out = (int)x;
        return 1;
    }
    snprintf(expected, sizeof expected, "an integer in %ld..%ld", lo, hi);
    if (once)
        pa__env_warn(once, name, v, expected, dflt);
    return 0;
}

/* The launcher's word for the ranks on this node, if it gave one.  Called with share.mu held. */
static void share_from_env(void)
{
    static const char *const pairs[][3] = {
        {"PA_NODE_RANKS", "PA_NODE_RANK", "PA_NODE_RANKS"},
        {"OMPI_COMM_WORLD_LOCAL_SIZE", "OMPI_COMM_WORLD_LOCAL_RANK", "Open MPI's environment"},
        {"MPI_LOCALNRANKS", "MPI_LOCALRANKID", "MPICH's environment"},
        {"SLURM_NTASKS_PER_NODE", "SLURM_LOCALID", "Slurm's environment"},
    };
    share.local_rank = 0;
    share.local_ranks = 1;
    snprintf(share.source, sizeof share.source, "no other ranks known");
    static atomic_int warned[2];
    for (size_t i = 0; i < sizeof pairs / sizeof pairs[0]; i++) {
        int n, r = 0, ours = i == 0;
        if (!env_int(pairs[i][0], 1, 1 << 20, "the launcher's environment, else 1", ours ? &warned[0] : NULL, &n))
            continue;
        if (ours)
            env_int(pairs[i][1], 0, n - 1, "0", &warned[1], &r);
        else if (env_int(pairs[i][1], 0, 1 << 20, NULL, NULL, &r))
            r %= n;
        share.local_ranks = n;
        share.local_rank = r;
        snprintf(share.source, sizeof share.source, "%s", pairs[i][2]);
        break;
    }
}

void pa__node_share_set(int local_rank, int local_ranks)
{
    pthread_mutex_lock(&share.mu);
    long ranks;   /* the user's word (a valid one) wins over the communicator's */
    int forced = pa__env_parse_int(getenv("PA_NODE_RANKS"), 1, 1 << 20, &ranks);
    if (!forced && local_ranks >= 1 && local_rank >= 0 && local_rank < local_ranks) {
        share.local_rank = local_rank;
        share.local_ranks = local_ranks;
        snprintf(share.source, sizeof share.source, "MPI shared-memory communicator");
        share.set_by_mpi = 1;
        share.known = 1;
        atomic_fetch_add(&share_generation, 1);
    }
    pthread_mutex_unlock(&share.mu);
}

static void share_get(int *rank, int *ranks, char *source, size_t len)
{
    pthread_mutex_lock(&share.mu);
    if (!share.known) {
        share_from_env();
        share.known = 1;
    }
    *rank = share.local_rank;
    *ranks = share.local_ranks;
    if (source)
        snprintf(source, len, "%s", share.source);
    pthread_mutex_unlock(&share.mu);
}

/* CPUs online, and CPUs in the calling thread's affinity mask as the process started (read once). */
static int machine_cpus, allowed_cpus, first_allowed;
static pthread_once_t cpus_once = PTHREAD_ONCE_INIT;

static void cpus_read(void)
{
    long online = sysconf(_SC_NPROCESSORS_ONLN);
    machine_cpus = online < 1 ? 1 : (int)online;
    allowed_cpus = machine_cpus;
    cpu_set_t set;
    CPU_ZERO(&set);
    if (sched_getaffinity(0, sizeof set, &set) == 0 && CPU_COUNT(&set) > 0) {
        allowed_cpus = CPU_COUNT(&set);
        for (int c = 0; c < CPU_SETSIZE; c++)
            if (CPU_ISSET(c, &set)) {
                first_allowed = c;
                break;
            }
    }
}

int pa__host_share(pa_host_share_info *out)
{
    pthread_once(&cpus_once, cpus_read);
    pa_host_share_info s;
    memset(&s, 0, sizeof s);
    share_get(&s.local_rank, &s.local_ranks, s.source, sizeof s.source);
    s.machine_cpus = machine_cpus;
    s.allowed_cpus = allowed_cpus;
    if (allowed_cpus < machine_cpus) {
        /* Bound by the launcher: the mask is already this rank's share. */
        s.cpus = allowed_cpus;
        s.first_cpu = first_allowed;
        s.bound_by_launcher = 1;
    } else {
        int n = s.local_ranks > 0 ? s.local_ranks : 1;
        s.cpus = allowed_cpus / n > 0 ? allowed_cpus / n : 1;
        s.first_cpu = n <= allowed_cpus ? s.local_rank * s.cpus : 0;
    }
    *out = s;
    return PA_OK;
}

int pa__process_cpus(void)
{
    unsigned gen = atomic_load_explicit(&share_generation, memory_order_acquire);
    uint64_t c = atomic_load_explicit(&cpus_cache, memory_order_relaxed);
    if (c != 0 && (unsigned)(c >> 32) == gen)
        return (int)(uint32_t)c;
    pa_host_share_info s;
    pa__host_share(&s);   /* reads the share as of gen or later: a later change moves gen again */
    atomic_store_explicit(&cpus_cache, (uint64_t)gen << 32 | (uint32_t)s.cpus, memory_order_relaxed);
    return s.cpus;
}

int pa_host_share(pa_host_share_info *out)
{
    if (out == NULL)
        return pa__err(PA_ERR_INVAL, "pa_host_share: out is NULL");
    return pa__host_share(out);
}
