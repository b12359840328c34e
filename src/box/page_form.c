/*
 * page_form — the form built from a manifest, and the upload page after it;
 * the document every page shares; and the fields as controls, which the
 * booking page uses too.
 *
 * Ids are a prefix, a dash and the field's name ("f-topic", "help-topic",
 * "error-topic"). A prefix holds no dash, so the first dash of an id ends
 * it, and a name (which may hold dashes) can never make two ids equal.
 *
 * A conditional field is rendered whatever the answers: without scripts the
 * browser cannot hide it, so it says when it applies and does not carry
 * `required` (data-required tells the script to put it back while shown).
 */
#include "box/page.h"

#include "base/buf.h"
#include "base/text.h"
#include "box/html.h"
#include "box/page_parts.h"
#include "types/manifest.h"
#include "types/validate.h"

#include <stdlib.h>
#include <string.h>

/* ---- the document ---------------------------------------------------------------------- */

void page_open(struct buf *b, const struct page_ctx *ctx, const char *title, unsigned flags)
{
	html_put(b,
		 "<!DOCTYPE html>\n<html lang=\"%s\">\n<head>\n<meta charset=\"utf-8\">\n"
		 "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
		 "<title>%s</title>\n",
		 ctx && ctx->lang ? ctx->lang : "en", title);
	if (ctx && ctx->assets) {
		html_put(b, "<link rel=\"stylesheet\" href=\"%s" PAGE_CSS "\">\n", ctx->assets);
		if (flags & PAGE_WITH_SCRIPT)
			html_put(b, "<script src=\"%s" PAGE_JS "\" defer></script>\n", ctx->assets);
	}
	buf_adds(b, "</head>\n<body>\n<main>\n");
}

char *page_close(struct buf *b)
{
	buf_adds(b, "</main>\n</body>\n</html>\n");
	return buf_steal(b);
}

char *page_simple(const struct page_ctx *ctx, const char *title, const char *heading,
		  const char *paragraph)
{
	struct buf b = BUF_INIT;

	page_open(&b, ctx, title, 0);
	html_put(&b, "<h1>%s</h1>\n", heading);
	buf_adds(&b, paragraph); /* markup from our own literals */
	return page_close(&b);
}

/* ---- reading the answers ------------------------------------------------------------------ */

static const json_t *value_of(const json_t *values, const char *name)
{
	return json_is_object(values) ? json_object_get(values, name) : NULL;
}

/* A value as an input shows it: a string as posted, a number as written, anything else empty. */
static void value_text(struct buf *b, const json_t *v)
{
	if (json_is_string(v))
		html_escape(b, json_string_value(v), json_string_length(v));
	else if (json_is_integer(v))
		buf_printf(b, "%lld", (long long)json_integer_value(v));
	else if (json_is_real(v))
		buf_printf(b, "%.17g", json_real_value(v));
}

/* 1 when s, trimmed, is what v is (v a string, or an array holding it). */
static int value_has(const json_t *v, const char *s)
{
	const json_t *item;
	size_t i, off, n;

	if (json_is_array(v)) {
		json_array_foreach(v, i, item)
			if (value_has(item, s))
				return 1;
		return 0;
	}
	if (!json_is_string(v))
		return 0;
	text_trim(json_string_value(v), json_string_length(v), &off, &n);
	return n == strlen(s) && memcmp(json_string_value(v) + off, s, n) == 0;
}

/* A ticked box: true, or a string validate.c's checked() reads as yes. */
static int value_ticked(const json_t *v)
{
	return json_is_true(v) || value_has(v, "on") || value_has(v, "true") || value_has(v, "1") ||
	       value_has(v, "yes");
}

/* The messages about name, joined; 0 when there are none. */
static int messages(struct buf *b, const json_t *errors, const char *name)
{
	const json_t *e;
	size_t i;
	int n = 0;

	json_array_foreach(errors, i, e) {
		const char *field = json_string_value(json_object_get(e, "field"));
		if (!field || strcmp(field, name) != 0)
			continue;
		html_put(b, "%s%s", n++ ? "; " : "",
			 json_string_value(json_object_get(e, "message")));
	}
	return n;
}

static int has_error(const json_t *errors, const char *name)
{
	struct buf scratch = BUF_INIT;
	int n = messages(&scratch, errors, name);

	buf_free(&scratch);
	return n;
}

