/*
 * slotrule — the open-slot rule, as a sweep over blocked times parsed once.
 */
#include "box/slotrule.h"

#include "base/buf.h"
#include "base/rfc3339.h"

#include <stdlib.h>

struct span {
	time_t start, end;
};

static int time_of(const json_t *o, const char *key, time_t *out)
{
	const char *s = json_string_value(json_object_get(o, key));

	return s && rfc3339_parse(s, out) == 0 ? 0 : -1;
}

static int span_by_start(const void *a, const void *b)
{
	const struct span *x = a, *y = b;

	return (x->start > y->start) - (x->start < y->start);
}

static int slot_by_start(const void *a, const void *b)
{
	const struct slotrule_slot *x = a, *y = b;

	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	if (x->minutes != y->minutes)
		return x->minutes < y->minutes ? -1 : 1;
	return (x->index > y->index) - (x->index < y->index);
}

/*
 * The blocked spans in start order, each end raised to the latest end so far
 * (so "does any span starting before t end after u" is one look at the last
 * span starting before t). Returns how many, or -1 when one does not parse.
 */
static long blocked_spans(const json_t *blocked, struct span **out)
{
	size_t n = json_is_array(blocked) ? json_array_size(blocked) : 0, i;
	const json_t *b;

	*out = xcalloc(n + 1, sizeof **out);
	json_array_foreach(blocked, i, b)
		if (time_of(b, "start", &(*out)[i].start) != 0 ||
		    time_of(b, "end", &(*out)[i].end) != 0)
			return -1;
	qsort(*out, n, sizeof **out, span_by_start);
	for (i = 1; i < n; i++)
		if ((*out)[i].end < (*out)[i - 1].end)
			(*out)[i].end = (*out)[i - 1].end;
	return (long)n;
}

/* 1 when some span overlaps [start, end): the last one starting before end ends after start. */
static int overlaps(const struct span *v, size_t n, time_t start, time_t end)
{
	size_t lo = 0, hi = n; /* the first span with start >= end is at lo */

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (v[mid].start < end)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo > 0 && v[lo - 1].end > start;
}

static int well_formed(const json_t *s, struct slotrule_slot *out)
{
	const json_t *mins = json_object_get(s, "duration_minutes");

	if (time_of(s, "start", &out->start) != 0 || time_of(s, "end", &out->end) != 0 ||
	    !json_is_integer(mins) || json_integer_value(mins) <= 0 || out->end <= out->start)
		return 0;
	out->minutes = json_integer_value(mins);
	return 1;
}

size_t slotrule_parse(const json_t *slots, struct slotrule_slot **out)
{
	size_t total = json_is_array(slots) ? json_array_size(slots) : 0, n = 0, i;
	const json_t *s;

	*out = xcalloc(total + 1, sizeof **out);
	json_array_foreach(slots, i, s)
		if (well_formed(s, &(*out)[n]))
			(*out)[n++].index = i;
	qsort(*out, n, sizeof **out, slot_by_start);
	return n;
}

size_t slotrule_open(const struct slotrule_slot *all, size_t n, const json_t *blocked, time_t now,
		     struct slotrule_slot **out)
{
	struct span *spans;
	long nspans = blocked_spans(blocked, &spans);
	size_t k = 0;

	*out = xcalloc(n + 1, sizeof **out);
	for (size_t i = 0; nspans >= 0 && i < n; i++) /* a row we cannot read blocks everything */
		if (all[i].start > now &&
		    !overlaps(spans, (size_t)nspans, all[i].start, all[i].end))
			(*out)[k++] = all[i];
	free(spans);
	return k;
}
