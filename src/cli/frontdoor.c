/*
 * frontdoor — the verbs a person uses on the request store: list, show, next,
 * needs-info, close (and the dispatch for the verbs of other files: extract,
 * triage, reconcile, sweep). Each parses, calls the library and prints; the rules
 * (which moves the state table allows, that a close needs a reason) are in
 * src/frontdoor/.
 *
 * `show` is the one place the prose is printed, and it is printed for a person,
 * through text.h, with every control character made visible — as is every
 * other string that came from a file: field names, states, notes, statuses.
 * `next` prints exactly what brief_build allows and nothing else.
 */
#include "cli/cli.h"
#include "cli/frontdoor.h"
#include "cli/verb.h"

#include "base/buf.h"
#include "base/err.h"
#include "base/jsonio.h"
#include "base/rfc3339.h"
#include "base/text.h"
#include "base/verdict.h"
#include "frontdoor/brief.h"
#include "frontdoor/moves.h"
#include "frontdoor/next.h"
#include "frontdoor/state.h"
#include "frontdoor/store.h"
#include "frontdoor/sweep.h"

#include <stdlib.h>
#include <string.h>

#define BOLD "\033[1m"
#define DIM "\033[2m"
#define RED "\033[31m"
#define YELLOW "\033[33m"
#define MAGENTA "\033[35m"
#define RESET "\033[0m"

static int color;

static const char *paint(const char *code)
{
	return color ? code : "";
}

/* ---- shared helpers --------------------------------------------------------- */

static int frontdoor_parse_seq(const char *verb, const char *s, long long *seq)
{
	return cli_parse_count(verb, "SEQ", s, seq);
}

/* s rendered safely, then padded with spaces to width bytes (as printf's %-Ns would). */
static void print_padded(const char *s, int width)
{
	struct buf b = BUF_INIT;

	text_safe(&b, s ? s : "", s ? strlen(s) : 0, 0);
	fputs(buf_str(&b), stdout);
	for (int n = (int)b.len; n < width; n++)
		putchar(' ');
	buf_free(&b);
}

/* ---- list ------------------------------------------------------------------- */

static const char list_help[] =
	"usage: mecha frontdoor [list] [--state STATE] [--json]\n\n"
	"What has arrived, and each request's state, in seq order. INVALID marks a request\n"
	"that did not validate at drain time; \"reads like instructions\" is the extractor's\n"
	"label (it gates nothing). A booking shows its slot where the topic would be.\n"
	"Drafts released or rejected since the last look are reconciled first.\n\n"
	"  --state STATE   only requests in this state\n"
	"  --json          an array of {seq, type, state, valid, topic,\n"
	"                  reads_like_instructions, note, slot}; slot is a booking's\n"
	"                  {start, end} (null for other requests)\n";

struct list_ctx {
	const char *state;
	json_t *rows;
	size_t shown;
};

static const char *state_color(const char *state)
{
	if (strcmp(state, STATE_AWAITING_ME) == 0 || strcmp(state, STATE_NEEDS_INFO) == 0)
		return paint(YELLOW);
	if (strcmp(state, STATE_EXTRACTION_FAILED) == 0)
		return paint(RED);
	if (strcmp(state, STATE_CLOSED) == 0 || strcmp(state, STATE_ANSWERED) == 0 ||
	    strcmp(state, STATE_BOOKED) == 0)
		return paint(DIM);
	return "";
}

/* {start, end} of a booking's or a cancellation's slot, else null. */
static json_t *slot_json(const struct record *r)
{
	char a[RFC3339_LEN], b[RFC3339_LEN];
	time_t start, end;

	if (!sweep_slot(r, &start, &end))
		return json_null();
	rfc3339_format(start, a);
	rfc3339_format(end, b);
	return json_pack("{s:s,s:s}", "start", a, "end", b);
}

static void list_row(json_t *rows, const struct record *r, const char *topic, int flagged)
{
	const char *note = record_note(r);

	json_array_append_new(
		rows, json_pack("{s:I,s:s,s:s,s:b,s:o,s:b,s:o,s:o}", "seq", (json_int_t)r->seq,
				"type", r->type_id, "state", record_state(r), "valid",
				record_valid(r), "topic", topic ? json_string(topic) : json_null(),
				"reads_like_instructions", flagged, "note",
				note ? json_string(note) : json_null(), "slot", slot_json(r)));
}

