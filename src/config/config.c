/*
 * config — one strict pass over config.toml, straight into struct config.
 *
 * There is no generic TOML tree: each `key = value` is checked against the
 * table of keys mecha knows the moment it is read, so an error always names
 * the line it came from. The lexer refuses every TOML construct outside the
 * subset by name ("floats are not supported") rather than misreading it.
 */
#include "config/config.h"

#include "base/buf.h"
#include "base/err.h"
#include "base/fs.h"
#include "base/text.h"
#include "config/home.h"

#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

enum table { T_ROOT, T_PROVIDERS, T_PROVIDER, T_OUTBOX, T_MAIL, T_CALENDAR, T_MISSIONS };

static const char *const table_names[] = {
	[T_ROOT] = "the top level", [T_PROVIDERS] = "[providers]", [T_PROVIDER] = "[providers.*]",
	[T_OUTBOX] = "[outbox]",    [T_MAIL] = "[mail]",           [T_CALENDAR] = "[calendar]",
	[T_MISSIONS] = "[missions]",
};

enum vtype { V_STR, V_INT, V_BOOL, V_ARR };

static const char *const vtype_names[] = {
	[V_STR] = "a string", [V_INT] = "an integer", [V_BOOL] = "a boolean",
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

struct value {
	enum vtype type;
	char *s;
	long long i;
	int b;
	char **arr;
	size_t n;
};

struct parser {
	const char *p, *end;
	const char *file;
	int line;
	struct config *cfg;
	struct err *e;
	enum table tab;
	int tab_line;    /* where the current table's header is */
	unsigned seen;   /* bit i: keys[i] already set in the current table */
	unsigned opened; /* bit t: table t already had its header */
};

static int fail(struct parser *ps, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static int fail(struct parser *ps, const char *fmt, ...)
{
	char msg[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	return err_set(ps->e, ERR_CONFIG, "%s:%d: %s", ps->file, ps->line, msg);
}

static void value_free(struct value *v)
{
	free(v->s);
	for (size_t i = 0; i < v->n; i++)
		free(v->arr[i]);
	free(v->arr);
	memset(v, 0, sizeof *v);
}

/* ---- lexing ---------------------------------------------------------------- */

static int at_end(const struct parser *ps)
{
	return ps->p >= ps->end;
}

static void skip_blank(struct parser *ps)
{
	while (!at_end(ps) && (*ps->p == ' ' || *ps->p == '\t'))
		ps->p++;
}

static int at_newline(const struct parser *ps)
{
	return !at_end(ps) &&
	       (*ps->p == '\n' || (*ps->p == '\r' && ps->p + 1 < ps->end && ps->p[1] == '\n'));
}

static void skip_comment(struct parser *ps)
{
	if (!at_end(ps) && *ps->p == '#')
		while (!at_end(ps) && *ps->p != '\n')
			ps->p++;
}

/* Blanks, then an optional comment, then a newline or the end of the text. */
static int expect_eol(struct parser *ps)
{
	skip_blank(ps);
	skip_comment(ps);
	if (at_end(ps))
		return 0;
	if (*ps->p == '\r')
		ps->p++;
	if (at_end(ps) || *ps->p != '\n')
		return fail(ps, "unexpected text after the value");
	ps->p++;
	ps->line++;
	return 0;
}

/* Blanks, comments and newlines (inside an array). */
static void skip_space(struct parser *ps)
{
	for (;;) {
		skip_blank(ps);
		skip_comment(ps);
		if (!at_newline(ps))
			return;
		ps->p += *ps->p == '\r' ? 2 : 1;
		ps->line++;
	}
}

static int is_bare(char c)
{
	return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') ||
	       c == '_' || c == '-';
}

static int is_control(unsigned char c)
{
	return (c < 0x20 && c != '\t') || c == 0x7f;
}

static int hexval(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

static void add_utf8(struct buf *b, unsigned cp)
{
	char s[4];

	buf_add(b, s, text_utf8_encode(cp, s));
}

static int unicode_escape(struct parser *ps, int digits, struct buf *b)
{
	unsigned cp = 0;

	if (ps->end - ps->p < digits)
		return fail(ps, "a \\u escape needs %d hex digits", digits);
	for (int i = 0; i < digits; i++) {
		int h = hexval(ps->p[i]);
		if (h < 0)
			return fail(ps, "a \\u escape needs %d hex digits", digits);
		cp = cp * 16 + (unsigned)h;
	}
	if (cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff))
		return fail(ps, "\\u escape U+%X is not a Unicode scalar value", cp);
	ps->p += digits;
	add_utf8(b, cp);
	return 0;
}

static int escape(struct parser *ps, struct buf *b)
{
	static const char from[] = "btnfr\"\\";
	static const char to[] = "\b\t\n\f\r\"\\";
	const char *hit;
	char c;

	if (at_end(ps))
		return fail(ps, "unterminated string");
	c = *ps->p++;
	if (c == 'u')
		return unicode_escape(ps, 4, b);
	if (c == 'U')
		return unicode_escape(ps, 8, b);
	hit = c ? strchr(from, c) : NULL;
	if (!hit)
		return fail(ps, "unknown escape \\%c in a string", is_control((unsigned char)c) ? '?' : c);
	buf_addc(b, to[hit - from]);
	return 0;
}

/* A basic ("…") or literal ('…') string on one line; ps->p is on the quote. */
static int string(struct parser *ps, char **out)
{
	char quote = *ps->p++;
	struct buf b = BUF_INIT;

	if (ps->end - ps->p >= 2 && ps->p[0] == quote && ps->p[1] == quote)
		return fail(ps, "multi-line strings are not supported");
	for (;;) {
		unsigned char c;
		if (at_end(ps) || *ps->p == '\n' || *ps->p == '\r')
			goto bad_end;
		c = (unsigned char)*ps->p++;
		if (c == (unsigned char)quote)
			break;
		if (is_control(c)) {
			buf_free(&b);
			return fail(ps, "a control character inside a string");
		}
		if (c == '\\' && quote == '"') {
			if (escape(ps, &b) != 0)
				goto out;
			continue;
		}
		buf_addc(&b, (char)c);
	}
	if (!text_utf8_valid(buf_str(&b), b.len)) {
		buf_free(&b);
		return fail(ps, "a string that is not valid UTF-8");
	}
	*out = buf_steal(&b);
	return 0;
bad_end:
	fail(ps, "unterminated string");
out:
	buf_free(&b);
	return -1;
}

/* Something that is valid TOML but not part of the subset, named. */
static int unsupported(struct parser *ps)
{
	const char *p = ps->p;
	int colon = 0, dash = 0, dot = 0, exp = 0;

	if (p < ps->end && (*p == '+' || *p == '-'))
		p++;
	if ((size_t)(ps->end - p) >= 3 && (memcmp(p, "inf", 3) == 0 || memcmp(p, "nan", 3) == 0))
		return fail(ps, "floats are not supported here");
	if (p == ps->end || *p < '0' || *p > '9')
		return fail(ps, "not a value this configuration understands");
	if (*p == '0' && p + 1 < ps->end && (p[1] == 'x' || p[1] == 'o' || p[1] == 'b'))
		return fail(ps, "only decimal integers are supported here");
	for (; p < ps->end && (is_bare(*p) || *p == '.' || *p == ':' || *p == '+'); p++) {
		colon |= *p == ':';
		dash |= *p == '-';
		dot |= *p == '.';
		exp |= *p == 'e' || *p == 'E';
	}
	if (colon || dash)
		return fail(ps, "dates and times are not supported here");
	if (dot || exp)
		return fail(ps, "floats are not supported here");
	return fail(ps, "not a value this configuration understands");
}

/* The token at ps->p: what a value runs to before a blank, a comment or a newline. */
static const char *token_end(const struct parser *ps)
{
	const char *q = ps->p;

	while (q < ps->end && (is_bare(*q) || *q == '+' || *q == '.' || *q == ':'))
		q++;
	return q;
}

/* Decimal only, underscores only between digits, no leading zero, no overflow. */
static int integer(struct parser *ps, long long *out)
{
	const char *end = token_end(ps), *q = ps->p;
	int neg = 0;
	unsigned long long v = 0, limit;

	if (*q == '+' || *q == '-')
		neg = *q++ == '-';
	if (q == end || *q < '0' || *q > '9' || end[-1] < '0' || end[-1] > '9')
		return unsupported(ps);
	for (const char *r = q; r < end; r++)
		if ((*r < '0' || *r > '9') && !(*r == '_' && r[-1] != '_'))
			return unsupported(ps);
	if (*q == '0' && end - q > 1)
		return fail(ps, "an integer with a leading zero");
	limit = neg ? (unsigned long long)LLONG_MAX + 1 : (unsigned long long)LLONG_MAX;
	for (; q < end; q++) {
		unsigned d = (unsigned)(*q - '0');
		if (*q == '_')
			continue;
		if (v > (limit - d) / 10)
			return fail(ps, "an integer too large");
		v = v * 10 + d;
	}
	ps->p = end;
	*out = neg ? (long long)(0 - v) : (long long)v;
	return 0;
}

static int word(struct parser *ps, const char *w)
{
	size_t n = strlen(w);

	if ((size_t)(ps->end - ps->p) < n || memcmp(ps->p, w, n) != 0)
		return 0;
	if (ps->p + n < ps->end && is_bare(ps->p[n]))
		return 0;
	ps->p += n;
	return 1;
}

static int array(struct parser *ps, struct value *v)
{
	ps->p++; /* '[' */
	v->type = V_ARR;
	for (;;) {
		skip_space(ps);
		if (at_end(ps))
			return fail(ps, "unterminated array");
		if (*ps->p == ']')
			break;
		if (*ps->p != '"' && *ps->p != '\'')
			return fail(ps, "arrays hold only strings here");
		v->arr = xrealloc(v->arr, (v->n + 1) * sizeof *v->arr);
		if (string(ps, &v->arr[v->n]) != 0)
			return -1;
		v->n++;
		skip_space(ps);
		if (!at_end(ps) && *ps->p == ',') {
			ps->p++;
			continue;
		}
		if (at_end(ps) || *ps->p != ']')
			return fail(ps, "expected ',' or ']' in an array");
		break;
	}
	ps->p++; /* ']' */
	return 0;
}

static int value(struct parser *ps, struct value *v)
{
	char c;

	memset(v, 0, sizeof *v);
	if (at_end(ps) || at_newline(ps) || *ps->p == '#')
		return fail(ps, "expected a value after '='");
	c = *ps->p;
	if (c == '"' || c == '\'') {
		v->type = V_STR;
		return string(ps, &v->s);
	}
	if (c == '[')
		return array(ps, v);
	if (c == '{')
		return fail(ps, "inline tables are not supported");
	if (word(ps, "true") || word(ps, "false")) {
		v->type = V_BOOL;
		v->b = c == 't';
		return 0;
	}
	if (c == '+' || c == '-' || (c >= '0' && c <= '9')) {
		v->type = V_INT;
		return integer(ps, &v->i);
	}
	return unsupported(ps);
}

/* A bare or quoted key. */
static int key_name(struct parser *ps, char **out)
{
	const char *start = ps->p;

	if (!at_end(ps) && (*ps->p == '"' || *ps->p == '\''))
		return string(ps, out);
	while (!at_end(ps) && is_bare(*ps->p))
		ps->p++;
	if (ps->p == start)
		return fail(ps, "expected a key");
	*out = xmalloc((size_t)(ps->p - start) + 1);
	memcpy(*out, start, (size_t)(ps->p - start));
	(*out)[ps->p - start] = '\0';
	return 0;
}

/* ---- meaning --------------------------------------------------------------- */

static struct config_provider *current_provider(struct parser *ps)
{
	return &ps->cfg->providers[ps->cfg->nproviders - 1];
}

/* A provider table is complete when the next header (or the end) arrives. */
static int close_table(struct parser *ps)
{
	if (ps->tab == T_PROVIDER && !current_provider(ps)->kind)
		return err_set(ps->e, ERR_CONFIG, "%s:%d: [providers.%s] needs kind = \"openai\", "
				"\"anthropic\" or \"rules\"", ps->file, ps->tab_line,
				current_provider(ps)->name);
	return 0;
}

static int open_fixed(struct parser *ps, enum table t, const char *name)
{
	if (ps->opened & (1u << t))
		return fail(ps, "table [%s] is defined twice", name);
	ps->opened |= 1u << t;
	ps->tab = t;
	return 0;
}

static int open_provider(struct parser *ps, char *name)
{
	struct config *c = ps->cfg;
	struct config_provider *pr;

	if (config_provider_named(c, name)) {
		fail(ps, "table [providers.%s] is defined twice", name);
		free(name);
		return -1;
	}
	c->providers = xrealloc(c->providers, (c->nproviders + 1) * sizeof *c->providers);
	pr = &c->providers[c->nproviders++];
	memset(pr, 0, sizeof *pr);
	pr->name = name;
	pr->timeout_s = CONFIG_TIMEOUT_S;
	pr->connect_timeout_s = CONFIG_CONNECT_TIMEOUT_S;
	ps->tab = T_PROVIDER;
	return 0;
}

static int open_table(struct parser *ps, char **seg, size_t n)
{
	static const struct {
		const char *name;
		enum table t;
	} fixed[] = { { "providers", T_PROVIDERS }, { "outbox", T_OUTBOX }, { "mail", T_MAIL },
		      { "calendar", T_CALENDAR },   { "missions", T_MISSIONS } };

	if (close_table(ps) != 0)
		return -1;
	ps->seen = 0;
	ps->tab_line = ps->line;
	if (n == 2 && strcmp(seg[0], "providers") == 0) {
		char *name = seg[1];
		seg[1] = NULL;
		return open_provider(ps, name);
	}
	for (size_t i = 0; n == 1 && i < sizeof fixed / sizeof fixed[0]; i++)
		if (strcmp(seg[0], fixed[i].name) == 0)
			return open_fixed(ps, fixed[i].t, seg[0]);
	{
		struct buf b = BUF_INIT;
		int rc;
		for (size_t i = 0; i < n; i++) {
			if (i)
				buf_addc(&b, '.');
			text_safe(&b, seg[i], strlen(seg[i]), 0);
		}
		rc = fail(ps, "unknown table [%s]", buf_str(&b));
		buf_free(&b);
		return rc;
	}
}

#define MAX_SEGMENTS 8

static int header(struct parser *ps)
{
	char *seg[MAX_SEGMENTS];
	size_t n = 0;
	int rc = -1;

	ps->p++; /* '[' */
	if (!at_end(ps) && *ps->p == '[')
		return fail(ps, "arrays of tables ([[…]]) are not supported");
	for (;;) {
		skip_blank(ps);
		if (n == MAX_SEGMENTS) {
			fail(ps, "a table name with too many parts");
			goto out;
		}
		if (key_name(ps, &seg[n]) != 0)
			goto out;
		n++;
		skip_blank(ps);
		if (!at_end(ps) && *ps->p == '.') {
			ps->p++;
			continue;
		}
		if (at_end(ps) || *ps->p != ']') {
			fail(ps, "expected ']' to close the table header");
			goto out;
		}
		ps->p++;
		break;
	}
	rc = open_table(ps, seg, n);
out:
	for (size_t i = 0; i < n; i++)
		free(seg[i]);
	return rc;
}

static int check_setting(struct parser *ps, const struct key *k, const struct value *v)
{
	if (k->tab == T_PROVIDER && strcmp(k->name, "kind") == 0 && strcmp(v->s, "openai") != 0 &&
	    strcmp(v->s, "anthropic") != 0 && strcmp(v->s, "rules") != 0)
		return fail(ps, "kind must be \"openai\", \"anthropic\" or \"rules\"");
	if (k->type == V_INT && (v->i <= 0 || v->i > 86400))
		return fail(ps, "%s must be between 1 and 86400 seconds", k->name);
	return 0;
}

/* Moves v into the field k names; v's storage now belongs to the config. */
static void store(struct parser *ps, const struct key *k, struct value *v)
{
	char *base = k->tab == T_PROVIDER ? (char *)current_provider(ps) : (char *)ps->cfg;

	switch (k->type) {
	case V_STR:
		*(char **)(void *)(base + k->off) = v->s;
		v->s = NULL;
		break;
	case V_INT:
		*(long *)(void *)(base + k->off) = (long)v->i;
		break;
	case V_ARR:
		*(char ***)(void *)(base + k->off) = v->arr;
		*(size_t *)(void *)(base + k->count_off) = v->n;
		v->arr = NULL;
		v->n = 0;
		break;
	case V_BOOL:
		break;
	}
}

static int set(struct parser *ps, const char *name, struct value *v)
{
	for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++) {
		const struct key *k = &keys[i];
		if (k->tab != ps->tab || strcmp(k->name, name) != 0)
			continue;
		if (ps->seen & (1u << i))
			return fail(ps, "%s is set twice", name);
		if (v->type != k->type)
			return fail(ps, "%s must be %s, not %s", name, vtype_names[k->type],
				    vtype_names[v->type]);
		if (check_setting(ps, k, v) != 0)
			return -1;
		ps->seen |= 1u << i;
		store(ps, k, v);
		return 0;
	}
	{
		struct buf b = BUF_INIT;
		int rc;
		text_safe(&b, name, strlen(name), 0);
		rc = fail(ps, "unknown key '%s' in %s", buf_str(&b), table_names[ps->tab]);
		buf_free(&b);
		return rc;
	}
}

static int assignment(struct parser *ps)
{
	char *name = NULL;
	struct value v;
	int rc = -1;

	memset(&v, 0, sizeof v);
	if (key_name(ps, &name) != 0)
		return -1;
	skip_blank(ps);
	if (!at_end(ps) && *ps->p == '.') {
		fail(ps, "dotted keys are not supported; use a [table] header");
		goto out;
	}
	if (at_end(ps) || *ps->p != '=') {
		fail(ps, "expected '=' after the key");
		goto out;
	}
	ps->p++;
	skip_blank(ps);
	if (value(ps, &v) != 0)
		goto out;
	rc = set(ps, name, &v);
out:
	value_free(&v);
	free(name);
	return rc;
}

static int parse_lines(struct parser *ps)
{
	while (!at_end(ps)) {
		skip_blank(ps);
		if (at_end(ps))
			break;
		if (*ps->p == '[') {
			if (header(ps) != 0)
				return -1;
		} else if (*ps->p != '#' && !at_newline(ps)) {
			if (assignment(ps) != 0)
				return -1;
		}
		if (expect_eol(ps) != 0)
			return -1;
	}
	return close_table(ps);
}

int config_parse(const char *text, size_t len, const char *file, struct config *out,
		 struct err *e)
{
	struct parser ps;
	const char *nul = memchr(text, '\0', len);

	memset(out, 0, sizeof *out);
	memset(&ps, 0, sizeof ps);
	ps.p = text;
	ps.end = text + len;
	ps.file = file;
	ps.line = 1;
	ps.cfg = out;
	ps.e = e;
	ps.tab = T_ROOT;
	if (nul) {
		/* Not TOML, and it would cut a C string short: refuse it where it is. */
		for (const char *q = text; q < nul; q++)
			ps.line += *q == '\n';
		return fail(&ps, "a NUL byte");
	}
	if (parse_lines(&ps) != 0) {
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
