/*
 * ledger_sql — the box's transactions, written once over a driver
 * (ledger_db.h): every function of struct ledger_ops except opening, for
 * SQLite and PostgreSQL alike.
 *
 * Each change is one BEGIN … COMMIT under the connection's lock, begun the
 * driver's way so that writers take turns: SQLite's BEGIN IMMEDIATE takes the
 * file's write lock, PostgreSQL's begin takes one advisory lock every box
 * process on the database shares. That is what makes a read-then-write
 * (a budget counted, a slot looked at) decide the same for two processes as
 * for two threads: neither can see the state before the other's commit.
 */
#include "box/ledger.h"
#include "box/ledger_db.h"

#include "base/buf.h"
#include "base/err.h"
#include "base/jsonio.h"

#include <stdlib.h>
#include <string.h>

/* ---- plumbing ------------------------------------------------------------------ */

static void db_lock(struct ledger_db *s)
{
	pthread_mutex_lock(&s->lock);
	if (s->drv->revive)
		s->drv->revive(s);
}

static void db_unlock(struct ledger_db *s)
{
	pthread_mutex_unlock(&s->lock);
}

/* Runs a statement of n text parameters to completion (no rows expected). */
static int run(struct ledger_db *s, const char *sql, int n, const char *const *v, struct err *e)
{
	return s->drv->query(s, sql, n, v, NULL, NULL, e);
}

/* A begin of several statements (PostgreSQL's BEGIN, then its lock) can fail after
 * its BEGIN: that transaction is rolled back, or every later statement is refused. */
static int begin(struct ledger_db *s, struct err *e)
{
	struct err ignored;

	db_lock(s);
	if (s->drv->exec(s, s->drv->begin, e) == 0)
		return 0;
	s->drv->exec(s, "ROLLBACK", &ignored);
	db_unlock(s);
	return -1;
}

/* COMMIT when ok is 0, else ROLLBACK; returns ok (or -1 when the commit failed). */
static int end(struct ledger_db *s, int ok, struct err *e)
{
	struct err ignored;

	if (ok == 0 && s->drv->exec(s, "COMMIT", e) != 0)
		ok = -1;
	if (ok != 0)
		s->drv->exec(s, "ROLLBACK", &ignored);
	db_unlock(s);
	return ok;
}

/* Rows of a query as objects keyed by names (one per column), into *out. */
static int rows(struct ledger_db *s, const char *sql, int n, const char *const *v,
		const char *const *names, json_t **out, struct err *e)
{
	*out = NULL;
	return s->drv->query(s, sql, n, v, names, out, e);
}

/* The one row of a query as an object: 1 found, 0 none. */
static int one(struct ledger_db *s, const char *sql, int n, const char *const *v,
	       const char *const *names, json_t **out, struct err *e)
{
	json_t *all;

	*out = NULL;
	if (rows(s, sql, n, v, names, &all, e) != 0)
		return -1;
	if (json_array_size(all) > 0)
		*out = json_incref(json_array_get(all, 0));
	json_decref(all);
	return *out != NULL;
}

/* one() as a read of its own: the connection held just for it. */
static int read_one(struct ledger_db *s, const char *sql, int n, const char *const *v,
		    const char *const *names, json_t **out, struct err *e)
{
	int rc;

	db_lock(s);
	rc = one(s, sql, n, v, names, out, e);
	db_unlock(s);
	return rc;
}

/* A single integer answer (0 when there is no row). */
static int scalar(struct ledger_db *s, const char *sql, int n, const char *const *v,
		  long long *out, struct err *e)
{
	static const char *const names[] = { "v", NULL };
	json_t *row;
	int found = one(s, sql, n, v, names, &row, e);

	if (found < 0)
		return -1;
	*out = found ? (long long)json_integer_value(json_object_get(row, "v")) : 0;
	json_decref(row);
	return 0;
}

/* ---- open and close ------------------------------------------------------------- */

static int sql_open(struct ledger *l, const struct ledger_driver *drv, const char *where,
		    struct err *e)
{
	struct ledger_db *s = xcalloc(1, sizeof *s);

	l->impl = s;
	s->drv = drv;
	pthread_mutex_init(&s->lock, NULL);
	return drv->connect(s, where, e);
}

static int sqlite_open(struct ledger *l, const char *where, struct err *e)
{
	return sql_open(l, &ledger_sqlite_driver, where, e);
}

static int pg_open(struct ledger *l, const char *where, struct err *e)
{
	return sql_open(l, &ledger_pg_driver, where, e);
}

static void sql_close(struct ledger *l)
{
	struct ledger_db *s = l->impl;

	if (!s)
		return;
	s->drv->disconnect(s);
	pthread_mutex_destroy(&s->lock);
	free(s->name);
	free(s);
	l->impl = NULL;
}

/* ---- users and keys ---------------------------------------------------------------- */

static int sql_user_add(struct ledger *l, const struct ledger_user *u, const char *now,
			 struct err *e)
{
	struct ledger_db *s = l->impl;
	const char *v[] = { u->id, u->handle, u->status[0] ? u->status : "active", now };
	long long taken;
	int rc;

	if (begin(s, e) != 0)
		return -1;
	rc = scalar(s, "SELECT COUNT(*) FROM users WHERE handle = ?1", 1, v + 1, &taken, e);
	if (rc == 0 && taken)
		rc = err_set(e, ERR_HANDLE_TAKEN, "the box already has an owner called %s",
			     u->handle);
	if (rc == 0)
		rc = run(s, "INSERT INTO users (id, handle, status, created_at) VALUES (?1, ?2, ?3, ?4)",
			 4, v, e);
	return end(s, rc, e);
}

