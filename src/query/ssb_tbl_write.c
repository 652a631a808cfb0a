/*
 * parray — writing a database as dbgen-style .tbl files (pa_ssb_write_tbl): the reverse of the loader, so
 * that generated data can go to other systems and come back.  Kept columns are written as their integers or
 * their dictionary strings; free-text columns, which parray does not keep, get a placeholder naming the field
 * and the row ("c_name#17").  Each file is written under a temporary name and renamed.
 *
 * Every core formats: a table's rows are cut into blocks of BLOCK rows; a first pass computes each block's bytes
 * (digit counts and string lengths, no formatting), their prefix sums place the blocks in the file, and a second
 * pass formats each block into its thread's buffer and writes it at its place with pwrite.  The bytes are those
 * of printf's "%d" and "%s" whatever the thread count (a block whose formatted size differs from the first
 * pass's is an internal error, never a shifted file).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "internal.h"
#include "ssb_internal.h"

#define BLOCK 32768     /* rows: about 3 MiB of lineorder text, the thread's buffer */

typedef struct wjob {
    const pa_ssb_db *db;
    pa_ssb_table t;
    const pa__ssb_field *fields;
    int nf;
    const char *path;
    int fd;
    int64_t nblocks;
    int64_t *off;               /* nblocks + 1: each block's first byte in the file */
    uint32_t *len[PA__SSB_NCOLS];   /* dictionary columns: each code's string length */
    size_t namelen[32];         /* free-text fields: their name's length */
    size_t maxblock;            /* the largest block's bytes: each thread's buffer */
    int64_t done;               /* rows written (atomic): the progress line */
    int err[PA_MAX_THREADS];    /* errno, -1: a size mismatch, -2: out of memory */
} wjob;

static inline size_t digits(uint64_t v)
{
    size_t n = 1;
    while (v >= 10) {
        v /= 10;
        n++;
    }
    return n;
}

static inline size_t int_len(int32_t v)
{
    return v < 0 ? 1 + digits((uint64_t)-(int64_t)v) : digits((uint64_t)v);
}

/* Writes v's decimal digits at p.  \return the byte after them. */
static inline char *put_u64(char *p, uint64_t v)
{
    char tmp[20];
    int n = 0;
    do {
        tmp[n++] = (char)('0' + v % 10);
        v /= 10;
    } while (v);
    while (n)
        *p++ = tmp[--n];
    return p;
}

static inline char *put_int(char *p, int32_t v)
{
    if (v < 0) {
        *p++ = '-';
        return put_u64(p, (uint64_t)-(int64_t)v);
    }
    return put_u64(p, (uint64_t)v);
}

/* The bytes of rows [lo, hi). */
static size_t block_bytes(const wjob *j, int64_t lo, int64_t hi)
{
    size_t n = (size_t)(hi - lo) * (size_t)(j->nf + 1);   /* a '|' after every field, and the '\n' */
    for (int k = 0; k < j->nf; k++) {
        int c = j->fields[k].col;
        if (c < 0) {
            n += (size_t)(hi - lo) * (j->namelen[k] + 1);   /* "name#" */
            for (int64_t r = lo; r < hi; r++)
                n += digits((uint64_t)r + 1);
        } else if (pa__ssb_cols[c].dict) {
            const int32_t *x = j->db->col[c];
            for (int64_t r = lo; r < hi; r++)
                n += j->len[c][x[r]];
        } else {
            const int32_t *x = j->db->col[c];
            for (int64_t r = lo; r < hi; r++)
                n += int_len(x[r]);
        }
    }
    return n;
}

/* Formats rows [lo, hi) at p.  \return the byte after them. */
static char *block_format(const wjob *j, int64_t lo, int64_t hi, char *p)
{
    const pa_ssb_db *db = j->db;
    for (int64_t r = lo; r < hi; r++) {
        for (int k = 0; k < j->nf; k++) {
            int c = j->fields[k].col;
            if (c < 0) {
                memcpy(p, j->fields[k].name, j->namelen[k]);
                p += j->namelen[k];
                *p++ = '#';
                p = put_u64(p, (uint64_t)r + 1);
            } else if (pa__ssb_cols[c].dict) {
                int32_t code = db->col[c][r];
                memcpy(p, db->dict[c].str[code], j->len[c][code]);
                p += j->len[c][code];
            } else {
                p = put_int(p, db->col[c][r]);
            }
            *p++ = '|';
        }
        *p++ = '\n';
    }
    return p;
}

static void size_task(void *arg, int t, int nt)
{
    wjob *j = arg;
    int64_t rows = j->db->rows[j->t];
    for (int64_t b = t; b < j->nblocks; b += nt) {
        int64_t lo = b * BLOCK, hi = lo + BLOCK < rows ? lo + BLOCK : rows;
        j->off[b + 1] = (int64_t)block_bytes(j, lo, hi);
    }
}

