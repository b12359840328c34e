/*
 * verb — the one way to be a verb: one dispatch table per group and one
 * option parser, so every verb answers --help, reports a mistake in one line
 * and exits with the same status for the same mistake.
 *
 * A group is a table of verbs; cli_dispatch finds the verb (or the default
 * one), prints help when asked, and runs it with argv[0] = the verb's name. A
 * verb describes its options in a table and calls cli_parse, which fills the
 * caller's variables and collects the positional arguments, then confines
 * the process to what the verb declared (cli_confine_declare).
 *
 * Mistakes and their status (EXIT_USAGE, "mecha: …" on one line with a
 * pointer to --help): an unknown option, an option without its value ("--limit
 * needs a value"), a number that is not a whole number, text that is not
 * UTF-8, an empty value where text is needed, the wrong number of positional
 * arguments.
 *
 * Ownership: the tables are the caller's (static); positional arguments point
 * into argv.
 */
#ifndef MECHA_CLI_VERB_H
#define MECHA_CLI_VERB_H

#include <stddef.h>

struct cli_verb {
	const char *name;
	int (*run)(int argc, char **argv);
	const char *help;    /* the verb's whole --help text */
	const char *summary; /* one line in the group's help; NULL hides an alias */
	/*
	 * What it may touch (config/confine.h: CONFINE_*; CONFINE_READS: read
	 * the home, write nothing, no network). cli_dispatch declares it and
	 * cli_parse applies it once the options are read, so no verb runs past
	 * its parser unconfined. Every row says it (the build's
	 * -Wmissing-field-initializers refuses a row that does not).
	 */
	unsigned confine;
};

struct cli_group {
	const char *name;  /* "frontdoor" */
	const char *intro; /* a paragraph under the group's usage line */
	const struct cli_verb *verbs;
	size_t nverbs;
	const char *default_verb; /* run when argv has no verb (NULL: usage error) */
};

int cli_dispatch(const struct cli_group *g, int argc, char **argv);

/*
 * Declares what the command about to run may touch (CONFINE_* flags); the
 * next cli_parse applies it (base/sandbox.h) after a successful parse.
 * cli_dispatch does this for every verb; main for a command without verbs.
 */
void cli_confine_declare(unsigned needs);

enum cli_opt_kind {
	CLI_FLAG,  /* int *: set to 1 */
	CLI_STR,   /* const char **: any bytes, may be empty */
	CLI_TEXT,  /* const char **: UTF-8 text (may be empty; see CLI_NONEMPTY) */
	CLI_COUNT, /* long long *: a whole number, no sign */
};

enum {
	CLI_NONEMPTY = 1, /* CLI_TEXT: an empty or all-blank value is a usage error */
	CLI_PLACE = 2,    /* CLI_STR: names a store's file (--box): the sandbox lets the verb reach it */
	CLI_READS = 4,    /* CLI_STR: names a file the verb reads (--file): the sandbox lets it read it */
};

struct cli_opt {
	const char *name; /* the long name without "--" */
	char letter;      /* a short name, or 0 */
	enum cli_opt_kind kind;
	void *out;
	unsigned flags;
	long long min, max; /* CLI_COUNT, when max > 0: the accepted range */
};

/* The positional arguments cli_parse collected. */
struct cli_args {
	char **pos;
	int n;
};

/*
 * Parses argv[1..argc) against opts (n entries). Positional arguments are
 * accepted from min_pos to max_pos (-1: any number). Returns 0, or EXIT_USAGE
 * after printing the one-line mistake.
 */
int cli_parse(const char *verb, const struct cli_opt *opts, size_t n, int min_pos, int max_pos,
	      int argc, char **argv, struct cli_args *a);

#define CLI_OPTS(o) (o), (sizeof(o) / sizeof((o)[0]))

#endif
