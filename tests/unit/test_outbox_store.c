/*
 * The outbox store: item files the Rust tool can read, unknown keys kept,
 * unreadable items skipped, prefixes resolved, and every change made under
 * the lock — proved by real processes racing on one directory.
 */
#include <criterion/criterion.h>

#include "scratch.h"
#include "base/buf.h"
#include "base/err.h"
#include "base/fs.h"
#include "base/jsonio.h"
#include "outbox/item.h"
#include "outbox/store.h"

#include <ftw.h>
#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

static char *tmpdir(void)
{
	char tmpl[512];
	char *d = scratch_mkdtemp(tmpl, sizeof tmpl, "outbox");

	cr_assert_not_null(d);
	return fs_join(d, "outbox");
}

static int rm_one(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st, (void)flag, (void)ftw;
	return remove(path);
}

/* Removes a test's directory tree (never following a link). */
static void rm_tree(const char *path)
{
	nftw(path, rm_one, 16, FTW_DEPTH | FTW_PHYS);
}

/* dir is <tmp>/outbox: the whole <tmp> goes. */
static void done(char *dir)
{
	char *root = fs_dirname(dir);

	rm_tree(root);
	free(root);
	free(dir);
}

static void open_store(struct outbox_store *s, const char *dir)
{
	struct err e;

	cr_assert_eq(outbox_store_open(s, dir, OUTBOX_WRITE, &e), 0, "%s", e.msg);
}

static char *stage(struct outbox_store *s, const char *args_json)
{
	struct outbox_draft d = { "mail_send", NULL, NULL, "sess-1", NULL, 0, 1 };
	struct outbox_item it;
	struct err e;
	json_t *args = jsonio_parse(args_json, strlen(args_json), "args", &e);
	char *id;

	cr_assert_not_null(args);
	d.args = args;
	cr_assert_eq(outbox_store_stage(s, &d, &it, &e), 0, "%s", e.msg);
	id = xstrdup(it.id);
	outbox_item_free(&it);
	json_decref(args);
	return id;
}

static void put_file(const char *dir, const char *name, const char *text)
{
	char *p = fs_join(dir, name);
	struct err e;

	cr_assert_eq(fs_replace(p, text, strlen(text), &e), 0, "%s", e.msg);
	free(p);
}

static char *file_text(const char *dir, const char *id)
{
	char *name = xasprintf("%s.json", id), *p = fs_join(dir, name), *data;
	size_t len;
	struct err e;

	cr_assert_eq(fs_read(p, &data, &len, &e), 0, "%s", e.msg);
	free(name);
	free(p);
	return data;
}

Test(outbox_store, a_staged_item_has_a_timestamped_id_and_a_private_file)
{
	char *dir = tmpdir();
	struct outbox_store s;
	struct outbox_item it;
	struct err e;
	struct stat st;
	regex_t re;
	char *id, *name, *path;

	open_store(&s, dir);
	id = stage(&s, "{\"to\":\"ada@example.org\",\"subject\":\"hi\"}");
	regcomp(&re, "^[0-9]{8}T[0-9]{6}-[0-9a-f]{8}$", REG_EXTENDED | REG_NOSUB);
	cr_assert_eq(regexec(&re, id, 0, NULL, 0), 0, "%s", id);
	regfree(&re);
	name = xasprintf("%s.json", id);
	path = fs_join(dir, name);
	cr_assert_eq(stat(path, &st), 0);
	cr_assert_eq(st.st_mode & 0777, 0600);
	cr_assert_eq(stat(dir, &st), 0);
	cr_assert_eq(st.st_mode & 0777, 0700);
	cr_assert_eq(outbox_store_read(&s, id, &it, &e), 0, "%s", e.msg);
	cr_assert_str_eq(it.status, "pending");
	cr_assert_str_eq(it.kind, "message");
	cr_assert_str_eq(it.summary, "mail_send to ada@example.org \xe2\x80\x94 \"hi\"");
	cr_assert_str_eq(it.session_id, "sess-1");
	cr_assert_null(it.workspace);
	cr_assert(it.taint_untrusted && !it.taint_private);
	cr_assert(json_equal(it.args, it.args_before));
	outbox_item_free(&it);
	outbox_store_close(&s);
	free(path);
	free(name);
	free(id);
	done(dir);
}

