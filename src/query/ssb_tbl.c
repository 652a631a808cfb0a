/*
 * parray — loading the standard SSB generator's .tbl files (dbgen -T a): pipe-separated fields, one row a
 * line, usually with a '|' after the last field.
 *
 * Each file is read whole; its lines are the table's rows.  Integer fields must be optional '-' and digits
 * within 32 bits; free-text fields are only counted.  String columns are interned while parsing (a temporary
 * id per distinct string) and turned into codes of a sorted dictionary at the end.  Any bad row stops the load
 * with the file, the line and the field named, and nothing is returned.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "ssb_internal.h"

/* ---- interning strings ------------------------------------------------------------------------------------- */

typedef struct intern {
    char **str;
    int n, cap;
    int *slot;          /* open addressing: index + 1, 0 empty */
    int nslot;
} intern;

static uint64_t str_hash(const char *s, size_t n)
{
    uint64_t h = 0xcbf29ce484222325ULL;
    for (size_t i = 0; i < n; i++)
        h = (h ^ (unsigned char)s[i]) * 0x100000001b3ULL;
    return h;
}

static void intern_free(intern *t)
{
    for (int i = 0; i < t->n; i++)
        free(t->str[i]);
    free(t->str);
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
        size_t h = str_hash(t->str[i], strlen(t->str[i])) & (size_t)(nslot - 1);
        while (slot[h])
            h = (h + 1) & (size_t)(nslot - 1);
        slot[h] = i + 1;
    }
    free(t->slot);
    t->slot = slot;
    t->nslot = nslot;
    return 0;
}

