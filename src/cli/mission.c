/*
 * mission — the verbs of the mission board (`mecha mission …`) and of its
 * block store (`mecha blocks …`): parse, call one library function, print.
 *
 * Agents post letters; a person lands or archives. Everything a letter says
 * was written by an agent, so whatever of it reaches a terminal goes through
 * text.h. JSON output is written with the letter's own writer (wire.h), since
 * a letter's counters may exceed what jansson holds; on a terminal it leaves
 * no character outside ASCII raw (wire_ascii), as jsonio_print does.
 */
#include "cli/cli.h"
#include "cli/verb.h"

#include "base/buf.h"
#include "base/err.h"
#include "base/fs.h"
#include "base/jsonio.h"
#include "base/text.h"
#include "config/confine.h"
#include "mission/blocks.h"
#include "mission/board.h"
#include "mission/letter.h"
#include "mission/wire.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* ---- shared ------------------------------------------------------------------- */

/* The options the verbs share; each verb's table lists the ones its help does. */
struct opts {
	const char *box, *brain, *agent;
	int json;
};

#define OPT_BOX(o) { "box", 0, CLI_STR, &(o).box, CLI_PLACE, 0, 0 }
#define OPT_BRAIN(o) { "brain", 0, CLI_TEXT, &(o).brain, CLI_NONEMPTY, 0, 0 }
#define OPT_AGENT(o) { "agent", 0, CLI_TEXT, &(o).agent, CLI_NONEMPTY, 0, 0 }
#define OPT_JSON(o) { "json", 0, CLI_FLAG, &(o).json, 0, 0, 0 }

/* A positional id: empty (or blank) is a usage mistake, as on every verb. */
static int id_arg(const char *verb, const char *what, const char *s)
{
	if (text_blank(s) || !text_utf8_valid(s, strlen(s)))
		return cli_usage_error(verb, "%s must be non-empty UTF-8 text", what);
	return 0;
}

/* The board --box names (~ expanded), else the default, bound as board_open_default says. */
static int open_board(const struct opts *o, unsigned flags, struct board *b, struct err *e)
{
	char *box = o->box ? fs_expand_home(o->box) : NULL;
	int rc = board_open_default(b, box, o->brain, flags, e);

	free(box);
	return rc;
}

static void warn_skipped(struct board *b)
{
	if (b->skipped == 0)
		return;
	fprintf(stderr, "mecha: skipped %zu unreadable line(s) in ", b->skipped);
	text_print(stderr, b->box, 0);
	fputc('\n', stderr);
	b->skipped = 0; /* said once */
}

static void print_str(const struct letter_str *s)
{
	text_printn(stdout, s->s ? s->s : "", s->len, 0);
}

/* Prints (and frees) one JSON document and its newline. */
static void print_json(struct buf *out)
{
	struct buf ascii = BUF_INIT;

	if (isatty(STDOUT_FILENO)) {
		wire_ascii(&ascii, out->data ? out->data : "", out->len);
		fputs(buf_str(&ascii), stdout);
	} else {
		fputs(buf_str(out), stdout);
	}
	fputc('\n', stdout);
	buf_free(&ascii);
	buf_free(out);
}

static void put_result(struct buf *out, const struct board_result *r)
{
	buf_adds(out, "{\"letter_id\":");
	wire_put_cstr(out, r->letter_id);
	buf_adds(out, ",\"mission_id\":");
	wire_put_cstr(out, r->mission_id);
	buf_adds(out, ",\"mission_seq\":");
	wire_put_u64(out, r->mission_seq);
	buf_adds(out, r->deduped ? ",\"deduped\":true" : ",\"deduped\":false");
	buf_adds(out, ",\"phase\":");
	wire_put_cstr(out, letter_phase_name(r->phase));
}

static void print_result(const struct board_result *r, int json)
{
	struct buf out = BUF_INIT;

	if (json) {
		put_result(&out, r);
		buf_addc(&out, '}');
		print_json(&out);
		return;
	}
	printf("%s %s  %s seq %" PRIu64 " %s\n", r->deduped ? "already posted" : "posted",
	       r->letter_id, r->mission_id, r->mission_seq, letter_phase_name(r->phase));
}

