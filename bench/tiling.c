/*
 * bench/tiling — the manual's tiled transposition (listing 23, tiling.pa) timed on the host (issue 14, item 5;
 * the bandwidth part of target P13 in shared/PERFORMANCE.md).
 *
 * As the listing writes it: A = paged int [[n/R][R]][[n/C][C]] seen tile by tile, TA = [[#A_0_0][#A_1_0]]
 * [[#A_0_1][#A_1_1]], each tile moved through a vmem int [R][C] tile into B = A^T seen as TB = [[#B_1_0][#B_0_0]]
 * [[#B_1_1][#B_0_1]], one pa_tile_copy call (no tile function: the tile lives in vector registers, transposed there;
 * AVX-512 or AVX2 chosen at run time, pa_vmem_isa).  R x 4 bytes is one 64-byte line of B and R x C x 4 bytes
 * at most the register file: 16 x 16 on AVX-512, 16 x 8 on AVX2.  B = A^T is checked.
 *
 * Against an OpenMP-parallel memcpy of the same bytes (bytes counted once) on as many threads, alternating, a
 * pause of 20 ms before each side, median of 11: at all of this process's CPUs (target >= 0.85), and at half of
 * them and on one thread (information).  Without a tile function pa_tile_copy's move is pa_copy's, on the copy
 * threads (pa_copy_set_threads).
 *
 * Usage: tiling [--smoke] [n]      (n: the matrix side, a multiple of 16, default 8192: 256 MiB; --smoke: 512,
 *                                   one repetition, no pass/fail)
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <parray/parray.h>

#include "omp_memcpy.h"

static int smoke;

typedef struct bench {
    const pa_type *ta, *tb, *tile;
    int *a, *b;
    char *anchor;
    size_t bytes;
} bench;

/* One row: ours against the anchor on t threads, medians of reps alternating runs. */
static void measure(const bench *x, int t, int reps, double *ours, double *anchor)
{
    double vo[16], va[16];
    pa_copy_set_threads(t);   /* pa_tile_copy's move without a tile function is a copy (tile.h) */
    for (int r = -1; r < reps; r++) {   /* r = -1: the warm-up of both sides */
        usleep(smoke ? 0 : 20000);
        double t0 = now();
        if (pa_tile_copy(x->tb, x->b, x->ta, x->a, x->tile, NULL, NULL) != PA_OK) {
            fprintf(stderr, "tiling: %s\n", pa_last_error());
            exit(1);
        }
        double t1 = now();
        usleep(smoke ? 0 : 20000);
        double t2 = now();
        omp_memcpy(x->anchor, (const char *)x->a, x->bytes, t);
        double t3 = now();
        if (r >= 0)
            vo[r] = t1 - t0, va[r] = t3 - t2;
    }
    qsort(vo, (size_t)reps, sizeof *vo, cmp_double);
    qsort(va, (size_t)reps, sizeof *va, cmp_double);
    *ours = (double)x->bytes * 1e-9 / vo[reps / 2];
    *anchor = (double)x->bytes * 1e-9 / va[reps / 2];
}

/* B = A^T, every element (a sample of rows on a full-size run). */
static int check(const int *a, const int *b, int n)
{
    for (int i = 0; i < n; i += smoke ? 1 : 61)
        for (int j = 0; j < n; j++)
            if (b[(size_t)j * n + i] != a[(size_t)i * n + j]) {
                fprintf(stderr, "tiling: B[%d][%d] = %d, expected A[%d][%d] = %d\n", j, i, b[(size_t)j * n + i], i,
                        j, a[(size_t)i * n + j]);
                return 1;
            }
    return 0;
}

/* The kernel's transparent huge pages setting, for the record (4 KiB pages cost the transposition's side more). */
static void thp(char *buf, size_t len)
{
    FILE *f = fopen("/sys/kernel/mm/transparent_hugepage/enabled", "r");
    snprintf(buf, len, "unknown");
    if (f && fgets(buf, (int)len, f))
        buf[strcspn(buf, "\n")] = 0;
    if (f)
        fclose(f);
}

