/*
 * parray — the introspection command-line tool, built only on the public API (like hwloc's lstopo).
 *
 * It reads type declarations from files (-f) and inline text (-e) into one scope, in the order given, and
 * then shows types and dimensions (show) or explains the copy between two of them (explain).  The usage
 * text below is the reference; docs/cli.md repeats it with more examples.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <parray/parray.h>

#include "ssb_tool.h"
#include "tool_calibrate.h"

/* Exit statuses: 1 for declaration and type errors, 2 for usage errors (as grep and diff use 2). */
enum { EXIT_TYPE = 1, EXIT_USAGE = 2 };

/* Offsets shown by default: all of them up to this size, else the first and last quarter of it. */
enum { DEFAULT_OFFSET_LIMIT = 64, OFFSETS_PER_LINE = 16 };

static const char usage_text[] =
    "usage: parray [-f FILE]... [-e TEXT]... [--offsets N|all] show TYPE...\n"
    "       parray [-f FILE]... [-e TEXT]... explain DST SRC\n"
    "       parray info\n"
    "       parray calibrate [FILE]\n"
    "       parray ssb gen|load|export|run|check|sql [options]   (the Star Schema Benchmark, docs/ssb.md)\n"
    "       parray --help | --version\n"
    "\n"
    "info prints this machine's topology (packages, cores, hardware threads, NUMA nodes, GPUs), the backends\n"
    "(on, off by PA_BACKENDS, not built), the copy planner's cost model and which memory types are usable\n"
    "here.  calibrate measures the cost model's constants on this machine (about a second) and writes them to\n"
    "FILE, by default the file the library reads at start (PA_COST_FILE, else $XDG_CACHE_HOME/parray/cost,\n"
    "else ~/.cache/parray/cost); under mpirun -np K (K >= 3) the K - 1 drafted processes also measure MPI and,\n"
    "with a GPU each, NCCL between them.  The other commands read PARRAY type declarations into one scope, in the\n"
    "order given, then:\n"
    "  show TYPE...      prints, for each type or dimension, its name, memory type (mtt), element type and\n"
    "                    size, size, ndim, number of leaves, stp, cnt, extent, parameters, compiled layout\n"
    "                    (size:stride), canonical declaration and offsets\n"
    "  explain DST SRC   prints how a copy from SRC to DST would be done (strategy, shape, runs, threads)\n"
    "\n"
    "Options:\n"
    "  -f FILE           read declarations from FILE ('-' reads standard input; a regular file or stdin of at\n"
    "                    most 16 MiB); repeatable\n"
    "  -e TEXT           read declarations from TEXT; repeatable\n"
    "  --offsets N       show every offset of types of size <= N (default 64), otherwise the first and\n"
    "                    last N/4; 0 shows none and 'all' shows every offset\n"
    "  -h, --help        print this text\n"
    "  -V, --version     print the version\n"
    "\n"
    "Declarations, separated by newlines or ';' ('//' starts a comment):\n"
    "  parray DECL NAME          declares the type NAME\n"
    "  NAME = DECL               the same\n"
    "  var NAME = EXPR           sets an integer variable used in sizes and displacements\n"
    "where DECL is  [<int p, ...>] [mtt] [element type] dimtree,  a dimtree is a sequence of [...]\n"
    "siblings, and a dimension is a size expression, a reference #Name_path, nested [...], or a\n"
    "'#'-separated chain of those with disp(EXPR) and func(NAME).\n"
    "\n"
    "A TYPE is a declared name, a dimension path (A_0_1) or a parameterised type with its values\n"
    "(WINDOW<1,2>).\n"
    "\n"
    "Examples:\n"
    "  parray -e 'A = paged float [[3][3]][2]' show A A_0 A_0_1\n"
    "  parray -e 'parray paged float [[3][3]][2] A; parray [[#A_0_1][#A_0_0]][#A_1] B' show B_0\n"
    "  parray -e 'var n = 4; M = paged double [n][n]' -e 'T = paged double [#M_1][#M_0]' explain T M\n"
    "  parray -f types.pa --offsets all show 'WINDOW<1,2>'\n"
    "\n"
    "Exit status: 0 on success, 1 for a declaration or type error, 2 for a usage error.\n";

/* A growable text buffer for reading files. */
struct text {
    char *data;
    size_t len, cap;
};

static int text_append(struct text *t, const char *data, size_t n)
{
    if (t->len + n + 1 > t->cap) {
        size_t cap = t->cap ? t->cap : 4096;
        while (cap < t->len + n + 1)
            cap *= 2;
        char *p = realloc(t->data, cap);
        if (p == NULL)
            return -1;
        t->data = p;
        t->cap = cap;
    }
    memcpy(t->data + t->len, data, n);
    t->len += n;
    t->data[t->len] = '\0';
    return 0;
}

