/*
 * triage_run — one `triage` from start to finish. It refuses to start unless
 * drafts have somewhere to go: without the outbox route a mail the model makes
 * would be a mail sent, and a stranger's inbox is not where anyone wants to
 * find out that [outbox] tools was unset.
 */
#include "frontdoor/triage.h"

#include "base/buf.h"
#include "base/err.h"
#include "base/verdict.h"
#include "config/config.h"
#include "config/home.h"
#include "frontdoor/brief.h"
#include "frontdoor/prose.h"
#include "frontdoor/model.h"
#include "frontdoor/reconcile.h"
#include "requests/record.h"
#include "requests/state.h"
#include "requests/store.h"
#include "frontdoor/sweep.h"
#include "outbox/sink.h"
#include "outbox/store.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/*
 * The refusals that keep an unrouted or modelless run from starting
 * (docs/mcp.md): ERR_NO_MODEL when conf is the rules extractor,
 * ERR_UNROUTED when [outbox] tools does not name mail_send or the outbox
 * cannot be opened for writing. On success ob is open (OUTBOX_WRITE) and the
 * caller closes it.
 */
static int triage_preflight(const struct config *cfg, const struct provider_conf *conf,
			    struct outbox_store *ob, struct err *e)
{
	if (provider_is_rules(conf))
		return err_set(e, ERR_NO_MODEL,
			       "triage needs a model that can use tools, and the configured "
			       "provider is the rules extractor: set default_provider in config.toml");
	/* A run's agent may ask the calendar: a calendar named and missing stops it now. */
	if (config_require(cfg, CONFIG_NEEDS_CALENDAR, e) != 0)
		return -1;
	if (!sink_routed(cfg, SINK_MAIL, e)) {
		err_prefix(e, "triage refuses to run");
		return -1;
	}
	if (outbox_store_open(ob, cfg->outbox_dir, OUTBOX_WRITE, e) != 0) {
		char why[sizeof e->msg];
		snprintf(why, sizeof why, "%s", e->msg);
		return err_set(e, ERR_UNROUTED, "triage refuses to run: the outbox cannot be "
			       "opened for writing (%s)", why);
	}
	if (access(cfg->outbox_dir, W_OK) != 0) {
		outbox_store_close(ob);
		return err_set(e, ERR_UNROUTED, "triage refuses to run: the outbox %s is not writable",
			       cfg->outbox_dir);
	}
	return 0;
}

/* ---- which requests -------------------------------------------------------------- */

struct picking {
	struct triage_pick *p;
	long long limit;
};

/* Only a request with a brief can be triaged: the brief is all a run may be told. */
static int pick_one(struct record *r, void *arg, struct err *e)
{
	struct picking *k = arg;
	struct triage_pick *p = k->p;
	json_t *b;

	(void)e;
	if (strcmp(record_state(r), STATE_EXTRACTED) != 0)
		return VERDICT_NEXT;
	if (record_valid(r))
		prose_follow_manifest(r, NULL);
	if (!(b = brief_build(r)))
		return VERDICT_NEXT;
	json_decref(b);
	p->seqs = xrealloc(p->seqs, (p->n + 1) * sizeof *p->seqs);
	p->seqs[p->n++] = r->seq;
	return (long long)p->n >= k->limit ? VERDICT_STOP : VERDICT_NEXT;
}

static int select_seq(struct store *s, long long seq, struct picking *k, struct err *e)
{
	struct record r;
	int rc;

	if (store_get(s, seq, &r, e) != 0)
		return -1;
	if (sweep_claims(&r))
		rc = err_set(e, ERR_BOOKING, "request %lld is a booking or a cancellation; the sweep "
			     "settles it, not triage (nothing changed)", seq);
	else if (strcmp(record_state(&r), STATE_EXTRACTED) != 0)
		rc = err_set(e, ERR_INVALID_TRANSITION, "request %lld is %s; triage takes extracted "
			     "requests only (nothing changed)", seq, record_state(&r));
	else
		rc = pick_one(&r, k, e) < 0 ? -1 : 0;
	record_free(&r);
	return rc;
}

/*
 * seq >= 0: that request, which must be extracted (ERR_INVALID_TRANSITION
 * otherwise) — and is taken only when it has a brief. seq < 0: up to limit
 * extracted requests with a brief, read through the reconciling pass (report
 * may be NULL).
 */
static int triage_select(struct store *s, long long seq, long long limit,
			 const struct reconcile_report *report, struct triage_pick *out,
			 struct err *e)
{
	struct picking k = { out, seq >= 0 ? 1 : limit };

	out->seqs = NULL;
	out->n = 0;
	if (seq >= 0)
		return select_seq(s, seq, &k, e);
	return limit > 0 ? reconcile_each(s, pick_one, &k, report, e) : 0;
}

static void triage_pick_free(struct triage_pick *p)
{
	free(p->seqs);
	p->seqs = NULL;
	p->n = 0;
}

/* ---- the run ------------------------------------------------------------------------ */

static void run_each(const struct triage_env *env, const struct triage_pick *p,
		     const struct triage_report *rep)
{
	for (size_t i = 0; i < p->n; i++) {
		struct triage_result res;
		struct err e;
		if (triage_one(env, p->seqs[i], &res, &e) != 0) {
			if (rep && rep->on_error)
				rep->on_error(p->seqs[i], &e, rep->ctx);
			continue;
		}
		if (rep && rep->on_result)
			rep->on_result(&res, rep->ctx);
		triage_result_free(&res);
	}
}

static int run_with(const struct config *cfg, const struct provider_conf *conf,
		    struct outbox_store *ob, const struct triage_opts *o,
		    const struct triage_report *rep, struct err *e)
{
	struct triage_pick p = { NULL, 0 };
	char *sessions = home_default(HOME_SESSIONS, e);
	struct store s;
	int rc = -1;

	if (!sessions || store_open_default(&s, STORE_CREATE, e) != 0) {
		free(sessions);
		return -1;
	}
	rc = triage_select(&s, o->seq, o->limit, rep ? rep->reconcile : NULL, &p, e);
	if (rc == 0 && rep && rep->on_start)
		rep->on_start(p.n, rep->ctx);
	if (rc == 0) {
		struct triage_env env = { &s, ob, conf, cfg, sessions, o->max_turns };
		run_each(&env, &p, rep);
	}
	triage_pick_free(&p);
	store_close(&s);
	free(sessions);
	return rc;
}

int triage_run(const struct triage_opts *o, const struct triage_report *rep, struct err *e)
{
	struct provider_conf conf;
	struct outbox_store ob;
	struct config cfg;
	int rc = -1;

	if (config_load(&cfg, e) != 0)
		return -1;
	if (model_conf(&cfg, &conf, e) == 0) {
		if (triage_preflight(&cfg, &conf, &ob, e) == 0) {
			rc = run_with(&cfg, &conf, &ob, o, rep, e);
			outbox_store_close(&ob);
		}
		model_conf_release(&conf);
	}
	config_free(&cfg);
	return rc;
}
