/*
 * Host memory types, below the types: the mtt registry, the paged, mmap and numa allocators called through
 * their ops, and the allocation table.  Part of the host_mem suite (test_mem.c has the tests through types).
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "mem_internal.h"
#include "test_mem.h"
#include "testutil.h"


/* ---- helpers ----------------------------------------------------------------------------------------- */

static pa_mem_opts default_opts(void)
{
    pa_mem_opts o;
    pa_mem_opts_init(&o);
    return o;
}

/* Fills every byte with a pattern and reads it back: the whole allocation must be usable. */
static void touch_every_byte(void *p, size_t bytes, unsigned seed)
{
    unsigned char *c = p;
    for (size_t i = 0; i < bytes; i++)
        c[i] = (unsigned char)(i * 31u + seed);
    /* One assertion at the end: Check reports every assertion's location through a pipe, which is slow. */
    size_t bad = 0;
    for (size_t i = 0; i < bytes; i++)
        bad += c[i] != (unsigned char)(i * 31u + seed);
    ck_assert_msg(bad == 0, "%zu of %zu bytes did not read back", bad, bytes);
}

/* A temporary file holding the given bytes, already unlinked; the caller closes the descriptor. */
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

static void read_back(int fd, void *buf, size_t len, off_t offset)
{
    ck_assert_int_eq(pread(fd, buf, len, offset), (ssize_t)len);
}

/* ---- the mtt registry -------------------------------------------------------------------------------- */

static const char *const memory_names[] = {"paged", "pinned", "dmem", "mpimem", "smem", "rmem",
                                           "mmap", "gamem", "numa", "micmem", "vmem"};
static const char *const thread_names[] = {"pthd", "omp", "cuda", "mpi", "mic"};
/* Memory types that never have an allocator, then those of backends this library may lack (the CUDA backend's
 * are tested in tests/cuda/); which of those are missing is asked of the library at run time. */
static const char *const missing_names[] = {"smem", "rmem", "micmem"};
static const struct {
    const char *mtt, *backend;
} backend_mtts[] = {{"pinned", "cuda"}, {"dmem", "cuda"}, {"mpimem", "mpi"}};

START_TEST(test_mtt_kinds)
{
    for (size_t i = 0; i < sizeof memory_names / sizeof *memory_names; i++)
        ck_assert_int_eq(pa__mtt_kind_of(memory_names[i]), PA__MTT_MEMORY);
    for (size_t i = 0; i < sizeof thread_names / sizeof *thread_names; i++) {
        ck_assert_int_eq(pa__mtt_kind_of(thread_names[i]), PA__MTT_THREAD);
        ck_assert_ptr_null(pa__mem_find(thread_names[i]));
        ck_assert_int_eq(pa_mtt_available(thread_names[i]), 0);
    }
    ck_assert_int_eq(pa__mtt_kind_of("any"), PA__MTT_NONE);
    ck_assert_int_eq(pa__mtt_kind_of("Paged"), PA__MTT_NONE);
    ck_assert_int_eq(pa__mtt_kind_of(NULL), PA__MTT_NONE);
}
END_TEST

