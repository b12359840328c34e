/*
 * opts — a command's options described once, as a table, and the one parser
 * that reads argv against it: every verb of mecha, mecha-box and mecha-review
 * parses with it, so the same mistake is refused in the same words by all
 * three programs.
 *
 * A table row names a long option (--limit), maybe a letter (-n), its kind
 * and where its value goes. opts_parse fills the caller's variables and
 * collects the positional arguments; getopt_long does the reading, told to
 * stay quiet so each mistake is reported once, in our words.
 *
 * Mistakes (-1, ERR_USAGE, a message without the program's name or a pointer
 * to --help, which the caller's printer adds): an unknown option, with the
 * nearest option of the table when one is near (base/suggest.h: "unknown
 * option '--jsn'; did you mean '--json'?"); an option without its value
 * ("--limit needs a value"); a number that is not a whole number, or outside
 * its range; text that is not UTF-8; an empty value where text is needed; the
 * wrong number of positional arguments. A quoted option is rendered safely
 * (base/text.h); a quoted positional argument and a number's value are quoted
 * as given, so the printer must render the message before a terminal.
 *
 * Ownership: the tables are the caller's (static or on its stack); values
 * and positional arguments point into argv; nothing is allocated past a
 * call.
 */
#ifndef MECHA_BASE_OPTS_H
#define MECHA_BASE_OPTS_H

#include <stddef.h>

struct err;

enum opts_kind {
	OPTS_FLAG,  /* int *: set to 1 */
	OPTS_STR,   /* const char **: any bytes, may be empty */
	OPTS_TEXT,  /* const char **: UTF-8 text (may be empty; see OPTS_NONEMPTY) */
	OPTS_COUNT, /* long long *: a whole number, no sign */
};

enum {
	OPTS_NONEMPTY = 1,  /* OPTS_TEXT: an empty or all-blank value is a mistake */
	OPTS_NOT_OPTION = 2, /* OPTS_STR/TEXT: a value beginning "--" is an option, not the value */
	/* Bits from here up are the caller's own marks (the cli's sandbox hints); opts ignores them. */
	OPTS_CALLER = 0x100,
};

struct opts_spec {
	const char *name; /* the long name without "--" */
	char letter;      /* a short name, or 0 */
	enum opts_kind kind;
	void *out;
	unsigned flags;
	long long min, max; /* OPTS_COUNT, when max > 0: the accepted range */
};

/* The positional arguments opts_parse collected. */
struct opts_args {
	char **pos;
	int n;
};

#define OPTS_TABLE(o) (o), (sizeof(o) / sizeof((o)[0]))

/*
 * Parses argv[1..argc) against opts (n rows). Positional arguments are
 * accepted from min_pos to max_pos (-1: any number). Returns 0, or -1 with
 * ERR_USAGE and the mistake in e.
 */
int opts_parse(const struct opts_spec *opts, size_t n, int min_pos, int max_pos, int argc,
	       char **argv, struct opts_args *a, struct err *e);

/* A non-negative decimal integer, strictly (no sign, blank, junk or overflow): 0, or -1. */
int opts_count(const char *s, long long *out);

/*
 * 1 when word is one of argv[1..argc) before a "--": what a program checks
 * before parsing (--help, --json for its failure documents).
 */
int opts_present(int argc, char **argv, const char *word);

/* 1 when -h or --help is present (above). */
int opts_wants_help(int argc, char **argv);

#endif
