/*
 * page_booking — the week of open times, and the pages a booking passes
 * through: held, confirm, booked, manage, cancelled, a dead link.
 *
 * The box computes no availability: the week shows the slots home pushed
 * that box/slotrule.h calls open (after now, overlapping no live hold or
 * confirmed booking; the hold asks the same function). Everything works
 * without scripts: a time is a radio button, weeks and lengths are links, and
 * every time is written in the availability's zone and labelled with it.
 */
#include "box/page.h"

#include "base/buf.h"
#include "base/rfc3339.h"
#include "box/html.h"
#include "box/page_parts.h"
#include "box/slotrule.h"
#include "types/manifest.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

static const char *const weekday_names[] = { "Sunday",   "Monday", "Tuesday", "Wednesday",
					     "Thursday", "Friday", "Saturday" };
static const char *const month_names[] = { "Jan", "Feb", "Mar", "Apr", "May", "Jun",
					   "Jul", "Aug", "Sep", "Oct", "Nov", "Dec" };

/* ---- wall-clock time -------------------------------------------------------------------- */

/* By arithmetic, not gmtime_r: glibc takes its zone lock there, once per slot on every thread. */
static void page_local_time(const struct page_zone *z, time_t t, struct page_local *out)
{
	long long local = (long long)t + page_zone_offset(z, t), secs, year;

	out->day = rfc3339_floor_div(local, 86400);
	secs = local - out->day * 86400;
	rfc3339_civil_from_days(out->day, &year, &out->month, &out->mday);
	out->year = (int)year;
	out->wday = (int)(((out->day + 4) % 7 + 7) % 7); /* 1970-01-01 was a Thursday */
	out->hour = (int)(secs / 3600);
	out->minute = (int)(secs / 60 % 60);
}

/* "2:00 pm", "12:30 am". */
static void clock_words(struct buf *b, const struct page_local *l)
{
	buf_printf(b, "%d:%02d %s", l->hour % 12 ? l->hour % 12 : 12, l->minute,
		   l->hour < 12 ? "am" : "pm");
}

/* "Mar 3": a day counted from the epoch. */
static void day_words(struct buf *b, long long day)
{
	time_t t = (time_t)(day * 86400);
	struct tm tm;

	gmtime_r(&t, &tm);
	buf_printf(b, "%s %d", month_names[tm.tm_mon], tm.tm_mday);
}

/* The availability's zone, and the name to label times with ("UTC" when it cannot be read). */
static struct page_zone *zone_of(const struct manifest *m, const char **name)
{
	const char *tz = m->availability ? m->availability->timezone : NULL;
	struct page_zone *z = page_zone_load(tz);

	*name = z ? tz : "UTC";
	return z;
}

/* "Tuesday, Aug 25 · 2:00 pm – 2:30 pm (America/New_York)"; 0, or -1 when a time does not read. */
int page_when_text(struct buf *b, const struct manifest *m, const char *start, const char *end)
{
	struct page_local s, e;
	time_t ts, te;
	const char *name;
	struct page_zone *z;

	if (!start || !end || rfc3339_parse(start, &ts) != 0 || rfc3339_parse(end, &te) != 0)
		return -1;
	z = zone_of(m, &name);
	page_local_time(z, ts, &s);
	page_local_time(z, te, &e);
	buf_printf(b, "%s, %s %d \xc2\xb7 ", weekday_names[s.wday], month_names[s.month - 1],
		   s.mday);
	clock_words(b, &s);
	buf_adds(b, " \xe2\x80\x93 ");
	clock_words(b, &e);
	buf_printf(b, " (%s)", name); /* a zone the type's check let through: no markup in it */
	page_zone_free(z);
	return 0;
}

void page_when(struct buf *b, const struct manifest *m, const char *start, const char *end)
{
	struct buf t = BUF_INIT;

	if (page_when_text(&t, m, start, end) == 0) /* a wrong time on a confirmation is worse than none */
		html_put(b, "<p class=\"when-booked\"><strong>%s</strong></p>\n", buf_str(&t));
	buf_free(&t);
}

/* ---- the slots ---------------------------------------------------------------------------- */

