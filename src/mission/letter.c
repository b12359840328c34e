/*
 * letter — reading a letter strictly, writing its canonical line, and the
 * contract's pure checks. The texts of the refusals are the reference's to the
 * character: scripts and other boards match on them.
 */
#include "mission/letter.h"

#include "base/buf.h"
#include "base/err.h"
#include "base/rfc3339.h"
#include "base/text.h"
#include "mission/wire.h"

#include <inttypes.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

/* ---- names on the wire --------------------------------------------------- */

static const char *const phase_names[] = {
	"judging", "executing", "gate", "review", "merge_wait", "landed", "failed", "archived",
};
static const char *const seat_names[] = { "oracle", "hand" };
static const char *const capability_names[] = {
	"build-runner", "naming-runner", "loop-runner", "hand-runner", "review-runner",
};
static const char *const decision_names[] = { "APPROVE", "CHANGE", "REJECT" };
static const char *const receipt_type_names[] = {
	"test", "structural", "runtime", "review", "handoff", "spec",
};

#define COUNT(a) (sizeof(a) / sizeof((a)[0]))

const char *letter_phase_name(enum letter_phase p)
{
	return (size_t)p < COUNT(phase_names) ? phase_names[p] : "?";
}

static const char *letter_seat_name(enum letter_seat s)
{
	return (size_t)s < COUNT(seat_names) ? seat_names[s] : "?";
}

static const char *letter_capability_name(enum letter_capability c)
{
	return (size_t)c < COUNT(capability_names) ? capability_names[c] : "?";
}

const char *letter_receipt_type_name(enum letter_receipt_type t)
{
	return (size_t)t < COUNT(receipt_type_names) ? receipt_type_names[t] : "?";
}

static int name_index(const char *s, size_t len, const char *const *names, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (strlen(names[i]) == len && memcmp(names[i], s, len) == 0)
			return (int)i;
	return -1;
}

int letter_seat_parse(const char *s, enum letter_seat *out)
{
	int i = name_index(s, strlen(s), seat_names, COUNT(seat_names));

	if (i < 0)
		return -1;
	*out = (enum letter_seat)i;
	return 0;
}

int letter_capability_parse(const char *s, enum letter_capability *out)
{
	int i = name_index(s, strlen(s), capability_names, COUNT(capability_names));

	if (i < 0)
		return -1;
	*out = (enum letter_capability)i;
	return 0;
}

/* ---- strings ------------------------------------------------------------- */

static void str_take(struct letter_str *s, struct buf *b)
{
	s->len = b->len;
	s->s = xmalloc(b->len + 1);
	memcpy(s->s, buf_str(b), b->len);
	s->s[b->len] = '\0';
}

static void str_free(struct letter_str *s)
{
	/* NOLINTNEXTLINE(clang-analyzer-core.NullDereference): refs is NULL only while nrefs is 0 */
	free(s->s);
	s->s = NULL;
	s->len = 0;
}

static void str_copy(struct letter_str *dst, const struct letter_str *src)
{
	dst->s = NULL;
	dst->len = 0;
	if (!src->s)
		return;
	dst->s = xmalloc(src->len + 1);
	memcpy(dst->s, src->s, src->len + 1);
	dst->len = src->len;
}

void letter_str_set(struct letter_str *s, const char *text)
{
	s->s = text ? xstrdup(text) : NULL;
	s->len = text ? strlen(text) : 0;
}

int letter_str_eq(const struct letter_str *a, const char *b, size_t n)
{
	return a->s && a->len == n && memcmp(a->s, b, n) == 0;
}

/* 1 when s is empty after trimming Unicode whitespace (the reference's test). */
static int blank(const struct letter_str *s)
{
	return text_blank_n(s->s, s->len); /* the length is explicit: a letter may hold NUL */
}

/* ---- the strict reader ----------------------------------------------------- */

/*
 * One object's keys, checked as they come: a key not in names is unknown
 * (fatal unless lenient), a key seen twice is a duplicate (always fatal).
 */
struct keys {
	const char *where;
	const char *const *names;
	size_t n;
	unsigned long seen, required;
	int lenient;
};

/* The index of key in k, -1 for an unknown key the caller should skip, -2 on error. */
static int key_take(struct wire *w, struct keys *k, const struct buf *key)
{
	int i = name_index(buf_str(key), key->len, k->names, k->n);

	if (i < 0) {
		if (k->lenient)
			return -1;
		return wire_fail(w, "%s: unknown key `%.60s`", k->where, buf_str(key)), -2;
	}
	if (k->seen & (1UL << i))
		return wire_fail(w, "%s: duplicate key `%s`", k->where, k->names[i]), -2;
	k->seen |= 1UL << i;
	return i;
}

