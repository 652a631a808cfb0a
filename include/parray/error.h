/*
 * parray — error reporting.
 *
 * Every public call that can fail returns a status code: PA_OK (0) on success, a negative PA_ERR_* value on
 * failure.  Calls that return a pointer return NULL on failure, and calls that return a number document the
 * value they return on failure.  In every case a detailed message for the calling thread is kept until the next
 * failing call on that thread and is read with pa_last_error(): it quotes the declaration, the column, the
 * sizes or the name involved.  Outputs are the last parameters and are left untouched on failure.
 */
#ifndef PARRAY_ERROR_H
#define PARRAY_ERROR_H

#ifdef __cplusplus
extern "C" {
#endif

#if defined(PA_BUILDING_LIBRARY) && defined(__GNUC__)
#define PA_API __attribute__((visibility("default")))
#else
#define PA_API
#endif

/*
 * PA_DEPRECATED(msg) marks a name kept for one release after a rename (docs/api.md, "The API's style"): a call
 * compiles and works as before, and the compiler warns with msg ("use pa_tile_copy").  Define
 * PA_NO_DEPRECATION_WARNINGS before including parray's headers to silence them all.
 */
#if defined(PA_NO_DEPRECATION_WARNINGS)
#define PA_DEPRECATED(msg)
#elif defined(__GNUC__) || defined(__clang__)
#define PA_DEPRECATED(msg) __attribute__((deprecated(msg)))
#elif defined(_MSC_VER)
#define PA_DEPRECATED(msg) __declspec(deprecated(msg))
#else
#define PA_DEPRECATED(msg)
#endif

/* The one list of status codes: name, value, text.  pa_strerror() and pa_status_name() come from it. */
#define PA_STATUS_MAP(X)                                                                           \
    X(OK, 0, "success")                                                                            \
    X(ERR_INVAL, -1, "invalid argument")                                                           \
    X(ERR_NOMEM, -2, "out of memory")                                                              \
    X(ERR_PARSE, -3, "syntax error in declaration")                                                \
    X(ERR_NAME, -4, "unknown name")                                                                \
    X(ERR_EXISTS, -5, "name already declared")                                                     \
    X(ERR_SIZE, -6, "size mismatch")                                                               \
    X(ERR_RANGE, -7, "value out of range")                                                         \
    X(ERR_PARAM, -8, "parameter mismatch")                                                         \
    X(ERR_MTT, -9, "unknown or unusable memory/thread type")                                       \
    X(ERR_DIM, -10, "no such dimension")                                                           \
    X(ERR_ELM, -11, "element type mismatch or missing")                                            \
    X(ERR_UNSUPPORTED, -12, "operation not supported")                                             \
    X(ERR_SYS, -13, "system call failed")                                                          \
    X(ERR_NODEV, -14, "device or backend not available")                                         \
    X(ERR_COMPILE, -15, "kernel source failed to compile")                                         \
    X(ERR_KERNEL, -16, "kernel reported an error")

typedef enum pa_status {
#define PA__STATUS_ENUM(name, value, text) PA_##name = value,
    PA_STATUS_MAP(PA__STATUS_ENUM)
#undef PA__STATUS_ENUM
} pa_status;

/** \return a static English sentence for a status code ("unknown status" for values not in the list). */
PA_API const char *pa_strerror(int status);

/** \return the symbolic name of a status code without the PA_ prefix, e.g. "ERR_PARSE". */
PA_API const char *pa_status_name(int status);

/**
 * \return the detailed message of the last failure on the calling thread, or "" if none.  The string stays
 * valid until the next parray call on this thread.
 */
PA_API const char *pa_last_error(void);

/** Forgets the calling thread's last error message. */
PA_API void pa_error_clear(void);

/** Deprecated name of pa_error_clear (verb after the noun: pa_<noun>_<verb>); removed in the next release. */
PA_API PA_DEPRECATED("use pa_error_clear") void pa_clear_error(void);

#ifdef __cplusplus
}
#endif
#endif