struct slot {
	time_t start, end;
	long long minutes;
	long long day; /* its local date, in days since the epoch */
};

struct week {
	struct slot *v; /* offered: future, unblocked, parsed; in start order */
	size_t n;
	struct page_zone *zone;
	const char *zone_name;
	long long today, week, minutes; /* the week shown is the Monday `week` */
};

static long long monday_of(long long day)
{
	return day - ((day + 3) % 7 + 7) % 7; /* 1970-01-01, day 0, was a Thursday */
}

/* The slots a stranger may pick now (slotrule.h, the rule the hold uses too), with their days. */
static void offered(struct week *wk, const struct page_week *w)
{
	struct slotrule_slot *open;
	struct page_local l;

	wk->n = slotrule_open(w->slots, w->nslots, w->blocked, w->now, &open);
	wk->v = xcalloc(wk->n + 1, sizeof *wk->v);
	for (size_t i = 0; i < wk->n; i++) {
		wk->v[i] = (struct slot){ open[i].start, open[i].end, open[i].minutes, 0 };
		page_local_time(wk->zone, open[i].start, &l);
		wk->v[i].day = l.day;
	}
	free(open);
}

/* A whole number 1-1440 written plainly, or -1. */
static long long minutes_param(const char *s)
{
	long long n = 0;

	if (!s || !*s || strlen(s) > 4)
		return -1;
	for (; *s; s++) {
		if (!isdigit((unsigned char)*s))
			return -1;
		n = n * 10 + (*s - '0');
	}
	return n >= 1 && n <= 1440 ? n : -1;
}

/* YYYY-MM-DD as days since the epoch, or 0 with *ok unset. */
static long long date_param(const char *s, int *ok)
{
	static const int mdays[] = { 31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31 };
	int y, mo, d, n = 0;

	*ok = 0;
	/* NOLINTNEXTLINE(cert-err34-c): widths %4d %2d cannot overflow; the range is checked after */
	if (!s || strlen(s) != 10 || sscanf(s, "%4d-%2d-%2d%n", &y, &mo, &d, &n) != 3 || n != 10 ||
	    !isdigit((unsigned char)s[5]) || !isdigit((unsigned char)s[8]) || mo < 1 || mo > 12 ||
	    d < 1 || d > mdays[mo - 1])
		return 0;
	*ok = 1;
	return rfc3339_days_from_civil(y, mo, d);
}

/* The kept `_slot` ("<start>|<minutes>") when it is one of the offered slots. */
static const struct slot *kept_slot(const struct week *wk, const json_t *values)
{
	const char *s =
		json_string_value(json_is_object(values) ? json_object_get(values, "_slot") : NULL);
	const char *bar = s ? strchr(s, '|') : NULL;
	char *start;
	time_t t;
	long long mins = bar ? minutes_param(bar + 1) : -1;
	int ok;

	if (mins < 0)
		return NULL;
	start = xstrndup(s, (size_t)(bar - s));
	ok = rfc3339_parse(start, &t) == 0;
	free(start);
	for (size_t i = 0; ok && i < wk->n; i++)
		if (wk->v[i].start == t && wk->v[i].minutes == mins)
			return &wk->v[i];
	return NULL;
}

static int has_length(const struct week *wk, long long minutes)
{
	for (size_t i = 0; i < wk->n; i++)
		if (wk->v[i].minutes == minutes)
			return 1;
	return 0;
}

/* The length shown: ?mins= when offered, else the kept slot's, else the shortest. */
static long long chosen_length(const struct week *wk, const struct page_week *w,
			       const struct slot *kept)
{
	long long want = minutes_param(w->mins), shortest = -1;

	if (want > 0 && has_length(wk, want))
		return want;
	if (kept)
		return kept->minutes;
	for (size_t i = 0; i < wk->n; i++)
		if (shortest < 0 || wk->v[i].minutes < shortest)
			shortest = wk->v[i].minutes;
	return shortest;
}

