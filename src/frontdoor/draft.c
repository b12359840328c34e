/*
 * draft — one function stages, for triage and for the MCP tool alike, so the
 * rule "addressed to reply_to and nobody else" is written once.
 */
#include "frontdoor/draft.h"

#include "base/err.h"
#include "base/jsonio.h"
#include "base/text.h"
#include "base/verdict.h"
#include "requests/record.h"
#include "requests/state.h"
#include "requests/store.h"
#include "frontdoor/sweep.h"
#include "outbox/sink.h"
#include "outbox/store.h"

#include <stdio.h>
#include <string.h>

struct staging {
	struct outbox_store *ob;
	enum sink_kind kind;
	json_t *args; /* without "to": filled from the record */
	const char *session_id;
	enum draft_move move;
	char *id_out;
	const char *note; /* DRAFT_ASK_BACK */
	char *from_out;   /* NULL, or DRAFT_FROM_MAX bytes */
};

/* The sink says what one address is: a list, or something that reads as an option, is not. */
static int refuse_recipient(enum sink_kind kind, long long seq, const char *to, struct err *e)
{
	struct err why;

	if (sink_check_recipient(kind, to, &why) == 0)
		return 0;
	return err_set(e, ERR_NO_REPLY_TO, "request %lld has no single address a reply may go to "
		       "(%s): nothing was drafted", seq, why.msg);
}

static int by_person(const struct staging *st)
{
	return st->move == DRAFT_BY_PERSON || st->move == DRAFT_ASK_BACK;
}

/* What a run may draft for: an extracted request with a checked extraction. */
static int refuse_for_run(const struct record *r, const char *state, struct err *e)
{
	if (strcmp(state, STATE_EXTRACTED) != 0 && strcmp(state, STATE_AWAITING_ME) != 0)
		return err_set(e, ERR_INVALID_TRANSITION,
				  "request %lld is %s, not extracted: nothing was drafted", r->seq,
				  state);
	if (sweep_claims(r))
		return err_set(e, ERR_BOOKING, "request %lld is a booking or a cancellation, which the "
			       "sweep settles: nothing was drafted", r->seq);
	if (!record_valid(r) || !record_extraction(r))
		return err_set(e, ERR_NOT_EXTRACTED,
				  "request %lld has no checked extraction: nothing was drafted", r->seq);
	return 0;
}

/* What a person may answer: anything open that is not a booking; the move is checked first. */
static int refuse_for_person(const struct record *r, const char *state, enum draft_move move,
			     struct err *e)
{
	if (!state_known(state))
		return err_set(e, ERR_UNKNOWN_STATE, "request %lld is in state '%s', which this mecha "
			       "does not know: nothing was drafted", r->seq, state);
	if (strcmp(state, STATE_CLOSED) == 0)
		return err_set(e, ERR_INVALID_TRANSITION, "request %lld is closed: a closed request "
			       "is not answered again (nothing was drafted)", r->seq);
	if (sweep_claims(r) || strcmp(state, STATE_BOOKED) == 0)
		return err_set(e, ERR_BOOKING, "request %lld is a booking or a cancellation: `mecha "
			       "frontdoor decline` turns one down and `close --notify` cancels a booked "
			       "one (nothing was drafted)", r->seq);
	if (move == DRAFT_BY_PERSON && strcmp(state, STATE_AWAITING_ME) != 0 &&
	    !state_allows(state, STATE_AWAITING_ME, MOVER_REPLY))
		return err_set(e, ERR_INVALID_TRANSITION, "request %lld is %s; a reply does not move "
			       "a request out of %s (nothing was drafted)", r->seq, state, state);
	return 0;
}

int draft_may_answer(const struct record *r, enum draft_move move, struct err *e)
{
	const char *to = record_reply_to(r);

	if (refuse_for_person(r, record_state(r), move, e) != 0)
		return -1;
	if (!to || !*to)
		return err_set(e, ERR_NO_REPLY_TO, "request %lld has no reply_to address, so there is "
			       "nobody a reply could go to: nothing was drafted", r->seq);
	return refuse_recipient(SINK_MAIL, r->seq, to, e);
}

