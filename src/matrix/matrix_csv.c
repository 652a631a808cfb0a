/*
 * parray — a matrix from a CSV file of numbers (matrix.h: pa_matrix_from_csv).
 *
 * The file is read whole into memory and cut into one chunk per thread at line ends.  A first parallel pass
 * counts each chunk's lines and non-empty lines; their prefix sums give every chunk its first row and first
 * line number, so the second parallel pass parses each chunk straight into the matrix's columns
 * (data[j * height + row]) without any merge.  A worker cannot set the thread-local error message, so it
 * records its first error (kind, line, field, a copy of the field) and the calling thread words the error of
 * the earliest chunk that has one: the first bad line of the file.
 *
 * Numbers: integers by hand with a range check for the element type; floats through the exact fast path
 * (digits that fit the mantissa divided by an exact power of ten, a single correctly rounded operation) and
 * strtod / strtof otherwise, so every value equals what strtod / strtof reads.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "matrix_internal.h"
#include "parray/thread.h"

enum csv_fault { CSV_OK, CSV_WIDTH, CSV_NOTNUM, CSV_EMPTY, CSV_RANGE };

typedef struct csv_chunk {
    const char *begin, *end;
    int64_t lines, rows;       /* pass 1: physical lines and non-empty lines in the chunk */
    int64_t line0, row0;       /* pass 2: the chunk's first line number (0-based) and first row */
    int fault, field, nfields; /* the first error: kind, field (1-based), fields found on a ragged line */
    int64_t fault_line;        /* its line number (0-based) */
    char text[40];             /* the field, for the message */
} csv_chunk;

typedef struct csv_job {
    csv_chunk *chunks;
    int nchunks, pass, elm;
    int64_t width, height;
    void *data;                /* the matrix's elements */
} csv_job;

static const char *line_end(const char *p, const char *end)
{
    const char *nl = memchr(p, '\n', (size_t)(end - p));
    return nl ? nl : end;
}

/* A line is empty when it holds nothing but spaces, tabs and a '\r'. */
static int blank(const char *p, const char *e)
{
    for (; p < e; p++)
        if (*p != ' ' && *p != '\t' && *p != '\r')
            return 0;
    return 1;
}

static void count_chunk(csv_chunk *c)
{
    for (const char *p = c->begin; p < c->end;) {
        const char *e = line_end(p, c->end);
        c->lines++;
        c->rows += !blank(p, e);
        p = e + 1;
    }
}

static const double p10d[] = {1e0,  1e1,  1e2,  1e3,  1e4,  1e5,  1e6,  1e7,  1e8,  1e9,  1e10, 1e11,
                                1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22};
static const float p10f[] = {1e0f, 1e1f, 1e2f, 1e3f, 1e4f, 1e5f, 1e6f, 1e7f, 1e8f, 1e9f, 1e10f};

