/*
 * queue — what has waited too long, said out loud: every request whose
 * extraction failed (fail), every request that has waited on the owner longer
 * than [frontdoor] stale_hours (warn, oldest first, with its age), every
 * pending draft whose last delivery failed or was interrupted (fail), every
 * pending draft older than [outbox] stale_hours (warn, oldest first), and
 * every booking the sweep would leave for a person (warn: a dry run of it,
 * which locks, writes and sends nothing). Each line names the verb that
 * settles it; frontdoor/stale.h is the rule, shared with `frontdoor list` and
 * the review screen. Nothing waiting is one ok line.
 */
#include "doctor/check.h"

#include "base/buf.h"
#include "base/clock.h"
#include "base/err.h"
#include "base/jsonio.h"
#include "base/rfc3339.h"
#include "base/verdict.h"
#include "requests/record.h"
#include "frontdoor/stale.h"
#include "requests/state.h"
#include "requests/store.h"
#include "frontdoor/sweep.h"
#include "outbox/store.h"

#include <stdlib.h>
#include <string.h>

#define CHECK "queue"

/* A request worth a line, as the walk saw it. */
struct waiting {
	long long seq;
	char type_id[RECORD_TYPE_ID_MAX + 1];
	char state[32];
	time_t since;
	char *why; /* extraction_error (owned); NULL */
};

struct walk {
	time_t now;
	long hours;
	struct waiting *failed, *stale;
	size_t nfailed, nstale, nwaiting;
};

static void waiting_free(struct waiting *w, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(w[i].why);
	free(w);
}

static void keep(struct waiting **v, size_t *n, const struct record *r)
{
	struct waiting *w;
	const char *why = jsonio_str(r->doc, "extraction_error");

	*v = xrealloc(*v, (*n + 1) * sizeof **v);
	w = &(*v)[(*n)++];
	w->seq = r->seq;
	snprintf(w->type_id, sizeof w->type_id, "%s", r->type_id);
	snprintf(w->state, sizeof w->state, "%s", record_state(r));
	w->since = stale_since(r);
	w->why = why ? xstrdup(why) : NULL;
}

static int walk_one(struct record *r, void *ctx, struct err *e)
{
	struct walk *w = ctx;

	(void)e;
	if (strcmp(record_state(r), STATE_EXTRACTION_FAILED) == 0)
		keep(&w->failed, &w->nfailed, r);
	w->nwaiting += stale_waits_on_owner(record_state(r));
	if (stale_request(r, w->hours, w->now))
		keep(&w->stale, &w->nstale, r);
	return VERDICT_NEXT;
}

static int older_first(const void *a, const void *b)
{
	const struct waiting *x = a, *y = b;

	if (x->since != y->since)
		return x->since < y->since ? -1 : 1;
	return (x->seq > y->seq) - (x->seq < y->seq);
}

/* "3d 4h", "5h": how long, in the units a person reads at a glance. */
static void age_text(char out[32], long long seconds)
{
	long long h = seconds / 3600;

	if (h >= 24)
		snprintf(out, 32, "%lldd %lldh", h / 24, h % 24);
	else
		snprintf(out, 32, "%lldh", h);
}

static json_t *request_item(const struct waiting *w, time_t now)
{
	char since[RFC3339_LEN];

	rfc3339_format(w->since, since);
	return json_pack("{s:s,s:I,s:s,s:s,s:s,s:I}", "kind", "request", "seq", (json_int_t)w->seq,
			 "type", w->type_id, "state", w->state, "since", since, "age_hours",
			 (json_int_t)((now - w->since) / 3600));
}