/* The id of the string s[0..n), added when new; -1 when out of memory. */
static int intern_id(intern *t, const char *s, size_t n)
{
    if (2 * (t->n + 1) > t->nslot && intern_rehash(t) < 0)
        return -1;
    size_t h = str_hash(s, n) & (size_t)(t->nslot - 1);
    for (; t->slot[h]; h = (h + 1) & (size_t)(t->nslot - 1)) {
        const char *x = t->str[t->slot[h] - 1];
        if (strncmp(x, s, n) == 0 && x[n] == 0)
            return t->slot[h] - 1;
    }
    if (t->n == t->cap) {
        int cap = t->cap ? t->cap * 2 : 64;
        char **str = realloc(t->str, (size_t)cap * sizeof *str);
        if (!str)
            return -1;
        t->str = str;
        t->cap = cap;
    }
    char *copy = malloc(n + 1);
    if (!copy)
        return -1;
    memcpy(copy, s, n);
    copy[n] = 0;
    t->str[t->n] = copy;
    t->slot[h] = ++t->n;
    return t->n - 1;
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Sorts the interned strings into the column's dictionary and rewrites the column's ids as codes. */
static int finish_dict(pa_ssb_db *db, int c, intern *t)
{
    int32_t *code = malloc(((size_t)t->n + 1) * sizeof *code);
    char **sorted = malloc(((size_t)t->n + 1) * sizeof *sorted);
    int rc = PA_OK;
    if (!code || !sorted) {
        rc = pa__err(PA_ERR_NOMEM, "ssb: dictionary of %s", pa__ssb_cols[c].name);
        goto done;
    }
    if (t->n > 0)   /* an empty column has no strings (and t->str is NULL) */
        memcpy(sorted, t->str, (size_t)t->n * sizeof *sorted);
    qsort(sorted, (size_t)t->n, sizeof *sorted, cmp_str);
    if ((rc = pa__ssb_dict_set(&db->dict[c], (const char *const *)sorted, t->n)) != PA_OK)
        goto done;
    for (int i = 0; i < t->n; i++)
        code[i] = pa_ssb_dict_code(db, pa__ssb_cols[c].name, t->str[i]);
    for (int64_t r = 0; r < db->rows[pa__ssb_cols[c].table]; r++)
        db->col[c][r] = code[db->col[c][r]];
done:
    free(code);
    free(sorted);
    return rc;
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
 * The checks on a whole file before its rows are parsed: it has rows, its last line ends with a newline (a file cut
 * short ends inside its last field, which would otherwise load as a shorter value), and where the first row ends
 * with a '|' (as dbgen writes every row) so does every row.
 */
static int check_lines(const char *path, pa_ssb_table t, const char *text, size_t len)
{
    if (len == 0)
        return pa__err(PA_ERR_PARSE, "ssb: %s is empty (a %s table has at least one row)", path,
                       pa__ssb_table_names[t]);
    int64_t line = 1, first = 0;
    int bars = -1;   /* whether rows end with '|': fixed by the first row that is not empty */
    for (size_t i = 0, start = 0; i < len; i++) {
        if (text[i] == '\0')
            return pa__err(PA_ERR_PARSE, "ssb: %s line %lld: a NUL byte (not a text file)", path, (long long)line);
        if (text[i] != '\n')
            continue;
        size_t end = i > start && text[i - 1] == '\r' ? i - 1 : i;
        int bar = end > start && text[end - 1] == '|';
        if (bars < 0 && end > start) {
            bars = bar;
            first = line;
        } else if (bar != bars && end > start) {
            return pa__err(PA_ERR_PARSE, "ssb: %s line %lld: %s, unlike line %lld (a row cut short?)", path,
                           (long long)line, bars ? "no '|' after the last field" : "a '|' after the last field",
                           (long long)first);
        }
        line++;
        start = i + 1;
    }
    if (text[len - 1] != '\n')
        return pa__err(PA_ERR_PARSE, "ssb: %s line %lld: no end of line after the last field (the file is "
                       "truncated?)", path, (long long)line);
    return PA_OK;
}

static int load_table(pa_ssb_db *db, const char *dir, pa_ssb_table t, intern *dicts)
{
    char path[4096];
    int nf, rc = PA_OK;
    const pa__ssb_field *fields = pa__ssb_fields(t, &nf);
    snprintf(path, sizeof path, "%s/%s.tbl", dir, pa__ssb_table_names[t]);
    char *text = NULL;
    size_t len = 0;
    if ((rc = pa__read_regular("ssb", path, 0, &text, &len)) != PA_OK)
        return rc;
    if ((rc = check_lines(path, t, text, len)) != PA_OK) {
        free(text);
        return rc;
    }
    int64_t rows = 0;
    for (size_t i = 0; i < len; i++)
        rows += text[i] == '\n';
    if ((rc = pa__ssb_alloc_table(db, t, rows)) != PA_OK)
        goto done;
    char *s = text;
    for (int64_t r = 0; r < rows; r++) {
        char *end = strchr(s, '\n');
        end = end ? end : s + strlen(s);
        size_t linelen = (size_t)(end - s);
        if (linelen && s[linelen - 1] == '\r')
            linelen--;
        if (linelen && s[linelen - 1] == '|')
            linelen--;   /* dbgen ends every row with a separator */
        int k = 1;
        for (size_t i = 0; i < linelen; i++)
            k += s[i] == '|';
        if (k != nf) {
            rc = pa__err(PA_ERR_PARSE, "ssb: %s line %lld: %d fields, a %s row has %d", path, (long long)r + 1, k,
                         pa__ssb_table_names[t], nf);
            goto done;
        }
        k = 0;
        for (const char *p = s;; k++) {
            const char *bar = memchr(p, '|', (size_t)(s + linelen - p));
            size_t n = bar ? (size_t)(bar - p) : (size_t)(s + linelen - p);
            if (fields[k].col >= 0) {
                int c = fields[k].col, e = 0;
                if (pa__ssb_cols[c].dict) {
                    int id = intern_id(&dicts[c], p, n);
                    if (id < 0) {
                        rc = pa__err(PA_ERR_NOMEM, "ssb: %s line %lld: dictionary of %s", path, (long long)r + 1,
                                     fields[k].name);
                        goto done;
                    }
                    db->col[c][r] = id;
                } else if ((e = parse_int(p, n, &db->col[c][r])) != 0) {
                    rc = pa__err(e == -2 ? PA_ERR_RANGE : PA_ERR_PARSE,
                                 "ssb: %s line %lld, field %d (%s): '%.*s' is %s", path, (long long)r + 1, k + 1,
                                 fields[k].name, (int)(n > 40 ? 40 : n), p,
                                 e == -2 ? "outside 32-bit integers" : "not an integer");
                    goto done;
                }
            }
            if (!bar)
                break;
            p = bar + 1;
        }
        s = *end ? end + 1 : end;
    }
    for (int k = 0; k < nf && rc == PA_OK; k++)
        if (fields[k].col >= 0 && pa__ssb_cols[fields[k].col].dict)
            rc = finish_dict(db, fields[k].col, &dicts[fields[k].col]);
done:
    free(text);
    return rc;
}

int pa_ssb_load_tbl(const char *dir, double sf, pa_ssb_db **out)
{
    pa_ssb_db *db = NULL;
    intern *dicts = NULL;
    int rc = PA_OK;
    if (!dir || !out)
        return pa__err(PA_ERR_INVAL, "pa_ssb_load_tbl: NULL argument");
    if (!(db = pa__ssb_db_new()) || !(dicts = calloc(PA__SSB_NCOLS, sizeof *dicts))) {
        rc = pa__err(PA_ERR_NOMEM, "pa_ssb_load_tbl: out of memory");
        goto fail;
    }
    db->sf = sf;
    for (int t = 0; t < PA_SSB_NTABLES && rc == PA_OK; t++)
        rc = load_table(db, dir, (pa_ssb_table)t, dicts);
    if (rc != PA_OK)
        goto fail;
    *out = db;
    db = NULL;
fail:
    for (int c = 0; dicts && c < PA__SSB_NCOLS; c++)
        intern_free(&dicts[c]);
    free(dicts);
    pa_ssb_destroy(db);
    return rc;
}
