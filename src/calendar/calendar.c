/*
 * calendar — the free/busy answer: the window checked, the person's zone
 * found, every file of the calendar read (reader.c), the intervals merged.
 * One failure anywhere fails the answer; there is no partial free/busy.
 */
#include "calendar/calendar.h"

#include "base/buf.h"
#include "base/dl.h"
#include "base/err.h"
#include "base/fs.h"
#include "base/rfc3339.h"
#include "base/text.h"
#include "calendar/reader.h"
#include "calendar/source.h"
#include "calendar/zone.h"
#include "config/config.h"

#include <stdlib.h>
#include <string.h>

static int by_start(const void *a, const void *b)
{
	const struct calendar_interval *x = a, *y = b;

	return x->start < y->start ? -1 : x->start > y->start;
}

/* Sorts, then coalesces overlapping or touching intervals. */
static size_t merge(struct calendar_interval *v, size_t n)
{
	size_t out = 0;

	if (n == 0)
		return 0;
	qsort(v, n, sizeof *v, by_start);
	for (size_t i = 0; i < n; i++) {
		if (out > 0 && v[i].start <= v[out - 1].end) {
			if (v[i].end > v[out - 1].end)
				v[out - 1].end = v[i].end;
		} else {
			v[out++] = v[i];
		}
	}
	return out;
}

static int check_window(time_t from, time_t to, struct err *e)
{
	if (to <= from)
		return err_set(e, ERR_BAD_WINDOW, "the window ends before it starts");
	if (to - from > (time_t)CALENDAR_MAX_WINDOW_DAYS * 86400)
		return err_set(e, ERR_BAD_WINDOW, "the window is longer than %d days",
			       CALENDAR_MAX_WINDOW_DAYS);
	return 0;
}

/*
 * A zone the person set must work; the system's is needed only by a floating
 * time or a date, and only such an event fails without it (why says why).
 */
static int local_zone(const char *configured, struct reader *r, struct err *why, struct err *e)
{
	char name[ZONE_NAME_MAX];

	err_clear(why);
	r->local = zone_local(configured, name, why);
	r->local_why = why->msg;
	if (!r->local && configured && *configured) {
		*e = *why;
		return -1;
	}
	return 0;
}

int calendar_busy_conf(const struct config *cfg, time_t from, time_t to,
		       struct calendar_interval **out, size_t *n, struct err *e)
{
	struct reader r = { .from = from, .to = to };
	struct source s;
	struct err why;
	int rc;

	*out = NULL;
	*n = 0;
	source_from_config(cfg, &s);
	if (!s.path || !*s.path)
		return err_set(e, ERR_NOT_FOUND, "no calendar is configured ([calendar] path)");
	if (config_require(cfg, CONFIG_NEEDS_CALENDAR, e) != 0 || dl_require(DL_ICAL, e) != 0)
		return -1;
	if (check_window(from, to, e) != 0 || local_zone(cfg->calendar_timezone, &r, &why, e) != 0)
		return -1;
	r.zones = zone_cache_new();
	rc = source_each(&s, reader_file, &r, e);
	zone_cache_free(r.zones);
	if (rc != 0) {
		free(r.v);
		return -1;
	}
	*n = merge(r.v, r.n);
	*out = r.v;
	return 0;
}

int calendar_busy_ics(const char *name, const char *text, size_t len, const char *zone,
		      time_t from, time_t to, struct calendar_interval **out, size_t *n,
		      struct err *e)
{
	struct reader r = { .from = from, .to = to };
	struct err why;

	*out = NULL;
	*n = 0;
	if (dl_require(DL_ICAL, e) != 0 || check_window(from, to, e) != 0 ||
	    local_zone(zone, &r, &why, e) != 0)
		return -1;
	if (reader_text(name, text, len, &r, e) != 0) {
		free(r.v);
		return -1;
	}
	*n = merge(r.v, r.n);
	*out = r.v;
	return 0;
}

int calendar_is_free_conf(const struct config *cfg, time_t start, time_t end, struct err *e)
{
	struct calendar_interval *v;
	size_t n;

	if (calendar_busy_conf(cfg, start, end, &v, &n, e) != 0)
		return -1;
	free(v);
	return n == 0;
}

