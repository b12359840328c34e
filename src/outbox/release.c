/*
 * release — the only code that turns a draft into something that left the
 * house, and the bookkeeping that keeps it to once.
 */
#include "outbox/release.h"

#include "base/buf.h"
#include "base/err.h"
#include "base/text.h"
#include "base/verdict.h"
#include "base/rfc3339.h"
#include "config/config.h"
#include "outbox/item.h"
#include "outbox/sink.h"
#include "outbox/store.h"

#include <assert.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/*
 * A draft the person saw pending and that was resolved meanwhile, by another
 * process, was "resolved while you were deciding"; one that was already
 * resolved when they chose it (a second approve of a sent draft) says when
 * that happened, rather than suggesting a race that never was.
 */
static int refuse_resolved(const struct outbox_item *it, unsigned flags, struct err *e)
{
	const char *when = it->resolved_at ? it->resolved_at : "an unrecorded time";

	if (flags & RELEASE_SEEN_PENDING)
		return err_set(e, ERR_NOT_PENDING, "%s is %s: it was resolved while you were "
			       "deciding, so nothing was sent", it->id, it->status);
	if (strcmp(it->status, OUTBOX_SENT) == 0)
		return err_set(e, ERR_NOT_PENDING, "%s was already sent at %s; not sent again",
			       it->id, when);
	return err_set(e, ERR_NOT_PENDING, "%s was already %s at %s%s%s%s; nothing was sent",
		       it->id, it->status, when, it->reason ? " (" : "", it->reason ? it->reason : "",
		       it->reason ? ")" : "");
}

static int refuse_in_flight(const struct outbox_item *it, struct err *e)
{
	return err_set(e, ERR_IN_FLIGHT, "%s has been in flight since %s: another approve is "
			  "sending it, or a send was interrupted. Nothing was sent again. If it "
			  "did not arrive, approve it with --force; if it did, approve it with "
			  "--mark-sent", it->id, it->sending_since);
}

/* Records why a release failed on the item (under the lock); e keeps the reason. */
static int record_error(struct outbox_store *s, struct outbox_item *it, struct err *e)
{
	struct err w;

	outbox_item_set(it, "error", e->msg);
	outbox_item_unset(it, "sending_since");
	if (outbox_store_write(s, it, &w) != 0) {
		size_t n = strlen(e->msg);
		snprintf(e->msg + n, sizeof e->msg - n, " (and recording the error failed: %s)",
			 w.msg);
	}
	return -1;
}

/* Step 1: under the lock, claim the item for this process. */
static int claim(struct outbox_store *s, const struct config *cfg, const char *id,
		 unsigned flags, const struct sink **sink, void **job, struct err *e)
{
	struct outbox_item it;
	char now[RFC3339_LEN];
	int rc = -1;

	*job = NULL;
	/* A password or a program missing here stops the send before the draft is claimed. */
	if (config_require(cfg, CONFIG_NEEDS_MAIL, e) != 0 || outbox_store_lock(s, e) != 0)
		return -1;
	assert(s->lock_fd >= 0); /* every decision below is made under the outbox lock */
	if (outbox_store_read(s, id, &it, e) != 0)
		goto out_unlock;
	if (!outbox_item_pending(&it))
		rc = refuse_resolved(&it, flags, e);
	else if (it.sending_since && !(flags & RELEASE_FORCE))
		rc = refuse_in_flight(&it, e);
	else if (!(*sink = sink_find(it.tool, e)) || (*sink)->prepare(cfg, &it, job, e) != 0)
		rc = record_error(s, &it, e);
	else {
		/* Only a pending item, not claimed or claimed again by --force, is claimed. */
		assert(outbox_item_pending(&it) && (!it.sending_since || (flags & RELEASE_FORCE)));
		assert(*sink != NULL);
		rfc3339_now(now);
		outbox_item_set(&it, "sending_since", now);
		rc = outbox_store_write(s, &it, e);
		if (rc != 0)
			(*sink)->discard(*job);
	}
	outbox_item_free(&it);
out_unlock:
	outbox_store_unlock(s);
	return rc;
}

/* Step 3: under the lock, write down what happened. */
static int settle(struct outbox_store *s, const char *id, int delivered, struct err *why,
		  struct err *e)
{
	struct outbox_item it;
	int rc;