static int keys_complete(struct wire *w, const struct keys *k)
{
	for (size_t i = 0; i < k->n; i++)
		if ((k->required & (1UL << i)) && !(k->seen & (1UL << i)))
			return wire_fail(w, "%s: missing key `%s`", k->where, k->names[i]);
	return 0;
}

static int read_str(struct wire *w, struct buf *tmp, struct letter_str *out)
{
	if (wire_string(w, tmp) != 0)
		return -1;
	str_take(out, tmp);
	return 0;
}

/* An optional string: null reads as absent. */
static int read_opt_str(struct wire *w, struct buf *tmp, struct letter_str *out)
{
	if (wire_null(w))
		return 0;
	return read_str(w, tmp, out);
}

static int read_enum(struct wire *w, struct buf *tmp, const char *what,
		     const char *const *names, size_t n, int *out)
{
	if (wire_string(w, tmp) != 0)
		return -1;
	*out = name_index(buf_str(tmp), tmp->len, names, n);
	if (*out < 0)
		return wire_fail(w, "unknown %s `%.60s`", what, buf_str(tmp));
	return 0;
}

/*
 * The letter's enumerated fields, one table: the field's index in the
 * letter's keys, its name in errors, its wire names in enum order and where
 * the value goes. Every enum is an int's size (asserted), so the value read
 * is copied into the field as the int it is.
 */
static const struct letter_enum {
	int field;
	const char *what;
	const char *const *names;
	size_t n;
	size_t offset;
} letter_enums[] = {
	{ 6, "seat", seat_names, COUNT(seat_names), offsetof(struct letter, seat) },
	{ 8, "capability", capability_names, COUNT(capability_names),
	  offsetof(struct letter, capability) },
	{ 9, "phase", phase_names, COUNT(phase_names), offsetof(struct letter, phase) },
};

_Static_assert(sizeof(enum letter_seat) == sizeof(int) &&
		       sizeof(enum letter_capability) == sizeof(int) &&
		       sizeof(enum letter_phase) == sizeof(int),
	       "an enumerated field holds an int");

static int read_letter_enum(struct wire *w, struct buf *tmp, struct letter *l, int field)
{
	for (size_t i = 0; i < COUNT(letter_enums); i++) {
		const struct letter_enum *k = &letter_enums[i];
		int v;

		if (k->field != field)
			continue;
		if (read_enum(w, tmp, k->what, k->names, k->n, &v) != 0)
			return -1;
		memcpy((char *)l + k->offset, &v, sizeof v);
		return 0;
	}
	return wire_fail(w, "field %d is not an enumeration", field);
}

static int read_verdict(struct wire *w, struct buf *tmp, struct letter_verdict *v)
{
	static const char *const names[] = { "decision", "gist" };
	struct keys k = { "verdict", names, COUNT(names), 0, 3, 0 };
	struct buf key = BUF_INIT;
	int r, rc = -1, d;

	v->present = 1;
	if (wire_object(w) != 0)
		goto out;
	while ((r = wire_key(w, &key)) == 1) {
		switch (key_take(w, &k, &key)) {
		case 0:
			if (read_enum(w, tmp, "decision", decision_names, COUNT(decision_names), &d))
				goto out;
			v->decision = (enum letter_decision)d;
			break;
		case 1:
			if (read_str(w, tmp, &v->gist) != 0)
				goto out;
			break;
		default:
			goto out;
		}
	}
	rc = r == 0 ? keys_complete(w, &k) : -1;
out:
	buf_free(&key);
	return rc;
}

static int read_gate(struct wire *w, struct buf *tmp, struct letter_gate *g)
{
	static const char *const names[] = { "command", "exit_status", "artifact_hash" };
	struct keys k = { "gate", names, COUNT(names), 0, 7, 0 };
	struct buf key = BUF_INIT;
	int r, rc = -1;

	g->present = 1;
	if (wire_object(w) != 0)
		goto out;
	while ((r = wire_key(w, &key)) == 1) {
		int i = key_take(w, &k, &key);
		if (i < 0)
			goto out;
		if ((i == 0 && read_str(w, tmp, &g->command) != 0) ||
		    (i == 1 && wire_i32(w, &g->exit_status) != 0) ||
		    (i == 2 && read_str(w, tmp, &g->artifact_hash) != 0))
			goto out;
	}
	rc = r == 0 ? keys_complete(w, &k) : -1;
out:
	buf_free(&key);
	return rc;
}

