/*
 * The base layer: safe rendering, UTF-8 measures, private files, atomic
 * replace, timestamps, errors.
 */
#include <criterion/criterion.h>

#include "scratch.h"
#include "base/addr.h"
#include "base/buf.h"
#include "base/err.h"
#include "base/fs.h"
#include "base/hash.h"
#include "base/jsonio.h"
#include "base/rfc3339.h"
#include "base/seqpack.h"
#include "base/text.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <errno.h>
#include <fcntl.h>
#include <time.h>
#include <unistd.h>

static char *tmpdir(void)
{
	char tmpl[512];
	char *d = scratch_mkdtemp(tmpl, sizeof tmpl, "unit");

	cr_assert_not_null(d);
	return xstrdup(d);
}

static char *safe(const char *s, size_t len, unsigned flags)
{
	struct buf b = BUF_INIT;

	text_safe(&b, s, len, flags);
	return buf_steal(&b);
}

Test(text, an_escape_sequence_never_reaches_the_terminal_raw)
{
	const char in[] = "hi \x1b]52;c;ZXZpbA==\x07 and \x1b[2J done";
	char *out = safe(in, sizeof in - 1, TEXT_KEEP_NEWLINES);

	cr_assert_eq(strchr(out, 0x1b), NULL);
	cr_assert_eq(strchr(out, 0x07), NULL);
	cr_assert_str_eq(out, "hi \\e]52;c;ZXZpbA==\\x07 and \\e[2J done");
	free(out);
}

Test(text, newlines_survive_only_in_prose_blocks)
{
	char *keep = safe("a\nb\tc\rd", 7, TEXT_KEEP_NEWLINES);
	char *line = safe("a\nb\tc\rd", 7, 0);

	cr_assert_str_eq(keep, "a\nb\tc\\x0dd");
	cr_assert_str_eq(line, "a\\x0ab\\x09c\\x0dd");
	free(keep);
	free(line);
}

Test(text, c1_controls_bidi_overrides_and_broken_utf8_are_visible)
{
	/* NOLINTNEXTLINE(misc-misleading-bidirectional): the bidi override is what text_safe must render */
	const char in[] = "x\xc2\x9b" "1m \xe2\x80\xae" "abc \xff\xfe caf\xc3\xa9 \x7f";
	char *out = safe(in, sizeof in - 1, 0);

	cr_assert_str_eq(out, "x\\u009b1m \\u202eabc \\xff\\xfe caf\xc3\xa9 \\x7f");
	free(out);
}

Test(text, a_nul_inside_text_is_shown_not_truncating)
{
	char *out = safe("a\0b", 3, 0);

	cr_assert_str_eq(out, "a\\x00b");
	free(out);
}

Test(text, utf8_counting_and_clipping_respect_character_boundaries)
{
	const char *s = "h\xc3\xa9llo \xe2\x82\xac"; /* héllo € */

	cr_assert_eq(text_utf8_count(s, strlen(s)), 7);
	cr_assert_eq(text_utf8_clip(s, strlen(s), 2), 1);
	cr_assert_eq(text_utf8_clip(s, strlen(s), 3), 3);
	cr_assert_eq(text_utf8_clip(s, strlen(s), 9), 7);
	cr_assert(text_utf8_valid(s, strlen(s)));
	cr_assert_not(text_utf8_valid("\xc0\xaf", 2)); /* overlong '/' */
	cr_assert_not(text_utf8_valid("\xed\xa0\x80", 3)); /* a surrogate */
}

Test(fs, a_private_dir_is_created_and_an_existing_one_tightened)
{
	char *d = tmpdir();
	char *sub = fs_join(d, "a/b/requests");
	struct err e;
	struct stat st;

	cr_assert_eq(fs_private_dir(sub, &e), 0, "%s", e.msg);
	cr_assert_eq(stat(sub, &st), 0);
	cr_assert_eq(st.st_mode & 0777, 0700);
	chmod(sub, 0755);
	cr_assert_eq(fs_private_dir(sub, &e), 0, "%s", e.msg);
	stat(sub, &st);
	cr_assert_eq(st.st_mode & 0777, 0700);
	free(sub);
	free(d);
}

