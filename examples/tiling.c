/*
 * tiling — the manual's tiled transposition (listing 23) on the CPU.
 *
 * A is a 6 x 8 matrix declared in 2 x 4 blocks, [[3][2]][[2][4]].  TA lists A's elements tile by tile (block
 * row, block column, then the rows and columns inside the block); TB lists B = A^T (8 x 6) so that tile t of TB
 * is where tile t of TA belongs after the transposition.  pa_tile_copy stages each tile in a small buffer (the
 * inner type, a cache-sized block on a real matrix) and stores it to B.  A 1024 x 1024 run in 32 x 32 tiles
 * is then checked element by element, and again with the manual's own inner type, a vmem tile (vector
 * registers on the Xeon Phi; here an 8 x 8 tile of ints within the CPU's register file, which pa_tile_copy moves
 * through the vector registers and transposes there: see vmem.h and tile.h).  bench/tiling times the same call
 * on a 8192 x 8192 matrix against an OpenMP memcpy (docs/threads.md).
 */
#include <stdio.h>
#include <stdlib.h>

#include <parray/parray.h>

static int transpose(pa_scope *s, int rb, int r, int cb, int c, const int *a, int *b, const char *tile_mtt)
{
    char decl[128];
    snprintf(decl, sizeof decl, "paged int [[%d][%d]][[%d][%d]]", rb, r, cb, c);
    if (pa_declare(s, "A", decl) != PA_OK)
        return -1;
    snprintf(decl, sizeof decl, "paged int [[%d][%d]][[%d][%d]]", cb, c, rb, r);
    if (pa_declare(s, "B", decl) != PA_OK)
        return -1;
    snprintf(decl, sizeof decl, "%s int [%d][%d]", tile_mtt, r, c);
    if (pa_declare(s, "TILE", decl) != PA_OK ||
        pa_declare(s, "TA", "[[#A_0_0][#A_1_0]][[#A_0_1][#A_1_1]]") != PA_OK ||
        pa_declare(s, "TB", "[[#B_1_0][#B_0_0]][[#B_1_1][#B_0_1]]") != PA_OK)
        return -1;
    /* for TA(a) itile TILE { } then the tile goes to B: one call, tile by tile. */
    return pa_tile_copy(pa_type_get(s, "TB"), b, pa_type_get(s, "TA"), a, pa_type_get(s, "TILE"), NULL, NULL);
}

int main(void)
{
    pa_scope *s1 = NULL, *s2 = NULL;
    int a[48], b[48];
    for (int i = 0; i < 48; i++)
        a[i] = i;
    if (pa_scope_create(NULL, &s1) != PA_OK || transpose(s1, 3, 2, 2, 4, a, b, "paged") != PA_OK)
        goto fail;
    for (int i = 0; i < 8; i++)
        for (int j = 0; j < 6; j++)
            printf("%3d%s", b[i * 6 + j], j == 5 ? "\n" : " ");
    int n = 1024, *big = malloc(sizeof(int) * n * n), *out = malloc(sizeof(int) * n * n), bad = 0;
    for (int i = 0; i < n * n; i++)
        big[i] = i;
    if (big == NULL || out == NULL || pa_scope_create(NULL, &s2) != PA_OK ||
        transpose(s2, n / 32, 32, n / 32, 32, big, out, "paged") != PA_OK)
        goto fail;
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++)
            bad += out[j * n + i] != big[i * n + j];
    printf("1024 x 1024 in 32 x 32 tiles: %s\n", bad ? "wrong" : "transposed");
    pa_scope_destroy(s2);
    s2 = NULL;
    for (int i = 0; i < n * n; i++)
        out[i] = -1;
    if (pa_scope_create(NULL, &s2) != PA_OK || transpose(s2, n / 8, 8, n / 8, 8, big, out, "vmem") != PA_OK)
        goto fail;
    bad = 0;
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++)
            bad += out[j * n + i] != big[i * n + j];
    printf("1024 x 1024 in 8 x 8 vmem tiles: %s\n", bad ? "wrong" : "transposed");
    free(big);
    free(out);
    pa_scope_destroy(s1);
    pa_scope_destroy(s2);
    return 0;
fail:
    fprintf(stderr, "tiling: %s\n", pa_last_error());
    return 1;
}
