/*
 * slots — the computation of slots.h: day by day in the type's zone, window
 * by window, each start on the grid tried with each duration against the
 * bounds and the widened busy intervals; then each day's cap, then the
 * whole list sorted and cut to what the box takes.
 */
#include "drain/slots.h"

#include "base/buf.h"
#include "base/err.h"
#include "base/fs.h"
#include "base/hash.h"
#include "base/rfc3339.h"
#include "calendar/calendar.h"
#include "calendar/wallclock.h"
#include "config/config.h"
#include "types/catalog.h"
#include "types/manifest.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* What every day of one computation shares. */
struct plan {
	const struct manifest_availability *a;
	const struct wallclock *zone;
	struct calendar_interval *busy; /* sorted, merged */
	size_t nbusy;
	time_t buffer, increment; /* seconds */
	time_t from, to;          /* starts from `from`, ends by `to` */
};

struct slot_list {
	struct slot *v;
	size_t n, cap;
};

static void list_add(struct slot_list *l, time_t start, time_t end, int duration)
{
	if (l->n == l->cap) {
		l->cap = l->cap ? l->cap * 2 : 64;
		l->v = xrealloc(l->v, l->cap * sizeof *l->v);
	}
	l->v[l->n++] = (struct slot){ start, end, duration };
}

static int slot_order(const void *x, const void *y)
{
	const struct slot *a = x, *b = y;

	if (a->start != b->start)
		return a->start < b->start ? -1 : 1;
	return (a->duration > b->duration) - (a->duration < b->duration);
}

/* ---- busy time ------------------------------------------------------------------ */

static int interval_order(const void *x, const void *y)
{
	const struct calendar_interval *a = x, *b = y;

	return (a->start > b->start) - (a->start < b->start);
}

/* A sorted, merged copy: the ends then rise with the starts, which busy_hit relies on. */
static struct calendar_interval *busy_merged(const struct calendar_interval *v, size_t n,
					      size_t *out_n)
{
	struct calendar_interval *m = xcalloc(n + 1, sizeof *m);
	size_t k = 0;

	if (n > 0) {
		memcpy(m, v, n * sizeof *m);
		qsort(m, n, sizeof *m, interval_order);
	}
	for (size_t i = 0; i < n; i++) {
		if (k > 0 && m[i].start <= m[k - 1].end) {
			if (m[i].end > m[k - 1].end)
				m[k - 1].end = m[i].end;
		} else {
			m[k++] = m[i];
		}
	}
	*out_n = k;
	return m;
}

/* 1 when [s, e) overlaps a busy interval widened by the buffer on both sides. */
static int busy_hit(const struct plan *p, time_t s, time_t e)
{
	size_t lo = 0, hi = p->nbusy;

	/* The first interval whose widened end is after s; only it can be the first overlap. */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (p->busy[mid].end + p->buffer > s)
			hi = mid;
		else
			lo = mid + 1;
	}
	return lo < p->nbusy && p->busy[lo].start - p->buffer < e;
}

/* ---- one day ---------------------------------------------------------------------- */

static int override_is(const struct manifest_override *o, int y, int m, int d)
{
	int oy, om, od;

	/* NOLINTNEXTLINE(cert-err34-c): o->date is a date the manifest reader already checked */
	return sscanf(o->date, "%d-%d-%d", &oy, &om, &od) == 3 && oy == y && om == m && od == d;
}

static void window_slots(const struct plan *p, int y, int m, int d,
			 const struct manifest_window *w, struct slot_list *day)
{
	time_t ws = wallclock_instant(p->zone, y, m, d, w->start);
	time_t we = wallclock_instant(p->zone, y, m, d, w->end);

	for (time_t s = ws; s < we && s < p->to; s += p->increment) {
		if (s < p->from)
			continue;
		for (size_t k = 0; k < p->a->ndurations; k++) {
			time_t e = s + (time_t)p->a->durations[k] * 60;
			if (e <= we && e <= p->to && !busy_hit(p, s, e))
				list_add(day, s, e, (int)p->a->durations[k]);
		}
	}
}

/* The day's windows: its overrides' when any names the date, else its weekday's. */
static void day_windows(const struct plan *p, int y, int m, int d, int weekday,
			struct slot_list *day)
{
	const struct manifest_availability *a = p->a;
	int overridden = 0;

