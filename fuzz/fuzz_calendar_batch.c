/*
 * fuzz_calendar_batch — a large calendar is placed a batch of events at a time
 * (calendar/reader.c); each input is read whole and cut into the smallest
 * batches (one UID group each), and the two answers must agree: the same
 * failure with the same message, or, when both succeed, every busy second of
 * the whole reading busy in the batched one (the batched one may only add busy
 * time, where two UID lines differ in bytes but mean one UID). Both read the
 * input twice with one zone cache, as two files of a vdir, so the second
 * meets every VTIMEZONE known and parses the text without them; a third
 * reading without the cache (everything parsed as written) must give the
 * very same answer. No crash, leak or read past the text either way.
 */
#include "base/dl.h"
#include "base/err.h"
#include "calendar/calendar.h"
#include "calendar/reader.h"
#include "calendar/zone.h"

#include <libical/ical.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define FROM 1790812800 /* 2026-10-01T00:00:00Z, where the corpus files have their events */
#define TO (FROM + 61 * 86400)

static int by_start(const void *a, const void *b)
{
	const struct calendar_interval *x = a, *y = b;

	return (x->start > y->start) - (x->start < y->start);
}

/* Sorted and merged in place; the count. */
static size_t merged(struct calendar_interval *v, size_t n)
{
	size_t k = 0;

	if (n == 0)
		return 0;
	qsort(v, n, sizeof *v, by_start);
	for (size_t i = 1; i < n; i++) {
		if (v[i].start <= v[k].end) {
			if (v[i].end > v[k].end)
				v[k].end = v[i].end;
		} else {
			v[++k] = v[i];
		}
	}
	return k + 1;
}

/* Reads text with the batch; with a zone cache (read twice, as two files of one calendar) or without. */
static int read_with(const char *text, size_t len, size_t batch, int cached, struct reader *r,
		     struct err *e)
{
	int rc;

	memset(r, 0, sizeof *r);
	r->from = FROM;
	r->to = TO;
	r->local = icaltimezone_get_utc_timezone();
	r->batch = batch;
	r->zones = cached ? zone_cache_new() : NULL;
	rc = reader_text("fuzz.ics", text, len, r, e);
	if (rc == 0 && cached) {
		r->n = 0; /* the second reading meets every VTIMEZONE known */
		rc = reader_text("fuzz.ics", text, len, r, e);
	}
	zone_cache_free(r->zones);
	r->n = rc == 0 ? merged(r->v, r->n) : 0;
	return rc;
}

/* Whether [s, t) lies inside one of v's merged intervals. */
static int covered(const struct calendar_interval *v, size_t n, time_t s, time_t t)
{
	for (size_t i = 0; i < n; i++)
		if (v[i].start <= s && t <= v[i].end)
			return 1;
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct reader whole, cut, plain;
	struct err e1, e2, e3;
	char *text;
	int a, b, c;

	if (size > 256 * 1024 || dl_require(DL_ICAL, &e1) != 0)
		return 0;
	text = malloc(size + 1);
	if (!text)
		return 0;
	memcpy(text, data, size);
	text[size] = '\0';
	a = read_with(text, size, SIZE_MAX, 1, &whole, &e1);
	b = read_with(text, size, 1, 1, &cut, &e2);
	c = read_with(text, size, SIZE_MAX, 0, &plain, &e3);
	if (a != b || a != c)
		__builtin_trap(); /* one reading failed and another did not */
	if (a != 0 && (strcmp(e1.msg, e2.msg) != 0 || strcmp(e1.msg, e3.msg) != 0))
		__builtin_trap(); /* the batched or the uncached reading named another error */
	for (size_t i = 0; a == 0 && i < whole.n; i++)
		if (!covered(cut.v, cut.n, whole.v[i].start, whole.v[i].end))
			__builtin_trap(); /* busy whole, free batched */
	if (a == 0 && (whole.n != plain.n ||
		       (whole.n && memcmp(whole.v, plain.v, whole.n * sizeof *whole.v) != 0)))
		__builtin_trap(); /* the VTIMEZONEs left out of the parse changed the answer */
	free(whole.v);
	free(cut.v);
	free(plain.v);
	free(text);
	return 0;
}
