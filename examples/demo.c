/*
 * demo — a tour of parray on this machine, using only the public API.
 *
 * It lists the backends that are present, declares a few of the manual's array types and prints what the
 * library knows about them (sizes, contiguity steps, offsets, compiled layouts), explains the copy plans for
 * several pairs of types, and measures the host copy bandwidth of a large transpose and a large window copy
 * against memcpy of the same bytes.  Every copy that is timed is first checked element by element against a
 * closed formula.  The exit status is 0 only when every check passes.
 *
 *     demo [--quick]      --quick uses small arrays and few repetitions (for the test suite and sanitizers)
 *
 * A backend shows up in the first section as soon as one of its memory types is available; a backend that has
 * a bandwidth section lists it in the backends table below (bandwidth_host is the model to follow).
 */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <parray/parray.h>

#include "demo_util.h"

int demo_failures;

static void bandwidth_host(pa_scope *scope, const demo_options *opt);

/* The backends parray knows about, the memory types that reveal each one, and its bandwidth section. */
static const struct backend {
    const char *name;
    const char *what;
    const char *mtts[4];
    void (*bandwidth)(pa_scope *scope, const demo_options *opt);
} backends[] = {
    {"host", "CPU memory, host copy kernels and threads", {"paged", "numa", "mmap", NULL}, bandwidth_host},
    {"cuda", "NVIDIA GPUs (pinned and device memory)", {"pinned", "dmem", NULL}, demo_bandwidth_cuda},
    {"mpi", "distributed arrays over MPI processes", {"mpimem", NULL}, NULL},
    {"globalarrays", "PGAS arrays through Global Arrays", {"gamem", NULL}, NULL},
};
#define NBACKENDS (sizeof backends / sizeof backends[0])

/* The manual's declarations.  Sizes use scope variables so that the same types can be taken again, larger. */
static const char declarations[] =
    "parray paged float [[3][3]][2] A                           // listing 5\n"
    "parray paged float [[#A_0_1][#A_0_0]][#A_1] B              // A with its two row dimensions swapped\n"
    "parray paged int [[n][n]][m] X                             // listing 6, n and m are variables\n"
    "parray paged int [[#X_0_1][#X_0_0]][#X_1] XT               // its transposition\n"
    "parray paged float [[N][N]] DATA                           // listing 9\n"
    "parray paged float [[W # disp(D) # DATA_0][W # disp(D) # DATA_1]] WINDOW\n"
    "parray paged float [[W][W]] PLAIN\n"
    "parray [10 # disp(3) # [10]] G                             // listing 11: no memory or element type\n"
    "parray paged int [g][g] GHOST                              // the GPU section's arrays (g is a variable)\n"
    "parray pinned int [g][g] GPIN\n"
    "parray dmem int [g][g] GDEV\n"
    "parray dmem int [[#GDEV_1][#GDEV_0]] GDEVT                 // its transposition, on the device\n";

static int backend_present(const struct backend *b)
{
    for (int i = 0; b->mtts[i] != NULL; i++)
        if (pa_mtt_available(b->mtts[i]))
            return 1;
    return 0;
}

static void show_backends(void)
{
    demo_section("Backends");
    for (size_t i = 0; i < NBACKENDS; i++) {
        const struct backend *b = &backends[i];
        printf("  %-13s %-8s %-44s", b->name, backend_present(b) ? "present" : "absent", b->what);
        for (int j = 0; b->mtts[j] != NULL; j++)
            printf(" %s%s", b->mtts[j], pa_mtt_available(b->mtts[j]) ? "" : "(no)");
        printf("\n");
    }
    printf("  %ld cores online; host copies may use all of them (pa_copy_set_threads changes that)\n",
           sysconf(_SC_NPROCESSORS_ONLN));
}

/* Prints "name=stp" for a dimension and every dimension below it, depth first. */
static void print_stp_tree(const pa_type *t)
{
    printf(" %s=%lld", pa_type_name(t), (long long)pa_stp(t));
    for (int i = 0; i < pa_ndim(t); i++)
        print_stp_tree(pa_type_child(t, i));
}

