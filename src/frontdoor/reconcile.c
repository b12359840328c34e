/*
 * reconcile — the rules of docs/protocol/files.md §3, with pending checked first and on its own:
 * asking "all sent?" then "all rejected?" leaves a set that was partly sent
 * and partly rejected with nowhere to go, for ever.
 */
#include "frontdoor/reconcile.h"

#include "base/buf.h"
#include "base/err.h"
#include "base/verdict.h"
#include "base/jsonio.h"
#include "config/config.h"
#include "frontdoor/draft.h"
#include "requests/record.h"
#include "requests/state.h"
#include "requests/store.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/*
 * Where a request whose drafts were all rejected goes: back to the state a
 * person's reply took it from (draft.h's DRAFT_REPLIED_FROM), when the table
 * lets reconcile return it there; else `extracted`, whence a run's draft came.
 * A static name of the state table, never the record's own string.
 */
static const char *returned_to(const struct record *r)
{
	const struct state_row *row = state_row(jsonio_str(r->doc, DRAFT_REPLIED_FROM));

	if (row && state_allows(STATE_AWAITING_ME, row->name, MOVER_RECONCILE))
		return row->name;
	return STATE_EXTRACTED;
}

int reconcile_decide(const struct record *r, const struct reconcile_lookup *l, const char **to,
		     char **note, struct err *e)
{
	json_t *ids = record_outbox(r), *id;
	size_t i, found = 0, sent = 0, rejected = 0, pending = 0;
	char *first_reason = NULL;

	*to = NULL;
	*note = NULL;
	if (strcmp(record_state(r), STATE_AWAITING_ME) != 0 || json_array_size(ids) == 0)
		return 0;
	json_array_foreach(ids, i, id) {
		char status[16] = "";
		char *reason = NULL;
		int rc = l->draft(json_string_value(id), status, &reason, l->ctx, e);
		if (rc < 0) {
			free(first_reason);
			return -1;
		}
		if (rc == 0)
			continue;
		found++;
		if (strcmp(status, "pending") == 0)
			pending++;
		else if (strcmp(status, "sent") == 0)
			sent++;
		else if (strcmp(status, "rejected") == 0)
			rejected++;
		if (strcmp(status, "rejected") == 0 && reason && !first_reason)
			first_reason = reason;
		else
			free(reason);
	}
	if (found == 0 || pending > 0) {
		free(first_reason);
		return 0;
	}
	if (sent > 0) {
		free(first_reason);
		*to = STATE_ANSWERED;
		return 1;
	}
	if (rejected == found) {
		*to = returned_to(r);
		*note = first_reason ? first_reason : xstrdup("the draft was rejected");
		return 1;
	}
	/* A status this build has never seen: leave it for a person. */
	free(first_reason);
	return 0;
}

struct apply {
	const struct reconcile_lookup *l;
	struct reconcile_move *m;
	int moved;
};

static int apply_one(struct record *r, void *arg, struct err *e)
{
	struct apply *a = arg;
	const char *to;
	char *note;
	int rc = reconcile_decide(r, a->l, &to, &note, e);

	if (rc <= 0)
		return rc < 0 ? -1 : VERDICT_LEAVE;
	if (state_move(r, to, MOVER_RECONCILE, e) != 0) {
		free(note);
		return -1;
	}
	record_set_string(r, DRAFT_REPLIED_FROM, NULL); /* settled: where it came from is spent */
	record_set_note(r, note);
	free(note);
	a->m->seq = r->seq;
	a->m->from = STATE_AWAITING_ME;
	a->m->to = to;
	a->moved = 1;
	return VERDICT_WRITE;
}

/*
 * Re-reads seq under the store lock and applies reconcile_decide. Returns 1
 * when it moved (m filled), 0 when it did not, -1 on failure.
 */
static int reconcile_record(struct store *s, long long seq, const struct reconcile_lookup *l,
			    struct reconcile_move *m, struct err *e)
{
	struct apply a = { l, m, 0 };

	if (store_update(s, seq, apply_one, &a, e) != 0)
		return -1;
	return a.moved;
}