	for (size_t i = 0; i < a->noverrides; i++) {
		if (!override_is(&a->overrides[i], y, m, d))
			continue;
		overridden = 1;
		for (size_t k = 0; k < a->overrides[i].nwindows; k++)
			window_slots(p, y, m, d, &a->overrides[i].windows[k], day);
	}
	for (size_t i = 0; !overridden && i < a->nwindows; i++)
		if (a->windows[i].day == weekday)
			window_slots(p, y, m, d, &a->windows[i], day);
}

/* Sorted, duplicates (two windows' same slot) dropped, then the cap on distinct starts. */
static void day_finish(const struct plan *p, struct slot_list *day, struct slot_list *all)
{
	long long starts = 0;

	if (day->n > 1)
		qsort(day->v, day->n, sizeof *day->v, slot_order);
	for (size_t i = 0; i < day->n; i++) {
		if (i > 0 && slot_order(&day->v[i], &day->v[i - 1]) == 0)
			continue;
		if (i == 0 || day->v[i].start != day->v[i - 1].start)
			starts++;
		if (p->a->per_day_cap >= 0 && starts > p->a->per_day_cap)
			break;
		list_add(all, day->v[i].start, day->v[i].end, day->v[i].duration);
	}
	day->n = 0;
}

/* ---- the computation --------------------------------------------------------------- */

static long local_day(const struct wallclock *z, time_t t)
{
	struct wallclock_time w;

	wallclock_local(z, t, &w);
	return wallclock_days(w.year, w.month, w.day);
}

static void plan_days(const struct plan *p, struct slot_list *all)
{
	struct slot_list day = { NULL, 0, 0 };
	/* From the day before: a time skipped at midnight can move a window's start a day on. */
	long first = local_day(p->zone, p->from) - 1, last = local_day(p->zone, p->to);

	for (long dd = first; dd <= last; dd++) {
		int y, m, d;
		wallclock_date(dd, &y, &m, &d);
		day_windows(p, y, m, d, wallclock_weekday(dd), &day);
		day_finish(p, &day, all);
	}
	free(day.v);
}

static void keep(struct slots *out, struct slot_list *all)
{
	if (all->n > 1)
		qsort(all->v, all->n, sizeof *all->v, slot_order);
	out->dropped = all->n > SLOTS_MAX ? all->n - SLOTS_MAX : 0;
	out->n = all->n - out->dropped;
	out->v = all->v;
}

/* The box takes no longer a horizon: refused, since clamping would offer less than written. */
static int horizon_ok(const struct manifest_availability *a, struct err *e)
{
	if (a->horizon_days <= SLOTS_MAX_HORIZON_DAYS)
		return 0;
	return err_set(e, ERR_INVALID_MANIFEST, "horizon_days is %lld, more than the %d days a box "
		       "takes: make it %d or less", a->horizon_days, SLOTS_MAX_HORIZON_DAYS,
		       SLOTS_MAX_HORIZON_DAYS);
}

static int plan_init(struct plan *p, const struct manifest_availability *a,
		     const struct calendar_interval *busy, size_t nbusy, time_t now, struct err *e)
{
	if (horizon_ok(a, e) != 0)
		return -1;
	if (!(p->zone = wallclock_zone(a->timezone, e))) {
		if (e->code == ERR_CONFIG)
			e->code = ERR_INVALID_MANIFEST; /* the manifest named it */
		return -1;
	}
	p->a = a;
	p->busy = busy_merged(busy, nbusy, &p->nbusy);
	p->buffer = (time_t)a->buffer_minutes * 60;
	p->increment = (time_t)a->increment_minutes * 60;
	p->from = now + (time_t)a->min_notice_hours * 3600;
	p->to = now + (time_t)a->horizon_days * 86400;
	return 0;
}

int slots_compute(const struct manifest_availability *a, const struct calendar_interval *busy,
		  size_t nbusy, time_t now, struct slots *out, struct err *e)
{
	struct slot_list all = { NULL, 0, 0 };
	struct plan p;

	memset(out, 0, sizeof *out);
	if (plan_init(&p, a, busy, nbusy, now, e) != 0)
		return -1;
	if (p.increment > 0 && p.from < p.to)
		plan_days(&p, &all);
	free(p.busy);
	keep(out, &all);
	out->zone = xstrdup(a->timezone);
	out->generated_at = now;
	out->horizon_days = a->horizon_days;
	return 0;
}

/* The days a slot can come from: its own local date and either neighbour (a skipped midnight). */
int slots_fit(const struct manifest_availability *a, time_t now, time_t start, time_t end,
	      struct err *e)
{
	struct slot_list day = { NULL, 0, 0 };
	struct plan p;
	int fit = 0;