static void write_task(void *arg, int t, int nt)
{
    wjob *j = arg;
    int64_t rows = j->db->rows[j->t];
    char *buf = malloc(j->maxblock + 1);
    if (!buf) {
        j->err[t] = -2;
        return;
    }
    for (int64_t b = t; b < j->nblocks && !j->err[t]; b += nt) {
        int64_t lo = b * BLOCK, hi = lo + BLOCK < rows ? lo + BLOCK : rows;
        size_t n = (size_t)(block_format(j, lo, hi, buf) - buf), at = 0;
        if (n != (size_t)(j->off[b + 1] - j->off[b])) {
            j->err[t] = -1;
            break;
        }
        while (at < n) {
            ssize_t w = pwrite(j->fd, buf + at, n - at, (off_t)(j->off[b] + (int64_t)at));
            if (w < 0 && errno == EINTR)
                continue;
            if (w <= 0) {
                j->err[t] = w < 0 ? errno : ENOSPC;
                break;
            }
            at += (size_t)w;
        }
        int64_t done = __atomic_add_fetch(&j->done, hi - lo, __ATOMIC_RELAXED);
        if (t == 0 && done < rows)   /* the calling thread's: the progress line (its end: write_table's) */
            pa__ssb_progress(pa__ssb_table_names[j->t], (double)done, (double)rows);
    }
    free(buf);
}

static int write_table(const pa_ssb_db *db, const char *dir, pa_ssb_table t, int nthreads)
{
    char path[4096], tmp[4200];
    wjob j = {0};
    int rc = PA_OK;
    j.db = db;
    j.t = t;
    j.path = path;
    j.fields = pa__ssb_fields(t, &j.nf);
    int64_t rows = db->rows[t];
    snprintf(path, sizeof path, "%s/%s.tbl", dir, pa__ssb_table_names[t]);
    snprintf(tmp, sizeof tmp, "%s.tmp", path);
    for (int k = 0; k < j.nf && rc == PA_OK; k++) {
        int c = j.fields[k].col;
        if (c < 0) {
            j.namelen[k] = strlen(j.fields[k].name);
        } else if (pa__ssb_cols[c].dict) {
            if (!(j.len[c] = malloc(((size_t)db->dict[c].n + 1) * sizeof *j.len[c])))
                rc = pa__err(PA_ERR_NOMEM, "ssb: writing %s", path);
            for (int i = 0; rc == PA_OK && i < db->dict[c].n; i++) {
                size_t n = strlen(db->dict[c].str[i]);   /* a dictionary's buffer is far below 4 GiB */
                j.len[c][i] = (uint32_t)n;
            }
        }
    }
    j.nblocks = (rows + BLOCK - 1) / BLOCK;
    int nt = pa__ssb_threads(nthreads);
    nt = j.nblocks < nt ? (j.nblocks > 0 ? (int)j.nblocks : 1) : nt;
    if (rc == PA_OK && !(j.off = calloc((size_t)j.nblocks + 1, sizeof *j.off)))
        rc = pa__err(PA_ERR_NOMEM, "ssb: writing %s", path);
    if (rc != PA_OK)
        goto done;
    pa__ssb_progress(pa__ssb_table_names[t], 0, (double)rows);
    if ((rc = pa__ssb_parallel(nt, size_task, &j)) != PA_OK)
        goto done;
    for (int64_t b = 0; b < j.nblocks; b++) {
        j.maxblock = (size_t)j.off[b + 1] > j.maxblock ? (size_t)j.off[b + 1] : j.maxblock;
        j.off[b + 1] += j.off[b];
    }
    j.fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
    if (j.fd < 0) {
        rc = pa__err(PA_ERR_SYS, "ssb: cannot create %s: %s", tmp, strerror(errno));
        goto done;
    }
    rc = pa__ssb_parallel(nt, write_task, &j);
    for (int k = 0; k < nt && rc == PA_OK; k++)
        if (j.err[k])
            rc = j.err[k] == -2   ? pa__err(PA_ERR_NOMEM, "ssb: writing %s: a block's buffer", path)
                 : j.err[k] == -1 ? pa__err(PA_ERR_SIZE, "ssb: writing %s: a block's size changed", path)
                                  : pa__err(PA_ERR_SYS, "ssb: writing %s failed: %s", path, strerror(j.err[k]));
    if (close(j.fd) != 0 && rc == PA_OK)
        rc = pa__err(PA_ERR_SYS, "ssb: writing %s failed: %s", path, strerror(errno));
    if (rc == PA_OK && rename(tmp, path) != 0)
        rc = pa__err(PA_ERR_SYS, "ssb: writing %s failed: %s", path, strerror(errno));
    if (rc != PA_OK)
        remove(tmp);
    else
        pa__ssb_progress(pa__ssb_table_names[t], (double)rows, (double)rows);
done:
    for (int c = 0; c < PA__SSB_NCOLS; c++)
        free(j.len[c]);
    free(j.off);
    return rc;
}

int pa__ssb_write_tbl_threads(const pa_ssb_db *db, const char *dir, int nthreads)
{
    int rc = PA_OK;
    if (!db || !dir)
        return pa__err(PA_ERR_INVAL, "pa_ssb_write_tbl: NULL argument");
    if (nthreads < 0)
        return pa__err(PA_ERR_RANGE, "pa_ssb_write_tbl: %d threads", nthreads);
    if ((rc = pa__ssb_require_all(db, "pa_ssb_write_tbl")) != PA_OK)
        return rc;
    if (mkdir(dir, 0777) != 0 && errno != EEXIST)
        return pa__err(PA_ERR_SYS, "ssb: cannot create directory %s: %s", dir, strerror(errno));
    for (int t = 0; t < PA_SSB_NTABLES && rc == PA_OK; t++)
        rc = write_table(db, dir, (pa_ssb_table)t, nthreads);
    return rc;
}

int pa_ssb_write_tbl(const pa_ssb_db *db, const char *dir)
{
    return pa__ssb_write_tbl_threads(db, dir, 0);
}