Test(outbox_store, reading_a_missing_outbox_creates_nothing)
{
	char *dir = tmpdir();
	struct outbox_store s;
	struct outbox_list l;
	struct err e;

	cr_assert_eq(outbox_store_open(&s, dir, OUTBOX_READ, &e), 0, "%s", e.msg);
	cr_assert_eq(outbox_store_list(&s, &l, stderr, &e), 0, "%s", e.msg);
	cr_assert_eq(l.n, 0);
	cr_assert_eq(outbox_store_lock(&s, &e), -1, "a reader took the write lock");
	outbox_store_close(&s);
	cr_assert_eq(access(dir, F_OK), -1, "a read created the outbox");
	done(dir);
}

static const char rust_item[] =
	"{\n  \"id\": \"20260806T020312-3f2a9c1b\",\n  \"status\": \"pending\",\n"
	"  \"tool\": \"mail__mail_send\",\n"
	"  \"args\": {\"to\": \"a@b.org\", \"later\": {\"deep\": [1, 2]}},\n"
	"  \"taint\": {\"private\": true, \"untrusted\": false, \"origin\": \"web\"},\n"
	"  \"created_at\": \"2026-08-06T02:03:12Z\",\n  \"resolved_at\": null,\n"
	"  \"zz_unknown\": {\"kept\": true}\n}";

Test(outbox_store, unknown_keys_at_any_depth_survive_a_resolve_in_their_place)
{
	char *dir = tmpdir();
	struct outbox_store s;
	struct err e;
	json_t *doc;
	char *text;
	const char *key;
	json_t *v;
	const char *order[16];
	size_t n = 0;

	open_store(&s, dir);
	put_file(dir, "20260806T020312-3f2a9c1b.json", rust_item);
	cr_assert_eq(outbox_store_resolve(&s, "20260806T020312-3f2a9c1b", OUTBOX_REJECTED,
					  "too formal", &e), 0, "%s", e.msg);
	text = file_text(dir, "20260806T020312-3f2a9c1b");
	doc = jsonio_parse(text, strlen(text), "item", &e);
	cr_assert_not_null(doc);
	cr_assert_str_eq(jsonio_str(doc, "status"), "rejected");
	cr_assert_str_eq(jsonio_str(doc, "reason"), "too formal");
	cr_assert_not_null(jsonio_str(doc, "resolved_at"));
	cr_assert_str_eq(jsonio_str(json_object_get(doc, "taint"), "origin"), "web");
	cr_assert_eq(json_integer_value(json_array_get(
			     json_object_get(json_object_get(json_object_get(doc, "args"), "later"),
					     "deep"), 1)), 2);
	json_object_foreach(doc, key, v) order[n++] = key;
	cr_assert_str_eq(order[0], "id");
	cr_assert_str_eq(order[6], "resolved_at", "existing keys moved");
	cr_assert_str_eq(order[7], "zz_unknown");
	json_decref(doc);
	free(text);
	outbox_store_close(&s);
	done(dir);
}

Test(outbox_store, an_item_missing_kind_or_args_before_reads_with_defaults)
{
	char *dir = tmpdir();
	struct outbox_store s;
	struct outbox_item it;
	struct err e;

	open_store(&s, dir);
	put_file(dir, "20260806T020312-3f2a9c1b.json", rust_item);
	cr_assert_eq(outbox_store_read(&s, "20260806T020312-3f2a9c1b", &it, &e), 0, "%s", e.msg);
	cr_assert_str_eq(it.kind, "message");
	cr_assert_eq(it.args_before, it.args);
	cr_assert(it.taint_private);
	outbox_item_free(&it);
	outbox_store_close(&s);
	done(dir);
}

