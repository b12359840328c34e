/*
 * drain — brings the box's queued requests home into the request store
 * ($MECHA_HOME/requests)
 * (docs/protocol/box-api.md §6.1), and only then lets the box forget them.
 *
 * One pass: GET /v1/queue?since=0&wait=N (one batch, oldest first); for each
 * row, the record intake.h makes of it, its attachments fetched and checked
 * (at most the declared size is read; more, or another SHA-256, and the row
 * is left at the box), written to requests/attachments/<seq>/<name>.<ext>,
 * then the record to requests/<seq>-<type>.json; then one POST
 * /v1/queue/ack for every record now on disk — written now, invalid ones
 * included, or held already.
 *
 * The rule it keeps: the box forgets a request only once home has it, and
 * home never has it twice. So:
 *   - every file is written whole or not at all (a temporary file beside it,
 *     fsync, rename, fsync of the directory), the attachments before the
 *     record, and the ack after every record of the batch is on disk. A kill
 *     at any point leaves the row queued at the box, or acked with its record
 *     at home: the next pass writes what is missing and acks what is held.
 *     A temp file a kill left behind is removed, once it is old enough
 *     (base/fs.h, fs_temps_sweep), by a later pass: requests/ on the pass's
 *     first lock, attachments/<seq>/ before the row's files are written.
 *   - a record already at home is never rewritten (mecha's progress on it —
 *     extracted, triaged, answered — is kept) and is acked again. "Already at
 *     home" means the same file name and the same created_at: a record of
 *     the same seq that is another request (another box's numbering, a
 *     different type) is not overwritten and not acked (seq_taken), so
 *     neither request is lost.
 *   - the record is created under the request store's lock (requests/.lock,
 *     the lock every writer of the store takes) by a rename that never
 *     replaces, so a record written meanwhile by anyone is never clobbered.
 *     The network is never used under the lock.
 *
 * Why the drain writes the file itself rather than through the front door's
 * store: the drain sits beside the front door, not above it (the layers),
 * and a new record is one create — the front door's reader and rewriter
 * (docs/protocol/files.md §2) read exactly the bytes written here, in the same
 * key order, and its .types cache (types/typecache.h, kept by the drain as
 * by the store) is a hint a miss falls back from.
 *
 * Test hook (base/killpoint.h): MECHA_TEST_KILL_AT kills the drain with
 * SIGKILL at
 *     drain-attachment   an attachment file written, its record not yet
 *     drain-record       a record written, the next row not begun
 *     drain-before-ack   every record of the batch written, the ack not sent
 *     drain-after-ack    the box acknowledged, the report not printed
 *
 * Calling sequence:
 *     struct drain_report r;
 *     struct drain_opts o = { .wait = 0 };
 *     if (drain_run(&o, &r, &e) != 0) … e (nothing was acked) …
 *     … r.written, r.skipped[i] …
 *     drain_report_free(&r);
 *
 * Ownership: a report owns its strings (drain_report_free). Options and the
 * callback's line are borrowed.
 */
#ifndef MECHA_DRAIN_DRAIN_H
#define MECHA_DRAIN_DRAIN_H

#include <jansson.h>
#include <signal.h>
#include <stddef.h>

struct err;
struct push_due_line;

#define DRAIN_WAIT_MAX 25 /* the box's cap on a long poll */

enum drain_outcome {
	DRAIN_WRITTEN, /* the record is written now (valid or not) */
	DRAIN_HELD,    /* it was already at home: not rewritten, acked */
	DRAIN_SKIPPED, /* left at the box, not acked: the line says why */
};

struct drain_line {
	enum drain_outcome outcome;
	long long seq;          /* -1 when the row had none that reads */
	const char *type;       /* NULL when unknown */
	int valid;              /* DRAIN_WRITTEN */
	const char *reason;     /* invalid_reason, or why it was skipped; NULL */
	int code;               /* DRAIN_SKIPPED: the enum err_code */
};

struct drain_opts {
	long long wait;  /* seconds the box may hold the question open (0..25) */
	int dry_run;     /* judge and fetch, write and acknowledge nothing */
	long long since; /* the queue's since (0: from the start, docs/protocol/box-api.md §6) */
	/* Each row as it is settled (NULL: none). */
	void (*line)(const struct drain_line *l, void *ctx);
	void *ctx;
	/* Set by a signal handler: a long poll in progress ends (the pass fails, acking nothing). */
	volatile sig_atomic_t *stop;
	/* drain_follow: every slots_every seconds (0: never), before a pass, the slots that
	 * follow the calendar (push.h, push_slots_due), each push or failure told to slots()
	 * with ctx (type NULL: the types could not be listed). A long poll is cut to it. */
	long long slots_every;
	void (*slots)(const struct push_due_line *l, void *ctx);
};

struct drain_skip {
	long long seq;
	int code;      /* enum err_code */
	char *message;
};

struct drain_report {
	size_t drained;      /* rows the box handed over */
	size_t written;      /* records written now (or that would be, dry run) */
	size_t already_held; /* records that were already at home */
	size_t invalid;      /* of those written, the ones that did not validate */
	size_t acknowledged; /* rows the box was told to forget */
	char *store;         /* the request store's directory */
	char *gate;          /* the box it drained */
	long long next;      /* the queue's "next" */
	int dry_run;
	struct drain_skip *skipped;
	size_t nskipped;
	/* Types whose records were submitted under another version than home's manifest:
	 * the box serves a manifest home changed (fixed by `mecha types push TYPE`). */
	struct drain_step {
		char *type;
		long long box_version, home_version;
	} *steps;
	size_t nsteps;
};

/*
 * One pass, as above. 0 when the batch was handled (rows skipped are in the
 * report and its lines; the caller decides what that means for an exit
 * status); -1 when the pass itself failed (no gate, the queue could not be
 * read, the store could not be written, the ack was refused), with what was
 * done so far in the report.
 */
int drain_run(const struct drain_opts *o, struct drain_report *r, struct err *e);

/*
 * Passes one after another until *o->stop is set (`mecha drain --follow`,
 * for a service), each a long poll of o->wait seconds, each reported to
 * pass() (failed: NULL, or why the pass failed). After a pass that left rows
 * at the box the next asks only for rows after them, so a row that cannot be
 * taken does not spin the loop; a pass that finds nothing starts from the
 * beginning again, so a left row is retried at least every o->wait seconds.
 * A pass that could not reach the box or write the store is retried after a
 * pause that doubles up to a minute. Between passes, the booking types'
 * slots follow the calendar (o->slots_every, push.h): a push that fails is
 * told and tried again at the next look; it never stops the drain. A pass
 * the stop ended is reported only when it drained, wrote, acknowledged or
 * skipped a row. Returns 0 when stopped, -1 (with e) on
 * a failure no retry can mend: no gate, an insecure one, no key.
 */
int drain_follow(const struct drain_opts *o,
		 void (*pass)(const struct drain_report *r, const struct err *failed, void *ctx),
		 void *ctx, struct err *e);

/*
 * {"drained", "written", "already_held", "invalid", "acknowledged", "store",
 * "skipped": [{"seq", "error", "message"}], "dry_run"}. NEW.
 */
json_t *drain_report_json(const struct drain_report *r);
void drain_report_free(struct drain_report *r);

#endif
