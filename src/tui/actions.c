/*
 * actions — the keys that change something. Each asks what it must (a
 * reason, a confirmation), then makes the one library call the matching CLI
 * verb makes: answer_release, release_reject, the edit calling sequence,
 * moves_close, moves_needs_info, extract_run, triage_run, and the reply
 * calling sequence (frontdoor/reply.h) for R and N. A refusal is
 * shown as the library worded it, and nothing else is done after it.
 *
 * A draft's keys (a, r, e) work on the selected draft, or on the selected
 * request's pending draft when it has exactly one. A request's keys (c, n, x,
 * t, R, N, D) work on the selected request only: acting on a request from one of its
 * drafts would be a surprise.
 */
#define NCURSES_WIDECHAR 1
#include "tui/app.h"

#include "base/editor.h"
#include "base/err.h"
#include "base/text.h"
#include "frontdoor/answer.h"
#include "frontdoor/decline.h"
#include "frontdoor/extract.h"
#include "frontdoor/moves.h"
#include "frontdoor/reply.h"
#include "requests/state.h"
#include "requests/store.h"
#include "frontdoor/triage.h"
#include "outbox/edit.h"
#include "outbox/release.h"

#include <curses.h>
#include <stdlib.h>
#include <string.h>

#define MAX_PENDING 64

static void fail(struct app *a, const struct err *e)
{
	app_say(a, 1, "%s", e->msg);
}

/* ---- which draft, which request ----------------------------------------------------- */

/* The draft the keys a, r and e act on (malloc'd id), or NULL after saying why. */
static char *target_draft(struct app *a)
{
	const struct outbox_item *it = lists_draft(a);
	const struct record *r = lists_request(a);
	const char *ids[MAX_PENDING];
	size_t n;

	if (it)
		return xstrdup(it->id);
	if (!r) {
		app_say(a, 1, "Select a draft, or a request with a pending draft.");
		return NULL;
	}
	n = lists_pending_of(a, r, ids, MAX_PENDING);
	if (n == 1)
		return xstrdup(ids[0]);
	if (n == 0)
		app_say(a, 1, "Request %lld has no pending draft.", r->seq);
	else
		app_say(a, 1, "Request %lld has %zu pending drafts: select one in the drafts list.",
			r->seq, n);
	return NULL;
}

/* The selected request's seq, or -1 after saying why. */
static long long target_request(struct app *a)
{
	const struct record *r = lists_request(a);

	if (r)
		return r->seq;
	app_say(a, 1, "Select a request (this key acts on a request, not on a draft).");
	return -1;
}

static int open_outbox(struct app *a, struct outbox_store *ob)
{
	struct err e;

	if (outbox_store_open(ob, a->cfg.outbox_dir, OUTBOX_WRITE, &e) == 0)
		return 0;
	fail(a, &e);
	return -1;
}

static int open_requests(struct app *a, struct store *s)
{
	struct err e;

	if (store_open(s, a->requests_dir, STORE_CREATE, &e) == 0)
		return 0;
	fail(a, &e);
	return -1;
}

/* ---- a: approve ------------------------------------------------------------------------ */

/* Shows the draft whole, as it is on disk now; 1 when the person said y. */
static int confirm_send(struct app *a, struct outbox_store *ob, const char *id)
{
	struct outbox_item it;
	struct lines l = LINES_INIT;
	struct err e;
	char *title;
	int key;

	if (outbox_store_read(ob, id, &it, &e) != 0) {
		fail(a, &e);
		return 0;
	}
	detail_draft(a, &it, &l, 0);
	title = xasprintf(" approve %s: this is what will be sent", id);
	key = prompt_page(a, title,
			  &l, "y sends it as shown; n or Esc keeps it (Space/PgDn to read on)",
			  "yn", 1);
	free(title);
	lines_free(&l);
	outbox_item_free(&it);
	if (key != 'y')
		app_say(a, 0, "Not sent: %s is still pending.", id);
	return key == 'y';
}

void actions_approve(struct app *a)
{
	struct outbox_store ob;
	struct err e;
	char *id = target_draft(a);

	if (!id || open_outbox(a, &ob) != 0) {
		free(id);
		return;
	}
	if (confirm_send(a, &ob, id)) {
		struct answer_batch batch;
		app_busy(a, "Sending %s…", id);
		answer_begin(&batch, NULL); /* one draft: its request looked up alone */
		/* Through the front door's rule: a draft whose request was closed is not sent. */
		if (answer_release(&batch, &ob, &a->cfg, id, ANSWER_SEEN_PENDING, &e) != 0)
			fail(a, &e);
		else
			app_say(a, 0, "Sent %s.", id);
		answer_end(&batch);
	}
	outbox_store_close(&ob);
	free(id);
	app_after(a);
}