/* ---- what surrounds a control ---------------------------------------------------------- */

/* What a control's describedby names, and whether it is required where it stands. */
struct field_parts {
	const char *name;
	int help, when, error, limits;
	int required;    /* the field must be answered */
	int conditional; /* it may not apply: no `required` attribute */
};

static void describedby(struct buf *b, const struct field_parts *p)
{
	const char *sep = "";

	if (!p->help && !p->when && !p->error && !p->limits)
		return;
	buf_adds(b, " aria-describedby=\"");
	if (p->help)
		html_put(b, "help-%s", p->name), sep = " ";
	if (p->when)
		html_put(b, "%swhen-%s", sep, p->name), sep = " ";
	if (p->limits)
		html_put(b, "%slimits-%s", sep, p->name), sep = " ";
	if (p->error)
		html_put(b, "%serror-%s", sep, p->name);
	buf_adds(b, "\"");
}

/* The attributes every control of a field carries. */
static void control_attrs(struct buf *b, const struct field_parts *p)
{
	if (p->required && !p->conditional)
		buf_adds(b, " required");
	else if (p->required)
		buf_adds(b, " data-required=\"true\"");
	if (p->error)
		buf_adds(b, " aria-invalid=\"true\"");
	describedby(b, p);
}

static void required_mark(struct buf *b, int required)
{
	if (required)
		buf_adds(b, " <span class=\"req\">(required)</span>");
}

static void error_line(struct buf *b, const json_t *errors, const char *name)
{
	if (!has_error(errors, name))
		return;
	html_put(b, "<p class=\"error\" id=\"error-%s\">", name);
	messages(b, errors, name);
	buf_adds(b, "</p>\n");
}

/* ---- show_when, said in words ------------------------------------------------------------ */

static const char *label_of(const struct manifest *m, const char *name)
{
	const struct manifest_field *f = manifest_field(m, name);
	const struct manifest_ack *a = f ? NULL : manifest_ack(m, name);

	return f ? f->label : a ? a->label : name;
}

/* A compared value in words: an option's label, a quoted string, a number. */
static void value_words(struct buf *b, const struct manifest *m, const char *field, const json_t *v)
{
	const struct manifest_field *f = manifest_field(m, field);
	char *text;

	if (json_is_string(v)) {
		for (size_t i = 0; f && i < f->noptions; i++)
			if (strcmp(f->options[i].value, json_string_value(v)) == 0) {
				html_put(b, "\xe2\x80\x9c%s\xe2\x80\x9d", f->options[i].label);
				return;
			}
		html_put(b, "\xe2\x80\x9c%s\xe2\x80\x9d", json_string_value(v));
		return;
	}
	if (json_is_boolean(v)) {
		buf_adds(b, json_is_true(v) ? "ticked" : "not ticked");
		return;
	}
	text = json_dumps(v, JSON_ENCODE_ANY | JSON_COMPACT);
	html_text(b, text ? text : "");
	free(text);
}

/* "A", "A or B", "A, B or C". */
static void value_list(struct buf *b, const struct manifest *m, const char *field, const json_t *v)
{
	size_t n = json_array_size(v);

	for (size_t i = 0; i < n; i++) {
		buf_adds(b, i == 0 ? "" : i + 1 == n ? " or " : ", ");
		value_words(b, m, field, json_array_get(v, i));
	}
}

/* "only if “Purpose” is “Something else”" and its kin, for each operator. */
static void condition_words(struct buf *b, const struct manifest *m, const struct condition *c)
{
	static const char *const phrase[CONDITION_OP_COUNT] = {
		[CONDITION_EQ] = " is ",
		[CONDITION_NE] = " is answered and is not ",
		[CONDITION_IN] = " is ",
		[CONDITION_NOT_IN] = " is answered and is not ",
		[CONDITION_GT] = " is more than ",
		[CONDITION_GTE] = " is at least ",
		[CONDITION_LT] = " is less than ",
		[CONDITION_LTE] = " is at most ",
		[CONDITION_PRESENT] = " is answered",
		[CONDITION_ABSENT] = " is left blank",
		[CONDITION_IS_TRUE] = " is ticked",
		[CONDITION_IS_FALSE] = " is not ticked",
	};

	html_put(b, "only if \xe2\x80\x9c%s\xe2\x80\x9d%s", label_of(m, c->field), phrase[c->op]);
	if (c->op == CONDITION_IN || c->op == CONDITION_NOT_IN)
		value_list(b, m, c->field, c->value);
	else if (c->value && c->op != CONDITION_PRESENT && c->op != CONDITION_ABSENT &&
		 c->op != CONDITION_IS_TRUE && c->op != CONDITION_IS_FALSE)
		value_words(b, m, c->field, c->value);
}

