/*
 * src/requests: the grammar of what may reach a brief, and the states as data.
 */
#include <criterion/criterion.h>

#include "base/err.h"
#include "requests/grammar.h"
#include "requests/record.h"
#include "requests/state.h"
#include "types/manifest.h"

#include <string.h>

static const char manifest_text[] =
	"id = \"m\"\nversion = 1\ntitle = \"M\"\n"
	"[[fields]]\nname = \"name\"\nlabel = \"N\"\nkind = \"text\"\nmax_length = 50\n"
	"[[fields]]\nname = \"kind\"\nlabel = \"K\"\nkind = \"select\"\n"
	"options = [{ value = \"a\", label = \"A\" }]\n"
	"[[fields]]\nname = \"day\"\nlabel = \"D\"\nkind = \"date\"\n"
	"[[fields]]\nname = \"n\"\nlabel = \"N\"\nkind = \"integer\"\n"
	"[[fields]]\nname = \"cv\"\nlabel = \"CV\"\nkind = \"file\"\naccept = [\"pdf\"]\n";

static struct record checked(const char *text)
{
	struct manifest_issues is = { NULL, 0 };
	struct manifest *m = manifest_parse(manifest_text, strlen(manifest_text), &is);
	struct record r;
	struct err e;

	cr_assert_not_null(m);
	cr_assert_eq(record_parse(text, strlen(text), "test", &r, &e), 0, "%s", e.msg);
	grammar_apply(&r, m, NULL);
	manifest_free(m);
	manifest_issues_free(&is);
	return r;
}

#define HEAD "{\"seq\":3,\"type_id\":\"m\",\"state\":\"extracted\",\"drained_at\":\"2026-08-06T01:00:00Z\","

Test(grammar, only_values_of_their_kind_cross_and_undeclared_keys_are_prose)
{
	struct record r = checked(HEAD "\"created_at\":\"2026-08-06T00:00:00+02:00\",\"valid\":true,"
				  "\"values\":{\"name\":\"Ada\",\"kind\":\"a\",\"day\":\"2026-09-01\","
				  "\"n\":4,\"extra\":\"Ignore all\",\"_x\":\"y\"},\"free_text\":[]}");
	char received[32];

	cr_assert_null(grammar_refused(&r));
	cr_assert_eq(json_object_size(grammar_typed(&r)), 3); /* kind, day, n */
	cr_assert_null(json_object_get(grammar_typed(&r), "name"));
	cr_assert_null(json_object_get(grammar_typed(&r), "extra"));
	cr_assert(record_is_prose(&r, "extra"), "an undeclared key is prose");
	grammar_received(&r, received);
	cr_assert_str_eq(received, "2026-08-05T22:00:00Z");
	record_free(&r);

	r = checked(HEAD "\"created_at\":\"2026-08-06T00:00:00Z\",\"valid\":true,"
		    "\"values\":{\"kind\":\"b\",\"day\":\"next week\",\"n\":\"4\"},\"free_text\":[]}");
	cr_assert_eq(json_object_size(grammar_typed(&r)), 0, "a value not of its kind crossed");
	record_free(&r);
}

Test(grammar, a_record_that_breaks_the_rule_is_refused_with_a_reason)
{
	static const char *const bad[] = {
		HEAD "\"created_at\":\"Tuesday, trust me\",\"valid\":true,\"values\":{}}",
		HEAD "\"created_at\":\"2026-08-06T00:00:00Z\",\"valid\":true,\"reply_to\":\"no address\","
		     "\"values\":{}}",
		HEAD "\"created_at\":\"2026-08-06T00:00:00Z\",\"valid\":true,\"values\":{\"_x\":1}}",
		HEAD "\"created_at\":\"2026-08-06T00:00:00Z\",\"valid\":true,\"values\":{},"
		     "\"attachments\":[{\"field\":\"Ignore\",\"filename\":\"f\",\"size\":1,\"sha256\":"
		     "\"sha256:0000000000000000000000000000000000000000000000000000000000000000\","
		     "\"content_type\":\"application/pdf\",\"path\":\"p\"}]}",
		NULL,
	};

	for (size_t i = 0; bad[i]; i++) {
		struct record r = checked(bad[i]);
		cr_assert_not_null(grammar_refused(&r), "record %zu passed", i);
		cr_assert_null(grammar_typed(&r));
		record_free(&r);
	}
}

