/*
 * parray MPI tests — random gamem copies on 4 processes.  Each round draws a logical shape of 1 to 4
 * dimensions and an element size of 1 to 24 bytes, then views of that shape: a window into a padded array
 * whose dimensions hold the logical ones in a random order (some reversed through func), on the gamem side
 * over arrays of that padded shape (so that the Global Array has its dimensions), on the host side over
 * paged arrays.  host -> gamem -> host round trips and gamem -> gamem copies between two such views, by a
 * random process, are checked element by element against the tree-walking offsets, destinations poisoned
 * first.  Rank 0 draws the seed (PA_TEST_SEED replays one) and broadcasts it; it is printed on failure.
 */
#include <stdarg.h>
#include <time.h>

#include "gamem_util.h"
#include "test_seed.h"

static uint64_t rng;

static int64_t rnd(int64_t lo, int64_t hi)
{
    rng += 0x9e3779b97f4a7c15ULL;
    uint64_t z = rng;
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    z ^= z >> 31;
    return lo + (int64_t)(z % (uint64_t)(hi - lo + 1));
}

static int64_t neg(int64_t i, void *ctx)
{
    (void)ctx;
    return -i;
}

static void put(char *buf, size_t len, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void put(char *buf, size_t len, const char *fmt, ...)
{
    size_t at = strlen(buf);
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf + at, at < len ? len - at : 0, fmt, ap);
    va_end(ap);
}

/*
 * Declares base array `base` (memory type mtt) whose dimension i holds logical dimension perm[i] with some
 * padding, and view `view` over it that walks the logical dimensions in order, each a window (and reversed
 * at random) into its base dimension.
 */
static void declare_view(const char *mtt, const char *elm, const int64_t *l, int r, const char *base,
                         const char *view)
{
    int perm[4], inv[4];
    int64_t off[4];
    char text[1024] = "";
    for (int i = 0; i < r; i++)
        perm[i] = i;
    for (int i = r - 1; i > 0; i--) {
        int j = (int)rnd(0, i), t = perm[i];
        perm[i] = perm[j];
        perm[j] = t;
    }
    put(text, sizeof text, "%s = %s %s %s", base, mtt, elm, r == 1 ? "[" : "");   /* [[n]]: base_0 exists */
    for (int i = 0; i < r; i++) {
        int64_t pad = rnd(0, 2);
        off[i] = rnd(0, pad);
        inv[perm[i]] = i;
        put(text, sizeof text, "[%lld]", (long long)(l[perm[i]] + pad));
    }
    put(text, sizeof text, "%s", r == 1 ? "]" : "");
    put(text, sizeof text, "\n%s = %s %s [", view, mtt, elm);
    for (int j = 0; j < r; j++) {
        int a = inv[j];
        if (rnd(0, 3) == 0)   /* reversed: index i reaches base index off + l - 1 - i */
            put(text, sizeof text, "[%lld # disp(%lld) # func(neg) # disp(%lld) # %s_%d]", (long long)l[j],
                (long long)-(l[j] - 1), (long long)off[a], base, a);
        else
            put(text, sizeof text, "[%lld # disp(%lld) # %s_%d]", (long long)l[j], (long long)off[a], base, a);
    }
    put(text, sizeof text, "]\n");
    MCK(pa_declare_text(scope, text) == PA_OK, "%s: %s", text, pa_last_error());
}

/*
 * Flat views of A1's elements: a run from a random offset (which crosses the ends of the Global Array's rows)
 * and every k-th element from a random offset (a stride that may be no whole step of any dimension).
 */
static void flat_views(const char *elm, int writer)
{
    int64_t n = pa_size(T("A1")), len = rnd(1, n), k = rnd(2, 5), m = (n + k - 1) / k, len2 = rnd(1, m);
    char text[512];
    snprintf(text, sizeof text,
             "AF = gamem %1$s [%2$lld]\n"
             "RUN = gamem %1$s [%3$lld # disp(%4$lld) # AF]\n"
             "HR = paged %1$s [%3$lld]\n"
             "K = gamem %1$s [[%5$lld][%6$lld]]\n"
             "STEP = gamem %1$s [%7$lld # disp(%8$lld) # K_0]\n"
             "HS = paged %1$s [%7$lld]\n",
             elm, (long long)n, (long long)len, (long long)rnd(0, n - len), (long long)m, (long long)k,
             (long long)len2, (long long)rnd(0, (n - 1) / k - (len2 - 1) < 0 ? 0 : (n - 1) / k - (len2 - 1)));
    MCK(pa_declare_text(scope, text) == PA_OK, "%s: %s", text, pa_last_error());
    round_trip(MPI_COMM_WORLD, T("A1"), T("RUN"), T("HR"), writer, NULL, NULL);
    if (extent_of(T("STEP")) <= n)
        round_trip(MPI_COMM_WORLD, T("A1"), T("STEP"), T("HS"), writer + 1, NULL, NULL);
}

int main(int argc, char **argv)
{
    static const char *elms[] = {"e1", "e2", "e3", "e4", "e8", "e12", "e16", "e24"};
    static const size_t sizes[] = {1, 2, 3, 4, 8, 12, 16, 24};
    uint64_t seed = 0;
    int me = 0;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    if (me == 0)
        seed = pa_test_seed_value();
    MPI_Bcast(&seed, 1, MPI_UINT64_T, 0, MPI_COMM_WORLD);
    rng = seed;
    for (int round = 0; round < 12; round++) {
        int64_t l[4];
        int r = (int)rnd(1, 4), e = (int)rnd(0, 7);
        pa_scope_create(NULL, &scope);
        pa_scope_def_func(scope, "neg", neg, NULL);
        pa_scope_def_elm(scope, elms[e], sizes[e]);
        for (int i = 0; i < r; i++)
            l[i] = rnd(1, r > 2 ? 4 : 7);
        declare_view("gamem", elms[e], l, r, "A1", "G1");
        declare_view("gamem", elms[e], l, r, "A2", "G2");
        declare_view("paged", elms[e], l, r, "B", "H");
        int writer = (int)rnd(0, 3);
        round_trip(MPI_COMM_WORLD, T("A1"), T("G1"), T("H"), writer, NULL, NULL);
        round_trip(MPI_COMM_WORLD, T("A2"), T("G2"), T("H"), writer + 1, NULL, NULL);
        gamem_copy_check(T("A2"), T("G2"), T("A1"), T("G1"), 0, writer + 2);
        gamem_copy_check(T("A1"), T("G1"), T("A2"), T("G2"), 0, writer + 3);
        flat_views(elms[e], writer);
        pa_scope_destroy(scope);
    }
    int failed = 0;
    MPI_Allreduce(&mck_failures, &failed, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (me == 0)
        printf("random gamem copies: %s (seed %llu)\n", failed ? "FAILED" : "ok", (unsigned long long)seed);
    MPI_Finalize();
    return failed ? 1 : 0;
}