/* After the draft is staged: the state the person's draft leaves the request in. */
static int person_moves(struct record *r, const char *state, const struct staging *st,
			struct err *e)
{
	if (st->move == DRAFT_ASK_BACK) {
		if (state_move(r, STATE_NEEDS_INFO, MOVER_NEEDS_INFO, e) != 0)
			return -1;
		record_set_note(r, st->note);
		return 0;
	}
	if (strcmp(state, STATE_AWAITING_ME) != 0) {
		if (state_move(r, STATE_AWAITING_ME, MOVER_REPLY, e) != 0)
			return -1;
		record_set_string(r, DRAFT_REPLIED_FROM, state);
	}
	record_set_note(r, NULL);
	return 0;
}

static int stage_one(struct record *r, void *arg, struct err *e)
{
	struct staging *st = arg;
	const char *state = record_state(r), *to = record_reply_to(r);
	struct outbox_draft d = { 0 };
	struct outbox_item item;
	char was[DRAFT_FROM_MAX];

	snprintf(was, sizeof was, "%s", state);
	if (st->from_out)
		snprintf(st->from_out, DRAFT_FROM_MAX, "%s", state);
	if (by_person(st) ? refuse_for_person(r, state, st->move, e) != 0
			  : refuse_for_run(r, state, e) != 0)
		return -1;
	if (!to || !*to)
		return err_set(e, ERR_NO_REPLY_TO,
				  "request %lld has no reply_to address, so there is nobody a reply "
				  "could go to: nothing was drafted",
				  r->seq);
	if (refuse_recipient(st->kind, r->seq, to, e) != 0)
		return -1;
	json_object_set_new(st->args, "to", json_string(to));
	d.tool = sink_tool(st->kind);
	d.kind = OUTBOX_KIND_MESSAGE;
	d.args = st->args;
	d.session_id = st->session_id;
	d.taint_untrusted = !by_person(st); /* a run that read a stranger's request wrote it */
	if (outbox_store_stage(st->ob, &d, &item, e) != 0)
		return -1;
	snprintf(st->id_out, OUTBOX_ID_MAX + 1, "%s", item.id);
	outbox_item_free(&item);
	record_add_outbox(r, st->id_out);
	if (st->session_id && !jsonio_str(r->doc, "triage_session"))
		record_set_string(r, "triage_session", st->session_id);
	if (by_person(st)) {
		/* Checked above (refuse_for_person), so the move is not refused after staging. */
		if (person_moves(r, was, st, e) != 0)
			return -1;
	} else if (st->move == DRAFT_TO_AWAITING && strcmp(state, STATE_EXTRACTED) == 0) {
		/* Checked above, so the move cannot be refused after the draft was staged. */
		if (state_move(r, STATE_AWAITING_ME, MOVER_DRAFT, e) != 0)
			return -1;
		record_set_note(r, NULL);
	}
	return VERDICT_WRITE;
}

static int stage(struct store *s, struct staging *st, long long seq, struct err *e)
{
	int rc = store_update(s, seq, stage_one, st, e);

	json_decref(st->args);
	return rc;
}

int draft_reply(struct store *s, struct outbox_store *ob, const struct draft_reply *d,
		char id_out[OUTBOX_ID_MAX + 1], struct err *e)
{
	struct staging st = { ob, SINK_MAIL, NULL, d->session_id, d->move, id_out, d->note,
			      d->from_out };

	if (!d->subject || !d->body)
		return err_set(e, ERR_BAD_ARGUMENTS, "a reply needs a subject and a body");
	/* "to" first, then what the run wrote: the order a person reads it in. */
	st.args = json_pack("{s:n,s:s,s:s}", "to", "subject", d->subject, "body", d->body);
	if (!st.args)
		return err_set(e, ERR_BAD_ARGUMENTS, "the subject and body must be UTF-8 text");
	return stage(s, &st, d->seq, e);
}

int draft_invite(struct store *s, struct outbox_store *ob, const struct draft_invite *d,
		 char id_out[OUTBOX_ID_MAX + 1], struct err *e)
{
	struct staging st = { ob, SINK_INVITE, NULL, d->session_id, d->move, id_out, NULL, NULL };

	if (!d->start || !d->end || !d->title)
		return err_set(e, ERR_BAD_ARGUMENTS, "an invite needs a start, an end and a title");
	st.args = json_pack("{s:n,s:s,s:s,s:s,s:s}", "to", "subject", d->title, "title", d->title,
			    "start", d->start, "end", d->end);
	if (!st.args)
		return err_set(e, ERR_BAD_ARGUMENTS, "the title must be UTF-8 text");
	return stage(s, &st, d->seq, e);
}

