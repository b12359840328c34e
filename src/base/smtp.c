/*
 * smtp — the generic half of sending mail: checked addresses, RFC 5322
 * headers nothing can smuggle a line into, a quoted-printable body no
 * transport can misread, and SMTP through libcurl. Shared by the outbox's
 * mail sink (src/outbox/mail.c) and the box's verification mail
 * (src/box/mailer.c), so both send by the same rules.
 */
#include "base/smtp.h"

#include "base/addr.h"

#include "base/buf.h"
#include "base/dl.h"
#include "base/err.h"
#include "base/text.h"

#include <curl/curl.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* Longest header line an encoded word may make (RFC 2047 §2: 76). */
#define WORD_BYTES 39 /* raw bytes per encoded word: "Subject: " + 12 + 52 ≤ 76 */
#define QP_LINE 76

/* ---- headers ---------------------------------------------------------------- */

void smtp_base64(struct buf *b, const unsigned char *s, size_t n)
{
	static const char t[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

	for (size_t i = 0; i < n; i += 3) {
		unsigned v = (unsigned)s[i] << 16;
		if (i + 1 < n)
			v |= (unsigned)s[i + 1] << 8;
		if (i + 2 < n)
			v |= s[i + 2];
		buf_addc(b, t[(v >> 18) & 63]);
		buf_addc(b, t[(v >> 12) & 63]);
		buf_addc(b, i + 1 < n ? t[(v >> 6) & 63] : '=');
		buf_addc(b, i + 2 < n ? t[v & 63] : '=');
	}
}

/* RFC 2047 B-encoded words, folded; chunks never split a UTF-8 sequence. */
static void encoded_words(struct buf *b, const char *s, size_t n)
{
	int first = 1;

	while (n > 0 || first) {
		size_t take = text_utf8_clip(s, n, WORD_BYTES);
		if (take == 0 && n > 0)
			take = n < WORD_BYTES ? n : WORD_BYTES; /* invalid bytes: never loop */
		if (!first)
			buf_adds(b, "\r\n ");
		buf_adds(b, "=?UTF-8?B?");
		smtp_base64(b, (const unsigned char *)s, take);
		buf_adds(b, "?=");
		s += take;
		n -= take;
		first = 0;
	}
}

/* Plain printable ASCII that cannot be mistaken for an encoded word. */
static int plain_ascii(const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if ((unsigned char)s[i] < 0x20 || (unsigned char)s[i] > 0x7e)
			return 0;
	return !memmem(s, n, "=?", 2);
}

static int atext_phrase(const char *s)
{
	for (; *s; s++)
		if (!(addr_local_char(*s) && *s != '.') && *s != ' ')
			return 0;
	return 1;
}

static void format_addr(struct buf *b, const struct addr *a)
{
	const char *d = a->display;

	if (!d) {
		buf_adds(b, a->spec);
		return;
	}
	/* A long name is encoded too: encoded words fold, so no header line grows unbounded. */
	if (!plain_ascii(d, strlen(d)) || strlen(d) > 60) {
		encoded_words(b, d, strlen(d));
	} else if (atext_phrase(d)) {
		buf_adds(b, d);
	} else {
		buf_addc(b, '"');
		for (; *d; d++) {
			if (*d == '"' || *d == '\\')
				buf_addc(b, '\\');
			buf_addc(b, *d);
		}
		buf_addc(b, '"');
	}
	buf_printf(b, " <%s>", a->spec);
}

/* "Name: a, b" folded so that no address is split and lines stay short. */
void smtp_header_addrs(struct buf *b, const char *name, const struct addr *list, size_t n)
{
	size_t line = strlen(name) + 1;

	buf_printf(b, "%s:", name);
	for (size_t i = 0; i < n; i++) {
		struct buf one = BUF_INIT;
		format_addr(&one, &list[i]);
		if (i)
			buf_addc(b, ',');
		if (i && line + one.len + 2 > 78) {
			buf_adds(b, "\r\n");
			line = 0;
		}
		buf_addc(b, ' ');
		buf_add(b, one.data, one.len);
		line += one.len + 2;
		buf_free(&one);
	}
	buf_adds(b, "\r\n");
}

void smtp_header_subject(struct buf *b, const char *s, size_t n)
{
	buf_adds(b, "Subject: ");
	if (plain_ascii(s, n) && n < 900)
		buf_add(b, s, n);
	else
		encoded_words(b, s, n);
	buf_adds(b, "\r\n");
}

void smtp_header_date(struct buf *b, time_t t)
{
	static const char *const days[] = { "Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat" };
	static const char *const months[] = { "Jan", "Feb", "Mar", "Apr", "May", "Jun",
					      "Jul", "Aug", "Sep", "Oct", "Nov", "Dec" };
	struct tm tm;

	gmtime_r(&t, &tm);
	buf_printf(b, "Date: %s, %02d %s %04d %02d:%02d:%02d +0000\r\n", days[tm.tm_wday],
		   tm.tm_mday, months[tm.tm_mon], tm.tm_year + 1900, tm.tm_hour, tm.tm_min,
		   tm.tm_sec);
}

/* ---- body ------------------------------------------------------------------- */

struct qp {
	struct buf *b;
	size_t col;
};

static void qp_token(struct qp *q, const char *tok, size_t n)
{
	if (q->col + n > QP_LINE - 1) {
		buf_adds(q->b, "=\r\n");
		q->col = 0;
	}
	buf_add(q->b, tok, n);
	q->col += n;
}

static void qp_escaped(struct qp *q, unsigned char c)
{
	char t[4];

	snprintf(t, sizeof t, "=%02X", c);
	qp_token(q, t, 3);
}

/* Whether s[i] sits at the start of an output line once a token lands there. */
static int line_start(const struct qp *q, size_t tok)
{
	return q->col == 0 || q->col + tok > QP_LINE - 1;
}

/* Quoted-printable with CRLF line ends; "\n" and "\r\n" in the text are line breaks. */
void smtp_qp_body(struct buf *b, const char *s, size_t n)
{
	struct qp q = { b, 0 };

	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)s[i];
		int eol_next = i + 1 == n || s[i + 1] == '\n' ||
			       (s[i + 1] == '\r' && i + 2 < n && s[i + 2] == '\n');
		if (c == '\r' && i + 1 < n && s[i + 1] == '\n')
			continue;
		if (c == '\n') {
			buf_adds(b, "\r\n");
			q.col = 0;
			continue;
		}
		if ((c == ' ' || c == '\t') && eol_next) {
			qp_escaped(&q, c);
		} else if (c == '.' && line_start(&q, 1)) {
			qp_escaped(&q, c); /* a lone "." would end an SMTP DATA section */
		} else if (c == 'F' && line_start(&q, 1) && n - i >= 5 &&
			   memcmp(s + i, "From ", 5) == 0) {
			qp_escaped(&q, c); /* mbox readers would split the message there */
		} else if ((c >= 33 && c <= 126 && c != '=') || c == ' ' || c == '\t') {
			char t = (char)c;
			qp_token(&q, &t, 1);
		} else {
			qp_escaped(&q, c);
		}
	}
	if (n == 0 || s[n - 1] != '\n')
		buf_adds(b, "\r\n"); /* the message ends with a line break either way */
}

