/*
 * bench/ssb_load — the .tbl loader's rate (target P17: pa_ssb_load_tbl at >= 1.5 GB/s) against the rate of only
 * reading the same files, in one run.
 *
 *     ssb_load [-s SF] [--seed N] [-t THREADS] [-r RUNS] [--cold] [--keep] DIR
 *     defaults: scale factor 1, every core, 3 runs
 *
 * Where DIR has no lineorder.tbl, the data of scale factor SF are generated in memory and written there with
 * pa_ssb_write_tbl first (timed: the export's rate), and the loaded data are checked against them (every
 * lineorder column equal); without --keep such files are removed at the end.  Files already in DIR (dbgen's, or
 * an earlier export) are loaded as they are.
 *
 * Rows, each the median of RUNS:
 *   read   the floor: the same threads reading the five files whole into memory (pread, each thread its share of
 *          every file, as the loader reads them), nothing parsed;
 *   load   pa_ssb_load_tbl with THREADS threads (pa__ssb_load_tbl_threads), the files' bytes over its time;
 *   of floor = read time / load time.
 * The page cache: before every timed run the line says how much of the files' bytes are resident (mincore).
 * Warm rows read what the cache holds (after an export or an earlier run: all of it when memory allows).  With
 * --cold the rows are measured again after the files' cached pages are dropped before every run
 * (posix_fadvise DONTNEED after fdatasync: needs no privilege, drops only these files' clean pages): the disk's rate.
 *
 * Exit status 0 when the loaded data matched (the target is reported, not enforced), 1 otherwise, 2 on usage.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "bench_clock.h"
#include "parray/parray.h"
#include "parray/ssb.h"
#include "ssb_bench.h"

/* The library's internals this benchmark times (src/query/ssb_internal.h). */
typedef void (*pa__ssb_task)(void *arg, int t, int nthreads);
int pa__ssb_parallel(int nthreads, pa__ssb_task fn, void *arg);
int pa__ssb_threads(int nthreads);
int pa__ssb_load_tbl_threads(const char *dir, double sf, int nthreads, pa_ssb_db **out);

static const char *const tables[5] = {"lineorder", "customer", "supplier", "part", "date"};
static const char *const lo_cols[] = {"lo_orderkey", "lo_linenumber", "lo_custkey", "lo_partkey", "lo_suppkey",
                                      "lo_orderdate", "lo_orderpriority", "lo_shippriority", "lo_quantity",
                                      "lo_extendedprice", "lo_ordtotalprice", "lo_discount", "lo_revenue",
                                      "lo_supplycost", "lo_tax", "lo_commitdate", "lo_shipmode"};

typedef struct files {
    char path[5][4096];
    size_t size[5];
    double bytes;
} files;

static int files_stat(files *f, const char *dir)
{
    f->bytes = 0;
    for (int t = 0; t < 5; t++) {
        struct stat st;
        snprintf(f->path[t], sizeof f->path[t], "%s/%s.tbl", dir, tables[t]);
        if (stat(f->path[t], &st) != 0)
            return -1;
        f->size[t] = (size_t)st.st_size;
        f->bytes += (double)st.st_size;
    }
    return 0;
}

/* The fraction of the files' bytes in the page cache (mincore over a mapping; -1 where it cannot tell). */
static double resident(const files *f)
{
    long page = sysconf(_SC_PAGESIZE);
    double in = 0, all = 0;
    for (int t = 0; t < 5; t++) {
        if (f->size[t] == 0)
            continue;
        int fd = open(f->path[t], O_RDONLY | O_CLOEXEC);
        void *m = fd >= 0 ? mmap(NULL, f->size[t], PROT_READ, MAP_SHARED, fd, 0) : MAP_FAILED;
        size_t npages = (f->size[t] + (size_t)page - 1) / (size_t)page;
        unsigned char *v = malloc(npages);
        if (m == MAP_FAILED || !v || mincore(m, f->size[t], v) != 0) {
            if (m != MAP_FAILED)
                munmap(m, f->size[t]);
            if (fd >= 0)
                close(fd);
            free(v);
            return -1;
        }
        for (size_t i = 0; i < npages; i++)
            in += v[i] & 1;
        all += (double)npages;
        munmap(m, f->size[t]);
        close(fd);
        free(v);
    }
    return all > 0 ? in / all : 1;
}

