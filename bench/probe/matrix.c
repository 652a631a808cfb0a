/*
 * bench/matrix — the matrix module on the GPU (target P11) and CSV reading.
 *
 *   transpose, rbind, cbind (and rbind with zero padding) of dmem matrices into an existing result, against a
 *   cudaMemcpy device-to-device of as many bytes into the result (target >= 0.85 of its speed); beside the
 *   transposes, shown without a target: the permute kernel's tiles in plain row order (its order before the bands
 *   of tile rows, pa_cuda__permute_set_band(1)) and, for the 16384^2 float one, other bands and grids of fewer
 *   blocks per SM (pa_cuda__permute_set_grid), the same bytes by one pa_copy between plain types (no matrix
 *   layer: headers, views), and an 8192^2 matrix (P1's size); beside rbind, shown: the permute's direct kernel
 *   with its runs from their first word (pa_cuda__permute_set_unaligned_runs, before the aligned runs) and the
 *   same windows by one cudaMemcpy2D per input without the matrix layer;
 *   CSV -> matrix for 10 million rows, against read(2) of the same file from the page cache (shown, no target);
 *   the k-NN PL/CUDA function of examples/matrix_knn.h (data and queries in dmem, the index matrix back on the
 *   host), against the cuBLAS formulation: SGEMM for -2 X Q^T, a top-k kernel per query (matrix_topk.cu), the
 *   indices copied back (target >= 0.70).  Both find the same neighbours (integer data: exact), checked.
 *   The same search with TF32 allowed (examples/matrix_knn_tc.h: pa_gemm_dmem_async with PA_GEMM_TF32 for the
 *   scores, the knn_select PL/CUDA function for the top k, which also computes the norms), against cuBLAS in
 *   CUBLAS_TF32_TENSOR_OP_MATH + the same top-k kernel (target >= 0.70), on coordinates with full mantissas in
 *   [-50, 50) (integers would be exact in TF32); its neighbours against the fp32 PL/CUDA function's on the same
 *   data: recall >= 0.99, else the row fails.
 *
 * Each figure is the median of many wall-clock runs after a warm-up, every run synchronised; the table ends with
 * pass/fail per target.  PA_BENCH_QUICK=1 shrinks every size (a smoke test).  cuBLAS is linked here only.
 */
#include <cublas_v2.h>
#include <fcntl.h>
#include <stdint.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "cuda_internal.h"
#include "gpu_bench.h"
#include <parray/kernel.h>
#include "../../examples/matrix_knn_tc.h"

int bench_topk_launch(const float *G, const float *xn, int n, int nq, int *out);
int bench_norms_launch(const float *X, int n, int d, float *xn);

#define REPEATS 21

typedef struct row {
    char what[48], size[32];
    double ours, anchor, target;   /* seconds; target 0: none */
} row;

static row rows[32];
static int nrows;

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

typedef void (*op_fn)(void *ctx);

static double median_time(op_fn fn, void *ctx, int repeats)
{
    double t[64];
    fn(ctx);   /* warm-up */
    for (int r = 0; r < repeats; r++) {
        double t0 = now();
        fn(ctx);
        t[r] = now() - t0;
    }
    qsort(t, (size_t)repeats, sizeof *t, cmp_double);
    return t[repeats / 2];
}

static void add_row(const char *what, const char *size, double ours, double anchor, double target)
{
    row *r = &rows[nrows++];
    snprintf(r->what, sizeof r->what, "%s", what);
    snprintf(r->size, sizeof r->size, "%s", size);
    r->ours = ours;
    r->anchor = anchor;
    r->target = target;
    printf("  %-28s %-18s ours %9.3f ms  anchor %9.3f ms  ratio %.3f\n", what, size, ours * 1e3, anchor * 1e3,
           anchor / ours);
    fflush(stdout);
}

/* ---- copies ------------------------------------------------------------------------------------------- */

static void *scratch;   /* the anchors' source: 1 GiB of device memory */