/* A booking has no topic: its slot says what it is. */
static void print_topic(const json_t *row)
{
	const char *topic = jsonio_str(row, "topic");
	const json_t *slot = json_object_get(row, "slot");

	if (!topic && json_is_object(slot)) {
		printf("%s → %s", jsonio_str_or(slot, "start", ""), jsonio_str_or(slot, "end", ""));
		return;
	}
	text_print(stdout, topic ? topic : "", 0);
}

static int list_one(struct record *r, void *arg, struct err *e)
{
	struct list_ctx *c = arg;
	const char *state = record_state(r);
	json_t *x = record_extraction(r);
	const char *topic = x ? jsonio_str(x, "topic") : NULL;
	int flagged = x && json_is_true(json_object_get(x, "reads_like_instructions"));

	if (c->state && strcmp(state, c->state) != 0)
		return VERDICT_NEXT;
	c->shown++;
	list_row(c->rows, r, topic, flagged);
	return VERDICT_NEXT;
}

/* Rendered width of a row's text field (as print_padded will show it). */
static int safe_width(const json_t *row, const char *key)
{
	const char *s = jsonio_str(row, key);
	struct buf b = BUF_INIT;
	int n;

	text_safe(&b, s ? s : "", s ? strlen(s) : 0, 0);
	n = (int)b.len;
	buf_free(&b);
	return n;
}

struct list_widths {
	int seq, type, state;
};

/* Columns wide enough for every row (seqs run to ten digits and beyond), within reason. */
static struct list_widths list_widths(const json_t *rows)
{
	struct list_widths w = { 6, 12, 18 };
	const json_t *row;
	size_t i;

	json_array_foreach(rows, i, row) {
		char seq[24];
		int n = snprintf(seq, sizeof seq, "%lld",
				 (long long)json_integer_value(json_object_get(row, "seq")));
		if (n > w.seq)
			w.seq = n;
		if ((n = safe_width(row, "type")) > w.type)
			w.type = n > 40 ? 40 : n;
		if ((n = safe_width(row, "state")) + 1 > w.state)
			w.state = n + 1 > 40 ? 40 : n + 1;
	}
	return w;
}

static void list_print(const json_t *rows)
{
	struct list_widths w = list_widths(rows);
	const json_t *row;
	size_t i;

	json_array_foreach(rows, i, row) {
		const char *state = jsonio_str(row, "state");

		printf("%*lld  ", w.seq, (long long)json_integer_value(json_object_get(row, "seq")));
		print_padded(jsonio_str(row, "type"), w.type);
		printf(" %s", state_color(state ? state : ""));
		print_padded(state, w.state);
		printf("%s ", paint(RESET));
		print_topic(row);
		if (!json_is_true(json_object_get(row, "valid")))
			printf("  %sINVALID%s", paint(RED), paint(RESET));
		if (json_is_true(json_object_get(row, "reads_like_instructions")))
			printf("  %sreads like instructions%s", paint(MAGENTA), paint(RESET));
		putchar('\n');
	}
}

static int fd_list(int argc, char **argv)
{
	struct list_ctx c = { 0 };
	int json = 0;
	const struct cli_opt opts[] = {
		{ "state", 0, CLI_STR, &c.state, 0, 0, 0 },
		{ "json", 0, CLI_FLAG, &json, 0, 0, 0 },
	};
	struct cli_args a;
	struct store s;
	struct err e;
	int rc = cli_parse("frontdoor list", CLI_OPTS(opts), 0, 0, argc, argv, &a);

	if (rc != 0)
		return rc;
	if (c.state && !state_known(c.state))
		return cli_usage_error("frontdoor list", "'%s' is not a state", c.state);
	if (store_open_default(&s, STORE_READ, &e) != 0)
		return cli_fail(&e);
	/* Rows are gathered first: the columns are as wide as the widest seq. */
	c.rows = json_array();
	rc = reconcile_each(&s, list_one, &c, &frontdoor_report, &e);
	store_close(&s);
	if (rc != 0) {
		json_decref(c.rows);
		return cli_fail(&e);
	}
	if (json)
		jsonio_print(stdout, c.rows);
	else if (c.shown == 0)
		puts(c.state ? "no requests in that state" : "no requests");
	else
		list_print(c.rows);
	json_decref(c.rows);
	return EXIT_OK;
}

/* ---- show ------------------------------------------------------------------- */

