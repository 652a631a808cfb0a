/*
 * parray — PL/CUDA functions inside the library: the parsed signature and source, and the steps from
 * registration to a call.  Front end and runtime live together here (src/backends/cuda/plcuda/): the parser and
 * the code generator are plain C (they build and run without CUDA); compilation and calls live in plcuda_call.c
 * and plcuda_launch.c (CUDA builds) or plcuda_stub.c.
 */
#ifndef PARRAY_PLCUDA_H
#define PARRAY_PLCUDA_H

#include <pthread.h>
#include <stddef.h>
#include <stdint.h>

#include "parray/kernel.h"

/* ---- signatures (plcuda_sig.c) ------------------------------------------------------------------------ */

typedef enum pa__plc_kind {
    PA__PLC_VOID,       /* return only */
    PA__PLC_SCALAR,
    PA__PLC_ARRAY,      /* argument only */
    PA__PLC_MATRIX,
    PA__PLC_BYTES       /* return only */
} pa__plc_kind;

/* A scalar C type: its name in signatures, its spelling in generated CUDA, its size. */
typedef struct pa__plc_scalar {
    const char *name;
    const char *cuda;
    int size;
    int matrix_elm;     /* the pa_matrix_elm of this type, 0 when it cannot be a matrix element */
} pa__plc_scalar;

typedef struct pa__plc_tspec {
    pa__plc_kind kind;
    const pa__plc_scalar *scalar;   /* element or scalar type (NULL for void and bytes) */
    int inout;                      /* arrays: copied back after the call */
} pa__plc_tspec;

#define PA__PLC_MAX_ARGS 64

typedef struct pa__plc_sig {
    pa__plc_tspec ret;
    int nargs;
    pa__plc_tspec args[PA__PLC_MAX_ARGS];
} pa__plc_sig;

/** Parses "ret (arg, ...)".  \return PA_OK or PA_ERR_PARSE naming the column and what was expected. */
int pa__plc_parse_sig(const char *fname, const char *text, pa__plc_sig *out);
/** Writes a type spec as in a signature ("inout float[]", "matrix double").  \return as snprintf. */
int pa__plc_format_tspec(const pa__plc_tspec *t, char *buf, size_t len);

/* ---- the source's blocks and directives (plcuda_parse.c) ------------------------------------------------ */

enum { PA__PLC_DECL, PA__PLC_PREP, PA__PLC_MAIN, PA__PLC_POST, PA__PLC_NBLOCKS };
enum { PA__PLC_NUM_THREADS, PA__PLC_SHMEM_UNITSZ, PA__PLC_SHMEM_BLOCKSZ, PA__PLC_KERNEL_BLOCKSZ, PA__PLC_NSTAGEVALS };

/* A directive's value: a constant, or a callback from the function's table (fn >= 0). */
typedef struct pa__plc_value {
    int set;
    int line;
    int fn;
    int64_t constant;
} pa__plc_value;

typedef struct pa__plc_block {
    int present;
    int line;                               /* the line of its opening directive */
    char *code;                             /* its lines; directive lines left blank so numbering holds */
    pa__plc_value vals[PA__PLC_NSTAGEVALS];
    int maxthreads;
} pa__plc_block;

#define PA__PLC_MAX_INCLUDES 16   /* more than the libraries there are, each included once */

typedef struct pa__plc_parsed {
    pa__plc_block blocks[PA__PLC_NBLOCKS];
    pa__plc_value results_bufsz, working_bufsz;
    int sanity_fn, fallback_fn;             /* -1 when absent */
    int ninclude;
    const char *include[PA__PLC_MAX_INCLUDES]; /* header paths, static strings */
    int rdc;                                /* "dynpara" included: compiled with -rdc=true, linked with cudadevrt */
    int int128;                             /* "numeric" or "money" included: compiled with -device-int128 */
} pa__plc_parsed;

/**
 * Splits a source into blocks and reads its directives; callbacks are looked up in funcs.
 * \return PA_OK; PA_ERR_PARSE ("<fname> line N: #plcuda_x: ..."), PA_ERR_NAME (unknown callback), PA_ERR_NOMEM.
 */
int pa__plc_parse(const char *fname, const char *source, const pa_kernel_func *funcs, int nfuncs,
                  pa__plc_parsed *out);
void pa__plc_parsed_free(pa__plc_parsed *p);
/** Adds the libraries the signature's types need ("numeric" for numeric, "money" for money) to p's includes. */
void pa__plc_sig_includes(const pa__plc_sig *sig, pa__plc_parsed *p);

/** The directive names, for messages and explanations ("num_threads", ...). */
extern const char *const pa__plc_stage_names[PA__PLC_NBLOCKS];
extern const char *const pa__plc_value_names[PA__PLC_NSTAGEVALS];

/* ---- generated source (plcuda_codegen.c) ---------------------------------------------------------------- */

/** The CUDA source of a function's kernels (malloc'd).  \return PA_OK or PA_ERR_NOMEM. */
int pa__plc_codegen(const char *fname, const pa__plc_sig *sig, const pa__plc_parsed *p, char **out);
/** The entry name of a block's kernel: plcuda_<fname>_{prep,main,post}. */
void pa__plc_entry(const char *fname, int block, char *buf, size_t len);

/*
 * The control block the kernels share with the host, in device memory (mirrored in the generated prelude):
 * the first error wins status (1 error, 2 recheck on the CPU), code, line and stage; retval holds a fixed-size
 * result; var a variable-length one.
 */
typedef struct pa__plc_ctl {
    int32_t status, code, line, stage;
    uint64_t retval[2];
    uint64_t var_value;         /* a device address in the results buffer, 0 for NULL */
    uint64_t var_length;        /* bytes, for "bytes" results */
    int32_t var_isnull, pad;
} pa__plc_ctl;

/* ---- the function object (plcuda_kernel.c) ------------------------------------------------------------- */

#define PA__PLC_MAX_DEVICES 16

struct pa_kernel {
    char *name;
    pa__plc_sig sig;
    pa__plc_parsed parsed;
    pa_kernel_func *funcs;
    int nfuncs;
    char *source;
    pthread_mutex_t lock;
    void *loaded[PA__PLC_MAX_DEVICES][PA__PLC_NBLOCKS]; /* pa_cuda__rtc_kernel * per device and block */
};

/** The value of a directive for a call: the constant, or the callback's answer.  \return PA_OK or PA_ERR_RANGE. */
int pa__plc_eval(const pa_kernel *k, const pa__plc_value *v, int64_t dflt, const pa_arg *args, int nargs,
                 const char *what, int64_t *out);

#endif
