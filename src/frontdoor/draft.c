/*
 * draft — one function stages, for triage and for the MCP tool alike, so the
 * rule "addressed to reply_to and nobody else" is written once.
 */
#include "frontdoor/draft.h"

#include "base/err.h"
#include "base/jsonio.h"
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

static int stage_one(struct record *r, void *arg, struct err *e)
{
	struct staging *st = arg;
	const char *state = record_state(r), *to = record_reply_to(r);
	struct outbox_draft d = { 0 };
	struct outbox_item item;

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
	d.taint_untrusted = 1; /* written by a run that read a stranger's request */
	if (outbox_store_stage(st->ob, &d, &item, e) != 0)
		return -1;
	snprintf(st->id_out, OUTBOX_ID_MAX + 1, "%s", item.id);
	outbox_item_free(&item);
	record_add_outbox(r, st->id_out);
	if (st->session_id && !jsonio_str(r->doc, "triage_session"))
		record_set_string(r, "triage_session", st->session_id);
	if (st->move == DRAFT_TO_AWAITING && strcmp(state, STATE_EXTRACTED) == 0) {
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
	struct staging st = { ob, SINK_MAIL, NULL, d->session_id, d->move, id_out };

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
	struct staging st = { ob, SINK_INVITE, NULL, d->session_id, d->move, id_out };

	if (!d->start || !d->end || !d->title)
		return err_set(e, ERR_BAD_ARGUMENTS, "an invite needs a start, an end and a title");
	st.args = json_pack("{s:n,s:s,s:s,s:s,s:s}", "to", "subject", d->title, "title", d->title,
			    "start", d->start, "end", d->end);
	if (!st.args)
		return err_set(e, ERR_BAD_ARGUMENTS, "the title must be UTF-8 text");
	return stage(s, &st, d->seq, e);
}
