/*
 * parray — the SSB columnar format (docs/ssb.md): one file of little-endian int32 per column, one text file
 * per dictionary, and a manifest.
 *
 *     parray-ssb 1
 *     scale_factor 1
 *     seed 42
 *     table lineorder 6000431            (one line per table: its rows)
 *     column lo_orderkey 6000431 9f2c...  (one line per column: rows, checksum of the values, 16 hex digits)
 *     dict lo_shipmode 7 0c1d...          (one line per dictionary: strings, checksum of the file's bytes)
 *
 * Writing puts every file under a temporary name and renames it, the manifest last, so a reader never takes
 * a half-written directory for a database.  Reading checks everything the manifest says before returning:
 * each file exists and has the size its row count gives (a truncated file is named), each checksum matches
 * (a corrupt file is named), dictionaries are sorted and distinct, and codes lie inside their dictionary.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "internal.h"
#include "ssb_internal.h"

#define MANIFEST "ssb.manifest"
#define MAGIC "parray-ssb 1"

static uint64_t bytes_hash(const char *p, size_t n)
{
    uint64_t h = 0xcbf29ce484222325ULL;
    for (size_t i = 0; i < n; i++)
        h = (h ^ (unsigned char)p[i]) * 0x100000001b3ULL;
    return h;
}

static int path_of(char *buf, size_t len, const char *dir, const char *name, const char *ext)
{
    int n = snprintf(buf, len, "%s/%s%s", dir, name, ext);
    return n < 0 || (size_t)n >= len ? pa__err(PA_ERR_INVAL, "ssb: path too long: %s/%s%s", dir, name, ext) : PA_OK;
}

/* Writes n bytes to dir/name+ext through a temporary file. */
static int put_file(const char *dir, const char *name, const char *ext, const void *data, size_t n)
{
    char path[4096], tmp[4200];
    int rc = path_of(path, sizeof path, dir, name, ext);
    if (rc != PA_OK)
        return rc;
    snprintf(tmp, sizeof tmp, "%s.tmp", path);
    FILE *f = fopen(tmp, "wb");
    if (!f)
        return pa__err(PA_ERR_SYS, "ssb: cannot create %s: %s", tmp, strerror(errno));
    size_t w = n ? fwrite(data, 1, n, f) : 0;
    int bad = w != n;
    bad |= fclose(f) != 0;
    if (bad || rename(tmp, path) != 0) {
        rc = pa__err(PA_ERR_SYS, "ssb: writing %s: %s", path, strerror(errno));
        remove(tmp);
    }
    return rc;
}

static char *dict_text(const pa__ssb_dict *d, size_t *n)
{
    size_t len = 0;
    for (int i = 0; i < d->n; i++)
        len += strlen(d->str[i]) + 1;
    char *buf = malloc(len + 1), *p = buf;
    if (!buf)
        return NULL;
    for (int i = 0; i < d->n; i++) {
        size_t l = strlen(d->str[i]);
        memcpy(p, d->str[i], l);
        p[l] = '\n';
        p += l + 1;
    }
    *n = len;
    return buf;
}

