/*
 * Host memory types through types: pa_create, pa_destroy and pa_alloc_bytes on paged, mmap and numa types,
 * and every error they report.  The allocator-level cases are in test_mem_alloc.c.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "mem_internal.h"
#include "test_mem.h"
#include "testutil.h"


/* Under AddressSanitizer, let impossible allocations return NULL (PA_ERR_NOMEM) instead of aborting. */
const char *__asan_default_options(void);
const char *__asan_default_options(void)
{
    return "allocator_may_return_null=1";
}

/* ---- helpers ----------------------------------------------------------------------------------------- */

static pa_scope *scope;
static size_t live_before;   /* the allocation table's size before each test: errors must leave it as is */

static void setup(void)
{
    ck_assert_int_eq(pa_scope_create(NULL, &scope), PA_OK);
    live_before = pa__alloc_count();
}

static void teardown(void)
{
    ck_assert_uint_eq(pa__alloc_count(), live_before);
    pa_scope_destroy(scope);
    scope = NULL;
}

static const pa_type *parse(const char *decl)
{
    const pa_type *t = pa_type_parse(scope, decl);
    ck_assert_msg(t != NULL, "pa_type_parse(\"%s\"): %s", decl, pa_last_error());
    return t;
}

/* The status a failing call left: the message starts with the status name. */
static int last_status(void)
{
    const char *msg = pa_last_error();
    for (int st = 0; st >= -64; st--) {
        const char *name = pa_status_name(st);
        size_t n = strlen(name);
        if (strcmp(name, "UNKNOWN") != 0 && strncmp(msg, name, n) == 0 && msg[n] == ':')
            return st;
    }
    return 1;   /* no status: never equal to an expected one */
}

/* pa_create_opts as a status, for PA_CK_ERR: PA_OK (and the array destroyed) or the error it reported. */
static int create_status(const pa_type *t, const pa_mem_opts *opts)
{
    void *p = pa_create_opts(t, opts);
    if (p == NULL)
        return last_status();
    ck_assert_int_eq(pa_destroy(t, p), PA_OK);
    return PA_OK;
}

/* pa_alloc_bytes as a status, for PA_CK_ERR. */
static int bytes_status(const pa_type *t)
{
    return pa_alloc_bytes(t) == 0 ? last_status() : PA_OK;
}

static void touch_every_byte(void *p, size_t bytes)
{
    unsigned char *c = p;
    size_t bad = 0;
    for (size_t i = 0; i < bytes; i++)
        c[i] = (unsigned char)(i * 7u + 3u);
    for (size_t i = 0; i < bytes; i++)
        bad += c[i] != (unsigned char)(i * 7u + 3u);
    ck_assert_msg(bad == 0, "%zu of %zu bytes did not read back", bad, bytes);
}

static int temp_file(const void *data, size_t len)
{
    const char *dir = getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp";
    char path[4096];
    snprintf(path, sizeof path, "%s/parray-test-mem-XXXXXX", dir);
    int fd = mkstemp(path);
    ck_assert_msg(fd >= 0, "mkstemp(%s): %s", path, strerror(errno));
    unlink(path);
    ck_assert_int_eq(pwrite(fd, data, len, 0), (ssize_t)len);
    return fd;
}

/* ---- options ----------------------------------------------------------------------------------------- */

