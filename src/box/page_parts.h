/*
 * page_parts — what the page files share: the document around a page, the
 * manifest's fields as controls, the error summary, and wall-clock times in
 * a zone. Internal to src/box's pages; page.h is the interface.
 *
 * Ownership: output goes into a caller's struct buf; everything passed in is
 * borrowed. page_zone_load/parse return a zone page_zone_free releases.
 */
#ifndef MECHA_BOX_PAGE_PARTS_H
#define MECHA_BOX_PAGE_PARTS_H

#include <jansson.h>
#include <stddef.h>
#include <time.h>

struct buf;
struct manifest;
struct manifest_ack;
struct manifest_field;
struct page_ctx;

/* ---- the document (page_form.c) --------------------------------------------------------- */

enum { PAGE_WITH_SCRIPT = 1 };

/* <!doctype html> … <main>: the title, the stylesheet, the script when flags ask for it. */
void page_open(struct buf *b, const struct page_ctx *ctx, const char *title, unsigned flags);
/* </main> … </html>, and the document handed over. */
char *page_close(struct buf *b);
/* A page of a heading and one paragraph of our own text (already markup, from literals). */
char *page_simple(const struct page_ctx *ctx, const char *title, const char *heading,
		  const char *paragraph);

/* ---- fields (page_form.c) -------------------------------------------------------------- */

/*
 * The error summary for errors (nothing when there are none), in the page's
 * order, each line linking to its field's control when body (the markup the
 * summary stands above) holds it.
 */
void page_error_summary(struct buf *b, const struct manifest *m, const json_t *errors,
			const char *body);
/* One field as its control (a file field a note, unless upload), its kept value, its errors. */
void page_field(struct buf *b, const struct manifest *m, const struct manifest_field *f,
		const json_t *values, const json_t *errors, int upload);
/* One acknowledgment: a required checkbox. */
void page_ack(struct buf *b, const struct manifest_ack *a, const json_t *values,
	      const json_t *errors);
/*
 * The [confirmation] (m->confirmation must be set) filled from values: heading,
 * the booked time when when_start is given, body, the reply promise.
 */
void page_confirmation(struct buf *b, const struct manifest *m, const json_t *values,
		       const char *when_start, const char *when_end);
/* 1 when some field or step of m has a show_when (the page links PAGE_JS). */
int page_has_conditions(const struct manifest *m);

/* ---- wall-clock time (page_zone.c, page_booking.c) --------------------------------------- */

struct page_zone;

/* The zone called name under $TZDIR (default /usr/share/zoneinfo), or NULL when unreadable. */
struct page_zone *page_zone_load(const char *name);
/* A TZif file's bytes as a zone, or NULL when they are not one. */
struct page_zone *page_zone_parse(const unsigned char *data, size_t len);
/* Seconds east of UTC on the zone's clocks at t (NULL: UTC, 0). */
long page_zone_offset(const struct page_zone *z, time_t t);
void page_zone_free(struct page_zone *z);

/* A UTC instant on a zone's wall clock. */
struct page_local {
	long long day; /* days since 1970-01-01 of the local date */
	int year, month, mday, wday, hour, minute; /* month 1-12, wday 0 = Sunday */
};
/* "Tuesday, Aug 25 · 2:00 pm – 2:30 pm (America/New_York)" into b; nothing for a bad time. */
void page_when(struct buf *b, const struct manifest *m, const char *start, const char *end);
/* The same time as plain text (a mail's), appended to b; -1 when a time does not read. */
int page_when_text(struct buf *b, const struct manifest *m, const char *start, const char *end);

#endif
