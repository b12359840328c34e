/*
 * completion — `mecha completion bash|zsh`: a shell completion script written
 * from the command table (main.c) and each group's verb table, so the shell
 * offers exactly the commands and verbs --help lists, and a group joins both
 * by joining the table. A verb's options are the --names its help text spells:
 * the help is what a person is told a verb takes, and the completion offers
 * the same.
 *
 * What a verb takes from the home (a request's seq, an outbox id, a type id,
 * a state) is read off its usage line too, and the script asks the hidden
 * `mecha __complete KIND WORD` for the values at the moment of the TAB: seqs
 * from the requests' file names, outbox ids by the rule a lookup uses (a
 * unique start or tail names a draft), type ids from types/, states from the
 * state table.
 *
 * Only names made of [A-Za-z0-9_-] are written into the script as words (all
 * of ours are); anything else is left out rather than quoted, so no table
 * entry can put shell syntax into a person's shell. Summaries (zsh shows
 * them) are single-quoted. The values __complete prints are file names and
 * ids the library checked, one a line, and the script never evaluates them.
 */
#include "cli/cli.h"
#include "cli/outbox.h"
#include "cli/verb.h"

#include "base/err.h"
#include "config/confine.h"
#include "outbox/store.h"
#include "requests/state.h"
#include "requests/store.h"
#include "types/catalog.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char completion_help[] =
	"usage: mecha completion bash|zsh\n\n"
	"Prints a completion script for the shell: the commands, the verbs of every group\n"
	"and the options of every verb, as --help lists them.\n\n"
	"  bash   source <(mecha completion bash), or save it in\n"
	"         /etc/bash_completion.d/mecha (or ~/.local/share/bash-completion/completions/)\n"
	"  zsh    source <(mecha completion zsh) after compinit, or save it as _mecha in a\n"
	"         directory of your $fpath\n";

static int word_ok(const char *s, size_t n)
{
	if (n == 0)
		return 0;
	for (size_t i = 0; i < n; i++)
		if (!strchr("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-", s[i]))
			return 0;
	return 1;
}

/* ---- the options a verb's help spells ------------------------------------------ */

#define SPELLED_MAX 32

/* The option names a help text spells (pointers into it). */
struct spelled {
	const char *name[SPELLED_MAX];
	size_t len[SPELLED_MAX];
	size_t n;
};

static void spelled_add(struct spelled *o, const char *s, size_t n)
{
	for (size_t i = 0; i < o->n; i++)
		if (o->len[i] == n && memcmp(o->name[i], s, n) == 0)
			return;
	if (o->n < SPELLED_MAX && word_ok(s, n)) {
		o->name[o->n] = s;
		o->len[o->n++] = n;
	}
}

static int opt_char(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-';
}

/*
 * Every "--name" in help that starts a word, in order of first mention, then
 * --help. A command in backquotes is another one's line (box pair names
 * `mecha pair … --handle H`), so its options are not the verb's.
 */
static void spelled_in_help(const char *help, struct spelled *o)
{
	int quoted = 0;

	o->n = 0;
	for (const char *p = help; p && *p; p++) {
		const char *q = p + 2;
		int starts_word;

		if (*p == '`')
			quoted = !quoted;
		if (quoted || p[0] != '-' || p[1] != '-')
			continue;
		starts_word = p == help || !(opt_char(p[-1]) || (p[-1] >= 'A' && p[-1] <= 'Z'));
		while (opt_char(*q))
			q++;
		if (starts_word && q > p + 2 && q[-1] != '-')
			spelled_add(o, p, (size_t)(q - p));
		p = q - 1;
	}
	spelled_add(o, "--help", 6);
}

static void print_spelled(FILE *f, const struct spelled *o)
{
	for (size_t i = 0; i < o->n; i++)
		fprintf(f, "%s%.*s", i ? " " : "", (int)o->len[i], o->name[i]);
}

static const struct cli_verb *default_verb(const struct cli_group *g)
{
	for (size_t i = 0; g->default_verb && i < g->nverbs; i++)
		if (strcmp(g->verbs[i].name, g->default_verb) == 0)
			return &g->verbs[i];
	return NULL;
}

