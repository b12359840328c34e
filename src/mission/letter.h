/*
 * letter — the mission letter (`m1nd-mission-letter-v0`): its typed form, the
 * strict reader of its JSON, the canonical line it is stored as, and the pure
 * validation of the contract (schema, id, seq, no host paths, per-phase
 * gating, the landed law, complete evidence).
 *
 * The rule: a letter is stored as the line this module writes from the parsed
 * form, never as the bytes a client sent, so the same letter posted by the
 * same agent is the same line on every board — and so has the same content id
 * (mailbox.h). The line must stay byte-identical to the reference's: key
 * order, which optional keys are left out, and the escaping (wire.h) are all
 * part of the contract.
 *
 * Strictness is split as the reference splits it: the envelope of a stored
 * line is lenient (unknown keys are ignored), the `mission` payload and all it
 * contains is not (an unknown key, an unknown enum spelling, a wrong type, a
 * missing required key, a duplicated key, a fraction or a negative count all
 * make it unreadable). Optional keys read `null` as absent.
 *
 * Calling sequence:
 *     struct letter l; struct err e;
 *     if (letter_parse(json, len, &l, &e) != 0) ... e.msg says where;
 *     if (letter_validate(&l, &e) != 0) ... a refusal (exit 3);
 *     struct buf line = BUF_INIT; letter_write_line(&line, agent, &l);
 *     letter_free(&l);
 *
 * Ownership: a struct letter owns all its strings (letter_free releases them;
 * it is safe on a zeroed letter). Strings are struct letter_str: NUL-terminated
 * for convenience but measured by len, since JSON lets a letter carry U+0000;
 * s == NULL means an absent optional field. Everything else is borrowed.
 */
#ifndef MECHA_MISSION_LETTER_H
#define MECHA_MISSION_LETTER_H

#include <stddef.h>
#include <stdint.h>

struct buf;
struct err;

#define LETTER_SCHEMA "m1nd-mission-letter-v0"
#define LETTER_KIND "mission"

struct letter_str {
	char *s; /* NULL when absent */
	size_t len;
};

enum letter_seat { LETTER_ORACLE, LETTER_HAND };

enum letter_capability {
	LETTER_BUILD_RUNNER,
	LETTER_NAMING_RUNNER,
	LETTER_LOOP_RUNNER,
	LETTER_HAND_RUNNER,
	LETTER_REVIEW_RUNNER,
};

enum letter_phase {
	LETTER_JUDGING,
	LETTER_EXECUTING,
	LETTER_GATE,
	LETTER_REVIEW,
	LETTER_MERGE_WAIT,
	LETTER_LANDED,
	LETTER_FAILED,
	LETTER_ARCHIVED,
};

enum letter_decision { LETTER_APPROVE, LETTER_CHANGE, LETTER_REJECT };

enum letter_receipt_type {
	LETTER_TEST,
	LETTER_STRUCTURAL,
	LETTER_RUNTIME,
	LETTER_REVIEW_RECEIPT,
	LETTER_HANDOFF,
	LETTER_SPEC,
};

struct letter_verdict {
	int present;
	enum letter_decision decision;
	struct letter_str gist;
};

struct letter_gate {
	int present;
	struct letter_str command;
	int32_t exit_status;
	struct letter_str artifact_hash;
};

/* The evidence anchor of a receipt (shared with the block store's receipts). */
struct letter_evidence {
	struct letter_str command, cwd;
	int has_exit_status;
	int32_t exit_status;
	struct letter_str started_at, ended_at;
	struct letter_str artifact_hash; /* required */
	struct letter_str stdout_excerpt;
	struct letter_str *refs; /* evidence_refs; absent on input reads as empty */
	size_t nrefs;
};

struct letter_candidate {
	int present;
	struct letter_str block_id;
	enum letter_receipt_type type;
	uint32_t boundary_version, contract_version;
	struct letter_evidence evidence;
};

struct letter_receipt {
	int present;
	int imported;
	uint64_t store_version;
};

struct letter {
	struct letter_str schema;
	struct letter_str mission_id;
	uint64_t mission_seq;
	struct letter_str prev_letter_id; /* absent at seq 1 */
	struct letter_str block_id;
	struct letter_str brain_ref; /* a name, never a host path */
	enum letter_seat seat;
	struct letter_str runner_id;
	enum letter_capability capability;
	enum letter_phase phase;
	struct letter_verdict verdict;
	struct letter_gate gate;
	struct letter_candidate candidate; /* receipt_candidate */
	struct letter_receipt receipt;
	struct letter_str packet_ref;
	uint64_t tokens_total;
	struct letter_str started_at, updated_at;
	int synthetic;
};