/*
 * The path callers predate the zone and the collections: config.toml gives
 * them, the collections only when path is the configured calendar (they name
 * directories under it).
 */
int calendar_busy(const char *path, time_t from, time_t to, struct calendar_interval **out,
		  size_t *n, struct err *e)
{
	struct config cfg;
	char *configured;
	int rc;

	*out = NULL;
	*n = 0;
	if (config_load(&cfg, e) != 0)
		return -1;
	configured = cfg.calendar_path;
	if (!configured || !path || strcmp(configured, path) != 0)
		cfg.ncalendar_collections = 0;
	cfg.calendar_path = path ? xstrdup(path) : NULL;
	rc = calendar_busy_conf(&cfg, from, to, out, n, e);
	free(configured);
	config_free(&cfg);
	return rc;
}

int calendar_is_free(const char *path, time_t start, time_t end, struct err *e)
{
	struct calendar_interval *v;
	size_t n;

	if (calendar_busy(path, start, end, &v, &n, e) != 0)
		return -1;
	free(v);
	return n == 0;
}

json_t *calendar_intervals_json(const struct calendar_interval *v, size_t n)
{
	json_t *out = json_array();
	char a[RFC3339_LEN], b[RFC3339_LEN];

	for (size_t i = 0; i < n; i++) {
		rfc3339_format(v[i].start, a);
		rfc3339_format(v[i].end, b);
		json_array_append_new(out, json_pack("{s:s,s:s}", "start", a, "end", b));
	}
	return out;
}

/* "2026-10-24 09:00" in zone. */
static void local_text(time_t t, icaltimezone *zone, char out[32])
{
	struct icaltimetype w = icaltime_from_timet_with_zone(t, 0, zone);

	snprintf(out, 32, "%04d-%02d-%02d %02d:%02d", w.year, w.month, w.day, w.hour, w.minute);
}

char *calendar_busy_text(const struct config *cfg, const struct calendar_interval *v, size_t n,
			 struct err *e)
{
	char name[ZONE_NAME_MAX], a[32], b[32], ua[RFC3339_LEN], ub[RFC3339_LEN];
	icaltimezone *zone = zone_local(cfg->calendar_timezone, name, e);
	struct buf out = BUF_INIT;

	if (!zone && cfg->calendar_timezone && *cfg->calendar_timezone)
		return NULL;
	if (!zone) { /* the system's zone is unknown: the UTC column says it all */
		zone = icaltimezone_get_utc_timezone();
		snprintf(name, sizeof name, "UTC");
	}
	for (size_t i = 0; i < n; i++) {
		local_text(v[i].start, zone, a);
		local_text(v[i].end, zone, b);
		rfc3339_format(v[i].start, ua);
		rfc3339_format(v[i].end, ub);
		buf_printf(&out, "%s → %s %s  (%s → %s)\n", a, b, name, ua, ub);
	}
	return buf_steal(&out);
}

/* ---- counting, for mecha doctor ----------------------------------------------- */

struct count {
	size_t files;
	struct reader *r;
};

/* A blank file holds no events (the busy reader refuses it; doctor counts it as empty). */
static int count_file(const char *path, void *ctx, struct err *e)
{
	struct count *k = ctx;
	char *text;
	size_t len;
	int rc = 0;

	if (fs_read(path, &text, &len, e) != 0)
		return -1;
	if (!text_blank_n(text, len))
		rc = reader_text(path, text, len, k->r, e);
	k->files += rc == 0;
	free(text);
	return rc;
}

int calendar_count_conf(const struct config *cfg, size_t *files, size_t *events, struct err *e)
{
	struct reader r = { .count = 1 };
	struct count k = { 0, &r };
	struct source s;
	int rc;

	*files = *events = 0;
	source_from_config(cfg, &s);
	if (!s.path || !*s.path)
		return err_set(e, ERR_NOT_FOUND, "no calendar is configured ([calendar] path)");
	if (config_require(cfg, CONFIG_NEEDS_CALENDAR, e) != 0 || dl_require(DL_ICAL, e) != 0)
		return -1;
	r.zones = zone_cache_new();
	rc = source_each(&s, count_file, &k, e);
	zone_cache_free(r.zones);
	if (rc != 0)
		return -1;
	*files = k.files;
	*events = r.events;
	return 0;
}
