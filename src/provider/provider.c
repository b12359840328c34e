/*
 * provider — requests and responses, the configuration check, and the batch
 * that keeps many calls on the wire. The two wire formats are a table here;
 * what each one sends and reads lives in openai.c and anthropic.c.
 */
#include "provider/provider.h"

#include "base/buf.h"
#include "base/dl.h"
#include "base/err.h"
#include "provider/anthropic.h"
#include "provider/http.h"
#include "provider/openai.h"
#include "provider/chat.h"

#include <stdlib.h>
#include <string.h>

struct kind {
	const char *name;
	const char *default_base;
	char *(*body)(const struct provider_conf *, const struct provider_request *, size_t *);
	int (*parse)(const char *, size_t, struct provider_response *, struct err *);
	const char *auth_prefix; /* the header the key travels in */
	const char *extra_header;
};

static const struct kind kinds[] = {
	{ "openai", "https://api.openai.com/v1", openai_request_body, openai_parse_response,
	  "Authorization: Bearer ", NULL },
	{ "anthropic", "https://api.anthropic.com", anthropic_request_body,
	  anthropic_parse_response, "x-api-key: ", "anthropic-version: " ANTHROPIC_VERSION },
};

static const struct kind *kind_of(const struct provider_conf *conf)
{
	for (size_t i = 0; i < sizeof kinds / sizeof kinds[0]; i++)
		if (conf->kind && strcmp(conf->kind, kinds[i].name) == 0)
			return &kinds[i];
	return NULL;
}

/* --- requests ------------------------------------------------------------ */

void provider_request_init(struct provider_request *r, long max_tokens)
{
	memset(r, 0, sizeof *r);
	r->max_tokens = max_tokens;
}

void provider_request_model(struct provider_request *r, const char *model)
{
	free(r->model);
	r->model = model ? xstrdup(model) : NULL;
}

void provider_request_system(struct provider_request *r, const char *text)
{
	free(r->system);
	r->system = text ? xstrdup(text) : NULL;
}

static struct provider_message *message_add(struct provider_request *r, enum provider_role role,
					    const char *text, size_t len)
{
	struct provider_message *m;

	r->messages = xrealloc(r->messages, (r->nmessages + 1) * sizeof *r->messages);
	m = &r->messages[r->nmessages++];
	memset(m, 0, sizeof *m);
	m->role = role;
	m->text = xmalloc(len + 1);
	if (len)
		memcpy(m->text, text, len);
	m->text[len] = '\0';
	m->text_len = len;
	return m;
}

void provider_request_user_n(struct provider_request *r, const char *text, size_t len)
{
	message_add(r, PROVIDER_USER, text, len);
}

void provider_request_user(struct provider_request *r, const char *text)
{
	message_add(r, PROVIDER_USER, text, strlen(text));
}

void provider_request_assistant(struct provider_request *r, const struct provider_response *resp)
{
	struct provider_message *m = message_add(r, PROVIDER_ASSISTANT, resp->text ? resp->text : "",
						 resp->text ? resp->text_len : 0);

	if (!resp->ncalls)
		return;
	m->calls = xcalloc(resp->ncalls, sizeof *m->calls);
	m->ncalls = resp->ncalls;
	for (size_t i = 0; i < resp->ncalls; i++)
		chat_call_copy(&m->calls[i], &resp->calls[i]);
}

void provider_request_tool_result(struct provider_request *r, const char *call_id,
				  const char *content, int is_error)
{
	struct provider_message *m = message_add(r, PROVIDER_TOOL_RESULT, content, strlen(content));

	m->call_id = xstrdup(call_id);
	m->is_error = is_error;
}

void provider_request_tool(struct provider_request *r, const char *name, const char *description,
			   json_t *parameters)
{
	struct provider_tool *t;

	r->tools = xrealloc(r->tools, (r->ntools + 1) * sizeof *r->tools);
	t = &r->tools[r->ntools++];
	t->name = xstrdup(name);
	t->description = xstrdup(description ? description : "");
	t->parameters = parameters ? json_incref(parameters) : json_object();
}

