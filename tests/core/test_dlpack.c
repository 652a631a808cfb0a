/*
 * DLPack (include/parray/dlpack.h) on the host: exported tensors' shape, strides, byte offset, device and data
 * type for compact, windowed, transposed, reversed and leaf-wise types; imported tensors' types, checked offset
 * by offset against the tensor's own formula and through a copy; the refusals; and our own definition of the
 * ABI against <dlpack/dlpack.h> where it is installed.  The round trip through NumPy is tests/python.
 */
#include <stdlib.h>
#include <string.h>

#include "parray/dlpack.h"
#include "dlpack_abi.h"
#include "testutil.h"

static pa_scope *s;

static void setup(void)
{
    PA_CK_OK(pa_scope_create(NULL, &s));
    PA_CK_OK(pa_declare_text(s, "M = paged float [[6][8]]\n"
                                "A = paged int [[3][4]][5]\n"
                                "P = <int y> paged float [[4 # disp(y) # M_0][#M_1]]"));
}

static void teardown(void)
{
    pa_scope_destroy(s);
}

static const pa_type *parse(const char *decl)
{
    const pa_type *t = pa_type_parse(s, decl);
    ck_assert_msg(t, "%s: %s", decl, pa_last_error());
    return t;
}

/* An export and what it should say: shape, strides, offset of element 0 in elements. */
typedef struct want {
    const char *decl;
    int ndim;
    int64_t shape[3], strides[3], base;
} want;

static const want exports[] = {
    {"[#M]", 2, {6, 8}, {8, 1}, 0},
    {"[[4 # disp(1) # M_0][5 # disp(2) # M_1]]", 2, {4, 5}, {8, 1}, 10},          /* m[1:5, 2:7] */
    {"[[#M_1][#M_0]]", 2, {8, 6}, {1, 8}, 0},                                     /* m.T */
    {"[[6 # step(-1) # disp(5) # M_0][#M_1]]", 2, {6, 8}, {-8, 1}, 40},           /* m[::-1] */
    {"[[3 # step(-2) # disp(5) # M_0][3 # step(-3) # disp(7) # M_1]]", 2, {3, 3}, {-16, -3}, 47},
    {"[16 # step(3) # M]", 1, {16}, {3}, 0},                                   /* a leaf */
    {"[[1][#M_1]]", 2, {1, 8}, {8, 1}, 0},                                        /* a size-1 axis: compact */
    {"[#A]", 2, {12, 5}, {5, 1}, 0},                                              /* dimensions, not leaves */
    {"[[#A_0_1][#A_0_0]][#A_1]", 3, {4, 3, 5}, {5, 20, 1}, 0},                  /* leaves: a transposed pair */
};

START_TEST(test_export_shapes)
{
    const want *w = &exports[_i];
    const pa_type *t = pa_type_on(parse(w->decl), "paged");
    ck_assert_msg(t, "%s", pa_last_error());
    int64_t lo, hi;
    PA_CK_OK(pa_extent(t, &lo, &hi));
    void *a = pa_create(t);
    ck_assert_msg(a, "%s", pa_last_error());
    DLManagedTensor *m = NULL;
    PA_CK_OK(pa_dlpack_export(t, a, &m));
    const DLTensor *d = &m->dl_tensor;
    ck_assert_int_eq(d->device.device_type, kDLCPU);
    ck_assert_int_eq(d->device.device_id, 0);
    ck_assert_int_eq(d->ndim, w->ndim);
    for (int k = 0; k < w->ndim; k++) {
        ck_assert_msg(d->shape[k] == w->shape[k] && d->strides[k] == w->strides[k],
                      "%s axis %d: %lld:%lld, want %lld:%lld", w->decl, k, (long long)d->shape[k],
                      (long long)d->strides[k], (long long)w->shape[k], (long long)w->strides[k]);
    }
    size_t esz = pa_elm_size(t);
    ck_assert_ptr_eq(d->data, a);
    ck_assert_uint_eq(d->byte_offset, (uint64_t)w->base * esz);
    /* Every element: the tensor's formula is the type's offset. */
    int64_t n = pa_size(t), idx[3];
    for (int64_t k = 0; k < n; k++) {
        int64_t r = k, off = 0;
        for (int j = w->ndim - 1; j >= 0; j--) {
            idx[j] = r % d->shape[j];
            r /= d->shape[j];
            off += idx[j] * d->strides[j];
        }
        ck_assert_int_eq(off + (int64_t)(d->byte_offset / esz), pa_offset(t, k));
    }
    m->deleter(m);
    PA_CK_OK(pa_destroy(t, a));
}
END_TEST