/* ---- r: reject --------------------------------------------------------------------------- */

void actions_reject(struct app *a)
{
	struct outbox_store ob;
	struct err e;
	char *id = target_draft(a), *reason = NULL, *question;
	int asked;

	if (!id)
		return;
	question = xasprintf("Why reject %s? The next draft is written from your reason. "
			     "Enter to reject, Esc cancels.", id);
	asked = prompt_line(a, question, NULL, &reason);
	free(question);
	if (!asked)
		app_say(a, 0, "Reject cancelled: %s is still pending.", id);
	else if (open_outbox(a, &ob) == 0) {
		if (release_reject(&ob, &id, 1, reason, 0, &e) != 0)
			fail(a, &e);
		else
			app_say(a, 0, "Rejected %s.", id);
		outbox_store_close(&ob);
	}
	free(reason);
	free(id);
	app_after(a);
}

/* ---- e: edit ------------------------------------------------------------------------------- */

/* The person's editor, with the screen put away while it runs. */
static int run_editor(struct app *a, const char *path, struct err *e)
{
	int rc;

	def_prog_mode();
	endwin();
	capture_pause(&a->cap);
	rc = editor_run(path, e);
	capture_resume(&a->cap);
	reset_prog_mode();
	clearok(curscr, TRUE);
	refresh();
	return rc;
}

void actions_edit(struct app *a)
{
	struct outbox_store ob;
	struct outbox_edit ed;
	struct err e;
	char *id = target_draft(a);
	int rc;

	if (!id || open_outbox(a, &ob) != 0) {
		free(id);
		return;
	}
	if (outbox_edit_begin(&ob, id, &ed, &e) != 0) {
		fail(a, &e);
	} else {
		rc = run_editor(a, ed.path, &e);
		if (rc == 0)
			rc = outbox_edit_finish(&ob, &ed, &e);
		if (rc < 0)
			fail(a, &e);
		else
			app_say(a, 0, rc == OUTBOX_EDIT_SAVED ? "Saved your edit of %s."
							      : "Nothing changed in %s.", id);
		outbox_edit_end(&ed);
	}
	outbox_store_close(&ob);
	free(id);
	app_after(a);
}

/* ---- c: close ------------------------------------------------------------------------------- */

/* Rejects the request's pending drafts with the close's reason, when the person wants that. */
/*
 * What to do with the request's pending drafts before it closes: -1 when the
 * person cancelled, else the moves_drafts choice moves_close acts on (the
 * rejecting and the closing happen there, all or none).
 */
static int ask_drafts(struct app *a, long long seq)
{
	const struct record *r = lists_request(a);
	const char *ids[MAX_PENDING];
	size_t n = r ? lists_pending_of(a, r, ids, MAX_PENDING) : 0;
	char *q;
	int key;

	if (n == 0)
		return MOVES_DRAFTS_REFUSE; /* none pending: one staged meanwhile still refuses */
	q = xasprintf("Request %lld has %zu pending draft%s. Reject %s with the same reason "
		      "first? y rejects and closes, n closes and leaves %s pending, Esc cancels.",
		      seq, n, n == 1 ? "" : "s", n == 1 ? "it" : "them", n == 1 ? "it" : "them");
	key = prompt_key(a, q, "yn");
	free(q);
	if (key == PROMPT_CANCEL) {
		app_say(a, 0, "Close cancelled: request %lld is as it was.", seq);
		return -1;
	}
	return key == 'y' ? MOVES_DRAFTS_REJECT : MOVES_DRAFTS_KEEP;
}

static void say_move(struct app *a, const struct moves_result *m, int more)
{
	if (more)
		app_say_more(a, "request %lld: %s → %s", m->seq, m->from, m->to);
	else
		app_say(a, 0, "request %lld: %s → %s", m->seq, m->from, m->to);
}