/*
 * The pass runs on every core: each worker decides without the lock, then
 * moves what needs moving under it. Moves are gathered and reported in seq
 * order once the workers are done, so the output does not depend on timing.
 */
struct skip {
	long long seq;
	struct err why;
};

struct pass {
	struct store *s;
	const struct reconcile_lookup *l;
	pthread_mutex_t mu;
	struct reconcile_move *moves;
	size_t n;
	struct skip *skips; /* a move that could not be written: the pass goes on */
	size_t nskips;
};

static int pass_one(struct record *r, void *arg, struct err *e)
{
	struct pass *p = arg;
	struct reconcile_move m;
	const char *to;
	char *note;
	struct err why;
	int rc = reconcile_decide(r, p->l, &to, &note, e);

	free(note);
	if (rc <= 0)
		return rc;
	/* Decided on a read without the lock; decided again under it. */
	rc = reconcile_record(p->s, r->seq, p->l, &m, &why);
	pthread_mutex_lock(&p->mu);
	if (rc > 0) {
		p->moves = xrealloc(p->moves, (p->n + 1) * sizeof *p->moves);
		p->moves[p->n++] = m;
	} else if (rc < 0) {
		p->skips = xrealloc(p->skips, (p->nskips + 1) * sizeof *p->skips);
		p->skips[p->nskips].seq = r->seq;
		p->skips[p->nskips++].why = why;
	}
	pthread_mutex_unlock(&p->mu);
	return VERDICT_NEXT;
}