/* ---- post ----------------------------------------------------------------------- */

static const char post_help[] =
	"usage: mecha mission post --agent ID [--box P] [--brain B] [--json] [--keep-going]\n"
	"                          [FILE|-]\n\n"
	"Posts mission letters (m1nd-mission-letter-v0 JSON objects, one or more, read from\n"
	"FILE or standard input) as agent ID, in order. Each is validated, stored as its\n"
	"canonical line, and must extend its mission's head: seq 1 with no prev_letter_id\n"
	"for a new mission, else the head's seq + 1 with prev_letter_id = the head's id.\n"
	"Posting a letter that is already in the box changes nothing (deduped).\n"
	"Letters are posted as they arrive, one result line each (a program may keep one\n"
	"post open and feed it). The first refusal stops, unless --keep-going; the letters\n"
	"before it stay posted.\n\n"
	"  --agent ID     who is posting (stored in the line)\n"
	"  --keep-going   after a refusal, report it and go on to the next letter\n"
	"                 (exit 3 at the end if any was refused)\n"
	"  --box P        the box (default: $MECHA_HOME/missions/inbox.jsonl)\n"
	"  --brain B      refuse letters whose brain_ref is not B (default: [missions] brain)\n"
	"  --json         print {letter_id, mission_id, mission_seq, deduped, phase} per\n"
	"                 letter, and refusals as {ok: false, error, message}\n\n"
	"Exit: 0 posted, 1 storage failure, 2 usage, 3 refused (stale_head, invalid_phase,\n"
	"landed_law, brain_mismatch, unknown_block, invalid_letter …; nothing appended).\n";

/*
 * The input is read as it arrives, and each letter is posted as soon as it is
 * complete, its result printed and flushed: a program can hold one `post`
 * open and feed it letter by letter, reading each answer before it writes the
 * next. A letter is tried whenever a line ends; one that fails exactly where
 * the input ends is only incomplete, and waits for more.
 */
struct feed {
	int fd;
	struct buf data;
	size_t pos;
	int eof;
};

/* Reads more input; -1 on a read error. */
static int feed_more(struct feed *f, struct err *e)
{
	char chunk[65536];
	ssize_t n;

	do
		n = read(f->fd, chunk, sizeof chunk);
	while (n < 0 && errno == EINTR);
	if (n < 0)
		return err_errno(e, "reading the letters");
	if (n == 0)
		f->eof = 1;
	buf_add(&f->data, chunk, (size_t)n);
	return 0;
}

/* 1 with *l filled, 0 when more input is needed (or none is left), -1 on a bad letter. */
static int feed_letter(struct feed *f, struct letter *l, struct err *e)
{
	struct wire w;
	size_t at = f->pos;

	wire_init(&w, f->data.data ? f->data.data + f->pos : "", f->data.len - f->pos);
	if (wire_at_end(&w))
		return 0;
	/* NOLINTNEXTLINE(clang-analyzer-core.NullDereference): data is NULL only while len is 0, and then wire_at_end returned */
	if (!f->eof && f->data.data[f->data.len - 1] != '\n')
		return 0;
	if (letter_parse_next(f->data.data, f->data.len, &at, l, e) == 0) {
		f->pos = at;
		return 1;
	}
	return !f->eof && at == f->data.len ? 0 : -1;
}

struct post_run {
	struct board *b;
	const struct opts *o;
	int keep_going;
	size_t done;
	int status; /* the first refusal's, with --keep-going */
	size_t tried;        /* letters read so far */
	size_t nrefused;
	struct buf refused;  /* with --keep-going: "2, 5" — their places in the input */
};

/* With --keep-going, the refusals went by one at a time: name them again at the end. */
static void post_summary(const struct post_run *run, int stopped)
{
	if (!run->nrefused)
		return;
	fprintf(stderr, "mecha: %zu of %zu letters posted; refused: letter%s %s of the input "
		"(each said above)\n", run->tried - run->nrefused - (stopped ? 1 : 0), run->tried,
		run->nrefused == 1 ? "" : "s", buf_str(&run->refused));
}

