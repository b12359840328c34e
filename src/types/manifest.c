/*
 * manifest — from the TOML tree to struct manifest: first the shapes (what
 * strict derive checks (docs/types.md, Validation): every key known, every value of its
 * type, every required key there), then, when the shapes are sound, the rules
 * (check.c) and the booking sections (booking.c). Every issue is kept; the
 * list is sorted by line so it reads down the file.
 */
#include "types/manifest.h"

#include "base/buf.h"
#include "base/err.h"
#include "base/toml.h"
#include "types/booking.h"
#include "types/check.h"
#include "types/decode.h"

#include <stdlib.h>
#include <string.h>

#define USIZE_MAX_LL 0x7fffffffffffffffLL /* TOML's integers stop at i64 */
#define U32_MAX_LL 0xffffffffLL

static const char *const kind_names[] = {
	[MANIFEST_TEXT] = "text",
	[MANIFEST_LONG_TEXT] = "long_text",
	[MANIFEST_EMAIL] = "email",
	[MANIFEST_URL] = "url",
	[MANIFEST_DATE] = "date",
	[MANIFEST_INTEGER] = "integer",
	[MANIFEST_SELECT] = "select",
	[MANIFEST_MULTI_SELECT] = "multi_select",
	[MANIFEST_BOOL] = "bool",
	[MANIFEST_FILE] = "file",
	[MANIFEST_KIND_COUNT] = NULL,
};

/* The keys each kind takes besides the common ones, in the order docs/types.md lists them. */
static const char *const *const kind_keys[] = {
	[MANIFEST_TEXT] = (const char *const[]){ "max_length", "pattern", NULL },
	[MANIFEST_LONG_TEXT] = (const char *const[]){ "max_length", NULL },
	[MANIFEST_EMAIL] = (const char *const[]){ "max_length", NULL },
	[MANIFEST_URL] = (const char *const[]){ "max_length", NULL },
	[MANIFEST_DATE] = (const char *const[]){ "min", "max", NULL },
	[MANIFEST_INTEGER] = (const char *const[]){ "min", "max", NULL },
	[MANIFEST_SELECT] = (const char *const[]){ "options", NULL },
	[MANIFEST_MULTI_SELECT] = (const char *const[]){ "options", "max_choices", NULL },
	[MANIFEST_BOOL] = (const char *const[]){ NULL },
	[MANIFEST_FILE] = (const char *const[]){ "max_bytes", "accept", NULL },
};

static const char *const field_common[] = { "name", "label", "help", "kind", "required",
					    "show_when", NULL };

static const char *const op_names[] = { "eq",  "ne",  "in",      "not_in", "gt",      "gte",
					"lt",  "lte", "present", "absent", "is_true", "is_false",
					NULL };

/* accept's spellings; jpg is an alias of jpeg. */
static const char *const file_spellings[] = { "pdf", "png", "jpeg", "jpg", NULL };

const char *manifest_kind_name(enum manifest_kind kind)
{
	return (unsigned)kind < MANIFEST_KIND_COUNT ? kind_names[kind] : "?";
}

const char *manifest_op_name(enum condition_op op)
{
	return (unsigned)op < CONDITION_OP_COUNT ? op_names[op] : "?";
}

int manifest_is_free_text(enum manifest_kind kind)
{
	return kind == MANIFEST_TEXT || kind == MANIFEST_LONG_TEXT || kind == MANIFEST_EMAIL ||
	       kind == MANIFEST_URL;
}

const char *manifest_file_extension(enum manifest_file_type t)
{
	return t == MANIFEST_PDF ? "pdf" : t == MANIFEST_PNG ? "png" : "jpg";
}

const char *manifest_file_mime(enum manifest_file_type t)
{
	return t == MANIFEST_PDF ? "application/pdf" : t == MANIFEST_PNG ? "image/png" : "image/jpeg";
}

const struct manifest_field *manifest_field(const struct manifest *m, const char *name)
{
	for (size_t i = 0; i < m->nfields; i++)
		if (m->fields[i].name && strcmp(m->fields[i].name, name) == 0)
			return &m->fields[i];
	return NULL;
}

const struct manifest_ack *manifest_ack(const struct manifest *m, const char *id)
{
	for (size_t i = 0; i < m->nacks; i++)
		if (m->acks[i].id && strcmp(m->acks[i].id, id) == 0)
			return &m->acks[i];
	return NULL;
}