/* Parses a number of elm in [p, e) (trimmed, non-empty) into out.  \return CSV_OK, CSV_NOTNUM or CSV_RANGE. */
static int parse_number(const char *p, const char *e, int elm, void *out)
{
    const char *q = p;
    int neg = 0;
    if (elm == PA_MATRIX_FLOAT || elm == PA_MATRIX_DOUBLE) {
        /* Exact fast path: [-]digits[.digits] with a mantissa below 2^53 (2^24) and at most 22 (10) decimals. */
        uint64_t mant = 0;
        int digits = 0, frac = 0, dot = 0;
        if (q < e && (*q == '-' || *q == '+'))
            neg = *q++ == '-';
        for (; q < e; q++) {
            if (*q >= '0' && *q <= '9') {
                if (mant > (1ULL << 53) / 10)
                    break;
                mant = mant * 10 + (uint64_t)(*q - '0');
                digits++;
                frac += dot;
            } else if (*q == '.' && !dot) {
                dot = 1;
            } else {
                break;
            }
        }
        if (q == e && digits > 0) {
            if (elm == PA_MATRIX_DOUBLE && mant < (1ULL << 53) && frac <= 22) {
                double v = (double)mant / p10d[frac];
                *(double *)out = neg ? -v : v;
                return CSV_OK;
            }
            if (elm == PA_MATRIX_FLOAT && mant < (1ULL << 24) && frac <= 10) {
                float v = (float)mant / p10f[frac];
                *(float *)out = neg ? -v : v;
                return CSV_OK;
            }
        }
        /* Everything else through the C library; the field ends at a delimiter it does not read. */
        char *stop;
        errno = 0;
        if (elm == PA_MATRIX_DOUBLE)
            *(double *)out = strtod(p, &stop);
        else
            *(float *)out = strtof(p, &stop);
        return stop == e ? CSV_OK : CSV_NOTNUM;
    }
    uint64_t v = 0, lim;
    if (q < e && (*q == '-' || *q == '+'))
        neg = *q++ == '-';
    if (q == e)
        return CSV_NOTNUM;
    lim = elm == PA_MATRIX_SHORT ? 32767 : elm == PA_MATRIX_INT ? 2147483647ULL : 9223372036854775807ULL;
    lim += (uint64_t)neg;
    for (; q < e; q++) {
        if (*q < '0' || *q > '9')
            return CSV_NOTNUM;
        if (v > (lim - (uint64_t)(*q - '0')) / 10)
            return CSV_RANGE;
        v = v * 10 + (uint64_t)(*q - '0');
    }
    int64_t s = neg ? (int64_t)(0 - v) : (int64_t)v;
    if (elm == PA_MATRIX_SHORT)
        *(int16_t *)out = (int16_t)s;
    else if (elm == PA_MATRIX_INT)
        *(int32_t *)out = (int32_t)s;
    else
        *(int64_t *)out = s;
    return CSV_OK;
}

static void record(csv_chunk *c, int fault, int64_t line, int field, const char *p, const char *e)
{
    c->fault = fault;
    c->fault_line = line;
    c->field = field;
    size_t n = (size_t)(e - p) < sizeof c->text - 1 ? (size_t)(e - p) : sizeof c->text - 1;
    memcpy(c->text, p, n);
    c->text[n] = '\0';
}

/* The number of comma-separated fields in [p, e). */
static int64_t count_fields(const char *p, const char *e)
{
    int64_t n = 1;
    for (; p < e; p++)
        n += *p == ',';
    return n;
}

static void trim(const char **p, const char **e)
{
    while (*p < *e && (**p == ' ' || **p == '\t'))
        (*p)++;
    while (*e > *p && ((*e)[-1] == ' ' || (*e)[-1] == '\t' || (*e)[-1] == '\r'))
        (*e)--;
}

static void parse_chunk(const csv_job *g, csv_chunk *c)
{
    size_t esz = pa_matrix_elm_size(g->elm);
    int64_t line = c->line0, row = c->row0;
    for (const char *p = c->begin; p < c->end; line++) {
        const char *le = line_end(p, c->end);
        if (!blank(p, le)) {
            int64_t nf = count_fields(p, le);
            if (nf != g->width) {
                record(c, CSV_WIDTH, line, 0, p, le);
                c->nfields = nf > INT32_MAX ? INT32_MAX : (int)nf;
                return;
            }
            const char *f = p;
            for (int64_t j = 0; j < g->width; j++) {
                const char *fe = memchr(f, ',', (size_t)(le - f));
                const char *next;
                if (!fe)
                    fe = le;
                next = fe + 1;
                trim(&f, &fe);
                if (f == fe) {
                    record(c, CSV_EMPTY, line, (int)j + 1, f, fe);
                    return;
                }
                int fault = parse_number(f, fe, g->elm, (char *)g->data + ((size_t)j * (size_t)g->height + row) * esz);
                if (fault != CSV_OK) {
                    record(c, fault, line, (int)j + 1, f, fe);
                    return;
                }
                f = next;
            }
            row++;
        }
        p = le + 1;
    }
}

