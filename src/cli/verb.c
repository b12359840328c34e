/*
 * verb — dispatch and option parsing for every verb group.
 *
 * getopt_long does the parsing; it is told to stay quiet (opterr = 0, a
 * leading ':') so that each mistake is reported once, in our words.
 */
#include "cli/verb.h"
#include "cli/cli.h"

#include "base/buf.h"
#include "base/err.h"
#include "base/sandbox.h"
#include "base/suggest.h"
#include "base/text.h"
#include "config/confine.h"

#include <getopt.h>
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

static const struct cli_opt *opt_for(const struct cli_opt *opts, size_t n, int ch)
{
	if (ch >= 0x100 && (size_t)(ch - 0x100) < n)
		return &opts[ch - 0x100];
	for (size_t i = 0; i < n; i++)
		if (opts[i].letter && opts[i].letter == ch)
			return &opts[i];
	return NULL;
}

static int take(const char *verb, const struct cli_opt *o, const char *v)
{
	long long x;
	int rc = 0;

	switch (o->kind) {
	case CLI_FLAG:
		*(int *)o->out = 1;
		return 0;
	case CLI_STR:
		*(const char **)o->out = v;
		return 0;
	case CLI_TEXT:
		if (!text_utf8_valid(v, strlen(v)))
			rc = cli_usage_error(verb, "--%s must be UTF-8 text", o->name);
		else if ((o->flags & CLI_NONEMPTY) && text_blank(v))
			rc = cli_usage_error(verb, "--%s needs a value that says something", o->name);
		else
			*(const char **)o->out = v;
		return rc ? -1 : 0;
	case CLI_COUNT: {
		char opt[80];

		snprintf(opt, sizeof opt, "--%s", o->name);
		if (cli_parse_count(verb, opt, v, &x) != 0)
			return -1;
		if (o->max > 0 && (x < o->min || x > o->max)) {
			cli_usage_error(verb, "--%s takes %lld to %lld", o->name, o->min, o->max);
			return -1;
		}
		*(long long *)o->out = x;
		return 0;
	}
	}
	return 0;
}

/* "unknown option '--jsn'; did you mean '--json'?" when one of opts is near it. */
static int unknown_option(const char *verb, const struct cli_opt *opts, size_t n,
			  const char *arg, const char *safe)
{
	const char *near = NULL;
	char word[80];

	if (strncmp(arg, "--", 2) == 0) {
		snprintf(word, sizeof word, "%.*s", (int)strcspn(arg + 2, "="), arg + 2);
		near = suggest_nearest_in(word, opts, n, sizeof *opts, offsetof(struct cli_opt, name));
	}
	if (near)
		return cli_usage_error(verb, "unknown option '%s'; did you mean '--%s'?", safe, near);
	return cli_usage_error(verb, "unknown option '%s'", safe);
}

static struct option *long_table(const struct cli_opt *opts, size_t n, struct buf *shorts)
{
	struct option *lo = calloc(n + 1, sizeof *lo);

	buf_addc(shorts, ':');
	for (size_t i = 0; lo && i < n; i++) {
		lo[i].name = opts[i].name;
		lo[i].has_arg = opts[i].kind == CLI_FLAG ? no_argument : required_argument;
		lo[i].val = (int)(0x100 + i);
		if (opts[i].letter) {
			buf_addc(shorts, opts[i].letter);
			if (opts[i].kind != CLI_FLAG)
				buf_addc(shorts, ':');
		}
	}
	return lo;
}

int cli_parse(const char *verb, const struct cli_opt *opts, size_t n, int min_pos, int max_pos,
	      int argc, char **argv, struct cli_args *a)
{
	struct buf shorts = BUF_INIT;
	struct option *lo = long_table(opts, n, &shorts);
	int ch, rc = 0;

	a->pos = NULL;
	a->n = 0;
	optind = 0;
	opterr = 0;
	while (rc == 0 && (ch = getopt_long(argc, argv, buf_str(&shorts), lo, NULL)) != -1) {
		const struct cli_opt *o = opt_for(opts, n, ch);
		const char *name = argv[optind - 1];
		struct buf safe = BUF_INIT;

		text_safe(&safe, name, strlen(name), 0);
		if (ch == ':')
			rc = cli_usage_error(verb, "%s needs a value", buf_str(&safe));
		else if (ch == '?' || !o)
			rc = unknown_option(verb, opts, n, name, buf_str(&safe));
		else if (take(verb, o, optarg) != 0)
			rc = EXIT_USAGE;
		buf_free(&safe);
	}
	free(lo);
	buf_free(&shorts);
	if (rc != 0)
		return rc;
	a->pos = argv + optind;
	a->n = argc - optind;
	if (a->n < min_pos || (max_pos >= 0 && a->n > max_pos)) {
		if (max_pos == 0)
			return cli_usage_error(verb, "unexpected argument '%s'", a->pos[0]);
		/* (cli_usage_error renders the argument safely) */
		return cli_usage_error(verb, "%s", a->n < min_pos ? "missing an argument"
								 : "too many arguments");
	}
	confine(opts, n, a);
	return 0;
}
