/*
 * verb — dispatch and option parsing for every verb group.
 *
 * The parsing is base/opts.c's; what is the cli's is the words around a
 * mistake ("mecha: …", the pointer to --help, the --json document) and the
 * sandbox applied once the options are read.
 */
#include "cli/verb.h"
#include "cli/cli.h"

#include "base/buf.h"
#include "base/err.h"
#include "base/opts.h"
#include "base/sandbox.h"
#include "base/suggest.h"
#include "base/text.h"
#include "config/confine.h"

#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void group_help(const struct cli_group *g, FILE *f)
{
	fprintf(f, "usage: mecha %s %s [options]\n\n%s\n\n", g->name,
		g->default_verb ? "[VERB]" : "VERB", g->intro);
	for (size_t i = 0; i < g->nverbs; i++)
		if (g->verbs[i].summary)
			fprintf(f, "  %-11s %s\n", g->verbs[i].name, g->verbs[i].summary);
	if (g->default_verb)
		fprintf(f, "\nWithout a verb: %s.", g->default_verb);
	fprintf(f, "\nmecha %s VERB --help describes one verb.\n", g->name);
}

static const struct cli_verb *verb_named(const struct cli_group *g, const char *name)
{
	for (size_t i = 0; i < g->nverbs; i++)
		if (strcmp(g->verbs[i].name, name) == 0)
			return &g->verbs[i];
	return NULL;
}

static int is_help(const char *s)
{
	return strcmp(s, "--help") == 0 || strcmp(s, "-h") == 0 || strcmp(s, "help") == 0;
}

int cli_dispatch(const struct cli_group *g, int argc, char **argv)
{
	const struct cli_verb *v;
	int shift = 1;

	if (argc >= 2 && is_help(argv[1])) {
		group_help(g, stdout);
		return EXIT_OK;
	}
	if (argc < 2 || argv[1][0] == '-') {
		if (!g->default_verb) {
			group_help(g, stderr);
			return EXIT_USAGE;
		}
		v = verb_named(g, g->default_verb);
		shift = 0; /* `mecha frontdoor --state x` is list */
	} else if (!(v = verb_named(g, argv[1]))) {
		struct buf b = BUF_INIT;
		const char *near = suggest_nearest_in(argv[1], g->verbs, g->nverbs, sizeof *g->verbs,
						      offsetof(struct cli_verb, name));
		text_safe(&b, argv[1], strlen(argv[1]), 0);
		if (near)
			cli_usage_error(g->name, "%s has no verb '%s'; did you mean '%s'?", g->name,
					buf_str(&b), near);
		else
			cli_usage_error(g->name, "%s has no verb '%s'", g->name, buf_str(&b));
		buf_free(&b);
		return EXIT_USAGE;
	}
	if (cli_wants_help(argc - shift, argv + shift)) {
		fputs(v->help, stdout);
		return EXIT_OK;
	}
	cli_confine_declare(v->confine);
	return v->run(argc - shift, argv + shift);
}

/* ---- confinement ------------------------------------------------------------ */

/* What the running command declared, until cli_parse applies it. */
static unsigned confine_needs;
static int confine_pending;

void cli_confine_declare(unsigned needs)
{
	confine_needs = needs;
	confine_pending = 1;
}

/* 2 under MECHA_VERBOSE=2 (the policy is described), 1 under =1 or the verb's --verbose. */
static int confine_verbose(const struct cli_opt *opts, size_t n)
{
	const char *env = getenv("MECHA_VERBOSE");

	if (env && strcmp(env, "2") == 0)
		return 2;
	if (env && strcmp(env, "1") == 0)
		return 1;
	for (size_t i = 0; i < n; i++)
		if (opts[i].kind == CLI_FLAG && strcmp(opts[i].name, "verbose") == 0)
			return *(int *)opts[i].out ? 1 : 0;
	return 0;
}

/* The declared needs, with the places the command line named, applied for good. */
static void confine(const struct cli_opt *opts, size_t n, const struct cli_args *a)
{
	struct sandbox_policy p = SANDBOX_POLICY_INIT;

	if (!confine_pending || (confine_needs & CONFINE_NONE))
		return;
	confine_pending = 0;
	confine_policy(confine_needs, &p);
	for (size_t i = 0; i < n; i++)
		if ((opts[i].flags & CLI_PLACE) && *(const char **)opts[i].out)
			confine_store(confine_needs, *(const char **)opts[i].out, &p);
	for (size_t i = 0; i < n; i++)
		if ((opts[i].flags & CLI_READS) && *(const char **)opts[i].out)
			sandbox_read(&p, *(const char **)opts[i].out);
	for (int i = 0; (confine_needs & CONFINE_ARGS) && i < a->n; i++)
		sandbox_read(&p, a->pos[i]);
	sandbox_apply(&p, confine_verbose(opts, n));
	sandbox_policy_free(&p);
}

/* ---- options ---------------------------------------------------------------- */

int cli_parse(const char *verb, const struct cli_opt *opts, size_t n, int min_pos, int max_pos,
	      int argc, char **argv, struct cli_args *a)
{
	struct err e;

	if (opts_parse(opts, n, min_pos, max_pos, argc, argv, a, &e) != 0)
		return cli_usage_error(verb, "%s", e.msg); /* (which renders it safely) */
	confine(opts, n, a);
	return 0;
}