static int sql_user_get(struct ledger *l, const char *handle, const char *id,
			 struct ledger_user *out, struct err *e)
{
	static const char *const names[] = { "id", "handle", "status", "send_budget", NULL };
	struct ledger_db *s = l->impl;
	const char *v[] = { handle ? handle : id };
	json_t *row;
	int rc;

	rc = read_one(s, handle ? "SELECT id, handle, status, send_budget FROM users WHERE handle = ?1"
				: "SELECT id, handle, status, send_budget FROM users WHERE id = ?1",
		      1, v, names, &row, e);
	if (rc != 1)
		return rc;
	memset(out, 0, sizeof *out);
	snprintf(out->id, sizeof out->id, "%s", json_string_value(json_object_get(row, "id")));
	snprintf(out->handle, sizeof out->handle, "%s",
		 json_string_value(json_object_get(row, "handle")));
	snprintf(out->status, sizeof out->status, "%s",
		 json_string_value(json_object_get(row, "status")));
	out->send_budget = json_integer_value(json_object_get(row, "send_budget"));
	json_decref(row);
	return 1;
}

static int sql_key_add(struct ledger *l, const struct ledger_key *k, const char *now,
			struct err *e)
{
	struct ledger_db *s = l->impl;
	const char *v[] = { k->id, k->user_id, k->scope, k->hash, k->label ? k->label : "", now };
	int rc;

	if (begin(s, e) != 0)
		return -1;
	rc = run(s, "INSERT INTO keys (id, user_id, scope, hash, label, created_at) "
		    "VALUES (?1, ?2, ?3, ?4, ?5, ?6)", 6, v, e);
	return end(s, rc, e);
}

static int sql_key_get(struct ledger *l, const char *id, struct ledger_key *out, struct err *e)
{
	static const char *const names[] = { "id", "user_id", "scope", "hash", "label", "revoked",
					     NULL };
	struct ledger_db *s = l->impl;
	json_t *row;
	int rc;

	rc = read_one(s, "SELECT id, user_id, scope, hash, label, "
			 "CASE WHEN revoked_at IS NULL THEN 0 ELSE 1 END FROM keys WHERE id = ?1",
		      1, &id, names, &row, e);
	if (rc != 1)
		return rc;
	memset(out, 0, sizeof *out);
	snprintf(out->id, sizeof out->id, "%s", json_string_value(json_object_get(row, "id")));
	snprintf(out->user_id, sizeof out->user_id, "%s",
		 json_string_value(json_object_get(row, "user_id")));
	snprintf(out->scope, sizeof out->scope, "%s",
		 json_string_value(json_object_get(row, "scope")));
	out->hash = xstrdup(json_string_value(json_object_get(row, "hash")));
	out->label = xstrdup(json_string_value(json_object_get(row, "label")));
	out->revoked = json_integer_value(json_object_get(row, "revoked")) != 0;
	json_decref(row);
	return 1;
}

/* Best effort by design: authentication never fails over a timestamp. */
static void sql_key_touch(struct ledger *l, const char *id, const char *now)
{
	struct ledger_db *s = l->impl;
	const char *v[] = { now, id };
	struct err ignored;

	db_lock(s);
	run(s, "UPDATE keys SET last_used_at = ?1 WHERE id = ?2", 2, v, &ignored);
	db_unlock(s);
}

static int sql_key_revoke(struct ledger *l, const char *id, const char *now, struct err *e)
{
	struct ledger_db *s = l->impl;
	const char *v[] = { now, id };
	int rc;

	if (begin(s, e) != 0)
		return -1;
	rc = run(s, "UPDATE keys SET revoked_at = ?1 WHERE id = ?2 AND revoked_at IS NULL", 2, v,
		 e);
	return end(s, rc, e);
}

/* ---- types and slots ----------------------------------------------------------------- */

static int sql_type_put(struct ledger *l, const char *user, const char *id, const char *title,
			 const char *manifest, const char *schema, const char *now,
			 struct err *e)
{
	struct ledger_db *s = l->impl;
	const char *v[] = { user, id, title, manifest, schema, now };
	int rc;

	if (begin(s, e) != 0)
		return -1;
	rc = run(s, "INSERT INTO types (user_id, id, title, manifest, schema, updated_at) "
		    "VALUES (?1, ?2, ?3, ?4, ?5, ?6) ON CONFLICT (user_id, id) DO UPDATE SET "
		    "title = excluded.title, manifest = excluded.manifest, schema = excluded.schema, "
		    "updated_at = excluded.updated_at", 6, v, e);
	return end(s, rc, e);
}

static int sql_type_get(struct ledger *l, const char *user, const char *id, json_t **row,
			 struct err *e)
{
	static const char *const names[] = { "id", "title", "updated_at", "manifest", "schema",
					     NULL };
	struct ledger_db *s = l->impl;
	const char *v[] = { user, id };

	return read_one(s, "SELECT id, title, updated_at, manifest, schema FROM types "
			"WHERE user_id = ?1 AND id = ?2", 2, v, names, row, e);
}

static int sql_type_list(struct ledger *l, const char *user, json_t **out, struct err *e)
{
	static const char *const names[] = { "id", "title", "updated_at", NULL };
	struct ledger_db *s = l->impl;
	int rc;

	db_lock(s);
	rc = rows(s, "SELECT id, title, updated_at FROM types WHERE user_id = ?1 ORDER BY id", 1,
		  &user, names, out, e);
	db_unlock(s);
	return rc;
}