/* A refusal in the stream: its line, flushed, so a feeding program can read it. */
static int post_fail(const struct post_run *run, const struct err *e)
{
	int rc = cli_fail_json_line(e, run->o->json);

	fflush(stdout);
	return rc;
}

/* Posts one letter and reports it; returns the exit status it earns. */
static int post_one(struct post_run *run, struct letter *l)
{
	struct board_result r;
	struct err e;
	int rc = board_post(run->b, run->o->agent, l, &r, &e);

	letter_free(l);
	warn_skipped(run->b);
	if (rc != 0)
		return post_fail(run, &e);
	print_result(&r, run->o->json);
	fflush(stdout);
	if (isatty(STDERR_FILENO) && ++run->done % 100 == 0)
		fprintf(stderr, "\rposted %zu letters ", run->done);
	return EXIT_OK;
}

static int post_feed(struct post_run *run, struct feed *f)
{
	struct letter l;
	struct err e;
	int got, rc, posted = 0;

	for (;;) {
		got = feed_letter(f, &l, &e);
		if (got < 0)
			return post_fail(run, &e);
		if (got == 0 && f->eof)
			break;
		if (got == 0) {
			if (feed_more(f, &e) != 0)
				return post_fail(run, &e);
			continue;
		}
		posted = 1;
		run->tried++;
		rc = post_one(run, &l);
		if (rc == EXIT_REFUSED && run->keep_going) {
			run->status = run->status ? run->status : rc;
			buf_printf(&run->refused, "%s%zu", run->nrefused++ ? ", " : "", run->tried);
			continue;
		}
		if (rc != EXIT_OK) {
			post_summary(run, 1);
			return rc;
		}
	}
	if (!posted) {
		err_set(&e, ERR_INVALID_LETTER, "not a mission letter: the input holds no letter");
		return post_fail(run, &e);
	}
	if (run->done >= 100 && isatty(STDERR_FILENO))
		fputc('\n', stderr);
	post_summary(run, 0);
	return run->status;
}

static int post_open(const char *path, const struct opts *o, int *fd)
{
	struct err e;

	*fd = strcmp(path, "-") == 0 ? STDIN_FILENO : open(path, O_RDONLY | O_CLOEXEC);
	if (*fd >= 0)
		return EXIT_OK;
	err_errno(&e, "opening %s", path);
	return cli_fail_json_line(&e, o->json);
}

static int m_post(int argc, char **argv)
{
	struct opts o = { 0 };
	struct post_run run = { 0 };
	const struct cli_opt opts[] = {
		OPT_AGENT(o),
		{ "keep-going", 0, CLI_FLAG, &run.keep_going, 0, 0, 0 },
		OPT_BOX(o),
		OPT_BRAIN(o),
		OPT_JSON(o),
	};
	struct feed f = { -1, BUF_INIT, 0, 0 };
	struct cli_args a;
	struct board b;
	struct err e;
	int rc = cli_parse("mission post", CLI_OPTS(opts), 0, 1, argc, argv, &a);

	if (rc != 0)
		return rc;
	if (!o.agent)
		return cli_usage_error("mission post", "--agent ID is required");
	rc = post_open(a.n ? a.pos[0] : "-", &o, &f.fd);
	if (rc != EXIT_OK)
		return rc;
	/* A stream of letters: the box stays open between posts, as for the MCP server. */
	if (open_board(&o, BOARD_BIND | BOARD_KEEP, &b, &e) != 0) {
		rc = cli_fail_json_line(&e, o.json);
	} else {
		run.b = &b;
		run.o = &o;
		rc = post_feed(&run, &f);
		board_free(&b);
	}
	if (f.fd != STDIN_FILENO)
		close(f.fd);
	buf_free(&f.data);
	buf_free(&run.refused);
	return rc;
}

/* ---- new ------------------------------------------------------------------------ */