typedef struct copy_case {
    const pa_matrix *in[2];
    int nin, kind;   /* 0 transpose, 1 rbind, 2 cbind, 3 pa_copy between the plain types dt <- st, 4 rbind's
                        windows by cudaMemcpy2D */
    pa_matrix *out;
    size_t bytes;
    const pa_type *dt, *st;
    void *scratch;   /* device memory of at least bytes: the anchor's source */
    void *dptr, *sptr;   /* kind 3: the arrays of dt and st */
    int64_t h[2], w[2], oh;   /* kind 4: the inputs' and the result's heights, the inputs' widths (float) */
} copy_case;

/* A case of kind over inputs a (and b, when not NULL) into out, of bytes. */
static copy_case copies(int kind, const pa_matrix *a, const pa_matrix *b, pa_matrix *out, size_t bytes)
{
    return (copy_case){.in = {a, b}, .nin = b ? 2 : 1, .kind = kind, .out = out, .bytes = bytes, .scratch = scratch};
}

/* rbind without the matrix layer: each input's columns into its window of the result by one cudaMemcpy2D. */
static void rbind_2d(const copy_case *c)
{
    char *dst = (char *)pa_matrix_data(c->out);
    for (int k = 0, at = 0; k < c->nin; at += (int)c->h[k], k++) {
        const void *src = pa_matrix_data((pa_matrix *)c->in[k]);   /* only read */
        CK(cudaMemcpy2D(dst + (size_t)at * 4, (size_t)c->oh * 4, src, (size_t)c->h[k] * 4, (size_t)c->h[k] * 4,
                        (size_t)c->w[k], cudaMemcpyDeviceToDevice));
    }
    CK(cudaDeviceSynchronize());
}

static void run_ours(void *p)
{
    copy_case *c = p;
    if (c->kind == 0)
        PK(pa_matrix_store_transpose(c->out, c->in[0]));
    else if (c->kind == 3)
        PK(pa_copy(c->dt, c->dptr, c->st, c->sptr));
    else if (c->kind == 1)
        PK(pa_matrix_store_rbind(c->out, c->in, c->nin));
    else if (c->kind == 4)
        rbind_2d(c);
    else
        PK(pa_matrix_store_cbind(c->out, c->in, c->nin));
}

static void run_memcpy(void *p)
{
    copy_case *c = p;
    CK(cudaMemcpy(pa_matrix_data(c->out), c->scratch, c->bytes, cudaMemcpyDeviceToDevice));
    CK(cudaDeviceSynchronize());
}

/* A dmem matrix of random nonzero floats. */
static pa_matrix *random_dmem(int elm, int64_t h, int64_t w, unsigned seed)
{
    pa_matrix *m = NULL, *d = NULL;
    if (pa_matrix_create_in(NULL, elm, h, w, &m) != PA_OK) {
        fprintf(stderr, "%s\n", pa_last_error());
        exit(1);
    }
    size_t n = (size_t)(h * w), esz = pa_matrix_elm_size(elm);
    unsigned char *p = pa_matrix_data(m);
    uint32_t s = seed * 2654435761u + 1;
    for (size_t i = 0; i < n; i++) {
        s = s * 1664525u + 1013904223u;
        float v = (float)(s >> 8) + 1.0f;
        if (esz == 4)
            ((float *)p)[i] = v;
        else
            ((double *)p)[i] = v;
    }
    PK(pa_matrix_copy_to(m, "dmem", &d));
    pa_matrix_destroy(m);
    return d;
}


/* The transpose of a (h x w, into t) as a target row, then shown: the permute's tiles in plain row order; with
 * variants, other bands of tile rows and grids of fewer blocks per SM (the permute's settings, for choosing its
 * defaults); with plain, one pa_copy between plain types over the same bytes. */
