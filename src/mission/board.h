/*
 * board — the mission board over one box: each mission's letters form a hash
 * chain (seq + 1, prev_letter_id = the head's content id), and a post is a
 * compare-and-swap on the head of its chain.
 *
 * The rule: the head only ever moves by one letter that names it, and no
 * writer can lose that race silently. Every post runs, in this order and all
 * under an exclusive flock on <box>.lock: validate the letter; build its
 * canonical line and id; dedup (the same line already in the box is a success
 * with deduped, nothing written); find the mission's head; the CAS (stale_head
 * when the letter does not extend it); the one transition rule (archived only
 * onto merge_wait); the guards (brain, known block, landed verified against
 * the block store); append. A refusal writes nothing, so the box stays byte for
 * byte what it was. Heads come from the sidecar index (sidecar.h), so a post
 * costs the same whatever the size of the box.
 *
 * The head of a mission (the walk): its letters in file order; the root is the
 * first without prev_letter_id (else the one with the greatest seq, the last
 * such); from it, move to the first letter naming the current one as prev, at
 * most as many hops as there are letters. superseded_count = letters - 1.
 *
 * A read (heads, log) creates and changes nothing — no lock file, no index —
 * so a board can be read wherever it can be read at all (see board_heads).
 *
 * `land` and `archive` are a person's gestures: they build the next letter
 * from the head themselves (agent "human") and post it through the same path.
 * `land` also imports the head's receipt candidate into the block store; see
 * board_land for how the two writes are ordered.
 *
 * A process that posts again and again (the MCP server) may keep the box open
 * between posts (struct board_keep): the lock is still taken around every post,
 * and under it the index is held against the box as it is then, so a letter
 * another process appended in between is seen by the CAS as always.
 *
 * Calling sequence:
 *     struct board b; board_init(&b, box_path, brain_or_NULL);
 *         (or board_open_default(&b, box_or_NULL, brain_or_NULL, BOARD_BIND…, &err))
 *     [b.keep = a struct board_keep * that outlives b; or BOARD_KEEP above]
 *     board_post(&b, agent, &letter, &result, &err) ... b.skipped ...
 *     board_free(&b);
 *
 * Ownership: struct board owns its strings; b.keep is borrowed. Arrays and
 * chains returned are the caller's (board_heads_free, board_chain_free).
 * Letters passed in are borrowed.
 */
#ifndef MECHA_MISSION_BOARD_H
#define MECHA_MISSION_BOARD_H

#include <stddef.h>
#include <stdint.h>

#include "mission/letter.h"
#include "mission/mailbox.h"

struct err;
struct board_keep;

#define BOARD_HUMAN "human" /* the agent of a person's gestures */

struct board {
	char *box;        /* the JSONL box */
	char *brain;      /* the brain this board is bound to; NULL = any */
	size_t skipped;   /* unreadable lines the last operation's read met */
	int rebuilt;      /* how the last operation found the sidecar index: nonzero when it
			     had to read the box (SIDECAR_REBUILT — a read: in memory — or
			     SIDECAR_CAUGHT_UP, sidecar.h) */
	int scanned;      /* the last log read the whole box for its mission's letters (its
			     chain is not plain, there is no index to trust, or the lines the
			     index points at say otherwise); 0: it read only the mission's lines */
	struct board_keep *keep; /* borrowed; NULL: a post opens and closes everything */
};

/*
 * Where posts leave <box>.lock (unlocked), the box and its index open for the
 * next post on the same box, through any struct board whose keep points here.
 * Before reusing them a post checks, under the lock, that the lock file and
 * the box are still the files at their paths (else it opens afresh); a post
 * that fails closes them. One box at a time; one thread at a time.
 */
struct board_keep *board_keep_new(void);
void board_keep_free(struct board_keep *k);

/* The head as the CAS and the transition rule see it. */
struct board_head_ref {
	char letter_id[MAILBOX_ID_LEN + 1];
	uint64_t mission_seq;
	enum letter_phase phase;
};

struct board_result {
	char letter_id[MAILBOX_ID_LEN + 1];
	char mission_id[17]; /* a validated letter's id: msn_ + 12 hex */
	uint64_t mission_seq;
	int deduped;
	enum letter_phase phase;
};

struct board_head {
	char *mission_id;
	char head_letter_id[MAILBOX_ID_LEN + 1];
	char *agent;                /* who posted the head; NULL when the line has none */
	struct letter head;
	uint64_t superseded_count;
};

struct board_entry {
	char letter_id[MAILBOX_ID_LEN + 1];
	char *agent;
	struct letter letter;
};

struct board_chain {
	struct board_entry *entries; /* the walk, root first, head last */
	size_t n;
	size_t total; /* the mission's letters in the box (off the walk: total - n) */
};