static const char new_help[] =
	"usage: mecha mission new --block B --brain-ref R [--seat S] [--capability C]\n"
	"                         [--agent ID] [--box P] [--brain B] [--json]\n\n"
	"Opens a mission: posts a seq-1 `judging` letter with a fresh msn_<12hex> id.\n\n"
	"  --block B        the block the mission works on (block_id)\n"
	"  --brain-ref R    the brain's name (never a path)\n"
	"  --seat S         oracle or hand (default hand)\n"
	"  --capability C   build-runner (default), naming-runner, loop-runner,\n"
	"                   hand-runner or review-runner\n"
	"  --agent ID       who is posting (default human)\n"
	"  --box, --brain, --json   as for post\n";

static int m_new(int argc, char **argv)
{
	struct opts o = { 0 };
	const char *block = NULL, *ref = NULL, *seat = "hand", *cap = "build-runner";
	const struct cli_opt opts[] = {
		{ "block", 0, CLI_TEXT, &block, CLI_NONEMPTY, 0, 0 },
		{ "brain-ref", 0, CLI_TEXT, &ref, CLI_NONEMPTY, 0, 0 },
		{ "seat", 0, CLI_STR, &seat, 0, 0, 0 },
		{ "capability", 0, CLI_STR, &cap, 0, 0, 0 },
		OPT_AGENT(o), OPT_BOX(o), OPT_BRAIN(o), OPT_JSON(o),
	};
	enum letter_seat s;
	enum letter_capability c;
	struct board_result r;
	struct cli_args a;
	struct board b;
	struct err e;
	int rc = cli_parse("mission new", CLI_OPTS(opts), 0, 0, argc, argv, &a);

	if (rc != 0)
		return rc;
	if (!block || !ref)
		return cli_usage_error("mission new", "--block and --brain-ref are required");
	if (letter_seat_parse(seat, &s) != 0)
		return cli_usage_error("mission new", "--seat is oracle or hand, not '%s'", seat);
	if (letter_capability_parse(cap, &c) != 0)
		return cli_usage_error("mission new", "'%s' is not a capability", cap);
	if (open_board(&o, BOARD_BIND, &b, &e) != 0)
		return cli_fail_json(&e, o.json);
	rc = board_new(&b, o.agent, block, ref, s, c, NULL, &r, &e);
	warn_skipped(&b);
	board_free(&b);
	if (rc != 0)
		return cli_fail_json(&e, o.json);
	print_result(&r, o.json);
	return EXIT_OK;
}

/* ---- heads ---------------------------------------------------------------------- */

static const char heads_help[] =
	"usage: mecha mission heads [--box P] [--json]\n\n"
	"Every mission's current head (the tip of its chain), ordered by mission id, with how\n"
	"many of its letters the head supersedes.\n\n"
	"  --box P   the box (default: $MECHA_HOME/missions/inbox.jsonl)\n"
	"  --json    {box, missions: [{mission_id, head_letter_id, head, superseded_count}]}\n";

static void heads_json(const struct board *b, const struct board_head *h, size_t n)
{
	struct buf out = BUF_INIT;

	buf_adds(&out, "{\"box\":");
	wire_put_cstr(&out, b->box);
	buf_adds(&out, ",\"missions\":[");
	for (size_t i = 0; i < n; i++) {
		buf_adds(&out, i ? ",{\"mission_id\":" : "{\"mission_id\":");
		wire_put_string(&out, h[i].head.mission_id.s, h[i].head.mission_id.len);
		buf_adds(&out, ",\"head_letter_id\":");
		wire_put_cstr(&out, h[i].head_letter_id);
		buf_adds(&out, ",\"head\":");
		letter_write_json(&out, &h[i].head);
		buf_adds(&out, ",\"superseded_count\":");
		wire_put_u64(&out, h[i].superseded_count);
		buf_addc(&out, '}');
	}
	buf_adds(&out, "]}");
	print_json(&out);
}

static void heads_text(const struct board_head *h, size_t n)
{
	if (n == 0) {
		puts("no missions");
		return;
	}
	printf("%-16s %5s  %-10s  %-12s  %10s  %s\n", "MISSION", "SEQ", "PHASE", "HEAD", "SUPERSEDED",
	       "BLOCK / AGENT");
	for (size_t i = 0; i < n; i++) {
		print_str(&h[i].head.mission_id);
		printf(" %5" PRIu64 "  %-10s  %s  %10" PRIu64 "  ", h[i].head.mission_seq,
		       letter_phase_name(h[i].head.phase), h[i].head_letter_id, h[i].superseded_count);
		print_str(&h[i].head.block_id);
		fputs(" / ", stdout);
		text_print(stdout, h[i].agent ? h[i].agent : "?", 0);
		putchar('\n');
	}
}

