/*
 * parray ssb — the Star Schema Benchmark end to end (docs/ssb.md):
 *
 *     parray ssb gen   [-s SF] [--seed N] [-t THREADS] -o DIR     generate, write the columnar format
 *     parray ssb load  TBLDIR [-s SF] -o DIR                      load dbgen's .tbl files, write the format
 *     parray ssb export [-d DIR | -s SF] -o TBLDIR                write .tbl files (dbgen's layout)
 *     parray ssb run   [-d DIR | -s SF] [-q QUERY]... [--cpu | --gpu | --both] [--engine tiles|ref|both]
 *                      [--variant common|oneil] [-t THREADS] [--quiet]
 *                                                                 run queries, print results and times; --both
 *                                                                 (the default where a GPU is present) checks
 *                                                                 the GPU's results against the CPU's; the CPU
 *                                                                 runs the tile engine, the reference (ref) or
 *                                                                 both, checked against each other
 *     parray ssb check [-d DIR | -s SF] [-t THREADS] [--variant V] the selectivity check against the spec
 *     parray ssb sql   [-q QUERY] [--variant V]                   the queries' SQL
 *
 * Without -d the data are generated in memory (scale factor -s, default 0.01).  Exit status: 0; 1 when a
 * result differs or a check fails; 2 on a usage error; 3 when a call fails (the message says why).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <parray/parray.h>
#include <parray/ssb.h>

#include "ssb_tool.h"

typedef struct opts {
    double sf;
    unsigned long long seed;
    int threads, mode, quiet, nq, engine, variant;
    int queries[PA_SSB_NQUERIES];
    const char *dir, *out, *tbl;
} opts;

enum { MODE_AUTO, MODE_CPU, MODE_GPU, MODE_BOTH };

static double now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

/* The progress line on a terminal: after the first second of a generate, load or export, the table and its
 * share done, rewritten in place at most five times a second; a newline ends it when the work is done. */
typedef struct progress {
    const char *verb;
    double t0, last;
    int shown;
} progress;

static void progress_line(void *arg, const char *what, double done, double total)
{
    progress *p = arg;
    double t = now_ms();
    if (t - p->t0 < 1000 || (t - p->last < 200 && done < total))
        return;
    p->last = t;
    p->shown = 1;
    fprintf(stderr, "\r%s %-9s %5.1f%% (%.0f s)   ", p->verb, what, total > 0 ? 100 * done / total : 100,
            (t - p->t0) / 1e3);
    fflush(stderr);
}

static void progress_start(progress *p, const char *verb)
{
    *p = (progress){verb, now_ms(), 0, 0};
    if (isatty(fileno(stderr)))
        pa_ssb_set_progress(progress_line, p);
}

static void progress_end(progress *p)
{
    pa_ssb_set_progress(NULL, NULL);
    if (p->shown)
        fputc('\n', stderr);
}

static int fail(const char *what)
{
    fprintf(stderr, "parray ssb: %s: %s\n", what, pa_last_error());
    return 3;
}

static const char ssb_usage[] =
    "usage: parray ssb gen    [-s SF] [--seed N] [-t THREADS] -o DIR\n"
    "       parray ssb load   TBLDIR [-s SF] -o DIR\n"
    "       parray ssb export [-d DIR | -s SF] -o TBLDIR\n"
    "       parray ssb run    [-d DIR | -s SF] [-q QUERY]... [--cpu | --gpu | --both] [--engine tiles|ref|both]\n"
    "                         [--variant common|oneil] [-t THREADS] [--quiet]\n"
    "       parray ssb check  [-d DIR | -s SF] [-t THREADS] [--variant common|oneil]\n"
    "       parray ssb sql    [-q QUERY] [--variant common|oneil]\n"
    "(docs/ssb.md)\n";

static int usage(const char *msg)
{
    fprintf(stderr, "parray ssb: %s\n%s", msg, ssb_usage);
    return 2;
}