START_TEST(test_mtt_allocators)
{
    ck_assert_str_eq(pa__mem_find("paged")->name, "paged");
    ck_assert_str_eq(pa__mem_find("mmap")->name, "mmap");
    ck_assert_str_eq(pa__mem_find("numa")->name, "numa");
    ck_assert_int_eq(pa__mem_find("paged")->host_accessible, 1);
    ck_assert_int_eq(pa_mtt_available("paged"), 1);
    ck_assert_int_eq(pa_mtt_available("mmap"), 1);
    ck_assert_int_eq(pa_mtt_available("numa"), pa_test_built("numa") && pa_test_numa_machine());
    for (size_t i = 0; i < sizeof missing_names / sizeof *missing_names; i++) {
        ck_assert_ptr_null(pa__mem_find(missing_names[i]));
        ck_assert_ptr_nonnull(pa__mem_missing(missing_names[i]));
        ck_assert_int_eq(pa_mtt_available(missing_names[i]), 0);
    }
    for (size_t i = 0; i < sizeof backend_mtts / sizeof *backend_mtts; i++) {
        if (pa_test_built(backend_mtts[i].backend))
            continue;
        ck_assert_ptr_null(pa__mem_find(backend_mtts[i].mtt));
        ck_assert_ptr_nonnull(pa__mem_missing(backend_mtts[i].mtt));
        ck_assert_int_eq(pa_mtt_available(backend_mtts[i].mtt), 0);
    }
    if (pa_test_built("gamem")) {
        /* gamem comes from the Global Arrays backend, linked into the tests; usable only while MPI runs. */
        ck_assert_str_eq(pa__mem_find("gamem")->name, "gamem");
        ck_assert_int_eq(pa__mem_find("gamem")->host_accessible, 0);
        ck_assert_int_eq(pa_mtt_available("gamem"), 0);
    } else {
        ck_assert_ptr_null(pa__mem_find("gamem"));
        ck_assert_ptr_nonnull(pa__mem_missing("gamem"));
    }
    if (pa_test_built("mpi")) {
        /* mpimem is allocated by the MPI backend, and usable only while MPI runs (not in this test). */
        ck_assert_str_eq(pa__mem_find("mpimem")->name, "mpimem");
        ck_assert_int_eq(pa__mem_find("mpimem")->host_accessible, 1);
        ck_assert_int_eq(pa_mtt_available("mpimem"), 0);
    }
    ck_assert_ptr_null(pa__mem_missing("paged"));
    ck_assert_ptr_null(pa__mem_missing("pthd"));
    ck_assert_int_eq(pa_mtt_available("nonsense"), 0);
    ck_assert_int_eq(pa_mtt_available(NULL), 0);
}
END_TEST

/* ---- paged ------------------------------------------------------------------------------------------- */

START_TEST(test_paged_alignment)
{
    const pa__mem_ops *ops = pa__mem_find("paged");
    static const size_t aligns[] = {sizeof(void *), 16, 64, 4096, 65536};
    static const size_t sizes[] = {1, 3, 1000, 1 << 20};
    pa_mem_opts o = default_opts();
    ck_assert_uint_eq(o.alignment, 64);
    for (size_t a = 0; a < sizeof aligns / sizeof *aligns; a++) {
        for (size_t s = 0; s < sizeof sizes / sizeof *sizes; s++) {
            void *p = NULL, *cookie = NULL;
            o.alignment = aligns[a];
            PA_CK_OK(ops->alloc(sizes[s], &o, &p, &cookie));
            ck_assert_uint_eq((uintptr_t)p % aligns[a], 0);
            touch_every_byte(p, sizes[s], (unsigned)a);
            PA_CK_OK(ops->free(p, sizes[s], cookie));
        }
    }
}
END_TEST

START_TEST(test_paged_bad_alignment)
{
    const pa__mem_ops *ops = pa__mem_find("paged");
    static const size_t bad[] = {0, 3, sizeof(void *) / 2, 48, 100, (size_t)1 << 63 | 1};
    pa_mem_opts o = default_opts();
    void *p = (void *)&o, *cookie = NULL;
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        o.alignment = bad[i];
        PA_CK_ERR(ops->alloc(64, &o, &p, &cookie), PA_ERR_INVAL);
        ck_assert_ptr_eq(p, (void *)&o);   /* outputs untouched on failure */
        ck_assert_ptr_nonnull(strstr(pa_last_error(), "alignment"));
    }
}
END_TEST

START_TEST(test_paged_nomem)
{
    const pa__mem_ops *ops = pa__mem_find("paged");
    pa_mem_opts o = default_opts();
    void *p = NULL, *cookie = NULL;
    size_t huge = SIZE_MAX / 2;
    char want[64];
    PA_CK_ERR(ops->alloc(huge, &o, &p, &cookie), PA_ERR_NOMEM);
    snprintf(want, sizeof want, "%zu bytes", huge);
    ck_assert_msg(strstr(pa_last_error(), want) != NULL, "no byte count in: %s", pa_last_error());
}
END_TEST

/* ---- mmap -------------------------------------------------------------------------------------------- */

