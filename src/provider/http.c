/*
 * http — the transport under the providers: libcurl easy handles driven by one
 * multi handle, so one call and forty in flight take the same path. libcurl
 * is loaded (and its global state set up) by base/dl on first use; the
 * provider checks that it can be before it builds a request.
 */
#include "provider/http.h"

#include "base/buf.h"
#include "base/err.h"
#include "base/text.h"

#include <curl/curl.h>
#include <stdlib.h>
#include <string.h>

/* How much of an error body a message quotes. */
#define BODY_QUOTE 300

struct http_exchange {
	CURL *easy;
	const char *method; /* "POST" or "GET", for messages */
	struct curl_slist *headers;
	char *url;
	char *body;
	size_t body_len;
	struct buf reply;
	int too_big;
	int done;
	CURLcode result;
	long status;
	char errbuf[CURL_ERROR_SIZE];
	void *tag;
};

struct http_multi {
	CURLM *multi;
	struct http_exchange **live; /* in flight, so a free can reclaim them */
	size_t in_flight;
	size_t cap;
};

static size_t on_data(char *data, size_t size, size_t n, void *arg)
{
	struct http_exchange *x = arg;
	size_t len = size * n;

	if (x->reply.len + len > HTTP_REPLY_MAX) {
		x->too_big = 1;
		return 0; /* makes libcurl stop with CURLE_WRITE_ERROR */
	}
	buf_add(&x->reply, data, len);
	return len;
}

static void easy_setup(struct http_exchange *x, long connect_s, long total_s)
{
	CURL *c = x->easy;

	curl_easy_setopt(c, CURLOPT_URL, x->url);
	curl_easy_setopt(c, CURLOPT_POST, 1L);
	curl_easy_setopt(c, CURLOPT_POSTFIELDS, x->body);
	curl_easy_setopt(c, CURLOPT_POSTFIELDSIZE_LARGE, (curl_off_t)x->body_len);
	curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, on_data);
	curl_easy_setopt(c, CURLOPT_WRITEDATA, x);
	curl_easy_setopt(c, CURLOPT_ERRORBUFFER, x->errbuf);
	curl_easy_setopt(c, CURLOPT_PRIVATE, x);
	/*
	 * CURLOPT_NOSIGNAL stays 0: then libcurl ignores SIGPIPE while it writes
	 * (a server that hangs up must not kill us), and with its threaded
	 * resolver it needs no alarm() for name lookups.
	 */
	curl_easy_setopt(c, CURLOPT_CONNECTTIMEOUT, connect_s);
	curl_easy_setopt(c, CURLOPT_TIMEOUT, total_s);
	/* A redirect could carry the key's header to another host: never follow. */
	curl_easy_setopt(c, CURLOPT_FOLLOWLOCATION, 0L);
	curl_easy_setopt(c, CURLOPT_PROTOCOLS_STR, "http,https");
	curl_easy_setopt(c, CURLOPT_USERAGENT, "mecha");
}

struct http_exchange *http_post_new(const char *url, char *body, size_t len, long connect_timeout_s,
				    long timeout_s)
{
	struct http_exchange *x = xcalloc(1, sizeof *x);

	x->easy = curl_easy_init();
	if (!x->easy)
		abort();
	x->url = xstrdup(url);
	x->method = "POST";
	x->body = body;
	x->body_len = len;
	easy_setup(x, connect_timeout_s, timeout_s);
	/* curl would wait for a "100 Continue" before sending a large body. */
	http_header(x, "Expect:");
	return x;
}

struct http_exchange *http_get_new(const char *url, long connect_timeout_s, long timeout_s)
{
	struct http_exchange *x = http_post_new(url, NULL, 0, connect_timeout_s, timeout_s);

	x->method = "GET";
	curl_easy_setopt(x->easy, CURLOPT_HTTPGET, 1L);
	return x;
}

void http_header(struct http_exchange *x, const char *line)
{
	struct curl_slist *l = curl_slist_append(x->headers, line);

	if (!l)
		abort();
	x->headers = l;
	curl_easy_setopt(x->easy, CURLOPT_HTTPHEADER, x->headers);
}

void http_set_tag(struct http_exchange *x, void *tag)
{
	x->tag = tag;
}

void *http_tag(const struct http_exchange *x)
{
	return x->tag;
}

const struct buf *http_reply(const struct http_exchange *x)
{
	return &x->reply;
}

long http_status(const struct http_exchange *x)
{
	return x->status;
}

/* The URL as a message may show it: user:password@ in it is replaced. */
static void shown_url(struct buf *out, const char *url)
{
	const char *scheme = strstr(url, "://");
	const char *host = scheme ? scheme + 3 : url;
	size_t hostlen = strcspn(host, "/?#");
	const char *at = memchr(host, '@', hostlen);

	if (!at) {
		text_safe(out, url, strlen(url), 0);
		return;
	}
	text_safe(out, url, (size_t)(host - url), 0);
	buf_adds(out, "***@");
	text_safe(out, at + 1, strlen(at + 1), 0);
}

/* The first bytes of a body, on one line, safe for a terminal. */
static void body_quote(struct buf *out, const struct buf *body)
{
	size_t n = text_utf8_clip(buf_str(body), body->len, BODY_QUOTE);

	if (body->len == 0) {
		buf_adds(out, "(empty body)");
		return;
	}
	text_safe(out, buf_str(body), n, 0);
	if (n < body->len)
		buf_adds(out, "…");
}

void http_where(const struct http_exchange *x, const char *who, struct buf *out)
{
	buf_printf(out, "%s: %s ", who, x->method);
	shown_url(out, x->url);
}

