/*
 * The board: the head CAS and the transition rule, posting through real
 * files under the real lock, the walk over damaged chains, the sidecar index
 * as a cache that notices, the block store's guards and the person's gestures.
 */
#include <criterion/criterion.h>
#include <criterion/parameterized.h>

#include "scratch.h"
#include "base/buf.h"
#include "base/err.h"
#include "base/fs.h"
#include "mission/blocks.h"
#include "mission/board.h"
#include "mission/letter.h"
#include "mission/mailbox.h"
#include "mission/sidecar.h"
#include "mission_fixtures.h"

#include <dirent.h>
#include <fcntl.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

struct scratch {
	char *dir, *box, *idx, *store;
};

static struct scratch current;

static int remove_one(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)remove(path); /* best effort: a leftover is only litter in /tmp */
	return 0;
}

/* Each test runs in its own process: its scratch directory goes when it exits. */
static void scratch_remove(void)
{
	nftw(current.dir, remove_one, 16, FTW_DEPTH | FTW_PHYS);
	free(current.dir);
	free(current.box);
	free(current.idx);
	free(current.store);
}

static struct scratch scratch(void)
{
	char tmpl[512];
	struct scratch s;

	cr_assert_not_null(scratch_mkdtemp(tmpl, sizeof tmpl, "board"));
	s.dir = xstrdup(tmpl);
	atexit(scratch_remove);
	s.box = fs_join(s.dir, "inbox.jsonl");
	s.idx = xasprintf("%s.idx", s.box);
	s.store = fs_join(s.dir, "blocks.json");
	current = s;
	return s;
}

static char *slurp(const char *path)
{
	char *data = NULL;
	size_t len;
	struct err e;

	if (fs_read(path, &data, &len, &e) != 0)
		return xstrdup("<missing>");
	return data;
}

static void append_raw(const char *path, const char *bytes)
{
	int fd = open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0600);

	cr_assert_geq(fd, 0);
	cr_assert_eq(fs_write_all(fd, bytes, strlen(bytes)), 0);
	close(fd);
}

static struct board_result post_ok(struct board *b, const char *agent, const struct letter *l)
{
	struct board_result r;
	struct err e;

	cr_assert_eq(board_post(b, agent, l, &r, &e), 0, "post refused: %s", e.msg);
	return r;
}

static struct err post_refused(struct board *b, const struct letter *l)
{
	struct board_result r;
	struct err e;

	memset(&e, 0, sizeof e);
	cr_assert_neq(board_post(b, "agent-a", l, &r, &e), 0, "post accepted");
	cr_assert(err_is_refusal(&e), "%s", e.msg);
	return e;
}

/* The head of the only mission, with its superseded count. */
static struct board_head only_head(struct board *b)
{
	struct board_head *h, one;
	size_t n;
	struct err e;

	cr_assert_eq(board_heads(b, &h, &n, &e), 0, "%s", e.msg);
	cr_assert_eq(n, 1);
	one = h[0];
	free(h);
	return one;
}

static void head_free(struct board_head *h)
{
	free(h->mission_id);
	free(h->agent);
	letter_free(&h->head);
}

static struct board_head_ref ref(const char *id, uint64_t seq, enum letter_phase phase)
{
	struct board_head_ref r;

	snprintf(r.letter_id, sizeof r.letter_id, "%s", id);
	r.mission_seq = seq;
	r.phase = phase;
	return r;
}

/* A block store holding sb_alpha at boundary 1, contract 1. */
static void store_with_alpha(const struct scratch *s)
{
	struct blocks bs;
	struct err e;

	cr_assert_eq(blocks_load(&bs, s->store, &e), 0);
	cr_assert_eq(blocks_add(&bs, "sb_alpha", "Alpha", 1, 1, &e), 0);
	cr_assert_eq(blocks_save(&bs, &e), 0, "%s", e.msg);
	blocks_free(&bs);
}

/* seq 1 judging, seq 2 merge_wait with candidate: returns seq 2's id. */
static void post_to_merge_wait(struct board *b, char id2[MAILBOX_ID_LEN + 1])
{
	struct letter l1 = base_letter(1, LETTER_JUDGING), l2 = base_letter(2, LETTER_MERGE_WAIT);
	struct board_result r = post_ok(b, "agent-a", &l1);

	set_str(&l2.prev_letter_id, r.letter_id);
	green_gate(&l2);
	complete_candidate(&l2);
	r = post_ok(b, "agent-a", &l2);
	memcpy(id2, r.letter_id, MAILBOX_ID_LEN + 1);
	letter_free(&l1);
	letter_free(&l2);
}

/* ---- the head CAS and the transition rule, as data ------------------------------------- */

enum rule_check { CHECK_HEAD, CHECK_TRANSITION };

/*
 * One row a case: which check, the letter (seq, phase, prev_letter_id) and
 * the head it is checked against (head_id NULL: no chain yet), then what is
 * expected — accepted, or refused by a rule with its code (0: any code), its
 * whole text (msg) and/or a part of it (in). A failure prints the row's name.
 */
struct rule_case {
	const char *name;
	enum rule_check check;
	uint64_t seq;
	enum letter_phase phase;
	const char *prev;
	const char *head_id;
	uint64_t head_seq;
	enum letter_phase head_phase;
	int refused;
	int code;
	const char *msg;
	const char *in;
};

