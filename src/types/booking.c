/*
 * booking — [availability] and [policy]: their shapes, their meaning, and the
 * rules that tie them to `kind`. The availability checks are the full parse
 * the slot pipeline will run, so a bad window surfaces at `types check`, not
 * at two in the morning.
 */
#include "types/booking.h"

#include "base/buf.h"
#include "base/text.h"
#include "base/toml.h"
#include "types/decode.h"
#include "types/manifest.h"

#include <ctype.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#define U32_MAX_LL 0xffffffffLL

/* ---- shapes ------------------------------------------------------------------------ */

static int decode_window(struct decode *d, const struct toml_value *t, struct manifest_window *w)
{
	static const char *const keys[] = { "day", "start", "end", NULL };

	if (t->type != TOML_TABLE) {
		decode_wrong_type(d, t, "struct RawWindow");
		return -1;
	}
	decode_deny_unknown(d, t, keys);
	w->day_text = decode_string(d, t, "day", 1);
	w->start_text = decode_string(d, t, "start", 1);
	w->end_text = decode_string(d, t, "end", 1);
	return 0;
}

/* An override's windows: [["09:00", "12:00"], …], each exactly two strings. */
static void decode_pairs(struct decode *d, const struct toml_value *a, struct manifest_override *o)
{
	o->windows = xcalloc(a->u.array.n + 1, sizeof *o->windows);
	for (size_t i = 0; i < a->u.array.n; i++) {
		const struct toml_value *p = a->u.array.items[i];
		struct manifest_window *w = &o->windows[o->nwindows];
		if (p->type != TOML_ARRAY) {
			decode_wrong_type(d, p, "an array of length 2");
			continue;
		}
		if (p->u.array.n != 2) {
			decode_issue(d, p->line, "invalid length %zu, expected an array of length 2",
				     p->u.array.n);
			continue;
		}
		for (int k = 0; k < 2; k++)
			if (p->u.array.items[k]->type != TOML_STRING)
				decode_wrong_type(d, p->u.array.items[k], "a string");
		if (p->u.array.items[0]->type == TOML_STRING && p->u.array.items[1]->type == TOML_STRING) {
			w->start_text = xstrdup(p->u.array.items[0]->u.str.ptr);
			w->end_text = xstrdup(p->u.array.items[1]->u.str.ptr);
			o->nwindows++;
		}
	}
}

static void decode_overrides(struct decode *d, const struct toml_value *t,
			     struct manifest_availability *a)
{
	static const char *const keys[] = { "date", "windows", NULL };
	const struct toml_value *list = decode_array(d, t, "overrides", 0), *pairs;

	if (!list)
		return;
	a->overrides = xcalloc(list->u.array.n + 1, sizeof *a->overrides);
	for (size_t i = 0; i < list->u.array.n; i++) {
		const struct toml_value *o = list->u.array.items[i];
		struct manifest_override *ov = &a->overrides[a->noverrides];
		if (o->type != TOML_TABLE) {
			decode_wrong_type(d, o, "struct RawOverride");
			continue;
		}
		a->noverrides++;
		decode_deny_unknown(d, o, keys);
		ov->date = decode_string(d, o, "date", 1);
		if ((pairs = decode_array(d, o, "windows", 0)))
			decode_pairs(d, pairs, ov);
	}
}

static void decode_durations(struct decode *d, const struct toml_value *t,
			     struct manifest_availability *a)
{
	const struct toml_value *list = decode_array(d, t, "durations", 1);

	if (!list)
		return;
	a->durations = xcalloc(list->u.array.n + 1, sizeof *a->durations);
	for (size_t i = 0; i < list->u.array.n; i++) {
		const struct toml_value *v = list->u.array.items[i];
		if (v->type != TOML_INTEGER)
			decode_wrong_type(d, v, "u32");
		else if (v->u.integer < 0 || v->u.integer > U32_MAX_LL)
			decode_issue(d, v->line, "invalid value: integer `%lld`, expected u32",
				     v->u.integer);
		else
			a->durations[a->ndurations++] = v->u.integer;
	}
}

