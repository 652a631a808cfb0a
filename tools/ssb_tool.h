/* parray ssb — the subcommand's entry points (tools/ssb.c, tools/ssb_run.c). */
#ifndef PARRAY_TOOL_SSB_H
#define PARRAY_TOOL_SSB_H

/** parray ssb ...: argv[0] is "ssb".  \return the exit status. */
int pa_tool_ssb(int argc, char **argv);

/** What parray ssb run does. */
typedef struct pa_tool_ssb_run_opts {
    const char *dir;            /* the columnar format's directory, or NULL: generate (sf, seed) */
    double sf;
    unsigned long long seed;
    int threads;
    int mode;                   /* 0 auto, 1 cpu, 2 gpu, 3 both */
    int engine;                 /* the CPU's: 0 tiles, 1 the reference, 2 both (checked against each other) */
    int variant;                /* pa_ssb_variant */
    int quiet;
    const int *queries;
    int nq;
} pa_tool_ssb_run_opts;

/** parray ssb run.  \return the exit status. */
int pa_tool_ssb_run(const pa_tool_ssb_run_opts *o);

#endif