Test(grammar, a_well_formed_cancellation_is_the_one_payload_of_machinery_alone)
{
	struct record r = checked(HEAD "\"created_at\":\"2026-08-06T00:00:00Z\",\"valid\":true,"
				  "\"values\":{\"_booking_id\":\"b1\",\"_cancelled\":true,"
				  "\"_slot_start\":\"2026-10-23T14:00:00Z\","
				  "\"_slot_end\":\"2026-10-23T14:30:00Z\"}}");

	cr_assert_null(grammar_refused(&r), "%s", grammar_refused(&r));
	record_free(&r);
}

#define MOVE_VALUES(extra)                                                                  \
	HEAD "\"created_at\":\"2026-08-06T00:00:00Z\",\"valid\":true,\"values\":{"            \
	     "\"_booking_id\":\"b2\",\"_rescheduled_from\":\"b1\","                              \
	     "\"_slot_start\":\"2026-10-23T14:00:00Z\",\"_slot_end\":\"2026-10-23T14:30:00Z\","    \
	     extra "}}"

Test(grammar, a_rescheduling_is_the_other_payload_of_machinery_alone_and_only_well_formed)
{
	static const char *const bad[] = {
		MOVE_VALUES("\"_duration_minutes\":30"), /* no manage link */
		MOVE_VALUES("\"_duration_minutes\":30,\"_manage_url\":\"javascript:x\""),
		MOVE_VALUES("\"_duration_minutes\":0,\"_manage_url\":\"https://g.example/m/t\""),
		MOVE_VALUES("\"_duration_minutes\":\"30\",\"_manage_url\":\"https://g.example/m/t\""),
		MOVE_VALUES("\"_duration_minutes\":30,\"_manage_url\":\"https://g.example/m/t\","
			    "\"_cancelled\":true"),
		MOVE_VALUES("\"_duration_minutes\":30,\"_manage_url\":\"https://g.example/m t\""),
		NULL,
	};
	struct record r = checked(
		MOVE_VALUES("\"_duration_minutes\":30,\"_manage_url\":\"https://g.example/m/t\""));

	cr_assert_null(grammar_refused(&r), "%s", grammar_refused(&r));
	record_free(&r);
	for (size_t i = 0; bad[i]; i++) {
		r = checked(bad[i]);
		cr_assert_not_null(grammar_refused(&r), "rescheduling %zu passed", i);
		record_free(&r);
	}
}

Test(grammar, addresses_and_times)
{
	char local[80];

	memset(local, 'x', 65);
	strcpy(local + 65, "@example.org");
	cr_assert(grammar_address_ok("ada@example.org"));
	cr_assert_not(grammar_address_ok(local), "a local part of 65 bytes");
	cr_assert_not(grammar_address_ok("a@b@c"));
	cr_assert_not(grammar_address_ok("\"a b\"@example.org"));
	cr_assert(grammar_time_ok("2026-08-06T00:00:00.123456789Z"));
	cr_assert_not(grammar_time_ok("2026-08-06T00:00:00.1234567890123456789Z"));
	cr_assert_not(grammar_time_ok("soon"));
}

Test(state, the_front_ends_attributes_are_one_row_each)
{
	for (size_t i = 0; i < state_nrows; i++) {
		const struct state_row *row = &state_table[i];
		cr_assert_str_eq(row->name, state_all[i], "the table is in lifecycle order");
		cr_assert_not(row->flags & STATE_WAITING && row->flags & STATE_FINISHED, "%s",
			      row->name);
		cr_assert(!(row->flags & STATE_DIMMED) || (row->flags & STATE_FINISHED), "%s",
			  row->name);
	}
	cr_assert(state_has(STATE_BOOKED, STATE_FINISHED | STATE_DIMMED));
	cr_assert_not(state_has(STATE_BOOKED, STATE_WAITING), "booked is shown one way everywhere");
	cr_assert_not(state_has("no such state", 0));
	cr_assert(state_allows(STATE_DRAINED, STATE_BOOKED, MOVER_SWEEP));
	cr_assert_not(state_allows(STATE_CLOSED, STATE_CLOSED, MOVER_CLOSE));
}

/* ---- the digest walk (store.h's store_each_digest, digest.h) ----------------------- */

#include "base/buf.h"
#include "base/fs.h"
#include "base/verdict.h"
#include "requests/digest.h"
#include "requests/store.h"
#include "scratch.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

struct counts {
	int made, used;
	long long last_seq;
	char seen[256];
	int stop_at; /* use returns VERDICT_STOP at this seq (0: never) */
};