int pa_ssb_write(const pa_ssb_db *db, const char *dir)
{
    char *man = NULL;
    size_t cap = 65536, len = 0;
    int rc = PA_OK;
    if (!db || !dir)
        return pa__err(PA_ERR_INVAL, "pa_ssb_write: NULL argument");
    if ((rc = pa__ssb_require_all(db, "pa_ssb_write")) != PA_OK)
        return rc;
    if (mkdir(dir, 0777) != 0 && errno != EEXIST)
        return pa__err(PA_ERR_SYS, "ssb: cannot create directory %s: %s", dir, strerror(errno));
    if (!(man = malloc(cap)))
        return pa__err(PA_ERR_NOMEM, "ssb: manifest");
#define OUT(...) len += (size_t)snprintf(man + len, cap - len, __VA_ARGS__)
    OUT("%s\nscale_factor %.17g\nseed %" PRIu64 "\n", MAGIC, db->sf, db->seed);
    for (int t = 0; t < PA_SSB_NTABLES; t++)
        OUT("table %s %" PRId64 "\n", pa__ssb_table_names[t], db->rows[t]);
    for (int c = 0; c < PA__SSB_NCOLS && rc == PA_OK; c++) {
        int64_t rows = db->rows[pa__ssb_cols[c].table];
        rc = put_file(dir, pa__ssb_cols[c].name, ".i32", db->col[c], (size_t)rows * sizeof(int32_t));
        OUT("column %s %" PRId64 " %016" PRIx64 "\n", pa__ssb_cols[c].name, rows,
            pa__ssb_checksum(db->col[c], rows, 0));
        if (rc == PA_OK && pa__ssb_cols[c].dict) {
            size_t n = 0;
            char *text = dict_text(&db->dict[c], &n);
            rc = text ? put_file(dir, pa__ssb_cols[c].name, ".dict", text, n)
                      : pa__err(PA_ERR_NOMEM, "ssb: dictionary of %s", pa__ssb_cols[c].name);
            if (text)
                OUT("dict %s %d %016" PRIx64 "\n", pa__ssb_cols[c].name, db->dict[c].n, bytes_hash(text, n));
            free(text);
        }
    }
#undef OUT
    if (rc == PA_OK)
        rc = put_file(dir, MANIFEST, "", man, len);
    free(man);
    return rc;
}

/* ---- reading ---------------------------------------------------------------------------------------------- */

/* Reads a whole regular file; expect >= 0: its size must be exactly that (checked before a byte is read). */
static int get_file(const char *dir, const char *name, const char *ext, int64_t expect, char **out, size_t *n)
{
    char path[4096];
    int fd = -1;
    size_t size = 0;
    int rc = path_of(path, sizeof path, dir, name, ext);
    if (rc != PA_OK)
        return rc;
    if ((rc = pa__open_regular("ssb", path, 0, &fd, &size)) != PA_OK)
        return rc;
    close(fd);
    if (expect >= 0 && (uint64_t)size != (uint64_t)expect)
        return pa__err(PA_ERR_SIZE, "ssb: %s has %zu bytes, the manifest's row count needs %lld (%s)", path, size,
                       (long long)expect, (uint64_t)size < (uint64_t)expect ? "truncated" : "too long");
    if ((rc = pa__read_regular("ssb", path, 0, out, n)) == PA_OK && expect >= 0 && (uint64_t)*n != (uint64_t)expect) {
        free(*out);   /* changed between the two opens: its bytes no longer match the manifest's count */
        *out = NULL;
        return pa__err(PA_ERR_SIZE, "ssb: %s changed while it was read (%zu bytes, the manifest's row count needs "
                       "%lld)", path, *n, (long long)expect);
    }
    return rc;
}

/* Splits a dictionary file into its strings, checking they are sorted and distinct. */
static int parse_dict(pa__ssb_dict *d, char *text, size_t n, int expect, const char *name)
{
    int count = 0;
    d->buf = text;   /* owned by the dictionary from here, freed with the database */
    for (size_t i = 0; i < n; i++)
        count += text[i] == '\n';
    if (count != expect || (n && text[n - 1] != '\n'))
        return pa__err(PA_ERR_SIZE, "ssb: %s.dict has %d strings, the manifest says %d", name, count, expect);
    d->str = malloc(((size_t)count + 1) * sizeof *d->str);
    if (!d->str)
        return pa__err(PA_ERR_NOMEM, "ssb: %s.dict", name);
    d->n = count;
    char *p = text;
    for (int i = 0; i < count; i++) {
        char *nl = strchr(p, '\n');
        *nl = 0;
        d->str[i] = p;
        p = nl + 1;
        if (i > 0 && strcmp(d->str[i - 1], d->str[i]) >= 0)
            return pa__err(PA_ERR_PARSE, "ssb: %s.dict line %d: not sorted after line %d (corrupt)", name, i + 1, i);
    }
    return PA_OK;
}

