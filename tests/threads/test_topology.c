/*
 * tests/threads: the hwloc topology, thread binding (compact / spread / none), the mic grid and omp arrays.
 * In a build without hwloc or OpenMP the same tests check the PA_ERR_NODEV answers instead.
 */
#include <sched.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "testutil.h"
#include "thread_internal.h"

static pa_scope *scope;

static void setup(void)
{
    ck_assert_int_eq(pa_scope_create(NULL, &scope), PA_OK);
}

static void teardown(void)
{
    pa_threads_set_binding(PA_BIND_NONE);
    pa_scope_destroy(scope);
}

START_TEST(topology_counts_and_print)
{
    pa_topology_info info;
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    if (pa__hwloc_available()) {
        PA_CK_OK(pa_topology_get(&info));
        ck_assert_int_ge(info.packages, 1);
        ck_assert_int_ge(info.cores, 1);
        ck_assert_int_ge(info.pus, info.cores);
        ck_assert_int_eq(info.pus % info.cores, 0);
        ck_assert_int_ge(info.numa_nodes, 1);
        PA_CK_OK(pa_topology_print(f));
        fclose(f);
        ck_assert_msg(strstr(text, "hardware threads") && strstr(text, "numa 0"), "%s", text);
        for (int i = 0; i < info.gpus; i++) {
            pa_gpu_info g;
            PA_CK_OK(pa_topology_gpu(i, &g));
            ck_assert_msg(g.name[0] != '\0', "GPU %d has no name", i);
        }
        PA_CK_ERR(pa_topology_gpu(info.gpus, &(pa_gpu_info){0}), PA_ERR_RANGE);
    } else {
        PA_CK_ERR(pa_topology_get(&info), PA_ERR_NODEV);
        PA_CK_ERR(pa_topology_print(f), PA_ERR_NODEV);
        fclose(f);
        ck_assert_msg(strstr(text, "without hwloc") != NULL, "%s", text);
    }
    free(text);
    PA_CK_ERR(pa_topology_get(NULL), PA_ERR_INVAL);
    PA_CK_ERR(pa_topology_print(NULL), PA_ERR_INVAL);
}
END_TEST

/* Each thread records the single CPU it may run on (-1 when it may run on several). */
typedef struct placement {
    int cpu[64];
    int want[64];
    int policy;
} placement;

static int record_cpu(pa_ctx *ctx, void *arg)
{
    placement *p = *(placement **)arg;
    cpu_set_t set;
    int64_t t = pa_tid(ctx);
    ck_assert_int_eq(sched_getaffinity(0, sizeof set, &set), 0);
    p->cpu[t] = -1;
    if (CPU_COUNT(&set) == 1)
        for (int c = 0; c < CPU_SETSIZE; c++)
            if (CPU_ISSET(c, &set))
                p->cpu[t] = c;
    p->want[t] = pa__bind_target_cpu(p->policy, t, pa_ctx_size(ctx), p->policy == -1 ?
                                     (int)pa_size(pa_type_child(pa_self(ctx), 1)) : 0);
    return PA_OK;
}

static void run_placement(const char *decl, int policy, placement *p)
{
    memset(p, 0, sizeof *p);
    p->policy = policy;
    PA_CK_OK(pa_for(pa_type_parse(scope, decl), record_cpu, &p, sizeof p));
}

START_TEST(binding_policies)
{
    placement p;
    if (pa__hwloc_available()) {
        int ncpu = 0;
        pa_topology_info info;
        PA_CK_OK(pa_topology_get(&info));
        ncpu = info.pus;
        PA_CK_OK(pa_threads_set_binding(PA_BIND_COMPACT));
        ck_assert_int_eq(pa_threads_get_binding(), PA_BIND_COMPACT);
        run_placement("pthd [4]", PA_BIND_COMPACT, &p);
        for (int t = 0; t < 4; t++) {
            ck_assert_int_ge(p.cpu[t], 0);
            ck_assert_int_eq(p.cpu[t], p.want[t]);
        }
        PA_CK_OK(pa_threads_set_binding(PA_BIND_SPREAD));
        run_placement("pthd [2]", PA_BIND_SPREAD, &p);
        for (int t = 0; t < 2; t++)
            ck_assert_int_eq(p.cpu[t], p.want[t]);
        if (info.cores >= 2)
            ck_assert_int_ne(p.cpu[0], p.cpu[1]);
        /* Back to none: workers that were bound must be free again. */
        PA_CK_OK(pa_threads_set_binding(PA_BIND_NONE));
        run_placement("pthd [4]", PA_BIND_NONE, &p);
        if (ncpu > 1)
            for (int t = 0; t < 4; t++)
                ck_assert_int_eq(p.cpu[t], -1);
    } else {
        PA_CK_ERR(pa_threads_set_binding(PA_BIND_COMPACT), PA_ERR_NODEV);
        run_placement("pthd [2]", PA_BIND_NONE, &p);
    }
    PA_CK_ERR(pa_threads_set_binding((pa_bind)9), PA_ERR_INVAL);
}
END_TEST

