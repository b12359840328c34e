/*
 * sweep_offer — the judge's answer turned into what the sweep does next.
 */
#include "frontdoor/sweep_offer.h"

#include "base/err.h"
#include "calendar/calendar.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int sweep_offer_check(const struct sweep_offers *o, const struct config *cfg,
		      const char *type_id, time_t start, time_t end, char **link,
		      time_t *buffer_s, const char **reason, char why[512], struct err *e)
{
	struct sweep_offer a;
	int free_slot;

	*reason = NULL;
	why[0] = '\0';
	if (!o || !o->judge) {
		*reason = SWEEP_NOT_OFFERED;
		snprintf(why, 512, "not_offered: this sweep cannot tell which slots home offered; "
			 "nothing was booked; the request is left for you");
		return SWEEP_OFFER_LEFT;
	}
	if (o->judge(o->ctx, type_id, start, end, *link, &a, e) != 0)
		return -1;
	switch (a.verdict) {
	case SWEEP_OFFER_YES:
		*buffer_s = (time_t)a.buffer_minutes * 60;
		if (*link && !a.link_ok) {
			free(*link);
			*link = NULL;
			snprintf(why, 512, "%s", a.link_why);
		}
		return SWEEP_OFFER_BOOK;
	case SWEEP_OFFER_WITHDRAWN:
		free_slot = calendar_is_free_conf(cfg, start, end, e);
		if (free_slot < 0)
			return -1;
		if (!free_slot) {
			snprintf(why, 512, "the slot is busy in the calendar (the last slots push "
				 "withdrew it): nothing was booked; the request is left for you");
			return SWEEP_OFFER_CONFLICT;
		}
		*reason = SWEEP_NOT_OFFERED;
		break;
	case SWEEP_OFFER_NOT_BOOKING:
		*reason = SWEEP_NOT_A_BOOKING_TYPE;
		break;
	default:
		*reason = SWEEP_NOT_OFFERED;
		break;
	}
	snprintf(why, 512, "%s; nothing was booked or mailed; the request is left for you", a.why);
	return SWEEP_OFFER_LEFT;
}