static const char show_help[] =
	"usage: mecha frontdoor show SEQ [--json]\n\n"
	"Everything about one request, including what the stranger wrote. This is for you:\n"
	"a person reading a stranger's words in a terminal is the safe context. Control\n"
	"characters are shown visibly (ESC as \\e, others as \\xNN), never sent raw.\n"
	"Extracted values held back from the privileged run are listed with the reason.\n\n"
	"  --json   {record: <as stored>, held_back: [{field, value, reason}], unreadable}\n";

static void show_line(const char *label, const char *value)
{
	printf("  %-14s ", label);
	text_print(stdout, value ? value : "", 0);
	putchar('\n');
}

static void show_json_value(const char *label, const json_t *v)
{
	char *s = jsonio_compact(v);

	printf("    ");
	print_padded(label, 20);
	putchar(' ');
	text_print(stdout, s, 0);
	putchar('\n');
	free(s);
}

/* Prose, indented, with newlines kept and everything else made visible. */
static void show_prose_block(const struct prose_field *p)
{
	struct buf b = BUF_INIT;
	const char *line, *end;

	printf("  ");
	text_print(stdout, p->name, 0);
	printf(":\n");
	text_safe(&b, p->text, p->len, TEXT_KEEP_NEWLINES);
	for (line = buf_str(&b); *line; line = *end ? end + 1 : end) {
		end = strchr(line, '\n');
		if (!end)
			end = line + strlen(line);
		printf("    %s|%s %.*s\n", paint(DIM), paint(RESET), (int)(end - line), line);
	}
	if (p->len == 0)
		printf("    %s|%s\n", paint(DIM), paint(RESET));
	buf_free(&b);
}

static void show_header(const struct record *r)
{
	const char *reason = jsonio_str(r->doc, "invalid_reason");

	printf("%srequest %lld%s  ", paint(BOLD), r->seq, paint(RESET));
	text_print(stdout, r->type_id, 0);
	printf("  %s", state_color(record_state(r)));
	text_print(stdout, record_state(r), 0);
	printf("%s\n", paint(RESET));
	show_line("received", record_created_at(r));
	show_line("drained", jsonio_str(r->doc, "drained_at"));
	show_line("reply to", record_reply_to(r) ? record_reply_to(r) : "(none)");
	if (record_valid(r))
		show_line("valid", "yes");
	else {
		printf("  %-14s %sINVALID%s%s", "valid", paint(RED), paint(RESET), reason ? ": " : "");
		text_print(stdout, reason ? reason : "", 0);
		putchar('\n');
	}
	if (record_note(r))
		show_line("note", record_note(r));
	if (jsonio_str(r->doc, "extraction_error"))
		show_line("extraction", jsonio_str(r->doc, "extraction_error"));
	if (jsonio_str(r->doc, "triage_session"))
		show_line("triage session", jsonio_str(r->doc, "triage_session"));
}

static void show_fields(const struct record *r)
{
	const char *name;
	json_t *v;
	struct prose_field *prose;
	size_t n = record_prose(r, &prose);

	printf("\n%sfields%s (typed; validated by the form)\n", paint(BOLD), paint(RESET));
	json_object_foreach(record_values(r), name, v)
		if (!record_is_prose(r, name) && !record_is_attachment_field(r, name))
			show_json_value(name, v);
	printf("\n%swhat they wrote%s (shown to you, never to a run)\n", paint(BOLD), paint(RESET));
	for (size_t i = 0; i < n; i++)
		show_prose_block(&prose[i]);
	if (n == 0)
		printf("  (no prose)\n");
	free(prose);
}

static void show_extraction(const struct record *r)
{
	json_t *x = record_extraction(r), *held = brief_held_back(r), *h, *d;
	size_t i;

	if (!x) {
		json_decref(held);
		return;
	}
	printf("\n%sextraction%s (the quarantined pass; only the checked values reach a run)\n",
	       paint(BOLD), paint(RESET));
	show_line("reading", jsonio_str(x, "reading"));
	show_line("topic", jsonio_str(x, "topic"));
	show_line("urgency", jsonio_str(x, "urgency_claimed"));
	json_array_foreach(json_object_get(x, "dates_mentioned"), i, d)
		show_line(i == 0 ? "dates" : "", json_string_value(d));
	show_line("institution", jsonio_str(x, "institution"));
	if (json_is_true(json_object_get(x, "reads_like_instructions")))
		printf("  %sreads like instructions%s (a label for you; it gates nothing)\n",
		       paint(MAGENTA), paint(RESET));
	if (json_array_size(held) > 0)
		printf("\n%sheld back from the run%s\n", paint(BOLD), paint(RESET));
	json_array_foreach(held, i, h) {
		printf("  ");
		print_padded(jsonio_str(h, "field"), 16);
		putchar(' ');
		text_print(stdout, jsonio_str_or(h, "value", ""), 0);
		printf("  %s(", paint(YELLOW));
		text_print(stdout, jsonio_str_or(h, "reason", ""), 0);
		printf(")%s\n", paint(RESET));
	}
	json_decref(held);
}

