/*
 * state — the transition table of spec/frontdoor.md §3, and nothing else.
 */
#include "frontdoor/state.h"

#include <string.h>

const char *const state_all[] = {
	STATE_DRAINED,  STATE_EXTRACTED, STATE_EXTRACTION_FAILED, STATE_TRIAGED, STATE_AWAITING_ME,
	STATE_NEEDS_INFO, STATE_ANSWERED, STATE_BOOKED,       STATE_CLOSED,  NULL,
};

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
	case MOVER_RECONCILE:
		return is(from, STATE_AWAITING_ME) && (is(to, STATE_ANSWERED) || is(to, STATE_EXTRACTED));
	case MOVER_NEEDS_INFO:
		return !is(from, STATE_CLOSED) && is(to, STATE_NEEDS_INFO);
	case MOVER_CLOSE:
		return is(to, STATE_CLOSED);
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