char *manifest_id_problem(const char *id, const char *what)
{
	if (!*id)
		return xasprintf("%s is empty", what);
	if (strlen(id) > MANIFEST_ID_MAX)
		return xasprintf("%s `%s` is too long (64 characters max)", what, id);
	if (strspn(id, "abcdefghijklmnopqrstuvwxyz0123456789-_") != strlen(id))
		return xasprintf("%s `%s` may only contain lowercase letters, digits, `-` and `_`",
				 what, id);
	return NULL;
}

/* ---- shapes --------------------------------------------------------------------- */

static struct condition *decode_condition(struct decode *d, const struct toml_value *t,
					  const char *key)
{
	static const char *const keys[] = { "field", "op", "value", NULL };
	const struct toml_value *c = decode_table(d, t, key, 0, "Condition"), *op, *value;
	struct condition *out;
	int i = -1;

	if (!c)
		return NULL;
	decode_deny_unknown(d, c, keys);
	out = xcalloc(1, sizeof *out);
	out->field = decode_string(d, c, "field", 1);
	if ((op = decode_get(d, c, "op", 1)) && op->type == TOML_STRING)
		i = decode_variant(d, op->line, op->u.str.ptr, op_names);
	else if (op)
		decode_wrong_type(d, op, "a string");
	out->op = i < 0 ? CONDITION_EQ : (enum condition_op)i;
	if ((value = toml_get(c, "value")))
		out->value = toml_to_json(value);
	return out;
}

static void decode_options(struct decode *d, const struct toml_value *t, struct manifest_field *f)
{
	static const char *const keys[] = { "value", "label", NULL };
	const struct toml_value *a = decode_array(d, t, "options", 1);

	if (!a)
		return;
	f->options = xcalloc(a->u.array.n + 1, sizeof *f->options);
	for (size_t i = 0; i < a->u.array.n; i++) {
		const struct toml_value *o = a->u.array.items[i];
		if (o->type != TOML_TABLE) {
			decode_wrong_type(d, o, "struct Choice");
			continue;
		}
		decode_deny_unknown(d, o, keys);
		f->options[f->noptions].value = decode_string(d, o, "value", 1);
		f->options[f->noptions].label = decode_string(d, o, "label", 1);
		f->noptions++;
	}
}

static void decode_accept(struct decode *d, const struct toml_value *t, struct manifest_field *f)
{
	const struct toml_value *a = decode_array(d, t, "accept", 1);
	static const enum manifest_file_type types[] = { MANIFEST_PDF, MANIFEST_PNG, MANIFEST_JPEG,
							 MANIFEST_JPEG };

	if (!a)
		return;
	f->accept = xcalloc(a->u.array.n + 1, sizeof *f->accept);
	for (size_t i = 0; i < a->u.array.n; i++) {
		const struct toml_value *v = a->u.array.items[i];
		int k;
		if (v->type != TOML_STRING)
			decode_wrong_type(d, v, "a string");
		else if ((k = decode_variant(d, v->line, v->u.str.ptr, file_spellings)) >= 0)
			f->accept[f->naccept++] = types[k];
	}
}

/* The keys that depend on the kind (serde's internally tagged enum). */
static void decode_kind_keys(struct decode *d, const struct toml_value *t, struct manifest_field *f)
{
	switch (f->kind) {
	case MANIFEST_TEXT:
		f->pattern = decode_string(d, t, "pattern", 0);
		/* fall through */
	case MANIFEST_LONG_TEXT:
		decode_uint(d, t, "max_length", 1, "usize", USIZE_MAX_LL, &f->max_length);
		break;
	case MANIFEST_EMAIL:
	case MANIFEST_URL:
		f->max_length = f->kind == MANIFEST_EMAIL ? 254 : 2048;
		decode_uint(d, t, "max_length", 0, "usize", USIZE_MAX_LL, &f->max_length);
		break;
	case MANIFEST_DATE:
		f->date_min = decode_string(d, t, "min", 0);
		f->date_max = decode_string(d, t, "max", 0);
		break;
	case MANIFEST_INTEGER:
		f->has_min = decode_int(d, t, "min", &f->min) > 0;
		f->has_max = decode_int(d, t, "max", &f->max) > 0;
		break;
	case MANIFEST_MULTI_SELECT:
		decode_uint(d, t, "max_choices", 0, "usize", USIZE_MAX_LL, &f->max_choices);
		/* fall through */
	case MANIFEST_SELECT:
		decode_options(d, t, f);
		break;
	case MANIFEST_FILE:
		f->max_bytes = 8LL * 1024 * 1024;
		decode_uint(d, t, "max_bytes", 0, "u64", USIZE_MAX_LL, &f->max_bytes);
		decode_accept(d, t, f);
		break;
	default:
		break;
	}
}

