/*
 * pair — a pairing code exchanged for the owner's keys, written into the home.
 */
#include "drain/pair.h"

#include "base/buf.h"
#include "base/err.h"
#include "base/fs.h"
#include "config/home.h"
#include "drain/gate.h"

#include <stdlib.h>
#include <string.h>

#define PAIR_ANSWER_MAX ((size_t)64 << 10)
#define PAIR_TIMEOUT_S 30
#define KEY_LEN_MAX 512

static const struct {
	const char *scope, *field, *file, *env;
} scopes[] = {
	{ "drain", "drain_key", "drain.key", "FACTORY_DRAIN_KEY" },
	{ "release", "release_key", "release.key", "FACTORY_RELEASE_KEY" },
	{ "slots", "slots_key", "slots.key", "FACTORY_SLOTS_KEY" },
	{ "publish", "publish_key", "publish.key", "FACTORY_PUBLISH_KEY" },
};
enum { NSCOPES = sizeof scopes / sizeof scopes[0] };

/* mk_xxx_<hex>.<hex>, at most KEY_LEN_MAX bytes: the only thing a key file may hold. */
static int key_shaped(const char *k)
{
	const char *dot;
	size_t n = strlen(k);

	if (n > KEY_LEN_MAX || n < 10 || strncmp(k, "mk_", 3) != 0 || k[6] != '_')
		return 0;
	for (int i = 3; i < 6; i++)
		if (k[i] < 'a' || k[i] > 'z')
			return 0;
	if (!(dot = strchr(k + 7, '.')) || dot == k + 7 || dot[1] == '\0')
		return 0;
	for (const char *p = k + 7; *p; p++)
		if (p != dot && !strchr("0123456789abcdefABCDEF", *p))
			return 0;
	return 1;
}

/* The handle asserted, as the box compares it (trimmed, lower case). */
static char *handle_norm(const char *h)
{
	struct buf b = BUF_INIT;
	char *out;

	while (*h == ' ')
		h++;
	for (; *h; h++)
		buf_addc(&b, (*h >= 'A' && *h <= 'Z') ? (char)(*h + 32) : *h);
	while (b.len && b.data[b.len - 1] == ' ')
		b.len--;
	out = xstrdup(buf_str(&b));
	buf_free(&b);
	return out;
}

static json_t *exchange(struct gate *g, const char *code, const char *handle, const char *label,
			struct err *e)
{
	json_t *req = json_pack("{s:s,s:s,s:s}", "code", code, "handle", handle, "label", label);
	char *body = json_dumps(req, JSON_COMPACT);
	struct gate_request rq = { "POST", "/v1/pair", body, strlen(body), "application/json",
				   PAIR_ANSWER_MAX, PAIR_TIMEOUT_S, 0 };
	struct gate_reply r = GATE_REPLY_INIT;
	json_t *answer = NULL;

	if (gate_call(g, &rq, &r, e) == 0)
		answer = gate_json(g, &rq, &r, e);
	if (r.body.data)
		explicit_bzero(r.body.data, r.body.len); /* it held the keys */
	gate_reply_free(&r);
	explicit_bzero(body, strlen(body));
	free(body);
	json_decref(req);
	return answer;
}

/* Every field checked before anything is written: the answer is the box's, not ours. */
static int answer_ok(const json_t *a, const char *handle, const char *url, struct err *e)
{
	const char *h = json_string_value(json_object_get(a, "handle"));
	int any = 0;

	if (!h || strcmp(h, handle) != 0)
		return err_set(e, ERR_GATE, "gate: POST %s/v1/pair: the answer is for another owner "
			       "than %s; nothing written", url, handle);
	for (int i = 0; i < NSCOPES; i++) {
		const json_t *k = json_object_get(a, scopes[i].field);
		if (!k)
			continue;
		if (!json_is_string(k) || !key_shaped(json_string_value(k)))
			return err_set(e, ERR_GATE, "gate: POST %s/v1/pair: %s is not a key; nothing "
				       "written", url, scopes[i].field);
		any = 1;
	}
	if (!any)
		return err_set(e, ERR_GATE, "gate: POST %s/v1/pair: the answer holds no key; nothing "
			       "written", url);
	return 0;
}

/* "mk_drn_<id>.<secret>" → "<id>" (malloc'd). */
static char *key_id(const char *k)
{
	const char *dot = strchr(k + 7, '.');

	return xstrndup(k + 7, (size_t)(dot - (k + 7)));
}

