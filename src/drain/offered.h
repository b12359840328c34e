/*
 * offered — what `mecha slots push` handed the box, kept at home, and the
 * check the booking sweep asks before it books: is this slot one home
 * offered? (issue 22; docs/bookings.md). The box is on the public side:
 * a row it hands home is believed only as far as home can check it.
 *
 * The file: $MECHA_HOME/factory/offered/<type>.json, 0600, replaced
 * atomically (fs_replace) each time the box took a push:
 *     {"type": "consult", "pushed_at": RFC 3339,
 *      "fingerprint": the push's (slots.h),
 *      "slots": [{"start", "end", "duration_minutes", "offered_at"}, …]}
 * offered_at is the "now" the slot was computed for (its push's --from). A
 * push replaces the list, keeping only those slots of the list before that
 * the new one could not offer because time passed — they start before the
 * new push's notice bound (pushed_at + min_notice_hours) and have not ended:
 * someone who booked one between the pushes booked an offered slot. A slot
 * the new push could have offered and left out (the calendar filled) is
 * gone from the list.
 *
 * The check, for a booking of type t over [start, end):
 *   - t is a `kind = "booking"` manifest this home has, else
 *     OFFERED_NOT_BOOKING (reason not_a_booking_type);
 *   - the slot fits t's [availability] as the manifest reads now
 *     (slots_fit: windows, overrides, durations, grid, notice and horizon as
 *     of the slot's offered_at, or the last push's time for a slot not in
 *     it), else OFFERED_NO (not_offered);
 *   - it is in the list, else OFFERED_WITHDRAWN when a list is there (the
 *     sweep then calls it a conflict when the calendar is busy over it, and
 *     not_offered when it is free), OFFERED_NO when nothing was ever pushed.
 *   The buffer is handed back: the sweep asks the calendar about the slot
 *   widened by it. per_day_cap is carried by the list (the push applied it).
 *   - the manage link (when there is one) is used only when it is the
 *     configured gate's origin and path followed by /s/<handle>/<t>/m/<32
 *     lowercase hex> — the shape the box's links have (box/visit.h) — and
 *     nothing else; else link_ok is 0 and link_why says why.
 *
 * Ownership: struct offered_judge caches what it read (manifests, lists, the
 * gate) and frees it in offered_judge_free; answers are the caller's.
 */
#ifndef MECHA_DRAIN_OFFERED_H
#define MECHA_DRAIN_OFFERED_H

#include <stddef.h>
#include <time.h>

struct err;
struct manifest;
struct slots;

/*
 * Keeps s (a push of booking type m that the box took) as the list of what
 * home offers for m, merged with the list before as above. -1 with e (io)
 * when the file cannot be written.
 */
int offered_save(const struct manifest *m, const struct slots *s, struct err *e);

/*
 * When type id was last pushed, and the fingerprint of that push ("" in a
 * list written before fingerprints were kept). 1 when it was; 0 when it
 * never was (nothing kept); -1 with e when the list does not read.
 */
int offered_last(const char *id, time_t *pushed_at, char fingerprint[65], struct err *e);

enum offered_verdict {
	OFFERED_YES,         /* in the list, and it fits [availability] */
	OFFERED_WITHDRAWN,   /* fits [availability]; the last push left it out */
	OFFERED_NO,          /* not_offered */
	OFFERED_NOT_BOOKING, /* not_a_booking_type */
};

struct offered_answer {
	enum offered_verdict verdict;
	long long buffer_minutes; /* [availability] buffer_minutes, when it is a booking type */
	int link_ok;              /* 1: the manage link may go out (0 also when there is none) */
	char why[384];            /* the verdict's reason, for any verdict but OFFERED_YES */
	char link_why[256];       /* why the link is left out; "" when link_ok or no link */
};

struct offered_type; /* one type's manifest and list, read once */

struct offered_judge {
	struct offered_type *types;
	size_t n;
	char *gate;            /* the gate, once asked; NULL when there is none */
	int gate_asked;
	char gate_why[256];    /* why there is none */
};

#define OFFERED_JUDGE_INIT { NULL, 0, NULL, 0, { 0 } }

/*
 * The check above for one booking; link may be NULL. 0 with *out filled; -1
 * with e on a list that does not read (parse, io) or a zone the computation
 * does not know.
 */
int offered_check(struct offered_judge *j, const char *type_id, time_t start, time_t end,
		  const char *link, struct offered_answer *out, struct err *e);

void offered_judge_free(struct offered_judge *j);

#endif
