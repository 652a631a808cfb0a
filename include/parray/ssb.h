/*
 * parray — the Star Schema Benchmark (SSB, O'Neil, O'Neil and Chen): its five tables as columns of 4-byte
 * integers, a generator, a loader for the standard generator's .tbl files, one on-disk columnar format, and
 * the 13 queries on the CPU (host threads) and on the GPU (one tile-based kernel per query, docs/ssb.md).
 *
 *     pa_ssb_db *db;
 *     pa_ssb_generate(1.0, 42, 0, &db);            scale factor 1, seed 42, every core
 *     pa_ssb_result r;
 *     pa_ssb_run_cpu(db, pa_ssb_query_index("q2.1"), 0, &r);
 *     pa_ssb_result_print(db, &r, stdout);
 *     pa_ssb_result_destroy(&r);
 *     pa_ssb_destroy(db);
 *
 * A database holds every column in host memory.  String columns are dictionary-encoded: a column's dictionary
 * is sorted (byte order) and a value's code is its rank in it, so comparisons on codes are comparisons on the
 * strings (docs/ssb.md gives the format).  Errors are reported as described in error.h; messages name the
 * file and the line, row or column involved.
 */
#ifndef PARRAY_SSB_H
#define PARRAY_SSB_H

#include <stdint.h>
#include <stdio.h>

#include "error.h"