/*
 * Keys a field of its kind does not take: a check of its own, with its
 * words, run over the raw tables after the rules (a stray key does not stop
 * the rest of the manifest from being checked).
 */
static void field_keys(struct decode *d, const struct toml_value *t, enum manifest_kind kind)
{
	const char *const *specific = kind_keys[kind];
	const struct toml_value *name = toml_get(t, "name");
	struct buf list = BUF_INIT;

	for (size_t i = 0; specific[i]; i++)
		buf_printf(&list, "%s%s", i ? ", " : "", specific[i]);
	for (size_t i = 0; i < t->u.table.n; i++) {
		const char *key = t->u.table.items[i].key;
		int known = 0;
		for (size_t k = 0; field_common[k] && !known; k++)
			known = strcmp(key, field_common[k]) == 0;
		for (size_t k = 0; specific[k] && !known; k++)
			known = strcmp(key, specific[k]) == 0;
		if (!known)
			decode_issue(d, t->u.table.items[i].value->line,
				     "field `%s` has the key `%s`, which a `%s` field does not take "
				     "(it accepts: %s)",
				     name && name->type == TOML_STRING ? name->u.str.ptr : "<unnamed>",
				     key, kind_names[kind], buf_str(&list));
	}
	buf_free(&list);
}

static void decode_field(struct decode *d, const struct toml_value *t, struct manifest_field *f)
{
	const struct toml_value *kind;
	int k = -1;

	f->line = t->line;
	f->max_choices = -1;
	f->name = decode_string(d, t, "name", 1);
	f->label = decode_string(d, t, "label", 1);
	f->help = decode_string(d, t, "help", 0);
	decode_bool(d, t, "required", &f->required);
	f->show_when = decode_condition(d, t, "show_when");
	if ((kind = decode_get(d, t, "kind", 1)) && kind->type != TOML_STRING)
		decode_wrong_type(d, kind, "a string");
	else if (kind)
		k = decode_variant(d, kind->line, kind->u.str.ptr, kind_names);
	if (k < 0) {
		f->kind = MANIFEST_BOOL; /* unknown: nothing kind-specific to read */
		return;
	}
	f->kind = (enum manifest_kind)k;
	decode_kind_keys(d, t, f);
}

static void all_field_keys(struct decode *d, const struct toml_value *root)
{
	const struct toml_value *a = toml_get(root, "fields");

	for (size_t i = 0; a && a->type == TOML_ARRAY && i < a->u.array.n; i++) {
		const struct toml_value *kind = toml_get(a->u.array.items[i], "kind");
		for (int k = 0; kind && kind->type == TOML_STRING && k < MANIFEST_KIND_COUNT; k++)
			if (strcmp(kind->u.str.ptr, kind_names[k]) == 0)
				field_keys(d, a->u.array.items[i], (enum manifest_kind)k);
	}
}

/* Each element of the array at key must be a table (the struct called what). */
static const struct toml_value *table_array(struct decode *d, const struct toml_value *root,
					    const char *key, int required, const char *what,
					    size_t *n)
{
	const struct toml_value *a = decode_array(d, root, key, required);

	*n = 0;
	if (!a)
		return NULL;
	for (size_t i = 0; i < a->u.array.n; i++) {
		const struct toml_value *v = a->u.array.items[i];
		char *exp;
		if (v->type == TOML_TABLE)
			continue;
		exp = xasprintf("struct %s", what);
		decode_wrong_type(d, v, exp);
		free(exp);
	}
	*n = a->u.array.n;
	return a;
}

static void decode_fields(struct decode *d, const struct toml_value *root, struct manifest *m)
{
	size_t n;
	const struct toml_value *a = table_array(d, root, "fields", 1, "Field", &n);

	m->fields = xcalloc(n + 1, sizeof *m->fields);
	for (size_t i = 0; a && i < n; i++)
		if (a->u.array.items[i]->type == TOML_TABLE)
			decode_field(d, a->u.array.items[i], &m->fields[m->nfields++]);
}