START_TEST(mic_grid)
{
    int cores = 0, tpc = 0;
    if (pa__hwloc_available()) {
        char decl[64];
        placement p;
        PA_CK_OK(pa_topology_mic_grid(&cores, &tpc));
        ck_assert_int_ge(cores, 1);
        ck_assert_int_ge(tpc, 1);
        if (cores * tpc > 64)
            cores = 64 / tpc;
        snprintf(decl, sizeof decl, "mic [%d][%d]", cores, tpc);
        run_placement(decl, -1, &p);
        /* One thread per hardware thread: all pinned, all different. */
        for (int t = 0; t < cores * tpc; t++) {
            ck_assert_int_ge(p.cpu[t], 0);
            ck_assert_int_eq(p.cpu[t], p.want[t]);
            for (int u = 0; u < t; u++)
                ck_assert_int_ne(p.cpu[t], p.cpu[u]);
        }
    } else {
        PA_CK_ERR(pa_topology_mic_grid(&cores, &tpc), PA_ERR_NODEV);
        PA_CK_ERR(pa_for(pa_type_parse(scope, "mic [2][2]"), record_cpu, NULL, 0), PA_ERR_NODEV);
    }
}
END_TEST

static atomic_int omp_seen[6];

static int omp_body(pa_ctx *ctx, void *arg)
{
    int64_t t = pa_tid(ctx);
    ck_assert_int_eq(pa_tid_path(ctx, "0"), t / 2);
    ck_assert_int_eq(pa_tid_path(ctx, "1"), t % 2);
    atomic_fetch_add(&omp_seen[t], *(int *)arg);
    PA_CK_OK(pa_sync(ctx, ""));
    for (int u = 0; u < 6; u++)
        ck_assert_int_eq(atomic_load(&omp_seen[u]), 3);
    return t == 4 ? PA_ERR_SIZE : PA_OK;
}

START_TEST(omp_arrays)
{
    int three = 3;
    memset(omp_seen, 0, sizeof omp_seen);
    if (pa__omp_available()) {
        PA_CK_ERR(pa_for(pa_type_parse(scope, "omp [3][2]"), omp_body, &three, sizeof three), PA_ERR_SIZE);
        ck_assert_msg(strstr(pa_last_error(), "thread 4") != NULL, "%s", pa_last_error());
    } else {
        PA_CK_ERR(pa_for(pa_type_parse(scope, "omp [3][2]"), omp_body, &three, sizeof three), PA_ERR_NODEV);
        ck_assert_msg(strstr(pa_last_error(), "OpenMP") != NULL, "%s", pa_last_error());
    }
}
END_TEST

/* The process's share of the host: a single process (no launcher variables in the test's environment unless
 * PA_NODE_RANKS is set by the suite) takes every CPU of its mask; the share never exceeds the mask. */
START_TEST(host_share)
{
    pa_host_share_info sh;
    memset(&sh, 0x5a, sizeof sh);
    PA_CK_ERR(pa_host_share(NULL), PA_ERR_INVAL);
    PA_CK_OK(pa_host_share(&sh));
    ck_assert_int_ge(sh.local_ranks, 1);
    ck_assert_int_ge(sh.local_rank, 0);
    ck_assert_int_lt(sh.local_rank, sh.local_ranks);
    ck_assert_int_ge(sh.cpus, 1);
    ck_assert_int_le(sh.cpus, sh.allowed_cpus);
    ck_assert_int_le(sh.allowed_cpus, sh.machine_cpus);
    ck_assert_int_eq(sh.cpus, sh.bound_by_launcher ? sh.allowed_cpus
                                                  : (sh.allowed_cpus / sh.local_ranks > 0 ? sh.allowed_cpus / sh.local_ranks : 1));
    ck_assert_msg(sh.source[0] != '\0', "no source named");
    /* pa_map's and pa_copy's default thread counts are the share. */
    ck_assert_int_eq(pa_threads_get_num(), getenv("PA_NUM_THREADS") ? atoi(getenv("PA_NUM_THREADS")) : sh.cpus);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("threads_topology");
    TCase *tc = tcase_create("topology");
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_add_test(tc, topology_counts_and_print);
    tcase_add_test(tc, binding_policies);
    tcase_add_test(tc, mic_grid);
    tcase_add_test(tc, omp_arrays);
    tcase_add_test(tc, host_share);
    suite_add_tcase(s, tc);
    return pa_test_run(s);
}
