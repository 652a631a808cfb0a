/*
 * parray — loading the standard SSB generator's .tbl files (dbgen -T a): pipe-separated fields, one row a
 * line, usually with a '|' after the last field.
 *
 * Each file is read whole; its lines are the table's rows, parsed by every core (below).  Integer fields must
 * be optional '-' and digits within 32 bits; free-text fields are only counted.  String columns are interned
 * while parsing (a temporary id per distinct string) and turned into codes of a sorted dictionary at the end.
 * Any bad row stops the load with the file, the line and the field named, and nothing is returned.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <sys/mman.h>
#include <unistd.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "ssb_internal.h"

/* ---- interning strings ------------------------------------------------------------------------------------- */

typedef struct intern {
    char **str;
    size_t *len;
    uint64_t *hash;
    int n, cap;
    int *slot;          /* open addressing: index + 1, 0 empty */
    int nslot;
} intern;

/* A hash of s[0..n) eight bytes at a time (dictionary strings are short: a few words). */
static inline uint64_t str_hash(const char *s, size_t n)
{
    uint64_t h = (uint64_t)n * 0x9e3779b97f4a7c15ULL, w;
    for (; n >= 8; s += 8, n -= 8) {
        memcpy(&w, s, 8);
        h = (h ^ w) * 0xff51afd7ed558ccdULL;
        h ^= h >> 32;
    }
    w = 0;
    for (size_t i = 0; i < n; i++)
        w |= (uint64_t)(unsigned char)s[i] << (8 * i);
    h = (h ^ w) * 0xc4ceb9fe1a85ec53ULL;
    return h ^ (h >> 29);
}

static void intern_free(intern *t)
{
    for (int i = 0; i < t->n; i++)
        free(t->str[i]);
    free(t->str);
    free(t->len);
    free(t->hash);
    free(t->slot);
    memset(t, 0, sizeof *t);
}

static int intern_rehash(intern *t)
{
    int nslot = t->nslot ? t->nslot * 2 : 64;
    int *slot = calloc((size_t)nslot, sizeof *slot);
    if (!slot)
        return -1;
    for (int i = 0; i < t->n; i++) {
        size_t h = t->hash[i] & (size_t)(nslot - 1);
        while (slot[h])
            h = (h + 1) & (size_t)(nslot - 1);
        slot[h] = i + 1;
    }
    free(t->slot);
    t->slot = slot;
    t->nslot = nslot;
    return 0;
}

/* The id of the string s[0..n), added when new; -1 when out of memory.  A hit costs one hash of the string, a
 * compare of the stored hash and one memcmp: no lock, no table shared between threads. */
