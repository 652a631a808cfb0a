/*
 * parray — the cost model's constants: defaults, the file the library reads at start, and the one in use.
 *
 * The defaults are the values the strategies were tuned with: host copies on the development machine (AMD
 * EPYC, 2 cores; bench/copy_calibrate), GPU copies on the H100 of the ceilings in shared/PERFORMANCE.md, MPI on
 * one host's shared-memory transport.  `parray calibrate` measures the host's on the user's machine (and
 * the GPU's where a GPU is usable) and writes the file; the library reads it once, at the first plan.
 */
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "plan.h"

static const pa__cost_model defaults = {
    .host_bw = 16.0,
    .host_memcpy_call = 6.0,
    .host_loop_unit = 0.5,
    .host_loop_start = 5.0,
    .host_gather_elem = 1.0,
    .host_tile = 20.0,
    .host_transpose_unit = 0.5,
    .host_reverse_elem = 0.25,
    .host_transpose_tile = 64,
    .gpu_h2d_pinned = 53.8,
    .gpu_d2h_pinned = 54.9,
    .gpu_h2d_pageable = 6.1,
    .gpu_d2h_pageable = 11.3,
    .gpu_d2d_rw = 2994.0,
    .gpu_tiled_rw = 2799.0,
    .gpu_call = 10000.0,
    .gpu_row_pcie = 1.42,
    .gpu_row_d2d = 0.107,
    .gpu_word = 0.0015,
    .gpu_host_thread_bw = 8.0,
    .gpu_pack_elem = 1.0,
    .gpu_pack_strided_elem = 3.0,
    .gpu_pipe_start = 40000.0,
    .mpi_latency = 1500.0,
    .mpi_net_bw = 6.0,
    /* NVLink between H200s (NV18): NCCL's all-to-all moved 259-336 GB/s per GPU, the peer route's copies about
     * 0.5 of it (docs/gpu-results.md, issue 26); a group about 20 us (bench/gpu_dist's 64 KiB rows, 2026-11-28) */
    .gpu_nccl_bw = 280.0,
    .gpu_nccl_latency = 20000.0,
    .gpu_peer_bw = 150.0,
    .mpi_host_bw = 16.0,
};

/* The file's names of the constants. */
static const struct field {
    const char *name;
    size_t off;
} fields[] = {
#define F(x) {#x, offsetof(pa__cost_model, x)}
    F(host_bw), F(host_memcpy_call), F(host_loop_unit), F(host_loop_start), F(host_gather_elem), F(host_tile),
    F(host_transpose_unit), F(host_reverse_elem), F(host_transpose_tile), F(gpu_h2d_pinned), F(gpu_d2h_pinned), F(gpu_h2d_pageable), F(gpu_d2h_pageable),
    F(gpu_d2d_rw), F(gpu_tiled_rw), F(gpu_call), F(gpu_row_pcie), F(gpu_row_d2d), F(gpu_word),
    F(gpu_host_thread_bw), F(gpu_pack_elem), F(gpu_pack_strided_elem), F(gpu_pipe_start), F(mpi_latency), F(mpi_net_bw), F(mpi_host_bw),
    F(gpu_nccl_bw), F(gpu_nccl_latency), F(gpu_peer_bw),
#undef F
};
#define NFIELDS (sizeof fields / sizeof fields[0])

/* Two slots: the one in use is read without a lock; pa__cost_set writes the other and switches. */
static pa__cost_model slots[2];
static char sources[2][1024];
static _Atomic int current = -1;
static pthread_once_t once = PTHREAD_ONCE_INIT;
static pthread_mutex_t set_lock = PTHREAD_MUTEX_INITIALIZER;

static double *at(pa__cost_model *m, size_t i)
{
    return (double *)((char *)m + fields[i].off);
}