/* The manual's listing 16 at the allocator level: map a 2-byte file, swap its first two bytes, write back. */
START_TEST(test_mmap_ops_swap_two_bytes)
{
    const pa__mem_ops *ops = pa__mem_find("mmap");
    pa_mem_opts o = default_opts();
    char *host = NULL, back[3] = {0};
    void *cookie = NULL;
    int fd = temp_file("ab", 2);
    o.mmap_fd = fd;
    PA_CK_OK(ops->alloc(2, &o, (void **)&host, &cookie));
    char tmp = host[0];
    host[0] = host[1];
    host[1] = tmp;
    PA_CK_OK(ops->free(host, 2, cookie));
    read_back(fd, back, 2, 0);
    ck_assert_str_eq(back, "ba");
    close(fd);
}
END_TEST

START_TEST(test_mmap_ops_offset)
{
    const pa__mem_ops *ops = pa__mem_find("mmap");
    long page = sysconf(_SC_PAGESIZE);
    size_t len = (size_t)page * 3, bytes = (size_t)page + 100;
    unsigned char *file = calloc(1, len), *back = calloc(1, bytes), *p = NULL;
    pa_mem_opts o = default_opts();
    void *cookie = NULL;
    int fd = temp_file(file, len);
    o.mmap_fd = fd;
    o.mmap_offset = page;
    PA_CK_OK(ops->alloc(bytes, &o, (void **)&p, &cookie));
    touch_every_byte(p, bytes, 7);
    PA_CK_OK(ops->free(p, bytes, cookie));
    read_back(fd, back, bytes, page);
    size_t bad = 0;
    for (size_t i = 0; i < bytes; i++)
        bad += back[i] != (unsigned char)(i * 31u + 7);
    read_back(fd, back, (size_t)page, 0);   /* the page before the offset is untouched */
    for (long i = 0; i < page; i++)
        bad += back[i] != 0;
    ck_assert_uint_eq(bad, 0);
    close(fd);
    free(file);
    free(back);
}
END_TEST

START_TEST(test_mmap_ops_anonymous)
{
    const pa__mem_ops *ops = pa__mem_find("mmap");
    static const int flags[] = {0, MAP_PRIVATE, MAP_SHARED};
    pa_mem_opts o = default_opts();
    ck_assert_int_eq(o.mmap_fd, -1);
    for (size_t i = 0; i < sizeof flags / sizeof *flags; i++) {
        void *p = NULL, *cookie = NULL;
        o.mmap_flags = flags[i];
        PA_CK_OK(ops->alloc(100000, &o, &p, &cookie));
        ck_assert_uint_eq((uintptr_t)p % (uintptr_t)sysconf(_SC_PAGESIZE), 0);
        touch_every_byte(p, 100000, (unsigned)i);
        PA_CK_OK(ops->free(p, 100000, cookie));
    }
}
END_TEST

