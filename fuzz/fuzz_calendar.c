/*
 * fuzz_calendar — an .ics file is whatever a calendar server, a sync tool or
 * an invitation from a stranger put there, and free/busy is the answer a
 * privileged run books against. Each input is read by the calendar layer
 * (calendar_busy_ics: the check, the reader and the merge every calendar file
 * gets) over two fixed months, twice:
 *
 *   - as it is: the answer is an error naming the file, or intervals that are
 *     sorted, merged, non-empty and inside the window — never a crash, a leak
 *     or a read past the text;
 *   - after a calendar holding one busy hour (the canary): unless the input
 *     names the canary's UID (an override may move or cancel it, as RFC 5545
 *     allows), an answer that is not an error shows that hour busy. Whatever
 *     the input does, it cannot turn a busy hour free by being unreadable:
 *     never "free" when unsure.
 */
#include "base/buf.h"
#include "base/err.h"
#include "calendar/calendar.h"

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* October and November 2026, where the corpus files (tests/fixtures/calendar) have their events. */
#define FROM 1790812800 /* 2026-10-01T00:00:00Z */
#define TO (FROM + 61 * 86400)
#define CANARY_START (FROM + 10 * 3600)
#define CANARY_END (CANARY_START + 3600)
#define CANARY_UID "mechacanaryuid"

static const char canary[] = "BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//mecha//fuzz//EN\r\n"
			     "BEGIN:VEVENT\r\nUID:" CANARY_UID "\r\nDTSTAMP:20260101T000000Z\r\n"
			     "DTSTART:20261001T100000Z\r\nDTEND:20261001T110000Z\r\n"
			     "END:VEVENT\r\nEND:VCALENDAR\r\n";

/*
 * 1 when the input could name the canary's UID: compared without case, line
 * folds and backslashes (libical unfolds, and may drop an unknown escape).
 */
static int names_canary(const char *s, size_t n)
{
	struct buf flat = BUF_INIT;
	int found;

	for (size_t i = 0; i < n; i++)
		if (s[i] != '\\' && s[i] != '\r' && s[i] != '\n' && s[i] != ' ' && s[i] != '\t')
			buf_addc(&flat, s[i]);
	found = flat.len > 0 && strcasestr(buf_str(&flat), CANARY_UID) != NULL;
	buf_free(&flat);
	return found;
}

/* Sorted, merged (not even touching), non-empty, inside the window. */
static void check_intervals(const struct calendar_interval *v, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		if (v[i].start < FROM || v[i].end > TO || v[i].start >= v[i].end)
			__builtin_trap();
		if (i > 0 && v[i].start <= v[i - 1].end)
			__builtin_trap();
	}
}

/* -1: an error (checked); else 1 when [a, b) lies inside one busy interval. */
static int busy_over(const char *text, size_t len, time_t a, time_t b)
{
	struct calendar_interval *v;
	struct err e;
	size_t n;
	int covered = 0;

	err_clear(&e);
	if (calendar_busy_ics("fuzz.ics", text, len, "Europe/Berlin", FROM, TO, &v, &n, &e) != 0) {
		if (e.code != ERR_PARSE || strncmp(e.msg, "fuzz.ics", 8) != 0)
			__builtin_trap(); /* an unreadable calendar is a parse error naming it */
		return -1;
	}
	check_intervals(v, n);
	for (size_t i = 0; i < n; i++)
		covered |= v[i].start <= a && v[i].end >= b;
	free(v);
	return covered;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct buf text = BUF_INIT;

	buf_add(&text, data, size); /* NUL-terminated, as a file read is */
	busy_over(buf_str(&text), text.len, FROM, FROM);
	buf_reset(&text);
	buf_adds(&text, canary);
	buf_add(&text, data, size);
	if (busy_over(buf_str(&text), text.len, CANARY_START, CANARY_END) == 0 &&
	    !names_canary((const char *)data, size))
		__builtin_trap(); /* the canary's busy hour was answered free */
	buf_free(&text);
	return 0;
}
