/*
 * state — the states a request can hold and who may move it between them.
 *
 * A request's file is the truth about it, so its states are named here once:
 * a typo'd string would otherwise become a state nothing lists and nothing
 * advances. The transition table of spec/frontdoor.md §3 lives in one
 * function; every verb asks it before writing, and a state this build does
 * not know is shown as it is and advanced by nothing.
 *
 * Ownership: all strings are static.
 */
#ifndef MECHA_FRONTDOOR_STATE_H
#define MECHA_FRONTDOOR_STATE_H

#define STATE_DRAINED "drained"
#define STATE_EXTRACTED "extracted"
#define STATE_EXTRACTION_FAILED "extraction_failed"
#define STATE_TRIAGED "triaged"
#define STATE_AWAITING_ME "awaiting_me"
#define STATE_NEEDS_INFO "needs_info"
#define STATE_ANSWERED "answered"
#define STATE_BOOKED "booked"
#define STATE_CLOSED "closed"

/* Who is asking to move a request. */
enum state_mover {
	MOVER_EXTRACT,       /* a new record: drained → extracted | extraction_failed */
	MOVER_EXTRACT_RETRY, /* --retry-failed or --seq on a failed one */
	MOVER_EXTRACT_FORCE, /* --seq N --force: re-extract an extracted or triaged one */
	MOVER_TRIAGE,        /* extracted → awaiting_me | triaged | extracted (a failed run) */
	MOVER_RECONCILE,     /* awaiting_me → answered | extracted */
	MOVER_NEEDS_INFO,    /* any but closed → needs_info */
	MOVER_CLOSE,         /* any → closed */
	MOVER_SWEEP,         /* drained | extracted → booked, or a cancellation → closed */
};

/* 1 when s is one of the nine states above. */
int state_known(const char *s);
/* 1 when the table lets `by` move a request from `from` to `to`. */
int state_allows(const char *from, const char *to, enum state_mover by);
/* The verb's name for messages ("needs-info", "close" …). */
const char *state_mover_name(enum state_mover by);
/* Every known state, NULL-terminated, in lifecycle order (for --help and checks). */
extern const char *const state_all[];

#endif