static int intern_id(intern *t, const char *s, size_t n)
{
    if (2 * (t->n + 1) > t->nslot && intern_rehash(t) < 0)
        return -1;
    uint64_t hash = str_hash(s, n);
    size_t h = hash & (size_t)(t->nslot - 1);
    for (; t->slot[h]; h = (h + 1) & (size_t)(t->nslot - 1)) {
        int i = t->slot[h] - 1;
        if (t->hash[i] == hash && t->len[i] == n && memcmp(t->str[i], s, n) == 0)
            return i;
    }
    if (t->n == t->cap) {
        int cap = t->cap ? t->cap * 2 : 64;
        char **str = realloc(t->str, (size_t)cap * sizeof *str);
        if (str)
            t->str = str;
        size_t *len = str ? realloc(t->len, (size_t)cap * sizeof *len) : NULL;
        if (len)
            t->len = len;
        uint64_t *hs = len ? realloc(t->hash, (size_t)cap * sizeof *hs) : NULL;
        if (!hs)
            return -1;
        t->hash = hs;
        t->cap = cap;
    }
    char *copy = malloc(n + 1);
    if (!copy)
        return -1;
    memcpy(copy, s, n);
    copy[n] = 0;
    t->str[t->n] = copy;
    t->len[t->n] = n;
    t->hash[t->n] = hash;
    t->slot[h] = ++t->n;
    return t->n - 1;
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* ---- parsing ------------------------------------------------------------------------------------------------ */

static int parse_int(const char *s, size_t n, int32_t *out)
{
    size_t i = s[0] == '-';
    long long v = 0;
    if (n == i || n > 12)
        return -1;
    for (; i < n; i++) {
        if (s[i] < '0' || s[i] > '9')
            return -1;
        v = v * 10 + (s[i] - '0');
    }
    v = s[0] == '-' ? -v : v;
    if (v < INT32_MIN || v > INT32_MAX)
        return -2;
    *out = (int32_t)v;
    return 0;
}

/*
 * A file is cut at line boundaries into one chunk per thread (a small file: one chunk); each thread checks its
 * chunk's lines, then parses its rows into the table's columns at its chunk's first row, interning strings into
 * its own tables; the tables are merged into one sorted dictionary per column at the end and each thread's ids
 * rewritten as codes.  Errors carry the file's line numbers (a chunk's first row is known before parsing) and,
 * where several chunks fail, the first in the file is the one reported: the same message as one thread's.
 */
#define MIN_CHUNK (1u << 20)    /* bytes: a file under 2 MiB is one chunk */
#define PROGRESS_STEP (64u << 20)
#define PAD 16                  /* zero bytes after a file's text in memory */

typedef struct chunk {
    size_t lo, hi;              /* its bytes: whole lines */
    int64_t lines, row0;        /* its '\n's; the table's row of its first line */
    int rc;                     /* its first error (PA_OK: none) */
    int64_t line;               /* the file's line of that error (for ordering) */
    char msg[480];
    intern *dicts;              /* per column: its strings' ids */
} chunk;

typedef struct tbl_job {
    pa_ssb_db *db;
    const char *path;
    pa_ssb_table t;
    const pa__ssb_field *fields;
    int nf, nchunks;
    const char *text;
    size_t len;
    int bars;                   /* whether rows end with '|': fixed by the first row that is not empty */
    int64_t first;              /* that row's line */
    chunk *ch;
    int32_t **remap;            /* per chunk: its ids of the column being rewritten -> codes */
    int remap_col;
    size_t parsed;              /* bytes parsed so far (atomic): the progress line */
} tbl_job;

static void chunk_err(chunk *c, int rc, int64_t line, const char *fmt, ...) __attribute__((format(printf, 4, 5)));
static void chunk_err(chunk *c, int rc, int64_t line, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(c->msg, sizeof c->msg, fmt, ap);
    va_end(ap);
    c->rc = rc;
    c->line = line;
}

/*
 * The checks on a chunk's lines before its rows are parsed: no NUL byte, and where the file's first row ends with
 * a '|' (as dbgen writes every row) so does every row.  Lines are numbered from first_line.
 */
static void check_chunk(const tbl_job *j, chunk *c, int64_t first_line)
{
    const char *text = j->text + c->lo;
    size_t len = c->hi - c->lo;
    const char *nul = memchr(text, '\0', len);
    int64_t line = first_line;
    for (size_t i = 0, start = 0; i < len; i++) {
        const char *nl = memchr(text + i, '\n', len - i);
        size_t at = nl ? (size_t)(nl - text) : len;
        if (nul && (size_t)(nul - text) < at) {
            chunk_err(c, PA_ERR_PARSE, line, "ssb: %s line %lld: a NUL byte (not a text file)", j->path,
                      (long long)line);
            return;
        }
        if (!nl)
            break;
        i = at;
        size_t end = i > start && text[i - 1] == '\r' ? i - 1 : i;
        int bar = end > start && text[end - 1] == '|';
        if (end > start && bar != j->bars) {
            chunk_err(c, PA_ERR_PARSE, line, "ssb: %s line %lld: %s, unlike line %lld (a row cut short?)", j->path,
                      (long long)line, j->bars ? "no '|' after the last field" : "a '|' after the last field",
                      (long long)j->first);
            return;
        }
        line++;
        start = i + 1;
    }
}

static void count_task(void *arg, int t, int nt)
{
    tbl_job *j = arg;
    (void)nt;
    chunk *c = &j->ch[t];
    int64_t n = 0;
    for (const char *p = j->text + c->lo, *e = j->text + c->hi; (p = memchr(p, '\n', (size_t)(e - p))); p++)
        n++;
    c->lines = n;
}

static void check_task(void *arg, int t, int nt)
{
    tbl_job *j = arg;
    (void)nt;
    check_chunk(j, &j->ch[t], j->ch[t].row0 + 1);
}

static int count_fields(const char *s, size_t n)
{
    int k = 1;
    for (size_t i = 0; i < n; i++)
        k += s[i] == '|';
    return k;
}

/*
 * Parses row r (the file's line r + 1) from s[0 .. linelen) into the columns, one pass over its bytes (fields are
 * short: a byte loop finds each '|' faster than a call would).  A row with the wrong number of fields is reported
 * as such even where one of its fields is also bad.  \return 0, or -1 (c->rc set).
 */
static int parse_row(tbl_job *j, chunk *c, int64_t r, const char *s, size_t linelen)
{
    pa_ssb_db *db = j->db;
    const pa__ssb_field *fields = j->fields;
    if (linelen && s[linelen - 1] == '\r')
        linelen--;
    if (linelen && s[linelen - 1] == '|')
        linelen--;   /* dbgen ends every row with a separator */
    const char *p = s, *e = s + linelen;
    for (int k = 0;; k++) {
        const char *q = p;
        while (q < e && *q != '|')
            q++;
        size_t n = (size_t)(q - p);
        int col = fields[k].col, bad = 0;
        if (col >= 0 && pa__ssb_cols[col].dict) {
            int id = intern_id(&c->dicts[col], p, n);
            if (id < 0) {
                chunk_err(c, PA_ERR_NOMEM, r + 1, "ssb: %s line %lld: dictionary of %s", j->path, (long long)r + 1,
                          fields[k].name);
                return -1;
            }
            db->col[col][r] = id;
        } else if (col >= 0) {
            bad = parse_int(p, n, &db->col[col][r]);
        }
        int last = q == e, nf = j->nf;
        if ((bad || last != (k + 1 == j->nf)) && (nf = count_fields(s, linelen)) != j->nf) {
            chunk_err(c, PA_ERR_PARSE, r + 1, "ssb: %s line %lld: %d fields, a %s row has %d", j->path, (long long)r + 1,
                      nf, pa__ssb_table_names[j->t], j->nf);
            return -1;
        }
        if (bad) {
            chunk_err(c, bad == -2 ? PA_ERR_RANGE : PA_ERR_PARSE, r + 1, "ssb: %s line %lld, field %d (%s): '%.*s' is %s",
                      j->path, (long long)r + 1, k + 1, fields[k].name, (int)(n > 40 ? 40 : n), p,
                      bad == -2 ? "outside 32-bit integers" : "not an integer");
            return -1;
        }
        if (last)
            return 0;
        p = q + 1;
    }
}

/*
 * The fast path of a row at s: each field parsed where it is found, one pass over the bytes (an integer's digits
 * are converted as they are read, a string's end is found by a byte loop), no search for the line's end first.
 * Any row it does not take as well-formed (a field too long, a sign without digits, fields too few or many, a
 * '\r' inside the line, ...) is left to parse_row, which accepts or names what is wrong: the fast path takes a
 * subset of what parse_row takes, with the same values.  Strings are interned only once the row is known good
 * (a row given up leaves no string behind).  \return the next line, or NULL: give the row to parse_row.
 */
static inline const char *parse_fast(tbl_job *j, chunk *c, int64_t r, const char *p)
{
    const char *str[32];
    size_t slen[32];
    int nstr = 0;
    int32_t *const *col = j->db->col;
    for (int k = 0; k < j->nf; k++) {
        int cn = j->fields[k].col;
        if (cn >= 0 && !pa__ssb_cols[cn].dict) {
            int neg = *p == '-';
            p += neg;
            /* Eight bytes at once (the buffer has PAD bytes after its end): their digits' count from the first
             * byte that is not a digit, and the digits' value by three multiplies. */
            uint64_t w, x, v;
            memcpy(&w, p, 8);
            x = w ^ 0x3030303030303030ULL;   /* digits become 0..9, every other byte a value above 9 */
            uint64_t non = ((x + 0x7676767676767676ULL) | x) & 0x8080808080808080ULL;
            int nd = non ? __builtin_ctzll(non) >> 3 : 8;
            if (nd == 0)
                return NULL;
            x <<= 8 * (8 - nd);
            x = (x * 10 + (x >> 8)) & 0x00ff00ff00ff00ffULL;
            x = (x * 100 + (x >> 16)) & 0x0000ffff0000ffffULL;
            v = (x * 10000 + (x >> 32)) & 0xffffffffULL;
            p += nd;
            if (nd == 8) {
                const char *d8 = p;
                while ((unsigned)(*p - '0') < 10u)
                    v = v * 10 + (uint64_t)(*p++ - '0');
                if (p - d8 > 2)
                    return NULL;
            }
            if (v > (uint64_t)INT32_MAX + (uint64_t)neg)
                return NULL;
            col[cn][r] = neg ? (int32_t)(-(int64_t)v) : (int32_t)v;
        } else {
            /* The field's end: the first '|', '\n' or '\r', eight bytes at a time. */
            const char *q = p;
            for (;; q += 8) {
                uint64_t w;
                memcpy(&w, q, 8);
                uint64_t a = w ^ 0x7c7c7c7c7c7c7c7cULL, b = w ^ 0x0a0a0a0a0a0a0a0aULL, d = w ^ 0x0d0d0d0d0d0d0d0dULL;
                uint64_t z = ((a - 0x0101010101010101ULL) & ~a) | ((b - 0x0101010101010101ULL) & ~b) |
                             ((d - 0x0101010101010101ULL) & ~d);
                z &= 0x8080808080808080ULL;
                if (z) {
                    q += __builtin_ctzll(z) >> 3;
                    break;
                }
            }
            if (cn >= 0) {
                str[nstr] = p;
                slen[nstr++] = (size_t)(q - p);
            }
            p = q;
        }
        if (k + 1 < j->nf && *p++ != '|')
            return NULL;
    }
    if (j->bars && *p++ != '|')
        return NULL;
    p += *p == '\r';
    if (*p != '\n')
        return NULL;
    for (int k = 0, i = 0; k < j->nf; k++) {
        int cn = j->fields[k].col;
        if (cn >= 0 && pa__ssb_cols[cn].dict) {
            int id = intern_id(&c->dicts[cn], str[i], slen[i]);
            if (id < 0)
                return NULL;   /* parse_row says so */
            col[cn][r] = id;
            i++;
        }
    }
    return p + 1;
}

static void parse_task(void *arg, int t, int nt)
{
    tbl_job *j = arg;
    chunk *c = &j->ch[t];
    (void)nt;
    const char *s = j->text + c->lo, *e = j->text + c->hi, *mark = s;
    for (int64_t r = c->row0; r < c->row0 + c->lines; r++) {
        const char *next = parse_fast(j, c, r, s);
        if (!next) {
            const char *end = memchr(s, '\n', (size_t)(e - s));
            if (parse_row(j, c, r, s, (size_t)(end - s)) < 0)
                return;
            next = end + 1;
        }
        s = next;
        if ((size_t)(s - mark) >= PROGRESS_STEP) {
            size_t done = __atomic_add_fetch(&j->parsed, (size_t)(s - mark), __ATOMIC_RELAXED);
            mark = s;
            if (t == 0)   /* the calling thread (pa_for runs thread 0 there): the progress line's */
                pa__ssb_progress(pa__ssb_table_names[j->t], (double)done, (double)j->len);
        }
    }
}

/* Reading a file with every thread: each its share of the bytes with pread (from the page cache, the copies run
 * in parallel; a file that shrinks meanwhile is an error, as for pa__read_regular). */
typedef struct reading {
    int fd;
    char *buf;
    size_t size;
    int err[PA_MAX_THREADS];    /* errno, or -1: the file shrank */
} reading;

static void pread_task(void *arg, int t, int nt)
{
    reading *r = arg;
    size_t at = r->size / (size_t)nt * (size_t)t, end = t + 1 == nt ? r->size : r->size / (size_t)nt * (size_t)(t + 1);
    while (at < end) {
        ssize_t n = pread(r->fd, r->buf + at, end - at, (off_t)at);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0) {
            r->err[t] = n < 0 ? errno : -1;
            return;
        }
        at += (size_t)n;
    }
}

