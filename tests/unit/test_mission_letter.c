/*
 * The mission letter: the contract's checks with their fixed texts, the
 * stored line to the byte (the worked examples and every escaping rule), and
 * the strict reader's refusals.
 */
#include <criterion/criterion.h>

#include "base/buf.h"
#include "base/err.h"
#include "mission/letter.h"
#include "mission/mailbox.h"
#include "mission_fixtures.h"

#include <stdio.h>
#include <string.h>

static const char *refusal(const struct letter *l)
{
	static struct err e;

	memset(&e, 0, sizeof e);
	if (letter_validate(l, &e) == 0)
		return NULL;
	cr_assert(err_is_refusal(&e));
	return err_code_name(e.code);
}

static const char *refusal_text(const struct letter *l)
{
	static struct err e;

	cr_assert_neq(letter_validate(l, &e), 0);
	return e.msg;
}

/* ---- the validation tests ------------------------------------------------- */

Test(letter, schema_id_and_seq_are_validated)
{
	struct letter l = base_letter(1, LETTER_JUDGING);

	cr_assert_null(refusal(&l));
	set_str(&l.schema, "wrong");
	cr_assert_str_eq(refusal(&l), "schema_mismatch");
	letter_free(&l);

	l = base_letter(1, LETTER_JUDGING);
	set_str(&l.mission_id, "msn_nothex");
	cr_assert_str_eq(refusal(&l), "invalid_mission_id");
	letter_free(&l);

	l = base_letter(0, LETTER_JUDGING);
	cr_assert_str_eq(refusal(&l), "invalid_mission_seq");
	letter_free(&l);
}

Test(letter, gate_zero_cannot_land)
{
	struct letter merge = base_letter(3, LETTER_MERGE_WAIT), landed = base_letter(4, LETTER_LANDED);
	struct letter landed2 = base_letter(4, LETTER_LANDED), ok = base_letter(4, LETTER_LANDED);

	green_gate(&merge);
	complete_candidate(&merge);
	cr_assert_null(refusal(&merge), "a green gate without a receipt is a valid merge_wait");

	green_gate(&landed);
	cr_assert_str_eq(refusal(&landed), "landed_law");

	landed2.receipt.present = 1; /* present but not imported */
	cr_assert_str_eq(refusal(&landed2), "landed_law");

	imported_receipt(&ok, 9);
	cr_assert_null(refusal(&ok), "an imported receipt lands");
	letter_free(&merge);
	letter_free(&landed);
	letter_free(&landed2);
	letter_free(&ok);
}

Test(letter, executing_carries_no_verdict_and_merge_wait_requires_gate)
{
	struct letter exec = base_letter(2, LETTER_EXECUTING), merge = base_letter(3, LETTER_MERGE_WAIT);

	exec.verdict.present = 1;
	exec.verdict.decision = LETTER_APPROVE;
	set_str(&exec.verdict.gist, "should not be here");
	cr_assert_str_eq(refusal(&exec), "invalid_phase");
	cr_assert_str_eq(refusal(&merge), "invalid_phase");
	letter_free(&exec);
	letter_free(&merge);
}

Test(letter, receipt_candidate_complete_validates_incomplete_rejected)
{
	struct letter ok = base_letter(3, LETTER_MERGE_WAIT), bad = base_letter(3, LETTER_MERGE_WAIT);
	struct letter bad2 = base_letter(3, LETTER_MERGE_WAIT);

	green_gate(&ok);
	complete_candidate(&ok);
	cr_assert_null(refusal(&ok));

	green_gate(&bad);
	complete_candidate(&bad);
	set_str(&bad.candidate.evidence.artifact_hash, "");
	cr_assert_str_eq(refusal_text(&bad),
			 "incomplete_evidence: receipt_candidate.evidence is missing `artifact_hash` "
			 "— evidence a tool cannot point at is not evidence");

	green_gate(&bad2);
	complete_candidate(&bad2);
	free(bad2.candidate.evidence.refs[0].s);
	free(bad2.candidate.evidence.refs);
	bad2.candidate.evidence.refs = NULL;
	bad2.candidate.evidence.nrefs = 0;
	cr_assert_str_eq(refusal(&bad2), "incomplete_evidence");
	cr_assert(strstr(refusal_text(&bad2), "`evidence_refs`"));
	letter_free(&ok);
	letter_free(&bad);
	letter_free(&bad2);
}