/* ---- SMTP through libcurl ----------------------------------------------------- */

struct upload {
	const char *p;
	size_t left;
};

static size_t feed(char *dst, size_t size, size_t nmemb, void *ud)
{
	struct upload *u = ud;
	size_t n = size * nmemb < u->left ? size * nmemb : u->left;

	memcpy(dst, u->p, n);
	u->p += n;
	u->left -= n;
	return n;
}

/* host:port of the URL for messages (never the userinfo), and whether it is loopback. */
static char *smtp_where(const char *url, int *loopback)
{
	CURLU *u = curl_url();
	char *host = NULL, *port = NULL, *out;

	*loopback = 0;
	if (u && curl_url_set(u, CURLUPART_URL, url, 0) == CURLUE_OK &&
	    curl_url_get(u, CURLUPART_HOST, &host, 0) == CURLUE_OK) {
		curl_url_get(u, CURLUPART_PORT, &port, CURLU_DEFAULT_PORT);
		*loopback = strcmp(host, "localhost") == 0 || strncmp(host, "127.", 4) == 0 ||
			    strcmp(host, "[::1]") == 0;
		out = xasprintf("%s:%s", host, port ? port : "?");
	} else {
		out = xstrdup("the SMTP server");
	}
	curl_free(host);
	curl_free(port);
	curl_url_cleanup(u);
	return out;
}