/* Each verb's case pattern and its options (a default verb also answers "GROUP -…"). */
static void print_verb_cases(FILE *f, const struct cli_command *c, const char *indent,
			     const char *open, const char *close)
{
	const struct cli_group *g = c->group;
	const struct cli_verb *dflt = g ? default_verb(g) : NULL;
	struct spelled o;

	if (!word_ok(c->name, strlen(c->name)))
		return;
	for (size_t i = 0; g && i < g->nverbs; i++) {
		const struct cli_verb *v = &g->verbs[i];
		if (!word_ok(v->name, strlen(v->name)))
			continue;
		spelled_in_help(v->help, &o);
		fprintf(f, "%s'%s %s'", indent, c->name, v->name);
		if (v == dflt)
			fprintf(f, "|'%s -'*", c->name);
		fprintf(f, ") %s", open);
		print_spelled(f, &o);
		fprintf(f, "%s ;;\n", close);
	}
	if (!dflt) /* a command without verbs, or a group whose first word must be a verb */
		fprintf(f, "%s'%s -'*) %s--help%s ;;\n", indent, c->name, open, close);
}

/* The third word on: the options of the verb named by the first two. */
static void print_option_cases(FILE *f, const char *indent, const char *open, const char *close)
{
	for (size_t i = 0; i < cli_ncommands; i++)
		print_verb_cases(f, &cli_commands[i], indent, open, close);
	fprintf(f, "%s'help codes') %s--json%s ;;\n", indent, open, close);
}

/* ---- what a verb takes from the home ------------------------------------------------- */

/*
 * The words of a usage line that name something in the home: an operand's
 * placeholder, or an option whose value it is. KIND is what `mecha __complete`
 * is asked for (value_kinds below).
 */
static const struct value_word {
	const char *group; /* NULL: in any group */
	const char *word;
	const char *kind;
} value_words[] = {
	{ NULL, "SEQ", "seqs" },     /* frontdoor show SEQ */
	{ NULL, "--seq", "seqs" },   /* frontdoor extract --seq N */
	{ NULL, "--state", "states" },
	{ NULL, "TYPE", "types" },   /* slots show TYPE */
	{ "types", "ID", "types" },  /* types show ID */
	{ "outbox", "ID", "outbox" }, /* outbox approve ID... */
};

static const char *value_kind_of(const char *group, const char *word, size_t n)
{
	for (size_t i = 0; i < sizeof value_words / sizeof value_words[0]; i++) {
		const struct value_word *w = &value_words[i];
		if ((!w->group || strcmp(w->group, group) == 0) && strlen(w->word) == n &&
		    memcmp(w->word, word, n) == 0)
			return w->kind;
	}
	return NULL;
}

/* What a verb's usage line says it takes: its operands' kind, and its options that take a value. */
struct slots {
	const char *operand; /* the kind of its operands, or NULL */
	struct spelled valued;  /* every option followed by a value */
	const char *kind[SPELLED_MAX]; /* valued.name[i]'s kind, or NULL */
};

static int upper_char(char c)
{
	return (c >= 'A' && c <= 'Z') || c == '_';
}

/*
 * Reads the usage line (up to the first blank line): "--name VALUE" is an
 * option taking a value (the next word is not another option, a bracket or a
 * bar); an upper-case word not taken that way is an operand; what follows "<"
 * is the standard input's, not an argument.
 */
static void slots_from_usage(const char *group, const char *help, struct slots *sl)
{
	const char *end = strstr(help, "\n\n"), *p = help;

	memset(sl, 0, sizeof *sl);
	if (strncmp(help, "usage:", 6) != 0)
		return;
	if (!end)
		end = help + strlen(help);
	while (p < end && *p != '<') {
		const char *q = p;
		int word_start = p == help || strchr(" [(|", p[-1]);
		if (word_start && p[0] == '-' && p[1] == '-') {
			for (q = p + 2; q < end && opt_char(*q); q++)
				;
			if (q + 1 < end && *q == ' ' && !strchr("-[(|<\n", q[1])) {
				const char *v = q + 1;
				size_t before = sl->valued.n;
				spelled_add(&sl->valued, p, (size_t)(q - p));
				if (sl->valued.n > before)
					sl->kind[before] = value_kind_of(group, p, (size_t)(q - p));
				for (q = v; q < end && !strchr(" ]|)\n", *q); q++) /* its value */
					;
			}
		} else if (word_start && upper_char(*p)) {
			for (q = p; q < end && upper_char(*q); q++)
				;
			if (!sl->operand)
				sl->operand = value_kind_of(group, p, (size_t)(q - p));
		}
		p = q > p ? q : p + 1;
	}
}

/*
 * The case rows that name the kind of value the word being completed is:
 * after an option taking a value, that option's kind (none for free text);
 * anywhere else after the verb, its operands' kind. Matched against
 * "GROUP VERB PREVIOUS-WORD", first row first.
 */