Test(fs, replace_writes_an_owner_only_file_and_leaves_no_temp_behind)
{
	char *d = tmpdir();
	char *p = fs_join(d, "x.json");
	char *data;
	size_t len;
	struct err e;
	struct stat st;

	cr_assert_eq(fs_replace(p, "one", 3, &e), 0, "%s", e.msg);
	cr_assert_eq(fs_replace(p, "two!", 4, &e), 0, "%s", e.msg);
	cr_assert_eq(fs_read(p, &data, &len, &e), 0, "%s", e.msg);
	cr_assert_eq(len, 4);
	cr_assert_str_eq(data, "two!");
	stat(p, &st);
	cr_assert_eq(st.st_mode & 0777, 0600);
	char *cmd = xasprintf("test $(ls -A %s | wc -l) -eq 1", d);
	/* NOLINTNEXTLINE(cert-env33-c): the test's own fixed command, over a directory it made */
	cr_assert_eq(system(cmd), 0, "a temporary file was left behind");
	free(cmd);
	free(data);
	free(p);
	free(d);
}

Test(fs, a_symlinked_store_file_is_not_followed)
{
	char *d = tmpdir();
	char *p = fs_join(d, "link.json");
	char *data = NULL;
	size_t len;
	struct err e;

	cr_assert_eq(symlink("/etc/hostname", p), 0);
	cr_assert_eq(fs_read(p, &data, &len, &e), -1);
	cr_assert(strstr(e.msg, "symbolic link") != NULL, "%s", e.msg);
	cr_assert_null(data);
	free(p);
	free(d);
}

Test(fs, a_fifo_planted_in_a_store_does_not_hang_a_reader)
{
	char *d = tmpdir();
	char *p = fs_join(d, "0000000001-meeting.json");
	char *data = NULL;
	size_t len = 99;
	struct err e;

	cr_assert_eq(mkfifo(p, 0600), 0);
	/* Either an empty read or an error; never a hang (the test would time out). */
	if (fs_read(p, &data, &len, &e) == 0)
		cr_assert_eq(len, 0);
	free(data);
	free(p);
	free(d);
}

Test(fs, a_file_larger_than_the_small_buffer_is_read_whole)
{
	char *d = tmpdir();
	char *p = fs_join(d, "big.json");
	size_t n = 100000, len;
	char *big = xmalloc(n), *data;
	struct err e;

	for (size_t i = 0; i < n; i++)
		big[i] = (char)('a' + i % 26);
	cr_assert_eq(fs_replace(p, big, n, &e), 0);
	cr_assert_eq(fs_read(p, &data, &len, &e), 0, "%s", e.msg);
	cr_assert_eq(len, n);
	cr_assert_eq(memcmp(data, big, n), 0);
	cr_assert_eq(data[n], '\0');
	free(data);
	free(big);
	free(p);
	free(d);
}

Test(fs, a_directory_is_not_read_as_a_file)
{
	char *d = tmpdir();
	char *data;
	size_t len;
	struct err e;

	cr_assert_eq(fs_read(d, &data, &len, &e), -1);
	free(d);
}