static int sql_slots_put(struct ledger *l, const char *user, const char *instrument,
			  const char *generated_at, long long horizon_days, const char *slots,
			  const char *now, struct err *e)
{
	struct ledger_db *s = l->impl;
	char horizon[24];
	const char *v[] = { user, instrument, generated_at, horizon, slots, now };
	int rc;

	snprintf(horizon, sizeof horizon, "%lld", horizon_days);
	if (begin(s, e) != 0)
		return -1;
	rc = run(s, "INSERT INTO slot_cache (user_id, instrument_id, generated_at, horizon_days, "
		    "slots, received_at) VALUES (?1, ?2, ?3, CAST(?4 AS INTEGER), ?5, ?6) "
		    "ON CONFLICT (user_id, instrument_id) DO UPDATE SET generated_at = "
		    "excluded.generated_at, horizon_days = excluded.horizon_days, slots = "
		    "excluded.slots, received_at = excluded.received_at", 6, v, e);
	return end(s, rc, e);
}

static int sql_slots_get(struct ledger *l, const char *user, const char *instrument,
			  json_t **row, struct err *e)
{
	static const char *const names[] = { "generated_at", "horizon_days", "slots",
					     "received_at", NULL };
	struct ledger_db *s = l->impl;
	const char *v[] = { user, instrument };

	return read_one(s, "SELECT generated_at, horizon_days, slots, received_at FROM slot_cache "
			"WHERE user_id = ?1 AND instrument_id = ?2", 2, v, names, row, e);
}

/* ---- the queue ------------------------------------------------------------------------- */

static int add_attachment(struct ledger_db *s, const char *user, long long seq,
			  const struct ledger_attachment *a, const char *now, struct err *e)
{
	char seqs[24], size[24];
	const char *v[] = { a->id, user, seqs, a->field, a->filename, a->content_type, size,
			    a->sha256, now };

	snprintf(seqs, sizeof seqs, "%lld", seq);
	snprintf(size, sizeof size, "%lld", a->size);
	return run(s, "INSERT INTO attachments (id, user_id, seq, field, filename, content_type, "
		      "size, sha256, created_at) VALUES (?1, ?2, CAST(?3 AS INTEGER), ?4, ?5, ?6, "
		      "CAST(?7 AS INTEGER), ?8, ?9)", 9, v, e);
}

/* Inside a transaction: q as a queued row with its attachment rows. */
static int insert_queued(struct ledger_db *s, const struct ledger_queued *q, const char *now,
			 long long *seq, struct err *e)
{
	const char *v[] = { q->user_id, q->type_id, q->payload, now, q->retain_until };
	int rc;

	*seq = 0;
	rc = scalar(s, "INSERT INTO queue (user_id, type_id, state, payload, created_at, "
		       "retain_until) VALUES (?1, ?2, 'queued', ?3, ?4, ?5) RETURNING seq", 5, v, seq,
		    e);
	for (size_t i = 0; rc == 0 && i < q->nattachments; i++)
		rc = add_attachment(s, q->user_id, *seq, &q->attachments[i], now, e);
	return rc;
}

static int sql_queue_add(struct ledger *l, const struct ledger_queued *q, const char *now,
			  long long *seq, struct err *e)
{
	struct ledger_db *s = l->impl;

	if (begin(s, e) != 0)
		return -1;
	return end(s, insert_queued(s, q, now, seq, e), e);
}

/* 1 when another send to s's address, and by s's owner, fits today's budgets. */
static int within_budget(struct ledger_db *s, const struct ledger_submission *sub, struct err *e)
{
	const char *v[] = { sub->user_id, sub->day, sub->recipient_hash };
	long long to_them, by_owner, budget;

	if (scalar(s, "SELECT COUNT(*) FROM sends WHERE user_id = ?1 AND day = ?2 AND "
		      "recipient_hash = ?3", 3, v, &to_them, e) != 0 ||
	    scalar(s, "SELECT COUNT(*) FROM sends WHERE user_id = ?1 AND day = ?2", 2, v, &by_owner,
		   e) != 0 ||
	    scalar(s, "SELECT send_budget FROM users WHERE id = ?1", 1, v, &budget, e) != 0)
		return -1;
	return to_them < sub->per_recipient && by_owner < budget;
}

/* Inside a transaction: the submitted row, and the send it costs counted. */
static int insert_submitted(struct ledger_db *s, const struct ledger_submission *sub, const char *now,
			    long long *seq, struct err *e)
{
	const char *v[] = { sub->user_id, sub->type_id, sub->payload, now, sub->retain_until,
			    sub->verify_hash, sub->verify_expires, sub->recipient_hash, sub->day };
	const char *send[] = { sub->user_id, sub->day, sub->recipient_hash,
			       sub->ip_hash ? sub->ip_hash : "", now };

	if (scalar(s, "INSERT INTO queue (user_id, type_id, state, payload, created_at, "
		      "retain_until, verify_hash, verify_expires, recipient_hash, submitted_on) "
		      "VALUES (?1, ?2, 'submitted', ?3, ?4, ?5, ?6, ?7, ?8, ?9) RETURNING seq", 9, v,
		   seq, e) != 0)
		return -1;
	return run(s, "INSERT INTO sends (user_id, day, recipient_hash, ip_hash, sent_at) "
		      "VALUES (?1, ?2, ?3, ?4, ?5)", 5, send, e);
}