/* The Monday shown: ?week=, else the kept slot's, else the first with a time; never in the past. */
static long long chosen_week(const struct week *wk, const struct page_week *w,
			     const struct slot *kept)
{
	int ok;
	long long asked = date_param(w->week, &ok), week = monday_of(wk->today);

	if (ok)
		week = monday_of(asked);
	else if (kept)
		week = monday_of(kept->day);
	else
		for (size_t i = 0; i < wk->n; i++)
			if (wk->v[i].minutes == wk->minutes) {
				week = monday_of(wk->v[i].day);
				break;
			}
	return week < monday_of(wk->today) ? monday_of(wk->today) : week;
}

static int in_week(const struct week *wk, const struct slot *s)
{
	return s->minutes == wk->minutes && s->day >= wk->week && s->day < wk->week + 7;
}

static int any_later(const struct week *wk)
{
	for (size_t i = 0; i < wk->n; i++)
		if (wk->v[i].minutes == wk->minutes && wk->v[i].day >= wk->week + 7)
			return 1;
	return 0;
}

static size_t count_in_week(const struct week *wk)
{
	size_t n = 0;

	for (size_t i = 0; i < wk->n; i++)
		n += in_week(wk, &wk->v[i]);
	return n;
}

/* ---- the week page ------------------------------------------------------------------------ */

/* BASE?week=YYYY-MM-DD&mins=N, escaped as an attribute. */
static void week_link(struct buf *b, const struct page_ctx *ctx, long long monday,
		      long long minutes)
{
	time_t t = (time_t)(monday * 86400);
	struct tm tm;
	char date[16];

	gmtime_r(&t, &tm);
	strftime(date, sizeof date, "%Y-%m-%d", &tm);
	html_put(b, "%s?week=%s&amp;mins=%lld", ctx->base, date, minutes);
}

/* The distinct lengths offered, shortest first, into seen (room for wk->n); how many. */
static size_t lengths(const struct week *wk, long long *seen)
{
	size_t n = 0;

	for (size_t i = 0; i < wk->n; i++) {
		size_t j = 0;
		while (j < n && seen[j] != wk->v[i].minutes)
			j++;
		if (j == n)
			seen[n++] = wk->v[i].minutes;
	}
	for (size_t i = 1; i < n; i++) /* few lengths: insertion sort */
		for (size_t j = i; j > 0 && seen[j - 1] > seen[j]; j--) {
			long long t = seen[j];
			seen[j] = seen[j - 1], seen[j - 1] = t;
		}
	return n;
}

static void lengths_nav(struct buf *b, const struct page_ctx *ctx, const struct week *wk)
{
	long long *seen = xcalloc(wk->n + 1, sizeof *seen);
	size_t n = lengths(wk, seen);

	if (n > 1) {
		buf_adds(b, "<nav class=\"lengths\" aria-label=\"Meeting length\">\n");
		for (size_t i = 0; i < n; i++) {
			buf_adds(b, "<a href=\"");
			week_link(b, ctx, wk->week, seen[i]);
			buf_adds(b, "\"");
			html_if(b, seen[i] == wk->minutes, " aria-current=\"true\"");
			buf_printf(b, ">%lld min</a>\n", seen[i]);
		}
		buf_adds(b, "</nav>\n");
	}
	free(seen);
}

static void weeks_nav(struct buf *b, const struct page_ctx *ctx, const struct week *wk)
{
	buf_adds(b, "<nav class=\"weeks\" aria-label=\"Weeks\">\n");
	if (wk->week > monday_of(wk->today)) {
		buf_adds(b, "<a href=\"");
		week_link(b, ctx, wk->week - 7, wk->minutes);
		buf_adds(b, "\" rel=\"nofollow\">\xe2\x86\x90 Earlier week</a>\n");
	}
	buf_adds(b, "<span class=\"range\">");
	day_words(b, wk->week);
	buf_adds(b, " \xe2\x80\x93 ");
	day_words(b, wk->week + 6);
	buf_adds(b, "</span>\n");
	if (any_later(wk)) {
		buf_adds(b, "<a href=\"");
		week_link(b, ctx, wk->week + 7, wk->minutes);
		buf_adds(b, "\" rel=\"nofollow\">Later week \xe2\x86\x92</a>\n");
	}
	buf_adds(b, "</nav>\n");
}

