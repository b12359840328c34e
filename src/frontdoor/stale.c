/*
 * stale — the waiting states, since when, and for how long is too long.
 */
#include "frontdoor/stale.h"

#include "base/jsonio.h"
#include "base/rfc3339.h"
#include "config/config.h"
#include "requests/record.h"
#include "requests/state.h"

#include <string.h>

int stale_waits_on_owner(const char *state)
{
	return state && (strcmp(state, STATE_EXTRACTED) == 0 || strcmp(state, STATE_TRIAGED) == 0 ||
			 strcmp(state, STATE_AWAITING_ME) == 0);
}

time_t stale_since(const struct record *r)
{
	const char *at = jsonio_str(r->doc, "drained_at");
	time_t t;

	if (at && rfc3339_parse(at, &t) == 0)
		return t;
	at = record_created_at(r);
	return at && rfc3339_parse(at, &t) == 0 ? t : 0;
}

long stale_request_hours(const struct config *cfg)
{
	return cfg && cfg->frontdoor_stale_hours > 0 ? cfg->frontdoor_stale_hours
						      : CONFIG_FRONTDOOR_STALE_HOURS;
}

long stale_draft_hours(const struct config *cfg)
{
	return cfg && cfg->outbox_stale_hours > 0 ? cfg->outbox_stale_hours
						   : CONFIG_OUTBOX_STALE_HOURS;
}

static int older(time_t since, long hours, time_t now)
{
	return since > 0 && (long long)(now - since) > (long long)hours * 3600;
}

int stale_waiting(const char *state, time_t since, long hours, time_t now)
{
	return stale_waits_on_owner(state) && older(since, hours, now);
}

int stale_request(const struct record *r, long hours, time_t now)
{
	return stale_waiting(record_state(r), stale_since(r), hours, now);
}

int stale_draft(const char *created_at, long hours, time_t now)
{
	time_t t;

	return created_at && rfc3339_parse(created_at, &t) == 0 && older(t, hours, now);
}
