/*
 * frontdoor_sweep (cli) — `mecha frontdoor sweep`: parse, run the sweep
 * (src/frontdoor/sweep.h), print a summary and a line for each record that
 * was not settled (every record with -v), or with --json one summary; the
 * meter on a terminal. The exit status says whether everything was settled.
 */
#include "cli/cli.h"
#include "cli/frontdoor.h"
#include "cli/progress.h"
#include "cli/verb.h"

#include "base/err.h"
#include "base/jsonio.h"
#include "base/rfc3339.h"
#include "base/text.h"
#include "drain/offered.h"
#include "drain/push.h"
#include "frontdoor/sweep.h"
#include "frontdoor/sweep_offer.h"

#include <stdio.h>

const char frontdoor_sweep_help[] =
	"usage: mecha frontdoor sweep [--dry-run] [-v] [--json]\n\n"
	"Settles confirmed bookings and their cancellations, with no model involved. Only\n"
	"a booking of a kind = \"booking\" type this home has, for a slot that fits its\n"
	"[availability] and that `mecha slots push` offered, is booked; any other is left\n"
	"for you (not_a_booking_type, not_offered). A booking whose slot is still free in\n"
	"the calendar (buffer included) gets its event (attendee: the\n"
	"request's reply_to), its invitation (mailed through [mail], with the manage link)\n"
	"and moves to booked with the event's UID as its note. A manage link that is not\n"
	"one of your gate's is left out, and the line says so (bad_manage_url). A busy\n"
	"slot prints CONFLICT\n"
	"and books nothing: the request waits for you. A cancellation removes the event,\n"
	"mails its cancellation, and closes itself and its booking (\"cancelled by the\n"
	"requester\"). A rescheduling (a booking moved on its manage page) moves the\n"
	"event of a booking this home booked to a new slot it offered: the same UID,\n"
	"SEQUENCE + 1, a REQUEST saying the old and the new time; the old booking's\n"
	"record is closed (one this home did not book: left, unknown_booking).\n"
	"Cancellations go first. requests/bookings.jsonl records every step,\n"
	"so a rerun, or a run after a crash, does nothing twice. Then each booked booking\n"
	"whose reminder is due (its type's [policy] reminders, default 24h and 1h before\n"
	"the start; none for a tier it was booked inside) gets that one mail, once; a dry\n"
	"run lists the reminders due. After it booked, moved or withdrew, each booking\n"
	"type pushed before whose calendar changed is pushed to the box again (as `mecha\n"
	"slots push` does), so the box stops offering a booked time; a push that fails is\n"
	"said on stderr and never undoes a booking. Meant to run from a timer every five minutes\n"
	"(docs/mecha-sweep.timer): a reminder goes out within five minutes of its tier.\n"
	"A meter shows progress on a terminal; then a summary. A record that was not\n"
	"settled (CONFLICT, left, failed), or one that needs a look, always gets its line;\n"
	"one that was settled only with -v. Nothing is printed when there was nothing to do.\n\n"
	"  --dry-run       say what would happen; write, send and lock nothing\n"
	"  -v, --verbose   also a line for each record settled\n"
	"  --json          one summary: {dry_run, booked, conflicts, cancelled, closed, left,\n"
	"                  failed, reminded, moved}, each a list of {seq, booking_id, start,\n"
	"                  end, uid, attendee, booking_seq, message, reason, tier}, and\n"
	"                  slots_pushed: [{type, gate, slots}]\n\n"
	"Exit status: 0 everything was settled; 1 a step failed (the next sweep carries on);\n"
	"3 a booking was left for you (CONFLICT, or one the sweep cannot read) — a dry run\n"
	"exits 0 for those, since saying so was all it was asked.\n";

static const char *const outcome_key[] = { "booked", "conflicts", "cancelled", "closed",
					   "left",   "failed",    "reminded",  "moved" };

static const char *outcome_word(const struct sweep_line *l)
{
	static const char *const done[] = { "booked", "CONFLICT", "cancelled", "closed",
					     "left",   "failed",   "reminded",  "moved" };
	static const char *const would[] = { "would book",  "CONFLICT", "would cancel",
					      "would close", "left",     "failed",
					      "reminder due", "would move" };

	return (l->dry_run ? would : done)[l->outcome];
}

