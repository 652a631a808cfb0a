/*
 * The PL/CUDA chapter's use of matrices, end to end: k-means clustering.
 *
 * A CSV file of 60000 points with 8 integer coordinates around 5 centres (made here from a fixed seed, with a
 * header) is read into a matrix (in dmem when there is a GPU, where it stays for every iteration); the initial
 * centroids are its first 5 rows (an rbind of 1-row matrices built with pa_matrix_rows).  Each of 12 Lloyd
 * iterations is a call of the PL/CUDA function of matrix_kmeans.h, whose result matrix (centroids and cluster
 * sizes) is the next call's argument and is checked against the same step on the CPU (bit for bit).  The
 * final result comes back as rows through pa_matrix_unnest_rows.  Without a GPU the CPU's steps are printed (the
 * output is the same) and the function is still compiled for sm_90 when NVRTC is present.
 *
 * With --tf32 (or PA_ALLOW_TF32=1) the caller allows TF32: each step is matrix_kmeans_tc.h's, whose scores come
 * from the tensor cores; the program says so on stderr and checks every iteration against the CPU's step from
 * the same centroids by that header's tolerance (cluster sizes within 0.1% of the points, centroids within 1e-3
 * of the coordinates' range), printing the worst difference seen.
 */
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "matrix_kmeans_tc.h"
#include <parray/cuda.h>
#include <parray/kernel.h>

enum { N = 60000, DIM = 8, K = 5, ITERATIONS = 12 };

static uint64_t rng = 0x2545F4914F6CDD1DULL;

static int next(int mod)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return (int)(rng % (uint64_t)mod);
}

static int write_csv(const char *path)
{
    FILE *f = fopen(path, "w");
    if (!f)
        return -1;
    for (int j = 0; j < DIM; j++)
        fprintf(f, "%sc%d", j ? "," : "", j);
    fputc('\n', f);
    for (int i = 0; i < N; i++) {
        int blob = next(K);
        for (int j = 0; j < DIM; j++)
            fprintf(f, "%d%c", blob * 100 + (j % 3) * 40 * blob - 300 + next(81) - 40, j == DIM - 1 ? '\n' : ',');
    }
    return fclose(f);
}

static int print_centroid(int64_t row, const void *values, int64_t width, void *ctx)
{
    const double *v = values;
    printf("cluster %lld (%6.0f points):", (long long)row, v[width - 1]);
    for (int64_t j = 0; j < width - 1; j++)
        printf(" %9.3f", v[j]);
    printf("\n");
    return 0;
}

/* The first K rows of the host data matrix, as doubles, through the row builder and rbind's aggregate. */
static int initial_centroids(const pa_matrix *hdata, pa_matrix **out)
{
    pa_matrix *rows[K] = {NULL};
    double row[DIM];
    int st = PA_OK;
    for (int c = 0; c < K && st == PA_OK; c++) {
        pa_matrix_rows *r;
        if ((st = pa_matrix_rows_create(PA_MATRIX_DOUBLE, DIM, &r)) != PA_OK)
            break;
        for (int j = 0; j < DIM; j++)
            row[j] = ((const float *)((const char *)hdata + 16))[(long)j * hdata->height + c];
        if ((st = pa_matrix_rows_add(r, row)) == PA_OK)
            st = pa_matrix_rows_finish(r, NULL, &rows[c]);
        pa_matrix_rows_destroy(r);
    }
    if (st == PA_OK)
        st = pa_matrix_rbind_n((const pa_matrix *const *)rows, K, out);
    for (int c = 0; c < K; c++)
        pa_matrix_destroy(rows[c]);
    return st;
}