static int smtp_scheme_ok(const char *url)
{
	return strncasecmp(url, "smtp://", 7) == 0 || strncasecmp(url, "smtps://", 8) == 0;
}

/* The password from the variable [mail] password_env names; NULL when no login. */
static int smtp_password(const struct smtp_route *r, const char **pw, struct err *e)
{
	*pw = NULL;
	if (!r->password_env || !*r->password_env)
		return 0;
	*pw = getenv(r->password_env);
	if (!*pw || !**pw)
		return err_set(e, ERR_NO_ROUTE, "[mail] password_env names %s, which is not set",
				r->password_env);
	return 0;
}

static struct curl_slist *envelope(char *const *rcpt, size_t n)
{
	struct curl_slist *list = NULL;

	for (size_t i = 0; i < n; i++) {
		char *r = xasprintf("<%s>", rcpt[i]);
		list = curl_slist_append(list, r);
		free(r);
	}
	return list;
}

/* One connection's setup, shared by a send and a probe. */
struct smtp_conn {
	CURL *h;
	char *where; /* host:port, for messages */
	char *login; /* NULL: no login */
	int loopback;
	char errbuf[CURL_ERROR_SIZE];
};

/*
 * The login name: [mail] username, else the bare address of from — never its
 * display name ("Me <me@example.org>" logs in as me@example.org), as the
 * configuration's documentation says.
 */
static int smtp_login(const struct smtp_route *r, char **login, struct err *e)
{
	struct addr from;

	*login = NULL;
	if (r->username && *r->username) {
		*login = xstrdup(r->username);
		return 0;
	}
	if (addr_parse(r->from ? r->from : "", r->from ? strlen(r->from) : 0, "[mail] from", &from,
		       e) != 0) {
		err_prefix(e, "the SMTP login is the address in [mail] from when username is unset");
		return -1;
	}
	*login = from.spec;
	from.spec = NULL;
	addr_free(&from);
	return 0;
}

static void smtp_options(struct smtp_conn *c, const struct smtp_route *r, const char *pw)
{
	curl_easy_setopt(c->h, CURLOPT_URL, r->url);
	curl_easy_setopt(c->h, CURLOPT_PROTOCOLS_STR, "smtp,smtps");
	curl_easy_setopt(c->h, CURLOPT_CONNECTTIMEOUT, 10L);
	curl_easy_setopt(c->h, CURLOPT_ERRORBUFFER, c->errbuf);
	/* Upgrade whenever the server offers STARTTLS; with a password, insist on it
	 * unless the server is this machine. */
	curl_easy_setopt(c->h, CURLOPT_USE_SSL,
			 pw && !c->loopback ? (long)CURLUSESSL_ALL : (long)CURLUSESSL_TRY);
	if (pw) {
		curl_easy_setopt(c->h, CURLOPT_USERNAME, c->login);
		curl_easy_setopt(c->h, CURLOPT_PASSWORD, pw);
	}
}

static void smtp_conn_close(struct smtp_conn *c)
{
	if (c->h)
		curl_easy_cleanup(c->h);
	free(c->where);
	free(c->login);
	memset(c, 0, sizeof *c);
}

/* Every check a route must pass before a byte goes out, then the handle set up. */
static int smtp_conn_open(struct smtp_conn *c, const struct smtp_route *r, struct err *e)
{
	const char *pw;

	memset(c, 0, sizeof *c);
	if (!r->url || !smtp_scheme_ok(r->url))
		return err_set(e, ERR_NO_ROUTE, "[mail] smtp_url must start with smtp:// or smtps://");
	if (smtp_password(r, &pw, e) != 0 || (pw && smtp_login(r, &c->login, e) != 0))
		return -1;
	if (dl_require(DL_CURL, e) != 0) {
		smtp_conn_close(c);
		return -1;
	}
	if (curl_global_init(CURL_GLOBAL_DEFAULT) != CURLE_OK || !(c->h = curl_easy_init())) {
		smtp_conn_close(c);
		return err_set(e, ERR_DELIVERY, "libcurl could not start");
	}
	c->where = smtp_where(r->url, &c->loopback);
	smtp_options(c, r, pw);
	return 0;
}