	if (plan_init(&p, a, NULL, 0, now, e) != 0)
		return -1;
	if (p.increment > 0 && start >= p.from && end <= p.to && start < end) {
		long mid = local_day(p.zone, start);
		for (long dd = mid - 1; dd <= mid + 1 && !fit; dd++) {
			int y, m, d;
			wallclock_date(dd, &y, &m, &d);
			day_windows(&p, y, m, d, wallclock_weekday(dd), &day);
			for (size_t i = 0; i < day.n && !fit; i++)
				fit = day.v[i].start == start && day.v[i].end == end;
			day.n = 0;
		}
	}
	free(day.v);
	free(p.busy);
	return fit;
}

/* ---- a type, over the calendar ------------------------------------------------------ */

/* "now", an RFC 3339 time, or a date meaning its midnight in the type's zone. */
static int parse_from(const char *from, const char *zone_name, time_t *now, struct err *e)
{
	const struct wallclock *zone;
	int y, m, d, n = 0;

	if (!from) {
		*now = time(NULL);
		return 0;
	}
	if (rfc3339_parse(from, now) == 0)
		return 0;
	/* NOLINTNEXTLINE(cert-err34-c): widths %4d %2d cannot overflow; the range is checked after */
	if (sscanf(from, "%4d-%2d-%2d%n", &y, &m, &d, &n) != 3 || n != 10 || from[n] ||
	    m < 1 || m > 12 || d < 1 || d > 31)
		return err_set(e, ERR_USAGE, "--from takes an RFC 3339 time (2026-10-24T09:00:00Z) "
			       "or a date (2026-10-24)");
	if (!(zone = wallclock_zone(zone_name, e)))
		return -1;
	*now = wallclock_instant(zone, y, m, d, 0);
	return 0;
}

/*
 * The busy time that can touch a slot: [from - buffer, to + buffer), asked
 * in pieces the calendar takes (it answers at most a year at a time). *v is
 * the caller's to free, on failure too: one owner, so a failure on a later
 * piece cannot free it twice.
 */
static int busy_for(const struct config *cfg, const struct manifest_availability *a, time_t now,
		    struct calendar_interval **v, size_t *n, time_t window[2], struct err *e)
{
	const time_t step = (time_t)CALENDAR_MAX_WINDOW_DAYS * 86400;
	time_t buffer = (time_t)a->buffer_minutes * 60;
	time_t lo = now + (time_t)a->min_notice_hours * 3600 - buffer;
	time_t hi = now + (time_t)a->horizon_days * 86400 + buffer;
	*v = NULL;
	*n = 0;
	if (hi <= lo)
		hi = lo + 1; /* nothing to offer, but the calendar must still be there */
	window[0] = lo;
	window[1] = hi;
	for (time_t t = lo; t < hi; t += step) {
		struct calendar_interval *part;
		size_t np;
		if (calendar_busy_conf(cfg, t, hi - t > step ? t + step : hi, &part, &np, e) != 0)
			return -1;
		*v = xrealloc(*v, (*n + np + 1) * sizeof **v);
		if (np > 0)
			memcpy(*v + *n, part, np * sizeof *part);
		*n += np;
		free(part);
	}
	return 0;
}

/*
 * The fingerprint of slots.h: the manifest's bytes and the busy time the
 * computation read, [lo, hi) its window. An interval the window clipped is
 * written with its edge as "<" or ">", not the instant, so the window
 * sliding with the clock does not change it; only busy time coming, going
 * or moving inside the window does.
 */
static void fingerprint(const char *manifest, size_t len, const struct calendar_interval *busy,
			size_t nbusy, time_t lo, time_t hi, char out[HASH_SHA256_HEX_LEN + 1])
{
	char digest[HASH_SHA256_HEX_LEN + 1];
	struct buf b = BUF_INIT;
	size_t n;
	struct calendar_interval *m = busy_merged(busy, nbusy, &n);

	hash_sha256_hex(manifest, len, digest);
	buf_printf(&b, "mecha slots fingerprint 1\nmanifest %s\n", digest);
	for (size_t i = 0; i < n; i++) {
		if (m[i].start <= lo)
			buf_adds(&b, "<");
		else
			buf_printf(&b, "%lld", (long long)m[i].start);
		if (m[i].end >= hi)
			buf_adds(&b, " >\n");
		else
			buf_printf(&b, " %lld\n", (long long)m[i].end);
	}
	hash_sha256_hex(b.data ? b.data : "", b.len, out);
	buf_free(&b);
	free(m);
}

