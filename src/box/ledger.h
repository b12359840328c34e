/*
 * ledger — the box's storage, behind one narrow interface: a table of
 * functions, one per transaction the box needs, so SQLite (ledger_sqlite.c,
 * the embedded default) and PostgreSQL (ledger_pg.c) hold the same schema
 * (docs/box.md, "Several boxes") and make the same decisions: the transactions are written
 * once (ledger_sql.c) over a driver (ledger_db.h) each of them fills.
 *
 * The rules every backend keeps:
 *   - every state change is one transaction: a row and its attachment rows
 *     arrive together (queue_add) and leave together (queue_ack);
 *   - the database decides, never the process: a handle is taken by a
 *     UNIQUE constraint, a slot hold by one conditional INSERT;
 *   - every read a key performs is filtered by its user: a user_id is an
 *     argument of every queue, type and slot function;
 *   - the schema is versioned (open migrates, additively) and a ledger newer
 *     than this program is refused rather than guessed at.
 *
 * Calling sequence:
 *     struct ledger *l = ledger_open("DIR/box.db" or "postgresql://…", &e);
 *     l->ops->queue_list(l, user_id, since, 100, &records, &e);
 *     ledger_close(l);
 * A ledger may be used from several threads: each backend serialises its
 * connection itself.
 *
 * Ownership: json_t ** results are NEW references; strings in the structs
 * filled by *_get functions are malloc'd (ledger_key_free). Arguments are
 * borrowed.
 */
#ifndef MECHA_BOX_LEDGER_H
#define MECHA_BOX_LEDGER_H

#include <jansson.h>
#include <stddef.h>

struct buf;
struct err;
struct ledger;

#define LEDGER_ID_LEN 32 /* user ids, attachment ids, tokens: 16 random bytes in hex */
/* An uploaded file's bytes are stored in the ledger in parts of this size (the last
 * shorter), written and read one part at a time: a file never sits whole in memory. */
#define LEDGER_PART (256 * 1024)

struct ledger_user {
	char id[LEDGER_ID_LEN + 1];
	char handle[64];
	char status[16]; /* "active" | "suspended" */
	long long send_budget;
};

/* What ledger_ops.stamp tells: equal stamps, no change committed in between. */
struct ledger_stamp {
	long long a, b;
};

struct ledger_key {
	char id[17]; /* the lookup half of a token: 8 random bytes in hex */
	char user_id[LEDGER_ID_LEN + 1];
	char scope[16]; /* publish | release | drain | slots */
	char *hash;     /* the Argon2id PHC string of the secret half */
	char *label;
	int revoked;
};

/* One uploaded file of a queued row. */
struct ledger_attachment {
	const char *id, *field, *filename, *content_type, *sha256; /* sha256: "sha256:<hex>" */
	long long size;
	/* Its size bytes (borrowed), stored in the ledger with the row, in the same
	 * transaction; NULL: only the row (its bytes come later, attachment_fill). */
	const char *data;
	/* 1: its bytes were spooled as they arrived (spool_put, under id): the same
	 * transaction makes the spooled parts its parts, all of them or it fails. */
	int spooled;
};


/* A row that goes straight to `queued` with its files: an upload's completion,
 * a booking's cancellation record, the test seed tool. */
struct ledger_queued {
	const char *user_id, *type_id, *payload; /* payload: JSON text */
	const char *retain_until;                 /* RFC 3339, or NULL */
	const struct ledger_attachment *attachments;
	size_t nattachments;
};

/* A stranger's form POST, before anybody has proved anything: a `submitted`
 * row with the hash of its verification token, and one send counted. */
struct ledger_submission {
	const char *user_id, *type_id, *payload;
	const char *retain_until;              /* RFC 3339, or NULL */
	const char *verify_hash, *verify_expires; /* sha256 hex of the token; RFC 3339 */
	const char *recipient_hash;            /* sha256 hex of the lowered, trimmed address */
	const char *ip_hash;                   /* sha256 hex of the client address */
	const char *day;                       /* YYYY-MM-DD (UTC): what budgets count by */
	long long per_recipient;               /* sends a day to one address (3) */
};

/* A verification link clicked on a form: the row it names, and where the row goes next. */
struct ledger_verify {
	const char *user_id, *type_id;
	const char *verify_hash;                  /* sha256 hex of the token presented */
	const char *upload_hash, *upload_expires; /* NULL: the row is queued */
	/* With upload_hash: asked, inside the transaction, whether the row's payload
	 * (JSON text) leaves a file to ask for — 1: awaiting_upload, 0: queued. */
	int (*files_due)(const char *payload, void *arg);
	void *arg;
};