/* A file's buffer: a large one aligned to 2 MiB and offered to transparent huge pages (where the kernel grants
 * them, a fault maps 2 MiB instead of 4 KiB: the page faults of a 12 GB file are otherwise a good part of its
 * read).  Freed with free. */
static char *text_alloc(size_t n)
{
    void *p = NULL;
    if (n < (8u << 20))
        return malloc(n);
    if (posix_memalign(&p, 2u << 20, n) != 0)
        return NULL;
#ifdef MADV_HUGEPAGE
    (void)madvise(p, n, MADV_HUGEPAGE);   /* advice: without it, ordinary pages */
#endif
    return p;
}

static int read_file(const char *path, int nthreads, char **out, size_t *len)
{
    reading *r = calloc(1, sizeof *r);
    int rc;
    if (!r)
        return pa__err(PA_ERR_NOMEM, "ssb: reading %s", path);
    if ((rc = pa__open_regular("ssb", path, 0, &r->fd, &r->size)) != PA_OK) {
        free(r);
        return rc;
    }
    int nt = r->size < 2 * MIN_CHUNK ? 1 : pa__ssb_threads(nthreads);
    if (!(r->buf = text_alloc(r->size + PAD)))
        rc = pa__err(PA_ERR_NOMEM, "ssb: %s: %zu bytes", path, r->size);
    if (rc == PA_OK && (rc = pa__ssb_parallel(nt, pread_task, r)) == PA_OK)
        for (int t = 0; t < nt && rc == PA_OK; t++)
            if (r->err[t])
                rc = pa__err(PA_ERR_SYS, "ssb: reading %s: %s", path, r->err[t] < 0 ? "the file shrank" : strerror(r->err[t]));
    close(r->fd);
    if (rc == PA_OK) {
        memset(r->buf + r->size, 0, PAD);   /* a NUL after the text, and room for parse_fast's 8-byte loads */
        *out = r->buf;
        *len = r->size;
    } else {
        free(r->buf);
    }
    free(r);
    return rc;
}