/* Drops the files' pages from the page cache (written back first). */
static void drop(const files *f)
{
    for (int t = 0; t < 5; t++) {
        int fd = open(f->path[t], O_RDONLY | O_CLOEXEC);
        if (fd < 0)
            continue;
        if (fdatasync(fd) != 0 || posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED) != 0)
            fprintf(stderr, "ssb_load: cannot drop %s from the page cache: %s\n", f->path[t], strerror(errno));
        close(fd);
    }
}

/* ---- the floor: reading the files whole, every thread its share of each, as the loader does ------------------ */

typedef struct reading {
    int fd;
    char *buf;
    size_t size;
    int failed;
} reading;

static void read_task(void *arg, int t, int nt)
{
    reading *r = arg;
    size_t at = r->size / (size_t)nt * (size_t)t, end = t + 1 == nt ? r->size : r->size / (size_t)nt * (size_t)(t + 1);
    while (at < end) {
        ssize_t n = pread(r->fd, r->buf + at, end - at, (off_t)at);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0) {
            __atomic_store_n(&r->failed, 1, __ATOMIC_RELAXED);
            return;
        }
        at += (size_t)n;
    }
}

/* The time to read the five files into fresh buffers (allocated and freed within: as the loader's), in ms. */
static double read_ms(const files *f, int nthreads)
{
    double t0 = now();
    for (int t = 0; t < 5; t++) {
        reading r = {0};
        r.size = f->size[t];
        r.fd = open(f->path[t], O_RDONLY | O_CLOEXEC);
        r.buf = malloc(r.size + 1);
        if (r.fd < 0 || !r.buf) {
            fprintf(stderr, "ssb_load: cannot read %s\n", f->path[t]);
            exit(1);
        }
        OK(pa__ssb_parallel(r.size < (2u << 20) ? 1 : nthreads, read_task, &r));
        if (r.failed) {
            fprintf(stderr, "ssb_load: reading %s failed\n", f->path[t]);
            exit(1);
        }
        close(r.fd);
        free(r.buf);
    }
    return (now() - t0) * 1e3;
}

/* One row: the median read and load times over runs (cold: the files dropped from the cache before each). */
static int rows(const files *f, const char *dir, double sf, int nthreads, int runs, int cold, const pa_ssb_db *gen)
{
    double *tr = malloc((size_t)runs * sizeof *tr), *tl = malloc((size_t)runs * sizeof *tl), res_r = 0, res_l = 0;
    int bad = 0;
    for (int k = 0; k < runs; k++) {
        if (cold)
            drop(f);
        res_r += resident(f) / runs;
        tr[k] = read_ms(f, nthreads);
        if (cold)
            drop(f);
        res_l += resident(f) / runs;
        pa_ssb_db *db = NULL;
        double t0 = now();
        OK(pa__ssb_load_tbl_threads(dir, sf, nthreads, &db));
        tl[k] = (now() - t0) * 1e3;
        if (gen && k == 0)
            for (size_t c = 0; c < sizeof lo_cols / sizeof lo_cols[0]; c++) {
                int64_t na = 0, nb = 0;
                const int32_t *a = pa_ssb_column(gen, lo_cols[c], &na), *b = pa_ssb_column(db, lo_cols[c], &nb);
                if (na != nb || memcmp(a, b, (size_t)na * sizeof *a) != 0) {
                    printf("loaded %s DIFFERS from the generated data's\n", lo_cols[c]);
                    bad = 1;
                }
            }
        pa_ssb_destroy(db);
    }
    double r = median(tr, runs), l = median(tl, runs), target = 1.5e3;
    printf("%-5s %6.1f%% %10.0f %10.0f %8.0f %9.0f %9.3f %8.0f %s\n", cold ? "cold" : "warm", 100 * res_r, r,
           f->bytes / r / 1e3, l, f->bytes / l / 1e3, r / l, target, f->bytes / l / 1e3 >= target ? "pass" : "FAIL");
    if (res_l < res_r - 0.01 && !cold)
        printf("      (the cache held %.1f%% of the bytes before the loads: memory is short of both copies)\n",
               100 * res_l);
    free(tr);
    free(tl);
    return bad;
}