static int m_heads(int argc, char **argv)
{
	struct opts o = { 0 };
	const struct cli_opt opts[] = { OPT_BOX(o), OPT_JSON(o) };
	struct board_head *h;
	struct cli_args a;
	struct board b;
	struct err e;
	size_t n;
	int rc = cli_parse("mission heads", CLI_OPTS(opts), 0, 0, argc, argv, &a);

	if (rc != 0)
		return rc;
	if (open_board(&o, 0, &b, &e) != 0)
		return cli_fail_json(&e, o.json);
	if (board_heads(&b, &h, &n, &e) != 0) {
		warn_skipped(&b);
		board_free(&b);
		return cli_fail_json(&e, o.json);
	}
	warn_skipped(&b);
	if (o.json)
		heads_json(&b, h, n);
	else
		heads_text(h, n);
	board_heads_free(h, n);
	board_free(&b);
	return EXIT_OK;
}

/* ---- log ------------------------------------------------------------------------ */

static const char log_help[] =
	"usage: mecha mission log MISSION_ID [--box P] [--json]\n\n"
	"The mission's chain from its first letter to its head, each with its content id,\n"
	"its agent and what it carries. Letters of the mission that are not on the chain\n"
	"(a fork in a box written without the lock) are counted, not shown.\n\n"
	"  --box P   the box (default: $MECHA_HOME/missions/inbox.jsonl)\n"
	"  --json    {box, mission_id, head_letter_id, letters: [{letter_id, agent, letter}],\n"
	"            off_chain}\n";

static void log_json(const struct board *b, const char *mid, const struct board_chain *c)
{
	struct buf out = BUF_INIT;

	buf_adds(&out, "{\"box\":");
	wire_put_cstr(&out, b->box);
	buf_adds(&out, ",\"mission_id\":");
	wire_put_cstr(&out, mid);
	buf_adds(&out, ",\"head_letter_id\":");
	wire_put_cstr(&out, c->entries[c->n - 1].letter_id);
	buf_adds(&out, ",\"letters\":[");
	for (size_t i = 0; i < c->n; i++) {
		buf_adds(&out, i ? ",{\"letter_id\":" : "{\"letter_id\":");
		wire_put_cstr(&out, c->entries[i].letter_id);
		buf_adds(&out, ",\"agent\":");
		if (c->entries[i].agent)
			wire_put_cstr(&out, c->entries[i].agent);
		else
			buf_adds(&out, "null");
		buf_adds(&out, ",\"letter\":");
		letter_write_json(&out, &c->entries[i].letter);
		buf_addc(&out, '}');
	}
	buf_adds(&out, "],\"off_chain\":");
	wire_put_u64(&out, c->total - c->n);
	buf_addc(&out, '}');
	print_json(&out);
}

/* What one letter carries, one indented line each. */
static void log_details(const struct letter *l)
{
	if (l->verdict.present) {
		static const char *const d[] = { "APPROVE", "CHANGE", "REJECT" };
		printf("      verdict  %s  ", d[l->verdict.decision]);
		print_str(&l->verdict.gist);
		putchar('\n');
	}
	if (l->gate.present) {
		printf("      gate     exit %" PRId32 "  ", l->gate.exit_status);
		print_str(&l->gate.command);
		fputs("  ", stdout);
		print_str(&l->gate.artifact_hash);
		putchar('\n');
	}
	if (l->candidate.present) {
		printf("      candidate %s receipt for ", letter_receipt_type_name(l->candidate.type));
		print_str(&l->candidate.block_id);
		printf(" (boundary %" PRIu32 ", contract %" PRIu32 ")\n", l->candidate.boundary_version,
		       l->candidate.contract_version);
	}
	if (l->receipt.present)
		printf("      receipt  %s at store_version %" PRIu64 "\n",
		       l->receipt.imported ? "imported" : "not imported", l->receipt.store_version);
}

