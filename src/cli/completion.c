/*
 * completion — `mecha completion bash|zsh`: a shell completion script written
 * from the command table (main.c) and each group's verb table, so the shell
 * offers exactly the commands and verbs --help lists, and a group joins both
 * by joining the table. A verb's options are the --names its help text spells:
 * the help is what a person is told a verb takes, and the completion offers
 * the same.
 *
 * Only names made of [A-Za-z0-9_-] are written into the script as words (all
 * of ours are); anything else is left out rather than quoted, so no table
 * entry can put shell syntax into a person's shell. Summaries (zsh shows
 * them) are single-quoted.
 */
#include "cli/cli.h"
#include "cli/verb.h"

#include "base/err.h"

#include <stdio.h>
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
