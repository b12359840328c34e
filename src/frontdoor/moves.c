/*
 * moves — the person's two moves, each one state_move under the lock; a
 * close settles the request's pending drafts in the same hold.
 */
#include "frontdoor/moves.h"

#include "base/buf.h"
#include "base/err.h"
#include "base/text.h"
#include "base/verdict.h"
#include "config/config.h"
#include "requests/record.h"
#include "requests/state.h"
#include "requests/store.h"
#include "outbox/release.h"
#include "outbox/store.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct move {
	const char *to;
	const char *note; /* NULL removes the note */
	enum state_mover by;
	struct moves_result *out;
	/* a close only */
	struct outbox_store *ob;
	const char *ob_why;
	enum moves_drafts drafts;
	int booked_ok; /* a close of a booked request was told what to tell its requester */
};

/* Closed → closed is refused by the table; the refusal quotes the reason that stays. */
static int refuse_second_close(const struct record *r, struct err *e)
{
	const char *note = record_note(r) ? record_note(r) : "none recorded";
	int n = (int)text_utf8_clip(note, strlen(note), 300);

	return err_set(e, ERR_INVALID_TRANSITION,
		       "request %lld is already closed (reason: %.*s%s); a closed request keeps "
		       "the reason it was closed for (nothing changed)",
		       r->seq, n, note, note[n] ? "…" : "");
}

/*
 * The ids of r's drafts that are pending now, borrowed from r. A draft that
 * is gone or unreadable is not pending (approve could not send it either).
 */
static size_t pending_drafts(const struct record *r, struct outbox_store *ob, char ***ids)
{
	json_t *id;
	size_t i, n = 0;

	*ids = xcalloc(json_array_size(record_outbox(r)) + 1, sizeof **ids);
	json_array_foreach(record_outbox(r), i, id) {
		struct outbox_item it;
		struct err why;
		if (!json_is_string(id) || outbox_store_read(ob, json_string_value(id), &it, &why) != 0)
			continue;
		if (outbox_item_pending(&it))
			(*ids)[n++] = (char *)json_string_value(id);
		outbox_item_free(&it);
	}
	return n;
}

static int refuse_pending(const struct record *r, char **ids, size_t n, struct err *e)
{
	return err_set(e, ERR_DRAFTS_PENDING,
		       "request %lld has %zu draft%s still pending (%s%s); say what becomes of "
		       "%s: --reject-drafts rejects %s with your reason, --keep-drafts leaves %s "
		       "pending (nothing changed)",
		       r->seq, n, n == 1 ? "" : "s", ids[0], n > 1 ? ", …" : "",
		       n == 1 ? "it" : "them", n == 1 ? "it" : "them", n == 1 ? "it" : "them");
}

void moves_result_free(struct moves_result *r)
{
	for (size_t i = 0; r->drafts && r->drafts[i]; i++)
		free(r->drafts[i]);
	free(r->drafts);
	r->drafts = NULL;
}

/* The result names the n drafts settled (copies: ids are r's), replacing an earlier pass's. */
static void name_drafts(struct moves_result *out, char **ids, size_t n)
{
	moves_result_free(out);
	if (n == 0)
		return;
	out->drafts = xcalloc(n + 1, sizeof *out->drafts);
	for (size_t i = 0; i < n; i++)
		out->drafts[i] = xstrdup(ids[i]);
}

/* Settles r's pending drafts as the person said; -1 refuses the close. */
static int settle_drafts(struct move *m, const struct record *r, struct err *e)
{
	char **ids = NULL;
	size_t n;
	int rc = 0;

	if (json_array_size(record_outbox(r)) == 0 || m->drafts == MOVES_DRAFTS_KEEP) {
		m->out->drafts_kept = 0;
		if (m->drafts == MOVES_DRAFTS_KEEP && m->ob)
			m->out->drafts_kept = pending_drafts(r, m->ob, &ids);
		name_drafts(m->out, ids, m->out->drafts_kept);
		free(ids);
		return 0;
	}
	if (!m->ob)
		return err_set(e, ERR_IO, "request %lld lists drafts and the outbox cannot be read "
			       "(%s), so whether one is pending is unknown; --keep-drafts closes it "
			       "anyway (nothing changed)", r->seq, m->ob_why ? m->ob_why : "none");
	n = pending_drafts(r, m->ob, &ids);
	if (n > 0 && m->drafts == MOVES_DRAFTS_REFUSE) {
		rc = refuse_pending(r, ids, n, e);
	} else if (n > 0 && release_reject(m->ob, ids, n, m->note, 0, e) != 0) {
		err_prefix(e, "request %lld was not closed", r->seq);
		rc = -1;
	} else {
		m->out->drafts_rejected = n;
		name_drafts(m->out, ids, n);
	}
	free(ids);
	return rc;
}