Test(fs, a_temp_name_is_a_dot_the_target_a_dot_and_mkstemps_six)
{
	static const char *const ours[] = { ".0000000001-meeting.json.Ab12Cd", "..types.zZ09yY",
					    ".a.AAAAAA", ".a.b.c.000000", ".x y.json.qWeRtY" };
	static const char *const not_ours[] = {
		".notes.txt", ".x.json.Ab12C", ".x.json.Ab12CdE", "..Ab12Cd", ".x.json.Ab-2Cd",
		"x.json.Ab12Cd", ".x.jsonAb12Cd", ".x.json.Ab12C\xc3\xa9", ".lock", "", ".",
	};
	const char *const box[] = { "inbox.jsonl", "blocks.json", NULL };

	for (size_t i = 0; i < sizeof ours / sizeof *ours; i++)
		cr_assert(fs_temp_name(ours[i], NULL), "%s", ours[i]);
	for (size_t i = 0; i < sizeof not_ours / sizeof *not_ours; i++)
		cr_assert(!fs_temp_name(not_ours[i], NULL), "%s", not_ours[i]);
	cr_assert(fs_temp_name(".inbox.jsonl.idx.Ab12Cd", box));
	cr_assert(fs_temp_name(".blocks.json.Ab12Cd", box));
	cr_assert(!fs_temp_name(".notes.md.Ab12Cd", box));
	cr_assert(!fs_temp_name(".inbox.jsonl", box));
}

Test(fs, the_names_mkstemp_really_makes_are_recognised)
{
	char *d = tmpdir();

	for (int i = 0; i < 50; i++) {
		char *t = xasprintf("%s/.x.json.XXXXXX", d);
		int fd = mkstemp(t);
		cr_assert_geq(fd, 0);
		close(fd);
		cr_assert(fs_temp_name(strrchr(t, '/') + 1, NULL), "%s", t);
		unlink(t);
		free(t);
	}
	free(d);
}

static void plant_aged(const char *dir, const char *name, long age)
{
	char *p = fs_join(dir, name);
	struct timespec ts[2] = { { time(NULL) - age, 0 }, { time(NULL) - age, 0 } };
	struct err e;

	cr_assert_eq(fs_replace(p, "x", 1, &e), 0, "%s", e.msg);
	cr_assert_eq(utimensat(AT_FDCWD, p, ts, AT_SYMLINK_NOFOLLOW), 0);
	free(p);
}

static int there(const char *dir, const char *name)
{
	char *p = fs_join(dir, name);
	struct stat st;
	int rc = lstat(p, &st) == 0;

	free(p);
	return rc;
}

Test(fs, only_old_temp_files_are_swept_and_listing_them_removes_nothing)
{
	char *d = tmpdir(), **names;
	size_t n;
	struct err e;

	plant_aged(d, ".r.json.OLD000", FS_TEMP_AGE + 60);
	plant_aged(d, ".r.json.YOUNG0", 30);
	plant_aged(d, "r.json", FS_TEMP_AGE + 60);
	cr_assert_eq(fs_temps_left(d, NULL, &names, &n, &e), 0, "%s", e.msg);
	cr_assert_eq(n, 1);
	cr_assert_str_eq(names[0], ".r.json.OLD000");
	fs_names_free(names, n);
	cr_assert(there(d, ".r.json.OLD000"));
	cr_assert_eq(fs_temps_sweep(d, NULL, &e), 1, "%s", e.msg);
	cr_assert(!there(d, ".r.json.OLD000"));
	cr_assert(there(d, ".r.json.YOUNG0") && there(d, "r.json"));
	free(d);
}

Test(fs, the_test_variable_sets_the_threshold_and_a_missing_dir_has_none)
{
	char *d = tmpdir(), *gone = fs_join(d, "nothing-here");
	struct err e;

	plant_aged(d, ".r.json.YOUNG0", 30);
	setenv(FS_TEMP_AGE_ENV, "10", 1);
	cr_assert_eq(fs_temp_age(), 10);
	cr_assert_eq(fs_temps_sweep(d, NULL, &e), 1, "%s", e.msg);
	setenv(FS_TEMP_AGE_ENV, "ten", 1);
	cr_assert_eq(fs_temp_age(), FS_TEMP_AGE);
	cr_assert_eq(fs_temps_sweep(gone, NULL, &e), 0, "%s", e.msg);
	unsetenv(FS_TEMP_AGE_ENV);
	free(gone);
	free(d);
}