START_TEST(test_opts_defaults)
{
    pa_mem_opts o;
    memset(&o, 0x5a, sizeof o);
    pa_mem_opts_init(&o);
    ck_assert_uint_eq(o.alignment, 64);
    ck_assert_int_eq(o.numa_node, -1);
    ck_assert_int_eq(o.mmap_fd, -1);
    ck_assert_int_eq(o.mmap_offset, 0);
    ck_assert_int_eq(o.mmap_prot, PROT_READ | PROT_WRITE);
    ck_assert_int_eq(o.mmap_flags, 0);
    ck_assert_ptr_null(o.mmap_addr);
    ck_assert_uint_eq(o.size, sizeof o);
    for (size_t i = 0; i < sizeof o.reserved / sizeof o.reserved[0]; i++)
        ck_assert_uint_eq(o.reserved[i], 0);
    pa_mem_opts_init(NULL);   /* ignored */
    /* Options filled by hand (no pa_mem_opts_init: size 0) or by a program compiled with other headers are
     * refused, not read past their end. */
    const pa_type *t = parse("paged float [8]");
    pa_mem_opts bad = o;
    bad.size = 0;
    PA_CK_ERR(create_status(t, &bad), PA_ERR_INVAL);
    ck_assert_msg(strstr(pa_last_error(), "pa_mem_opts_init") != NULL, "%s", pa_last_error());
    bad.size = sizeof bad - 8;
    PA_CK_ERR(create_status(t, &bad), PA_ERR_INVAL);
    PA_CK_OK(create_status(t, &o));
}
END_TEST

/* ---- paged ------------------------------------------------------------------------------------------- */

START_TEST(test_paged_create)
{
    const pa_type *t = parse("paged float [[3][3]][2]");
    ck_assert_int_eq(pa_size(t), 18);
    ck_assert_uint_eq(pa_elm_size(t), 4);
    ck_assert_uint_eq(pa_alloc_bytes(t), 72);

    float *p = pa_create(t);
    ck_assert_msg(p != NULL, "%s", pa_last_error());
    ck_assert_uint_eq((uintptr_t)p % 64, 0);
    ck_assert_ptr_eq(pa__mem_of(p), pa__mem_find("paged"));
    ck_assert_uint_eq(pa__alloc_count(), live_before + 1);
    touch_every_byte(p, 72);
    for (int64_t i = 0; i < 18; i++)
        p[pa_offset(t, i)] = (float)i;
    ck_assert_float_eq(p[17], 17.0f);
    PA_CK_OK(pa_destroy(t, p));
    ck_assert_ptr_null(pa__mem_of(p));

    pa_mem_opts o;
    pa_mem_opts_init(&o);
    o.alignment = 4096;
    p = pa_create_opts(t, &o);
    ck_assert_msg(p != NULL, "%s", pa_last_error());
    ck_assert_uint_eq((uintptr_t)p % 4096, 0);
    touch_every_byte(p, 72);
    PA_CK_OK(pa_destroy(t, p));
    PA_CK_OK(pa_destroy(t, NULL));
}
END_TEST

/* A window into a larger array needs the array's extent, not the window's size. */
START_TEST(test_window_bytes)
{
    PA_CK_OK(pa_declare(scope, "DATA", "paged float [[100][100]]"));
    PA_CK_OK(pa_declare(scope, "WINDOW", "[[80 # disp(10) # DATA_0][80 # disp(10) # DATA_1]]"));
    const pa_type *data = pa_type_get(scope, "DATA"), *win = pa_type_get(scope, "WINDOW");
    ck_assert_ptr_nonnull(data);
    ck_assert_ptr_nonnull(win);
    ck_assert_int_eq(pa_size(win), 6400);
    ck_assert_uint_eq(pa_alloc_bytes(win), (89 * 100 + 89 + 1) * 4);
    ck_assert_uint_eq(pa_alloc_bytes(data), 100 * 100 * 4);

    /* WINDOW takes paged and float from DATA; its array reaches every offset the window can produce. */
    ck_assert_str_eq(pa_mtt(win), "paged");
    float *p = pa_create(win);
    ck_assert_msg(p != NULL, "%s", pa_last_error());
    for (int64_t i = 0; i < 6400; i++)
        p[pa_offset(win, i)] = 1.0f;
    ck_assert_float_eq(p[89 * 100 + 89], 1.0f);
    /* The same pointer read through several types: destroy through any type of its memory type. */
    PA_CK_OK(pa_destroy(pa_type_get(scope, "DATA_0"), p));
}
END_TEST

/* ---- mmap -------------------------------------------------------------------------------------------- */