static void log_text(const struct board_chain *c)
{
	for (size_t i = 0; i < c->n; i++) {
		const struct board_entry *en = &c->entries[i];
		printf("%5" PRIu64 "  %s  %-10s  ", en->letter.mission_seq, en->letter_id,
		       letter_phase_name(en->letter.phase));
		print_str(&en->letter.updated_at);
		fputs("  ", stdout);
		text_print(stdout, en->agent ? en->agent : "?", 0);
		putchar('\n');
		log_details(&en->letter);
	}
	if (c->total > c->n)
		printf("(%zu letter(s) of this mission are off the chain)\n", c->total - c->n);
}

static int m_log(int argc, char **argv)
{
	struct opts o = { 0 };
	const struct cli_opt opts[] = { OPT_BOX(o), OPT_JSON(o) };
	struct board_chain c;
	struct cli_args a;
	struct board b;
	struct err e;
	int rc = cli_parse("mission log", CLI_OPTS(opts), 1, 1, argc, argv, &a);

	if (rc != 0)
		return rc;
	if (id_arg("mission log", "MISSION_ID", a.pos[0]) != 0)
		return EXIT_USAGE;
	if (open_board(&o, 0, &b, &e) != 0)
		return cli_fail_json(&e, o.json);
	rc = board_log(&b, a.pos[0], &c, &e);
	warn_skipped(&b);
	if (rc == 0 && o.json)
		log_json(&b, a.pos[0], &c);
	else if (rc == 0)
		log_text(&c);
	board_chain_free(&c);
	board_free(&b);
	return rc == 0 ? EXIT_OK : cli_fail_json(&e, o.json);
}

/* ---- land and archive ------------------------------------------------------------ */

static const char land_help[] =
	"usage: mecha mission land MISSION_ID [--expect-version N] [--box P] [--brain B] [--json]\n\n"
	"A person's gesture. The mission's head must be merge_wait with a receipt candidate:\n"
	"the candidate is imported as a receipt on its block (the block store's\n"
	"store_version goes up by one) and a `landed` letter naming that store_version is\n"
	"posted as agent human — both or neither. Refused, changing nothing, when the block\n"
	"store is not at N, the block is unknown, or the candidate's scope is not the\n"
	"block's current boundary and contract versions. A land interrupted between its\n"
	"two writes is finished by running it again.\n\n"
	"  --expect-version N   the store_version you saw (refused if it moved on)\n"
	"  --box, --brain, --json   as for post (--json adds store_version)\n";

static const char archive_help[] =
	"usage: mecha mission archive MISSION_ID [--box P] [--brain B] [--json]\n\n"
	"A person's gesture: sets a merge_wait head aside as superseded by posting an\n"
	"`archived` letter as agent human. Nothing is imported; the block store is not\n"
	"touched. Refused (invalid_transition) for any head but merge_wait.\n";

static void print_gesture(const struct board_result *r, const uint64_t *version, int json)
{
	struct buf out = BUF_INIT;

	if (json) {
		put_result(&out, r);
		if (version) {
			buf_adds(&out, ",\"store_version\":");
			wire_put_u64(&out, *version);
		}
		buf_addc(&out, '}');
		print_json(&out);
	} else if (version) {
		printf("landed %s at store_version %" PRIu64 " (letter %s, seq %" PRIu64 ")\n",
		       r->mission_id, *version, r->letter_id, r->mission_seq);
	} else {
		printf("archived %s (letter %s, seq %" PRIu64 ")\n", r->mission_id, r->letter_id,
		       r->mission_seq);
	}
}

static int m_land(int argc, char **argv)
{
	struct opts o = { 0 };
	long long expect = -1;
	const struct cli_opt opts[] = {
		{ "expect-version", 0, CLI_COUNT, &expect, 0, 0, 0 },
		OPT_BOX(o), OPT_BRAIN(o), OPT_JSON(o),
	};
	uint64_t want, version = 0;
	struct board_result r;
	struct cli_args a;
	struct board b;
	struct err e;
	int rc = cli_parse("mission land", CLI_OPTS(opts), 1, 1, argc, argv, &a);

	if (rc != 0)
		return rc;
	if (id_arg("mission land", "MISSION_ID", a.pos[0]) != 0)
		return EXIT_USAGE;
	if (open_board(&o, BOARD_BIND, &b, &e) != 0)
		return cli_fail_json(&e, o.json);
	want = (uint64_t)expect;
	rc = board_land(&b, a.pos[0], expect >= 0 ? &want : NULL, NULL, &r, &version, &e);
	warn_skipped(&b);
	board_free(&b);
	if (rc != 0)
		return cli_fail_json(&e, o.json);
	print_gesture(&r, &version, o.json);
	return EXIT_OK;
}

