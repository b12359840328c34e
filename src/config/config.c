/*
 * config — config.toml through base/toml, then one strict walk of the tree
 * into struct config.
 *
 * base/toml owns the grammar (and refuses a key or a table written twice);
 * this file owns the walk: every key is checked against the table of keys
 * mecha knows (keys.c), with its type and what its value must mean, and
 * anything else — an unknown key or table, a value of the wrong type or of no
 * use, an array of tables — is an error naming the file and the line it is
 * written on. When a file has several mistakes the first by line is reported,
 * as a reader going down the file would meet it. It also remembers the file
 * the last load accepted, so config_check need not read it again.
 */
#include "config/config.h"

#include "base/buf.h"
#include "base/err.h"
#include "base/fs.h"
#include "base/suggest.h"
#include "base/text.h"
#include "base/toml.h"
#include "config/home.h"
#include "config/keys.h"

#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <pthread.h>
#include <sys/stat.h>

/* The tables under the top level, by name; [providers.NAME] is handled apart. */
static const enum config_table fixed_tables[] = { T_OUTBOX,   T_MAIL,       T_CALENDAR,
						  T_MISSIONS, T_FRONTDOOR, T_NOTIFY };

static const char *const vtype_names[] = {
	[V_STR] = "a string",
	[V_INT] = "an integer",
	[V_ARR] = "an array of strings",
};

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

/*
 * A string value as a C string, checked for what it must mean: a NUL inside
 * would silently cut it short.
 */
static char *string_value(struct walk *w, const struct config_key *k, const struct toml_value *v)
{
	struct buf why = BUF_INIT;

	if (memchr(v->u.str.ptr, '\0', v->u.str.len)) {
		problem(w, v->line, "%s holds a NUL character", k->name);
		return NULL;
	}
	if (k->meaning && k->meaning(v->u.str.ptr, &why) != 0) {
		problem(w, v->line, "%s", buf_str(&why));
		buf_free(&why);
		return NULL;
	}
	return xstrdup(v->u.str.ptr);
}

static void store_array(struct walk *w, const struct config_key *k, char *base, const struct toml_value *v)
{
	char **arr = xcalloc(v->u.array.n + 1, sizeof *arr);
	size_t n = 0;

	for (size_t i = 0; i < v->u.array.n; i++) {
		const struct toml_value *item = v->u.array.items[i];
		if (item->type != TOML_STRING) {
			problem(w, item->line, "arrays hold only strings here");
			continue;
		}
		if ((arr[n] = string_value(w, k, item)))
			n++;
	}
	*(char ***)(void *)(base + k->off) = arr;
	*(size_t *)(void *)(base + k->count_off) = n;
}

/* Checks v against k and stores it in the struct at base. */
static void store(struct walk *w, const struct config_key *k, char *base, const struct toml_value *v)
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
			problem(w, v->line, "%s must be between 1 and 86400 %s", k->name,
				strstr(k->name, "_hours") ? "hours" : "seconds");
		else
			*(long *)(void *)(base + k->off) = (long)v->u.integer;
	} else {
		*(char **)(void *)(base + k->off) = string_value(w, k, v);
	}
	if (k->line_off != CONFIG_NO_LINE)
		*(int *)(void *)(base + k->line_off) = v->line;
}

/* The key of tab nearest a misspelt one (base/suggest.h), or NULL. */
static const char *near_key(enum config_table tab, const char *name)
{
	const char *names[64];
	size_t n = 0;

	for (size_t i = 0; i < config_nkeys && n < sizeof names / sizeof names[0]; i++)
		if (config_keys[i].tab == tab)
			names[n++] = config_keys[i].name;
	return suggest_nearest(name, names, n);
}

/* "; did you mean [mail]?" for a misspelt table of the top level, or "". */
static const char *near_table(const char *name, enum config_table tab)
{
	static char said[96];
	const char *names[T_COUNT];
	const char *near;
	size_t n = 0;

	if (tab != T_ROOT)
		return "";
	for (int t = 0; t < T_COUNT; t++)
		if (config_tables[t].name)
			names[n++] = config_tables[t].name;
	near = suggest_nearest(name, names, n);
	if (!near)
		return "";
	snprintf(said, sizeof said, "; did you mean [%s]?", near);
	return said;
}

/* One entry of a table named `path` in messages, set into the struct at base. */
static void setting(struct walk *w, enum config_table tab, const char *path, char *base,
		    const struct toml_entry *en)
{
	const struct config_key *k = config_key_find(tab, en->key);
	char *name;

	if (k && strlen(en->key) == en->keylen) {
		store(w, k, base, en->value);
		return;
	}
	name = safe(en->key, en->keylen);
	if (en->value->type == TOML_TABLE && !toml_is_inline(en->value)) {
		problem(w, en->value->line, "unknown table [%s%s%s]%s", path, *path ? "." : "", name,
			near_table(name, tab));
	} else {
		const char *near = near_key(tab, name);
		problem(w, en->value->line, "unknown key '%s' in %s%s%s%s", name,
			config_tables[tab].shown, near ? "; did you mean '" : "", near ? near : "",
			near ? "'? (every key: mecha(1), CONFIGURATION)" : "");
	}
	free(name);
}

static void settings(struct walk *w, enum config_table tab, const char *path, char *base,
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
	pr->line = en->value->line;
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
		size_t t = 0, nt = sizeof fixed_tables / sizeof fixed_tables[0];
		if (strcmp(en->key, "providers") == 0) {
			if (is_table(w, "providers", en->value))
				providers(w, en->value);
			continue;
		}
		while (t < nt && strcmp(en->key, config_tables[fixed_tables[t]].name) != 0)
			t++;
		if (t == nt || strlen(en->key) != en->keylen)
			setting(w, T_ROOT, "", (char *)w->cfg, en);
		else if (is_table(w, en->key, en->value))
			settings(w, fixed_tables[t], en->key, (char *)w->cfg, en->value);
	}
}