void provider_request_free(struct provider_request *r)
{
	for (size_t i = 0; i < r->nmessages; i++) {
		struct provider_message *m = &r->messages[i];

		for (size_t k = 0; k < m->ncalls; k++)
			chat_call_clear(&m->calls[k]);
		free(m->calls);
		free(m->text);
		free(m->call_id);
	}
	for (size_t i = 0; i < r->ntools; i++) {
		free(r->tools[i].name);
		free(r->tools[i].description);
		json_decref(r->tools[i].parameters);
	}
	free(r->messages);
	free(r->tools);
	free(r->model);
	free(r->system);
	memset(r, 0, sizeof *r);
}

/* --- responses ----------------------------------------------------------- */

void provider_response_free(struct provider_response *r)
{
	for (size_t i = 0; i < r->ncalls; i++)
		chat_call_clear(&r->calls[i]);
	free(r->calls);
	free(r->text);
	free(r->stop_raw);
	free(r->refusal_category);
	free(r->refusal_text);
	memset(r, 0, sizeof *r);
}

/* Moves src into dst (dst's old content is not freed) and leaves src empty. */
static void provider_response_move(struct provider_response *dst, struct provider_response *src)
{
	*dst = *src;
	memset(src, 0, sizeof *src);
}

const char *provider_stop_name(enum provider_stop stop)
{
	switch (stop) {
	case PROVIDER_STOP_END:
		return "end";
	case PROVIDER_STOP_MAX_TOKENS:
		return "max_tokens";
	case PROVIDER_STOP_REFUSAL:
		return "refusal";
	case PROVIDER_STOP_TOOL_USE:
		return "tool_use";
	}
	return "end";
}

/* --- configuration ------------------------------------------------------- */

int provider_is_rules(const struct provider_conf *conf)
{
	return conf->kind && strcmp(conf->kind, "rules") == 0;
}

static const char *name_of(const struct provider_conf *conf)
{
	return conf->name && *conf->name ? conf->name : "(unnamed)";
}

static int has_control(const char *s)
{
	for (; *s; s++)
		if ((unsigned char)*s < 0x20 || *s == 0x7f)
			return 1;
	return 0;
}

int provider_conf_check(const struct provider_conf *conf, struct err *e)
{
	const char *name = name_of(conf);
	const char *base = conf->base_url;
	const enum err_code code = ERR_PROVIDER_CONFIG;

	if (provider_is_rules(conf))
		return err_set(e, code, "provider '%s' is the rules extractor: it holds no conversation",
				name);
	if (!kind_of(conf))
		return err_set(e, code, "provider '%s': unknown kind '%s' (openai, anthropic or rules)",
				name, conf->kind ? conf->kind : "");
	if (!conf->model || !*conf->model)
		return err_set(e, code, "provider '%s' (%s) names no model", name, conf->kind);
	if (base && has_control(base))
		return err_set(e, code, "provider '%s': base_url holds a control character", name);
	if (base && *base && strncmp(base, "http://", 7) != 0 && strncmp(base, "https://", 8) != 0)
		return err_set(e, code, "provider '%s': base_url '%s' is not an http or https URL",
				name, base);
	/* A newline in the key would start a header of the key's choosing. */
	if (conf->api_key && has_control(conf->api_key))
		return err_set(e, code, "the API key of provider '%s' holds a control character",
				name);
	if (conf->timeout_s < 0 || conf->connect_timeout_s < 0)
		return err_set(e, code, "provider '%s': a timeout cannot be negative", name);
	return 0;
}

/* {base}/{openai} or {base}[/v1]/{anthropic}: where one of the wire's resources lives. */
static char *endpoint(const struct provider_conf *conf, const char *openai, const char *anthropic)
{
	const struct kind *k = kind_of(conf);
	const char *base;
	size_t n;

	if (!k)
		return NULL;
	base = conf->base_url && *conf->base_url ? conf->base_url : k->default_base;
	n = strlen(base);
	while (n && base[n - 1] == '/')
		n--;
	if (k->body == openai_request_body)
		return xasprintf("%.*s/%s", (int)n, base, openai);
	/* A base that already ends in /v1 is taken as meant. */
	if (n >= 3 && strncmp(base + n - 3, "/v1", 3) == 0)
		return xasprintf("%.*s/%s", (int)n, base, anthropic);
	return xasprintf("%.*s/v1/%s", (int)n, base, anthropic);
}

char *provider_url(const struct provider_conf *conf)
{
	return endpoint(conf, "chat/completions", "messages");
}

