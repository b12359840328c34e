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
 * mission box (every chain linear), the caches (.types, the box's index), and
 * the queue (queue.c): what has waited on the owner too long, each with the
 * verb that settles it.
 *
 * The rule: a check reads and never writes. No store is opened to write, no
 * lock file, cache or index is made or rebuilt on disk, no message is sent and
 * no completion is asked for; a home is byte for byte, mode for mode what it
 * was. A check that cannot run (the configuration does not load) says so as a
 * warning rather than guessing.
 *
 * Calling sequence:
 *     struct doctor_report r;
 *     doctor_run(offline ? DOCTOR_OFFLINE : 0, offers, &r);
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

struct err;
struct sweep_offers;

enum doctor_status { DOCTOR_OK, DOCTOR_WARN, DOCTOR_FAIL };

struct doctor_line {
	char *check;  /* "home", "permissions", "config", … */
	enum doctor_status status;
	char *detail; /* what was found; may hold text from files (render it safely) */
	char *fix;    /* what to do; NULL when ok */
	json_t *item; /* the queue section's finding as data ({kind, seq | id, ...}); NULL */
};

struct doctor_report {
	struct doctor_line *lines;
	size_t n;
};

enum {
	DOCTOR_OFFLINE = 1, /* reach no provider and no SMTP server */
	DOCTOR_DIGEST = 2,  /* the queue section alone (and home or config when they fail) */
};

/*
 * Runs every check, in order, into *out. It cannot fail: what goes wrong is a line.
 * offers (borrowed, may be NULL) is the sweep's judge of what home offered
 * (frontdoor/sweep_offer.h), so the queue section says of a booking what the
 * sweep would; without it every booking reads as not offered.
 */
void doctor_run(unsigned flags, const struct sweep_offers *offers, struct doctor_report *out);
void doctor_report_free(struct doctor_report *r);

/* 1 when any line is a fail (the exit status is then 1). */
int doctor_failed(const struct doctor_report *r);
/* "ok", "warn" or "fail". */
const char *doctor_status_name(enum doctor_status s);
/*
 * The digest of a DOCTOR_DIGEST report: a heading ("3 things have waited too
 * long"), then each line that is not ok and the verb that settles it, text
 * from files made visible. NULL when nothing in r needs saying. New string.
 */
char *doctor_digest_text(const struct doctor_report *r);

/*
 * Mails the digest of r to [notify] digest_to from [mail] from, through the
 * mail route, when it has something in it: 1 sent, 0 nothing to send, -1 with
 * e ("config" when digest_to is unset or the configuration does not load;
 * the mail route's codes when it did not go).
 */
int doctor_digest_mail(const struct doctor_report *r, struct err *e);

/* [{check, status, detail, fix}] (fix null when ok; a queue finding adds item): NEW reference. */
json_t *doctor_report_json(const struct doctor_report *r);

#endif
