/*
 * bench/ssb — the Star Schema Benchmark's 13 queries on the CPU (target P14) and, where a GPU is present, on
 * the GPU (target P8, ssb_gpu_rows.c), on data generated in memory on every core.
 *
 *     ssb [-s SF] [-r RUNS] [-c CPU_RUNS] [--ref-runs N] [-t THREADS] [--seed N] [--csv FILE] [--no-gpu]
 *         [--no-duckdb] [--load TBLDIR] [--no-cpu] [--stream] [--chunk ROWS] [--streams N] [--gpus N]
 *     defaults: scale factor 1, 21 GPU runs, 5 CPU runs, 1 reference run, every core
 *
 * Lineorder is generated with only the 9 columns the queries read (PA_SSB_QUERY_COLUMNS; all 17 with --load).
 * --stream adds the streaming rows and --gpus N the multi-GPU rows (ssb_stream_rows.c; with several GPUs the
 * multi-GPU rows come anyway); --chunk and --streams set the streaming engine's chunk and streams; --no-cpu
 * leaves the CPU rows out (large scale factors).
 *
 * The CPU rows, per query: the tile engine's median time (pa_ssb_run_cpu_tiles, "cpu ms"), the floor (the
 * median time of the same threads only reading the lineorder columns the query reads, the same bytes, in this
 * run: a pthd thread array of THREADS summing each its share of every column) and its fraction (floor / ours;
 * above 1 where the engine reads fewer bytes than the whole columns: late materialisation skips lines without a
 * selected row), the reference implementation's time (pa_ssb_run_cpu, "ref ms") and whether the two results are
 * equal; and DuckDB's median over 5 runs ("duckdb ms") where the Python package duckdb is importable:
 * scripts/ssb_duckdb.py run by $SSB_PYTHON (default python3: a virtual environment's python where duckdb is
 * installed there), with the same data (parray ssb gen with the same scale factor and seed), DuckDB's own
 * storage and as many threads.  --no-duckdb leaves it out.
 *
 * --load TBLDIR times the .tbl loader (target P17, >= 1.5 GB/s): pa_ssb_load_tbl of TBLDIR's five files (dbgen's,
 * or, where TBLDIR has no lineorder.tbl, this run's data written there first with pa_ssb_write_tbl), the bytes
 * of the files over the time; the files are read from the page cache when a run before (or the export) left them
 * there, which the line says nothing about: drop the caches first to time the disk.  Loaded data of this run's
 * export are checked against the generated data (q2.1's result).
 *
 * --csv writes the rows again to FILE as comma-separated values with one header line (engine cpu or gpu;
 * scripts/plots.py draws docs/performance.md's SSB plot from the GPU's rows).
 *
 * Exit status 0 when every result matched (the targets are reported, pass or fail, not enforced by the status),
 * 1 otherwise, 2 on a usage error.  Without a GPU the GPU rows are skipped, said so.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "ssb_bench.h"

#ifndef SSB_BENCH_GPU
#define SSB_BENCH_GPU 0
#endif
#ifndef SSB_DUCKDB_SCRIPT
#define SSB_DUCKDB_SCRIPT "scripts/ssb_duckdb.py"
#endif
#ifndef SSB_PARRAY_TOOL
#define SSB_PARRAY_TOOL "tools/parray"
#endif

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

double ssb_bench_median(double *v, int n)
{
    qsort(v, (size_t)n, sizeof *v, cmp_double);
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

double ssb_bench_now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

const char *const *ssb_bench_fact_columns(int q, int *n)
{
    static const char *const q1[] = {"lo_orderdate", "lo_quantity", "lo_discount", "lo_extendedprice"};
    static const char *const q2[] = {"lo_orderdate", "lo_partkey", "lo_suppkey", "lo_revenue"};
    static const char *const q3[] = {"lo_custkey", "lo_suppkey", "lo_orderdate", "lo_revenue"};
    static const char *const q4[] = {"lo_custkey", "lo_suppkey", "lo_partkey", "lo_orderdate", "lo_revenue",
                                     "lo_supplycost"};
    *n = q < 10 ? 4 : 6;
    return q < 3 ? q1 : q < 6 ? q2 : q < 10 ? q3 : q4;
}

/* ---- the host floor: the same threads reading the same columns ------------------------------------------------ */