Test(outbox_store, unreadable_items_are_skipped_with_one_warning_each)
{
	char *dir = tmpdir();
	struct outbox_store s;
	struct outbox_list l;
	struct err e;
	char *good, *link, warnings[4096] = "";
	FILE *warn = tmpfile();
	size_t n;

	open_store(&s, dir);
	good = stage(&s, "{\"to\":\"a@b.org\"}");
	put_file(dir, "20260101T000000-00000001.json", "{\"id\": ");
	put_file(dir, "20260101T000000-00000002.json",
		 "{\"id\":\"20260101T000000-00000002\",\"status\":3,\"tool\":\"x\",\"args\":{},"
		 "\"created_at\":\"t\"}");
	put_file(dir, "20260101T000000-00000003.json",
		 "{\"id\":\"someone-else\",\"status\":\"pending\",\"tool\":\"x\",\"args\":{},"
		 "\"created_at\":\"t\"}");
	put_file(dir, "notes.txt", "not an item");
	link = fs_join(dir, "20260101T000000-00000004.json");
	cr_assert_eq(symlink("/etc/passwd", link), 0);
	cr_assert_eq(outbox_store_list(&s, &l, warn, &e), 0, "%s", e.msg);
	cr_assert_eq(l.n, 1);
	cr_assert_str_eq(l.items[0].id, good);
	rewind(warn);
	n = fread(warnings, 1, sizeof warnings - 1, warn);
	warnings[n] = '\0';
	cr_assert(strstr(warnings, "00000001.json: not valid JSON") != NULL, "%s", warnings);
	cr_assert(strstr(warnings, "00000002.json: status is missing or not a string"), "%s",
		  warnings);
	cr_assert(strstr(warnings, "00000003.json: its id does not match"), "%s", warnings);
	cr_assert(strstr(warnings, "00000004.json is a symbolic link"), "%s", warnings);
	cr_assert_null(strstr(warnings, "notes.txt"));
	/* NOLINTNEXTLINE(cert-err33-c): a temporary stream the test only read */
	fclose(warn);
	outbox_list_free(&l);
	outbox_store_close(&s);
	free(link);
	free(good);
	done(dir);
}

Test(outbox_store, a_list_is_sorted_and_found_by_binary_search)
{
	char *dir = tmpdir();
	struct outbox_store s;
	struct outbox_list l;
	struct err e;
	char name[64];

	open_store(&s, dir);
	for (int i = 40; i > 0; i--) {
		char *text = xasprintf("{\"id\":\"20260101T000000-%08d\",\"status\":\"sent\","
				       "\"tool\":\"x\",\"args\":null,\"created_at\":\"t\"}", i);
		snprintf(name, sizeof name, "20260101T000000-%08d.json", i);
		put_file(dir, name, text);
		free(text);
	}
	cr_assert_eq(outbox_store_list(&s, &l, NULL, &e), 0, "%s", e.msg);
	cr_assert_eq(l.n, 40);
	for (size_t i = 1; i < l.n; i++)
		cr_assert(strcmp(l.items[i - 1].id, l.items[i].id) < 0);
	cr_assert_not_null(outbox_list_find(&l, "20260101T000000-00000017"));
	cr_assert_str_eq(outbox_list_find(&l, "20260101T000000-00000040")->id,
			 "20260101T000000-00000040");
	cr_assert_null(outbox_list_find(&l, "20260101T000000-00000041"));
	cr_assert_null(outbox_list_find(&l, "outbox-id-that-is-gone"));
	outbox_list_free(&l);
	outbox_store_close(&s);
	done(dir);
}

