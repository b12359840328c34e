/*
 * frontdoor_reconcile — joining the request store to the outbox: the lookup
 * reconcile uses, and the reconcile verb.
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
	"the request for you. It also runs by itself before list, next and triage.\n"
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

void frontdoor_reconcile_quietly(void)
{
	struct report r = { NULL };
	struct err e;

	if (reconcile_run(&r, &e) != 0 && strcmp(e.code, "not_found") != 0)
		fprintf(stderr, "mecha: reconcile skipped: %s\n", e.msg);
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

const char *frontdoor_draft_status(const char *id)
{
	static char status[16];
	struct config cfg;
	struct outbox_store ob;
	struct err e;
	char *reason = NULL;
	int found = 0;

	if (config_load(&cfg, &e) != 0)
		return "(outbox unknown: configuration unreadable)";
	if (outbox_store_open(&ob, cfg.outbox_dir, OUTBOX_READ, &e) == 0) {
		found = draft_lookup(id, status, &reason, &ob, &e);
		outbox_store_close(&ob);
	}
	config_free(&cfg);
	free(reason);
	return found > 0 ? status : "gone from the outbox";
}
