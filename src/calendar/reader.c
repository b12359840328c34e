/*
 * reader — libical parses and iterates recurrence rules; this file decides
 * what each time means (zone.h), which occurrences exist and which are busy.
 *
 * A file is read in two passes over its events in document order: the first
 * collects them and refuses any line libical flagged (so an error can name
 * the k-th BEGIN:VEVENT's line); the second places each master's occurrences,
 * with its overrides (same UID, RECURRENCE-ID) settled first so an
 * overridden instance counts only at its new time, and then the overrides
 * whose master is not in the file.
 */
#include "calendar/reader.h"

#include "base/buf.h"
#include "base/err.h"
#include "base/fs.h"
#include "base/text.h"
#include "calendar/zone.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* More occurrences than this before the window ends is a rule no calendar means. */
#define READER_MAX_OCCURRENCES 1000000L

struct event {
	icalcomponent *c;
	int index;       /* its place among the file's VEVENTs, for the line */
	const char *uid; /* "" when it has none */
	int busy;        /* neither TRANSPARENT nor CANCELLED */
	int has_rid;     /* it overrides one occurrence (RECURRENCE-ID) … */
	time_t rid;      /* … this one */
	int future;      /* RANGE=THISANDFUTURE: and the ones after it */
	int settled;     /* its own span is known (and added when busy) */
	time_t start, end;
};

struct file {
	const char *path, *text;
	struct reader *r;
	struct event *ev;
	size_t nev;
	struct event **ovs; /* the overrides (RECURRENCE-ID), by UID and then document order */
	size_t novs;
	struct err *e;
};

/* A time value and the zone it means. */
struct when {
	struct icaltimetype t;
	icaltimezone *zone;
	time_t at;
};

/* How long an occurrence lasts: whole days in its zone, then exact seconds. */
struct length {
	int days;
	time_t secs;
	int written; /* DTEND or DURATION said so */
};

/* A master event being expanded, with the overrides of its UID. */
struct series {
	struct event *ev;
	struct when start;
	struct length len;
	time_t *exdates;
	size_t nex;
	struct event **ov;
	size_t nov;
	int has_len;  /* start and len were read (an override may inherit len) */
	time_t slack; /* how much earlier a THISANDFUTURE override moves occurrences */
};

/* ---- errors that name the line --------------------------------------------- */

static int starts(const char *p, const char *word)
{
	return strncasecmp(p, word, strlen(word)) == 0;
}

static int line_is(const char *p, const char *name)
{
	size_t n = strlen(name);

	return strncasecmp(p, name, n) == 0 && (p[n] == ':' || p[n] == ';');
}

/* The line of the index-th BEGIN:VEVENT, or of its first prop line; 0 when not found. */
static int locate(const char *text, int index, const char *prop)
{
	int line = 1, seen = -1, begin = 0;

	for (const char *p = text; p && *p; p = strchr(p, '\n'), p = p ? p + 1 : NULL, line++) {
		if (seen < index && starts(p, "BEGIN:VEVENT") && ++seen == index)
			begin = line;
		else if (seen == index && starts(p, "END:VEVENT"))
			break;
		else if (seen == index && prop && line_is(p, prop))
			return line;
	}
	return begin;
}

