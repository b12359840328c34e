/*
 * state — the transition table of docs/protocol/files.md §3, and the only writer
 * of a record's state. One row departs from the spec's table, which lets
 * close move "any" request: a closed one is not closed again, so the reason
 * it was closed for is never overwritten (issue 12).
 */
#include "requests/state.h"

#include "base/err.h"
#include "requests/record.h"

#include <assert.h>
#include <jansson.h>
#include <string.h>

const char *const state_all[] = {
	STATE_DRAINED,  STATE_EXTRACTED, STATE_EXTRACTION_FAILED, STATE_TRIAGED, STATE_AWAITING_ME,
	STATE_NEEDS_INFO, STATE_ANSWERED, STATE_BOOKED,       STATE_CLOSED,  NULL,
};

const enum state_mover state_movers[] = {
	MOVER_EXTRACT, MOVER_EXTRACT_RETRY, MOVER_EXTRACT_FORCE, MOVER_TRIAGE,
	MOVER_DRAFT,   MOVER_RECONCILE,     MOVER_NEEDS_INFO,    MOVER_CLOSE,
	MOVER_SWEEP,   MOVER_REPLY,
};
const size_t state_nmovers = sizeof state_movers / sizeof state_movers[0];

/* The bits of the masks, in state_all's order. */
#define B_DRAINED (1u << 0)
#define B_EXTRACTED (1u << 1)
#define B_FAILED (1u << 2)
#define B_TRIAGED (1u << 3)
#define B_AWAITING (1u << 4)
#define B_NEEDS_INFO (1u << 5)
#define B_ANSWERED (1u << 6)
#define B_BOOKED (1u << 7)
#define B_CLOSED (1u << 8)
#define B_ANY 0x1ffu
/* issue 12: a closed request is not closed again, so it keeps its first reason */
#define B_OPEN (B_ANY & ~B_CLOSED)

/*
 * The table. A booking the sweep booked is finished: its event is in the
 * calendar and nothing waits on the owner (issue 21: the CLI and the review
 * screen had it two ways).
 */
const struct state_row state_table[] = {
	/* reconcile returns a request whose person's reply was rejected to where the
	 * reply took it from (frontdoor/draft.h's DRAFT_REPLIED_FROM) */
	{ STATE_DRAINED, STATE_INVALID_WAITS, { { MOVER_RECONCILE, B_AWAITING } }, 1 },
	{ STATE_EXTRACTED,
	  STATE_WAITING | STATE_COUNTED,
	  { { MOVER_EXTRACT, B_DRAINED },
	    { MOVER_EXTRACT_RETRY, B_FAILED },
	    { MOVER_EXTRACT_FORCE, B_EXTRACTED | B_TRIAGED },
	    { MOVER_TRIAGE, B_EXTRACTED },
	    { MOVER_RECONCILE, B_AWAITING } },
	  5 },
	{ STATE_EXTRACTION_FAILED,
	  STATE_WAITING | STATE_COUNTED | STATE_FAILED,
	  { { MOVER_EXTRACT, B_DRAINED },
	    { MOVER_EXTRACT_RETRY, B_FAILED },
	    { MOVER_EXTRACT_FORCE, B_EXTRACTED | B_TRIAGED },
	    { MOVER_RECONCILE, B_AWAITING } },
	  4 },
	{ STATE_TRIAGED, 0, { { MOVER_TRIAGE, B_EXTRACTED } }, 1 },
	{ STATE_AWAITING_ME,
	  STATE_WAITING | STATE_COUNTED | STATE_NOTICE,
	  { { MOVER_TRIAGE, B_EXTRACTED },
	    { MOVER_DRAFT, B_EXTRACTED },
	    /* a person answers whatever the request's state, short of an end or a wait */
	    { MOVER_REPLY, B_OPEN & ~B_BOOKED & ~B_AWAITING } },
	  3 },
	{ STATE_NEEDS_INFO,
	  STATE_WAITING | STATE_COUNTED | STATE_NOTICE,
	  { { MOVER_NEEDS_INFO, B_OPEN }, { MOVER_RECONCILE, B_AWAITING } },
	  2 },
	{ STATE_ANSWERED, STATE_FINISHED | STATE_DIMMED, { { MOVER_RECONCILE, B_AWAITING } }, 1 },
	{ STATE_BOOKED,
	  STATE_FINISHED | STATE_DIMMED | STATE_SHOWS_SLOT,
	  { { MOVER_SWEEP, B_DRAINED | B_EXTRACTED } },
	  1 },
	{ STATE_CLOSED,
	  STATE_FINISHED | STATE_DIMMED,
	  { { MOVER_CLOSE, B_OPEN }, { MOVER_SWEEP, B_OPEN } },
	  2 },
};
const size_t state_nrows = sizeof state_table / sizeof state_table[0];

_Static_assert(sizeof state_table / sizeof state_table[0] == sizeof state_all / sizeof state_all[0] - 1,
	       "one row per state");

const struct state_row *state_row(const char *s)
{
	for (size_t i = 0; s && i < state_nrows; i++)
		if (strcmp(s, state_table[i].name) == 0)
			return &state_table[i];
	return NULL;
}

/* The bit of state s in a state_way's mask (0 when unknown). */
static unsigned state_bit(const char *s)
{
	const struct state_row *row = state_row(s);

	return row ? 1u << (size_t)(row - state_table) : 0;
}

int state_has(const char *s, unsigned flags)
{
	const struct state_row *row = state_row(s);

	return row && (row->flags & flags) == flags;
}

int state_known(const char *s)
{
	return state_row(s) != NULL;
}

int state_allows(const char *from, const char *to, enum state_mover by)
{
	const struct state_row *row = state_row(to);
	unsigned bit = state_bit(from);

	for (size_t i = 0; row && bit && i < row->nways; i++)
		if (row->ways[i].by == by && (row->ways[i].from & bit))
			return 1;
	return 0;
}

const char *state_mover_name(enum state_mover by)
{
	switch (by) {
	case MOVER_EXTRACT:
	case MOVER_EXTRACT_RETRY:
	case MOVER_EXTRACT_FORCE:
		return "extract";
	case MOVER_TRIAGE:
		return "triage";
	case MOVER_DRAFT:
		return "draft_reply";
	case MOVER_RECONCILE:
		return "reconcile";
	case MOVER_NEEDS_INFO:
		return "needs-info";
	case MOVER_CLOSE:
		return "close";
	case MOVER_SWEEP:
		return "sweep";
	case MOVER_REPLY:
		return "reply";
	}
	return "?";
}

/* The one write of "state" in the program; record.h has no setter for it. */
static void state_set(struct record *r, const char *to)
{
	json_object_set_new(r->doc, "state", json_string(to));
}

int state_move(struct record *r, const char *to, enum state_mover by, struct err *e)
{
	const char *from = record_state(r);

	if (!state_known(from))
		return err_set(e, ERR_UNKNOWN_STATE,
			       "request %lld is in state '%s', which this mecha does not know; "
			       "%s changed nothing",
			       r->seq, from, state_mover_name(by));
	if (!state_allows(from, to, by))
		return err_set(e, ERR_INVALID_TRANSITION,
			       "request %lld is %s; %s does not move a request out of %s "
			       "(nothing changed)",
			       r->seq, from, state_mover_name(by), from);
	state_set(r, to);
	/* The rule allows only known states: the record now holds the one it was moved to. */
	assert(state_known(to) && strcmp(record_state(r), to) == 0);
	return 0;
}