static void print_slot(const struct sweep_line *l)
{
	char a[RFC3339_LEN], b[RFC3339_LEN];

	if (!l->start)
		return;
	rfc3339_format(l->start, a);
	rfc3339_format(l->end, b);
	printf("  %s → %s", a, b);
}

/* Every string here may have come from a file: it reaches the terminal through text.h. */
static void print_line(const struct sweep_line *l)
{
	printf("%-12s %6lld", outcome_word(l), l->seq);
	print_slot(l);
	if ((l->outcome == SWEEP_CANCELLED || l->outcome == SWEEP_MOVED) && l->booking_seq >= 0)
		printf("  %s %lld", l->outcome == SWEEP_MOVED ? "from booking" : "booking",
		       l->booking_seq);
	if (l->tier) {
		printf("  ");
		text_print(stdout, l->tier, 0);
		printf(" before");
	}
	if (l->attendee) {
		printf("  ");
		text_print(stdout, l->attendee, 0);
	}
	if (l->uid) {
		printf("  ");
		text_print(stdout, l->uid, 0);
	}
	if (l->message) {
		printf("  (");
		text_print(stdout, l->message, 0);
		putchar(')');
	}
	putchar('\n');
}

static json_t *time_or_null(time_t t)
{
	char s[RFC3339_LEN];

	if (!t)
		return json_null();
	rfc3339_format(t, s);
	return json_string(s);
}

static json_t *str_or_null(const char *s)
{
	return s ? json_string(s) : json_null();
}

struct tally {
	json_t *summary; /* with --json */
	int verbose;
	struct progress meter;
};

/*
 * Settled, and nothing for a person to check: a line only with -v. (A
 * booking's or a cancellation's message is a warning, a closed one's the
 * reason it was closed for.)
 */
static int quiet(const struct sweep_line *l)
{
	if (l->outcome == SWEEP_REMINDED) /* a dry run lists the reminders due */
		return !l->dry_run && !l->message;
	return l->outcome == SWEEP_CLOSED ||
	       (!l->message && (l->outcome == SWEEP_BOOKED || l->outcome == SWEEP_CANCELLED ||
				l->outcome == SWEEP_MOVED));
}

/* The sweep's judge (sweep_offer.h) is what home kept of its pushes (drain/offered.h). */
int frontdoor_offer_judge(void *ctx, const char *type_id, time_t start, time_t end, const char *link,
		 struct sweep_offer *out, struct err *e)
{
	static const enum sweep_offer_verdict verdict[] = {
		[OFFERED_YES] = SWEEP_OFFER_YES, [OFFERED_WITHDRAWN] = SWEEP_OFFER_WITHDRAWN,
		[OFFERED_NO] = SWEEP_OFFER_NO, [OFFERED_NOT_BOOKING] = SWEEP_OFFER_NOT_BOOKING };
	struct offered_answer a;

	if (offered_check(ctx, type_id, start, end, link, &a, e) != 0)
		return -1;
	out->verdict = verdict[a.verdict];
	out->buffer_minutes = a.buffer_minutes;
	out->link_ok = a.link_ok;
	snprintf(out->why, sizeof out->why, "%s", a.why);
	snprintf(out->link_why, sizeof out->link_why, "%s", a.link_why);
	return 0;
}

static void on_start(size_t total, void *ctx)
{
	progress_total(&((struct tally *)ctx)->meter, total);
}

static void on_line(const struct sweep_line *l, void *ctx)
{
	struct tally *t = ctx;
	json_t *summary = t->summary;

	progress_hide(&t->meter);
	if (!summary) {
		if (t->verbose || !quiet(l))
			print_line(l);
		fflush(stdout);
		if (!l->tier) /* the meter counts records settled, not reminders */
			progress_step(&t->meter);
		return;
	}
	if (!l->tier)
		progress_step(&t->meter);
	json_array_append_new(
		json_object_get(summary, outcome_key[l->outcome]),
		json_pack("{s:I,s:o,s:o,s:o,s:o,s:o,s:o,s:o,s:o,s:o}", "seq", (json_int_t)l->seq,
			  "booking_id", str_or_null(l->booking_id), "start", time_or_null(l->start),
			  "end", time_or_null(l->end), "uid", str_or_null(l->uid), "attendee",
			  str_or_null(l->attendee), "booking_seq",
			  l->booking_seq >= 0 ? json_integer(l->booking_seq) : json_null(), "message",
			  str_or_null(l->message), "reason", str_or_null(l->reason), "tier",
			  str_or_null(l->tier)));
}

