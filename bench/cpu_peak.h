/*
 * bench/cpu_peak — the terms of the host's FMA peak (P13), each measured rather than assumed:
 *
 *   peak = vector cores x clock x FMA units x lanes x 2
 *
 *   clock         a dependent chain of register-to-register integer adds (one per cycle) on every CPU of the run
 *                 at once and on as many CPUs as there are vector cores (the higher median), and on one alone;
 *   FMA units     one thread's FMA rate over (its clock x lanes x 2), rounded;
 *   vector cores  the largest k for which k threads on k CPUs at once each still run FMAs at 0.75 or more of one
 *                 thread alone: past it threads share a core's vector units (hardware threads of one core, which a
 *                 virtual machine may show as separate cores) and run at about half.
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
    double ghz_one;                /* dependent adds: one thread alone */
    double ghz_cpus, ghz_vcores;   /* medians with every CPU of the run at once, with as many as vector cores */
    double ghz_all;                /* the clock of the peak: the higher of those two */
    double gflops_one;             /* one thread's FMA rate */
    double flop_per_cycle;         /* gflops_one / ghz_one */
    int units;                     /* FMA units: flop_per_cycle / (lanes x 2), rounded, at least 1 */
    int cpus;                      /* CPUs of the run */
    int vcores;                    /* vector cores (see above) */
    int measured;                  /* 1 when the threads were bound to the run's CPUs (Linux) */
    double slowest[1024];          /* slowest[k - 1]: the slowest thread's GFLOP/s with k threads at once */
    double total_max;              /* the most GFLOP/s the k threads made together, over every k */
    double peak;                   /* vcores x ghz_all x units x lanes x 2, GFLOP/s */
} cpu_peak;

/*
 * Measures the terms on the first `cpus` CPUs this process may run on (lanes doubles per vector; short runs when
 * quick).  PA_CPU_GHZ and PA_FMA_UNITS override the clock and the units.  \return 0, or -1 when the CPUs could not
 * be listed (then the threads run unbound).
 */
int cpu_peak_measure(int cpus, int lanes, int quick, cpu_peak *out);

#endif