START_TEST(test_mmap_ops_errors)
{
    const pa__mem_ops *ops = pa__mem_find("mmap");
    pa_mem_opts o = default_opts();
    void *p = NULL, *cookie = NULL;
    long page = sysconf(_SC_PAGESIZE);
    int fd = temp_file("0123456789", 10);

    o.mmap_fd = fd;
    o.mmap_offset = 100;                                   /* not page-aligned */
    PA_CK_ERR(ops->alloc(4, &o, &p, &cookie), PA_ERR_INVAL);
    ck_assert_ptr_nonnull(strstr(pa_last_error(), "page size"));
    o.mmap_offset = -page;
    PA_CK_ERR(ops->alloc(4, &o, &p, &cookie), PA_ERR_INVAL);

    o.mmap_offset = 0;                                     /* the file has 10 bytes, the array needs 11 */
    PA_CK_ERR(ops->alloc(11, &o, &p, &cookie), PA_ERR_RANGE);
    ck_assert_msg(strstr(pa_last_error(), "10 bytes") && strstr(pa_last_error(), "needs 11"), "%s",
                  pa_last_error());
    o.mmap_offset = page;                                  /* past the end */
    PA_CK_ERR(ops->alloc(1, &o, &p, &cookie), PA_ERR_RANGE);

    o.mmap_offset = 0;
    o.mmap_flags = MAP_SHARED | MAP_ANONYMOUS;             /* a file and anonymous at once */
    PA_CK_ERR(ops->alloc(4, &o, &p, &cookie), PA_ERR_INVAL);
    o.mmap_flags = 0;

    o.mmap_fd = -1;                                        /* an offset into no file */
    o.mmap_offset = page;
    PA_CK_ERR(ops->alloc(4, &o, &p, &cookie), PA_ERR_INVAL);
    o.mmap_offset = 0;

    o.mmap_fd = -7;
    PA_CK_ERR(ops->alloc(4, &o, &p, &cookie), PA_ERR_INVAL);

    close(fd);                                             /* a descriptor that is no longer open */
    o.mmap_fd = fd;
    PA_CK_ERR(ops->alloc(4, &o, &p, &cookie), PA_ERR_SYS);
    ck_assert_ptr_nonnull(strstr(pa_last_error(), strerror(EBADF)));

    fd = temp_file("0123456789", 10);                      /* a shared writable map of a read-only fd */
    char path[64];
    snprintf(path, sizeof path, "/proc/self/fd/%d", fd);
    int ro = open(path, O_RDONLY);
    ck_assert_int_ge(ro, 0);
    o.mmap_fd = ro;
    PA_CK_ERR(ops->alloc(4, &o, &p, &cookie), PA_ERR_SYS);
    ck_assert_ptr_nonnull(strstr(pa_last_error(), strerror(EACCES)));
    o.mmap_prot = PROT_READ;                               /* reading it is fine */
    PA_CK_OK(ops->alloc(4, &o, &p, &cookie));
    ck_assert_int_eq(memcmp(p, "0123", 4), 0);
    PA_CK_OK(ops->free(p, 4, cookie));
    close(ro);
    close(fd);
}
END_TEST

/* ---- numa -------------------------------------------------------------------------------------------- */

/* Where numa memory is usable (the suite host_mem_numa; skipped, 77, elsewhere). */
START_TEST(test_numa_ops)
{
    const pa__mem_ops *ops = pa__mem_find("numa");
    pa_mem_opts o = default_opts();
    void *p = NULL, *cookie = NULL;
    ck_assert_int_eq(pa_mtt_available("numa"), 1);   /* so the library was built with libnuma */
    ck_assert_int_eq(pa_test_built("numa"), 1);
    ck_assert_int_eq(o.numa_node, -1);
    PA_CK_OK(ops->alloc(1 << 20, &o, &p, &cookie));         /* interleaved */
    touch_every_byte(p, 1 << 20, 1);
    PA_CK_OK(ops->free(p, 1 << 20, cookie));
    o.numa_node = 0;
    PA_CK_OK(ops->alloc(12345, &o, &p, &cookie));           /* on node 0 */
    ck_assert_uint_eq((uintptr_t)p % 64, 0);
    touch_every_byte(p, 12345, 2);
    PA_CK_OK(ops->free(p, 12345, cookie));

    o.numa_node = pa_test_numa_max_node() + 1;
    PA_CK_ERR(ops->alloc(64, &o, &p, &cookie), PA_ERR_RANGE);
    o.numa_node = -2;
    PA_CK_ERR(ops->alloc(64, &o, &p, &cookie), PA_ERR_RANGE);
    o.numa_node = 0;
    o.alignment = (size_t)sysconf(_SC_PAGESIZE) * 2;
    PA_CK_ERR(ops->alloc(64, &o, &p, &cookie), PA_ERR_INVAL);
    o.alignment = 24;
    PA_CK_ERR(ops->alloc(64, &o, &p, &cookie), PA_ERR_INVAL);
}
END_TEST

/* Where it is not (the suite host_mem): the allocator refuses with PA_ERR_NODEV and says why. */
START_TEST(test_numa_ops_refused)
{
    const pa__mem_ops *ops = pa__mem_find("numa");
    pa_mem_opts o = default_opts();
    void *p = NULL, *cookie = NULL;
    ck_assert_int_eq(pa_mtt_available("numa"), 0);
    PA_CK_ERR(ops->alloc(4096, &o, &p, &cookie), PA_ERR_NODEV);
    ck_assert_ptr_null(p);
    /* Why: the build (no libnuma) or the machine (libnuma says NUMA is not available). */
    ck_assert_ptr_nonnull(strstr(pa_last_error(), pa_test_built("numa") ? "not available" : "without libnuma"));
}
END_TEST