static void transpose_rows(pa_matrix *a, pa_matrix *t, int64_t h, int64_t w, size_t esz, const char *size,
                           double target, int variants, int plain)
{
    copy_case c = copies(0, a, NULL, t, (size_t)(h * w) * esz);
    add_row("transpose", size, median_time(run_ours, &c, REPEATS), median_time(run_memcpy, &c, REPEATS), target);
    static const struct { int band, grid, unshifted; const char *what; } var[] = {
        {1, 0, 1, "  row order, from element 0"},   /* the kernel before the bands and the shifts */
        {0, 0, 1, "  tiles from element 0"},       {1, 0, 0, "  tiles in row order"},
        {32, 0, 0, "  bands of 32"},               {64, 0, 0, "  bands of 64"},
        {0, 2, 0, "  2 blocks per SM"},
    };
    for (size_t v = 0; v < (variants ? sizeof var / sizeof *var : 1); v++) {
        int ob = pa_cuda__permute_set_band(var[v].band), og = pa_cuda__permute_set_grid(var[v].grid);
        int ou = pa_cuda__permute_set_unshifted(var[v].unshifted);
        add_row(var[v].what, size, median_time(run_ours, &c, REPEATS), median_time(run_memcpy, &c, REPEATS), 0);
        pa_cuda__permute_set_band(ob);
        pa_cuda__permute_set_grid(og);
        pa_cuda__permute_set_unshifted(ou);
    }
    if (!plain)
        return;
    pa_scope *s;
    char d[160];
    PK(pa_scope_create(NULL, &s));
    snprintf(d, sizeof d, "parray dmem %s [%lld][%lld] F; parray dmem %s [[#F_1][#F_0]] T;",
             esz == 4 ? "float" : "double", (long long)w, (long long)h, esz == 4 ? "float" : "double");
    PK(pa_declare_text(s, d));   /* a's elements, column-major h x w, are the row-major [w][h] F */
    c.kind = 3;
    c.dt = pa_type_get(s, "T");
    c.st = pa_type_get(s, "F");
    c.dptr = pa_matrix_data(t);
    c.sptr = pa_matrix_data(a);
    char how[512];
    if (pa_copy_explain(c.dt, c.st, how, sizeof how) >= 0)
        printf("    %s\n", how);
    add_row("  pa_copy of plain types", size, median_time(run_ours, &c, REPEATS), median_time(run_memcpy, &c,
            REPEATS), 0);
    /* the same plain types on 256-byte aligned buffers (cudaMalloc'd: no 16-byte header before the elements) */
    void *aligned = NULL;
    CK(cudaMalloc(&aligned, c.bytes));
    copy_case al = c;
    al.dptr = aligned;
    al.sptr = scratch;
    add_row("  the same, 256-B aligned", size, median_time(run_ours, &al, REPEATS), median_time(run_memcpy, &al,
            REPEATS), 0);
    CK(cudaFree(aligned));
    pa_scope_destroy(s);
}

