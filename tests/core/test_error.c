/* Status codes, their names and texts, and the per-thread message. */
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include "internal.h"
#include "testutil.h"

START_TEST(test_names_and_texts)
{
    ck_assert_str_eq(pa_status_name(PA_OK), "OK");
    ck_assert_str_eq(pa_status_name(PA_ERR_PARSE), "ERR_PARSE");
    ck_assert_str_eq(pa_strerror(PA_ERR_SIZE), "size mismatch");
    ck_assert_str_eq(pa_strerror(12345), "unknown status");
    ck_assert_str_eq(pa_status_name(-999), "UNKNOWN");
}
END_TEST

/* pa_version: the library's version, the same as the headers' (one generated header, version.h). */
START_TEST(test_version)
{
    int major = -1, minor = -1, patch = -1;
    char want[32];
    const char *v = pa_version(&major, &minor, &patch);
    ck_assert_str_eq(v, PA_VERSION_STRING);
    ck_assert(major == PA_VERSION_MAJOR && minor == PA_VERSION_MINOR && patch == PA_VERSION_PATCH);
    snprintf(want, sizeof want, "%d.%d.%d", major, minor, patch);
    ck_assert_str_eq(v, want);
    ck_assert_int_eq(PA_VERSION_NUMBER, major * 10000 + minor * 100 + patch);
    ck_assert_str_eq(pa_version(NULL, NULL, NULL), v);
}
END_TEST

START_TEST(test_message_kept_and_cleared)
{
    ck_assert_int_eq(pa__err(PA_ERR_NAME, "type '%s' is not declared", "Q"), PA_ERR_NAME);
    ck_assert_str_eq(pa_last_error(), "ERR_NAME: type 'Q' is not declared");
    pa_error_clear();
    ck_assert_str_eq(pa_last_error(), "");
}
END_TEST

static void *other_thread(void *arg)
{
    (void)arg;
    pa__err(PA_ERR_RANGE, "from the other thread");
    return NULL;
}

START_TEST(test_message_per_thread)
{
    pthread_t th;
    pa__err(PA_ERR_INVAL, "mine");
    pthread_create(&th, NULL, other_thread, NULL);
    pthread_join(th, NULL);
    ck_assert_str_eq(pa_last_error(), "ERR_INVAL: mine");
}
END_TEST

int main(void)
{
    Suite *s = suite_create("error");
    TCase *tc = tcase_create("error");
    tcase_add_test(tc, test_names_and_texts);
    tcase_add_test(tc, test_version);
    tcase_add_test(tc, test_message_kept_and_cleared);
    tcase_add_test(tc, test_message_per_thread);
    suite_add_tcase(s, tc);
    return pa_test_run(s);
}
