/*
 * fuzz_listed — requests/.listed is what `frontdoor list` shows a record by
 * while its file is unchanged, so its bytes are read as strictly as the
 * record's. A scratch home holds four records (one awaiting a pending draft).
 * The first input byte picks how the rest is used:
 *
 *   - even: the rest is the whole kept file. No entry can name a record's
 *     true identity, so the listing must be exactly the one made with no
 *     kept file at all;
 *   - odd: the rest is cut in four, and each piece becomes the digest kept
 *     for one record under that record's true identity (the writer's own
 *     layout, base/fs.h's identity), so the digest's own reading decides.
 *     Whatever it takes, every record is listed once, in seq order, and
 *     every string it hands out is UTF-8 without NUL.
 */
#include "base/buf.h"
#include "base/err.h"
#include "base/fs.h"
#include "base/text.h"
#include "base/verdict.h"
#include "frontdoor/listing.h"
#include "requests/digest.h"
#include "requests/store.h"
#include "scratch.h"

#include <fcntl.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define N 4
static char *requests, *kept;
static struct buf truth = BUF_INIT;
static const char *const names[N] = { "0000000001-meeting.json", "0000000002-meeting.json",
				      "0000000003-booking.json", "0000000004-letter.json" };
#define KNOWN "\"created_at\":\"2026-08-06T00:00:00Z\",\"drained_at\":\"2026-08-06T01:00:00Z\","
static const char *const bodies[N] = {
	"{\"seq\":1,\"type_id\":\"meeting\",\"state\":\"drained\"," KNOWN
	"\"valid\":true,\"values\":{},\"free_text\":[]}",
	"{\"seq\":2,\"type_id\":\"meeting\",\"state\":\"awaiting_me\"," KNOWN
	"\"valid\":true,\"values\":{},\"free_text\":[],"
	"\"outbox\":[\"20260806T020312-0badc0de\"],\"extraction\":{\"topic\":\"sync\","
	"\"reads_like_instructions\":true}}",
	"{\"seq\":3,\"type_id\":\"booking\",\"state\":\"drained\"," KNOWN
	"\"valid\":true,\"values\":{\"_booking_id\":\"ab\","
	"\"_slot_start\":\"2026-12-03T09:00:00Z\",\"_slot_end\":\"2026-12-03T09:30:00Z\"},"
	"\"free_text\":[]}",
	"{\"seq\":4,\"type_id\":\"letter\",\"state\":\"closed\"," KNOWN
	"\"valid\":false,\"invalid_reason\":\"x\",\"note\":\"done\","
	"\"values\":{},\"free_text\":[]}",
};

static void put(const char *dir, const char *name, const char *text)
{
	char *path = fs_join(dir, name);
	FILE *f = fopen(path, "wb");

	if (!f || fputs(text, f) < 0 || fclose(f) != 0)
		abort();
	free(path);
}

/* One row as text, every field: what two listings are compared by. */
static int row(const struct listing *l, void *ctx, struct err *e)
{
	struct buf *b = ctx;
	const char *s[] = { l->type_id, l->state, l->topic, l->note };

	(void)e;
	for (size_t i = 0; i < sizeof s / sizeof *s; i++)
		if (s[i] && !text_utf8_valid(s[i], strlen(s[i])))
			abort();
	buf_printf(b, "%lld|%s|%s|%s|%s|%d|%d|%d|%lld|%lld|%lld\n", l->seq, l->type_id, l->state,
		   l->topic ? l->topic : "-", l->note ? l->note : "-", l->valid, l->flagged,
		   l->has_slot, (long long)l->slot_start, (long long)l->slot_end,
		   (long long)l->since);
	return VERDICT_NEXT;
}

static void list_into(struct buf *b)
{
	struct store s;
	struct err e;

	if (store_open(&s, requests, STORE_READ, &e) != 0)
		abort();
	s.warn = NULL;
	if (listing_each(&s, row, b, NULL, &e) != 0)
		abort();
	store_close(&s);
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	const char *home = scratch_dir("listed");
	char *outbox;

	(void)argc;
	(void)argv;
	setenv("MECHA_HOME", home, 1);
	setenv(FS_SETTLED_ENV, "0", 1); /* the records below are old enough at once */
	requests = fs_join(home, "requests");
	outbox = fs_join(home, "outbox");
	kept = fs_join(requests, LISTING_DIGEST_FILE);
	if (mkdir(requests, 0700) != 0 || mkdir(outbox, 0700) != 0)
		abort();
	for (int i = 0; i < N; i++)
		put(requests, names[i], bodies[i]);
	put(outbox, "20260806T020312-0badc0de.json",
	    "{\"id\":\"20260806T020312-0badc0de\",\"status\":\"pending\",\"tool\":\"mail_send\","
	    "\"kind\":\"message\",\"args\":{},\"summary\":\"s\",\"created_at\":"
	    "\"2026-08-06T02:03:12Z\"}");
	free(outbox);
	usleep(20000); /* a tick of the file clock past the records' change times */
	list_into(&truth);
	unlink(kept);
	return 0;
}

static void whole_file(const uint8_t *data, size_t size)
{
	struct buf got = BUF_INIT;
	FILE *f = fopen(kept, "wb");

	if (!f || (size && fwrite(data, 1, size, f) != size) || fclose(f) != 0)
		abort();
	list_into(&got);
	if (got.len != truth.len || memcmp(got.data, truth.data, got.len) != 0)
		abort(); /* a kept file that names no true identity changed a row */
	buf_free(&got);
}

static void digests(const uint8_t *data, size_t size)
{
	struct digest_writer w;
	struct buf got = BUF_INIT;
	size_t piece = size / N, at = 0, lines = 0;

	if (digest_writer_open(&w, requests, LISTING_DIGEST_FILE, LISTING_DIGEST_FORMAT, NULL) != 0)
		abort();
	for (int i = 0; i < N; i++) {
		struct fs_identity id;
		size_t len = i == N - 1 ? size - at : piece;
		char *path = fs_join(requests, names[i]);
		if (fs_identity_at(AT_FDCWD, path, &id) != 0)
			abort();
		free(path);
		digest_writer_add(&w, i + 1, names[i], &id, data + at, len);
		at += len;
	}
	digest_writer_commit(&w);
	digest_writer_end(&w);
	list_into(&got);
	for (size_t i = 0; i < got.len; i++)
		lines += got.data[i] == '\n';
	if (lines != N)
		abort(); /* every record once, whatever its digest said */
	for (int i = 0; i < N; i++) {
		char want[16];
		const char *line = got.data;
		for (int k = 0; k < i; k++)
			line = strchr(line, '\n') + 1;
		snprintf(want, sizeof want, "%d|", i + 1);
		if (strncmp(line, want, strlen(want)) != 0)
			abort(); /* in seq order */
	}
	buf_free(&got);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size == 0)
		return 0;
	if (data[0] % 2 == 0)
		whole_file(data + 1, size - 1);
	else
		digests(data + 1, size - 1);
	return 0;
}