	if (outbox_store_lock(s, e) != 0 || outbox_store_read(s, id, &it, e) != 0) {
		outbox_store_unlock(s);
		goto lost;
	}
	assert(s->lock_fd >= 0);
	if (!outbox_item_pending(&it)) {
		rc = 0; /* someone with --force got there first; nothing left to record */
	} else if (delivered) {
		outbox_item_resolve(&it, OUTBOX_SENT, NULL);
		assert(!outbox_item_pending(&it)); /* a delivered item is resolved, once */
		rc = outbox_store_write(s, &it, e);
	} else {
		assert(why != NULL);
		outbox_item_set(&it, "error", why->msg);
		outbox_item_unset(&it, "sending_since");
		/* An undelivered item stays pending and unclaimed: approve may try it again. */
		assert(outbox_item_pending(&it) && !it.sending_since);
		rc = outbox_store_write(s, &it, e);
	}
	outbox_item_free(&it);
	outbox_store_unlock(s);
	if (rc == 0)
		return 0;
lost:
	err_prefix(e, "%s %s, but recording it failed, so it still shows sending_since and will "
		   "not be sent again by itself", id, delivered ? "was sent" : "was not sent");
	return -1;
}

int release_claim(struct outbox_store *s, const struct config *cfg, const char *id,
		  unsigned flags, struct release_claim *c, struct err *e)
{
	memset(c, 0, sizeof *c);
	if (claim(s, cfg, id, flags, &c->sink, &c->job, e) != 0)
		return -1;
	c->id = xstrdup(id);
	return 0;
}

int release_deliver(struct outbox_store *s, const struct config *cfg, struct release_claim *c,
		    struct err *e)
{
	struct err why;
	int delivered, rc = 0;

	err_clear(&why);
	delivered = c->sink->deliver(cfg, c->job, &why) == 0;
	c->sink->discard(c->job);
	if (settle(s, c->id, delivered, &why, e) != 0) {
		rc = -1;
	} else if (!delivered) {
		*e = why;
		rc = -1;
	}
	free(c->id);
	memset(c, 0, sizeof *c);
	return rc;
}

int release_send(struct outbox_store *s, const struct config *cfg, const char *id,
		 unsigned flags, struct err *e)
{
	struct release_claim c;

	if (release_claim(s, cfg, id, flags, &c, e) != 0)
		return -1;
	return release_deliver(s, cfg, &c, e);
}

static int mark_sent(struct outbox_item *it, void *ctx, struct err *e)
{
	(void)ctx;
	if (!outbox_item_pending(it))
		return refuse_resolved(it, 0, e);
	outbox_item_resolve(it, OUTBOX_SENT, "marked sent by a person");
	return VERDICT_WRITE;
}

int release_mark_sent(struct outbox_store *s, const char *id, struct err *e)
{
	return outbox_store_update(s, id, mark_sent, NULL, e) < 0 ? -1 : 0;
}

/* Reads every item and checks it; fills items[0..n) only when all pass. */
static int check_all(struct outbox_store *s, char *const *ids, size_t n, unsigned flags,
		     struct outbox_item *items, struct err *e)
{
	for (size_t i = 0; i < n; i++) {
		int rc = outbox_store_read(s, ids[i], &items[i], e);
		if (rc == 0 && !outbox_item_pending(&items[i]))
			rc = err_set(e, ERR_NOT_PENDING, "%s is already %s; nothing was rejected",
					items[i].id, items[i].status);
		else if (rc == 0 && items[i].sending_since && !(flags & RELEASE_FORCE))
			rc = err_set(e, ERR_IN_FLIGHT, "%s has been in flight since %s; nothing was "
					"rejected (use --force if you know it did not go out)",
					items[i].id, items[i].sending_since);
		if (rc != 0) {
			for (size_t j = 0; j <= i; j++)
				outbox_item_free(&items[j]);
			return -1;
		}
	}
	return 0;
}

int release_check_reason(const char *reason, struct err *e)
{
	if (!text_blank(reason))
		return 0;
	return err_set(e, ERR_REASON_REQUIRED, "a rejection needs a reason (--reason TEXT): it is "
		       "what the next draft is written from");
}

int release_reject(struct outbox_store *s, char *const *ids, size_t n, const char *reason,
		   unsigned flags, struct err *e)
{
	struct outbox_item *items;
	int rc = 0;

	if (release_check_reason(reason, e) != 0)
		return -1;
	items = xcalloc(n ? n : 1, sizeof *items);
	if (outbox_store_lock(s, e) != 0) {
		free(items);
		return -1;
	}
	if (check_all(s, ids, n, flags, items, e) != 0) {
		outbox_store_unlock(s);
		free(items);
		return -1;
	}
	for (size_t i = 0; i < n; i++) {
		outbox_item_resolve(&items[i], OUTBOX_REJECTED, reason);
		if (rc == 0 && outbox_store_write(s, &items[i], e) != 0)
			rc = -1;
		outbox_item_free(&items[i]);
	}
	outbox_store_unlock(s);
	free(items);
	return rc;
}

int release_needs_confirmation(const struct outbox_list *l, int yes)
{
	if (yes)
		return 0;
	for (size_t i = 0; i < l->n; i++)
		if (outbox_item_tainted(&l->items[i]))
			return 1;
	return l->n > 1;
}