static int read_refs(struct wire *w, struct buf *tmp, struct letter_evidence *ev)
{
	int r;

	if (wire_array(w) != 0)
		return -1;
	while ((r = wire_item(w)) == 1) {
		ev->refs = xrealloc(ev->refs, (ev->nrefs + 1) * sizeof *ev->refs);
		memset(&ev->refs[ev->nrefs], 0, sizeof *ev->refs);
		if (read_str(w, tmp, &ev->refs[ev->nrefs]) != 0)
			return -1;
		ev->nrefs++;
	}
	return r;
}

static int read_evidence_field(struct wire *w, struct buf *tmp, struct letter_evidence *ev, int i)
{
	switch (i) {
	case 0: return read_opt_str(w, tmp, &ev->command);
	case 1: return read_opt_str(w, tmp, &ev->cwd);
	case 2:
		if (wire_null(w))
			return 0;
		ev->has_exit_status = 1;
		return wire_i32(w, &ev->exit_status);
	case 3: return read_opt_str(w, tmp, &ev->started_at);
	case 4: return read_opt_str(w, tmp, &ev->ended_at);
	case 5: return read_str(w, tmp, &ev->artifact_hash);
	case 6: return read_opt_str(w, tmp, &ev->stdout_excerpt);
	default: return read_refs(w, tmp, ev);
	}
}

static int read_evidence(struct wire *w, struct buf *tmp, struct letter_evidence *ev)
{
	static const char *const names[] = {
		"command", "cwd", "exit_status", "started_at", "ended_at",
		"artifact_hash", "stdout_excerpt", "evidence_refs",
	};
	struct keys k = { "receipt_candidate.evidence", names, COUNT(names), 0, 1UL << 5, 0 };
	struct buf key = BUF_INIT;
	int r, rc = -1;

	if (wire_object(w) != 0)
		goto out;
	while ((r = wire_key(w, &key)) == 1) {
		int i = key_take(w, &k, &key);
		if (i < 0 || read_evidence_field(w, tmp, ev, i) != 0)
			goto out;
	}
	rc = r == 0 ? keys_complete(w, &k) : -1;
out:
	buf_free(&key);
	return rc;
}

static int read_scope(struct wire *w, struct letter_candidate *c)
{
	static const char *const names[] = { "boundary_version", "contract_version" };
	struct keys k = { "receipt_candidate.scope", names, COUNT(names), 0, 3, 0 };
	struct buf key = BUF_INIT;
	uint64_t v;
	int r, rc = -1;

	if (wire_object(w) != 0)
		goto out;
	while ((r = wire_key(w, &key)) == 1) {
		int i = key_take(w, &k, &key);
		if (i < 0 || wire_u64(w, UINT32_MAX, &v) != 0)
			goto out;
		if (i == 0)
			c->boundary_version = (uint32_t)v;
		else
			c->contract_version = (uint32_t)v;
	}
	rc = r == 0 ? keys_complete(w, &k) : -1;
out:
	buf_free(&key);
	return rc;
}

static int read_candidate(struct wire *w, struct buf *tmp, struct letter_candidate *c)
{
	static const char *const names[] = { "block_id", "type", "scope", "evidence" };
	struct keys k = { "receipt_candidate", names, COUNT(names), 0, 15, 0 };
	struct buf key = BUF_INIT;
	int r, rc = -1, t;

	c->present = 1;
	if (wire_object(w) != 0)
		goto out;
	while ((r = wire_key(w, &key)) == 1) {
		int i = key_take(w, &k, &key);
		if (i < 0)
			goto out;
		if ((i == 0 && read_str(w, tmp, &c->block_id) != 0) ||
		    (i == 1 && read_enum(w, tmp, "receipt type", receipt_type_names,
					 COUNT(receipt_type_names), &t) != 0) ||
		    (i == 2 && read_scope(w, c) != 0) ||
		    (i == 3 && read_evidence(w, tmp, &c->evidence) != 0))
			goto out;
		if (i == 1)
			c->type = (enum letter_receipt_type)t;
	}
	rc = r == 0 ? keys_complete(w, &k) : -1;
out:
	buf_free(&key);
	return rc;
}

