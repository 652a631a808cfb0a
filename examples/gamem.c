/*
 * gamem — the manual's listings 17 and 18 as written: a Global Arrays array of 3 x 4 x 2 ints created by a
 * process array of 4 MPI processes, and a local paged array on its process 0 copied to and from it.
 *
 *     mpirun -np 6 gamem      (5 processes at least: rank 0 runs main, 4 are drafted; listing 18 used 6)
 *
 * As in the listing, main initialises MPI and Global Arrays, enters the library's main (PARRAY's _pa_main:
 * pa_mpi_main), and terminates both after it.  Rank 0's main starts "for k::mpi[4]": four idle ranks are
 * drafted, and each creates DATA (pa_create of a gamem type is collective over the process array: the Global
 * Array lives on a Global Arrays processor group of exactly those four processes).  Process 0 of the array
 * fills BUF with 0..23, copies it into DATA (NGA_Put64), spoils BUF, copies DATA back (NGA_Get64) and prints
 * it; then every process calls GA_Print_distribution on DATA, which prints, on the group's process 0, the
 * sections that the processes of the group own: the manual's 3x4x2 distribution of listing 18.  (The
 * manual's listing never destroys DATA; here the array is destroyed when the process array ends.)  The
 * listing's one line that the manual's text garbles, "mybuf = -1" between the copies, is read as spoiling
 * BUF so that what is printed must come back from DATA.
 *
 * Linked with the static library and parray_gamem (gamem is not in the shared library: see README).
 */
#include <ga.h>
#include <mpi.h>
#include <stdio.h>

#include <parray/parray.h>
#include <parray/mpi.h>

static pa_scope *scope;   /* the listing's #parray declarations, made by every process */

/* The body of "for k::mpi[4]": run by the four drafted processes. */
static int body(pa_ctx *ctx, void *arg)
{
    const pa_type *DATA = pa_type_get(scope, "DATA"), *BUF = pa_type_get(scope, "BUF");
    int k = (int)pa_tid(ctx), handle = 0, st = PA_OK;
    (void)arg;
    int *data = pa_create(DATA);   /* create DATA(data) */
    if (data == NULL)
        return PA_ERR_INVAL;   /* pa_last_error() says why; it reaches rank 0 with the status */
    if (k == 0) {
        int *mybuf = pa_create(BUF);   /* create BUF(mybuf) */
        if (mybuf == NULL)
            return PA_ERR_NOMEM;
        for (int i = 0; i < pa_size(BUF); i++)   /* for i::BUF(mybuf) mybuf = i */
            mybuf[i] = i;
        st = pa_copy(DATA, data, BUF, mybuf);   /* copy BUF(mybuf) to DATA(data) */
        for (int i = 0; i < pa_size(BUF); i++)
            mybuf[i] = -1;
        if (st == PA_OK)
            st = pa_copy(BUF, mybuf, DATA, data);   /* copy DATA(data) to BUF(mybuf) */
        for (int i = 0; st == PA_OK && i < pa_size(BUF); i++)   /* for i::BUF(mybuf) printf("%d ", mybuf) */
            printf("%d ", mybuf[i]);
        printf("\n");
        fflush(stdout);
        pa_destroy(BUF, mybuf);
    }
    if (st == PA_OK)
        st = pa_gamem_handle(data, &handle);
    if (st == PA_OK)
        GA_Print_distribution(handle);   /* collective over the array's processor group */
    fflush(stdout);
    return st;
}

static int pa_main(int argc, char **argv)
{
    (void)argc;
    (void)argv;
    int st = pa_for(pa_type_parse(scope, "mpi [4]"), body, NULL, 0);
    if (st != PA_OK)
        fprintf(stderr, "gamem: %s\n", pa_last_error());
    return st == PA_OK ? 0 : 1;
}

int main(int argc, char **argv)
{
    int rc = 1;
    MPI_Init(&argc, &argv);
    GA_Initialize();
    if (pa_scope_create(NULL, &scope) == PA_OK &&
        pa_declare_text(scope, "DATA = gamem int [3][[4][2]]\n"
                               "BUF = paged int [24]\n") == PA_OK &&
        pa_mpi_register("body", body) == PA_OK)
        rc = pa_mpi_main(argc, argv, pa_main);   /* _pa_main() */
    else
        fprintf(stderr, "gamem: %s\n", pa_last_error());
    pa_scope_destroy(scope);
    GA_Terminate();
    MPI_Finalize();
    return rc;
}
