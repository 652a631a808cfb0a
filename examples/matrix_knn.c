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
 */
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "matrix_knn.h"
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

int main(void)
{
    char data_csv[256], query_csv[256];
    const char *tmp = getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp";
    pa_matrix *data = NULL, *query = NULL, *hdata = NULL, *hquery = NULL, *want = NULL, *got = NULL;
    pa_kernel *k = NULL;
    knn_shape shape = {DIM, K, 16};
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
    want = knn_cpu(hdata, hquery, K);

    /* the PL/CUDA function */
    if (knn_register(&shape, &k) != PA_OK)
        goto fail;
    if (gpu) {
        pa_arg args[] = {PA_ARG(data), PA_ARG(query)};
        if (pa_kernel_call(k, args, 2, &got) != PA_OK)
            goto fail;
        if (memcmp(got, want, pa_matrix_rawsize(PA_MATRIX_INT, NQ, K)) != 0) {
            fprintf(stderr, "matrix_knn: the GPU's neighbours differ from the CPU's\n");
            goto fail;
        }
        fprintf(stderr, "matrix_knn: ran on the GPU; every index matches the CPU\n");
    } else {
        int st = pa_kernel_compile(k, 90);
        fprintf(stderr, "matrix_knn: no GPU: the CPU's result; the function compiles for sm_90: %s\n",
                st == PA_OK ? "yes" : pa_last_error());
        if (st != PA_OK && st != PA_ERR_NODEV)
            goto fail;
        got = want;
        want = NULL;
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
    pa_matrix_destroy(want);
    pa_matrix_destroy(got);
    pa_matrix_destroy(data);
    pa_matrix_destroy(query);
    pa_matrix_destroy(hdata);
    pa_matrix_destroy(hquery);
    pa_kernel_destroy(k);
    unlink(data_csv);
    unlink(query_csv);
    return rc;
}
