/*
 * parray MPI tests — the Star Schema Benchmark split over MPI ranks (issue 31): every rank makes the same
 * database, takes its contiguous share of lineorder (pa_ssb_slice) and runs the 13 queries on it (on its GPU where
 * there is one, alternately resident and streaming in small chunks; else the CPU tile engine); the partial results
 * travel between the ranks through the library's distributed copies (an all-to-all of each rank's record, every
 * row the same: an all-gather), and every rank combines them (pa_ssb_result_combine).  The combined result must
 * equal the whole database's, on every rank.  Any number of ranks; run with mpirun -np 4.
 */
#include "mpi_check.h"
#include <parray/cuda.h>
#include <parray/mpi.h>
#include <parray/ssb.h>

/* all[m * k .. m * k + k) = rank m's mine[0 .. k), on every rank: D = long [P][k] all-to-all, each row mine. */
static void allgather(int nprocs, int64_t k, const int64_t *mine, int64_t *all)
{
    pa_scope *sc = NULL;
    char text[256];
    int64_t *rows = malloc((size_t)(nprocs * k) * sizeof *rows);
    MCK(rows != NULL, "out of memory");
    if (!rows)
        return;
    for (int m = 0; m < nprocs; m++)
        memcpy(rows + m * k, mine, (size_t)k * sizeof *rows);
    snprintf(text, sizeof text, "M = mpi [%d]\nD = paged long [%d][%lld]\nS = [#M][#D_0][#D_1]\n"
             "T = [#D_0][#M][#D_1]", nprocs, nprocs, (long long)k);
    MCK_OK(pa_scope_create(NULL, &sc));
    MCK_OK(pa_declare_text(sc, text));
    const pa_type *t = pa_type_get(sc, "T"), *s = pa_type_get(sc, "S");
    MCK(t && s, "types: %s", pa_last_error());
    if (t && s)
        MCK_OK(pa_copy(t, all, s, rows));
    pa_scope_destroy(sc);
    free(rows);
}

/* Every rank's part of query q gathered and combined into *out. */
static void combine_ranks(const pa_ssb_db *db, int q, const pa_ssb_result *part, int nprocs, pa_ssb_result *out)
{
    int64_t n = part->nrows, *counts = calloc((size_t)nprocs, sizeof *counts), most = 0;
    allgather(nprocs, 1, &n, counts);
    for (int m = 0; m < nprocs; m++)
        most = counts[m] > most ? counts[m] : most;
    int64_t k = 1 + 4 * most, *mine = calloc((size_t)k, sizeof *mine), *all = calloc((size_t)(k * nprocs), 8);
    pa_ssb_result *parts = calloc((size_t)nprocs, sizeof *parts);
    mine[0] = n;
    for (int64_t i = 0; i < n; i++) {
        for (int g = 0; g < 3; g++)
            mine[1 + 4 * i + g] = part->groups[i * 3 + g];
        mine[1 + 4 * i + 3] = part->values[i];
    }
    allgather(nprocs, k, mine, all);
    for (int m = 0; m < nprocs; m++) {
        const int64_t *r = all + m * k;
        MCK(r[0] == counts[m], "rank %d's record says %lld rows, its count %lld", m, (long long)r[0],
            (long long)counts[m]);
        parts[m] = (pa_ssb_result){q, part->ngroups, r[0], calloc((size_t)r[0] * 3 + 1, 4),
                                   calloc((size_t)r[0] + 1, 8)};
        for (int64_t i = 0; i < r[0]; i++) {
            for (int g = 0; g < 3; g++)
                parts[m].groups[i * 3 + g] = (int32_t)r[1 + 4 * i + g];
            parts[m].values[i] = r[1 + 4 * i + 3];
        }
    }
    memset(out, 0xa5, sizeof *out);
    MCK_OK(pa_ssb_result_combine(db, q, parts, nprocs, out));
    for (int m = 0; m < nprocs; m++)
        pa_ssb_result_destroy(&parts[m]);
    free(parts);
    free(all);
    free(mine);
    free(counts);
}

static void test_split(void)
{
    int rank = pa_mpi_rank(), nprocs = pa_mpi_nprocs(), ngpu = pa_cuda_device_count();
    pa_ssb_db *db = NULL, *mine = NULL;
    pa_ssb_gpu *g = NULL;
    MCK_OK(pa_ssb_generate_with(0.01, 13, 1, PA_SSB_QUERY_COLUMNS, &db));
    if (!db)
        return;
    int64_t n = pa_ssb_rows(db, PA_SSB_LINEORDER);
    MCK_OK(pa_ssb_slice(db, n * rank / nprocs, n * (rank + 1) / nprocs, &mine));
    if (ngpu > 0) {   /* this rank's GPU: resident on even ranks, streaming in chunks of 1,024 rows on odd ones */
        pa_ssb_gpu_config c = {.mode = rank % 2 ? PA_SSB_GPU_STREAM : PA_SSB_GPU_RESIDENT, .chunk_rows = 1000,
                               .ndevices = 1, .devices = {rank % ngpu}};
        MCK_OK(pa_ssb_gpu_create_with(mine, &c, &g));
    }
    pa_error_clear();
    for (int q = 0; q < PA_SSB_NQUERIES && mine; q++) {
        pa_ssb_result part = {0}, got, want;
        char why[200];
        MCK_OK(g ? pa_ssb_gpu_run(g, q, &part, NULL) : pa_ssb_run_cpu_tiles(mine, q, 1, &part));
        combine_ranks(db, q, &part, nprocs, &got);
        MCK_OK(pa_ssb_run_cpu(db, q, 1, &want));
        MCK(pa_ssb_result_equal(&want, &got, why, sizeof why), "%s over %d ranks (%s): %s", pa_ssb_query_name(q),
            nprocs, g ? "GPU" : "CPU", why);
        pa_ssb_result_destroy(&part);
        pa_ssb_result_destroy(&got);
        pa_ssb_result_destroy(&want);
    }
    pa_ssb_gpu_destroy(g);
    pa_ssb_destroy(mine);
    pa_ssb_destroy(db);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    mck_run("ssb split over the ranks", test_split);
    int all = 0;
    MPI_Allreduce(&mck_failures, &all, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    MPI_Finalize();
    return all ? 1 : 0;
}