struct manifest_availability *booking_decode_availability(struct decode *d,
							  const struct toml_value *root)
{
	static const char *const keys[] = { "timezone",          "durations",   "buffer_minutes",
					    "min_notice_hours",  "horizon_days", "per_day_cap",
					    "increment_minutes", "windows",     "overrides",
					    NULL };
	const struct toml_value *t = decode_table(d, root, "availability", 0, "RawPolicy"), *w;
	struct manifest_availability *a;

	if (!t)
		return NULL;
	decode_deny_unknown(d, t, keys);
	a = xcalloc(1, sizeof *a);
	a->line = t->line;
	a->timezone = decode_string(d, t, "timezone", 1);
	decode_durations(d, t, a);
	a->min_notice_hours = 24;
	a->horizon_days = 60;
	a->increment_minutes = 30;
	a->per_day_cap = -1;
	decode_uint(d, t, "buffer_minutes", 0, "u32", U32_MAX_LL, &a->buffer_minutes);
	decode_uint(d, t, "min_notice_hours", 0, "u32", U32_MAX_LL, &a->min_notice_hours);
	decode_uint(d, t, "horizon_days", 0, "u32", U32_MAX_LL, &a->horizon_days);
	decode_uint(d, t, "per_day_cap", 0, "u32", U32_MAX_LL, &a->per_day_cap);
	decode_uint(d, t, "increment_minutes", 0, "u32", U32_MAX_LL, &a->increment_minutes);
	if ((w = decode_array(d, t, "windows", 1))) {
		a->windows = xcalloc(w->u.array.n + 1, sizeof *a->windows);
		for (size_t i = 0; i < w->u.array.n; i++)
			if (decode_window(d, w->u.array.items[i], &a->windows[a->nwindows]) == 0)
				a->nwindows++;
	}
	decode_overrides(d, t, a);
	return a;
}

struct manifest_policy *booking_decode_policy(struct decode *d, const struct toml_value *root)
{
	static const char *const keys[] = { "hold_minutes", "cancel_cutoff_hours", "reminders",
					    "location", NULL };
	const struct toml_value *t = decode_table(d, root, "policy", 0, "BookingPolicy"), *r;
	struct manifest_policy *p;

	if (!t)
		return NULL;
	decode_deny_unknown(d, t, keys);
	p = xcalloc(1, sizeof *p);
	p->line = t->line;
	p->hold_minutes = 30;
	p->cancel_cutoff_hours = 2;
	decode_uint(d, t, "hold_minutes", 0, "u32", U32_MAX_LL, &p->hold_minutes);
	decode_uint(d, t, "cancel_cutoff_hours", 0, "u32", U32_MAX_LL, &p->cancel_cutoff_hours);
	if ((r = decode_array(d, t, "reminders", 0))) {
		p->reminders = decode_strings(d, r, &p->nreminders);
	} else if (!toml_get(t, "reminders")) {
		p->reminders = xcalloc(3, sizeof *p->reminders);
		p->reminders[0] = xstrdup("24h");
		p->reminders[1] = xstrdup("1h");
		p->nreminders = 2;
	}
	p->location = decode_string(d, t, "location", 0);
	return p;
}

/* ---- meaning ----------------------------------------------------------------------- */

long long booking_reminder_minutes(const char *spec)
{
	size_t off, n;
	unsigned long long v = 0;
	char unit;

	text_trim(spec, strlen(spec), &off, &n);
	spec += off;
	if (n < 2 || (unsigned char)spec[n - 1] >= 0x80)
		return -1;
	unit = spec[n - 1];
	/* Rust's u32 parse: an optional '+', then digits, no more than u32 holds. */
	for (size_t i = spec[0] == '+' ? 1 : 0; i < n - 1; i++) {
		if (!isdigit((unsigned char)spec[i]) || (v = v * 10 + (unsigned)(spec[i] - '0')) > U32_MAX_LL)
			return -1;
	}
	if (v == 0 || (spec[0] == '+' && n == 2))
		return -1;
	v *= unit == 'm' ? 1 : unit == 'h' ? 60 : unit == 'd' ? 1440 : 0;
	return v == 0 || v > U32_MAX_LL ? -1 : (long long)v;
}

