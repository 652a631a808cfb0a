/*
 * store_fuzz — a libFuzzer target for the SSB columnar reader (pa_ssb_read): its manifest and its files.
 *
 * At the first input a small database (scale factor 0.0001, about 600 lineorder rows) is generated and written
 * in the columnar format to a scratch directory; its files are kept in memory.  Each input is up to three
 * sections separated by the byte 0x1e: the text of ssb.manifest, the name of one of the database's files
 * (lo_tax.i32, c_city.dict, ...), and that file's new bytes.  The target writes them, reads the directory, runs
 * the 13 queries on what it read (when it reads); a file it replaced is put back before the next input reads
 * the directory (unless that input replaces it too).  Row counts near 2^61, 2^62
 * or INT64_MAX, checksums, sizes and dictionary codes that disagree must all be clear errors, never a read out of
 * bounds or a leak.  See fuzz/README.md.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <parray/parray.h>
#include <parray/ssb.h>

#include "fuzz_files.h"

enum { MAX_FILES = 128 };

static struct {
    char name[80];
    char *data;
    size_t len;
} files[MAX_FILES];
static int nfiles = -1;

static char *slurp(const char *dir, const char *name, size_t *len)
{
    char path[512];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "rb");
    if (!f)
        abort();
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *buf = malloc((size_t)n + 1);
    if (!buf || fread(buf, 1, (size_t)n, f) != (size_t)n)
        abort();
    fclose(f);
    *len = (size_t)n;
    return buf;
}

static void keep(const char *dir, const char *name)
{
    if (nfiles == MAX_FILES)
        abort();
    snprintf(files[nfiles].name, sizeof files[nfiles].name, "%s", name);
    files[nfiles].data = slurp(dir, name, &files[nfiles].len);
    nfiles++;
}

static void free_files(void)
{
    for (int i = 0; i < nfiles; i++)
        free(files[i].data);
}

/* The template: a generated database written once; files[0] is the manifest, then every column and dictionary. */
static void setup(const char *dir)
{
    pa_ssb_db *db = NULL;
    if (pa_ssb_generate(0.0001, 7, 1, &db) != PA_OK || pa_ssb_write(db, dir) != PA_OK)
        abort();
    pa_ssb_destroy(db);
    nfiles = 0;
    keep(dir, "ssb.manifest");
    char *line = files[0].data, kind[16], name[64];
    for (char *nl; (nl = memchr(line, '\n', files[0].len - (size_t)(line - files[0].data))) != NULL; line = nl + 1)
        if (sscanf(line, "%15s %63s", kind, name) == 2 && (!strcmp(kind, "column") || !strcmp(kind, "dict"))) {
            char file[80];
            snprintf(file, sizeof file, "%s.%s", name, kind[0] == 'c' ? "i32" : "dict");
            keep(dir, file);
        }
    atexit(free_files);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *dir = fuzz_dir();
    if (nfiles < 0)
        setup(dir);
    const uint8_t *part[3];
    size_t len[3];
    int n = fuzz_split(data, size, 0x1e, 3, part, len), changed = -1;
    static fuzz_file_memo manifest;   /* written only when it differs from the last input's */
    static int altered = -1;          /* the file the last input replaced, restored only when this one does not */
    fuzz_write_changed(&manifest, dir, "ssb.manifest", part[0], len[0]);
    for (int i = 1; n == 3 && i < nfiles && changed < 0; i++)
        if (strlen(files[i].name) == len[1] && memcmp(files[i].name, part[1], len[1]) == 0) {
            fuzz_write(dir, files[i].name, part[2], len[2]);
            changed = i;
        }
    if (altered >= 0 && altered != changed)
        fuzz_write(dir, files[altered].name, files[altered].data, files[altered].len);
    altered = changed;
    pa_ssb_db *db = NULL;
    if (pa_ssb_read(dir, &db) == PA_OK) {
        FILE *null = fopen("/dev/null", "w");
        for (int q = 0; q < PA_SSB_NQUERIES; q++) {
            pa_ssb_result r;
            if (pa_ssb_run_cpu(db, q, 1, &r) == PA_OK) {
                if (pa_ssb_result_print(db, &r, null) != PA_OK)
                    abort();
                pa_ssb_result_destroy(&r);
            }
        }
        fclose(null);
        pa_ssb_destroy(db);
    } else if (db != NULL) {
        abort();   /* nothing is returned on error */
    }
    return 0;
}