Test(rfc3339, parses_utc_and_offsets_and_refuses_junk)
{
	time_t t;
	char out[RFC3339_LEN];

	cr_assert_eq(rfc3339_parse("2026-08-06T02:03:12Z", &t), 0);
	rfc3339_format(t, out);
	cr_assert_str_eq(out, "2026-08-06T02:03:12Z");
	cr_assert_eq(rfc3339_parse("2026-08-06T04:03:12.5+02:00", &t), 0);
	rfc3339_format(t, out);
	cr_assert_str_eq(out, "2026-08-06T02:03:12Z");
	cr_assert_eq(rfc3339_parse("2026-02-29T00:00:00Z", &t), -1);
	cr_assert_eq(rfc3339_parse("2026-08-06", &t), -1);
	cr_assert_eq(rfc3339_parse("2026-08-06T02:03:12", &t), -1);
	cr_assert_eq(rfc3339_parse("2026-08-06T02:03:12Zjunk", &t), -1);
}

Test(hash, sha256_and_random_ids)
{
	char hex[65], id[9], id2[9];
	struct err e;

	hash_sha256_hex("abc", 3, hex);
	cr_assert_str_eq(hex, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
	cr_assert_eq(hash_random_hex(id, 8, &e), 0);
	cr_assert_eq(hash_random_hex(id2, 8, &e), 0);
	cr_assert_eq(strlen(id), 8);
	cr_assert_eq(strspn(id, "0123456789abcdef"), 8);
	cr_assert_str_neq(id, id2);
}

Test(err, kinds_map_to_exit_statuses)
{
	struct err e;

	err_set(&e, ERR_STALE_HEAD, "stale %d", 1);
	cr_assert_eq(err_exit_code(&e), EXIT_REFUSED);
	cr_assert_eq(e.code, ERR_STALE_HEAD);
	err_set(&e, ERR_USAGE, "bad");
	cr_assert_eq(err_exit_code(&e), EXIT_USAGE);
	errno = ENOENT;
	err_errno(&e, "opening %s", "x");
	cr_assert_str_eq(e.msg, "opening x: No such file or directory");
	err_prefix(&e, "store");
	cr_assert_str_eq(e.msg, "store: opening x: No such file or directory");
	cr_assert_eq(err_exit_code(&e), EXIT_FAIL);
}

Test(jsonio, a_pretty_dump_keeps_key_order_and_raw_utf8)
{
	struct err e;
	const char *in = "{\"b\":1,\"a\":\"caf\\u00e9\",\"z\":[],\"o\":{}}";
	json_t *v = jsonio_parse(in, strlen(in), "t", &e);
	char *s;

	cr_assert_not_null(v, "%s", e.msg);
	s = jsonio_pretty(v);
	cr_assert_str_eq(s, "{\n  \"b\": 1,\n  \"a\": \"caf\xc3\xa9\",\n  \"z\": [],\n  \"o\": {}\n}");
	free(s);
	json_decref(v);
	cr_assert_null(jsonio_parse("{\"a\":", 5, "f.json", &e));
	cr_assert(strstr(e.msg, "f.json") != NULL);
}

/* ---- args: one table, read as the schema and as the check ------------------------ */

#include "base/args.h"

static const struct args_spec reply_spec[] = {
	{ "seq", ARGS_INTEGER, ARGS_REQUIRED | ARGS_BINDABLE, 0, -1, "seq" },
	{ "subject", ARGS_STRING, ARGS_REQUIRED | ARGS_ONE_LINE, 1, 200, "subject" },
	{ "when", ARGS_STRING, ARGS_DATE_TIME, 1, 64, "when" },
};
static const struct args_tool reply_tool = { "reply", "Reply", "A reply.",
					     ARGS_TABLE(reply_spec), 0, "ask elsewhere" };

static int checked(const char *text, int bound, struct err *e)
{
	json_t *v = jsonio_parse(text, strlen(text), "args", e);
	int rc;

	cr_assert_not_null(v, "%s", e->msg);
	rc = args_check(&reply_tool, v, bound, e);
	json_decref(v);
	return rc;
}

Test(args, the_check_refuses_what_the_schema_does_not_describe)
{
	struct err e;

	cr_assert_eq(checked("{\"seq\":1,\"subject\":\"hi\"}", 0, &e), 0, "%s", e.msg);
	cr_assert_eq(checked("{\"seq\":1,\"subject\":\"hi\",\"to\":\"m@x.org\"}", 0, &e), -1);
	cr_assert(strstr(e.msg, "no argument 'to'") && strstr(e.msg, "ask elsewhere"), "%s", e.msg);
	cr_assert_eq(checked("{\"seq\":1,\"subject\":\"a\\nb\"}", 0, &e), -1);
	cr_assert_eq(checked("{\"seq\":1,\"subject\":\"\"}", 0, &e), -1);
	cr_assert_eq(checked("{\"seq\":-1,\"subject\":\"hi\"}", 0, &e), -1);
	cr_assert_eq(checked("{\"seq\":1,\"subject\":\"hi\",\"when\":\"tuesday\"}", 0, &e), -1);
	cr_assert_eq(checked("{\"subject\":\"hi\"}", 0, &e), -1);
	cr_assert_eq(e.code, ERR_BAD_ARGUMENTS);
}

Test(args, a_bound_argument_is_neither_shown_nor_accepted)
{
	json_t *open = args_schema(&reply_tool, 0), *bound = args_schema(&reply_tool, 1);
	struct err e;

	cr_assert_not_null(json_object_get(json_object_get(open, "properties"), "seq"));
	cr_assert_null(json_object_get(json_object_get(bound, "properties"), "seq"));
	cr_assert_eq(json_array_size(json_object_get(bound, "required")), 1);
	cr_assert(json_is_false(json_object_get(bound, "additionalProperties")));
	cr_assert_eq(checked("{\"subject\":\"hi\"}", 1, &e), 0, "%s", e.msg);
	cr_assert_eq(checked("{\"seq\":2,\"subject\":\"hi\"}", 1, &e), -1);
	json_decref(open);
	json_decref(bound);
}

Test(addr, an_address_is_a_plain_spec_with_an_optional_display_name)
{
	static const char *const bad[] = { "", "not an address", "a@", "@b.org", "-x@b.org",
					   "a@b.org.", "Name <a@b.org", "a b@c.org",
					   "Na\nme <a@b.org>", "a@b.org\r\nRCPT TO:<x@y>" };
	struct addr a;
	struct err e;

	cr_assert_eq(addr_parse(" \"Ada L.\" <ada@example.org> ", 27, "to", &a, &e), 0, "%s", e.msg);
	cr_assert_str_eq(a.display, "Ada L.");
	cr_assert_str_eq(a.spec, "ada@example.org");
	addr_free(&a);
	cr_assert_eq(addr_parse("ada@example.org", 15, "to", &a, &e), 0);
	cr_assert_null(a.display);
	addr_free(&a);
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		cr_assert_eq(addr_parse(bad[i], strlen(bad[i]), "from", &a, &e), -1, "%s", bad[i]);
		cr_assert_eq(e.code, ERR_BAD_ARGS);
		cr_assert(strncmp(e.msg, "from: '", 7) == 0, "%s", e.msg);
		cr_assert_null(a.spec);
	}
}

