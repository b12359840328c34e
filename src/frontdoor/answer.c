/*
 * answer — a draft goes out only while its request is still open, unless the
 * person says otherwise.
 */
#include "frontdoor/answer.h"

#include "base/err.h"
#include "base/text.h"
#include "frontdoor/record.h"
#include "frontdoor/state.h"
#include "frontdoor/store.h"
#include "outbox/release.h"
#include "outbox/store.h"

#include <stdio.h>
#include <string.h>

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

int answer_check(const char *id, struct err *e)
{
	struct record r;
	struct store s;
	long long seq;
	int found, rc = 0;

	if (store_open_default(&s, STORE_READ, e) != 0)
		return -1;
	s.warn = NULL; /* a listing's warnings are not this verb's business */
	found = store_owner_of_draft(&s, id, &seq, e);
	if (found > 0 && store_get(&s, seq, &r, e) == 0) {
		if (strcmp(record_state(&r), STATE_CLOSED) == 0)
			rc = refuse_closed(id, &r, e);
		record_free(&r);
	} else if (found != 0) {
		rc = -1;
	}
	store_close(&s);
	if (rc < 0 && e->code != ERR_REQUEST_CLOSED)
		err_prefix(e, "nothing was sent: whether draft %s's request was closed could not "
			   "be read", id);
	return rc;
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

int answer_release(struct outbox_store *ob, const struct config *cfg, const char *id,
		   unsigned flags, struct err *e)
{
	if (!(flags & ANSWER_TO_CLOSED) && answer_check(id, e) != 0) {
		if (e->code == ERR_REQUEST_CLOSED)
			warn_in_flight(ob, id, e);
		return -1;
	}
	return release_send(ob, cfg, id, (flags & ANSWER_RESEND) ? RELEASE_FORCE : 0, e);
}
