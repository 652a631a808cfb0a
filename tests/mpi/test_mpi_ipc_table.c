/*
 * parray MPI tests — the table of other processes' allocations mapped here for the peer route's direct pulls
 * (src/backends/mpi/dist_ipc.c), on the CPU: a stand-in allocator whose "handles" name an integer and whose open
 * and close count what is mapped.  Checked: a handle is opened once and then found; a full table pushes out the
 * entry unused longest and closes it; entries in use are never pushed out, and when every entry is in use a
 * mapping is opened for the one use and closed at its release; an open that fails is the allocator's error and
 * keeps nothing; an open refused while an older mapping is kept closes the unused ones and succeeds on a second
 * try; MPI_Finalize's hook closes every mapping no copy holds.  Each rank runs it on its own table
 * (every process has one); run under mpirun like the other MPI suites.
 */
#include <stdint.h>
#include <string.h>

#include "mpi_backend.h"
#include "mpi_check.h"

#define TABLE 16   /* dist_ipc.c's MAPS */

static int opened, closed, refuse;
static char mapped[1000];   /* &mapped[k] is the stand-in mapping of handle k */

static int stand_in_open(const void *handle, void **out)
{
    int k;
    memcpy(&k, handle, sizeof k);
    if (refuse == k)
        return pa__err(PA_ERR_SYS, "stand-in: handle %d refused", k);
    if (k == 500 && opened > closed)   /* as CUDA's "already mapped": its allocation is mapped under another */
        return pa__err(PA_ERR_SYS, "stand-in: handle 500 already mapped");
    opened++;
    *out = &mapped[k];
    return PA_OK;
}

static int stand_in_close(void *ptr)
{
    (void)ptr;
    closed++;
    return PA_OK;
}

static const pa__mem_ops ops = {.name = "stand-in", .ipc_open = stand_in_open, .ipc_close = stand_in_close};

static void handle_of(int k, char *h)
{
    memset(h, 0, PA__IPC_HANDLE_BYTES);
    memcpy(h, &k, sizeof k);
}

/* Acquires handle k: its mapping and entry. */
static void *get(int k, int *entry)
{
    char h[PA__IPC_HANDLE_BYTES];
    void *p = NULL;
    handle_of(k, h);
    MCK_OK(pa_mpi__ipc_acquire(&ops, h, &p, entry));
    MCK(p == &mapped[k], "handle %d mapped at %p, expected %p", k, p, (void *)&mapped[k]);
    return p;
}

/* Acquires handle k and releases it at once (a copy that used it). */
static void use(int k)
{
    int e;
    void *p = get(k, &e);
    pa_mpi__ipc_release(&ops, p, e);
}

static void test_kept(void)
{
    int e1, e2;
    opened = closed = 0;
    void *p = get(1, &e1);
    pa_mpi__ipc_release(&ops, p, e1);
    p = get(1, &e2);   /* found: not opened again */
    pa_mpi__ipc_release(&ops, p, e2);
    MCK(opened == 1 && closed == 0 && e1 == e2 && e1 >= 0, "opened %d, closed %d, entries %d %d", opened, closed,
        e1, e2);
    pa_mpi__ipc_close_all();
    MCK(closed == 1, "close_all closed %d mappings, expected 1", closed);
}

static void test_pushed_out(void)
{
    opened = closed = 0;
    for (int k = 10; k < 10 + TABLE; k++)   /* a full table, nothing in use; 10 used longest ago */
        use(k);
    use(11);   /* 11 is now fresher than 10 */
    use(100);  /* one more: 10 goes */
    MCK(opened == TABLE + 1 && closed == 1, "opened %d, closed %d", opened, closed);
    use(11);   /* still there */
    MCK(opened == TABLE + 1, "11 was pushed out instead of 10 (opened %d)", opened);
    use(10);   /* reopened */
    MCK(opened == TABLE + 2 && closed == 2, "opened %d, closed %d", opened, closed);
    pa_mpi__ipc_close_all();
    MCK(closed == opened, "close_all left mappings open: %d of %d closed", closed, opened);
}

static void test_in_use(void)
{
    int e[TABLE + 1];
    void *p[TABLE + 1];
    opened = closed = 0;
    for (int k = 0; k < TABLE; k++)   /* every entry held */
        p[k] = get(200 + k, &e[k]);
    p[TABLE] = get(300, &e[TABLE]);   /* no entry to push out: mapped for this use only */
    MCK(e[TABLE] < 0 && closed == 0, "entry %d, closed %d", e[TABLE], closed);
    pa_mpi__ipc_release(&ops, p[TABLE], e[TABLE]);
    MCK(closed == 1, "the one-use mapping was not closed at its release (%d closed)", closed);
    pa_mpi__ipc_close_all();   /* held: none closed */
    MCK(closed == 1, "close_all closed mappings in use (%d closed)", closed);
    for (int k = 0; k < TABLE; k++)
        pa_mpi__ipc_release(&ops, p[k], e[k]);
    pa_mpi__ipc_close_all();
    MCK(closed == TABLE + 1 && opened == TABLE + 1, "opened %d, closed %d", opened, closed);
}

static void test_refused(void)
{
    char h[PA__IPC_HANDLE_BYTES];
    void *p = NULL;
    int e = 7;
    opened = closed = 0;
    refuse = 400;
    handle_of(400, h);
    MCK_ERR(pa_mpi__ipc_acquire(&ops, h, &p, &e), PA_ERR_SYS);
    MCK(strstr(pa_last_error(), "handle 400 refused") != NULL, "message: %s", pa_last_error());
    refuse = -1;
    p = get(400, &e);   /* nothing was kept: opened now */
    MCK(opened == 1, "opened %d", opened);
    pa_mpi__ipc_release(&ops, p, e);
    pa_mpi__ipc_close_all();
}

/* An open refused while an older mapping of the same allocation is kept (its owner freed the array and was given
 * the allocation back under a new handle): the mappings no copy holds are closed and the open tried again. */
static void test_remapped(void)
{
    int e;
    opened = closed = 0;
    use(501);   /* kept: the stale mapping */
    void *p = get(500, &e);
    MCK(opened == 2 && closed == 1 && e >= 0, "opened %d, closed %d, entry %d", opened, closed, e);
    pa_mpi__ipc_release(&ops, p, e);
    pa_mpi__ipc_close_all();
    MCK(closed == opened, "close_all left mappings open: %d of %d closed", closed, opened);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    refuse = -1;
    mck_run("a mapping kept and found", test_kept);
    mck_run("the mapping unused longest pushed out", test_pushed_out);
    mck_run("mappings in use", test_in_use);
    mck_run("a refused mapping", test_refused);
    mck_run("an allocation mapped under an older handle", test_remapped);
    int all = 0;
    MPI_Allreduce(&mck_failures, &all, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    MPI_Finalize();
    return all ? 1 : 0;
}
