/* parray — the library's version at run time (include/parray/version.h). */
#include "base.h"

const char *pa_version(int *major, int *minor, int *patch)
{
    if (major)
        *major = PA_VERSION_MAJOR;
    if (minor)
        *minor = PA_VERSION_MINOR;
    if (patch)
        *patch = PA_VERSION_PATCH;
    return PA_VERSION_STRING;
}