static int fail(struct file *f, const struct event *ev, const char *prop, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

static int fail(struct file *f, const struct event *ev, const char *prop, const char *fmt, ...)
{
	int line = ev ? locate(f->text, ev->index, prop) : 0;
	struct buf b = BUF_INIT;
	char msg[600];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	buf_adds(&b, f->path);
	if (line)
		buf_printf(&b, ":%d", line);
	if (ev && *ev->uid)
		buf_printf(&b, ": event %.100s", ev->uid);
	err_set(f->e, ERR_PARSE, "%s: %s", buf_str(&b), msg);
	buf_free(&b);
	return -1;
}

/* ---- the first pass: collect the events, refuse what libical flagged -------- */

/*
 * The property an X-LIC-ERROR is about, from libical's message ("Can't parse
 * as RECUR value in RRULE property…", "No value for LOCATION property…",
 * "Parse error in property name: DTST@RT"); "" when it does not say.
 */
static void error_property(const char *msg, char name[64])
{
	const char *p = strstr(msg, " property"), *a, *b;

	name[0] = '\0';
	if (!p)
		return;
	if (strncmp(p, " property name: ", 16) == 0) {
		a = p + 16;
		b = a + strcspn(a, " :;");
	} else {
		for (a = p; a > msg && a[-1] != ' '; a--)
			;
		b = p;
	}
	if (b > a && b - a < 64) {
		memcpy(name, a, (size_t)(b - a));
		name[b - a] = '\0';
	}
}

/* The properties that decide when, and whether, an event is busy. */
static int decides_time(const char *name)
{
	static const char *const names[] = { "DTSTART", "DTEND",	 "DURATION",
					     "RRULE",   "RDATE",	 "EXDATE",
					     "STATUS",  "RECURRENCE-ID", "TRANSP",
					     "UID" };

	for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
		if (strcasecmp(name, names[i]) == 0)
			return 1;
	return 0;
}

/*
 * A value libical could not read in a property that has nothing to do with
 * time (a DESCRIPTION, an X- property) leaves the busy time as it is; any
 * other flagged line might have been a DTEND, so it fails the file.
 */
static int check_event(struct file *f, const struct event *ev)
{
	icalproperty *p;

	for (p = icalcomponent_get_first_property(ev->c, ICAL_XLICERROR_PROPERTY); p;
	     p = icalcomponent_get_next_property(ev->c, ICAL_XLICERROR_PROPERTY)) {
		icalparameter *type = icalproperty_get_first_parameter(p, ICAL_XLICERRORTYPE_PARAMETER);
		const char *msg = icalproperty_get_xlicerror(p);
		char name[64];

		error_property(msg ? msg : "", name);
		if (type && icalparameter_get_xlicerrortype(type) == ICAL_XLICERRORTYPE_VALUEPARSEERROR &&
		    *name && !decides_time(name))
			continue;
		return fail(f, ev, *name ? name : NULL, "libical cannot read a line: %s",
			    msg ? msg : "(no message)");
	}
	return 0;
}

/* Every flagged line of c itself is an error (the calendar, a VTIMEZONE). */
static int check_own(struct file *f, icalcomponent *c)
{
	icalproperty *p = icalcomponent_get_first_property(c, ICAL_XLICERROR_PROPERTY);
	const char *msg = p ? icalproperty_get_xlicerror(p) : NULL;

	if (!p)
		return 0;
	return fail(f, NULL, NULL, "libical cannot read a line in a %s: %s",
		    icalcomponent_kind_to_string(icalcomponent_isa(c)), msg ? msg : "(no message)");
}

static int check_tree(struct file *f, icalcomponent *c)
{
	icalcomponent *sub;

	if (check_own(f, c) != 0)
		return -1;
	for (sub = icalcomponent_get_first_component(c, ICAL_ANY_COMPONENT); sub;
	     sub = icalcomponent_get_next_component(c, ICAL_ANY_COMPONENT))
		if (check_tree(f, sub) != 0)
			return -1;
	return 0;
}

/* Transparent and cancelled events do not make the person busy; anything else does. */
static int event_busy(icalcomponent *c)
{
	icalproperty *p = icalcomponent_get_first_property(c, ICAL_TRANSP_PROPERTY);

	if (p && (icalproperty_get_transp(p) == ICAL_TRANSP_TRANSPARENT ||
		  icalproperty_get_transp(p) == ICAL_TRANSP_TRANSPARENTNOCONFLICT))
		return 0;
	return icalcomponent_get_status(c) != ICAL_STATUS_CANCELLED;
}

static int add_event(struct file *f, icalcomponent *c)
{
	struct event *ev;
	const char *uid = icalcomponent_get_uid(c);

	f->ev = xrealloc(f->ev, (f->nev + 1) * sizeof *f->ev);
	ev = &f->ev[f->nev];
	memset(ev, 0, sizeof *ev);
	ev->c = c;
	ev->index = (int)f->nev++;
	ev->uid = uid ? uid : "";
	ev->busy = event_busy(c);
	return check_event(f, ev);
}

/* The first VEVENT strictly inside c, in document order; NULL when none. */
static icalcomponent *inner_event(icalcomponent *c)
{
	icalcomponent *sub, *found;

	for (sub = icalcomponent_get_first_component(c, ICAL_ANY_COMPONENT); sub;
	     sub = icalcomponent_get_next_component(c, ICAL_ANY_COMPONENT)) {
		if (icalcomponent_isa(sub) == ICAL_VEVENT_COMPONENT)
			return sub;
		if ((found = inner_event(sub)))
			return found;
	}
	return NULL;
}

/*
 * A VEVENT inside an event, a to-do or any component but a calendar (RFC 5545
 * allows none there) is no event the second pass places, so it would be taken
 * as free time: it fails the file instead. Every BEGIN:VEVENT before it was
 * gathered, so it is the nev-th one in the text.
 */
static int refuse_inner_event(struct file *f, icalcomponent *c)
{
	icalcomponent *inner = inner_event(c);
	struct event where;
	const char *uid;

	if (!inner)
		return 0;
	memset(&where, 0, sizeof where);
	uid = icalcomponent_get_uid(inner);
	where.index = (int)f->nev;
	where.uid = uid ? uid : "";
	return fail(f, &where, NULL, "a VEVENT inside a %s, where none belongs (an END line "
		    "missing?): mecha cannot tell when it makes you busy",
		    icalcomponent_kind_to_string(icalcomponent_isa(c)));
}

/* Walks XROOT → VCALENDAR → VEVENT in document order; other components are not ours. */
static int gather(struct file *f, icalcomponent *c)
{
	icalcomponent_kind k = icalcomponent_isa(c);
	icalcomponent *sub;

	if (k == ICAL_VEVENT_COMPONENT)
		return add_event(f, c) == 0 ? refuse_inner_event(f, c) : -1;
	if (k != ICAL_XROOT_COMPONENT && k != ICAL_VCALENDAR_COMPONENT &&
	    refuse_inner_event(f, c) != 0)
		return -1;
	if (k == ICAL_VTIMEZONE_COMPONENT)
		return check_tree(f, c);
	if (k != ICAL_XROOT_COMPONENT && k != ICAL_VCALENDAR_COMPONENT)
		return 0;
	if (check_own(f, c) != 0)
		return -1;
	for (sub = icalcomponent_get_first_component(c, ICAL_ANY_COMPONENT); sub;
	     sub = icalcomponent_get_next_component(c, ICAL_ANY_COMPONENT))
		if (gather(f, sub) != 0)
			return -1;
	return 0;
}

static int blank_text(const char *s)
{
	return s[strspn(s, " \t\r\n")] == '\0';
}

/*
 * Parses parse (f->text, len bytes, or f->text less what need not be parsed)
 * and collects its events; *root is new on success.
 */
static int file_open(struct file *f, const char *parse, size_t len, icalcomponent **root)
{
	*root = NULL;
	if (strlen(f->text) != len)
		return fail(f, NULL, NULL, "a NUL byte inside; it is not an iCalendar file");
	*root = icalparser_parse_string(parse);
	if (!*root)
		return fail(f, NULL, NULL, "%s", blank_text(f->text)
					   ? "empty; an iCalendar file holds at least one VCALENDAR"
					   : "not an iCalendar file (or it is cut short)");
	if (gather(f, *root) == 0)
		return 0;
	icalcomponent_free(*root);
	*root = NULL;
	return -1;
}

int reader_parse(const char *path, const char *text, icalcomponent **root, struct err *e)
{
	struct file f = { path, text, NULL, NULL, 0, NULL, 0, e };
	int rc;

	*root = NULL;
	if (blank_text(text))
		return 0;
	rc = file_open(&f, text, strlen(text), root);
	free(f.ev);
	return rc;
}

/* ---- times ------------------------------------------------------------------- */

static int read_time(struct file *f, const struct event *ev, icalproperty *p, const char *name,
		     struct icaltimetype t, struct when *w)
{
	icalparameter *tzid = icalproperty_get_first_parameter(p, ICAL_TZID_PARAMETER);

	memset(w, 0, sizeof *w); /* written whole on every path, a failure's too */
	if (icaltime_is_null_time(t) || t.year < 1900 || t.year > 9999 || !icaltime_is_valid_time(t))
		return fail(f, ev, name, "its %s cannot be read", name);
	if (icaltime_is_utc(t) && !t.is_date) {
		w->zone = icaltimezone_get_utc_timezone();
	} else if (tzid && icalparameter_get_tzid(tzid) && !t.is_date) {
		w->zone = zone_for_tzid_cached(ev->c, icalparameter_get_tzid(tzid), f->r->zones);
		if (!w->zone)
			return fail(f, ev, name, "its %s names TZID \"%.100s\", which neither a "
				    "VTIMEZONE in the file nor a zone mecha knows defines", name,
				    icalparameter_get_tzid(tzid));
	} else if (!(w->zone = f->r->local)) {
		return fail(f, ev, name, "its %s is a floating time or a date, and %s", name,
			    f->r->local_why);
	}
	w->t = t;
	if (!t.is_date)
		w->t = icaltime_set_timezone(&w->t, w->zone);
	w->at = icaltime_as_timet_with_zone(t, w->zone);
	return 0;
}

static int read_start(struct file *f, const struct event *ev, struct when *w)
{
	icalproperty *p = icalcomponent_get_first_property(ev->c, ICAL_DTSTART_PROPERTY);

	memset(w, 0, sizeof *w);
	if (!p)
		return fail(f, ev, NULL, "it has no DTSTART");
	return read_time(f, ev, p, "DTSTART", icalproperty_get_dtstart(p), w);
}

/* The date's day number, so that whole days are counted without a zone. */
static time_t day_number(struct icaltimetype d)
{
	return icaltime_as_timet_with_zone(d, icaltimezone_get_utc_timezone()) / 86400;
}

static int length_from_end(struct file *f, const struct event *ev, icalproperty *p,
			   const struct when *start, struct length *len)
{
	struct when end;

	if (read_time(f, ev, p, "DTEND", icalproperty_get_dtend(p), &end) != 0)
		return -1;
	if (start->t.is_date && end.t.is_date)
		len->days = (int)(day_number(end.t) - day_number(start->t));
	else
		len->secs = end.at - start->at;
	if (len->days < 0 || len->secs < 0)
		return fail(f, ev, "DTEND", "its DTEND is before its DTSTART");
	return 0;
}

static int length_from_duration(struct file *f, const struct event *ev, icalproperty *p,
				struct length *len)
{
	struct icaldurationtype d = icalproperty_get_duration(p);

	if (icaldurationtype_is_bad_duration(d) || d.is_neg)
		return fail(f, ev, "DURATION", "its DURATION cannot be read (or is negative)");
	len->days = (int)(d.weeks * 7 + d.days);
	len->secs = (time_t)d.hours * 3600 + (time_t)d.minutes * 60 + (time_t)d.seconds;
	return 0;
}

/* RFC 5545 3.6.1: DTEND (exclusive) or DURATION; neither: a date lasts a day, a time no time. */
static int read_length(struct file *f, const struct event *ev, const struct when *start,
		       struct length *len)
{
	icalproperty *end = icalcomponent_get_first_property(ev->c, ICAL_DTEND_PROPERTY);
	icalproperty *dur = icalcomponent_get_first_property(ev->c, ICAL_DURATION_PROPERTY);

	memset(len, 0, sizeof *len);
	len->written = end || dur;
	if (end && dur)
		return fail(f, ev, "DURATION", "it has both DTEND and DURATION");
	if (end)
		return length_from_end(f, ev, end, start, len);
	if (dur)
		return length_from_duration(f, ev, dur, len);
	/* NOLINTNEXTLINE(clang-analyzer-core.uninitialized.Branch): start is set when the parse before it succeeded */
	len->days = start->t.is_date ? 1 : 0;
	return 0;
}

/* Where an occurrence starting at wall time w (in zone) ends. */
static time_t occurrence_end(const struct length *len, struct icaltimetype w, icaltimezone *zone)
{
	w.zone = NULL;
	icaltime_adjust(&w, len->days, 0, 0, 0);
	return icaltime_as_timet_with_zone(w, zone) + len->secs;
}

/* ---- busy time --------------------------------------------------------------- */

static void add(struct reader *r, time_t start, time_t end)
{
	if (end <= r->from || start >= r->to || end <= start)
		return;
	if (r->n == r->cap) {
		r->cap = r->cap ? r->cap * 2 : 32;
		r->v = xrealloc(r->v, r->cap * sizeof *r->v);
	}
	r->v[r->n].start = start < r->from ? r->from : start;
	r->v[r->n].end = end > r->to ? r->to : end;
	r->n++;
}

/* The override's own span; a busy one is busy there (and only there). */
static int settle(struct file *f, struct event *ov, const struct length *inherit)
{
	struct when start;
	struct length len;

	ov->settled = 1;
	if (!ov->busy)
		return 0;
	if (read_start(f, ov, &start) != 0 || read_length(f, ov, &start, &len) != 0)
		return -1;
	if (!len.written && inherit)
		len = *inherit;
	/* NOLINTNEXTLINE(clang-analyzer-core.uninitialized.Assign): start is set when the parse before it succeeded */
	ov->start = start.at;
	ov->end = occurrence_end(&len, start.t, start.zone);
	add(f->r, ov->start, ov->end);
	return 0;
}

static int read_rid(struct file *f, struct event *ev)
{
	icalproperty *p = icalcomponent_get_first_property(ev->c, ICAL_RECURRENCEID_PROPERTY);
	icalparameter *range = p ? icalproperty_get_first_parameter(p, ICAL_RANGE_PARAMETER) : NULL;
	struct when w;

	if (!p)
		return 0;
	if (read_time(f, ev, p, "RECURRENCE-ID", icalproperty_get_recurrenceid(p), &w) != 0)
		return -1;
	ev->has_rid = 1;
	/* NOLINTNEXTLINE(clang-analyzer-core.uninitialized.Assign): w is set when the parse before it succeeded */
	ev->rid = w.at;
	ev->future = range && icalparameter_get_range(range) == ICAL_RANGE_THISANDFUTURE;
	return 0;
}

static int by_uid(const void *a, const void *b)
{
	const struct event *x = *(const struct event *const *)a, *y = *(const struct event *const *)b;
	int c = strcmp(x->uid, y->uid);

	return c ? c : (x->index > y->index) - (x->index < y->index);
}

/* Indexes the overrides once, so a file of n events finds each master's in log n, not n. */
static void index_overrides(struct file *f)
{
	for (size_t i = 0; i < f->nev; i++) {
		if (!f->ev[i].has_rid)
			continue;
		/* NOLINTNEXTLINE(bugprone-sizeof-expression): an array of pointers */
		f->ovs = xrealloc(f->ovs, (f->novs + 1) * sizeof *f->ovs);
		f->ovs[f->novs++] = &f->ev[i];
	}
	if (f->novs > 1)
		/* NOLINTNEXTLINE(bugprone-sizeof-expression): an array of pointers */
		qsort(f->ovs, f->novs, sizeof *f->ovs, by_uid);
}

/* The first override of uid in f->ovs; f->novs when there is none. */
static size_t first_override(const struct file *f, const char *uid)
{
	size_t lo = 0, hi = f->novs;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (strcmp(f->ovs[mid]->uid, uid) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* The overrides of s's UID, in document order, settled with its length to inherit. */
static int collect_overrides(struct file *f, struct series *s)
{
	for (size_t i = *s->ev->uid ? first_override(f, s->ev->uid) : f->novs; i < f->novs; i++) {
		struct event *ov = f->ovs[i];
		if (strcmp(ov->uid, s->ev->uid) != 0)
			break;
		if (!ov->settled && settle(f, ov, s->has_len ? &s->len : NULL) != 0)
			return -1;
		/* NOLINTNEXTLINE(bugprone-sizeof-expression): an array of pointers */
		s->ov = xrealloc(s->ov, (s->nov + 1) * sizeof *s->ov);
		s->ov[s->nov++] = ov;
		if (ov->future && ov->busy && ov->start < ov->rid && ov->rid - ov->start > s->slack)
			s->slack = ov->rid - ov->start;
	}
	return 0;
}

static int read_exdates(struct file *f, struct series *s)
{
	icalproperty *p;
	struct when w;

	for (p = icalcomponent_get_first_property(s->ev->c, ICAL_EXDATE_PROPERTY); p;
	     p = icalcomponent_get_next_property(s->ev->c, ICAL_EXDATE_PROPERTY)) {
		if (read_time(f, s->ev, p, "EXDATE", icalproperty_get_exdate(p), &w) != 0)
			return -1;
		s->exdates = xrealloc(s->exdates, (s->nex + 1) * sizeof *s->exdates);
		s->exdates[s->nex++] = w.at;
	}
	return 0;
}

/* The override that governs the occurrence at t: its own RECURRENCE-ID, else the latest THISANDFUTURE before it. */
static const struct event *override_of(const struct series *s, time_t t)
{
	const struct event *best = NULL;

	for (size_t i = 0; i < s->nov; i++) {
		const struct event *ov = s->ov[i];
		if (ov->rid == t)
			return ov;
		if (ov->future && ov->rid < t && (!best || ov->rid > best->rid))
			best = ov;
	}
	return best;
}

static void occurrence(struct file *f, const struct series *s, time_t t, time_t end)
{
	const struct event *ov;
	time_t shift;

	for (size_t i = 0; i < s->nex; i++)
		if (s->exdates[i] == t)
			return;
	ov = override_of(s, t);
	if (!ov) {
		if (s->ev->busy)
			add(f->r, t, end);
		return;
	}
	if (ov->rid == t || !ov->busy)
		return; /* it counts at its own time, already added */
	shift = ov->start - ov->rid;
	add(f->r, t + shift, t + shift + (ov->end - ov->start));
}

static void occurrence_at(struct file *f, const struct series *s, struct icaltimetype w,
			  icaltimezone *zone)
{
	occurrence(f, s, icaltime_as_timet_with_zone(w, zone), occurrence_end(&s->len, w, zone));
}

static int expand_rule(struct file *f, struct series *s, icalproperty *p)
{
	struct icalrecurrencetype rule = icalproperty_get_rrule(p);
	icalrecur_iterator *it = rule.freq == ICAL_NO_RECURRENCE
					 ? NULL
					 : icalrecur_iterator_new(rule, s->start.t);
	struct icaltimetype w;
	long count = 0;

	if (!it)
		return fail(f, s->ev, "RRULE", "its RRULE cannot be expanded");
	for (w = icalrecur_iterator_next(it); !icaltime_is_null_time(w);
	     w = icalrecur_iterator_next(it)) {
		if (icaltime_as_timet_with_zone(w, s->start.zone) >= f->r->to + s->slack)
			break;
		if (++count > READER_MAX_OCCURRENCES) {
			icalrecur_iterator_free(it);
			return fail(f, s->ev, "RRULE", "its RRULE has more than %ld occurrences before "
				    "the window ends", READER_MAX_OCCURRENCES);
		}
		occurrence_at(f, s, w, s->start.zone);
	}
	icalrecur_iterator_free(it);
	return 0;
}

static int expand_rdate(struct file *f, struct series *s, icalproperty *p)
{
	struct icaldatetimeperiodtype d = icalproperty_get_rdate(p);
	struct when start, end;

	if (!icaltime_is_null_time(d.time)) {
		if (read_time(f, s->ev, p, "RDATE", d.time, &start) != 0)
			return -1;
		occurrence_at(f, s, start.t, start.zone);
		return 0;
	}
	if (read_time(f, s->ev, p, "RDATE", d.period.start, &start) != 0)
		return -1;
	if (icaltime_is_null_time(d.period.end))
		end.at = start.at + icaldurationtype_as_int(d.period.duration);
	else if (read_time(f, s->ev, p, "RDATE", d.period.end, &end) != 0)
		return -1;
	if (end.at < start.at)
		return fail(f, s->ev, "RDATE", "an RDATE period ends before it starts");
	occurrence(f, s, start.at, end.at);
	return 0;
}

static int expand(struct file *f, struct series *s)
{
	icalcomponent *c = s->ev->c;
	icalproperty *p;

	occurrence_at(f, s, s->start.t, s->start.zone);
	for (p = icalcomponent_get_first_property(c, ICAL_RRULE_PROPERTY); p;
	     p = icalcomponent_get_next_property(c, ICAL_RRULE_PROPERTY))
		if (expand_rule(f, s, p) != 0)
			return -1;
	for (p = icalcomponent_get_first_property(c, ICAL_RDATE_PROPERTY); p;
	     p = icalcomponent_get_next_property(c, ICAL_RDATE_PROPERTY))
		if (expand_rdate(f, s, p) != 0)
			return -1;
	return 0;
}

/* A master event: its overrides first, then its occurrences. */
static int master(struct file *f, struct event *ev)
{
	struct series s;
	int rc = -1;

	memset(&s, 0, sizeof s);
	s.ev = ev;
	/* A cancelled event may carry no DTSTART: it has no time to place, but its overrides do. */
	if (!ev->busy && !icalcomponent_get_first_property(ev->c, ICAL_DTSTART_PROPERTY))
		rc = collect_overrides(f, &s);
	else if (read_start(f, ev, &s.start) == 0 && read_length(f, ev, &s.start, &s.len) == 0 &&
		 (s.has_len = 1) && read_exdates(f, &s) == 0 && collect_overrides(f, &s) == 0)
		rc = expand(f, &s);
	free(s.exdates);
	free(s.ov);
	return rc;
}

static int busy_file(struct file *f)
{
	for (size_t i = 0; i < f->nev; i++)
		if (read_rid(f, &f->ev[i]) != 0)
			return -1;
	index_overrides(f);
	for (size_t i = 0; i < f->nev; i++)
		if (!f->ev[i].has_rid && master(f, &f->ev[i]) != 0)
			return -1;
	/* Overrides whose master is elsewhere (an invitation to one occurrence). */
	for (size_t i = 0; i < f->nev; i++)
		if (f->ev[i].has_rid && !f->ev[i].settled && settle(f, &f->ev[i], NULL) != 0)
			return -1;
	return 0;
}

/* ---- lines, as the cutting and the zones look at them ---------------------------- */

struct unit;

struct cut {
	const char *text;
	size_t len;
	struct unit *u;
	size_t nu, cap;
	struct buf *skel; /* per calendar: its BEGIN line, its properties and VTIMEZONEs */
	size_t ncal;
};

static int folded(const char *p)
{
	return *p == ' ' || *p == '\t';
}

/* Where the physical line at at ends (after its newline). */
static size_t next_line(const struct cut *c, size_t at)
{
	const char *nl = memchr(c->text + at, '\n', c->len - at);

	return nl ? (size_t)(nl - c->text) + 1 : c->len;
}

/* The line at at without its line end is word followed by a name; the name, *n its length. */
static const char *marker(const struct cut *c, size_t at, size_t next, const char *word, size_t *n)
{
	size_t w = strlen(word), end = next;

	while (end > at && (c->text[end - 1] == '\n' || c->text[end - 1] == '\r'))
		end--;
	if (end - at <= w || strncasecmp(c->text + at, word, w) != 0)
		return NULL;
	*n = end - at - w;
	return c->text + at + w;
}

static int named(const char *name, size_t n, const char *want)
{
	return n == strlen(want) && strncasecmp(name, want, n) == 0;
}

/* ---- the VTIMEZONEs a reading has met, left out of what libical parses ---------
 *
 * A vdir's files each carry the same VTIMEZONE, and libical parsing it is half
 * of what a small file costs. So a calendar's own VTIMEZONEs (its children)
 * are looked up by their bytes in the zone cache (zone.h); the first time a
 * text is met it is parsed alone and checked as the file's tree would check
 * it (no line libical flagged, no VEVENT inside). When every VTIMEZONE of
 * every calendar is a zone so known, under TZIDs none of its calendar's others
 * share, the file is parsed without them and each TZID finds its zone where
 * it stood. The lines nothing here reads and libical cannot flag so as to
 * fail the file (inert_line) are left out too. The scan reads only BEGIN and
 * END lines and those, and any BEGIN or END it does not read as libical would
 * (a parameter, a fold, an odd name), or a file of another shape, leaves the
 * text as it is. Whatever fails so is read again as written, so an error is
 * always the file's own.
 */

struct shed {
	size_t at, end;     /* the VTIMEZONE's bytes */
	size_t cal;         /* the calendar it is a child of */
	icaltimezone *zone; /* the cache's */
};

/* Bytes left out of what libical parses. */
struct span {
	size_t at, end;
};

struct sheds {
	struct shed *v;
	size_t n, cap;
	size_t ncal;
	struct span *out; /* the VTIMEZONEs and the inert lines, in document order */
	size_t nout, outcap;
};

static int plain_name(const char *name, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (!((name[i] >= 'A' && name[i] <= 'Z') || (name[i] >= 'a' && name[i] <= 'z') ||
		      (name[i] >= '0' && name[i] <= '9') || name[i] == '-'))
			return 0;
	return n > 0;
}

/*
 * The line [at, next) as a BEGIN or END line: 1 a plain one (*begin says which,
 * *name and *n the component), 0 none, -1 one libical reads as BEGIN or END
 * but not plainly (a parameter, an empty or odd name).
 */
static int shed_marker(const struct cut *c, size_t at, size_t next, int *begin, const char **name,
		       size_t *n)
{
	const char *p = c->text + at;
	size_t end = next, w;

	if (end > at && p[end - at - 1] == '\n')
		end--;
	if (end > at && p[end - at - 1] == '\r')
		end--;
	if (!strchr("BEbe", *p) || !*p)
		return 0;
	if (end - at >= 6 && strncasecmp(p, "BEGIN", 5) == 0 && (p[5] == ':' || p[5] == ';'))
		w = 5;
	else if (end - at >= 4 && strncasecmp(p, "END", 3) == 0 && (p[3] == ':' || p[3] == ';'))
		w = 3;
	else
		return 0;
	*begin = w == 5;
	*name = p + w + 1;
	*n = end - at - w - 1;
	return p[w] == ':' && plain_name(*name, *n) ? 1 : -1;
}

static void leave_out(struct sheds *s, size_t at, size_t end)
{
	if (s->nout == s->outcap) {
		s->outcap = s->outcap ? s->outcap * 2 : 16;
		s->out = xrealloc(s->out, s->outcap * sizeof *s->out);
	}
	s->out[s->nout].at = at;
	s->out[s->nout++].end = end;
}

static void shed_add(struct sheds *s, size_t at, size_t end)
{
	if (s->n == s->cap) {
		s->cap = s->cap ? s->cap * 2 : 4;
		s->v = xrealloc(s->v, s->cap * sizeof *s->v);
	}
	s->v[s->n].at = at;
	s->v[s->n].end = end;
	s->v[s->n].cal = s->ncal - 1;
	s->v[s->n++].zone = NULL;
	leave_out(s, at, end);
}

/*
 * A line nothing of the answer reads, which libical cannot flag in a way that
 * fails the file: an event's SUMMARY, DESCRIPTION, LOCATION, COMMENT or
 * DTSTAMP (a value libical cannot read there is let pass, check_event), a
 * calendar's VERSION or PRODID (text, which always reads, when there is any;
 * an empty one is flagged). Only NAME:value, without parameters.
 */
static int inert_line(const struct cut *c, size_t at, size_t next, int in_event)
{
	static const char *const event[] = { "SUMMARY:", "DESCRIPTION:", "LOCATION:", "COMMENT:",
					     "DTSTAMP:" };
	static const char *const cal[] = { "VERSION:", "PRODID:" };
	const char *p = c->text + at;
	size_t w;

	if (!strchr(in_event ? "SDLCsdlc" : "VPvp", *p))
		return 0; /* most lines, without a comparison */
	for (size_t i = 0; in_event && i < sizeof event / sizeof event[0]; i++)
		if (starts(p, event[i]))
			return 1;
	for (size_t i = 0; !in_event && i < sizeof cal / sizeof cal[0]; i++) {
		if (!starts(p, cal[i]))
			continue;
		for (w = strlen(cal[i]); at + w < next; w++)
			if (!strchr(" \t\r\n", p[w]))
				return 1;
		return 0;
	}
	return 0;
}

/* Finds every calendar's own VTIMEZONEs; -1 when the text is not of the plain shape. */
static int shed_scan(const struct cut *c, struct sheds *s)
{
	int depth = 0, after_marker = 0, begin, kind, in_event = 0, inert = 0;
	size_t at, next, n, zone_at = (size_t)-1;
	const char *name;

	for (at = 0; at < c->len; at = next) {
		next = next_line(c, at);
		if (folded(c->text + at)) {
			if (depth == 0 || after_marker)
				return -1; /* libical would join it to a BEGIN or END line */
			if (inert)
				s->out[s->nout - 1].end = next;
			continue;
		}
		kind = shed_marker(c, at, next, &begin, &name, &n);
		after_marker = kind != 0;
		inert = 0;
		if (kind < 0)
			return -1;
		if (kind == 0) {
			if (depth == 0 && !text_blank_n(c->text + at, next - at))
				return -1;
			if ((depth == 1 || (depth == 2 && in_event)) &&
			    (inert = inert_line(c, at, next, depth == 2)))
				leave_out(s, at, next);
			continue;
		}
		if (begin && depth == 0 && !named(name, n, "VCALENDAR"))
			return -1;
		if (begin && depth == 0)
			s->ncal++;
		if (begin && depth == 1 && named(name, n, "VTIMEZONE"))
			zone_at = at;
		if (begin && depth == 1)
			in_event = named(name, n, "VEVENT");
		if (begin) {
			depth++;
			continue;
		}
		if (depth == 0 || (depth == 1 && !named(name, n, "VCALENDAR")))
			return -1;
		if (--depth == 1 && zone_at != (size_t)-1) {
			if (!named(name, n, "VTIMEZONE"))
				return -1;
			shed_add(s, zone_at, next);
			zone_at = (size_t)-1;
		}
	}
	return depth == 0 && s->ncal ? 0 : -1;
}

/* No line libical flagged anywhere in c. */
static int clean_tree(icalcomponent *c)
{
	icalcomponent *sub;

	if (icalcomponent_get_first_property(c, ICAL_XLICERROR_PROPERTY))
		return 0;
	for (sub = icalcomponent_get_first_component(c, ICAL_ANY_COMPONENT); sub;
	     sub = icalcomponent_get_next_component(c, ICAL_ANY_COMPONENT))
		if (!clean_tree(sub))
			return 0;
	return 1;
}

/* The zone a VTIMEZONE's bytes make, parsed alone the first time they are met; NULL: none. */
static icaltimezone *shed_zone(struct zone_cache *zones, const char *text, size_t len)
{
	icalcomponent *c;
	icaltimezone *z;
	char *copy;
	int known;

	z = zone_cache_text(zones, text, len, &known);
	if (known)
		return z;
	copy = xmalloc(len + 1);
	memcpy(copy, text, len);
	copy[len] = '\0';
	c = icalparser_parse_string(copy);
	free(copy);
	if (c && (icalcomponent_isa(c) != ICAL_VTIMEZONE_COMPONENT || !clean_tree(c) ||
		  inner_event(c))) {
		icalcomponent_free(c);
		c = NULL;
	}
	return zone_cache_put_text(zones, text, len, c);
}

/* Every VTIMEZONE a zone, and no TZID twice in one calendar. */
static int shed_zones(struct zone_cache *zones, const char *text, struct sheds *s)
{
	for (size_t i = 0; i < s->n; i++) {
		struct shed *z = &s->v[i];
		if (!(z->zone = shed_zone(zones, text + z->at, z->end - z->at)))
			return -1;
		for (size_t k = i; k-- > 0 && s->v[k].cal == z->cal;)
			if (strcmp(icaltimezone_get_tzid(s->v[k].zone), icaltimezone_get_tzid(z->zone)) == 0)
				return -1;
	}
	return 0;
}

/* text[0..len) without its calendars' VTIMEZONEs, when they can be left out; NULL when not. */
static char *shed_text(struct zone_cache *zones, const char *text, size_t len, struct sheds *s)
{
	struct cut c = { text, len, NULL, 0, 0, NULL, 0 };
	struct buf b = BUF_INIT;
	size_t at = 0;

	if (shed_scan(&c, s) != 0 || s->nout == 0 || shed_zones(zones, text, s) != 0)
		return NULL;
	for (size_t i = 0; i < s->nout; i++) {
		buf_add(&b, text + at, s->out[i].at - at);
		at = s->out[i].end;
	}
	buf_add(&b, text + at, len - at);
	return buf_steal(&b);
}

/* Tells the cache where the zones left out stood; -1 when the tree is not the calendars scanned. */
static int shed_place(struct zone_cache *zones, icalcomponent *root, const struct sheds *s)
{
	icalcomponent *cal = root;
	size_t k = 0, i = 0;

	if (icalcomponent_isa(root) == ICAL_XROOT_COMPONENT)
		cal = icalcomponent_get_first_component(root, ICAL_ANY_COMPONENT);
	else if (s->ncal != 1)
		return -1;
	for (; cal; k++) {
		if (icalcomponent_isa(cal) != ICAL_VCALENDAR_COMPONENT || k >= s->ncal ||
		    icalcomponent_get_first_component(cal, ICAL_VTIMEZONE_COMPONENT))
			return -1;
		for (; i < s->n && s->v[i].cal == k; i++)
			zone_cache_place(zones, cal, s->v[i].zone);
		cal = cal == root ? NULL : icalcomponent_get_next_component(root, ICAL_ANY_COMPONENT);
	}
	return k == s->ncal ? 0 : -1;
}

/* Places text, parsed from parse (text itself, or text without the zones of s). */
static int place_text(const char *path, const char *text, const char *parse, size_t len,
		      const struct sheds *s, struct reader *r, struct err *e)
{
	struct file f = { path, text, r, NULL, 0, NULL, 0, e };
	size_t mark = r->n;
	icalcomponent *root = NULL;
	int rc;

	if (r->zones)
		zone_cache_next_file(r->zones);
	rc = file_open(&f, parse, len, &root);
	if (rc == 0 && s && shed_place(r->zones, root, s) != 0)
		rc = err_set(e, ERR_PARSE, "%s: the calendars are not the ones scanned", path);
	if (rc == 0 && !r->count)
		rc = busy_file(&f);
	if (rc == 0)
		r->events += f.nev;
	if (rc != 0)
		r->n = mark;
	if (root)
		icalcomponent_free(root);
	free(f.ev);
	free(f.ovs);
	return rc;
}

/* Reads text whole: one component tree for the file (without the zones met before, when it can). */
static int whole(const char *path, const char *text, size_t len, struct reader *r, struct err *e)
{
	struct sheds s = { NULL, 0, 0, 0, NULL, 0, 0 };
	char *parse = r->zones && strlen(text) == len ? shed_text(r->zones, text, len, &s) : NULL;
	int rc = -1;

	if (parse)
		rc = place_text(path, text, parse, len, &s, r, e);
	r->lean += rc == 0;
	free(parse);
	free(s.v);
	free(s.out);
	return rc == 0 ? 0 : place_text(path, text, text, len, NULL, r, e);
}

/* ---- a large file, some events at a time ----------------------------------------
 *
 * libical holds a parsed file as a tree several times the size of its text (a
 * 10 MB calendar costs about 90 MB). A file larger than the reader's batch is
 * cut at its calendars' children instead: each batch is every calendar's
 * properties and VTIMEZONEs again, then some of its children, placed as a file
 * of its own (whole, above) and freed. The events of one UID (a series and the
 * instances it overrides) always share a batch, so each batch is placed as the
 * whole file would place it. The cutting looks only at BEGIN and END lines,
 * the calendars' own lines and the events' UID lines; a file it does not
 * understand, or a batch that fails, is read whole, so an error is always the
 * whole file's, named as before. Two events whose UID lines differ in bytes but
 * mean one UID (an escape, a parameter) can land in different batches; that
 * only adds busy time (an override not applied leaves the series' occurrence
 * busy), never frees any.
 */

struct unit {
	size_t at, end; /* its bytes: the BEGIN line through the END line */
	size_t cal;     /* the calendar it is a child of */
	char *uid;      /* a VEVENT's UID value, unfolded; NULL: none, or no event */
};

/* The value of a UID line at at, its continuation lines joined; NULL when the line is no UID. */
static char *uid_value(const struct cut *c, size_t at)
{
	const char *p = c->text + at;
	struct buf b = BUF_INIT;
	int quoted = 0, value = 0;
	size_t next, skip = 0;
	char *value_text;

	if (c->len - at < 4 || strncasecmp(p, "UID", 3) != 0 || (p[3] != ':' && p[3] != ';'))
		return NULL;
	for (;;) {
		next = next_line(c, at);
		for (size_t i = at + skip; i < next; i++) {
			char ch = c->text[i];
			if (ch == '\r' || ch == '\n')
				break;
			if (value)
				buf_addc(&b, ch);
			else if (ch == '"')
				quoted = !quoted;
			else if (ch == ':' && !quoted)
				value = 1;
		}
		if (next >= c->len || !folded(c->text + next))
			break;
		at = next;
		skip = 1; /* a continuation line's leading space is the fold's, not the value's */
	}
	value_text = xstrdup(buf_str(&b));
	buf_free(&b);
	return value_text;
}

static void unit_add(struct cut *c, size_t at, size_t end, char *uid)
{
	if (c->nu == c->cap) {
		c->cap = c->cap ? c->cap * 2 : 256;
		c->u = xrealloc(c->u, c->cap * sizeof *c->u);
	}
	c->u[c->nu].at = at;
	c->u[c->nu].end = end;
	c->u[c->nu].cal = c->ncal - 1;
	c->u[c->nu++].uid = uid;
}

static void cut_free(struct cut *c)
{
	for (size_t i = 0; i < c->nu; i++)
		free(c->u[i].uid);
	for (size_t i = 0; i < c->ncal; i++)
		buf_free(&c->skel[i]);
	free(c->u);
	free(c->skel);
}

/* Scanning state: where the open child began, and what it is. */
struct child {
	size_t at;
	const char *name;
	size_t n;
	int event;
	char *uid;
};

/* One line inside a calendar (depth >= 1); -1 when the shape is not plain. */
static int cut_line(struct cut *c, size_t at, size_t next, int *depth, struct child *ch,
		    int *in_skel)
{
	struct buf *skel = &c->skel[c->ncal - 1];
	const char *name;
	size_t n;

	if (folded(c->text + at)) {
		if (*in_skel)
			buf_add(skel, c->text + at, next - at);
		return 0;
	}
	*in_skel = 0;
	if ((name = marker(c, at, next, "BEGIN:", &n))) {
		if ((*depth)++ == 1) {
			ch->at = at;
			ch->name = name;
			ch->n = n;
			ch->event = named(name, n, "VEVENT");
			ch->uid = NULL;
		}
	} else if ((name = marker(c, at, next, "END:", &n))) {
		if (--*depth == 0)
			return named(name, n, "VCALENDAR") ? 0 : -1;
		if (*depth > 1)
			return 0;
		if (n != ch->n || strncasecmp(name, ch->name, n) != 0)
			return -1;
		if (named(name, n, "VTIMEZONE"))
			buf_add(skel, c->text + ch->at, next - ch->at);
		else
			unit_add(c, ch->at, next, ch->uid);
		ch->uid = NULL;
	} else if (*depth == 1) {
		buf_add(skel, c->text + at, next - at);
		*in_skel = 1;
	} else if (*depth == 2 && ch->event && !ch->uid) {
		ch->uid = uid_value(c, at);
	}
	return 0;
}

/* Finds the calendars and their children; -1 when the text is not the plain shape. */
static int cut_text(struct cut *c)
{
	struct child ch = { 0, NULL, 0, 0, NULL };
	int depth = 0, in_skel = 0;
	size_t at, next, n;

	for (at = 0; at < c->len; at = next) {
		next = next_line(c, at);
		if (depth > 0) {
			if (cut_line(c, at, next, &depth, &ch, &in_skel) != 0)
				break;
		} else if (marker(c, at, next, "BEGIN:", &n) &&
			   named(c->text + at + 6, n, "VCALENDAR")) {
			c->skel = xrealloc(c->skel, (c->ncal + 1) * sizeof *c->skel);
			c->skel[c->ncal] = (struct buf)BUF_INIT;
			buf_add(&c->skel[c->ncal++], c->text + at, next - at);
			depth = 1;
		} else if (!text_blank_n(c->text + at, next - at)) {
			break;
		}
	}
	free(ch.uid);
	return at >= c->len && depth == 0 && c->ncal ? 0 : -1;
}

/* Grouped by UID (the UID-less each alone), then in document order; units is the cut's. */
static int by_group(const void *a, const void *b, void *units)
{
	const struct unit *u = units, *x = &u[*(const size_t *)a], *y = &u[*(const size_t *)b];
	int c = 0;

	if (x->uid && y->uid)
		c = strcmp(x->uid, y->uid);
	else if (x->uid || y->uid)
		c = x->uid ? 1 : -1;
	return c ? c : (x->at > y->at) - (x->at < y->at);
}

static int by_place(const void *a, const void *b)
{
	size_t x = *(const size_t *)a, y = *(const size_t *)b;

	return (x > y) - (x < y);
}

/* The units pick[0..n) (indices, put in document order here) as a file, and placed. */
static int place_batch(const char *path, const struct cut *c, size_t *pick, size_t n,
		       struct reader *r)
{
	struct buf b = BUF_INIT;
	size_t cal = (size_t)-1;
	struct err e;
	int rc;

	qsort(pick, n, sizeof *pick, by_place);
	for (size_t i = 0; i < n; i++) {
		const struct unit *u = &c->u[pick[i]];
		if (u->cal != cal) {
			if (cal != (size_t)-1)
				buf_adds(&b, "END:VCALENDAR\r\n");
			cal = u->cal;
			buf_add(&b, buf_str(&c->skel[cal]), c->skel[cal].len);
		}
		buf_add(&b, c->text + u->at, u->end - u->at);
	}
	buf_adds(&b, "END:VCALENDAR\r\n");
	rc = whole(path, buf_str(&b), b.len, r, &e);
	buf_free(&b);
	r->batches += rc == 0;
	return rc;
}

/* Places the cut file batch by batch; -1 when any batch fails (the caller reads it whole). */
static int place_cut(const char *path, const struct cut *c, struct reader *r, size_t limit)
{
	size_t *order = xmalloc((c->nu ? c->nu : 1) * sizeof *order);
	size_t start = 0, bytes = 0, i = 0, cals = 0;
	int rc = 0;

	/* A calendar without children would be in no batch, its own lines unchecked: read whole. */
	for (size_t k = 0; k < c->nu; k++)
		cals += k == 0 || c->u[k].cal != c->u[k - 1].cal;
	if (cals != c->ncal) {
		free(order);
		return -1;
	}
	for (size_t k = 0; k < c->nu; k++)
		order[k] = k;
	qsort_r(order, c->nu, sizeof *order, by_group, c->u);
	while (rc == 0 && i < c->nu) {
		const struct unit *first = &c->u[order[i]];
		do {
			bytes += c->u[order[i]].end - c->u[order[i]].at;
			i++;
		} while (i < c->nu && first->uid && c->u[order[i]].uid &&
			 strcmp(first->uid, c->u[order[i]].uid) == 0);
		if (bytes >= limit || i == c->nu) {
			rc = place_batch(path, c, order + start, i - start, r);
			start = i;
			bytes = 0;
		}
	}
	free(order);
	return rc;
}

int reader_text(const char *path, const char *text, size_t len, struct reader *r, struct err *e)
{
	size_t limit = r->batch ? r->batch : READER_BATCH_BYTES, mark = r->n, batches = r->batches;
	size_t lean = r->lean, events = r->events;
	struct cut c = { text, len, NULL, 0, 0, NULL, 0 };
	int rc = -1;

	if (len <= limit || strlen(text) != len)
		return whole(path, text, len, r, e);
	if (cut_text(&c) == 0)
		rc = place_cut(path, &c, r, limit);
	cut_free(&c);
	if (rc == 0)
		return 0;
	r->n = mark;
	r->batches = batches;
	r->lean = lean;
	r->events = events;
	return whole(path, text, len, r, e);
}

int reader_file(const char *path, void *ctx, struct err *e)
{
	char *text;
	size_t len;
	int rc;

	if (fs_read(path, &text, &len, e) != 0)
		return -1;
	rc = reader_text(path, text, len, ctx, e);
	free(text);
	return rc;
}