/* --- reachability -------------------------------------------------------- */

/* The probe waits this long at most, whatever a completion may take. */
#define PROBE_TIMEOUT_S 30L

static void add_key(struct http_exchange *x, const struct kind *k, const char *key);

int provider_probe(const struct provider_conf *conf, struct err *e)
{
	struct http_exchange *x, *done;
	struct http_multi *m;
	char *url, *who;
	int rc;

	if (provider_conf_check(conf, e) != 0 || dl_require(DL_CURL, e) != 0)
		return -1;
	url = endpoint(conf, "models", "models");
	x = http_get_new(url, conf->connect_timeout_s ? conf->connect_timeout_s
						      : PROVIDER_CONNECT_TIMEOUT_S,
			 conf->timeout_s && conf->timeout_s < PROBE_TIMEOUT_S ? conf->timeout_s
									       : PROBE_TIMEOUT_S);
	http_header(x, "Accept: application/json");
	if (kind_of(conf)->extra_header)
		http_header(x, kind_of(conf)->extra_header);
	add_key(x, kind_of(conf), conf->api_key);
	who = xasprintf("provider '%s' (%s)", name_of(conf), conf->kind);
	m = http_multi_new();
	rc = http_multi_add(m, x, e);
	done = rc == 0 ? http_multi_wait(m, e) : x;
	rc = rc == 0 && done ? http_outcome(done, who, e) : -1;
	http_exchange_free(done);
	http_multi_free(m);
	free(who);
	free(url);
	return rc;
}

/* --- the batch ----------------------------------------------------------- */

struct queued {
	struct http_exchange *x;
	struct queued *next;
};

struct provider_batch {
	const struct provider_conf *conf;
	const struct kind *kind;
	char *who;
	char *url;
	struct http_multi *multi;
	unsigned max_in_flight;
	struct queued *head, *tail;
	size_t pending;
	int cancelled;
	void (*done)(void *ctx, void *tag, struct provider_response *resp, const struct err *e);
	void *ctx;
};

struct provider_batch *provider_batch_new(const struct provider_conf *conf, unsigned max_in_flight,
					  void (*done)(void *ctx, void *tag,
						       struct provider_response *resp,
						       const struct err *e),
					  void *ctx, struct err *e)
{
	struct provider_batch *b;

	if (provider_conf_check(conf, e) != 0 || dl_require(DL_CURL, e) != 0)
		return NULL;
	b = xcalloc(1, sizeof *b);
	b->conf = conf;
	b->kind = kind_of(conf);
	b->who = xasprintf("provider '%s' (%s)", name_of(conf), conf->kind);
	b->url = provider_url(conf);
	b->multi = http_multi_new();
	b->max_in_flight = max_in_flight ? max_in_flight : 1;
	b->done = done;
	b->ctx = ctx;
	return b;
}

/* The key's header, built in a buffer that is wiped once curl has its copy. */
static void add_key(struct http_exchange *x, const struct kind *k, const char *key)
{
	struct buf line = BUF_INIT;

	if (!key || !*key)
		return;
	buf_adds(&line, k->auth_prefix);
	buf_adds(&line, key);
	http_header(x, buf_str(&line));
	explicit_bzero(line.data, line.cap);
	buf_free(&line);
}

int provider_batch_add(struct provider_batch *b, const struct provider_request *req, void *tag,
		       struct err *e)
{
	struct http_exchange *x;
	struct queued *q;
	size_t len;
	char *body;

	if (req->nmessages == 0)
		return err_set(e, ERR_PROVIDER_CONFIG, "%s: a request needs at least one message",
				b->who);
	body = b->kind->body(b->conf, req, &len);
	x = http_post_new(b->url, body, len,
			  b->conf->connect_timeout_s ? b->conf->connect_timeout_s
						     : PROVIDER_CONNECT_TIMEOUT_S,
			  b->conf->timeout_s ? b->conf->timeout_s : PROVIDER_TIMEOUT_S);
	http_header(x, "Content-Type: application/json");
	http_header(x, "Accept: application/json");
	if (b->kind->extra_header)
		http_header(x, b->kind->extra_header);
	add_key(x, b->kind, b->conf->api_key);
	http_set_tag(x, tag);
	q = xcalloc(1, sizeof *q);
	q->x = x;
	if (b->tail)
		b->tail->next = q;
	else
		b->head = q;
	b->tail = q;
	b->pending++;
	return 0;
}