static void copy_rows(int quick)
{
    int64_t n = quick ? 2048 : 16384;   /* float results of n x n: 1 GiB */
    char size[32];
    snprintf(size, sizeof size, "%lldx%lld f32", (long long)n, (long long)n);
    CK(cudaMalloc(&scratch, (size_t)(n * n) * 4));
    CK(cudaMemset(scratch, 0x3f, (size_t)(n * n) * 4));
    pa_matrix *a = random_dmem(PA_MATRIX_FLOAT, n, n, 1), *t = NULL;
    PK(pa_matrix_create_in("dmem", PA_MATRIX_FLOAT, n, n, &t));
    transpose_rows(a, t, n, n, 4, size, 0.85, 1, 1);
    copy_case c;
    pa_matrix_destroy(a);

    pa_matrix *top = random_dmem(PA_MATRIX_FLOAT, n / 2, n, 2), *bot = random_dmem(PA_MATRIX_FLOAT, n / 2, n, 3);
    c = copies(1, top, bot, t, (size_t)(n * n) * 4);
    add_row("rbind 2 x (n/2 x n)", size, median_time(run_ours, &c, REPEATS), median_time(run_memcpy, &c, REPEATS),
            0.85);
    /* shown: the direct kernel's runs from their first word (before the aligned runs), and the same windows by
     * cudaMemcpy2D without the matrix layer */
    int old = pa_cuda__permute_set_unaligned_runs(1);
    add_row("  unaligned runs (before)", size, median_time(run_ours, &c, REPEATS), median_time(run_memcpy, &c,
            REPEATS), 0);
    pa_cuda__permute_set_unaligned_runs(old);
    c.kind = 4;
    c.h[0] = c.h[1] = n / 2;
    c.w[0] = c.w[1] = c.oh = n;
    add_row("  cudaMemcpy2D, same windows", size, median_time(run_ours, &c, REPEATS), median_time(run_memcpy, &c,
            REPEATS), 0);
    pa_matrix_destroy(top);
    pa_matrix_destroy(bot);

    pa_matrix *l = random_dmem(PA_MATRIX_FLOAT, n, n / 2, 4), *r = random_dmem(PA_MATRIX_FLOAT, n, n / 2, 5);
    c = copies(2, l, r, t, (size_t)(n * n) * 4);
    add_row("cbind 2 x (n x n/2)", size, median_time(run_ours, &c, REPEATS), median_time(run_memcpy, &c, REPEATS),
            0.85);
    pa_matrix_destroy(l);
    pa_matrix_destroy(r);

    /* rbind where the lower matrix is narrower: a quarter of its rows' columns are zero padding */
    top = random_dmem(PA_MATRIX_FLOAT, n / 2, n, 6);
    bot = random_dmem(PA_MATRIX_FLOAT, n / 2, n * 3 / 4, 7);
    c = copies(1, top, bot, t, (size_t)(n * n) * 4);
    add_row("rbind, zero padding", size, median_time(run_ours, &c, REPEATS), median_time(run_memcpy, &c, REPEATS),
            0.85);
    pa_matrix_destroy(top);
    pa_matrix_destroy(bot);
    pa_matrix_destroy(t);

    /* double, not square: 8192 x 16384 -> 16384 x 8192 */
    snprintf(size, sizeof size, "%lldx%lld f64", (long long)n / 2, (long long)n);
    a = random_dmem(PA_MATRIX_DOUBLE, n / 2, n, 8);
    PK(pa_matrix_create_in("dmem", PA_MATRIX_DOUBLE, n, n / 2, &t));
    transpose_rows(a, t, n / 2, n, 8, size, 0.85, 1, 1);
    pa_matrix_destroy(a);
    pa_matrix_destroy(t);

    /* P1's size, shown: 256 MiB of float */
    n /= 2;
    snprintf(size, sizeof size, "%lldx%lld f32", (long long)n, (long long)n);
    a = random_dmem(PA_MATRIX_FLOAT, n, n, 9);
    PK(pa_matrix_create_in("dmem", PA_MATRIX_FLOAT, n, n, &t));
    transpose_rows(a, t, n, n, 4, size, 0, 0, 0);
    pa_matrix_destroy(a);
    pa_matrix_destroy(t);
    CK(cudaFree(scratch));
}

/* ---- CSV ---------------------------------------------------------------------------------------------- */

typedef struct csv_case {
    const char *path;
    char *buf;
    size_t bytes;
} csv_case;

static void run_read(void *p)
{
    csv_case *c = p;
    int fd = open(c->path, O_RDONLY);
    size_t got = 0;
    while (got < c->bytes) {
        ssize_t n = read(fd, c->buf + got, c->bytes - got);
        if (n <= 0)
            break;
        got += (size_t)n;
    }
    close(fd);
}

static void run_csv(void *p)
{
    csv_case *c = p;
    pa_matrix *m = NULL;
    PK(pa_matrix_from_csv(c->path, PA_MATRIX_FLOAT, PA_MATRIX_CSV_HEADER, "paged", &m));
    pa_matrix_destroy(m);
}

/* Writes rows of 4 decimal numbers ("123.45,-6.5,...") quickly, without stdio's formatting. */
static size_t write_csv(const char *path, int64_t nlines)
{
    size_t cap = (size_t)nlines * 40 + 64, len = 0;
    char *b = malloc(cap);
    uint32_t s = 12345;
    len += (size_t)sprintf(b, "a,b,c,d\n");
    for (int64_t i = 0; i < nlines; i++)
        for (int j = 0; j < 4; j++) {
            s = s * 1664525u + 1013904223u;
            unsigned v = s >> 12;
            if (v & 1)
                b[len++] = '-';
            len += (size_t)sprintf(b + len, "%u.%02u", (v >> 1) % 100000, (v >> 8) % 100);
            b[len++] = j == 3 ? '\n' : ',';
        }
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
    size_t put = 0;
    while (put < len) {
        ssize_t n = write(fd, b + put, len - put);
        if (n <= 0) {
            perror("writing the CSV file");
            exit(1);
        }
        put += (size_t)n;
    }
    close(fd);
    free(b);
    return len;
}