Test(letter, brain_ref_absolute_path_is_rejected)
{
	const char *paths[] = { "/Users/<name>/repo", "~/repo", "C:\\repo", "c:/repo",
				"\\\\server\\share", "  /padded" };
	struct letter ok = base_letter(1, LETTER_JUDGING);

	for (size_t i = 0; i < sizeof paths / sizeof paths[0]; i++) {
		struct letter l = base_letter(1, LETTER_JUDGING);
		set_str(&l.brain_ref, paths[i]);
		cr_assert_str_eq(refusal(&l), "absolute_path", "brain_ref '%s' must be refused",
				 paths[i]);
		letter_free(&l);
	}
	set_str(&ok.brain_ref, "org/repo-a");
	cr_assert_null(refusal(&ok));
	letter_free(&ok);
}

Test(letter, no_absolute_path_in_any_mission_letter_serialization)
{
	struct letter l = base_letter(4, LETTER_LANDED);
	struct buf json = BUF_INIT;
	char *line;

	set_str(&l.prev_letter_id, "abcdef012345");
	set_str(&l.runner_id, "runner-build-1");
	green_gate(&l);
	complete_candidate(&l);
	imported_receipt(&l, 9);
	letter_write_json(&json, &l);
	line = line_of("agent-x", &l);
	cr_assert_null(strstr(buf_str(&json), "/Users"));
	cr_assert_null(strstr(buf_str(&json), "/home/"));
	cr_assert_null(strstr(line, "/Users"));
	cr_assert_null(strstr(line, "/home/"));
	free(line);
	buf_free(&json);
	letter_free(&l);
}

Test(letter, archived_letter_refuses_imported_receipt)
{
	struct letter ok = base_letter(2, LETTER_ARCHIVED), anchor = base_letter(2, LETTER_ARCHIVED);
	struct letter disguised = base_letter(2, LETTER_ARCHIVED);

	green_gate(&ok);
	cr_assert_null(refusal(&ok), "an archived letter with no receipt validates");
	anchor.receipt.present = 1;
	anchor.receipt.store_version = 0;
	cr_assert_null(refusal(&anchor), "receipt.imported==false is not a landing");
	imported_receipt(&disguised, 7);
	cr_assert_str_eq(refusal(&disguised), "invalid_phase");
	cr_assert(strstr(refusal_text(&disguised), "imported receipt"));
	letter_free(&ok);
	letter_free(&anchor);
	letter_free(&disguised);
}

/* ---- the texts, to the character ------------------------------------------- */

Test(letter, every_refusal_says_what_the_reference_says)
{
	struct letter l = base_letter(1, LETTER_JUDGING);

	set_str(&l.schema, "v9");
	cr_assert_str_eq(refusal_text(&l), "schema mismatch: expected m1nd-mission-letter-v0, found v9");
	letter_free(&l);

	l = base_letter(1, LETTER_JUDGING);
	set_str(&l.mission_id, "msn_0123");
	cr_assert_str_eq(refusal_text(&l), "invalid mission_id 'msn_0123': expected msn_<12hex>");
	letter_free(&l);

	l = base_letter(0, LETTER_JUDGING);
	cr_assert_str_eq(refusal_text(&l), "invalid mission_seq 0: a chain starts at 1");
	letter_free(&l);

	l = base_letter(1, LETTER_JUDGING);
	set_str(&l.brain_ref, "~/repo");
	cr_assert_str_eq(refusal_text(&l),
			 "the public contract carries no absolute paths (§1f): field `brain_ref` = "
			 "'~/repo' looks like a path — brain_ref is a reference string, host paths "
			 "live in the local side record");
	letter_free(&l);

	l = base_letter(2, LETTER_EXECUTING);
	l.verdict.present = 1;
	set_str(&l.verdict.gist, "x");
	cr_assert_str_eq(refusal_text(&l), "invalid_phase: `executing` carries no verdict (the "
					   "verdict belongs to the judging seat)");
	letter_free(&l);

	l = base_letter(3, LETTER_MERGE_WAIT);
	cr_assert_str_eq(refusal_text(&l), "invalid_phase: `merge_wait` requires a gate");
	green_gate(&l);
	set_str(&l.gate.command, " \t");
	cr_assert_str_eq(refusal_text(&l), "incomplete_evidence: gate is missing `command` — "
					   "evidence a tool cannot point at is not evidence");
	letter_free(&l);

	l = base_letter(2, LETTER_JUDGING);
	green_gate(&l);
	set_str(&l.gate.artifact_hash, "\xe3\x80\x80"); /* blank: docs/protocol/files.md §6 */
	cr_assert_str_eq(refusal_text(&l), "incomplete_evidence: gate is missing `artifact_hash` — "
					   "evidence a tool cannot point at is not evidence");
	letter_free(&l);
}