/* ---- redact ---------------------------------------------------------------- */

#include "base/redact.h"

static char *redacted(const char *msg)
{
	const char *homes[] = { "/home/ada/.mecha/", NULL, "/real/ada/.mecha" };
	struct buf out = BUF_INIT;

	redact_paths(&out, msg, homes, 3);
	return buf_steal(&out);
}

static void expect_redacted(const char *msg, const char *want)
{
	char *got = redacted(msg);

	cr_expect_str_eq(got ? got : "", want, "%s", msg);
	free(got);
}

Test(redact, a_path_under_the_home_is_named_from_mecha_home)
{
	expect_redacted("/home/ada/.mecha/config.toml:3: unknown key 'x'",
			"$MECHA_HOME/config.toml:3: unknown key 'x'");
	expect_redacted("opening the request store /home/ada/.mecha/requests: Not a directory",
			"opening the request store $MECHA_HOME/requests: Not a directory");
	expect_redacted("cannot read '/real/ada/.mecha/outbox/12.json'",
			"cannot read '$MECHA_HOME/outbox/12.json'");
	expect_redacted("the home /home/ada/.mecha is gone", "the home $MECHA_HOME is gone");
}

static void expect_url(const char *url, const char *want)
{
	char *got = redact_url(url);

	cr_expect_str_eq(got, want, "%s", url);
	free(got);
}