int config_parse(const char *text, size_t len, const char *file, struct config *out,
		 struct err *e)
{
	struct walk w = { file, out, e, 0 };
	struct toml_value *doc;

	memset(out, 0, sizeof *out);
	/* TOML has no byte-order mark; the parser would say only "expected a key". */
	if (len >= 3 && memcmp(text, "\xef\xbb\xbf", 3) == 0)
		return err_set(e, ERR_CONFIG, "%s:1: starts with a UTF-8 byte-order mark; save it "
			       "without one", file);
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
	if (!pr && from_env && *from_env)
		return err_set(e, ERR_CONFIG, "MECHA_PROVIDER names the provider '%s', but %s has "
				"no [providers.%s] table", c->default_provider,
				c->path ? c->path : "the configuration", c->default_provider);
	if (!pr)
		return err_set(e, ERR_CONFIG, "%s:%d: default_provider names the provider '%s', but "
				"there is no [providers.%s] table", c->path ? c->path : "config.toml",
				c->default_provider_line, c->default_provider, c->default_provider);
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

/*
 * What config_check remembers: the file the last successful load of this
 * process read (or that there was none), so that a verb that loaded the
 * configuration and then opens a store does not read it twice, while a
 * long-lived process (the MCP server) still sees an edit.
 */
struct seen {
	int valid;
	char *path;
	int absent;
	struct stat st;
};

static struct seen accepted;
static pthread_mutex_t accepted_lock = PTHREAD_MUTEX_INITIALIZER;

static int same_file(const struct stat *a, const struct stat *b)
{
	return a->st_dev == b->st_dev && a->st_ino == b->st_ino && a->st_size == b->st_size &&
	       a->st_mtim.tv_sec == b->st_mtim.tv_sec && a->st_mtim.tv_nsec == b->st_mtim.tv_nsec &&
	       a->st_ctim.tv_sec == b->st_ctim.tv_sec && a->st_ctim.tv_nsec == b->st_ctim.tv_nsec;
}

/* 1 when path is, as far as stat can tell, the file this process last accepted. */
static int seen_before(const char *path, int absent, const struct stat *st)
{
	int same;

	pthread_mutex_lock(&accepted_lock);
	same = accepted.valid && strcmp(accepted.path, path) == 0 && accepted.absent == absent &&
	       (absent || same_file(&accepted.st, st));
	pthread_mutex_unlock(&accepted_lock);
	return same;
}

static void remember(const char *path, int absent, const struct stat *st)
{
	pthread_mutex_lock(&accepted_lock);
	free(accepted.path);
	accepted.path = xstrdup(path);
	accepted.absent = absent;
	if (!absent)
		accepted.st = *st;
	accepted.valid = 1;
	pthread_mutex_unlock(&accepted_lock);
}

/* stat of path: 0 it is there, 1 it is not, -1 on another error (in e). */
static int look(const char *path, struct stat *st, struct err *e)
{
	if (stat(path, st) == 0)
		return 0;
	if (errno == ENOENT)
		return 1;
	return err_errno(e, "reading %s", path);
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

/*
 * A home that is not there is not an empty home: a mistyped MECHA_HOME would
 * read as an empty inbox. Named, with how to make one (only `mecha init`
 * and `mecha doctor` reach a home that is not there: home_path).
 */
static int home_there(const char *home, struct err *e)
{
	struct stat st;
	const char *m = getenv("MECHA_HOME");

	if (stat(home, &st) == 0 && S_ISDIR(st.st_mode))
		return 0;
	if (errno != ENOENT && errno != ENOTDIR && stat(home, &st) != 0)
		return err_errno(e, "reading %s", home);
	return err_set(e, ERR_NOT_FOUND, "%s%s is not a mecha home (%s): make one with `mecha init`%s",
		       m && *m ? "MECHA_HOME " : "", home,
		       stat(home, &st) == 0 ? "not a directory" : "no such directory",
		       m && *m ? ", or correct MECHA_HOME" : "");
}

int config_load(struct config *out, struct err *e)
{
	char *home = home_path(HOME_ROOT, e);
	char *path = home && home_there(home, e) == 0 ? home_path(HOME_CONFIG, e) : NULL;
	char *outbox = path ? home_path(HOME_OUTBOX, e) : NULL;
	char *seen = path ? xstrdup(path) : NULL;
	struct stat st;
	int absent = path ? look(path, &st, e) : -1; /* before the read: see seen_before */

	memset(out, 0, sizeof *out);
	if (!outbox || absent < 0 || read_file(out, home, path, e) != 0) {
		free(outbox);
		free(path);
		free(home);
		free(seen);
		return -1;
	}
	resolve_paths(out, outbox);
	if (resolve_provider(out, getenv("MECHA_PROVIDER"), e) != 0) {
		config_free(out);
		free(seen);
		return -1;
	}
	if ((out->path == NULL) == absent) /* the file did not come or go between stat and read */
		remember(seen, absent, &st);
	free(seen);
	return 0;
}

int config_check(struct err *e)
{
	char *path = home_path(HOME_CONFIG, e);
	struct config c;
	struct stat st;
	int absent = path ? look(path, &st, e) : -1;
	int rc = 0;

	if (absent < 0 || !seen_before(path, absent, &st)) {
		rc = absent < 0 ? -1 : config_load(&c, e);
		if (rc == 0)
			config_free(&c);
	}
	free(path);
	return rc;
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
	free(c->notify_digest_to);
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
