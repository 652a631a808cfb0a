/*
 * bench/pool_colocated — an empty pa_for over pthd [n] (n = this process's CPUs) when the OS has put the caller
 * and one pool worker on the same CPU and left another CPU idle, against the same launches spread one thread a
 * CPU, and an empty omp parallel placed the same two ways.  Seen on the lent 16-vCPU host in two of six
 * bench/threads runs (an empty 16-thread pa_for at 93-100 us against 4 us for omp parallel): the joining caller
 * polled for a reply from a worker that could not run until the caller gave up the CPU.  The placement is
 * forced here by pinning every thread of the process (/proc/self/task) after the pool and OpenMP's team exist;
 * median and 90th percentile of 2000 launches in blocks of 200 after 20 ms pauses.  On a 2-CPU VM: 113 us
 * before the pool's joins yielded to a worker on their CPU, 4.9-5.4 us after (1.6 us spread); OpenMP's team,
 * placed the same way, 8 ms (its threads poll without yielding for a whole time slice).
 *
 * Usage: pool_colocated [--smoke]   (--smoke: one block of 20 launches)
 */
#include <dirent.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>
#ifdef _OPENMP
#include <omp.h>
#endif

#include <parray/parray.h>
#include "bench_clock.h"

static int nop(pa_ctx *ctx, void *arg)
{
    (void)ctx, (void)arg;
    return PA_OK;
}

static void pin(pid_t tid, int cpu)
{
    cpu_set_t s;
    CPU_ZERO(&s);
    CPU_SET(cpu, &s);
    sched_setaffinity(tid, sizeof s, &s);
}

static int cmp_tid(const void *a, const void *b)
{
    return (*(const pid_t *)a > *(const pid_t *)b) - (*(const pid_t *)a < *(const pid_t *)b);
}

/* Pins this process's threads: the caller to CPU 0, and each team's workers (the pool's n - 1, made first, then
 * OpenMP's n - 1, in the order of their thread ids) one a CPU from CPU 1 on; with colocate each team's first
 * worker goes to CPU 0 instead, with the caller, and the last CPU stays idle. */
static void place(int n, int colocate)
{
    pid_t self = (pid_t)syscall(SYS_gettid), tids[1024];
    int k = 0;
    pin(self, 0);
    DIR *d = opendir("/proc/self/task");
    if (d == NULL)
        return;
    for (struct dirent *e; (e = readdir(d)) != NULL && k < 1024;)
        if (atoi(e->d_name) > 0 && (pid_t)atoi(e->d_name) != self)
            tids[k++] = (pid_t)atoi(e->d_name);
    closedir(d);
    qsort(tids, (size_t)k, sizeof *tids, cmp_tid);
    for (int i = 0; i < k && i < 2 * (n - 1); i++) {
        int w = i % (n - 1);   /* the worker's index in its team */
        pin(tids[i], colocate ? w : w + 1);
    }
}

static double run(const pa_type *t, int n, int omp, int blocks, int BLOCK, double *p90)
{
    double *v = malloc(sizeof(double) * (size_t)(blocks * BLOCK));
    for (int b = 0; b < blocks; b++) {
        usleep(20000);
        for (int k = -5; k < BLOCK; k++) {
            double t0 = now();
            if (omp) {
#pragma omp parallel num_threads(n)
                {
                    __asm__ volatile("" ::: "memory");
                }
            } else {
                pa_for(t, nop, NULL, 0);
            }
            if (k >= 0)
                v[b * BLOCK + k] = (now() - t0) * 1e6;
        }
    }
    qsort(v, (size_t)(blocks * BLOCK), sizeof *v, cmp_double);
    double med = v[blocks * BLOCK / 2];
    *p90 = v[blocks * BLOCK * 9 / 10];
    free(v);
    return med;
}

int main(int argc, char **argv)
{
    int smoke = argc > 1 && strcmp(argv[1], "--smoke") == 0;
    int cpus = (int)sysconf(_SC_NPROCESSORS_ONLN);
    int n = cpus, blocks = smoke ? 1 : 10;
    if (n < 2)
        return printf("pool_colocated: needs 2 CPUs or more\n"), 0;
    pa_scope *s = NULL;
    if (pa_scope_create(NULL, &s) != PA_OK)
        return 1;
    char decl[32];
    snprintf(decl, sizeof decl, "pthd [%d]", n);
    const pa_type *t = pa_type_parse(s, decl);
    if (pa_for(t, nop, NULL, 0) != PA_OK)   /* the pool's workers exist from here */
        return fprintf(stderr, "pool_colocated: %s\n", pa_last_error()), 1;
#pragma omp parallel num_threads(n)
    {
        __asm__ volatile("" ::: "memory");
    }
    printf("pool_colocated: empty launches of %d threads on %d CPUs, us (median, p90)\n", n, cpus);
    for (int colocate = 0; colocate < 2; colocate++) {
        place(n, colocate);
        double p9o, p9a;
        double o = run(t, n, 0, blocks, smoke ? 20 : 200, &p9o), a = run(t, n, 1, blocks, smoke ? 20 : 200, &p9a);
        printf("%-40s pa_for %8.2f (%8.2f)   omp parallel %8.2f (%8.2f)   ratio %.3f\n",
               colocate ? "caller and one worker on one CPU" : "one thread a CPU", o, p9o, a, p9a, o / a);
    }
    pa_scope_destroy(s);
    return 0;
}