static void print_value_cases(FILE *f, const char *indent)
{
	for (size_t i = 0; i < cli_ncommands; i++) {
		const struct cli_group *g = cli_commands[i].group;
		for (size_t j = 0; g && word_ok(g->name, strlen(g->name)) && j < g->nverbs; j++) {
			const struct cli_verb *v = &g->verbs[j];
			struct slots sl;
			int any = 0;

			if (!word_ok(v->name, strlen(v->name)))
				continue;
			slots_from_usage(g->name, v->help, &sl);
			for (size_t k = 0; k < sl.valued.n; k++)
				any |= sl.kind[k] != NULL;
			if (!any && !sl.operand)
				continue;
			for (size_t k = 0; k < sl.valued.n; k++)
				if (sl.kind[k] || sl.operand)
					fprintf(f, "%s'%s %s %.*s') kind=%s ;;\n", indent, g->name, v->name,
						(int)sl.valued.len[k], sl.valued.name[k],
						sl.kind[k] ? sl.kind[k] : "");
			if (sl.operand)
				fprintf(f, "%s'%s %s '*) kind=%s ;;\n", indent, g->name, v->name, sl.operand);
		}
	}
}

/* "GROUP -…" runs the group's default verb: the word the value rows are matched on. */
static void print_default_verbs(FILE *f, const char *indent, const char *verb_var,
				const char *is_option)
{
	for (size_t i = 0; i < cli_ncommands; i++) {
		const struct cli_group *g = cli_commands[i].group;
		const struct cli_verb *d = g ? default_verb(g) : NULL;
		if (d && word_ok(g->name, strlen(g->name)) && word_ok(d->name, strlen(d->name)))
			fprintf(f, "%s%s) %s && %s=%s ;;\n", indent, g->name, is_option, verb_var,
				d->name);
	}
}

/* ---- bash ---------------------------------------------------------------------------- */

static void bash_names(FILE *f, const struct cli_group *g)
{
	int first = 1;

	for (size_t i = 0; i < g->nverbs; i++)
		if (g->verbs[i].summary && word_ok(g->verbs[i].name, strlen(g->verbs[i].name))) {
			fprintf(f, "%s%s", first ? "" : " ", g->verbs[i].name);
			first = 0;
		}
}

static void bash_commands(FILE *f, const char *extra)
{
	for (size_t i = 0; i < cli_ncommands; i++)
		if (word_ok(cli_commands[i].name, strlen(cli_commands[i].name)))
			fprintf(f, "%s ", cli_commands[i].name);
	fputs(extra, f);
}

/* The second word: a group's verbs (help: a command or codes; completion: a shell). */
static void bash_verb_cases(FILE *f)
{
	for (size_t i = 0; i < cli_ncommands; i++) {
		const struct cli_command *c = &cli_commands[i];
		if (!c->group || !word_ok(c->name, strlen(c->name)))
			continue;
		fprintf(f, "\t\t%s) words='", c->name);
		bash_names(f, c->group);
		fputs("' ;;\n", f);
	}
	fputs("\t\thelp) words='", f);
	bash_commands(f, "codes' ;;\n");
	fputs("\t\tcompletion) words='bash zsh' ;;\n", f);
}

static void bash_script(FILE *f)
{
	fputs("# bash completion for mecha, written by `mecha completion bash` from its verb\n"
	      "# tables. Use: source <(mecha completion bash)\n"
	      "_mecha() {\n"
	      "\tlocal cur=${COMP_WORDS[COMP_CWORD]} words=\n"
	      "\tCOMPREPLY=()\n"
	      "\tif [ \"$COMP_CWORD\" -eq 1 ]; then\n"
	      "\t\twords='",
	      f);
	bash_commands(f, "help completion --help --version'\n");
	fputs("\telif [ \"$COMP_CWORD\" -eq 2 ] && [ \"${cur#-}\" = \"$cur\" ]; then\n"
	      "\t\tcase ${COMP_WORDS[1]} in\n",
	      f);
	bash_verb_cases(f);
	fputs("\t\tesac\n"
	      "\telif [ \"${cur#-}\" = \"$cur\" ]; then\n"
	      "\t\tlocal verb=${COMP_WORDS[2]} kind=\n"
	      "\t\tcase ${COMP_WORDS[1]} in\n",
	      f);
	print_default_verbs(f, "\t\t", "verb", "[ \"${verb#-}\" != \"$verb\" ]");
	fputs("\t\tesac\n"
	      "\t\tcase \"${COMP_WORDS[1]} $verb ${COMP_WORDS[COMP_CWORD-1]}\" in\n",
	      f);
	print_value_cases(f, "\t\t");
	fputs("\t\tesac\n"
	      "\t\t# From the home, at this TAB; a unique tail of an outbox id is offered whole.\n"
	      "\t\t[ -n \"$kind\" ] && COMPREPLY=($(\"${COMP_WORDS[0]}\" __complete \"$kind\" "
	      "\"$cur\" 2>/dev/null))\n"
	      "\telif [ \"${cur#-}\" != \"$cur\" ]; then\n"
	      "\t\tcase \"${COMP_WORDS[1]} ${COMP_WORDS[2]}\" in\n",
	      f);
	print_option_cases(f, "\t\t", "words='", "'");
	fputs("\t\tesac\n"
	      "\tfi\n"
	      "\t[ -n \"$words\" ] && COMPREPLY=($(compgen -W \"$words\" -- \"$cur\"))\n"
	      "\treturn 0\n"
	      "}\n"
	      "complete -o bashdefault -o default -F _mecha mecha\n",
	      f);
}

