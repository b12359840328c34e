/*
 * answer — a draft goes out only while its request is still open, unless the
 * person says otherwise; the check is made under the request store's lock,
 * around the claim.
 */
#include "frontdoor/answer.h"

#include "base/buf.h"
#include "base/err.h"
#include "base/jsonio.h"
#include "base/text.h"
#include "base/verdict.h"
#include "frontdoor/draft.h"
#include "requests/record.h"
#include "requests/state.h"
#include "requests/store.h"
#include "outbox/release.h"
#include "outbox/store.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void answer_begin(struct answer_batch *b, const struct outbox_list *l)
{
	size_t n = l ? l->n : 0;

	memset(b, 0, sizeof *b);
	b->ids = xcalloc(n ? n : 1, sizeof *b->ids);
	b->seqs = xcalloc(n ? n : 1, sizeof *b->seqs);
	for (size_t i = 0; i < n; i++)
		b->ids[i] = xstrdup(l->items[i].id);
	b->n = n;
}

void answer_end(struct answer_batch *b)
{
	if (b->looked == 1)
		store_close(&b->store);
	for (size_t i = 0; i < b->n; i++)
		free(b->ids[i]);
	free(b->ids);
	free(b->seqs);
	memset(b, 0, sizeof *b);
}

/* The batch's one walk of the store, on the first release that needs it; -1 after a failure. */
static int look_up(struct answer_batch *b, struct err *e)
{
	if (b->looked == 0) {
		b->looked = -1;
		err_clear(&b->why);
		if (store_open_default(&b->store, STORE_READ, &b->why) != 0)
			goto out;
		b->store.warn = NULL; /* a listing's warnings are not this verb's business */
		if (store_owners_of_drafts(&b->store, b->ids, b->n, b->seqs, &b->why) != 0)
			store_close(&b->store);
		else
			b->looked = 1;
	}
out:
	if (b->looked == 1)
		return 0;
	*e = b->why;
	return -1;
}

/* The seq of the request draft id answers, -1 for none; ids outside the batch are looked up alone. */
static int owner_of(struct answer_batch *b, const char *id, long long *seq, struct err *e)
{
	char *one[1] = { (char *)id };

	if (look_up(b, e) != 0)
		return -1;
	for (size_t i = 0; i < b->n; i++)
		if (strcmp(b->ids[i], id) == 0) {
			*seq = b->seqs[i];
			return 0;
		}
	return store_owners_of_drafts(&b->store, one, 1, seq, e);
}

static int refuse_closed(const char *id, const struct record *r, struct err *e)
{
	const char *note = record_note(r) ? record_note(r) : "none recorded";
	int n = (int)text_utf8_clip(note, strlen(note), 300);

	return err_set(e, ERR_REQUEST_CLOSED,
		       "draft %s answers request %lld, which was closed (reason: %.*s%s); nothing "
		       "was sent and the draft is still pending: --force sends it anyway, "
		       "`mecha outbox reject` drops it",
		       id, r->seq, n, note, note[n] ? "…" : "");
}

struct claiming {
	struct outbox_store *ob;
	const struct config *cfg;
	const char *id;
	unsigned flags;
	struct release_claim claim;
	int tried; /* the claim was attempted: its refusal is the outbox's, said as it is */
};

/* Under the request store's lock: the request must not be closed; then the claim. */
static int claim_if_open(struct record *r, void *arg, struct err *e)
{
	struct claiming *c = arg;

	/* The draft a close itself staged to tell the requester (draft.h) is meant to go. */
	if (strcmp(record_state(r), STATE_CLOSED) == 0 &&
	    strcmp(jsonio_str_or(r->doc, DRAFT_CLOSE_NOTICE, ""), c->id) != 0)
		return refuse_closed(c->id, r, e);
	c->tried = 1;
	if (release_claim(c->ob, c->cfg, c->id, c->flags, &c->claim, e) != 0)
		return -1;
	return VERDICT_LEAVE;
}

/*
 * --force overrides both refusals at once, so the person who reads this one
 * must also hear of the other before they insist.
 */
static void warn_in_flight(struct outbox_store *ob, const char *id, struct err *e)
{
	struct outbox_item it;
	struct err ignored;
	char msg[sizeof e->msg];

	if (outbox_store_read(ob, id, &it, &ignored) != 0)
		return;
	if (it.sending_since) {
		snprintf(msg, sizeof msg, "%s; and an earlier send of it was interrupted, so it may "
			 "already have gone out: check before you force it", e->msg);
		err_set(e, e->code, "%s", msg);
	}
	outbox_item_free(&it);
}

static int unreadable(const char *id, struct err *e)
{
	err_prefix(e, "nothing was sent: whether draft %s's request was closed could not be read",
		   id);
	return -1;
}

int answer_release(struct answer_batch *b, struct outbox_store *ob, const struct config *cfg,
		   const char *id, unsigned flags, struct err *e)
{
	unsigned rf = ((flags & ANSWER_RESEND) ? RELEASE_FORCE : 0) |
		      ((flags & ANSWER_SEEN_PENDING) ? RELEASE_SEEN_PENDING : 0);
	struct claiming c = { ob, cfg, id, rf, { 0 }, 0 };
	long long seq = -1;

	if (flags & ANSWER_TO_CLOSED)
		return release_send(ob, cfg, id, c.flags, e);
	if (owner_of(b, id, &seq, e) != 0)
		return unreadable(id, e);
	if (seq < 0) /* no request lists it: the outbox's rules alone */
		return release_send(ob, cfg, id, c.flags, e);
	if (store_update(&b->store, seq, claim_if_open, &c, e) != 0) {
		if (e->code == ERR_REQUEST_CLOSED)
			warn_in_flight(ob, id, e);
		return e->code == ERR_REQUEST_CLOSED || c.tried ? -1 : unreadable(id, e);
	}
	return release_deliver(ob, cfg, &c.claim, e); /* no lock held: a send may take a minute */
}