/* The digest is the record's state, so what was kept can be told from what was read. */
static int count_make(struct record *r, struct buf *out, void *ctx, struct err *e)
{
	struct counts *c = ctx;

	(void)e;
	c->made++;
	buf_adds(out, record_state(r));
	return STORE_DIGEST_KEEP;
}

static int count_use(long long seq, const char *d, size_t len, void *ctx, struct err *e)
{
	struct counts *c = ctx;
	size_t at = strlen(c->seen);

	(void)e;
	cr_assert(seq > c->last_seq, "in seq order");
	c->last_seq = seq;
	c->used++;
	snprintf(c->seen + at, sizeof c->seen - at, "%lld:%.*s ", seq, (int)len, d);
	return c->stop_at == seq ? VERDICT_STOP : VERDICT_NEXT;
}

static void put_record(const char *dir, long long seq, const char *state)
{
	char name[RECORD_FILE_NAME_MAX], *path;
	FILE *f;

	record_file_name(seq, "meeting", name);
	path = fs_join(dir, name);
	f = fopen(path, "w");
	cr_assert(f);
	fprintf(f,
		"{\"seq\":%lld,\"type_id\":\"meeting\",\"state\":\"%s\",\"created_at\":"
		"\"2026-08-06T00:00:00Z\",\"drained_at\":\"2026-08-06T01:00:00Z\",\"valid\":true,"
		"\"values\":{},\"free_text\":[]}",
		seq, state);
	cr_assert_eq(fclose(f), 0);
	free(path);
}

/*
 * A scratch store of n drained records, old enough to keep (a 20 ms margin,
 * slept past) or, young, too young for margin_ms; returns the kept file's path.
 */
static char *drained_store(char *dir, size_t size, int n, const char *margin_ms)
{
	setenv(FS_SETTLED_ENV, margin_ms, 1);
	cr_assert(scratch_mkdtemp(dir, size, "digest"));
	for (int i = 1; i <= n; i++)
		put_record(dir, i, "drained");
	usleep(50000);
	return fs_join(dir, ".kept");
}

static void walk(const char *dir, struct counts *c)
{
	struct store_digest d = { ".kept", 7, count_make, NULL, count_use, c };
	struct store s;
	struct err e;
	int stop = c->stop_at;

	memset(c, 0, sizeof *c);
	c->stop_at = stop;
	cr_assert_eq(store_open(&s, dir, STORE_READ, &e), 0, "%s", e.msg);
	cr_assert_eq(store_each_digest(&s, &d, &e), 0, "%s", e.msg);
	store_close(&s);
}

Test(digest, an_unchanged_file_is_not_read_again_and_a_changed_one_is)
{
	char dir[256], *kept = drained_store(dir, sizeof dir, 3, "20");
	struct counts c = { 0 };
	struct stat a, b;

	walk(dir, &c);
	cr_assert_eq(c.made, 3);
	cr_assert_str_eq(c.seen, "1:drained 2:drained 3:drained ");
	cr_assert_eq(stat(kept, &a), 0, "the first walk keeps what it made");
	walk(dir, &c);
	cr_assert_eq(c.made, 0, "nothing changed: nothing read");
	cr_assert_str_eq(c.seen, "1:drained 2:drained 3:drained ");
	cr_assert_eq(stat(kept, &b), 0);
	cr_assert(a.st_ino == b.st_ino && a.st_mtim.tv_nsec == b.st_mtim.tv_nsec,
		  "and nothing written");

	put_record(dir, 2, "extracted"); /* in place: same inode, a new change time */
	put_record(dir, 4, "closed");
	usleep(50000);
	walk(dir, &c);
	cr_assert_eq(c.made, 2, "the edited file and the new one");
	cr_assert_str_eq(c.seen, "1:drained 2:extracted 3:drained 4:closed ");
	walk(dir, &c);
	cr_assert_eq(c.made, 0);
	cr_assert_str_eq(c.seen, "1:drained 2:extracted 3:drained 4:closed ");

	{
		char name[RECORD_FILE_NAME_MAX], *path;
		record_file_name(1, "meeting", name);
		path = fs_join(dir, name);
		cr_assert_eq(unlink(path), 0);
		free(path);
	}
	walk(dir, &c);
	cr_assert_eq(c.made, 0, "a record gone costs no read");
	cr_assert_str_eq(c.seen, "2:extracted 3:drained 4:closed ");
	free(kept);
	unsetenv(FS_SETTLED_ENV);
}

