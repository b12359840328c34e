/*
 * config — config.toml through base/toml, then one strict walk of the tree
 * into struct config.
 *
 * base/toml owns the grammar (and refuses a key or a table written twice);
 * this file owns the meaning: every key is checked against the table of keys
 * mecha knows, with its type, and anything else — an unknown key or table, a
 * value of the wrong type, an array of tables — is an error naming the file
 * and the line it is written on. When a file has several mistakes the first
 * by line is reported, as a reader going down the file would meet it.
 */
#include "config/config.h"

#include "base/buf.h"
#include "base/err.h"
#include "base/fs.h"
#include "base/text.h"
#include "base/toml.h"
#include "config/home.h"

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum table { T_ROOT, T_PROVIDER, T_OUTBOX, T_MAIL, T_CALENDAR, T_MISSIONS };

static const char *const table_names[] = {
	[T_ROOT] = "the top level", [T_PROVIDER] = "[providers.*]", [T_OUTBOX] = "[outbox]",
	[T_MAIL] = "[mail]",        [T_CALENDAR] = "[calendar]",     [T_MISSIONS] = "[missions]",
};

/* The tables under the top level, by name; [providers.NAME] is handled apart. */
static const struct {
	const char *name;
	enum table t;
} fixed_tables[] = { { "outbox", T_OUTBOX },
		     { "mail", T_MAIL },
		     { "calendar", T_CALENDAR },
		     { "missions", T_MISSIONS } };

enum vtype { V_STR, V_INT, V_ARR };

static const char *const vtype_names[] = {
	[V_STR] = "a string",
	[V_INT] = "an integer",
	[V_ARR] = "an array of strings",
};

/* Offsets are into struct config, or into struct config_provider for T_PROVIDER. */
struct key {
	enum table tab;
	const char *name;
	enum vtype type;
	size_t off;
	size_t count_off; /* V_ARR: where the array's length goes */
};

#define C(f) offsetof(struct config, f), 0
#define A(f, n) offsetof(struct config, f), offsetof(struct config, n)
#define P(f) offsetof(struct config_provider, f), 0

static const struct key keys[] = {
	{ T_ROOT, "default_provider", V_STR, C(default_provider) },
	{ T_PROVIDER, "kind", V_STR, P(kind) },
	{ T_PROVIDER, "base_url", V_STR, P(base_url) },
	{ T_PROVIDER, "model", V_STR, P(model) },
	{ T_PROVIDER, "api_key_env", V_STR, P(api_key_env) },
	{ T_PROVIDER, "timeout_s", V_INT, P(timeout_s) },
	{ T_PROVIDER, "connect_timeout_s", V_INT, P(connect_timeout_s) },
	{ T_OUTBOX, "dir", V_STR, C(outbox_dir) },
	{ T_OUTBOX, "tools", V_ARR, A(outbox_tools, noutbox_tools) },
	{ T_MAIL, "smtp_url", V_STR, C(mail_smtp_url) },
	{ T_MAIL, "sendmail", V_STR, C(mail_sendmail) },
	{ T_MAIL, "from", V_STR, C(mail_from) },
	{ T_MAIL, "username", V_STR, C(mail_username) },
	{ T_MAIL, "password_env", V_STR, C(mail_password_env) },
	{ T_CALENDAR, "path", V_STR, C(calendar_path) },
	{ T_CALENDAR, "timezone", V_STR, C(calendar_timezone) },
	{ T_CALENDAR, "collections", V_ARR, A(calendar_collections, ncalendar_collections) },
	{ T_MISSIONS, "brain", V_STR, C(missions_brain) },
};

#undef C
#undef A
#undef P

struct walk {
	const char *file;
	struct config *cfg;
	struct err *e;
	int line; /* the line of the error in e; 0 while there is none */
};

