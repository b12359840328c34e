/*
 * cli — the verb groups of the mecha command and the helpers they share.
 *
 * Each group is one file (frontdoor.c, outbox.c, mission.c …) exporting one
 * entry point that receives argv with argv[0] = the group's name and returns
 * the process exit status (EXIT_OK, EXIT_FAIL, EXIT_USAGE, EXIT_REFUSED).
 *
 * Ownership: nothing here keeps a pointer to its arguments.
 */
#ifndef MECHA_CLI_CLI_H
#define MECHA_CLI_CLI_H

#include <stdio.h>

#include <stddef.h>

struct cli_group;
struct err;
struct json_t; /* jansson's */

int cli_frontdoor(int argc, char **argv);
int cli_outbox(int argc, char **argv);
/* The review screen (review.c): linked into mecha-review only. */
int cli_review(int argc, char **argv);
/* `mecha review`: runs mecha-review from beside this binary. */
int cli_review_exec(int argc, char **argv);
int cli_mcp(int argc, char **argv);
int cli_mission(int argc, char **argv);
int cli_blocks(int argc, char **argv);
int cli_calendar(int argc, char **argv);
int cli_types(int argc, char **argv);
int cli_init(int argc, char **argv);
int cli_doctor(int argc, char **argv);
int cli_box(int argc, char **argv);
int cli_slots(int argc, char **argv);
int cli_drain(int argc, char **argv);
/* `mecha pair URL CODE --handle H`: this home paired with a box (pair.c). */
int cli_pair(int argc, char **argv);

/* The verb tables of the groups (verb.h), for the top-level help and completion. */
extern const struct cli_group cli_frontdoor_group;
extern const struct cli_group cli_outbox_group;
extern const struct cli_group cli_mission_group;
extern const struct cli_group cli_blocks_group;
extern const struct cli_group cli_calendar_group;
extern const struct cli_group cli_types_group;
extern const struct cli_group cli_slots_group;
extern const struct cli_group cli_box_group;

/*
 * One top-level command. The table of them (main.c) is the one list `mecha
 * --help`, `mecha help GROUP` and the completion scripts walk: a new group
 * joins by exporting its struct cli_group and adding one row there.
 */
struct cli_command {
	const char *name;
	int (*run)(int argc, char **argv);
	const struct cli_group *group; /* its verbs; NULL for a command without verbs (mcp) */
	const char *summary;
	unsigned confine; /* a command without verbs: what it may touch (cli_verb's confine) */
};

extern const struct cli_command cli_commands[];
extern const size_t cli_ncommands;

/* `mecha completion bash|zsh`: prints a completion script generated from cli_commands. */
int cli_completion(int argc, char **argv);
/* `mecha __complete KIND [WORD]` (hidden): the home's seqs, outbox ids, type ids or states. */
int cli_complete_values(int argc, char **argv);

/*
 * Remembers whether --json is on the command line (before a "--"): then
 * every failure below also prints {"ok":false,"error":CODE,"message":MSG} on
 * stdout, once, even on a path that never reached the verb's own --json.
 */
void cli_json_wanted(int argc, char **argv);
/* A verb printed a failure document of its own shape: cli_fail adds none. */
void cli_json_printed(void);
/* "mecha: <message>" on stderr (and the document on stdout, above); the exit status for e. */
int cli_fail(const struct err *e);
/* With --json: also {"ok":false,"error":CODE,"message":MSG} on stdout. */
int cli_fail_json(const struct err *e, int json);
/* The same document on one line, for a verb that streams one JSON result per line. */
int cli_fail_json_line(const struct err *e, int json);
/* v compact on one line of stdout (flushed), as cli_fail_json_line prints its document. */
void cli_print_json_line(const struct json_t *v);
/* "mecha: <message> (see 'mecha VERB --help')", one line on stderr, rendered safely; EXIT_USAGE. */
int cli_usage_error(const char *verb, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* 1 when any argument from argv[1] on is -h or --help (before a "--"). */
int cli_wants_help(int argc, char **argv);
/*
 * Parses a non-negative decimal integer strictly (no sign, no junk, no
 * overflow). Returns 0, or -1 after printing a usage error naming the option.
 */
int cli_parse_count(const char *verb, const char *opt, const char *s, long long *out);

struct push_due_line;
/* A slots push that failed (drain/push.h), on stderr, ending "(then)". */
void cli_push_failed(const struct push_due_line *l, const char *then);
/* A slots push that went: "pushed N slots of TYPE to GATE (why)"; why NULL: no reason shown. */
void cli_push_said(const struct push_due_line *l, const char *why);

#endif