Test(redact, a_urls_password_is_hidden_and_the_rest_kept)
{
	expect_url("postgresql://ada:s3cret@db.example:5432/box",
		   "postgresql://ada:***@db.example:5432/box");
	expect_url("postgres://:pw@h/box?sslmode=require", "postgres://:***@h/box?sslmode=require");
	expect_url("postgresql://h/box?sslmode=require&password=s3cret&user=ada",
		   "postgresql://h/box?sslmode=require&password=***&user=ada");
	expect_url("postgresql://ada:p@ss@h/box", "postgresql://ada:***@h/box");
	expect_url("postgresql://ada:p?w#@h/box?password=x", "postgresql://ada:***@h/box?password=***");
	expect_url("postgresql://h/box?sslpassword=k3y&sslmode=require",
		   "postgresql://h/box?sslpassword=***&sslmode=require");
	expect_url("postgresql://ada@h:5432/box", "postgresql://ada@h:5432/box");
	expect_url("postgresql://h/a:b@c", "postgresql://h/a:b@c");
	expect_url("", "");
}

static void expect_in(const char *text, const char *url, const char *want)
{
	char *got = redact_url_in(text, url);

	cr_expect_str_eq(got, want, "%s in %s", text, url);
	free(got);
}

Test(redact, what_a_library_says_of_a_url_keeps_none_of_its_secrets)
{
	expect_in("invalid percent-encoded token: \"pa%zz\"", "postgresql://ada:pa%zz@h/box",
		  "invalid percent-encoded token: \"***\"");
	expect_in("bad \"k%zzey\" and k%zzey again", "postgresql://h/box?sslpassword=k%zzey&a=b",
		  "bad \"***\" and *** again");
	expect_in("connection refused", "postgresql://ada:pw@h/box", "connection refused");
	expect_in("ada@h", "postgresql://ada@h/box", "ada@h");
	expect_in("", "postgresql://ada:pw@h/box", "");
}

Test(redact, any_other_path_keeps_only_its_last_component)
{
	expect_redacted("the calendar /srv/cal/work.ics does not exist",
			"the calendar work.ics does not exist");
	expect_redacted("/home/ada/.mecha-old/x.json: bad", "x.json: bad");
	expect_redacted("(/home/ada/My Calendars/work.ics) gone", "(work.ics) gone");
	expect_redacted("~/cal/personal.ics, twice", "personal.ics, twice");
	expect_redacted("cannot open /: no", "cannot open <path>: no");
	expect_redacted("in /var/spool/ and then", "in <path> and then");
}

Test(redact, slashes_that_are_not_paths_are_left_alone)
{
	expect_redacted("no tool is called a/b", "no tool is called a/b");
	expect_redacted("see https://example.org/x/y", "see https://example.org/x/y");
	expect_redacted("2026/01/02 and 3/4 of it", "2026/01/02 and 3/4 of it");
	expect_redacted("", "");
}