/* The verb that settles a request that waits in this state. */
static char *settle_request(const struct waiting *w)
{
	if (strcmp(w->state, STATE_EXTRACTED) == 0)
		return xasprintf("mecha frontdoor triage --seq %lld drafts an answer; or read it in "
				 "mecha review and answer or close it yourself", w->seq);
	if (strcmp(w->state, STATE_TRIAGED) == 0)
		return xasprintf("nothing was drafted for it: mecha review, then answer it, or "
				 "mecha frontdoor close %lld --reason …", w->seq);
	return xasprintf("its drafts wait for you: mecha outbox review (send or reject each), "
			 "or mecha review");
}

static void say_requests(struct doctor *d, struct walk *w)
{
	char age[32], since[RFC3339_LEN];

	for (size_t i = 0; i < w->nfailed; i++) {
		const struct waiting *f = &w->failed[i];
		char *fix = xasprintf("mecha frontdoor extract --seq %lld tries again (--retry-failed: "
				      "every one); or mecha frontdoor close %lld --reason …", f->seq,
				      f->seq);
		doctor_say_item(d, CHECK, DOCTOR_FAIL, request_item(f, w->now), fix,
				"request %lld (%s): its extraction failed%s%s", f->seq, f->type_id,
				f->why ? ": " : "", f->why ? f->why : "");
		free(fix);
	}
	if (w->nstale) /* qsort of no array: stale is NULL then */
		qsort(w->stale, w->nstale, sizeof *w->stale, older_first);
	for (size_t i = 0; i < w->nstale; i++) {
		const struct waiting *s = &w->stale[i];
		char *fix = settle_request(s);
		age_text(age, (long long)(w->now - s->since));
		rfc3339_format(s->since, since);
		doctor_say_item(d, CHECK, DOCTOR_WARN, request_item(s, w->now), fix,
				"request %lld (%s) has waited on you %s (%s, arrived %s)", s->seq,
				s->type_id, age, s->state, since);
		free(fix);
	}
}

/* ---- drafts ----------------------------------------------------------------------- */

static json_t *draft_item(const struct outbox_item *it, time_t now)
{
	time_t t = 0;

	if (it->created_at)
		rfc3339_parse(it->created_at, &t);
	return json_pack("{s:s,s:s,s:s,s:I}", "kind", "draft", "id", it->id, "summary",
			 it->summary, "age_hours", (json_int_t)(t ? (now - t) / 3600 : 0));
}

static void say_draft(struct doctor *d, const struct outbox_item *it, long hours, time_t now,
		      size_t *pending)
{
	char age[32];
	time_t t;
	char *fix;

	if (!outbox_item_pending(it))
		return;
	(*pending)++;
	if (it->sending_since) {
		fix = xasprintf("check whether it arrived; then mecha outbox approve %s --force sends "
				"it again, or mecha outbox reject %s --reason …", it->id, it->id);
		doctor_say_item(d, CHECK, DOCTOR_FAIL, draft_item(it, now), fix,
				"draft %s (%s): a release was interrupted while sending it (since %s)",
				it->id, it->summary, it->sending_since);
	} else if (it->error) {
		fix = xasprintf("mend what the error says, then mecha outbox approve %s; or mecha "
				"outbox reject %s --reason …", it->id, it->id);
		doctor_say_item(d, CHECK, DOCTOR_FAIL, draft_item(it, now), fix,
				"draft %s (%s): its last delivery failed: %s", it->id, it->summary,
				it->error);
	} else if (stale_draft(it->created_at, hours, now) &&
		   rfc3339_parse(it->created_at, &t) == 0) {
		age_text(age, (long long)(now - t));
		fix = xasprintf("mecha outbox approve %s, or mecha outbox reject %s --reason … (or "
				"mecha outbox review)", it->id, it->id);
		doctor_say_item(d, CHECK, DOCTOR_WARN, draft_item(it, now), fix,
				"draft %s (%s) has waited %s for you", it->id, it->summary, age);
	} else {
		return;
	}
	free(fix);
}