/* The files of an awaiting_upload row, arriving: the row is queued with them. */
struct ledger_upload {
	const char *user_id, *type_id;
	const char *upload_hash; /* sha256 hex of the upload token presented */
	const char *payload;     /* the values validated with their files (JSON text) */
	const struct ledger_attachment *attachments;
	size_t nattachments;
};

/* A booking POST: a submission (under the same budgets as a form's, §6) that
 * also holds a slot. sub.type_id is the instrument. */
struct ledger_hold {
	struct ledger_submission sub;
	const char *booking_id;          /* minted like a token */
	const char *slot_start, *slot_end; /* RFC 3339 UTC, as rfc3339_format writes them */
	long long duration_minutes;
	const char *hold_expires;        /* RFC 3339 */
	long long max_holds;             /* live holds a stranger may have, per address and per IP */
	const char *replaces;            /* a reschedule: the confirmed booking it moves; else NULL */
};

enum ledger_hold_result {
	LEDGER_HOLD_TAKEN,       /* a live hold or a booking overlaps it: nothing written */
	LEDGER_HOLD_HELD,        /* held, the submission stored, one send counted */
	LEDGER_HOLD_OVER_BUDGET, /* a send budget is spent: nothing written */
	LEDGER_HOLD_TOO_MANY,    /* this address or this client holds max_holds already */
};

/* A booking's verification link clicked. */
struct ledger_confirm {
	const char *user_id, *type_id; /* type_id: the instrument */
	const char *verify_hash;
	const char *manage_hash;       /* sha256 hex of the new manage token */
	const char *manage_url;        /* added to the payload as `_manage_url` */
};

enum ledger_confirm_result {
	LEDGER_CONFIRM_DEAD,   /* no such link, spent or expired: nothing changed */
	LEDGER_CONFIRM_BOOKED, /* confirmed; the row queued with `_manage_url` */
	LEDGER_CONFIRM_LAPSED, /* the hold expired or lost its slot: the row deleted */
	LEDGER_CONFIRM_GONE,   /* a reschedule whose booking is no longer confirmed (cancelled,
				* declined or moved meanwhile): the hold lapsed, the row deleted */
};

/*
 * A confirmation or upload link the box no longer takes still tells the truth
 * (docs/box.md, "Links that tell the truth"): once spent, its hash is kept
 * with what it led to, for LEDGER_SPENT_LINK_DAYS after (the sweep forgets it
 * then), after its row was drained and acknowledged too.
 */
#define LEDGER_SPENT_LINK_DAYS 30
#define LEDGER_LINK_VERIFY "verify" /* c/{token}: a form's or a booking's confirmation */
#define LEDGER_LINK_UPLOAD "upload" /* u/{token}: a form's upload page */

enum ledger_link_status {
	LEDGER_LINK_UNKNOWN, /* never was, or forgotten: the page cannot say more */
	LEDGER_LINK_LIVE,    /* still works */
	LEDGER_LINK_SPENT,   /* used: see the row */
	LEDGER_LINK_EXPIRED, /* it lapsed unused */
};

/* A pairing code as the box keeps it. */
struct ledger_pairing {
	const char *user_id, *code_hash; /* sha256 hex of the code, normalised */
	const char *label;               /* what the keys it mints will be labelled; "" */
	const char *now, *expires;       /* RFC 3339 */
	const char *since;               /* RFC 3339: the start of the window max counts in */
	long long max;                   /* codes an owner may make in that window */
};

/* A code presented to /v1/pair. */
struct ledger_redeem {
	const char *hashes[2];           /* the presented code's hash, normalised and as sent */
	const char *handle;              /* the owner the presenter asserts */
	const char *label;               /* the presenter's label, cleaned */
	const struct ledger_key *keys;   /* prepared (bearer_prepare), user_id empty */
	size_t nkeys;
	const char *now;
	long long max_failures;          /* wrong tries that kill an owner's live codes */
};

/* What `sweep` removed, and what it kept on purpose. */
struct ledger_sweep {
	long long expired_submissions, expired_uploads, attachment_rows, budget_rows;
	long long overdue_queued; /* queued, past retain_until, never drained: kept, reported */
	long long forgotten_links; /* spent links past LEDGER_SPENT_LINK_DAYS */
};