/* ---- a person's last word on a booking: its decline, or its cancellation ------------- */

struct farewell {
	const struct draft_farewell *f;
	struct outbox_store *ob;
	char *id_out;
};

static int refuse_farewell(const struct record *r, const char *state, int booked, struct err *e)
{
	const json_t *v = record_values(r);

	if (!state_known(state))
		return err_set(e, ERR_UNKNOWN_STATE, "request %lld is in state '%s', which this mecha "
			       "does not know (nothing changed)", r->seq, state);
	if (strcmp(state, STATE_CLOSED) == 0)
		return err_set(e, ERR_INVALID_TRANSITION, "request %lld is closed already (nothing "
			       "changed)", r->seq);
	if (!json_object_get(v, "_booking_id") || json_is_true(json_object_get(v, "_cancelled")))
		return err_set(e, ERR_INVALID_REQUEST, "request %lld is not a booking (nothing "
			       "changed)", r->seq);
	if (booked && strcmp(state, STATE_BOOKED) != 0)
		return err_set(e, ERR_INVALID_TRANSITION, "request %lld is %s, not booked: `mecha "
			       "frontdoor decline` turns down a booking the sweep left (nothing "
			       "changed)", r->seq, state);
	if (!booked && strcmp(state, STATE_BOOKED) == 0)
		return err_set(e, ERR_INVALID_TRANSITION, "request %lld is booked already: `mecha "
			       "frontdoor close --notify` cancels it (nothing changed)", r->seq);
	return 0;
}

static int farewell_one(struct record *r, void *arg, struct err *e)
{
	struct farewell *fw = arg;
	const struct draft_farewell *f = fw->f;
	const char *state = record_state(r), *to = record_reply_to(r);
	struct outbox_draft d = { 0 };
	struct outbox_item item;
	json_t *args;
	int rc;

	if (refuse_farewell(r, state, f->kind == SINK_CANCEL, e) != 0)
		return -1;
	if (f->from_out)
		snprintf(f->from_out, DRAFT_FROM_MAX, "%s", state);
	if (!(args = f->args(r, f->ctx, e)))
		return -1;
	/* An address the args chose (home's own ledger, decline.h) goes before reply_to. */
	if (jsonio_str(args, "to"))
		to = jsonio_str(args, "to");
	if (!to || !*to) {
		json_decref(args);
		return err_set(e, ERR_NO_REPLY_TO, "request %lld has no reply_to address, so nobody "
			       "can be told: close it with --no-notify (nothing changed)", r->seq);
	}
	if (refuse_recipient(f->kind, r->seq, to, e) != 0 ||
	    !state_allows(state, STATE_CLOSED, MOVER_CLOSE)) {
		json_decref(args);
		return -1;
	}
	json_object_set_new(args, "to", json_string(to));
	d.tool = sink_tool(f->kind);
	d.kind = OUTBOX_KIND_MESSAGE;
	d.args = args;
	rc = outbox_store_stage(fw->ob, &d, &item, e);
	json_decref(args);
	if (rc != 0)
		return -1;
	snprintf(fw->id_out, OUTBOX_ID_MAX + 1, "%s", item.id);
	outbox_item_free(&item);
	record_add_outbox(r, fw->id_out);
	/* The one draft of a closed request that is meant to go (frontdoor/answer.h). */
	record_set_string(r, DRAFT_CLOSE_NOTICE, fw->id_out);
	if (state_move(r, STATE_CLOSED, MOVER_CLOSE, e) != 0)
		return -1;
	record_set_note(r, f->reason);
	return VERDICT_WRITE;
}

int draft_farewell(struct store *s, struct outbox_store *ob, const struct draft_farewell *f,
		   char id_out[OUTBOX_ID_MAX + 1], struct err *e)
{
	struct farewell fw = { f, ob, id_out };

	if (text_blank(f->reason))
		return err_set(e, ERR_REASON_REQUIRED, "a close needs a reason (nothing changed)");
	return store_update(s, f->seq, farewell_one, &fw, e);
}