Test(outbox_store, a_prefix_finds_one_item_or_says_why_not)
{
	char *dir = tmpdir();
	struct outbox_store s;
	struct err e;
	char *id;

	open_store(&s, dir);
	put_file(dir, "20260101T000000-aaaa0001.json", "{}");
	put_file(dir, "20260101T000000-aaaa0002.json", "{}");
	put_file(dir, "20260101T000000-bbbb0001.json", "{}");
	cr_assert_eq(outbox_store_lookup(&s, "20260101T000000-b", &id, &e), 0, "%s", e.msg);
	cr_assert_str_eq(id, "20260101T000000-bbbb0001");
	free(id);
	cr_assert_eq(outbox_store_lookup(&s, "20260101T000000-aaaa0002", &id, &e), 0);
	free(id);
	cr_assert_eq(outbox_store_lookup(&s, "20260101T000000-a", &id, &e), -1);
	cr_assert_eq(e.code, ERR_AMBIGUOUS);
	cr_assert_eq(err_exit_code(&e), EXIT_USAGE);
	cr_assert_eq(outbox_store_lookup(&s, "2027", &id, &e), -1);
	cr_assert_eq(e.code, ERR_NOT_FOUND);
	cr_assert_eq(outbox_store_lookup(&s, "../outbox/2026", &id, &e), -1);
	cr_assert_eq(e.code, ERR_NOT_FOUND);
	cr_assert_eq(outbox_store_lookup(&s, "", &id, &e), -1);
	outbox_store_close(&s);
	done(dir);
}

Test(outbox_store, a_unique_tail_finds_one_item_as_a_prefix_does)
{
	char *dir = tmpdir();
	struct outbox_store s;
	struct err e;
	char *id;

	open_store(&s, dir);
	put_file(dir, "20260101T000000-aaaa0001.json", "{}");
	put_file(dir, "20260101T000000-aaaa0002.json", "{}");
	put_file(dir, "20260101T000001-bbbb0001.json", "{}");
	cr_assert_eq(outbox_store_lookup(&s, "0002", &id, &e), 0, "%s", e.msg);
	cr_assert_str_eq(id, "20260101T000000-aaaa0002");
	free(id);
	cr_assert_eq(outbox_store_lookup(&s, "b0001", &id, &e), 0, "%s", e.msg);
	cr_assert_str_eq(id, "20260101T000001-bbbb0001");
	free(id);
	/* Two tails, or a start and another's tail: ambiguous, naming both. */
	cr_assert_eq(outbox_store_lookup(&s, "0001", &id, &e), -1);
	cr_assert_eq(e.code, ERR_AMBIGUOUS);
	cr_assert(strstr(e.msg, "aaaa0001") && strstr(e.msg, "bbbb0001"), "%s", e.msg);
	put_file(dir, "0002-odd.json", "{}");
	cr_assert_eq(outbox_store_lookup(&s, "0002", &id, &e), -1);
	cr_assert_eq(e.code, ERR_AMBIGUOUS);
	/* A middle piece is not an abbreviation. */
	cr_assert_eq(outbox_store_lookup(&s, "T000001", &id, &e), -1);
	cr_assert_eq(e.code, ERR_NOT_FOUND);
	outbox_store_close(&s);
	done(dir);
}

Test(outbox_store, resolving_twice_is_refused_and_changes_nothing)
{
	char *dir = tmpdir();
	struct outbox_store s;
	struct err e;
	char *id, *before, *after;

	open_store(&s, dir);
	id = stage(&s, "{\"to\":\"a@b.org\"}");
	cr_assert_eq(outbox_store_resolve(&s, id, OUTBOX_SENT, NULL, &e), 0, "%s", e.msg);
	before = file_text(dir, id);
	cr_assert_eq(outbox_store_resolve(&s, id, OUTBOX_REJECTED, "late", &e), -1);
	cr_assert(err_is_refusal(&e));
	cr_assert_eq(e.code, ERR_NOT_PENDING);
	after = file_text(dir, id);
	cr_assert_str_eq(before, after);
	free(before);
	free(after);
	free(id);
	outbox_store_close(&s);
	done(dir);
}