Test(letter, the_landed_law_names_what_is_missing)
{
	const char *head = "landed_law: `landed` requires receipt.imported==true with a real "
			   "store_version — ";
	const char *tail = " (a zero-exit gate without an imported receipt is merge_wait, never landed)";
	struct letter l = base_letter(4, LETTER_LANDED);
	char want[512];

	snprintf(want, sizeof want, "%s%s%s", head, "no receipt anchor is present", tail);
	cr_assert_str_eq(refusal_text(&l), want);
	l.receipt.present = 1;
	snprintf(want, sizeof want, "%s%s%s", head, "receipt.imported is false", tail);
	cr_assert_str_eq(refusal_text(&l), want);
	l.receipt.imported = 1;
	snprintf(want, sizeof want, "%s%s%s", head,
		 "receipt.store_version is not a real (>=1) version", tail);
	cr_assert_str_eq(refusal_text(&l), want);
	letter_free(&l);
}

Test(letter, archived_refusal_text_is_the_reference_one)
{
	struct letter l = base_letter(2, LETTER_ARCHIVED);

	imported_receipt(&l, 3);
	cr_assert_str_eq(refusal_text(&l),
			 "invalid_phase: `archived` must not carry an imported receipt — an archived "
			 "letter sets a superseded receipt aside, it never lands one in disguise");
	letter_free(&l);
}

/* ---- the stored line, byte for byte ------------------------------------------ */

static const char EXAMPLE1[] =
	"{\"kind\":\"mission\",\"agent\":\"agent-a\",\"ts\":\"2026-07-09T00:00:00Z\",\"mission\":"
	"{\"schema\":\"m1nd-mission-letter-v0\",\"mission_id\":\"msn_0123456789ab\",\"mission_seq\":1,"
	"\"block_id\":\"sb_alpha\",\"brain_ref\":\"repo-a\",\"seat\":\"hand\",\"capability\":"
	"\"build-runner\",\"phase\":\"judging\",\"packet_ref\":\"sha256:packethash\",\"tokens_total\":0,"
	"\"started_at\":\"2026-07-09T00:00:00Z\",\"updated_at\":\"2026-07-09T00:00:00Z\"}}";

static void assert_line(const char *agent, const struct letter *l, const char *want_line,
			const char *want_id)
{
	char *line = line_of(agent, l);
	char id[MAILBOX_ID_LEN + 1];

	if (want_line)
		cr_assert_str_eq(line, want_line);
	mailbox_id(line, strlen(line), id);
	cr_assert_str_eq(id, want_id, "line %s", line);
	free(line);
}

Test(line, worked_example_1_seq_1_judging)
{
	struct letter l = base_letter(1, LETTER_JUDGING);

	assert_line("agent-a", &l, EXAMPLE1, "f59633562ac0");
	letter_free(&l);
}