/* The manual's listing 16: "mmap char [2]" over a file, swap its first two bytes, destroy writes back. */
START_TEST(test_mmap_listing16)
{
    PA_CK_OK(pa_declare(scope, "HOST", "mmap char [2]"));
    const pa_type *host_t = pa_type_get(scope, "HOST");
    int fd = temp_file("ab", 2);
    pa_mem_opts o;
    pa_mem_opts_init(&o);
    o.mmap_fd = fd;   /* $var mmap_file(fd) */
    char *host = pa_create_opts(host_t, &o);
    ck_assert_msg(host != NULL, "%s", pa_last_error());
    ck_assert_ptr_eq(pa__mem_of(host), pa__mem_find("mmap"));
    char tmp = host[0];
    host[0] = host[1];
    host[1] = tmp;
    ck_assert_int_eq(host[0], 'b');
    PA_CK_OK(pa_destroy(host_t, host));
    char back[3] = {0};
    ck_assert_int_eq(pread(fd, back, 2, 0), 2);
    ck_assert_str_eq(back, "ba");
    close(fd);
}
END_TEST

START_TEST(test_mmap_anonymous)
{
    const pa_type *t = parse("mmap double [1000]");
    double *p = pa_create(t);
    ck_assert_msg(p != NULL, "%s", pa_last_error());
    touch_every_byte(p, 8000);
    PA_CK_OK(pa_destroy(t, p));
}
END_TEST

START_TEST(test_mmap_errors)
{
    const pa_type *t = parse("mmap char [11]");
    int fd = temp_file("0123456789", 10);
    pa_mem_opts o;
    pa_mem_opts_init(&o);
    o.mmap_fd = fd;
    PA_CK_ERR(create_status(t, &o), PA_ERR_RANGE);         /* 10 bytes in the file, 11 needed */
    ck_assert_msg(strstr(pa_last_error(), "10 bytes") && strstr(pa_last_error(), "11"), "%s", pa_last_error());
    o.mmap_offset = 100;
    PA_CK_ERR(create_status(t, &o), PA_ERR_INVAL);         /* not a multiple of the page size */
    close(fd);
    o.mmap_offset = 0;
    PA_CK_ERR(create_status(t, &o), PA_ERR_SYS);           /* a closed descriptor */
    ck_assert_ptr_nonnull(strstr(pa_last_error(), strerror(EBADF)));
    o.mmap_fd = -3;
    PA_CK_ERR(create_status(t, &o), PA_ERR_INVAL);
}
END_TEST

/* ---- numa -------------------------------------------------------------------------------------------- */

/* Where numa memory is usable (the suite host_mem_numa; skipped, 77, elsewhere). */
START_TEST(test_numa)
{
    const pa_type *t = parse("numa int [1000]");
    pa_mem_opts o;
    pa_mem_opts_init(&o);
    ck_assert_int_eq(pa_mtt_available("numa"), 1);
    for (int node = -1; node <= 0; node++) {   /* interleaved, then on node 0 */
        o.numa_node = node;
        int *p = pa_create_opts(t, &o);
        ck_assert_msg(p != NULL, "node %d: %s", node, pa_last_error());
        ck_assert_ptr_eq(pa__mem_of(p), pa__mem_find("numa"));
        touch_every_byte(p, 4000);
        PA_CK_OK(pa_destroy(t, p));
    }
    o.numa_node = pa_test_numa_max_node() + 1;
    PA_CK_ERR(create_status(t, &o), PA_ERR_RANGE);
}
END_TEST

/* Where it is not (the suite host_mem): pa_create refuses with PA_ERR_NODEV and says why. */
START_TEST(test_numa_refused)
{
    const pa_type *t = parse("numa int [1000]");
    pa_mem_opts o;
    pa_mem_opts_init(&o);
    ck_assert_int_eq(pa_mtt_available("numa"), 0);
    PA_CK_ERR(create_status(t, &o), PA_ERR_NODEV);
    ck_assert_ptr_nonnull(strstr(pa_last_error(), pa_test_built("numa") ? "not available" : "without libnuma"));
}
END_TEST

