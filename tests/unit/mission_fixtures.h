/*
 * Letters the mission tests share: neutral fixtures (mission
 * msn_0123456789ab on block sb_alpha of brain repo-a), built in C.
 */
#ifndef MECHA_TESTS_MISSION_FIXTURES_H
#define MECHA_TESTS_MISSION_FIXTURES_H

#include "base/buf.h"
#include "mission/letter.h"
#include "mission/mailbox.h"

#include <stdlib.h>
#include <string.h>

static inline struct letter base_letter(uint64_t seq, enum letter_phase phase)
{
	struct letter l;

	memset(&l, 0, sizeof l);
	letter_str_set(&l.schema, LETTER_SCHEMA);
	letter_str_set(&l.mission_id, "msn_0123456789ab");
	l.mission_seq = seq;
	letter_str_set(&l.block_id, "sb_alpha");
	letter_str_set(&l.brain_ref, "repo-a");
	l.seat = LETTER_HAND;
	l.capability = LETTER_BUILD_RUNNER;
	l.phase = phase;
	letter_str_set(&l.packet_ref, "sha256:packethash");
	letter_str_set(&l.started_at, "2026-07-09T00:00:00Z");
	letter_str_set(&l.updated_at, "2026-07-09T00:00:00Z");
	return l;
}

static inline void set_str(struct letter_str *s, const char *text)
{
	free(s->s);
	letter_str_set(s, text);
}

static inline void green_gate(struct letter *l)
{
	l->gate.present = 1;
	set_str(&l->gate.command, "cargo test -p m1nd-mcp");
	l->gate.exit_status = 0;
	set_str(&l->gate.artifact_hash, "sha256:gatelog");
}

static inline void complete_candidate(struct letter *l)
{
	struct letter_candidate *c = &l->candidate;

	c->present = 1;
	set_str(&c->block_id, "sb_alpha");
	c->type = LETTER_TEST;
	c->boundary_version = 1;
	c->contract_version = 1;
	set_str(&c->evidence.command, "cargo test");
	c->evidence.has_exit_status = 1;
	c->evidence.exit_status = 0;
	set_str(&c->evidence.artifact_hash, "sha256:loghash");
	c->evidence.refs = calloc(1, sizeof *c->evidence.refs);
	letter_str_set(&c->evidence.refs[0], "artifact://run/1");
	c->evidence.nrefs = 1;
}

static inline void imported_receipt(struct letter *l, uint64_t version)
{
	l->receipt.present = 1;
	l->receipt.imported = 1;
	l->receipt.store_version = version;
}

/* The stored line for agent posting l (malloc'd). */
static inline char *line_of(const char *agent, const struct letter *l)
{
	struct buf b = BUF_INIT;

	letter_write_line(&b, agent, l);
	return buf_steal(&b);
}

static inline void id_of(const char *agent, const struct letter *l, char id[MAILBOX_ID_LEN + 1])
{
	char *line = line_of(agent, l);

	mailbox_id(line, strlen(line), id);
	free(line);
}

#endif