/*
 * Reads a whole declaration file ("-": standard input) of at most DECL_FILE_MAX bytes.  A named file must be a
 * regular file, opened without blocking: a FIFO would block the open and /dev/zero would never end.  Standard
 * input may be a pipe; the cap bounds it.  \return the text (to free), or NULL with a message printed.
 */
#define DECL_FILE_MAX (16u << 20)
static char *read_file(const char *path)
{
    FILE *f = stdin;
    if (strcmp(path, "-") != 0) {
        struct stat st;
        int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
        if (fd < 0 || fstat(fd, &st) != 0) {
            fprintf(stderr, "parray: cannot read %s: %s\n", path, strerror(errno));
            if (fd >= 0)
                close(fd);
            return NULL;
        }
        if (!S_ISREG(st.st_mode) || st.st_size > (off_t)DECL_FILE_MAX) {
            fprintf(stderr, "parray: cannot read %s: %s\n", path, !S_ISREG(st.st_mode)
                    ? "not a regular file (a FIFO, a device or a directory)" : "more than the 16 MiB a declaration "
                    "file may hold");
            close(fd);
            return NULL;
        }
        if ((f = fdopen(fd, "rb")) == NULL) {
            fprintf(stderr, "parray: cannot read %s: %s\n", path, strerror(errno));
            close(fd);
            return NULL;
        }
    }
    struct text t = {0};
    char chunk[4096];
    size_t n;
    int ok = text_append(&t, "", 0) == 0, big = 0;
    while (ok && (n = fread(chunk, 1, sizeof chunk, f)) > 0)
        ok = !(big = t.len + n > DECL_FILE_MAX) && text_append(&t, chunk, n) == 0;
    if (big) {
        fprintf(stderr, "parray: cannot read %s: more than the 16 MiB a declaration file may hold\n", path);
    } else if (ok && ferror(f)) {
        fprintf(stderr, "parray: cannot read %s: %s\n", path, strerror(errno));
        ok = 0;
    } else if (!ok) {
        fprintf(stderr, "parray: %s: out of memory\n", path);
    }
    if (f != stdin)
        fclose(f);
    if (!ok) {
        free(t.data);
        return NULL;
    }
    return t.data;
}

/*
 * Calls one of the library's snprintf-like formatters into a buffer that grows as needed.
 * \return the text (to free), or NULL with the library's error set.
 */
typedef int (*format_fn)(const pa_type *type, char *buf, size_t len);

static char *format_alloc(format_fn fn, const pa_type *type)
{
    char small[256];
    int n = fn(type, small, sizeof small);
    if (n < 0)
        return NULL;
    char *out = malloc((size_t)n + 1);
    if (out == NULL)
        return NULL;
    if ((size_t)n < sizeof small)
        memcpy(out, small, (size_t)n + 1);
    else if (fn(type, out, (size_t)n + 1) < 0) {
        free(out);
        return NULL;
    }
    return out;
}

/* Prints "  label    value" with a formatter's text, or the error in its place. */
static int show_formatted(const char *label, format_fn fn, const pa_type *type)
{
    char *s = format_alloc(fn, type);
    if (s == NULL) {
        printf("  %-8s (error: %s)\n", label, pa_last_error());
        return -1;
    }
    printf("  %-8s %s\n", label, s);
    free(s);
    return 0;
}

/* Prints the offsets of indices [from, to), continuing the current line of `*col` numbers. */
static int show_offset_range(const pa_type *type, int64_t from, int64_t to, int *col)
{
    for (int64_t i = from; i < to; i++) {
        int64_t off = pa_offset(type, i);
        if (off == PA_BAD_OFFSET) {
            printf("\n  (error at index %" PRId64 ": %s)\n", i, pa_last_error());
            return -1;
        }
        if (*col == OFFSETS_PER_LINE) {
            printf("\n  %-8s", "");
            *col = 0;
        }
        printf(" %" PRId64, off);
        (*col)++;
    }
    return 0;
}

/*
 * Prints the offsets: all of them when the size is at most `limit` (or limit < 0), otherwise the first and
 * last limit/4 with "..." between, sixteen to a line.
 */
static int show_offsets(const pa_type *type, int64_t size, int64_t limit)
{
    if (limit == 0)
        return 0;
    int col = 0, rc;
    printf("  %-8s", "offsets");
    if (limit < 0 || size <= limit) {
        rc = show_offset_range(type, 0, size, &col);
    } else {
        int64_t part = limit / 4 > 0 ? limit / 4 : 1;
        rc = show_offset_range(type, 0, part, &col);
        if (rc == 0) {
            printf("\n  %-8s ... (%" PRId64 " offsets in all, %" PRId64 " shown)\n  %-8s", "", size, 2 * part, "");
            col = 0;
            rc = show_offset_range(type, size - part, size, &col);
        }
    }
    if (rc == 0)
        printf("\n");
    return rc;
}