static int sql_queue_submit(struct ledger *l, const struct ledger_submission *sub,
			     const char *now, long long *seq, struct err *e)
{
	struct ledger_db *s = l->impl;
	int rc, fits;

	*seq = 0;
	if (begin(s, e) != 0)
		return -1;
	rc = (fits = within_budget(s, sub, e)) < 0 ? -1 : 0;
	if (rc == 0 && fits)
		rc = insert_submitted(s, sub, now, seq, e);
	if (end(s, rc, e) != 0)
		return -1;
	return fits;
}

static int attachments_of(struct ledger_db *s, const char *user, json_t *record, struct err *e)
{
	static const char *const names[] = { "id", "field", "filename", "size", "sha256",
					     "content_type", NULL };
	char seq[24];
	const char *v[] = { user, seq };
	json_t *list;

	snprintf(seq, sizeof seq, "%lld", (long long)json_integer_value(json_object_get(record,
										      "seq")));
	if (rows(s, "SELECT id, field, filename, size, sha256, content_type FROM attachments "
		    "WHERE user_id = ?1 AND seq = CAST(?2 AS INTEGER) ORDER BY created_at, id", 2, v,
		 names, &list, e) != 0)
		return -1;
	json_object_set_new(record, "attachments", list);
	return 0;
}

static int sql_queue_list(struct ledger *l, const char *user, long long since, long long limit,
			   json_t **records, struct err *e)
{
	static const char *const names[] = { "seq", "type", "state", "created_at", "payload",
					     NULL };
	struct ledger_db *s = l->impl;
	char a[24], b[24];
	const char *v[] = { user, a, b };
	size_t i;
	json_t *r;
	int rc;

	snprintf(a, sizeof a, "%lld", since);
	snprintf(b, sizeof b, "%lld", limit);
	db_lock(s);
	rc = rows(s, "SELECT seq, type_id, state, created_at, payload FROM queue WHERE user_id = ?1 "
		     "AND state = 'queued' AND seq > CAST(?2 AS INTEGER) ORDER BY seq "
		     "LIMIT CAST(?3 AS INTEGER)", 3, v, names, records, e);
	json_array_foreach(rc == 0 ? *records : NULL, i, r)
		if ((rc = attachments_of(s, user, r, e)) != 0)
			break;
	db_unlock(s);
	if (rc != 0 && *records) {
		json_decref(*records);
		*records = NULL;
	}
	return rc;
}

static int sql_queue_latest(struct ledger *l, const char *user, long long *seq, struct err *e)
{
	struct ledger_db *s = l->impl;
	int rc;

	db_lock(s);
	rc = scalar(s, "SELECT COALESCE(MAX(seq), 0) FROM queue WHERE user_id = ?1 AND "
		       "state = 'queued'", 1, &user, seq, e);
	db_unlock(s);
	return rc;
}

static int ack_one(struct ledger_db *s, const char *user, long long seq, long long *deleted,
		   json_t *blobs, struct err *e)
{
	static const char *const names[] = { "id", NULL };
	char seqs[24];
	const char *v[] = { user, seqs };
	json_t *ids, *x;
	size_t i;

	snprintf(seqs, sizeof seqs, "%lld", seq);
	if (rows(s, "SELECT id FROM attachments WHERE user_id = ?1 AND seq = CAST(?2 AS INTEGER)",
		 2, v, names, &ids, e) != 0)
		return -1;
	json_array_foreach(ids, i, x)
		json_array_append(blobs, json_object_get(x, "id"));
	json_decref(ids);
	if (run(s, "DELETE FROM attachments WHERE user_id = ?1 AND seq = CAST(?2 AS INTEGER)", 2, v,
		e) != 0 ||
	    run(s, "DELETE FROM queue WHERE user_id = ?1 AND seq = CAST(?2 AS INTEGER) AND "
		   "state = 'queued'", 2, v, e) != 0)
		return -1;
	*deleted += s->changes;
	return 0;
}

static int sql_queue_ack(struct ledger *l, const char *user, const long long *seqs, size_t n,
			  long long *deleted, json_t **blobs, struct err *e)
{
	struct ledger_db *s = l->impl;
	int rc = 0;

	*deleted = 0;
	*blobs = json_array();
	if (begin(s, e) != 0) {
		json_decref(*blobs);
		*blobs = NULL;
		return -1;
	}
	for (size_t i = 0; rc == 0 && i < n; i++)
		rc = ack_one(s, user, seqs[i], deleted, *blobs, e);
	if (end(s, rc, e) != 0) {
		json_decref(*blobs);
		*blobs = NULL;
		*deleted = 0;
		return -1;
	}
	return 0;
}

static int sql_attachment_get(struct ledger *l, const char *user, const char *id, json_t **row,
			       struct err *e)
{
	static const char *const names[] = { "id", "seq", "field", "filename", "size", "sha256",
					     "content_type", NULL };
	struct ledger_db *s = l->impl;
	const char *v[] = { user, id };

	return read_one(s, "SELECT id, seq, field, filename, size, sha256, content_type FROM attachments "
			"WHERE user_id = ?1 AND id = ?2", 2, v, names, row, e);
}

static int sql_queue_counts(struct ledger *l, const char *user, const char *now,
			     long long *queued, long long *overdue, struct err *e)
{
	struct ledger_db *s = l->impl;
	const char *v[] = { user, now };
	int rc;

	db_lock(s);
	rc = scalar(s, "SELECT COUNT(*) FROM queue WHERE user_id = ?1 AND state = 'queued'", 1, v,
		    queued, e);
	if (rc == 0)
		rc = scalar(s, "SELECT COUNT(*) FROM queue WHERE user_id = ?1 AND state = 'queued' "
			       "AND retain_until IS NOT NULL AND retain_until < ?2", 2, v, overdue, e);
	db_unlock(s);
	return rc;
}