/* "HH:MM" as chrono's %H:%M reads it (one or two digits each), in minutes; -1 otherwise. */
static int hhmm(const char *s)
{
	int h = 0, m = 0, nh = 0, nm = 0;

	while (nh < 3 && isdigit((unsigned char)s[nh]))
		h = h * 10 + (s[nh++] - '0');
	if (nh == 0 || nh > 2 || s[nh] != ':')
		return -1;
	s += nh + 1;
	while (nm < 3 && isdigit((unsigned char)s[nm]))
		m = m * 10 + (s[nm++] - '0');
	if (nm == 0 || nm > 2 || s[nm] || h > 23 || m > 59)
		return -1;
	return h * 60 + m;
}

static int weekday(const char *s)
{
	static const char *const days[] = { "monday", "tuesday", "wednesday", "thursday",
					    "friday", "saturday", "sunday" };

	for (int i = 0; i < 7; i++)
		if (strcasecmp(s, days[i]) == 0 || (strlen(s) == 3 && strncasecmp(s, days[i], 3) == 0))
			return i;
	return -1;
}

static int leap(int y)
{
	return y % 4 == 0 && (y % 100 != 0 || y % 400 == 0);
}

/* A calendar date, YYYY-M-D with one or two digits for month and day. */
static int real_date(const char *s)
{
	static const int mdays[] = { 31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31 };
	int y, mo, dd, n = 0;

	/* NOLINTNEXTLINE(cert-err34-c): widths %4d %2d cannot overflow; the range is checked after */
	if (sscanf(s, "%4d-%2d-%2d%n", &y, &mo, &dd, &n) != 3 || s[n] || !isdigit((unsigned char)s[0]) ||
	    strchr(s, '+') || strchr(s, ' ') || mo < 1 || mo > 12 || dd < 1)
		return 0;
	return dd <= mdays[mo - 1] + (mo == 2 && leap(y));
}

