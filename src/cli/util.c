/*
 * util — what every verb group prints the same way: errors, usage mistakes,
 * colour decisions and strict number parsing.
 */
#include "cli/cli.h"

#include "base/buf.h"
#include "base/err.h"
#include "base/jsonio.h"
#include "base/opts.h"
#include "base/text.h"
#include "drain/push.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/*
 * --json anywhere on the command line (cli_json_wanted): every failure path
 * — a usage mistake, a home that is not there, a broken config, any error a
 * verb returns through cli_fail — prints the failure document on stdout,
 * once, whichever of these functions the path reaches first.
 */
static int json_wanted, json_said;

void cli_json_wanted(int argc, char **argv)
{
	if (opts_present(argc, argv, "--json"))
		json_wanted = 1;
}

static void fail_document(const struct err *e, int one_line);

void cli_json_printed(void)
{
	json_said = 1;
}

int cli_fail(const struct err *e)
{
	if (json_wanted && !json_said)
		fail_document(e, 0);
	fputs("mecha: ", stderr);
	/* Messages may quote untrusted bytes (a file name, a model's words). */
	text_print(stderr, e->msg[0] ? e->msg : "failed", 0);
	fputc('\n', stderr);
	return err_exit_code(e);
}

/* The failure document (base/jsonio.h), pretty or on one line. */
static void fail_document(const struct err *e, int one_line)
{
	json_t *o = jsonio_failure(e->code, e->msg);

	if (o && !one_line)
		jsonio_print(stdout, o);
	else if (o)
		cli_print_json_line(o);
	json_decref(o);
	json_said = 1;
}

void cli_print_json_line(const json_t *v)
{
	/* As jsonio_print does, a terminal gets no character outside ASCII raw. */
	char *s = json_dumps(v, JSON_COMPACT | JSON_PRESERVE_ORDER |
				       (isatty(STDOUT_FILENO) ? JSON_ENSURE_ASCII : 0));

	if (s)
		printf("%s\n", s);
	free(s);
	fflush(stdout);
}

int cli_fail_json(const struct err *e, int json)
{
	if (json)
		fail_document(e, 0);
	return cli_fail(e);
}

int cli_fail_json_line(const struct err *e, int json)
{
	if (json)
		fail_document(e, 1);
	return cli_fail(e);
}

int cli_usage_error(const char *verb, const char *fmt, ...)
{
	char msg[1024];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	if (json_wanted && !json_said) {
		struct err e;
		err_set(&e, ERR_USAGE, "%s (see 'mecha %s --help')", msg, verb);
		fail_document(&e, 0);
	}
	/* The message may quote an argument, which is not ours to send raw to a terminal. */
	fputs("mecha: ", stderr);
	text_print(stderr, msg, 0);
	fprintf(stderr, " (see 'mecha %s --help')\n", verb);
	return EXIT_USAGE;
}

int cli_wants_help(int argc, char **argv)
{
	return opts_wants_help(argc, argv);
}

int cli_parse_count(const char *verb, const char *opt, const char *s, long long *out)
{
	if (opts_count(s, out) == 0)
		return 0;
	cli_usage_error(verb, "%s takes a whole number, not '%s'", opt, s ? s : "");
	return -1;
}

void cli_push_failed(const struct push_due_line *l, const char *then)
{
	fputs("mecha: ", stderr);
	if (l->type) {
		fputs("slots of ", stderr);
		text_print(stderr, l->type, 0);
		fputs(" not pushed: ", stderr);
	}
	text_print(stderr, l->failed->msg, 0);
	fprintf(stderr, " (%s)\n", then);
}

void cli_push_said(const struct push_due_line *l, const char *why)
{
	printf("pushed %zu slot%s of ", l->pushed->n, l->pushed->n == 1 ? "" : "s");
	text_print(stdout, l->type, 0);
	fputs(" to ", stdout);
	text_print(stdout, l->pushed->gate, 0);
	if (why)
		printf(" (%s)", why);
	fputc('\n', stdout);
}
