/*
 * page — every HTML page the box shows a stranger, as pure functions: plain
 * inputs in, one malloc'd HTML document out. No function here reads a
 * clock, a database, a request or a header; the server (src/box's HTTP side)
 * decides the status code and the headers and calls one of these for the body.
 *
 * The rules every page keeps:
 * - Everything that is not our own markup goes through html_escape
 *   (box/html.h): labels, help, values, messages, addresses, URLs.
 * - Nothing inline that the box's CSP forbids (script-src 'self', style-src
 *   'self'): no <script> without src, no style attributes or elements, no
 *   on* handlers. The stylesheet and the optional script are the assets
 *   below, served by the server at ctx->assets + PAGE_CSS / PAGE_JS.
 * - Everything works with scripts off. A conditional field (show_when, or on
 *   a step with one) is always rendered, with a note saying when it applies
 *   ("Only if “Purpose” is “Something else”."), and without the `required`
 *   attribute (the browser cannot know whether it applies); the server's
 *   validation decides. PAGE_JS only hides what does not apply, disables it
 *   so it is not posted, and restores `required`.
 * - Accessible: a <label for> for every control, fieldset/legend for groups
 *   (steps, multiple choices), an error summary (role="alert") linking to the
 *   fields, each error beside its field and named by aria-describedby with
 *   aria-invalid="true"; lang on <html>, a viewport meta, readable without CSS.
 * - No cookies, no tokens in the markup: a page reached by a token link posts
 *   back to its own address (a form with no action).
 *
 * Inputs, as the server has them:
 * - values: the submission as a JSON object, as posted (strings, with a
 *   repeated key already collected into an array) — or the stored values for
 *   the upload page; NULL for a fresh form.
 * - errors: the array validate_submission (types/validate.h) returns,
 *   [{"field", "message"}]; NULL for none. Each message is shown as it is.
 * - slots: the array of {"start", "end", "duration_minutes"}, RFC 3339 UTC,
 *   that /v1/instruments/{id}/slots stores, as box/slotrule.h parses it;
 *   blocked: [{"start", "end"}] of live holds and confirmed bookings.
 * - times: RFC 3339 strings; `now` as time_t.
 * Booking times are shown in the manifest's [availability] timezone, read
 * from the system's zone files (UTC, and said so, when it cannot be read).
 *
 * Threads: no function here keeps state or touches the process's TZ; any
 * number of pages may be rendered at once.
 *
 * Ownership: every page_* returning char * returns a new malloc'd
 * NUL-terminated document (free it); it never returns NULL (allocation
 * failure aborts). Every argument is borrowed. The assets are static.
 */
#ifndef MECHA_BOX_PAGE_H
#define MECHA_BOX_PAGE_H

#include <jansson.h>
#include <time.h>

struct manifest;
struct slotrule_slot;

/* Where a type's pages live, from the server's routes. */
struct page_ctx {
	const char *base;   /* the type's page, no trailing '/': "/f/alice/meeting" */
	const char *assets; /* where PAGE_CSS and PAGE_JS are, ending in '/'; NULL: none */
	const char *lang;   /* <html lang>; NULL: "en" */
};

/* ---- assets: served at /f/{handle}/{type}/{asset} ---------------------------------------- */

#define PAGE_CSS "form.css"
#define PAGE_JS "form.js"

/* The asset called name and its Content-Type, or NULL for any other name. */
const char *page_asset(const char *name, const char **content_type);

/* ---- the form (page_form.c) -------------------------------------------------------------- */

/*
 * GET /f/{h}/{t}, and the 400 re-render of a POST: the manifest's fields and
 * steps, method POST to ctx->base, urlencoded. A file field is a note (files
 * come after verification), never an input. values and errors may be NULL.
 */
char *page_form(const struct page_ctx *ctx, const struct manifest *m, const json_t *values,
		const json_t *errors);

/*
 * GET /f/{h}/{t}/u/{token}, and the re-render of a refused upload: the file
 * fields visible under the stored values (types/validate.h's visibility),
 * multipart, posting back to the page's own address.
 */
char *page_upload(const struct page_ctx *ctx, const struct manifest *m, const json_t *values,
		  const json_t *errors);

/* ---- the verification flow (page_flow.c) ----------------------------------------------- */