typedef struct reader {
    const int32_t *col[6];
    int ncol;
    int64_t rows;
    int nthreads;
    volatile uint32_t sink[256];
} reader;

static int read_body(pa_ctx *ctx, void *arg)
{
    reader *r = *(reader **)arg;
    int64_t t = pa_tid(ctx), lo = r->rows * t / r->nthreads, hi = r->rows * (t + 1) / r->nthreads;
    uint32_t s = 0;
    for (int c = 0; c < r->ncol; c++) {
        const int32_t *x = r->col[c];
        for (int64_t i = lo; i < hi; i++)   /* vectorised: the sum is wrapping unsigned arithmetic */
            s += (uint32_t)x[i];
    }
    r->sink[t % 256] = s;
    return PA_OK;
}

/* The median time of nthreads threads reading query q's columns once. */
static double host_floor_ms(const pa_ssb_db *db, int q, const pa_type *threads, int nthreads, int runs)
{
    reader *r = calloc(1, sizeof *r);
    const char *const *names = ssb_bench_fact_columns(q, &r->ncol);
    double *t = malloc((size_t)(runs + 1) * sizeof *t);
    if (!r || !t) {
        fprintf(stderr, "ssb: out of memory\n");
        exit(1);
    }
    for (int c = 0; c < r->ncol; c++)
        r->col[c] = pa_ssb_column(db, names[c], &r->rows);
    r->nthreads = nthreads;
    OK(pa_for(threads, read_body, &r, sizeof r));   /* warm */
    for (int k = 0; k < runs; k++) {
        double t0 = ssb_bench_now_ms();
        OK(pa_for(threads, read_body, &r, sizeof r));
        t[k] = ssb_bench_now_ms() - t0;
    }
    double ms = ssb_bench_median(t, runs);
    free(t);
    free(r);
    return ms;
}

/* ---- DuckDB, through scripts/ssb_duckdb.py ----------------------------------------------------------------------- */

/* DuckDB's median per query into ms[] (negative: not run).  \return 1 when it ran. */
static int duckdb_times(const ssb_bench_opts *o, int nthreads, double ms[PA_SSB_NQUERIES])
{
    char path[] = "/tmp/ssb_duckdb_XXXXXX", cmd[2048];
    for (int q = 0; q < PA_SSB_NQUERIES; q++)
        ms[q] = -1;
    int fd = mkstemp(path);
    if (fd < 0) {
        perror("mkstemp");
        return 0;
    }
    const char *py = getenv("SSB_PYTHON");
    snprintf(cmd, sizeof cmd, "'%s' '%s' '%s' -s %g --seed %llu --threads %d --runs 5 --csv '%s' >&2",
             py && *py ? py : "python3", SSB_DUCKDB_SCRIPT, SSB_PARRAY_TOOL, o->sf, o->seed, nthreads, path);
    fprintf(stderr, "ssb: %s\n", cmd);
    int st = system(cmd);
    int ran = 0;
    FILE *f = fdopen(fd, "r");
    char line[512];
    while (st == 0 && f && fgets(line, sizeof line, f)) {
        char name[16];
        double v;
        if (sscanf(line, "%15[^,],%lf", name, &v) == 2 && pa_ssb_query_index(name) >= 0) {
            ms[pa_ssb_query_index(name)] = v;
            ran = 1;
        }
    }
    if (f)
        fclose(f);
    remove(path);
    if (!ran)
        printf("(DuckDB not run: %s)\n", WIFEXITED(st) && WEXITSTATUS(st) == 77 ? "the Python package duckdb is "
               "not importable" : "scripts/ssb_duckdb.py failed, see above");
    return ran;
}