/* Pending drafts, oldest first (ids sort in staging order); how many are pending. */
static size_t say_drafts(struct doctor *d, time_t now)
{
	struct outbox_store o;
	struct outbox_list l = { NULL, 0 };
	size_t pending = 0;
	struct err e;

	memset(&o, 0, sizeof o);
	err_clear(&e);
	if (outbox_store_open(&o, d->cfg.outbox_dir, OUTBOX_READ, &e) != 0 ||
	    outbox_store_list(&o, &l, NULL, &e) != 0) {
		doctor_say(d, CHECK, DOCTOR_FAIL, "see the permissions and stores lines",
			   "the outbox cannot be read: %s", e.msg);
	} else {
		for (size_t i = 0; i < l.n; i++)
			say_draft(d, &l.items[i], stale_draft_hours(&d->cfg), now, &pending);
	}
	outbox_list_free(&l);
	if (o.dir)
		outbox_store_close(&o);
	return pending;
}

/* ---- bookings --------------------------------------------------------------------- */

static void on_booking(const struct sweep_line *l, void *ctx)
{
	struct doctor *d = ctx;
	const char *what = l->outcome == SWEEP_CONFLICT ? "its slot is busy in the calendar"
			   : l->message ? l->message : "the sweep leaves it for you";
	char *fix;

	if (l->outcome != SWEEP_CONFLICT && l->outcome != SWEEP_LEFT && l->outcome != SWEEP_FAILED)
		return;
	fix = xasprintf("mecha frontdoor show %lld; answer the booker yourself, then mecha "
			"frontdoor close %lld --reason …%s", l->seq, l->seq,
			l->outcome == SWEEP_FAILED ? " (or mend what stops mecha frontdoor sweep)" : "");
	doctor_say_item(d, CHECK, DOCTOR_WARN,
			json_pack("{s:s,s:I}", "kind", "booking", "seq", (json_int_t)l->seq), fix,
			"booking %lld is left for you: %s", l->seq, what);
	free(fix);
}

static void say_bookings(struct doctor *d, struct store *s)
{
	struct sweep_report rep = { on_booking, d, NULL, d->offers };
	struct sweep_counts n = { 0 };
	struct err e;

	err_clear(&e);
	if (sweep_run(s, &d->cfg, SWEEP_DRY_RUN, &rep, &n, &e) != 0)
		doctor_say(d, CHECK, DOCTOR_WARN, "mecha frontdoor sweep says the same; mend what it "
			   "names", "the bookings could not be looked at: %s", e.msg);
}

void doctor_queue(struct doctor *d)
{
	struct walk w = { clock_now(), 0, NULL, NULL, 0, 0, 0 };
	size_t before = d->out->n, pending;
	struct store s;
	struct err e;

	if (!d->cfg_ok) {
		doctor_skip(d, CHECK);
		return;
	}
	w.hours = stale_request_hours(&d->cfg);
	err_clear(&e);
	if (store_open_default(&s, STORE_READ, &e) != 0) {
		doctor_say(d, CHECK, DOCTOR_FAIL, "see the permissions and stores lines",
			   "the request store cannot be read: %s", e.msg);
		return;
	}
	if (store_each(&s, walk_one, &w, &e) != 0)
		doctor_say(d, CHECK, DOCTOR_FAIL, "see the permissions and stores lines",
			   "the request store cannot be read: %s", e.msg);
	say_requests(d, &w);
	pending = say_drafts(d, w.now);
	say_bookings(d, &s);
	store_close(&s);
	if (d->out->n == before)
		doctor_say(d, CHECK, DOCTOR_OK, NULL, "nothing has waited too long: %zu %s on you, "
			   "%zu %s pending (stale after %ld and %ld hours)", w.nwaiting,
			   w.nwaiting == 1 ? "request waits" : "requests wait", pending,
			   pending == 1 ? "draft" : "drafts", w.hours, stale_draft_hours(&d->cfg));
	waiting_free(w.failed, w.nfailed);
	waiting_free(w.stale, w.nstale);
}