int http_outcome(const struct http_exchange *x, const char *who, struct err *e)
{
	struct buf where = BUF_INIT, what = BUF_INIT;
	enum err_code code = ERR_NONE;
	int rc = 0;

	http_where(x, who, &where);
	if (!x->done) {
		code = ERR_PROVIDER_TRANSPORT;
		buf_adds(&what, "the request never completed");
	} else if (x->too_big) {
		code = ERR_PROVIDER_TRANSPORT;
		buf_printf(&what, "the reply is larger than %u MiB", HTTP_REPLY_MAX >> 20);
	} else if (x->result == CURLE_OPERATION_TIMEDOUT) {
		code = ERR_PROVIDER_TIMEOUT;
		buf_printf(&what, "timed out (%s)", x->errbuf[0] ? x->errbuf : "no answer in time");
	} else if (x->result != CURLE_OK) {
		code = ERR_PROVIDER_TRANSPORT;
		buf_adds(&what, curl_easy_strerror(x->result));
		if (x->errbuf[0])
			buf_printf(&what, " (%s)", x->errbuf);
	} else if (x->status < 200 || x->status > 299) {
		code = ERR_PROVIDER_HTTP;
		buf_printf(&what, "HTTP %ld: ", x->status);
		body_quote(&what, &x->reply);
	}
	if (code != ERR_NONE)
		rc = err_set(e, code, "%s: %s", buf_str(&where), buf_str(&what));
	buf_free(&where);
	buf_free(&what);
	return rc;
}

/* Header lines may hold a key: overwrite them before they go back to malloc. */
static void wipe_headers(struct curl_slist *l)
{
	for (; l; l = l->next)
		explicit_bzero(l->data, strlen(l->data));
}

void http_exchange_free(struct http_exchange *x)
{
	if (!x)
		return;
	curl_easy_cleanup(x->easy);
	wipe_headers(x->headers);
	curl_slist_free_all(x->headers);
	free(x->url);
	free(x->body);
	buf_free(&x->reply);
	free(x);
}

struct http_multi *http_multi_new(void)
{
	struct http_multi *m = xcalloc(1, sizeof *m);

	m->multi = curl_multi_init();
	if (!m->multi)
		abort();
	return m;
}

int http_multi_add(struct http_multi *m, struct http_exchange *x, struct err *e)
{
	CURLMcode rc = curl_multi_add_handle(m->multi, x->easy);

	if (rc != CURLM_OK)
		return err_set(e, ERR_PROVIDER_TRANSPORT, "%s %s: %s", x->method, x->url,
				curl_multi_strerror(rc));
	if (m->in_flight == m->cap) {
		m->cap = m->cap ? 2 * m->cap : 8;
		/* NOLINTNEXTLINE(bugprone-sizeof-expression): an array of pointers */
		m->live = xrealloc(m->live, m->cap * sizeof *m->live);
	}
	m->live[m->in_flight++] = x;
	return 0;
}

static void forget(struct http_multi *m, struct http_exchange *x)
{
	for (size_t i = 0; i < m->in_flight; i++)
		if (m->live[i] == x) {
			m->live[i] = m->live[--m->in_flight];
			return;
		}
}

/* The next finished transfer, detached from the multi; NULL when none is ready. */
static struct http_exchange *take_finished(struct http_multi *m)
{
	struct CURLMsg *msg;
	int left;
	struct http_exchange *x = NULL;

	while ((msg = curl_multi_info_read(m->multi, &left)) != NULL) {
		if (msg->msg != CURLMSG_DONE)
			continue;
		curl_easy_getinfo(msg->easy_handle, CURLINFO_PRIVATE, (char **)&x);
		x->result = msg->data.result;
		x->done = 1;
		curl_easy_getinfo(x->easy, CURLINFO_RESPONSE_CODE, &x->status);
		curl_multi_remove_handle(m->multi, x->easy);
		forget(m, x);
		return x;
	}
	return NULL;
}

struct http_exchange *http_multi_wait(struct http_multi *m, struct err *e)
{
	err_clear(e);
	for (;;) {
		struct http_exchange *x = take_finished(m);
		CURLMcode rc;
		int running;

		if (x)
			return x;
		if (m->in_flight == 0)
			return NULL;
		rc = curl_multi_perform(m->multi, &running);
		if (rc == CURLM_OK && (x = take_finished(m)) != NULL)
			return x;
		if (rc == CURLM_OK && running > 0)
			rc = curl_multi_poll(m->multi, NULL, 0, 1000, NULL);
		if (rc != CURLM_OK) {
			err_set(e, ERR_PROVIDER_TRANSPORT, "libcurl: %s", curl_multi_strerror(rc));
			return NULL;
		}
	}
}

struct http_exchange *http_multi_drop(struct http_multi *m)
{
	struct http_exchange *x;

	if (m->in_flight == 0)
		return NULL;
	x = m->live[m->in_flight - 1];
	curl_multi_remove_handle(m->multi, x->easy);
	forget(m, x);
	return x;
}

size_t http_multi_in_flight(const struct http_multi *m)
{
	return m->in_flight;
}

void http_multi_free(struct http_multi *m)
{
	if (!m)
		return;
	/* Whatever is still attached is ours to free. */
	for (size_t i = 0; i < m->in_flight; i++) {
		curl_multi_remove_handle(m->multi, m->live[i]->easy);
		http_exchange_free(m->live[i]);
	}
	free(m->live);
	curl_multi_cleanup(m->multi);
	free(m);
}
