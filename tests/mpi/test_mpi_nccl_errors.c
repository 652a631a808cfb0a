/*
 * parray MPI tests — the NCCL route's errors through pa_copy on real GPUs, one per process (rank r on GPU r):
 * a rank whose source or destination lives on another GPU than its communicator's, a rank with another GPU
 * current, a type distributed over more processes than the communicator has.  Each gives every rank the same
 * clear error (naming the rank and the GPUs) and no rank waits: the meson test's timeout turns a hang into a
 * failure.  A good copy before and after each checks every element, so a refused copy leaves the route usable.
 *
 * Run as the suite mpi_nccl_errors (mpirun -np 2, PA_MPI_ROUTE=nccl); exits 77 with fewer GPUs than processes,
 * below 2 GPUs, or without NCCL.  The agreement itself on the CPU: test_mpi_nccl_check.c.
 */
#include "mpi_check.h"
#include <parray/cuda.h>
#include <parray/mpi.h>

static pa_scope *scope;
static int me, np, ngpu;
static const pa_type *S, *T, *D, *H;

/* A good all-to-all S -> T between arrays of this rank's GPU: every element where pa_offset_on says. */
static void good_copy(void *dst, void *src)
{
    int64_t n = pa_size(D);
    int *host = malloc((size_t)n * sizeof *host), bad = 0;
    for (int64_t o = 0; o < n; o++)
        host[o] = me * 1000 + (int)o;
    MCK_OK(pa_copy(D, src, H, host));
    for (int64_t o = 0; o < n; o++)
        host[o] = -1;
    MCK_OK(pa_copy(D, dst, H, host));
    MCK_OK(pa_copy(T, dst, S, src));
    MCK_OK(pa_copy(H, host, D, dst));
    for (int64_t k = 0; k < pa_size(T) && bad < 3; k++) {
        if (pa_offset_on(T, PA_ON_THREAD, k) != me)
            continue;
        int want = (int)pa_offset_on(S, PA_ON_THREAD, k) * 1000 + (int)pa_offset_on(S, PA_ON_LOCAL, k);
        int got = host[pa_offset_on(T, PA_ON_LOCAL, k)];
        if (got != want) {
            MCK(0, "element %lld: %d, expected %d", (long long)k, got, want);
            bad++;
        }
    }
    free(host);
}

/* An array of D made with another GPU current: on GPU (me + 1) mod ngpu. */
static void *elsewhere(void)
{
    void *p;
    MCK_OK(pa_cuda_set_device((me + 1) % ngpu));
    p = pa_create(D);
    MCK_OK(pa_cuda_set_device(me));
    return p;
}

static void expect(int st, int code, const char *want)
{
    MCK(st == code, "got %s, expected %s: %s", pa_status_name(st), pa_status_name(code), pa_last_error());
    MCK(strstr(pa_last_error(), want) != NULL, "message \"%s\" lacks \"%s\"", pa_last_error(), want);
}

static void test_wrong_gpu(void)
{
    void *src = pa_create(D), *dst = pa_create(D), *other = elsewhere();
    char want[160], buf[1024];
    int last = np - 1;
    good_copy(dst, src);
    MCK(pa_copy_explain(T, S, buf, sizeof buf) >= 0 && strstr(buf, "NCCL"), "not the NCCL route: %s", buf);
    /* the last rank's source on the next GPU */
    pa_error_clear();
    int st = pa_copy(T, dst, S, me == last ? other : src);
    snprintf(want, sizeof want, "rank %d's source array is on GPU %d, but the rank's NCCL communicator uses GPU %d",
             last, (last + 1) % ngpu, last);
    expect(st, PA_ERR_INVAL, want);
    /* rank 0's destination there */
    pa_error_clear();
    st = pa_copy(T, me == 0 ? other : dst, S, src);
    snprintf(want, sizeof want, "rank 0's destination array is on GPU %d", 1 % ngpu);
    expect(st, PA_ERR_INVAL, want);
    /* rank 1 with the next GPU current while it copies */
    if (me == 1)
        MCK_OK(pa_cuda_set_device((me + 1) % ngpu));
    pa_error_clear();
    st = pa_copy(T, dst, S, src);
    if (me == 1)
        MCK_OK(pa_cuda_set_device(me));
    snprintf(want, sizeof want, "rank 1 has GPU %d current, but its NCCL communicator was made on GPU 1", 2 % ngpu);
    expect(st, PA_ERR_INVAL, want);
    good_copy(dst, src);   /* the route still works */
    pa_destroy(D, src);
    pa_destroy(D, dst);
    if (other)
        pa_destroy(D, other);
}