/* One day's column: its heading, and a radio button per time. */
static void day_column(struct buf *b, const struct week *wk, long long day, const struct slot *kept,
		       size_t *id)
{
	struct page_local l;
	char start[RFC3339_LEN];

	buf_printf(b, "<section class=\"day\">\n<h2 id=\"day-%lld\">", day);
	page_local_time(NULL, (time_t)(day * 86400), &l);
	buf_printf(b, "%.3s %s %d</h2>\n", weekday_names[l.wday], month_names[l.month - 1], l.mday);
	for (size_t i = 0; i < wk->n; i++) {
		const struct slot *s = &wk->v[i];
		if (!in_week(wk, s) || s->day != day)
			continue;
		rfc3339_format(s->start, start);
		buf_printf(b, "<div class=\"slot\"><input type=\"radio\" id=\"slot-%zu\" ", *id);
		html_put(b, "name=\"_slot\" value=\"%s|%lld\" required", start, s->minutes);
		buf_printf(b, " aria-describedby=\"day-%lld\"", day);
		html_if(b, s == kept, " checked");
		buf_adds(b, "> ");
		buf_printf(b, "<label for=\"slot-%zu\">", (*id)++);
		page_local_time(wk->zone, s->start, &l);
		clock_words(b, &l);
		buf_adds(b, "</label></div>\n");
	}
	buf_adds(b, "</section>\n");
}

static void times(struct buf *b, const struct week *wk, const struct slot *kept)
{
	size_t id = 0;

	buf_printf(b,
		   "<fieldset class=\"times\">\n<legend>Pick a time (%lld minutes) "
		   "<span class=\"req\">(required)</span></legend>\n<div class=\"week\">\n",
		   wk->minutes);
	for (long long day = wk->week; day < wk->week + 7; day++) {
		int any = 0;
		for (size_t i = 0; i < wk->n && !any; i++)
			any = in_week(wk, &wk->v[i]) && wk->v[i].day == day;
		if (any) /* a day with nothing to offer is noise, not information */
			day_column(b, wk, day, kept, &id);
	}
	buf_adds(b, "</div>\n</fieldset>\n");
}

static void details(struct buf *b, const struct manifest *m, const struct page_week *w)
{
	buf_adds(b, "<fieldset class=\"details\">\n<legend>Your details</legend>\n");
	for (size_t i = 0; i < m->nfields; i++)
		page_field(b, m, &m->fields[i], w->values, w->errors, 0);
	for (size_t i = 0; i < m->nacks; i++)
		page_ack(b, &m->acks[i], w->values, w->errors);
	buf_adds(b, "</fieldset>\n");
}

/* The notices above the week: a lost race, a lapsed hold, a cache older than a day. */
static void notices(struct buf *b, const struct week *wk, const struct page_week *w)
{
	time_t made;
	struct page_local l;

	if (w->notice == PAGE_WEEK_TAKEN)
		buf_adds(b, "<p class=\"notice\" role=\"status\">That time was just taken "
			    "\xe2\x80\x94 these are still open.</p>\n");
	else if (w->notice == PAGE_WEEK_LAPSED)
		buf_adds(b, "<p class=\"notice\" role=\"status\">Your held time lapsed before you "
			    "confirmed \xe2\x80\x94 these are still open.</p>\n");
	else if (w->notice == PAGE_WEEK_NOT_YOURS)
		buf_adds(b, "<p class=\"notice\" role=\"alert\">That is not the address this "
			    "booking was made with \xe2\x80\x94 nothing was moved.</p>\n");
	else if (w->notice == PAGE_WEEK_OVERLAP)
		buf_adds(b, "<p class=\"notice\" role=\"alert\">A new time cannot overlap the "
			    "booking\xe2\x80\x99s own time. To move it by less than its length, "
			    "cancel it and book again.</p>\n");
	if (!w->generated_at)
		return;
	if (rfc3339_parse(w->generated_at, &made) != 0) {
		buf_adds(b,
			 "<p class=\"notice\">These times may be out of date \xe2\x80\x94 recent "
			 "changes may not show.</p>\n");
	} else if (w->now - made > PAGE_STALE_HOURS * 3600) {
		page_local_time(wk->zone, made, &l);
		buf_printf(b,
			   "<p class=\"notice\">These times were last refreshed on %s, %s %d "
			   "\xe2\x80\x94 recent changes may not show.</p>\n",
			   weekday_names[l.wday], month_names[l.month - 1], l.mday);
	}
}