/* ---- bad input --------------------------------------------------------------------------------------- */

static int64_t below_zero(int64_t i, void *ctx)
{
    (void)ctx;
    return i - 5;
}

/* 0, INT64_MAX / 2, INT64_MAX: the last overflows even "largest offset + 1". */
static int64_t far_away(int64_t i, void *ctx)
{
    (void)ctx;
    return i == 0 ? 0 : i == 1 ? INT64_MAX / 2 : INT64_MAX;
}

START_TEST(test_create_errors)
{
    pa_mem_opts o;
    pa_mem_opts_init(&o);

    PA_CK_ERR(create_status(NULL, NULL), PA_ERR_INVAL);
    PA_CK_ERR(bytes_status(NULL), PA_ERR_INVAL);

    if (!pa_test_built("cuda")) {
        PA_CK_ERR(create_status(parse("dmem float [4]"), NULL), PA_ERR_MTT);   /* no CUDA backend in this build */
        ck_assert_msg(strstr(pa_last_error(), "dmem") && strstr(pa_last_error(), "CUDA"), "%s", pa_last_error());
    }
    PA_CK_ERR(create_status(parse("smem float [4]"), NULL), PA_ERR_MTT);
    PA_CK_ERR(create_status(parse("float [4]"), NULL), PA_ERR_MTT);        /* no memory type at all */

    PA_CK_OK(pa_declare(scope, "M", "mpi [3]"));                          /* processes over memory */
    PA_CK_OK(pa_declare(scope, "D", "paged float [3][4]"));
    const pa_type *dist = parse("[#M][#D_1]");
    PA_CK_ERR(create_status(dist, NULL), PA_ERR_MTT);
    ck_assert_ptr_nonnull(strstr(pa_last_error(), "distributed"));
    PA_CK_ERR(bytes_status(dist), PA_ERR_MTT);
    if (!pa_test_built("cuda"))
        ck_assert_int_eq(pa_mtt_available("dmem"), 0);

    const pa_type *thr = parse("pthd [4]");
    PA_CK_ERR(create_status(thr, NULL), PA_ERR_MTT);
    ck_assert_ptr_nonnull(strstr(pa_last_error(), "cannot allocate a thread type"));
    PA_CK_ERR(bytes_status(thr), PA_ERR_MTT);

    PA_CK_OK(pa_declare(scope, "NOELM", "paged [4]"));
    PA_CK_ERR(create_status(pa_type_get(scope, "NOELM"), NULL), PA_ERR_ELM);
    ck_assert_ptr_nonnull(strstr(pa_last_error(), "NOELM"));

    o.alignment = 48;
    PA_CK_ERR(create_status(parse("paged int [4]"), &o), PA_ERR_INVAL);
    o.alignment = 0;
    PA_CK_ERR(create_status(parse("paged int [4]"), &o), PA_ERR_INVAL);

    PA_CK_OK(pa_scope_def_func(scope, "below_zero", below_zero, NULL));
    const pa_type *neg = parse("paged int [10 # func(below_zero)]");
    PA_CK_ERR(create_status(neg, NULL), PA_ERR_RANGE);
    ck_assert_ptr_nonnull(strstr(pa_last_error(), "-5"));

    /* Sizes are capped well below overflow, but user offsets are not: largest offset + 1, then times 8. */
    PA_CK_OK(pa_scope_def_func(scope, "far", far_away, NULL));
    PA_CK_ERR(create_status(parse("paged double [2 # func(far)]"), NULL), PA_ERR_RANGE);
    PA_CK_ERR(bytes_status(parse("paged char [3 # func(far)]")), PA_ERR_RANGE);
    ck_assert_ptr_nonnull(strstr(pa_last_error(), "overflows"));

    PA_CK_ERR(create_status(parse("paged char [1000000000000000]"), NULL), PA_ERR_NOMEM);
    ck_assert_msg(strstr(pa_last_error(), "1000000000000000 bytes"), "%s", pa_last_error());
}
END_TEST

