/*
 * frontdoor_reconcile — joining the request store to the outbox: the lookup
 * reconcile uses, the reconcile verb, the reconciling pass list, next and
 * triage read the store with, and the drafts' statuses for show.
 *
 * Reconcile is best effort by design: no outbox is a perfectly ordinary
 * machine, and a list that refused to print because a cross-check store is
 * absent would be worse than one printing slightly stale states.
 */
#include "cli/cli.h"
#include "cli/frontdoor.h"

#include "base/buf.h"
#include "base/err.h"
#include "base/jsonio.h"
#include "config/config.h"
#include "frontdoor/reconcile.h"
#include "frontdoor/state.h"
#include "frontdoor/store.h"
#include "outbox/store.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char frontdoor_reconcile_help[] =
	"usage: mecha frontdoor reconcile [--json]\n\n"
	"Advances requests in awaiting_me whose drafts were released or rejected: any sent\n"
	"draft (and none pending) answers the request; all of its drafts rejected return it\n"
	"to extracted with the first rejection reason as its note. Drafts that are gone leave\n"
	"the request for you. It also runs by itself as list, next and triage read\n"
	"the store.\n"
	"Each move is printed on stderr (\"    12  awaiting_me → answered\").\n\n"
	"  --json   also print the moves as [{seq, from, to}] on stdout\n";

static int draft_lookup(const char *id, char status[16], char **reason, void *ctx, struct err *e)
{
	struct outbox_store *ob = ctx;
	struct outbox_item item;
	struct err why;

	if (outbox_store_read(ob, id, &item, &why) != 0)
		return 0; /* missing or unreadable: unknown stays unknown */
	snprintf(status, 16, "%s", item.status);
	*reason = item.reason ? xstrdup(item.reason) : NULL;
	outbox_item_free(&item);
	return 1;
}

/* Where moves go: a line each on stderr, and with --json also an array for stdout. */
struct report {
	json_t *moves;
};

static void print_move(const struct reconcile_move *m, void *ctx)
{
	struct report *r = ctx;

	fprintf(stderr, "%6lld  %s → %s\n", m->seq, m->from, m->to);
	if (r->moves)
		json_array_append_new(r->moves, json_pack("{s:I,s:s,s:s}", "seq", (json_int_t)m->seq,
							  "from", m->from, "to", m->to));
}

/* Opens both stores; the outbox only for reading, and only if it exists. */
static int reconcile_run(struct report *r, struct err *e)
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
	rc = reconcile_all(&s, &l, print_move, r, e);
	store_close(&s);
	outbox_store_close(&ob);
	return rc;
}

int frontdoor_reconcile_verb(int argc, char **argv)
{
	struct report r = { NULL };
	struct err e;
	int rc;

	if (argc == 2 && strcmp(argv[1], "--json") == 0)
		r.moves = json_array();
	else if (argc > 1)
		return cli_usage_error("frontdoor reconcile", "reconcile takes only --json");
	rc = reconcile_run(&r, &e);
	if (rc == 0 && r.moves)
		jsonio_print(stdout, r.moves);
	json_decref(r.moves);
	return rc == 0 ? EXIT_OK : cli_fail(&e);
}

int frontdoor_drafts_open(struct frontdoor_drafts *d)
{
	struct config cfg;
	struct err e;

	d->open = 0;
	if (config_load(&cfg, &e) != 0) {
		fprintf(stderr, "mecha: drafts unknown: %s\n", e.msg);
		return -1;
	}
	if (outbox_store_open(&d->ob, cfg.outbox_dir, OUTBOX_READ, &e) == 0)
		d->open = 1;
	config_free(&cfg);
	return d->open ? 0 : -1;
}

void frontdoor_drafts_close(struct frontdoor_drafts *d)
{
	if (d->open)
		outbox_store_close(&d->ob);
	d->open = 0;
}

const char *frontdoor_draft_status(struct frontdoor_drafts *d, const char *id, char buf[16])
{
	char *reason = NULL;
	struct err e;
	int found = d->open ? draft_lookup(id, buf, &reason, &d->ob, &e) : 0;

	free(reason);
	if (!d->open)
		return "(outbox unknown)";
	return found > 0 ? buf : "gone from the outbox";
}

/*
 * The pass list, next and triage make: each awaiting_me record is reconciled
 * (under the lock, re-read) before the verb's own function sees it, so the
 * store is read once and what the verb shows is already current. The outbox
 * is opened at the first record that needs it; when it cannot be, reconcile
 * is skipped and the verb goes on.
 */
struct each {
	struct store *s;
	int (*fn)(struct record *r, void *ctx, struct err *e);
	void *ctx;
	struct frontdoor_drafts d;
	int tried;
};

static void reconcile_in_place(struct each *x, struct record *r)
{
	struct reconcile_lookup l = { draft_lookup, &x->d.ob };
	struct reconcile_move m;
	long long seq = r->seq;
	const char *to;
	char *note = NULL;
	struct err e;
	int rc;

	if (!x->tried) {
		x->tried = 1;
		frontdoor_drafts_open(&x->d);
	}
	if (!x->d.open || reconcile_decide(r, &l, &to, &note, &e) <= 0) {
		free(note);
		return;
	}
	free(note);
	rc = reconcile_record(x->s, seq, &l, &m, &e);
	if (rc < 0) {
		fprintf(stderr, "mecha: reconcile skipped request %lld: %s\n", seq, e.msg);
		return;
	}
	if (rc == 0)
		return;
	fprintf(stderr, "%6lld  %s → %s\n", m.seq, m.from, m.to);
	record_free(r); /* the verb sees the record as it is now */
	if (store_get(x->s, seq, r, &e) != 0)
		r->doc = NULL;
}

static int each_one(struct record *r, void *arg, struct err *e)
{
	struct each *x = arg;

	if (strcmp(record_state(r), STATE_AWAITING_ME) == 0)
		reconcile_in_place(x, r);
	if (!r->doc)
		return 0; /* gone between the move and the re-read */
	return x->fn(r, x->ctx, e);
}

int frontdoor_each(struct store *s, int (*fn)(struct record *r, void *ctx, struct err *e),
		   void *ctx, struct err *e)
{
	struct each x = { s, fn, ctx, { .open = 0 }, 0 };
	int rc = store_each(s, each_one, &x, e);

	frontdoor_drafts_close(&x.d);
	return rc;
}
