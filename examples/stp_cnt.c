/*
 * stp_cnt — the contiguity expressions of the manual's section 5.2.
 *
 * stp(T) is the step d when T(i) = T(0) + i*d for every index i, and 0 when there is none; cnt(T) says
 * whether T is contiguous (stp(T) == 1).  A = paged float [[3][3]][2] is contiguous; B swaps A's two column
 * sub-dimensions, so B as a whole has no step while its row dimension B_1 is still contiguous: a copy from
 * B to A can move runs of size(B_1) elements.
 */
#include <stdio.h>
#include <stdlib.h>

#include <parray/parray.h>

static void fail(const char *what)
{
    fprintf(stderr, "stp_cnt: %s: %s\n", what, pa_last_error());
    exit(1);
}

/* Prints "q(NAME)=value" for the names, on one line, where q is stp or cnt. */
static void print_line(pa_scope *scope, int want_cnt, const char *const *names, int n)
{
    for (int i = 0; i < n; i++) {
        const pa_type *t = pa_type_get(scope, names[i]);
        if (t == NULL)
            fail(names[i]);
        int64_t value = want_cnt ? pa_cnt(t) : pa_stp(t);
        printf("%s%s(%s)=%d", i > 0 ? " " : "", want_cnt ? "cnt" : "stp", names[i], (int)value);
    }
    printf("\n");
}

int main(void)
{
    static const char decls[] =
        "parray paged float [[3][3]][2] A\n"
        "parray paged float [[#A_0_1][#A_0_0]][#A_1] B\n";
    /* The manual's lists, with B_1 added: the text says it stays contiguous. */
    static const char *const a_names[] = {"A", "A_1", "A_0", "A_0_1", "A_0_0"};
    static const char *const b_names[] = {"B", "B_0", "B_0_1", "B_1"};

    pa_scope *scope = NULL;
    if (pa_scope_create(NULL, &scope) != PA_OK)
        fail("pa_scope_create");
    if (pa_declare_text(scope, decls) != PA_OK)
        fail("declarations");

    print_line(scope, 0, a_names, 5);
    print_line(scope, 0, b_names, 4);
    print_line(scope, 1, a_names, 5);
    print_line(scope, 1, b_names, 4);

    pa_scope_destroy(scope);
    return 0;
}