/* GET /v1/health with key: it must answer as that key of that owner. */
static int check_key(const char *url, const char *key, const char *handle, struct err *e)
{
	struct gate g;
	struct gate_request rq = { "GET", "/v1/health", NULL, 0, NULL, PAIR_ANSWER_MAX,
				   PAIR_TIMEOUT_S, 0 };
	struct gate_reply r = GATE_REPLY_INIT;
	json_t *h = NULL;
	char *id = key_id(key);
	int rc = -1;

	if (gate_at(url, key, &g, e) == 0 && gate_call(&g, &rq, &r, e) == 0 &&
	    (h = gate_json(&g, &rq, &r, e))) {
		const char *k = json_string_value(json_object_get(h, "key"));
		const char *who = json_string_value(json_object_get(h, "handle"));
		if (!k || strcmp(k, id) != 0 || !who || strcmp(who, handle) != 0)
			err_set(e, ERR_GATE, "gate: GET %s/v1/health: the key %s was not taken as %s's "
				"(the box answered without it)", url, id, handle);
		else
			rc = 0;
	}
	json_decref(h);
	gate_reply_free(&r);
	gate_close(&g);
	free(id);
	return rc;
}

/* The gate's file: the one key the drain reads (gate.h), the URL as TOML text. */
static int write_gate(const char *dir, const char *url, struct err *e)
{
	char *path = fs_join(dir, "config.toml");
	char *text = xasprintf("# written by mecha pair: the box this home drains and publishes to\n"
			       "gate = \"%s\"\n", url);
	int rc = fs_replace(path, text, strlen(text), e);

	free(text);
	free(path);
	return rc;
}

static int write_key(const char *path, const char *key, struct err *e)
{
	char *line = xasprintf("%s\n", key);
	int rc = fs_replace(path, line, strlen(line), e);

	explicit_bzero(line, strlen(line));
	free(line);
	return rc;
}

int pair_home(const char *url_in, const char *code, const char *handle_in, const char *label,
	      json_t **report, struct err *e)
{
	struct gate g = { 0 };
	json_t *answer = NULL, *keys = json_object(), *missing = json_array(),
	       *shadowed = json_array();
	char *dir = NULL, *handle = handle_norm(handle_in), *url = NULL;
	int rc = -1;

	*report = NULL;
	if (strpbrk(url_in, "\"\\"))
		err_set(e, ERR_CONFIG, "gate `%s` is not a URL (it holds a quote or a backslash)",
			url_in);
	else if ((dir = home_default(HOME_FACTORY, e)) && gate_at(url_in, NULL, &g, e) == 0)
		answer = exchange(&g, code, handle, label, e);
	if (!answer || answer_ok(answer, handle, g.url, e) != 0)
		goto out;
	url = xstrdup(g.url);
	if (fs_private_dir(dir, e) != 0 || write_gate(dir, url, e) != 0)
		goto out;
	for (int i = 0; i < NSCOPES; i++) {
		const char *k = json_string_value(json_object_get(answer, scopes[i].field));
		char *path;
		if (!k) {
			json_array_append_new(missing, json_string(scopes[i].scope));
			continue;
		}
		path = fs_join(dir, scopes[i].file);
		if (write_key(path, k, e) != 0) {
			free(path);
			goto out;
		}
		json_object_set_new(keys, scopes[i].scope,
				    json_pack("{s:s,s:s%,s:b}", "file", path, "id", k + 7,
					      strcspn(k + 7, "."), "checked", 0));
		free(path);
		if (getenv(scopes[i].env) && *getenv(scopes[i].env))
			json_array_append_new(shadowed, json_string(scopes[i].env));
	}
	if (getenv("FACTORY_GATE") && *getenv("FACTORY_GATE"))
		json_array_append_new(shadowed, json_string("FACTORY_GATE"));
	/* written; now each key must be the box's, for this owner */
	for (int i = 0; i < NSCOPES; i++) {
		const char *k = json_string_value(json_object_get(answer, scopes[i].field));
		if (!k)
			continue;
		if (check_key(url, k, handle, e) != 0)
			goto out;
		json_object_set_new(json_object_get(keys, scopes[i].scope), "checked", json_true());
	}
	*report = json_pack("{s:s,s:s,s:s,s:O,s:O,s:O}", "gate", url, "handle", handle, "dir", dir,
			    "keys", keys, "missing", missing, "shadowed", shadowed);
	rc = 0;
out:
	if (answer) { /* it held the keys: wipe them before they are freed */
		for (int i = 0; i < NSCOPES; i++) {
			json_t *k = json_object_get(answer, scopes[i].field);
			if (json_is_string(k))
				explicit_bzero((char *)json_string_value(k), json_string_length(k));
		}
		json_decref(answer);
	}
	gate_close(&g);
	json_decref(keys);
	json_decref(missing);
	json_decref(shadowed);
	free(dir);
	free(handle);
	free(url);
	return rc;
}
