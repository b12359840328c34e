/*
 * draft — staging a reply (or an invite) for a request, the only road from a
 * privileged run to the outside world.
 *
 * The recipient is never the caller's to choose: a draft is addressed to the
 * record's reply_to and nobody else, and a record without one gets no draft —
 * nor one whose reply_to is not a single address the sink will send to (a
 * list, something that reads as a command-line option): code "no_reply_to".
 * The draft's arguments then pass the sink's check at staging (outbox/sink.h).
 * The draft lands in the outbox as a pending item a person must release; its
 * id is recorded on the request under the store lock, so a draft that was
 * staged is never lost from its request, even if the run that staged it fails
 * afterwards. Only a request in `extracted` (or already `awaiting_me`, for a
 * second draft) can be drafted for by a run: a request a person closed or
 * parked meanwhile refuses, and their change stands. A person's own reply
 * (DRAFT_BY_PERSON, DRAFT_ASK_BACK) may answer any request but a closed one
 * (ERR_INVALID_TRANSITION) or a booking (ERR_BOOKING: decline or close it).
 *
 * Lock order: the request store's lock, then the outbox's. Nothing takes them
 * the other way round.
 *
 * Ownership: every argument is borrowed; ids are written into caller storage.
 */
#ifndef MECHA_FRONTDOOR_DRAFT_H
#define MECHA_FRONTDOOR_DRAFT_H

#include "outbox/item.h"
#include "outbox/sink.h"

#include <jansson.h>

struct err;
struct record;
struct store;
struct outbox_store;

enum draft_move {
	DRAFT_STAY,        /* a triage run in progress: the state moves when the run ends */
	DRAFT_TO_AWAITING, /* the MCP tool: the request is awaiting_me at once */
	/*
	 * A person wrote it (frontdoor reply, the review screen): any request
	 * but a closed one or a booking may be answered, extracted or not; the
	 * draft is not tainted (no run wrote it); the request is awaiting_me at
	 * once and its note goes.
	 */
	DRAFT_BY_PERSON,
	/* A person asks back (needs-info --ask): as above, but the request is needs_info with `note`. */
	DRAFT_ASK_BACK,
};

struct draft_reply {
	long long seq;
	const char *session_id; /* recorded on the item and as the request's triage_session */
	const char *subject;
	const char *body;
	enum draft_move move;
	const char *note; /* DRAFT_ASK_BACK: the request's note (the question); else unused */
	char *from_out;   /* NULL, or DRAFT_FROM_MAX bytes: the state the request was in */
};

/* The size of a from_out: a state as on disk, clipped (as moves.h's from). */
#define DRAFT_FROM_MAX 64

/*
 * 0 when a person may answer r as `move` says (DRAFT_BY_PERSON or
 * DRAFT_ASK_BACK); else -1 with the refusal staging would make. For a front
 * end to refuse before it opens an editor: staging checks again under the lock.
 */
int draft_may_answer(const struct record *r, enum draft_move move, struct err *e);

/* Stages a mail_send item to the record's reply_to; id_out gets its id. */
int draft_reply(struct store *s, struct outbox_store *ob, const struct draft_reply *d,
		char id_out[OUTBOX_ID_MAX + 1], struct err *e);

struct draft_invite {
	long long seq;
	const char *session_id;
	const char *start; /* RFC 3339 */
	const char *end;
	const char *title;
	enum draft_move move;
};

/*
 * Stages a calendar_invite item for the record's reply_to. The caller has
 * checked the slot against the calendar; this checks only the request.
 */
int draft_invite(struct store *s, struct outbox_store *ob, const struct draft_invite *d,
		 char id_out[OUTBOX_ID_MAX + 1], struct err *e);

/*
 * A person's last word on a booking, staged and the request closed in one
 * write: a decline of a booking the sweep left (kind SINK_MAIL, any state but
 * booked and closed), or the iTIP CANCEL of a booked one (SINK_CANCEL, state
 * booked). args builds the draft's arguments (without "to") from the request
 * as it is under the lock (NEW reference, or NULL with e). The draft's id is
 * recorded on the request as DRAFT_CLOSE_NOTICE: the one draft of a closed
 * request that answer.h lets go without --force. Codes: invalid_request (not
 * a booking), invalid_transition (closed; booked for a decline, not booked for
 * a cancel), no_reply_to, reason_required; nothing is staged on any of them.
 */
#define DRAFT_CLOSE_NOTICE "close_notice"
/*
 * The state a person's reply moved its request from (a reply is taken short
 * of an end or a wait, from drained, needs_info or answered as well as
 * extracted), kept on the request so that, the reply rejected, reconcile
 * returns it there and not to `extracted`, where a request never extracted
 * never was. Removed once the drafts settle.
 */
#define DRAFT_REPLIED_FROM "replied_from"

struct draft_farewell {
	long long seq;
	enum sink_kind kind;
	const char *reason; /* required: the request's note once closed */
	json_t *(*args)(const struct record *r, void *ctx, struct err *e);
	void *ctx;
	char *from_out; /* NULL, or DRAFT_FROM_MAX bytes: the state the request was closed from */
};

int draft_farewell(struct store *s, struct outbox_store *ob, const struct draft_farewell *f,
		   char id_out[OUTBOX_ID_MAX + 1], struct err *e);

#endif