int main(int argc, char **argv)
{
    char csv[256];
    const char *tmp = getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp";
    pa_matrix *data = NULL, *hdata = NULL, *cent = NULL, *cpu = NULL, *gpu_res = NULL;
    pa_kernel *k = NULL;
    kmeans_tc tc = {0};
    int gpu = pa_cuda_device_count() > 0, rc = 1;
    mx_precision want = mx_precision_from(argc, argv);
    kmeans_agreement worst = {0, 0};

    snprintf(csv, sizeof csv, "%s/parray_kmeans_%d.csv", tmp, (int)getpid());
    if (write_csv(csv)) {
        perror("writing the CSV file");
        return 1;
    }
    if (pa_matrix_from_csv(csv, PA_MATRIX_FLOAT, PA_MATRIX_CSV_HEADER, gpu ? "dmem" : "paged", &data) != PA_OK ||
        pa_matrix_copy_to(data, "paged", &hdata) != PA_OK || initial_centroids(hdata, &cent) != PA_OK ||
        kmeans_register(&k) != PA_OK || kmeans_tc_init(&tc) != PA_OK)
        goto fail;
    double lo = 0, hi = 0, range;   /* the data's coordinate range, for the TF32 tolerance */
    for (int64_t e = 0; e < (int64_t)N * DIM; e++) {
        double v = ((const float *)pa_matrix_data(hdata))[e];
        lo = e == 0 || v < lo ? v : lo;
        hi = e == 0 || v > hi ? v : hi;
    }
    range = hi - lo;
    printf("data %lld x %lld, %d clusters, %d iterations\n", (long long)pa_matrix_nrows(data),
           (long long)pa_matrix_ncols(data), K, ITERATIONS);
    if (!gpu) {
        int st = pa_kernel_compile(k, 90);
        if (st == PA_OK)
            st = pa_kernel_compile(tc.k, 90);
        fprintf(stderr, "matrix_kmeans: no GPU: the CPU's steps (fp64%s); the functions compile for sm_90: %s\n",
                want == MX_TF32 ? ", TF32 allowed but no tensor cores here" : "", st == PA_OK ? "yes" : pa_last_error());
        if (st != PA_OK && st != PA_ERR_NODEV)
            goto fail;
    }
    for (int it = 0; it < ITERATIONS; it++) {
        cpu = kmeans_cpu(hdata, cent);
        if (gpu) {
            pa_arg args[] = {PA_ARG(data), PA_ARG(cent)};
            if (want == MX_TF32) {
                kmeans_agreement a;
                if (kmeans_tc_step(&tc, data, cent, &gpu_res) != PA_OK)
                    goto fail;
                int ok = kmeans_check_tolerance(cpu, gpu_res, N, range, &a);
                worst.moved = a.moved > worst.moved ? a.moved : worst.moved;
                worst.worst = a.worst > worst.worst || a.worst != a.worst ? a.worst : worst.worst;
                if (!ok) {
                    fprintf(stderr, "matrix_kmeans: iteration %d: the TF32 step is outside the tolerance: %.1f points "
                            "moved (at most %.1f), centroids %.3g apart (at most %.3g)\n", it, a.moved, 0.001 * N,
                            a.worst, 1e-3 * range);
                    goto fail;
                }
            } else if (pa_kernel_call(k, args, 2, &gpu_res) != PA_OK)
                goto fail;
            else if (memcmp(gpu_res, cpu, pa_matrix_rawsize(PA_MATRIX_DOUBLE, K, DIM + 1)) != 0) {
                fprintf(stderr, "matrix_kmeans: iteration %d: the GPU's centroids differ from the CPU's\n", it);
                goto fail;
            }
            pa_matrix_destroy(cpu);
            cpu = gpu_res;
            gpu_res = NULL;
        }
        pa_matrix_destroy(cent);
        cent = cpu;
        cpu = NULL;
    }
    if (gpu && want == MX_TF32)
        fprintf(stderr, "matrix_kmeans: precision %s; every iteration within the tolerance of the CPU's: at "
                "most %.1f points moved, centroids at most %.3g apart (%s)\n", mx_precision_name(MX_TF32),
                worst.moved, worst.worst, worst.moved == 0 && worst.worst == 0 ? "bit for bit" : "not bit for bit");
    else if (gpu)
        fprintf(stderr, "matrix_kmeans: precision fp64; ran on the GPU; every iteration matches the CPU\n");
    printf("result: %lld x %lld matrix of double (centroid, size)\n", (long long)pa_matrix_nrows(cent),
           (long long)pa_matrix_ncols(cent));
    if (pa_matrix_unnest_rows(cent, print_centroid, NULL) != PA_OK)
        goto fail;
    printf("checked: every iteration against the CPU implementation\n");
    rc = 0;
fail:
    if (rc)
        fprintf(stderr, "matrix_kmeans: %s\n", pa_last_error());
    pa_matrix_destroy(data);
    pa_matrix_destroy(hdata);
    pa_matrix_destroy(cent);
    pa_matrix_destroy(cpu);
    pa_matrix_destroy(gpu_res);
    pa_kernel_destroy(k);
    kmeans_tc_free(&tc);
    unlink(csv);
    return rc;
}