static int read_receipt(struct wire *w, struct letter_receipt *rec)
{
	static const char *const names[] = { "imported", "store_version" };
	struct keys k = { "receipt", names, COUNT(names), 0, 3, 0 };
	struct buf key = BUF_INIT;
	int r, rc = -1;

	rec->present = 1;
	if (wire_object(w) != 0)
		goto out;
	while ((r = wire_key(w, &key)) == 1) {
		int i = key_take(w, &k, &key);
		if (i < 0 || (i == 0 && wire_bool(w, &rec->imported) != 0) ||
		    (i == 1 && wire_u64(w, UINT64_MAX, &rec->store_version) != 0))
			goto out;
	}
	rc = r == 0 ? keys_complete(w, &k) : -1;
out:
	buf_free(&key);
	return rc;
}

static const char *const letter_keys[] = {
	"schema", "mission_id", "mission_seq", "prev_letter_id", "block_id", "brain_ref",
	"seat", "runner_id", "capability", "phase", "verdict", "gate", "receipt_candidate",
	"receipt", "packet_ref", "tokens_total", "started_at", "updated_at", "synthetic",
};

/* Required: everything but prev_letter_id, runner_id, the four objects,
 * packet_ref, tokens_total and synthetic. */
#define LETTER_REQUIRED                                                                  \
	((1UL << 0) | (1UL << 1) | (1UL << 2) | (1UL << 4) | (1UL << 5) | (1UL << 6) |   \
	 (1UL << 8) | (1UL << 9) | (1UL << 16) | (1UL << 17))

/* The four optional objects; null leaves one absent. */
static int read_part(struct wire *w, struct buf *tmp, struct letter *l, int i)
{
	if (wire_null(w))
		return 0;
	switch (i) {
	case 10: return read_verdict(w, tmp, &l->verdict);
	case 11: return read_gate(w, tmp, &l->gate);
	case 12: return read_candidate(w, tmp, &l->candidate);
	default: return read_receipt(w, &l->receipt);
	}
}

static int read_letter_field(struct wire *w, struct buf *tmp, struct letter *l, int i)
{
	switch (i) {
	case 0: return read_str(w, tmp, &l->schema);
	case 1: return read_str(w, tmp, &l->mission_id);
	case 2: return wire_u64(w, UINT64_MAX, &l->mission_seq);
	case 3: return read_opt_str(w, tmp, &l->prev_letter_id);
	case 4: return read_str(w, tmp, &l->block_id);
	case 5: return read_str(w, tmp, &l->brain_ref);
	case 6: case 8: case 9: return read_letter_enum(w, tmp, l, i);
	case 7: return read_opt_str(w, tmp, &l->runner_id);
	case 10: case 11: case 12: case 13: return read_part(w, tmp, l, i);
	case 14: return read_opt_str(w, tmp, &l->packet_ref);
	case 15: return wire_u64(w, UINT64_MAX, &l->tokens_total);
	case 16: return read_str(w, tmp, &l->started_at);
	case 17: return read_str(w, tmp, &l->updated_at);
	default: return wire_bool(w, &l->synthetic);
	}
}

static int read_letter(struct wire *w, struct letter *l)
{
	struct keys k = { "mission", letter_keys, COUNT(letter_keys), 0, LETTER_REQUIRED, 0 };
	struct buf key = BUF_INIT, tmp = BUF_INIT;
	int r, rc = -1;

	memset(l, 0, sizeof *l);
	if (wire_object(w) != 0)
		goto out;
	while ((r = wire_key(w, &key)) == 1) {
		int i = key_take(w, &k, &key);
		if (i < 0 || read_letter_field(w, &tmp, l, i) != 0)
			goto out;
	}
	rc = r == 0 ? keys_complete(w, &k) : -1;
out:
	buf_free(&key);
	buf_free(&tmp);
	return rc;
}

static int parse_failed(struct wire *w, struct letter *l, struct err *e)
{
	letter_free(l);
	err_set(e, ERR_INVALID_LETTER, "not a mission letter: %s",
		   w->why[0] ? w->why : "unreadable");
	return -1;
}

int letter_parse_next(const char *data, size_t len, size_t *pos, struct letter *out,
		      struct err *e)
{
	struct wire w;

	wire_init(&w, data + *pos, len - *pos);
	if (read_letter(&w, out) != 0) {
		*pos += (size_t)(w.p - w.start);
		return parse_failed(&w, out, e);
	}
	*pos += (size_t)(w.p - w.start);
	return 0;
}

int letter_parse(const char *data, size_t len, struct letter *out, struct err *e)
{
	struct wire w;

	wire_init(&w, data, len);
	if (read_letter(&w, out) != 0)
		return parse_failed(&w, out, e);
	if (!wire_at_end(&w)) {
		wire_fail(&w, "something after the letter");
		return parse_failed(&w, out, e);
	}
	return 0;
}

