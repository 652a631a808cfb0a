/*
 * gamem — the manual's listings 17 and 18: a Global Arrays array of 3 x 4 x 2 ints shared by 4 processes, and
 * local paged arrays copied to and from it (SPMD; run with mpirun -np 4).
 *
 * The manual creates DATA inside an mpi process array; Global Arrays creates its arrays collectively over all
 * of MPI_COMM_WORLD, so here every process runs the same code, as in plain SPMD MPI.  Process 0 fills its
 * paged BUF with 0..23 and copies it into DATA (NGA_Put); after a barrier every process copies DATA back into
 * its own BUF (NGA_Get), and into a transposed local type (NGA_Strided_get).  Process 0 prints.
 * Linked with the static library and parray_gamem (gamem is not in the shared library: see README).
 */
#include <mpi.h>
#include <stdio.h>
#include <string.h>

#include <parray/parray.h>

static void print_ints(const char *what, const int *v, int n)
{
    printf("%s:", what);
    for (int i = 0; i < n; i++)
        printf(" %d", v[i]);
    printf("\n");
}

int main(int argc, char **argv)
{
    int me = 0, nprocs = 1, bad = 0, all_bad = 0, rc = 1;
    int mybuf[24], tbuf[24];
    pa_scope *scope = NULL;
    int *data = NULL;
    char line[512];
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &nprocs);
    if (pa_scope_create(NULL, &scope) != PA_OK ||
        pa_declare_text(scope, "DATA = gamem int [3][[4][2]]\n"       /* listing 17's types */
                               "BUF = paged int [24]\n"
                               "TB = paged int [[4][2]][3]\n"
                               "TBUF = paged int [#TB_1][#TB_0]\n") != PA_OK)   /* DATA's shape, transposed */
        goto done;
    const pa_type *DATA = pa_type_get(scope, "DATA"), *BUF = pa_type_get(scope, "BUF");
    const pa_type *TBUF = pa_type_get(scope, "TBUF");
    data = pa_create(DATA);   /* every process: NGA_Create is collective */
    if (data == NULL)
        goto done;
    if (me == 0) {
        for (int i = 0; i < 24; i++)
            mybuf[i] = i;
        if (pa_copy(DATA, data, BUF, mybuf) != PA_OK)
            goto done;
        pa_copy_explain(DATA, BUF, line, sizeof line);
        printf("copy BUF to DATA: %s\n", strstr(line, "strategy="));
    }
    MPI_Barrier(MPI_COMM_WORLD);
    memset(mybuf, -1, sizeof mybuf);
    memset(tbuf, -1, sizeof tbuf);
    if (pa_copy(BUF, mybuf, DATA, data) != PA_OK || pa_copy(TBUF, tbuf, DATA, data) != PA_OK)
        goto done;
    for (int i = 0; i < 24; i++)
        bad += mybuf[i] != i || tbuf[(i % 8) * 3 + i / 8] != i;
    MPI_Allreduce(&bad, &all_bad, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (me == 0) {
        print_ints("DATA read back into BUF", mybuf, 24);
        print_ints("DATA read into the transposed TBUF", tbuf, 24);
        pa_copy_explain(TBUF, DATA, line, sizeof line);
        printf("copy DATA to TBUF: %s\n", strstr(line, "strategy="));
        printf("%d processes read DATA: %s\n", nprocs, all_bad ? "MISMATCH" : "all agree");
    }
    MPI_Barrier(MPI_COMM_WORLD);
    rc = all_bad != 0;
done:
    if (rc && all_bad == 0)
        fprintf(stderr, "gamem (process %d): %s\n", me, pa_last_error());
    if (data && pa_destroy(pa_type_get(scope, "DATA"), data) != PA_OK)
        rc = 1;
    pa_scope_destroy(scope);
    MPI_Finalize();
    return rc;
}