static void problem(struct walk *w, int line, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* Keeps the first mistake by line, so the report does not depend on the walk's order. */
static void problem(struct walk *w, int line, const char *fmt, ...)
{
	char msg[512];
	va_list ap;

	if (w->line && w->line <= line)
		return;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	w->line = line;
	err_set(w->e, ERR_CONFIG, "%s:%d: %s", w->file, line, msg);
}

/* A name from the file, safe to put in a message (it may hold anything). */
static char *safe(const char *s, size_t len)
{
	struct buf b = BUF_INIT;

	text_safe(&b, s, len, 0);
	return buf_steal(&b);
}

static const struct key *find_key(enum table tab, const char *name)
{
	for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++)
		if (keys[i].tab == tab && strcmp(keys[i].name, name) == 0)
			return &keys[i];
	return NULL;
}

/* A string value as a C string: a NUL inside would silently cut it short. */
static char *string_value(struct walk *w, const char *name, const struct toml_value *v)
{
	if (memchr(v->u.str.ptr, '\0', v->u.str.len)) {
		problem(w, v->line, "%s holds a NUL character", name);
		return NULL;
	}
	return xstrdup(v->u.str.ptr);
}

static int kind_ok(const char *kind)
{
	return strcmp(kind, "openai") == 0 || strcmp(kind, "anthropic") == 0 ||
	       strcmp(kind, "rules") == 0;
}

static void store_array(struct walk *w, const struct key *k, char *base, const struct toml_value *v)
{
	char **arr = xcalloc(v->u.array.n + 1, sizeof *arr);
	size_t n = 0;

	for (size_t i = 0; i < v->u.array.n; i++) {
		const struct toml_value *item = v->u.array.items[i];
		if (item->type != TOML_STRING) {
			problem(w, item->line, "arrays hold only strings here");
			continue;
		}
		if ((arr[n] = string_value(w, k->name, item)))
			n++;
	}
	*(char ***)(void *)(base + k->off) = arr;
	*(size_t *)(void *)(base + k->count_off) = n;
}

/* Checks v against k and stores it in the struct at base. */
static void store(struct walk *w, const struct key *k, char *base, const struct toml_value *v)
{
	static const enum toml_type want[] = { [V_STR] = TOML_STRING, [V_INT] = TOML_INTEGER,
					       [V_ARR] = TOML_ARRAY };

	if (v->type != want[k->type]) {
		problem(w, v->line, "%s must be %s, not %s", k->name, vtype_names[k->type],
			toml_type_name(v->type));
	} else if (k->type == V_ARR) {
		store_array(w, k, base, v);
	} else if (k->type == V_INT) {
		if (v->u.integer <= 0 || v->u.integer > 86400)
			problem(w, v->line, "%s must be between 1 and 86400 seconds", k->name);
		else
			*(long *)(void *)(base + k->off) = (long)v->u.integer;
	} else if (k->tab == T_PROVIDER && strcmp(k->name, "kind") == 0 &&
		   !kind_ok(v->u.str.ptr)) {
		problem(w, v->line, "kind must be \"openai\", \"anthropic\" or \"rules\"");
	} else {
		*(char **)(void *)(base + k->off) = string_value(w, k->name, v);
	}
}

/* One entry of a table named `path` in messages, set into the struct at base. */
static void setting(struct walk *w, enum table tab, const char *path, char *base,
		    const struct toml_entry *en)
{
	const struct key *k = find_key(tab, en->key);
	char *name;

	if (k && strlen(en->key) == en->keylen) {
		store(w, k, base, en->value);
		return;
	}
	name = safe(en->key, en->keylen);
	if (en->value->type == TOML_TABLE && !toml_is_inline(en->value))
		problem(w, en->value->line, "unknown table [%s%s%s]", path, *path ? "." : "", name);
	else
		problem(w, en->value->line, "unknown key '%s' in %s", name, table_names[tab]);
	free(name);
}

static void settings(struct walk *w, enum table tab, const char *path, char *base,
		     const struct toml_value *t)
{
	for (size_t i = 0; i < t->u.table.n; i++)
		setting(w, tab, path, base, &t->u.table.items[i]);
}

