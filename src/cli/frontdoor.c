/*
 * frontdoor — the verbs a person uses on the request store: list, next,
 * needs-info, close (and the dispatch for the verbs of other files: show,
 * extract, triage, reconcile, sweep), and what those files share. Each parses,
 * calls the library and prints; the rules (which moves the state table allows,
 * that a close needs a reason, what becomes of a closed request's drafts) are
 * in src/frontdoor/.
 *
 * Every string that came from a file — field names, states, notes, statuses —
 * is printed through text.h, with every control character made visible.
 * `next` prints exactly what brief_build allows and nothing else.
 */
#include "cli/cli.h"
#include "cli/frontdoor.h"
#include "cli/verb.h"

#include "base/buf.h"
#include "base/clock.h"
#include "base/err.h"
#include "base/jsonio.h"
#include "base/rfc3339.h"
#include "base/text.h"
#include "base/verdict.h"
#include "config/config.h"
#include "config/confine.h"
#include "frontdoor/decline.h"
#include "frontdoor/listing.h"
#include "frontdoor/moves.h"
#include "frontdoor/next.h"
#include "frontdoor/reply.h"
#include "frontdoor/stale.h"
#include "requests/state.h"
#include "requests/store.h"
#include "frontdoor/sweep.h"

#include <stdlib.h>
#include <string.h>

#define BOLD FRONTDOOR_BOLD
#define DIM FRONTDOOR_DIM
#define RED FRONTDOOR_RED
#define YELLOW FRONTDOOR_YELLOW
#define MAGENTA FRONTDOOR_MAGENTA
#define RESET FRONTDOOR_RESET

static int color;

const char *frontdoor_paint(const char *code)
{
	return color ? code : "";
}

#define paint frontdoor_paint

/* ---- shared helpers --------------------------------------------------------- */

int frontdoor_parse_seq(const char *verb, const char *s, long long *seq)
{
	return cli_parse_count(verb, "SEQ", s, seq);
}

void frontdoor_print_padded(FILE *f, const char *s, int width)
{
	struct buf b = BUF_INIT;

	text_safe(&b, s ? s : "", s ? strlen(s) : 0, 0);
	fputs(buf_str(&b), f);
	for (int n = (int)b.len; n < width; n++)
		fputc(' ', f);
	buf_free(&b);
}

static void print_padded(const char *s, int width)
{
	frontdoor_print_padded(stdout, s, width);
}

/* ---- list ------------------------------------------------------------------- */

static const char list_help[] =
	"usage: mecha frontdoor [list] [--state STATE] [--json]\n\n"
	"What has arrived, and each request's state, in seq order. INVALID marks a request\n"
	"that did not validate at drain time; \"reads like instructions\" is the extractor's\n"
	"label (it gates nothing). A booking shows its slot where the topic would be.\n"
	"Drafts released or rejected since the last look are reconciled first.\n"
	"A record unchanged since a list kept its row (requests/.listed) is not read again.\n"
	"A request that has waited on you longer than [frontdoor] stale_hours (72) is\n"
	"marked stale, with how long (mecha doctor lists them, oldest first).\n\n"
	"  --state STATE   only requests in this state\n"
	"  --json          an array of {seq, type, state, valid, topic,\n"
	"                  reads_like_instructions, note, slot, stale}; slot is a booking's\n"
	"                  {start, end} (null for other requests); stale is the hours it\n"
	"                  has waited on you when past the limit, else null\n";

struct list_ctx {
	const char *state;
	struct store *s;
	int json;
	struct jsonio_array arr;
	size_t shown;
	long stale_hours; /* frontdoor/stale.h */
	time_t now;
};

const char *frontdoor_state_color(const char *state)
{
	/* The state table's attributes (requests/state.h), as the review screen reads them. */
	if (state_has(state, STATE_NOTICE))
		return paint(YELLOW);
	if (state_has(state, STATE_FAILED))
		return paint(RED);
	if (state_has(state, STATE_DIMMED))
		return paint(DIM);
	return "";
}

struct list_widths {
	int seq, type, state;
};

/*
 * Columns wide enough for every record of the store (seqs run to ten digits
 * and beyond), within reason: the widths come from the file names the walk
 * lists (store.h's walk), since a row is printed as soon as it is read, and
 * the state column fits every state of the table. A state from a hand-edited
 * file longer than that shifts its own row only.
 */