static int parse(int argc, char **argv, opts *o)
{
    for (int i = 2; i < argc; i++) {
        const char *a = argv[i];
        const char *v = i + 1 < argc ? argv[i + 1] : NULL;
        int takes = !strcmp(a, "-s") || !strcmp(a, "--seed") || !strcmp(a, "-t") || !strcmp(a, "-o") ||
                    !strcmp(a, "-d") || !strcmp(a, "-q") || !strcmp(a, "--engine") || !strcmp(a, "--variant");
        if (takes && !v)
            return usage("an option needs a value");
        char *end = NULL;
        if (!strcmp(a, "-s")) {
            o->sf = strtod(v, &end);
        } else if (!strcmp(a, "--seed")) {
            o->seed = strtoull(v, &end, 10);
        } else if (!strcmp(a, "-t")) {
            long t = strtol(v, &end, 10);
            if (end == v || *end || t < 0 || t > 1 << 20)
                return usage("-t wants a thread count, 0 (every core) or more");
            o->threads = (int)t;
        } else if (!strcmp(a, "-o")) {
            o->out = v;
        } else if (!strcmp(a, "-d")) {
            o->dir = v;
        } else if (!strcmp(a, "-q")) {
            int q = pa_ssb_query_index(v);
            if (q < 0 || o->nq == PA_SSB_NQUERIES)
                return usage("-q wants a query name such as q2.1");
            o->queries[o->nq++] = q;
        } else if (!strcmp(a, "--engine")) {
            o->engine = !strcmp(v, "tiles") ? 0 : !strcmp(v, "ref") ? 1 : !strcmp(v, "both") ? 2 : -1;
            if (o->engine < 0)
                return usage("--engine wants tiles, ref or both");
        } else if (!strcmp(a, "--variant")) {
            o->variant = !strcmp(v, "common") ? PA_SSB_VARIANT_COMMON : !strcmp(v, "oneil") ? PA_SSB_VARIANT_ONEIL : -1;
            if (o->variant < 0)
                return usage("--variant wants common or oneil");
        } else if (!strcmp(a, "--cpu")) {
            o->mode = MODE_CPU;
        } else if (!strcmp(a, "--gpu")) {
            o->mode = MODE_GPU;
        } else if (!strcmp(a, "--both")) {
            o->mode = MODE_BOTH;
        } else if (!strcmp(a, "--quiet")) {
            o->quiet = 1;
        } else if (a[0] != '-' && !o->tbl) {
            o->tbl = a;
        } else {
            fprintf(stderr, "parray ssb: unknown argument '%s'\n", a);
            return 2;
        }
        if (takes) {
            if (end && *end)
                return usage("a numeric option has a bad value");
            i++;
        }
    }
    if (o->nq == 0)
        for (int q = 0; q < PA_SSB_NQUERIES; q++)
            o->queries[o->nq++] = q;
    return 0;
}

static int get_db(const opts *o, pa_ssb_db **db)
{
    double t0 = now_ms();
    progress pr;
    if (o->dir) {
        if (pa_ssb_read(o->dir, db) != PA_OK)
            return fail(o->dir);
        fprintf(stderr, "read %s in %.0f ms\n", o->dir, now_ms() - t0);
        return 0;
    }
    progress_start(&pr, "generating");
    int rc = pa_ssb_generate(o->sf, o->seed, o->threads, db);
    progress_end(&pr);
    if (rc != PA_OK)
        return fail("generate");
    fprintf(stderr, "generated scale factor %g (seed %llu): %lld lineorder rows in %.0f ms\n", o->sf, o->seed,
            (long long)pa_ssb_rows(*db, PA_SSB_LINEORDER), now_ms() - t0);
    return 0;
}

static int cmd_gen(const opts *o)
{
    pa_ssb_db *db = NULL;
    int rc = get_db(o, &db);
    if (rc == 0 && o->out && pa_ssb_write(db, o->out) != PA_OK)
        rc = fail(o->out);
    if (rc == 0)
        for (int t = 0; t < PA_SSB_NTABLES; t++)
            printf("%s %lld\n", (const char *[]){"lineorder", "customer", "supplier", "part", "date"}[t],
                   (long long)pa_ssb_rows(db, (pa_ssb_table)t));
    pa_ssb_destroy(db);
    return rc;
}

/* The bytes of the five .tbl files in dir (those that are there). */
static double tbl_bytes(const char *dir)
{
    static const char *const names[] = {"lineorder", "customer", "supplier", "part", "date"};
    double bytes = 0;
    for (int t = 0; t < 5; t++) {
        char path[4096];
        struct stat st;
        snprintf(path, sizeof path, "%s/%s.tbl", dir, names[t]);
        if (stat(path, &st) == 0)
            bytes += (double)st.st_size;
    }
    return bytes;
}

