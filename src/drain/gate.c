/*
 * gate — the box's address and keys, read and checked, and one libcurl easy
 * handle per exchange (a drain makes a handful; nothing here needs a multi).
 */
#include "drain/gate.h"

#include "base/buf.h"
#include "base/dl.h"
#include "base/err.h"
#include "base/fs.h"
#include "base/text.h"
#include "base/toml.h"
#include "config/home.h"

#include <curl/curl.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#define KEY_MAX 4096      /* a key file longer than this holds no key of ours */
#define CONNECT_TIMEOUT_S 15
#define QUOTE_MAX 300     /* how much of an error body a message quotes */

/* ---- the URL -------------------------------------------------------------------- */

static int octet(const char **p)
{
	int n = 0, digits = 0;

	while (**p >= '0' && **p <= '9' && digits < 3) {
		n = n * 10 + (**p - '0');
		(*p)++;
		digits++;
	}
	return digits > 0 && n <= 255 ? n : -1;
}

/* 127.0.0.0/8 written as four decimal octets, or [::1]: this machine, by address. */
static int loopback_host(const char *host, size_t len)
{
	char h[64];
	const char *p = h;

	if (len >= sizeof h)
		return 0;
	memcpy(h, host, len);
	h[len] = '\0';
	if (strcmp(h, "[::1]") == 0)
		return 1;
	if (octet(&p) != 127)
		return 0;
	for (int i = 0; i < 3; i++)
		if (*p++ != '.' || octet(&p) < 0)
			return 0;
	return *p == '\0';
}

/* The host of an authority ("host:port", "[v6]:port") and a port that is a port. */
static int split_authority(const char *a, size_t len, size_t *hostlen)
{
	const char *colon;
	long port = 0;

	if (len > 0 && a[0] == '[') {
		const char *close = memchr(a, ']', len);
		if (!close)
			return -1;
		*hostlen = (size_t)(close - a) + 1;
	} else {
		colon = memchr(a, ':', len);
		*hostlen = colon ? (size_t)(colon - a) : len;
	}
	if (*hostlen == 0)
		return -1;
	if (*hostlen == len)
		return 0;
	if (a[*hostlen] != ':' || *hostlen + 1 == len || len - *hostlen > 6)
		return -1;
	for (size_t i = *hostlen + 1; i < len; i++) {
		if (a[i] < '0' || a[i] > '9')
			return -1;
		port = port * 10 + (a[i] - '0');
	}
	return port >= 1 && port <= 65535 ? 0 : -1;
}

int gate_url_check(const char *url, int *https, struct err *e)
{
	size_t skip, alen, hostlen;
	const char *a;

	for (const char *c = url; *c; c++)
		if ((unsigned char)*c <= 0x20 || *c == 0x7f)
			return err_set(e, ERR_CONFIG, "gate `%s` is not a URL (it holds a space or a "
				       "control character)", url);
	*https = strncasecmp(url, "https://", 8) == 0;
	if (!*https && strncasecmp(url, "http://", 7) != 0)
		return err_set(e, ERR_CONFIG, "gate `%s` is not an https:// URL (the box is spoken "
			       "to over https, or over http on this machine's loopback)", url);
	skip = *https ? 8 : 7;
	a = url + skip;
	alen = strcspn(a, "/?#");
	if (memchr(a, '@', alen))
		return err_set(e, ERR_CONFIG, "gate `%s` carries a user or a password: the key goes "
			       "in its own file", url);
	if (strpbrk(a + alen, "?#"))
		return err_set(e, ERR_CONFIG, "gate `%s` has a query or a fragment; a gate is a "
			       "scheme, a host and at most a path", url);
	if (split_authority(a, alen, &hostlen) != 0)
		return err_set(e, ERR_CONFIG, "gate `%s` has no host, or a port that is not one", url);
	if (!*https && !loopback_host(a, hostlen))
		return err_set(e, ERR_INSECURE, "gate `%s` is plain http to another machine: the key "
			       "would cross the network readable by anyone on the way; use https:// "
			       "(http:// only to 127.0.0.1 or [::1])", url);
	return 0;
}

/* ---- where the gate and the keys are -------------------------------------------------- */

static char *factory_path(const char *name, struct err *e)
{
	char *dir = home_default(HOME_FACTORY, e), *p;

	if (!dir)
		return NULL;
	p = fs_join(dir, name);
	free(dir);
	return p;
}