Test(digest, a_walk_stopped_early_keeps_nothing_new)
{
	char dir[256], *kept = drained_store(dir, sizeof dir, 3, "20");
	struct counts c = { 0 };

	c.stop_at = 2;
	walk(dir, &c);
	cr_assert_eq(c.used, 2);
	cr_assert_neq(access(kept, F_OK), 0, "what a stopped walk saw is not kept");
	c.stop_at = 0;
	walk(dir, &c);
	cr_assert_eq(c.made, 3);
	cr_assert_eq(access(kept, F_OK), 0);
	free(kept);
	unsetenv(FS_SETTLED_ENV);
}

Test(digest, a_version_too_young_is_used_but_not_kept)
{
	char dir[256], *kept = drained_store(dir, sizeof dir, 1, "600000");
	struct counts c = { 0 };

	walk(dir, &c);
	cr_assert_str_eq(c.seen, "1:drained ");
	cr_assert_neq(access(kept, F_OK), 0, "nothing settled: nothing to keep, nothing written");
	walk(dir, &c);
	cr_assert_eq(c.made, 1);
	free(kept);
	unsetenv(FS_SETTLED_ENV);
}

Test(digest, the_reader_takes_what_the_writer_wrote_and_stops_at_a_cut)
{
	char dir[256];
	struct digest_writer w;
	struct digest_reader r;
	struct fs_identity id = { 1, 2, 3, 4, 5, 6, 7 };
	const struct digest_entry *got;
	int passed = 0, fd;
	char *path;
	struct stat st;

	cr_assert(scratch_mkdtemp(dir, sizeof dir, "digest"));
	cr_assert_eq(digest_writer_open(&w, dir, ".k", 9, NULL), 0);
	digest_writer_add(&w, 1, "0000000001-meeting.json", &id, "one", 3);
	digest_writer_add(&w, 2, "0000000002-meeting.json", &id, "", 0);
	digest_writer_add(&w, 3, "0000000003-meeting.json", &id, "three", 5);
	digest_writer_commit(&w);
	digest_writer_end(&w);
	fd = open(dir, O_RDONLY | O_DIRECTORY);
	cr_assert(fd >= 0);

	digest_reader_open(&r, fd, ".k", 8);
	cr_assert_null(digest_reader_find(&r, 1, "0000000001-meeting.json", &passed),
		       "another caller's format is not read");
	digest_reader_close(&r);

	digest_reader_open(&r, fd, ".k", 9);
	got = digest_reader_find(&r, 2, "0000000002-meeting.json", &passed);
	cr_assert(got && got->len == 0 && passed == 1, "seq 1 passed over, seq 2 found");
	cr_assert(fs_identity_same(&got->id, &id));
	passed = 0;
	cr_assert_null(digest_reader_find(&r, 2, "0000000002-zzz.json", &passed));
	got = digest_reader_find(&r, 3, "0000000003-meeting.json", &passed);
	cr_assert(got && got->len == 5 && memcmp(got->data, "three", 5) == 0);
	cr_assert_eq(digest_reader_left(&r), 0);
	digest_reader_close(&r);

	path = fs_join(dir, ".k");
	cr_assert_eq(stat(path, &st), 0);
	cr_assert_eq(truncate(path, st.st_size - 1), 0);
	digest_reader_open(&r, fd, ".k", 9);
	cr_assert_not_null(digest_reader_find(&r, 1, "0000000001-meeting.json", &passed));
	cr_assert_null(digest_reader_find(&r, 3, "0000000003-meeting.json", &passed),
		       "a cut entry is not taken");
	digest_reader_close(&r);
	free(path);
	close(fd);
}

Test(digest, a_version_is_settled_only_once_the_margin_has_passed)
{
	struct fs_identity id = { 0 };
	struct timespec at = { 1000, 0 };

	setenv(FS_SETTLED_ENV, "2000", 1);
	cr_assert(fs_identity_settled(&id, &at), "no file: nothing to tell apart");
	id.ino = 5;
	id.ctime_s = 997;
	id.ctime_ns = 999000000;
	cr_assert(fs_identity_settled(&id, &at));
	id.ctime_s = 998;
	id.ctime_ns = 0;
	cr_assert_not(fs_identity_settled(&id, &at), "exactly the margin is not past it");
	id.ctime_s = 1001;
	cr_assert_not(fs_identity_settled(&id, &at), "a change time after the walk began");
	unsetenv(FS_SETTLED_ENV);
}
