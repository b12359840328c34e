/*
 * The booking sweep's pieces: which records it claims, how it reads a slot,
 * and its ledger — replayed strictly, a torn last line cut, a bad line
 * refused. (The sweep end to end, with a real calendar, a real SMTP server
 * and kills at every step, is tests/cli/test_sweep.py.)
 */
#include "scratch.h"
#include <criterion/criterion.h>

#include "base/buf.h"
#include "base/err.h"
#include "base/fs.h"
#include "base/jsonio.h"
#include "requests/record.h"
#include "frontdoor/sweep.h"
#include "frontdoor/sweep_ledger.h"

#include <ftw.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static struct record with_values(const char *values)
{
	struct buf b = BUF_INIT;
	struct record r;
	struct err e;

	buf_printf(&b, "{\"seq\":7,\"type_id\":\"meeting\",\"state\":\"drained\","
		       "\"created_at\":\"2026-08-06T00:00:00Z\",\"drained_at\":\"2026-08-06T01:00:00Z\","
		       "\"valid\":true,\"values\":%s,\"free_text\":[]}", values);
	cr_assert_eq(record_parse(buf_str(&b), b.len, "test", &r, &e), 0, "%s", e.msg);
	buf_free(&b);
	return r;
}

Test(sweep, bookings_and_cancellations_belong_to_the_sweep)
{
	struct record a = with_values("{\"purpose\":\"x\"}");
	struct record b = with_values("{\"_booking_id\":\"b1\"}");
	struct record c = with_values("{\"_cancelled\":true}");
	struct record d = with_values("{\"_manage_url\":\"https://x\"}");

	cr_assert_not(sweep_claims(&a));
	cr_assert(sweep_claims(&b));
	cr_assert(sweep_claims(&c), "a cancellation is the sweep's even without an id");
	cr_assert_not(sweep_claims(&d), "other machinery keys do not make a booking");
	record_free(&a);
	record_free(&b);
	record_free(&c);
	record_free(&d);
}

Test(sweep, a_slot_reads_only_when_it_is_two_rfc3339_times_in_order)
{
	struct record ok = with_values("{\"_booking_id\":\"b\",\"_slot_start\":\"2026-10-24T11:00:00+02:00\","
				       "\"_slot_end\":\"2026-10-24T09:45:00Z\",\"_duration_minutes\":45}");
	struct record backwards = with_values("{\"_booking_id\":\"b\",\"_slot_start\":"
					      "\"2026-10-24T10:00:00Z\",\"_slot_end\":\"2026-10-24T09:00:00Z\"}");
	struct record prose = with_values("{\"_booking_id\":\"b\",\"_slot_start\":\"Tuesday\","
					  "\"_slot_end\":\"2026-10-24T09:00:00Z\"}");
	struct record liar = with_values("{\"_booking_id\":\"b\",\"_slot_start\":\"2026-10-24T09:00:00Z\","
					 "\"_slot_end\":\"2026-10-24T09:45:00Z\",\"_duration_minutes\":60}");
	time_t s = 0, z = 0;

	cr_assert(sweep_slot(&ok, &s, &z));
	cr_assert_eq(s, 1792832400, "the offset was not applied");
	cr_assert_eq(z - s, 45 * 60);
	cr_assert_not(sweep_slot(&backwards, &s, &z));
	cr_assert_not(sweep_slot(&prose, &s, &z));
	cr_assert_not(sweep_slot(&liar, &s, &z), "_duration_minutes disagrees with the slot");
	record_free(&ok);
	record_free(&backwards);
	record_free(&prose);
	record_free(&liar);
}

/* ---- the ledger --------------------------------------------------------------------- */

static int rm_one(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st, (void)flag, (void)ftw;
	return remove(path);
}

static char *tmp_dir(void)
{
	char tmpl[512];

	cr_assert_not_null(scratch_mkdtemp(tmpl, sizeof tmpl, "sweep"));
	return xstrdup(tmpl);
}

static void rm_dir(char *dir)
{
	nftw(dir, rm_one, 8, FTW_DEPTH | FTW_PHYS);
	free(dir);
}

static void write_ledger(const char *dir, const char *text)
{
	char *path = fs_join(dir, SWEEP_LEDGER_FILE);
	struct err e;

	cr_assert_eq(fs_replace(path, text, strlen(text), &e), 0, "%s", e.msg);
	free(path);
}

static char *read_ledger(const char *dir)
{
	char *path = fs_join(dir, SWEEP_LEDGER_FILE), *text;
	size_t len;
	struct err e;

	cr_assert_eq(fs_read(path, &text, &len, &e), 0, "%s", e.msg);
	free(path);
	return text;
}