/* A send/recv from rank 0 to the last rank (the pair's own communicator): good, then the receiver's destination
 * on another GPU, which both members of the pair report. */
static void test_pair(void)
{
    const pa_type *ps = pa_type_get(scope, "PS"), *pt = pa_type_get(scope, "PT"), *d3 = pa_type_get(scope, "D3"),
                  *h3 = pa_type_get(scope, "H3");
    int last = np - 1, host[3] = {me * 10 + 1, me * 10 + 2, me * 10 + 3}, back[3] = {0};
    void *src = pa_create(d3), *dst = pa_create(d3), *other = NULL;
    MCK_OK(pa_copy(d3, src, h3, host));
    MCK_OK(pa_copy(pt, dst, ps, src));
    MCK_OK(pa_copy(h3, back, d3, dst));
    if (me == last)
        MCK(back[0] == 1 && back[1] == 2 && back[2] == 3, "received %d %d %d, expected rank 0's 1 2 3", back[0],
            back[1], back[2]);
    MCK_OK(pa_cuda_set_device((me + 1) % ngpu));
    other = pa_create(d3);
    MCK_OK(pa_cuda_set_device(me));
    pa_error_clear();
    int st = pa_copy(pt, me == last ? other : dst, ps, src);
    if (me == 0 || me == last) {
        char want[128];
        snprintf(want, sizeof want, "rank %d's destination array is on GPU %d", last, (last + 1) % ngpu);
        expect(st, PA_ERR_INVAL, want);
    } else {
        MCK_OK(st);   /* not in the pair: nothing to do */
    }
    pa_destroy(d3, src);
    pa_destroy(d3, dst);
    if (other)
        pa_destroy(d3, other);
}

/* A type over one process more than the communicator has: refused on every rank before anything moves. */
static void test_too_many_processes(void)
{
    const pa_type *s2 = pa_type_get(scope, "S2"), *t2 = pa_type_get(scope, "T2"), *d2 = pa_type_get(scope, "D2");
    void *src = pa_create(d2), *dst = pa_create(d2);
    char want[96];
    pa_error_clear();
    int st = pa_copy(t2, dst, s2, src);
    snprintf(want, sizeof want, "lives on process %d (destination side)", np);   /* T2's first element beyond */
    expect(st, PA_ERR_RANGE, want);
    snprintf(want, sizeof want, "but the process array has %d processes", np);
    expect(st, PA_ERR_RANGE, want);
    pa_destroy(d2, src);
    pa_destroy(d2, dst);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &np);
    ngpu = pa_cuda_device_count();
    if (ngpu < 2 || ngpu < np || np < 2 || !pa_backend_on("nccl")) {
        if (me == 0)
            fprintf(stderr, "test_mpi_nccl_errors: skipped: %d GPUs for %d processes%s\n", ngpu, np,
                    pa_backend_on("nccl") ? "" : ", no NCCL");
        MPI_Finalize();
        return 77;
    }
    MCK_OK(pa_cuda_set_device(me));
    pa_scope_create(NULL, &scope);
    char decl[768];
    snprintf(decl, sizeof decl,
             "M = mpi [%d]\n"
             "D = dmem int [%d][3]\n"
             "H = paged int [%d][3]\n"
             "S = [#M][#D_0][#D_1]\n"
             "T = [#D_0][#M][#D_1]\n"
             "M2 = mpi [%d]\n"
             "D2 = dmem int [%d][3]\n"
             "S2 = [#M2][#D2_0][#D2_1]\n"
             "T2 = [#D2_0][#M2][#D2_1]\n"
             "D3 = dmem int [3]\n"
             "H3 = paged int [3]\n"
             "PS = [1 # disp(0) # M][#D3]\n"
             "PT = [1 # disp(%d) # M][#D3]\n", np, np, np, np + 1, np + 1, np - 1);
    MCK_OK(pa_declare_text(scope, decl));
    S = pa_type_get(scope, "S"), T = pa_type_get(scope, "T"), D = pa_type_get(scope, "D"), H = pa_type_get(scope, "H");
    mck_run("arrays on another GPU", test_wrong_gpu);
    mck_run("a send/recv's pair", test_pair);
    mck_run("more processes than MPI has", test_too_many_processes);
    int all = 0;
    MPI_Allreduce(&mck_failures, &all, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    pa_scope_destroy(scope);
    MPI_Finalize();
    return all ? 1 : 0;
}