START_TEST(test_export_types)
{
    static const struct { const char *elm; uint8_t code, bits; uint16_t lanes; } e[] = {
        {"char", kDLInt, 8, 1},      {"uint8_t", kDLUInt, 8, 1},   {"short", kDLInt, 16, 1},
        {"unsigned short", kDLUInt, 16, 1}, {"int", kDLInt, 32, 1}, {"unsigned", kDLUInt, 32, 1},
        {"long", kDLInt, 64, 1},     {"size_t", kDLUInt, 64, 1},   {"half", kDLFloat, 16, 1},
        {"float", kDLFloat, 32, 1},  {"double", kDLFloat, 64, 1},  {"float2", kDLFloat, 32, 2},
        {"float4", kDLFloat, 32, 4}, {"double2", kDLFloat, 64, 2}, {"int4", kDLInt, 32, 4},
        {"bool", PA_DLPACK_BOOL, 8, 1},  {"bfloat16", kDLBfloat, 16, 1},
    };
    char decl[64];
    for (size_t i = 0; i < sizeof e / sizeof e[0]; i++) {
        snprintf(decl, sizeof decl, "paged %s [4]", e[i].elm);
        const pa_type *t = parse(decl);
        void *a = pa_create(t);
        DLManagedTensor *m;
        PA_CK_OK(pa_dlpack_export(t, a, &m));
        ck_assert_msg(m->dl_tensor.dtype.code == e[i].code && m->dl_tensor.dtype.bits == e[i].bits &&
                      m->dl_tensor.dtype.lanes == e[i].lanes, "%s", e[i].elm);
        /* And back: the import's element type has the same size. */
        const pa_type *back;
        void *p;
        PA_CK_OK(pa_dlpack_import(s, &m->dl_tensor, &back, &p));
        ck_assert_uint_eq(pa_elm_size(back), pa_elm_size(t));
        if (strcmp(e[i].elm, "half") == 0 || strcmp(e[i].elm, "bfloat16") == 0)   /* the two 16-bit floats stay apart */
            ck_assert_str_eq(pa_elm(back), e[i].elm);
        ck_assert_ptr_eq(p, a);
        m->deleter(m);
        PA_CK_OK(pa_destroy(t, a));
    }
}
END_TEST

START_TEST(test_export_refused)
{
    float buf[64];
    DLManagedTensor *m = NULL;
    PA_CK_ERR(pa_dlpack_export(NULL, buf, &m), PA_ERR_INVAL);
    PA_CK_ERR(pa_dlpack_export(parse("paged float [4]"), NULL, &m), PA_ERR_INVAL);
    PA_CK_ERR(pa_dlpack_export(parse("paged float [4]"), buf, NULL), PA_ERR_INVAL);
    /* A wrap is two pieces, a func a gather table: no strides. */
    PA_CK_ERR(pa_dlpack_export(parse("paged float [10 # disp(3) # [10]]"), buf, &m), PA_ERR_UNSUPPORTED);
    ck_assert_msg(strstr(pa_last_error(), "not strided"), "%s", pa_last_error());
    PA_CK_ERR(pa_dlpack_export(parse("paged long double [4]"), buf, &m), PA_ERR_ELM);
    ck_assert_msg(strstr(pa_last_error(), "long double"), "%s", pa_last_error());
    PA_CK_ERR(pa_dlpack_export(parse("paged bytes12 [4]"), buf, &m), PA_ERR_ELM);
    PA_CK_ERR(pa_dlpack_export(parse("float [4]"), buf, &m), PA_ERR_MTT);
    ck_assert_msg(strstr(pa_last_error(), "'any'"), "%s", pa_last_error());
    PA_CK_ERR(pa_dlpack_export(pa_type_get(s, "P"), buf, &m), PA_ERR_PARAM);
    /* An array pa_create made for another memory type. */
    const pa_type *mm = parse("mmap float [16]");
    void *a = pa_create(mm);
    ck_assert_msg(a, "%s", pa_last_error());
    PA_CK_ERR(pa_dlpack_export(parse("paged float [16]"), a, &m), PA_ERR_MTT);
    ck_assert_msg(strstr(pa_last_error(), "mmap") && strstr(pa_last_error(), "paged"), "%s", pa_last_error());
    PA_CK_OK(pa_dlpack_export(mm, a, &m));
    ck_assert_int_eq(m->dl_tensor.device.device_type, kDLCPU);
    m->deleter(m);
    PA_CK_OK(pa_destroy(mm, a));
    /* A bound parameterised type is an ordinary window. */
    int64_t y = 2;
    PA_CK_OK(pa_dlpack_export(pa_type_bind(pa_type_get(s, "P"), 1, &y), buf, &m));
    ck_assert_uint_eq(m->dl_tensor.byte_offset, 2 * 8 * sizeof(float));
    m->deleter(m);
}
END_TEST

