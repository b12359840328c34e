/*
 * triage (cli) — `mecha frontdoor triage`: the privileged pass over the
 * extracted requests, one fresh conversation each.
 *
 * It refuses to run unless drafts have somewhere to go: without the outbox
 * route a mail the model makes would be a mail sent, and a stranger's inbox is
 * not where anyone wants to find out that [outbox] tools was unset.
 */
#include "cli/cli.h"
#include "cli/frontdoor.h"
#include "frontdoor/model.h"

#include "base/buf.h"
#include "base/err.h"
#include "base/jsonio.h"
#include "base/text.h"
#include "config/config.h"
#include "config/home.h"
#include "frontdoor/brief.h"
#include "frontdoor/state.h"
#include "frontdoor/store.h"
#include "frontdoor/triage.h"
#include "outbox/sink.h"
#include "outbox/store.h"

#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

const char frontdoor_triage_help[] =
	"usage: mecha frontdoor triage [--seq N] [--limit N] [--max-turns N] [--json]\n\n"
	"The privileged pass: a model with calendar and mail tools, told only what `next`\n"
	"prints, one fresh conversation per request. Its tools stage drafts in the outbox\n"
	"for you to release; nothing is sent. A request with a draft becomes awaiting_me;\n"
	"one with nothing drafted becomes triaged with the run's reason as its note.\n"
	"Refuses to run (exit 3) unless [outbox] tools names mail_send and the outbox is\n"
	"writable, or when no model provider is configured.\n\n"
	"  --seq N         only request N (it must be extracted)\n"
	"  --limit N       at most N requests (default 5)\n"
	"  --max-turns N   model turns per request before the run is stopped (default 8)\n"
	"  --json          the outcomes as a JSON array\n";

struct pick {
	long long *seqs;
	size_t n;
	long long limit;
};

static int pick_one(struct record *r, void *arg, struct err *e)
{
	struct pick *p = arg;
	json_t *b;

	if (strcmp(record_state(r), STATE_EXTRACTED) != 0 || !(b = brief_build(r)))
		return 0;
	json_decref(b);
	p->seqs = xrealloc(p->seqs, (p->n + 1) * sizeof *p->seqs);
	p->seqs[p->n++] = r->seq;
	return (long long)p->n >= p->limit ? 1 : 0;
}

