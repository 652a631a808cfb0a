/*
 * k-means clustering as a PL/CUDA function over matrices (examples/matrix_kmeans.c): one Lloyd iteration per
 * call.  kmeans_step(data, centroids) takes the points (n x d, float) and the current centroids (k x d or
 * k x (d + 1), double: a previous result, whose last column is ignored) and returns the next centroids as a
 * k x (d + 1) matrix of double whose last column is each cluster's size.  The data matrix can stay in dmem
 * between calls (the function reads it where it is); the centroids are small and move each time.
 *
 *   prep   clears the per-cluster sums and counts in the working buffer
 *   main   a thread per point: the nearest centroid (squared distance in double, ties to the lower index),
 *          and the point's coordinates added to that cluster's integer sums with 64-bit atomics
 *   post   a thread per (cluster, column): mean = sum / count (the old centroid for an empty cluster)
 *
 * The coordinates are integers, so the sums are exact and independent of the atomics' order, and distances
 * are computed with __dmul_rn / __dadd_rn (never fused into an FMA): kmeans_cpu, the same step on the CPU in
 * the same order, gives bit-identical centroids, which the example checks after every iteration.
 */
#ifndef PARRAY_EXAMPLE_MATRIX_KMEANS_H
#define PARRAY_EXAMPLE_MATRIX_KMEANS_H

#include <stdlib.h>
#include <string.h>

#include <parray/parray.h>
#include <parray/kernel.h>

static int64_t km_points(const pa_arg *args, int nargs, void *ret, void *ctx)
{
    return pa_matrix_nrows(args[0].ptr);
}

static int64_t km_cells(const pa_arg *args, int nargs, void *ret, void *ctx)
{
    return (int64_t)pa_matrix_nrows(args[1].ptr) * (pa_matrix_ncols(args[0].ptr) + 1);
}

static int64_t km_results(const pa_arg *args, int nargs, void *ret, void *ctx)
{
    return (int64_t)pa_matrix_rawsize(PA_MATRIX_DOUBLE, pa_matrix_nrows(args[1].ptr), pa_matrix_ncols(args[0].ptr) + 1);
}

static int64_t km_work(const pa_arg *args, int nargs, void *ret, void *ctx)
{
    return (int64_t)pa_matrix_nrows(args[1].ptr) * (pa_matrix_ncols(args[0].ptr) + 1) * 8;
}

static int64_t km_sane(const pa_arg *args, int nargs, void *ret, void *ctx)
{
    pa_matrix d, c;
    if (pa_matrix_header(args[0].ptr, &d) != PA_OK || pa_matrix_header(args[1].ptr, &c) != PA_OK)
        return 0;
    return c.height > 0 && (c.width == d.width || c.width == d.width + 1);
}

/* The source in three parts: the directives and prep, the main kernel up to each point's nearest centroid
 * (best), and the rest (matrix_kmeans_tc.h has another way to the nearest centroid). */
#define KMEANS_HEAD \
    "#plcuda_include \"matrix\"\n" \
    "#plcuda_results_bufsz km_results\n" \
    "#plcuda_working_bufsz km_work\n" \
    "#plcuda_sanity_check km_sane\n" \
    "#plcuda_prep\n" \
    "#plcuda_num_threads km_cells\n" \
    "    long id = get_global_id();\n" \
    "    if (id < (long)arg2->height * (arg1->width + 1))\n" \
    "        ((long long *)workbuf)[id] = 0;\n"
#define KMEANS_ASSIGN_FP64 \
    "#plcuda_begin\n" \
    "#plcuda_num_threads km_points\n" \
    "    const int n = arg1->height, d = arg1->width, k = arg2->height;\n" \
    "    const long i = get_global_id();\n" \
    "    if (i < n) {\n" \
    "        const float *X = (const float *)pa_matrix_values(arg1);\n" \
    "        const double *C = (const double *)pa_matrix_values(arg2);\n" \
    "        int best = 0;\n" \
    "        double bestd = 0;\n" \
    "        for (int c = 0; c < k; c++) {\n" \
    "            double dist = 0;\n" \
    "            for (int j = 0; j < d; j++) {\n" \
    "                double x = __dadd_rn((double)X[(long)j * n + i], -C[(long)j * k + c]);\n" \
    "                dist = __dadd_rn(dist, __dmul_rn(x, x));\n" \
    "            }\n" \
    "            if (c == 0 || dist < bestd) { best = c; bestd = dist; }\n" \
    "        }\n"