/* A stored line's envelope: the lenient outer object. */
struct letter_envelope {
	struct letter_str kind, agent, ts; /* absent when missing or null */
	int has_mission;                   /* a `mission` payload was present and parsed */
	struct letter mission;
};

/*
 * Reads one letter payload (the `mission` object on its own, as a client
 * submits it) from data[0..len), which must hold that object and nothing but
 * whitespace around it. Fails with code "invalid_letter" and a message naming
 * the key and the byte; *out is then zeroed.
 */
int letter_parse(const char *data, size_t len, struct letter *out, struct err *e);

/*
 * The same for a value that starts at *pos and may be followed by more
 * (several letters in one stream). On success *pos is past it; on failure
 * *pos is where reading stopped — the end of data when the letter is only
 * incomplete, which lets a reader of a stream wait for more.
 */
int letter_parse_next(const char *data, size_t len, size_t *pos, struct letter *out,
		      struct err *e);

/*
 * Reads a stored line (one JSON object, without its newline). The outer object
 * is lenient, its `mission` is strict. Returns 0, or -1 when the line is
 * unreadable (e says why; *out is zeroed).
 */
int letter_parse_line(const char *line, size_t len, struct letter_envelope *out, struct err *e);

/* 1 when the envelope is a mission letter: kind is "mission" and a payload parsed. */
int letter_is_mission(const struct letter_envelope *env);

/*
 * The canonical stored line for `agent` posting l, without a newline:
 * {"kind":"mission","agent":…,"ts":<updated_at>,"mission":{…}}.
 */
void letter_write_line(struct buf *out, const char *agent, const struct letter *l);
/* The payload object alone, in the same canonical form. */
void letter_write_json(struct buf *out, const struct letter *l);

/*
 * The contract of §3, first failure wins, each with the reference's text. A
 * failure is a refusal (exit 3) with one of the codes schema_mismatch,
 * invalid_mission_id, invalid_mission_seq, absolute_path, invalid_phase,
 * landed_law, incomplete_evidence. Pure.
 */
int letter_validate(const struct letter *l, struct err *e);

/*
 * The house's rule on a letter's clock, stricter than the reference: started_at
 * and updated_at are RFC 3339 timestamps ("2026-07-09T00:00:00Z"). The
 * reference stores any string there, so letter_validate does not ask this —
 * every letter the reference accepts is still read, replayed and posted with
 * `mecha mission post` byte for byte. It is asked where a letter is written
 * fresh: by an agent over MCP (mission_post). The letters mecha makes itself
 * (mission new, land, archive) carry the current time. A failure is the
 * refusal "invalid_timestamp" naming the key and its value. Pure.
 */
int letter_check_times(const struct letter *l, struct err *e);

/*
 * The letter a person's gesture puts after `head` (content id head_id): the
 * same identity (schema, mission, block, brain, seat, runner, capability,
 * packet, tokens, started_at, synthetic) and gate, seq + 1, prev_letter_id =
 * head_id, the given phase and updated_at; no verdict, candidate or receipt
 * (the caller adds a receipt to a landed one).
 */
void letter_next(struct letter *out, const struct letter *head, const char *head_id,
		 enum letter_phase phase, const char *updated_at);

/*
 * The first letter of a mission (out is overwritten, not freed first): seq 1,
 * no prev_letter_id, phase judging, started_at = updated_at = now.
 */
void letter_first(struct letter *out, const char *mission_id, const char *block_id,
		  const char *brain_ref, enum letter_seat seat, enum letter_capability capability,
		  const char *now);

/* A deep copy of src into dst (dst is overwritten, not freed first). */
void letter_copy(struct letter *dst, const struct letter *src);
void letter_free(struct letter *l);
void letter_envelope_free(struct letter_envelope *env);

/* Sets s to a copy of text (NULL leaves it absent). */
void letter_str_set(struct letter_str *s, const char *text);
/* 1 when a holds exactly the bytes of b[0..n). */
int letter_str_eq(const struct letter_str *a, const char *b, size_t n);

/* Wire spellings ("merge_wait", "build-runner", …). */
const char *letter_phase_name(enum letter_phase p);
const char *letter_receipt_type_name(enum letter_receipt_type t);
/* Parses a wire spelling; -1 when it is not one. */
int letter_seat_parse(const char *s, enum letter_seat *out);
int letter_capability_parse(const char *s, enum letter_capability *out);

#endif