/* The one key of the gate's file, strictly: anything else is a mistake named with its line. */
static char *gate_of(const struct toml_value *doc, const char *path, struct err *e)
{
	const struct toml_value *v = toml_get(doc, "gate");

	for (size_t i = 0; i < doc->u.table.n; i++)
		if (strcmp(doc->u.table.items[i].key, "gate") != 0) {
			err_set(e, ERR_CONFIG, "%s:%d: unknown key `%s` (this file takes only gate)",
				path, doc->u.table.items[i].value->line, doc->u.table.items[i].key);
			return NULL;
		}
	if (!v)
		err_set(e, ERR_CONFIG, "%s: no gate = \"https://…\" in it", path);
	else if (v->type != TOML_STRING || memchr(v->u.str.ptr, '\0', v->u.str.len))
		err_set(e, ERR_CONFIG, "%s:%d: gate is %s, not a URL", path, v->line,
			toml_type_name(v->type));
	else
		return xstrdup(v->u.str.ptr);
	return NULL;
}

static char *gate_from_file(const char *path, struct err *e)
{
	struct toml_value *doc;
	char *text, *url;
	size_t len;

	if (fs_read(path, &text, &len, e) != 0) {
		if (e->code == ERR_NOT_FOUND)
			err_set(e, ERR_CONFIG, "no gate: write gate = \"https://…\" (your box's address) "
				"in %s, or set FACTORY_GATE", path);
		return NULL;
	}
	doc = toml_parse(text, len, path, e);
	free(text);
	if (!doc) {
		e->code = ERR_CONFIG;
		return NULL;
	}
	url = gate_of(doc, path, e);
	toml_free(doc);
	return url;
}

static char *gate_url(struct err *e)
{
	const char *env = getenv("FACTORY_GATE");
	char *path, *url;

	if (env && *env)
		return xstrdup(env);
	if (!(path = factory_path("config.toml", e)))
		return NULL;
	url = gate_from_file(path, e);
	free(path);
	return url;
}

char *gate_address(struct err *e)
{
	char *url = gate_url(e);
	size_t n;
	int https;

	if (!url || gate_url_check(url, &https, e) != 0) {
		free(url);
		return NULL;
	}
	n = strlen(url);
	while (n > 0 && url[n - 1] == '/')
		url[--n] = '\0';
	return url;
}

static const struct {
	const char *file, *env, *scope;
} keys[] = {
	[GATE_DRAIN] = { "drain.key", "FACTORY_DRAIN_KEY", "drain" },
	[GATE_SLOTS] = { "slots.key", "FACTORY_SLOTS_KEY", "slots" },
	[GATE_RELEASE] = { "release.key", "FACTORY_RELEASE_KEY", "release" },
	[GATE_PUBLISH] = { "publish.key", "FACTORY_PUBLISH_KEY", "publish" },
};

/* The key file is the owner's alone, or it is not used. */
static int key_file_private(const char *path, const struct stat *st, struct err *e)
{
	if (!S_ISREG(st->st_mode))
		return err_set(e, ERR_CONFIG, "%s is not a file", path);
	if (st->st_uid != geteuid())
		return err_set(e, ERR_INSECURE, "%s belongs to another user (uid %u): a key file is "
			       "its owner's alone", path, (unsigned)st->st_uid);
	if (st->st_mode & 077)
		return err_set(e, ERR_INSECURE, "%s can be read by others (mode %04o): chmod 600 %s",
			       path, (unsigned)(st->st_mode & 07777), path);
	return 0;
}

/* One line of printable ASCII: it goes into a header, where a newline would be a new one. */
static char *key_text(char *data, size_t len, const char *path, struct err *e)
{
	while (len > 0 && (data[len - 1] == '\n' || data[len - 1] == '\r' || data[len - 1] == ' '))
		len--;
	for (size_t i = 0; i < len; i++)
		if ((unsigned char)data[i] <= 0x20 || (unsigned char)data[i] >= 0x7f) {
			err_set(e, ERR_CONFIG, "%s does not hold a key (one line, the key as the box "
				"printed it)", path);
			return NULL;
		}
	if (len == 0) {
		err_set(e, ERR_CONFIG, "%s is empty", path);
		return NULL;
	}
	return xstrndup(data, len);
}

static char *read_key(const char *path, struct err *e)
{
	char data[KEY_MAX + 1], *key = NULL;
	struct stat st;
	ssize_t n;
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY);

	if (fd < 0) {
		if (errno == ENOENT)
			err_set(e, ERR_NOT_FOUND, "no key at %s", path);
		else
			err_errno(e, "opening %s", path);
		return NULL;
	}
	if (fstat(fd, &st) != 0)
		err_errno(e, "reading %s", path);
	else if (key_file_private(path, &st, e) == 0) {
		n = read(fd, data, sizeof data);
		if (n < 0)
			err_errno(e, "reading %s", path);
		else if (n > KEY_MAX)
			err_set(e, ERR_CONFIG, "%s is too long to hold a key", path);
		else
			key = key_text(data, (size_t)n, path, e);
	}
	explicit_bzero(data, sizeof data);
	close(fd);
	return key;
}

