/*
 * fuzz_files.h — the file side of the fuzz targets whose surface reads files by name (the SSB .tbl loader and
 * columnar reader, the matrix CSV reader): one scratch directory per process, made at the first call and removed
 * at exit, and whole files written into it.  Header-only: each target includes it once.
 */
#ifndef PARRAY_FUZZ_FILES_H
#define PARRAY_FUZZ_FILES_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static char fuzz_scratch[256];

__attribute__((unused)) static void fuzz_scratch_remove(void)
{
    char cmd[300];
    if (fuzz_scratch[0]) {
        snprintf(cmd, sizeof cmd, "rm -rf '%s'", fuzz_scratch);
        if (system(cmd) != 0)
            fprintf(stderr, "fuzz: could not remove %s\n", fuzz_scratch);
    }
}

/*
 * The process's scratch directory: under $PA_FUZZ_TMPDIR when set, else /dev/shm when it is a writable directory,
 * else under $TMPDIR or /tmp.  Memory first: on a disk (ext4 on a virtual block device) writing and truncating a
 * file per input cost the file targets nine tenths of their time (about 100 inputs a second against 2,000-5,000).
 */
__attribute__((unused)) static const char *fuzz_dir(void)
{
    if (!fuzz_scratch[0]) {
        const char *tmp = getenv("PA_FUZZ_TMPDIR");
        if (!tmp || !*tmp)
            tmp = access("/dev/shm", W_OK | X_OK) == 0 ? "/dev/shm" : getenv("TMPDIR");
        snprintf(fuzz_scratch, sizeof fuzz_scratch, "%s/pa_fuzz_XXXXXX", tmp && *tmp ? tmp : "/tmp");
        if (!mkdtemp(fuzz_scratch)) {
            perror("fuzz: mkdtemp");
            abort();
        }
        atexit(fuzz_scratch_remove);
    }
    return fuzz_scratch;
}

/* Writes n bytes as dir/name (replacing it); aborts when the disk refuses (not the library's fault). */
__attribute__((unused)) static void fuzz_write(const char *dir, const char *name, const void *data, size_t n)
{
    char path[512];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "wb");
    if (!f || (n && fwrite(data, 1, n, f) != n) || fclose(f) != 0) {
        perror(path);
        abort();
    }
}

/*
 * What fuzz_write_changed last wrote to a file: its contents are kept so that a file the next input leaves as it
 * was is not written again (the tables the input does not change, the fixture's).
 */
typedef struct fuzz_file_memo {
    char *data;
    size_t n;
    int valid;
} fuzz_file_memo;

/* As fuzz_write, unless *memo says the file already holds these bytes. */
__attribute__((unused)) static void fuzz_write_changed(fuzz_file_memo *memo, const char *dir, const char *name,
                                                       const void *data, size_t n)
{
    if (memo->valid && memo->n == n && (n == 0 || memcmp(memo->data, data, n) == 0))
        return;
    fuzz_write(dir, name, data, n);
    char *copy = realloc(memo->data, n ? n : 1);
    if (!copy)
        abort();
    if (n)
        memcpy(copy, data, n);
    memo->data = copy;
    memo->n = n;
    memo->valid = 1;
}

/* Splits data at the byte sep into at most max parts (part i: start[i], len[i]); \return the number of parts. */
__attribute__((unused)) static int fuzz_split(const uint8_t *data, size_t size, uint8_t sep, int max, const uint8_t **start, size_t *len)
{
    int n = 0;
    size_t from = 0;
    for (size_t i = 0; i <= size && n < max; i++)
        if (i == size || (data[i] == sep && n < max - 1)) {
            start[n] = data + from;
            len[n++] = i - from;
            from = i + 1;
        }
    return n;
}

#endif