static int m_archive(int argc, char **argv)
{
	struct opts o = { 0 };
	const struct cli_opt opts[] = { OPT_BOX(o), OPT_BRAIN(o), OPT_JSON(o) };
	struct board_result r;
	struct cli_args a;
	struct board b;
	struct err e;
	int rc = cli_parse("mission archive", CLI_OPTS(opts), 1, 1, argc, argv, &a);

	if (rc != 0)
		return rc;
	if (id_arg("mission archive", "MISSION_ID", a.pos[0]) != 0)
		return EXIT_USAGE;
	if (open_board(&o, BOARD_BIND, &b, &e) != 0)
		return cli_fail_json(&e, o.json);
	rc = board_archive(&b, a.pos[0], NULL, &r, &e);
	warn_skipped(&b);
	board_free(&b);
	if (rc != 0)
		return cli_fail_json(&e, o.json);
	print_gesture(&r, NULL, o.json);
	return EXIT_OK;
}

static const struct cli_verb mission_verbs[] = {
	{ "post", m_post, post_help, "post letters (JSON) as an agent",
	  CONFINE_MISSIONS | CONFINE_ARGS },
	{ "new", m_new, new_help, "open a mission with a seq-1 judging letter", CONFINE_MISSIONS },
	{ "heads", m_heads, heads_help, "every mission's current head", CONFINE_READS },
	{ "log", m_log, log_help, "one mission's chain, first letter to head", CONFINE_READS },
	{ "land", m_land, land_help, "import the head's receipt and post `landed` (a person)",
	  CONFINE_MISSIONS },
	{ "archive", m_archive, archive_help, "set a merge_wait head aside (a person)",
	  CONFINE_MISSIONS },
};

const struct cli_group cli_mission_group = {
	"mission",
	"The mission board: agents report their missions' state as hash-chained letters;\n"
	"a person lands or archives.",
	mission_verbs, sizeof mission_verbs / sizeof mission_verbs[0], NULL,
};

int cli_mission(int argc, char **argv)
{
	return cli_dispatch(&cli_mission_group, argc, argv);
}

/* ---- blocks --------------------------------------------------------------------- */

static const char blocks_add_help[] =
	"usage: mecha blocks add BLOCK_ID --title T [--boundary N] [--contract N] [--box P]\n"
	"                        [--json]\n\n"
	"Adds a block to the block store beside the box (blocks.json; created if missing).\n"
	"Once the store exists, every non-synthetic letter must name one of its blocks.\n"
	"Bumps store_version. Refused (block_exists) when the id is taken.\n\n"
	"  --title T      what the block is\n"
	"  --boundary N   its boundary_version (default 1)\n"
	"  --contract N   its contract_version (default 1)\n"
	"  --box P        the box whose store this is (default: $MECHA_HOME/missions/inbox.jsonl)\n"
	"  --json         print {block_id, store_version}\n";

static const char blocks_list_help[] =
	"usage: mecha blocks list [--box P] [--json]\n\n"
	"The blocks of the store beside the box, with their versions and receipts.\n\n"
	"  --box P    the box whose store this is\n"
	"  --json     {path, store_version, blocks: [as stored]}\n";

static void print_added(const char *id, uint32_t boundary, uint32_t contract, uint64_t version,
			int json)
{
	json_t *out;

	if (!json) {
		fputs("added block ", stdout);
		text_print(stdout, id, 0);
		printf(" (boundary %u, contract %u); store_version %" PRIu64 "\n", (unsigned)boundary,
		       (unsigned)contract, version);
		return;
	}
	out = json_pack("{s:s,s:I}", "block_id", id, "store_version", (json_int_t)version);
	if (out)
		jsonio_print(stdout, out);
	json_decref(out);
}

