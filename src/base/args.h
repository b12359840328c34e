/*
 * args — a tool's arguments described once, as a table, and both the JSON
 * Schema an agent is shown and the check every call passes made from it.
 *
 * The rule: what an agent is told and what is enforced cannot drift apart,
 * because there is nothing to drift — args_schema and args_check read the
 * same rows. The check is strict: arguments are an object; no key the table
 * does not name (a `to` smuggled into a reply); every required key; the
 * type; strings valid, without NUL, within their length in characters, on
 * one line when they end up in a header, RFC 3339 when they are times;
 * integers within their range.
 *
 * An argument flagged ARGS_BINDABLE is one a caller may fix itself (a triage
 * run is bound to one request, so `seq` is not the model's to give): with
 * `bound` set it is left out of the schema, and a call that passes it anyway
 * is refused like any other unknown key.
 *
 * Refusals carry ERR_BAD_ARGUMENTS; messages quote a caller's key clipped and
 * may hold any bytes it sent (render them before a terminal).
 *
 * Ownership: the tables are static and borrowed; args_schema returns a NEW
 * reference; arguments are borrowed.
 */
#ifndef MECHA_BASE_ARGS_H
#define MECHA_BASE_ARGS_H

#include <jansson.h>
#include <stddef.h>

struct err;

enum args_type { ARGS_STRING, ARGS_INTEGER, ARGS_OBJECT };

enum {
	ARGS_REQUIRED = 1,
	ARGS_ONE_LINE = 2,  /* no CR or LF: it ends up in a mail header */
	ARGS_DATE_TIME = 4, /* RFC 3339 */
	ARGS_BINDABLE = 8,  /* the caller may bind it (see above) */
};

struct args_spec {
	const char *name;
	enum args_type type;
	unsigned flags;
	long long min, max; /* integers: the value (max < 0: none); strings: characters */
	const char *description;
};

/* What an agent is told about a tool: its name, words and arguments. */
struct args_tool {
	const char *name;
	const char *title;
	const char *description;
	const struct args_spec *args;
	size_t nargs;
	int read_only;            /* changes nothing a person would see */
	const char *unknown_hint; /* said when an unknown key is refused, or NULL */
};

#define ARGS_TABLE(a) (a), (sizeof(a) / sizeof((a)[0]))

/* The closed JSON Schema of t's arguments (NEW). */
json_t *args_schema(const struct args_tool *t, int bound);

/* 0 when args (an object) fits t's table; else -1 with ERR_BAD_ARGUMENTS. */
int args_check(const struct args_tool *t, const json_t *args, int bound, struct err *e);

#endif