/* data-when-*: what PAGE_JS evaluates, the same condition the note says in words. */
static void condition_data(struct buf *b, const struct condition *c)
{
	char *value;

	html_put(b, " data-when-field=\"%s\" data-when-op=\"%s\"", c->field,
		 manifest_op_name(c->op));
	if (!c->value)
		return;
	value = json_dumps(c->value, JSON_ENCODE_ANY | JSON_COMPACT);
	html_put(b, " data-when-value=\"%s\"", value ? value : "null");
	free(value);
}

static const struct manifest_step *step_of(const struct manifest *m, const char *name)
{
	for (size_t i = 0; i < m->nsteps; i++)
		for (size_t j = 0; j < m->steps[i].nfields; j++)
			if (strcmp(m->steps[i].fields[j], name) == 0)
				return &m->steps[i];
	return NULL;
}

/* 1 when f may not apply: it has a show_when or sits on a step with one. */
static int page_field_conditional(const struct manifest *m, const struct manifest_field *f)
{
	const struct manifest_step *s = step_of(m, f->name);

	return f->show_when || (s && s->show_when);
}

int page_has_conditions(const struct manifest *m)
{
	for (size_t i = 0; i < m->nfields; i++)
		if (page_field_conditional(m, &m->fields[i]))
			return 1;
	return 0;
}

/* ---- controls ---------------------------------------------------------------------------- */

/* The bounds a browser checks before posting: dates and numbers by range, text by length. */
static void bounds(struct buf *b, const struct manifest_field *f)
{
	if (f->kind == MANIFEST_DATE) {
		if (f->date_min)
			html_put(b, " min=\"%s\"", f->date_min);
		if (f->date_max)
			html_put(b, " max=\"%s\"", f->date_max);
	} else if (f->kind == MANIFEST_INTEGER) {
		buf_adds(b, " step=\"1\"");
		if (f->has_min)
			buf_printf(b, " min=\"%lld\"", f->min);
		if (f->has_max)
			buf_printf(b, " max=\"%lld\"", f->max);
	} else {
		buf_printf(b, " maxlength=\"%lld\"", f->max_length);
	}
}

static void input(struct buf *b, const struct manifest_field *f, const char *type, const json_t *v,
		  const struct field_parts *p)
{
	html_put(b, "<input type=\"%s\" id=\"f-%s\" name=\"%s\"", type, f->name, f->name);
	bounds(b, f);
	if (f->pattern)
		html_put(b, " pattern=\"%s\"", f->pattern);
	if (f->kind == MANIFEST_EMAIL)
		buf_adds(b, " autocomplete=\"email\"");
	buf_adds(b, " value=\"");
	value_text(b, v);
	buf_adds(b, "\"");
	control_attrs(b, p);
	buf_adds(b, ">\n");
}

static void textarea(struct buf *b, const struct manifest_field *f, const json_t *v,
		     const struct field_parts *p)
{
	html_put(b, "<textarea id=\"f-%s\" name=\"%s\" rows=\"6\"", f->name, f->name);
	buf_printf(b, " maxlength=\"%lld\"", f->max_length);
	control_attrs(b, p);
	/* The parser eats the newline after the tag, so a value's own first newline survives. */
	buf_adds(b, ">\n");
	value_text(b, v);
	buf_adds(b, "</textarea>\n");
}

static void select_box(struct buf *b, const struct manifest_field *f, const json_t *v,
		       const struct field_parts *p)
{
	html_put(b, "<select id=\"f-%s\" name=\"%s\"", f->name, f->name);
	control_attrs(b, p);
	buf_adds(b, ">\n<option value=\"\">Choose\xe2\x80\xa6</option>\n");
	for (size_t i = 0; i < f->noptions; i++) {
		html_put(b, "<option value=\"%s\"", f->options[i].value);
		html_if(b, value_has(v, f->options[i].value), " selected");
		html_put(b, ">%s</option>\n", f->options[i].label);
	}
	buf_adds(b, "</select>\n");
}