/* Each chunk's ids of column remap_col rewritten as the dictionary's codes. */
static void remap_task(void *arg, int t, int nt)
{
    tbl_job *j = arg;
    (void)nt;
    int32_t *col = j->db->col[j->remap_col], *map = j->remap[t];
    for (int64_t r = j->ch[t].row0; r < j->ch[t].row0 + j->ch[t].lines; r++)
        col[r] = map[col[r]];
}

/* Merges the chunks' strings of column c into its sorted dictionary and rewrites the rows' ids as codes. */
static int finish_dict(tbl_job *j, int c)
{
    pa_ssb_db *db = j->db;
    intern all = {0};
    char **sorted = NULL;
    int rc = PA_OK;
    j->remap = calloc((size_t)j->nchunks, sizeof *j->remap);
    if (!j->remap)
        return pa__err(PA_ERR_NOMEM, "ssb: dictionary of %s", pa__ssb_cols[c].name);
    for (int k = 0; k < j->nchunks && rc == PA_OK; k++) {
        intern *d = &j->ch[k].dicts[c];
        if (!(j->remap[k] = malloc(((size_t)d->n + 1) * sizeof(int32_t))))
            rc = PA_ERR_NOMEM;
        for (int i = 0; rc == PA_OK && i < d->n; i++)
            if ((j->remap[k][i] = intern_id(&all, d->str[i], strlen(d->str[i]))) < 0)
                rc = PA_ERR_NOMEM;
    }
    if (rc == PA_OK && !(sorted = malloc(((size_t)all.n + 1) * sizeof *sorted)))
        rc = PA_ERR_NOMEM;
    if (rc != PA_OK) {
        rc = pa__err(PA_ERR_NOMEM, "ssb: dictionary of %s", pa__ssb_cols[c].name);
        goto done;
    }
    if (all.n > 0)   /* an empty column has no strings (and all.str is NULL) */
        memcpy(sorted, all.str, (size_t)all.n * sizeof *sorted);
    qsort(sorted, (size_t)all.n, sizeof *sorted, cmp_str);
    if ((rc = pa__ssb_dict_set(&db->dict[c], (const char *const *)sorted, all.n)) != PA_OK)
        goto done;
    for (int k = 0; k < j->nchunks; k++)
        for (int i = 0; i < j->ch[k].dicts[c].n; i++)
            j->remap[k][i] = pa_ssb_dict_code(db, pa__ssb_cols[c].name, all.str[j->remap[k][i]]);
    j->remap_col = c;
    rc = pa__ssb_parallel(j->nchunks, remap_task, j);
done:
    for (int k = 0; k < j->nchunks; k++)
        free(j->remap[k]);
    free(j->remap);
    j->remap = NULL;
    free(sorted);
    intern_free(&all);
    return rc;
}

