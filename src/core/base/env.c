/*
 * parray — the environment variables the library reads, validated.
 *
 * A variable that is unset gives the documented default silently; a value that is not one the documentation
 * allows gives a one-line warning on stderr (once per variable and process) and the documented default, never
 * a silent change of meaning: "3junk" is not 3, and "abc", "", "-3" or a value past the range are not 1.
 */
#include <ctype.h>
#include <errno.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "base.h"

/* One warning per variable and process: the variables are few, each call site passes its own flag. */
void pa__env_warn(atomic_int *once, const char *name, const char *value, const char *expected, const char *dflt)
{
    if (once && atomic_exchange(once, 1))
        return;
    fprintf(stderr, "parray: warning: %s='%s' is not %s; using the default (%s)\n", name, value, expected, dflt);
}

int pa__env_parse_int(const char *value, long lo, long hi, long *out)
{
    char *end;
    if (!value || !(isdigit((unsigned char)value[0]) || value[0] == '+' || value[0] == '-'))
        return 0;   /* unset, empty, or leading blanks (which strtol would skip) */
    errno = 0;
    long v = strtol(value, &end, 10);
    if (errno != 0 || end == value || *end != '\0' || v < lo || v > hi)
        return 0;
    *out = v;
    return 1;
}

long pa__env_int(const char *name, long lo, long hi, long def, const char *def_text, atomic_int *once)
{
    const char *value = getenv(name);
    long v;
    char expected[96], dflt[64];
    if (!value)
        return def;
    if (pa__env_parse_int(value, lo, hi, &v))
        return v;
    snprintf(expected, sizeof expected, "an integer in %ld..%ld", lo, hi);
    if (def_text)
        snprintf(dflt, sizeof dflt, "%s, %ld", def_text, def);
    else
        snprintf(dflt, sizeof dflt, "%ld", def);
    pa__env_warn(once, name, value, expected, dflt);
    return def;
}

int pa__env_flag(const char *name, atomic_int *once)
{
    const char *value = getenv(name);
    if (!value)
        return 0;
    if (strcmp(value, "1") == 0)
        return 1;
    if (strcmp(value, "0") == 0)
        return 0;
    pa__env_warn(once, name, value, "0 or 1", "0");
    return 0;
}

int pa__env_choice(const char *name, const char *const *words, int nwords, int def, atomic_int *once)
{
    const char *value = getenv(name);
    char expected[128];
    size_t n = 0;
    if (!value)
        return def;
    for (int i = 0; i < nwords; i++)
        if (strcmp(value, words[i]) == 0)
            return i;
    n += (size_t)snprintf(expected, sizeof expected, "one of");
    for (int i = 0; i < nwords && n < sizeof expected; i++)
        n += (size_t)snprintf(expected + n, sizeof expected - n, "%s %s", i ? "," : "", words[i]);
    pa__env_warn(once, name, value, expected, words[def]);
    return def;
}

const char *pa__env_dir(const char *name, size_t max_len, atomic_int *once, const char *def_text)
{
    const char *value = getenv(name);
    if (!value)
        return NULL;
    if (value[0] == '/' && strlen(value) < max_len)
        return value;
    char expected[96];
    snprintf(expected, sizeof expected, "an absolute path of fewer than %zu characters", max_len);
    pa__env_warn(once, name, value, expected, def_text);
    return NULL;
}