static void csv_rows(int quick)
{
    char path[256], size[32];
    int64_t n = quick ? 200000 : 10000000;
    snprintf(path, sizeof path, "%s/parray_bench_matrix_%d.csv", getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp",
             (int)getpid());
    csv_case c = {.path = path, .bytes = write_csv(path, n)};
    c.buf = malloc(c.bytes);
    snprintf(size, sizeof size, "%lldM rows, %zu MB", (long long)(n / 1000000), c.bytes >> 20);
    double ours = median_time(run_csv, &c, 5), anchor = median_time(run_read, &c, 5);
    add_row("CSV -> matrix (4 f32 cols)", size, ours, anchor, 0);
    printf("    CSV: %.0f MB/s parsed, %.1f M rows/s; the file reads at %.0f MB/s\n", (double)c.bytes / ours / 1e6,
           (double)n / ours / 1e6, (double)c.bytes / anchor / 1e6);
    free(c.buf);
    unlink(path);
}

/* ---- k-NN --------------------------------------------------------------------------------------------- */

typedef struct knn_case {
    pa_kernel *k;
    knn_search *tc;   /* the TF32 row: ours through knn_search_run */
    pa_matrix *data, *query, *got;
    cublasHandle_t blas;
    float *G, *xn;
    int *idx, *host_idx;
    int n, nq, d;
} knn_case;

static void run_knn(void *p)
{
    knn_case *c = p;
    if (c->tc) {
        mx_precision used;
        pa_matrix_destroy(c->got);
        c->got = NULL;
        PK(knn_search_run(c->tc, c->data, c->query, MX_TF32, &c->got, &used));
        return;
    }
    pa_arg args[] = {PA_ARG(c->data), PA_ARG(c->query)};
    pa_matrix_destroy(c->got);
    c->got = NULL;
    PK(pa_kernel_call(c->k, args, 2, &c->got));
}

static void run_cublas(void *p)
{
    knn_case *c = p;
    const float alpha = -2.0f, beta = 0.0f;
    const float *X = pa_matrix_data(c->data), *Q = pa_matrix_data(c->query);
    /* G = -2 X Q^T: n x nq, column-major, query q's scores contiguous */
    if (cublasSgemm(c->blas, CUBLAS_OP_N, CUBLAS_OP_T, c->n, c->nq, c->d, &alpha, X, c->n, Q, c->nq, &beta, c->G,
                    c->n) != CUBLAS_STATUS_SUCCESS) {
        fprintf(stderr, "cublasSgemm failed\n");
        exit(1);
    }
    if (bench_topk_launch(c->G, c->xn, c->n, c->nq, c->idx)) {
        fprintf(stderr, "top-k launch failed\n");
        exit(1);
    }
    CK(cudaMemcpy(c->host_idx, c->idx, sizeof(int) * (size_t)c->nq * 8, cudaMemcpyDeviceToHost));
}

/* The TF32 row: fractional coordinates (TF32 truncates them), ours and cuBLAS's with tensor cores, and the recall of
 * ours against the fp32 PL/CUDA function's neighbours on the same data. */