/* An IANA zone name the system's zoneinfo holds (a TZif file under TZDIR). */
static int iana_zone(const char *name)
{
	const char *dir = getenv("TZDIR");
	char magic[4], *path;
	int fd, ok = 0;

	if (!*name || name[0] == '/' || strstr(name, "..") || strspn(name,
	    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789/_+-") != strlen(name))
		return 0;
	path = xasprintf("%s/%s", dir && *dir ? dir : "/usr/share/zoneinfo", name);
	if ((fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK)) >= 0) {
		ok = read(fd, magic, 4) == 4 && memcmp(magic, "TZif", 4) == 0;
		close(fd);
	}
	free(path);
	return ok;
}

/* chrono prints a NaiveTime as HH:MM:SS. */
static void window_pair(struct decode *d, int line, struct manifest_window *w)
{
	w->start = hhmm(w->start_text);
	w->end = hhmm(w->end_text);
	if (w->start < 0)
		decode_issue(d, line, "`%s` is not an HH:MM time", w->start_text);
	else if (w->end < 0)
		decode_issue(d, line, "`%s` is not an HH:MM time", w->end_text);
	else if (w->start >= w->end)
		decode_issue(d, line, "window `%02d:%02d:00`\u2013`%02d:%02d:00` ends before it starts",
			     w->start / 60, w->start % 60, w->end / 60, w->end % 60);
}

static void availability_check(struct decode *d, struct manifest_availability *a)
{
	int ranged = 1;

	if (!iana_zone(a->timezone))
		decode_issue(d, a->line, "`%s` is not an IANA timezone", a->timezone);
	if (a->ndurations == 0)
		decode_issue(d, a->line, "durations must name at least one");
	for (size_t i = 0; i < a->ndurations; i++)
		ranged &= a->durations[i] >= 5 && a->durations[i] <= 480;
	if (!ranged)
		decode_issue(d, a->line, "each duration must be 5\u2013480 minutes");
	if (a->nwindows == 0)
		decode_issue(d, a->line, "windows must name at least one");
	if (a->horizon_days < 1)
		decode_issue(d, a->line, "horizon_days must be at least 1");
	if (a->increment_minutes < 5)
		decode_issue(d, a->line, "increment_minutes must be at least 5");
	for (size_t i = 0; i < a->nwindows; i++) {
		struct manifest_window *w = &a->windows[i];
		if ((w->day = weekday(w->day_text)) < 0)
			decode_issue(d, a->line, "`%s` is not a weekday", w->day_text);
		window_pair(d, a->line, w);
	}
	for (size_t i = 0; i < a->noverrides; i++) {
		if (!real_date(a->overrides[i].date))
			decode_issue(d, a->line, "`%s` is not a YYYY-MM-DD date", a->overrides[i].date);
		for (size_t k = 0; k < a->overrides[i].nwindows; k++)
			window_pair(d, a->line, &a->overrides[i].windows[k]);
	}
}

static int has_file_field(const struct manifest *m)
{
	for (size_t i = 0; i < m->nfields; i++)
		if (m->fields[i].kind == MANIFEST_FILE)
			return 1;
	return 0;
}

/* A location goes into a mail's text: one line, no control characters, not empty, not long. */
static int location_ok(const char *s)
{
	size_t n = strlen(s);

	if (n == 0 || n > BOOKING_LOCATION_MAX)
		return 0;
	for (; *s; s++)
		if ((unsigned char)*s < 0x20 || *s == 0x7f)
			return 0;
	return 1;
}

void booking_check(struct decode *d, struct manifest *m)
{
	static const char *const defaults[] = { "24h", "1h" };
	const char *const *rem = m->policy ? (const char *const *)m->policy->reminders : defaults;
	size_t nrem = m->policy ? m->policy->nreminders : 2;

	if (!m->booking) {
		if (m->availability || m->policy)
			decode_issue(d, m->availability ? m->availability->line : m->policy->line,
				     "`%s` carries [availability] or [policy] but is not `kind = "
				     "\"booking\"` \u2014 nothing would read them, which is worse than an error",
				     m->id);
		return;
	}
	if (!m->availability)
		decode_issue(d, m->kind_line, "booking `%s` has no [availability] section, so no slot "
			     "could ever be offered", m->id);
	else
		availability_check(d, m->availability);
	if (!m->verification)
		decode_issue(d, m->kind_line, "booking `%s` has no [verification]: the magic-link click "
			     "is what converts a hold into a booking, so a booking type without one "
			     "has no way to book", m->id);
	if (m->nsteps)
		decode_issue(d, m->steps[0].line, "booking `%s` declares steps; a booking page is one "
			     "page", m->id);
	if (has_file_field(m))
		decode_issue(d, m->kind_line, "booking `%s` declares a file field; a booking takes no "
			     "attachments", m->id);
	if (m->policy && m->policy->location && !location_ok(m->policy->location))
		decode_issue(d, m->policy->line, "booking `%s` has a location that is not one line of "
			     "at most %d characters", m->id, BOOKING_LOCATION_MAX);
	for (size_t i = 0; i < nrem; i++)
		if (booking_reminder_minutes(rem[i]) < 0)
			decode_issue(d, m->policy ? m->policy->line : m->kind_line,
				     "booking `%s` has the reminder `%s`, which is not <n>m, <n>h or <n>d",
				     m->id, rem[i]);
}

static void windows_free(struct manifest_window *w, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		free(w[i].day_text);
		free(w[i].start_text);
		free(w[i].end_text);
	}
	free(w);
}

void booking_free(struct manifest_availability *a, struct manifest_policy *p)
{
	if (a) {
		free(a->timezone);
		free(a->durations);
		windows_free(a->windows, a->nwindows);
		for (size_t i = 0; i < a->noverrides; i++) {
			free(a->overrides[i].date);
			windows_free(a->overrides[i].windows, a->overrides[i].nwindows);
		}
		free(a->overrides);
		free(a);
	}
	if (p) {
		for (size_t i = 0; i < p->nreminders; i++)
			free(p->reminders[i]);
		free(p->reminders);
		free(p->location);
		free(p);
	}
}