/* After a valid POST: "Check your email", naming the address the link went to. */
char *page_check_email(const struct page_ctx *ctx, const struct manifest *m, const char *address);
/* GET c/{token}: "Confirm your email address" and one POST button; says nothing of the token. */
char *page_confirm(const struct page_ctx *ctx, const struct manifest *m);
/* The request is queued: the manifest's [confirmation] filled from values, or "Confirmed". */
char *page_confirmed(const struct page_ctx *ctx, const struct manifest *m, const json_t *values);
/* A confirm or upload link that expired unused, or never was: "That link has expired". */
char *page_expired(const struct page_ctx *ctx, const struct manifest *m);
/*
 * A form's confirm or upload link opened again after it was used: what it led
 * to (outcome, as ledger.h's link_get gives it: "queued", "awaiting_upload",
 * "uploaded"), never a button that fails.
 */
char *page_form_spent(const struct page_ctx *ctx, const struct manifest *m, const char *outcome);

/* ---- bookings (page_booking.c) --------------------------------------------------------- */

/* What the week page shows besides the slots. */
enum page_week_notice {
	PAGE_WEEK_PLAIN,
	PAGE_WEEK_TAKEN,  /* the hold lost its race: "That time was just taken — …" */
	PAGE_WEEK_LAPSED, /* the hold expired before the click: "Your held time lapsed …" */
	PAGE_WEEK_NOT_YOURS, /* a reschedule: the address is not the one the booking was made with */
	PAGE_WEEK_OVERLAP,   /* a reschedule: the new time overlaps the booking's own */
};

/* A week page's inputs: the slot cache and what blocks it, the query, a re-render's answers. */
struct page_week {
	const struct slotrule_slot *slots; /* the cache, slotrule_parse'd; NULL: none pushed */
	size_t nslots;
	const json_t *blocked;    /* [{start, end}]; one that does not parse blocks all */
	const char *generated_at; /* the cache's stamp; older than PAGE_STALE_HOURS: a notice */
	time_t now;               /* only slots starting after now are offered */
	const char *week;         /* ?week=YYYY-MM-DD as given, or NULL */
	const char *mins;         /* ?mins=N as given, or NULL */
	enum page_week_notice notice;
	const json_t *values, *errors; /* a refused POST's answers (with its `_slot`), or NULL */
	/* A reschedule (box-pages.md §3.5): the booking's own time, and the week posts to
	 * ctx->base (the manage link) with the address it was made with instead of the
	 * type's fields; NULL: the plain week. */
	const char *move_start, *move_end;
};

#define PAGE_STALE_HOURS 24

/*
 * GET /s/{h}/{t}: the week (Monday to Sunday, in the availability's zone) of
 * ?week= (never before this week; absent: the week of the kept `_slot`, else
 * the first week with a time), the slots of one length (?mins=, else the kept
 * slot's, else the shortest), minus every blocked overlap, as radio buttons
 * named `_slot` valued "<RFC 3339 UTC start>|<minutes>"; links to the weeks
 * around it and to the other lengths; the booking's fields; POST to ctx->base.
 */
char *page_booking_week(const struct page_ctx *ctx, const struct manifest *m,
			const struct page_week *w);

/*
 * The first second from which page_booking_week of the same inputs, but a
 * later now, could read otherwise: a slot of w->slots starting, a new day in
 * the availability's zone, the stale notice coming due. What blocks a slot
 * lapsing is not among them (w->blocked has no expiry): the caller's. Always
 * after w->now (far ahead when nothing is due).
 */
time_t page_booking_week_until(const struct manifest *m, const struct page_week *w);

/*
 * After the hold: "Almost there" — held for the policy's minutes, the link on
 * its way. A move's hold (from_start and from_end, the booking's own time;
 * else both NULL) shows the time the booking stays at until the confirm too.
 */
char *page_booking_held(const struct page_ctx *ctx, const struct manifest *m, const char *address,
			const char *slot_start, const char *slot_end, const char *from_start,
			const char *from_end);
/* GET s/…/c/{token}: "Confirm your booking" and one POST button. */
char *page_booking_confirm(const struct page_ctx *ctx, const struct manifest *m);
/*
 * Booked: the [confirmation] filled from values, or "You're booked", with the
 * time as "Tuesday, Aug 25 · 2:00 pm – 2:30 pm (America/New_York)".
 */
char *page_booking_booked(const struct page_ctx *ctx, const struct manifest *m,
			  const json_t *values, const char *slot_start, const char *slot_end);