typedef struct manifest {
    int64_t trows[PA_SSB_NTABLES];
    int64_t rows[PA__SSB_NCOLS];
    uint64_t ck[PA__SSB_NCOLS], dck[PA__SSB_NCOLS];
    int nstr[PA__SSB_NCOLS];
    int seen[PA__SSB_NCOLS], dseen[PA__SSB_NCOLS], tseen[PA_SSB_NTABLES];
} manifest;

static int parse_manifest(const char *dir, char *text, pa_ssb_db *db, manifest *m)
{
    int line = 0;
    for (char *s = text, *nl; *s; s = nl + 1) {
        char word[32], name[64];
        long long a;
        unsigned long long b;
        double sf;
        nl = strchr(s, '\n');
        if (!nl)
            return pa__err(PA_ERR_PARSE, "ssb: %s/" MANIFEST " line %d: no end of line (truncated?)", dir, line + 1);
        *nl = 0;
        line++;
        if (line == 1) {
            if (strcmp(s, MAGIC) != 0)
                return pa__err(PA_ERR_PARSE, "ssb: %s/" MANIFEST " line 1: '%s' is not '" MAGIC "'", dir, s);
            continue;
        }
        int c = -1, t = -1, ok = sscanf(s, "%31s", word) == 1;
        if (ok && strcmp(word, "scale_factor") == 0) {
            ok = sscanf(s, "%*s %lf", &sf) == 1 && sf > 0;
            db->sf = sf;
        } else if (ok && strcmp(word, "seed") == 0) {
            ok = sscanf(s, "%*s %llu", &b) == 1;
            db->seed = b;
        } else if (ok && strcmp(word, "table") == 0) {
            ok = sscanf(s, "%*s %63s %lld", name, &a) == 2 && a >= 0 && a <= PA__SSB_MAX_ROWS;
            for (int k = 0; ok && k < PA_SSB_NTABLES; k++)
                t = strcmp(pa__ssb_table_names[k], name) == 0 ? k : t;
            if ((ok = ok && t >= 0)) {
                m->trows[t] = a;
                m->tseen[t] = 1;
            }
        } else if (ok && (strcmp(word, "column") == 0 || strcmp(word, "dict") == 0)) {
            ok = sscanf(s, "%*s %63s %lld %llx", name, &a, &b) == 3 && a >= 0 && a <= PA__SSB_MAX_ROWS &&
                 (c = pa__ssb_col_index(name)) >= 0;
            if (ok && word[0] == 'c') {
                m->rows[c] = a;
                m->ck[c] = b;
                m->seen[c] = 1;
            } else if ((ok = ok && pa__ssb_cols[c].dict && a <= INT32_MAX)) {
                m->nstr[c] = (int)a;
                m->dck[c] = b;
                m->dseen[c] = 1;
            }
        } else {
            ok = 0;
        }
        if (!ok && (word[0] == 't' || word[0] == 'c' || word[0] == 'd') && sscanf(s, "%*s %*s %lld", &a) == 1 &&
            (a < 0 || a > PA__SSB_MAX_ROWS))
            return pa__err(PA_ERR_RANGE, "ssb: %s/" MANIFEST " line %d: %lld rows or strings (a count must lie in "
                           "0 .. %lld)", dir, line, a, (long long)PA__SSB_MAX_ROWS);
        if (!ok)
            return pa__err(PA_ERR_PARSE, "ssb: %s/" MANIFEST " line %d: cannot read '%s'", dir, line, s);
    }
    for (int t = 0; t < PA_SSB_NTABLES; t++)
        if (!m->tseen[t])
            return pa__err(PA_ERR_PARSE, "ssb: %s/" MANIFEST ": no row count for table %s", dir, pa__ssb_table_names[t]);
    for (int c = 0; c < PA__SSB_NCOLS; c++) {
        if (!m->seen[c] || (pa__ssb_cols[c].dict && !m->dseen[c]))
            return pa__err(PA_ERR_PARSE, "ssb: %s/" MANIFEST ": no %s line for %s", dir, m->seen[c] ? "dict" : "column",
                           pa__ssb_cols[c].name);
        if (m->rows[c] != m->trows[pa__ssb_cols[c].table])
            return pa__err(PA_ERR_SIZE, "ssb: %s/" MANIFEST ": column %s has %lld rows, table %s has %lld", dir,
                           pa__ssb_cols[c].name, (long long)m->rows[c], pa__ssb_table_names[pa__ssb_cols[c].table],
                           (long long)m->trows[pa__ssb_cols[c].table]);
    }
    return PA_OK;
}