static struct list_widths list_widths(const struct store *s)
{
	struct list_widths w = { 6, 12, 18 };

	if (s->walk.seq_width > w.seq)
		w.seq = s->walk.seq_width;
	if (s->walk.type_width > w.type)
		w.type = s->walk.type_width > 40 ? 40 : s->walk.type_width;
	return w;
}

/* The --json row: the fields of list_help, in its order. */
static json_t *list_row(const struct listing *l, long long stale)
{
	json_t *slot = json_null();

	if (l->has_slot) {
		char a[RFC3339_LEN], b[RFC3339_LEN];
		rfc3339_format(l->slot_start, a);
		rfc3339_format(l->slot_end, b);
		slot = json_pack("{s:s,s:s}", "start", a, "end", b);
	}
	return json_pack("{s:I,s:s,s:s,s:b,s:o,s:b,s:o,s:o,s:o}", "seq", (json_int_t)l->seq, "type",
			 l->type_id, "state", l->state, "valid", l->valid, "topic",
			 l->topic ? json_string(l->topic) : json_null(), "reads_like_instructions",
			 l->flagged, "note", l->note ? json_string(l->note) : json_null(), "slot",
			 slot, "stale", stale >= 0 ? json_integer((json_int_t)stale) : json_null());
}

/* The text row. A booking has no topic: its slot says what it is. */
static void list_line(const struct listing *l, long long stale, const struct list_widths *w)
{
	printf("%*lld  ", w->seq, l->seq);
	print_padded(l->type_id, w->type);
	printf(" %s", frontdoor_state_color(l->state));
	print_padded(l->state, w->state);
	printf("%s ", paint(RESET));
	if (!l->topic && l->has_slot) {
		char a[RFC3339_LEN], b[RFC3339_LEN];
		rfc3339_format(l->slot_start, a);
		rfc3339_format(l->slot_end, b);
		printf("%s → %s", a, b);
	} else {
		text_print(stdout, l->topic ? l->topic : "", 0);
	}
	if (!l->valid)
		printf("  %sINVALID%s", paint(RED), paint(RESET));
	if (l->flagged)
		printf("  %sreads like instructions%s", paint(MAGENTA), paint(RESET));
	if (stale >= 0)
		printf("  %sstale (%lldd %lldh)%s", paint(YELLOW), stale / 24, stale % 24,
		       paint(RESET));
	putchar('\n');
}

/* One request: judged, printed (or added to the streamed array) and let go. */
static int list_one(const struct listing *l, void *arg, struct err *e)
{
	struct list_ctx *c = arg;
	long long stale;

	(void)e;
	if (c->state && strcmp(l->state, c->state) != 0)
		return VERDICT_NEXT;
	c->shown++;
	stale = listing_stale_hours(l, c->stale_hours, c->now);
	if (c->json) {
		json_t *row = list_row(l, stale);
		jsonio_array_add(&c->arr, row);
		json_decref(row);
	} else {
		struct list_widths w = list_widths(c->s);
		list_line(l, stale, &w);
	}
	return VERDICT_NEXT;
}

/* How long is too long ([frontdoor] stale_hours), and now. */
static int list_clock(struct list_ctx *c, struct err *e)
{
	struct config cfg;

	if (config_load(&cfg, e) != 0)
		return -1;
	c->stale_hours = stale_request_hours(&cfg);
	c->now = clock_now();
	config_free(&cfg);
	return 0;
}

