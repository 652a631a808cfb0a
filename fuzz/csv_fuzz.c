/*
 * csv_fuzz — a libFuzzer target for the matrix module's CSV reader (pa_matrix_from_csv).
 *
 * The first byte chooses the element type (its low three bits: short, int, long, float, double; other values
 * give the reader an unknown one) and whether the first line is a header (bit 3); the rest is the file.  A
 * matrix that is read must have the shape the reader says and its header's magic; anything else must be a clear
 * error with nothing returned.  The reader parses with several threads, so the target also exercises their
 * hand-over of line numbers and faults.  See fuzz/README.md.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <parray/parray.h>
#include <parray/matrix.h>

#include "fuzz_files.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size == 0)
        return 0;
    const char *dir = fuzz_dir();
    int elm = data[0] & 7, flags = data[0] & 8 ? PA_MATRIX_CSV_HEADER : 0;
    char path[300];
    snprintf(path, sizeof path, "%s/m.csv", dir);
    fuzz_write(dir, "m.csv", data + 1, size - 1);
    pa_matrix *m = NULL;
    int rc = pa_matrix_from_csv(path, elm, flags, NULL, &m);
    if (rc != PA_OK) {
        if (m != NULL || pa_last_error()[0] == '\0')
            abort();   /* nothing returned, and a message that says why */
        return 0;
    }
    if (m == NULL || m->magic != PA_MATRIX_MAGIC || m->elm != elm || m->height < 0 || m->width < 0 ||
        (size_t)m->height * (size_t)m->width > size)
        abort();   /* no more elements than the file has bytes */
    pa_matrix_destroy(m);
    return 0;
}