static int read_column(const char *dir, pa_ssb_db *db, const manifest *m, int c)
{
    const char *name = pa__ssb_cols[c].name;
    char *buf = NULL;
    size_t n = 0;
    int rc = get_file(dir, name, ".i32", m->rows[c] * 4, &buf, &n);   /* rows <= PA__SSB_MAX_ROWS: no overflow */
    if (rc != PA_OK)
        return rc;
    db->col[c] = (int32_t *)buf;
    if (pa__ssb_checksum(db->col[c], m->rows[c], 0) != m->ck[c])
        return pa__err(PA_ERR_PARSE, "ssb: %s/%s.i32 is corrupt: its checksum differs from the manifest's", dir, name);
    if (!pa__ssb_cols[c].dict)
        return PA_OK;
    if ((rc = get_file(dir, name, ".dict", -1, &buf, &n)) != PA_OK)
        return rc;
    if (bytes_hash(buf, n) != m->dck[c]) {
        free(buf);
        return pa__err(PA_ERR_PARSE, "ssb: %s/%s.dict is corrupt: its checksum differs from the manifest's", dir, name);
    }
    if ((rc = parse_dict(&db->dict[c], buf, n, m->nstr[c], name)) != PA_OK)
        return rc;
    for (int64_t i = 0; i < m->rows[c]; i++)
        if (db->col[c][i] < 0 || db->col[c][i] >= db->dict[c].n)
            return pa__err(PA_ERR_PARSE, "ssb: %s/%s.i32 row %lld: code %d outside the dictionary of %d strings", dir,
                           name, (long long)i, db->col[c][i], db->dict[c].n);
    return PA_OK;
}

int pa_ssb_read(const char *dir, pa_ssb_db **out)
{
    return pa_ssb_read_with(dir, 0, out);
}

int pa_ssb_read_with(const char *dir, unsigned flags, pa_ssb_db **out)
{
    pa_ssb_db *db = NULL;
    manifest *m = NULL;
    char *text = NULL;
    size_t n = 0;
    int rc;
    if (!dir || !out)
        return pa__err(PA_ERR_INVAL, "pa_ssb_read: NULL argument");
    if (flags & ~PA_SSB_QUERY_COLUMNS)
        return pa__err(PA_ERR_RANGE, "pa_ssb_read: flags %#x (PA_SSB_QUERY_COLUMNS is the only one)", flags);
    if ((rc = get_file(dir, MANIFEST, "", -1, &text, &n)) != PA_OK)
        return rc;
    if (!(db = pa__ssb_db_new()) || !(m = calloc(1, sizeof *m))) {
        rc = pa__err(PA_ERR_NOMEM, "pa_ssb_read: out of memory");
        goto fail;
    }
    if ((rc = parse_manifest(dir, text, db, m)) != PA_OK)
        goto fail;
    for (int t = 0; t < PA_SSB_NTABLES; t++)
        db->rows[t] = m->trows[t];
    for (int c = 0; c < PA__SSB_NCOLS && rc == PA_OK; c++)
        if (!(flags & PA_SSB_QUERY_COLUMNS) || pa__ssb_query_col(c))
            rc = read_column(dir, db, m, c);
    if (rc != PA_OK)
        goto fail;
    *out = db;
    db = NULL;
fail:
    free(text);
    free(m);
    pa_ssb_destroy(db);
    return rc;
}