/* The parts of a field that precede its control: help, when it applies, its errors. */
static void notes(struct buf *b, const struct manifest *m, const struct manifest_field *f,
		  const json_t *errors, const struct field_parts *p)
{
	if (f->help)
		html_put(b, "<p class=\"help\" id=\"help-%s\">%s</p>\n", f->name, f->help);
	if (p->when) {
		html_put(b, "<p class=\"when\" id=\"when-%s\">%s ", f->name,
			 f->kind == MANIFEST_FILE ? "Asked for" : "Answer");
		condition_words(b, m, f->show_when);
		buf_adds(b, ".</p>\n");
	}
	error_line(b, errors, f->name);
}

static void field_open(struct buf *b, const struct manifest_field *f, const struct field_parts *p,
		       const char *element, const char *class)
{
	html_put(b, "<%s class=\"%s\" id=\"field-%s\" data-field=\"%s\"", element, class, f->name,
		 f->name);
	if (p->when)
		condition_data(b, f->show_when);
}

/* multi_select: a group of checkboxes, each with its own label, under one legend. */
static void choices(struct buf *b, const struct manifest *m, const struct manifest_field *f,
		    const json_t *v, const json_t *errors, const struct field_parts *p)
{
	field_open(b, f, p, "fieldset", "field choices");
	describedby(b, p);
	html_put(b, ">\n<legend>%s", f->label);
	required_mark(b, f->required);
	buf_adds(b, "</legend>\n");
	notes(b, m, f, errors, p);
	if (f->max_choices >= 0)
		buf_printf(b, "<p class=\"hint\">Choose at most %lld.</p>\n", f->max_choices);
	for (size_t i = 0; i < f->noptions; i++) {
		buf_printf(b, "<div class=\"choice\"><input type=\"checkbox\" id=\"opt%zu-", i);
		html_put(b, "%s\" name=\"%s\" value=\"%s\"", f->name, f->name, f->options[i].value);
		html_if(b, value_has(v, f->options[i].value), " checked");
		html_if(b, p->error, " aria-invalid=\"true\"");
		buf_adds(b, "> ");
		buf_printf(b, "<label for=\"opt%zu-", i);
		html_put(b, "%s\">%s</label></div>\n", f->name, f->options[i].label);
	}
	buf_adds(b, "</fieldset>\n");
}

/* bool: one checkbox, its label after it. */
static void tick(struct buf *b, const struct manifest *m, const struct manifest_field *f,
		 const json_t *v, const json_t *errors, const struct field_parts *p)
{
	field_open(b, f, p, "div", "field check");
	html_put(b, ">\n<input type=\"checkbox\" id=\"f-%s\" name=\"%s\" value=\"true\"", f->name,
		 f->name);
	html_if(b, value_ticked(v), " checked");
	control_attrs(b, p);
	html_put(b, "> <label for=\"f-%s\">%s", f->name, f->label);
	required_mark(b, f->required);
	buf_adds(b, "</label>\n");
	notes(b, m, f, errors, p);
	buf_adds(b, "</div>\n");
}

/* "pdf", "pdf or png", "pdf, png or jpg". */
static void accept_words(struct buf *b, const struct manifest_field *f)
{
	for (size_t i = 0; i < f->naccept; i++) {
		buf_adds(b, i == 0 ? "" : i + 1 == f->naccept ? " or " : ", ");
		buf_adds(b, manifest_file_extension(f->accept[i]));
	}
}

/* "up to 8 MB", "up to 1.5 MB", "up to 512 KB", "up to 1000 bytes". */
static void size_words(struct buf *b, long long bytes)
{
	const long long mib = 1024 * 1024;

	if (bytes >= mib && bytes % mib == 0)
		buf_printf(b, "up to %lld MB", bytes / mib);
	else if (bytes >= mib)
		buf_printf(b, "up to %lld.%lld MB", bytes / mib, bytes % mib * 10 / mib);
	else if (bytes >= 1024)
		buf_printf(b, "up to %lld KB", bytes / 1024);
	else
		buf_printf(b, "up to %lld bytes", bytes);
}