int pa__cost_read(const char *path, pa__cost_model *m, int warn)
{
    char line[256];
    int bad = 0, n = 0, fd = -1;
    size_t size = 0;
    /* A regular file of at most PA__COST_FILE_MAX bytes: a FIFO, /dev/zero or a directory is refused unread. */
    int rc = pa__open_regular("cost file", path, PA__COST_FILE_MAX, &fd, &size);
    if (rc != PA_OK)
        return rc;
    FILE *f = fdopen(fd, "r");
    if (!f) {
        rc = pa__err(PA_ERR_SYS, "cost file %s: %s", path, strerror(errno));
        close(fd);
        return rc;
    }
    pa__cost_model in = *m;
    while (fgets(line, sizeof line, f)) {
        char name[64], rest[8];
        double v;
        size_t i;
        n++;
        line[strcspn(line, "#\n")] = '\0';
        int k = sscanf(line, "%63s %lf %7s", name, &v, rest);
        if (k <= 0)
            continue;    /* empty or a comment */
        for (i = 0; i < NFIELDS && strcmp(fields[i].name, name) != 0; i++)
            ;
        if (k != 2 || i == NFIELDS || !(v > 0) || v > 1e12) {
            if (warn)
                fprintf(stderr, "parray: cost file %s, line %d: %s; skipped\n", path, n,
                        k != 2 ? "expected \"name value\"" : i == NFIELDS ? "unknown constant"
                                                                          : "the value must be a positive number");
            bad++;
            continue;
        }
        *at(&in, i) = v;
    }
    fclose(f);
    *m = in;
    return bad ? pa__err(PA_ERR_PARSE, "cost file %s: %d line%s skipped", path, bad, bad == 1 ? "" : "s") : PA_OK;
}

/* Makes every missing directory of path's parent. */
static int make_dirs(const char *path)
{
    char dir[1024];
    snprintf(dir, sizeof dir, "%s", path);
    char *slash = strrchr(dir, '/');
    if (!slash || slash == dir)
        return PA_OK;
    *slash = '\0';
    for (char *p = dir + 1; *p; p++)
        if (*p == '/') {
            *p = '\0';
            if (mkdir(dir, 0755) != 0 && errno != EEXIST)
                return pa__err(PA_ERR_SYS, "cost file %s: cannot make %s: %s", path, dir, strerror(errno));
            *p = '/';
        }
    if (mkdir(dir, 0755) != 0 && errno != EEXIST)
        return pa__err(PA_ERR_SYS, "cost file %s: cannot make %s: %s", path, dir, strerror(errno));
    return PA_OK;
}

int pa__cost_write(const char *path, const pa__cost_model *m, const char *comment)
{
    int st = make_dirs(path);
    if (st != PA_OK)
        return st;
    /* Written beside it and renamed over it: the processes of an MPI program that all calibrate and write the
     * same model never leave a file half written. */
    char tmp[1100];
    if ((size_t)snprintf(tmp, sizeof tmp, "%s.%ld.tmp", path, (long)getpid()) >= sizeof tmp)
        return pa__err(PA_ERR_RANGE, "cost file %s: the path is too long", path);
    FILE *f = fopen(tmp, "w");
    if (!f)
        return pa__err(PA_ERR_SYS, "cost file %s: %s", path, strerror(errno));
    fprintf(f, "# parray cost model (parray calibrate); units: bytes per ns (_bw), ns, tile edge in units\n");
    if (comment && *comment)
        fprintf(f, "# %s\n", comment);
    for (size_t i = 0; i < NFIELDS; i++)
        fprintf(f, "%s %.6g\n", fields[i].name, *at((pa__cost_model *)m, i));
    if (fclose(f) != 0 || rename(tmp, path) != 0) {
        int err = errno;
        remove(tmp);
        return pa__err(PA_ERR_SYS, "cost file %s: %s", path, strerror(err));
    }
    return PA_OK;
}

int pa_cost_path(char *buf, size_t len)
{
    const char *env = getenv("PA_COST_FILE"), *xdg = getenv("XDG_CACHE_HOME"), *home = getenv("HOME");
    int n;
    if (!buf && len)
        return pa__err(PA_ERR_INVAL, "pa_cost_path: NULL buffer");
    if (env && *env)
        n = snprintf(buf, len, "%s", env);
    else if (xdg && *xdg == '/')
        n = snprintf(buf, len, "%s/parray/cost", xdg);
    else if (home && *home)
        n = snprintf(buf, len, "%s/.cache/parray/cost", home);
    else
        return pa__err(PA_ERR_NAME, "pa_cost_path: none of PA_COST_FILE, XDG_CACHE_HOME and HOME is set");
    return n;
}