static int by_seq(const void *a, const void *b)
{
	const struct reconcile_move *x = a, *y = b;

	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

static int skip_by_seq(const void *a, const void *b)
{
	const struct skip *x = a, *y = b;

	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

static void pass_report(struct pass *p, const struct reconcile_report *r)
{
	if (p->n > 1)
		qsort(p->moves, p->n, sizeof *p->moves, by_seq);
	if (p->nskips > 1)
		qsort(p->skips, p->nskips, sizeof *p->skips, skip_by_seq);
	for (size_t i = 0; i < p->n && r && r->on_move; i++)
		r->on_move(&p->moves[i], r->ctx);
	for (size_t i = 0; i < p->nskips && r && r->on_skip; i++)
		r->on_skip(p->skips[i].seq, &p->skips[i].why, r->ctx);
}

/*
 * One pass over the store, on every core. After the pass, report->on_move is
 * called for every request that moved and report->on_skip for every one that
 * should have moved and could not be written (the pass goes on past it), each
 * in seq order; report->on_read hears how many files were read, as they are.
 * Records that do not mention awaiting_me are not even parsed. The lookup is
 * called from several threads at once and must be safe for that. Returns 0
 * when the pass ran (whatever it could not write), -1 when it could not.
 */
static int reconcile_all(struct store *s, const struct reconcile_lookup *l,
			 const struct reconcile_report *report, struct err *e)
{
	struct pass p = { s, l, PTHREAD_MUTEX_INITIALIZER, NULL, 0, NULL, 0 };
	long cores = sysconf(_SC_NPROCESSORS_ONLN);
	int rc;

	rc = store_each_parallel(s, "\"" STATE_AWAITING_ME "\"", cores > 0 ? (unsigned)cores : 1,
				 pass_one, &p, e);
	pass_report(&p, report);
	free(p.moves);
	free(p.skips);
	return rc;
}

/* ---- reconcile against the configured outbox ------------------------------- */

static int draft_lookup(const char *id, char status[16], char **reason, void *ctx, struct err *e)
{
	struct outbox_store *ob = ctx;
	struct outbox_item item;
	struct err why;

	(void)e;
	if (outbox_store_read(ob, id, &item, &why) != 0)
		return 0; /* missing or unreadable: unknown stays unknown */
	snprintf(status, 16, "%s", item.status);
	*reason = item.reason ? xstrdup(item.reason) : NULL;
	outbox_item_free(&item);
	return 1;
}

void reconcile_outbox_open(struct reconcile_outbox *o)
{
	struct config cfg;
	struct err e;

	o->open = 0;
	o->why[0] = '\0';
	if (config_load(&cfg, &e) != 0) {
		snprintf(o->why, sizeof o->why, "%s", e.msg);
		return;
	}
	if (outbox_store_open(&o->ob, cfg.outbox_dir, OUTBOX_READ, &e) == 0)
		o->open = 1;
	else
		snprintf(o->why, sizeof o->why, "%s", e.msg);
	config_free(&cfg);
}

void reconcile_outbox_close(struct reconcile_outbox *o)
{
	if (o->open)
		outbox_store_close(&o->ob);
	o->open = 0;
}

/* The lookup reconcile_decide and reconcile_record use, over o (which must be open). */
static struct reconcile_lookup reconcile_outbox_lookup(struct reconcile_outbox *o)
{
	struct reconcile_lookup l = { draft_lookup, &o->ob };

	return l;
}

const char *reconcile_draft_status(struct reconcile_outbox *o, const char *id, char buf[16])
{
	char *reason = NULL;
	struct err e;
	int found = o->open ? draft_lookup(id, buf, &reason, &o->ob, &e) : 0;

	free(reason);
	if (!o->open)
		return "(outbox unknown)";
	return found > 0 ? buf : "gone from the outbox";
}

struct outbox_store *reconcile_walk_outbox(struct reconcile_walk *w)
{
	if (!w->tried) {
		w->tried = 1;
		reconcile_outbox_open(&w->o);
	}
	return w->o.open ? &w->o.ob : NULL;
}

int reconcile_settle(struct reconcile_walk *w, struct record *r)
{
	struct reconcile_lookup l;
	struct reconcile_move m;
	long long seq = r->seq;
	const char *to;
	char *note = NULL;
	struct err e;
	int rc;

	if (strcmp(record_state(r), STATE_AWAITING_ME) != 0 || !reconcile_walk_outbox(w))
		return 0;
	l = reconcile_outbox_lookup(&w->o);
	rc = reconcile_decide(r, &l, &to, &note, &e);
	free(note);
	if (rc <= 0)
		return rc;
	rc = reconcile_record(w->s, seq, &l, &m, &e);
	if (rc < 0 && w->report && w->report->on_skip)
		w->report->on_skip(seq, &e, w->report->ctx);
	if (rc <= 0)
		return rc;
	if (w->report && w->report->on_move)
		w->report->on_move(&m, w->report->ctx);
	record_free(r); /* the caller sees the record as it is now */
	if (store_get(w->s, seq, r, &e) != 0)
		r->doc = NULL;
	return 1;
}

void reconcile_walk_end(struct reconcile_walk *w)
{
	reconcile_outbox_close(&w->o);
}

struct each {
	struct reconcile_walk w;
	int (*fn)(struct record *r, void *ctx, struct err *e);
	void *ctx;
};

static int each_one(struct record *r, void *arg, struct err *e)
{
	struct each *x = arg;

	reconcile_settle(&x->w, r);
	if (!r->doc)
		return VERDICT_NEXT; /* gone between the move and the re-read */
	return x->fn(r, x->ctx, e);
}

int reconcile_each(struct store *s, int (*fn)(struct record *r, void *ctx, struct err *e),
		   void *ctx, const struct reconcile_report *report, struct err *e)
{
	struct each x = { RECONCILE_WALK_INIT(s, report), fn, ctx };
	int rc = store_each(s, each_one, &x, e);

	reconcile_walk_end(&x.w);
	return rc;
}

int reconcile_home(const struct reconcile_report *report, struct err *e)
{
	struct config cfg;
	struct outbox_store ob;
	struct store s;
	struct reconcile_lookup l = { draft_lookup, &ob };
	int rc;

	if (config_load(&cfg, e) != 0)
		return -1;
	rc = outbox_store_open(&ob, cfg.outbox_dir, OUTBOX_READ, e);
	config_free(&cfg);
	if (rc != 0)
		return -1;
	if (store_open_default(&s, STORE_READ, e) != 0) {
		outbox_store_close(&ob);
		return -1;
	}
	if (report && report->on_read) {
		s.on_read = report->on_read;
		s.on_read_ctx = report->ctx;
	}
	rc = reconcile_all(&s, &l, report, e);
	store_close(&s);
	outbox_store_close(&ob);
	return rc;
}