void pa_test_mem_add_numa(TCase *tc, int usable)
{
    if (usable) {
        tcase_add_test(tc, test_numa_ops);
    } else {
        tcase_add_test(tc, test_numa_ops_refused);
    }
}

/* ---- the allocation table ---------------------------------------------------------------------------- */

START_TEST(test_registry_basic)
{
    const pa__mem_ops *paged = pa__mem_find("paged"), *mmap_ops = pa__mem_find("mmap");
    size_t base = pa__alloc_count();
    int a, b;
    pa__alloc_rec rec = {paged, 4, &b}, out;

    PA_CK_OK(pa__alloc_register(&a, &rec));
    ck_assert_int_eq(pa__alloc_register(&a, &rec), PA_ERR_EXISTS);
    ck_assert_uint_eq(pa__alloc_count(), base + 1);
    ck_assert_ptr_eq(pa__mem_of(&a), paged);
    ck_assert_ptr_null(pa__mem_of(&b));
    ck_assert_ptr_null(pa__mem_of(NULL));

    ck_assert_int_eq(pa__alloc_unregister(&b, paged, &out), PA__ALLOC_UNKNOWN);
    ck_assert_int_eq(pa__alloc_unregister(&a, mmap_ops, &out), PA__ALLOC_OTHER_MTT);
    ck_assert_ptr_eq(out.ops, paged);
    ck_assert_int_eq(pa__alloc_unregister(&a, NULL, &out), PA__ALLOC_OTHER_MTT);
    ck_assert_uint_eq(pa__alloc_count(), base + 1);
    ck_assert_int_eq(pa__alloc_unregister(&a, paged, &out), PA__ALLOC_TAKEN);
    ck_assert_uint_eq(out.bytes, 4);
    ck_assert_ptr_eq(out.cookie, &b);
    ck_assert_int_eq(pa__alloc_unregister(&a, paged, &out), PA__ALLOC_UNKNOWN);
    ck_assert_uint_eq(pa__alloc_count(), base);
}
END_TEST

enum { REG_THREADS = 8, REG_PER_THREAD = 5000 };

/* Each thread registers its own slice of a shared array, checks it, and removes it again. */
/* ---- vmem: vector-aligned buffers within the register file ------------------------------------------- */

static int vmem_tile_add(void *tile, int64_t t, void *arg)
{
    double *v = tile;
    ck_assert_int_eq((uintptr_t)tile % (uintptr_t)pa_vmem_width(), 0);
    for (int i = 0; i < 8; i++)
        v[i] += 1000.0 * (double)t;
    (void)arg;
    return PA_OK;
}