struct ledger_ops {
	const char *name; /* "sqlite", "postgresql" */
	/* Opens and migrates; where is a path or a URL. */
	int (*open)(struct ledger *l, const char *where, struct err *e);
	void (*close)(struct ledger *l);
	/* Whether anything may have changed: 1 with *out, a stamp equal to an earlier one
	 * only when no change was committed to the ledger in between, by this process or
	 * any other on it (so what was read at that stamp still holds); 0 when the backend
	 * cannot tell without reading the rows themselves (PostgreSQL), -1 with e. One
	 * cheap statement (SQLite: PRAGMA data_version), for the caches of what every
	 * request reads (box/typecache.h). */
	int (*stamp)(struct ledger *l, struct ledger_stamp *out, struct err *e);

	/* users: a handle is issued once (ERR_HANDLE_TAKEN when it exists). */
	int (*user_add)(struct ledger *l, const struct ledger_user *u, const char *now,
			struct err *e);
	/* 1 found, 0 none, -1 error; by handle when handle != NULL, else by id. */
	int (*user_get)(struct ledger *l, const char *handle, const char *id,
			struct ledger_user *out, struct err *e);

	/* keys: stored as a hash, looked up by their id half. */
	int (*key_add)(struct ledger *l, const struct ledger_key *k, const char *now,
		       struct err *e);
	int (*key_get)(struct ledger *l, const char *id, struct ledger_key *out, struct err *e);
	void (*key_touch)(struct ledger *l, const char *id, const char *now);
	/* The key stops working; its row stays (who acted stays traceable). */
	int (*key_revoke)(struct ledger *l, const char *id, const char *now, struct err *e);

	/* types: the manifest as uploaded and the schema derived from it. */
	int (*type_put)(struct ledger *l, const char *user, const char *id, const char *title,
			const char *manifest, const char *schema, const char *now, struct err *e);
	/* {"id","title","updated_at","manifest","schema"(text)}: 1 found, 0 none. */
	int (*type_get)(struct ledger *l, const char *user, const char *id, json_t **row,
			struct err *e);
	/* [{"id","title","updated_at"}] sorted by id. */
	int (*type_list)(struct ledger *l, const char *user, json_t **rows, struct err *e);

	/* slot_cache: replaced wholesale; slots is a JSON array's text. */
	int (*slots_put)(struct ledger *l, const char *user, const char *instrument,
			 const char *generated_at, long long horizon_days, const char *slots,
			 const char *now, struct err *e);
	/* {"generated_at","horizon_days","slots"(text),"received_at"}: 1 found, 0 none. */
	int (*slots_get)(struct ledger *l, const char *user, const char *instrument,
			 json_t **row, struct err *e);

	/* queue: a queued row and its attachment rows, in one transaction; *seq its number. */
	int (*queue_add)(struct ledger *l, const struct ledger_queued *q, const char *now,
			 long long *seq, struct err *e);
	/* One submission, under the budgets (§6: they count sends, not rows still there):
	 * 1 with *seq, or 0 when a budget is spent (nothing written; the caller answers
	 * 429, which says a limit was reached and never whether the address was seen). */
	int (*queue_submit)(struct ledger *l, const struct ledger_submission *s, const char *now,
			    long long *seq, struct err *e);
	/* The drain's read (never a change): queued rows after since, oldest first, at
	 * most limit, as the API writes them: [{"seq","type","state","created_at",
	 * "payload"(text),"attachments":[{"id","field","filename","size","sha256",
	 * "content_type"}]}]. */
	int (*queue_list)(struct ledger *l, const char *user, long long since, long long limit,
			  json_t **records, struct err *e);
	/* The highest queued seq of user (0 when none): what a long poll watches. */
	int (*queue_latest)(struct ledger *l, const char *user, long long *seq, struct err *e);
	/* Deletes the named rows of user, their attachment rows and bytes in one
	 * transaction; *blobs gets the attachment ids (files an older box kept on disk
	 * that the caller removes after). */
	int (*queue_ack)(struct ledger *l, const char *user, const long long *seqs, size_t n,
			 long long *deleted, json_t **blobs, struct err *e);
	/* One attachment row of user: {"id","seq","field","filename","size","sha256",
	 * "content_type","parts"} (parts: how many of its parts the ledger holds); 1
	 * found, 0 none. */
	int (*attachment_get)(struct ledger *l, const char *user, const char *id, json_t **row,
			      struct err *e);
	/* Queued rows of user, and those of them past retain_until (kept: the owner decides). */
	int (*queue_counts)(struct ledger *l, const char *user, const char *now,
			    long long *queued, long long *overdue, struct err *e);