Test(line, worked_example_2_seq_2_executing)
{
	struct letter l = base_letter(2, LETTER_EXECUTING);

	set_str(&l.prev_letter_id, "f59633562ac0");
	assert_line("agent-a", &l, NULL, "3adfdb747a28");
	letter_free(&l);
}

Test(line, worked_example_3_merge_wait_with_gate_and_candidate)
{
	struct letter l = base_letter(3, LETTER_MERGE_WAIT);
	char *line;

	set_str(&l.prev_letter_id, "3adfdb747a28");
	green_gate(&l);
	complete_candidate(&l);
	assert_line("agent-a", &l, NULL, "572e72c4a3f2");
	line = line_of("agent-a", &l);
	cr_assert(strstr(line, ",\"gate\":{\"command\":\"cargo test -p m1nd-mcp\",\"exit_status\":0,"
			       "\"artifact_hash\":\"sha256:gatelog\"},\"receipt_candidate\":{\"block_id\":"
			       "\"sb_alpha\",\"type\":\"test\",\"scope\":{\"boundary_version\":1,"
			       "\"contract_version\":1},\"evidence\":{\"command\":\"cargo test\","
			       "\"exit_status\":0,\"artifact_hash\":\"sha256:loghash\",\"evidence_refs\":"
			       "[\"artifact://run/1\"]}},\"packet_ref\""));
	free(line);
	letter_free(&l);
}

Test(line, worked_example_4_landed_by_gui)
{
	struct letter l = base_letter(4, LETTER_LANDED);

	set_str(&l.prev_letter_id, "572e72c4a3f2");
	set_str(&l.updated_at, "2026-07-09T12:00:00Z");
	green_gate(&l);
	imported_receipt(&l, 9);
	assert_line("gui", &l, NULL, "4e13dd4622be");
	letter_free(&l);
}

Test(line, the_examples_read_back_to_the_same_line)
{
	struct letter_envelope env;
	struct err e;
	char *again;

	cr_assert_eq(letter_parse_line(EXAMPLE1, strlen(EXAMPLE1), &env, &e), 0, "%s", e.msg);
	cr_assert(letter_is_mission(&env));
	cr_assert_str_eq(env.agent.s, "agent-a");
	again = line_of(env.agent.s, &env.mission);
	cr_assert_str_eq(again, EXAMPLE1);
	free(again);
	letter_envelope_free(&env);
}

static char *gist_json(const char *gist, size_t len)
{
	struct letter l = base_letter(1, LETTER_JUDGING);
	struct buf b = BUF_INIT;
	const char *p;
	char *out;

	l.verdict.present = 1;
	l.verdict.gist.s = malloc(len + 1);
	memcpy(l.verdict.gist.s, gist, len);
	l.verdict.gist.s[len] = '\0';
	l.verdict.gist.len = len;
	letter_write_json(&b, &l);
	p = strstr(buf_str(&b), "\"gist\":");
	cr_assert_not_null(p);
	p += strlen("\"gist\":");
	out = strndup(p, (size_t)(strchr(p, '}') - p));
	buf_free(&b);
	letter_free(&l);
	return out;
}

Test(line, quote_backslash_and_slash_escape_as_serde_does)
{
	const char *in = "say \"hi\" \\ a/b";
	char *s = gist_json(in, strlen(in));

	cr_assert_str_eq(s, "\"say \\\"hi\\\" \\\\ a/b\"");
	free(s);
}

Test(line, every_control_character_has_one_spelling)
{
	for (int c = 0; c < 0x20; c++) {
		char in[1] = { (char)c }, want[16];
		char *s = gist_json(in, 1);
		switch (c) {
		case '\b': snprintf(want, sizeof want, "\"\\b\""); break;
		case '\t': snprintf(want, sizeof want, "\"\\t\""); break;
		case '\n': snprintf(want, sizeof want, "\"\\n\""); break;
		case '\f': snprintf(want, sizeof want, "\"\\f\""); break;
		case '\r': snprintf(want, sizeof want, "\"\\r\""); break;
		default: snprintf(want, sizeof want, "\"\\u%04x\"", c);
		}
		cr_assert_str_eq(s, want, "control 0x%02x", c);
		free(s);
	}
}

