/*
 * calendar — libical does the parsing and the recurrence expansion; this file
 * decides what counts as busy and merges the answer.
 */
#include "calendar/calendar.h"

#include "base/buf.h"
#include "base/err.h"
#include "base/fs.h"
#include "base/rfc3339.h"

#include <dirent.h>
#include <libical/ical.h>
#include <stdlib.h>
#include <string.h>

struct collect {
	struct calendar_interval *v;
	size_t n, cap;
	time_t from, to;
};

static void add_interval(struct collect *c, time_t start, time_t end)
{
	if (end <= c->from || start >= c->to || end <= start)
		return;
	if (start < c->from)
		start = c->from;
	if (end > c->to)
		end = c->to;
	if (c->n == c->cap) {
		c->cap = c->cap ? c->cap * 2 : 32;
		c->v = xrealloc(c->v, c->cap * sizeof *c->v);
	}
	c->v[c->n].start = start;
	c->v[c->n].end = end;
	c->n++;
}

static void on_occurrence(icalcomponent *comp, struct icaltime_span *span, void *data)
{
	add_interval(data, span->start, span->end);
}

/* Transparent and cancelled events do not make the person busy. */
static int is_busy(icalcomponent *ev)
{
	icalproperty *p = icalcomponent_get_first_property(ev, ICAL_TRANSP_PROPERTY);

	if (p && icalproperty_get_transp(p) == ICAL_TRANSP_TRANSPARENT)
		return 0;
	return icalcomponent_get_status(ev) != ICAL_STATUS_CANCELLED;
}

static void collect_component(icalcomponent *top, struct collect *c)
{
	icaltimezone *utc = icaltimezone_get_utc_timezone();
	struct icaltimetype from = icaltime_from_timet_with_zone(c->from, 0, utc);
	struct icaltimetype to = icaltime_from_timet_with_zone(c->to, 0, utc);
	icalcomponent *ev;

	if (icalcomponent_isa(top) == ICAL_VEVENT_COMPONENT) {
		if (is_busy(top))
			icalcomponent_foreach_recurrence(top, from, to, on_occurrence, c);
		return;
	}
	for (ev = icalcomponent_get_first_component(top, ICAL_VEVENT_COMPONENT); ev;
	     ev = icalcomponent_get_next_component(top, ICAL_VEVENT_COMPONENT))
		if (is_busy(ev))
			icalcomponent_foreach_recurrence(ev, from, to, on_occurrence, c);
}

static int collect_file(const char *path, struct collect *c, struct err *e)
{
	char *text;
	size_t len;
	icalcomponent *top;

	if (fs_read(path, &text, &len, e) != 0)
		return -1;
	top = icalparser_parse_string(text);
	free(text);
	if (!top)
		return err_set(e, ERR_PARSE, "%s is not an iCalendar file", path);
	collect_component(top, c);
	icalcomponent_free(top);
	return 0;
}

static int collect_vdir(const char *dir, struct collect *c, struct err *e)
{
	DIR *d = opendir(dir);
	struct dirent *ent;
	int rc = 0;

	if (!d)
		return err_errno(e, "reading the calendar %s", dir);
	while (rc == 0 && (ent = readdir(d))) {
		size_t n = strlen(ent->d_name);
		if (ent->d_name[0] == '.' || n < 5 || strcmp(ent->d_name + n - 4, ".ics") != 0)
			continue;
		char *p = fs_join(dir, ent->d_name);
		rc = collect_file(p, c, e);
		free(p);
	}
	closedir(d);
	return rc;
}

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

int calendar_busy(const char *path, time_t from, time_t to, struct calendar_interval **out,
		  size_t *n, struct err *e)
{
	struct collect c = { NULL, 0, 0, from, to };
	int isdir, rc;

	*out = NULL;
	*n = 0;
	if (!path || !*path)
		return err_set(e, ERR_NOT_FOUND, "no calendar is configured ([calendar] path)");
	if (to <= from)
		return err_set(e, ERR_BAD_WINDOW, "the window ends before it starts");
	if (to - from > (time_t)CALENDAR_MAX_WINDOW_DAYS * 86400)
		return err_set(e, ERR_BAD_WINDOW, "the window is longer than %d days",
				  CALENDAR_MAX_WINDOW_DAYS);
	isdir = fs_is_dir(path, e);
	if (isdir < 0)
		return -1;
	rc = isdir ? collect_vdir(path, &c, e) : collect_file(path, &c, e);
	if (rc != 0) {
		free(c.v);
		return -1;
	}
	*n = merge(c.v, c.n);
	*out = c.v;
	return 0;
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