/* The refusals that keep an unrouted or modelless run from starting. */
static int preflight(const struct config *cfg, const struct provider_conf *conf,
		     struct outbox_store *ob, struct err *e)
{
	if (provider_is_rules(conf))
		return err_set(e, ERR_NO_MODEL,
				  "triage needs a model that can use tools, and the configured "
				  "provider is the rules extractor: set default_provider in config.toml");
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

static const char *outcome_name(enum triage_outcome o)
{
	switch (o) {
	case TRIAGE_DRAFTED:
		return STATE_AWAITING_ME;
	case TRIAGE_NOTHING:
		return STATE_TRIAGED;
	case TRIAGE_FAILED:
		return "failed";
	case TRIAGE_LEFT:
		return "left";
	}
	return "?";
}

static void report(const struct triage_result *r, json_t *rows)
{
	if (rows) {
		json_array_append_new(rows, json_pack("{s:I,s:s,s:s,s:i,s:s?}", "seq",
						      (json_int_t)r->seq, "outcome",
						      outcome_name(r->outcome), "session", r->session,
						      "drafts", (int)r->drafts, "note", r->note));
		return;
	}
	printf("%6lld  ", r->seq);
	switch (r->outcome) {
	case TRIAGE_DRAFTED:
		printf("awaiting_me (%zu draft%s in the outbox)\n", r->drafts, r->drafts == 1 ? "" : "s");
		return;
	case TRIAGE_NOTHING:
		printf("triaged, nothing drafted: ");
		break;
	case TRIAGE_FAILED:
		break;
	case TRIAGE_LEFT:
		printf("changed by you during the run; left as you set it\n");
		return;
	}
	text_print(stdout, r->note ? r->note : "", 0);
	putchar('\n');
}

static int run_all(struct triage_env *env, struct pick *p, int json, struct err *e)
{
	json_t *rows = json ? json_array() : NULL;
	size_t counts[4] = { 0 };

	for (size_t i = 0; i < p->n; i++) {
		struct triage_result r;
		if (triage_one(env, p->seqs[i], &r, e) != 0) {
			fprintf(stderr, "mecha: request %lld: %s\n", p->seqs[i], e->msg);
			continue;
		}
		counts[r.outcome]++;
		report(&r, rows);
		fflush(stdout);
		triage_result_free(&r);
	}
	if (json) {
		jsonio_print(stdout, rows);
		json_decref(rows);
	} else if (p->n == 0) {
		puts("nothing to triage");
	} else {
		printf("%zu awaiting you, %zu with nothing drafted, %zu failed\n",
		       counts[TRIAGE_DRAFTED], counts[TRIAGE_NOTHING], counts[TRIAGE_FAILED]);
	}
	return 0;
}

int frontdoor_triage_verb(int argc, char **argv)
{
	static const struct option opts[] = { { "seq", required_argument, NULL, 's' },
					      { "limit", required_argument, NULL, 'l' },
					      { "max-turns", required_argument, NULL, 't' },
					      { "json", no_argument, NULL, 'j' },
					      { NULL, 0, NULL, 0 } };
	struct pick p = { NULL, 0, 5 };
	struct triage_env env = { 0 };
	struct provider_conf conf;
	struct outbox_store ob;
	struct config cfg;
	struct store s;
	struct err e;
	long long seq = -1, turns = TRIAGE_MAX_TURNS;
	int json = 0, ch, rc = -1;
	char *sessions = NULL;

	optind = 0;
	while ((ch = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		if ((ch == 's' && frontdoor_parse_seq("frontdoor triage", optarg, &seq) != 0) ||
		    (ch == 'l' && cli_parse_count("frontdoor triage", "--limit", optarg, &p.limit) != 0) ||
		    (ch == 't' && cli_parse_count("frontdoor triage", "--max-turns", optarg, &turns) != 0))
			return EXIT_USAGE;
		if (ch == 'j')
			json = 1;
		else if (ch == '?')
			return cli_usage_error("frontdoor triage", "unknown option");
	}
	if (optind < argc)
		return cli_usage_error("frontdoor triage", "unexpected argument '%s'", argv[optind]);
	if (turns < 1 || turns > 100)
		return cli_usage_error("frontdoor triage", "--max-turns takes 1 to 100");
	if (config_load(&cfg, &e) != 0)
		return cli_fail(&e);
	if (model_conf(&cfg, &conf, &e) != 0) {
		config_free(&cfg);
		return cli_fail(&e);
	}
	if (preflight(&cfg, &conf, &ob, &e) != 0)
		goto out_conf;
	sessions = home_default(HOME_SESSIONS, &e);
	if (!sessions || store_open_default(&s, STORE_CREATE, &e) != 0)
		goto out_outbox;
	if (seq >= 0) {
		struct record r;
		rc = store_get(&s, seq, &r, &e);
		if (rc == 0) {
			if (strcmp(record_state(&r), STATE_EXTRACTED) != 0)
				rc = err_set(&e, ERR_INVALID_TRANSITION, "request %lld is %s; triage takes "
						"extracted requests only (nothing changed)", seq,
						record_state(&r));
			else
				pick_one(&r, &p, &e);
			record_free(&r);
		}
	} else {
		rc = p.limit > 0 ? reconcile_each(&s, pick_one, &p, &frontdoor_report, &e) : 0;
	}
	if (rc == 0) {
		env = (struct triage_env){ &s, &ob, &conf, &cfg, sessions, (int)turns };
		rc = run_all(&env, &p, json, &e);
	}
	store_close(&s);
out_outbox:
	outbox_store_close(&ob);
out_conf:
	free(sessions);
	free(p.seqs);
	model_conf_release(&conf);
	config_free(&cfg);
	return rc == 0 ? EXIT_OK : cli_fail(&e);
}
