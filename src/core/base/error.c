/* parray — status codes and the per-thread detailed error message. */
#include <stdio.h>
#include <string.h>

#include "base.h"

static _Thread_local char pa__errbuf[1024];
static _Thread_local int pa__errstatus;

const char *pa_strerror(int status)
{
    switch (status) {
#define PA__STATUS_TEXT(name, value, text) case value: return text;
        PA_STATUS_MAP(PA__STATUS_TEXT)
#undef PA__STATUS_TEXT
    }
    return "unknown status";
}

const char *pa_status_name(int status)
{
    switch (status) {
#define PA__STATUS_NAME(name, value, text) case value: return #name;
        PA_STATUS_MAP(PA__STATUS_NAME)
#undef PA__STATUS_NAME
    }
    return "UNKNOWN";
}

const char *pa_last_error(void)
{
    return pa__errbuf;
}

void pa_error_clear(void)
{
    pa__errbuf[0] = '\0';
    pa__errstatus = PA_OK;
}

int pa__last_status(void)
{
    return pa__errstatus;
}

int pa__err(int status, const char *fmt, ...)
{
    va_list ap;
    int n = snprintf(pa__errbuf, sizeof pa__errbuf, "%s: ", pa_status_name(status));
    pa__errstatus = status;
    if (n < 0 || (size_t)n >= sizeof pa__errbuf)
        return status;
    va_start(ap, fmt);
    vsnprintf(pa__errbuf + n, sizeof pa__errbuf - (size_t)n, fmt, ap);
    va_end(ap);
    return status;
}

int pa__err_wrap(int status, const char *fmt, ...)
{
    char prefix[512], detail[1024];
    const char *colon = strchr(pa__errbuf, ':');
    va_list ap;
    /* The previous message without its "ERR_X: " head; copied first since it lives in the buffer we write. */
    snprintf(detail, sizeof detail, "%s", colon && colon[1] == ' ' ? colon + 2 : pa__errbuf);
    va_start(ap, fmt);
    vsnprintf(prefix, sizeof prefix, fmt, ap);
    va_end(ap);
    return pa__err(status, "%s: %s", prefix, detail);
}