#define ARCHIVED_ONTO(p)                                                                          \
	{ .name = "archived_must_not_extend_a_" #p "_head", .check = CHECK_TRANSITION, .seq = 2,  \
	  .phase = LETTER_ARCHIVED, .head_id = "bbbbbbbbbbbb", .head_seq = 1,                      \
	  .head_phase = LETTER_##p, .refused = 1 }

static const struct rule_case rule_cases[] = {
	/* The head CAS (docs/protocol/files.md §6): seq 1 onto no chain, seq n onto the head,
	 * a stale prev refused. */
	{ .name = "seq1_onto_no_chain_is_accepted", .check = CHECK_HEAD, .seq = 1,
	  .phase = LETTER_JUDGING },
	{ .name = "seq1_with_a_prev_is_stale", .check = CHECK_HEAD, .seq = 1, .phase = LETTER_JUDGING,
	  .prev = "deadbeef0001", .refused = 1, .code = ERR_STALE_HEAD,
	  .msg = "stale_head: seq 1 must carry a null prev_letter_id "
		 "(expected_head=<none>, got prev_letter_id=deadbeef0001)" },
	{ .name = "seq2_onto_the_head_extends_it", .check = CHECK_HEAD, .seq = 2,
	  .phase = LETTER_EXECUTING, .prev = "aaaaaaaaaaaa", .head_id = "aaaaaaaaaaaa", .head_seq = 1,
	  .head_phase = LETTER_JUDGING },
	{ .name = "seq2_onto_another_prev_is_stale", .check = CHECK_HEAD, .seq = 2,
	  .phase = LETTER_EXECUTING, .prev = "wrongprevabc", .head_id = "aaaaaaaaaaaa", .head_seq = 1,
	  .head_phase = LETTER_JUDGING, .refused = 1, .in = "stale_head" },
	/* The three stale-head texts, word for word. */
	{ .name = "a_first_letter_not_at_seq1_is_stale", .check = CHECK_HEAD, .seq = 3,
	  .phase = LETTER_JUDGING, .refused = 1, .code = ERR_STALE_HEAD,
	  .msg = "stale_head: no chain exists yet for this mission — the first letter "
		 "must be seq 1, got seq 3 (expected_head=<none>, got "
		 "prev_letter_id=<none>)" },
	{ .name = "a_next_letter_without_a_prev_is_stale", .check = CHECK_HEAD, .seq = 2,
	  .phase = LETTER_EXECUTING, .head_id = "aaaaaaaaaaaa", .head_seq = 1,
	  .head_phase = LETTER_JUDGING, .refused = 1, .code = ERR_STALE_HEAD,
	  .msg = "stale_head: the head is seq 1 (aaaaaaaaaaaa); the next letter must "
		 "be seq 2 with prev_letter_id=aaaaaaaaaaaa (expected_head=aaaaaaaaaaaa, "
		 "got prev_letter_id=<none>)" },
	/* The one transition rule: archived supersedes a merge_wait head, and only that. */
	{ .name = "archived_supersedes_a_merge_wait_head", .check = CHECK_TRANSITION, .seq = 2,
	  .phase = LETTER_ARCHIVED, .head_id = "aaaaaaaaaaaa", .head_seq = 1,
	  .head_phase = LETTER_MERGE_WAIT },
	{ .name = "archived_onto_no_chain_is_refused", .check = CHECK_TRANSITION, .seq = 2,
	  .phase = LETTER_ARCHIVED, .refused = 1, .code = ERR_INVALID_TRANSITION,
	  .in = "invalid_transition" },
	ARCHIVED_ONTO(LANDED),
	ARCHIVED_ONTO(FAILED),
	ARCHIVED_ONTO(EXECUTING),
	ARCHIVED_ONTO(JUDGING),
	ARCHIVED_ONTO(ARCHIVED),
	{ .name = "only_archived_is_gated_by_the_transition_rule", .check = CHECK_TRANSITION,
	  .seq = 2, .phase = LETTER_EXECUTING, .head_id = "cccccccccccc", .head_seq = 1,
	  .head_phase = LETTER_LANDED },
	/* The transition text, word for word, and the head it names. */
	{ .name = "the_transition_text_is_the_reference_one", .check = CHECK_TRANSITION, .seq = 1,
	  .phase = LETTER_ARCHIVED, .refused = 1, .code = ERR_INVALID_TRANSITION,
	  .msg = "invalid_transition: cannot post `archived` onto head `<none>` — "
		 "archived supersedes a merge_wait receipt only — the board's one "
		 "transition rule (a fresh, landed, failed, or in-progress head cannot be "
		 "archived)" },
	{ .name = "the_transition_text_names_the_head", .check = CHECK_TRANSITION, .seq = 1,
	  .phase = LETTER_ARCHIVED, .head_id = "aaaaaaaaaaaa", .head_seq = 1,
	  .head_phase = LETTER_LANDED, .refused = 1, .in = "onto head `landed` —" },
};

#define N_RULE_CASES (sizeof rule_cases / sizeof rule_cases[0])

/* Criterion copies a parameter's bytes to each run, not what it points at: a run gets an index. */
ParameterizedTestParameters(board, rules)
{
	static size_t rows[N_RULE_CASES];

	for (size_t i = 0; i < N_RULE_CASES; i++)
		rows[i] = i;
	return cr_make_param_array(size_t, rows, N_RULE_CASES);
}

ParameterizedTest(const size_t *row, board, rules)
{
	const struct rule_case *c = &rule_cases[*row];
	struct letter l = base_letter(c->seq, c->phase);
	struct board_head_ref head;
	const struct board_head_ref *h = NULL;
	struct err e;
	int rc;

	if (c->prev)
		set_str(&l.prev_letter_id, c->prev);
	if (c->head_id) {
		head = ref(c->head_id, c->head_seq, c->head_phase);
		h = &head;
	}
	memset(&e, 0, sizeof e);
	rc = c->check == CHECK_HEAD ? board_check_head(&l, h, &e) : board_check_transition(&l, h, &e);
	if (!c->refused) {
		cr_assert_eq(rc, 0, "%s: refused: %s", c->name, e.msg);
	} else {
		cr_assert_neq(rc, 0, "%s: accepted", c->name);
		cr_assert(err_is_refusal(&e), "%s: %s", c->name, e.msg);
		if (c->code)
			cr_assert_eq(e.code, c->code, "%s: %s", c->name, e.msg);
		if (c->msg)
			cr_assert_str_eq(e.msg, c->msg, "%s", c->name);
		if (c->in)
			cr_assert(strstr(e.msg, c->in), "%s: %s", c->name, e.msg);
	}
	letter_free(&l);
}

/* ---- the board tests --------------------------------------------------------------- */

Test(board, happy_chain_head_is_seq3_with_two_superseded)
{
	struct scratch s = scratch();
	struct board b;
	struct letter l1 = base_letter(1, LETTER_JUDGING), l2 = base_letter(2, LETTER_EXECUTING);
	struct letter l3 = base_letter(3, LETTER_MERGE_WAIT);
	struct board_result r1, r2, r3;
	struct board_head h;

	board_init(&b, s.box, NULL);
	r1 = post_ok(&b, "agent-a", &l1);
	cr_assert_not(r1.deduped);
	cr_assert_str_eq(r1.letter_id, "f59633562ac0");
	set_str(&l2.prev_letter_id, r1.letter_id);
	r2 = post_ok(&b, "agent-a", &l2);
	set_str(&l3.prev_letter_id, r2.letter_id);
	green_gate(&l3);
	complete_candidate(&l3);
	r3 = post_ok(&b, "agent-a", &l3);
	cr_assert_str_eq(r3.letter_id, "572e72c4a3f2");

	h = only_head(&b);
	cr_assert_eq(h.head.mission_seq, 3, "head is the seq-3 tip");
	cr_assert_eq(h.head.phase, LETTER_MERGE_WAIT);
	cr_assert_str_eq(h.head_letter_id, r3.letter_id);
	cr_assert_eq(h.superseded_count, 2, "seq 1 and seq 2 are superseded");
	cr_assert_str_eq(h.agent, "agent-a");
	head_free(&h);
	letter_free(&l1);
	letter_free(&l2);
	letter_free(&l3);
	board_free(&b);
}

Test(board, stale_head_rejected_and_nothing_appended)
{
	struct scratch s = scratch();
	struct board b;
	struct letter l1 = base_letter(1, LETTER_JUDGING), l2_bad = base_letter(2, LETTER_EXECUTING);
	char *after_seq1, *after_reject;
	struct err e;

	board_init(&b, s.box, NULL);
	post_ok(&b, "agent-a", &l1);
	after_seq1 = slurp(s.box);
	set_str(&l2_bad.prev_letter_id, "deadbeefdead");
	e = post_refused(&b, &l2_bad);
	cr_assert_eq(e.code, ERR_STALE_HEAD);
	after_reject = slurp(s.box);
	cr_assert_str_eq(after_seq1, after_reject, "a stale-head rejection appends nothing");
	cr_assert_eq(strchr(after_reject, '\n') + 1, after_reject + strlen(after_reject),
		     "still exactly the seq-1 letter");
	free(after_seq1);
	free(after_reject);
	letter_free(&l1);
	letter_free(&l2_bad);
	board_free(&b);
}

Test(board, identical_replay_is_idempotent)
{
	struct scratch s = scratch();
	struct board b;
	struct letter l1 = base_letter(1, LETTER_JUDGING);
	struct board_result first, second;
	char *before, *after;

	board_init(&b, s.box, NULL);
	first = post_ok(&b, "agent-a", &l1);
	cr_assert_not(first.deduped);
	before = slurp(s.box);
	second = post_ok(&b, "agent-a", &l1);
	cr_assert(second.deduped, "an identical replay is a dedup no-op");
	cr_assert_str_eq(first.letter_id, second.letter_id);
	after = slurp(s.box);
	cr_assert_str_eq(before, after, "the replay appended nothing");
	free(before);
	free(after);
	letter_free(&l1);
	board_free(&b);
}

Test(board, letter_cannot_color_the_store)
{
	struct scratch s = scratch();
	struct board b;
	struct letter landed = base_letter(1, LETTER_LANDED), merge = base_letter(1, LETTER_MERGE_WAIT);
	struct blocks bs;
	struct err e;
	uint64_t v;
	char *before, *after;

	store_with_alpha(&s);
	/* A person imports a receipt: the store is at version 2 and holds it. */
	green_gate(&merge);
	complete_candidate(&merge);
	cr_assert_eq(blocks_load(&bs, s.store, &e), 0);
	cr_assert_eq(blocks_import(&bs, &merge, "000000000000", &v, &e), 0, "%s", e.msg);
	cr_assert_eq(v, 2);
	cr_assert_eq(blocks_save(&bs, &e), 0);
	blocks_free(&bs);
	before = slurp(s.store);

	board_init(&b, s.box, NULL);
	/* The letter names 9, but it does not MAKE the store 9 — and here nothing was imported at 9. */
	imported_receipt(&landed, 9);
	e = post_refused(&b, &landed);
	cr_assert_eq(e.code, ERR_LANDED_LAW);
	cr_assert(strstr(e.msg, "no receipt for block 'sb_alpha' was imported at store_version 9"),
		  "%s", e.msg);
	/* Naming the version the import produced, it lands; the store stays as it was. */
	landed.receipt.store_version = 2;
	post_ok(&b, "agent-a", &landed);
	after = slurp(s.store);
	cr_assert_str_eq(before, after, "posting a letter must not touch the store");
	cr_assert_eq(access(s.box, F_OK), 0, "the letter landed in the box, not the store");
	free(before);
	free(after);
	letter_free(&landed);
	letter_free(&merge);
	board_free(&b);
}

Test(board, archived_letter_cannot_color_the_store)
{
	struct scratch s = scratch();
	struct board b;
	struct letter mw = base_letter(1, LETTER_MERGE_WAIT), archived = base_letter(2, LETTER_ARCHIVED);
	struct board_result r;
	char *before, *after;

	store_with_alpha(&s);
	before = slurp(s.store);
	board_init(&b, s.box, NULL);
	green_gate(&mw);
	r = post_ok(&b, "agent-a", &mw);
	set_str(&archived.prev_letter_id, r.letter_id);
	green_gate(&archived);
	post_ok(&b, "agent-a", &archived);
	after = slurp(s.store);
	cr_assert_str_eq(before, after, "archiving must not bump the store");
	free(before);
	free(after);
	letter_free(&mw);
	letter_free(&archived);
	board_free(&b);
}

Test(board, happy_chain_archives_a_merge_wait_head)
{
	struct scratch s = scratch();
	struct board b;
	struct letter l1 = base_letter(1, LETTER_JUDGING), l2 = base_letter(2, LETTER_MERGE_WAIT);
	struct letter l3 = base_letter(3, LETTER_ARCHIVED), l4 = base_letter(4, LETTER_ARCHIVED);
	struct board_result r;
	struct board_head h;
	struct err e;

	board_init(&b, s.box, NULL);
	r = post_ok(&b, "agent-a", &l1);
	set_str(&l2.prev_letter_id, r.letter_id);
	green_gate(&l2);
	complete_candidate(&l2);
	r = post_ok(&b, "agent-a", &l2);
	set_str(&l3.prev_letter_id, r.letter_id);
	green_gate(&l3);
	r = post_ok(&b, "agent-a", &l3);
	cr_assert_not(r.deduped);
	h = only_head(&b);
	cr_assert_eq(h.head.phase, LETTER_ARCHIVED, "the head is now archived");
	cr_assert_eq(h.head.mission_seq, 3);
	cr_assert_eq(h.superseded_count, 2, "judging + merge_wait are superseded");
	head_free(&h);
	set_str(&l4.prev_letter_id, r.letter_id);
	e = post_refused(&b, &l4);
	cr_assert(strstr(e.msg, "invalid_transition"), "%s", e.msg);
	letter_free(&l1);
	letter_free(&l2);
	letter_free(&l3);
	letter_free(&l4);
	board_free(&b);
}

/* ---- which refusal comes first ------------------------------------------------------- */

Test(board, a_stale_archive_reports_stale_head_first)
{
	struct scratch s = scratch();
	struct board b;
	struct letter l1 = base_letter(1, LETTER_JUDGING), a = base_letter(5, LETTER_ARCHIVED);
	struct err e;

	board_init(&b, s.box, NULL);
	post_ok(&b, "agent-a", &l1);
	set_str(&a.prev_letter_id, "ffffffffffff");
	e = post_refused(&b, &a);
	cr_assert_eq(e.code, ERR_STALE_HEAD);
	letter_free(&l1);
	letter_free(&a);
	board_free(&b);
}

/* ---- reading a damaged box --------------------------------------------------------- */

Test(box, unreadable_lines_are_skipped_counted_and_invisible)
{
	struct scratch s = scratch();
	struct board b;
	struct letter l1 = base_letter(1, LETTER_JUDGING), l2 = base_letter(2, LETTER_EXECUTING);
	struct board_head h;
	char *line = line_of("agent-a", &l1), *seq, *fraction;

	/* The seq-1 letter itself, but with a fraction for its seq: unreadable, so invisible. */
	seq = strstr(line, "\"mission_seq\":1,");
	cr_assert_not_null(seq);
	fraction = xasprintf("%.*s\"mission_seq\":1.0,%s\n", (int)(seq - line), line,
			     seq + strlen("\"mission_seq\":1,"));
	append_raw(s.box, "this is not json\n");
	append_raw(s.box, "{\"kind\":\"mission\",\"mission\":{\"schema\":\"x\",\"extra\":1}}\n");
	append_raw(s.box, fraction);
	append_raw(s.box, "   \r\n");
	append_raw(s.box, "{\"kind\":\"report\",\"agent\":\"field\",\"text\":\"kept, ignored\"}\n");
	board_init(&b, s.box, NULL);
	post_ok(&b, "agent-a", &l1);
	cr_assert_eq(b.skipped, 3, "three unreadable lines, the blank one is not counted");
	set_str(&l2.prev_letter_id, "f59633562ac0");
	post_ok(&b, "agent-a", &l2);
	h = only_head(&b);
	cr_assert_eq(h.superseded_count, 1, "the unreadable seq-1 twin does not count");
	cr_assert_eq(b.skipped, 3);
	head_free(&h);
	free(line);
	free(fraction);
	letter_free(&l1);
	letter_free(&l2);
	board_free(&b);
}

Test(box, a_torn_last_line_is_repaired_before_the_next_append)
{
	struct scratch s = scratch();
	struct board b;
	struct letter l1 = base_letter(1, LETTER_JUDGING);
	char *line = line_of("agent-a", &l1), *want, *got;
	const char *torn = "{\"kind\":\"mission\",\"agent\":\"ag";

	append_raw(s.box, torn);
	board_init(&b, s.box, NULL);
	post_ok(&b, "agent-a", &l1);
	want = xasprintf("%s\n%s\n", torn, line);
	got = slurp(s.box);
	cr_assert_str_eq(got, want, "the new line is not glued to the torn one");
	cr_assert_eq(b.skipped, 1);
	free(want);
	free(got);
	free(line);
	letter_free(&l1);
	board_free(&b);
}

Test(box, a_crlf_line_has_the_id_of_its_bytes_without_the_cr)
{
	struct scratch s = scratch();
	struct board b;
	struct letter l1 = base_letter(1, LETTER_JUDGING), l2 = base_letter(2, LETTER_EXECUTING);
	char *line = line_of("agent-a", &l1), *crlf = xasprintf("  %s  \r\n", line);
	struct err e;

	/* Leading spaces are hashed (they are bytes of the line), the \r is not. */
	append_raw(s.box, crlf);
	board_init(&b, s.box, NULL);
	set_str(&l2.prev_letter_id, "f59633562ac0");
	e = post_refused(&b, &l2);
	cr_assert_eq(e.code, ERR_STALE_HEAD);
	free(line);
	free(crlf);
	letter_free(&l1);
	letter_free(&l2);
	board_free(&b);
}

/* Two children of one root: the walk takes the first, the head is its tip. */
Test(box, a_forked_chain_resolves_to_the_walk_head)
{
	struct scratch s = scratch();
	struct board b;
	struct letter l1 = base_letter(1, LETTER_JUDGING), a = base_letter(2, LETTER_EXECUTING);
	struct letter c = base_letter(2, LETTER_FAILED), a3 = base_letter(3, LETTER_REVIEW);
	char ida[MAILBOX_ID_LEN + 1], ida3[MAILBOX_ID_LEN + 1];
	char *l1s = line_of("agent-a", &l1), *as, *cs;
	struct board_head h;
	struct board_chain chain;
	struct err e;

	set_str(&a.prev_letter_id, "f59633562ac0");
	set_str(&c.prev_letter_id, "f59633562ac0");
	as = line_of("agent-a", &a);
	cs = line_of("agent-b", &c);
	id_of("agent-a", &a, ida);
	append_raw(s.box, l1s);
	append_raw(s.box, "\n");
	append_raw(s.box, as);
	append_raw(s.box, "\n");
	append_raw(s.box, cs);
	append_raw(s.box, "\n");
	board_init(&b, s.box, NULL);
	h = only_head(&b);
	cr_assert_str_eq(h.head_letter_id, ida, "the first child is on the walk");
	cr_assert_eq(h.superseded_count, 2);
	head_free(&h);
	/* Extending the walk head is accepted; the fork's other tip is not the head. */
	set_str(&a3.prev_letter_id, ida);
	id_of("agent-a", &a3, ida3);
	post_ok(&b, "agent-a", &a3);
	cr_assert_eq(board_log(&b, "msn_0123456789ab", &chain, &e), 0);
	cr_assert(b.scanned, "a forked chain is walked from the box");
	cr_assert_eq(chain.n, 3);
	cr_assert_eq(chain.total, 4);
	cr_assert_str_eq(chain.entries[2].letter_id, ida3);
	board_chain_free(&chain);
	free(l1s);
	free(as);
	free(cs);
	letter_free(&l1);
	letter_free(&a);
	letter_free(&c);
	letter_free(&a3);
	board_free(&b);
}

Test(box, a_chain_without_a_root_starts_at_the_greatest_seq)
{
	struct scratch s = scratch();
	struct board b;
	struct letter x = base_letter(7, LETTER_GATE), y = base_letter(4, LETTER_REVIEW);
	char idx[MAILBOX_ID_LEN + 1];
	char *xs, *ys;
	struct board_head h;

	set_str(&x.prev_letter_id, "000000000000");
	set_str(&y.prev_letter_id, "111111111111");
	xs = line_of("a", &x);
	ys = line_of("a", &y);
	id_of("a", &x, idx);
	append_raw(s.box, ys);
	append_raw(s.box, "\n");
	append_raw(s.box, xs);
	append_raw(s.box, "\n");
	board_init(&b, s.box, NULL);
	h = only_head(&b);
	cr_assert_str_eq(h.head_letter_id, idx);
	cr_assert_eq(h.head.mission_seq, 7);
	head_free(&h);
	free(xs);
	free(ys);
	letter_free(&x);
	letter_free(&y);
	board_free(&b);
}

/* ---- the sidecar index is a cache -------------------------------------------------- */

static char *heads_text(struct board *b)
{
	struct board_head *h;
	struct buf out = BUF_INIT;
	size_t n;
	struct err e;

	cr_assert_eq(board_heads(b, &h, &n, &e), 0, "%s", e.msg);
	for (size_t i = 0; i < n; i++) {
		buf_printf(&out, "%s %s %llu ", h[i].mission_id, h[i].head_letter_id,
			   (unsigned long long)h[i].superseded_count);
		letter_write_json(&out, &h[i].head);
		buf_addc(&out, '\n');
	}
	board_heads_free(h, n);
	return buf_steal(&out);
}

/* Three missions, a few letters each. */
static void populate(struct board *b)
{
	const char *ids[] = { "msn_cccccccccccc", "msn_aaaaaaaaaaaa", "msn_bbbbbbbbbbbb" };

	for (size_t m = 0; m < 3; m++) {
		char prev[MAILBOX_ID_LEN + 1] = "";
		for (uint64_t seq = 1; seq <= m + 2; seq++) {
			struct letter l = base_letter(seq, seq == 1 ? LETTER_JUDGING : LETTER_EXECUTING);
			struct board_result r;
			set_str(&l.mission_id, ids[m]);
			if (seq > 1)
				set_str(&l.prev_letter_id, prev);
			r = post_ok(b, "agent-a", &l);
			memcpy(prev, r.letter_id, sizeof prev);
			letter_free(&l);
		}
	}
}

Test(sidecar, heads_are_ordered_by_mission_id)
{
	struct scratch s = scratch();
	struct board b;
	char *text;

	board_init(&b, s.box, NULL);
	populate(&b);
	text = heads_text(&b);
	cr_assert_eq(strncmp(text, "msn_aaaaaaaaaaaa", 16), 0, "%s", text);
	cr_assert(strstr(text, "\nmsn_bbbbbbbbbbbb") < strstr(text, "\nmsn_cccccccccccc"));
	free(text);
	board_free(&b);
}

Test(sidecar, a_deleted_index_is_rebuilt_with_the_same_answers)
{
	struct scratch s = scratch();
	struct board b;
	char *before, *after;

	board_init(&b, s.box, NULL);
	populate(&b);
	before = heads_text(&b);
	cr_assert_not(b.rebuilt);
	cr_assert_eq(unlink(s.idx), 0);
	after = heads_text(&b);
	cr_assert(b.rebuilt, "the index came back from the box");
	cr_assert_str_eq(before, after);
	free(before);
	free(after);
	board_free(&b);
}

Test(sidecar, a_damaged_index_is_rebuilt)
{
	struct scratch s = scratch();
	struct board b;
	char *before, *after;
	int fd;

	board_init(&b, s.box, NULL);
	populate(&b);
	before = heads_text(&b);
	fd = open(s.idx, O_WRONLY | O_CLOEXEC);
	cr_assert_eq(pwrite(fd, "garbage!", 8, 0), 8);
	close(fd);
	after = heads_text(&b);
	cr_assert(b.rebuilt);
	cr_assert_str_eq(before, after);
	free(before);
	free(after);
	board_free(&b);
}

Test(sidecar, a_box_appended_behind_its_back_is_noticed_and_caught_up)
{
	struct scratch s = scratch();
	struct board b;
	struct letter l1 = base_letter(1, LETTER_JUDGING), l2 = base_letter(2, LETTER_EXECUTING);
	struct letter stale2 = base_letter(2, LETTER_REVIEW);
	char *l2s, *caught, *rebuilt;
	struct board_head h;
	struct err e;

	board_init(&b, s.box, NULL);
	post_ok(&b, "agent-a", &l1);
	/* Another tool, without our lock or index, appends seq 2. */
	set_str(&l2.prev_letter_id, "f59633562ac0");
	l2s = line_of("other-tool", &l2);
	append_raw(s.box, l2s);
	append_raw(s.box, "\n");
	/* A letter built on seq 1 is now stale, and the head is the foreign letter. */
	set_str(&stale2.prev_letter_id, "f59633562ac0");
	e = post_refused(&b, &stale2);
	cr_assert_eq(e.code, ERR_STALE_HEAD);
	cr_assert_eq(b.rebuilt, SIDECAR_CAUGHT_UP, "only the appended line was read");
	h = only_head(&b);
	cr_assert_str_eq(h.agent, "other-tool");
	head_free(&h);
	/* The caught-up index answers exactly as one rebuilt from the box. */
	caught = heads_text(&b);
	cr_assert_eq(unlink(s.idx), 0);
	rebuilt = heads_text(&b);
	cr_assert_str_eq(caught, rebuilt);
	free(caught);
	free(rebuilt);
	free(l2s);
	letter_free(&l1);
	letter_free(&l2);
	letter_free(&stale2);
	board_free(&b);
}

Test(sidecar, a_box_rewritten_behind_its_back_is_noticed)
{
	struct scratch s = scratch();
	struct board b;
	struct letter l1 = base_letter(1, LETTER_JUDGING), l2 = base_letter(2, LETTER_EXECUTING);
	char *box;
	struct err e;

	board_init(&b, s.box, NULL);
	post_ok(&b, "agent-a", &l1);
	set_str(&l2.prev_letter_id, "f59633562ac0");
	box = slurp(s.box);
	/* Same length, different bytes: the seq-1 letter is no longer there. */
	box[strlen(box) - 3] = 'X';
	cr_assert_eq(fs_replace(s.box, box, strlen(box), &e), 0);
	e = post_refused(&b, &l2);
	cr_assert_eq(e.code, ERR_STALE_HEAD);
	cr_assert(b.rebuilt);
	free(box);
	letter_free(&l1);
	letter_free(&l2);
	board_free(&b);
}

/* What a post that was killed after its append, before its index update, leaves. */
Test(sidecar, a_writer_that_died_between_append_and_index_is_not_believed)
{
	struct scratch s = scratch();
	struct board b;
	struct letter l1 = base_letter(1, LETTER_JUDGING), l2 = base_letter(2, LETTER_EXECUTING);
	struct letter fork = base_letter(2, LETTER_REVIEW);
	struct sidecar *sc;
	char *line;
	uint64_t off;
	int fd;
	struct err e;

	board_init(&b, s.box, NULL);
	post_ok(&b, "agent-a", &l1);
	set_str(&l2.prev_letter_id, "f59633562ac0");
	line = line_of("agent-a", &l2);
	fd = mailbox_open(s.box, 0, &e);
	cr_assert_geq(fd, 0);
	sc = sidecar_open(s.idx, fd, NULL, &e);
	cr_assert_not_null(sc);
	cr_assert_eq(sidecar_begin(sc, &e), 0);
	cr_assert_eq(mailbox_append(fd, line, strlen(line), &off, &e), 0);
	sidecar_close(sc); /* and no sidecar_commit: the process is gone */
	close(fd);
	/* The index still names seq 1 as the head; a fork onto it must not get in. */
	set_str(&fork.prev_letter_id, "f59633562ac0");
	e = post_refused(&b, &fork);
	cr_assert_eq(e.code, ERR_STALE_HEAD);
	cr_assert_eq(b.rebuilt, SIDECAR_CAUGHT_UP);
	free(line);
	letter_free(&l1);
	letter_free(&l2);
	letter_free(&fork);
	board_free(&b);
}

/* The index file's first bytes, to put back. */
static void header_save(const char *idx, char out[256])
{
	int fd = open(idx, O_RDONLY | O_CLOEXEC);

	cr_assert_geq(fd, 0);
	cr_assert_eq(pread(fd, out, 256, 0), 256);
	close(fd);
}

static void header_restore(const char *idx, const char saved[256])
{
	int fd = open(idx, O_WRONLY | O_CLOEXEC);

	cr_assert_geq(fd, 0);
	cr_assert_eq(pwrite(fd, saved, 256, 0), 256);
	close(fd);
}

/*
 * A post killed after its index slots, before its header: the slots already
 * hold the appended line, so catching up would count it twice. It is rebuilt.
 */
Test(sidecar, a_writer_that_died_between_its_index_slots_and_header_is_rebuilt)
{
	struct scratch s = scratch();
	struct board b;
	struct letter l1 = base_letter(1, LETTER_JUDGING), l2 = base_letter(2, LETTER_EXECUTING);
	struct letter fork = base_letter(2, LETTER_REVIEW);
	struct sidecar_mission m;
	struct sidecar *sc;
	char saved[256], id2[MAILBOX_ID_LEN + 1], *line;
	uint64_t off;
	int fd;
	struct err e;

	board_init(&b, s.box, NULL);
	post_ok(&b, "agent-a", &l1);
	set_str(&l2.prev_letter_id, "f59633562ac0");
	line = line_of("agent-a", &l2);
	mailbox_id(line, strlen(line), id2);
	header_save(s.idx, saved);
	fd = mailbox_open(s.box, 0, &e);
	cr_assert_geq(fd, 0);
	sc = sidecar_open(s.idx, fd, NULL, &e);
	cr_assert_not_null(sc);
	cr_assert_eq(sidecar_begin(sc, &e), 0);
	cr_assert_eq(mailbox_append(fd, line, strlen(line), &off, &e), 0);
	cr_assert_eq(sidecar_commit(sc, fd, id2, &l2, off, &e), 0);
	sidecar_close(sc);
	header_restore(s.idx, saved); /* the header write never happened */
	set_str(&fork.prev_letter_id, "f59633562ac0");
	e = post_refused(&b, &fork);
	cr_assert_eq(e.code, ERR_STALE_HEAD);
	cr_assert_eq(b.rebuilt, SIDECAR_REBUILT);
	/* Two letters, a plain chain: the index does not count seq 2 twice. */
	sc = sidecar_open_read(s.idx, fd, NULL, &e);
	cr_assert_not_null(sc, "%s", e.msg);
	cr_assert_eq(sidecar_letters(sc), 2);
	cr_assert_eq(sidecar_mission(sc, "msn_0123456789ab", 16, &m, &e), 1);
	cr_assert_eq(m.count, 2);
	cr_assert_not(m.irregular);
	cr_assert_str_eq(m.head_id, id2);
	sidecar_close(sc);
	close(fd);
	free(line);
	letter_free(&l1);
	letter_free(&l2);
	letter_free(&fork);
	board_free(&b);
}

/* Cut back and grown again in place: the bytes where the index stopped are not the same. */
Test(sidecar, a_box_cut_and_regrown_in_place_is_rebuilt_not_caught_up)
{
	struct scratch s = scratch();
	struct board b;
	struct letter l1 = base_letter(1, LETTER_JUDGING), l2 = base_letter(2, LETTER_EXECUTING);
	struct letter other = base_letter(2, LETTER_REVIEW), l3 = base_letter(3, LETTER_REVIEW);
	struct board_result r1, r2;
	char *first, *o;
	char ido[MAILBOX_ID_LEN + 1];

	board_init(&b, s.box, NULL);
	r1 = post_ok(&b, "agent-a", &l1);
	set_str(&l2.prev_letter_id, r1.letter_id);
	r2 = post_ok(&b, "agent-a", &l2);
	(void)r2;
	first = line_of("agent-a", &l1);
	cr_assert_eq(truncate(s.box, (off_t)strlen(first) + 1), 0); /* the same file, seq 2 gone */
	set_str(&other.prev_letter_id, r1.letter_id);
	set_str(&other.packet_ref, "sha256:a-longer-packet-reference-so-the-box-grows-past-where-it-was");
	o = line_of("other-tool", &other);
	id_of("other-tool", &other, ido);
	append_raw(s.box, o);
	append_raw(s.box, "\n");
	/* The head is the other tool's seq 2: a letter on it gets in. */
	set_str(&l3.prev_letter_id, ido);
	post_ok(&b, "agent-a", &l3);
	cr_assert_eq(b.rebuilt, SIDECAR_REBUILT);
	free(first);
	free(o);
	letter_free(&l1);
	letter_free(&l2);
	letter_free(&other);
	letter_free(&l3);
	board_free(&b);
}

/* Past what a catch-up reads, one pass in memory is cheaper: the index is rebuilt. */
Test(sidecar, a_box_grown_by_more_than_a_catch_up_reads_is_rebuilt)
{
	struct scratch s = scratch();
	struct board b;
	struct letter l1 = base_letter(1, LETTER_JUDGING), l2 = base_letter(2, LETTER_EXECUTING);
	struct board_result r;
	char junk[1025];

	board_init(&b, s.box, NULL);
	r = post_ok(&b, "agent-a", &l1);
	memset(junk, 'x', sizeof junk - 2);
	junk[sizeof junk - 2] = '\n';
	junk[sizeof junk - 1] = '\0';
	for (int i = 0; i < 1100; i++) /* a little over 1 MiB of unreadable lines */
		append_raw(s.box, junk);
	set_str(&l2.prev_letter_id, r.letter_id);
	post_ok(&b, "agent-a", &l2);
	cr_assert_eq(b.rebuilt, SIDECAR_REBUILT);
	cr_assert_eq(b.skipped, 1100);
	letter_free(&l1);
	letter_free(&l2);
	board_free(&b);
}

Test(sidecar, the_index_grows_past_its_first_tables)
{
	struct scratch s = scratch();
	struct board b;
	char *before, *after;

	board_init(&b, s.box, NULL);
	/* 700 one-letter missions: more than half of the first 1024-slot tables. */
	for (int i = 0; i < 700; i++) {
		struct letter l = base_letter(1, LETTER_JUDGING);
		char mid[17];
		snprintf(mid, sizeof mid, "msn_%012x", i);
		set_str(&l.mission_id, mid);
		post_ok(&b, "agent-a", &l);
		letter_free(&l);
	}
	cr_assert_not(b.rebuilt);
	before = heads_text(&b);
	unlink(s.idx);
	after = heads_text(&b);
	cr_assert_str_eq(before, after);
	free(before);
	free(after);
	board_free(&b);
}

/* ---- a board kept open between posts ---------------------------------------------- */

static int open_fds(void)
{
	DIR *d = opendir("/proc/self/fd");
	int n = 0;

	cr_assert_not_null(d);
	while (readdir(d))
		n++;
	closedir(d);
	return n;
}

/* seq on mission msn_0123456789ab after prev (NULL: seq 1), phase executing unless seq 1. */
static struct letter next_letter(uint64_t seq, const char *prev)
{
	struct letter l = base_letter(seq, seq == 1 ? LETTER_JUDGING : LETTER_EXECUTING);

	if (prev)
		set_str(&l.prev_letter_id, prev);
	return l;
}

/*
 * A board keeping the box open, as the MCP server's: seq 1 creates the box
 * (a first post opens afresh), seq 2 is the post that leaves it open. The
 * test's action then lands between two posts of a kept board. Returns seq 2.
 */
static struct board_result kept_board(struct board *b, struct board_keep *k, const char *box)
{
	struct letter l1 = next_letter(1, NULL), l2;
	struct board_result r;

	board_init(b, box, NULL);
	b->keep = k;
	r = post_ok(b, "agent-a", &l1);
	l2 = next_letter(2, r.letter_id);
	r = post_ok(b, "agent-a", &l2);
	letter_free(&l1);
	letter_free(&l2);
	return r;
}

/* A letter onto prev that differs from every other letter onto it. */
static struct board_result post_onto(struct board *b, uint64_t seq, const char *prev,
				     const char *runner)
{
	struct letter l = next_letter(seq, prev);
	struct board_result r;

	set_str(&l.runner_id, runner);
	r = post_ok(b, "agent-a", &l);
	letter_free(&l);
	return r;
}

static struct err refused_onto(struct board *b, uint64_t seq, const char *prev, const char *runner)
{
	struct letter l = next_letter(seq, prev);
	struct err e;

	set_str(&l.runner_id, runner);
	e = post_refused(b, &l);
	letter_free(&l);
	return e;
}

Test(keep, a_kept_board_sees_a_letter_another_writer_posted_between_its_posts)
{
	struct scratch s = scratch();
	int fds = open_fds();
	struct board_keep *k = board_keep_new();
	struct board kept, other;
	struct board_result r2 = kept_board(&kept, k, s.box), r3;
	struct err e;

	cr_assert_gt(open_fds(), fds, "the lock, the box and the index stay open");
	board_init(&other, s.box, NULL);
	r3 = post_onto(&other, 3, r2.letter_id, "other");
	/* The other writer kept the index: it is current, and the head is its letter. */
	e = refused_onto(&kept, 3, r2.letter_id, "a-fork");
	cr_assert_eq(e.code, ERR_STALE_HEAD);
	cr_assert(strstr(e.msg, r3.letter_id), "%s", e.msg);
	cr_assert_eq(kept.rebuilt, SIDECAR_CURRENT);
	post_onto(&kept, 4, r3.letter_id, "kept");
	board_keep_free(k);
	cr_assert_eq(open_fds(), fds, "board_keep_free closes what it kept");
	board_free(&kept);
	board_free(&other);
}

/* What a writer killed after its append, before its index update, leaves: a line the index lacks. */
Test(keep, a_kept_board_catches_up_on_a_letter_whose_writer_died_before_its_index_update)
{
	struct scratch s = scratch();
	struct board_keep *k = board_keep_new();
	struct board b;
	struct board_result r2 = kept_board(&b, k, s.box);
	struct letter l3 = next_letter(3, r2.letter_id);
	char id3[MAILBOX_ID_LEN + 1], *line = line_of("agent-b", &l3);
	struct err e;

	id_of("agent-b", &l3, id3);
	append_raw(s.box, line);
	append_raw(s.box, "\n");
	e = refused_onto(&b, 3, r2.letter_id, "a-fork");
	cr_assert_eq(e.code, ERR_STALE_HEAD);
	cr_assert(strstr(e.msg, id3), "%s", e.msg);
	cr_assert_eq(b.rebuilt, SIDECAR_CAUGHT_UP);
	post_onto(&b, 4, id3, "kept");
	board_keep_free(k);
	free(line);
	letter_free(&l3);
	board_free(&b);
}

Test(keep, a_kept_board_follows_a_box_replaced_at_its_path)
{
	struct scratch s = scratch();
	struct board_keep *k = board_keep_new();
	struct board b;
	struct board_result r2 = kept_board(&b, k, s.box);
	struct letter l1 = next_letter(1, NULL);
	char *after;
	struct err e;

	/* A person starts the box afresh; the old file lives on only in our descriptor. */
	cr_assert_eq(fs_replace(s.box, "", 0, &e), 0, "%s", e.msg);
	e = refused_onto(&b, 3, r2.letter_id, "kept");
	cr_assert_eq(e.code, ERR_STALE_HEAD, "the new box has no chain to extend: %s", e.msg);
	post_ok(&b, "agent-a", &l1);
	after = slurp(s.box);
	cr_assert_eq(strchr(after, '\n') - after + 1, (long)strlen(after), "one line: %s", after);
	board_keep_free(k);
	free(after);
	letter_free(&l1);
	board_free(&b);
}

Test(keep, a_kept_board_locks_the_file_at_the_lock_path_again_when_it_was_removed)
{
	struct scratch s = scratch();
	struct board_keep *k = board_keep_new();
	struct board b;
	struct board_result r2 = kept_board(&b, k, s.box);
	char *lock = xasprintf("%s.lock", s.box);
	int fd;

	cr_assert_eq(unlink(lock), 0);
	post_onto(&b, 3, r2.letter_id, "kept");
	/* The lock file is there again, and it is the one the board holds between posts. */
	fd = open(lock, O_RDONLY | O_CLOEXEC);
	cr_assert_geq(fd, 0, "the post took the lock at its path");
	cr_assert_eq(flock(fd, LOCK_EX | LOCK_NB), 0, "no post is running: the lock is free");
	close(fd);
	board_keep_free(k);
	free(lock);
	board_free(&b);
}

Test(keep, a_kept_board_follows_an_index_another_writer_grew_into_a_new_file)
{
	struct scratch s = scratch();
	struct board_keep *k = board_keep_new();
	struct board kept, other;
	struct board_result r2 = kept_board(&kept, k, s.box);
	struct stat before, after;
	char *heads, *rebuilt;

	board_init(&other, s.box, NULL);
	cr_assert_eq(stat(s.idx, &before), 0);
	for (int i = 0; i < 700; i++) { /* past half of the first tables */
		struct letter l = base_letter(1, LETTER_JUDGING);
		char mid[17];
		snprintf(mid, sizeof mid, "msn_%012x", i);
		set_str(&l.mission_id, mid);
		post_ok(&other, "agent-b", &l);
		letter_free(&l);
	}
	cr_assert_eq(stat(s.idx, &after), 0);
	cr_assert_neq(before.st_ino, after.st_ino, "growing replaced the index file");
	post_onto(&kept, 3, r2.letter_id, "kept");
	cr_assert_eq(kept.rebuilt, SIDECAR_CURRENT, "the grown file at the path is current");
	heads = heads_text(&kept);
	cr_assert_eq(unlink(s.idx), 0);
	rebuilt = heads_text(&kept);
	cr_assert_str_eq(heads, rebuilt);
	board_keep_free(k);
	free(heads);
	free(rebuilt);
	board_free(&kept);
	board_free(&other);
}

/* ---- guards ------------------------------------------------------------------------ */

Test(guards, a_board_bound_to_a_brain_refuses_another)
{
	struct scratch s = scratch();
	struct board b;
	struct letter l = base_letter(1, LETTER_JUDGING);
	struct err e;

	board_init(&b, s.box, "repo-b");
	e = post_refused(&b, &l);
	cr_assert_str_eq(e.msg, "brain_mismatch: the letter names brain_ref 'repo-a' but this board "
				"is bound to 'repo-b' — nothing was appended");
	cr_assert_neq(access(s.box, F_OK), 0, "a refused first letter creates no box");
	board_free(&b);
	board_init(&b, s.box, "repo-a");
	post_ok(&b, "agent-a", &l);
	letter_free(&l);
	board_free(&b);
}

Test(guards, a_letter_must_name_a_block_the_store_holds)
{
	struct scratch s = scratch();
	struct board b;
	struct letter l = base_letter(1, LETTER_JUDGING);
	struct err e;

	store_with_alpha(&s);
	board_init(&b, s.box, NULL);
	set_str(&l.block_id, "sb_ghost");
	e = post_refused(&b, &l);
	cr_assert_str_eq(e.msg, "unknown_block: the letter names block_id 'sb_ghost' which no block "
				"in this board's store holds — name a real block, or set "
				"synthetic:true for a smoke probe; nothing was appended");
	l.synthetic = 1;
	post_ok(&b, "agent-a", &l);
	letter_free(&l);
	board_free(&b);
}

/* ---- the gestures ------------------------------------------------------------------ */

Test(gestures, land_imports_the_candidate_and_posts_the_landed_letter)
{
	struct scratch s = scratch();
	struct board b;
	struct board_result r;
	struct board_head h;
	struct blocks bs;
	char id2[MAILBOX_ID_LEN + 1];
	uint64_t v, expect = 1;
	struct err e;

	store_with_alpha(&s);
	board_init(&b, s.box, NULL);
	post_to_merge_wait(&b, id2);
	cr_assert_eq(board_land(&b, "msn_0123456789ab", &expect, "2026-07-10T00:00:00Z", &r, &v, &e),
		     0, "%s", e.msg);
	cr_assert_eq(v, 2);
	cr_assert_eq(r.mission_seq, 3);
	h = only_head(&b);
	cr_assert_eq(h.head.phase, LETTER_LANDED);
	cr_assert_str_eq(h.agent, "human");
	cr_assert_str_eq(h.head.prev_letter_id.s, id2);
	cr_assert(h.head.gate.present, "the gate is inherited");
	cr_assert_not(h.head.candidate.present);
	cr_assert_eq(h.head.receipt.store_version, 2);
	cr_assert_str_eq(h.head.updated_at.s, "2026-07-10T00:00:00Z");
	head_free(&h);
	cr_assert_eq(blocks_load(&bs, s.store, &e), 0);
	cr_assert_eq(blocks_version(&bs), 2);
	cr_assert(blocks_has_receipt_at(&bs, "sb_alpha", 8, 2));
	cr_assert_eq(blocks_imported_from(&bs, "msn_0123456789ab", id2), 2);
	blocks_free(&bs);
	board_free(&b);
}

Test(gestures, land_with_a_stale_expected_version_changes_nothing)
{
	struct scratch s = scratch();
	struct board b;
	struct board_result r;
	char id2[MAILBOX_ID_LEN + 1], *box, *store, *after_box, *after_store;
	uint64_t v, expect = 7;
	struct err e;

	store_with_alpha(&s);
	board_init(&b, s.box, NULL);
	post_to_merge_wait(&b, id2);
	box = slurp(s.box);
	store = slurp(s.store);
	cr_assert_neq(board_land(&b, "msn_0123456789ab", &expect, NULL, &r, &v, &e), 0);
	cr_assert_eq(e.code, ERR_STALE_VERSION);
	cr_assert(err_is_refusal(&e));
	cr_assert_str_eq(e.msg, "stale_version: the block store is at store_version 1, not 7 — "
				"nothing was imported");
	after_box = slurp(s.box);
	after_store = slurp(s.store);
	cr_assert_str_eq(after_box, box);
	cr_assert_str_eq(after_store, store);
	free(box);
	free(store);
	free(after_box);
	free(after_store);
	board_free(&b);
}

Test(gestures, land_refuses_a_candidate_whose_scope_moved_on)
{
	struct scratch s = scratch();
	struct board b;
	struct board_result r;
	struct blocks bs;
	char id2[MAILBOX_ID_LEN + 1];
	uint64_t v;
	struct err e;

	cr_assert_eq(blocks_load(&bs, s.store, &e), 0);
	cr_assert_eq(blocks_add(&bs, "sb_alpha", "Alpha", 2, 1, &e), 0);
	cr_assert_eq(blocks_save(&bs, &e), 0);
	blocks_free(&bs);
	board_init(&b, s.box, NULL);
	post_to_merge_wait(&b, id2);
	cr_assert_neq(board_land(&b, "msn_0123456789ab", NULL, NULL, &r, &v, &e), 0);
	cr_assert_eq(e.code, ERR_SCOPE_MISMATCH);
	board_free(&b);
}

Test(gestures, land_needs_a_merge_wait_head_with_a_candidate)
{
	struct scratch s = scratch();
	struct board b;
	struct letter l1 = base_letter(1, LETTER_JUDGING);
	struct board_result r;
	uint64_t v;
	struct err e;

	store_with_alpha(&s);
	board_init(&b, s.box, NULL);
	cr_assert_neq(board_land(&b, "msn_0123456789ab", NULL, NULL, &r, &v, &e), 0);
	cr_assert_eq(e.code, ERR_UNKNOWN_MISSION);
	post_ok(&b, "agent-a", &l1);
	cr_assert_neq(board_land(&b, "msn_0123456789ab", NULL, NULL, &r, &v, &e), 0);
	cr_assert_eq(e.code, ERR_NOT_LANDABLE);
	letter_free(&l1);
	board_free(&b);
}

Test(gestures, a_land_that_died_between_its_writes_is_finished_not_repeated)
{
	struct scratch s = scratch();
	struct board b;
	struct board_result r;
	struct blocks bs;
	struct letter head;
	struct board_chain chain;
	char id2[MAILBOX_ID_LEN + 1];
	uint64_t v;
	struct err e;

	store_with_alpha(&s);
	board_init(&b, s.box, NULL);
	post_to_merge_wait(&b, id2);
	/* The first half of a land, as a crash would leave it: the receipt, no letter. */
	cr_assert_eq(board_log(&b, "msn_0123456789ab", &chain, &e), 0);
	letter_copy(&head, &chain.entries[1].letter);
	board_chain_free(&chain);
	cr_assert_eq(blocks_load(&bs, s.store, &e), 0);
	cr_assert_eq(blocks_import(&bs, &head, id2, &v, &e), 0);
	cr_assert_eq(blocks_save(&bs, &e), 0);
	blocks_free(&bs);
	cr_assert_eq(board_land(&b, "msn_0123456789ab", NULL, NULL, &r, &v, &e), 0, "%s", e.msg);
	cr_assert_eq(v, 2, "the landed letter names the receipt already imported");
	cr_assert_eq(blocks_load(&bs, s.store, &e), 0);
	cr_assert_eq(blocks_version(&bs), 2, "nothing was imported twice");
	blocks_free(&bs);
	letter_free(&head);
	board_free(&b);
}

Test(gestures, archive_sets_a_merge_wait_head_aside)
{
	struct scratch s = scratch();
	struct board b;
	struct board_result r;
	struct board_head h;
	char id2[MAILBOX_ID_LEN + 1];
	struct err e;

	board_init(&b, s.box, NULL);
	post_to_merge_wait(&b, id2);
	cr_assert_eq(board_archive(&b, "msn_0123456789ab", NULL, &r, &e), 0, "%s", e.msg);
	h = only_head(&b);
	cr_assert_eq(h.head.phase, LETTER_ARCHIVED);
	cr_assert_str_eq(h.agent, "human");
	head_free(&h);
	cr_assert_neq(board_archive(&b, "msn_0123456789ab", NULL, &r, &e), 0);
	cr_assert_eq(e.code, ERR_INVALID_TRANSITION);
	board_free(&b);
}

Test(gestures, the_box_is_only_ever_appended_to)
{
	struct scratch s = scratch();
	struct board b;
	struct board_result r;
	char id2[MAILBOX_ID_LEN + 1], *before, *after;
	uint64_t v;
	struct err e;

	store_with_alpha(&s);
	board_init(&b, s.box, NULL);
	post_to_merge_wait(&b, id2);
	before = slurp(s.box);
	cr_assert_eq(board_land(&b, "msn_0123456789ab", NULL, NULL, &r, &v, &e), 0, "%s", e.msg);
	after = slurp(s.box);
	cr_assert_eq(strncmp(before, after, strlen(before)), 0);
	cr_assert_gt(strlen(after), strlen(before));
	free(before);
	free(after);
	board_free(&b);
}

/* ---- a read writes nothing ------------------------------------------------------------ */

static int exists(const char *path)
{
	return access(path, F_OK) == 0;
}

static char *lock_of(const struct scratch *s)
{
	return xasprintf("%s.lock", s->box);
}

Test(reads, a_read_answers_from_a_current_index_and_changes_no_file)
{
	struct scratch s = scratch();
	struct board b;
	struct board_chain chain;
	struct stat before, after;
	char *idx, *text;
	struct err e;

	board_init(&b, s.box, NULL);
	populate(&b);
	idx = slurp(s.idx);
	cr_assert_eq(stat(s.idx, &before), 0);
	text = heads_text(&b);
	cr_assert_not(b.rebuilt, "a current index is used, not rebuilt");
	cr_assert_eq(board_log(&b, "msn_aaaaaaaaaaaa", &chain, &e), 0, "%s", e.msg);
	cr_assert_eq(chain.n, 3);
	board_chain_free(&chain);
	cr_assert_eq(stat(s.idx, &after), 0);
	cr_assert_eq(before.st_mtim.tv_nsec, after.st_mtim.tv_nsec);
	cr_assert_eq(before.st_mtim.tv_sec, after.st_mtim.tv_sec);
	free(text);
	text = slurp(s.idx);
	cr_assert_eq(memcmp(idx, text, (size_t)before.st_size), 0);
	free(idx);
	free(text);
	board_free(&b);
}

Test(reads, a_read_without_an_index_builds_it_in_memory_and_writes_none)
{
	struct scratch s = scratch();
	struct board b;
	struct letter l = base_letter(1, LETTER_JUDGING);
	char *before, *after;

	board_init(&b, s.box, NULL);
	populate(&b);
	before = heads_text(&b);
	cr_assert_eq(unlink(s.idx), 0);
	after = heads_text(&b);
	cr_assert(b.rebuilt);
	cr_assert_str_eq(before, after);
	cr_assert_not(exists(s.idx), "a read wrote the index");
	/* Only a post, which holds the lock, writes it. */
	post_ok(&b, "agent-a", &l);
	cr_assert(exists(s.idx));
	letter_free(&l);
	free(before);
	free(after);
	board_free(&b);
}

Test(reads, a_read_without_the_lock_file_trusts_no_index_and_creates_no_lock)
{
	struct scratch s = scratch();
	struct board b;
	char *lock = lock_of(&s), *idx, *before, *after;
	struct stat st;

	board_init(&b, s.box, NULL);
	populate(&b);
	before = heads_text(&b);
	cr_assert_eq(unlink(lock), 0);
	idx = slurp(s.idx);
	cr_assert_eq(stat(s.idx, &st), 0);
	after = heads_text(&b);
	cr_assert(b.rebuilt, "without the lock a writer may be mid-post: the file is not believed");
	cr_assert_str_eq(before, after);
	cr_assert_not(exists(lock), "a read created the lock file");
	free(after);
	after = slurp(s.idx);
	cr_assert_eq(memcmp(idx, after, (size_t)st.st_size), 0);
	free(idx);
	free(after);
	free(before);
	free(lock);
	board_free(&b);
}

Test(reads, a_read_of_a_box_that_does_not_exist_creates_nothing)
{
	struct scratch s = scratch();
	struct board b;
	struct board_head *h;
	struct board_chain chain;
	size_t n;
	struct err e;
	DIR *d;
	struct dirent *ent;

	board_init(&b, s.box, NULL);
	cr_assert_eq(board_heads(&b, &h, &n, &e), 0, "%s", e.msg);
	cr_assert_eq(n, 0);
	cr_assert_neq(board_log(&b, "msn_0123456789ab", &chain, &e), 0);
	cr_assert_eq(e.code, ERR_UNKNOWN_MISSION);
	d = opendir(s.dir);
	while ((ent = readdir(d)) != NULL)
		cr_assert(strcmp(ent->d_name, ".") == 0 || strcmp(ent->d_name, "..") == 0,
			  "a read created %s", ent->d_name);
	closedir(d);
	board_free(&b);
}

Test(sidecar, a_readers_handle_answers_but_refuses_to_write)
{
	struct scratch s = scratch();
	struct board b;
	struct sidecar *sc;
	uint64_t letters;
	int fd, rebuilt = -1;
	struct err e;

	board_init(&b, s.box, NULL);
	populate(&b);
	fd = mailbox_open_read(s.box, &e);
	cr_assert_geq(fd, 0, "%s", e.msg);
	sc = sidecar_open_read(s.idx, fd, &rebuilt, &e);
	cr_assert_not_null(sc, "%s", e.msg);
	cr_assert_eq(rebuilt, 0);
	letters = sidecar_letters(sc);
	cr_assert_eq(letters, 9);
	cr_assert_neq(sidecar_begin(sc, &e), 0);
	sidecar_close(sc);
	/* Without a path (no lock held), the same answers from memory. */
	sc = sidecar_open_read(NULL, fd, &rebuilt, &e);
	cr_assert_not_null(sc, "%s", e.msg);
	cr_assert_eq(rebuilt, 1);
	cr_assert_eq(sidecar_letters(sc), letters);
	cr_assert_neq(sidecar_commit(sc, fd, "0123456789ab", NULL, 0, &e), 0);
	sidecar_close(sc);
	close(fd);
	board_free(&b);
}

/* ---- log through the index -------------------------------------------------------------- */

/* Everything log answers for a mission, as text; *scanned: whether it read the whole box. */
static char *log_text(struct board *b, const char *mid, int *scanned)
{
	struct board_chain c;
	struct buf out = BUF_INIT;
	struct err e;

	cr_assert_eq(board_log(b, mid, &c, &e), 0, "%s", e.msg);
	buf_printf(&out, "%zu of %zu\n", c.n, c.total);
	for (size_t i = 0; i < c.n; i++) {
		buf_printf(&out, "%s %s ", c.entries[i].letter_id,
			   c.entries[i].agent ? c.entries[i].agent : "-");
		letter_write_json(&out, &c.entries[i].letter);
		buf_addc(&out, '\n');
	}
	board_chain_free(&c);
	*scanned = b->scanned;
	return buf_steal(&out);
}

/* The same log from the box alone: with the lock file away no index is believed. */
static char *log_from_box(const struct scratch *s, struct board *b, const char *mid)
{
	char *lock = lock_of(s), *away = xasprintf("%s.away", lock), *text;
	int scanned;

	cr_assert_eq(rename(lock, away), 0);
	text = log_text(b, mid, &scanned);
	cr_assert(scanned);
	cr_assert_eq(rename(away, lock), 0);
	free(lock);
	free(away);
	return text;
}

/* The head's id in a log_text: the last entry's first word. */
static void head_of_log(const char *text, char head[MAILBOX_ID_LEN + 1])
{
	const char *last = text;

	for (const char *p = text; *p; p++)
		if (*p == '\n' && p[1])
			last = p + 1;
	memcpy(head, last, MAILBOX_ID_LEN);
	head[MAILBOX_ID_LEN] = '\0';
}

static const char *const populated[] = { "msn_aaaaaaaaaaaa", "msn_bbbbbbbbbbbb",
					  "msn_cccccccccccc" };

Test(log, a_plain_chain_is_read_from_its_own_lines_as_the_box_would_give_it)
{
	struct scratch s = scratch();
	struct board b;
	char *indexed, *scanned_text;
	int scanned;

	board_init(&b, s.box, NULL);
	populate(&b);
	for (size_t i = 0; i < 3; i++) {
		indexed = log_text(&b, populated[i], &scanned);
		cr_assert_not(scanned, "%s: a plain chain is found through the index", populated[i]);
		cr_assert_not(b.rebuilt);
		scanned_text = log_from_box(&s, &b, populated[i]);
		cr_assert_str_eq(indexed, scanned_text);
		free(indexed);
		free(scanned_text);
	}
	board_free(&b);
}

Test(log, a_deleted_or_stale_index_gives_the_same_log)
{
	struct scratch s = scratch();
	struct board b;
	struct letter l = base_letter(1, LETTER_JUDGING);
	char *before, *after, *line, *want, head[MAILBOX_ID_LEN + 1];
	int scanned;

	board_init(&b, s.box, NULL);
	populate(&b);
	before = log_text(&b, "msn_cccccccccccc", &scanned);
	cr_assert_eq(unlink(s.idx), 0);
	after = log_text(&b, "msn_cccccccccccc", &scanned);
	cr_assert(b.rebuilt, "built in memory");
	cr_assert_not(scanned, "and the mission's lines read through it");
	cr_assert_str_eq(before, after);
	free(after);
	post_ok(&b, "agent-a", &l); /* the index again, on disk */
	/* Another tool appends a letter: the index no longer describes the box. */
	set_str(&l.mission_id, "msn_cccccccccccc");
	l.mission_seq = 3;
	head_of_log(before, head);
	set_str(&l.prev_letter_id, head);
	line = line_of("other-tool", &l);
	want = xasprintf("%s\n", line);
	append_raw(s.box, want);
	after = log_text(&b, "msn_cccccccccccc", &scanned);
	cr_assert(b.rebuilt);
	cr_assert_not(scanned);
	cr_assert(strstr(after, "3 of 3\n") == after, "%s", after);
	free(before);
	before = log_from_box(&s, &b, "msn_cccccccccccc");
	cr_assert_str_eq(before, after);
	free(line);
	free(want);
	free(before);
	free(after);
	letter_free(&l);
	board_free(&b);
}

/*
 * A populated board whose index, its header still matching the box, records
 * for msn_aaaaaaaaaaaa's head a letter the box does not hold, at offset (a
 * line of another mission's, or one no file can reach). Returns the mission's
 * log as read from the box alone (malloc'd).
 */
static char *damaged_head(struct scratch *s, struct board *b, uint64_t offset)
{
	struct letter l = base_letter(4, LETTER_EXECUTING);
	struct sidecar_mission m;
	struct sidecar *sc;
	char *want;
	int fd;
	struct err e;

	board_init(b, s->box, NULL);
	populate(b);
	want = log_from_box(s, b, "msn_aaaaaaaaaaaa");
	fd = mailbox_open(s->box, 0, &e);
	cr_assert_geq(fd, 0, "%s", e.msg);
	sc = sidecar_open(s->idx, fd, NULL, &e);
	cr_assert_not_null(sc, "%s", e.msg);
	cr_assert_eq(sidecar_mission(sc, "msn_aaaaaaaaaaaa", 16, &m, &e), 1);
	set_str(&l.mission_id, "msn_aaaaaaaaaaaa");
	set_str(&l.prev_letter_id, m.head_id);
	cr_assert_eq(sidecar_begin(sc, &e), 0);
	cr_assert_eq(sidecar_commit(sc, fd, "0123456789ab", &l, offset, &e), 0, "%s", e.msg);
	sidecar_close(sc);
	close(fd);
	letter_free(&l);
	return want;
}

/*
 * An index that points a mission's head at a line that is not its letter (a
 * damaged file whose header still matches the box): log holds every line to
 * the id that named it, and reads the box instead.
 */
Test(log, an_index_its_lines_contradict_is_not_believed)
{
	struct scratch s = scratch();
	struct board b;
	char *want = damaged_head(&s, &b, 0), *got;
	int scanned;

	got = log_text(&b, "msn_aaaaaaaaaaaa", &scanned);
	cr_assert_not(b.rebuilt, "the header matches the box: the index is current");
	cr_assert(scanned, "the head's line does not hash to the id the index gives it");
	cr_assert_str_eq(got, want);
	free(want);
	free(got);
	board_free(&b);
}

/*
 * An index whose offset no file can reach (a damaged slot: past any off_t): log
 * does not hand it to pread, which would fail the read, but reads the box; heads
 * names the index as out of step (delete it), not the box as unreadable.
 */
Test(log, an_offset_past_any_file_is_not_believed)
{
	struct scratch s = scratch();
	struct board b;
	struct board_head *heads;
	size_t n;
	char *want = damaged_head(&s, &b, UINT64_MAX), *got;
	int scanned;
	struct err e;

	got = log_text(&b, "msn_aaaaaaaaaaaa", &scanned);
	cr_assert(scanned, "an offset past any file: the box is read instead");
	cr_assert_str_eq(got, want);
	cr_assert_neq(board_heads(&b, &heads, &n, &e), 0);
	cr_assert_eq(e.code, ERR_INDEX, "%s", e.msg);
	free(want);
	free(got);
	board_free(&b);
}

/*
 * The same mission, the same shape of chain, but the index names the line by
 * another letter's id: only the hash of the line's bytes tells them apart.
 */
Test(log, a_line_that_does_not_hash_to_the_id_the_index_gives_it_is_not_believed)
{
	struct scratch s = scratch();
	struct board b;
	struct letter l1 = base_letter(1, LETTER_JUDGING), l2 = base_letter(2, LETTER_EXECUTING);
	char other[MAILBOX_ID_LEN + 1], *line, *want, *got;
	struct sidecar *sc;
	uint64_t off;
	int fd, scanned;
	struct err e;

	board_init(&b, s.box, NULL);
	post_ok(&b, "agent-a", &l1);
	set_str(&l2.prev_letter_id, "f59633562ac0");
	line = line_of("agent-a", &l2);
	id_of("agent-b", &l2, other); /* the letter agent-b would have posted */
	fd = mailbox_open(s.box, 0, &e);
	cr_assert_geq(fd, 0);
	sc = sidecar_open(s.idx, fd, NULL, &e);
	cr_assert_not_null(sc);
	cr_assert_eq(sidecar_begin(sc, &e), 0);
	cr_assert_eq(mailbox_append(fd, line, strlen(line), &off, &e), 0);
	cr_assert_eq(sidecar_commit(sc, fd, other, &l2, off, &e), 0, "%s", e.msg);
	sidecar_close(sc);
	close(fd);
	want = log_from_box(&s, &b, "msn_0123456789ab");
	got = log_text(&b, "msn_0123456789ab", &scanned);
	cr_assert_not(b.rebuilt, "the header matches the box: the index is current");
	cr_assert(scanned);
	cr_assert_str_eq(got, want);
	cr_assert_null(strstr(got, other), "the id is the line's own");
	free(want);
	free(got);
	free(line);
	letter_free(&l1);
	letter_free(&l2);
	board_free(&b);
}

/* A post killed between its append and its index update: log still shows its letter. */
Test(log, a_writer_that_died_before_its_index_update_loses_no_letter)
{
	struct scratch s = scratch();
	struct board b;
	struct letter l1 = base_letter(1, LETTER_JUDGING), l2 = base_letter(2, LETTER_EXECUTING);
	struct sidecar *sc;
	char *line, *got, *want;
	uint64_t off;
	int fd, scanned;
	struct err e;

	board_init(&b, s.box, NULL);
	post_ok(&b, "agent-a", &l1);
	set_str(&l2.prev_letter_id, "f59633562ac0");
	line = line_of("agent-a", &l2);
	fd = mailbox_open(s.box, 0, &e);
	cr_assert_geq(fd, 0);
	sc = sidecar_open(s.idx, fd, NULL, &e);
	cr_assert_not_null(sc);
	cr_assert_eq(sidecar_begin(sc, &e), 0);
	cr_assert_eq(mailbox_append(fd, line, strlen(line), &off, &e), 0);
	sidecar_close(sc); /* and no sidecar_commit: the process is gone */
	close(fd);
	got = log_text(&b, "msn_0123456789ab", &scanned);
	cr_assert(strstr(got, "2 of 2\n") == got, "%s", got);
	cr_assert_not(scanned);
	want = log_from_box(&s, &b, "msn_0123456789ab");
	cr_assert_str_eq(got, want);
	free(got);
	free(want);
	free(line);
	letter_free(&l1);
	letter_free(&l2);
	board_free(&b);
}

/* ---- the board a front end opens ------------------------------------------------------- */

static void home_at(const struct scratch *s, const char *config)
{
	char *p = fs_join(s->dir, "config.toml");
	struct err e;

	setenv("MECHA_HOME", s->dir, 1);
	unsetenv("MECHA_OUTBOX_DIR");
	unsetenv("MECHA_PROVIDER");
	unsetenv("MECHA_MODEL");
	if (config)
		cr_assert_eq(fs_replace(p, config, strlen(config), &e), 0, "%s", e.msg);
	free(p);
}

Test(open, the_default_board_is_the_homes_box_bound_to_the_configured_brain)
{
	struct scratch s = scratch();
	char *want = fs_join(s.dir, "missions/inbox.jsonl");
	struct board b;
	struct err e;

	home_at(&s, "[missions]\nbrain = \"repo-b\"\n");
	cr_assert_eq(board_open_default(&b, NULL, NULL, 1, &e), 0, "%s", e.msg);
	cr_assert_str_eq(b.box, want);
	cr_assert_str_eq(b.brain, "repo-b");
	board_free(&b);
	cr_assert_eq(board_open_default(&b, "/x/box.jsonl", "repo-c", 1, &e), 0, "%s", e.msg);
	cr_assert_str_eq(b.box, "/x/box.jsonl");
	cr_assert_str_eq(b.brain, "repo-c", "a brain given wins over the config");
	board_free(&b);
	cr_assert_eq(board_open_default(&b, NULL, NULL, 0, &e), 0, "%s", e.msg);
	cr_assert_null(b.brain, "a reader is bound to no brain");
	board_free(&b);
	free(want);
}

Test(open, a_config_that_does_not_load_fails_the_default_box_and_a_bound_board)
{
	struct scratch s = scratch();
	struct board b;
	struct err e;

	home_at(&s, "[missions\n");
	cr_assert_neq(board_open_default(&b, NULL, NULL, 1, &e), 0);
	cr_assert_neq(board_open_default(&b, NULL, NULL, 0, &e), 0, "the default box is the home's");
	cr_assert(strstr(e.msg, "config.toml:1:"), "%s", e.msg);
	cr_assert_neq(board_open_default(&b, NULL, "repo-a", 1, &e), 0);
	cr_assert_neq(board_open_default(&b, s.box, NULL, 1, &e), 0, "binding reads the file");
	cr_assert_eq(board_open_default(&b, s.box, NULL, 0, &e), 0, "%s", e.msg);
	board_free(&b);
	cr_assert_eq(board_open_default(&b, s.box, "repo-a", 1, &e), 0, "%s", e.msg);
	board_free(&b);
}

Test(open, a_new_mission_is_a_fresh_judging_letter_at_seq_1_posted_by_a_person)
{
	struct scratch s = scratch();
	struct board b;
	struct board_result r1, r2;
	struct board_head h;
	struct err e;

	board_init(&b, s.box, NULL);
	cr_assert_eq(board_new(&b, NULL, "sb_alpha", "repo-a", LETTER_ORACLE, LETTER_LOOP_RUNNER,
			       "2026-07-09T00:00:00Z", &r1, &e), 0, "%s", e.msg);
	cr_assert_eq(r1.mission_seq, 1);
	cr_assert_eq(r1.phase, LETTER_JUDGING);
	cr_assert_eq(strncmp(r1.mission_id, "msn_", 4), 0);
	cr_assert_eq(strspn(r1.mission_id + 4, "0123456789abcdef"), 12);
	h = only_head(&b);
	cr_assert_str_eq(h.agent, BOARD_HUMAN);
	cr_assert_eq(h.head.seat, LETTER_ORACLE);
	cr_assert_eq(h.head.capability, LETTER_LOOP_RUNNER);
	cr_assert_null(h.head.prev_letter_id.s);
	cr_assert_str_eq(h.head.started_at.s, "2026-07-09T00:00:00Z");
	cr_assert_str_eq(h.head.updated_at.s, "2026-07-09T00:00:00Z");
	head_free(&h);
	cr_assert_eq(board_new(&b, "agent-a", "sb_alpha", "repo-a", LETTER_HAND,
			       LETTER_BUILD_RUNNER, NULL, &r2, &e), 0, "%s", e.msg);
	cr_assert_str_neq(r1.mission_id, r2.mission_id, "every new mission has an id of its own");
	board_free(&b);
}

Test(open, a_new_mission_goes_through_the_guards)
{
	struct scratch s = scratch();
	struct board b;
	struct board_result r;
	struct err e;

	store_with_alpha(&s);
	board_init(&b, s.box, "repo-a");
	cr_assert_neq(board_new(&b, NULL, "sb_ghost", "repo-a", LETTER_HAND, LETTER_BUILD_RUNNER,
				NULL, &r, &e), 0);
	cr_assert_eq(e.code, ERR_UNKNOWN_BLOCK);
	cr_assert_neq(board_new(&b, NULL, "sb_alpha", "repo-b", LETTER_HAND, LETTER_BUILD_RUNNER,
				NULL, &r, &e), 0);
	cr_assert_eq(e.code, ERR_BRAIN_MISMATCH);
	cr_assert_not(exists(s.box), "a refused first letter creates no box");
	board_free(&b);
}

/* ---- the block store beside a box ------------------------------------------------------ */

Test(blocks, adding_beside_a_box_makes_its_directory_private_and_bumps_the_version)
{
	struct scratch s = scratch();
	char *dir = fs_join(s.dir, "sub"), *box = fs_join(dir, "inbox.jsonl");
	struct blocks bs;
	struct stat st;
	uint64_t v;
	struct err e;

	cr_assert_eq(blocks_add_to_box(box, "sb_alpha", "Alpha", 1, 1, &v, &e), 0, "%s", e.msg);
	cr_assert_eq(v, 1);
	cr_assert_eq(stat(dir, &st), 0);
	cr_assert_eq(st.st_mode & 0777, 0700);
	cr_assert_neq(blocks_add_to_box(box, "sb_alpha", "again", 1, 1, &v, &e), 0);
	cr_assert_eq(e.code, ERR_BLOCK_EXISTS);
	cr_assert_eq(v, 1);
	cr_assert_eq(blocks_add_to_box(box, "sb_beta", "Beta", 2, 3, &v, &e), 0, "%s", e.msg);
	cr_assert_eq(v, 2);
	cr_assert_eq(blocks_load_box(&bs, box, &e), 0, "%s", e.msg);
	cr_assert(bs.exists);
	cr_assert_eq(blocks_version(&bs), 2);
	cr_assert_not_null(blocks_find(&bs, "sb_beta", 7));
	blocks_free(&bs);
	free(box);
	free(dir);
}

Test(blocks, loading_beside_a_box_that_is_not_there_creates_nothing)
{
	struct scratch s = scratch();
	char *dir = fs_join(s.dir, "none"), *box = fs_join(dir, "inbox.jsonl");
	struct blocks bs;
	struct err e;

	cr_assert_eq(blocks_load_box(&bs, box, &e), 0, "%s", e.msg);
	cr_assert_not(bs.exists);
	cr_assert_eq(blocks_version(&bs), 0);
	cr_assert_not(exists(dir));
	blocks_free(&bs);
	free(box);
	free(dir);
}