void actions_close(struct app *a)
{
	long long seq = target_request(a);
	struct moves_result m;
	struct err e;
	char *reason = NULL, *q;
	int drafts = MOVES_DRAFTS_REFUSE;

	if (seq < 0)
		return;
	q = xasprintf("Why close request %lld? A reason is required. Enter to close, Esc cancels.",
		      seq);
	if (!prompt_line(a, q, NULL, &reason)) {
		app_say(a, 0, "Close cancelled: request %lld is as it was.", seq);
		free(q);
		return;
	}
	free(q);
	/* A blank reason goes to moves_close as it is: its refusal is the one every front end shows. */
	if (!text_blank(reason))
		drafts = ask_drafts(a, seq);
	if (drafts >= 0) {
		if (moves_close_home(seq, reason, (enum moves_drafts)drafts, &m, &e) != 0) {
			fail(a, &e);
		} else {
			if (m.drafts_rejected)
				app_say(a, 0, "Rejected %zu draft%s of request %lld.", m.drafts_rejected,
					m.drafts_rejected == 1 ? "" : "s", seq);
			say_move(a, &m, m.drafts_rejected > 0);
			moves_result_free(&m);
		}
	}
	free(reason);
	app_after(a);
}

/* ---- n: needs-info ------------------------------------------------------------------------- */

void actions_needs_info(struct app *a)
{
	long long seq = target_request(a);
	struct moves_result m;
	struct store s;
	struct err e;
	char *note = NULL, *q;
	int asked;

	if (seq < 0)
		return;
	q = xasprintf("What is missing from request %lld? (optional: Enter alone parks it "
		      "without a note; Esc cancels)", seq);
	asked = prompt_line(a, q, NULL, &note);
	free(q);
	if (!asked) {
		app_say(a, 0, "Needs-info cancelled: request %lld is as it was.", seq);
		return;
	}
	if (open_requests(a, &s) == 0) {
		if (moves_needs_info(&s, seq, text_blank(note) ? NULL : note, &m, &e) != 0)
			fail(a, &e);
		else
			say_move(a, &m, 0);
		store_close(&s);
	}
	free(note);
	app_after(a);
}

/* ---- x: extract -------------------------------------------------------------------------------- */

static void on_landed(const struct extract_job *j, int landed, const struct err *why, void *ctx)
{
	struct app *a = ctx;

	if (landed < 0)
		app_say(a, 1, "request %lld: %s", j->seq, why->msg);
	else if (landed == EXTRACT_DROPPED)
		app_say(a, 0, "request %lld changed while it was being extracted; the result was "
			"dropped and the change stands", j->seq);
	else if (j->result)
		app_say(a, 0, "request %lld extracted", j->seq);
	else
		app_say(a, 1, "request %lld: extraction failed: %s", j->seq, j->error ? j->error : "");
}

void actions_extract(struct app *a)
{
	const struct record *r = lists_request(a);
	struct extract_opts o = { .seq = target_request(a), .jobs = 1 };
	struct extract_report rep = { NULL, on_landed, a };
	struct err e;

	if (o.seq < 0)
		return;
	if (state_allows(record_state(r), STATE_EXTRACTED, MOVER_EXTRACT_FORCE)) {
		char *q = xasprintf("Request %lld is %s already. Extract it again, replacing its "
				    "extraction? y extracts, n or Esc leaves it.", o.seq,
				    record_state(r));
		o.force = prompt_key(a, q, "yn") == 'y';
		free(q);
		if (!o.force) {
			app_say(a, 0, "Extract cancelled: request %lld is as it was.", o.seq);
			return;
		}
	}
	app_busy(a, "Extracting request %lld…", o.seq);
	if (extract_run(&o, &rep, &e) != 0)
		fail(a, &e);
	app_after(a);
}

/* ---- t: triage ----------------------------------------------------------------------------------- */

static void on_result(const struct triage_result *r, void *ctx)
{
	struct app *a = ctx;

	switch (r->outcome) {
	case TRIAGE_DRAFTED:
		app_say(a, 0, "request %lld: awaiting_me (%zu draft%s in the outbox)", r->seq,
			r->drafts, r->drafts == 1 ? "" : "s");
		break;
	case TRIAGE_NOTHING:
		app_say(a, 0, "request %lld: triaged, nothing drafted: %s", r->seq,
			r->note ? r->note : "");
		break;
	case TRIAGE_FAILED:
		app_say(a, 1, "request %lld: %s", r->seq, r->note ? r->note : "triage failed");
		break;
	case TRIAGE_LEFT:
		app_say(a, 0, "request %lld changed during the run; left as it was set", r->seq);
		break;
	}
}

