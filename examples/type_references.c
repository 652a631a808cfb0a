/*
 * type_references — the manual's listings 7 and 8.
 *
 * Types B to F refer to the dimensions of A = pinned float [[3][3]][2] in the ways the manual describes:
 * a sized reference (B_0 and C), a reference split into sub-dimensions (D), references that reorder
 * sub-dimensions (E) and a pure reference that inherits a whole sub-tree (F).  The program prints the
 * offsets of each; no memory is allocated, so the device memory types need no GPU.
 */
#include <stdio.h>
#include <stdlib.h>

#include <parray/parray.h>

static void fail(const char *what)
{
    fprintf(stderr, "type_references: %s: %s\n", what, pa_last_error());
    exit(1);
}

/* Prints "NAME[i]=offset" for every index of the named type or dimension, on one line. */
static void print_offsets(pa_scope *scope, const char *name)
{
    const pa_type *t = pa_type_get(scope, name);
    if (t == NULL)
        fail(name);
    int64_t size = pa_size(t);
    for (int64_t i = 0; i < size; i++) {
        int64_t off = pa_offset(t, i);
        if (off == PA_BAD_OFFSET)
            fail(name);
        printf("%s%s[%d]=%d", i > 0 ? " " : "", name, (int)i, (int)off);
    }
    printf("\n");
}

int main(void)
{
    static const char decls[] =
        "parray pinned float [[3][3]][2] A\n"
        "parray dmem float [[7 # A_0]] B\n"
        "parray dmem float [7 # A_0] C\n"
        "parray dmem float [[2][2] # A_0] D\n"
        "parray paged float [[#A_0_1][#A_0_0]] E\n"
        "parray paged float [#A_0] F\n";

    pa_scope *scope = NULL;
    if (pa_scope_create(NULL, &scope) != PA_OK)
        fail("pa_scope_create");
    if (pa_declare_text(scope, decls) != PA_OK)
        fail("declarations");

    print_offsets(scope, "B_0");
    print_offsets(scope, "C");
    print_offsets(scope, "D_0");
    print_offsets(scope, "E_0");
    print_offsets(scope, "F_0");

    pa_scope_destroy(scope);
    return 0;
}