static int csv_thread(pa_ctx *ctx, void *arg)
{
    const csv_job *g = *(const csv_job **)arg;
    for (int64_t k = pa_tid(ctx); k < g->nchunks; k += pa_ctx_size(ctx)) {
        if (g->pass == 1)
            count_chunk(&g->chunks[k]);
        else
            parse_chunk(g, &g->chunks[k]);
    }
    return PA_OK;
}

static int run_pass(csv_job *g, int pass)
{
    pa_scope *s = NULL;
    char decl[48];
    int rc;
    g->pass = pass;
    if (g->nchunks == 1) {
        if (pass == 1)
            count_chunk(&g->chunks[0]);
        else
            parse_chunk(g, &g->chunks[0]);
        return PA_OK;
    }
    if ((rc = pa_scope_create(NULL, &s)) != PA_OK)
        return rc;
    snprintf(decl, sizeof decl, "pthd [%d]", g->nchunks);
    const pa_type *tt = pa_type_parse(s, decl);
    rc = tt ? pa_for(tt, csv_thread, &g, sizeof g) : pa__last_status();
    pa_scope_destroy(s);
    return rc;
}

/* The whole file: a regular one only (a FIFO or a device is refused without blocking: src/core/base/file_read.c). */
static int read_file(const char *path, char **out, size_t *len)
{
    return pa__read_regular("matrix from CSV", path, 0, out, len);
}

static int fault_message(const char *path, const csv_job *g, const csv_chunk *c)
{
    long long line = (long long)c->fault_line + 1;
    switch (c->fault) {
    case CSV_WIDTH:
        return pa__err(PA_ERR_PARSE, "matrix from CSV %s line %lld: %d fields, expected %lld (a ragged row)", path,
                       line, c->nfields, (long long)g->width);
    case CSV_EMPTY:
        return pa__err(PA_ERR_PARSE, "matrix from CSV %s line %lld field %d: empty field", path, line, c->field);
    case CSV_RANGE:
        return pa__err(PA_ERR_RANGE, "matrix from CSV %s line %lld field %d: \"%s\" is out of the range of %s", path,
                       line, c->field, c->text, pa_matrix_elm_name(g->elm));
    default:
        return pa__err(PA_ERR_PARSE, "matrix from CSV %s line %lld field %d: \"%s\" is not a number of type %s", path,
                       line, c->field, c->text, pa_matrix_elm_name(g->elm));
    }
}

/* The width from the header or the first row; *body gets where the rows begin and *line0 its line number. */
static int first_line(const char *path, const char *buf, const char *end, int flags, int64_t *width,
                      const char **body, int64_t *line0)
{
    const char *p = buf;
    int64_t line = 0;
    while (p < end) {
        const char *e = line_end(p, end);
        if (!blank(p, e)) {
            *width = count_fields(p, e);
            if (flags & PA_MATRIX_CSV_HEADER) {
                const char *f = p;
                for (int64_t j = 0; j < *width; j++) {
                    const char *fe = memchr(f, ',', (size_t)(e - f)), *next;
                    fe = fe ? fe : e;
                    next = fe + 1;
                    trim(&f, &fe);
                    if (f == fe)
                        return pa__err(PA_ERR_PARSE, "matrix from CSV %s line %lld: header field %lld is empty", path,
                                       (long long)line + 1, (long long)j + 1);
                    f = next;
                }
                *body = e < end ? e + 1 : end;
                *line0 = line + 1;
            } else {
                *body = p;
                *line0 = line;
            }
            if (*width > INT32_MAX)
                return pa__err(PA_ERR_RANGE, "matrix from CSV %s: %lld columns, above 2^31-1", path, (long long)*width);
            return PA_OK;
        }
        p = e + 1;
        line++;
    }
    *width = 0;
    *body = end;
    *line0 = line;
    return PA_OK;
}