/* Shows one type or dimension.  \return 0, or -1 after printing the error on stderr. */
static int show_type(pa_scope *scope, const char *ref, int64_t offset_limit)
{
    const pa_type *t = pa_type_get(scope, ref);
    if (t == NULL) {
        fprintf(stderr, "parray: %s: %s\n", ref, pa_last_error());
        return -1;
    }
    int64_t size = pa_size(t), lo = 0, hi = 0;
    int failed = 0;

    printf("%s\n", pa_type_name(t));
    printf("  %-8s %s\n", "mtt", pa_mtt(t));
    printf("  %-8s %s (%zu bytes)\n", "elm", pa_elm(t), pa_elm_size(t));
    printf("  %-8s %" PRId64 "\n", "size", size);
    printf("  %-8s %d\n", "ndim", pa_ndim(t));
    printf("  %-8s %d\n", "leaves", pa_nleaves(t));
    printf("  %-8s %" PRId64 "\n", "stp", pa_stp(t));
    printf("  %-8s %d\n", "cnt", pa_cnt(t));
    if (pa_extent(t, &lo, &hi) == PA_OK)
        printf("  %-8s %" PRId64 "..%" PRId64 "\n", "extent", lo, hi);
    else
        printf("  %-8s (error: %s)\n", "extent", pa_last_error()), failed = 1;
    if (pa_nparams(t) > 0) {
        failed |= show_formatted("args", pa_args, t) < 0;
        failed |= show_formatted("para", pa_para, t) < 0;
    }
    failed |= show_formatted("layout", pa_layout_format, t) < 0;
    failed |= show_formatted("decl", pa_type_format, t) < 0;
    failed |= show_offsets(t, size, offset_limit) < 0;
    if (failed)
        fprintf(stderr, "parray: %s: a query failed (shown in the output)\n", ref);
    return failed ? -1 : 0;
}

/* Explains the copy from src to dst.  \return 0, or -1 after printing the error. */
static int explain_copy(pa_scope *scope, const char *dst_ref, const char *src_ref)
{
    const pa_type *dst = pa_type_get(scope, dst_ref);
    if (dst == NULL) {
        fprintf(stderr, "parray: %s: %s\n", dst_ref, pa_last_error());
        return -1;
    }
    const pa_type *src = pa_type_get(scope, src_ref);
    if (src == NULL) {
        fprintf(stderr, "parray: %s: %s\n", src_ref, pa_last_error());
        return -1;
    }
    char small[512];
    int n = pa_copy_explain(dst, src, small, sizeof small);
    if (n < 0) {
        fprintf(stderr, "parray: copy %s to %s: %s\n", src_ref, dst_ref, pa_last_error());
        return -1;
    }
    if ((size_t)n < sizeof small) {
        printf("%s\n", small);
        return 0;
    }
    char *line = malloc((size_t)n + 1);
    if (line == NULL || pa_copy_explain(dst, src, line, (size_t)n + 1) < 0) {
        fprintf(stderr, "parray: copy %s to %s: %s\n", src_ref, dst_ref, line ? pa_last_error() : "out of memory");
        free(line);
        return -1;
    }
    printf("%s\n", line);
    free(line);
    return 0;
}

/* Where the declarations come from, in order. */
struct source {
    int is_file;
    const char *arg;
};

/* Declares one source into the scope.  \return 0, EXIT_USAGE (file unreadable) or EXIT_TYPE. */
static int declare_source(pa_scope *scope, const struct source *src, int index)
{
    char *owned = NULL;
    const char *text = src->arg;
    if (src->is_file && (text = owned = read_file(src->arg)) == NULL)
        return EXIT_USAGE;
    int rc = pa_declare_text(scope, text);
    if (rc != PA_OK) {
        if (src->is_file)
            fprintf(stderr, "parray: %s: %s\n", src->arg, pa_last_error());
        else
            fprintf(stderr, "parray: -e #%d: %s\n", index, pa_last_error());
    }
    free(owned);
    return rc == PA_OK ? 0 : EXIT_TYPE;
}

static int usage_error(const char *fmt, const char *arg)
{
    fprintf(stderr, "parray: ");
    fprintf(stderr, fmt, arg);
    fprintf(stderr, "\nTry 'parray --help' for more information.\n");
    return EXIT_USAGE;
}

/* Parses the value of --offsets.  \return 0 with *out set (-1 for all), or -1. */
static int parse_limit(const char *s, int64_t *out)
{
    if (strcmp(s, "all") == 0) {
        *out = -1;
        return 0;
    }
    char *end;
    errno = 0;
    long long v = strtoll(s, &end, 10);
    if (errno != 0 || end == s || *end != '\0' || v < 0)
        return -1;
    *out = v;
    return 0;
}

