/*
 * sink — the table of tool kinds a draft can be staged for, and everything
 * about each: its names, whether this configuration can deliver it, how its
 * arguments are checked when it is staged, and how it leaves the house.
 *
 * The rule: nothing outside this table lists tools. A stage asks it whether
 * the tool exists and the arguments fit (outbox_store_stage does, for every
 * stager alike); a release asks it how to deliver; triage and the MCP tools
 * ask it whether replies are routed and what a reply's recipient must be.
 * Adding a kind is one sink file defining its `struct sink` and one row in
 * sink.c (and its enum value here).
 *
 * A sink delivers in two halves: prepare runs under the outbox lock and must
 * be cheap (check the configuration, build what will be sent); deliver runs
 * without it (SMTP, a sendmail command, the calendar: mail_send, and
 * calendar_invite, which writes an event and mails its invitation).
 *
 * Ownership: rows are static; a job made by prepare is released by discard.
 * json_t arguments are borrowed.
 */
#ifndef MECHA_OUTBOX_SINK_H
#define MECHA_OUTBOX_SINK_H

#include <jansson.h>

struct config;
struct err;
struct outbox_item;

enum sink_kind {
	SINK_MAIL,   /* mail_send: a message */
	SINK_INVITE, /* calendar_invite: an event and its invitation */
	SINK_CANCEL, /* calendar_cancel: an event withdrawn and its iTIP CANCEL mailed */
};

struct sink {
	enum sink_kind kind;
	/* NULL-terminated; names[0] is what a stage writes, the rest are read too
	 * (mail__mail_send, the Rust tool's name). */
	const char *const *names;
	/* 1 when this configuration can deliver it; 0 with e saying why. */
	int (*available)(const struct config *cfg, struct err *e);
	/* At staging: the arguments fit what a delivery will need. */
	int (*check)(const json_t *args, struct err *e);
	/* The one address a draft of this kind may be addressed to. */
	int (*recipient)(const char *to, struct err *e);
	int (*prepare)(const struct config *cfg, const struct outbox_item *it, void **job,
		       struct err *e);
	int (*deliver)(const struct config *cfg, void *job, struct err *e);
	void (*discard)(void *job);
};

/* The row naming tool; NULL with code "unavailable" when there is none. */
const struct sink *sink_find(const char *tool, struct err *e);

/* The name drafts of this kind are staged under ("mail_send"). */
const char *sink_tool(enum sink_kind kind);

/*
 * Whether a draft for tool with args may be staged. Codes "unknown_tool" (no
 * row names it) and "bad_arguments" (the sink could not deliver them); both
 * are the stager's mistake (exit 2).
 */
int sink_check(const char *tool, const json_t *args, struct err *e);

/* 0 when `to` is one address a draft of this kind will go to; else "bad_arguments". */
int sink_check_recipient(enum sink_kind kind, const char *to, struct err *e);

/* 1 when a release of tool can deliver in this configuration; else 0 and e says why. */
int sink_available(const struct config *cfg, const char *tool, struct err *e);

/*
 * 1 when [outbox] tools names the kind, so an agent's call is staged as a
 * draft rather than run; else 0 with code "unrouted" (exit 3).
 */
int sink_routed(const struct config *cfg, enum sink_kind kind, struct err *e);

#endif