/* A tensor of 3 x 4 floats in a buffer of 32, with the given strides and byte offset. */
static float pool[64];

static DLTensor tensor(int64_t *shape, int64_t *strides, int ndim, uint64_t byte_offset)
{
    DLTensor t;
    memset(&t, 0, sizeof t);
    t.data = pool;
    t.device.device_type = kDLCPU;
    t.ndim = ndim;
    t.dtype.code = kDLFloat;
    t.dtype.bits = 32;
    t.dtype.lanes = 1;
    t.shape = shape;
    t.strides = strides;
    t.byte_offset = byte_offset;
    return t;
}

static const struct { int ndim; int64_t shape[3], strides[3]; uint64_t boff; const char *layout; } imports[] = {
    {2, {3, 4}, {4, 1}, 0, "(12):(1)+0"},
    {2, {3, 4}, {1, 3}, 0, "(3,4):(1,3)+0"},
    {2, {3, 4}, {-4, 1}, 8 * 4, "(3,4):(-4,1)+8"},
    {2, {3, 4}, {8, -2}, 6 * 4, "(3,4):(8,-2)+6"},
    {3, {2, 3, 4}, {0, 4, 1}, 4, "(2,12):(0,1)+0"},                 /* a broadcast axis */
    {1, {5}, {-3}, 12 * 4, "(5):(-3)+12"},
    {0, {0}, {0}, 20, "(1):(0)+0"},                                 /* a scalar */
};

START_TEST(test_import)
{
    int64_t shape[3], strides[3];
    memcpy(shape, imports[_i].shape, sizeof shape);
    memcpy(strides, imports[_i].strides, sizeof strides);
    int nd = imports[_i].ndim;
    DLTensor t = tensor(shape, strides, nd, imports[_i].boff);
    for (int i = 0; i < 64; i++)
        pool[i] = (float)i;
    const pa_type *ty;
    void *p;
    PA_CK_OK(pa_dlpack_import(s, &t, &ty, &p));
    ck_assert_str_eq(pa_mtt(ty), "paged");
    ck_assert_str_eq(pa_elm(ty), "float");
    char lay[128];
    pa_layout_format(ty, lay, sizeof lay);
    int64_t lo, hi;
    PA_CK_OK(pa_extent(ty, &lo, &hi));
    ck_assert_int_eq(lo, 0);
    /* Offsets are relative to p, which is the lowest element's address: compare the layouts shifted there. */
    int64_t first = ((char *)pool + t.byte_offset - (char *)p) / (int64_t)sizeof(float);
    ck_assert_int_ge(first, 0);
    char expect[128];
    const char *plus = strrchr(imports[_i].layout, '+');
    snprintf(expect, sizeof expect, "%.*s+%lld", (int)(plus - imports[_i].layout), imports[_i].layout,
             (long long)first);
    ck_assert_msg(strcmp(lay, expect) == 0, "tensor %d: layout %s, want %s", _i, lay, expect);
    /* Each element through a copy into a compact array: the tensor's formula picks the same value. */
    int64_t n = pa_size(ty);
    float *out = calloc((size_t)n, sizeof *out);
    char decl[64];
    snprintf(decl, sizeof decl, "paged float [%lld]", (long long)n);
    PA_CK_OK(pa_copy(parse(decl), out, ty, p));
    for (int64_t k = 0; k < n; k++) {
        int64_t r = k, off = (int64_t)t.byte_offset / 4;
        for (int j = nd - 1; j >= 0; j--) {
            off += (r % shape[j]) * strides[j];
            r /= shape[j];
        }
        ck_assert_msg(out[k] == pool[off], "tensor %d element %lld: %g, want %g", _i, (long long)k, out[k],
                      pool[off]);
    }
    free(out);
    /* And out again: the same tensor, up to the scalar's one axis and where a reversal starts. */
    DLManagedTensor *m;
    PA_CK_OK(pa_dlpack_export(ty, p, &m));
    ck_assert_ptr_eq((char *)m->dl_tensor.data + m->dl_tensor.byte_offset, (char *)pool + t.byte_offset);
    m->deleter(m);
}
END_TEST

