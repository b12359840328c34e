/*
 * brief — the boundary. Checked, not trusted: every extracted value either
 * passes its check or stays behind with a reason a person can read.
 */
#include "frontdoor/brief.h"

#include "base/text.h"
#include "requests/grammar.h"
#include "requests/record.h"
#include "frontdoor/sweep.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#define DATE_MIN_CHARS 3
#define DATE_MAX_CHARS 48
#define DATES_MAX 8 /* dates_mentioned: the most that cross (docs/security.md) */

struct summary_rule {
	const char *field;
	size_t max_words;
	size_t max_chars;
};

static const struct summary_rule topic_rule = { "topic", 8, 80 };
static const struct summary_rule institution_rule = { "institution", 12, 120 };

static void hold(json_t *held, const char *field, const json_t *value, const char *reason)
{
	if (held)
		json_array_append_new(held, json_pack("{s:s,s:O,s:s}", "field", field, "value", value,
						      "reason", reason));
}

static size_t count_words(const char *s)
{
	size_t n = 0;
	int in = 0;

	for (; *s; s++) {
		int space = isspace((unsigned char)*s);
		if (!space && !in)
			n++;
		in = !space;
	}
	return n;
}

static int is_mail_char(int c)
{
	return isalnum(c) || c == '.' || c == '_' || c == '%' || c == '+' || c == '-';
}

/* Something@something: where an injection tries to send things. */
static int has_address(const char *s)
{
	for (const char *at = strchr(s, '@'); at; at = strchr(at + 1, '@'))
		if (at > s && is_mail_char((unsigned char)at[-1]) && is_mail_char((unsigned char)at[1]))
			return 1;
	return 0;
}

static int has_url(const char *s)
{
	return strstr(s, "://") || strcasestr(s, "www.") || strcasestr(s, "mailto:");
}

/* A word that names a file: rooted, home-relative, dot-relative, backslashed, or two slashes deep. */
static int has_path(const char *s)
{
	const char *p = s;

	while (*p) {
		size_t n, slashes = 0;
		while (*p && isspace((unsigned char)*p))
			p++;
		n = strcspn(p, " \t\n\r\f\v");
		if (n == 0)
			break;
		if (p[0] == '/' || p[0] == '~' || (n > 1 && p[0] == '.' && p[1] == '/') ||
		    (n > 2 && p[0] == '.' && p[1] == '.' && p[2] == '/') || memchr(p, '\\', n))
			return 1;
		for (size_t i = 0; i < n; i++)
			slashes += p[i] == '/';
		if (slashes >= 2)
			return 1;
		p += n;
	}
	return 0;
}

/* Why a topic or institution cannot cross, or NULL when it can. */
static const char *summary_problem(const char *s, size_t len, const struct summary_rule *rule)
{
	static char why[64];

	if (memchr(s, '\n', len) || memchr(s, '\r', len))
		return "not a single line";
	if (text_has_control(s, len))
		return "holds a control character";
	if (count_words(s) > rule->max_words) {
		snprintf(why, sizeof why, "more than %zu words", rule->max_words);
		return why;
	}
	if (text_utf8_count(s, len) > rule->max_chars) {
		snprintf(why, sizeof why, "longer than %zu characters", rule->max_chars);
		return why;
	}
	if (has_address(s))
		return "holds an e-mail address";
	if (has_url(s))
		return "holds a URL";
	if (has_path(s))
		return "holds a path";
	return NULL;
}

static json_t *checked_summary(const json_t *x, const struct summary_rule *rule, json_t *held)
{
	json_t *v = json_object_get(x, rule->field);
	const char *why;

	if (!json_is_string(v) || json_string_length(v) == 0)
		return json_string("");
	why = summary_problem(json_string_value(v), json_string_length(v), rule);
	if (why) {
		hold(held, rule->field, v, why);
		return json_string("");
	}
	return json_copy(v);
}

static json_t *checked_urgency(const json_t *x, json_t *held)
{
	static const char *const allowed[] = { "", "none", "soon", "urgent", NULL };
	json_t *v = json_object_get(x, "urgency_claimed");
	const char *u = json_string_value(v);

	if (!u)
		return json_string("");
	for (size_t i = 0; allowed[i]; i++)
		if (strcmp(u, allowed[i]) == 0)
			return json_string(u);
	hold(held, "urgency_claimed", v, "not one of none, soon, urgent");
	return json_string("");
}