/* On the upload page: the file input, accepting the manifest's kinds. */
static void file_input(struct buf *b, const struct manifest *m, const struct manifest_field *f,
		       const json_t *errors, struct field_parts *p)
{
	/* Shown here only because it applies: no note, no condition, `required` as declared. */
	p->when = p->conditional = 0;
	p->limits = 1;
	field_open(b, f, p, "div", "field file");
	html_put(b, ">\n<label for=\"f-%s\">%s", f->name, f->label);
	required_mark(b, f->required);
	buf_adds(b, "</label>\n");
	html_put(b, "<p class=\"limits\" id=\"limits-%s\">", f->name);
	accept_words(b, f);
	buf_adds(b, ", ");
	size_words(b, f->max_bytes);
	buf_adds(b, "</p>\n");
	notes(b, m, f, errors, p);
	html_put(b, "<input type=\"file\" id=\"f-%s\" name=\"%s\" accept=\"", f->name, f->name);
	for (size_t i = 0; i < f->naccept; i++)
		html_put(b, "%s.%s,%s%s", i ? "," : "", manifest_file_extension(f->accept[i]),
			 f->accept[i] == MANIFEST_JPEG ? ".jpeg," : "",
			 manifest_file_mime(f->accept[i]));
	buf_adds(b, "\"");
	control_attrs(b, p);
	buf_adds(b, ">\n</div>\n");
}

/* On the form: a file field is a note — its input comes after the address is proved. */
static void file_note(struct buf *b, const struct manifest *m, const struct manifest_field *f,
		      const json_t *errors, const struct field_parts *p)
{
	field_open(b, f, p, "div", "field file-later");
	html_put(b, ">\n<p class=\"label\" id=\"f-%s\">%s", f->name, f->label);
	required_mark(b, f->required);
	buf_adds(b, "</p>\n");
	notes(b, m, f, errors, p);
	buf_adds(b, "<p class=\"note\">You will be asked to attach this (");
	accept_words(b, f);
	buf_adds(b, ", ");
	size_words(b, f->max_bytes);
	buf_adds(b, ") after you confirm your email address.</p>\n</div>\n");
}

static const char *input_type(enum manifest_kind kind)
{
	switch (kind) {
	case MANIFEST_EMAIL:
		return "email";
	case MANIFEST_URL:
		return "url";
	case MANIFEST_DATE:
		return "date";
	case MANIFEST_INTEGER:
		return "number";
	default:
		return "text";
	}
}

/* A one-control field: label, notes, then the control. */
static void single(struct buf *b, const struct manifest *m, const struct manifest_field *f,
		   const json_t *v, const json_t *errors, const struct field_parts *p)
{
	field_open(b, f, p, "div", "field");
	html_put(b, ">\n<label for=\"f-%s\">%s", f->name, f->label);
	required_mark(b, f->required);
	buf_adds(b, "</label>\n");
	notes(b, m, f, errors, p);
	if (f->kind == MANIFEST_LONG_TEXT)
		textarea(b, f, v, p);
	else if (f->kind == MANIFEST_SELECT)
		select_box(b, f, v, p);
	else
		input(b, f, input_type(f->kind), v, p);
	buf_adds(b, "</div>\n");
}

void page_field(struct buf *b, const struct manifest *m, const struct manifest_field *f,
		const json_t *values, const json_t *errors, int upload)
{
	const json_t *v = value_of(values, f->name);
	struct field_parts p = { f->name, f->help != NULL, f->show_when != NULL,
				 has_error(errors, f->name), 0, f->required,
				 page_field_conditional(m, f) };

	if (f->kind == MANIFEST_FILE)
		upload ? file_input(b, m, f, errors, &p) : file_note(b, m, f, errors, &p);
	else if (f->kind == MANIFEST_MULTI_SELECT)
		choices(b, m, f, v, errors, &p);
	else if (f->kind == MANIFEST_BOOL)
		tick(b, m, f, v, errors, &p);
	else
		single(b, m, f, v, errors, &p);
}