/* ---- the form flow: verification and uploads ------------------------------------------------ */

static void seq_text(long long seq, char out[24])
{
	snprintf(out, 24, "%lld", seq);
}

/* The submitted, unexpired row of user and type whose verify_hash is hash: 1 with *row. */
static int submitted_row(struct ledger_db *s, const char *user, const char *type, const char *hash,
			 const char *now, json_t **row, struct err *e)
{
	static const char *const names[] = { "seq", "payload", NULL };
	const char *v[] = { user, type, hash, now };

	return one(s, "SELECT seq, payload FROM queue WHERE user_id = ?1 AND type_id = ?2 AND "
		      "verify_hash = ?3 AND state = 'submitted' AND verify_expires > ?4", 4, v,
		   names, row, e);
}

static long long row_seq(const json_t *row)
{
	return (long long)json_integer_value(json_object_get(row, "seq"));
}

/* The verified row moves on (its state into row); the token is spent whatever it moves to. */
static int verified(struct ledger_db *s, const struct ledger_verify *v, json_t *row, struct err *e)
{
	char seqs[24];
	const char *up[] = { seqs, v->upload_hash, v->upload_expires };
	int files = v->upload_hash &&
		    v->files_due(json_string_value(json_object_get(row, "payload")), v->arg);

	seq_text(row_seq(row), seqs);
	json_object_set_new(row, "state", json_string(files ? "awaiting_upload" : "queued"));
	if (!files)
		return run(s, "UPDATE queue SET state = 'queued', verify_hash = NULL, "
			      "verify_expires = NULL WHERE seq = CAST(?1 AS INTEGER) AND "
			      "state = 'submitted'", 1, up, e);
	return run(s, "UPDATE queue SET state = 'awaiting_upload', verify_hash = NULL, "
		      "verify_expires = NULL, upload_hash = ?2, upload_expires = ?3 "
		      "WHERE seq = CAST(?1 AS INTEGER) AND state = 'submitted'", 3, up, e);
}

static int sql_queue_verify(struct ledger *l, const struct ledger_verify *v, const char *now,
			     json_t **row, struct err *e)
{
	struct ledger_db *s = l->impl;
	int found;

	if (begin(s, e) != 0)
		return -1;
	found = submitted_row(s, v->user_id, v->type_id, v->verify_hash, now, row, e);
	if (found == 1 && verified(s, v, *row, e) != 0)
		found = -1;
	if (end(s, found < 0 ? -1 : 0, e) != 0 || found < 0) {
		json_decref(*row);
		*row = NULL;
		return -1;
	}
	return found;
}

static int pending_row(struct ledger_db *s, const char *user, const char *type, const char *hash,
		       const char *now, json_t **row, struct err *e)
{
	static const char *const names[] = { "seq", "payload", NULL };
	const char *v[] = { user, type, hash, now };

	return one(s, "SELECT seq, payload FROM queue WHERE user_id = ?1 AND type_id = ?2 AND "
		      "upload_hash = ?3 AND state = 'awaiting_upload' AND upload_expires > ?4", 4, v,
		   names, row, e);
}

static int sql_upload_pending(struct ledger *l, const char *user, const char *type,
			       const char *upload_hash, const char *now, json_t **row,
			       struct err *e)
{
	struct ledger_db *s = l->impl;
	int rc;

	db_lock(s);
	rc = pending_row(s, user, type, upload_hash, now, row, e);
	db_unlock(s);
	return rc;
}

static int complete(struct ledger_db *s, const struct ledger_upload *u, long long seq, const char *now,
		    struct err *e)
{
	char seqs[24];
	const char *v[] = { u->payload, seqs };
	int rc = 0;

	seq_text(seq, seqs);
	for (size_t i = 0; rc == 0 && i < u->nattachments; i++)
		rc = add_attachment(s, u->user_id, seq, &u->attachments[i], now, e);
	if (rc == 0)
		rc = run(s, "UPDATE queue SET state = 'queued', payload = ?1, upload_hash = NULL, "
			    "upload_expires = NULL WHERE seq = CAST(?2 AS INTEGER) AND "
			    "state = 'awaiting_upload'", 2, v, e);
	return rc;
}

static int sql_upload_complete(struct ledger *l, const struct ledger_upload *u, const char *now,
				long long *seq, struct err *e)
{
	struct ledger_db *s = l->impl;
	json_t *row = NULL;
	int found;

	*seq = 0;
	if (begin(s, e) != 0)
		return -1;
	found = pending_row(s, u->user_id, u->type_id, u->upload_hash, now, &row, e);
	if (found == 1) {
		*seq = row_seq(row);
		if (complete(s, u, *seq, now, e) != 0)
			found = -1;
	}
	json_decref(row);
	if (end(s, found < 0 ? -1 : 0, e) != 0)
		return -1;
	return found;
}

static int sql_upload_budget(struct ledger *l, const char *ip_hash, const char *day,
			      long long bytes, long long cap, struct err *e)
{
	struct ledger_db *s = l->impl;
	char n[24];
	const char *v[] = { day, ip_hash, n };
	long long today;
	int rc, fits = 0;

	seq_text(bytes, n);
	if (begin(s, e) != 0)
		return -1;
	rc = scalar(s, "SELECT COALESCE(SUM(bytes), 0) FROM upload_budget WHERE day = ?1 AND "
		       "ip_hash = ?2", 2, v, &today, e);
	if (rc == 0 && (fits = today <= cap - bytes))
		rc = run(s, "INSERT INTO upload_budget (day, ip_hash, bytes) VALUES (?1, ?2, "
			    "CAST(?3 AS INTEGER)) ON CONFLICT (day, ip_hash) DO UPDATE SET "
			    "bytes = upload_budget.bytes + excluded.bytes", 3, v, e);
	if (end(s, rc, e) != 0)
		return -1;
	return fits;
}