int pa_matrix_from_csv(const char *path, int elm, int flags, const char *mtt, pa_matrix **out)
{
    char *buf = NULL;
    size_t len = 0;
    csv_job g = {0};
    pa_matrix h, *m = NULL, *moved = NULL;
    const char *body = NULL;
    int64_t line0 = 0;
    int rc, dev = mtt && strcmp(mtt, "dmem") == 0;
    if (!path || !out || !pa_matrix_elm_size(elm) || (flags & ~PA_MATRIX_CSV_HEADER))
        return pa__err(PA_ERR_INVAL, "pa_matrix_from_csv: %s", !path || !out ? "NULL argument"
                       : !pa_matrix_elm_size(elm) ? "unknown element type" : "unknown flags");
    if ((rc = read_file(path, &buf, &len)) != PA_OK)
        return rc;
    const char *end = buf + len;
    if ((rc = first_line(path, buf, end, flags, &g.width, &body, &line0)) != PA_OK)
        goto fail;
    /* Chunks of at least 1 MiB, one per thread at most, cut after a line end. */
    int nt = pa_threads_get_num();
    size_t span = (size_t)(end - body);
    g.nchunks = (int)(span / (1 << 20)) + 1;
    g.nchunks = g.nchunks < nt ? g.nchunks : nt;
    if (!(g.chunks = calloc((size_t)g.nchunks, sizeof *g.chunks))) {
        rc = pa__err(PA_ERR_NOMEM, "matrix from CSV %s", path);
        goto fail;
    }
    const char *p = body;
    for (int k = 0; k < g.nchunks; k++) {
        const char *e = k == g.nchunks - 1 ? end : body + span * (size_t)(k + 1) / (size_t)g.nchunks;
        if (e < p)
            e = p;
        if (e < end && e > p && e[-1] != '\n')
            e = line_end(e, end) < end ? line_end(e, end) + 1 : end;
        g.chunks[k].begin = p;
        g.chunks[k].end = e;
        p = e;
    }
    if ((rc = run_pass(&g, 1)) != PA_OK)
        goto fail;
    int64_t rows = 0, lines = line0;
    for (int k = 0; k < g.nchunks; k++) {
        g.chunks[k].row0 = rows;
        g.chunks[k].line0 = lines;
        rows += g.chunks[k].rows;
        lines += g.chunks[k].lines;
    }
    if (rows > INT32_MAX) {
        rc = pa__err(PA_ERR_RANGE, "matrix from CSV %s: %lld rows, above 2^31-1", path, (long long)rows);
        goto fail;
    }
    if (rows > 0 && g.width == 0) {
        rc = pa__err(PA_ERR_PARSE, "matrix from CSV %s: no columns", path);
        goto fail;
    }
    g.height = rows;
    g.elm = elm;
    h = (pa_matrix){elm, (int32_t)rows, (int32_t)g.width, PA_MATRIX_MAGIC};
    if ((rc = pa__matrix_alloc(dev ? "paged" : mtt, &h, &m)) != PA_OK)
        goto fail;
    g.data = (char *)m + PA__MATRIX_HEADER;
    if ((rc = run_pass(&g, 2)) != PA_OK)
        goto fail;
    for (int k = 0; k < g.nchunks; k++)
        if (g.chunks[k].fault != CSV_OK) {
            rc = fault_message(path, &g, &g.chunks[k]);
            goto fail;
        }
    if (dev) {
        if ((rc = pa_matrix_copy_to(m, "dmem", &moved)) != PA_OK)
            goto fail;
        pa_matrix_destroy(m);
        m = moved;
    }
    free(g.chunks);
    free(buf);
    *out = m;
    return PA_OK;

fail:
    pa_matrix_destroy(m);
    free(g.chunks);
    free(buf);
    return rc;
}