int main(int argc, char **argv)
{
    double sf = 1;
    unsigned long long seed = 42;
    int nthreads = 0, runs = 3, cold = 0, keep = 0, usage = 0;
    const char *dir = NULL;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(a, "--cold"))
            cold = 1;
        else if (!strcmp(a, "--keep"))
            keep = 1;
        else if (a[0] != '-' && !dir)
            dir = a;
        else if (!v)
            usage = 1;
        else if (!strcmp(a, "-s"))
            sf = atof(argv[++i]);
        else if (!strcmp(a, "--seed"))
            seed = strtoull(argv[++i], NULL, 10);
        else if (!strcmp(a, "-t"))
            nthreads = atoi(argv[++i]);
        else if (!strcmp(a, "-r"))
            runs = atoi(argv[++i]);
        else
            usage = 1;
    }
    if (usage || !dir || !(sf > 0) || nthreads < 0 || runs < 1 || runs > 100) {
        fprintf(stderr, "usage: ssb_load [-s SF] [--seed N] [-t THREADS] [-r RUNS] [--cold] [--keep] DIR\n");
        return 2;
    }
    nthreads = pa__ssb_threads(nthreads);
    files f;
    pa_ssb_db *gen = NULL;
    if (files_stat(&f, dir) != 0) {
        double t0 = now();
        OK(pa_ssb_generate(sf, seed, 0, &gen));
        double t1 = now();
        OK(pa_ssb_write_tbl(gen, dir));
        double t2 = now();
        if (files_stat(&f, dir) != 0) {
            fprintf(stderr, "ssb_load: %s lacks the files just written\n", dir);
            return 1;
        }
        printf("scale factor %g (seed %llu): generated in %.1f s; written to %s with pa_ssb_write_tbl in %.1f s: "
               "%.2f GB at %.0f MB/s (into the page cache: the disk writes them back later)\n",
               sf, seed, t1 - t0, dir, t2 - t1, f.bytes / 1e9, f.bytes / (t2 - t1) / 1e6);
    } else {
        printf("%s: %.2f GB of .tbl files already there (loaded as they are, scale factor %g)\n", dir, f.bytes / 1e9, sf);
        keep = 1;
    }
    printf("\n.tbl loader, %d threads, %d runs (medians); read = the same threads reading the files whole (the "
           "floor); cache = the files' bytes in the page cache before the runs\n\n", nthreads, runs);
    printf("%-5s %7s %10s %10s %8s %9s %9s %8s\n", "", "cache", "read ms", "read MB/s", "load ms", "load MB/s",
           "of floor", "target");
    read_ms(&f, nthreads);   /* warm: what memory allows is cached */
    int bad = rows(&f, dir, sf, nthreads, runs, 0, gen);
    if (cold)
        bad += rows(&f, dir, sf, nthreads, runs, 1, NULL);
    if (gen)
        printf("\nloaded lineorder %s the generated data's\n", bad ? "DIFFERS from" : "equal to");
    if (!keep) {
        for (int t = 0; t < 5; t++)
            remove(f.path[t]);
        rmdir(dir);   /* where the export made it (a folder holding other files stays) */
    }
    pa_ssb_destroy(gen);
    return bad ? 1 : 0;
}