static void describe(pa_scope *scope, const char *ref)
{
    const pa_type *t = demo_get(scope, ref);
    char decl[256], layout[256];
    if (pa_type_format(t, decl, sizeof decl) < 0 || pa_layout_format(t, layout, sizeof layout) < 0)
        demo_die(ref);
    printf("  %s = %s\n", pa_type_name(t), decl);
    printf("      size %lld, ndim %d, %zu-byte elements, cnt %d, layout %s\n", (long long)pa_size(t),
           pa_ndim(t), pa_elm_size(t), pa_cnt(t), layout);
    printf("      stp:");
    print_stp_tree(t);
    printf("\n      offsets:");
    int64_t shown = pa_size(t) < 12 ? pa_size(t) : 12;
    for (int64_t i = 0; i < shown; i++)
        printf(" %lld", (long long)pa_offset(t, i));
    printf("%s\n", shown < pa_size(t) ? " ..." : "");
}

/* The manual's values for stp and offsets, checked so that the demo fails when the library disagrees. */
static void check_manual_values(pa_scope *scope)
{
    static const struct { const char *ref; int64_t stp; } stps[] = {
        {"A", 1}, {"A_0", 2}, {"A_0_0", 6}, {"A_0_1", 2}, {"A_1", 1}, {"B", 0}, {"B_0", 0}, {"B_0_1", 6},
        {"WINDOW", 0}, {"WINDOW_0", 100}, {"WINDOW_1", 1},
    };
    int same = 1;
    for (size_t i = 0; i < sizeof stps / sizeof stps[0]; i++) {
        int64_t got = pa_stp(demo_get(scope, stps[i].ref));
        if (got != stps[i].stp) {
            printf("  stp(%s) = %lld, the manual says %lld\n", stps[i].ref, (long long)got, (long long)stps[i].stp);
            same = 0;
        }
    }
    demo_check(same, "stp of A, B and WINDOW and their dimensions as in the manual (%zu values)",
               sizeof stps / sizeof stps[0]);
    const pa_type *g = demo_get(scope, "G");
    int cyclic = 1;
    for (int64_t i = 0; i < 10; i++)
        cyclic &= pa_offset(g, i) == (i + 3) % 10;
    demo_check(cyclic, "G(i) = (i + 3) mod 10 for i in 0..9 (listing 12)");
    int64_t origin[2] = {0, 0};
    int64_t w00 = pa_offset_nd(demo_get(scope, "WINDOW"), 2, origin);
    demo_check(w00 == 1010, "WINDOW(0,0) = DATA(10,10) = %lld (listing 10: 1010)", (long long)w00);
}

static void show_declarations(pa_scope *scope)
{
    demo_section("Declarations (n = 3, m = 2, N = 100, W = 80, D = 10)");
    printf("%s\n", declarations);
    static const char *const names[] = {"A", "B", "X", "XT", "WINDOW", "G"};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        describe(scope, names[i]);
    printf("\n  Checks against the manual:\n");
    check_manual_values(scope);
}

static void explain(const pa_type *dst, const pa_type *src, const char *label)
{
    char line[512];
    int n = pa_copy_explain(dst, src, line, sizeof line);
    if (n < 0) {
        demo_check(0, "%s: %s (%s)", label, pa_strerror(n), pa_last_error());
        return;
    }
    printf("  %s\n      %s\n", label, line);
}

static void show_plans(pa_scope *scope)
{
    demo_section("Copy plans (pa_copy_explain)");
    explain(demo_get(scope, "DATA"), demo_get(scope, "DATA"), "DATA <- DATA (contiguous)");
    explain(demo_get(scope, "PLAIN"), demo_get(scope, "WINDOW"), "PLAIN <- WINDOW (listing 9)");
    explain(demo_get(scope, "WINDOW"), demo_get(scope, "PLAIN"), "WINDOW <- PLAIN (scatter back)");
    explain(demo_get(scope, "B"), demo_get(scope, "A"), "B <- A (swap two dimensions)");
    explain(demo_get(scope, "XT"), demo_get(scope, "X"), "XT <- X (listing 6, n=3 m=2)");
    const pa_type *rotated = pa_type_parse(scope, "paged float [10 # disp(3) # [10]]");
    const pa_type *plain10 = pa_type_parse(scope, "paged float [10]");
    if (rotated == NULL || plain10 == NULL)
        demo_die("anonymous types");
    explain(plain10, rotated, "[10] <- [10 # disp(3) # [10]]");
}