static char *key_path(enum gate_key which, struct err *e)
{
	const char *env = getenv(keys[which].env);

	return env && *env ? xstrdup(env) : factory_path(keys[which].file, e);
}

int gate_open(enum gate_key which, struct gate *g, struct err *e)
{
	size_t n;

	memset(g, 0, sizeof *g);
	if (!(g->url = gate_url(e)) || gate_url_check(g->url, &g->https, e) != 0 ||
	    !(g->key_path = key_path(which, e)))
		goto fail;
	if (!(g->key = read_key(g->key_path, e))) {
		if (e->code == ERR_NOT_FOUND)
			err_set(e, ERR_NOT_FOUND, "no %s key at %s: put the %s key `mecha box owner "
				"add` printed there, alone on a line, mode 0600 (or name its file "
				"in %s)", keys[which].scope, g->key_path, keys[which].scope,
				keys[which].env);
		goto fail;
	}
	n = strlen(g->url);
	while (n > 0 && g->url[n - 1] == '/')
		g->url[--n] = '\0';
	if (dl_require(DL_CURL, e) != 0)
		goto fail;
	return 0;
fail:
	gate_close(g);
	return -1;
}

int gate_at(const char *url, const char *key, struct gate *g, struct err *e)
{
	size_t n;

	memset(g, 0, sizeof *g);
	if (gate_url_check(url, &g->https, e) != 0 || dl_require(DL_CURL, e) != 0)
		return -1;
	g->url = xstrdup(url);
	n = strlen(g->url);
	while (n > 0 && g->url[n - 1] == '/')
		g->url[--n] = '\0';
	g->key = key ? xstrdup(key) : NULL;
	g->key_path = xstrdup(key ? "(given)" : "(none)");
	return 0;
}

void gate_close(struct gate *g)
{
	if (g->easy)
		curl_easy_cleanup(g->easy);
	if (g->key)
		explicit_bzero(g->key, strlen(g->key));
	free(g->key);
	free(g->url);
	free(g->key_path);
	memset(g, 0, sizeof *g);
}

/* ---- one exchange ----------------------------------------------------------------------- */

struct exchange {
	struct gate_reply *out;
	size_t max;
	volatile sig_atomic_t *stop;
};

static size_t on_data(char *data, size_t size, size_t n, void *arg)
{
	struct exchange *x = arg;
	size_t len = size * n;

	if (x->out->body.len + len > x->max) {
		x->out->over = 1;
		return 0; /* libcurl stops with CURLE_WRITE_ERROR; nothing past max is read */
	}
	buf_add(&x->out->body, data, len);
	return len;
}

static int on_progress(void *arg, curl_off_t dt, curl_off_t dn, curl_off_t ut, curl_off_t un)
{
	struct exchange *x = arg;

	(void)dt, (void)dn, (void)ut, (void)un;
	return x->stop && *x->stop;
}

static struct curl_slist *headers(const struct gate *g, const struct gate_request *rq)
{
	struct curl_slist *h = NULL;
	char *auth, *ct = NULL;

	if (g->key) { /* no key: a call before the home holds one (pairing) */
		auth = xasprintf("Authorization: Bearer %s", g->key);
		h = curl_slist_append(h, auth);
		explicit_bzero(auth, strlen(auth));
		free(auth);
	}
	h = curl_slist_append(h, "Expect:"); /* no wait for "100 Continue" before a body */
	if (rq->content_type) {
		ct = xasprintf("Content-Type: %s", rq->content_type);
		h = curl_slist_append(h, ct);
		free(ct);
	}
	if (!h)
		abort();
	return h;
}