/* The form holding the week's times and the booking's fields, or why there is none. */
static void week_form(struct buf *b, const struct page_ctx *ctx, const struct manifest *m,
		      const struct page_week *w, const struct week *wk, const struct slot *kept)
{
	if (count_in_week(wk) == 0) { /* no form: there is nothing to hold */
		if (wk->n == 0)
			buf_adds(b, "<p class=\"empty\">Nothing is open at the moment \xe2\x80\x94 "
				    "check back soon.</p>\n");
		else if (any_later(wk))
			buf_adds(b, "<p class=\"empty\">No times this week. Try a later week."
				    "</p>\n");
		else
			buf_adds(b, "<p class=\"empty\">No times this week.</p>\n");
		return;
	}
	html_put(b, "<form method=\"post\" action=\"%s\" accept-charset=\"utf-8\">\n", ctx->base);
	times(b, wk, kept);
	if (w->move_start) {
		buf_adds(b, "<fieldset class=\"details\">\n<legend>Your details</legend>\n"
			    "<label for=\"move-email\">The email address you booked with</label>\n"
			    "<input type=\"email\" id=\"move-email\" name=\"email\" required "
			    "autocomplete=\"email\">\n</fieldset>\n"
			    "<button type=\"submit\">Move to this time</button>\n</form>\n");
		return;
	}
	details(b, m, w);
	buf_adds(b, "<button type=\"submit\">Book this time</button>\n</form>\n");
}

static void week_body(struct buf *b, const struct page_ctx *ctx, const struct manifest *m,
		      const struct page_week *w, const struct week *wk, const struct slot *kept)
{
	struct buf form = BUF_INIT;

	week_form(&form, ctx, m, w, wk, kept);
	html_put(b, "<h1>%s</h1>\n", m->title);
	if (w->move_start) {
		buf_adds(b, "<p class=\"intro\">Pick another time. Your booking is now at:</p>\n");
		page_when(b, m, w->move_start, w->move_end);
		buf_adds(b, "<p>A confirmation link goes to the address you booked with; the "
			    "booking moves only when you open it. Times that overlap this one are "
			    "not offered here.</p>\n");
	} else if (m->description) {
		html_put(b, "<p class=\"intro\">%s</p>\n", m->description);
	}
	notices(b, wk, w);
	page_error_summary(b, m, w->errors, buf_str(&form));
	html_put(b, "<p class=\"zone\">Times are shown in %s.</p>\n", wk->zone_name);
	lengths_nav(b, ctx, wk);
	weeks_nav(b, ctx, wk);
	buf_add(b, form.data, form.len);
	buf_free(&form);
}

char *page_booking_week(const struct page_ctx *ctx, const struct manifest *m,
			const struct page_week *w)
{
	struct week wk = { 0 };
	struct page_local today;
	const struct slot *kept;
	struct buf b = BUF_INIT;
	char *title;

	wk.zone = zone_of(m, &wk.zone_name);
	offered(&wk, w);
	page_local_time(wk.zone, w->now, &today);
	wk.today = today.day;
	kept = kept_slot(&wk, w->values);
	wk.minutes = chosen_length(&wk, w, kept);
	wk.week = chosen_week(&wk, w, kept);
	title = json_array_size(w->errors) ? xasprintf("Error: %s", m->title) : xstrdup(m->title);
	page_open(&b, ctx, title, page_has_conditions(m) ? PAGE_WITH_SCRIPT : 0);
	free(title);
	week_body(&b, ctx, m, w, &wk, kept && in_week(&wk, kept) ? kept : NULL);
	page_zone_free(wk.zone);
	free(wk.v);
	return page_close(&b);
}

