/*
 * boards — the mission box read as `mission heads` and `mission log` read it
 * (a shared lock when the lock file exists, nothing written): every mission's
 * chain linear, no unreadable line, and the sidecar index current.
 */
#include "doctor/check.h"

#include "base/buf.h"
#include "base/err.h"
#include "config/home.h"
#include "mission/board.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct forks {
	size_t missions, letters;
	struct buf named;
};

/* Letters of a mission that its walk does not reach: a fork, or a chain edited by hand. */
static int count_forks(struct board *b, const struct board_head *h, struct forks *f,
		       struct err *e)
{
	struct board_chain c;
	size_t off;

	if (board_log(b, h->mission_id, &c, e) != 0)
		return -1;
	off = c.total - c.n;
	if (off) {
		if (f->missions++ < 3)
			buf_printf(&f->named, "%s%s (%zu off the chain)", f->named.len ? ", " : "",
				   h->mission_id, off);
		f->letters += off;
	}
	board_chain_free(&c);
	return 0;
}

static void say_chains(struct doctor *d, const char *box, size_t n, const struct forks *f,
		       size_t skipped)
{
	if (f->missions)
		doctor_say(d, "missions", DOCTOR_FAIL,
			   "nothing is lost: mecha mission log MISSION shows the chain the board "
			   "follows; post the next letter on its head, and find the writer that "
			   "appended without the lock",
			   "%s: %zu of %zu missions forked: %s", box, f->missions, n,
			   buf_str(&f->named));
	else if (skipped)
		doctor_say(d, "missions", DOCTOR_WARN,
			   "find the lines in the box that are not letters (a hand edit?)",
			   "%s: %zu missions, every chain linear, and %zu unreadable lines skipped",
			   box, n, skipped);
	else
		doctor_say(d, "missions", DOCTOR_OK, NULL, "%s: %zu %s, every chain linear", box, n,
			   n == 1 ? "mission" : "missions");
}

/* The index is believed only with the lock file beside it (board.c's session_read). */
static void say_index(struct doctor *d, const char *box, int rebuilt)
{
	char *idx = xasprintf("%s.idx", box), *lock = xasprintf("%s.lock", box), *fix;

	if (access(idx, F_OK) == 0 && access(lock, F_OK) == 0 && rebuilt) {
		fix = xasprintf("nothing is wrong with the box: the next mission post rebuilds the "
				"index (or delete %s)", idx);
		doctor_say(d, "caches", DOCTOR_WARN, fix, "%s does not describe the box as it is "
			   "(a reboot, or a write without mecha, since it was made): each read "
			   "rebuilds it in memory", idx);
		free(fix);
	} else if (access(idx, F_OK) == 0) {
		doctor_say(d, "caches", DOCTOR_OK, NULL, "%s matches the box", idx);
	}
	free(idx);
	free(lock);
}

void doctor_missions(struct doctor *d)
{
	struct forks f = { 0, 0, BUF_INIT };
	struct board_head *heads = NULL;
	struct board b;
	size_t n = 0, i;
	struct err e;
	char *box = home_path(HOME_MISSION_BOX, &e);

	if (!box)
		return;
	board_init(&b, box, NULL);
	err_clear(&e);
	if (access(box, F_OK) != 0) {
		doctor_say(d, "missions", DOCTOR_OK, NULL, "no mission box yet (%s)", box);
	} else if (board_heads(&b, &heads, &n, &e) != 0) {
		doctor_say(d, "missions", DOCTOR_FAIL, "see the permissions line", "%s", e.msg);
	} else {
		int rebuilt = b.rebuilt;
		size_t skipped = b.skipped;
		for (i = 0; i < n && count_forks(&b, &heads[i], &f, &e) == 0; i++)
			;
		if (i < n)
			doctor_say(d, "missions", DOCTOR_FAIL, "see the permissions line", "%s", e.msg);
		else
			say_chains(d, box, n, &f, skipped);
		say_index(d, box, rebuilt);
	}
	board_heads_free(heads, n);
	buf_free(&f.named);
	board_free(&b);
	free(box);
}
