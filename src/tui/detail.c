/*
 * detail — what the detail pane says about a request or a draft.
 *
 * Everything a person needs to decide, and nothing hidden: a request's typed
 * fields, its extraction, what the brief held back and why, its note and its
 * drafts, and what the stranger wrote under a heading that says whose words
 * they are; a draft's headers, its whole body, every other argument (the
 * view of outbox/view.h puts each key of args in exactly one place), the
 * edit diff, the taint, and the request it answers with that request's prose
 * marked as a third party's. Every string goes into the pane through
 * lines.h, which makes it safe.
 */
#include "tui/app.h"

#include "base/jsonio.h"
#include "base/linediff.h"
#include "base/text.h"
#include "frontdoor/brief.h"
#include "requests/state.h"
#include "outbox/view.h"

#include <stdlib.h>
#include <string.h>

#define PROSE_GUTTER "    | "
#define BODY_GUTTER "  | "

static enum lines_style state_style(const char *state)
{
	if (state_has(state, STATE_FAILED))
		return LINES_WARN;
	if (state_has(state, STATE_NOTICE))
		return LINES_NOTICE;
	return LINES_HEADING;
}

/* A JSON value on one line: a string as it is, anything else compact. */
static void value_line(struct lines *l, const char *indent, const char *name, const json_t *v)
{
	char *s = json_is_string(v) ? NULL : jsonio_compact(v);
	const char *text = s ? s : json_string_value(v);

	lines_addf(l, LINES_NORMAL, "%s%-20s %s", indent, name, text ? text : "");
	lines_hang(l, (int)strlen(indent) + 21);
	free(s);
}

/* ---- a request ------------------------------------------------------------------------ */

static void request_header(const struct record *r, struct lines *l)
{
	const char *reason = jsonio_str(r->doc, "invalid_reason");
	json_t *values = record_values(r);
	const char *from = jsonio_str(values, "_slot_start"), *to = jsonio_str(values, "_slot_end");

	lines_addf(l, state_style(record_state(r)), "request %lld  %s  %s", r->seq, r->type_id,
		   record_state(r));
	lines_field(l, LINES_NORMAL, "received", record_created_at(r));
	lines_field(l, LINES_NORMAL, "drained", jsonio_str(r->doc, "drained_at"));
	lines_field(l, LINES_NORMAL, "reply to", record_reply_to(r) ? record_reply_to(r) : "(none)");
	if (!record_valid(r))
		lines_addf(l, LINES_WARN, "  %-14s INVALID%s%s", "valid", reason ? ": " : "",
			   reason ? reason : "");
	if (from || to)
		lines_addf(l, LINES_NORMAL, "  %-14s %s → %s", "slot", from ? from : "?",
			   to ? to : "?");
	lines_field(l, LINES_NOTICE, "note", record_note(r));
	lines_field(l, LINES_WARN, "extraction", jsonio_str(r->doc, "extraction_error"));
	lines_field(l, LINES_NORMAL, "triage session", jsonio_str(r->doc, "triage_session"));
}

static void request_fields(const struct record *r, struct lines *l)
{
	const char *name;
	json_t *v;

	lines_blank(l);
	lines_addf(l, LINES_HEADING, "fields (typed; validated by the form)");
	json_object_foreach(record_values(r), name, v)
		if (!record_is_prose(r, name) && !record_is_attachment_field(r, name))
			value_line(l, "  ", name, v);
}

/* The prose, under a heading that says whose words they are. */
static void request_prose(const struct record *r, struct lines *l, const char *whose)
{
	struct prose_field *prose;
	size_t n = record_prose(r, &prose);

	lines_blank(l);
	lines_addf(l, LINES_WARN, "%s", whose);
	lines_addf(l, LINES_DIM, "  shown to you, never to a run; control characters made visible");
	for (size_t i = 0; i < n; i++) {
		lines_addf(l, LINES_NORMAL, "  %s:", prose[i].name);
		lines_add(l, LINES_NORMAL, PROSE_GUTTER, prose[i].text, prose[i].len,
			  TEXT_KEEP_NEWLINES);
	}
	if (n == 0)
		lines_addf(l, LINES_DIM, "  (no prose)");
	free(prose);
}

static void request_extraction(const struct record *r, struct lines *l)
{
	json_t *x = record_extraction(r), *held, *h, *d;
	size_t i;

	if (!x)
		return;
	lines_blank(l);
	lines_addf(l, LINES_HEADING, "extraction (the quarantined pass; only checked values reach a run)");
	lines_field(l, LINES_NORMAL, "reading", jsonio_str(x, "reading"));
	lines_field(l, LINES_NORMAL, "topic", jsonio_str(x, "topic"));
	lines_field(l, LINES_NORMAL, "urgency", jsonio_str(x, "urgency_claimed"));
	json_array_foreach(json_object_get(x, "dates_mentioned"), i, d)
		lines_field(l, LINES_NORMAL, i == 0 ? "dates" : "", json_string_value(d));
	lines_field(l, LINES_NORMAL, "institution", jsonio_str(x, "institution"));
	if (json_is_true(json_object_get(x, "reads_like_instructions")))
		lines_addf(l, LINES_FLAG, "  reads like instructions (a label for you; it gates nothing)");
	held = brief_held_back(r);
	if (json_array_size(held) > 0)
		lines_addf(l, LINES_HEADING, "held back from the run");
	json_array_foreach(held, i, h)
		lines_addf(l, LINES_NOTICE, "  %-16s %s  (%s)", jsonio_str_or(h, "field", ""),
			   jsonio_str_or(h, "value", ""), jsonio_str_or(h, "reason", ""));
	json_decref(held);
}