static json_t *summary_new(int dry_run)
{
	json_t *s = json_pack("{s:b}", "dry_run", dry_run);

	for (size_t i = 0; i < sizeof outcome_key / sizeof outcome_key[0]; i++)
		json_object_set_new(s, outcome_key[i], json_array());
	json_object_set_new(s, "slots_pushed", json_array());
	return s;
}

/* Only what happened, in the order of sweep_outcome; nothing when nothing did. */
static void print_summary(const struct sweep_counts *n, int dry_run)
{
	const size_t counts[] = { n->booked, n->conflicts, n->cancelled, n->closed, n->left,
				  n->failed,  n->reminded,  n->moved };
	static const char *const done[] = { "booked", "CONFLICT",     "cancelled",
					     "closed", "left for you", "failed",
					     "reminded", "moved" };
	static const char *const would[] = { "would book",  "CONFLICT",     "would cancel",
					      "would close", "left for you", "failed",
					      "reminders due", "would move" };
	int first = 1;

	for (size_t i = 0; i < sizeof counts / sizeof counts[0]; i++) {
		if (!counts[i])
			continue;
		printf("%s%zu %s", first ? "" : ", ", counts[i], (dry_run ? would : done)[i]);
		first = 0;
	}
	if (!first)
		putchar('\n');
}

static int sweep_status(const struct sweep_counts *n, int dry_run)
{
	/* A step that failed is retried by the next sweep; a timer should still hear of it. */
	if (n->failed)
		return EXIT_FAIL;
	if (!dry_run && (n->conflicts || n->left))
		return EXIT_REFUSED;
	return EXIT_OK;
}

/* A push after the sweep booked or withdrew (push.h), or why it failed: the bookings stand. */
static void on_push(const struct push_due_line *l, void *ctx)
{
	struct tally *t = ctx;

	if (l->failed)
		cli_push_failed(l, "what was booked stands; mecha slots push TYPE, or the drain "
				"service's next look, pushes them");
	else if (t->summary)
		json_array_append_new(json_object_get(t->summary, "slots_pushed"),
				      json_pack("{s:s,s:s,s:I}", "type", l->type, "gate",
						l->pushed->gate, "slots", (json_int_t)l->pushed->n));
	else
		cli_push_said(l, NULL);
}

/* The box stops offering what was just booked, and offers again what was withdrawn. */
static void push_after(const struct sweep_counts *n, struct tally *t)
{
	struct err e;

	err_clear(&e);
	if ((n->booked || n->cancelled || n->moved) && push_slots_due(0, on_push, t, &e) < 0) {
		struct push_due_line l = { NULL, NULL, NULL, &e };
		on_push(&l, t);
	}
}

int frontdoor_sweep_verb(int argc, char **argv)
{
	int dry_run = 0, json = 0;
	struct tally t = { NULL, 0, { 0 } };
	const struct cli_opt opts[] = {
		{ "dry-run", 0, CLI_FLAG, &dry_run, 0, 0, 0 },
		{ "verbose", 'v', CLI_FLAG, &t.verbose, 0, 0, 0 },
		{ "json", 0, CLI_FLAG, &json, 0, 0, 0 },
	};
	struct offered_judge j = OFFERED_JUDGE_INIT;
	struct sweep_offers offers = { frontdoor_offer_judge, &j };
	struct sweep_report rep = { on_line, &t, on_start, &offers };
	struct sweep_counts n;
	struct cli_args a;
	struct err e;
	int rc = cli_parse("frontdoor sweep", CLI_OPTS(opts), 0, 0, argc, argv, &a);

	if (rc != 0)
		return rc;
	if (json)
		t.summary = summary_new(dry_run);
	progress_begin(&t.meter, dry_run ? "sweep (dry run)" : "sweep");
	rc = sweep_home(dry_run ? SWEEP_DRY_RUN : 0, &rep, &n, &e);
	progress_end(&t.meter);
	offered_judge_free(&j);
	if (rc != 0) {
		json_decref(t.summary);
		return cli_fail_json(&e, json);
	}
	if (!dry_run)
		push_after(&n, &t);
	if (json)
		jsonio_print(stdout, t.summary);
	else
		print_summary(&n, dry_run);
	json_decref(t.summary);
	return sweep_status(&n, dry_run);
}