/* The one hex decoder: every byte value, and nothing but the 22 digits has a value. */
Test(text, a_hex_digit_has_its_value_and_no_other_byte_has_one)
{
	int digits = 0;

	for (int c = 0; c < 256; c++) {
		int v = text_hex_digit(c);
		if (v < 0)
			continue;
		digits++;
		cr_expect(v <= 15, "%d", c);
	}
	cr_expect_eq(digits, 22);
	cr_expect_eq(text_hex_digit('0'), 0);
	cr_expect_eq(text_hex_digit('9'), 9);
	cr_expect_eq(text_hex_digit('a'), 10);
	cr_expect_eq(text_hex_digit('F'), 15);
	cr_expect_eq(text_hex_digit('g'), -1);
	cr_expect_eq(text_hex_digit(-1), -1);
}

/* The one blank(): a counted string may hold NUL, and only whitespace is blank. */
Test(text, blank_with_a_length_reads_exactly_that_many_bytes)
{
	cr_expect(text_blank_n(NULL, 0));
	cr_expect(text_blank_n("", 0));
	cr_expect(text_blank_n(" \t\u00a0", strlen(" \t\u00a0")));
	cr_expect_not(text_blank_n(" x", 2));
	cr_expect(text_blank_n(" x", 1), "only the first byte is read");
	cr_expect_not(text_blank_n(" \0 ", 3), "a NUL is not whitespace");
	cr_expect(text_blank(" \n"));
	cr_expect_not(text_blank("x"));
}

/* The streamed array is byte for byte the whole array's print: a listing may stream. */
/* What was printed to f (closed here), as a malloc'd string. */
static char *read_back(FILE *f)
{
	size_t len = (size_t)ftell(f);
	char *out = calloc(len + 1, 1);

	rewind(f);
	cr_assert_not_null(out);
	cr_assert_eq(fread(out, 1, len, f), len);
	cr_assert_eq(fclose(f), 0);
	return out;
}

static char *printed(json_t *arr, int streamed)
{
	FILE *f = tmpfile();
	struct jsonio_array a;
	json_t *v;
	size_t i;

	cr_assert_not_null(f);
	if (streamed) {
		jsonio_array_begin(&a, f);
		json_array_foreach(arr, i, v)
			jsonio_array_add(&a, v);
		jsonio_array_end(&a);
	} else {
		jsonio_print(f, arr);
	}
	return read_back(f);
}

Test(jsonio, an_array_streamed_prints_as_the_whole_array)
{
	const char *const docs[] = {
		"[]",
		"[1]",
		"[{}, [], \"x\", null]",
		"[{\"a\": 1, \"b\": {\"c\": [1, 2, {\"d\": \"e\\nf\"}]}}, {\"z\": \"\\u0085 \\u007f caf\\u00e9\"}]",
		"[[[]], {\"k\": [{}]}, 1.5, true]",
	};

	for (size_t i = 0; i < sizeof docs / sizeof docs[0]; i++) {
		json_t *arr = json_loads(docs[i], 0, NULL);
		char *whole = printed(arr, 0), *stream = printed(arr, 1);
		cr_assert_str_eq(stream, whole, "%s", docs[i]);
		free(whole);
		free(stream);
		json_decref(arr);
	}
}

/* An object of arrays streamed member by member is byte for byte the whole object's print. */
static char *printed_object(json_t *obj, int streamed)
{
	FILE *f = tmpfile();
	struct jsonio_object o;
	struct jsonio_array a;
	const char *key;
	json_t *arr, *v;
	size_t i;

	cr_assert_not_null(f);
	if (streamed) {
		jsonio_object_begin(&o, f);
		json_object_foreach(obj, key, arr) {
			jsonio_object_array(&o, key, &a);
			json_array_foreach(arr, i, v)
				jsonio_array_add(&a, v);
			jsonio_array_end(&a);
		}
		jsonio_object_end(&o);
	} else {
		jsonio_print(f, obj);
	}
	return read_back(f);
}

