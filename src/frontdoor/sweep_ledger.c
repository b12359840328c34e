/*
 * sweep_ledger — append, fsync, replay: the sweep's record of what it did,
 * read strictly.
 */
#include "frontdoor/sweep_ledger.h"

#include "base/buf.h"
#include "base/err.h"
#include "base/fs.h"
#include "base/jsonio.h"
#include "base/lock.h"
#include "base/rfc3339.h"

#include <assert.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int phase_known(const char *p)
{
	return p && (strcmp(p, LEDGER_INTENT) == 0 || strcmp(p, LEDGER_DONE) == 0 ||
		     strcmp(p, LEDGER_FAILED) == 0 || strcmp(p, LEDGER_UNCONFIRMED) == 0 ||
		     strcmp(p, LEDGER_SKIPPED) == 0);
}

static int line_key(const char *k)
{
	static const char *const keys[] = { "at", "booking_id", "seq", "step", "phase", NULL };

	for (size_t i = 0; keys[i]; i++)
		if (strcmp(k, keys[i]) == 0)
			return 1;
	return 0;
}

/* One line into the state: the step's phase ("failed" forgets it), details kept. */
static void apply(json_t *state, const json_t *line)
{
	const char *id = jsonio_str(line, "booking_id"), *step = jsonio_str(line, "step");
	const char *phase = jsonio_str(line, "phase"), *k;
	json_t *b = json_object_get(state, id), *v;

	if (!b) {
		b = json_pack("{s:{}}", "steps");
		json_object_set_new(state, id, b);
	}
	if (strcmp(phase, LEDGER_FAILED) == 0)
		json_object_del(json_object_get(b, "steps"), step);
	else
		json_object_set_new(json_object_get(b, "steps"), step, json_string(phase));
	json_object_foreach((json_t *)line, k, v)
		if (!line_key(k) && strcmp(k, "steps") != 0)
			json_object_set(b, k, v);
}

static int replay_line(json_t *state, const char *path, size_t no, const char *s, size_t n,
		       struct err *e)
{
	char what[64];
	json_t *line;

	snprintf(what, sizeof what, "line %zu", no);
	line = jsonio_parse(s, n, what, e);
	if (!line)
		goto bad;
	if (!json_is_object(line) || !jsonio_str(line, "booking_id") || !jsonio_str(line, "step") ||
	    !phase_known(jsonio_str(line, "phase"))) {
		json_decref(line);
		err_set(e, ERR_PARSE, "line %zu is not a ledger entry (booking_id, step, phase)", no);
		goto bad;
	}
	apply(state, line);
	json_decref(line);
	return 0;
bad:
	err_prefix(e, "%s", path);
	err_prefix(e, "the booking ledger cannot be read, so the sweep did nothing");
	return -1;
}

/* Every complete line; *complete is how many bytes they take (a torn tail is not one). */
static int replay(json_t *state, const char *path, const char *text, size_t len,
		  size_t *complete, struct err *e)
{
	size_t at = 0, no = 0;

	while (at < len) {
		const char *nl = memchr(text + at, '\n', len - at);
		if (!nl)
			break;
		no++;
		if ((size_t)(nl - text) > at &&
		    replay_line(state, path, no, text + at, (size_t)(nl - text) - at, e) != 0)
			return -1;
		at = (size_t)(nl - text) + 1;
	}
	*complete = at;
	return 0;
}

/* The file as it is (a missing one is empty); under the lock a torn tail is cut off. */
static int load(struct sweep_ledger *l, struct err *e)
{
	char *text = NULL;
	size_t len = 0, complete = 0;
	int rc;

	if (fs_read(l->path, &text, &len, e) != 0) {
		if (e->code != ERR_NOT_FOUND)
			return -1;
		return 0;
	}
	rc = replay(l->state, l->path, text, len, &complete, e);
	free(text);
	if (rc == 0 && complete < len && l->fd >= 0 &&
	    (ftruncate(l->fd, (off_t)complete) != 0 || fdatasync(l->fd) != 0))
		rc = err_errno(e, "cutting the unfinished last line of %s", l->path);
	return rc;
}

