/*
 * bench/cpu_peak — the terms of the host's FMA peak (P13), each measured rather than assumed:
 *
 *   peak = vector cores x clock x FMA units x lanes x 2
 *
 *   clock         a dependent chain of integer adds (one per cycle) on one CPU of every vector core at once (and on
 *                 one CPU alone);
 *   FMA units     one thread's FMA rate over (its clock x lanes x 2), rounded;
 *   vector cores  the CPUs grouped by which ones share their vector units: two threads bound to CPUs that share
 *                 them each get about half of one thread's FMA rate (hardware threads of one core, which a
 *                 virtual machine may show as separate cores); CPUs that keep their rate in pairs are cores.
 *
 * The FMA kernels (16 independent AVX-512 vectors, 8 AVX2 ones, or plain C) are the ones listing 47 runs.
 */
#ifndef PARRAY_BENCH_CPU_PEAK_H
#define PARRAY_BENCH_CPU_PEAK_H

/* c = c * a + b (div 0) or c = c / a + b (div 1) on nvec vectors of lanes doubles held in registers, reps times;
 * a and b hold at least 8 doubles, c nvec * lanes, all 64-byte aligned.  isa is pa_vmem_isa(). */
void cpu_fma_run(const char *isa, double *c, const double *a, const double *b, long reps, int div);
/* Vectors the kernel keeps in flight for that set. */
int cpu_fma_nvec(const char *isa);

typedef struct cpu_peak {
    double ghz_one, ghz_all;       /* dependent adds: one thread alone, one CPU of every vector core at once */
    double gflops_one;             /* one thread's FMA rate */
    double flop_per_cycle;         /* gflops_one / ghz_one */
    int units;                     /* FMA units: flop_per_cycle / (lanes x 2), rounded, at least 1 */
    int cpus;                      /* CPUs of the run */
    int vcores;                    /* groups of CPUs sharing vector units among them */
    int measured;                  /* 1 when the groups were measured (Linux, x86-64), 0 when assumed cores */
    char groups[512];              /* the groups, "0+8, 1+9, ..." */
    double peak;                   /* vcores x ghz_all x units x lanes x 2, GFLOP/s */
} cpu_peak;

/*
 * Measures the terms on the first `cpus` CPUs this process may run on (lanes doubles per vector; short runs when
 * quick).  PA_CPU_GHZ and PA_FMA_UNITS override the clock and the units.  \return 0, or -1 when the CPUs could not
 * be listed (then every CPU counts as a core and the clock comes from the add chain on one thread).
 */
int cpu_peak_measure(int cpus, int lanes, int quick, cpu_peak *out);

#endif