/* Listing 6: copy X(a) to XT(b) with a[k] = k, and compare b with the manual's result. */
static void listing6(pa_scope *scope)
{
    static const int expected[18] = {0, 1, 6, 7, 12, 13, 2, 3, 8, 9, 14, 15, 4, 5, 10, 11, 16, 17};
    const pa_type *x = demo_get(scope, "X"), *xt = demo_get(scope, "XT");
    int *a = pa_create(x), *b = pa_create(xt);
    if (a == NULL || b == NULL)
        demo_die("pa_create");
    for (int k = 0; k < 18; k++) {
        a[k] = k;
        b[k] = -1;
    }
    int rc = pa_copy(xt, b, x, a);
    if (rc != PA_OK) {
        demo_check(0, "pa_copy(XT, b, X, a): %s", pa_last_error());
    } else {
        printf("  b =");
        for (int k = 0; k < 18; k++)
            printf(" %d", b[k]);
        printf("\n");
        demo_check(memcmp(b, expected, sizeof expected) == 0, "b is the manual's result (listing 6)");
    }
    pa_destroy(x, a);
    pa_destroy(xt, b);
}

/* Host bandwidth: a large transpose and a large window copy, each against memcpy of the same bytes. */
static void bandwidth_host(pa_scope *scope, const demo_options *opt)
{
    int64_t n = opt->quick ? 512 : 4096, big = opt->quick ? 512 : 4096, w = opt->quick ? 500 : 4000;
    demo_section("Host copy bandwidth");
    printf("  Each copy is checked element by element, then timed: the median of %d runs after one warm-up;\n"
           "  GB/s counts the bytes copied once.\n", opt->runs);

    demo_set(scope, "n", n);
    demo_set(scope, "m", 1);
    demo_bench_pair(opt, demo_get(scope, "XT"), demo_get(scope, "X"), "Transpose: XT <- X",
                    demo_verify_transpose, &n);

    demo_set(scope, "N", big);
    demo_set(scope, "W", w);
    demo_set(scope, "D", (big - w) / 2);
    int64_t shape[3] = {big, w, (big - w) / 2};
    demo_bench_pair(opt, demo_get(scope, "PLAIN"), demo_get(scope, "WINDOW"), "Window: PLAIN <- WINDOW",
                    demo_verify_window, shape);
}

int main(int argc, char **argv)
{
    demo_options opt = {.quick = argc > 1 && strcmp(argv[1], "--quick") == 0, .runs = 5};
    if (opt.quick)
        opt.runs = 3;
    printf("parray %d.%d.%d demo%s\n", PA_VERSION_MAJOR, PA_VERSION_MINOR, PA_VERSION_PATCH,
           opt.quick ? " (quick: small arrays)" : "");

    pa_scope *scope = NULL;
    if (pa_scope_create(NULL, &scope) != PA_OK)
        demo_die("pa_scope_create");
    demo_set(scope, "n", 3);
    demo_set(scope, "m", 2);
    demo_set(scope, "N", 100);
    demo_set(scope, "W", 80);
    demo_set(scope, "D", 10);
    if (pa_declare_text(scope, declarations) != PA_OK)
        demo_die("declarations");

    show_backends();
    show_declarations(scope);
    show_plans(scope);
    demo_section("Listing 6: copy X(a) to XT(b)");
    listing6(scope);
    for (size_t i = 0; i < NBACKENDS; i++)
        if (backends[i].bandwidth != NULL && backend_present(&backends[i]))
            backends[i].bandwidth(scope, &opt);

    pa_scope_destroy(scope);
    demo_section(demo_failures == 0 ? "All checks passed" : "Some checks FAILED");
    return demo_failures == 0 ? 0 : 1;
}