/* ---- the envelope --------------------------------------------------------- */

static int read_envelope(struct wire *w, struct letter_envelope *env)
{
	static const char *const names[] = { "kind", "agent", "ts", "mission" };
	struct keys k = { "letter", names, COUNT(names), 0, 0, 1 };
	struct buf key = BUF_INIT, tmp = BUF_INIT;
	struct letter_str *strs[] = { &env->kind, &env->agent, &env->ts };
	int r, rc = -1;

	if (wire_object(w) != 0)
		goto out;
	while ((r = wire_key(w, &key)) == 1) {
		int i = key_take(w, &k, &key);
		if (i == -2)
			goto out;
		if (i == -1) {
			if (wire_skip(w) != 0)
				goto out;
		} else if (i < 3) {
			if (read_opt_str(w, &tmp, strs[i]) != 0)
				goto out;
		} else if (!wire_null(w)) {
			if (read_letter(w, &env->mission) != 0)
				goto out;
			env->has_mission = 1;
		}
	}
	rc = r;
out:
	buf_free(&key);
	buf_free(&tmp);
	return rc;
}

int letter_parse_line(const char *line, size_t len, struct letter_envelope *out, struct err *e)
{
	struct wire w;

	memset(out, 0, sizeof *out);
	wire_init(&w, line, len);
	if (read_envelope(&w, out) == 0 && wire_at_end(&w))
		return 0;
	if (!w.failed)
		wire_fail(&w, "something after the letter");
	letter_envelope_free(out);
	return err_set(e, ERR_UNREADABLE, "unreadable line: %s", w.why);
}

int letter_is_mission(const struct letter_envelope *env)
{
	return env->has_mission && letter_str_eq(&env->kind, LETTER_KIND, strlen(LETTER_KIND));
}

/* ---- the canonical writer ------------------------------------------------- */

static void put_str(struct buf *out, const char *key, const struct letter_str *s, int comma)
{
	if (comma)
		buf_addc(out, ',');
	wire_put_key(out, key);
	wire_put_string(out, s->s ? s->s : "", s->len);
}

/* An optional string: written only when present, always after another key. */
static void put_opt(struct buf *out, const char *key, const struct letter_str *s)
{
	if (s->s)
		put_str(out, key, s, 1);
}

static void put_u64(struct buf *out, const char *key, uint64_t v)
{
	buf_addc(out, ',');
	wire_put_key(out, key);
	wire_put_u64(out, v);
}

static void put_enum(struct buf *out, const char *key, const char *name)
{
	buf_addc(out, ',');
	wire_put_key(out, key);
	wire_put_cstr(out, name);
}

static void write_evidence(struct buf *out, const struct letter_evidence *ev)
{
	buf_adds(out, ",\"evidence\":{");
	/* The first key present opens without a comma. */
	size_t mark = out->len;
	if (ev->command.s)
		put_str(out, "command", &ev->command, 0);
	if (ev->cwd.s)
		put_str(out, "cwd", &ev->cwd, out->len > mark);
	if (ev->has_exit_status) {
		if (out->len > mark)
			buf_addc(out, ',');
		wire_put_key(out, "exit_status");
		wire_put_i64(out, ev->exit_status);
	}
	if (ev->started_at.s)
		put_str(out, "started_at", &ev->started_at, out->len > mark);
	if (ev->ended_at.s)
		put_str(out, "ended_at", &ev->ended_at, out->len > mark);
	put_str(out, "artifact_hash", &ev->artifact_hash, out->len > mark);
	put_opt(out, "stdout_excerpt", &ev->stdout_excerpt);
	buf_adds(out, ",\"evidence_refs\":[");
	for (size_t i = 0; i < ev->nrefs; i++) {
		if (i)
			buf_addc(out, ',');
		wire_put_string(out, ev->refs[i].s, ev->refs[i].len);
	}
	buf_adds(out, "]}");
}

static void write_candidate(struct buf *out, const struct letter_candidate *c)
{
	buf_adds(out, ",\"receipt_candidate\":{");
	put_str(out, "block_id", &c->block_id, 0);
	put_enum(out, "type", letter_receipt_type_name(c->type));
	buf_adds(out, ",\"scope\":{\"boundary_version\":");
	wire_put_u64(out, c->boundary_version);
	buf_adds(out, ",\"contract_version\":");
	wire_put_u64(out, c->contract_version);
	buf_addc(out, '}');
	write_evidence(out, &c->evidence);
	buf_addc(out, '}');
}

