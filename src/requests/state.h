/*
 * state — the states a request can hold, who may move it between them, and
 * the one door through which a state changes.
 *
 * A request's file is the truth about it, so its states are named here once:
 * a typo'd string would otherwise become a state nothing lists and nothing
 * advances. The transition table of docs/protocol/files.md §3 is data: one row per
 * state (state_table) with the ways into it (which mover, from where) and
 * the attributes every front end shows it by (waiting on the owner,
 * finished, dimmed, counted on the review screen). state_allows walks the
 * rows, and state_move is the only function that writes a record's state: it
 * asks the table first and refuses anything the table does not allow, so no
 * verb can forget to ask. A state this build does not know is
 * shown as it is and advanced by nothing.
 *
 * Calling sequence (inside a store_update callback, under the store lock):
 *     if (state_move(r, STATE_CLOSED, MOVER_CLOSE, e) != 0)
 *         return -1;                 -- refused: r is untouched
 *     record_set_note(r, reason);
 *     return VERDICT_WRITE;
 *
 * Errors: ERR_UNKNOWN_STATE when the record's state is not one of the nine;
 * ERR_INVALID_TRANSITION when the table does not let that mover make that
 * move. Both are refusals (exit 3) and leave the record as it was.
 *
 * Ownership: all strings are static; the record is borrowed.
 */
#ifndef MECHA_REQUESTS_STATE_H
#define MECHA_REQUESTS_STATE_H

#include <stddef.h>

struct err;
struct record;

#define STATE_DRAINED "drained"
#define STATE_EXTRACTED "extracted"
#define STATE_EXTRACTION_FAILED "extraction_failed"
#define STATE_TRIAGED "triaged"
#define STATE_AWAITING_ME "awaiting_me"
#define STATE_NEEDS_INFO "needs_info"
#define STATE_ANSWERED "answered"
#define STATE_BOOKED "booked"
#define STATE_CLOSED "closed"

/* Who is asking to move a request. Each one has a caller; a mover nobody uses goes. */
enum state_mover {
	MOVER_EXTRACT,       /* a new record: drained → extracted | extraction_failed */
	MOVER_EXTRACT_RETRY, /* --retry-failed or --seq on a failed one */
	MOVER_EXTRACT_FORCE, /* --seq N --force: re-extract an extracted or triaged one */
	MOVER_TRIAGE,        /* extracted → awaiting_me | triaged | extracted (a failed run) */
	MOVER_DRAFT,         /* the MCP draft_reply tool: extracted → awaiting_me */
	MOVER_RECONCILE,     /* awaiting_me → answered | extracted */
	MOVER_NEEDS_INFO,    /* any but closed → needs_info */
	MOVER_CLOSE,         /* any but closed → closed (a closed one keeps its reason) */
	MOVER_SWEEP,         /* a booking: drained | extracted → booked; a cancellation
	                        closes itself and its booking: any but closed → closed */
	MOVER_REPLY,         /* a person's own reply (frontdoor reply): any but closed,
	                        booked or awaiting_me → awaiting_me */
};

/*
 * What a front end needs to know of a state, so none compares a state's name
 * with a string: the CLI's colours, the review screen's lists and counts and
 * MCP all read these rows.
 */
enum state_flag {
	STATE_WAITING = 1 << 0,  /* waiting on the owner: the review screen's "waiting" list */
	STATE_FINISHED = 1 << 1, /* nothing more happens to it unless a person reopens it */
	STATE_DIMMED = 1 << 2,   /* shown dimmed (finished, out of the way) */
	STATE_COUNTED = 1 << 3,  /* counted by name on the review screen's status line */
	STATE_FAILED = 1 << 4,   /* shown as a warning: something went wrong with it */
	STATE_NOTICE = 1 << 5,   /* shown as a notice: the owner's move */
	STATE_INVALID_WAITS = 1 << 6, /* an invalid record in it waits on the owner (drained) */
	STATE_SHOWS_SLOT = 1 << 7,    /* listed by its slot rather than its topic (booked) */
};

/* One way into a state: the mover, and the states (a mask of state_bit) it may come from. */
struct state_way {
	enum state_mover by;
	unsigned from;
};

#define STATE_WAYS_MAX 5

/* One row of the table: a state, its attributes, and every way into it. */
struct state_row {
	const char *name;
	unsigned flags; /* enum state_flag */
	struct state_way ways[STATE_WAYS_MAX];
	size_t nways;
};

/* The table, in lifecycle order; state_nrows rows. */
extern const struct state_row state_table[];
extern const size_t state_nrows;

/* The row of state s, or NULL when this build does not know it. */
const struct state_row *state_row(const char *s);
/* 1 when s is a known state with every flag in flags (0 for an unknown state). */
int state_has(const char *s, unsigned flags);

/* 1 when s is one of the nine states above. */
int state_known(const char *s);
/* 1 when the table lets `by` move a request from `from` to `to`. */
int state_allows(const char *from, const char *to, enum state_mover by);
/* The verb's name for messages ("needs-info", "close" …). */
const char *state_mover_name(enum state_mover by);

/*
 * Moves r to `to` when the table lets `by` move it from its current state;
 * otherwise refuses (see Errors above) and changes nothing. The note and any
 * other field are the caller's to set afterwards.
 */
int state_move(struct record *r, const char *to, enum state_mover by, struct err *e);

/* Every known state, NULL-terminated, in lifecycle order (for --help and checks). */
extern const char *const state_all[];
/* Every mover, state_nmovers of them (for walks over the whole table). */
extern const enum state_mover state_movers[];
extern const size_t state_nmovers;

#endif