START_TEST(test_destroy_errors)
{
    const pa_type *paged = parse("paged int [16]"), *mapped = parse("mmap int [16]");
    const pa_type *thr = parse("pthd [4]");
    int *p = pa_create(paged), *m = pa_create(mapped);
    ck_assert_ptr_nonnull(p);
    ck_assert_ptr_nonnull(m);
    int *foreign = malloc(64);

    PA_CK_ERR(pa_destroy(paged, foreign), PA_ERR_INVAL);      /* not made by pa_create */
    ck_assert_ptr_nonnull(strstr(pa_last_error(), "not made by pa_create"));
    PA_CK_ERR(pa_destroy(paged, p + 1), PA_ERR_INVAL);        /* inside an array, not its start */
    PA_CK_ERR(pa_destroy(NULL, p), PA_ERR_INVAL);
    PA_CK_ERR(pa_destroy(mapped, p), PA_ERR_INVAL);           /* paged memory through an mmap type */
    ck_assert_msg(strstr(pa_last_error(), "paged") && strstr(pa_last_error(), "mmap"), "%s", pa_last_error());
    PA_CK_ERR(pa_destroy(paged, m), PA_ERR_INVAL);            /* and the other way round */
    PA_CK_ERR(pa_destroy(thr, p), PA_ERR_INVAL);
    ck_assert_uint_eq(pa__alloc_count(), live_before + 2);    /* the refusals freed nothing */

    p[15] = 1;                                                /* both arrays still usable */
    m[15] = 2;
    PA_CK_OK(pa_destroy(paged, p));
    PA_CK_OK(pa_destroy(mapped, m));
    PA_CK_ERR(pa_destroy(paged, p), PA_ERR_INVAL);            /* destroyed twice */
    ck_assert_ptr_nonnull(strstr(pa_last_error(), "already destroyed"));
    PA_CK_ERR(pa_destroy(mapped, m), PA_ERR_INVAL);
    free(foreign);
}
END_TEST

/*
 * As host_mem: everything but the numa allocations, which are checked to be refused where numa memory is not
 * usable; with the argument "numa", as host_mem_numa: the numa allocations alone, skipped (77) where numa memory
 * is not usable (a build without libnuma, or numa_available() < 0).
 */
int main(int argc, char **argv)
{
    int numa_member = argc > 1 && strcmp(argv[1], "numa") == 0, usable = pa_mtt_available("numa");
    if (numa_member) {
        if (!usable) {
            printf("host_mem_numa: skipped: numa memory is not usable here (%s)\n",
                   pa_test_built("numa") ? "numa_available() < 0" : "built without libnuma");
            return 77;
        }
        Suite *s = suite_create("host_mem_numa");
        TCase *tc = tcase_create("numa");
        tcase_add_checked_fixture(tc, setup, teardown);
        tcase_add_test(tc, test_numa);
        pa_test_mem_add_numa(tc, 1);
        suite_add_tcase(s, tc);
        return pa_test_run(s);
    }
    Suite *s = suite_create("host_mem");
    TCase *alloc = pa_test_mem_alloc_tcase();
    if (!usable)
        pa_test_mem_add_numa(alloc, 0);
    suite_add_tcase(s, alloc);

    TCase *tc = tcase_create("types");
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_add_test(tc, test_opts_defaults);
    tcase_add_test(tc, test_paged_create);
    tcase_add_test(tc, test_window_bytes);
    tcase_add_test(tc, test_mmap_listing16);
    tcase_add_test(tc, test_mmap_anonymous);
    tcase_add_test(tc, test_mmap_errors);
    if (!usable)
        tcase_add_test(tc, test_numa_refused);
    tcase_add_test(tc, test_create_errors);
    tcase_add_test(tc, test_destroy_errors);
    suite_add_tcase(s, tc);
    return pa_test_run(s);
}