static void answer(struct provider_batch *b, void *tag, struct provider_response *resp,
		   const struct err *e)
{
	b->pending--;
	b->done(b->ctx, tag, resp, e);
}

static void answer_error(struct provider_batch *b, struct http_exchange *x, const struct err *e)
{
	void *tag = http_tag(x);

	http_exchange_free(x);
	answer(b, tag, NULL, e);
}

/* Turns a finished exchange into the caller's response or error. */
static void finish(struct provider_batch *b, struct http_exchange *x)
{
	struct provider_response resp = { 0 };
	const struct buf *reply = http_reply(x);
	void *tag = http_tag(x);
	struct err e;

	err_clear(&e);
	if (http_outcome(x, b->who, &e) != 0) {
		answer_error(b, x, &e);
		return;
	}
	if (b->kind->parse(buf_str(reply), reply->len, &resp, &e) != 0) {
		struct buf where = BUF_INIT;

		http_where(x, b->who, &where);
		err_prefix(&e, "%s: HTTP %ld", buf_str(&where), http_status(x));
		buf_free(&where);
		provider_response_free(&resp);
		answer_error(b, x, &e);
		return;
	}
	http_exchange_free(x);
	answer(b, tag, &resp, NULL);
	provider_response_free(&resp);
}

static struct http_exchange *dequeue(struct provider_batch *b)
{
	struct queued *q = b->head;
	struct http_exchange *x;

	if (!q)
		return NULL;
	b->head = q->next;
	if (!b->head)
		b->tail = NULL;
	x = q->x;
	free(q);
	return x;
}

static void start_queued(struct provider_batch *b)
{
	struct http_exchange *x;
	struct err e;

	while (b->head && (b->cancelled || http_multi_in_flight(b->multi) < b->max_in_flight)) {
		x = dequeue(b);
		err_clear(&e);
		if (b->cancelled)
			err_set(&e, ERR_PROVIDER_CANCELLED, "%s: cancelled before it was sent", b->who);
		else if (http_multi_add(b->multi, x, &e) == 0)
			continue;
		answer_error(b, x, &e);
	}
}

void provider_batch_run(struct provider_batch *b)
{
	struct http_exchange *x;
	struct err e;

	for (;;) {
		start_queued(b);
		if (http_multi_in_flight(b->multi) == 0) {
			if (!b->head)
				return;
			continue;
		}
		x = http_multi_wait(b->multi, &e);
		if (x) {
			finish(b, x);
			continue;
		}
		if (e.code == ERR_NONE)
			continue;
		/* The multi handle itself failed: nothing more will complete. */
		b->cancelled = 1;
		while ((x = http_multi_drop(b->multi)) != NULL)
			answer_error(b, x, &e);
	}
}

void provider_batch_cancel(struct provider_batch *b)
{
	b->cancelled = 1;
}

size_t provider_batch_pending(const struct provider_batch *b)
{
	return b->pending;
}

void provider_batch_free(struct provider_batch *b)
{
	struct http_exchange *x;

	if (!b)
		return;
	while ((x = dequeue(b)) != NULL)
		http_exchange_free(x);
	http_multi_free(b->multi);
	free(b->who);
	free(b->url);
	free(b);
}

/* --- one call ------------------------------------------------------------ */

struct one {
	struct provider_response *resp;
	struct err *e;
	int failed;
};

static void one_done(void *ctx, void *tag, struct provider_response *resp, const struct err *e)
{
	struct one *one = ctx;

	(void)tag;
	if (e) {
		*one->e = *e;
		one->failed = 1;
		return;
	}
	provider_response_move(one->resp, resp);
}

int provider_complete(const struct provider_conf *conf, const struct provider_request *req,
		      struct provider_response *resp, struct err *e)
{
	struct one one = { resp, e, 0 };
	struct provider_batch *b;

	memset(resp, 0, sizeof *resp);
	b = provider_batch_new(conf, 1, one_done, &one, e);
	if (!b)
		return -1;
	if (provider_batch_add(b, req, NULL, e) != 0) {
		provider_batch_free(b);
		return -1;
	}
	provider_batch_run(b);
	provider_batch_free(b);
	return one.failed ? -1 : 0;
}