void board_init(struct board *b, const char *box, const char *brain);
enum {
	BOARD_BIND = 1, /* bind to [missions] brain when no brain is given (the verbs that post) */
	BOARD_KEEP = 2, /* keep the box open between posts, for the life of the process */
};

/*
 * The board a front end means: box (NULL: the default box, home.h), bound to
 * brain, else — with BOARD_BIND — to [missions] brain from config.toml. With
 * BOARD_KEEP, b.keep is the process's one struct board_keep (made on first
 * use, never freed): every front end that posts letter after letter — the
 * MCP server, `mission post` reading a stream — posts the same way. Fails
 * when neither MECHA_HOME nor HOME is set, or when the config it must read
 * does not load. Free with board_free.
 */
int board_open_default(struct board *b, const char *box, const char *brain, unsigned flags,
		       struct err *e);
void board_free(struct board *b);

/*
 * A writer's session (every post) first removes the temp files a killed
 * rewrite of <box>.idx or blocks.json left beside the box, once they are old
 * enough (base/fs.h, fs_temps_sweep). This lists them without removing
 * anything (mecha doctor): *names (fs_names_free) in the box's directory.
 */
int board_temps_left(const char *box, char ***names, size_t *n, struct err *e);

/*
 * The CAS (pure): no head → seq 1 without prev_letter_id; a head → seq =
 * head seq + 1 and prev_letter_id = head id. Else a refusal "stale_head".
 */
int board_check_head(const struct letter *l, const struct board_head_ref *head, struct err *e);
/* The transition rule (pure): `archived` only onto a merge_wait head ("invalid_transition"). */
int board_check_transition(const struct letter *l, const struct board_head_ref *head,
			   struct err *e);

/* Posts l as agent (valid UTF-8, not empty). Refusals exit 3; I/O failures exit 1. */
int board_post(struct board *b, const char *agent, const struct letter *l,
	       struct board_result *out, struct err *e);

/*
 * board_post for an agent (the MCP tool): a person's gestures are never an
 * agent's, whatever the letter says, so the agent id BOARD_HUMAN and an
 * `archived` letter are refused with "human_gesture" before anything is read.
 */
int board_post_agent(struct board *b, const char *agent, const struct letter *l,
		     struct board_result *out, struct err *e);

/*
 * Opens a mission: posts, as agent (NULL: BOARD_HUMAN), a seq-1 `judging`
 * letter with a fresh msn_<12 hex> id for block_id and brain_ref (through
 * board_post's guards). now: started_at and updated_at (NULL: the current time).
 */
int board_new(struct board *b, const char *agent, const char *block_id, const char *brain_ref,
	      enum letter_seat seat, enum letter_capability capability, const char *now,
	      struct board_result *out, struct err *e);

/*
 * The reads below create nothing and write nothing — no lock file, no index:
 * they take <box>.lock shared when it exists, use <box>.idx only when it is
 * current, and otherwise work from the box alone.
 */

/* Every mission's head, ordered by mission_id (byte order). A missing box has none. */
int board_heads(struct board *b, struct board_head **out, size_t *n, struct err *e);
void board_heads_free(struct board_head *h, size_t n);

/*
 * The chain of one mission (refused "unknown_mission" when it has no letters).
 * A plain chain (sidecar.h) is read from its own lines, found through the
 * index and each held to the id that names it; any other, or one whose lines
 * contradict the index, by a pass over the box (b.scanned). Same answer.
 */
int board_log(struct board *b, const char *mission_id, struct board_chain *out, struct err *e);
void board_chain_free(struct board_chain *c);

/*
 * A person lands a mission: the head must be merge_wait with a receipt
 * candidate. Under <box>.lock and then blocks.lock: the candidate is imported
 * as a receipt on its block (store_version + 1; refused when expect_version is
 * given and the store is not at it, when the block is unknown, or when the
 * candidate's scope is not the block's current versions), then the landed
 * letter (seq + 1, prev = head, identity and gate inherited, receipt
 * {imported: true, store_version}, agent "human", updated_at = now) is posted
 * through the guards of board_post. Every check runs before either write.
 *
 * The store is written first, then the box: a landed letter never names a
 * receipt that is not there. If the append fails, the store is put back as it
 * was. If the process dies between the two, the receipt records the mission
 * and the head's letter id, and running land again finds it and posts the
 * letter without importing twice (expect_version is then not checked).
 * now: the timestamp for updated_at (NULL: the current time).
 */
int board_land(struct board *b, const char *mission_id, const uint64_t *expect_version,
	       const char *now, struct board_result *out, uint64_t *store_version,
	       struct err *e);

/* A person sets a merge_wait head aside: the archived letter, agent "human". */
int board_archive(struct board *b, const char *mission_id, const char *now,
		  struct board_result *out, struct err *e);

#endif