/* ---- the CPU rows --------------------------------------------------------------------------------------------------- */

static int cpu_rows(const pa_ssb_db *db, const ssb_bench_opts *o, int duck)
{
    int nthreads = o->threads > 0 ? o->threads : pa_threads_get_num(), bad = 0;
    char decl[32];
    pa_scope *scope = NULL;
    OK(pa_scope_create(NULL, &scope));
    snprintf(decl, sizeof decl, "pthd [%d]", nthreads);
    const pa_type *threads = pa_type_parse(scope, decl);
    if (!threads) {
        fprintf(stderr, "ssb: %s: %s\n", decl, pa_last_error());
        exit(1);
    }
    double dms[PA_SSB_NQUERIES];
    int have_duck = duck && duckdb_times(o, nthreads, dms);
    double rate_bytes = 0, rate_ms = 0;
    printf("CPU: %d threads; floor = the same threads reading the query's lineorder columns once, this run\n\n",
           nthreads);
    printf("%-6s %10s %10s %8s %10s %8s %10s %10s %8s %s\n", "query", "MB read", "floor ms", "GB/s", "cpu ms",
           "of floor", "ref ms", "duckdb ms", "vs duck", "result");
    int nrun = o->cpu_runs > 0 ? o->cpu_runs : 1, nref = o->ref_runs > 0 ? o->ref_runs : 1;
    double *t = malloc((size_t)(nrun + nref + 1) * sizeof *t);
    for (int q = 0; q < PA_SSB_NQUERIES; q++) {
        pa_ssb_result rt = {0}, rr = {0};
        OK(pa_ssb_run_cpu_tiles(db, q, nthreads, &rt));   /* warm */
        for (int k = 0; k < nrun; k++) {
            pa_ssb_result_destroy(&rt);
            double t0 = ssb_bench_now_ms();
            OK(pa_ssb_run_cpu_tiles(db, q, nthreads, &rt));
            t[k] = ssb_bench_now_ms() - t0;
        }
        double ms = ssb_bench_median(t, nrun);
        for (int k = 0; k < nref; k++) {
            pa_ssb_result_destroy(&rr);
            double t0 = ssb_bench_now_ms();
            OK(pa_ssb_run_cpu(db, q, nthreads, &rr));
            t[k] = ssb_bench_now_ms() - t0;
        }
        double rms = ssb_bench_median(t, nref);
        double bytes = (double)pa_ssb_fact_bytes(db, q), fms = host_floor_ms(db, q, threads, nthreads, nrun);
        rate_bytes += bytes;
        rate_ms += fms;
        char why[256], duck_ms[32] = "-", vs[32] = "-";
        int same = pa_ssb_result_equal(&rt, &rr, why, sizeof why);
        bad += !same;
        if (have_duck && dms[q] >= 0) {
            snprintf(duck_ms, sizeof duck_ms, "%.2f", dms[q]);
            snprintf(vs, sizeof vs, "%.2fx", dms[q] / ms);
        }
        printf("%-6s %10.1f %10.2f %8.1f %10.2f %8.3f %10.2f %10s %8s %s%s\n", pa_ssb_query_name(q), bytes / 1e6, fms,
               bytes / fms / 1e6, ms, fms / ms, rms, duck_ms, vs, same ? "= ref" : "DIFFERS: ", same ? "" : why);
        if (o->csv)
            fprintf(o->csv, "cpu,%s,%g,%d,%.1f,%.4f,%.4f,,%.3f,,%.4f,%s,%s\n", pa_ssb_query_name(q), o->sf, nthreads,
                    bytes / 1e6, fms, ms, fms / ms, rms, have_duck && dms[q] >= 0 ? duck_ms : "",
                    same ? "equal" : "differs");
        pa_ssb_result_destroy(&rt);
        pa_ssb_result_destroy(&rr);
    }
    printf("\nhost read rate over the 13 floors: %.1f GB/s; %d results differ from the reference's\n\n",
           rate_bytes / rate_ms / 1e6, bad);
    free(t);
    pa_scope_destroy(scope);
    return bad;
}

