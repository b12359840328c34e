/*
 * sweep_offer — the check before a booking is booked: its type is a
 * booking type home has, its slot is one home offered, and its manage link
 * is one the gate made (issue 22). The sweep is the one path where a row
 * from the box turns into mail and a calendar event with no person and no
 * model in between, so it believes a booking only as far as home can check.
 *
 * What the check knows lives above the front door (what `mecha slots push`
 * kept, the slot computation, the gate: drain/offered.h), so the front end
 * that runs the sweep hands it in as a judge. Without one (NULL) nothing is
 * offered: every booking is left not_offered.
 *
 * A booking left by the check is a LEFT line whose reason is one of:
 *     not_a_booking_type   the record's type is not a kind = "booking" manifest here
 *     not_offered          the slot does not fit that type's [availability], or
 *                          was not in what `mecha slots push` offered
 * A slot the last push left out that the calendar is now busy over is a
 * CONFLICT, as any busy slot: the push withdrew it because the calendar
 * filled. A manage link that is not the gate's (reason bad_manage_url) does
 * not stop the booking: the event and the invitation go without it, and the
 * line's message says so. (A _manage_url that is not a web address at all
 * leaves the booking, bad_manage_url.)
 *
 * Ownership: the judge's ctx is the front end's; the answer is the caller's.
 */
#ifndef MECHA_FRONTDOOR_SWEEP_OFFER_H
#define MECHA_FRONTDOOR_SWEEP_OFFER_H

#include <time.h>

struct config;
struct err;

#define SWEEP_NOT_OFFERED "not_offered"
#define SWEEP_NOT_A_BOOKING_TYPE "not_a_booking_type"
#define SWEEP_BAD_MANAGE_URL "bad_manage_url"

enum sweep_offer_verdict {
	SWEEP_OFFER_YES,         /* offered: book it (link_ok says whether with its link) */
	SWEEP_OFFER_WITHDRAWN,   /* fits [availability], left out by the last push */
	SWEEP_OFFER_NO,          /* not_offered */
	SWEEP_OFFER_NOT_BOOKING, /* not_a_booking_type */
};

struct sweep_offer {
	enum sweep_offer_verdict verdict;
	long long buffer_minutes; /* the slot widened by this on both sides must be free */
	int link_ok;
	char why[384];      /* "<reason>: …" for any verdict but YES */
	char link_why[256]; /* "bad_manage_url: …" when there is a link and it is not used */
};

struct sweep_offers {
	/* 0 with *out; -1 with e (what home kept does not read). link may be NULL. */
	int (*judge)(void *ctx, const char *type_id, time_t start, time_t end, const char *link,
		     struct sweep_offer *out, struct err *e);
	void *ctx;
};

enum sweep_offer_step {
	SWEEP_OFFER_BOOK,     /* go on: the slot widened by *buffer_s is asked of the calendar */
	SWEEP_OFFER_LEFT,     /* leave it: *reason and why say why */
	SWEEP_OFFER_CONFLICT, /* withdrawn and busy: a conflict, as any busy slot */
};

/*
 * Asks o about a booking of type_id over [start, end) with *link (may point
 * to NULL). BOOK: *buffer_s set; *link freed and set to NULL when it may not
 * go out, with why (the warning) filled. LEFT: *reason is one of the names
 * above and why the line's message. CONFLICT: why the message. -1 with e.
 */
int sweep_offer_check(const struct sweep_offers *o, const struct config *cfg,
		      const char *type_id, time_t start, time_t end, char **link,
		      time_t *buffer_s, const char **reason, char why[512], struct err *e);

#endif