int sweep_ledger_open(struct sweep_ledger *l, const char *dir, int dry_run, struct err *e)
{
	char *lock = fs_join(dir, SWEEP_LEDGER_LOCK);

	memset(l, 0, sizeof *l);
	l->path = fs_join(dir, SWEEP_LEDGER_FILE);
	l->lock_fd = l->fd = -1;
	l->dry_run = dry_run;
	l->state = json_object();
	if (!dry_run) {
		l->lock_fd = lock_acquire(lock, LOCK_EXCLUSIVE, e);
		if (l->lock_fd >= 0)
			l->fd = open(l->path, O_RDWR | O_APPEND | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0600);
		if (l->lock_fd >= 0 && l->fd < 0)
			err_errno(e, "opening %s", l->path);
	}
	free(lock);
	if ((!dry_run && l->fd < 0) || load(l, e) != 0) {
		sweep_ledger_close(l);
		return -1;
	}
	return 0;
}

void sweep_ledger_close(struct sweep_ledger *l)
{
	if (l->fd >= 0)
		close(l->fd);
	lock_release(l->lock_fd);
	json_decref(l->state);
	free(l->path);
	memset(l, 0, sizeof *l);
	l->fd = l->lock_fd = -1;
}

const char *sweep_ledger_phase(const struct sweep_ledger *l, const char *booking,
			       const char *step)
{
	json_t *b = json_object_get(l->state, booking);

	return b ? jsonio_str(json_object_get(b, "steps"), step) : NULL;
}

int sweep_ledger_settled(const struct sweep_ledger *l, const char *booking, const char *step)
{
	const char *p = sweep_ledger_phase(l, booking, step);

	return p && (strcmp(p, LEDGER_DONE) == 0 || strcmp(p, LEDGER_UNCONFIRMED) == 0 ||
		     strcmp(p, LEDGER_SKIPPED) == 0);
}

json_t *sweep_ledger_booking(const struct sweep_ledger *l, const char *booking)
{
	return json_object_get(l->state, booking);
}

/* One write of the whole line, then fdatasync: a line is on disk or it is not there. */
static int append(struct sweep_ledger *l, const char *text, struct err *e)
{
	struct buf b = BUF_INIT;
	int rc = 0;

	buf_printf(&b, "%s\n", text);
	if (fs_write_all(l->fd, b.data, b.len) != 0 || fdatasync(l->fd) != 0)
		rc = err_errno(e, "appending to %s", l->path);
	buf_free(&b);
	return rc;
}

int sweep_ledger_add(struct sweep_ledger *l, const char *booking, long long seq,
		     const char *step, const char *phase, json_t *extra, struct err *e)
{
	char now[RFC3339_LEN];
	json_t *line;
	char *text;
	int rc = 0;

	/* A step is written in a phase replay knows, under the ledger's lock. */
	assert(booking && step && phase_known(phase));
	assert(l->dry_run || (l->lock_fd >= 0 && l->fd >= 0));
	rfc3339_now(now);
	line = json_pack("{s:s,s:s,s:I,s:s,s:s}", "at", now, "booking_id", booking, "seq",
			 (json_int_t)seq, "step", step, "phase", phase);
	if (extra)
		json_object_update(line, extra);
	json_decref(extra);
	text = jsonio_compact(line);
	if (!l->dry_run)
		rc = append(l, text, e);
	if (rc == 0) {
		apply(l->state, line);
		/* The state is what a replay of the file would give: the phase, or forgotten. */
		assert(strcmp(phase, LEDGER_FAILED) == 0
			       ? sweep_ledger_phase(l, booking, step) == NULL
			       : strcmp(sweep_ledger_phase(l, booking, step), phase) == 0);
	}
	free(text);
	json_decref(line);
	return rc;
}