/* ---- the loader ----------------------------------------------------------------------------------------------------- */

static int load_rate(const pa_ssb_db *db, const ssb_bench_opts *o, const char *dir)
{
    char path[4096];
    struct stat st;
    double bytes = 0;
    int exported = 0;
    snprintf(path, sizeof path, "%s/lineorder.tbl", dir);
    if (stat(path, &st) != 0) {
        double t0 = ssb_bench_now_ms();
        OK(pa_ssb_write_tbl(db, dir));
        printf("loader: wrote this run's data to %s in %.1f s\n", dir, (ssb_bench_now_ms() - t0) / 1e3);
        exported = 1;
    }
    static const char *const tables[] = {"lineorder", "customer", "supplier", "part", "date"};
    for (int t = 0; t < 5; t++) {
        snprintf(path, sizeof path, "%s/%s.tbl", dir, tables[t]);
        if (stat(path, &st) == 0)
            bytes += (double)st.st_size;
    }
    pa_ssb_db *loaded = NULL;
    double t0 = ssb_bench_now_ms();
    OK(pa_ssb_load_tbl(dir, o->sf, &loaded));
    double ms = ssb_bench_now_ms() - t0;
    int bad = 0;
    if (exported) {
        pa_ssb_result a = {0}, b = {0};
        OK(pa_ssb_run_cpu_tiles(db, 3, o->threads, &a));
        OK(pa_ssb_run_cpu_tiles(loaded, 3, o->threads, &b));
        bad = !pa_ssb_result_equal(&a, &b, NULL, 0);
        pa_ssb_result_destroy(&a);
        pa_ssb_result_destroy(&b);
    }
    printf("loader: %s, %.2f GB of .tbl files, %lld lineorder rows, in %.2f s: %.2f GB/s (target >= 1.5 GB/s: %s)%s\n\n",
           dir, bytes / 1e9, (long long)pa_ssb_rows(loaded, PA_SSB_LINEORDER), ms / 1e3, bytes / ms / 1e6,
           bytes / ms / 1e6 >= 1.5 ? "pass" : "FAIL", exported ? (bad ? "; q2.1 DIFFERS from the generated data's"
                                                                      : "; q2.1 equal to the generated data's") : "");
    if (o->csv)
        fprintf(o->csv, "load,,%g,%d,%.1f,,%.4f,,,1.5,,,%s\n", o->sf, o->threads, bytes / 1e6, ms,
                bad ? "differs" : "equal");
    pa_ssb_destroy(loaded);
    return bad;
}