static void decode_steps(struct decode *d, const struct toml_value *root, struct manifest *m)
{
	static const char *const keys[] = { "id", "title", "description", "fields", "show_when", NULL };
	size_t n;
	const struct toml_value *a = table_array(d, root, "steps", 0, "Step", &n);

	m->steps = xcalloc(n + 1, sizeof *m->steps);
	for (size_t i = 0; a && i < n; i++) {
		const struct toml_value *t = a->u.array.items[i], *names;
		struct manifest_step *s = &m->steps[m->nsteps];
		if (t->type != TOML_TABLE)
			continue;
		m->nsteps++;
		decode_deny_unknown(d, t, keys);
		s->line = t->line;
		s->id = decode_string(d, t, "id", 1);
		s->title = decode_string(d, t, "title", 1);
		s->description = decode_string(d, t, "description", 0);
		if ((names = decode_array(d, t, "fields", 1)))
			s->fields = decode_strings(d, names, &s->nfields);
		s->show_when = decode_condition(d, t, "show_when");
	}
}

static void decode_acks(struct decode *d, const struct toml_value *root, struct manifest *m)
{
	static const char *const keys[] = { "id", "label", "description", "info_link", NULL };
	size_t n;
	const struct toml_value *a = table_array(d, root, "acknowledgments", 0, "Acknowledgment", &n);

	m->acks = xcalloc(n + 1, sizeof *m->acks);
	for (size_t i = 0; a && i < n; i++) {
		const struct toml_value *t = a->u.array.items[i];
		struct manifest_ack *k = &m->acks[m->nacks];
		if (t->type != TOML_TABLE)
			continue;
		m->nacks++;
		decode_deny_unknown(d, t, keys);
		k->line = t->line;
		k->id = decode_string(d, t, "id", 1);
		k->label = decode_string(d, t, "label", 1);
		k->description = decode_string(d, t, "description", 0);
		k->info_link = decode_string(d, t, "info_link", 0);
	}
}

static void decode_verification(struct decode *d, const struct toml_value *root, struct manifest *m)
{
	static const char *const keys[] = { "field", "expires_hours", NULL };
	const struct toml_value *t = decode_table(d, root, "verification", 0, "Verification");

	if (!t)
		return;
	decode_deny_unknown(d, t, keys);
	m->verification = xcalloc(1, sizeof *m->verification);
	m->verification->line = t->line;
	m->verification->field = decode_string(d, t, "field", 1);
	m->verification->expires_hours = 48;
	decode_uint(d, t, "expires_hours", 0, "u32", U32_MAX_LL, &m->verification->expires_hours);
}

static void decode_confirmation(struct decode *d, const struct toml_value *root, struct manifest *m)
{
	static const char *const keys[] = { "heading", "body", "expect_reply_within", NULL };
	const struct toml_value *t = decode_table(d, root, "confirmation", 0, "Confirmation");

	if (!t)
		return;
	decode_deny_unknown(d, t, keys);
	m->confirmation = xcalloc(1, sizeof *m->confirmation);
	m->confirmation->line = t->line;
	m->confirmation->heading = decode_string(d, t, "heading", 1);
	m->confirmation->body = decode_string(d, t, "body", 1);
	m->confirmation->expect_reply_within = decode_string(d, t, "expect_reply_within", 0);
}

static void decode_top(struct decode *d, const struct toml_value *root, struct manifest *m)
{
	static const char *const keys[] = { "id",           "version",         "title",
					    "description",  "retain_days",     "fields",
					    "steps",        "acknowledgments", "verification",
					    "confirmation", "kind",            "availability",
					    "policy",       NULL };
	static const char *const kinds[] = { "request", "booking", NULL };
	const struct toml_value *v;

	decode_deny_unknown(d, root, keys);
	m->id = decode_string(d, root, "id", 1);
	m->id_line = (v = toml_get(root, "id")) ? v->line : 1;
	decode_uint(d, root, "version", 1, "u32", U32_MAX_LL, &m->version);
	m->title = decode_string(d, root, "title", 1);
	m->description = decode_string(d, root, "description", 0);
	m->retain_days = -1;
	decode_uint(d, root, "retain_days", 0, "u32", U32_MAX_LL, &m->retain_days);
	decode_fields(d, root, m);
	decode_steps(d, root, m);
	decode_acks(d, root, m);
	decode_verification(d, root, m);
	decode_confirmation(d, root, m);
	m->kind_line = (v = toml_get(root, "kind")) ? v->line : 1;
	if (v && v->type != TOML_STRING)
		decode_wrong_type(d, v, "a string");
	else if (v)
		m->booking = decode_variant(d, v->line, v->u.str.ptr, kinds) == 1;
	m->availability = booking_decode_availability(d, root);
	m->policy = booking_decode_policy(d, root);
}