void page_ack(struct buf *b, const struct manifest_ack *a, const json_t *values,
	      const json_t *errors)
{
	struct field_parts p = { a->id, a->description != NULL, 0, has_error(errors, a->id),
				 0, 1, 0 };

	html_put(b, "<div class=\"field check ack\" id=\"field-%s\" data-field=\"%s\">\n", a->id,
		 a->id);
	html_put(b, "<input type=\"checkbox\" id=\"f-%s\" name=\"%s\" value=\"true\"", a->id,
		 a->id);
	html_if(b, value_ticked(value_of(values, a->id)), " checked");
	control_attrs(b, &p);
	html_put(b, "> <label for=\"f-%s\">%s", a->id, a->label);
	required_mark(b, 1);
	buf_adds(b, "</label>\n");
	if (a->description)
		html_put(b, "<p class=\"help\" id=\"help-%s\">%s</p>\n", a->id, a->description);
	if (a->info_link &&
	    (strncmp(a->info_link, "https://", 8) == 0 || strncmp(a->info_link, "http://", 7) == 0))
		html_put(b, "<p class=\"help\"><a href=\"%s\">More about this</a></p>\n",
			 a->info_link);
	error_line(b, errors, a->id);
	buf_adds(b, "</div>\n");
}

/* ---- the error summary --------------------------------------------------------------------- */

/*
 * A refused submission may carry thousands of errors (a key nobody asked for
 * is one each), so the summary reads them once into a hash, never once per
 * name: its cost is linear in the errors and the page, whatever a stranger sends.
 */

/* {name: [message, …]}, the messages in the order given. NEW reference. */
static json_t *errors_by_name(const json_t *errors)
{
	json_t *idx = json_object(), *e, *list;
	size_t i;

	json_array_foreach(errors, i, e) {
		const char *field = json_string_value(json_object_get(e, "field"));
		json_t *msg = json_object_get(e, "message");
		if (!field || !json_is_string(msg))
			continue;
		if (!(list = json_object_get(idx, field))) {
			list = json_array();
			json_object_set_new(idx, field, list);
		}
		json_array_append(list, msg);
	}
	return idx;
}

/* 1 when body holds an element whose id is prefix + name (names need no escaping). */
static int on_page(const char *body, const char *prefix, const char *name)
{
	char *needle = xasprintf(" id=\"%s%s\"", prefix, name);
	int found = strstr(body, needle) != NULL;

	free(needle);
	return found;
}

/*
 * One line of the summary: a link to the control when the page holds one. A
 * name the manifest does not declare (known == NULL) has no control, so the
 * page is not searched for it.
 */
static void summary_item(struct buf *b, const char *name, const char *known,
			 const json_t *messages, const char *body)
{
	const json_t *msg;
	size_t i;

	if (known && on_page(body, "f-", name))
		html_put(b, "<li><a href=\"#f-%s\">%s</a>: ", name, known);
	else if (known && on_page(body, "opt0-", name))
		html_put(b, "<li><a href=\"#opt0-%s\">%s</a>: ", name, known);
	else
		html_put(b, "<li>%s: ", known ? known : name);
	json_array_foreach(messages, i, msg)
		html_put(b, "%s%s", i ? "; " : "", json_string_value(msg));
	buf_adds(b, "</li>\n");
}

/* A declared name with errors, in page order: its line, and it is marked as said. */
static void summary_known(struct buf *b, const json_t *idx, json_t *said, const char *name,
			  const char *label, const char *body)
{
	const json_t *messages = json_object_get(idx, name);

	if (!messages || json_object_get(said, name))
		return;
	summary_item(b, name, label, messages, body);
	json_object_set_new(said, name, json_true());
}

void page_error_summary(struct buf *b, const struct manifest *m, const json_t *errors,
			const char *body)
{
	json_t *idx, *said, *e;
	size_t i;

	if (json_array_size(errors) == 0)
		return;
	idx = errors_by_name(errors);
	said = json_object();
	buf_adds(b, "<div class=\"errors\" id=\"errors\" role=\"alert\" "
		    "aria-labelledby=\"errors-title\">\n"
		    "<h2 id=\"errors-title\">Some answers need attention</h2>\n<ul>\n");
	/* The names in the order the page shows them, each once: steps, loose fields, acks … */
	for (size_t s = 0; s < m->nsteps; s++)
		for (size_t j = 0; j < m->steps[s].nfields; j++) {
			const struct manifest_field *f = manifest_field(m, m->steps[s].fields[j]);
			if (f)
				summary_known(b, idx, said, f->name, f->label, body);
		}
	for (size_t j = 0; j < m->nfields; j++)
		if (!step_of(m, m->fields[j].name))
			summary_known(b, idx, said, m->fields[j].name, m->fields[j].label, body);
	for (size_t j = 0; j < m->nacks; j++)
		summary_known(b, idx, said, m->acks[j].id, m->acks[j].label, body);
	/* … then every name nobody declared, in the order the errors give them. */
	json_array_foreach(errors, i, e) {
		const char *field = json_string_value(json_object_get(e, "field"));
		if (!field || json_object_get(said, field))
			continue;
		summary_item(b, field, NULL, json_object_get(idx, field), body);
		json_object_set_new(said, field, json_true());
	}
	buf_adds(b, "</ul>\n</div>\n");
	json_decref(said);
	json_decref(idx);
}

