/*
 * displacement — the manual's listings 9 and 10.
 *
 * WINDOW is the 80 x 80 window in the middle of a 100 x 100 DATA array: each of its dimensions adds a
 * displacement of 10 to the index and then applies DATA's dimension, so WINDOW(i, j) = DATA(i+10, j+10).
 * The program copies the window to a plain 80 x 80 array (80 runs of 80 contiguous floats), checks the
 * copy, and prints the window's first offset and the contiguity steps of both types.
 */
#include <stdio.h>
#include <stdlib.h>

#include <parray/parray.h>

static void fail(const char *what)
{
    fprintf(stderr, "displacement: %s: %s\n", what, pa_last_error());
    exit(1);
}

static const pa_type *get(pa_scope *scope, const char *name)
{
    const pa_type *t = pa_type_get(scope, name);
    if (t == NULL)
        fail(name);
    return t;
}

int main(void)
{
    static const char decls[] =
        "parray paged float [[100][100]] DATA\n"
        "parray paged float [[80 # disp(10) # DATA_0][80 # disp(10) # DATA_1]] WINDOW\n"
        "parray paged float [[80][80]] COPY\n";

    pa_scope *scope = NULL;
    if (pa_scope_create(NULL, &scope) != PA_OK)
        fail("pa_scope_create");
    if (pa_declare_text(scope, decls) != PA_OK)
        fail("declarations");

    const pa_type *data_t = get(scope, "DATA");
    const pa_type *window_t = get(scope, "WINDOW");
    const pa_type *copy_t = get(scope, "COPY");

    float *data = pa_create(data_t);
    float *copy = pa_create(copy_t);
    if (data == NULL || copy == NULL)
        fail("pa_create");
    for (int64_t i = 0; i < pa_size(data_t); i++)
        data[i] = (float)i;

    if (pa_copy(copy_t, copy, window_t, data) != PA_OK)
        fail("pa_copy");

    /* The manual prints nothing about the copied values; check them so that the example fails loudly. */
    for (int i = 0; i < 80; i++)
        for (int j = 0; j < 80; j++)
            if (copy[i * 80 + j] != (float)((i + 10) * 100 + (j + 10))) {
                fprintf(stderr, "displacement: copy[%d][%d] = %g, expected DATA[%d][%d]\n", i, j,
                        (double)copy[i * 80 + j], i + 10, j + 10);
                return 1;
            }

    int64_t origin[2] = {0, 0};
    printf("WINDOW[0][0]=DATA[10][10]=%d\n", (int)pa_offset_nd(window_t, 2, origin));
    printf("stp(DATA)=%d, stp(DATA_0)=%d, stp(DATA_1)=%d\n", (int)pa_stp(data_t),
           (int)pa_stp(get(scope, "DATA_0")), (int)pa_stp(get(scope, "DATA_1")));
    printf("stp(WINDOW)=%d, stp(WINDOW_0)=%d, stp(WINDOW_1)=%d\n", (int)pa_stp(window_t),
           (int)pa_stp(get(scope, "WINDOW_0")), (int)pa_stp(get(scope, "WINDOW_1")));

    pa_destroy(data_t, data);
    pa_destroy(copy_t, copy);
    pa_scope_destroy(scope);
    return 0;
}