static void knn_tf32_row(knn_case *c, int quick)
{
    pa_matrix *hd = NULL, *hq = NULL, *data = NULL, *query = NULL, *fp32 = NULL;
    PK(pa_matrix_create_in(NULL, PA_MATRIX_FLOAT, c->n, c->d, &hd));
    PK(pa_matrix_create_in(NULL, PA_MATRIX_FLOAT, c->nq, c->d, &hq));
    uint32_t s = 77;
    for (int64_t i = 0; i < (int64_t)c->n * c->d; i++) {
        s = s * 1664525u + 1013904223u;
        ((float *)pa_matrix_data(hd))[i] = (float)(s >> 8) / 16777216.0f * 100.0f - 50.0f;
    }
    for (int64_t i = 0; i < (int64_t)c->nq * c->d; i++) {
        s = s * 1664525u + 1013904223u;
        ((float *)pa_matrix_data(hq))[i] = (float)(s >> 8) / 16777216.0f * 100.0f - 50.0f;
    }
    PK(pa_matrix_copy_to(hd, "dmem", &data));
    PK(pa_matrix_copy_to(hq, "dmem", &query));
    knn_search ks;
    PK(knn_search_init(&ks, c->d, 8, quick ? 16 : 128));
    knn_case t = *c;
    t.data = data;
    t.query = query;
    t.got = NULL;
    t.tc = &ks;
    if (cublasSetMathMode(t.blas, CUBLAS_TF32_TENSOR_OP_MATH) != CUBLAS_STATUS_SUCCESS) {
        fprintf(stderr, "cublasSetMathMode failed\n");
        exit(1);
    }
    if (bench_norms_launch(pa_matrix_data(data), t.n, t.d, t.xn))
        exit(1);
    CK(cudaDeviceSynchronize());
    char size[48];
    snprintf(size, sizeof size, "%dx%d, %d q, k 8", t.n, t.d, t.nq);
    double ours = median_time(run_knn, &t, REPEATS), anchor = median_time(run_cublas, &t, REPEATS);
    add_row("k-NN TF32 vs cuBLAS TF32", size, ours, anchor, 0.70);
    cublasSetMathMode(t.blas, CUBLAS_DEFAULT_MATH);
    /* the fp32 path on the same data, the reference of the recall */
    mx_precision used;
    PK(knn_search_run(&ks, data, query, MX_FP32, &fp32, &used));
    pa_matrix *anchor_idx = NULL;
    PK(pa_matrix_create_in(NULL, PA_MATRIX_INT, t.nq, 8, &anchor_idx));
    memcpy(pa_matrix_data(anchor_idx), t.host_idx, sizeof(int) * (size_t)t.nq * 8);
    knn_agreement a, b;
    int ok = knn_check_tolerance(hd, hq, fp32, t.got, &a);
    knn_check_tolerance(hd, hq, fp32, anchor_idx, &b);
    printf("    k-NN TF32: ours finds %.4f of the fp32 path's neighbours (target >= 0.99), cuBLAS TF32 + top-k %.4f; "
           "worst excess over the k-th distance %.2e (ours), %ld of ours outside the tolerance bound%s\n", a.recall,
           b.recall, a.worst_excess, a.outside, ok ? "" : " -- FAILS");
    if (a.mismatched_q >= 0)
        printf("    k-NN TF32: first query whose neighbours differ from the fp32 path's: %ld\n", a.mismatched_q);
    if (!ok)
        rows[nrows - 1].ours = 1e9;   /* a wrong answer fails the row */
    pa_matrix_destroy(anchor_idx);
    pa_matrix_destroy(fp32);
    pa_matrix_destroy(t.got);
    knn_search_free(&ks);
    pa_matrix_destroy(data);
    pa_matrix_destroy(query);
    pa_matrix_destroy(hd);
    pa_matrix_destroy(hq);
}