time_t page_booking_week_until(const struct manifest *m, const struct page_week *w)
{
	const char *name;
	struct page_zone *z = zone_of(m, &name);
	struct page_local l;
	time_t lo = w->now, hi = w->now + 2 * 86400, made;
	long long today;

	page_local_time(z, w->now, &l);
	today = l.day;
	while (hi - lo > 1) { /* the first second of the next day: within two, whatever the zone */
		time_t mid = lo + (hi - lo) / 2;
		page_local_time(z, mid, &l);
		if (l.day > today)
			hi = mid;
		else
			lo = mid;
	}
	page_zone_free(z);
	for (size_t i = 0; i < w->nslots; i++) /* in start order: the first still to start */
		if (w->slots[i].start > w->now) {
			if (w->slots[i].start < hi)
				hi = w->slots[i].start;
			break;
		}
	if (w->generated_at && rfc3339_parse(w->generated_at, &made) == 0 &&
	    w->now - made <= PAGE_STALE_HOURS * 3600 && made + PAGE_STALE_HOURS * 3600 + 1 < hi)
		hi = made + PAGE_STALE_HOURS * 3600 + 1; /* notices(): stale once now - made > that */
	return hi;
}

/* ---- after the hold -------------------------------------------------------------------------- */

char *page_booking_held(const struct page_ctx *ctx, const struct manifest *m, const char *address,
			const char *slot_start, const char *slot_end, const char *from_start,
			const char *from_end)
{
	long long minutes = m->policy ? m->policy->hold_minutes : 30;
	int move = from_start && from_end;
	struct buf b = BUF_INIT;

	page_open(&b, ctx, "Check your email", 0);
	buf_adds(&b, "<h1>Almost there</h1>\n");
	if (move) {
		buf_adds(&b, "<p>Your booking is still at:</p>\n");
		page_when(&b, m, from_start, from_end);
		buf_adds(&b, "<p>The new time, held for you:</p>\n");
	}
	page_when(&b, m, slot_start, slot_end);
	html_put(&b,
		 "<p>Your time is held for %lld minute%s. A confirmation link is on its way to "
		 "<strong>%s</strong> \xe2\x80\x94 confirming it %s.</p>\n",
		 minutes, minutes == 1 ? "" : "s", address,
		 move ? "moves the booking there" : "books the meeting");
	return page_close(&b);
}

char *page_booking_confirm(const struct page_ctx *ctx, const struct manifest *m)
{
	struct buf b = BUF_INIT;

	page_open(&b, ctx, m->title, 0);
	buf_adds(&b, "<h1>Confirm your booking</h1>\n"
		     "<p>One more click. It is a separate step so that a mail scanner opening the "
		     "link cannot book for you. Confirming claims the time held for you.</p>\n"
		     "<form method=\"post\">\n<button type=\"submit\">Confirm and book</button>\n"
		     "</form>\n");
	return page_close(&b);
}

char *page_booking_booked(const struct page_ctx *ctx, const struct manifest *m,
			  const json_t *values, const char *slot_start, const char *slot_end)
{
	struct buf b = BUF_INIT;

	page_open(&b, ctx, m->title, 0);
	if (m->confirmation) {
		page_confirmation(&b, m, values, slot_start, slot_end);
	} else {
		buf_adds(&b, "<h1>You\xe2\x80\x99re booked</h1>\n");
		page_when(&b, m, slot_start, slot_end);
		buf_adds(&b, "<p>A calendar invitation follows by email.</p>\n");
	}
	return page_close(&b);
}

/* ---- managing a booking ---------------------------------------------------------------------- */

enum page_manage page_manage_state(const struct manifest *m, const char *booking_state,
				   const char *slot_start, time_t now)
{
	long long cutoff = m->policy ? m->policy->cancel_cutoff_hours : 2;
	time_t start;

	if (booking_state && strcmp(booking_state, "cancelled_by_owner") == 0)
		return PAGE_MANAGE_OWNER_CANCELLED;
	if (booking_state && strncmp(booking_state, "cancelled", 9) == 0)
		return PAGE_MANAGE_CANCELLED;
	if (booking_state && strcmp(booking_state, "declined_by_owner") == 0)
		return PAGE_MANAGE_DECLINED;
	if (booking_state && strcmp(booking_state, "rescheduled") == 0)
		return PAGE_MANAGE_MOVED;
	if (!slot_start || rfc3339_parse(slot_start, &start) != 0 || start <= now)
		return PAGE_MANAGE_PAST; /* offers nothing: safe for a row we cannot read */
	return start - now < cutoff * 3600 ? PAGE_MANAGE_INSIDE_CUTOFF : PAGE_MANAGE_ACTIVE;
}

