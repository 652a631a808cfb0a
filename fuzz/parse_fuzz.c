/*
 * parse_fuzz — a libFuzzer target for the declaration parser and the queries behind it.
 *
 * Each input is declaration text (the format of pa_declare_text) fed into a fresh scope.  When it parses,
 * the target takes a handle to every name the text declares, to a few parameter bindings and to the first
 * dimensions below each, and asks each handle the cheap questions: size, the first and last offset, stp,
 * the compiled layout and the canonical declaration.  The same text is also parsed as one anonymous type.
 * Nothing may crash, hang, leak or use unbounded memory; the sanitizers and libFuzzer's -timeout and
 * -rss_limit_mb flags report any of these.  See fuzz/README.md for how to run it.
 */
#include <ctype.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <parray/parray.h>

#include "layout.h"   /* pa__layout_set_limits */

enum { MAX_NAMES = 16, MAX_NAME_LEN = 64, MAX_DEPTH = 3, MAX_CHILDREN = 4 };

/* Two user offset functions so that func(...) chains resolve: the identity and a reversal modulo 64. */
static int64_t fuzz_identity(int64_t i, void *ctx)
{
    (void)ctx;
    return i;
}

static int64_t fuzz_reverse(int64_t i, void *ctx)
{
    (void)ctx;
    return 63 - (i & 63);
}

/* Asks one handle the cheap questions, then its first few sub-dimensions, down to MAX_DEPTH. */
static void query(const pa_type *t, int depth)
{
    char buf[128];
    int64_t size = pa_size(t);
    if (size > 0) {
        (void)pa_offset(t, 0);
        (void)pa_offset(t, size - 1);
    }
    (void)pa_offset(t, -1);
    (void)pa_offset(t, size);
    int64_t lo, hi;
    (void)pa_extent(t, &lo, &hi);
    (void)pa_stp(t);
    (void)pa_cnt(t);
    (void)pa_elm_size(t);
    (void)pa_mtt(t);
    (void)pa_type_name(t);
    (void)pa_layout_format(t, buf, sizeof buf);
    (void)pa_type_format(t, buf, sizeof buf);
    (void)pa_nparams(t);
    (void)pa_para(t, buf, sizeof buf);

    int ndim = pa_ndim(t);
    if (depth >= MAX_DEPTH)
        return;
    for (int i = 0; i < ndim && i < MAX_CHILDREN; i++) {
        const pa_type *child = pa_type_child(t, i);
        if (child != NULL)
            query(child, depth + 1);
    }
}

/*
 * Finds the names that the statements of `text` declare: the last identifier of "parray DECL NAME" and the
 * first of "NAME = DECL".  It does not need to be exact; a wrong guess only makes pa_type_get fail.
 * \return the number of names written to names.
 */
static int declared_names(const char *text, char names[MAX_NAMES][MAX_NAME_LEN + 1])
{
    int count = 0;
    const char *p = text;
    while (*p != '\0' && count < MAX_NAMES) {
        const char *end = p + strcspn(p, ";\n");
        const char *comment = strstr(p, "//");
        const char *stop = comment != NULL && comment < end ? comment : end;

        char first[MAX_NAME_LEN + 1] = "", last[MAX_NAME_LEN + 1] = "";
        int has_equals = 0;
        for (const char *q = p; q < stop;) {
            if (isalpha((unsigned char)*q) || *q == '_') {
                const char *s = q;
                while (q < stop && (isalnum((unsigned char)*q) || *q == '_'))
                    q++;
                size_t n = (size_t)(q - s) < MAX_NAME_LEN ? (size_t)(q - s) : MAX_NAME_LEN;
                if (first[0] == '\0') {
                    memcpy(first, s, n);
                    first[n] = '\0';
                }
                memcpy(last, s, n);
                last[n] = '\0';
            } else {
                has_equals |= *q == '=';
                q++;
            }
        }
        const char *name = strcmp(first, "parray") == 0 ? last : (has_equals && strcmp(first, "var") != 0 ? first : "");
        if (name[0] != '\0')
            strcpy(names[count++], name);
        p = *end != '\0' ? end + 1 : end;
    }
    return count;
}

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/*
 * The compiler's limits, lowered from 2^22 (tables of 4,096 offsets, 16,384 dimension visits per compilation):
 * with the defaults a ten-byte declaration such as "[4000000 # [7]]" fills a table of four million offsets at its
 * first pa_offset, and such inputs held the target at about 300 inputs a second.  The same code runs (tables are
 * built for small types, refused past the limits, the refusal kept on the node), only on smaller sizes.
 */
int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    pa__layout_set_limits(4096, 16384);
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    /* The library reads C strings: the input up to its first NUL byte is the text. */
    char *text = malloc(size + 1);
    if (text == NULL)
        return 0;
    memcpy(text, data, size);
    text[size] = '\0';

    pa_scope *scope = NULL;
    if (pa_scope_create(NULL, &scope) != PA_OK) {
        free(text);
        return 0;
    }
    pa_scope_def_func(scope, "access", fuzz_identity, NULL);
    pa_scope_def_func(scope, "rev", fuzz_reverse, NULL);

    if (pa_declare_text(scope, text) == PA_OK) {
        static const char *const suffixes[] = {"", "_0", "_1", "_0_1", "<1>", "<1,2>", "<2,1,3>", "_0<0,0>"};
        char names[MAX_NAMES][MAX_NAME_LEN + 1];
        int n = declared_names(text, names);
        for (int i = 0; i < n; i++) {
            for (size_t k = 0; k < sizeof suffixes / sizeof suffixes[0]; k++) {
                char ref[MAX_NAME_LEN + 16];
                strcpy(ref, names[i]);
                strcat(ref, suffixes[k]);
                const pa_type *t = pa_type_get(scope, ref);
                if (t != NULL)
                    query(t, 0);
            }
        }
    }

    /* The whole text as one anonymous declaration, in the scope that may now hold the names above. */
    const pa_type *anon = pa_type_parse(scope, text);
    if (anon != NULL)
        query(anon, 0);

    pa_scope_destroy(scope);
    free(text);
    return 0;
}