Test(ledger, what_was_recorded_is_what_a_later_sweep_reads_back)
{
	char *dir = tmp_dir(), *path = fs_join(dir, SWEEP_LEDGER_FILE);
	struct sweep_ledger l;
	struct stat st;
	struct err e;

	cr_assert_eq(sweep_ledger_open(&l, dir, 0, &e), 0, "%s", e.msg);
	cr_assert_eq(sweep_ledger_add(&l, "b1", 3, "event", LEDGER_INTENT,
				      json_pack("{s:s}", "uid", "booking-b1@mecha"), &e), 0, "%s", e.msg);
	cr_assert_eq(sweep_ledger_add(&l, "b1", 3, "event", LEDGER_DONE, NULL, &e), 0);
	cr_assert_eq(sweep_ledger_add(&l, "b1", 3, "invite", LEDGER_INTENT, NULL, &e), 0);
	cr_assert_eq(sweep_ledger_add(&l, "b2", 4, "invite", LEDGER_INTENT, NULL, &e), 0);
	cr_assert_eq(sweep_ledger_add(&l, "b2", 4, "invite", LEDGER_FAILED, NULL, &e), 0);
	sweep_ledger_close(&l);
	cr_assert_eq(stat(path, &st), 0);
	cr_assert_eq(st.st_mode & 0777, 0600);

	cr_assert_eq(sweep_ledger_open(&l, dir, 0, &e), 0, "%s", e.msg);
	cr_assert(sweep_ledger_settled(&l, "b1", "event"));
	cr_assert_str_eq(sweep_ledger_phase(&l, "b1", "invite"), LEDGER_INTENT);
	cr_assert_not(sweep_ledger_settled(&l, "b1", "invite"), "an intent is not an outcome");
	cr_assert_null(sweep_ledger_phase(&l, "b2", "invite"), "a failure forgets the step");
	cr_assert_str_eq(jsonio_str(sweep_ledger_booking(&l, "b1"), "uid"), "booking-b1@mecha");
	cr_assert_null(sweep_ledger_booking(&l, "b3"));
	sweep_ledger_close(&l);
	free(path);
	rm_dir(dir);
}

Test(ledger, an_unfinished_last_line_was_never_a_step_and_is_cut_off)
{
	char *dir = tmp_dir(), *text;
	struct sweep_ledger l;
	struct err e;

	write_ledger(dir, "{\"booking_id\":\"b1\",\"step\":\"event\",\"phase\":\"done\"}\n"
			  "{\"booking_id\":\"b1\",\"step\":\"invite\",\"pha");
	cr_assert_eq(sweep_ledger_open(&l, dir, 1, &e), 0, "%s", e.msg);
	cr_assert_null(sweep_ledger_phase(&l, "b1", "invite"));
	sweep_ledger_close(&l);
	text = read_ledger(dir);
	cr_assert(strstr(text, "\"pha") != NULL, "a dry run changed the ledger");
	free(text);

	cr_assert_eq(sweep_ledger_open(&l, dir, 0, &e), 0, "%s", e.msg);
	cr_assert(sweep_ledger_settled(&l, "b1", "event"));
	cr_assert_eq(sweep_ledger_add(&l, "b1", 1, "invite", LEDGER_INTENT, NULL, &e), 0);
	sweep_ledger_close(&l);
	text = read_ledger(dir);
	cr_assert_null(strstr(text, "\"pha\""), "the torn line was kept: %s", text);
	cr_assert(strstr(text, "\"done\"}\n{") != NULL, "a new line was glued to a torn one: %s", text);
	free(text);
	rm_dir(dir);
}

Test(ledger, a_line_that_does_not_read_is_refused_with_its_number)
{
	char *dir = tmp_dir();
	const char *bad[] = {
		"{\"booking_id\":\"b1\",\"step\":\"event\",\"phase\":\"done\"}\nnot json\n",
		"{\"booking_id\":\"b1\",\"step\":\"event\",\"phase\":\"done\"}\n[1]\n",
		("{\"booking_id\":\"b1\",\"step\":\"event\",\"phase\":\"done\"}\n"
		 "{\"booking_id\":\"b1\",\"step\":\"event\",\"phase\":\"maybe\"}\n"),
	};
	struct sweep_ledger l;
	struct err e;

	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		write_ledger(dir, bad[i]);
		cr_assert_eq(sweep_ledger_open(&l, dir, 0, &e), -1, "case %zu was read", i);
		cr_assert(strstr(e.msg, "line 2") != NULL, "case %zu: %s", i, e.msg);
		cr_assert(strstr(e.msg, SWEEP_LEDGER_FILE) != NULL, "%s", e.msg);
	}
	rm_dir(dir);
}

Test(ledger, a_dry_run_remembers_in_memory_and_writes_nothing)
{
	char *dir = tmp_dir(), *path = fs_join(dir, SWEEP_LEDGER_FILE);
	char *lock = fs_join(dir, SWEEP_LEDGER_LOCK);
	struct sweep_ledger l;
	struct err e;

	cr_assert_eq(sweep_ledger_open(&l, dir, 1, &e), 0, "%s", e.msg);
	cr_assert_eq(sweep_ledger_add(&l, "b1", 1, "cancelled", LEDGER_DONE, NULL, &e), 0);
	cr_assert(sweep_ledger_settled(&l, "b1", "cancelled"));
	sweep_ledger_close(&l);
	cr_assert_neq(access(path, F_OK), 0, "a dry run created the ledger");
	cr_assert_neq(access(lock, F_OK), 0, "a dry run created the lock");
	free(path);
	free(lock);
	rm_dir(dir);
}
