/*
 * k-nearest-neighbour search as a PL/CUDA function over matrices (used by examples/matrix_knn.c and
 * bench/matrix.c): for every row of a query matrix (nq x d, float), the k rows of a data matrix (n x d, float)
 * nearest in squared Euclidean distance, as a matrix of int (nq x k, the data rows' indices, nearest first;
 * ties go to the lower index).
 *
 * The function's source is generated for one (d, k, chunks): the dimension and k become constants, so a
 * thread keeps its query and its best k in registers.
 *   main   blocks of 128 threads; block b takes 256 queries (2 per thread) and one of `chunks` ranges of the data
 *          rows; the data rows of its range pass through shared memory a tile of 128 at a time (a coalesced
 *          column-major load, read back as a broadcast, with each row's squared norm), each thread ranks the
 *          rows for its queries by |x|^2 - 2 q.x (|q - x|^2 less the query's own |q|^2: one FMA per coordinate
 *          and query) and keeps the k best by insertion; the partial lists go to the working buffer,
 *          [chunk][rank][query] (coalesced).  With integer coordinates every value is exact, so the ranking is
 *          the CPU's bit for bit; with other data it may differ where distances differ in the last bits.
 *   post   a thread per query merges its `chunks` lists into the result matrix in the results buffer.
 * knn_cpu is the same search on the CPU, the reference the example and the benchmark check against.
 */
#ifndef PARRAY_EXAMPLE_MATRIX_KNN_H
#define PARRAY_EXAMPLE_MATRIX_KNN_H

#include <stdio.h>
#include <stdlib.h>

#include <parray/parray.h>
#include <parray/kernel.h>

typedef struct knn_shape {
    int dim, topk, chunks;
} knn_shape;

static int64_t knn_main_threads(const pa_arg *args, int nargs, void *ret, void *ctx)
{
    const knn_shape *s = ctx;
    int64_t nq = pa_matrix_nrows(args[1].ptr);   /* any memory: the header is read where the matrix lives */
    return nq < 0 ? -1 : (int64_t)((nq + 255) / 256) * 128 * s->chunks;
}

static int64_t knn_post_threads(const pa_arg *args, int nargs, void *ret, void *ctx)
{
    return pa_matrix_nrows(args[1].ptr);
}

static int64_t knn_results(const pa_arg *args, int nargs, void *ret, void *ctx)
{
    const knn_shape *s = ctx;
    return (int64_t)pa_matrix_rawsize(PA_MATRIX_INT, pa_matrix_nrows(args[1].ptr), s->topk);
}

static int64_t knn_work(const pa_arg *args, int nargs, void *ret, void *ctx)
{
    const knn_shape *s = ctx;
    return (int64_t)s->chunks * s->topk * pa_matrix_nrows(args[1].ptr) * 8;
}

/* Both matrices float, of width dim, and at least k data rows. */
static int64_t knn_sane(const pa_arg *args, int nargs, void *ret, void *ctx)
{
    const knn_shape *s = ctx;
    pa_matrix d, q;
    if (pa_matrix_header(args[0].ptr, &d) != PA_OK || pa_matrix_header(args[1].ptr, &q) != PA_OK)
        return 0;
    return d.elm == PA_MATRIX_FLOAT && q.elm == PA_MATRIX_FLOAT && d.width == s->dim && q.width == s->dim &&
           d.height >= s->topk;
}