static void show_attachments_and_drafts(const struct record *r)
{
	struct reconcile_outbox drafts;
	json_t *a, *id;
	size_t i;

	if (json_array_size(record_attachments(r)) > 0)
		printf("\n%sattachments%s (measurements reach a run; names and bytes never do)\n",
		       paint(BOLD), paint(RESET));
	json_array_foreach(record_attachments(r), i, a) {
		printf("  ");
		text_print(stdout, jsonio_str_or(a, "field", ""), 0);
		printf("  ");
		text_print(stdout, jsonio_str_or(a, "filename", ""), 0);
		printf("  %lld bytes  ", (long long)json_integer_value(json_object_get(a, "size")));
		text_print(stdout, jsonio_str_or(a, "content_type", ""), 0);
		printf("  ");
		text_print(stdout, jsonio_str_or(a, "sha256", ""), 0);
		putchar('\n');
	}
	if (json_array_size(record_outbox(r)) == 0)
		return;
	printf("\n%sdrafts%s\n", paint(BOLD), paint(RESET));
	reconcile_outbox_open(&drafts);
	if (!drafts.open) {
		fputs("mecha: drafts unknown: ", stderr);
		text_print(stderr, drafts.why, 0);
		fputc('\n', stderr);
	}
	json_array_foreach(record_outbox(r), i, id) {
		char status[16];
		printf("  ");
		text_print(stdout, json_string_value(id), 0);
		printf("  ");
		text_print(stdout, reconcile_draft_status(&drafts, json_string_value(id), status), 0);
		putchar('\n');
	}
	reconcile_outbox_close(&drafts);
}

static void show_json(const struct record *r)
{
	json_t *o = json_pack("{s:O,s:o,s:n}", "record", r->doc, "held_back", brief_held_back(r),
			      "unreadable");

	jsonio_print(stdout, o);
	json_decref(o);
}

/* --json of an unreadable record: the shape of a show, saying why. */
static void show_unreadable_json(const struct err *e)
{
	json_t *o = json_pack("{s:n,s:[],s:s}", "record", "held_back", "unreadable", e->msg);

	jsonio_print(stdout, o);
	json_decref(o);
}

static int fd_show(int argc, char **argv)
{
	int json = 0;
	const struct cli_opt opts[] = { { "json", 0, CLI_FLAG, &json, 0, 0, 0 } };
	struct cli_args a;
	struct record r;
	struct store s;
	struct err e;
	long long seq;
	int rc = cli_parse("frontdoor show", CLI_OPTS(opts), 1, 1, argc, argv, &a);

	if (rc != 0)
		return rc;
	if (frontdoor_parse_seq("frontdoor show", a.pos[0], &seq) != 0)
		return EXIT_USAGE;
	if (store_open_default(&s, STORE_READ, &e) != 0)
		return cli_fail(&e);
	rc = store_get(&s, seq, &r, &e);
	store_close(&s);
	if (rc != 0) {
		if (json && e.code == ERR_UNREADABLE)
			show_unreadable_json(&e);
		return cli_fail(&e);
	}
	if (json) {
		show_json(&r);
	} else {
		show_header(&r);
		show_fields(&r);
		show_extraction(&r);
		show_attachments_and_drafts(&r);
	}
	record_free(&r);
	return EXIT_OK;
}

/* ---- next ------------------------------------------------------------------- */

static const char next_help[] =
	"usage: mecha frontdoor next [--limit N]\n\n"
	"What a triage run may be told: a JSON array of briefs for requests in state\n"
	"extracted, in seq order ([] when there are none). A brief holds the typed fields,\n"
	"the checked extraction and attachment measurements, and never the prose.\n\n"
	"  --limit N   at most N briefs (default 5)\n";

