/*
 * parray — the patterns of a distributed copy as strategies: each looks at the count matrix (elements from
 * every source process to every destination process, the same on every rank), says whether it applies, at
 * what estimated time and why; the cheapest wins, as the host planner chooses between its strategies.
 *
 * The estimate is per copy, for the busiest process: a message's latency for each message it sends or
 * waits for (a binomial tree's log2(n) rounds for scatter and gather), its bytes over the transport's
 * bandwidth, and, for pack+MPI_Alltoallv+unpack, a host pass over its bytes each way.  A copy with every
 * element on one process is a host copy there and makes no MPI call.  Only the ranking has to be right; the
 * constants are the cost model's mpi_* (src/core/plan/cost.c), by default those of one host's shared-memory
 * transport (Open MPI's vader on the development machine: about 1.5 us per message, 6 GB/s).
 */
#include <stdio.h>

#include "cost_model.h"
#include "mpi_backend.h"


/* What the probes read: the count matrix summarised once. */
typedef struct pa_mpi__summary {
    int n, pairs, r0, q0;
    int row, col, all;            /* one root row, one root column, every pair equal */
    int64_t blk;                  /* the first non-empty pair's elements */
    double busiest;               /* bytes the busiest process sends or receives across processes */
    double elm;
} summary;

static void summarise(const int64_t *c, int n, size_t elm, summary *s)
{
    *s = (summary){.n = n, .r0 = -1, .q0 = -1, .row = 1, .col = 1, .all = 1, .elm = (double)elm};
    for (int r = 0; r < n; r++)
        for (int q = 0; q < n; q++)
            if (c[r * n + q]) {
                s->pairs++;
                if (s->r0 < 0) s->r0 = r, s->q0 = q;
            }
    if (s->r0 < 0)
        s->r0 = s->q0 = 0;
    s->blk = c[s->r0 * n + s->q0];
    for (int r = 0; r < n; r++) {
        double out = 0, in = 0;
        for (int q = 0; q < n; q++) {
            int64_t v = c[r * n + q];
            s->all &= v == s->blk;
            s->row &= v == (r == s->r0 ? s->blk : 0);
            s->col &= v == (q == s->q0 ? s->blk : 0);
            out += q != r ? (double)c[r * n + q] : 0;
            in += q != r ? (double)c[q * n + r] : 0;
        }
        double most = (out > in ? out : in) * s->elm;
        s->busiest = most > s->busiest ? most : s->busiest;
    }
}

/* The rounds of a binomial tree over n processes: ceil(log2(n)). */
static double rounds(int n)
{
    int r = 0;
    while ((1 << r) < n)
        r++;
    return r;
}

/* Every element stays on one process and nothing crosses: the MPI patterns do not apply. */
static int local_only(const summary *s)
{
    return s->pairs <= 1 && s->r0 == s->q0;
}

static double wire(const summary *s, const pa__cost_model *m, double messages)
{
    return messages * m->mpi_latency + s->busiest / m->mpi_net_bw;
}

static int probe_local(const summary *s, const pa__cost_model *m, double *ns, char *why, size_t len)
{
    if (!local_only(s))
        return 0;
    *ns = (double)s->blk * s->elm * 2 / m->mpi_host_bw;
    snprintf(why, len, "every element is on process %d: a host copy there, no message", s->r0);
    return 1;
}

static int probe_sendrecv(const summary *s, const pa__cost_model *m, double *ns, char *why, size_t len)
{
    if (s->pairs != 1 || s->r0 == s->q0)
        return 0;
    *ns = wire(s, m, 1);
    snprintf(why, len, "one pair of processes: one message of %.0f bytes", s->busiest);
    return 1;
}

static int probe_scatter(const summary *s, const pa__cost_model *m, double *ns, char *why, size_t len)
{
    if (local_only(s) || s->n < 2 || !s->row)
        return 0;
    *ns = wire(s, m, rounds(s->n));
    snprintf(why, len, "one source row of the count matrix, equal blocks of %lld elements: a tree of %.0f rounds",
             (long long)s->blk, rounds(s->n));
    return 1;
}

static int probe_gather(const summary *s, const pa__cost_model *m, double *ns, char *why, size_t len)
{
    if (local_only(s) || s->n < 2 || !s->col)
        return 0;
    *ns = wire(s, m, rounds(s->n));
    snprintf(why, len, "one destination column of the count matrix, equal blocks of %lld elements: a tree of %.0f "
             "rounds", (long long)s->blk, rounds(s->n));
    return 1;
}

static int probe_alltoall(const summary *s, const pa__cost_model *m, double *ns, char *why, size_t len)
{
    if (local_only(s) || s->n < 2 || !s->all)
        return 0;
    *ns = wire(s, m, s->n - 1);
    snprintf(why, len, "every pair exchanges %lld elements: %d messages per process", (long long)s->blk, s->n - 1);
    return 1;
}

static int probe_alltoallv(const summary *s, const pa__cost_model *m, double *ns, char *why, size_t len)
{
    if (local_only(s) || s->n < 2)
        return 0;
    *ns = wire(s, m, s->n - 1) + 2 * s->busiest / m->mpi_host_bw;
    snprintf(why, len, "any pattern: %d messages per process, the busiest's %.0f bytes charged a pack and an "
             "unpack", s->n - 1, s->busiest);
    return 1;
}

static const pa_mpi__pattern patterns[] = {
    {PA_MPI__LOCAL, probe_local},         {PA_MPI__SENDRECV, probe_sendrecv}, {PA_MPI__SCATTER, probe_scatter},
    {PA_MPI__GATHER, probe_gather},       {PA_MPI__ALLTOALL, probe_alltoall}, {PA_MPI__ALLTOALLV, probe_alltoallv},
};

const pa_mpi__pattern *pa_mpi__patterns(int *n)
{
    *n = (int)(sizeof patterns / sizeof patterns[0]);
    return patterns;
}

int pa_mpi__pattern_choose(pa_mpi__dplan *p, const int64_t *c)
{
    summary s;
    char why[sizeof p->why];
    double best = 0, second = 0;
    int chosen = -1, runner = -1;
    summarise(c, p->nprocs, p->elm, &s);
    for (int i = 0; i < (int)(sizeof patterns / sizeof patterns[0]); i++) {
        double ns;
        why[0] = '\0';
        if (!patterns[i].probe(&s, pa__cost(), &ns, why, sizeof why))
            continue;
        if (chosen < 0 || ns < best) {
            runner = chosen, second = best;
            chosen = i, best = ns;
            snprintf(p->why, sizeof p->why, "%s", why);
        } else if (runner < 0 || ns < second) {
            runner = i, second = ns;
        }
    }
    if (chosen < 0)   /* every count matrix has a pattern: local_only or not, with n >= 2 for the latter */
        return pa__err(PA_ERR_UNSUPPORTED, "distributed copy: no pattern applies over %d processes", p->nprocs);
    p->kind = patterns[chosen].kind;
    p->src_root = s.r0;
    p->dst_root = s.q0;
    p->blk = s.blk;
    p->cost_ns = best;
    p->busiest = s.busiest;
    p->runner_up = runner < 0 ? -1 : (int)patterns[runner].kind;
    p->runner_up_ns = second;
    return PA_OK;
}