START_TEST(test_import_compact_format)
{
    int64_t shape[2] = {3, 4};
    DLTensor t = tensor(shape, NULL, 2, 0);
    const pa_type *ty;
    void *p;
    PA_CK_OK(pa_dlpack_import(s, &t, &ty, &p));
    char buf[128];
    pa_type_format(ty, buf, sizeof buf);
    ck_assert_msg(strcmp(buf, "paged float [3][4]") == 0, "%s", buf);
    ck_assert_int_eq(pa_cnt(ty), 1);
    ck_assert_int_eq(pa_ndim(ty), 2);
    ck_assert_ptr_eq(p, pool);
    /* Complex numbers are pairs of floats. */
    t.dtype.code = kDLComplex;
    t.dtype.bits = 64;
    PA_CK_OK(pa_dlpack_import(s, &t, &ty, &p));
    ck_assert_str_eq(pa_elm(ty), "float2");
    t.dtype.bits = 128;
    PA_CK_OK(pa_dlpack_import(s, &t, &ty, &p));
    ck_assert_str_eq(pa_elm(ty), "double2");
}
END_TEST

/* A zero in the shape: an empty type of that shape, whatever the strides, and NULL data allowed. */
START_TEST(test_import_empty)
{
    int64_t shape[2] = {3, 0}, strides[2] = {-5, 7};
    DLTensor t = tensor(shape, strides, 2, 0);
    const pa_type *ty = NULL, *F = pa_type_parse(s, "paged float [3][4]");
    void *p = NULL;
    PA_CK_OK(pa_dlpack_import(s, &t, &ty, &p));
    ck_assert_int_eq(pa_size(ty), 0);
    ck_assert_int_eq(pa_ndim(ty), 2);
    ck_assert_int_eq(pa_size(pa_type_child(ty, 0)), 3);
    ck_assert_int_eq(pa_size(pa_type_child(ty, 1)), 0);
    ck_assert_ptr_eq(p, t.data);
    t.byte_offset = 8;   /* no elements, but the pointer still moves by byte_offset */
    PA_CK_OK(pa_dlpack_import(s, &t, &ty, &p));
    ck_assert_ptr_eq(p, (char *)pool + 8);
    t.byte_offset = (uint64_t)1 << 63;   /* found by dlpack_fuzz: a pointer formed past the address space */
    PA_CK_ERR(pa_dlpack_import(s, &t, &ty, &p), PA_ERR_RANGE);
    ck_assert_msg(strstr(pa_last_error(), "empty tensor"), "%s", pa_last_error());
    t.byte_offset = 0;
    t.data = NULL;
    PA_CK_OK(pa_dlpack_import(s, &t, &ty, &p));
    ck_assert_ptr_null(p);
    PA_CK_OK(pa_copy(ty, NULL, ty, NULL));   /* copies between empty types move nothing */
    PA_CK_ERR(pa_copy(F, pool, ty, pool), PA_ERR_SIZE);   /* 12 elements from none */
    ck_assert_msg(strstr(pa_last_error(), "12") && strstr(pa_last_error(), "0"), "%s", pa_last_error());
}
END_TEST