static int fd_next(int argc, char **argv)
{
	long long limit = NEXT_DEFAULT_LIMIT;
	const struct cli_opt opts[] = { { "limit", 0, CLI_COUNT, &limit, 0, 0, 0 } };
	struct cli_args a;
	json_t *briefs;
	struct err e;
	int rc = cli_parse("frontdoor next", CLI_OPTS(opts), 0, 0, argc, argv, &a);

	if (rc != 0)
		return rc;
	if (next_briefs(limit, &frontdoor_report, &briefs, &e) != 0)
		return cli_fail(&e);
	jsonio_print(stdout, briefs);
	json_decref(briefs);
	return EXIT_OK;
}

/* ---- needs-info and close --------------------------------------------------- */

static const char needs_info_help[] =
	"usage: mecha frontdoor needs-info SEQ [--note TEXT]\n\n"
	"Parks a request until the requester answers something. --note records what is\n"
	"missing; without it the old note is removed (a stale explanation attached to a new\n"
	"state reads as an explanation of that state). A closed request stays closed.\n";

static const char close_help[] =
	"usage: mecha frontdoor close SEQ --reason TEXT\n\n"
	"Ends a request. The reason is required: a request that went away without a\n"
	"recorded reason is indistinguishable from one that was dropped.\n";

static void frontdoor_print_transition(long long seq, const char *from, const char *to)
{
	printf("%6lld  ", seq);
	text_print(stdout, from, 0);
	printf(" → ");
	text_print(stdout, to, 0);
	putchar('\n');
}

/* Parses "VERB SEQ [--OPT TEXT]" and makes the move. */
static int person_move(const char *verb, const char *opt,
		       int (*fn)(struct store *, long long, const char *, struct moves_result *,
				 struct err *),
		       int argc, char **argv)
{
	const char *text = NULL;
	const struct cli_opt opts[] = { { opt, 0, CLI_TEXT, &text, 0, 0, 0 } };
	struct moves_result res;
	struct cli_args a;
	struct store s;
	struct err e;
	long long seq;
	int rc = cli_parse(verb, CLI_OPTS(opts), 1, 1, argc, argv, &a);

	if (rc != 0)
		return rc;
	if (frontdoor_parse_seq(verb, a.pos[0], &seq) != 0)
		return EXIT_USAGE;
	if (store_open_default(&s, STORE_CREATE, &e) != 0)
		return cli_fail(&e);
	rc = fn(&s, seq, text, &res, &e);
	store_close(&s);
	if (rc != 0)
		return cli_fail(&e);
	frontdoor_print_transition(res.seq, res.from, res.to);
	return EXIT_OK;
}

static int fd_needs_info(int argc, char **argv)
{
	return person_move("frontdoor needs-info", "note", moves_needs_info, argc, argv);
}

static int fd_close(int argc, char **argv)
{
	return person_move("frontdoor close", "reason", moves_close, argc, argv);
}

/* ---- dispatch --------------------------------------------------------------- */

static const struct cli_verb verbs[] = {
	{ "list", fd_list, list_help, "what has arrived, and each request's state" },
	{ "show", fd_show, show_help, "one request in full, including what the stranger wrote" },
	{ "next", fd_next, next_help, "what a triage run may be told, as JSON" },
	{ "extract", frontdoor_extract_verb, frontdoor_extract_help,
	  "the quarantined pass over anything new (no tools, prose only)" },
	{ "triage", frontdoor_triage_verb, frontdoor_triage_help,
	  "the privileged pass: draft replies from the briefs" },
	{ "needs-info", fd_needs_info, needs_info_help, "park a request until its requester answers" },
	{ "close", fd_close, close_help, "end a request, with a reason" },
	{ "reconcile", frontdoor_reconcile_verb, frontdoor_reconcile_help,
	  "settle requests whose drafts were released or rejected" },
	{ "sweep", frontdoor_sweep_verb, frontdoor_sweep_help,
	  "book confirmed bookings and withdraw cancelled ones (no model)" },
};

const struct cli_group cli_frontdoor_group = {
	"frontdoor",
	"Requests strangers submitted. The privileged run sees the extraction, never the prose.",
	verbs,
	sizeof verbs / sizeof verbs[0],
	"list",
};

int cli_frontdoor(int argc, char **argv)
{
	color = text_color_ok(stdout);
	return cli_dispatch(&cli_frontdoor_group, argc, argv);
}