static void write_objects(struct buf *out, const struct letter *l)
{
	if (l->verdict.present) {
		buf_adds(out, ",\"verdict\":{\"decision\":");
		wire_put_cstr(out, decision_names[l->verdict.decision]);
		put_str(out, "gist", &l->verdict.gist, 1);
		buf_addc(out, '}');
	}
	if (l->gate.present) {
		buf_adds(out, ",\"gate\":{");
		put_str(out, "command", &l->gate.command, 0);
		buf_adds(out, ",\"exit_status\":");
		wire_put_i64(out, l->gate.exit_status);
		put_str(out, "artifact_hash", &l->gate.artifact_hash, 1);
		buf_addc(out, '}');
	}
	if (l->candidate.present)
		write_candidate(out, &l->candidate);
	if (l->receipt.present) {
		buf_adds(out, ",\"receipt\":{\"imported\":");
		buf_adds(out, l->receipt.imported ? "true" : "false");
		put_u64(out, "store_version", l->receipt.store_version);
		buf_addc(out, '}');
	}
}

void letter_write_json(struct buf *out, const struct letter *l)
{
	buf_addc(out, '{');
	put_str(out, "schema", &l->schema, 0);
	put_str(out, "mission_id", &l->mission_id, 1);
	put_u64(out, "mission_seq", l->mission_seq);
	put_opt(out, "prev_letter_id", &l->prev_letter_id);
	put_str(out, "block_id", &l->block_id, 1);
	put_str(out, "brain_ref", &l->brain_ref, 1);
	put_enum(out, "seat", letter_seat_name(l->seat));
	put_opt(out, "runner_id", &l->runner_id);
	put_enum(out, "capability", letter_capability_name(l->capability));
	put_enum(out, "phase", letter_phase_name(l->phase));
	write_objects(out, l);
	put_opt(out, "packet_ref", &l->packet_ref);
	put_u64(out, "tokens_total", l->tokens_total);
	put_str(out, "started_at", &l->started_at, 1);
	put_str(out, "updated_at", &l->updated_at, 1);
	if (l->synthetic)
		buf_adds(out, ",\"synthetic\":true");
	buf_addc(out, '}');
}

void letter_write_line(struct buf *out, const char *agent, const struct letter *l)
{
	buf_adds(out, "{\"kind\":\"" LETTER_KIND "\",\"agent\":");
	wire_put_cstr(out, agent);
	buf_adds(out, ",\"ts\":");
	wire_put_string(out, l->updated_at.s ? l->updated_at.s : "", l->updated_at.len);
	buf_adds(out, ",\"mission\":");
	letter_write_json(out, l);
	buf_addc(out, '}');
}

/* ---- validation -------------------------------------------------------------- */

static int looks_absolute(const struct letter_str *s)
{
	size_t off, n;
	const char *t;

	text_trim(s->s, s->len, &off, &n);
	t = s->s + off;
	if (n >= 1 && (t[0] == '/' || t[0] == '~'))
		return 1;
	if (n >= 2 && t[0] == '\\' && t[1] == '\\')
		return 1;
	return n >= 3 && ((t[0] >= 'a' && t[0] <= 'z') || (t[0] >= 'A' && t[0] <= 'Z')) &&
	       t[1] == ':' && (t[2] == '\\' || t[2] == '/');
}

static int valid_mission_id(const struct letter_str *id)
{
	if (id->len != 16 || memcmp(id->s, "msn_", 4) != 0)
		return 0;
	for (size_t i = 4; i < 16; i++) {
		char c = id->s[i];
		if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F')))
			return 0;
	}
	return 1;
}

static int invalid_phase(struct err *e, const char *phase, const char *detail)
{
	return err_set(e, ERR_INVALID_PHASE, "invalid_phase: `%s` %s", phase, detail);
}

static int incomplete(struct err *e, const char *part, const char *missing)
{
	return err_set(e, ERR_INCOMPLETE_EVIDENCE,
			  "incomplete_evidence: %s is missing `%s` — evidence a tool cannot point "
			  "at is not evidence",
			  part, missing);
}

static int landed_law(struct err *e, const char *detail)
{
	return err_set(e, ERR_LANDED_LAW,
			  "landed_law: `landed` requires receipt.imported==true with a real "
			  "store_version — %s (a zero-exit gate without an imported receipt is "
			  "merge_wait, never landed)",
			  detail);
}