Test(line, del_u2028_and_non_ascii_stay_raw_utf8)
{
	const char in[] = "\x7f \xe2\x80\xa8 \xc3\xa9 \xf0\x9f\x98\x80";
	char *s = gist_json(in, sizeof in - 1);
	char want[64];

	snprintf(want, sizeof want, "\"%s\"", in);
	cr_assert_str_eq(s, want);
	free(s);
}

static struct letter parse_ok(const char *json)
{
	struct letter l;
	struct err e;

	cr_assert_eq(letter_parse(json, strlen(json), &l, &e), 0, "%s: %s", json, e.msg);
	return l;
}

/* A minimal payload with `extra` spliced in before the closing brace. */
static char *payload(const char *extra)
{
	return xasprintf("{\"schema\":\"m1nd-mission-letter-v0\",\"mission_id\":\"msn_0123456789ab\","
			 "\"mission_seq\":1,\"block_id\":\"sb_alpha\",\"brain_ref\":\"repo-a\","
			 "\"seat\":\"hand\",\"capability\":\"build-runner\",\"phase\":\"judging\","
			 "\"started_at\":\"t\",\"updated_at\":\"t\"%s}",
			 extra);
}

static void assert_unreadable(const char *extra, const char *why)
{
	char *json = payload(extra);
	struct letter l;
	struct err e;

	cr_assert_neq(letter_parse(json, strlen(json), &l, &e), 0, "accepted %s", json);
	cr_assert_eq(e.code, ERR_INVALID_LETTER);
	if (why)
		cr_assert(strstr(e.msg, why), "message '%s' lacks '%s'", e.msg, why);
	free(json);
}

Test(line, input_escapes_are_decoded_before_the_line_is_written)
{
	char *json = payload(",\"runner_id\":\"caf\\u00e9 \\ud83d\\ude00 \\/\"");
	struct letter l = parse_ok(json);
	struct buf b = BUF_INIT;

	letter_write_json(&b, &l);
	cr_assert(strstr(buf_str(&b), "\"runner_id\":\"caf\xc3\xa9 \xf0\x9f\x98\x80 /\""));
	buf_free(&b);
	letter_free(&l);
	free(json);
}

Test(line, optional_keys_are_canonicalised_away)
{
	char *json = payload(",\"prev_letter_id\":null,\"verdict\":null,\"synthetic\":false,"
			     "\"packet_ref\":null");
	struct letter l = parse_ok(json);
	struct buf b = BUF_INIT;

	letter_write_json(&b, &l);
	cr_assert_str_eq(buf_str(&b),
			 "{\"schema\":\"m1nd-mission-letter-v0\",\"mission_id\":\"msn_0123456789ab\","
			 "\"mission_seq\":1,\"block_id\":\"sb_alpha\",\"brain_ref\":\"repo-a\","
			 "\"seat\":\"hand\",\"capability\":\"build-runner\",\"phase\":\"judging\","
			 "\"tokens_total\":0,\"started_at\":\"t\",\"updated_at\":\"t\"}");
	buf_free(&b);
	letter_free(&l);
	free(json);
}

Test(line, synthetic_true_is_written_last)
{
	char *json = payload(",\"synthetic\":true");
	struct letter l = parse_ok(json);
	struct buf b = BUF_INIT;

	letter_write_json(&b, &l);
	cr_assert(strstr(buf_str(&b), "\"updated_at\":\"t\",\"synthetic\":true}"));
	buf_free(&b);
	letter_free(&l);
	free(json);
}

/* ---- the strict reader ----------------------------------------------------------- */

Test(reader, the_whole_u64_range_is_a_seq)
{
	char *json = payload(",\"tokens_total\":18446744073709551615");
	struct letter l = parse_ok(json);
	struct buf b = BUF_INIT;

	cr_assert_eq(l.tokens_total, UINT64_MAX);
	letter_write_json(&b, &l);
	cr_assert(strstr(buf_str(&b), "\"tokens_total\":18446744073709551615,"));
	buf_free(&b);
	letter_free(&l);
	free(json);
}