static const char knn_body[] =
    "#plcuda_include \"matrix\"\n"
    "#plcuda_results_bufsz knn_results\n"
    "#plcuda_working_bufsz knn_work\n"
    "#plcuda_sanity_check knn_sane\n"
    "#plcuda_decl\n"
    "#define TILE 128\n"
    "#define QPT 2\n"
    "typedef struct { float d; int i; } cand;\n"
    "static __device__ __forceinline__ bool better(float d, int i, float bd, int bi)\n"
    "{\n"
    "    return d < bd || (d == bd && i < bi);\n"
    "}\n"
    "/* Puts (d, i) into the sorted list bd/bi of TOPK when it is better than the last. */\n"
    "static __device__ __forceinline__ void insert(float *bd, int *bi, float d, int i)\n"
    "{\n"
    "#pragma unroll\n"
    "    for (int r = 0; r < TOPK; r++)\n"
    "        if (better(d, i, bd[r], bi[r])) {\n"
    "            float td = bd[r]; int ti = bi[r];\n"
    "            bd[r] = d; bi[r] = i; d = td; i = ti;\n"
    "        }\n"
    "}\n"
    "#plcuda_begin\n"
    "#plcuda_num_threads knn_main_threads\n"
    "#plcuda_kernel_blocksz 128\n"
    "    __shared__ float tile[DIM][TILE];\n"
    "    __shared__ float tnorm[TILE];\n"
    "    const int n = arg1->height, nq = arg2->height;\n"
    "    const float *X = (const float *)pa_matrix_values(arg1), *Q = (const float *)pa_matrix_values(arg2);\n"
    "    const int qblocks = (nq + 255) / 256, chunk = blockIdx.x / qblocks;\n"
    "    const int q0 = (blockIdx.x % qblocks) * 256 + threadIdx.x;\n"
    "    float qv[QPT][DIM], bd[QPT][TOPK];\n"
    "    int bi[QPT][TOPK];\n"
    "#pragma unroll\n"
    "    for (int u = 0; u < QPT; u++) {\n"
    "#pragma unroll\n"
    "        for (int j = 0; j < DIM; j++) qv[u][j] = q0 + 128 * u < nq ? Q[(long)j * nq + q0 + 128 * u] : 0.0f;\n"
    "#pragma unroll\n"
    "        for (int r = 0; r < TOPK; r++) { bd[u][r] = 3.4e38f; bi[u][r] = 0x7fffffff; }\n"
    "    }\n"
    "    const long per = ((long)n + CHUNKS - 1) / CHUNKS, lo = chunk * per;\n"
    "    const long hi = lo + per < n ? lo + per : n;\n"
    "    for (long t0 = lo; t0 < hi; t0 += TILE) {\n"
    "        const int cnt = hi - t0 < TILE ? (int)(hi - t0) : TILE;\n"
    "        __syncthreads();\n"
    "        for (int e = threadIdx.x; e < DIM * TILE; e += blockDim.x) {\n"
    "            int j = e / TILE, t = e % TILE;\n"
    "            tile[j][t] = t < cnt ? X[(long)j * n + t0 + t] : 0.0f;\n"
    "        }\n"
    "        __syncthreads();\n"
    "        for (int t = threadIdx.x; t < TILE; t += blockDim.x) {\n"
    "            float s = 0.0f;\n"
    "#pragma unroll\n"
    "            for (int j = 0; j < DIM; j++) s += tile[j][t] * tile[j][t];\n"
    "            tnorm[t] = s;\n"
    "        }\n"
    "        __syncthreads();\n"
    "        for (int t = 0; t < cnt; t++) {\n"
    "            /* |q - x|^2 - |q|^2 = |x|^2 - 2 q.x: the same order for each query, one FMA per coordinate */\n"
    "            float dot[QPT];\n"
    "#pragma unroll\n"
    "            for (int u = 0; u < QPT; u++) dot[u] = 0.0f;\n"
    "#pragma unroll\n"
    "            for (int j = 0; j < DIM; j++) {\n"
    "                float x = tile[j][t];\n"
    "#pragma unroll\n"
    "                for (int u = 0; u < QPT; u++) dot[u] = fmaf(qv[u][j], x, dot[u]);\n"
    "            }\n"
    "#pragma unroll\n"
    "            for (int u = 0; u < QPT; u++) {\n"
    "                float d = fmaf(-2.0f, dot[u], tnorm[t]);\n"
    "                if (d < bd[u][TOPK - 1]) insert(bd[u], bi[u], d, (int)(t0 + t));\n"
    "            }\n"
    "        }\n"
    "    }\n"
    "    cand *part = (cand *)workbuf;\n"
    "#pragma unroll\n"
    "    for (int u = 0; u < QPT; u++)\n"
    "        if (q0 + 128 * u < nq) {\n"
    "#pragma unroll\n"
    "            for (int r = 0; r < TOPK; r++) {\n"
    "                cand c = {bd[u][r], bi[u][r]};\n"
    "                part[((long)chunk * TOPK + r) * nq + q0 + 128 * u] = c;\n"
    "            }\n"
    "        }\n"
    "#plcuda_post\n"
    "#plcuda_num_threads knn_post_threads\n"
    "    const int nq = arg2->height;\n"
    "    const long q = get_global_id();\n"
    "    pa_matrix *res = (pa_matrix *)results;\n"
    "    if (q == 0) {\n"
    "        pa_matrix_init(res, PA_MATRIX_INT, nq, TOPK);\n"
    "        retval->value = res;\n"
    "    }\n"
    "    if (q < nq) {\n"
    "        const cand *part = (const cand *)workbuf;\n"
    "        float bd[TOPK];\n"
    "        int bi[TOPK];\n"
    "#pragma unroll\n"
    "        for (int r = 0; r < TOPK; r++) { bd[r] = 3.4e38f; bi[r] = 0x7fffffff; }\n"
    "        for (int c = 0; c < CHUNKS; c++)\n"
    "            for (int s = 0; s < TOPK; s++) {\n"
    "                cand x = part[((long)c * TOPK + s) * nq + q];\n"
    "                if (better(x.d, x.i, bd[TOPK - 1], bi[TOPK - 1])) insert(bd, bi, x.d, x.i);\n"
    "                else break;   /* each list is sorted: the rest of it is no better */\n"
    "            }\n"
    "        int *out = (int *)pa_matrix_values(res);\n"
    "#pragma unroll\n"
    "        for (int r = 0; r < TOPK; r++) out[(long)r * nq + q] = bi[r];\n"
    "    }\n"
    "#plcuda_end\n";