static int validate_landed(const struct letter *l, struct err *e)
{
	if (!l->receipt.present)
		return landed_law(e, "no receipt anchor is present");
	if (!l->receipt.imported)
		return landed_law(e, "receipt.imported is false");
	if (l->receipt.store_version < 1)
		return landed_law(e, "receipt.store_version is not a real (>=1) version");
	return 0;
}

/* Per-phase gating (§1b) and the landed law (§1d). */
static int validate_phase(const struct letter *l, struct err *e)
{
	switch (l->phase) {
	case LETTER_EXECUTING:
		if (l->verdict.present)
			return invalid_phase(e, "executing",
					     "carries no verdict (the verdict belongs to the judging seat)");
		return 0;
	case LETTER_MERGE_WAIT:
		if (!l->gate.present)
			return invalid_phase(e, "merge_wait", "requires a gate");
		if (blank(&l->gate.command))
			return incomplete(e, "gate", "command");
		if (blank(&l->gate.artifact_hash))
			return incomplete(e, "gate", "artifact_hash");
		return 0;
	case LETTER_LANDED:
		return validate_landed(l, e);
	case LETTER_ARCHIVED:
		if (l->receipt.present && l->receipt.imported)
			return invalid_phase(e, "archived",
					     "must not carry an imported receipt — an archived letter "
					     "sets a superseded receipt aside, it never lands one in "
					     "disguise");
		return 0;
	default:
		return 0;
	}
}

int letter_validate(const struct letter *l, struct err *e)
{
	if (!letter_str_eq(&l->schema, LETTER_SCHEMA, strlen(LETTER_SCHEMA)))
		return err_set(e, ERR_SCHEMA_MISMATCH, "schema mismatch: expected %s, found %s",
				  LETTER_SCHEMA, l->schema.s ? l->schema.s : "");
	if (!l->mission_id.s || !valid_mission_id(&l->mission_id))
		return err_set(e, ERR_INVALID_MISSION_ID,
				  "invalid mission_id '%s': expected msn_<12hex>",
				  l->mission_id.s ? l->mission_id.s : "");
	if (l->mission_seq < 1)
		return err_set(e, ERR_INVALID_MISSION_SEQ,
				  "invalid mission_seq %" PRIu64 ": a chain starts at 1", l->mission_seq);
	if (l->brain_ref.s && looks_absolute(&l->brain_ref))
		return err_set(e, ERR_ABSOLUTE_PATH,
				  "the public contract carries no absolute paths (§1f): field "
				  "`brain_ref` = '%s' looks like a path — brain_ref is a reference "
				  "string, host paths live in the local side record",
				  l->brain_ref.s);
	if (validate_phase(l, e) != 0)
		return -1;
	if (l->gate.present && blank(&l->gate.artifact_hash))
		return incomplete(e, "gate", "artifact_hash");
	if (l->candidate.present) {
		if (blank(&l->candidate.evidence.artifact_hash))
			return incomplete(e, "receipt_candidate.evidence", "artifact_hash");
		if (l->candidate.evidence.nrefs == 0)
			return incomplete(e, "receipt_candidate.evidence", "evidence_refs");
	}
	return 0;
}

/* ---- the house's clock rule ------------------------------------------------------ */

/* A value a person can read in a one-line refusal: at most 40 bytes, cut on a character. */
static int quoted_len(const struct letter_str *s)
{
	size_t n = text_utf8_clip(s->s, s->len, 40);
	const char *nul = memchr(s->s, '\0', n);

	return (int)(nul ? (size_t)(nul - s->s) : n);
}

static int check_time(const char *key, const struct letter_str *s, struct err *e)
{
	time_t t;

	/* A NUL inside the string would hide the rest from the parser: not a timestamp. */
	if (s->s && strlen(s->s) == s->len && rfc3339_parse(s->s, &t) == 0)
		return 0;
	return err_set(e, ERR_INVALID_TIMESTAMP,
		       "invalid_timestamp: %s '%.*s%s' is not an RFC 3339 timestamp (for "
		       "example 2026-07-09T00:00:00Z) — nothing was appended",
		       key, s->s ? quoted_len(s) : 0, s->s ? s->s : "",
		       s->s && (size_t)quoted_len(s) < s->len ? "…" : "");
}

int letter_check_times(const struct letter *l, struct err *e)
{
	if (check_time("started_at", &l->started_at, e) != 0)
		return -1;
	return check_time("updated_at", &l->updated_at, e);
}

/* ---- copies and freeing --------------------------------------------------- */