/* Real processes: N stagers at once never lose or overwrite an item. */
Test(outbox_store, concurrent_stagers_each_get_their_own_item)
{
	char *dir = tmpdir();
	struct outbox_store s;
	struct outbox_list l;
	struct err e;
	int status;

	open_store(&s, dir);
	outbox_store_close(&s);
	for (int p = 0; p < 6; p++) {
		if (fork() == 0) {
			struct outbox_store c;
			if (outbox_store_open(&c, dir, OUTBOX_WRITE, &e) != 0)
				_exit(1);
			for (int i = 0; i < 15; i++)
				free(stage(&c, "{\"to\":\"a@b.org\"}"));
			outbox_store_close(&c);
			_exit(0);
		}
	}
	for (int p = 0; p < 6; p++) {
		cr_assert_neq(wait(&status), -1);
		cr_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	}
	open_store(&s, dir);
	cr_assert_eq(outbox_store_list(&s, &l, stderr, &e), 0, "%s", e.msg);
	cr_assert_eq(l.n, 90);
	outbox_list_free(&l);
	outbox_store_close(&s);
	done(dir);
}

/* Real processes racing to resolve one item: the lock and the re-read let one win. */
Test(outbox_store, of_racing_resolvers_exactly_one_wins)
{
	char *dir = tmpdir();
	struct outbox_store s;
	struct err e;
	int status, wins = 0;
	char *id;

	open_store(&s, dir);
	id = stage(&s, "{\"to\":\"a@b.org\"}");
	outbox_store_close(&s);
	for (int p = 0; p < 8; p++) {
		if (fork() == 0) {
			struct outbox_store c;
			if (outbox_store_open(&c, dir, OUTBOX_WRITE, &e) != 0)
				_exit(2);
			_exit(outbox_store_resolve(&c, id, p % 2 ? OUTBOX_SENT : OUTBOX_REJECTED,
						   "r", &e) == 0 ? 0 : err_is_refusal(&e) ? 3 : 2);
		}
	}
	for (int p = 0; p < 8; p++) {
		cr_assert_neq(wait(&status), -1);
		cr_assert(WIFEXITED(status));
		cr_assert_neq(WEXITSTATUS(status), 2);
		wins += WEXITSTATUS(status) == 0;
	}
	cr_assert_eq(wins, 1);
	free(id);
	done(dir);
}

Test(outbox_item, the_summary_is_one_clipped_line)
{
	json_t *args = json_pack("{s:[s,s],s:s}", "to", "a@b.org", "c@d.org", "subject",
				 "\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9"
				 "\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9"
				 "\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9");
	char *s = outbox_item_summary("mail_send", args);
	size_t n = strlen(s);

	cr_assert_eq(strncmp(s, "mail_send to a@b.org, c@d.org \xe2\x80\x94 \"", 34), 0, "%s", s);
	cr_assert(n <= OUTBOX_SUMMARY_MAX + 3);
	cr_assert_str_eq(s + n - 3, "\xe2\x80\xa6");
	cr_assert_neq((unsigned char)s[n - 4], 0xc3, "clipped inside a character");
	free(s);
	s = outbox_item_summary("web_post", json_object_get(args, "nothing"));
	cr_assert_str_eq(s, "web_post");
	free(s);
	json_decref(args);
}

Test(outbox_item, ids_that_could_be_paths_are_not_ids)
{
	cr_assert(outbox_item_id_ok("20260806T020312-3f2a9c1b"));
	cr_assert(outbox_item_id_ok("outbox-id-that-is-gone"));
	cr_assert_not(outbox_item_id_ok("../x"));
	cr_assert_not(outbox_item_id_ok(".lock"));
	cr_assert_not(outbox_item_id_ok("a/b"));
	cr_assert_not(outbox_item_id_ok(""));
}

Test(outbox_item, an_id_that_is_not_a_safe_name_makes_the_item_unreadable)
{
	struct outbox_item it;
	struct err e;
	const char *text = "{\"id\":\"a\\nb\",\"status\":\"pending\",\"tool\":\"x\",\"args\":{},"
			   "\"created_at\":\"t\"}";

	cr_assert_eq(outbox_item_parse(&it, text, strlen(text), "f", &e), -1);
	cr_assert_eq(e.code, ERR_UNREADABLE);
	cr_assert(strstr(e.msg, "not a valid outbox id") != NULL, "%s", e.msg);
}