/* " (the server answered 535)", or "" when it said nothing. */
static void smtp_answered(CURL *h, long *code, char out[48])
{
	*code = 0;
	out[0] = '\0';
	curl_easy_getinfo(h, CURLINFO_RESPONSE_CODE, code);
	if (*code > 0)
		snprintf(out, 48, " (the server answered %ld)", *code);
}

/*
 * A server accepts a message only after its last byte, and says so. Every
 * byte handed over and no refusal heard (a timeout, a dropped connection
 * after the body): it may have arrived, and a retry could deliver it twice.
 */
static enum err_code smtp_outcome(const struct upload *up, long code)
{
	return up->left == 0 && code < 400 ? ERR_DELIVERY_UNCONFIRMED : ERR_DELIVERY;
}

int smtp_send(const struct smtp_route *r, const char *from_spec, char *const *rcpt,
	      size_t nrcpt, const char *text, size_t len, struct err *e)
{
	struct upload up = { text, len };
	struct smtp_conn c;
	struct curl_slist *list;
	char *from, said[48];
	int rc = 0;
	long code;
	CURLcode res;

	if (smtp_conn_open(&c, r, e) != 0)
		return -1;
	from = xasprintf("<%s>", from_spec);
	list = envelope(rcpt, nrcpt);
	curl_easy_setopt(c.h, CURLOPT_UPLOAD, 1L);
	curl_easy_setopt(c.h, CURLOPT_TIMEOUT, 120L);
	curl_easy_setopt(c.h, CURLOPT_MAIL_FROM, from);
	curl_easy_setopt(c.h, CURLOPT_MAIL_RCPT, list);
	curl_easy_setopt(c.h, CURLOPT_READFUNCTION, feed);
	curl_easy_setopt(c.h, CURLOPT_READDATA, &up);
	curl_easy_setopt(c.h, CURLOPT_INFILESIZE_LARGE, (curl_off_t)len);
	res = curl_easy_perform(c.h);
	if (res != CURLE_OK) {
		smtp_answered(c.h, &code, said);
		rc = err_set(e, smtp_outcome(&up, code), "SMTP to %s failed: %s%s", c.where,
			      c.errbuf[0] ? c.errbuf : curl_easy_strerror(res), said);
		if (e->code == ERR_DELIVERY_UNCONFIRMED)
			err_prefix(e, "the whole message went out but the server never confirmed it, "
				   "so it may have arrived");
	}
	curl_slist_free_all(list);
	free(from);
	smtp_conn_close(&c);
	return rc;
}

int smtp_probe(const struct smtp_route *r, char **said, struct err *e)
{
	struct smtp_conn c;
	char answered[48];
	int rc = 0;
	long code;
	CURLcode res;

	*said = NULL;
	if (smtp_conn_open(&c, r, e) != 0)
		return -1;
	curl_easy_setopt(c.h, CURLOPT_CONNECT_ONLY, 1L); /* greeting, EHLO, STARTTLS, AUTH: no more */
	curl_easy_setopt(c.h, CURLOPT_TIMEOUT, 30L);
	res = curl_easy_perform(c.h);
	smtp_answered(c.h, &code, answered);
	if (res != CURLE_OK)
		rc = err_set(e, ERR_DELIVERY, "SMTP to %s: %s%s", c.where,
			      c.errbuf[0] ? c.errbuf : curl_easy_strerror(res), answered);
	else if (c.login)
		*said = xasprintf("%s answered EHLO and accepted the login of %s", c.where, c.login);
	else
		*said = xasprintf("%s answered EHLO (no login configured)", c.where);
	smtp_conn_close(&c);
	return rc;
}