Test(reader, numbers_beyond_their_range_are_refused)
{
	assert_unreadable(",\"tokens_total\":18446744073709551616", "out of range");
	assert_unreadable(",\"tokens_total\":99999999999999999999999", "out of range");
	assert_unreadable(",\"receipt\":{\"imported\":true,\"store_version\":-1}", "negative");
	assert_unreadable(",\"tokens_total\":1.0", "fraction");
	assert_unreadable(",\"tokens_total\":1e3", "fraction");
	assert_unreadable(",\"tokens_total\":01", "leading zero");
	assert_unreadable(",\"gate\":{\"command\":\"c\",\"exit_status\":2147483648,"
			  "\"artifact_hash\":\"h\"}",
			  "32-bit");
	assert_unreadable(",\"gate\":{\"command\":\"c\",\"exit_status\":-0,\"artifact_hash\":\"h\"}",
			  "-0");
	assert_unreadable(",\"receipt_candidate\":{\"block_id\":\"b\",\"type\":\"test\",\"scope\":"
			  "{\"boundary_version\":4294967296,\"contract_version\":1},\"evidence\":"
			  "{\"artifact_hash\":\"h\",\"evidence_refs\":[\"r\"]}}",
			  "out of range");
}

Test(reader, signed_exit_statuses_span_i32)
{
	char *json = payload(",\"gate\":{\"command\":\"c\",\"exit_status\":-2147483648,"
			     "\"artifact_hash\":\"h\"}");
	struct letter l = parse_ok(json);

	cr_assert_eq(l.gate.exit_status, INT32_MIN);
	letter_free(&l);
	free(json);
}

Test(reader, a_duplicated_known_key_makes_the_payload_unreadable)
{
	assert_unreadable(",\"phase\":\"landed\"", "duplicate key `phase`");
	assert_unreadable(",\"receipt\":{\"imported\":true,\"imported\":false,\"store_version\":1}",
			  "duplicate");
}

Test(reader, unknown_keys_spellings_and_types_are_refused)
{
	assert_unreadable(",\"colour\":\"red\"", "unknown key `colour`");
	assert_unreadable(",\"verdict\":{\"decision\":\"APPROVE\",\"gist\":\"g\",\"x\":1}",
			  "unknown key `x`");
	assert_unreadable(",\"verdict\":{\"decision\":\"approve\",\"gist\":\"g\"}", "unknown decision");
	assert_unreadable(",\"runner_id\":7", "expected a string");
	assert_unreadable(",\"synthetic\":null", "true or false");
	assert_unreadable(",\"tokens_total\":null", "whole number");
	assert_unreadable(",\"verdict\":{\"gist\":\"g\"}", "missing key `decision`");
	assert_unreadable(",\"receipt_candidate\":{\"block_id\":\"b\",\"type\":\"tests\",\"scope\":"
			  "{\"boundary_version\":1,\"contract_version\":1},\"evidence\":"
			  "{\"artifact_hash\":\"h\",\"evidence_refs\":[]}}",
			  "unknown receipt type");
}

Test(reader, broken_json_is_refused_with_a_position)
{
	const char *bad[] = {
		"", "{", "{\"schema\":}", "[]", "{\"schema\":\"m1nd\",}",
		"{\"schema\":\"a\x01\"}", "{\"schema\":\"\\ud800\"}", "{\"schema\":\"\\udc00x\"}",
		"{\"schema\":\"\xff\"}", "{\"schema\":\"\\x\"}",
	};
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		struct letter l;
		struct err e;
		cr_assert_neq(letter_parse(bad[i], strlen(bad[i]), &l, &e), 0, "accepted %s", bad[i]);
		cr_assert(strstr(e.msg, "at byte"), "%s", e.msg);
	}
}

Test(reader, something_after_the_letter_is_refused)
{
	char *json = payload("");
	char *two = xasprintf("%s x", json);
	struct letter l;
	struct err e;

	cr_assert_neq(letter_parse(two, strlen(two), &l, &e), 0);
	free(two);
	free(json);
}

