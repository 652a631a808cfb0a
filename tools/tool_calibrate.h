/* parray calibrate (tools/calibrate.c). */
#ifndef PARRAY_TOOL_CALIBRATE_H
#define PARRAY_TOOL_CALIBRATE_H

/** Measures the cost model's constants and writes them to file (NULL: the library's default path); under an
 *  MPI launcher with other processes, collectively over them.  \return the tool's exit status (0 or 1). */
int pa_tool_calibrate(int argc, char **argv, const char *file);

#endif