/* ---- bookings ---------------------------------------------------------------------------------- */

/* A booking row is live when confirmed, or held and the hold not yet expired (?3: now). */
#define LIVE(t) "(" t "state = 'confirmed' OR (" t "state = 'held' AND " t "hold_expires > ?3))"

static int sql_booking_blocking(struct ledger *l, const char *user, const char *instrument,
				 const char *now, json_t **out, struct err *e)
{
	static const char *const names[] = { "start", "end", NULL };
	struct ledger_db *s = l->impl;
	const char *v[] = { user, instrument, now };
	int rc;

	db_lock(s);
	rc = rows(s, "SELECT slot_start, slot_end FROM bookings WHERE user_id = ?1 AND "
		     "instrument_id = ?2 AND " LIVE(""), 3, v, names, out, e);
	db_unlock(s);
	return rc;
}

/* 1 when the stranger (by address, and by client address) may take one more hold. */
static int holds_left(struct ledger_db *s, const struct ledger_hold *h, const char *now, struct err *e)
{
	const char *v[] = { h->sub.user_id, h->sub.recipient_hash, now,
			    h->sub.ip_hash ? h->sub.ip_hash : "" };
	long long by_address, by_ip = 0;

	if (scalar(s, "SELECT COUNT(*) FROM bookings WHERE user_id = ?1 AND recipient_hash = ?2 "
		      "AND state = 'held' AND hold_expires > ?3", 3, v, &by_address, e) != 0)
		return -1;
	if (h->sub.ip_hash &&
	    scalar(s, "SELECT COUNT(*) FROM bookings WHERE user_id = ?1 AND ip_hash = ?4 AND "
		      "state = 'held' AND hold_expires > ?3", 4, v, &by_ip, e) != 0)
		return -1;
	return by_address < h->max_holds && by_ip < h->max_holds;
}

/*
 * The hold itself: one statement, decided by the database. The driver's
 * begin makes writers take turns (SQLite: BEGIN IMMEDIATE; PostgreSQL: the
 * ledger's advisory lock, across every box process on the database), so two
 * racing holds cannot both see no overlap. Without it, PostgreSQL's READ
 * COMMITTED would let both land.
 */
static int insert_hold(struct ledger_db *s, const struct ledger_hold *h, const char *now,
		       struct err *e)
{
	char mins[24];
	const char *v[] = { h->booking_id, h->sub.user_id, now, h->sub.type_id, h->slot_start,
			    h->slot_end, mins, h->hold_expires, h->sub.recipient_hash,
			    h->sub.ip_hash };

	seq_text(h->duration_minutes, mins);
	if (run(s, "INSERT INTO bookings (id, user_id, instrument_id, slot_start, slot_end, "
		   "duration_minutes, state, hold_expires, ics_sequence, created_at, recipient_hash, "
		   "ip_hash) SELECT ?1, ?2, ?4, ?5, ?6, CAST(?7 AS INTEGER), 'held', ?8, 0, ?3, ?9, "
		   "?10 WHERE NOT EXISTS (SELECT 1 FROM bookings WHERE user_id = ?2 AND "
		   "instrument_id = ?4 AND slot_start < ?6 AND ?5 < slot_end AND " LIVE("") ")",
		10, v, e) != 0)
		return -1;
	return s->changes == 1;
}

/* Inside the hold's transaction, once the budgets and the cap allow it. */
static int hold(struct ledger_db *s, const struct ledger_hold *h, const char *now, long long *seq,
		struct err *e)
{
	char seqs[24];
	const char *v[] = { seqs, h->booking_id };
	int held = insert_hold(s, h, now, e);

	if (held != 1)
		return held < 0 ? -1 : LEDGER_HOLD_TAKEN;
	if (insert_submitted(s, &h->sub, now, seq, e) != 0)
		return -1;
	seq_text(*seq, seqs);
	if (run(s, "UPDATE bookings SET queue_seq = CAST(?1 AS INTEGER) WHERE id = ?2", 2, v,
		e) != 0)
		return -1;
	return LEDGER_HOLD_HELD;
}

static int sql_booking_hold(struct ledger *l, const struct ledger_hold *h, const char *now,
			     long long *seq, struct err *e)
{
	struct ledger_db *s = l->impl;
	int rc;

	*seq = 0;
	if (begin(s, e) != 0)
		return -1;
	rc = within_budget(s, &h->sub, e);
	if (rc == 0)
		rc = LEDGER_HOLD_OVER_BUDGET;
	else if (rc == 1 && (rc = holds_left(s, h, now, e)) == 0)
		rc = LEDGER_HOLD_TOO_MANY;
	else if (rc == 1)
		rc = hold(s, h, now, seq, e);
	if (end(s, rc < 0 ? -1 : 0, e) != 0)
		return -1;
	return rc;
}

/* The payload text with `_manage_url` added; NULL when it is not a JSON object. */
static char *with_manage_url(const char *payload, const char *url)
{
	json_t *o = json_loads(payload, 0, NULL);
	char *text = NULL;

	if (json_is_object(o)) {
		json_object_set_new(o, "_manage_url", json_string(url));
		text = jsonio_compact(o);
	}
	json_decref(o);
	return text;
}