START_TEST(test_import_refused)
{
    int64_t shape[2] = {3, 4}, zero[2] = {3, 0}, huge[2] = {(int64_t)1 << 40, 3}, hs[2] = {(int64_t)1 << 30, 1};
    DLTensor t = tensor(shape, NULL, 2, 0);
    const pa_type *ty = NULL;
    void *p = NULL;
    PA_CK_ERR(pa_dlpack_import(NULL, &t, &ty, &p), PA_ERR_INVAL);
    PA_CK_ERR(pa_dlpack_import(s, NULL, &ty, &p), PA_ERR_INVAL);
    PA_CK_ERR(pa_dlpack_import(s, &t, NULL, &p), PA_ERR_INVAL);
    t.ndim = 33;
    PA_CK_ERR(pa_dlpack_import(s, &t, &ty, &p), PA_ERR_INVAL);
    t.ndim = 2;
    t.device.device_type = (DLDeviceType)4;   /* OpenCL */
    PA_CK_ERR(pa_dlpack_import(s, &t, &ty, &p), PA_ERR_MTT);
    ck_assert_msg(strstr(pa_last_error(), "device type 4"), "%s", pa_last_error());
    t.device.device_type = kDLCPU;
    t.dtype.code = kDLBfloat;   /* bfloat16 of 32 bits does not exist */
    t.dtype.bits = 32;
    PA_CK_ERR(pa_dlpack_import(s, &t, &ty, &p), PA_ERR_ELM);
    ck_assert_msg(strstr(pa_last_error(), "code 4, 32 bits, 1 lanes"), "%s", pa_last_error());
    t.dtype.code = kDLFloat;
    t.dtype.bits = 32;
    zero[1] = -1;
    t.shape = zero;
    PA_CK_ERR(pa_dlpack_import(s, &t, &ty, &p), PA_ERR_RANGE);
    ck_assert_msg(strstr(pa_last_error(), "axis 1 has size -1"), "%s", pa_last_error());
    t.shape = huge;
    t.strides = hs;
    PA_CK_ERR(pa_dlpack_import(s, &t, &ty, &p), PA_ERR_RANGE);
    ck_assert_msg(strstr(pa_last_error(), "2^62"), "%s", pa_last_error());
    t.data = NULL;
    t.shape = shape;
    t.strides = NULL;
    PA_CK_ERR(pa_dlpack_import(s, &t, &ty, &p), PA_ERR_INVAL);
    ck_assert_ptr_null(ty);
    ck_assert_ptr_null(p);
}
END_TEST

START_TEST(test_abi)
{
    size_t ours[PA_TEST_DLPACK_ABI_N], used[PA_TEST_DLPACK_ABI_N];
    pa_test_dlpack_abi_own(ours);
    PA_TEST_DLPACK_ABI_FILL(used);
    for (int i = 0; i < PA_TEST_DLPACK_ABI_N; i++)
        ck_assert_msg(ours[i] == used[i], "fact %d: ours %zu, <dlpack/dlpack.h> %zu", i, ours[i], used[i]);
#if defined(__has_include)
#if __has_include(<dlpack/dlpack.h>)
    fprintf(stderr, "core_dlpack: the ABI matches <dlpack/dlpack.h> (DLPACK_VERSION %d)\n", DLPACK_VERSION);
#endif
#endif
}
END_TEST

int main(void)
{
    Suite *su = suite_create("core_dlpack");
    TCase *tc = tcase_create("dlpack");
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_add_test(tc, test_import_empty);
    tcase_add_loop_test(tc, test_export_shapes, 0, (int)(sizeof exports / sizeof exports[0]));
    tcase_add_test(tc, test_export_types);
    tcase_add_test(tc, test_export_refused);
    tcase_add_loop_test(tc, test_import, 0, (int)(sizeof imports / sizeof imports[0]));
    tcase_add_test(tc, test_import_compact_format);
    tcase_add_test(tc, test_import_refused);
    tcase_add_test(tc, test_abi);
    suite_add_tcase(su, tc);
    return pa_test_run(su);
}