Test(jsonio, an_object_of_arrays_streamed_prints_as_the_whole_object)
{
	const char *const docs[] = {
		"{}",
		"{\"a\": []}",
		"{\"extracted\": [1, 2, 3], \"failed\": [], \"dropped\": [7]}",
		"{\"x\": [{\"seq\": 1, \"error\": \"caf\\u00e9 \\u0085\", \"l\": [1, {}]}], \"y\": [[]]}",
	};

	for (size_t i = 0; i < sizeof docs / sizeof docs[0]; i++) {
		json_t *obj = json_loads(docs[i], JSON_PRESERVE_ORDER, NULL);
		cr_assert_not_null(obj, "%s", docs[i]);
		char *whole = printed_object(obj, 0), *stream = printed_object(obj, 1);
		cr_assert_str_eq(stream, whole, "%s", docs[i]);
		free(whole);
		free(stream);
		json_decref(obj);
	}
}

Test(seqpack, seqs_come_back_exactly_in_the_order_added_with_their_tags)
{
	const long long seqs[] = { 1, 2, 3, 3, 2, 100000, 7, 0, -1, LLONG_MAX, LLONG_MIN, 42,
				   LLONG_MIN, LLONG_MAX, 64, 63, 31, 32, -32, -33 };
	const size_t n = sizeof seqs / sizeof seqs[0];
	struct seqpack p = SEQPACK_INIT;
	struct seqpack_cursor c = SEQPACK_CURSOR_INIT;
	long long seq;
	unsigned tag;

	for (size_t i = 0; i < n; i++)
		seqpack_add(&p, seqs[i], (unsigned)i % (SEQPACK_TAG_MAX + 1));
	cr_assert_eq(p.n, n);
	for (size_t i = 0; i < n; i++) {
		cr_assert_eq(seqpack_next(&p, &c, &seq, &tag), 1, "seq %zu", i);
		cr_assert_eq(seq, seqs[i], "seq %zu: %lld", i, seq);
		cr_assert_eq(tag, (unsigned)i % (SEQPACK_TAG_MAX + 1), "seq %zu", i);
	}
	cr_assert_eq(seqpack_next(&p, &c, &seq, NULL), 0, "nothing past the last");
	seqpack_free(&p);
}

Test(seqpack, a_run_of_consecutive_seqs_costs_a_byte_each)
{
	struct seqpack p = SEQPACK_INIT;
	struct seqpack_cursor c = SEQPACK_CURSOR_INIT;
	long long seq, want = 1;

	for (long long s = 1; s <= 100000; s++)
		seqpack_add(&p, s, 1);
	cr_assert_eq(p.len, 100000, "%zu bytes", p.len);
	while (seqpack_next(&p, &c, &seq, NULL))
		cr_assert_eq(seq, want++);
	cr_assert_eq(want, 100001);
	seqpack_free(&p);
}

Test(jsonio, text_that_is_not_utf8_is_shown_safely_never_dropped)
{
	json_t *ok = jsonio_text("déjà vu"), *bad = jsonio_text("bad \xff byte \x1b[31m");
	json_t *fail = jsonio_failure(ERR_IO, "reading caf\xe9.json: no");

	cr_assert_str_eq(json_string_value(ok), "déjà vu");
	cr_assert_not_null(bad, "not UTF-8: still a string");
	cr_assert_not_null(strstr(json_string_value(bad), "bad "));
	cr_assert_null(strchr(json_string_value(bad), '\x1b'), "made visible");
	cr_assert_not_null(fail);
	cr_assert_not_null(strstr(jsonio_str(fail, "message"), "reading caf"));
	json_decref(ok);
	json_decref(bad);
	json_decref(fail);
}