#ifdef __cplusplus
extern "C" {
#endif

/** The tables. */
typedef enum pa_ssb_table {
    PA_SSB_LINEORDER,
    PA_SSB_CUSTOMER,
    PA_SSB_SUPPLIER,
    PA_SSB_PART,
    PA_SSB_DATE,
    PA_SSB_NTABLES
} pa_ssb_table;

/** The number of queries (q1.1 .. q4.3, indices 0 .. 12). */
#define PA_SSB_NQUERIES 13

/** A database: the five tables' columns in host memory, with their dictionaries. */
typedef struct pa_ssb_db pa_ssb_db;

/**
 * Generates the five tables at scale factor sf (> 0, at most 1000) with nthreads threads (0: every core; here
 * and in every SSB call, "every core" is pa_threads_get_num(): the process's share, $PA_NUM_THREADS).
 * The data depend on sf and seed only, not on the thread count.  Cardinalities: lineorder about
 * 6,000,000 x sf rows (1,500,000 x sf orders of 1 to 7 lines), customer 30,000 x sf, supplier 2,000 x sf,
 * part 200,000 x floor(1 + log2 sf) (200,000 x sf below 1), date 2,557 (1992-01-01 .. 1998-12-31).
 * \return PA_OK and *out; PA_ERR_RANGE (sf, nthreads < 0); PA_ERR_INVAL (out NULL); PA_ERR_NOMEM.
 */
PA_API int pa_ssb_generate(double sf, uint64_t seed, int nthreads, pa_ssb_db **out);

/**
 * pa_ssb_generate_with's and pa_ssb_read_with's flag: lineorder holds only the 9 columns the 13 queries read
 * (lo_orderdate, lo_quantity, lo_discount, lo_extendedprice, lo_custkey, lo_partkey, lo_suppkey, lo_revenue,
 * lo_supplycost: 36 of lineorder's 68 bytes a row; at scale factor 100, 21.6 GB instead of 40.8).  The others are
 * not held (pa_ssb_column_held), and what needs them (pa_ssb_write, pa_ssb_write_tbl) says so.
 */
#define PA_SSB_QUERY_COLUMNS 1u

/**
 * pa_ssb_generate with flags (0 or PA_SSB_QUERY_COLUMNS).  The columns held have the same values as
 * pa_ssb_generate's.  \return as pa_ssb_generate; PA_ERR_RANGE (an unknown flag).
 */
PA_API int pa_ssb_generate_with(double sf, uint64_t seed, int nthreads, unsigned flags, pa_ssb_db **out);

/**
 * Loads the standard generator's output (dbgen -T a): lineorder.tbl, customer.tbl, supplier.tbl, part.tbl and
 * date.tbl in dir, pipe-separated, one row a line.  Free-text columns (names, addresses, phones, p_color,
 * p_type, p_container, d_date) are checked for presence and not kept; string columns are dictionary-encoded
 * with dictionaries made from the values found.  sf is recorded as given (the files do not say it).
 * Every file must be a regular file (a FIFO or a device is refused without blocking), have at least one row and
 * end with a newline; where its first row ends with a '|' (as dbgen writes), every row must.
 * \return PA_OK and *out; PA_ERR_SYS (a file cannot be read: named); PA_ERR_INVAL (not a regular file);
 *         PA_ERR_PARSE (a row with the wrong number of fields or a non-numeric integer field: the message names
 *         the file, the line and the column; an empty file; a last line without its end of line, or rows that
 *         lack the '|' the first row ends with: a file cut short);
 *         PA_ERR_RANGE (an integer outside 32 bits); PA_ERR_INVAL; PA_ERR_NOMEM.  Nothing is returned on error.
 */
PA_API int pa_ssb_load_tbl(const char *dir, double sf, pa_ssb_db **out);

/**
 * A progress report: what (a table's name) has done of total units (bytes parsed, rows made or written).
 * Called at the start and the end of each table and about every 64 MiB or million rows between, one call at
 * a time, from the thread that called the library or from one of its worker threads.
 */
typedef void (*pa_ssb_progress_fn)(void *arg, const char *what, double done, double total);

/**
 * Installs fn (NULL: none, the default) as the process's progress report for pa_ssb_load_tbl, pa_ssb_generate
 * and pa_ssb_write_tbl (parray ssb's progress line on a terminal).  Not to be changed while one of those runs.
 */
PA_API void pa_ssb_set_progress(pa_ssb_progress_fn fn, void *arg);

/**
 * Writes the database as dbgen-style .tbl files in dir (created if missing), the reverse of pa_ssb_load_tbl:
 * kept columns as their integers or dictionary strings, free-text columns as a placeholder ("c_name#17").  Every
 * core formats its blocks of rows; the bytes do not depend on the thread count.
 * \return PA_OK; PA_ERR_SYS (naming the file); PA_ERR_NOMEM; PA_ERR_INVAL.
 */
PA_API int pa_ssb_write_tbl(const pa_ssb_db *db, const char *dir);

/**
 * Writes the database in the columnar format into dir (created if missing): one file per column
 * (<column>.i32, little-endian 4-byte integers), one per dictionary (<column>.dict, one string a line, in code
 * order) and the manifest ssb.manifest (written last) with the scale factor, the row counts and each file's
 * size and checksum.  Every file is written under a temporary name and renamed.
 * \return PA_OK; PA_ERR_SYS (naming the file); PA_ERR_INVAL.
 */
PA_API int pa_ssb_write(const pa_ssb_db *db, const char *dir);

/**
 * Reads a database written by pa_ssb_write, checking every file against the manifest (each a regular file: a
 * FIFO or a device is refused without blocking; row counts at most 2^40, checked before any arithmetic).
 * \return PA_OK and *out; PA_ERR_SYS (a missing or unreadable file, named); PA_ERR_SIZE (a file whose size
 *         disagrees with the manifest's row count, e.g. truncated; or tables whose columns disagree);
 *         PA_ERR_RANGE (a manifest's row or string count outside 0 .. 2^40, naming the line); PA_ERR_INVAL (a file
 *         that is not a regular file);
 *         PA_ERR_PARSE (a malformed manifest line, named by number; a checksum mismatch: the file is
 *         corrupt; a dictionary code outside its dictionary); PA_ERR_INVAL; PA_ERR_NOMEM.
 */
PA_API int pa_ssb_read(const char *dir, pa_ssb_db **out);

/**
 * pa_ssb_read with flags (0 or PA_SSB_QUERY_COLUMNS: the other lineorder columns are neither read nor checked;
 * the manifest still must list them).  \return as pa_ssb_read; PA_ERR_RANGE (an unknown flag).
 */
PA_API int pa_ssb_read_with(const char *dir, unsigned flags, pa_ssb_db **out);

/** Frees a database.  NULL is ignored. */
PA_API void pa_ssb_destroy(pa_ssb_db *db);

/** The scale factor recorded with the database. */
PA_API double pa_ssb_scale(const pa_ssb_db *db);

/** The rows of a table (-1 for an unknown table). */
PA_API int64_t pa_ssb_rows(const pa_ssb_db *db, pa_ssb_table t);

/**
 * A column by name ("lo_orderdate", "c_region", ...): its values (rows in *rows).  Free-text columns are not
 * kept.  \return the values, or NULL with PA_ERR_NAME set (no such column, or one the database does not hold:
 * the message says which).
 */
PA_API const int32_t *pa_ssb_column(const pa_ssb_db *db, const char *name, int64_t *rows);

/** 1 when db holds the column, 0 when it does not (PA_SSB_QUERY_COLUMNS), -1 for no such column or db NULL. */
PA_API int pa_ssb_column_held(const pa_ssb_db *db, const char *name);

/** The bytes of the columns db holds (4 a value; dictionaries not counted); 0 for NULL.  A slice counts its own
 *  lineorder rows and the whole dimension tables. */
PA_API int64_t pa_ssb_bytes(const pa_ssb_db *db);

/**
 * A view of db with lineorder's rows [lo, hi) and the same dimension tables and dictionaries, nothing copied:
 * a part of the work (one process's rows, or one GPU's) for any of the query calls; combine the parts' results
 * with pa_ssb_result_combine.  Free it with pa_ssb_destroy (db's data stay); db must outlive it.
 * \return PA_OK and *out; PA_ERR_INVAL (NULL); PA_ERR_RANGE (not 0 <= lo <= hi <= lineorder's rows, named);
 *         PA_ERR_NOMEM.
 */
PA_API int pa_ssb_slice(const pa_ssb_db *db, int64_t lo, int64_t hi, pa_ssb_db **out);

/**
 * The dictionary of a string column: the string of a code.  \return the string, or NULL (PA_ERR_NAME: not a
 * dictionary column; PA_ERR_RANGE: code outside the dictionary).
 */
PA_API const char *pa_ssb_dict_string(const pa_ssb_db *db, const char *column, int32_t code);

/** The code of a string in a column's dictionary.  \return the code, or -1 when absent (or not a dictionary). */
PA_API int32_t pa_ssb_dict_code(const pa_ssb_db *db, const char *column, const char *s);

/* ---- queries -------------------------------------------------------------------------------------------- */

/** A query's name ("q1.1" .. "q4.3"), or NULL for an index out of range. */
PA_API const char *pa_ssb_query_name(int q);

/** A query's index from its name ("q2.1" or "2.1").  \return 0 .. 12, or -1. */
PA_API int pa_ssb_query_index(const char *name);

/** A query's SQL text, as the specification gives it (the common variant's constants: see below). */
PA_API const char *pa_ssb_query_sql(int q);

/**
 * The published texts of the queries differ in two constants (docs/ssb.md, "Variants"):
 * PA_SSB_VARIANT_COMMON (the default) is the text Crystal, ClickHouse and DuckDB's listings run, q1.3 on
 * lo_quantity between 26 and 35 and q2.3 on p_brand1 = 'MFGR#2239'; PA_SSB_VARIANT_ONEIL is the SQL of O'Neil,
 * O'Neil and Chen's paper (revision 3): q1.3 on lo_quantity between 36 and 40, q2.3 on 'MFGR#2221'.
 */
typedef enum pa_ssb_variant { PA_SSB_VARIANT_COMMON = 0, PA_SSB_VARIANT_ONEIL = 1 } pa_ssb_variant;

/**
 * Chooses the variant the queries of db run (the CPU's, the tile engine's and the selectivity check's at their
 * next call; the GPU's at pa_ssb_gpu_create, which resolves its plans once).
 * \return PA_OK; PA_ERR_INVAL (db NULL); PA_ERR_RANGE (not a variant).
 */
PA_API int pa_ssb_set_variant(pa_ssb_db *db, pa_ssb_variant v);

/** The variant db's queries run (PA_SSB_VARIANT_COMMON for NULL). */
PA_API pa_ssb_variant pa_ssb_db_variant(const pa_ssb_db *db);

/** A query's SQL text in variant v.  \return the text, or NULL for q or v out of range. */
PA_API const char *pa_ssb_query_sql_variant(int q, pa_ssb_variant v);

/**
 * A query's result: nrows rows of ngroups group columns (groups[row * 3 + i]: d_year as the year, string
 * columns as dictionary codes; the names in pa_ssb_result_column) and the aggregate (values[row]), in the
 * query's ORDER BY order, ties broken by the group columns.  A q1.x result is one row (0 when nothing matched).
 */
typedef struct pa_ssb_result {
    int query;
    int ngroups;
    int64_t nrows;
    int32_t *groups;
    int64_t *values;
} pa_ssb_result;

/** The name of group column i of query q ("d_year", "p_brand1", ...), or NULL. */
PA_API const char *pa_ssb_result_column(int q, int i);

/**
 * Runs query q on the CPU with nthreads host threads (0: every core), a pthd thread array.  Group values come
 * from the data: d_year spans the years the date table holds (not only the specification's 1992-1998), and
 * dimension keys of any spread are looked up (a hash table where they are sparse: see docs/ssb.md).
 * \return PA_OK and *out (free with pa_ssb_result_destroy); PA_ERR_RANGE (q, nthreads < 0, or group columns whose
 *         ranges multiply past 2^56 combinations); PA_ERR_INVAL; PA_ERR_NOMEM.
 */
PA_API int pa_ssb_run_cpu(const pa_ssb_db *db, int q, int nthreads, pa_ssb_result *out);

/**
 * Runs query q on the CPU like pa_ssb_run_cpu, with the tile engine: the block-wide primitives of the GPU's
 * kernels on the host (tiles of 2,048 rows, a vectorised byte mask then a selection vector, dimensions as
 * perfect hashes over their dense keys, per-thread group sums merged at the end; docs/ssb.md).  The same
 * results as pa_ssb_run_cpu; data whose dimension keys are too sparse for a perfect hash, or whose groups
 * are too many, are run by pa_ssb_run_cpu itself.
 * 
eturn as pa_ssb_run_cpu.
 */
PA_API int pa_ssb_run_cpu_tiles(const pa_ssb_db *db, int q, int nthreads, pa_ssb_result *out);

/** Frees a result's rows (the struct itself is the caller's).  NULL is ignored. */
PA_API void pa_ssb_result_destroy(pa_ssb_result *r);

/** Deprecated name of pa_ssb_result_destroy (_destroy frees, everywhere); removed in the next release. */
PA_API PA_DEPRECATED("use pa_ssb_result_destroy") void pa_ssb_result_free(pa_ssb_result *r);

/**
 * Combines the results of query q over disjoint parts of db's lineorder (pa_ssb_slice) into the result over all
 * of them: each group's sums added (a group absent from a part counts 0, and a sum of 0 is dropped, as every
 * engine does), then sorted in the query's order.  db gives the group columns' ranges (the whole database or
 * any of its slices).  \return PA_OK and *out (pa_ssb_result_destroy); PA_ERR_INVAL (NULL, n < 1, a part of
 *         another query or malformed, as pa_ssb_result_equal says); PA_ERR_RANGE (q, or a group value outside
 *         its column's range in db); PA_ERR_NOMEM.
 */
PA_API int pa_ssb_result_combine(const pa_ssb_db *db, int q, const pa_ssb_result *parts, int n, pa_ssb_result *out);

/**
 * Compares two results row by row.  \return 1 when equal; 0 with the first difference written to why (e.g.
 * "row 3: revenue 1234 vs 1240"), or with the reason when a result is NULL or malformed (a query out of range,
 * more than 3 groups, a negative row count, NULL rows); why may be NULL.
 */
PA_API int pa_ssb_result_equal(const pa_ssb_result *a, const pa_ssb_result *b, char *why, size_t len);

/**
 * Prints a result, one row a line, fields separated by '|': the group columns (strings from their
 * dictionaries) then the aggregate.  \return PA_OK, PA_ERR_INVAL (db, r or f NULL, or r malformed as for
 * pa_ssb_result_equal) or PA_ERR_SYS (write error).
 */
PA_API int pa_ssb_result_print(const pa_ssb_db *db, const pa_ssb_result *r, FILE *f);

/**
 * The bytes of lineorder columns query q reads: the rows times 4 bytes times the number of fact columns the
 * query names (q1.x: 4; q2.x: 4; q3.x: 4; q4.x: 6) — the numerator of the P8 floor.
 */
PA_API int64_t pa_ssb_fact_bytes(const pa_ssb_db *db, int q);

/**
 * The selectivity check: for query q, the fraction of lineorder rows that pass all its filters (measured), the
 * filter factor the specification's uniform distributions give for the query's filters (spec: the product
 * of each filter's fraction, e.g. q2.1: 1/25 of parts x 1/5 of suppliers), and the relative deviation
 * allowed (tolerance: 4.5 standard deviations of sampling each dimension and the fact rows at this scale).
 * The check passes when |measured / spec - 1| <= tolerance.
 * \return PA_OK; PA_ERR_RANGE (q, nthreads < 0); PA_ERR_INVAL; PA_ERR_NOMEM.
 */
PA_API int pa_ssb_selectivity(const pa_ssb_db *db, int q, int nthreads, double *measured, double *spec,
                              double *tolerance);

/* ---- queries on the GPU ---------------------------------------------------------------------------------- */

/**
 * The GPU side: the columns the queries read, resident in dmem, the dimension hash tables, the group table and
 * the compiled query kernels.  One thread at a time may use it (its tables are shared by its queries).
 */
typedef struct pa_ssb_gpu pa_ssb_gpu;

/**
 * Copies the columns the 13 queries read to dmem on the current GPU (lineorder: 9 columns) with the dimension
 * tables' keys and attributes; where lineorder's columns do not fit the GPU's free memory they stay in host
 * memory and each query streams them through the GPU (pa_ssb_gpu_create_with, automatic mode; the environment
 * variables listed at pa_ssb_gpu_config apply).  The db must outlive the result.
 * \return PA_OK and *out; PA_ERR_NODEV (no CUDA backend or no GPU); PA_ERR_NOMEM (not even the dimension tables
 *         and the smallest chunks fit: the message says how many bytes were asked); PA_ERR_INVAL.
 */
PA_API int pa_ssb_gpu_create(const pa_ssb_db *db, pa_ssb_gpu **out);

/** Where the GPU engine keeps lineorder's columns (docs/ssb.md, "Beyond one GPU's memory"). */
typedef enum pa_ssb_gpu_mode {
    PA_SSB_GPU_AUTO = 0,        /* resident where the columns fit the memory allowed, else streaming */
    PA_SSB_GPU_RESIDENT = 1,    /* the columns the queries read copied to dmem once */
    PA_SSB_GPU_STREAM = 2       /* the columns stay in page-locked host memory; a query streams them in chunks */
} pa_ssb_gpu_mode;

/** The most GPUs (parts) one engine uses. */
#define PA_SSB_GPU_MAX_DEVICES 16

/**
 * How pa_ssb_gpu_create_with sets the engine up.  Zero in a field means its default: a zeroed struct is
 * pa_ssb_gpu_create's setup, where environment variables may set what the struct leaves at zero (for the
 * command line and tests): PA_SSB_GPU_MODE (auto, resident or stream), PA_SSB_GPU_MEM (bytes, with an optional
 * K, M or G suffix of powers of 1024), PA_SSB_GPU_CHUNK (rows), PA_SSB_GPU_STREAMS and PA_SSB_GPU_DEVICES (GPU
 * numbers separated by commas, "0,1,2,3"; "0,0" splits the work in two on GPU 0).
 */
typedef struct pa_ssb_gpu_config {
    pa_ssb_gpu_mode mode;
    int64_t mem_limit;          /* bytes of GPU memory one part may take (emulates a smaller GPU); 0: 90% of the
                                   GPU's free memory, shared among the parts on it */
    int64_t chunk_rows;         /* streaming: lineorder rows per chunk (0: 8,388,608; rounded up to whole tiles,
                                   made smaller where the memory allowed asks) */
    int streams;                /* streaming: streams per part, 2 to 8 (0: 3) */
    int ndevices;               /* parts (0: one, on the current GPU) */
    int devices[PA_SSB_GPU_MAX_DEVICES];   /* each part's GPU; lineorder is split in ndevices contiguous ranges */
} pa_ssb_gpu_config;

/**
 * pa_ssb_gpu_create with a setup (NULL: as pa_ssb_gpu_create).  With several parts each GPU holds the dimension
 * tables and its range of lineorder, and a query adds the parts' group tables.  In the streaming mode the
 * lineorder columns the queries read are page-locked where they are (released by pa_ssb_gpu_destroy; where
 * that fails they are streamed at the pageable rate, said by pa_ssb_gpu_describe).  The caller's streams given
 * to pa_ssb_gpu_launch must belong to the GPU current at this call.
 * \return as pa_ssb_gpu_create; PA_ERR_RANGE (a field out of range, or a GPU number not below the count, named;
 *         an environment variable that does not parse warns once and is not used); PA_ERR_NOMEM (resident and the columns do not
 *         fit the memory allowed; or not even the dimension tables and the smallest chunks do: the message
 *         says how many bytes were needed and allowed).
 */
PA_API int pa_ssb_gpu_create_with(const pa_ssb_db *db, const pa_ssb_gpu_config *cfg, pa_ssb_gpu **out);

/** The mode the engine runs in (PA_SSB_GPU_RESIDENT or PA_SSB_GPU_STREAM; PA_SSB_GPU_AUTO for NULL). */
PA_API pa_ssb_gpu_mode pa_ssb_gpu_get_mode(const pa_ssb_gpu *g);

/**
 * One line saying how the engine runs: the mode, the GPUs and their rows, chunks and streams, the memory each
 * part took ("stream: 2 parts on GPUs 0,0; chunks of 8388608 rows, 3 streams; 1.21 GB a part").  Valid while g
 * lives; "" for NULL.
 */
PA_API const char *pa_ssb_gpu_describe(const pa_ssb_gpu *g);

/** Frees the GPU side (and unlocks the host columns it page-locked).  NULL is ignored. */
PA_API void pa_ssb_gpu_destroy(pa_ssb_gpu *g);

/**
 * Runs query q on the GPU: the dimension hash tables are built, then one kernel scans lineorder tile by tile;
 * waits and brings the result back.  Kernels are compiled by NVRTC on first use (cached), for tiles of
 * PA_SSB_BLOCK threads x PA_SSB_ITEMS items.  ms (may be NULL) gets the wall time from the first launch until
 * the last kernel finished (the kernels are queued on the default stream, and the call waits for it: work
 * queued there before the call delays them and is counted too), without the compilation and the result's copy
 * back.
 * \return PA_OK and *out; PA_ERR_COMPILE; PA_ERR_SYS (a launch or a kernel failed, or work queued before it);
 *         PA_ERR_RANGE (q; or more than 2^27 groups, which the data's ranges of the group columns can give: run
 *         such a query on the CPU); PA_ERR_UNSUPPORTED (a q1.x date filter that is not a range of date keys);
 *         PA_ERR_NOMEM.
 */
PA_API int pa_ssb_gpu_run(pa_ssb_gpu *g, int q, pa_ssb_result *out, double *ms);

/**
 * Queues query q's kernels on stream (a cudaStream_t; NULL: the default stream) without waiting (for timing
 * with events); pa_ssb_gpu_result then waits and reads the result of the last queued run of q.
 * \return as pa_ssb_gpu_run.
 */
PA_API int pa_ssb_gpu_launch(pa_ssb_gpu *g, int q, void *stream);
PA_API int pa_ssb_gpu_result(pa_ssb_gpu *g, int q, pa_ssb_result *out);

/**
 * The CUDA source of query q's kernels as compiled by NVRTC (it includes <parray/query/ssb_kernels.h>).
 * \return the source (static storage) or NULL for q out of range.
 */
PA_API const char *pa_ssb_gpu_source(int q);

/**
 * Tile shape of the query kernels: threads per block and items per thread (compile-time constants of the
 * kernels; $PA_SSB_TILE, e.g. "256x8", compiles pa_ssb_gpu_create's kernels for another shape, for tuning).
 */
#define PA_SSB_BLOCK 128
#define PA_SSB_ITEMS 4

#ifdef __cplusplus
}
#endif
#endif
