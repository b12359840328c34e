/*
 * fuzz_letter — a letter's bytes come from an agent (post) or from whatever
 * is in a box (every read). The reader must refuse garbage with a message and
 * never crash, leak or read past the buffer (libFuzzer hands it exactly `size`
 * bytes, no NUL); whatever it accepts must survive the canonical writer and
 * read back to the same letter: parse(write(parse(x))) == parse(x), compared
 * through the writer, which writes every field.
 */
#include "base/buf.h"
#include "base/err.h"
#include "base/text.h"
#include "mission/letter.h"
#include "mission/mailbox.h"
#include "mission/wire.h"

#include <stddef.h>
#include <stdint.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* write(l) read back and written again must be the same bytes. */
static void round_trip(const struct letter *l)
{
	struct buf one = BUF_INIT, two = BUF_INIT;
	struct letter back;
	struct err e;

	letter_write_json(&one, l);
	if (letter_parse(one.data, one.len, &back, &e) != 0)
		__builtin_trap(); /* we wrote something we cannot read */
	letter_write_json(&two, &back);
	if (one.len != two.len || memcmp(one.data, two.data, one.len) != 0)
		__builtin_trap();
	letter_free(&back);
	buf_free(&one);
	buf_free(&two);
}

static void as_payload(const char *s, size_t n)
{
	struct letter l;
	struct err e;

	err_clear(&e);
	if (letter_parse(s, n, &l, &e) != 0) {
		if (!err_is_refusal(&e) || e.code != ERR_INVALID_LETTER)
			__builtin_trap();
		return;
	}
	if (letter_validate(&l, &e) != 0 && !err_is_refusal(&e))
		__builtin_trap(); /* validation only ever refuses */
	round_trip(&l);
	letter_free(&l);
}

static void as_line(const char *s, size_t n)
{
	struct letter_envelope env, again;
	struct buf line = BUF_INIT;
	char id[MAILBOX_ID_LEN + 1];
	struct err e;

	mailbox_id(s, n, id);
	if (letter_parse_line(s, n, &env, &e) != 0)
		return;
	if (env.has_mission) {
		round_trip(&env.mission);
		letter_write_line(&line, "fuzz", &env.mission);
		if (letter_parse_line(line.data, line.len, &again, &e) != 0 || !letter_is_mission(&again))
			__builtin_trap(); /* a stored line must read back as a mission letter */
		letter_envelope_free(&again);
	}
	buf_free(&line);
	letter_envelope_free(&env);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *s = (const char *)data;
	size_t off, n;

	as_payload(s, size);
	as_line(s, size);
	text_trim(s, size, &off, &n);
	if (off + n > size)
		__builtin_trap();
	return 0;
}