/* ---- the whole ---------------------------------------------------------------------- */

static int by_line(const void *a, const void *b)
{
	const struct manifest_issue *x = a, *y = b;

	return (x->line > y->line) - (x->line < y->line);
}

static void sort_issues(struct manifest_issues *is, size_t from)
{
	/* qsort is not stable; two issues on one line keep the order they were found in. */
	for (size_t i = from + 1; i < is->n; i++)
		for (size_t j = i; j > from && by_line(&is->v[j - 1], &is->v[j]) > 0; j--) {
			struct manifest_issue t = is->v[j];
			is->v[j] = is->v[j - 1];
			is->v[j - 1] = t;
		}
}

struct manifest *manifest_parse(const char *text, size_t len, struct manifest_issues *issues)
{
	struct decode d = { issues, issues->n };
	struct toml_value *root;
	struct manifest *m;
	struct err e;

	if (!(root = toml_parse(text, len, "", &e))) {
		/* e.msg is ":LINE: what"; the caller names the file. */
		char *colon = strchr(e.msg + 1, ':');
		/* NOLINTNEXTLINE(cert-err34-c): the line number our own TOML reader wrote */
		decode_issue(&d, atoi(e.msg + 1), "%s", colon ? colon + 2 : e.msg);
		return NULL;
	}
	m = xcalloc(1, sizeof *m);
	decode_top(&d, root, m);
	if (decode_clean(&d))
		check_manifest(&d, m);
	all_field_keys(&d, root);
	toml_free(root);
	sort_issues(issues, d.before);
	if (!decode_clean(&d)) {
		manifest_free(m);
		return NULL;
	}
	return m;
}

/* ---- freeing ------------------------------------------------------------------------ */

static void condition_free(struct condition *c)
{
	if (!c)
		return;
	free(c->field);
	json_decref(c->value);
	free(c);
}

static void field_free(struct manifest_field *f)
{
	free(f->name);
	free(f->label);
	free(f->help);
	condition_free(f->show_when);
	free(f->pattern);
	free(f->date_min);
	free(f->date_max);
	for (size_t i = 0; i < f->noptions; i++) {
		free(f->options[i].value);
		free(f->options[i].label);
	}
	free(f->options);
	free(f->accept);
}

static void strings_free(char **v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(v[i]);
	free(v);
}

void manifest_free(struct manifest *m)
{
	if (!m)
		return;
	for (size_t i = 0; i < m->nfields; i++)
		field_free(&m->fields[i]);
	free(m->fields);
	for (size_t i = 0; i < m->nsteps; i++) {
		free(m->steps[i].id);
		free(m->steps[i].title);
		free(m->steps[i].description);
		strings_free(m->steps[i].fields, m->steps[i].nfields);
		condition_free(m->steps[i].show_when);
	}
	free(m->steps);
	for (size_t i = 0; i < m->nacks; i++) {
		free(m->acks[i].id);
		free(m->acks[i].label);
		free(m->acks[i].description);
		free(m->acks[i].info_link);
	}
	free(m->acks);
	if (m->verification)
		free(m->verification->field);
	free(m->verification);
	if (m->confirmation) {
		free(m->confirmation->heading);
		free(m->confirmation->body);
		free(m->confirmation->expect_reply_within);
	}
	free(m->confirmation);
	booking_free(m->availability, m->policy);
	free(m->id);
	free(m->title);
	free(m->description);
	free(m);
}

void manifest_issues_free(struct manifest_issues *is)
{
	for (size_t i = 0; i < is->n; i++)
		free(is->v[i].message);
	free(is->v);
	is->v = NULL;
	is->n = 0;
}