	/* The verification click of a form, one transaction: the submitted, unexpired row
	 * of that type whose verify_hash it is goes to queued, or awaiting_upload when
	 * v->files_due says so, its token spent. 1 with *row {"seq","payload"(text),
	 * "state"}, 0 when there is none (expired, spent, never was). */
	int (*queue_verify)(struct ledger *l, const struct ledger_verify *v, const char *now,
			    json_t **row, struct err *e);
	/* The awaiting_upload row an upload token names, still in time (a pure read: the
	 * upload page reloads): 1 with *row {"seq","payload"(text)}, 0 none. */
	int (*upload_pending)(struct ledger *l, const char *user, const char *type,
			      const char *upload_hash, const char *now, json_t **row,
			      struct err *e);
	/* The files arrive: attachment rows in, payload replaced, the row queued, the token
	 * spent, in one transaction. 1 with *seq, 0 when the token no longer works. */
	int (*upload_complete)(struct ledger *l, const struct ledger_upload *u, const char *now,
			       long long *seq, struct err *e);
	/* Counts bytes uploaded from one client address (ip_hash) on day: 1 when they fit
	 * under cap with today's (and are counted), 0 when they would not (not counted). */
	int (*upload_budget)(struct ledger *l, const char *ip_hash, const char *day,
			     long long bytes, long long cap, struct err *e);
	/* An upload's file arriving (upload.h): part n (LEDGER_PART bytes, the last shorter)
	 * of the attachment to be called id, written as it comes, in a statement of its own,
	 * into the spool — which no row names and no reader sees: only the transaction of
	 * upload_complete turns it into the attachment's parts (struct ledger_attachment,
	 * spooled). A refused or broken-off upload's spool is dropped by spool_drop; one
	 * whose box died on it is swept once days old. */
	int (*spool_put)(struct ledger *l, const char *id, long long n, const char *bytes,
			 size_t len, const char *now, struct err *e);
	int (*spool_drop)(struct ledger *l, const char *id, struct err *e);

	/* bookings: what blocks an instrument's slots now, [{"start","end"}]: confirmed
	 * bookings and holds not yet expired. */
	int (*booking_blocking)(struct ledger *l, const char *user, const char *instrument,
				const char *now, json_t **rows, struct err *e);
	/* The first expiry after now of the instrument's live holds (when what blocks it
	 * next changes by time alone): *first a new string, or NULL when no hold is live. */
	int (*booking_lapse)(struct ledger *l, const char *user, const char *instrument,
			     const char *now, char **first, struct err *e);
	/* The change counter of an instrument's bookings and pushed slots (0 before any): it
	 * moves in the transaction of every change to either, made by anyone, so two equal
	 * readings mean nothing of them changed in between (box/weekcache.h). */
	int (*slots_stamp)(struct ledger *l, const char *user, const char *instrument,
			   long long *stamp, struct err *e);
	/* The hold: budgets, the holds cap, then ONE conditional INSERT that lands only when
	 * no live row overlaps the slot, then the submitted row — one transaction.
	 * enum ledger_hold_result (with *seq when HELD), or -1. */
	int (*booking_hold)(struct ledger *l, const struct ledger_hold *h, const char *now,
			    long long *seq, struct err *e);
	/* The verification click of a booking, one transaction: the row to finalizing; the
	 * hold to confirmed (held, unexpired, nothing else live overlapping) with its
	 * manage_hash; then the row queued with `_manage_url`, or deleted when the hold
	 * lapsed. A hold that replaces a booking (a reschedule) also moves that booking,
	 * still confirmed, to 'rescheduled' in the same transaction, else nothing is
	 * booked (GONE). enum ledger_confirm_result, or -1; *row {"seq","payload"(text),
	 * "slot_start","slot_end"}, and for a reschedule "from_start","from_end" (the
	 * booking it moved), when BOOKED. */
	int (*booking_confirm)(struct ledger *l, const struct ledger_confirm *c, const char *now,
			       json_t **row, struct err *e);
	/* The booking a manage link names: 1 with *row {"id","state","slot_start",
	 * "slot_end","recipient_hash","moved_start","moved_end"} (the moved_ pair: the
	 * confirmed booking a reschedule moved it to, else null), 0 none. */
	int (*booking_get)(struct ledger *l, const char *user, const char *instrument,
			   const char *manage_hash, json_t **row, struct err *e);
	/* A booker's cancel: the confirmed booking of q->user_id and q->type_id (the
	 * instrument) with manage_hash to cancelled_by_booker, and q (its cancellation
	 * record) queued, in one transaction. 1 with *seq, 0 when it was not confirmed. */
	int (*booking_cancel)(struct ledger *l, const char *manage_hash, const struct ledger_queued *q,
			      const char *now, long long *seq, struct err *e);
	/* The owner's decline (POST /v1/bookings/decline): user's confirmed booking id to
	 * declined_by_owner (cancelled: to cancelled_by_owner, the owner's cancel of one
	 * home had booked), so its manage page says so and its slot blocks nothing.
	 * 1 declined, 0 when it was not confirmed (already declined, cancelled, never was). */
	int (*booking_decline)(struct ledger *l, const char *user, const char *booking_id,
			       int cancelled, const char *now, struct err *e);