static void evidence_copy(struct letter_evidence *d, const struct letter_evidence *s)
{
	*d = *s;
	str_copy(&d->command, &s->command);
	str_copy(&d->cwd, &s->cwd);
	str_copy(&d->started_at, &s->started_at);
	str_copy(&d->ended_at, &s->ended_at);
	str_copy(&d->artifact_hash, &s->artifact_hash);
	str_copy(&d->stdout_excerpt, &s->stdout_excerpt);
	d->refs = s->nrefs ? xcalloc(s->nrefs, sizeof *d->refs) : NULL;
	for (size_t i = 0; i < s->nrefs; i++)
		str_copy(&d->refs[i], &s->refs[i]);
}

void letter_copy(struct letter *d, const struct letter *s)
{
	*d = *s;
	str_copy(&d->schema, &s->schema);
	str_copy(&d->mission_id, &s->mission_id);
	str_copy(&d->prev_letter_id, &s->prev_letter_id);
	str_copy(&d->block_id, &s->block_id);
	str_copy(&d->brain_ref, &s->brain_ref);
	str_copy(&d->runner_id, &s->runner_id);
	str_copy(&d->verdict.gist, &s->verdict.gist);
	str_copy(&d->gate.command, &s->gate.command);
	str_copy(&d->gate.artifact_hash, &s->gate.artifact_hash);
	str_copy(&d->candidate.block_id, &s->candidate.block_id);
	evidence_copy(&d->candidate.evidence, &s->candidate.evidence);
	str_copy(&d->packet_ref, &s->packet_ref);
	str_copy(&d->started_at, &s->started_at);
	str_copy(&d->updated_at, &s->updated_at);
}

static void evidence_free(struct letter_evidence *ev);

void letter_next(struct letter *out, const struct letter *head, const char *head_id,
		 enum letter_phase phase, const char *updated_at)
{
	letter_copy(out, head);
	out->mission_seq = head->mission_seq + 1;
	str_free(&out->prev_letter_id);
	letter_str_set(&out->prev_letter_id, head_id);
	out->phase = phase;
	str_free(&out->verdict.gist);
	memset(&out->verdict, 0, sizeof out->verdict);
	str_free(&out->candidate.block_id);
	evidence_free(&out->candidate.evidence);
	memset(&out->candidate, 0, sizeof out->candidate);
	memset(&out->receipt, 0, sizeof out->receipt);
	str_free(&out->updated_at);
	letter_str_set(&out->updated_at, updated_at);
}

void letter_first(struct letter *out, const char *mission_id, const char *block_id,
		  const char *brain_ref, enum letter_seat seat, enum letter_capability capability,
		  const char *now)
{
	memset(out, 0, sizeof *out);
	letter_str_set(&out->schema, LETTER_SCHEMA);
	letter_str_set(&out->mission_id, mission_id);
	out->mission_seq = 1;
	letter_str_set(&out->block_id, block_id);
	letter_str_set(&out->brain_ref, brain_ref);
	out->seat = seat;
	out->capability = capability;
	out->phase = LETTER_JUDGING;
	letter_str_set(&out->started_at, now);
	letter_str_set(&out->updated_at, now);
}

static void evidence_free(struct letter_evidence *ev)
{
	str_free(&ev->command);
	str_free(&ev->cwd);
	str_free(&ev->started_at);
	str_free(&ev->ended_at);
	str_free(&ev->artifact_hash);
	str_free(&ev->stdout_excerpt);
	for (size_t i = 0; i < ev->nrefs; i++)
		str_free(&ev->refs[i]);
	free(ev->refs);
	ev->refs = NULL;
	ev->nrefs = 0;
}

void letter_free(struct letter *l)
{
	str_free(&l->schema);
	str_free(&l->mission_id);
	str_free(&l->prev_letter_id);
	str_free(&l->block_id);
	str_free(&l->brain_ref);
	str_free(&l->runner_id);
	str_free(&l->verdict.gist);
	str_free(&l->gate.command);
	str_free(&l->gate.artifact_hash);
	str_free(&l->candidate.block_id);
	evidence_free(&l->candidate.evidence);
	str_free(&l->packet_ref);
	str_free(&l->started_at);
	str_free(&l->updated_at);
	memset(l, 0, sizeof *l);
}

void letter_envelope_free(struct letter_envelope *env)
{
	str_free(&env->kind);
	str_free(&env->agent);
	str_free(&env->ts);
	letter_free(&env->mission);
	env->has_mission = 0;
}