static int in_prose(const struct prose_field *prose, size_t n, const char *s, size_t len)
{
	for (size_t i = 0; i < n; i++)
		if (memmem(prose[i].text, prose[i].len, s, len))
			return 1;
	return 0;
}

/* Dates only as quoted text that really is in what they wrote. */
static json_t *checked_dates(const struct record *r, const json_t *x, json_t *held)
{
	json_t *out = json_array(), *d;
	struct prose_field *prose;
	size_t n = record_prose(r, &prose), i;

	json_array_foreach(json_object_get(x, "dates_mentioned"), i, d) {
		const char *s = json_string_value(d);
		size_t len = json_string_length(d), chars = text_utf8_count(s, len);
		if (chars < DATE_MIN_CHARS)
			hold(held, "dates_mentioned", d, "too short");
		else if (chars > DATE_MAX_CHARS)
			hold(held, "dates_mentioned", d, "too long");
		else if (!in_prose(prose, n, s, len))
			hold(held, "dates_mentioned", d, "not in the text");
		else if (json_array_size(out) >= DATES_MAX)
			hold(held, "dates_mentioned", d, "more dates than a brief carries (8)");
		else
			json_array_append(out, d);
	}
	free(prose);
	return out;
}

/* The checked four; held-back values go to `held` when it is not NULL. */
static json_t *checked_extraction(const struct record *r, const json_t *x, json_t *held)
{
	json_t *out = json_object();

	json_object_set_new(out, "topic", checked_summary(x, &topic_rule, held));
	json_object_set_new(out, "urgency_claimed", checked_urgency(x, held));
	json_object_set_new(out, "dates_mentioned", checked_dates(r, x, held));
	json_object_set_new(out, "institution", checked_summary(x, &institution_rule, held));
	return out;
}

/*
 * The typed fields the grammar let through (requests/grammar.h): declared by
 * the manifest, of a typed kind, with a value of that kind. Never prose, an
 * attachment's field or `_` machinery.
 */
static json_t *typed_fields(const struct record *r)
{
	json_t *out = json_object(), *v;
	const char *name;

	json_object_foreach(grammar_typed(r), name, v) {
		if (name[0] == '_' || record_is_prose(r, name) || record_is_attachment_field(r, name))
			continue;
		json_object_set(out, name, v);
	}
	return out;
}

/* Measurements only: never the filename, the path, the id or the bytes. */
static json_t *attachment_measurements(const struct record *r)
{
	json_t *out = json_array(), *a;
	size_t i;

	json_array_foreach(record_attachments(r), i, a)
		json_array_append_new(out, json_pack("{s:O,s:O,s:O,s:O}", "field",
						     json_object_get(a, "field"), "size",
						     json_object_get(a, "size"), "content_type",
						     json_object_get(a, "content_type"), "sha256",
						     json_object_get(a, "sha256")));
	return out;
}

json_t *brief_build(const struct record *r)
{
	const json_t *x = record_extraction(r);
	const char *reply_to = record_reply_to(r);
	char received[32];

	/*
	 * Only a record the grammar checked against the home's manifest and let
	 * through. A booking or a cancellation is the sweep's, answered already:
	 * no run is told of it.
	 */
	if (!x || !record_valid(r) || !grammar_checked(r) || grammar_refused(r) || sweep_claims(r))
		return NULL;
	grammar_received(r, received);
	return json_pack("{s:I,s:s,s:s,s:o,s:o,s:o,s:o}", "seq", (json_int_t)r->seq, "type",
			 r->type_id, "received", received, "reply_to",
			 reply_to ? json_string(reply_to) : json_null(), "fields", typed_fields(r),
			 "extracted", checked_extraction(r, x, NULL), "attachments",
			 attachment_measurements(r));
}

json_t *brief_held_back(const struct record *r)
{
	const json_t *x = record_extraction(r);
	json_t *held = json_array();

	if (x)
		json_decref(checked_extraction(r, x, held));
	return held;
}