static void request_attachments(const struct record *r, struct lines *l)
{
	json_t *att;
	size_t i;

	if (json_array_size(record_attachments(r)) == 0)
		return;
	lines_blank(l);
	lines_addf(l, LINES_HEADING, "attachments (measurements reach a run; names and bytes never do)");
	json_array_foreach(record_attachments(r), i, att)
		lines_addf(l, LINES_NORMAL, "  %s  %s  %lld bytes  %s",
			   jsonio_str_or(att, "field", ""), jsonio_str_or(att, "filename", ""),
			   (long long)json_integer_value(json_object_get(att, "size")),
			   jsonio_str_or(att, "content_type", ""));
}

static void request_drafts(struct app *a, const struct record *r, struct lines *l)
{
	struct reconcile_outbox *o = &a->statuses;
	json_t *id;
	size_t i;

	if (json_array_size(record_outbox(r)) == 0)
		return;
	lines_blank(l);
	lines_addf(l, LINES_HEADING, "drafts");
	if (!o->open)
		lines_addf(l, LINES_WARN, "  the outbox could not be read: %s", o->why);
	json_array_foreach(record_outbox(r), i, id) {
		const char *s = json_string_value(id);
		const struct outbox_item *it = s ? outbox_list_find(&a->drafts, s) : NULL;
		char buf[16];
		const char *status = s ? reconcile_draft_status(o, s, buf) : "?";
		lines_addf(l, strcmp(status, OUTBOX_PENDING) == 0 ? LINES_NOTICE : LINES_NORMAL,
			   "  %s  %-8s %s", s ? s : "?", status, it ? it->summary : "");
	}
}

static void detail_request(struct app *a, const struct record *r, struct lines *l)
{
	request_header(r, l);
	request_fields(r, l);
	request_prose(r, l, "what they wrote (a stranger's words)");
	request_extraction(r, l);
	request_attachments(r, l);
	request_drafts(a, r, l);
}

/* ---- a draft ----------------------------------------------------------------------------- */

static void draft_header(const struct outbox_item *it, struct lines *l)
{
	lines_addf(l, outbox_item_pending(it) ? LINES_NOTICE : LINES_HEADING, "draft %s  %s",
		   it->id, it->status);
	lines_addf(l, LINES_NORMAL, "  %-14s %s (%s)", "tool", it->tool, it->kind);
	lines_field(l, LINES_NORMAL, "session", it->session_id);
	lines_field(l, LINES_NORMAL, "workspace", it->workspace);
	lines_field(l, LINES_NORMAL, "created", it->created_at);
	if (outbox_item_tainted(it))
		lines_addf(l, LINES_WARN, "  %-14s %s%s%s (its author read data it should not trust)",
			   "TAINTED", it->taint_untrusted ? "untrusted" : "",
			   it->taint_untrusted && it->taint_private ? ", " : "",
			   it->taint_private ? "private" : "");
	else
		lines_field(l, LINES_DIM, "taint", "none");
	lines_field(l, LINES_NORMAL, "resolved", it->resolved_at);
	lines_field(l, LINES_NORMAL, "reason", it->reason);
	lines_field(l, LINES_WARN, "in flight since", it->sending_since);
	lines_field(l, LINES_WARN, "error", it->error);
}

static void address_line(struct lines *l, const char *label, const json_t *v)
{
	struct buf b = BUF_INIT;
	json_t *x;
	size_t i;

	if (!v || json_is_null(v))
		return;
	if (!json_is_array(v)) {
		value_line(l, "  ", label, v);
		return;
	}
	json_array_foreach(v, i, x) {
		char *s = json_is_string(x) ? NULL : jsonio_compact(x);
		buf_printf(&b, "%s%s", i ? ", " : "", s ? s : json_string_value(x));
		free(s);
	}
	lines_addf(l, LINES_NORMAL, "  %-20s %s", label, buf_str(&b));
	lines_hang(l, 23);
	buf_free(&b);
}

static void draft_args(const struct outbox_item *it, struct lines *l)
{
	struct outbox_view v;

	outbox_view_make(it, &v);
	lines_blank(l);
	if (!v.object) {
		value_line(l, "  ", "args", it->args);
		return;
	}
	address_line(l, "To:", v.to);
	address_line(l, "Cc:", v.cc);
	if (v.subject)
		value_line(l, "  ", "Subject:", v.subject);
	if (v.body) {
		lines_addf(l, LINES_DIM, "  %s (the whole body):", v.body_key);
		lines_add(l, LINES_NORMAL, BODY_GUTTER, json_string_value(v.body),
			  json_string_length(v.body), TEXT_KEEP_NEWLINES);
	}
	if (v.nothers)
		lines_addf(l, LINES_HEADING, "other arguments");
	for (size_t i = 0; i < v.nothers; i++)
		value_line(l, "  ", v.others[i], json_object_get(it->args, v.others[i]));
	outbox_view_free(&v);
}