static void book_again(struct buf *b, const struct page_ctx *ctx, const char *words)
{
	html_put(b, "<a href=\"%s\">%s</a>", ctx->base, words);
}

/* What can be done about a booking not cancelled: the button only where it would work. */
static void manage_words(struct buf *b, const struct page_ctx *ctx, const struct manifest *m,
			 enum page_manage state)
{
	long long cutoff = m->policy ? m->policy->cancel_cutoff_hours : 2;

	if (state == PAGE_MANAGE_ACTIVE) {
		html_put(b, "<p>If your plans have changed, you can <a href=\"%s?move=1\">pick "
			    "another time</a>: your calendar invitation then moves to it.</p>\n",
			 ctx->base);
		buf_adds(b, "<p>Or cancel this meeting. The time "
			    "goes back to being bookable, and the calendar invitation is withdrawn."
			    "</p>\n<form method=\"post\">\n<button type=\"submit\">Cancel this "
			    "booking</button>\n</form>\n");
	} else if (state == PAGE_MANAGE_INSIDE_CUTOFF) {
		buf_printf(b,
			   "<p>This meeting starts within %lld hour%s, which is inside the "
			   "cancellation window: it can no longer be cancelled here. If you cannot "
			   "make it, please reply to your confirmation email.</p>\n",
			   cutoff, cutoff == 1 ? "" : "s");
	} else {
		buf_adds(b, "<p>There is nothing to change. ");
		book_again(b, ctx, "Book a new time");
		buf_adds(b, " if you would like another.</p>\n");
	}
}

char *page_booking_manage(const struct page_ctx *ctx, const struct manifest *m,
			  enum page_manage state, const char *slot_start, const char *slot_end)
{
	struct buf b = BUF_INIT;

	if (state == PAGE_MANAGE_MOVED) /* where to: the caller knows (book.c) */
		return page_booking_manage_moved(ctx, m, slot_start, slot_end, NULL, NULL);
	page_open(&b, ctx, m->title, 0);
	if (state == PAGE_MANAGE_CANCELLED) {
		buf_adds(&b,
			 "<h1>Already cancelled</h1>\n<p>This booking was cancelled and its time "
			 "freed. ");
		book_again(&b, ctx, "Book a new time");
		buf_adds(&b, " whenever you like.</p>\n");
		return page_close(&b);
	}
	if (state == PAGE_MANAGE_DECLINED || state == PAGE_MANAGE_OWNER_CANCELLED) {
		buf_adds(&b, state == PAGE_MANAGE_DECLINED
				     ? "<h1>This booking was declined</h1>\n<p>The time you picked "
				       "could not be kept, so it is not booked:</p>\n"
				     : "<h1>This booking was cancelled</h1>\n<p>It was cancelled by "
				       "the person you booked with, and the invitation withdrawn:"
				       "</p>\n");
		page_when(&b, m, slot_start, slot_end);
		buf_adds(&b, "<p>");
		book_again(&b, ctx, "Pick another time");
		buf_adds(&b, " whenever you like.</p>\n");
		return page_close(&b);
	}
	buf_adds(&b, state == PAGE_MANAGE_PAST ? "<h1>This meeting has already happened</h1>\n"
					       : "<h1>Your booking</h1>\n");
	page_when(&b, m, slot_start, slot_end);
	manage_words(&b, ctx, m, state);
	return page_close(&b);
}

char *page_booking_manage_moved(const struct page_ctx *ctx, const struct manifest *m,
				const char *from_start, const char *from_end, const char *slot_start,
				const char *slot_end)
{
	struct buf b = BUF_INIT;

	page_open(&b, ctx, m->title, 0);
	buf_adds(&b, "<h1>This booking was moved</h1>\n<p>It was at:</p>\n");
	page_when(&b, m, from_start, from_end);
	if (slot_start && slot_end) {
		buf_adds(&b, "<p>It is now at:</p>\n");
		page_when(&b, m, slot_start, slot_end);
	}
	buf_adds(&b, "<p>The link to change or cancel it is in the email that confirmed the "
		     "move.</p>\n");
	return page_close(&b);
}