/* ---- the form ------------------------------------------------------------------------------- */

static void step(struct buf *b, const struct manifest *m, const struct manifest_step *s,
		 const json_t *values, const json_t *errors)
{
	html_put(b, "<fieldset class=\"step\" id=\"step-%s\"", s->id);
	if (s->show_when)
		condition_data(b, s->show_when);
	html_put(b, ">\n<legend>%s</legend>\n", s->title);
	if (s->description)
		html_put(b, "<p class=\"step-description\">%s</p>\n", s->description);
	if (s->show_when) {
		html_put(b, "<p class=\"when\" id=\"stepwhen-%s\">This part applies ", s->id);
		condition_words(b, m, s->show_when);
		buf_adds(b, ".</p>\n");
	}
	for (size_t i = 0; i < s->nfields; i++)
		page_field(b, m, manifest_field(m, s->fields[i]), values, errors, 0);
	buf_adds(b, "</fieldset>\n");
}

/* "Request a meeting", or "Error: Request a meeting" when the page comes back with errors. */
static char *title_of(const struct manifest *m, const json_t *errors)
{
	return json_array_size(errors) ? xasprintf("Error: %s", m->title) : xstrdup(m->title);
}

/* The page around a form: title, heading, intro, the summary of what body shows, body. */
static char *around(const struct page_ctx *ctx, const struct manifest *m, const json_t *errors,
		    const char *intro, struct buf *body, unsigned flags)
{
	struct buf b = BUF_INIT;
	char *title = title_of(m, errors);

	page_open(&b, ctx, title, flags);
	free(title);
	html_put(&b, "<h1>%s</h1>\n", m->title);
	if (intro)
		html_put(&b, "<p class=\"intro\">%s</p>\n", intro);
	page_error_summary(&b, m, errors, buf_str(body));
	buf_add(&b, body->data, body->len);
	buf_free(body);
	return page_close(&b);
}

char *page_form(const struct page_ctx *ctx, const struct manifest *m, const json_t *values,
		const json_t *errors)
{
	struct buf body = BUF_INIT;

	html_put(&body, "<form method=\"post\" action=\"%s\" accept-charset=\"utf-8\">\n",
		 ctx->base);
	for (size_t i = 0; i < m->nsteps; i++)
		step(&body, m, &m->steps[i], values, errors);
	for (size_t i = 0; m->nsteps == 0 && i < m->nfields; i++)
		page_field(&body, m, &m->fields[i], values, errors, 0);
	for (size_t i = 0; i < m->nacks; i++)
		page_ack(&body, &m->acks[i], values, errors);
	buf_adds(&body, "<button type=\"submit\">Submit</button>\n</form>\n");
	return around(ctx, m, errors, m->description, &body,
		      page_has_conditions(m) ? PAGE_WITH_SCRIPT : 0);
}

char *page_upload(const struct page_ctx *ctx, const struct manifest *m, const json_t *values,
		  const json_t *errors)
{
	unsigned char *visible = validate_visible(m, json_is_object(values) ? values : NULL);
	struct buf body = BUF_INIT;
	size_t shown = 0;

	buf_adds(&body, "<form method=\"post\" enctype=\"multipart/form-data\">\n");
	for (size_t i = 0; i < m->nfields; i++)
		if (visible[i] && m->fields[i].kind == MANIFEST_FILE && ++shown)
			page_field(&body, m, &m->fields[i], values, errors, 1);
	if (!shown)
		buf_adds(&body, "<p>There is nothing to attach.</p>\n");
	buf_adds(&body, "<button type=\"submit\">Finish</button>\n</form>\n");
	free(visible);
	return around(ctx, m, errors,
		      "Your email address is confirmed. Attach your files here to finish; "
		      "fields not marked (required) can be left empty.",
		      &body, 0);
}
