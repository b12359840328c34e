/*
 * boxconf — box.toml walked strictly into struct boxconf.
 */
#include "box/boxconf.h"

#include "base/buf.h"
#include "base/err.h"
#include "base/fs.h"
#include "base/toml.h"

#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum vtype { V_STR, V_INT };

struct key {
	const char *table; /* "" for the top level */
	const char *name;
	enum vtype type;
	size_t off;
};

#define S(f) V_STR, offsetof(struct boxconf, f)
#define L(f) V_INT, offsetof(struct boxconf, limits.f)

static const struct key keys[] = {
	{ "", "listen", S(listen) },
	{ "", "public_url", S(public_url) },
	{ "", "data", S(data) },
	{ "", "db", S(db) },
	{ "", "access_log", S(access_log) },
	{ "tls", "cert", S(tls_cert) },
	{ "tls", "key", S(tls_key) },
	{ "mail", "smtp_url", S(smtp_url) },
	{ "mail", "from", S(mail_from) },
	{ "mail", "username", S(mail_username) },
	{ "mail", "password_env", S(mail_password_env) },
	{ "limits", "requests_per_minute", L(requests_per_minute) },
	{ "limits", "body_bytes", L(body_bytes) },
	{ "limits", "upload_bytes", L(upload_bytes) },
	{ "limits", "connections", L(connections) },
	{ "limits", "connections_per_ip", L(connections_per_ip) },
	{ "limits", "timeout_s", L(timeout_s) },
	{ "limits", "threads", L(threads) },
	{ "limits", "drain_batch", L(drain_batch) },
	{ "limits", "upload_bytes_per_ip_day", L(upload_bytes_per_ip_day) },
	{ "limits", "min_free_bytes", L(min_free_bytes) },
	{ "limits", "header_timeout_s", L(header_timeout_s) },
	{ "limits", "body_timeout_s", L(body_timeout_s) },
	{ "limits", "body_bytes_per_s", L(body_bytes_per_s) },
	{ "limits", "form_keys", L(form_keys) },
};

void boxconf_defaults(struct boxconf *c)
{
	memset(c, 0, sizeof *c);
	c->listen = xstrdup("127.0.0.1:8080");
	c->access_log = xstrdup("-");
	c->limits = (struct boxconf_limits){ 120, 2000000, 40LL << 20, 1024, 32, 30, 4, 100,
					     64LL << 20, 1LL << 30, 20, 20, 8192,
					     16384 /* URLFORM_KEYS_MAX */ };
}

