/*
 * box_pages_dump — every page src/box/page*.c renders, for the starter
 * manifests, written as files for the HTML checks to read:
 * tests/cli/test_box_pages_html.py (Python's parser: structure, label
 * bindings, CSP) and tests/web (html-validate).
 *
 * Usage: box_pages_dump FIXTURES_DIR OUT_DIR
 * Writes OUT_DIR/<page>.html, one per page and state, OUT_DIR/index.txt
 * naming them, and the assets (form.css, form.js). Exits 1 on any failure.
 */
#include "base/buf.h"
#include "base/err.h"
#include "base/fs.h"
#include "box/page.h"
#include "box/slotrule.h"
#include "types/manifest.h"
#include "types/validate.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static const char *out_dir;
static struct buf index_text = BUF_INIT;

static void write_file(const char *name, const char *text)
{
	char *path = xasprintf("%s/%s", out_dir, name);
	struct err e;

	if (fs_replace(path, text, strlen(text), &e) != 0) {
		fprintf(stderr, "box_pages_dump: %s\n", e.msg);
		exit(1);
	}
	free(path);
}

static void save(const char *name, char *html)
{
	char *file = xasprintf("%s.html", name);

	write_file(file, html);
	buf_printf(&index_text, "%s\n", file);
	free(file);
	free(html);
}

static struct manifest *load(const char *dir, const char *id)
{
	char *path = xasprintf("%s/%s.toml", dir, id), *text;
	struct manifest_issues is = { NULL, 0 };
	struct manifest *m;
	struct err e;
	size_t len;

	if (fs_read(path, &text, &len, &e) != 0 || !(m = manifest_parse(text, len, &is))) {
		fprintf(stderr, "box_pages_dump: %s does not load\n", path);
		exit(1);
	}
	free(text);
	free(path);
	return m;
}

/* The errors validate_submission gives for raw (a JSON text), or NULL when it is valid. */
static json_t *errors_for(const struct manifest *m, const json_t *raw)
{
	json_t *record = NULL, *errors = NULL;
	struct err e;

	validate_submission(m, raw, VALIDATE_SUBMIT, &record, &errors, &e);
	json_decref(record);
	return errors;
}

/* Answers a stranger might post, every one of them wrong or hostile somewhere. */
static const char *const hostile =
	"{\"requester_name\": \"\\\"><script>alert('x')</script> & co\","
	" \"requester_email\": \"not an address\", \"purpose\": \"other\", \"agenda\": \"</textarea><b>\","
	" \"programs\": [\"phd\", \"fellowship\"], \"deadline\": \"2020-01-01\","
	" \"travel_covered\": \"true\", \"position\": \"postdoc\", \"years_experience\": \"many\","
	" \"topic\": \"<i>hello</i>\", \"t\": \"a\\nb\", \"ms\": [\"x\", \"y\", \"z\"], \"b\": \"maybe\"}";

static void form_pages(const char *dir, const char *id, const char *json_raw)
{
	struct manifest *m = load(dir, id);
	char *base = xasprintf("/f/alice/%s", id), *assets = xasprintf("/f/alice/%s/", id), *name;
	struct page_ctx ctx = { base, assets, NULL };
	json_t *raw = json_loads(json_raw, 0, NULL), *errors, *kept;
	const char *key;
	json_t *v;

	kept = json_object();
	json_object_foreach(raw, key, v) /* only what this type asks for: a stranger's own answers */
		if (manifest_field(m, key) || manifest_ack(m, key))
			json_object_set(kept, key, v);
	errors = errors_for(m, kept);
	save(name = xasprintf("form-%s", id), page_form(&ctx, m, NULL, NULL)), free(name);
	save(name = xasprintf("form-%s-errors", id), page_form(&ctx, m, kept, errors)), free(name);
	save(name = xasprintf("upload-%s", id), page_upload(&ctx, m, kept, NULL)), free(name);
	save(name = xasprintf("upload-%s-errors", id), page_upload(&ctx, m, kept, errors)), free(name);
	save(name = xasprintf("check-email-%s", id), page_check_email(&ctx, m, "a&b@example.org")), free(name);
	save(name = xasprintf("confirm-%s", id), page_confirm(&ctx, m)), free(name);
	save(name = xasprintf("confirmed-%s", id), page_confirmed(&ctx, m, kept)), free(name);
	save(name = xasprintf("expired-%s", id), page_expired(&ctx, m)), free(name);
	save(name = xasprintf("spent-queued-%s", id), page_form_spent(&ctx, m, "queued")), free(name);
	save(name = xasprintf("spent-awaiting-%s", id), page_form_spent(&ctx, m, "awaiting_upload")), free(name);
	save(name = xasprintf("spent-uploaded-%s", id), page_form_spent(&ctx, m, "uploaded")), free(name);
	json_decref(errors);
	json_decref(kept);
	json_decref(raw);
	manifest_free(m);
	free(base);
	free(assets);
}