Test(reader, the_envelope_is_lenient_and_the_payload_strict)
{
	const char *lenient = "{\"legacy\":{\"deep\":[1,2.5e3,null,true]},\"kind\":\"mission\","
			      "\"agent\":\"a\",\"ts\":null,\"mission\":null}";
	const char *dup = "{\"kind\":\"mission\",\"kind\":\"mission\"}";
	const char *report = "{\"kind\":\"report\",\"agent\":\"a\",\"text\":\"x\"}";
	char *p = payload(",\"oops\":1"), *strict = xasprintf("{\"kind\":\"mission\",\"mission\":%s}", p);
	struct letter_envelope env;
	struct err e;

	cr_assert_eq(letter_parse_line(lenient, strlen(lenient), &env, &e), 0, "%s", e.msg);
	cr_assert_not(letter_is_mission(&env), "no payload, not a mission letter");
	letter_envelope_free(&env);
	cr_assert_eq(letter_parse_line(report, strlen(report), &env, &e), 0);
	cr_assert_not(letter_is_mission(&env));
	letter_envelope_free(&env);
	cr_assert_neq(letter_parse_line(dup, strlen(dup), &env, &e), 0);
	cr_assert_neq(letter_parse_line(strict, strlen(strict), &env, &e), 0);
	free(p);
	free(strict);
}

Test(reader, a_nesting_bomb_stops_at_128_levels)
{
	struct buf b = BUF_INIT;
	struct letter_envelope env;
	struct err e;

	buf_adds(&b, "{\"x\":");
	for (int i = 0; i < 100000; i++)
		buf_addc(&b, '[');
	cr_assert_neq(letter_parse_line(b.data, b.len, &env, &e), 0);
	cr_assert(strstr(e.msg, "128"), "%s", e.msg);
	buf_free(&b);
}

Test(reader, several_letters_read_one_after_another)
{
	char *one = payload(""), *two = payload(",\"tokens_total\":5");
	char *both = xasprintf(" %s\n%s ", one, two);
	size_t pos = 0;
	struct letter a, b;
	struct err e;

	cr_assert_eq(letter_parse_next(both, strlen(both), &pos, &a, &e), 0, "%s", e.msg);
	cr_assert_eq(letter_parse_next(both, strlen(both), &pos, &b, &e), 0, "%s", e.msg);
	cr_assert_eq(a.tokens_total, 0);
	cr_assert_eq(b.tokens_total, 5);
	letter_free(&a);
	letter_free(&b);
	free(one);
	free(two);
	free(both);
}

Test(reader, a_letter_with_every_field_round_trips)
{
	struct letter l = base_letter(4, LETTER_LANDED), back;
	struct buf one = BUF_INIT, two = BUF_INIT;
	struct err e;

	set_str(&l.prev_letter_id, "abcdef012345");
	set_str(&l.runner_id, "r\x01\xe2\x80\xa8");
	l.verdict.present = 1;
	l.verdict.decision = LETTER_REJECT;
	set_str(&l.verdict.gist, "no \"way\"");
	green_gate(&l);
	l.gate.exit_status = -3;
	complete_candidate(&l);
	set_str(&l.candidate.evidence.cwd, "repo");
	set_str(&l.candidate.evidence.stdout_excerpt, "ok\n");
	set_str(&l.candidate.evidence.started_at, "s");
	set_str(&l.candidate.evidence.ended_at, "e");
	imported_receipt(&l, UINT64_MAX);
	l.tokens_total = 77;
	l.synthetic = 1;
	l.mission_seq = UINT64_MAX;
	letter_write_json(&one, &l);
	cr_assert_eq(letter_parse(one.data, one.len, &back, &e), 0, "%s", e.msg);
	letter_write_json(&two, &back);
	cr_assert_str_eq(buf_str(&two), buf_str(&one));
	buf_free(&one);
	buf_free(&two);
	letter_free(&back);
	letter_free(&l);
}