static int fd_list(int argc, char **argv)
{
	struct list_ctx c = { 0 };
	const struct cli_opt opts[] = {
		{ "state", 0, CLI_STR, &c.state, 0, 0, 0 },
		{ "json", 0, CLI_FLAG, &c.json, 0, 0, 0 },
	};
	struct cli_args a;
	struct store s;
	struct err e;
	int rc = cli_parse("frontdoor list", CLI_OPTS(opts), 0, 0, argc, argv, &a);

	if (rc != 0)
		return rc;
	if (c.state && !state_known(c.state))
		return cli_usage_error("frontdoor list", "'%s' is not a state", c.state);
	if (list_clock(&c, &e) != 0 || store_open_default(&s, STORE_READ, &e) != 0)
		return cli_fail(&e);
	/* Streamed: each row is printed as its record is read, and nothing is kept. */
	c.s = &s;
	if (c.json)
		jsonio_array_begin(&c.arr, stdout);
	rc = listing_each(&s, list_one, &c, &frontdoor_report, &e);
	store_close(&s);
	if (c.json && (rc == 0 || c.arr.n > 0))
		jsonio_array_end(&c.arr); /* what was printed stays one array, even on a failure */
	if (rc != 0)
		return cli_fail(&e);
	if (!c.json && c.shown == 0)
		puts(c.state ? "no requests in that state" : "no requests");
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
	"usage: mecha frontdoor needs-info SEQ [--note TEXT [--ask]] [--json]\n\n"
	"Parks a request until the requester answers something. --note records what is\n"
	"missing; without it the old note is removed (a stale explanation attached to a new\n"
	"state reads as an explanation of that state). A closed request stays closed.\n\n"
	"  --ask   also tell the requester: stages a mail_send draft to the request's\n"
	"          reply_to carrying the note as the question (released like any draft,\n"
	"          with `mecha outbox approve`); the request stays needs_info. Refused\n"
	"          (exit 3) for a booking or a request with no reply_to.\n"
	"  --json  {seq, from, to, note, drafts_rejected, drafts_kept, staged, box} on\n"
	"          stdout, as close --json; staged is --ask's draft {id, to}, else null\n";

static const char close_help[] =
	"usage: mecha frontdoor close SEQ --reason TEXT [--reject-drafts | --keep-drafts]\n"
	"                            [--notify | --no-notify] [--json]\n\n"
	"Ends a request. The reason is required: a request that went away without a\n"
	"recorded reason is indistinguishable from one that was dropped. A closed request\n"
	"keeps the reason it was closed for: closing it again is refused (exit 3).\n"
	"A request with a draft still pending in the outbox is not closed until you say\n"
	"what becomes of the draft (exit 3, drafts_pending):\n\n"
	"  --reject-drafts   reject its pending drafts, with the same reason\n"
	"  --keep-drafts     leave them pending (outbox approve then sends one only when\n"
	"                    forced)\n\n"
	"A booked request is not closed until you say what its requester is told (exit 3,\n"
	"booking):\n\n"
	"  --notify          stage the iTIP CANCEL of its event (a calendar_cancel draft:\n"
	"                    released, it withdraws the event and mails the CANCEL), and\n"
	"                    tell your box: its manage page says the owner cancelled it\n"
	"                    and the slot is free there\n"
	"  --no-notify       close it and tell nobody\n\n"
	"  --json            what was done, as one object on stdout: {seq, from, to, note,\n"
	"                    drafts_rejected, drafts_kept, staged, box}; note is the\n"
	"                    reason, drafts_rejected and drafts_kept the ids of the drafts\n"
	"                    rejected or left pending ([] when none), staged the draft\n"
	"                    --notify staged ({id, to: null}, else\n"
	"                    null), box what your box was told ({told, says, why}: told is\n"
	"                    told, already, failed, foreign_id or unasked; why the failure\n"
	"                    {ok, error, message} when failed, else null; null without\n"
	"                    --notify). A refusal prints {ok: false, error, message}\n";

static void print_close(const struct moves_result *res);

/* Text from a record (a state, a note, an address) as JSON, never dropped; NULL is null. */
static json_t *nullable_string(const char *s)
{
	return s ? jsonio_text(s) : json_null();
}

/* The box's answer: a keyword, the line the text output says, and the failure when not told. */
static json_t *move_box(const struct decline_outcome *o, int cancelled)
{
	return json_pack("{s:s,s:s,s:o}", "told", decline_told_name(o->told), "says",
			 decline_told_text(o, cancelled), "why",
			 o->told == DECLINE_NOT_TOLD ? jsonio_failure(o->why.code, o->why.msg)
						     : json_null());
}

/* The first n of ids (n 0: none) as a JSON array. */
static json_t *move_drafts(char *const *ids, size_t n)
{
	json_t *a = json_array();

	for (size_t i = 0; i < n && ids; i++)
		json_array_append_new(a, jsonio_text(ids[i]));
	return a;
}

void frontdoor_print_move(const struct frontdoor_move *m)
{
	json_t *staged = m->staged_id ? json_pack("{s:s,s:o}", "id", m->staged_id, "to",
						  nullable_string(m->staged_to))
				      : json_null();
	json_t *o = json_pack("{s:I,s:o,s:s,s:o,s:o,s:o,s:o,s:o}", "seq", (json_int_t)m->seq,
			      "from", nullable_string(m->from), "to", m->to, "note",
			      nullable_string(m->note),
			      "drafts_rejected", move_drafts(m->drafts, m->drafts_rejected),
			      "drafts_kept", move_drafts(m->drafts, m->drafts_kept), "staged", staged, "box",
			      m->box ? move_box(m->box, m->cancelled) : json_null());

	jsonio_print(stdout, o);
	json_decref(o);
}

/* A move of moves.h, as text or --json. */
static void print_moved(const struct moves_result *res, int json)
{
	struct frontdoor_move m = { .seq = res->seq,
				    .from = res->from,
				    .to = res->to,
				    .note = res->note,
				    .drafts_rejected = res->drafts_rejected,
				    .drafts_kept = res->drafts_kept,
				    .drafts = res->drafts };

	if (json)
		frontdoor_print_move(&m);
	else
		print_close(res);
}

static void frontdoor_print_transition(long long seq, const char *from, const char *to)
{
	printf("%6lld  ", seq);
	text_print(stdout, from, 0);
	printf(" → ");
	text_print(stdout, to, 0);
	putchar('\n');
}

/* needs-info --ask: the question staged to the requester, and the request parked, in one write. */
static int ask_back(long long seq, const char *note, int json)
{
	char id[OUTBOX_ID_MAX + 1];
	struct reply rp;
	struct err e;
	int rc;

	if (text_blank(note))
		return cli_usage_error("frontdoor needs-info", "--ask needs --note TEXT: the note is "
				       "the question the requester is asked");
	if (reply_open(&rp, seq, &e) != 0)
		return cli_fail(&e);
	rc = reply_ask(&rp, note, id, &e);
	if (rc < 0)
		rc = cli_fail(&e);
	else {
		struct frontdoor_move m = { .seq = rp.seq,
					    .from = rp.from,
					    .to = STATE_NEEDS_INFO,
					    .note = note,
					    .staged_id = id,
					    .staged_to = rp.to };
		if (json)
			frontdoor_print_move(&m);
		else
			frontdoor_print_staged(id, &rp, STATE_NEEDS_INFO);
		rc = EXIT_OK;
	}
	reply_close(&rp);
	return rc;
}

static int fd_needs_info(int argc, char **argv)
{
	const char *note = NULL;
	int ask = 0, json = 0;
	const struct cli_opt opts[] = {
		{ "note", 0, CLI_TEXT, &note, 0, 0, 0 },
		{ "ask", 0, CLI_FLAG, &ask, 0, 0, 0 },
		{ "json", 0, CLI_FLAG, &json, 0, 0, 0 },
	};
	struct moves_result res;
	struct cli_args a;
	struct store s;
	struct err e;
	long long seq;
	int rc = cli_parse("frontdoor needs-info", CLI_OPTS(opts), 1, 1, argc, argv, &a);

	if (rc != 0)
		return rc;
	if (frontdoor_parse_seq("frontdoor needs-info", a.pos[0], &seq) != 0)
		return EXIT_USAGE;
	if (ask)
		return ask_back(seq, note, json);
	if (store_open_default(&s, STORE_CREATE, &e) != 0)
		return cli_fail(&e);
	rc = moves_needs_info(&s, seq, note, &res, &e);
	store_close(&s);
	if (rc != 0)
		return cli_fail(&e);
	print_moved(&res, json);
	moves_result_free(&res);
	return EXIT_OK;
}

/* A move's text: the transition, and what a close did to the drafts (none for needs-info). */
static void print_close(const struct moves_result *res)
{
	frontdoor_print_transition(res->seq, res->from, res->to);
	if (res->drafts_rejected)
		printf("        %zu pending draft%s rejected with the same reason\n",
		       res->drafts_rejected, res->drafts_rejected == 1 ? "" : "s");
	if (res->drafts_kept)
		printf("        %zu draft%s still pending: approving %s needs --force\n",
		       res->drafts_kept, res->drafts_kept == 1 ? "" : "s",
		       res->drafts_kept == 1 ? "it" : "one");
}

static int fd_close(int argc, char **argv)
{
	const char *reason = NULL;
	int reject = 0, keep = 0, notify = 0, quiet = 0, json = 0;
	const struct cli_opt opts[] = {
		{ "reason", 0, CLI_TEXT, &reason, 0, 0, 0 },
		{ "reject-drafts", 0, CLI_FLAG, &reject, 0, 0, 0 },
		{ "keep-drafts", 0, CLI_FLAG, &keep, 0, 0, 0 },
		{ "notify", 0, CLI_FLAG, &notify, 0, 0, 0 },
		{ "no-notify", 0, CLI_FLAG, &quiet, 0, 0, 0 },
		{ "json", 0, CLI_FLAG, &json, 0, 0, 0 },
	};
	struct decline_outcome o;
	struct moves_result res;
	struct cli_args a;
	struct err e;
	long long seq;
	int rc = cli_parse("frontdoor close", CLI_OPTS(opts), 1, 1, argc, argv, &a);

	if (rc != 0)
		return rc;
	if (frontdoor_parse_seq("frontdoor close", a.pos[0], &seq) != 0)
		return EXIT_USAGE;
	if (reject && keep)
		return cli_usage_error("frontdoor close", "--reject-drafts or --keep-drafts, not both");
	if (notify && quiet)
		return cli_usage_error("frontdoor close", "--notify or --no-notify, not both");
	if (notify) { /* a booked request: its CANCEL staged and the request closed, one write */
		if (text_blank(reason))
			return cli_usage_error("frontdoor close", "close needs --reason TEXT");
		if (decline_cancel_home(seq, reason, &frontdoor_teller, &o, &e) != 0)
			return cli_fail(&e);
		frontdoor_print_farewell(&o, "the iTIP CANCEL", 1, json);
		return EXIT_OK;
	}
	if ((quiet ? moves_close_home_quietly : moves_close_home)(
		    seq, reason, reject ? MOVES_DRAFTS_REJECT : keep ? MOVES_DRAFTS_KEEP
								  : MOVES_DRAFTS_REFUSE,
		    &res, &e) != 0)
		return cli_fail(&e);
	print_moved(&res, json);
	moves_result_free(&res);
	return EXIT_OK;
}

/* ---- dispatch --------------------------------------------------------------- */

static const struct cli_verb verbs[] = {
	/* list and next reconcile first: they may move requests */
	{ "list", fd_list, list_help, "what has arrived, and each request's state", CONFINE_REQUESTS },
	{ "show", frontdoor_show_verb, frontdoor_show_help,
	  "one request in full, including what the stranger wrote", CONFINE_PAGER },
	{ "next", fd_next, next_help, "what a triage run may be told, as JSON", CONFINE_REQUESTS },
	{ "extract", frontdoor_extract_verb, frontdoor_extract_help,
	  "the quarantined pass over anything new (no tools, prose only)",
	  CONFINE_REQUESTS | CONFINE_PROVIDER },
	{ "triage", frontdoor_triage_verb, frontdoor_triage_help,
	  "the privileged pass: draft replies from the briefs",
	  CONFINE_REQUESTS | CONFINE_OUTBOX | CONFINE_SESSIONS | CONFINE_CALENDAR | CONFINE_PROVIDER },
	{ "needs-info", fd_needs_info, needs_info_help, "park a request until its requester answers",
	  CONFINE_REQUESTS | CONFINE_OUTBOX },
	{ "reply", frontdoor_reply_verb, frontdoor_reply_help,
	  "answer a request in your own words (your editor, or --body)",
	  CONFINE_REQUESTS | CONFINE_OUTBOX | CONFINE_EDITOR },
	{ "close", fd_close, close_help, "end a request, with a reason",
	  CONFINE_REQUESTS | CONFINE_OUTBOX | CONFINE_GATE },
	{ "decline", frontdoor_decline_verb, frontdoor_decline_help,
	  "turn down a booking the sweep left, telling the requester and the box",
	  CONFINE_REQUESTS | CONFINE_OUTBOX | CONFINE_GATE },
	{ "reconcile", frontdoor_reconcile_verb, frontdoor_reconcile_help,
	  "settle requests whose drafts were released or rejected", CONFINE_REQUESTS },
	{ "sweep", frontdoor_sweep_verb, frontdoor_sweep_help,
	  "book confirmed bookings and withdraw cancelled ones (no model)",
	  CONFINE_REQUESTS | CONFINE_CALENDAR_W | CONFINE_DELIVER | CONFINE_GATE | CONFINE_OFFERED },
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
