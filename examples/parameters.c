/*
 * parameters — the manual's listings 37 and 38.
 *
 * WINDOW is a 2 x 4 window into a 6 x 6 DATA array whose position, row y and column x, is a pair of type
 * parameters.  WINDOW<1,2> and WINDOW<4,1> are two instances of it over the same array; copying one to the
 * other moves the block at rows 1-2, columns 2-5 to rows 4-5, columns 1-4 (the two blocks do not overlap).
 */
#include <stdio.h>
#include <stdlib.h>

#include <parray/parray.h>

static void fail(const char *what)
{
    fprintf(stderr, "parameters: %s: %s\n", what, pa_last_error());
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
        "parray paged int [[6][6]] DATA\n"
        "parray <int y, int x> paged int [[2 # disp(y) # DATA_0][4 # disp(x) # DATA_1]] WINDOW\n";

    pa_scope *scope = NULL;
    if (pa_scope_create(NULL, &scope) != PA_OK)
        fail("pa_scope_create");
    if (pa_declare_text(scope, decls) != PA_OK)
        fail("declarations");

    const pa_type *DATA = get(scope, "DATA");
    const pa_type *from = get(scope, "WINDOW<1,2>");
    const pa_type *to = get(scope, "WINDOW<4,1>");

    int *d = pa_create(DATA);
    if (d == NULL)
        fail("pa_create");
    for (int64_t i = 0; i < pa_size(DATA); i++)
        d[pa_offset(DATA, i)] = (int)i;

    if (pa_copy(to, d, from, d) != PA_OK)
        fail("pa_copy");

    /* "for DATA_0(d) { for DATA_1(d) printf(...); printf("\n"); }": one line per row. */
    const pa_type *rows = get(scope, "DATA_0");
    const pa_type *cols = get(scope, "DATA_1");
    for (int64_t i = 0; i < pa_size(rows); i++) {
        for (int64_t j = 0; j < pa_size(cols); j++)
            printf("%s%2d", j > 0 ? " " : "", d[pa_offset(rows, i) + pa_offset(cols, j)]);
        printf("\n");
    }

    pa_destroy(DATA, d);
    pa_scope_destroy(scope);
    return 0;
}
