/*
 * base/dl and its shims: a library loaded on first use behaves as if it were
 * linked — every kind of argument the variadic setopt and getinfo take
 * arrives intact — and a missing one is an error naming its Debian package.
 * Each test runs in a process of its own, so each loads from scratch.
 */
#include <criterion/criterion.h>

#include "base/dl.h"
#include "base/err.h"

#include <curl/curl.h>
#include <libical/ical.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct sink {
	char data[64];
	size_t len;
};

static size_t collect(char *p, size_t size, size_t n, void *ud)
{
	struct sink *s = ud;
	size_t len = size * n;

	if (s->len + len > sizeof s->data)
		return 0;
	memcpy(s->data + s->len, p, len);
	s->len += len;
	return len;
}

/* A file:// URL of a fresh file holding text; path receives its name. Free the URL. */
static char *file_url(const char *text, char path[600])
{
	char *url = malloc(640);
	const char *tmp = getenv("TMPDIR");
	FILE *f;

	snprintf(path, 600, "%s/mecha-test-dl-%d", tmp && *tmp ? tmp : P_tmpdir, (int)getpid());
	f = fopen(path, "w");
	cr_assert(f);
	fputs(text, f);
	cr_assert_eq(fclose(f), 0, "the page was not written");
	snprintf(url, 640, "file://%s", path);
	return url;
}

Test(dl, setopt_forwards_longs_strings_function_pointers_and_private_data)
{
	struct sink s = { .len = 0 };
	struct err e;
	char path[600], *url = file_url("hello, shim\n", path);
	char *effective = NULL, *priv = NULL;
	CURL *h;

	cr_assert_eq(dl_require(DL_CURL, &e), 0, "%s", e.msg);
	h = curl_easy_init();
	cr_assert(h);
	cr_assert_eq(curl_easy_setopt(h, CURLOPT_URL, url), CURLE_OK);
	cr_assert_eq(curl_easy_setopt(h, CURLOPT_TIMEOUT, 10L), CURLE_OK);
	cr_assert_eq(curl_easy_setopt(h, CURLOPT_WRITEFUNCTION, collect), CURLE_OK);
	cr_assert_eq(curl_easy_setopt(h, CURLOPT_WRITEDATA, &s), CURLE_OK);
	cr_assert_eq(curl_easy_setopt(h, CURLOPT_PRIVATE, path), CURLE_OK);
	cr_assert_eq(curl_easy_perform(h), CURLE_OK);
	cr_assert_eq(s.len, 12);
	cr_assert_eq(memcmp(s.data, "hello, shim\n", 12), 0);
	curl_easy_getinfo(h, CURLINFO_EFFECTIVE_URL, &effective);
	curl_easy_getinfo(h, CURLINFO_PRIVATE, &priv);
	cr_assert_str_eq(effective, url);
	cr_assert_eq(priv, path);
	curl_easy_cleanup(h);
	unlink(path);
	free(url);
}

Test(dl, setopt_forwards_an_off_t_offset)
{
	char path[600], *url = file_url("twenty bytes of text", path);
	struct sink s = { .len = 0 };
	CURL *h = curl_easy_init(); /* no dl_require: the wrapper loads libcurl itself */

	curl_easy_setopt(h, CURLOPT_URL, url);
	curl_easy_setopt(h, CURLOPT_WRITEFUNCTION, collect);
	curl_easy_setopt(h, CURLOPT_WRITEDATA, &s);
	cr_assert_eq(curl_easy_setopt(h, CURLOPT_RESUME_FROM_LARGE, (curl_off_t)7), CURLE_OK);
	cr_assert_eq(curl_easy_perform(h), CURLE_OK);
	cr_assert_eq(s.len, 13);
	cr_assert_eq(memcmp(s.data, "bytes of text", 13), 0);
	curl_easy_cleanup(h);
	unlink(path);
	free(url);
}

Test(dl, multi_setopt_forwards_a_long)
{
	CURLM *m = curl_multi_init();

	cr_assert(m);
	cr_assert_eq(curl_multi_setopt(m, CURLMOPT_MAXCONNECTS, 4L), CURLM_OK);
	curl_multi_cleanup(m);
}

Test(dl, libical_forwards_structs_by_value)
{
	struct icaltimetype t = icaltime_from_timet_with_zone(86400 * 365, 0,
							       icaltimezone_get_utc_timezone());

	cr_assert_eq(t.year, 1971);
	cr_assert_eq(icaltime_as_timet_with_zone(t, icaltimezone_get_utc_timezone()), 86400 * 365);
}

Test(dl, a_missing_library_is_an_error_naming_its_debian_package)
{
	struct err e;

	setenv("MECHA_DL_MISSING", "ical", 1);
	cr_assert_eq(dl_require(DL_ICAL, &e), -1);
	cr_assert_eq(e.code, ERR_MISSING_LIBRARY);
	cr_assert(strstr(e.msg, "libical.so.3"), "%s", e.msg);
	cr_assert(strstr(e.msg, "install the Debian package libical3"), "%s", e.msg);
	/* The answer is kept: the second call does not try again. */
	unsetenv("MECHA_DL_MISSING");
	cr_assert_eq(dl_require(DL_ICAL, &e), -1);
	/* The other library is untouched. */
	cr_assert_eq(dl_require(DL_CURL, &e), 0, "%s", e.msg);
}

Test(dl, a_call_that_skipped_dl_require_on_a_machine_without_the_library_aborts,
     .signal = SIGABRT)
{
	setenv("MECHA_DL_MISSING", "curl", 1);
	curl_easy_init();
}