static int bad(struct err *e, const char *file, int line, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

static int bad(struct err *e, const char *file, int line, const char *fmt, ...)
{
	char what[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(what, sizeof what, fmt, ap);
	va_end(ap);
	return err_set(e, ERR_CONFIG, "%s:%d: %s", file, line, what);
}

static int set_key(struct boxconf *c, const struct key *k, const struct toml_value *v,
		   const char *file, struct err *e)
{
	char *base = (char *)c;

	if (k->type == V_STR) {
		if (v->type != TOML_STRING || memchr(v->u.str.ptr, '\0', v->u.str.len))
			return bad(e, file, v->line, "%s must be a string", k->name);
		free(*(char **)(base + k->off));
		*(char **)(base + k->off) = xstrdup(v->u.str.ptr);
		return 0;
	}
	if (v->type != TOML_INTEGER || v->u.integer < 1)
		return bad(e, file, v->line, "%s must be a positive integer", k->name);
	*(long long *)(base + k->off) = v->u.integer;
	return 0;
}

static int walk_table(struct boxconf *c, const char *table, const struct toml_value *t,
		      const char *file, struct err *e)
{
	for (size_t i = 0; i < t->u.table.n; i++) {
		const struct toml_entry *en = &t->u.table.items[i];
		const struct key *k = NULL;
		for (size_t j = 0; j < sizeof keys / sizeof keys[0] && !k; j++)
			if (strcmp(keys[j].table, table) == 0 && strcmp(keys[j].name, en->key) == 0)
				k = &keys[j];
		if (!k)
			return bad(e, file, en->value->line, "unknown key '%s' in %s", en->key,
				   *table ? table : "the top level");
		if (set_key(c, k, en->value, file, e) != 0)
			return -1;
	}
	return 0;
}

static int owner_types(struct boxconf_owner *o, const struct toml_value *t, const char *file,
		       struct err *e)
{
	const struct toml_value *types = toml_get(t, "types");

	for (size_t i = 0; i < t->u.table.n; i++)
		if (strcmp(t->u.table.items[i].key, "types") != 0)
			return bad(e, file, t->u.table.items[i].value->line,
				   "unknown key '%s' in [owners.%s]", t->u.table.items[i].key,
				   o->handle);
	if (!types)
		return 0;
	if (types->type != TOML_ARRAY)
		return bad(e, file, types->line, "[owners.%s] types must be an array of strings",
			   o->handle);
	for (size_t i = 0; i < types->u.array.n; i++) {
		const struct toml_value *x = types->u.array.items[i];
		if (x->type != TOML_STRING)
			return bad(e, file, x->line, "[owners.%s] types must be an array of strings",
				   o->handle);
		o->types = xrealloc(o->types, (o->ntypes + 1) * sizeof *o->types);
		o->types[o->ntypes++] = xstrdup(x->u.str.ptr);
	}
	return 0;
}

static int walk_owners(struct boxconf *c, const struct toml_value *t, const char *file,
		       struct err *e)
{
	for (size_t i = 0; i < t->u.table.n; i++) {
		const struct toml_entry *en = &t->u.table.items[i];
		struct boxconf_owner *o;
		if (en->value->type != TOML_TABLE)
			return bad(e, file, en->value->line, "owners.%s must be a table", en->key);
		c->owners = xrealloc(c->owners, (c->nowners + 1) * sizeof *c->owners);
		o = &c->owners[c->nowners++];
		memset(o, 0, sizeof *o);
		o->handle = xstrdup(en->key);
		if (owner_types(o, en->value, file, e) != 0)
			return -1;
	}
	return 0;
}

static int walk(struct boxconf *c, const struct toml_value *root, const char *file, struct err *e)
{
	static const char *const tables[] = { "tls", "mail", "limits", NULL };

	for (size_t i = 0; i < root->u.table.n; i++) {
		const struct toml_entry *en = &root->u.table.items[i];
		int known = 0, rc;
		if (en->value->type != TOML_TABLE)
			continue;
		for (int j = 0; tables[j]; j++)
			known |= strcmp(tables[j], en->key) == 0;
		if (strcmp(en->key, "owners") == 0)
			rc = walk_owners(c, en->value, file, e);
		else if (known)
			rc = walk_table(c, en->key, en->value, file, e);
		else
			rc = bad(e, file, en->value->line, "unknown table [%s]", en->key);
		if (rc != 0)
			return -1;
	}
	return 0;
}

/* The top level's plain keys (tables are walked apart). */
static int walk_top(struct boxconf *c, const struct toml_value *root, const char *file,
		    struct err *e)
{
	struct toml_value top = *root;
	struct toml_entry *plain = xcalloc(root->u.table.n + 1, sizeof *plain);
	int rc;

	top.u.table.n = 0;
	for (size_t i = 0; i < root->u.table.n; i++)
		if (root->u.table.items[i].value->type != TOML_TABLE)
			plain[top.u.table.n++] = root->u.table.items[i];
	top.u.table.items = plain;
	rc = walk_table(c, "", &top, file, e);
	free(plain);
	return rc;
}

int boxconf_load(const char *path, struct boxconf *c, struct err *e)
{
	struct toml_value *root;
	char *text;
	size_t len;
	int rc;

	if (fs_read(path, &text, &len, e) != 0) {
		err_prefix(e, "box config");
		e->code = ERR_CONFIG;
		return -1;
	}
	root = toml_parse(text, len, path, e);
	free(text);
	if (!root) {
		e->code = ERR_CONFIG;
		return -1;
	}
	free(c->path);
	c->path = xstrdup(path);
	rc = walk_top(c, root, path, e) == 0 && walk(c, root, path, e) == 0 ? 0 : -1;
	toml_free(root);
	return rc;
}

int boxconf_listen(const char *listen, char *host, size_t size, int *port)
{
	const char *colon = strrchr(listen, ':');
	const char *h = listen;
	size_t n;
	char *end;
	long p;

	if (!colon)
		return -1;
	n = (size_t)(colon - listen);
	if (n >= 2 && h[0] == '[' && h[n - 1] == ']') {
		h++;
		n -= 2;
	}
	if (n == 0 || n >= size)
		return -1;
	p = strtol(colon + 1, &end, 10);
	if (*end || end == colon + 1 || p < 1 || p > 65535)
		return -1;
	memcpy(host, h, n);
	host[n] = '\0';
	*port = (int)p;
	return 0;
}

int boxconf_finish(struct boxconf *c, struct err *e)
{
	const char *file = c->path ? c->path : "the command line";
	char host[256];
	int port;

	if (!c->data || !*c->data)
		return err_set(e, ERR_CONFIG, "%s: the box needs a data directory (data = \"DIR\" or "
			       "--data DIR)", file);
	if (boxconf_listen(c->listen, host, sizeof host, &port) != 0)
		return err_set(e, ERR_CONFIG, "%s: listen '%s' is not HOST:PORT", file, c->listen);
	if (!c->tls_cert != !c->tls_key)
		return err_set(e, ERR_CONFIG, "%s: [tls] needs both cert and key", file);
	if (!c->db)
		c->db = fs_join(c->data, "box.db");
	if (!c->public_url)
		c->public_url = xasprintf("%s://%s", c->tls_cert ? "https" : "http", c->listen);
	if (strncmp(c->public_url, "http://", 7) != 0 && strncmp(c->public_url, "https://", 8) != 0)
		return err_set(e, ERR_CONFIG, "%s: public_url must start with http:// or https://",
			       file);
	while (strlen(c->public_url) > 8 && c->public_url[strlen(c->public_url) - 1] == '/')
		c->public_url[strlen(c->public_url) - 1] = '\0';
	return 0;
}

void boxconf_free(struct boxconf *c)
{
	char **strings[] = { &c->path, &c->listen, &c->public_url, &c->data, &c->db,
			     &c->access_log, &c->tls_cert, &c->tls_key, &c->smtp_url, &c->mail_from,
			     &c->mail_username, &c->mail_password_env };

	for (size_t i = 0; i < sizeof strings / sizeof strings[0]; i++) {
		free(*strings[i]);
		*strings[i] = NULL;
	}
	for (size_t i = 0; i < c->nowners; i++) {
		for (size_t j = 0; j < c->owners[i].ntypes; j++)
			free(c->owners[i].types[j]);
		free(c->owners[i].types);
		free(c->owners[i].handle);
	}
	free(c->owners);
	c->owners = NULL;
	c->nowners = 0;
}

/* The owner entry of handle, or NULL; always NULL-safe when there are no owners. */
static const struct boxconf_owner *boxconf_owner(const struct boxconf *c, const char *handle)
{
	for (size_t i = 0; i < c->nowners; i++)
		if (strcmp(c->owners[i].handle, handle) == 0)
			return &c->owners[i];
	return NULL;
}

int boxconf_serves(const struct boxconf *c, const char *handle, const char *type)
{
	const struct boxconf_owner *o;

	if (c->nowners == 0)
		return 1;
	if (!(o = boxconf_owner(c, handle)))
		return 0;
	if (o->ntypes == 0)
		return 1;
	for (size_t i = 0; i < o->ntypes; i++)
		if (strcmp(o->types[i], type) == 0)
			return 1;
	return 0;
}