/* ---- zsh ----------------------------------------------------------------------------- */

/* 'name:summary' for _describe, the summary single-quoted for the shell. */
static void zsh_pair(FILE *f, const char *name, const char *summary)
{
	fprintf(f, " '%s:", name);
	for (const char *p = summary; *p; p++) {
		if (*p == '\'')
			fputs("'\\''", f);
		else if (*p == '\n')
			fputc(' ', f);
		else
			fputc(*p, f);
	}
	fputc('\'', f);
}

static void zsh_commands(FILE *f)
{
	for (size_t i = 0; i < cli_ncommands; i++)
		if (word_ok(cli_commands[i].name, strlen(cli_commands[i].name)))
			zsh_pair(f, cli_commands[i].name, cli_commands[i].summary);
}

static void zsh_verbs(FILE *f, const struct cli_group *g)
{
	for (size_t i = 0; i < g->nverbs; i++)
		if (g->verbs[i].summary && word_ok(g->verbs[i].name, strlen(g->verbs[i].name)))
			zsh_pair(f, g->verbs[i].name, g->verbs[i].summary);
}

static void zsh_verb_cases(FILE *f)
{
	for (size_t i = 0; i < cli_ncommands; i++) {
		const struct cli_command *c = &cli_commands[i];
		if (!c->group || !word_ok(c->name, strlen(c->name)))
			continue;
		fprintf(f, "\t\t%s) cands=(", c->name);
		zsh_verbs(f, c->group);
		fputs(") ;;\n", f);
	}
	fputs("\t\thelp) cands=(", f);
	zsh_commands(f);
	zsh_pair(f, "codes", "every error code with its exit status");
	fputs(") ;;\n"
	      "\t\tcompletion) cands=('bash:a script for bash' 'zsh:a script for zsh') ;;\n",
	      f);
}

static void zsh_script(FILE *f)
{
	fputs("#compdef mecha\n"
	      "# zsh completion for mecha, written by `mecha completion zsh` from its verb\n"
	      "# tables. Use: source <(mecha completion zsh) after compinit, or save it as\n"
	      "# _mecha in a directory of your $fpath.\n"
	      "_mecha() {\n"
	      "\tlocal -a cands\n"
	      "\tif (( CURRENT == 2 )); then\n"
	      "\t\tcands=(",
	      f);
	zsh_commands(f);
	zsh_pair(f, "help", "this help, or one group's; help codes: every error code");
	zsh_pair(f, "completion", "a completion script for bash or zsh");
	fputs(")\n"
	      "\t\t_describe -t commands 'mecha command' cands\n"
	      "\t\treturn\n"
	      "\tfi\n"
	      "\tif (( CURRENT == 3 )) && [[ $PREFIX != -* ]]; then\n"
	      "\t\tcase $words[2] in\n",
	      f);
	zsh_verb_cases(f);
	fputs("\t\tesac\n"
	      "\t\tif (( $#cands )); then _describe -t verbs 'verb' cands; else _files; fi\n"
	      "\t\treturn\n"
	      "\tfi\n"
	      "\tif [[ $PREFIX != -* ]]; then\n"
	      "\t\tlocal verb=$words[3] kind=\n"
	      "\t\tcase $words[2] in\n",
	      f);
	print_default_verbs(f, "\t\t", "verb", "[[ $verb == -* ]]");
	fputs("\t\tesac\n"
	      "\t\tcase \"$words[2] $verb $words[CURRENT-1]\" in\n",
	      f);
	print_value_cases(f, "\t\t");
	fputs("\t\tesac\n"
	      "\t\tif [[ -n $kind ]]; then\n"
	      "\t\t\t# From the home, at this TAB; -U: a unique tail of an outbox id is offered whole.\n"
	      "\t\t\tlocal -a vals\n"
	      "\t\t\tvals=(${(f)\"$(\"$words[1]\" __complete \"$kind\" \"$PREFIX\" 2>/dev/null)\"})\n"
	      "\t\t\tcompadd -U -a vals\n"
	      "\t\t\treturn\n"
	      "\t\tfi\n"
	      "\t\t_files\n"
	      "\t\treturn\n"
	      "\tfi\n"
	      "\tcase \"$words[2] $words[3]\" in\n",
	      f);
	print_option_cases(f, "\t", "cands=(", ")");
	fputs("\tesac\n"
	      "\tcompadd -a cands\n"
	      "}\n"
	      "if [ \"$funcstack[1]\" = _mecha ]; then _mecha \"$@\"; else compdef _mecha mecha; fi\n",
	      f);
}

