/*
 * verb — the one way to be a verb: one dispatch table per group and one
 * option parser, so every verb answers --help, reports a mistake in one line
 * and exits with the same status for the same mistake.
 *
 * A group is a table of verbs; cli_dispatch finds the verb (or the default
 * one), prints help when asked, and runs it with argv[0] = the verb's name. A
 * verb describes its options in a table and calls cli_parse, which reads them
 * with the parser mecha-box and mecha-review use too (base/opts.h), then
 * confines the process to what the verb declared (cli_confine_declare).
 *
 * Mistakes and their status (EXIT_USAGE, "mecha: …" on one line with a
 * pointer to --help): those base/opts.h lists — an unknown option (with the
 * nearest one), an option without its value ("--limit needs a value"), a
 * number that is not a whole number, text that is not UTF-8, an empty value
 * where text is needed, the wrong number of positional arguments.
 *
 * Ownership: the tables are the caller's (static); positional arguments point
 * into argv.
 */
#ifndef MECHA_CLI_VERB_H
#define MECHA_CLI_VERB_H

#include "base/opts.h"

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

/*
 * Options are base/opts.h's table rows; the verbs spell them with the cli's
 * names below (the same rows, kinds and flags), and CLI_PLACE and CLI_READS
 * are the cli's own marks on a row, which confine() reads after the parse.
 */
#define cli_opt opts_spec
#define cli_args opts_args
#define CLI_FLAG OPTS_FLAG   /* int *: set to 1 */
#define CLI_STR OPTS_STR     /* const char **: any bytes, may be empty */
#define CLI_TEXT OPTS_TEXT   /* const char **: UTF-8 text (may be empty; see CLI_NONEMPTY) */
#define CLI_COUNT OPTS_COUNT /* long long *: a whole number, no sign */

/*
 * CLI_PLACE: a CLI_STR naming a store's file (--box), which the sandbox lets
 * the verb reach; CLI_READS: one naming a file the verb reads (--file), which
 * the sandbox lets it read.
 */
enum {
	CLI_NONEMPTY = OPTS_NONEMPTY, /* CLI_TEXT: an empty or all-blank value is a usage error */
	CLI_PLACE = OPTS_CALLER,
	CLI_READS = OPTS_CALLER << 1,
};

/*
 * opts_parse (base/opts.h) of argv[1..argc) against opts (n rows), positional
 * arguments from min_pos to max_pos (-1: any number); then the declared
 * confinement is applied. Returns 0, or EXIT_USAGE after printing the
 * one-line mistake (cli_usage_error, with verb in its pointer to --help).
 */
int cli_parse(const char *verb, const struct cli_opt *opts, size_t n, int min_pos, int max_pos,
	      int argc, char **argv, struct cli_args *a);

#define CLI_OPTS(o) OPTS_TABLE(o)

#endif
