/*
 * func — the manual's listings 13 and 14.
 *
 * DATA's offsets come from a user function, access(), that stores a large sparse array compactly: the
 * first index it is asked about gets offset 0, the next new index offset 1, and so on, remembered in a
 * small table.  The offsets therefore depend on the order in which they are asked for.
 *
 * The manual prints DATA[4], DATA[5] and DATA[6] in one printf and notes that printf usually evaluates its
 * arguments from right to left, so DATA[6] is asked for first and the line reads 2 1 0.  C leaves the order
 * of evaluation of arguments unspecified, so this program evaluates DATA[6], DATA[5] and DATA[4] in that
 * order explicitly to reproduce the manual's result on every compiler.
 */
#include <stdio.h>
#include <stdlib.h>

#include <parray/parray.h>

/* The table of the indices seen so far; an index's offset is its position in the table. */
struct offset_table {
    int count;
    int64_t index[100];
};

/* The manual's access(): the offset of index i, adding i to the table when it is new. */
static int64_t access_fn(int64_t i, void *ctx)
{
    struct offset_table *table = ctx;
    for (int j = 0; j < table->count; j++)
        if (table->index[j] == i)
            return j;
    if (table->count == (int)(sizeof table->index / sizeof table->index[0]))
        return -1; /* The table is full; the manual's version would write past its end. */
    table->index[table->count] = i;
    return table->count++;
}

int main(void)
{
    struct offset_table table = {0};
    pa_scope *scope = NULL;
    const pa_type *DATA = NULL;
    if (pa_scope_create(NULL, &scope) != PA_OK || pa_scope_def_func(scope, "access", access_fn, &table) != PA_OK ||
        pa_declare(scope, "DATA", "[1000 # func(access)]") != PA_OK || (DATA = pa_type_get(scope, "DATA")) == NULL) {
        fprintf(stderr, "func: %s\n", pa_last_error());
        return 1;
    }

    /* Right to left, as the manual's printf did. */
    int64_t d6 = pa_offset(DATA, 6);
    int64_t d5 = pa_offset(DATA, 5);
    int64_t d4 = pa_offset(DATA, 4);
    printf("DATA[4]=%d DATA[5]=%d DATA[6]=%d\n", (int)d4, (int)d5, (int)d6);

    pa_scope_destroy(scope);
    return 0;
}
