/*
 * Unit tests for base/opts: the one option parser of mecha, mecha-box and
 * mecha-review. Each case is a command line, what the table's variables hold
 * after it, or the mistake it is refused with.
 */
#include <criterion/criterion.h>

#include "base/err.h"
#include "base/opts.h"

#include <string.h>

/* The variables one table fills. */
struct got {
	int json, verbose;
	const char *state, *data, *note;
	long long limit, days;
};

#define ROWS(g)                                                                               \
	{                                                                                     \
		{ "json", 0, OPTS_FLAG, &(g)->json, 0, 0, 0 },                                \
		{ "verbose", 'v', OPTS_FLAG, &(g)->verbose, 0, 0, 0 },                        \
		{ "state", 's', OPTS_TEXT, &(g)->state, OPTS_NONEMPTY, 0, 0 },                \
		{ "data", 0, OPTS_STR, &(g)->data, OPTS_NOT_OPTION | OPTS_CALLER, 0, 0 },     \
		{ "note", 0, OPTS_TEXT, &(g)->note, 0, 0, 0 },                                \
		{ "limit", 'n', OPTS_COUNT, &(g)->limit, 0, 0, 0 },                           \
		{ "days", 0, OPTS_COUNT, &(g)->days, 0, 1, 30 },                              \
	}

/* Parses the words (argv[0] = "verb") with positional min..max; returns opts_parse's answer. */
static int run(const char *const *words, int min_pos, int max_pos, struct got *g,
	       struct opts_args *a, struct err *e)
{
	static char *argv[16]; /* a->pos points into it after the call */
	int argc = 0;
	const struct opts_spec rows[] = ROWS(g);

	memset(g, 0, sizeof *g);
	argv[argc++] = "verb";
	for (; *words; words++)
		argv[argc++] = (char *)*words;
	argv[argc] = NULL;
	err_clear(e);
	return opts_parse(OPTS_TABLE(rows), min_pos, max_pos, argc, argv, a, e);
}

struct refusal {
	const char *words[6];
	int min_pos, max_pos;
	const char *said;
};

static const struct refusal refusals[] = {
	{ { "--jsn" }, 0, 0, "unknown option '--jsn'; did you mean '--json'?" },
	{ { "--sate=x" }, 0, 0, "unknown option '--sate=x'; did you mean '--state'?" },
	{ { "--zzzzzzzz" }, 0, 0, "unknown option '--zzzzzzzz'" },
	{ { "-q" }, 0, 0, "unknown option '-q'" },
	{ { "--\x1b[31mred" }, 0, 0, "unknown option '--\\e[31mred'" },
	{ { "--limit" }, 0, 0, "--limit needs a value" },
	{ { "-n" }, 0, 0, "-n needs a value" },
	{ { "--limit", "-3" }, 0, 0, "--limit takes a whole number, not '-3'" },
	{ { "--limit", "3x" }, 0, 0, "--limit takes a whole number, not '3x'" },
	{ { "--limit", "99999999999999999999" }, 0, 0, "--limit takes a whole number, not " },
	{ { "--days", "0" }, 0, 0, "--days takes 1 to 30" },
	{ { "--days", "31" }, 0, 0, "--days takes 1 to 30" },
	{ { "--state", "  " }, 0, 0, "--state needs a value that says something" },
	{ { "--note", "\xff" }, 0, 0, "--note must be UTF-8 text" },
	{ { "--data", "--json" }, 0, 0, "--data needs a value" },
	{ { "stray" }, 0, 0, "unexpected argument 'stray'" },
	{ { "a" }, 2, 2, "missing an argument" },
	{ { "a", "b", "c" }, 0, 2, "too many arguments" },
};

Test(opts, each_mistake_is_refused_in_its_own_words)
{
	for (size_t i = 0; i < sizeof refusals / sizeof refusals[0]; i++) {
		const struct refusal *r = &refusals[i];
		struct got g;
		struct opts_args a;
		struct err e;

		cr_assert_eq(run(r->words, r->min_pos, r->max_pos, &g, &a, &e), -1, "case %zu", i);
		cr_assert_eq(e.code, ERR_USAGE, "case %zu", i);
		cr_assert(strncmp(e.msg, r->said, strlen(r->said)) == 0, "case %zu: %s", i, e.msg);
	}
}

Test(opts, a_good_line_fills_the_table_and_keeps_the_arguments_in_order)
{
	static const char *const words[] = { "one", "--json", "-v", "--state=waiting", "-n", "7",
					     "--days", "30", "--data", "", "two", "--",
					     "--three", NULL };
	struct got g;
	struct opts_args a;
	struct err e;

	cr_assert_eq(run(words, 1, -1, &g, &a, &e), 0, "%s", e.msg);
	cr_assert(g.json && g.verbose);
	cr_assert_str_eq(g.state, "waiting");
	cr_assert_eq(g.limit, 7);
	cr_assert_eq(g.days, 30);
	cr_assert_str_eq(g.data, "", "OPTS_STR takes an empty value");
	cr_assert_null(g.note, "an option not given is left as it was");
	cr_assert_eq(a.n, 3);
	cr_assert_str_eq(a.pos[0], "one");
	cr_assert_str_eq(a.pos[1], "two");
	cr_assert_str_eq(a.pos[2], "--three", "after -- an option is an argument");
}

Test(opts, a_second_parse_in_one_process_starts_afresh)
{
	static const char *const first[] = { "--limit", "3", "x", NULL };
	static const char *const second[] = { "--json", "y", NULL };
	struct got g;
	struct opts_args a;
	struct err e;

	cr_assert_eq(run(first, 0, 1, &g, &a, &e), 0);
	cr_assert_eq(run(second, 0, 1, &g, &a, &e), 0, "%s", e.msg);
	cr_assert(g.json);
	cr_assert_eq(a.n, 1);
	cr_assert_str_eq(a.pos[0], "y");
}

Test(opts, a_value_may_look_like_an_option_unless_its_row_says_not)
{
	static const char *const words[] = { "--note", "--json", NULL };
	struct got g;
	struct opts_args a;
	struct err e;

	cr_assert_eq(run(words, 0, 0, &g, &a, &e), 0, "%s", e.msg);
	cr_assert_str_eq(g.note, "--json");
	cr_assert_eq(g.json, 0);
}

Test(opts, a_count_is_strict)
{
	long long v = 0;

	cr_assert_eq(opts_count("0", &v), 0);
	cr_assert_eq(opts_count("120", &v), 0);
	cr_assert_eq(v, 120);
	cr_assert_eq(opts_count("", &v), -1);
	cr_assert_eq(opts_count(NULL, &v), -1);
	cr_assert_eq(opts_count("+1", &v), -1);
	cr_assert_eq(opts_count(" 1", &v), -1);
	cr_assert_eq(opts_count("1 ", &v), -1);
	cr_assert_eq(opts_count("0x10", &v), -1);
	cr_assert_eq(v, 120, "a refused number leaves the value as it was");
}

Test(opts, present_and_help_stop_at_the_double_dash)
{
	char *argv[] = { "verb", "x", "--json", "--", "--help", NULL };

	cr_assert(opts_present(5, argv, "--json"));
	cr_assert_not(opts_present(5, argv, "--help"));
	cr_assert_not(opts_wants_help(5, argv));
	argv[3] = "-h";
	cr_assert(opts_wants_help(5, argv));
	cr_assert_not(opts_present(5, argv, "verb"), "argv[0] is the verb, not an argument");
}