static int cmd_load(const opts *o)
{
    pa_ssb_db *db = NULL;
    if (!o->tbl || !o->out)
        return usage("load needs a directory of .tbl files and -o DIR");
    progress pr;
    double t0 = now_ms();
    progress_start(&pr, "loading");
    int st = pa_ssb_load_tbl(o->tbl, o->sf, &db);
    progress_end(&pr);
    if (st != PA_OK)
        return fail("load");
    double ms = now_ms() - t0, bytes = tbl_bytes(o->tbl);
    fprintf(stderr, "parsed %s (%.2f GB of .tbl files) in %.0f ms: %.0f MB/s\n", o->tbl, bytes / 1e9, ms,
            bytes / ms / 1e3);
    int rc = pa_ssb_write(db, o->out) == PA_OK ? 0 : fail(o->out);
    if (rc == 0)
        printf("loaded %lld lineorder rows into %s\n", (long long)pa_ssb_rows(db, PA_SSB_LINEORDER), o->out);
    pa_ssb_destroy(db);
    return rc;
}

static int cmd_export(const opts *o)
{
    pa_ssb_db *db = NULL;
    if (!o->out)
        return usage("export needs -o TBLDIR");
    int rc = get_db(o, &db);
    progress pr;
    double t0 = now_ms();
    progress_start(&pr, "exporting");
    if (rc == 0 && pa_ssb_write_tbl(db, o->out) != PA_OK)
        rc = fail(o->out);
    progress_end(&pr);
    if (rc == 0) {
        double ms = now_ms() - t0, bytes = tbl_bytes(o->out);
        fprintf(stderr, "wrote %s (%.2f GB of .tbl files) in %.0f ms: %.0f MB/s\n", o->out, bytes / 1e9, ms,
                bytes / ms / 1e3);
    }
    pa_ssb_destroy(db);
    return rc;
}

static int cmd_check(const opts *o)
{
    pa_ssb_db *db = NULL;
    int rc = get_db(o, &db), bad = 0;
    if (rc)
        return rc;
    pa_ssb_set_variant(db, (pa_ssb_variant)o->variant);
    printf("%-6s %12s %12s %9s %9s %s\n", "query", "measured", "spec", "ratio", "allowed", "check");
    for (int i = 0; i < o->nq && rc == 0; i++) {
        double m, s, tol;
        if (pa_ssb_selectivity(db, o->queries[i], o->threads, &m, &s, &tol) != PA_OK) {
            rc = fail("selectivity");
            break;
        }
        int ok = m / s - 1 <= tol && 1 - m / s <= tol;
        bad += !ok;
        printf("%-6s %12.4g %12.4g %9.3f %8.3f%% %s\n", pa_ssb_query_name(o->queries[i]), m, s, m / s, 100 * tol,
               ok ? "pass" : "FAIL");
    }
    pa_ssb_destroy(db);
    return rc ? rc : bad ? 1 : 0;
}

int pa_tool_ssb(int argc, char **argv)
{
    opts o = {.sf = 0.01, .seed = 42};
    if (argc < 2)
        return usage("no subcommand");
    if (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help")) {
        fputs(ssb_usage, stdout);
        return 0;
    }
    int rc = parse(argc, argv, &o);
    if (rc)
        return rc;
    if (!(o.sf > 0))
        return usage("-s wants a scale factor > 0");
    const char *cmd = argv[1];
    if (!strcmp(cmd, "gen"))
        return cmd_gen(&o);
    if (!strcmp(cmd, "load"))
        return cmd_load(&o);
    if (!strcmp(cmd, "check"))
        return cmd_check(&o);
    if (!strcmp(cmd, "export"))
        return cmd_export(&o);
    if (!strcmp(cmd, "run")) {
        pa_tool_ssb_run_opts r = {o.dir, o.sf, o.seed, o.threads, o.mode, o.engine, o.variant, o.quiet, o.queries,
                                  o.nq};
        return pa_tool_ssb_run(&r);
    }
    if (!strcmp(cmd, "sql")) {
        for (int i = 0; i < o.nq; i++)
            printf("-- %s\n%s;\n", pa_ssb_query_name(o.queries[i]),
                   pa_ssb_query_sql_variant(o.queries[i], (pa_ssb_variant)o.variant));
        return 0;
    }
    return usage("unknown subcommand");
}