static int calendar_refusal(const char *id, struct err *e)
{
	char why[sizeof e->msg];

	snprintf(why, sizeof why, "%s", e->msg);
	return err_set(e, e->code, "no slots for `%s`: %s%s", id, why,
		       e->code == ERR_NOT_FOUND ? " — slots are offered only over a calendar mecha "
						  "can read" : "");
}

static int booking_of(const char *id, struct manifest **m, struct err *e)
{
	if (catalog_load(id, m, NULL, e) != 0)
		return -1;
	if (!(*m)->booking || !(*m)->availability) {
		manifest_free(*m);
		*m = NULL;
		return err_set(e, ERR_NOT_FOUND, "`%s` is a request type, not a booking (kind = "
			       "\"booking\"): it offers no slots", id);
	}
	return 0;
}

int slots_of_type(const char *id, const char *from, struct slots *out, struct err *e)
{
	struct calendar_interval *busy = NULL;
	struct config cfg = { 0 };
	struct manifest *m = NULL;
	char *path = NULL, *text = NULL;
	size_t nbusy = 0, len = 0;
	time_t now, window[2];
	int rc = -1;

	memset(out, 0, sizeof *out);
	if (booking_of(id, &m, e) != 0)
		return -1;
	if (horizon_ok(m->availability, e) != 0 || parse_from(from, m->availability->timezone,
								  &now, e) != 0 ||
	    !(path = catalog_path(id, e)) || fs_read(path, &text, &len, e) != 0 ||
	    config_load(&cfg, e) != 0)
		goto done;
	if (busy_for(&cfg, m->availability, now, &busy, &nbusy, window, e) != 0) {
		calendar_refusal(id, e);
		goto done;
	}
	if ((rc = slots_compute(m->availability, busy, nbusy, now, out, e)) == 0) {
		out->type = xstrdup(id);
		fingerprint(text, len, busy, nbusy, window[0], window[1], out->fingerprint);
	}
done:
	free(path);
	free(text);
	free(busy);
	config_free(&cfg);
	manifest_free(m);
	return rc;
}

/* ---- output ------------------------------------------------------------------------ */

json_t *slots_json(const struct slots *s)
{
	char g[RFC3339_LEN], a[RFC3339_LEN], b[RFC3339_LEN];
	json_t *list = json_array();

	for (size_t i = 0; i < s->n; i++) {
		rfc3339_format(s->v[i].start, a);
		rfc3339_format(s->v[i].end, b);
		json_array_append_new(list, json_pack("{s:s,s:s,s:i}", "start", a, "end", b,
						      "duration_minutes", s->v[i].duration));
	}
	rfc3339_format(s->generated_at, g);
	return json_pack("{s:s,s:I,s:o}", "generated_at", g, "horizon_days",
			 (json_int_t)s->horizon_days, "slots", list);
}

static void offset_text(long offset, char out[8])
{
	long off = offset < 0 ? -offset : offset;

	snprintf(out, 8, "%c%02ld:%02ld", offset < 0 ? '-' : '+', off / 3600 % 100, off % 3600 / 60);
}

/* The end's offset is shown only when the clocks changed inside the slot. */
static void slot_line(struct buf *out, const struct wallclock *z, const struct slot *sl)
{
	static const char *const days[] = { "Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun" };
	struct wallclock_time a, b;
	char oa[8], ob[8];

	wallclock_local(z, sl->start, &a);
	wallclock_local(z, sl->end, &b);
	offset_text(a.offset, oa);
	offset_text(b.offset, ob);
	buf_printf(out, "%s %04d-%02d-%02d %02d:%02d", days[a.weekday], a.year, a.month, a.day,
		   a.minute / 60, a.minute % 60);
	if (a.offset != b.offset)
		buf_printf(out, " %s", oa);
	buf_printf(out, "\u2013%02d:%02d %s  %d min\n", b.minute / 60, b.minute % 60, ob,
		   sl->duration);
}

char *slots_text(const struct slots *s, struct err *e)
{
	const struct wallclock *z = wallclock_zone(s->zone, e);
	struct buf out = BUF_INIT;

	if (!z)
		return NULL;
	for (size_t i = 0; i < s->n; i++)
		slot_line(&out, z, &s->v[i]);
	return buf_steal(&out);
}

void slots_free(struct slots *s)
{
	free(s->type);
	free(s->zone);
	free(s->v);
	memset(s, 0, sizeof *s);
}