/* The first error of the chunks, in file order, as this thread's error.  \return its code, or PA_OK. */
static int first_error(const tbl_job *j)
{
    const chunk *best = NULL;
    for (int k = 0; k < j->nchunks; k++)
        if (j->ch[k].rc != PA_OK && (!best || j->ch[k].line < best->line))
            best = &j->ch[k];
    return best ? pa__err(best->rc, "%s", best->msg) : PA_OK;
}

static int load_table(pa_ssb_db *db, const char *dir, pa_ssb_table t, int nthreads)
{
    char path[4096];
    tbl_job j = {0};
    int rc = PA_OK;
    j.db = db;
    j.t = t;
    j.path = path;
    j.fields = pa__ssb_fields(t, &j.nf);
    snprintf(path, sizeof path, "%s/%s.tbl", dir, pa__ssb_table_names[t]);
    char *text = NULL;
    size_t len = 0;
    pa__ssb_progress(pa__ssb_table_names[t], 0, 1);
    if ((rc = read_file(path, nthreads, &text, &len)) != PA_OK)
        return rc;
    j.text = text;
    j.len = len;
    if (len == 0) {
        rc = pa__err(PA_ERR_PARSE, "ssb: %s is empty (a %s table has at least one row)", path, pa__ssb_table_names[t]);
        goto done;
    }
    /* The first row that is not empty says whether rows end with '|'. */
    j.bars = -1;
    for (size_t i = 0, start = 0, line = 1; i < len && j.bars < 0; i++) {
        if (text[i] != '\n')
            continue;
        size_t end = i > start && text[i - 1] == '\r' ? i - 1 : i;
        if (end > start) {
            j.bars = text[end - 1] == '|';
            j.first = (int64_t)line;
        }
        line++;
        start = i + 1;
    }
    /* Chunks: nthreads of whole lines, none under MIN_CHUNK bytes. */
    int nt = pa__ssb_threads(nthreads);
    size_t want = len / MIN_CHUNK;
    j.nchunks = want < (size_t)nt ? (want > 0 ? (int)want : 1) : nt;
    if (!(j.ch = calloc((size_t)j.nchunks, sizeof *j.ch))) {
        rc = pa__err(PA_ERR_NOMEM, "ssb: %s: %d chunks", path, j.nchunks);
        goto done;
    }
    for (int k = 0; k < j.nchunks; k++) {
        size_t at = len / (size_t)j.nchunks * (size_t)k;
        if (k > 0) {
            const char *nl = memchr(text + at, '\n', len - at);
            at = nl ? (size_t)(nl - text) + 1 : len;
            at = at > j.ch[k - 1].lo ? at : j.ch[k - 1].lo;
            j.ch[k - 1].hi = at;
        }
        j.ch[k].lo = at;
        j.ch[k].hi = len;
        if (!(j.ch[k].dicts = calloc(PA__SSB_NCOLS, sizeof *j.ch[k].dicts))) {
            rc = pa__err(PA_ERR_NOMEM, "ssb: %s: dictionaries", path);
            goto done;
        }
    }
    if ((rc = pa__ssb_parallel(j.nchunks, count_task, &j)) != PA_OK)
        goto done;
    int64_t rows = 0;
    for (int k = 0; k < j.nchunks; k++) {
        j.ch[k].row0 = rows;
        rows += j.ch[k].lines;
    }
    if ((rc = pa__ssb_parallel(j.nchunks, check_task, &j)) != PA_OK || (rc = first_error(&j)) != PA_OK)
        goto done;
    if (text[len - 1] != '\n') {
        rc = pa__err(PA_ERR_PARSE, "ssb: %s line %lld: no end of line after the last field (the file is "
                     "truncated?)", path, (long long)rows + 1);
        goto done;
    }
    if ((rc = pa__ssb_alloc_table(db, t, rows)) != PA_OK)
        goto done;
    if ((rc = pa__ssb_parallel(j.nchunks, parse_task, &j)) != PA_OK || (rc = first_error(&j)) != PA_OK)
        goto done;
    for (int k = 0; k < j.nf && rc == PA_OK; k++)
        if (j.fields[k].col >= 0 && pa__ssb_cols[j.fields[k].col].dict)
            rc = finish_dict(&j, j.fields[k].col);
    if (rc == PA_OK)
        pa__ssb_progress(pa__ssb_table_names[t], (double)len, (double)len);
done:
    for (int k = 0; j.ch && k < j.nchunks; k++) {
        for (int c = 0; j.ch[k].dicts && c < PA__SSB_NCOLS; c++)
            intern_free(&j.ch[k].dicts[c]);
        free(j.ch[k].dicts);
    }
    free(j.ch);
    free(text);
    return rc;
}

int pa__ssb_load_tbl_threads(const char *dir, double sf, int nthreads, pa_ssb_db **out)
{
    pa_ssb_db *db = NULL;
    int rc = PA_OK;
    if (!dir || !out)
        return pa__err(PA_ERR_INVAL, "pa_ssb_load_tbl: NULL argument");
    if (nthreads < 0)
        return pa__err(PA_ERR_RANGE, "pa_ssb_load_tbl: %d threads", nthreads);
    if (!(db = pa__ssb_db_new()))
        return pa__err(PA_ERR_NOMEM, "pa_ssb_load_tbl: out of memory");
    db->sf = sf;
    for (int t = 0; t < PA_SSB_NTABLES && rc == PA_OK; t++)
        rc = load_table(db, dir, (pa_ssb_table)t, nthreads);
    if (rc != PA_OK) {
        pa_ssb_destroy(db);
        return rc;
    }
    *out = db;
    return PA_OK;
}

int pa_ssb_load_tbl(const char *dir, double sf, pa_ssb_db **out)
{
    return pa__ssb_load_tbl_threads(dir, sf, 0, out);
}