int main(int argc, char **argv)
{
    ssb_bench_opts o = {.sf = 1, .seed = 42, .runs = 21, .cpu_runs = 5, .ref_runs = 1};
    const char *csv_path = NULL, *load_dir = NULL;
    int gpu = SSB_BENCH_GPU, duck = 1, usage = 0, cpu = 1;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(a, "--no-gpu")) {
            gpu = 0;
            continue;
        }
        if (!strcmp(a, "--no-duckdb") || !strcmp(a, "--no-cpu") || !strcmp(a, "--stream")) {
            if (!strcmp(a, "--no-duckdb"))
                duck = 0;
            else if (!strcmp(a, "--no-cpu"))
                cpu = 0;
            else
                o.stream = 1;
            continue;
        }
        if (!v) {
            usage = 1;
            break;
        }
        if (!strcmp(a, "-s"))
            o.sf = atof(v);
        else if (!strcmp(a, "-r"))
            o.runs = atoi(v);
        else if (!strcmp(a, "-c"))
            o.cpu_runs = atoi(v);
        else if (!strcmp(a, "--ref-runs"))
            o.ref_runs = atoi(v);
        else if (!strcmp(a, "-t"))
            o.threads = atoi(v);
        else if (!strcmp(a, "--seed"))
            o.seed = strtoull(v, NULL, 10);
        else if (!strcmp(a, "--csv"))
            csv_path = v;
        else if (!strcmp(a, "--load"))
            load_dir = v;
        else if (!strcmp(a, "--chunk"))
            o.chunk_rows = atoll(v);
        else if (!strcmp(a, "--streams"))
            o.streams = atoi(v);
        else if (!strcmp(a, "--gpus"))
            o.gpus = atoi(v);
        else
            usage = 1;
        i++;
    }
    if (usage || o.runs < 1 || o.runs > 1000 || o.cpu_runs < 1 || o.cpu_runs > 100 || o.ref_runs < 1 ||
        o.ref_runs > 100 || o.threads < 0 || !(o.sf > 0) || o.chunk_rows < 0 || o.streams < 0 || o.gpus < 0) {
        fprintf(stderr, "usage: ssb [-s SF] [-r RUNS] [-c CPU_RUNS] [--ref-runs N] [-t THREADS] [--seed N] "
                        "[--csv FILE] [--no-gpu] [--no-duckdb] [--load TBLDIR] [--no-cpu] [--stream] [--chunk ROWS] "
                        "[--streams N] [--gpus N]\n");
        return 2;
    }
    if (csv_path && !(o.csv = fopen(csv_path, "w"))) {
        perror(csv_path);
        return 2;
    }
    if (o.csv)
        fprintf(o.csv, "engine,query,sf,threads,mb_read,floor_ms,ms,stream_ms,of_floor,target,ref_ms,duckdb_ms,"
                       "result\n");
    pa_ssb_db *db = NULL;
    double t0 = ssb_bench_now_ms();
    OK(pa_ssb_generate_with(o.sf, o.seed, 0, load_dir ? 0 : PA_SSB_QUERY_COLUMNS, &db));
    printf("Star Schema Benchmark, scale factor %g (seed %llu): lineorder %lld rows, generated in %.0f ms on every "
           "core; %.2f GB held (%s)\n\n", o.sf, o.seed, (long long)pa_ssb_rows(db, PA_SSB_LINEORDER),
           ssb_bench_now_ms() - t0, pa_ssb_bytes(db) / 1e9, load_dir ? "every column" : "the query columns");
    int bad = 0;
    if (gpu) {
        int st = ssb_bench_gpu(db, &o);
        if (st == 77)
            printf("(no GPU rows: no usable GPU)\n\n");
        else
            bad += st != 0;
    } else {
        printf("(no GPU rows: %s)\n\n", SSB_BENCH_GPU ? "--no-gpu" : "a build without CUDA");
    }
    for (int part = 0; gpu && part < 2; part++) {   /* the streaming and multi-GPU rows (ssb_stream_rows.c) */
        int st = part == 0 ? (o.stream ? ssb_bench_stream(db, &o) : 0) : ssb_bench_multi(db, &o);
        bad += st != 0 && st != 77;
    }
    if (cpu)
        bad += cpu_rows(db, &o, duck);
    if (load_dir)
        bad += load_rate(db, &o, load_dir);
    if (o.csv && fclose(o.csv) != 0)
        perror(csv_path), bad++;
    pa_ssb_destroy(db);
    return bad ? 1 : 0;
}

#if !SSB_BENCH_GPU
int ssb_bench_gpu(const pa_ssb_db *db, const ssb_bench_opts *o)
{
    (void)db;
    (void)o;
    return 77;
}

int ssb_bench_stream(const pa_ssb_db *db, const ssb_bench_opts *o)
{
    return ssb_bench_gpu(db, o);
}

int ssb_bench_multi(const pa_ssb_db *db, const ssb_bench_opts *o)
{
    return ssb_bench_gpu(db, o);
}
#endif