static void on_error(long long seq, const struct err *why, void *ctx)
{
	app_say(ctx, 1, "request %lld: %s", seq, why->msg);
}

void actions_triage(struct app *a)
{
	struct triage_opts o = { .seq = target_request(a), .limit = 1,
				 .max_turns = TRIAGE_MAX_TURNS };
	struct triage_report rep = { .on_result = on_result, .on_error = on_error, .ctx = a };
	struct err e;

	if (o.seq < 0)
		return;
	app_busy(a, "Triaging request %lld: a model run with calendar and draft tools, "
		 "which can take a while…", o.seq);
	if (triage_run(&o, &rep, &e) != 0)
		fail(a, &e);
	app_after(a);
}

/* ---- R: reply, N: ask back (issue 23: every request reaches an answer without a model) ---- */

static void say_staged(struct app *a, const char *id, const struct reply *rp, const char *state)
{
	app_say(a, 0, "Staged %s to %s: request %lld is %s; a approves it.", id, rp->to, rp->seq,
		state);
}

void actions_reply(struct app *a)
{
	long long seq = target_request(a);
	char id[OUTBOX_ID_MAX + 1];
	struct reply rp;
	struct err e;
	int rc;

	if (seq < 0)
		return;
	/* The same calls as `mecha frontdoor reply`: refused before the editor opens. */
	if (reply_open(&rp, seq, &e) != 0) {
		fail(a, &e);
		return;
	}
	rc = reply_template(&rp, &e);
	if (rc == 0)
		rc = run_editor(a, rp.path, &e);
	if (rc == 0)
		rc = reply_finish(&rp, id, &e);
	if (rc < 0)
		fail(a, &e);
	else if (rc == REPLY_EMPTY)
		app_say(a, 0, "The reply was empty or unchanged: nothing was staged for request %lld.",
			seq);
	else
		say_staged(a, id, &rp, STATE_AWAITING_ME);
	reply_close(&rp);
	app_after(a);
}

void actions_ask_back(struct app *a)
{
	long long seq = target_request(a);
	char id[OUTBOX_ID_MAX + 1], *note = NULL, *q;
	struct reply rp;
	struct err e;
	int asked;

	if (seq < 0)
		return;
	q = xasprintf("What should the requester of %lld be asked? It is mailed to them as a "
		      "draft you approve, and kept as the note. Enter stages it, Esc cancels.", seq);
	asked = prompt_line(a, q, NULL, &note);
	free(q);
	if (!asked || text_blank(note)) {
		app_say(a, 0, "Ask-back cancelled: request %lld is as it was.", seq);
		free(note);
		return;
	}
	if (reply_open(&rp, seq, &e) != 0) {
		fail(a, &e);
	} else {
		if (reply_ask(&rp, note, id, &e) < 0)
			fail(a, &e);
		else
			say_staged(a, id, &rp, STATE_NEEDS_INFO);
		reply_close(&rp);
	}
	free(note);
	app_after(a);
}

/* ---- D: decline a booking (or cancel a booked one), telling the requester ---------------- */

void actions_decline(struct app *a)
{
	const struct record *r = lists_request(a);
	long long seq = target_request(a);
	struct decline_outcome o;
	char *reason = NULL, *q;
	struct err e;
	int booked, rc;

	if (seq < 0)
		return;
	booked = strcmp(record_state(r), STATE_BOOKED) == 0;
	q = xasprintf(booked ? "Cancel booked request %lld? Its iTIP CANCEL is staged for you to "
			       "approve. Why (required)? Enter cancels it, Esc keeps it."
			     : "Decline booking %lld? The requester is mailed a link to pick another "
			       "time, once you approve it. Why (optional)? Enter declines, Esc keeps it.",
		      seq);
	if (!prompt_line(a, q, NULL, &reason)) {
		app_say(a, 0, "Decline cancelled: request %lld is as it was.", seq);
		free(q);
		return;
	}
	free(q);
	if (booked)
		rc = decline_cancel_home(seq, reason, a->teller, &o, &e);
	else
		rc = decline_home(seq, text_blank(reason) ? NULL : reason, a->teller, &o, &e);
	if (rc != 0)
		fail(a, &e);
	else
		app_say(a, 0, "request %lld: closed; %s staged as %s, a approves it; %s.", seq,
			booked ? "its iTIP CANCEL" : "the decline", o.id,
			decline_told_text(&o, booked));
	free(reason);
	app_after(a);
}
