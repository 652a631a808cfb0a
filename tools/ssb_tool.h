/* parray ssb — the subcommand's entry points (tools/ssb.c, tools/ssb_run.c). */
#ifndef PARRAY_TOOL_SSB_H
#define PARRAY_TOOL_SSB_H

/** parray ssb ...: argv[0] is "ssb".  \return the exit status. */
int pa_tool_ssb(int argc, char **argv);

/** parray ssb run (modes: 0 auto, 1 cpu, 2 gpu, 3 both).  \return the exit status. */
int pa_tool_ssb_run(const char *dir, double sf, unsigned long long seed, int threads, int mode, int quiet,
                    const int *queries, int nq);

#endif