	/* What a link of kind (LEDGER_LINK_VERIFY or _UPLOAD) of user and type whose token
	 * hashes to hash stands at (a pure read: a scanner's GET spends nothing): enum
	 * ledger_link_status, or -1. SPENT with *row {"outcome","state","slot_start",
	 * "slot_end"}: outcome "queued" (a form's request received), "awaiting_upload"
	 * (confirmed, its files not yet sent), "uploaded" (the upload link's files
	 * received), "booked" or "lapsed" (a booking's click); state the booking's state
	 * now, slot_* its time (booked: null otherwise). */
	int (*link_get)(struct ledger *l, const char *user, const char *type, const char *kind,
			const char *hash, const char *now, json_t **row, struct err *e);

	/* The hourly sweep: see struct ledger_sweep. *blobs: [{"user_id","id"}] to remove.
	 * The links of the rows it removes are kept as expired; spent links spent before
	 * spent_before (RFC 3339) are forgotten. */
	int (*sweep)(struct ledger *l, const char *now, const char *budget_before,
		     const char *spent_before, struct ledger_sweep *report, json_t **blobs,
		     struct err *e);
	/* Every attachment id of every user, as {"<user>/<id>": true}: the orphan check. */
	int (*attachment_ids)(struct ledger *l, json_t **ids, struct err *e);

	/* The bytes of the attachment id (attachment_get has told whose it is), part n
	 * (0, 1, …: LEDGER_PART bytes each, the last shorter), appended to out: 1, 0 when
	 * it has no such part. One short read each: nothing is held between parts. */
	int (*attachment_read)(struct ledger *l, const char *id, long long n, struct buf *out,
			       struct err *e);
	/* The bytes of the attachment id, stored part by part in one transaction (what it
	 * had before replaced): the move of a file an older box kept on disk. source reads
	 * up to max bytes into buf: 0 with *got (0 at the end), or -1 with e. 1 stored, 0
	 * when no attachment row is called id. */
	int (*attachment_fill)(struct ledger *l, const char *id,
			       int (*source)(void *arg, char *buf, size_t max, size_t *got,
					     struct err *e),
			       void *arg, struct err *e);
	/* The attachment rows whose bytes are not in the ledger: [{"user_id","id"}]. */
	int (*attachment_unstored)(struct ledger *l, json_t **rows, struct err *e);
	/* pairings (mecha box pair, POST /v1/pair): a one-time code, stored as its SHA-256. */
	/* Adds a code of user until expires, unless user made max codes since `since`:
	 * 1 added, 0 refused (nothing written). */
	int (*pair_add)(struct ledger *l, const struct ledger_pairing *p, struct err *e);
	/* Spends a code, one transaction: the live code (unspent, unexpired, under
	 * max_failures wrong tries) whose hash is one of r->hashes, of the active owner
	 * r->handle, is spent and r->keys (user_id left empty: the code's owner's) are
	 * added, labelled with the code's label, or r->label when it has none. 1 with
	 * *out, the owner; 0 when no code matches: every live code of the owner named
	 * r->handle (if any) counts one wrong try, nothing else is changed. */
	int (*pair_redeem)(struct ledger *l, const struct ledger_redeem *r,
			   struct ledger_user *out, struct err *e);
};

struct ledger {
	const struct ledger_ops *ops;
	void *impl; /* the backend's own state */
};

/* Both are ledger_sql.c's transactions over a driver (ledger_db.h). */
extern const struct ledger_ops ledger_sqlite_ops;
extern const struct ledger_ops ledger_pg_ops;

/*
 * Opens the ledger named by where: "postgresql://…" or "postgres://…" (a
 * libpq connection URL: PostgreSQL), otherwise a SQLite file path. Errors
 * (ERR_LEDGER; missing_library without libpq) name the file, or the URL
 * with its password hidden.
 */
struct ledger *ledger_open(const char *where, struct err *e);
void ledger_close(struct ledger *l);

void ledger_key_free(struct ledger_key *k);

#endif