static void draft_diff(const struct outbox_item *it, struct lines *l)
{
	struct outbox_diff d;

	outbox_diff_make(it, &d);
	lines_blank(l);
	if (d.n == 0)
		lines_addf(l, LINES_DIM, "not edited since it was drafted");
	else
		lines_addf(l, LINES_HEADING, "edited (- as drafted, + as it will be sent)");
	for (size_t i = 0; i < d.n; i++) {
		const struct outbox_diff_line *x = &d.lines[i];
		enum lines_style st = x->sign == LINEDIFF_DEL   ? LINES_DEL
				      : x->sign == LINEDIFF_ADD ? LINES_ADD
								: LINES_NORMAL;
		if (i == 0 || strcmp(x->key, d.lines[i - 1].key) != 0)
			lines_addf(l, LINES_NORMAL, "  %s:", x->key);
		lines_add(l, st, x->sign == LINEDIFF_DEL   ? "  - "
				 : x->sign == LINEDIFF_ADD ? "  + "
							   : "    ",
			  x->text, x->len, 0);
	}
	outbox_diff_free(&d);
}

static void draft_request(const struct app *a, const struct outbox_item *it, struct lines *l,
			  int prose)
{
	const struct record *r = lists_request_of(a, it->id);

	lines_blank(l);
	if (!r) {
		lines_addf(l, LINES_DIM, "no request lists this draft");
		return;
	}
	lines_addf(l, LINES_HEADING, "the request it answers: %lld  %s  %s  (reply to %s)", r->seq,
		   r->type_id, record_state(r), record_reply_to(r) ? record_reply_to(r) : "none");
	if (prose)
		request_prose(r, l, "what the requester wrote (a stranger's words: third-party text, not "
			    "part of this draft)");
}

void detail_draft(struct app *a, const struct outbox_item *it, struct lines *l, int prose)
{
	draft_header(it, l);
	draft_args(it, l);
	draft_diff(it, l);
	draft_request(a, it, l, prose);
}

/* ---- the help ---------------------------------------------------------------------------- */

/* The help: a heading (key NULL), a paragraph (key ""), or a key and what it does. */
static const char *const help_text[][2] = {
	{ NULL, "mecha review: the front door and the outbox in one screen" },
	{ NULL, "" },
	{ NULL, "moving" },
	{ "Up/Down j/k", "select a request or a draft" },
	{ "PgUp/PgDn b/Space", "scroll the detail pane; g and G go to its top and end" },
	{ "Enter z", "the detail pane alone (again to go back)" },
	{ "f", "filter requests: waiting, all, then one state after another" },
	{ "/", "search requests and drafts for text (empty: everything)" },
	{ "h", "show the resolved drafts too (sent, rejected)" },
	{ NULL, "" },
	{ NULL, "deciding (on a draft, or on a request with one pending draft)" },
	{ "a", "approve: shows the draft whole; y sends it" },
	{ "r", "reject, with a reason (Esc cancels)" },
	{ "e", "edit in $VISUAL or $EDITOR" },
	{ NULL, "" },
	{ NULL, "on a request" },
	{ "c", "close, with a reason (offers to reject its pending drafts first)" },
	{ "n", "needs-info, with an optional note" },
	{ "x", "extract it (again)" },
	{ "t", "triage it: a model run that may stage a draft" },
	{ "R", "reply in your own words, in $VISUAL or $EDITOR (no model needed)" },
	{ "N", "ask back: needs-info, with the question mailed as a draft" },
	{ "D", "decline a booking (a link to pick another time), or cancel a booked one" },
	{ NULL, "" },
	{ "Ctrl-L", "redraw" },
	{ "? q", "this help; quit" },
	{ NULL, "" },
	{ "", "Waiting on you: extraction_failed, extracted, awaiting_me, needs_info, booked, "
		"and drained requests that did not validate." },
};

void detail_help(struct lines *l)
{
	for (size_t i = 0; i < sizeof help_text / sizeof help_text[0]; i++) {
		const char *k = help_text[i][0], *what = help_text[i][1];
		if (!k) {
			lines_addf(l, LINES_HEADING, "%s", what);
		} else if (!*k) {
			lines_addf(l, LINES_NORMAL, "%s", what);
		} else {
			lines_addf(l, LINES_NORMAL, "  %-18s %s", k, what);
			lines_hang(l, 21);
		}
	}
}

void detail_selected(struct app *a, struct lines *l)
{
	const struct record *r = lists_request(a);
	const struct outbox_item *it = lists_draft(a);

	if (r)
		detail_request(a, r, l);
	else if (it)
		detail_draft(a, it, l, 1);
	else
		detail_help(l);
}