static void setup(CURL *c, const struct gate *g, const struct gate_request *rq, const char *url,
		  struct exchange *x, char *errbuf)
{
	curl_easy_setopt(c, CURLOPT_URL, url);
	curl_easy_setopt(c, CURLOPT_PROTOCOLS_STR, g->https ? "https" : "http");
	curl_easy_setopt(c, CURLOPT_FOLLOWLOCATION, 0L);
	if (!g->https)
		curl_easy_setopt(c, CURLOPT_PROXY, ""); /* loopback: never through a proxy */
	curl_easy_setopt(c, CURLOPT_CONNECTTIMEOUT, (long)CONNECT_TIMEOUT_S);
	curl_easy_setopt(c, CURLOPT_TIMEOUT, rq->timeout_s);
	curl_easy_setopt(c, CURLOPT_USERAGENT, "mecha");
	curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, on_data);
	curl_easy_setopt(c, CURLOPT_WRITEDATA, x);
	curl_easy_setopt(c, CURLOPT_ERRORBUFFER, errbuf);
	if (rq->stoppable && g->stop) {
		curl_easy_setopt(c, CURLOPT_XFERINFOFUNCTION, on_progress);
		curl_easy_setopt(c, CURLOPT_XFERINFODATA, x);
		curl_easy_setopt(c, CURLOPT_NOPROGRESS, 0L);
	}
	if (strcmp(rq->method, "GET") != 0) {
		curl_easy_setopt(c, CURLOPT_POST, 1L);
		curl_easy_setopt(c, CURLOPT_POSTFIELDS, rq->body ? rq->body : "");
		curl_easy_setopt(c, CURLOPT_POSTFIELDSIZE_LARGE, (curl_off_t)rq->len);
		if (strcmp(rq->method, "POST") != 0)
			curl_easy_setopt(c, CURLOPT_CUSTOMREQUEST, rq->method);
	}
}

/* What the box said when it refused: its {"error"} when it is one, else the body's start. */
static void said(struct buf *out, const struct gate_reply *r)
{
	json_t *o = json_loadb(r->body.data ? r->body.data : "", r->body.len, 0, NULL);
	const char *msg = json_string_value(json_object_get(o, "error"));
	size_t n = msg ? strlen(msg) : text_utf8_clip(buf_str(&r->body), r->body.len, QUOTE_MAX);

	if (r->body.len == 0)
		buf_adds(out, "(empty answer)");
	else
		text_safe(out, msg ? msg : buf_str(&r->body), n, 0);
	json_decref(o);
}

static int outcome(const struct gate_request *rq, const char *url, CURLcode rc, const char *errbuf, const struct gate_reply *r, struct err *e)
{
	struct buf what = BUF_INIT;
	int fail = 1;

	if (r->over)
		buf_printf(&what, "the answer is longer than the %zu bytes expected", rq->max);
	else if (rc == CURLE_ABORTED_BY_CALLBACK)
		buf_adds(&what, "stopped");
	else if (rc != CURLE_OK)
		buf_printf(&what, "%s%s%s%s", curl_easy_strerror(rc), errbuf[0] ? " (" : "", errbuf,
			   errbuf[0] ? ")" : "");
	else if (r->status < 200 || r->status > 299) {
		buf_printf(&what, "HTTP %ld: ", r->status);
		said(&what, r);
	} else
		fail = 0;
	if (fail)
		err_set(e, ERR_GATE, "gate: %s %s: %s", rq->method, url, buf_str(&what));
	buf_free(&what);
	return fail ? -1 : 0;
}

int gate_call(struct gate *g, const struct gate_request *rq, struct gate_reply *out,
	      struct err *e)
{
	char errbuf[CURL_ERROR_SIZE] = "", *url = xasprintf("%s%s", g->url, rq->path);
	struct exchange x = { out, rq->max, g->stop };
	struct curl_slist *h;
	CURLcode rc;
	CURL *c;
	int result;

	buf_reset(&out->body);
	out->status = 0;
	out->over = 0;
	if (!g->easy && !(g->easy = curl_easy_init()))
		abort();
	c = g->easy;
	h = headers(g, rq);
	setup(c, g, rq, url, &x, errbuf);
	curl_easy_setopt(c, CURLOPT_HTTPHEADER, h);
	rc = curl_easy_perform(c);
	curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &out->status);
	result = outcome(rq, url, rc, errbuf, out, e);
	curl_easy_reset(c); /* every option off (the headers, errbuf); the connection stays */
	for (struct curl_slist *l = h; l; l = l->next) /* the key was in one of them */
		explicit_bzero(l->data, strlen(l->data));
	curl_slist_free_all(h);
	free(url);
	return result;
}

void gate_reply_free(struct gate_reply *r)
{
	buf_free(&r->body);
	r->status = 0;
	r->over = 0;
}

json_t *gate_json(const struct gate *g, const struct gate_request *rq,
		  const struct gate_reply *r, struct err *e)
{
	json_error_t jerr;
	json_t *o = json_loadb(r->body.data ? r->body.data : "", r->body.len,
			       JSON_REJECT_DUPLICATES, &jerr);

	if (json_is_object(o))
		return o;
	json_decref(o);
	err_set(e, ERR_GATE, "gate: %s %s%s: the answer is not a JSON object (%s)", rq->method,
		g->url, rq->path, o ? "another JSON value" : jerr.text);
	return NULL;
}