char *page_booking_moved(const struct page_ctx *ctx, const struct manifest *m,
			 const char *from_start, const char *from_end, const char *slot_start,
			 const char *slot_end)
{
	struct buf b = BUF_INIT;

	page_open(&b, ctx, m->title, 0);
	buf_adds(&b, "<h1>Your booking is moved</h1>\n<p>From:</p>\n");
	page_when(&b, m, from_start, from_end);
	buf_adds(&b, "<p>To:</p>\n");
	page_when(&b, m, slot_start, slot_end);
	buf_adds(&b, "<p>The calendar invitation you have is updated by email to the new "
		     "time.</p>\n");
	return page_close(&b);
}

char *page_booking_move_gone(const struct page_ctx *ctx, const struct manifest *m)
{
	struct buf b = BUF_INIT;

	page_open(&b, ctx, m->title, 0);
	buf_adds(&b, "<h1>Nothing was moved</h1>\n<p>The booking this link would move was "
		     "cancelled or changed meanwhile, so the new time was not booked. ");
	book_again(&b, ctx, "Pick a time");
	buf_adds(&b, " to book again.</p>\n");
	return page_close(&b);
}

char *page_booking_cancelled(const struct page_ctx *ctx, const struct manifest *m)
{
	struct buf b = BUF_INIT;

	page_open(&b, ctx, m->title, 0);
	buf_adds(&b,
		 "<h1>Cancelled</h1>\n<p>Your booking is cancelled and the time has been freed. "
		 "The calendar invitation will be withdrawn shortly. ");
	book_again(&b, ctx, "Book a new time");
	buf_adds(&b, " any time.</p>\n");
	return page_close(&b);
}

char *page_booking_spent(const struct page_ctx *ctx, const struct manifest *m,
			 enum page_manage state, const char *slot_start, const char *slot_end)
{
	struct buf b = BUF_INIT;

	if (state == PAGE_MANAGE_CANCELLED || state == PAGE_MANAGE_DECLINED ||
	    state == PAGE_MANAGE_OWNER_CANCELLED) /* what became of it since, as its manage page says */
		return page_booking_manage(ctx, m, state, slot_start, slot_end);
	page_open(&b, ctx, m->title, 0);
	buf_adds(&b, "<h1>Already confirmed</h1>\n<p>This link was used already. Your booking "
		     "is at:</p>\n");
	page_when(&b, m, slot_start, slot_end);
	buf_adds(&b, state == PAGE_MANAGE_PAST
			     ? "<p>That time has passed.</p>\n"
			     : "<p>The link to manage it is in the email with your calendar "
			       "invitation.</p>\n");
	return page_close(&b);
}

char *page_booking_expired(const struct page_ctx *ctx, const struct manifest *m)
{
	struct buf b = BUF_INIT;

	(void)m;
	page_open(&b, ctx, "This link has expired", 0);
	buf_adds(&b, "<h1>This link has expired</h1>\n<p>It was not used in time, so nothing "
		     "was booked. ");
	book_again(&b, ctx, "Pick a time");
	buf_adds(&b, " to start again.</p>\n");
	return page_close(&b);
}

char *page_booking_dead_link(const struct page_ctx *ctx, const struct manifest *m,
			     enum page_dead_link which)
{
	struct buf b = BUF_INIT;

	(void)m; /* the same page whichever booking it was, or whether there was one */
	page_open(&b, ctx, "This link is no longer valid", 0);
	if (which == PAGE_DEAD_CONFIRM) {
		buf_adds(&b, "<h1>This link is no longer valid</h1>\n<p>It may have expired or "
			     "already been used. ");
		book_again(&b, ctx, "Pick a time");
		buf_adds(&b, " to start again.</p>\n");
	} else {
		buf_adds(&b, "<h1>This link is no longer valid</h1>\n<p>It may be from an older "
			     "email. ");
		book_again(&b, ctx, "Book a time");
		buf_adds(&b, " if you need one.</p>\n");
	}
	return page_close(&b);
}
