/*
 * parray — measuring the distributed copies' constants of the cost model (pa_cost_calibrate in an MPI program,
 * collective over the current communicator, pa_mpi__comm()).
 *
 * The patterns' probes (dist_patterns.c) price a copy as messages times a latency plus the busiest process's
 * bytes over the transport's bandwidth.  Processes 0 and 1 measure both by ping-pong (the median of 9 rounds of
 * 100 round trips of 8 bytes, and of 5 round trips of 16 MiB) while the others wait; process 0 sends the results
 * to all, so that every process writes the same model.  Without MPI running, or with one process, the
 * constants keep their values.  The packing bandwidth (mpi_host_bw) is the host backend's copy bandwidth.
 * Then the NCCL route's constants, where the processes have GPUs (cost_nccl.c).
 */
#include <stdlib.h>
#include <string.h>

#include "cost_model.h"
#include "mpi_backend.h"

#define BIG ((int)16 << 20)

/* The median time of one round trip of bytes between ranks 0 and 1 (rank 1 echoes). */
static double round_trip(MPI_Comm comm, int rank, char *buf, int bytes, int rounds, int trips)
{
    double t[16];
    for (int r = -1; r < rounds; r++) {
        MPI_Barrier(comm);
        double t0 = MPI_Wtime();
        for (int i = 0; i < trips; i++) {
            if (rank == 0) {
                MPI_Send(buf, bytes, MPI_BYTE, 1, 7, comm);
                MPI_Recv(buf, bytes, MPI_BYTE, 1, 7, comm, MPI_STATUS_IGNORE);
            } else if (rank == 1) {
                MPI_Recv(buf, bytes, MPI_BYTE, 0, 7, comm, MPI_STATUS_IGNORE);
                MPI_Send(buf, bytes, MPI_BYTE, 0, 7, comm);
            }
        }
        if (r >= 0)
            t[r] = (MPI_Wtime() - t0) / trips;
    }
    pa__cost_sort(t, (size_t)rounds);
    return t[rounds / 2];
}

int pa_mpi__time_rounds(MPI_Comm comm, int rounds, int repeats, int (*round)(void *ctx), void *ctx,
                        const char *what, double *ns)
{
    double t[16];
    rounds = rounds < 1 ? 1 : rounds > 16 ? 16 : rounds;
    for (int r = -1; r < rounds; r++) {   /* r = -1: the warm-up */
        MPI_Barrier(comm);
        double t0 = MPI_Wtime();
        int st = PA_OK;
        for (int i = 0; i < repeats && st == PA_OK; i++)
            st = round(ctx);
        double dt = (MPI_Wtime() - t0) / repeats, slowest = 0;
        /* every process's round is over once this agreement is (its buffers may be used again) */
        if (!pa_mpi__all_ok(st == PA_OK, comm))
            return st != PA_OK ? st : pa__err(PA_ERR_SYS, "calibrate: %s failed on another process", what);
        MPI_Allreduce(&dt, &slowest, 1, MPI_DOUBLE, MPI_MAX, comm);
        if (r >= 0)
            t[r] = slowest * 1e9;
    }
    pa__cost_sort(t, (size_t)rounds);
    *ns = t[rounds / 2];
    return PA_OK;
}

int pa_mpi__calibrate(pa__cost_model *m, FILE *log)
{
    int rank, nprocs;
    if (!pa_mpi__running() || (pa_mpi__where(&rank, &nprocs), nprocs < 2)) {
        if (log)
            fprintf(log, "  mpi: %s, the MPI constants keep their values\n",
                    pa_mpi__running() ? "one process" : "MPI is not running (calibrate from an MPI program)");
        return PA_OK;
    }
    MPI_Comm comm = pa_mpi__comm();
    char *buf = calloc(1, BIG);
    int ok = buf != NULL, all = 0;
    MPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_MIN, comm);
    if (!all) {
        free(buf);
        return pa__err(PA_ERR_NOMEM, "calibrate: no memory for a 16 MiB message on some process");
    }
    double v[2] = {0, 0};
    double small = round_trip(comm, rank, buf, 8, 9, 100), big = round_trip(comm, rank, buf, BIG, 5, 5);
    if (rank == 0) {
        v[0] = small / 2 * 1e9;                                              /* ns, one way */
        double one_way = big / 2 * 1e9 - v[0];
        v[1] = (double)BIG / (one_way > 1 ? one_way : 1);                    /* bytes per ns */
    }
    MPI_Bcast(v, 2, MPI_DOUBLE, 0, comm);
    free(buf);
    m->mpi_latency = v[0] < 50 ? 50 : v[0] > 1e7 ? 1e7 : v[0];
    m->mpi_net_bw = v[1] < 0.01 ? 0.01 : v[1] > 1000 ? 1000 : v[1];
    m->mpi_host_bw = m->host_bw;
    if (log && rank == 0)
        fprintf(log, "  mpi: latency %.0f ns, %.2f bytes/ns between processes 0 and 1 (of %d)\n", m->mpi_latency,
                m->mpi_net_bw, nprocs);
    int st = pa_mpi__calibrate_nccl(m, log);
    return st == PA_OK ? pa_mpi__calibrate_peer(m, log) : st;
}