#define KMEANS_TAIL \
    "        unsigned long long *sum = (unsigned long long *)workbuf;\n" \
    "        for (int j = 0; j < d; j++)\n" \
    "            atomicAdd(sum + (long)j * k + best, (unsigned long long)(long long)X[(long)j * n + i]);\n" \
    "        atomicAdd(sum + (long)d * k + best, 1ULL);\n" \
    "    }\n" \
    "#plcuda_post\n" \
    "#plcuda_num_threads km_cells\n" \
    "    const int d = arg1->width, k = arg2->height;\n" \
    "    const long id = get_global_id();\n" \
    "    pa_matrix *res = (pa_matrix *)results;\n" \
    "    if (id == 0) {\n" \
    "        pa_matrix_init(res, PA_MATRIX_DOUBLE, k, d + 1);\n" \
    "        retval->value = res;\n" \
    "    }\n" \
    "    if (id < (long)k * (d + 1)) {\n" \
    "        const long long *sum = (const long long *)workbuf;\n" \
    "        const double *C = (const double *)pa_matrix_values(arg2);\n" \
    "        long c = id % k, j = id / k;\n" \
    "        long long count = sum[(long)d * k + c];\n" \
    "        double v = j == d ? (double)count : count ? (double)sum[id] / (double)count : C[id];\n" \
    "        ((double *)pa_matrix_values(res))[id] = v;\n" \
    "    }\n" \
    "#plcuda_end\n"

static const char kmeans_source[] = KMEANS_HEAD KMEANS_ASSIGN_FP64 KMEANS_TAIL;

static inline int kmeans_register(pa_kernel **out)
{
    static const pa_kernel_func funcs[] = {{"km_points", km_points, NULL},   {"km_cells", km_cells, NULL},
                                           {"km_results", km_results, NULL}, {"km_work", km_work, NULL},
                                           {"km_sane", km_sane, NULL}};
    return pa_kernel_create("kmeans_step", "matrix double (matrix float, matrix double)", kmeans_source, funcs, 5,
                            out);
}

/* The same step on the CPU, for host matrices (the build does not contract a * b + c into an FMA). */
static inline pa_matrix *kmeans_cpu(const pa_matrix *data, const pa_matrix *cent)
{
    int n = data->height, d = data->width, k = cent->height;
    const float *X = (const float *)((const char *)data + 16);
    const double *C = (const double *)((const char *)cent + 16);
    pa_matrix *res = NULL;
    if (pa_matrix_create_in(NULL, PA_MATRIX_DOUBLE, k, d + 1, &res) != PA_OK)
        return NULL;
    long long *sum = calloc((size_t)k * (size_t)(d + 1), sizeof *sum);
    double *out = pa_matrix_data(res);
    for (int i = 0; i < n; i++) {
        int best = 0;
        double bestd = 0;
        for (int c = 0; c < k; c++) {
            double dist = 0;
            for (int j = 0; j < d; j++) {
                double x = (double)X[(long)j * n + i] - C[(long)j * k + c];
                double sq = x * x;
                dist = dist + sq;
            }
            if (c == 0 || dist < bestd) {
                best = c;
                bestd = dist;
            }
        }
        for (int j = 0; j < d; j++)
            sum[(long)j * k + best] += (long long)X[(long)j * n + i];
        sum[(long)d * k + best]++;
    }
    for (long id = 0; id < (long)k * (d + 1); id++) {
        long c = id % k, j = id / k;
        long long count = sum[(long)d * k + c];
        out[id] = j == d ? (double)count : count ? (double)sum[id] / (double)count : C[id];
    }
    free(sum);
    return res;
}

#endif
