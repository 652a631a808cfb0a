/*
 * The PL/CUDA chapter's use of matrices, end to end: a k-nearest-neighbour similarity search.
 *
 * Two CSV files (20000 data points and 300 queries of 16 integer coordinates, with headers, made here from a
 * fixed seed) are read into matrices (pa_matrix_from_csv: into dmem when there is a GPU), the PL/CUDA function
 * of matrix_knn.h finds each query's 8 nearest points on the GPU, its result matrix comes back, and
 * pa_matrix_unnest_rows turns it into rows, which are printed.  The same search on the CPU (knn_cpu) is the check:
 * the program fails when any index differs.  Integer coordinates make every distance exact in float, so GPU and
 * CPU agree bit for bit, ties included.  Without a GPU the CPU's result is printed (the output is the same),
 * and the function is still registered and compiled for sm_90 when NVRTC is present.
 *
 * With --tf32 (or PA_ALLOW_TF32=1) the caller allows TF32: the search takes the tensor-core path of
 * matrix_knn_tc.h, says so on stderr, and is checked against the CPU's answer by that header's tolerance (recall
 * >= 0.99, every neighbour within the bound of the k-th distance); the integer coordinates are exact in TF32, so
 * the printed result is the same and the program says whether it matched bit for bit.
 */
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "matrix_knn_tc.h"
#include <parray/cuda.h>
#include <parray/kernel.h>

enum { N = 20000, NQ = 300, DIM = 16, K = 8 };

static uint64_t rng = 0x9E3779B97F4A7C15ULL;

static int next_coord(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return (int)(rng % 100);
}

static int write_csv(const char *path, int rows)
{
    FILE *f = fopen(path, "w");
    if (!f)
        return -1;
    for (int j = 0; j < DIM; j++)
        fprintf(f, "%sx%d", j ? "," : "", j);
    fputc('\n', f);
    for (int i = 0; i < rows; i++)
        for (int j = 0; j < DIM; j++)
            fprintf(f, "%d%c", next_coord(), j == DIM - 1 ? '\n' : ',');
    return fclose(f);
}

static int print_row(int64_t row, const void *values, int64_t width, void *ctx)
{
    const int *v = values;
    if (row % 60 != 0)   /* every 60th query */
        return 0;
    printf("query %3lld:", (long long)row);
    for (int64_t r = 0; r < width; r++)
        printf(" %5d", v[r]);
    printf("\n");
    return 0;
}

int main(int argc, char **argv)
{
    char data_csv[256], query_csv[256];
    const char *tmp = getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp";
    pa_matrix *data = NULL, *query = NULL, *hdata = NULL, *hquery = NULL, *cpu = NULL, *got = NULL;
    knn_search ks = {0};
    mx_precision want = mx_precision_from(argc, argv), used = MX_FP32;
    int gpu = pa_cuda_device_count() > 0, rc = 1;
    const char *mem = gpu ? "dmem" : "paged";

    snprintf(data_csv, sizeof data_csv, "%s/parray_knn_data_%d.csv", tmp, (int)getpid());
    snprintf(query_csv, sizeof query_csv, "%s/parray_knn_query_%d.csv", tmp, (int)getpid());
    if (write_csv(data_csv, N) || write_csv(query_csv, NQ)) {
        perror("writing the CSV files");
        return 1;
    }
    /* CSV -> matrices (on the GPU when there is one) */
    if (pa_matrix_from_csv(data_csv, PA_MATRIX_FLOAT, PA_MATRIX_CSV_HEADER, mem, &data) != PA_OK ||
        pa_matrix_from_csv(query_csv, PA_MATRIX_FLOAT, PA_MATRIX_CSV_HEADER, mem, &query) != PA_OK)
        goto fail;
    printf("data %lld x %lld, queries %lld x %lld (%s)\n", (long long)pa_matrix_nrows(data),
           (long long)pa_matrix_ncols(data), (long long)pa_matrix_nrows(query), (long long)pa_matrix_ncols(query),
           "float");
    /* the CPU's answer, from host copies */
    if (pa_matrix_copy_to(data, "paged", &hdata) != PA_OK || pa_matrix_copy_to(query, "paged", &hquery) != PA_OK)
        goto fail;
    cpu = knn_cpu(hdata, hquery, K);
    if (!cpu)
        goto fail;

    /* the PL/CUDA functions: fp32, and the TF32 path's top-k */
    if (knn_search_init(&ks, DIM, K, 16) != PA_OK)
        goto fail;
    if (gpu) {
        if (knn_search_run(&ks, data, query, want, &got, &used) != PA_OK)
            goto fail;
        int same = memcmp(got, cpu, pa_matrix_rawsize(PA_MATRIX_INT, NQ, K)) == 0;
        fprintf(stderr, "matrix_knn: precision %s\n", mx_precision_name(used));
        if (used == MX_FP32 && !same) {
            fprintf(stderr, "matrix_knn: the GPU's neighbours differ from the CPU's\n");
            goto fail;
        }
        if (used == MX_TF32) {
            knn_agreement a;
            int ok = knn_check_tolerance(hdata, hquery, cpu, got, &a);
            fprintf(stderr, "matrix_knn: tf32: recall %.4f of the CPU's neighbours (>= 0.99), worst excess over the "
                    "k-th distance %.2e of it, %ld outside the bound; identical to the CPU: %s\n", a.recall,
                    a.worst_excess, a.outside, same ? "yes" : "no");
            if (a.mismatched_q >= 0)
                fprintf(stderr, "matrix_knn: tf32: first query whose neighbours differ: %ld\n", a.mismatched_q);
            if (!ok) {
                if (a.outside)
                    fprintf(stderr, "matrix_knn: tf32: first neighbour outside the bound: query %ld rank %ld\n",
                            a.first_q, a.first_r);
                fprintf(stderr, "matrix_knn: the TF32 neighbours are outside the tolerance\n");
                goto fail;
            }
        }
        fprintf(stderr, "matrix_knn: ran on the GPU; %s\n",
                same ? "every index matches the CPU" : "within the TF32 tolerance of the CPU");
    } else {
        int st = pa_kernel_compile(ks.fp32, 90);
        if (st == PA_OK)
            st = pa_kernel_compile(ks.select, 90);
        fprintf(stderr, "matrix_knn: no GPU: the CPU's result (fp32%s); the functions compile for sm_90: %s\n",
                want == MX_TF32 ? ", TF32 allowed but no tensor cores here" : "",
                st == PA_OK ? "yes" : pa_last_error());
        if (st != PA_OK && st != PA_ERR_NODEV)
            goto fail;
        got = cpu;
        cpu = NULL;
    }
    printf("result: %lld x %lld matrix of int, nearest first\n", (long long)pa_matrix_nrows(got),
           (long long)pa_matrix_ncols(got));
    /* result -> rows */
    if (pa_matrix_unnest_rows(got, print_row, NULL) != PA_OK)
        goto fail;
    printf("checked: %d queries, %d nearest of %d points, against the CPU implementation\n", NQ, K, N);
    rc = 0;
fail:
    if (rc)
        fprintf(stderr, "matrix_knn: %s\n", pa_last_error());
    pa_matrix_destroy(cpu);
    pa_matrix_destroy(got);
    pa_matrix_destroy(data);
    pa_matrix_destroy(query);
    pa_matrix_destroy(hdata);
    pa_matrix_destroy(hquery);
    knn_search_free(&ks);
    unlink(data_csv);
    unlink(query_csv);
    return rc;
}
