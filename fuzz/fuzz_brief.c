/*
 * fuzz_brief — the boundary: a privileged run is told the brief of a request
 * (brief_build), never its prose. The input is split in two (its first byte
 * says where) into the two prose fields of a meeting request; the record also
 * carries the prose where it must not cross: in the extractor's free reading,
 * as an attachment's file name, and as a date the extractor claims to have
 * seen (its first 15 bytes, which may cross: a date is checked against the
 * prose and quoted). The property: no 16-byte run of either prose field is in
 * the brief, neither in its JSON text nor in any of its keys and strings, unless the
 * same bytes are in the brief of the same request with empty prose (the
 * request's own words: its type, its dates, its field names).
 */
#include "base/buf.h"
#include "base/err.h"
#include "base/jsonio.h"
#include "base/text.h"
#include "frontdoor/brief.h"
#include "meeting_manifest.h"
#include "requests/record.h"

#include <jansson.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define RUN 16
#define DATE_MAX (RUN - 1)

/* The bytes as a JSON string can hold them: each byte that is not UTF-8 becomes '?'. */
static void as_utf8(struct buf *b, const char *s, size_t len)
{
	unsigned cp;

	for (size_t i = 0; i < len;) {
		size_t n = text_utf8_decode(s + i, len - i, &cp);
		buf_add(b, n ? s + i : "?", n ? n : 1);
		i += n ? n : 1;
	}
}

static json_t *record_doc(const struct buf *detail, const struct buf *name)
{
	size_t date = text_utf8_clip(buf_str(detail), detail->len, DATE_MAX);

	return json_pack(
		"{s:i,s:s,s:s,s:s,s:s,s:b,s:{s:s%,s:s,s:i,s:s%},s:[s,s],s:s,"
		"s:{s:s%,s:s,s:s,s:[s%],s:s,s:b},s:[{s:s,s:s,s:s%,s:i,s:s,s:s,s:s}]}",
		"seq", 12, "type_id", "meeting", "state", "extracted", "created_at",
		"2026-08-06T00:00:00Z", "drained_at", "2026-08-06T01:00:00Z", "valid", 1, "values",
		"requester_name", buf_str(name), name->len, "purpose", "collaboration",
		"duration_minutes", 45, "purpose_detail", buf_str(detail), detail->len, "free_text",
		"requester_name", "purpose_detail", "reply_to", "ada@example.org", "extraction",
		"reading", buf_str(detail), detail->len, "topic", "collaboration", "urgency_claimed",
		"soon", "dates_mentioned", buf_str(detail), date, "institution", "",
		"reads_like_instructions", 0, "attachments", "id", "blob", "field", "cv", "filename",
		buf_str(name), name->len, "size", 20000, "sha256", "sha256:abababababababababababababababababababababababababababababababab", "content_type",
		"application/pdf", "path", "attachments/0000000012/cv.pdf");
}

/*
 * The brief of the request with these two prose fields, and its compact JSON
 * without the dates (the one quote that may cross, which next to the JSON's
 * own brackets could otherwise look like a longer run: its strings are
 * checked on their own).
 */
static json_t *brief_of(const struct buf *detail, const struct buf *name, char **text)
{
	json_t *doc = record_doc(detail, name), *b, *bare;
	char *raw = jsonio_compact(doc);
	struct record r;
	struct err e;

	if (record_parse(raw, strlen(raw), "fuzz", &r, &e) != 0)
		__builtin_trap(); /* the record is well formed whatever the prose */
	follow_meeting(&r);
	b = brief_build(&r);
	if (!b)
		__builtin_trap(); /* valid and extracted: it has a brief */
	bare = json_deep_copy(b);
	json_object_del(json_object_get(bare, "extracted"), "dates_mentioned");
	*text = jsonio_compact(bare);
	json_decref(bare);
	record_free(&r);
	json_decref(doc);
	free(raw);
	return b;
}

static int in(const char *hay, size_t n, const char *run)
{
	return n >= RUN && memmem(hay, n, run, RUN) != NULL;
}

/* 1 when run is in any key or string of v. */
static int in_strings(const json_t *v, const char *run)
{
	const char *k;
	json_t *x;
	size_t i;

	if (json_is_string(v))
		return in(json_string_value(v), json_string_length(v), run);
	json_object_foreach((json_t *)v, k, x)
		if (in(k, strlen(k), run) || in_strings(x, run))
			return 1;
	json_array_foreach(v, i, x)
		if (in_strings(x, run))
			return 1;
	return 0;
}

static void check(const struct buf *prose, const json_t *b, const char *text, const json_t *base,
		  const char *base_text)
{
	for (size_t i = 0; i + RUN <= prose->len; i++) {
		const char *run = buf_str(prose) + i;
		if (in(base_text, strlen(base_text), run) || in_strings(base, run))
			continue; /* the request's own words, not the prose's */
		if (in(text, strlen(text), run) || in_strings(b, run))
			__builtin_trap(); /* a run of prose crossed the boundary */
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static json_t *base;
	static char *base_text;
	struct buf detail = BUF_INIT, name = BUF_INIT, empty = BUF_INIT;
	const char *s = (const char *)data + 1;
	size_t cut;
	json_t *b;
	char *text;

	if (!base)
		base = brief_of(&empty, &empty, &base_text);
	if (size == 0)
		return 0;
	cut = (size_t)data[0] * (size - 1) / 255;
	as_utf8(&detail, s, cut);
	as_utf8(&name, s + cut, size - 1 - cut);
	b = brief_of(&detail, &name, &text);
	check(&detail, b, text, base, base_text);
	check(&name, b, text, base, base_text);
	json_decref(b);
	free(text);
	buf_free(&detail);
	buf_free(&name);
	return 0;
}