Test(reader, a_nul_inside_a_string_survives_the_round_trip)
{
	char *json = payload(",\"runner_id\":\"a\\u0000b\"");
	struct letter l = parse_ok(json);
	struct buf b = BUF_INIT;

	cr_assert_eq(l.runner_id.len, 3);
	letter_write_json(&b, &l);
	cr_assert(strstr(buf_str(&b), "\"runner_id\":\"a\\u0000b\""));
	buf_free(&b);
	letter_free(&l);
	free(json);
}

/* ---- the house's clock rule (letter_check_times) ----------------------------------- */

static const char *times_refusal(const char *started, const char *updated)
{
	static struct err e;
	struct letter l = base_letter(1, LETTER_JUDGING);
	int rc;

	set_str(&l.started_at, started);
	set_str(&l.updated_at, updated);
	rc = letter_check_times(&l, &e);
	letter_free(&l);
	return rc == 0 ? NULL : e.msg;
}

Test(times, rfc3339_timestamps_pass_with_any_offset_or_fraction)
{
	cr_assert_null(times_refusal("2026-07-09T00:00:00Z", "2026-07-09T12:30:00.250+02:00"));
	cr_assert_null(times_refusal("2026-02-28T23:59:60Z", "2024-02-29T00:00:00-05:30"));
}

Test(times, free_text_in_updated_at_is_refused_naming_the_key_and_value)
{
	struct err e;
	struct letter l = base_letter(1, LETTER_JUDGING);

	set_str(&l.updated_at, "yesterday");
	cr_assert_eq(letter_check_times(&l, &e), -1);
	cr_assert_eq(e.code, ERR_INVALID_TIMESTAMP);
	cr_assert_eq(err_exit_code(&e), EXIT_REFUSED);
	cr_assert_str_eq(e.msg, "invalid_timestamp: updated_at 'yesterday' is not an RFC 3339 "
				"timestamp (for example 2026-07-09T00:00:00Z) — nothing was appended");
	letter_free(&l);
}

Test(times, started_at_is_checked_first_and_near_misses_are_refused)
{
	static const char *const bad[] = {
		"", "2026-07-09", "2026-07-09T00:00:00", "2026-13-09T00:00:00Z",
		"2026-02-30T00:00:00Z", "2026-07-09T00:00:00Z ", "2026-07-09T24:00:00Z",
	};

	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		const char *msg = times_refusal(bad[i], "2026-07-09T00:00:00Z");
		cr_assert_not_null(msg, "'%s' passed", bad[i]);
		cr_assert(strstr(msg, "started_at '"), "%s", msg);
	}
}

Test(times, a_long_value_is_quoted_clipped_on_a_character)
{
	const char *msg = times_refusal("2026-07-09T00:00:00Z",
					"ééééééééééééééééééééééééééééééééé");
	cr_assert_not_null(msg);
	cr_assert(strstr(msg, "'éééééééééééééééééééé…'"), "%s", msg);
}

Test(times, a_nul_inside_the_value_is_not_a_timestamp)
{
	struct err e;
	struct letter l = base_letter(1, LETTER_JUDGING);

	free(l.updated_at.s);
	l.updated_at.s = malloc(22);
	memcpy(l.updated_at.s, "2026-07-09T00:00:00Z\0x", 22);
	l.updated_at.len = 22;
	l.updated_at.s[21] = '\0';
	cr_assert_eq(letter_check_times(&l, &e), -1);
	letter_free(&l);
}

Test(times, the_reference_rules_still_accept_free_text_byte_for_byte)
{
	struct letter l = base_letter(1, LETTER_JUDGING);
	struct buf line = BUF_INIT;
	struct err e;

	set_str(&l.updated_at, "yesterday");
	cr_assert_eq(letter_validate(&l, &e), 0, "%s", e.msg);
	letter_write_line(&line, "agent-a", &l);
	cr_assert(strstr(buf_str(&line), "\"ts\":\"yesterday\""));
	cr_assert(strstr(buf_str(&line), "\"updated_at\":\"yesterday\"}}"));
	buf_free(&line);
	letter_free(&l);
}