static void booking_pages(const char *dir)
{
	struct manifest *m = load(dir, "book");
	struct page_ctx ctx = { "/s/alice/book", "/s/alice/book/", NULL };
	json_t *slots = json_loads(
		"[{\"start\":\"2026-03-03T18:00:00Z\",\"end\":\"2026-03-03T18:30:00Z\",\"duration_minutes\":30},"
		" {\"start\":\"2026-03-03T18:30:00Z\",\"end\":\"2026-03-03T19:00:00Z\",\"duration_minutes\":30},"
		" {\"start\":\"2026-03-03T18:00:00Z\",\"end\":\"2026-03-03T19:00:00Z\",\"duration_minutes\":60},"
		" {\"start\":\"2026-03-05T14:30:00Z\",\"end\":\"2026-03-05T15:00:00Z\",\"duration_minutes\":30},"
		" {\"start\":\"2026-03-05T14:30:00Z\",\"end\":\"2026-03-05T15:30:00Z\",\"duration_minutes\":60},"
		" {\"start\":\"2026-03-12T14:30:00Z\",\"end\":\"2026-03-12T15:00:00Z\",\"duration_minutes\":30}]",
		0, NULL);
	json_t *blocked = json_loads("[{\"start\":\"2026-03-03T18:30:00Z\",\"end\":\"2026-03-03T19:00:00Z\"}]", 0, NULL);
	json_t *raw = json_loads("{\"_slot\":\"2026-03-05T14:30:00Z|30\",\"requester_name\":\"<Sam>\","
				 "\"requester_email\":\"sam@example\",\"topic\":\"\"}", 0, NULL);
	json_t *fields = json_deep_copy(raw), *errors;
	struct slotrule_slot *parsed;
	size_t nparsed = slotrule_parse(slots, &parsed);
	struct page_week w = { parsed, nparsed, blocked, "2026-02-20T10:00:00Z",
			       1772280000 /* 2026-02-28 */, NULL, NULL, PAGE_WEEK_PLAIN, NULL, NULL, NULL, NULL };

	json_object_del(fields, "_slot");
	errors = errors_for(m, fields);
	save("booking-week", page_booking_week(&ctx, m, &w));
	w.week = "2026-03-09";
	save("booking-week-later", page_booking_week(&ctx, m, &w));
	w.week = NULL, w.mins = "60", w.notice = PAGE_WEEK_TAKEN;
	save("booking-week-60-taken", page_booking_week(&ctx, m, &w));
	w.mins = NULL, w.notice = PAGE_WEEK_LAPSED, w.values = raw, w.errors = errors;
	save("booking-week-errors", page_booking_week(&ctx, m, &w));
	w.slots = NULL, w.nslots = 0, w.values = NULL, w.errors = NULL, w.notice = PAGE_WEEK_PLAIN;
	save("booking-week-empty", page_booking_week(&ctx, m, &w));
	save("booking-held", page_booking_held(&ctx, m, "sam@example.org", "2026-03-05T14:30:00Z", "2026-03-05T15:00:00Z", NULL, NULL));
	save("booking-confirm", page_booking_confirm(&ctx, m));
	save("booking-booked", page_booking_booked(&ctx, m, fields, "2026-03-05T14:30:00Z", "2026-03-05T15:00:00Z"));
	for (int s = PAGE_MANAGE_ACTIVE; s <= PAGE_MANAGE_OWNER_CANCELLED; s++) {
		char name[32];
		snprintf(name, sizeof name, "booking-manage-%d", s);
		save(name, page_booking_manage(&ctx, m, (enum page_manage)s, "2026-03-05T14:30:00Z", "2026-03-05T15:00:00Z"));
		snprintf(name, sizeof name, "booking-spent-%d", s);
		save(name, page_booking_spent(&ctx, m, (enum page_manage)s, "2026-03-05T14:30:00Z", "2026-03-05T15:00:00Z"));
	}
	save("booking-expired", page_booking_expired(&ctx, m));
	save("booking-cancelled", page_booking_cancelled(&ctx, m));
	save("booking-dead-confirm", page_booking_dead_link(&ctx, m, PAGE_DEAD_CONFIRM));
	save("booking-dead-manage", page_booking_dead_link(&ctx, m, PAGE_DEAD_MANAGE));
	save("too-many-sends", page_too_many(&ctx, PAGE_LIMIT_SENDS));
	save("too-many-upload", page_too_many(&ctx, PAGE_LIMIT_UPLOAD));
	save("too-many-holds", page_too_many(&ctx, PAGE_LIMIT_HOLDS));
	save("unavailable", page_unavailable(&ctx));
	json_decref(slots), json_decref(blocked), json_decref(raw), json_decref(fields), json_decref(errors);
	free(parsed);
	manifest_free(m);
}

int main(int argc, char **argv)
{
	static const char *const types[] = { "meeting", "letter", "speaking", "lab-application", "every-kind" };
	const char *type;
	struct err e;

	if (argc != 3) {
		fprintf(stderr, "usage: box_pages_dump FIXTURES_DIR OUT_DIR\n");
		return 2;
	}
	out_dir = argv[2];
	if (fs_private_dir(out_dir, &e) != 0) {
		fprintf(stderr, "box_pages_dump: %s\n", e.msg);
		return 1;
	}
	for (size_t i = 0; i < sizeof types / sizeof *types; i++)
		form_pages(argv[1], types[i], hostile);
	booking_pages(argv[1]);
	save("not-found-form", page_not_found(PAGE_NO_FORM));
	save("not-found-booking", page_not_found(PAGE_NO_BOOKING));
	save("not-found", page_not_found(PAGE_NO_PAGE));
	write_file("index.txt", buf_str(&index_text));
	write_file(PAGE_CSS, page_asset(PAGE_CSS, &type));
	write_file(PAGE_JS, page_asset(PAGE_JS, &type));
	buf_free(&index_text);
	return 0;
}