/* The held booking of the row seq confirmed (held, unexpired, nothing else live overlaps). */
static int confirm_hold(struct ledger_db *s, const struct ledger_confirm *c, const char *seqs,
			const char *now, struct err *e)
{
	const char *v[] = { c->user_id, seqs, now, c->manage_hash };

	if (run(s, "UPDATE bookings SET state = 'confirmed', confirmed_at = ?3, manage_hash = ?4, "
		   "hold_expires = NULL WHERE user_id = ?1 AND queue_seq = CAST(?2 AS INTEGER) AND "
		   "state = 'held' AND hold_expires > ?3 AND NOT EXISTS (SELECT 1 FROM bookings b2 "
		   "WHERE b2.user_id = bookings.user_id AND b2.instrument_id = bookings.instrument_id "
		   "AND b2.id <> bookings.id AND b2.slot_start < bookings.slot_end AND "
		   "bookings.slot_start < b2.slot_end AND " LIVE("b2.") ")", 4, v, e) != 0)
		return -1;
	return s->changes == 1;
}

/* Booked: the row queued with its manage link; *row gains the new payload and the slot. */
static int booked(struct ledger_db *s, const struct ledger_confirm *c, const char *seqs, json_t *row,
		  struct err *e)
{
	static const char *const names[] = { "slot_start", "slot_end", NULL };
	char *payload = with_manage_url(json_string_value(json_object_get(row, "payload")),
					c->manage_url);
	const char *v[] = { payload, seqs, c->user_id };
	json_t *slot = NULL;
	int rc;

	if (!payload)
		return err_set(e, ERR_LEDGER, "%s: queue row %s: its payload is not a JSON object",
			       s->name, seqs);
	rc = run(s, "UPDATE queue SET state = 'queued', payload = ?1 WHERE seq = "
		    "CAST(?2 AS INTEGER) AND state = 'finalizing'", 2, v, e);
	if (rc == 0 && one(s, "SELECT slot_start, slot_end FROM bookings WHERE user_id = ?3 AND "
			      "queue_seq = CAST(?2 AS INTEGER)", 3, v, names, &slot, e) != 1)
		rc = -1;
	if (rc == 0) {
		json_object_set_new(row, "payload", json_string(payload));
		json_object_update(row, slot);
	}
	json_decref(slot);
	free(payload);
	return rc;
}

static int finalize(struct ledger_db *s, const struct ledger_confirm *c, json_t *row, const char *now,
		    struct err *e)
{
	char seqs[24];
	const char *v[] = { seqs };
	int ok;

	seq_text(row_seq(row), seqs);
	if (run(s, "UPDATE queue SET state = 'finalizing', verify_hash = NULL, verify_expires = "
		   "NULL WHERE seq = CAST(?1 AS INTEGER) AND state = 'submitted'", 1, v, e) != 0 ||
	    (ok = confirm_hold(s, c, seqs, now, e)) < 0)
		return -1;
	if (ok)
		return booked(s, c, seqs, row, e) == 0 ? LEDGER_CONFIRM_BOOKED : -1;
	if (run(s, "DELETE FROM queue WHERE seq = CAST(?1 AS INTEGER)", 1, v, e) != 0)
		return -1;
	return LEDGER_CONFIRM_LAPSED;
}

static int sql_booking_confirm(struct ledger *l, const struct ledger_confirm *c, const char *now,
				json_t **row, struct err *e)
{
	struct ledger_db *s = l->impl;
	int rc;

	*row = NULL;
	if (begin(s, e) != 0)
		return -1;
	rc = submitted_row(s, c->user_id, c->type_id, c->verify_hash, now, row, e);
	if (rc == 1)
		rc = finalize(s, c, *row, now, e);
	else if (rc == 0)
		rc = LEDGER_CONFIRM_DEAD;
	if (end(s, rc < 0 ? -1 : 0, e) != 0)
		rc = -1;
	if (rc != LEDGER_CONFIRM_BOOKED) {
		json_decref(*row);
		*row = NULL;
	}
	return rc;
}

static int sql_booking_get(struct ledger *l, const char *user, const char *instrument,
			    const char *manage_hash, json_t **row, struct err *e)
{
	static const char *const names[] = { "id", "state", "slot_start", "slot_end", NULL };
	struct ledger_db *s = l->impl;
	const char *v[] = { user, instrument, manage_hash };

	return read_one(s, "SELECT id, state, slot_start, slot_end FROM bookings WHERE user_id = ?1 AND "
			"instrument_id = ?2 AND manage_hash = ?3", 3, v, names, row, e);
}

static int sql_booking_cancel(struct ledger *l, const char *manage_hash,
			       const struct ledger_queued *q, const char *now, long long *seq,
			       struct err *e)
{
	struct ledger_db *s = l->impl;
	const char *v[] = { q->user_id, q->type_id, manage_hash, now };
	int rc, cancelled = 0;

	*seq = 0;
	if (begin(s, e) != 0)
		return -1;
	rc = run(s, "UPDATE bookings SET state = 'cancelled_by_booker', cancelled_at = ?4 WHERE "
		    "user_id = ?1 AND instrument_id = ?2 AND manage_hash = ?3 AND "
		    "state = 'confirmed'", 4, v, e);
	if (rc == 0 && (cancelled = s->changes == 1))
		rc = insert_queued(s, q, now, seq, e);
	if (end(s, rc, e) != 0)
		return -1;
	return cancelled;
}