static void load(void)
{
    char path[1024];
    slots[0] = defaults;
    snprintf(sources[0], sizeof sources[0], "built-in defaults");
    int n = pa_cost_path(path, sizeof path);
    if (n > 0 && (size_t)n < sizeof path) {
        int st = pa__cost_read(path, &slots[0], 1);
        if (st == PA_OK || st == PA_ERR_PARSE)
            snprintf(sources[0], sizeof sources[0], "%s", path);
        else if (errno != ENOENT)   /* there and unreadable: say so (a missing file means the defaults) */
            fprintf(stderr, "parray: %s; using the built-in defaults\n", pa_last_error());
        pa_error_clear();
    }
    atomic_store(&current, 0);
}

const pa__cost_model *pa__cost(void)
{
    int c = atomic_load_explicit(&current, memory_order_acquire);
    if (c < 0) {
        pthread_once(&once, load);
        c = atomic_load_explicit(&current, memory_order_acquire);
    }
    return &slots[c];
}

const pa__cost_model *pa__cost_defaults(void)
{
    return &defaults;
}

const char *pa__cost_source(void)
{
    pa__cost();
    return sources[atomic_load(&current)];
}

void pa__cost_set(const pa__cost_model *m, const char *source)
{
    pa__cost();
    pthread_mutex_lock(&set_lock);
    int next = 1 - atomic_load(&current);
    slots[next] = *m;
    snprintf(sources[next], sizeof sources[next], "%s", source);
    atomic_store_explicit(&current, next, memory_order_release);
    pthread_mutex_unlock(&set_lock);
    pa__plan_cache_clear();
}

int pa_cost_print(FILE *f)
{
    if (!f)
        return pa__err(PA_ERR_INVAL, "pa_cost_print: the file is NULL");
    const pa__cost_model *m = pa__cost();
    fprintf(f, "cost model: %s\n", pa__cost_source());
    for (size_t i = 0; i < NFIELDS; i++)
        fprintf(f, "  %-20s %.6g\n", fields[i].name, *at((pa__cost_model *)m, i));
    return PA_OK;
}

int pa_cost_get(const char *name, double *value)
{
    if (!name || !value)
        return pa__err(PA_ERR_INVAL, "pa_cost_get: %s is NULL", !name ? "the name" : "the value's pointer");
    const pa__cost_model *m = pa__cost();
    for (size_t i = 0; i < NFIELDS; i++)
        if (strcmp(fields[i].name, name) == 0) {
            *value = *at((pa__cost_model *)m, i);
            return PA_OK;
        }
    return pa__err(PA_ERR_NAME, "pa_cost_get: the cost model has no constant \"%.64s\" (pa_cost_print lists them)",
                   name);
}

int pa_cost_calibrate(const char *path, FILE *log)
{
    char where[1024];
    int st;
    if (!path) {
        int n = pa_cost_path(where, sizeof where);
        if (n < 0)
            return n;
        if ((size_t)n >= sizeof where)
            return pa__err(PA_ERR_RANGE, "pa_cost_calibrate: the cost file's path is longer than %zu bytes",
                           sizeof where - 1);
        path = where;
    }
    pa__cost_model m = *pa__cost();
    for (int i = 0; i < pa__backend_count(); i++) {
        const pa__backend *b = pa__backend_at(i);
        if (b->calibrate && pa__backend_on(b)) {
            if (log)
                fprintf(log, "calibrating the %s backend's copies\n", b->name);
            if ((st = b->calibrate(&m, log)) != PA_OK)
                return st;
        }
    }
    if ((st = pa__cost_write(path, &m, "measured by pa_cost_calibrate")) != PA_OK)
        return st;
    if (log)
        fprintf(log, "written to %s\n", path);
    pa__cost_set(&m, path);
    return PA_OK;
}

double pa__cost_now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec * 1e9 + (double)t.tv_nsec;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

void pa__cost_sort(double *t, size_t n)
{
    qsort(t, n, sizeof t[0], cmp_double);
}

double pa__cost_clamp(double v, double lo, double hi)
{
    return v < lo ? lo : v > hi ? hi : v;
}

pa__layout pa__cost_affine(int n, const int64_t *size, const int64_t *stride)
{
    pa__layout l;
    memset(&l, 0, sizeof l);
    l.nmodes = n;
    l.size = 1;
    l.affine = 1;
    for (int i = 0; i < n; i++) {
        l.modes[i] = (pa__mode){.size = size[i], .stride = stride[i]};
        l.size *= size[i];
    }
    return l;
}