/* A table where one belongs: not a value, not an array of tables. */
static int is_table(struct walk *w, const char *name, const struct toml_value *v)
{
	if (v->type == TOML_TABLE)
		return 1;
	if (toml_is_array_of_tables(v))
		problem(w, v->line, "arrays of tables ([[%s]]) are not part of mecha's configuration",
			name);
	else
		problem(w, v->line, "%s must be a table, not %s", name, toml_type_name(v->type));
	return 0;
}

static void provider(struct walk *w, const struct toml_entry *en)
{
	struct config *c = w->cfg;
	struct config_provider *pr;
	char *name = safe(en->key, en->keylen), *path = xasprintf("providers.%s", name);

	c->providers = xrealloc(c->providers, (c->nproviders + 1) * sizeof *c->providers);
	pr = &c->providers[c->nproviders++];
	memset(pr, 0, sizeof *pr);
	pr->name = xstrndup(en->key, en->keylen);
	pr->timeout_s = CONFIG_TIMEOUT_S;
	pr->connect_timeout_s = CONFIG_CONNECT_TIMEOUT_S;
	settings(w, T_PROVIDER, path, (char *)pr, en->value);
	if (!toml_get(en->value, "kind"))
		problem(w, en->value->line, "[providers.%s] needs kind = \"openai\", \"anthropic\" or "
			"\"rules\"", name);
	free(path);
	free(name);
}

static void providers(struct walk *w, const struct toml_value *t)
{
	for (size_t i = 0; i < t->u.table.n; i++) {
		const struct toml_entry *en = &t->u.table.items[i];
		char *name = safe(en->key, en->keylen);
		if (en->value->type == TOML_TABLE)
			provider(w, en);
		else if (toml_is_array_of_tables(en->value))
			is_table(w, name, en->value);
		else
			problem(w, en->value->line, "unknown key '%s' in [providers]", name);
		free(name);
	}
}

/* The top level: its own keys, [providers.NAME] and the fixed tables. */
static void top_level(struct walk *w, const struct toml_value *root)
{
	for (size_t i = 0; i < root->u.table.n; i++) {
		const struct toml_entry *en = &root->u.table.items[i];
		size_t t = 0;
		if (strcmp(en->key, "providers") == 0) {
			if (is_table(w, "providers", en->value))
				providers(w, en->value);
			continue;
		}
		while (t < sizeof fixed_tables / sizeof fixed_tables[0] &&
		       strcmp(en->key, fixed_tables[t].name) != 0)
			t++;
		if (t == sizeof fixed_tables / sizeof fixed_tables[0] || strlen(en->key) != en->keylen)
			setting(w, T_ROOT, "", (char *)w->cfg, en);
		else if (is_table(w, en->key, en->value))
			settings(w, fixed_tables[t].t, en->key, (char *)w->cfg, en->value);
	}
}

int config_parse(const char *text, size_t len, const char *file, struct config *out,
		 struct err *e)
{
	struct walk w = { file, out, e, 0 };
	struct toml_value *doc;

	memset(out, 0, sizeof *out);
	if (!(doc = toml_parse(text, len, file, e))) {
		e->code = ERR_CONFIG;
		return -1;
	}
	top_level(&w, doc);
	toml_free(doc);
	if (w.line) {
		config_free(out);
		return -1;
	}
	return 0;
}

/* ---- loading and resolving ------------------------------------------------- */

static void replace(char **slot, const char *value)
{
	free(*slot);
	*slot = value ? xstrdup(value) : NULL;
}

