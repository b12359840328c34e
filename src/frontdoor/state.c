/*
 * state — the transition table of spec/frontdoor.md §3, and the only writer
 * of a record's state. One row departs from the spec's table, which lets
 * close move "any" request: a closed one is not closed again, so the reason
 * it was closed for is never overwritten (issue 12).
 */
#include "frontdoor/state.h"

#include "base/err.h"
#include "frontdoor/record.h"

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
	MOVER_SWEEP,
};
const size_t state_nmovers = sizeof state_movers / sizeof state_movers[0];

static int is(const char *a, const char *b)
{
	return strcmp(a, b) == 0;
}

int state_known(const char *s)
{
	for (size_t i = 0; s && state_all[i]; i++)
		if (is(s, state_all[i]))
			return 1;
	return 0;
}

static int extracted_or_failed(const char *to)
{
	return is(to, STATE_EXTRACTED) || is(to, STATE_EXTRACTION_FAILED);
}

int state_allows(const char *from, const char *to, enum state_mover by)
{
	if (!state_known(from) || !state_known(to))
		return 0;
	switch (by) {
	case MOVER_EXTRACT:
		return is(from, STATE_DRAINED) && extracted_or_failed(to);
	case MOVER_EXTRACT_RETRY:
		return is(from, STATE_EXTRACTION_FAILED) && extracted_or_failed(to);
	case MOVER_EXTRACT_FORCE:
		return (is(from, STATE_EXTRACTED) || is(from, STATE_TRIAGED)) && extracted_or_failed(to);
	case MOVER_TRIAGE:
		return is(from, STATE_EXTRACTED) &&
		       (is(to, STATE_AWAITING_ME) || is(to, STATE_TRIAGED) || is(to, STATE_EXTRACTED));
	case MOVER_DRAFT:
		return is(from, STATE_EXTRACTED) && is(to, STATE_AWAITING_ME);
	case MOVER_RECONCILE:
		return is(from, STATE_AWAITING_ME) && (is(to, STATE_ANSWERED) || is(to, STATE_EXTRACTED));
	case MOVER_NEEDS_INFO:
		return !is(from, STATE_CLOSED) && is(to, STATE_NEEDS_INFO);
	case MOVER_CLOSE: /* issue 12: a closed request keeps its first reason */
		return !is(from, STATE_CLOSED) && is(to, STATE_CLOSED);
	case MOVER_SWEEP:
		return ((is(from, STATE_DRAINED) || is(from, STATE_EXTRACTED)) && is(to, STATE_BOOKED)) ||
		       (!is(from, STATE_CLOSED) && is(to, STATE_CLOSED));
	}
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
