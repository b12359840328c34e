/*
 * fuzz_sweep_ledger — requests/bookings.jsonl is the booking sweep's memory:
 * what it read decides whether an event is written or a mail sent again. The
 * input is the ledger file; it is opened as a dry run, then for real, in a
 * scratch directory. Whatever the bytes:
 *
 *   - the dry run changes and creates nothing (no lock file, the ledger
 *     byte for byte as it was);
 *   - both opens agree: refused (a parse error naming the file and the line,
 *     the ledger untouched) or read to the same state, in which every step is
 *     intent, done or unconfirmed ("failed" forgets it);
 *   - a real open cuts a torn last line and nothing else: the file is then
 *     the input up to its last newline;
 *   - a line it appends reads back: the step is settled, its details kept,
 *     every other booking as it was.
 */
#include "base/err.h"
#include "base/fs.h"
#include "frontdoor/sweep_ledger.h"
#include "scratch.h"

#include <jansson.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static char *ledger, *lock;

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	const char *dir = scratch_dir("ledger");

	(void)argc;
	(void)argv;
	ledger = fs_join(dir, SWEEP_LEDGER_FILE);
	lock = fs_join(dir, SWEEP_LEDGER_LOCK);
	return 0;
}

static void write_ledger(const uint8_t *data, size_t size)
{
	FILE *f = fopen(ledger, "wb");

	if (!f || fwrite(data, 1, size, f) != size || fclose(f) != 0)
		abort();
}

/* The ledger is now exactly want[0..len). */
static void ledger_is(const uint8_t *want, size_t len)
{
	char *text;
	size_t n;
	struct err e;

	if (fs_read(ledger, &text, &n, &e) != 0 || n != len || memcmp(text, want, len) != 0)
		__builtin_trap();
	free(text);
}

static void check_refusal(const struct err *e)
{
	if (e->code != ERR_PARSE || !strstr(e->msg, SWEEP_LEDGER_FILE) || !strstr(e->msg, "line "))
		__builtin_trap();
}

static void check_state(const json_t *state)
{
	const char *id, *step;
	json_t *b, *phase;

	json_object_foreach((json_t *)state, id, b)
		json_object_foreach(json_object_get(b, "steps"), step, phase)
			if (!json_is_string(phase) ||
			    (strcmp(json_string_value(phase), LEDGER_INTENT) != 0 &&
			     strcmp(json_string_value(phase), LEDGER_DONE) != 0 &&
			     strcmp(json_string_value(phase), LEDGER_UNCONFIRMED) != 0))
				__builtin_trap();
}

/* Appends a done step for "fuzz-b"; the ledger read again shows it, and the rest unchanged. */
static void add_and_reread(struct sweep_ledger *l)
{
	json_t *before = json_deep_copy(l->state), *b;
	struct sweep_ledger again;
	const char *uid;
	struct err e;

	if (sweep_ledger_add(l, "fuzz-b", 7, "event", LEDGER_DONE,
			     json_pack("{s:s}", "uid", "booking-fuzz-b@mecha"), &e) != 0)
		__builtin_trap();
	sweep_ledger_close(l);
	if (sweep_ledger_open(&again, scratch_path, 1, &e) != 0)
		__builtin_trap(); /* what it wrote, it reads */
	b = sweep_ledger_booking(&again, "fuzz-b");
	uid = json_string_value(json_object_get(b, "uid"));
	if (!sweep_ledger_settled(&again, "fuzz-b", "event") || !uid ||
	    strcmp(uid, "booking-fuzz-b@mecha") != 0)
		__builtin_trap();
	json_object_del(before, "fuzz-b");
	json_object_del(again.state, "fuzz-b");
	if (!json_equal(before, again.state))
		__builtin_trap();
	json_decref(before);
	sweep_ledger_close(&again);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct sweep_ledger dry, real;
	struct err e, e2;
	int rc_dry, rc;
	size_t complete = size;

	unlink(lock);
	write_ledger(data, size);
	rc_dry = sweep_ledger_open(&dry, scratch_path, 1, &e);
	if (access(lock, F_OK) == 0)
		__builtin_trap(); /* a dry run creates nothing */
	ledger_is(data, size);
	rc = sweep_ledger_open(&real, scratch_path, 0, &e2);
	if (rc != rc_dry)
		__builtin_trap();
	if (rc != 0) {
		check_refusal(&e);
		check_refusal(&e2);
		ledger_is(data, size);
		return 0;
	}
	check_state(dry.state);
	if (!json_equal(dry.state, real.state))
		__builtin_trap();
	while (complete > 0 && data[complete - 1] != '\n')
		complete--;
	ledger_is(data, complete);
	sweep_ledger_close(&dry);
	add_and_reread(&real);
	return 0;
}