static int resolve_provider(struct config *c, const char *from_env, struct err *e)
{
	const char *model = getenv("MECHA_MODEL");
	struct config_provider *pr;

	if (from_env && *from_env)
		replace(&c->default_provider, from_env);
	if (!c->default_provider)
		return 0;
	pr = (struct config_provider *)config_provider_named(c, c->default_provider);
	if (!pr && strcmp(c->default_provider, "rules") == 0) {
		c->providers = xrealloc(c->providers, (c->nproviders + 1) * sizeof *c->providers);
		pr = &c->providers[c->nproviders++];
		memset(pr, 0, sizeof *pr);
		pr->name = xstrdup("rules");
		pr->kind = xstrdup("rules");
		pr->timeout_s = CONFIG_TIMEOUT_S;
		pr->connect_timeout_s = CONFIG_CONNECT_TIMEOUT_S;
	}
	if (!pr)
		return err_set(e, ERR_CONFIG, "%s names the provider '%s', but %s has no "
				"[providers.%s] table",
				from_env && *from_env ? "MECHA_PROVIDER" : "default_provider",
				c->default_provider, c->path ? c->path : "the configuration",
				c->default_provider);
	if (model && *model)
		replace(&pr->model, model);
	return 0;
}

static void resolve_paths(struct config *c, char *default_outbox)
{
	const char *env = getenv("MECHA_OUTBOX_DIR");
	char *dir;

	if (env && *env)
		dir = fs_expand_home(env);
	else if (c->outbox_dir && *c->outbox_dir)
		dir = fs_expand_home(c->outbox_dir);
	else
		dir = xstrdup(default_outbox);
	free(default_outbox);
	free(c->outbox_dir);
	c->outbox_dir = dir;
	if (c->calendar_path) {
		char *p = fs_expand_home(c->calendar_path);
		free(c->calendar_path);
		c->calendar_path = p;
	}
}

static int read_file(struct config *out, char *home, char *path, struct err *e)
{
	char *text = NULL;
	size_t len = 0;

	if (fs_read(path, &text, &len, e) != 0) {
		if (e->code != ERR_NOT_FOUND)
			return -1;
		memset(out, 0, sizeof *out);
		free(path);
		out->home = home;
		return 0;
	}
	if (config_parse(text, len, path, out, e) != 0) {
		free(text);
		return -1;
	}
	free(text);
	out->path = path;
	out->home = home;
	return 0;
}

int config_load(struct config *out, struct err *e)
{
	char *home = home_default(HOME_ROOT, e);
	char *path = home ? home_default(HOME_CONFIG, e) : NULL;
	char *outbox = path ? home_default(HOME_OUTBOX, e) : NULL;

	memset(out, 0, sizeof *out);
	if (!outbox || read_file(out, home, path, e) != 0) {
		free(outbox);
		free(path);
		free(home);
		return -1;
	}
	resolve_paths(out, outbox);
	if (resolve_provider(out, getenv("MECHA_PROVIDER"), e) != 0) {
		config_free(out);
		return -1;
	}
	return 0;
}

static void provider_free(struct config_provider *p)
{
	free(p->name);
	free(p->kind);
	free(p->base_url);
	free(p->model);
	free(p->api_key_env);
}

void config_free(struct config *c)
{
	if (!c)
		return;
	for (size_t i = 0; i < c->nproviders; i++)
		provider_free(&c->providers[i]);
	free(c->providers);
	for (size_t i = 0; i < c->noutbox_tools; i++)
		free(c->outbox_tools[i]);
	free(c->outbox_tools);
	free(c->path);
	free(c->home);
	free(c->default_provider);
	free(c->outbox_dir);
	free(c->mail_smtp_url);
	free(c->mail_sendmail);
	free(c->mail_from);
	free(c->mail_username);
	free(c->mail_password_env);
	free(c->calendar_path);
	free(c->calendar_timezone);
	for (size_t i = 0; i < c->ncalendar_collections; i++)
		free(c->calendar_collections[i]);
	free(c->calendar_collections);
	free(c->missions_brain);
	memset(c, 0, sizeof *c);
}

const struct config_provider *config_provider_named(const struct config *c, const char *name)
{
	for (size_t i = 0; name && i < c->nproviders; i++)
		if (strcmp(c->providers[i].name, name) == 0)
			return &c->providers[i];
	return NULL;
}

int config_outbox_routes(const struct config *c, const char *tool)
{
	for (size_t i = 0; i < c->noutbox_tools; i++)
		if (strcmp(c->outbox_tools[i], tool) == 0)
			return 1;
	return 0;
}