/*
 * Registers knn_<dim>_<topk>_<chunks> for the shape (which must outlive the function).
 * \return PA_OK and *out, or pa_kernel_create's error.
 */
static int knn_register(const knn_shape *s, pa_kernel **out)
{
    char name[64], *src = malloc(sizeof knn_body + 128);
    const pa_kernel_func funcs[] = {{"knn_main_threads", knn_main_threads, (void *)s},
                                    {"knn_post_threads", knn_post_threads, (void *)s},
                                    {"knn_results", knn_results, (void *)s},
                                    {"knn_work", knn_work, (void *)s},
                                    {"knn_sane", knn_sane, (void *)s}};
    if (!src)
        return PA_ERR_NOMEM;
    /* The constants go first, as #define lines of the decl block's header. */
    snprintf(src, sizeof knn_body + 128, "%s", knn_body);
    char *decl = strstr(src, "#plcuda_decl\n") + strlen("#plcuda_decl\n");
    char defs[128];
    int n = snprintf(defs, sizeof defs, "#define DIM %d\n#define TOPK %d\n#define CHUNKS %d\n", s->dim, s->topk,
                     s->chunks);
    memmove(decl + n, decl, strlen(decl) + 1);
    memcpy(decl, defs, (size_t)n);
    snprintf(name, sizeof name, "knn_%d_%d_%d", s->dim, s->topk, s->chunks);
    int st = pa_kernel_create(name, "matrix int (matrix float, matrix float)", src, funcs, 5, out);
    free(src);
    return st;
}

/* The same search on the CPU for host matrices: nq x k indices, ties to the lower index. */
/* Inserts (d, i) into a list of the k best (bd ascending, ties to the lower index), dropping the last. */
static inline void knn_list_insert(float *bd, int *bi, int k, float d, int i)
{
    for (int r = 0; r < k; r++)
        if (d < bd[r] || (d == bd[r] && i < bi[r])) {
            float td = bd[r];
            int ti = bi[r];
            bd[r] = d;
            bi[r] = i;
            d = td;
            i = ti;
        }
}

static pa_matrix *knn_cpu(const pa_matrix *data, const pa_matrix *query, int k)
{
    int n = data->height, nq = query->height, d = data->width;
    const float *X = (const float *)((const char *)data + 16), *Q = (const float *)((const char *)query + 16);
    pa_matrix *res = NULL;
    if (pa_matrix_create_in(NULL, PA_MATRIX_INT, nq, k, &res) != PA_OK)
        return NULL;
    float *bd = malloc(sizeof(float) * (size_t)k);
    int *bi = malloc(sizeof(int) * (size_t)k), *out = pa_matrix_data(res);
    for (int q = 0; q < nq; q++) {
        for (int r = 0; r < k; r++) {
            bd[r] = 3.4e38f;
            bi[r] = 0x7fffffff;
        }
        for (int i = 0; i < n; i++) {
            float dist = 0.0f;
            for (int j = 0; j < d; j++) {
                float x = Q[(long)j * nq + q] - X[(long)j * n + i];
                dist += x * x;
            }
            knn_list_insert(bd, bi, k, dist, i);
        }
        for (int r = 0; r < k; r++)
            out[(long)r * nq + q] = bi[r];
    }
    free(bd);
    free(bi);
    return res;
}

#endif
