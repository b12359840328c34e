/*
 * fuzz_letter — a letter's bytes come from an agent (post) or from whatever
 * is in a box (every read). The reader must refuse garbage with a message and
 * never crash, leak or read past the buffer (libFuzzer hands it exactly `size`
 * bytes, no NUL); whatever it accepts must survive the canonical writer and
 * read back to the same letter: parse(write(parse(x))) == parse(x), compared
 * field by field (so a field the writer dropped would show), and written
 * again it is the same bytes.
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

static int same_str(const struct letter_str *a, const struct letter_str *b)
{
	if (!a->s || !b->s)
		return !a->s && !b->s;
	return a->len == b->len && memcmp(a->s, b->s, a->len) == 0;
}

static int same_evidence(const struct letter_evidence *a, const struct letter_evidence *b)
{
	int same = same_str(&a->command, &b->command) && same_str(&a->cwd, &b->cwd) &&
		   a->has_exit_status == b->has_exit_status &&
		   (!a->has_exit_status || a->exit_status == b->exit_status) &&
		   same_str(&a->started_at, &b->started_at) && same_str(&a->ended_at, &b->ended_at) &&
		   same_str(&a->artifact_hash, &b->artifact_hash) &&
		   same_str(&a->stdout_excerpt, &b->stdout_excerpt) && a->nrefs == b->nrefs;

	for (size_t i = 0; same && i < a->nrefs; i++)
		same = same_str(&a->refs[i], &b->refs[i]);
	return same;
}

static int same_parts(const struct letter *a, const struct letter *b)
{
	const struct letter_candidate *x = &a->candidate, *y = &b->candidate;

	if (a->verdict.present != b->verdict.present || a->gate.present != b->gate.present ||
	    x->present != y->present || a->receipt.present != b->receipt.present)
		return 0;
	if (a->verdict.present && (a->verdict.decision != b->verdict.decision ||
				   !same_str(&a->verdict.gist, &b->verdict.gist)))
		return 0;
	if (a->gate.present && (!same_str(&a->gate.command, &b->gate.command) ||
				a->gate.exit_status != b->gate.exit_status ||
				!same_str(&a->gate.artifact_hash, &b->gate.artifact_hash)))
		return 0;
	if (x->present && (!same_str(&x->block_id, &y->block_id) || x->type != y->type ||
			   x->boundary_version != y->boundary_version ||
			   x->contract_version != y->contract_version ||
			   !same_evidence(&x->evidence, &y->evidence)))
		return 0;
	return !a->receipt.present || (a->receipt.imported == b->receipt.imported &&
				       a->receipt.store_version == b->receipt.store_version);
}

/* Every field of the two letters is the same. */
static int same_letter(const struct letter *a, const struct letter *b)
{
	return same_str(&a->schema, &b->schema) && same_str(&a->mission_id, &b->mission_id) &&
	       a->mission_seq == b->mission_seq && same_str(&a->prev_letter_id, &b->prev_letter_id) &&
	       same_str(&a->block_id, &b->block_id) && same_str(&a->brain_ref, &b->brain_ref) &&
	       a->seat == b->seat && same_str(&a->runner_id, &b->runner_id) &&
	       a->capability == b->capability && a->phase == b->phase &&
	       same_str(&a->packet_ref, &b->packet_ref) && a->tokens_total == b->tokens_total &&
	       same_str(&a->started_at, &b->started_at) && same_str(&a->updated_at, &b->updated_at) &&
	       a->synthetic == b->synthetic && same_parts(a, b);
}

/* write(l) reads back as l, and written again is the same bytes. */
static void round_trip(const struct letter *l)
{
	struct buf one = BUF_INIT, two = BUF_INIT;
	struct letter back;
	struct err e;

	letter_write_json(&one, l);
	if (letter_parse(one.data, one.len, &back, &e) != 0)
		__builtin_trap(); /* we wrote something we cannot read */
	if (!same_letter(l, &back))
		__builtin_trap(); /* a field did not survive the writer */
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