static int sql_booking_decline(struct ledger *l, const char *user, const char *booking_id,
			       const char *now, struct err *e)
{
	struct ledger_db *s = l->impl;
	const char *v[] = { user, booking_id, now };
	int rc;

	if (begin(s, e) != 0)
		return -1;
	rc = run(s, "UPDATE bookings SET state = 'declined_by_owner', cancelled_at = ?3 WHERE "
		    "user_id = ?1 AND id = ?2 AND state = 'confirmed'", 3, v, e);
	if (end(s, rc, e) != 0)
		return -1;
	return s->changes == 1;
}

/* ---- the sweep ------------------------------------------------------------------------- */

/* Deletes the rows the condition picks, with their attachment rows (ids into blobs). */
static int sweep_rows(struct ledger_db *s, const char *cond, const char *now, long long *count,
		      json_t *blobs, struct err *e)
{
	static const char *const names[] = { "user_id", "id", NULL };
	char *sel = xasprintf("SELECT a.user_id, a.id FROM attachments a JOIN queue q ON "
			      "q.seq = a.seq AND q.user_id = a.user_id WHERE %s", cond);
	char *dela = xasprintf("DELETE FROM attachments WHERE EXISTS (SELECT 1 FROM queue q WHERE "
			       "q.seq = attachments.seq AND q.user_id = attachments.user_id AND %s)",
			       cond);
	char *delq = xasprintf("DELETE FROM queue AS q WHERE %s", cond);
	json_t *ids = NULL;
	int rc = rows(s, sel, 1, &now, names, &ids, e);

	if (rc == 0)
		json_array_extend(blobs, ids);
	if (rc == 0)
		rc = run(s, dela, 1, &now, e);
	if (rc == 0)
		rc = run(s, delq, 1, &now, e);
	if (rc == 0)
		*count = s->changes;
	json_decref(ids);
	free(sel);
	free(dela);
	free(delq);
	return rc;
}

static int sql_sweep(struct ledger *l, const char *now, const char *budget_before,
		      struct ledger_sweep *r, json_t **blobs, struct err *e)
{
	struct ledger_db *s = l->impl;
	int rc;

	memset(r, 0, sizeof *r);
	*blobs = json_array();
	if (begin(s, e) != 0)
		return -1;
	rc = sweep_rows(s, "q.state = 'submitted' AND q.verify_expires < ?1", now,
			&r->expired_submissions, *blobs, e);
	if (rc == 0)
		rc = sweep_rows(s, "q.state = 'awaiting_upload' AND q.upload_expires < ?1", now,
				&r->expired_uploads, *blobs, e);
	r->attachment_rows = (long long)json_array_size(*blobs);
	if (rc == 0)
		rc = run(s, "DELETE FROM upload_budget WHERE day < ?1", 1, &budget_before, e);
	if (rc == 0) {
		r->budget_rows = s->changes;
		rc = run(s, "DELETE FROM sends WHERE day < ?1", 1, &budget_before, e);
	}
	if (rc == 0) {
		r->budget_rows += s->changes;
		rc = scalar(s, "SELECT COUNT(*) FROM queue WHERE state = 'queued' AND retain_until "
			       "IS NOT NULL AND retain_until < ?1", 1, &now, &r->overdue_queued, e);
	}
	if (end(s, rc, e) != 0) {
		json_decref(*blobs);
		*blobs = NULL;
		return -1;
	}
	return 0;
}

static int sql_attachment_ids(struct ledger *l, json_t **ids, struct err *e)
{
	static const char *const names[] = { "k", NULL };
	struct ledger_db *s = l->impl;
	json_t *list, *x;
	size_t i;
	int rc;

	db_lock(s);
	rc = rows(s, "SELECT user_id || '/' || id FROM attachments", 0, NULL, names, &list, e);
	db_unlock(s);
	if (rc != 0)
		return -1;
	*ids = json_object();
	json_array_foreach(list, i, x)
		json_object_set_new(*ids, json_string_value(json_object_get(x, "k")), json_true());
	json_decref(list);
	return 0;
}

/* The two tables differ only in their name and the driver they open with. */
#define LEDGER_SQL_OPS(backend, opener) \
	{ \
		.name = (backend), .open = (opener), \
		.close = sql_close, \
		.user_add = sql_user_add, \
		.user_get = sql_user_get, \
		.key_add = sql_key_add, \
		.key_get = sql_key_get, \
		.key_touch = sql_key_touch, \
		.key_revoke = sql_key_revoke, \
		.type_put = sql_type_put, \
		.type_get = sql_type_get, \
		.type_list = sql_type_list, \
		.slots_put = sql_slots_put, \
		.slots_get = sql_slots_get, \
		.queue_add = sql_queue_add, \
		.queue_submit = sql_queue_submit, \
		.queue_list = sql_queue_list, \
		.queue_latest = sql_queue_latest, \
		.queue_ack = sql_queue_ack, \
		.attachment_get = sql_attachment_get, \
		.queue_counts = sql_queue_counts, \
		.sweep = sql_sweep, \
		.attachment_ids = sql_attachment_ids, \
		.queue_verify = sql_queue_verify, \
		.upload_pending = sql_upload_pending, \
		.upload_complete = sql_upload_complete, \
		.upload_budget = sql_upload_budget, \
		.booking_blocking = sql_booking_blocking, \
		.booking_hold = sql_booking_hold, \
		.booking_confirm = sql_booking_confirm, \
		.booking_get = sql_booking_get, \
		.booking_cancel = sql_booking_cancel, \
		.booking_decline = sql_booking_decline, \
	}

const struct ledger_ops ledger_sqlite_ops = LEDGER_SQL_OPS("sqlite", sqlite_open);
const struct ledger_ops ledger_pg_ops = LEDGER_SQL_OPS("postgresql", pg_open);