/* What a manage link may do now. */
enum page_manage {
	PAGE_MANAGE_ACTIVE,        /* cancellable */
	PAGE_MANAGE_INSIDE_CUTOFF, /* confirmed, starting within the policy's cancel_cutoff_hours */
	PAGE_MANAGE_PAST,          /* started already (or its start does not parse) */
	PAGE_MANAGE_CANCELLED,     /* its state starts with "cancelled" (the booker's, or unknown) */
	PAGE_MANAGE_DECLINED,      /* the owner declined it (declined_by_owner) */
	PAGE_MANAGE_OWNER_CANCELLED, /* the owner cancelled it after it was booked */
	PAGE_MANAGE_MOVED,         /* a reschedule moved it to another time (rescheduled) */
};

/*
 * The state of a booking (its row's state and slot_start) at now, under m's
 * [policy]. The server asks this before a cancel POST too: only ACTIVE cancels.
 */
enum page_manage page_manage_state(const struct manifest *m, const char *booking_state,
				   const char *slot_start, time_t now);
/* GET m/{token}: the booking and what can be done about it (when ACTIVE, a cancel button
 * and the link to pick another time: ctx->base "?move=1", so ctx->base is the manage
 * link's own path then). */
char *page_booking_manage(const struct page_ctx *ctx, const struct manifest *m,
			  enum page_manage state, const char *slot_start, const char *slot_end);
/* GET m/{token} of a booking a reschedule moved: the old time and (when known) the new one. */
char *page_booking_manage_moved(const struct page_ctx *ctx, const struct manifest *m,
				const char *from_start, const char *from_end, const char *slot_start,
				const char *slot_end);
/* POST c/{token} that confirmed a reschedule: "Your booking is moved", the old and new time. */
char *page_booking_moved(const struct page_ctx *ctx, const struct manifest *m,
			 const char *from_start, const char *from_end, const char *slot_start,
			 const char *slot_end);
/* POST c/{token} of a reschedule whose booking was cancelled or moved meanwhile. */
char *page_booking_move_gone(const struct page_ctx *ctx, const struct manifest *m);
/* POST m/{token} that cancelled: "Cancelled". */
char *page_booking_cancelled(const struct page_ctx *ctx, const struct manifest *m);

/* A booking link that is expired, spent, never was, or names another page. */
/*
 * A booking's confirmation link opened again after it booked: the booked time
 * and how the booking stands now (state: the manage page's), never a button.
 */
char *page_booking_spent(const struct page_ctx *ctx, const struct manifest *m,
			 enum page_manage state, const char *slot_start, const char *slot_end);
/* A booking's confirmation link that lapsed unused: it expired; the booking page. */
char *page_booking_expired(const struct page_ctx *ctx, const struct manifest *m);

enum page_dead_link {
	PAGE_DEAD_CONFIRM, /* c/{token} */
	PAGE_DEAD_MANAGE,  /* m/{token} */
};
/* "This link is no longer valid", with a way back to ctx->base. */
char *page_booking_dead_link(const struct page_ctx *ctx, const struct manifest *m,
			     enum page_dead_link which);

/* ---- refusals (page_error.c) ----------------------------------------------------------- */

/* What a 404 says there is none of. */
enum page_missing {
	PAGE_NO_FORM,    /* /f/…: "There is no form here." */
	PAGE_NO_BOOKING, /* /s/…: "There is no booking page here." */
	PAGE_NO_PAGE,    /* anything else: "There is nothing here." */
};
/*
 * "Not found". No stylesheet, no title from a manifest: the same bytes for
 * an unknown handle, an unknown type and a suspended owner, so the page is
 * not an oracle for which of them it was.
 */
char *page_not_found(enum page_missing what);

/* Which budget a 429 is about. */
enum page_limit {
	PAGE_LIMIT_SENDS,  /* the per-recipient or per-owner mail budget */
	PAGE_LIMIT_UPLOAD, /* the per-IP daily upload bytes */
	PAGE_LIMIT_HOLDS,  /* the live holds per address or per IP */
};
char *page_too_many(const struct page_ctx *ctx, enum page_limit which);

/* 500 and 503: "Unavailable", try again later; says nothing of why. */
char *page_unavailable(const struct page_ctx *ctx);

/*
 * 413 for a body with more answers than the page takes (at most cap): the
 * errors a form, week or upload page shows it with (a NEW array, one error
 * about "_"), and the page for where no form is shown (the manage page).
 */
json_t *page_too_much_errors(size_t cap);
char *page_too_much(const struct page_ctx *ctx, size_t cap);

#endif