int main(int argc, char **argv)
{
    if (argc >= 2 && strcmp(argv[1], "ssb") == 0)   /* the Star Schema Benchmark: tools/ssb.c */
        return pa_tool_ssb(argc - 1, argv + 1);
    struct source *sources = calloc((size_t)argc, sizeof *sources);
    const char **words = calloc((size_t)argc, sizeof *words);
    int nsources = 0, nwords = 0, status = 0, no_more_options = 0;
    int64_t offset_limit = DEFAULT_OFFSET_LIMIT;
    pa_scope *scope = NULL;
    if (sources == NULL || words == NULL) {
        fprintf(stderr, "parray: out of memory\n");
        status = EXIT_TYPE;
        goto done;
    }

    /* Options may stand anywhere; everything else is the subcommand and its arguments, in order. */
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (no_more_options || a[0] != '-' || strcmp(a, "-") == 0) {
            words[nwords++] = a;
        } else if (strcmp(a, "--") == 0) {
            no_more_options = 1;
        } else if (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0) {
            fputs(usage_text, stdout);
            goto done;
        } else if (strcmp(a, "-V") == 0 || strcmp(a, "--version") == 0) {
            printf("parray %s (headers %s)\n", pa_version(NULL, NULL, NULL), PA_VERSION_STRING);
            goto done;
        } else if (strcmp(a, "-f") == 0 || strcmp(a, "-e") == 0 || strcmp(a, "--offsets") == 0) {
            if (i + 1 == argc) {
                status = usage_error("option %s needs a value", a);
                goto done;
            }
            if (a[1] == '-') {
                if (parse_limit(argv[++i], &offset_limit) < 0) {
                    status = usage_error("--offsets wants a count or 'all', not '%s'", argv[i]);
                    goto done;
                }
            } else {
                sources[nsources].is_file = a[1] == 'f';
                sources[nsources++].arg = argv[++i];
            }
        } else {
            status = usage_error("unknown option '%s'", a);
            goto done;
        }
    }

    if (nwords == 0) {
        status = usage_error("%s", "no command given (info, calibrate, show or explain)");
        goto done;
    }
    if (strcmp(words[0], "info") == 0) {
        static const char *const mtts[] = {"paged", "numa", "mmap", "pinned", "dmem", "mpimem", "gamem"};
        status = pa_topology_print(stdout) == PA_OK ? 0 : EXIT_TYPE;
        pa_backends_print(stdout);
        pa_cost_print(stdout);
        printf("memory types:");
        for (size_t k = 0; k < sizeof mtts / sizeof mtts[0]; k++)
            printf(" %s(%s)", mtts[k], pa_mtt_available(mtts[k]) ? "yes" : "no");
        printf("\n");
        if (status)
            fprintf(stderr, "parray: %s\n", pa_last_error());
        goto done;
    }
    if (strcmp(words[0], "calibrate") == 0) {
        if (nwords > 2) {
            status = usage_error("%s", "calibrate takes at most one FILE");
            goto done;
        }
        status = pa_tool_calibrate(argc, argv, nwords == 2 ? words[1] : NULL) ? EXIT_TYPE : 0;
        goto done;
    }
    if (strcmp(words[0], "show") == 0) {
        if (nwords < 2) {
            status = usage_error("%s", "show needs at least one TYPE");
            goto done;
        }
    } else if (strcmp(words[0], "explain") == 0) {
        if (nwords != 3) {
            status = usage_error("%s", "explain needs exactly two types: DST SRC");
            goto done;
        }
    } else {
        status = usage_error("unknown command '%s' (info, calibrate, show or explain)", words[0]);
        goto done;
    }

    if (pa_scope_create(NULL, &scope) != PA_OK) {
        fprintf(stderr, "parray: %s\n", pa_last_error());
        status = EXIT_TYPE;
        goto done;
    }
    int e_index = 0;
    for (int i = 0; i < nsources && status == 0; i++)
        status = declare_source(scope, &sources[i], sources[i].is_file ? 0 : ++e_index);
    if (status != 0)
        goto done;

    if (words[0][0] == 's') {
        for (int i = 1; i < nwords; i++) {
            if (i > 1)
                printf("\n");
            if (show_type(scope, words[i], offset_limit) < 0)
                status = EXIT_TYPE;
        }
    } else if (explain_copy(scope, words[1], words[2]) < 0) {
        status = EXIT_TYPE;
    }

done:
    pa_scope_destroy(scope);
    free(sources);
    free(words);
    if (fflush(stdout) != 0 && status == 0)
        status = EXIT_TYPE;
    return status;
}