START_TEST(test_vmem)
{
    int w = pa_vmem_width(), r = pa_vmem_registers();
    const char *isa = pa_vmem_isa();
    ck_assert_msg(strcmp(isa, "avx512") == 0 || strcmp(isa, "avx2") == 0 || strcmp(isa, "sse2") == 0 ||
                  strcmp(isa, "scalar") == 0, "isa %s", isa);
    ck_assert_int_eq(w, strcmp(isa, "avx512") == 0 ? 64 : strcmp(isa, "avx2") == 0 ? 32 : strcmp(isa, "sse2") == 0 ? 16 : 8);
    ck_assert_int_eq(r, strcmp(isa, "avx512") == 0 ? 32 : 16);
    ck_assert_int_eq(pa_mtt_available("vmem"), 1);
    pa_scope *s = NULL;
    PA_CK_OK(pa_scope_create(NULL, &s));
    PA_CK_OK(pa_declare_text(s, "parray vmem double [8] V\nparray paged double [4][8] P\n"
                                "parray paged double [[#P_1][#P_0]] PT\nparray vmem double [8192] BIG\n"));
    const pa_type *V = pa_type_get(s, "V"), *P = pa_type_get(s, "P"), *PT = pa_type_get(s, "PT");
    /* A vmem array is aligned to the vector width; copies to and from it are host copies. */
    double *v = pa_create(V), *p = pa_create(P), *q = pa_create(P);
    ck_assert_ptr_nonnull(v);
    ck_assert_int_eq((uintptr_t)v % (uintptr_t)w, 0);
    for (int i = 0; i < 32; i++)
        p[i] = i + 0.5, q[i] = -1;
    const pa_type *row = pa_type_parse(s, "paged double [1 # disp(2) # P_0][#P_1]");
    ck_assert_ptr_nonnull(row);
    for (int i = 0; i < 8; i++)
        v[i] = -7;
    PA_CK_OK(pa_copy(V, v, row, p));   /* row 2 of P into the vector */
    for (int i = 0; i < 8; i++)
        ck_assert(v[i] == p[16 + i]);
    /* Larger than the register file: a clear error, no allocation. */
    ck_assert_ptr_null(pa_create(pa_type_get(s, "BIG")));
    ck_assert_msg(strstr(pa_last_error(), "register file") != NULL, "%s", pa_last_error());
    /* pa_tile_copy with a vmem inner type: each 8-element tile staged in an aligned vector buffer. */
    PA_CK_OK(pa_tile_copy(P, q, P, p, V, vmem_tile_add, NULL));
    for (int i = 0; i < 32; i++)
        ck_assert(q[i] == p[i] + 1000.0 * (i / 8));
    /* and a vmem tile larger than the register file is refused by pa_tile */
    ck_assert_int_eq(pa_tile(PT, p, pa_type_get(s, "BIG"), PA_IOTILE, NULL, NULL), PA_ERR_SIZE);
    PA_CK_OK(pa_destroy(V, v));
    PA_CK_OK(pa_destroy(P, p));
    PA_CK_OK(pa_destroy(P, q));
    pa_scope_destroy(s);
}
END_TEST

static void *registry_worker(void *arg)
{
    char *slice = arg;
    const pa__mem_ops *paged = pa__mem_find("paged");
    pa__alloc_rec rec = {paged, 1, NULL}, out;
    intptr_t bad = 0;
    for (int i = 0; i < REG_PER_THREAD; i++)
        bad += pa__alloc_register(slice + i, &rec) != PA_OK;
    for (int i = 0; i < REG_PER_THREAD; i++)
        bad += pa__mem_of(slice + i) != paged;
    for (int i = 0; i < REG_PER_THREAD; i++)
        bad += pa__alloc_unregister(slice + i, paged, &out) != PA__ALLOC_TAKEN;
    return (void *)bad;
}

START_TEST(test_registry_threads)
{
    static char cells[REG_THREADS][REG_PER_THREAD];
    pthread_t th[REG_THREADS];
    size_t base = pa__alloc_count();
    for (int t = 0; t < REG_THREADS; t++)
        ck_assert_int_eq(pthread_create(&th[t], NULL, registry_worker, cells[t]), 0);
    for (int t = 0; t < REG_THREADS; t++) {
        void *bad;
        pthread_join(th[t], &bad);
        ck_assert_int_eq((intptr_t)bad, 0);
    }
    ck_assert_uint_eq(pa__alloc_count(), base);
}
END_TEST

TCase *pa_test_mem_alloc_tcase(void)
{
    TCase *tc = tcase_create("allocators");
    tcase_add_test(tc, test_mtt_kinds);
    tcase_add_test(tc, test_mtt_allocators);
    tcase_add_test(tc, test_paged_alignment);
    tcase_add_test(tc, test_paged_bad_alignment);
    tcase_add_test(tc, test_paged_nomem);
    tcase_add_test(tc, test_mmap_ops_swap_two_bytes);
    tcase_add_test(tc, test_mmap_ops_offset);
    tcase_add_test(tc, test_mmap_ops_anonymous);
    tcase_add_test(tc, test_mmap_ops_errors);
    tcase_add_test(tc, test_registry_basic);
    tcase_add_test(tc, test_registry_threads);
    tcase_add_test(tc, test_vmem);
    return tc;
}