static void knn_rows(int quick)
{
    knn_case c = {.n = 0};
    c.n = quick ? 16384 : 262144;
    c.nq = 1024;
    c.d = 32;
    knn_shape shape = {c.d, 8, quick ? 16 : 128};
    /* integer coordinates 0..99: every distance and dot product is exact in float */
    pa_matrix *hd = NULL, *hq = NULL;
    if (pa_matrix_create_in(NULL, PA_MATRIX_FLOAT, c.n, c.d, &hd) != PA_OK ||
        pa_matrix_create_in(NULL, PA_MATRIX_FLOAT, c.nq, c.d, &hq) != PA_OK) {
        fprintf(stderr, "%s\n", pa_last_error());
        exit(1);
    }
    uint32_t s = 99;
    for (int64_t i = 0; i < (int64_t)c.n * c.d; i++) {
        s = s * 1664525u + 1013904223u;
        ((float *)pa_matrix_data(hd))[i] = (float)((s >> 10) % 100);
    }
    for (int64_t i = 0; i < (int64_t)c.nq * c.d; i++) {
        s = s * 1664525u + 1013904223u;
        ((float *)pa_matrix_data(hq))[i] = (float)((s >> 10) % 100);
    }
    PK(pa_matrix_copy_to(hd, "dmem", &c.data));
    PK(pa_matrix_copy_to(hq, "dmem", &c.query));
    PK(knn_register(&shape, &c.k));
    if (cublasCreate(&c.blas) != CUBLAS_STATUS_SUCCESS) {
        fprintf(stderr, "cublasCreate failed\n");
        exit(1);
    }
    CK(cudaMalloc((void **)&c.G, sizeof(float) * (size_t)c.n * c.nq));
    CK(cudaMalloc((void **)&c.xn, sizeof(float) * (size_t)c.n));
    CK(cudaMalloc((void **)&c.idx, sizeof(int) * (size_t)c.nq * 8));
    c.host_idx = malloc(sizeof(int) * (size_t)c.nq * 8);
    if (bench_norms_launch(pa_matrix_data(c.data), c.n, c.d, c.xn))
        exit(1);
    CK(cudaDeviceSynchronize());
    char size[48];
    snprintf(size, sizeof size, "%dx%d, %d q, k 8", c.n, c.d, c.nq);
    double ours = median_time(run_knn, &c, REPEATS), anchor = median_time(run_cublas, &c, REPEATS);
    add_row("k-NN PL/CUDA vs cuBLAS", size, ours, anchor, 0.70);
    int same = memcmp(pa_matrix_data(c.got), c.host_idx, sizeof(int) * (size_t)c.nq * 8) == 0;
    printf("    k-NN: PL/CUDA and cuBLAS + top-k find %s neighbours (%.2f GFLOP in the distances)\n",
           same ? "the same" : "DIFFERENT", 2.0 * c.n * c.nq * c.d / 1e9);
    if (!same)
        rows[nrows - 1].ours = 1e9;   /* a wrong answer fails the row */
    if (quick) {   /* the CPU's answer too, on the small size */
        pa_matrix *want = knn_cpu(hd, hq, 8);
        printf("    k-NN: the CPU %s\n", memcmp(want, c.got, pa_matrix_rawsize(PA_MATRIX_INT, c.nq, 8)) == 0
                                            ? "agrees" : "DISAGREES");
        pa_matrix_destroy(want);
    }
    knn_tf32_row(&c, quick);
    cublasDestroy(c.blas);
    CK(cudaFree(c.G));
    CK(cudaFree(c.xn));
    CK(cudaFree(c.idx));
    free(c.host_idx);
    pa_matrix_destroy(c.got);
    pa_matrix_destroy(c.data);
    pa_matrix_destroy(c.query);
    pa_matrix_destroy(hd);
    pa_matrix_destroy(hq);
    pa_kernel_destroy(c.k);
}

int main(void)
{
    cudaEvent_t e0, e1;
    int quick = getenv("PA_BENCH_QUICK") && atoi(getenv("PA_BENCH_QUICK"));
    int st = gpu_bench_start("bench/matrix", REPEATS, &e0, &e1);
    if (st)
        return st;
    double t0 = now();
    copy_rows(quick);
    fprintf(stderr, "bench/matrix: copies done at %.1f s\n", now() - t0);
    csv_rows(quick);
    fprintf(stderr, "bench/matrix: CSV done at %.1f s\n", now() - t0);
    knn_rows(quick);
    fprintf(stderr, "bench/matrix: k-NN done at %.1f s\n", now() - t0);

    int pass = 0, counted = 0;
    printf("\n%-28s %-20s %11s %11s %7s %7s  %s\n", "case", "size", "ours ms", "anchor ms", "ratio", "target",
           "result");
    for (int i = 0; i < nrows; i++) {
        row *r = &rows[i];
        double ratio = r->anchor / r->ours;
        const char *res = r->target == 0 ? "shown" : ratio >= r->target ? "pass" : "FAIL";
        if (r->target > 0) {
            counted++;
            pass += ratio >= r->target;
        }
        char tg[16] = "-";
        if (r->target > 0)
            snprintf(tg, sizeof tg, ">=%.2f", r->target);
        printf("%-28s %-20s %11.3f %11.3f %7.3f %7s  %s\n", r->what, r->size, r->ours * 1e3, r->anchor * 1e3, ratio,
               tg, res);
    }
    printf("\n%d of %d targets met\n", pass, counted);
    return pass == counted ? 0 : 1;
}
