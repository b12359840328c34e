/*
 * opts — the option parser of every program (see opts.h for the mistakes it
 * refuses and their words).
 */
#include "base/opts.h"

#include "base/buf.h"
#include "base/err.h"
#include "base/suggest.h"
#include "base/text.h"

#include <errno.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

int opts_present(int argc, char **argv, const char *word)
{
	for (int i = 1; i < argc && strcmp(argv[i], "--") != 0; i++)
		if (strcmp(argv[i], word) == 0)
			return 1;
	return 0;
}

int opts_wants_help(int argc, char **argv)
{
	for (int i = 1; i < argc && strcmp(argv[i], "--") != 0; i++)
		if (strcmp(argv[i], "-h") == 0 || strcmp(argv[i], "--help") == 0)
			return 1;
	return 0;
}

int opts_count(const char *s, long long *out)
{
	char *end;
	long long v;

	if (!s || !*s || *s == '-' || *s == '+' || *s == ' ')
		return -1;
	errno = 0;
	v = strtoll(s, &end, 10);
	if (errno || *end)
		return -1;
	*out = v;
	return 0;
}

/* The row getopt_long's answer ch stands for: 0x100 + its index, or its letter. */
static const struct opts_spec *row_for(const struct opts_spec *opts, size_t n, int ch)
{
	if (ch >= 0x100 && (size_t)(ch - 0x100) < n)
		return &opts[ch - 0x100];
	for (size_t i = 0; i < n; i++)
		if (opts[i].letter && opts[i].letter == ch)
			return &opts[i];
	return NULL;
}

static int take_text(const struct opts_spec *o, const char *v, struct err *e)
{
	if (o->kind == OPTS_TEXT && !text_utf8_valid(v, strlen(v)))
		return err_set(e, ERR_USAGE, "--%s must be UTF-8 text", o->name);
	if (o->kind == OPTS_TEXT && (o->flags & OPTS_NONEMPTY) && text_blank(v))
		return err_set(e, ERR_USAGE, "--%s needs a value that says something", o->name);
	if ((o->flags & OPTS_NOT_OPTION) && strncmp(v, "--", 2) == 0)
		return err_set(e, ERR_USAGE, "--%s needs a value", o->name);
	*(const char **)o->out = v;
	return 0;
}

static int take(const struct opts_spec *o, const char *v, struct err *e)
{
	long long x;

	switch (o->kind) {
	case OPTS_FLAG:
		*(int *)o->out = 1;
		return 0;
	case OPTS_STR:
	case OPTS_TEXT:
		return take_text(o, v, e);
	case OPTS_COUNT:
		if (opts_count(v, &x) != 0)
			return err_set(e, ERR_USAGE, "--%s takes a whole number, not '%s'", o->name,
				       v ? v : "");
		if (o->max > 0 && (x < o->min || x > o->max))
			return err_set(e, ERR_USAGE, "--%s takes %lld to %lld", o->name, o->min,
				       o->max);
		*(long long *)o->out = x;
		return 0;
	}
	return 0;
}

/* "unknown option '--jsn'; did you mean '--json'?" when a row is near it. */
static int unknown(const struct opts_spec *opts, size_t n, const char *arg, const char *safe,
		   struct err *e)
{
	const char *near = NULL;
	char word[80];

	if (strncmp(arg, "--", 2) == 0) {
		snprintf(word, sizeof word, "%.*s", (int)strcspn(arg + 2, "="), arg + 2);
		near = suggest_nearest_in(word, opts, n, sizeof *opts,
					  offsetof(struct opts_spec, name));
	}
	if (near)
		return err_set(e, ERR_USAGE, "unknown option '%s'; did you mean '--%s'?", safe, near);
	return err_set(e, ERR_USAGE, "unknown option '%s'", safe);
}

/* getopt_long's tables for opts: the long ones (NEW, zero-terminated) and the letters. */
static struct option *long_table(const struct opts_spec *opts, size_t n, struct buf *shorts)
{
	struct option *lo = xcalloc(n + 1, sizeof *lo);

	buf_addc(shorts, ':');
	for (size_t i = 0; i < n; i++) {
		lo[i].name = opts[i].name;
		lo[i].has_arg = opts[i].kind == OPTS_FLAG ? no_argument : required_argument;
		lo[i].val = (int)(0x100 + i);
		if (opts[i].letter) {
			buf_addc(shorts, opts[i].letter);
			if (opts[i].kind != OPTS_FLAG)
				buf_addc(shorts, ':');
		}
	}
	return lo;
}

/* Reads the options of argv; -1 at the first mistake. */
static int read_options(const struct opts_spec *opts, size_t n, int argc, char **argv,
			struct err *e)
{
	struct buf shorts = BUF_INIT;
	struct option *lo = long_table(opts, n, &shorts);
	int ch, rc = 0;

	optind = 0; /* GNU: start afresh (another parse may have run in this process) */
	opterr = 0;
	while (rc == 0 && (ch = getopt_long(argc, argv, buf_str(&shorts), lo, NULL)) != -1) {
		const struct opts_spec *o = row_for(opts, n, ch);
		const char *name = argv[optind - 1];
		struct buf safe = BUF_INIT;

		text_safe(&safe, name, strlen(name), 0);
		if (ch == ':')
			rc = err_set(e, ERR_USAGE, "%s needs a value", buf_str(&safe));
		else if (ch == '?' || !o)
			rc = unknown(opts, n, name, buf_str(&safe), e);
		else
			rc = take(o, optarg, e);
		buf_free(&safe);
	}
	free(lo);
	buf_free(&shorts);
	return rc;
}

int opts_parse(const struct opts_spec *opts, size_t n, int min_pos, int max_pos, int argc,
	       char **argv, struct opts_args *a, struct err *e)
{
	a->pos = NULL;
	a->n = 0;
	if (read_options(opts, n, argc, argv, e) != 0)
		return -1;
	a->pos = argv + optind;
	a->n = argc - optind;
	if (max_pos == 0 && a->n > 0)
		return err_set(e, ERR_USAGE, "unexpected argument '%s'", a->pos[0]);
	if (a->n < min_pos)
		return err_set(e, ERR_USAGE, "missing an argument");
	if (max_pos >= 0 && a->n > max_pos)
		return err_set(e, ERR_USAGE, "too many arguments");
	return 0;
}