int main(int argc, char **argv)
{
    int n = 8192;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--smoke") == 0)
            smoke = 1, n = 512;
        else if (atoi(argv[i]) >= 16 && atoi(argv[i]) % 16 == 0)
            n = atoi(argv[i]);
        else {
            fprintf(stderr, "usage: tiling [--smoke] [n, a multiple of 16]\n");
            return 2;
        }
    }
    /* The tile: R rows of A (one line of B each), C columns, within the register file. */
    int R = 16, C = (int)(pa_vmem_width() * pa_vmem_registers() / (R * 4));
    C = C > 16 ? 16 : C;
    char text[512];
    snprintf(text, sizeof text,
             "parray paged int [[%d][%d]][[%d][%d]] A\n"
             "parray paged int [[%d][%d]][[%d][%d]] B\n"
             "parray vmem int [%d][%d] TILE\n"
             "parray [[#A_0_0][#A_1_0]][[#A_0_1][#A_1_1]] TA\n"
             "parray [[#B_1_0][#B_0_0]][[#B_1_1][#B_0_1]] TB\n",
             n / R, R, n / C, C, n / C, C, n / R, R, R, C);
    pa_scope *s = NULL;
    if (pa_scope_create(NULL, &s) != PA_OK || pa_declare_text(s, text) != PA_OK) {
        fprintf(stderr, "tiling: %s\n", pa_last_error());
        return 1;
    }
    bench x = {pa_type_get(s, "TA"), pa_type_get(s, "TB"), pa_type_get(s, "TILE"), pa_create(pa_type_get(s, "A")),
               pa_create(pa_type_get(s, "B")), NULL, (size_t)n * n * sizeof(int)};
    x.anchor = malloc(x.bytes);
    if (!x.ta || !x.tb || !x.tile || !x.a || !x.b || !x.anchor) {
        fprintf(stderr, "tiling: %s\n", pa_last_error());
        return 1;
    }
    for (size_t i = 0; i < (size_t)n * n; i++)
        x.a[i] = (int)i, x.b[i] = -1;
    memset(x.anchor, 0, x.bytes);
    pa_host_share_info sh;
    pa_host_share(&sh);
    char hp[128];
    thp(hp, sizeof hp);
    printf("listing 23 (tiling.pa): B = A^T, %d x %d int (%.0f MiB), pa_tile_copy through vmem int [%d][%d] tiles, vmem: "
           "%s (%d-byte vectors, %d registers); %d CPUs; transparent huge pages: %s\n",
           n, n, (double)x.bytes / (1 << 20), R, C, pa_vmem_isa(), pa_vmem_width(), pa_vmem_registers(), sh.cpus, hp);
    printf("| case | threads | ours | anchor | unit | ratio | target | result |\n"
           "| --- | --- | --- | --- | --- | --- | --- | --- |\n");
    int threads[3] = {sh.cpus, sh.cpus / 2, 1}, rows = sh.cpus >= 4 ? 3 : sh.cpus > 1 ? 2 : 1;
    int fails = 0, reps = smoke ? 1 : 11;
    if (rows == 2)
        threads[1] = 1;
    for (int k = 0; k < rows; k++) {
        double ours, anchor;
        measure(&x, threads[k], reps, &ours, &anchor);
        if (check(x.a, x.b, n) != 0)
            return 1;
        memset(x.b, 0xff, x.bytes);   /* the next row must not pass on this one's data */
        double ratio = ours / anchor;
        int target = k == 0;
        fails += target && ratio < 0.85;
        printf("| tiled transposition, vmem int [%d][%d] (GB/s; anchor: OpenMP memcpy) | %d | %.2f | %.2f | GB/s | "
               "%.3f | %s | %s |\n", R, C, threads[k], ours, anchor, ratio, target ? "0.85" : "-",
               !target ? "(information)" : smoke ? "(smoke)" : ratio >= 0.85 ? "pass" : "FAIL");
        fflush(stdout);
    }
    if (smoke)
        printf("(smoke run: no verdict)\n");
    else
        printf("%d of 1 rows with a target meet it\n", 1 - fails);
    pa_destroy(pa_type_get(s, "A"), x.a);
    pa_destroy(pa_type_get(s, "B"), x.b);
    free(x.anchor);
    pa_scope_destroy(s);
    return smoke ? 0 : fails != 0;
}