static int move_one(struct record *r, void *arg, struct err *e)
{
	struct move *m = arg;

	snprintf(m->out->from, sizeof m->out->from, "%s", record_state(r));
	if (m->by == MOVER_CLOSE && !m->booked_ok && strcmp(m->out->from, STATE_BOOKED) == 0)
		return err_set(e, ERR_BOOKING, "request %lld is booked: its requester has the time in "
			       "their calendar. Say what they are told: --notify stages the iTIP "
			       "CANCEL (the event is withdrawn once you release it), --no-notify "
			       "closes it and tells nobody (nothing changed)", r->seq);
	if (state_move(r, m->to, m->by, e) != 0)
		return m->by == MOVER_CLOSE && strcmp(m->out->from, STATE_CLOSED) == 0
			       ? refuse_second_close(r, e)
			       : -1;
	if (m->by == MOVER_CLOSE && settle_drafts(m, r, e) != 0)
		return -1;
	record_set_note(r, m->note);
	return VERDICT_WRITE;
}

static int apply(struct store *s, long long seq, struct move *m, struct err *e)
{
	m->out->seq = seq;
	m->out->from[0] = '\0';
	m->out->to = m->to;
	m->out->note = m->note;
	m->out->drafts_rejected = m->out->drafts_kept = 0;
	m->out->drafts = NULL;
	if (store_update(s, seq, move_one, m, e) == 0)
		return 0;
	moves_result_free(m->out); /* a failed move leaves nothing to free */
	return -1;
}

static int close_as(struct store *s, struct outbox_store *ob, const char *ob_why, long long seq,
		    const char *reason, enum moves_drafts drafts, int booked_ok,
		    struct moves_result *out, struct err *e)
{
	struct move m = { STATE_CLOSED, reason, MOVER_CLOSE, out, ob, ob_why, drafts, booked_ok };

	if (text_blank(reason))
		return err_set(e, ERR_REASON_REQUIRED,
			       "close needs --reason TEXT: a request that went away without a "
			       "recorded reason is indistinguishable from one that was dropped "
			       "(nothing changed)");
	if (apply(s, seq, &m, e) == 0)
		return 0;
	if (out->drafts_rejected) /* the one write that went through says so */
		err_prefix(e, "its %zu pending draft%s rejected, but request %lld is not closed",
			   out->drafts_rejected, out->drafts_rejected == 1 ? " was" : "s were", seq);
	return -1;
}

int moves_close(struct store *s, struct outbox_store *ob, const char *ob_why, long long seq,
		const char *reason, enum moves_drafts drafts, struct moves_result *out,
		struct err *e)
{
	return close_as(s, ob, ob_why, seq, reason, drafts, 0, out, e);
}

static int close_home(long long seq, const char *reason, enum moves_drafts drafts,
		      int booked_ok, struct moves_result *out, struct err *e)
{
	struct outbox_store ob;
	struct config cfg;
	struct store s;
	struct err why;
	int rc, have_ob;

	err_clear(&why);
	if (text_blank(reason)) /* the usage mistake first, before any file is read */
		return moves_close(NULL, NULL, NULL, seq, reason, drafts, out, e);
	if (config_load(&cfg, e) != 0)
		return -1;
	have_ob = outbox_store_open(&ob, cfg.outbox_dir,
				    drafts == MOVES_DRAFTS_REJECT ? OUTBOX_WRITE : OUTBOX_READ,
				    &why) == 0;
	config_free(&cfg);
	rc = store_open_default(&s, STORE_CREATE, e);
	if (rc == 0) {
		rc = close_as(&s, have_ob ? &ob : NULL, why.msg, seq, reason, drafts, booked_ok, out,
			      e);
		store_close(&s);
	}
	if (have_ob)
		outbox_store_close(&ob);
	return rc;
}

int moves_close_home(long long seq, const char *reason, enum moves_drafts drafts,
		     struct moves_result *out, struct err *e)
{
	return close_home(seq, reason, drafts, 0, out, e);
}

int moves_close_home_quietly(long long seq, const char *reason, enum moves_drafts drafts,
			     struct moves_result *out, struct err *e)
{
	return close_home(seq, reason, drafts, 1, out, e);
}

int moves_needs_info(struct store *s, long long seq, const char *note, struct moves_result *out,
		     struct err *e)
{
	struct move m = { STATE_NEEDS_INFO, note, MOVER_NEEDS_INFO, out, NULL, NULL,
			  MOVES_DRAFTS_KEEP, 0 };

	return apply(s, seq, &m, e);
}
