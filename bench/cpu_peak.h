/*
 * bench/cpu_peak — the terms of the host's FMA peak (P13), each measured rather than assumed:
 *
 *   peak = vector cores x clock x FMA units x lanes x 2
 *
 *   clock         a dependent chain of register-to-register integer adds (one per cycle) run by each thread
 *                 right after its FMAs (for about 1 ms: the clock a core lowers for long AVX-512 work stays low that
 *                 long), so the clock the FMAs ran at, the highest of the threads' (a chain the scheduler
 *                 interrupts reads low); the chain alone is printed beside it;
 *   FMA units     one thread's FMA rate over (its clock x lanes x 2), rounded;
 *   vector cores  the CPUs over the threads per core that share vector units: every CPU runs FMAs for about 20 ms
 *                 at once (the best of three), timed together from the first start to the last end; CPUs that
 *                 share a core's units (hardware threads a virtual machine shows as cores, or vCPUs that take
 *                 turns on fewer cores) run together at about 1 / (threads per core) of one thread alone each.
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

/* Dependent adds measured after FMAs (x 8: about 1 ms at 2.5 GHz). */
#define CPU_POST_ADDS 300000L

/* n x 8 dependent register adds on the calling thread.  \return its clock in GHz. */
double cpu_add_chain_ghz(long n);
/* The largest of v[0 .. n). */
double cpu_max(const double *v, int n);

typedef struct cpu_peak {
    double ghz_idle;               /* the add chain alone, one thread */
    double ghz_one;                /* one thread's clock right after its FMAs */
    double gflops_one;             /* one thread's FMA rate */
    double flop_per_cycle;         /* gflops_one / ghz_one */
    int units;                     /* FMA units: flop_per_cycle / (lanes x 2), rounded, at least 1 */
    int cpus;                      /* CPUs of the run */
    double burst_total;            /* GFLOP/s of every CPU together in 20 ms bursts (the best of three) */
    int threads_per_vcore;         /* one thread alone over a burst's rate per CPU, rounded */
    int vcores;                    /* cpus / threads_per_vcore */
    double sustained_total;        /* GFLOP/s of every CPU together for about 0.3 s */
    double ghz_sustained;          /* the highest clock right after that */
    int measured;                  /* 1 when the threads were bound to the run's CPUs (Linux) */
} cpu_peak;

/*
 * Measures the terms on the first `cpus` CPUs this process may run on (lanes doubles per vector; short runs when
 * quick).  PA_FMA_UNITS overrides the units.  \return 0, or -1 when the CPUs could not be listed (then the threads
 * run unbound).
 */
int cpu_peak_measure(int cpus, int lanes, int quick, cpu_peak *out);

#endif