static int b_add(int argc, char **argv)
{
	struct opts o = { 0 };
	const char *title = NULL;
	long long boundary = 1, contract = 1;
	const struct cli_opt opts[] = {
		{ "title", 0, CLI_TEXT, &title, CLI_NONEMPTY, 0, 0 },
		{ "boundary", 0, CLI_COUNT, &boundary, 0, 0, UINT32_MAX },
		{ "contract", 0, CLI_COUNT, &contract, 0, 0, UINT32_MAX },
		OPT_BOX(o), OPT_JSON(o),
	};
	uint64_t version = 0;
	struct cli_args a;
	struct err e;
	char *box;
	int rc = cli_parse("blocks add", CLI_OPTS(opts), 1, 1, argc, argv, &a);

	if (rc != 0)
		return rc;
	if (!title)
		return cli_usage_error("blocks add", "add takes one BLOCK_ID and --title T");
	if (id_arg("blocks add", "BLOCK_ID", a.pos[0]) != 0)
		return EXIT_USAGE;
	box = o.box ? fs_expand_home(o.box) : NULL;
	rc = blocks_add_to_box(box, a.pos[0], title, (uint32_t)boundary, (uint32_t)contract,
			       &version, &e);
	free(box);
	if (rc != 0)
		return cli_fail_json(&e, o.json);
	print_added(a.pos[0], (uint32_t)boundary, (uint32_t)contract, version, o.json);
	return EXIT_OK;
}

static void list_text(const struct blocks *bs)
{
	size_t i;
	json_t *blk;

	if (!bs->exists) {
		puts("no block store (every letter is accepted until one exists)");
		return;
	}
	printf("store_version %" PRIu64 "\n", blocks_version(bs));
	json_array_foreach(json_object_get(bs->doc, "blocks"), i, blk) {
		text_print(stdout, json_string_value(json_object_get(blk, "block_id")), 0);
		printf("  boundary %lld  contract %lld  receipts %zu  ",
		       (long long)json_integer_value(json_object_get(blk, "boundary_version")),
		       (long long)json_integer_value(json_object_get(blk, "contract_version")),
		       json_array_size(json_object_get(blk, "receipts")));
		text_print(stdout, jsonio_str_or(blk, "title", ""), 0);
		putchar('\n');
	}
}

static int b_list(int argc, char **argv)
{
	struct opts o = { 0 };
	const struct cli_opt opts[] = { OPT_BOX(o), OPT_JSON(o) };
	struct cli_args a;
	struct blocks bs;
	struct err e;
	char *box;
	json_t *out;
	int rc = cli_parse("blocks list", CLI_OPTS(opts), 0, 0, argc, argv, &a);

	if (rc != 0)
		return rc;
	box = o.box ? fs_expand_home(o.box) : NULL;
	rc = blocks_load_box(&bs, box, &e);
	free(box);
	if (rc != 0)
		return cli_fail_json(&e, o.json);
	if (!o.json) {
		list_text(&bs);
	} else {
		out = json_pack("{s:s,s:I,s:O}", "path", bs.path, "store_version",
				(json_int_t)blocks_version(&bs), "blocks",
				json_object_get(bs.doc, "blocks"));
		if (out)
			jsonio_print(stdout, out);
		json_decref(out);
	}
	blocks_free(&bs);
	return EXIT_OK;
}

static const struct cli_verb blocks_verbs[] = {
	{ "add", b_add, blocks_add_help, "add a block to the store beside the box", CONFINE_MISSIONS },
	{ "list", b_list, blocks_list_help, "the blocks, their versions and receipts", CONFINE_READS },
};

const struct cli_group cli_blocks_group = {
	"blocks",
	"The block store a mission board checks letters against, and where landed\n"
	"receipts are recorded.",
	blocks_verbs, sizeof blocks_verbs / sizeof blocks_verbs[0], NULL,
};

int cli_blocks(int argc, char **argv)
{
	return cli_dispatch(&cli_blocks_group, argc, argv);
}
