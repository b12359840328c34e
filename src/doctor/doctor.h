/*
 * doctor — `mecha doctor`: a home checked from end to end, changing nothing.
 *
 * One line per check, each ok, warn or fail with what was found and, unless
 * it is ok, the fix: the home and its permissions (directories 0700, files
 * 0600), the configuration and what it means, the temporary files a killed
 * write left in the stores, the provider (one GET of its
 * models list, or skipped offline), the mail route (SMTP up to EHLO and the
 * login, nothing sent; or the sendmail program), the calendar (read, with its
 * event count), the outbox route, the request types, the MCP tool list, the
 * mission box (every chain linear), and the caches (.types, the box's index).
 *
 * The rule: a check reads and never writes. No store is opened to write, no
 * lock file, cache or index is made or rebuilt on disk, no message is sent and
 * no completion is asked for; a home is byte for byte, mode for mode what it
 * was. A check that cannot run (the configuration does not load) says so as a
 * warning rather than guessing.
 *
 * Calling sequence:
 *     struct doctor_report r;
 *     doctor_run(offline ? DOCTOR_OFFLINE : 0, &r);
 *     ... r.lines[i] ...; doctor_failed(&r) ? 1 : 0
 *     doctor_report_free(&r);
 *
 * Ownership: the report owns its lines and their strings; doctor_report_json
 * returns a NEW reference.
 */
#ifndef MECHA_DOCTOR_DOCTOR_H
#define MECHA_DOCTOR_DOCTOR_H

#include <jansson.h>
#include <stddef.h>

enum doctor_status { DOCTOR_OK, DOCTOR_WARN, DOCTOR_FAIL };

struct doctor_line {
	char *check;  /* "home", "permissions", "config", … */
	enum doctor_status status;
	char *detail; /* what was found; may hold text from files (render it safely) */
	char *fix;    /* what to do; NULL when ok */
};

struct doctor_report {
	struct doctor_line *lines;
	size_t n;
};

enum {
	DOCTOR_OFFLINE = 1, /* reach no provider and no SMTP server */
};

/* Runs every check, in order, into *out. It cannot fail: what goes wrong is a line. */
void doctor_run(unsigned flags, struct doctor_report *out);
void doctor_report_free(struct doctor_report *r);

/* 1 when any line is a fail (the exit status is then 1). */
int doctor_failed(const struct doctor_report *r);
/* "ok", "warn" or "fail". */
const char *doctor_status_name(enum doctor_status s);
/* [{check, status, detail, fix}] (fix null when ok): NEW reference. */
json_t *doctor_report_json(const struct doctor_report *r);

#endif