/* ---- `mecha __complete KIND [WORD]`: the values, one a line -------------------------- */

static int starts_with(const char *s, const char *word)
{
	return strncmp(s, word, strlen(word)) == 0;
}

static int values_seqs(const char *word, struct err *e)
{
	struct store s;
	long long *seqs;
	size_t n;
	int rc;

	if (store_open_default(&s, STORE_READ, e) != 0)
		return -1;
	s.warn = NULL; /* a completion says nothing about strays */
	rc = store_seqs(&s, &seqs, &n, e);
	store_close(&s);
	for (size_t i = 0; rc == 0 && i < n; i++) {
		char num[24];
		snprintf(num, sizeof num, "%lld", seqs[i]);
		if (starts_with(num, word))
			puts(num);
	}
	free(seqs);
	return rc;
}

static int values_outbox(const char *word, struct err *e)
{
	struct cli_outbox c;
	char **ids;
	size_t n;
	int rc;

	if (cli_outbox_open(&c, OUTBOX_READ, e) != 0)
		return -1;
	rc = outbox_store_matching(&c.store, word, &ids, &n, e);
	cli_outbox_close(&c);
	for (size_t i = 0; rc == 0 && i < n; i++)
		puts(ids[i]);
	if (rc == 0)
		outbox_ids_free(ids, n);
	return rc;
}

static int values_types(const char *word, struct err *e)
{
	char **ids;
	size_t n;

	if (catalog_ids(&ids, &n, e) != 0)
		return -1;
	for (size_t i = 0; i < n; i++)
		if (starts_with(ids[i], word))
			puts(ids[i]);
	catalog_ids_free(ids, n);
	return 0;
}

static int values_states(const char *word, struct err *e)
{
	for (const char *const *st = state_all; *st; st++)
		if (starts_with(*st, word))
			puts(*st);
	return 0;
}

/* The kinds the scripts ask for (value_words names them). */
static const struct value_kind {
	const char *name;
	int (*print)(const char *word, struct err *e);
} value_kinds[] = {
	{ "seqs", values_seqs },
	{ "outbox", values_outbox },
	{ "types", values_types },
	{ "states", values_states },
};

/*
 * `mecha __complete KIND [WORD]`: the home's values of KIND that WORD starts
 * (for an outbox id: starts or ends), one a line. Hidden: the completion
 * scripts call it; a person has `mecha frontdoor`, `outbox`, `types list`.
 */
int cli_complete_values(int argc, char **argv)
{
	struct cli_args a;
	struct err e;
	int rc;

	cli_confine_declare(CONFINE_READS);
	if ((rc = cli_parse("__complete", NULL, 0, 1, 2, argc, argv, &a)) != 0)
		return rc;
	for (size_t i = 0; i < sizeof value_kinds / sizeof value_kinds[0]; i++)
		if (strcmp(a.pos[0], value_kinds[i].name) == 0)
			return value_kinds[i].print(a.n > 1 ? a.pos[1] : "", &e) == 0 ? EXIT_OK
										: cli_fail(&e);
	return cli_usage_error("__complete", "'%s' is not a kind of value (seqs, outbox, types, "
			       "states)", a.pos[0]);
}

int cli_completion(int argc, char **argv)
{
	struct cli_args a;
	int rc;

	if (cli_wants_help(argc, argv)) {
		fputs(completion_help, stdout);
		return EXIT_OK;
	}
	if ((rc = cli_parse("completion", NULL, 0, 1, 1, argc, argv, &a)) != 0)
		return rc;
	if (strcmp(a.pos[0], "bash") == 0)
		bash_script(stdout);
	else if (strcmp(a.pos[0], "zsh") == 0)
		zsh_script(stdout);
	else
		return cli_usage_error("completion", "'%s' is not a shell mecha writes completion "
				       "for (bash, zsh)", a.pos[0]);
	return EXIT_OK;
}
