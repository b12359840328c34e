/*
 * ledger_sql — the box's transactions, written once over a driver
 * (ledger_db.h): every function of struct ledger_ops except opening, for
 * SQLite and PostgreSQL alike.
 *
 * Each change is one BEGIN … COMMIT under the connection's lock. No
 * transaction decides by reading and then writing what it read: each
 * decision is a write whose result says who won, so two processes decide as
 * two threads would — on SQLite because BEGIN IMMEDIATE makes writers take
 * turns anyway, on PostgreSQL (where nothing makes them take turns, and
 * strangers of different owners, forms and slots never wait on each other)
 * because the database refuses the loser:
 *   - a slot hold is an INSERT … ON CONFLICT DO NOTHING that the exclusion
 *     constraint of ledger_pg.c (and, on SQLite, its NOT EXISTS) lets land
 *     once per time;
 *   - budgets and caps are counter rows, upserted with RETURNING in the
 *     transaction that spends them, rolled back when over;
 *   - a state change is an UPDATE … WHERE state = the old one; its row count
 *     is the answer (a second click that raced the first finds nothing).
 * A transaction the database refused for a conflict (db->conflict: a
 * deadlock between two such row locks) is run again from its start, at most
 * LEDGER_TRIES times.
 */
#include "box/ledger.h"
#include "box/ledger_db.h"

#include "base/buf.h"
#include "base/err.h"
#include "base/jsonio.h"

#include <stdlib.h>
#include <string.h>

/* ---- plumbing ------------------------------------------------------------------ */

/*
 * Sessions: with a per_thread driver every thread that uses the ledger gets a
 * connection of its own, made on its first use and kept until ledger_close
 * (the box's threads live as long as it does), so a request waiting on the
 * database keeps only itself waiting. l->impl stays the first connection (the
 * opener's): a thread that cannot connect falls back on it, as does any code
 * that takes l->impl directly; its lock makes that safe, only slower.
 */
struct ledger_sessions {
	pthread_key_t key; /* this thread's struct ledger_db */
	pthread_mutex_t lock;
	char *where;
	struct ledger_db **all;
	size_t n;
};

static struct ledger_db *session_new(struct ledger_db *first)
{
	struct ledger_sessions *ss = first->sessions;
	struct ledger_db *s = xcalloc(1, sizeof *s);
	struct err ignored;

	s->drv = first->drv;
	pthread_mutex_init(&s->lock, NULL);
	if (s->drv->connect(s, ss->where, &ignored) != 0) {
		s->drv->disconnect(s);
		pthread_mutex_destroy(&s->lock);
		free(s->name);
		free(s);
		return NULL;
	}
	pthread_mutex_lock(&ss->lock);
	/* NOLINTNEXTLINE(bugprone-sizeof-expression): an array of pointers */
	ss->all = xrealloc(ss->all, (ss->n + 1) * sizeof *ss->all);
	ss->all[ss->n++] = s;
	pthread_mutex_unlock(&ss->lock);
	pthread_setspecific(ss->key, s);
	return s;
}

/* The calling thread's connection to l. */
static struct ledger_db *session(struct ledger *l)
{
	struct ledger_db *first = l->impl, *s;

	if (!first->sessions)
		return first;
	s = pthread_getspecific(first->sessions->key);
	if (!s)
		s = session_new(first);
	return s ? s : first;
}

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

/* A transaction given up on purpose (a budget spent, a slot taken): nothing it wrote stays. */
static void abandon(struct ledger_db *s)
{
	struct err ignored;

	s->drv->exec(s, "ROLLBACK", &ignored);
	db_unlock(s);
}

/* How many times a transaction refused for a conflict is tried in all. */
#define LEDGER_TRIES 4

/* 1 when the attempt that returned rc may be made again (see db->conflict). */
static int again(const struct ledger_db *s, int rc, int *tries)
{
	return rc < 0 && s->conflict && ++*tries < LEDGER_TRIES;
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
	if (drv->connect(s, where, e) != 0)
		return -1;
	if (drv->per_thread) {
		s->sessions = xcalloc(1, sizeof *s->sessions);
		if (pthread_key_create(&s->sessions->key, NULL) != 0) {
			free(s->sessions);
			s->sessions = NULL;
			return 0; /* one connection for every thread: slower, still right */
		}
		pthread_mutex_init(&s->sessions->lock, NULL);
		s->sessions->where = xstrdup(where);
		pthread_setspecific(s->sessions->key, s);
	}
	return 0;
}

static void sessions_close(struct ledger_sessions *ss)
{
	for (size_t i = 0; i < ss->n; i++) {
		struct ledger_db *s = ss->all[i];
		s->drv->disconnect(s);
		pthread_mutex_destroy(&s->lock);
		free(s->name);
		free(s);
	}
	pthread_key_delete(ss->key);
	pthread_mutex_destroy(&ss->lock);
	free(ss->all);
	free(ss->where);
	free(ss);
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
	if (s->sessions)
		sessions_close(s->sessions);
	s->drv->disconnect(s);
	pthread_mutex_destroy(&s->lock);
	free(s->name);
	free(s);
	l->impl = NULL;
}

static int sql_stamp(struct ledger *l, struct ledger_stamp *out, struct err *e)
{
	struct ledger_db *s = session(l);
	long long v[2];
	int rc;

	if (!s->drv->stamp)
		return 0;
	db_lock(s);
	rc = s->drv->stamp(s, v, e);
	db_unlock(s);
	if (rc == 1)
		*out = (struct ledger_stamp){ v[0], v[1] };
	return rc;
}

/* ---- users and keys ---------------------------------------------------------------- */

static int sql_user_add(struct ledger *l, const struct ledger_user *u, const char *now,
			 struct err *e)
{
	struct ledger_db *s = session(l);
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
		rc = run(s, "INSERT INTO users (id, handle, status, created_at) VALUES (?1, ?2, ?3, ?4) "
			    "ON CONFLICT DO NOTHING", 4, v, e);
	if (rc == 0 && s->changes == 0) /* another box added it since the COUNT */
		rc = err_set(e, ERR_HANDLE_TAKEN, "the box already has an owner called %s",
			     u->handle);
	return end(s, rc, e);
}

static int sql_user_get(struct ledger *l, const char *handle, const char *id,
			 struct ledger_user *out, struct err *e)
{
	static const char *const names[] = { "id", "handle", "status", "send_budget", NULL };
	struct ledger_db *s = session(l);
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
	struct ledger_db *s = session(l);
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
	struct ledger_db *s = session(l);
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
	struct ledger_db *s = session(l);
	const char *v[] = { now, id };
	struct err ignored;

	db_lock(s);
	run(s, "UPDATE keys SET last_used_at = ?1 WHERE id = ?2", 2, v, &ignored);
	db_unlock(s);
}

static int sql_key_revoke(struct ledger *l, const char *id, const char *now, struct err *e)
{
	struct ledger_db *s = session(l);
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
	struct ledger_db *s = session(l);
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
	struct ledger_db *s = session(l);
	const char *v[] = { user, id };

	return read_one(s, "SELECT id, title, updated_at, manifest, schema FROM types "
			"WHERE user_id = ?1 AND id = ?2", 2, v, names, row, e);
}

static int sql_type_list(struct ledger *l, const char *user, json_t **out, struct err *e)
{
	static const char *const names[] = { "id", "title", "updated_at", NULL };
	struct ledger_db *s = session(l);
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
	struct ledger_db *s = session(l);
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
	struct ledger_db *s = session(l);
	const char *v[] = { user, instrument };

	return read_one(s, "SELECT generated_at, horizon_days, slots, received_at FROM slot_cache "
			"WHERE user_id = ?1 AND instrument_id = ?2", 2, v, names, row, e);
}

/* ---- the queue ------------------------------------------------------------------------- */

/* Inside a transaction: one part of the attachment id's bytes. */
static int put_part(struct ledger_db *s, const char *id, long long n, const char *p, size_t len,
		    struct err *e)
{
	char ns[24];
	const char *v[] = { id, ns };

	snprintf(ns, sizeof ns, "%lld", n);
	return s->drv->put_bytes(s, "INSERT INTO attachment_parts (id, n, bytes) VALUES "
				    "(?1, CAST(?2 AS INTEGER), ?3)", 2, v, p, len, e);
}

/* Inside a transaction: len bytes as the parts of the attachment id. */
static int put_parts(struct ledger_db *s, const char *id, const char *p, size_t len,
		     struct err *e)
{
	for (size_t off = 0, n = 0; off < len; off += LEDGER_PART, n++)
		if (put_part(s, id, (long long)n, p + off,
			     len - off < LEDGER_PART ? len - off : LEDGER_PART, e) != 0)
			return -1;
	return 0;
}

/* Inside a transaction: the spooled parts of a become its parts, every one of them there
 * (a spool the sweep took from under a stalled upload is refused, not stored short). */
static int unspool(struct ledger_db *s, const struct ledger_attachment *a, struct err *e)
{
	long long want = (a->size + LEDGER_PART - 1) / LEDGER_PART;

	if (run(s, "INSERT INTO attachment_parts (id, n, bytes) SELECT id, n, bytes FROM "
		   "upload_spool WHERE id = ?1", 1, &a->id, e) != 0)
		return -1;
	if (s->changes != want)
		return err_set(e, ERR_LEDGER, "%s: the upload's spool holds %lld of its %lld parts",
			       s->name, s->changes, want);
	return run(s, "DELETE FROM upload_spool WHERE id = ?1", 1, &a->id, e);
}

static int add_attachment(struct ledger_db *s, const char *user, long long seq,
			  const struct ledger_attachment *a, const char *now, struct err *e)
{
	char seqs[24], size[24];
	const char *v[] = { a->id, user, seqs, a->field, a->filename, a->content_type, size,
			    a->sha256, now };

	snprintf(seqs, sizeof seqs, "%lld", seq);
	snprintf(size, sizeof size, "%lld", a->size);
	if (run(s, "INSERT INTO attachments (id, user_id, seq, field, filename, content_type, "
		   "size, sha256, created_at) VALUES (?1, ?2, CAST(?3 AS INTEGER), ?4, ?5, ?6, "
		   "CAST(?7 AS INTEGER), ?8, ?9)", 9, v, e) != 0)
		return -1;
	if (a->spooled)
		return unspool(s, a, e);
	return a->data ? put_parts(s, a->id, a->data, (size_t)a->size, e) : 0;
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
	struct ledger_db *s = session(l);

	if (begin(s, e) != 0)
		return -1;
	return end(s, insert_queued(s, q, now, seq, e), e);
}

/* Inside a transaction: the submitted row (count_send counts what it costs). */
static int insert_submitted(struct ledger_db *s, const struct ledger_submission *sub, const char *now,
			    long long *seq, struct err *e)
{
	const char *v[] = { sub->user_id, sub->type_id, sub->payload, now, sub->retain_until,
			    sub->verify_hash, sub->verify_expires, sub->recipient_hash, sub->day };

	return scalar(s, "INSERT INTO queue (user_id, type_id, state, payload, created_at, "
			 "retain_until, verify_hash, verify_expires, recipient_hash, submitted_on) "
			 "VALUES (?1, ?2, 'submitted', ?3, ?4, ?5, ?6, ?7, ?8, ?9) RETURNING seq", 9,
		      v, seq, e);
}

/* One counter row of send_counts up by one; *n its new value. */
static int count_one(struct ledger_db *s, const char *user, const char *day, const char *who,
		     long long *n, struct err *e)
{
	const char *v[] = { user, day, who };

	return scalar(s, "INSERT INTO send_counts (user_id, day, recipient_hash, n) VALUES "
			 "(?1, ?2, ?3, 1) ON CONFLICT (user_id, day, recipient_hash) DO UPDATE SET "
			 "n = send_counts.n + 1 RETURNING n", 3, v, n, e);
}

/*
 * Inside the submission's transaction, as late in it as may be (the counter
 * rows' locks are held until its commit): the send it costs counted, to the
 * address and by the owner. 1 when both counts are within today's budgets,
 * 0 when one is over (the caller rolls back: nothing is counted), -1.
 */
static int count_send(struct ledger_db *s, const struct ledger_submission *sub, struct err *e)
{
	long long to_them, by_owner, budget;

	if (count_one(s, sub->user_id, sub->day, sub->recipient_hash, &to_them, e) != 0 ||
	    count_one(s, sub->user_id, sub->day, "*", &by_owner, e) != 0 ||
	    scalar(s, "SELECT send_budget FROM users WHERE id = ?1", 1, &sub->user_id, &budget,
		   e) != 0)
		return -1;
	return to_them <= sub->per_recipient && by_owner <= budget;
}

static int sql_queue_submit(struct ledger *l, const struct ledger_submission *sub,
			     const char *now, long long *seq, struct err *e)
{
	struct ledger_db *s = session(l);
	int rc, fits = -1, tries = 0;

	do {
		*seq = 0;
		if (begin(s, e) != 0)
			return -1;
		rc = insert_submitted(s, sub, now, seq, e);
		if (rc == 0 && (fits = count_send(s, sub, e)) == 0) {
			abandon(s);
			*seq = 0;
			return 0;
		}
		rc = end(s, rc == 0 && fits == 1 ? 0 : -1, e);
	} while (again(s, rc, &tries));
	return rc == 0 ? 1 : -1;
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
	struct ledger_db *s = session(l);
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
	struct ledger_db *s = session(l);
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
	if (run(s, "DELETE FROM attachment_parts WHERE id IN (SELECT id FROM attachments WHERE "
		   "user_id = ?1 AND seq = CAST(?2 AS INTEGER))", 2, v, e) != 0 ||
	    run(s, "DELETE FROM attachments WHERE user_id = ?1 AND seq = CAST(?2 AS INTEGER)", 2, v,
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
	struct ledger_db *s = session(l);
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
					     "content_type", "parts", NULL };
	struct ledger_db *s = session(l);
	const char *v[] = { user, id };

	return read_one(s, "SELECT id, seq, field, filename, size, sha256, content_type, (SELECT "
			"COUNT(*) FROM attachment_parts p WHERE p.id = attachments.id) FROM "
			"attachments WHERE user_id = ?1 AND id = ?2", 2, v, names, row, e);
}

static int sql_queue_counts(struct ledger *l, const char *user, const char *now,
			     long long *queued, long long *overdue, struct err *e)
{
	struct ledger_db *s = session(l);
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

/*
 * The link whose token hashes to hash, spent on the row seqs with outcome, is
 * kept for its page (ledger.h, link_get) in the transaction that spends it.
 */
static int spend(struct ledger_db *s, const char *hash, const char *kind, const char *user,
		 const char *type, const char *seqs, const char *outcome, const char *now,
		 struct err *e)
{
	const char *v[] = { hash, kind, user, type, seqs, outcome, now };

	return run(s, "INSERT INTO spent_links (token_hash, kind, user_id, type_id, seq, outcome, "
		      "spent_at) VALUES (?1, ?2, ?3, ?4, CAST(?5 AS INTEGER), ?6, ?7)", 7, v, e);
}

/* The verified row moves on (its state into row); the token is spent whatever it moves to. */
static int verified(struct ledger_db *s, const struct ledger_verify *v, json_t *row,
		    const char *now, struct err *e)
{
	char seqs[24];
	const char *up[] = { seqs, v->upload_hash, v->upload_expires };
	int files = v->upload_hash &&
		    v->files_due(json_string_value(json_object_get(row, "payload")), v->arg);

	seq_text(row_seq(row), seqs);
	json_object_set_new(row, "state", json_string(files ? "awaiting_upload" : "queued"));
	if (run(s, files ? "UPDATE queue SET state = 'awaiting_upload', verify_hash = NULL, "
			   "verify_expires = NULL, upload_hash = ?2, upload_expires = ?3 "
			   "WHERE seq = CAST(?1 AS INTEGER) AND state = 'submitted'"
			 : "UPDATE queue SET state = 'queued', verify_hash = NULL, "
			   "verify_expires = NULL WHERE seq = CAST(?1 AS INTEGER) AND "
			   "state = 'submitted'", files ? 3 : 1, up, e) != 0)
		return -1;
	if (s->changes != 1) /* a click at another box spent the token first */
		return 0;
	return spend(s, v->verify_hash, LEDGER_LINK_VERIFY, v->user_id, v->type_id, seqs,
		     files ? "awaiting_upload" : "queued", now, e) == 0 ? 1 : -1;
}

static int sql_queue_verify(struct ledger *l, const struct ledger_verify *v, const char *now,
			     json_t **row, struct err *e)
{
	struct ledger_db *s = session(l);
	int found;

	if (begin(s, e) != 0)
		return -1;
	found = submitted_row(s, v->user_id, v->type_id, v->verify_hash, now, row, e);
	if (found == 1)
		found = verified(s, v, *row, now, e);
	if (end(s, found < 0 ? -1 : 0, e) != 0 || found <= 0) {
		json_decref(*row);
		*row = NULL;
		return found == 0 ? 0 : -1;
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
	struct ledger_db *s = session(l);
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
	if (run(s, "UPDATE queue SET state = 'queued', payload = ?1, upload_hash = NULL, "
		   "upload_expires = NULL WHERE seq = CAST(?2 AS INTEGER) AND "
		   "state = 'awaiting_upload'", 2, v, e) != 0)
		return -1;
	if (s->changes != 1) /* another box took these files first */
		return 0;
	for (size_t i = 0; rc == 0 && i < u->nattachments; i++)
		rc = add_attachment(s, u->user_id, seq, &u->attachments[i], now, e);
	if (rc == 0)
		rc = spend(s, u->upload_hash, LEDGER_LINK_UPLOAD, u->user_id, u->type_id, seqs,
			   "uploaded", now, e);
	if (rc == 0) { /* the confirmation link that led here: its request is received now */
		const char *w[] = { u->user_id, seqs };
		rc = run(s, "UPDATE spent_links SET outcome = 'queued' WHERE user_id = ?1 AND "
			    "seq = CAST(?2 AS INTEGER) AND outcome = 'awaiting_upload'", 2, w, e);
	}
	return rc == 0 ? 1 : -1;
}

static int sql_upload_complete(struct ledger *l, const struct ledger_upload *u, const char *now,
				long long *seq, struct err *e)
{
	struct ledger_db *s = session(l);
	json_t *row = NULL;
	int found;

	*seq = 0;
	if (begin(s, e) != 0)
		return -1;
	found = pending_row(s, u->user_id, u->type_id, u->upload_hash, now, &row, e);
	if (found == 1) {
		*seq = row_seq(row);
		if ((found = complete(s, u, *seq, now, e)) != 1)
			*seq = 0;
	}
	json_decref(row);
	if (end(s, found < 0 ? -1 : 0, e) != 0)
		return -1;
	return found;
}

static int sql_upload_budget(struct ledger *l, const char *ip_hash, const char *day,
			      long long bytes, long long cap, struct err *e)
{
	struct ledger_db *s = session(l);
	char n[24];
	const char *v[] = { day, ip_hash, n };
	long long today;
	int rc, tries = 0;

	seq_text(bytes, n);
	do { /* the counter row counts, and its lock makes one address's uploads take turns */
		if (begin(s, e) != 0)
			return -1;
		rc = scalar(s, "INSERT INTO upload_budget (day, ip_hash, bytes) VALUES (?1, ?2, "
			       "CAST(?3 AS INTEGER)) ON CONFLICT (day, ip_hash) DO UPDATE SET "
			       "bytes = upload_budget.bytes + excluded.bytes RETURNING bytes", 3, v,
			    &today, e);
		if (rc == 0 && today > cap) {
			abandon(s); /* over: not counted */
			return 0;
		}
		rc = end(s, rc, e);
	} while (again(s, rc, &tries));
	return rc == 0 ? 1 : -1;
}

static int sql_spool_put(struct ledger *l, const char *id, long long n, const char *bytes,
			 size_t len, const char *now, struct err *e)
{
	struct ledger_db *s = session(l);
	char ns[24];
	const char *v[] = { id, ns, now };
	int rc;

	snprintf(ns, sizeof ns, "%lld", n);
	db_lock(s);
	rc = s->drv->put_bytes(s, "INSERT INTO upload_spool (id, n, created_at, bytes) VALUES "
				  "(?1, CAST(?2 AS INTEGER), ?3, ?4)", 3, v, bytes, len, e);
	db_unlock(s);
	return rc;
}

static int sql_spool_drop(struct ledger *l, const char *id, struct err *e)
{
	struct ledger_db *s = session(l);
	int rc;

	db_lock(s);
	rc = run(s, "DELETE FROM upload_spool WHERE id = ?1", 1, &id, e);
	db_unlock(s);
	return rc;
}

/* ---- bookings ---------------------------------------------------------------------------------- */

/* A booking row is live when confirmed, or held and the hold not yet expired (?3: now). */
#define LIVE(t) "(" t "state = 'confirmed' OR (" t "state = 'held' AND " t "hold_expires > ?3))"

static int sql_booking_blocking(struct ledger *l, const char *user, const char *instrument,
				 const char *now, json_t **out, struct err *e)
{
	static const char *const names[] = { "start", "end", NULL };
	struct ledger_db *s = session(l);
	const char *v[] = { user, instrument, now };
	int rc;

	db_lock(s);
	/* one that ended by now blocks no slot still offered: years of bookings are not read */
	rc = rows(s, "SELECT slot_start, slot_end FROM bookings WHERE user_id = ?1 AND "
		     "instrument_id = ?2 AND slot_end > ?3 AND " LIVE(""), 3, v, names, out, e);
	db_unlock(s);
	return rc;
}

static int sql_booking_lapse(struct ledger *l, const char *user, const char *instrument,
			     const char *now, char **first, struct err *e)
{
	static const char *const names[] = { "t", NULL };
	struct ledger_db *s = session(l);
	const char *v[] = { user, instrument, now };
	json_t *row = NULL;
	const char *t;
	int found;

	db_lock(s);
	found = one(s, "SELECT MIN(hold_expires) FROM bookings WHERE user_id = ?1 AND "
		       "instrument_id = ?2 AND state = 'held' AND hold_expires > ?3", 3, v, names,
		    &row, e);
	db_unlock(s);
	if (found < 0)
		return -1;
	t = found ? json_string_value(json_object_get(row, "t")) : NULL;
	*first = t ? xstrdup(t) : NULL;
	json_decref(row);
	return 0;
}

static int sql_slots_stamp(struct ledger *l, const char *user, const char *instrument,
			   long long *stamp, struct err *e)
{
	struct ledger_db *s = session(l);
	const char *v[] = { user, instrument };
	int rc;

	db_lock(s);
	/* one statement, one snapshot: the sum of the shards as of one moment */
	rc = scalar(s, "SELECT CAST(COALESCE(SUM(n), 0) AS BIGINT) FROM slot_changes WHERE "
		       "user_id = ?1 AND instrument_id = ?2", 2, v, stamp, e);
	db_unlock(s);
	return rc;
}

/* The holder row of one stranger (kind "r" an address, "i" a client address) up by one:
 * its lock, held to the commit, makes that stranger's holds take turns. */
static int holder_turn(struct ledger_db *s, const char *user, const char *kind,
		       const char *hash, const char *now, struct err *e)
{
	char *holder = xasprintf("%s:%s", kind, hash), day[11];
	const char *v[] = { user, holder, day };
	int rc;

	snprintf(day, sizeof day, "%.10s", now);
	rc = run(s, "INSERT INTO holders (user_id, holder, day, holds) VALUES (?1, ?2, ?3, 1) "
		    "ON CONFLICT (user_id, holder) DO UPDATE SET holds = holders.holds + 1, "
		    "day = excluded.day", 3, v, e);
	free(holder);
	return rc;
}

/* 1 when the stranger (by address, and by client address) may take one more hold: their
 * turn taken first, so the count sees every hold of theirs committed before. */
static int holds_left(struct ledger_db *s, const struct ledger_hold *h, const char *now, struct err *e)
{
	const char *v[] = { h->sub.user_id, h->sub.recipient_hash, now,
			    h->sub.ip_hash ? h->sub.ip_hash : "" };
	long long by_address, by_ip = 0;

	if (holder_turn(s, h->sub.user_id, "r", h->sub.recipient_hash, now, e) != 0 ||
	    (h->sub.ip_hash && holder_turn(s, h->sub.user_id, "i", h->sub.ip_hash, now, e) != 0))
		return -1;
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
 * The hold itself: one statement, decided by the database. On SQLite,
 * BEGIN IMMEDIATE makes writers take turns, so the NOT EXISTS sees every hold
 * before it. On PostgreSQL two racing holds can both see no overlap; the
 * exclusion constraint (ledger_pg.c, v3) then makes the second wait for the
 * first's transaction and, once it committed, land on nothing (ON CONFLICT DO
 * NOTHING: no row, so TAKEN). Holds of this time that expired are marked
 * 'lapsed' first, as the constraint counts every row still 'held'.
 */
static int insert_hold(struct ledger_db *s, const struct ledger_hold *h, const char *now,
		       struct err *e)
{
	char mins[24];
	const char *v[] = { h->booking_id, h->sub.user_id, now, h->sub.type_id, h->slot_start,
			    h->slot_end, mins, h->hold_expires, h->sub.recipient_hash,
			    h->sub.ip_hash, h->replaces };

	seq_text(h->duration_minutes, mins);
	if (run(s, "UPDATE bookings SET state = 'lapsed' WHERE user_id = ?2 AND instrument_id = ?4 "
		   "AND state = 'held' AND hold_expires <= ?3 AND slot_start < ?6 AND ?5 < slot_end",
		6, v, e) != 0)
		return -1;
	if (run(s, "INSERT INTO bookings (id, user_id, instrument_id, slot_start, slot_end, "
		   "duration_minutes, state, hold_expires, ics_sequence, created_at, recipient_hash, "
		   "ip_hash, replaces) SELECT ?1, ?2, ?4, ?5, ?6, CAST(?7 AS INTEGER), 'held', ?8, "
		   "0, ?3, ?9, ?10, ?11 WHERE NOT EXISTS (SELECT 1 FROM bookings WHERE user_id = ?2 "
		   "AND instrument_id = ?4 AND slot_start < ?6 AND ?5 < slot_end AND " LIVE("") ") "
		   "ON CONFLICT DO NOTHING", 11, v, e) != 0)
		return -1;
	return s->changes == 1;
}

/* Inside the hold's transaction, once the cap allows it: the hold, the row, then the send
 * counted last (its counters' locks are the most shared: held the shortest). */
static int hold(struct ledger_db *s, const struct ledger_hold *h, const char *now, long long *seq,
		struct err *e)
{
	char seqs[24];
	const char *v[] = { seqs, h->booking_id };
	int held = insert_hold(s, h, now, e), fits;

	if (held != 1)
		return held < 0 ? -1 : LEDGER_HOLD_TAKEN;
	if (insert_submitted(s, &h->sub, now, seq, e) != 0)
		return -1;
	seq_text(*seq, seqs);
	if (run(s, "UPDATE bookings SET queue_seq = CAST(?1 AS INTEGER) WHERE id = ?2", 2, v,
		e) != 0)
		return -1;
	if ((fits = count_send(s, &h->sub, e)) < 0)
		return -1;
	return fits ? LEDGER_HOLD_HELD : LEDGER_HOLD_OVER_BUDGET;
}

/* One attempt at the hold: HELD committed, anything else rolled back, or -1. */
static int try_hold(struct ledger_db *s, const struct ledger_hold *h, const char *now,
		    long long *seq, struct err *e)
{
	int rc;

	*seq = 0;
	if (begin(s, e) != 0)
		return -1;
	if ((rc = holds_left(s, h, now, e)) == 0)
		rc = LEDGER_HOLD_TOO_MANY;
	else if (rc == 1)
		rc = hold(s, h, now, seq, e);
	if (rc == LEDGER_HOLD_HELD)
		return end(s, 0, e) == 0 ? rc : -1;
	*seq = 0;
	if (rc < 0)
		return end(s, -1, e);
	abandon(s);
	return rc;
}

static int sql_booking_hold(struct ledger *l, const struct ledger_hold *h, const char *now,
			     long long *seq, struct err *e)
{
	struct ledger_db *s = session(l);
	int rc, tries = 0;

	do
		rc = try_hold(s, h, now, seq, e);
	while (again(s, rc, &tries));
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

/* A booking's confirmation link spent: kept with the booking it names and its time. */
static int spend_booking(struct ledger_db *s, const struct ledger_confirm *c, const char *seqs,
			 const char *outcome, const char *now, struct err *e)
{
	const char *v[] = { c->verify_hash, c->user_id, seqs, outcome, now };

	return run(s, "INSERT INTO spent_links (token_hash, kind, user_id, type_id, seq, outcome, "
		      "booking_id, slot_start, slot_end, spent_at) SELECT CAST(?1 AS TEXT), "
		      "'" LEDGER_LINK_VERIFY "', user_id, instrument_id, queue_seq, CAST(?4 AS TEXT), "
		      "id, slot_start, slot_end, CAST(?5 AS TEXT) FROM bookings WHERE user_id = ?2 AND "
		      "queue_seq = CAST(?3 AS INTEGER)", 5, v, e);
}

/*
 * A reschedule's confirm (box-pages.md §3.5), after its hold is confirmed: the
 * booking it replaces, if it is one, moves from confirmed to 'rescheduled' —
 * its time blocks nothing any more — and *row gains that booking's slot as
 * from_start/from_end. 1 moved (or nothing to move), 0 that booking is no
 * longer confirmed: the new hold then lapses too, so nothing is booked.
 */
static int move_replaced(struct ledger_db *s, const struct ledger_confirm *c, const char *seqs,
			 const char *now, json_t *row, struct err *e)
{
	static const char *const names[] = { "replaces", NULL };
	static const char *const slot[] = { "from_start", "from_end", NULL };
	json_t *hold = NULL, *from = NULL;
	const char *v[] = { c->user_id, seqs, now, NULL };
	int rc;

	if (one(s, "SELECT replaces FROM bookings WHERE user_id = ?1 AND queue_seq = "
		   "CAST(?2 AS INTEGER)", 2, v, names, &hold, e) != 1) {
		json_decref(hold);
		return -1;
	}
	v[3] = jsonio_str(hold, "replaces");
	if (!v[3]) { /* a plain booking: nothing to move */
		json_decref(hold);
		return 1;
	}
	rc = run(s, "UPDATE bookings SET state = 'rescheduled', cancelled_at = ?3 WHERE "
		    "user_id = ?1 AND id = ?4 AND state = 'confirmed'", 4, v, e);
	if (rc == 0 && (rc = s->changes == 1) == 1 &&
	    one(s, "SELECT slot_start, slot_end FROM bookings WHERE user_id = ?1 AND id = ?4", 4, v,
		slot, &from, e) != 1)
		rc = -1;
	if (rc == 1)
		json_object_update(row, from);
	json_decref(from);
	json_decref(hold);
	return rc;
}

static int finalize(struct ledger_db *s, const struct ledger_confirm *c, json_t *row, const char *now,
		    struct err *e)
{
	char seqs[24];
	const char *v[] = { seqs };
	int ok, moved = 0;

	seq_text(row_seq(row), seqs);
	if (run(s, "UPDATE queue SET state = 'finalizing', verify_hash = NULL, verify_expires = "
		   "NULL WHERE seq = CAST(?1 AS INTEGER) AND state = 'submitted'", 1, v, e) != 0)
		return -1;
	if (s->changes != 1) /* a click at another box spent the link first */
		return LEDGER_CONFIRM_DEAD;
	if ((ok = confirm_hold(s, c, seqs, now, e)) < 0)
		return -1;
	if (ok && (moved = move_replaced(s, c, seqs, now, row, e)) < 0)
		return -1;
	if (spend_booking(s, c, seqs, ok && moved ? "booked" : "lapsed", now, e) != 0)
		return -1;
	if (ok && moved)
		return booked(s, c, seqs, row, e) == 0 ? LEDGER_CONFIRM_BOOKED : -1;
	if (ok && run(s, "UPDATE bookings SET state = 'lapsed' WHERE user_id = ?2 AND queue_seq = "
		      "CAST(?1 AS INTEGER)", 2, (const char *[]){ seqs, c->user_id }, e) != 0)
		return -1;
	if (run(s, "DELETE FROM queue WHERE seq = CAST(?1 AS INTEGER)", 1, v, e) != 0)
		return -1;
	return ok ? LEDGER_CONFIRM_GONE : LEDGER_CONFIRM_LAPSED;
}

static int sql_booking_confirm(struct ledger *l, const struct ledger_confirm *c, const char *now,
				json_t **row, struct err *e)
{
	struct ledger_db *s = session(l);
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
	static const char *const names[] = { "id",	     "state",	    "slot_start",
					     "slot_end",     "recipient_hash", "moved_start",
					     "moved_end",    NULL };
	struct ledger_db *s = session(l);
	const char *v[] = { user, instrument, manage_hash };

	return read_one(s, "SELECT b.id, b.state, b.slot_start, b.slot_end, b.recipient_hash, "
			"n.slot_start, n.slot_end FROM bookings b LEFT JOIN bookings n ON "
			"n.user_id = b.user_id AND n.replaces = b.id AND n.state = 'confirmed' "
			"WHERE b.user_id = ?1 AND b.instrument_id = ?2 AND b.manage_hash = ?3", 3, v,
			names, row, e);
}

static int sql_booking_cancel(struct ledger *l, const char *manage_hash,
			       const struct ledger_queued *q, const char *now, long long *seq,
			       struct err *e)
{
	struct ledger_db *s = session(l);
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
			       int cancelled, const char *now, struct err *e)
{
	struct ledger_db *s = session(l);
	const char *v[] = { user, booking_id, now, cancelled ? "cancelled_by_owner"
							      : "declined_by_owner" };
	int rc, declined;

	if (begin(s, e) != 0)
		return -1;
	rc = run(s, "UPDATE bookings SET state = ?4, cancelled_at = ?3 WHERE "
		    "user_id = ?1 AND id = ?2 AND state = 'confirmed'", 4, v, e);
	declined = rc == 0 && s->changes == 1;
	/*
	 * A move home turned down (box-api.md, POST /v1/bookings/decline): the
	 * booking it replaced is confirmed again, unless its time was taken
	 * meanwhile (the constraint counts every held or confirmed row).
	 */
	if (declined && !cancelled)
		rc = run(s, "UPDATE bookings SET state = 'confirmed', cancelled_at = NULL WHERE "
			    "user_id = ?1 AND state = 'rescheduled' AND id = (SELECT n.replaces FROM "
			    "bookings n WHERE n.user_id = ?1 AND n.id = ?2) AND NOT EXISTS (SELECT 1 "
			    "FROM bookings o WHERE o.user_id = bookings.user_id AND o.instrument_id = "
			    "bookings.instrument_id AND o.id <> bookings.id AND o.state IN ('held', "
			    "'confirmed') AND o.slot_start < bookings.slot_end AND bookings.slot_start "
			    "< o.slot_end)", 2, v, e);
	if (end(s, rc, e) != 0)
		return -1;
	return declined;
}

/* ---- links that tell the truth ----------------------------------------------------------- */

static int sql_link_get(struct ledger *l, const char *user, const char *type, const char *kind,
			const char *hash, const char *now, json_t **row, struct err *e)
{
	static const char *const live[] = { "expired", NULL };
	static const char *const names[] = { "outcome", "state", "slot_start", "slot_end", NULL };
	struct ledger_db *s = session(l);
	const char *v[] = { user, type, hash, now, kind };
	int upload = strcmp(kind, LEDGER_LINK_UPLOAD) == 0, rc;
	json_t *got = NULL;

	*row = NULL;
	db_lock(s);
	rc = one(s, upload ? "SELECT CASE WHEN upload_expires > ?4 THEN 0 ELSE 1 END FROM queue "
			     "WHERE user_id = ?1 AND type_id = ?2 AND upload_hash = ?3 AND "
			     "state = 'awaiting_upload'"
			   : "SELECT CASE WHEN verify_expires > ?4 THEN 0 ELSE 1 END FROM queue "
			     "WHERE user_id = ?1 AND type_id = ?2 AND verify_hash = ?3 AND "
			     "state = 'submitted'", 4, v, live, &got, e);
	if (rc == 1) {
		rc = json_integer_value(json_object_get(got, "expired")) ? LEDGER_LINK_EXPIRED
									  : LEDGER_LINK_LIVE;
	} else if (rc == 0) {
		rc = one(s, "SELECT outcome, (SELECT b.state FROM bookings b WHERE b.user_id = "
			    "spent_links.user_id AND b.id = spent_links.booking_id), slot_start, "
			    "slot_end FROM spent_links WHERE token_hash = ?3 AND user_id = ?1 AND "
			    "type_id = ?2 AND kind = ?5", 5, v, names, row, e);
		if (rc == 1)
			rc = strcmp(jsonio_str_or(*row, "outcome", ""), "expired") == 0
				     ? LEDGER_LINK_EXPIRED : LEDGER_LINK_SPENT;
		else if (rc == 0)
			rc = LEDGER_LINK_UNKNOWN;
	}
	db_unlock(s);
	json_decref(got);
	if (rc != LEDGER_LINK_SPENT) {
		json_decref(*row);
		*row = NULL;
	}
	return rc;
}

/* ---- the sweep ------------------------------------------------------------------------- */

/* Deletes the rows the condition picks, with their attachment rows (ids into blobs). */
static int sweep_rows(struct ledger_db *s, const char *cond, const char *now, long long *count,
		      json_t *blobs, struct err *e)
{
	static const char *const names[] = { "user_id", "id", NULL };
	char *sel = xasprintf("SELECT a.user_id, a.id FROM attachments a JOIN queue q ON "
			      "q.seq = a.seq AND q.user_id = a.user_id WHERE %s", cond);
	char *delp = xasprintf("DELETE FROM attachment_parts WHERE id IN (SELECT a.id FROM "
			       "attachments a JOIN queue q ON q.seq = a.seq AND q.user_id = a.user_id "
			       "WHERE %s)", cond);
	char *dela = xasprintf("DELETE FROM attachments WHERE EXISTS (SELECT 1 FROM queue q WHERE "
			       "q.seq = attachments.seq AND q.user_id = attachments.user_id AND %s)",
			       cond);
	char *delq = xasprintf("DELETE FROM queue AS q WHERE %s", cond);
	json_t *ids = NULL;
	int rc = rows(s, sel, 1, &now, names, &ids, e);

	if (rc == 0)
		json_array_extend(blobs, ids);
	if (rc == 0)
		rc = run(s, delp, 1, &now, e);
	if (rc == 0)
		rc = run(s, dela, 1, &now, e);
	if (rc == 0)
		rc = run(s, delq, 1, &now, e);
	if (rc == 0)
		*count = s->changes;
	json_decref(ids);
	free(sel);
	free(delp);
	free(dela);
	free(delq);
	return rc;
}

/* The links of the rows the sweep is about to remove, kept as expired (their pages say so). */
static int expire_links(struct ledger_db *s, const char *now, struct err *e)
{
	if (run(s, "INSERT INTO spent_links (token_hash, kind, user_id, type_id, seq, outcome, "
		   "spent_at) SELECT verify_hash, '" LEDGER_LINK_VERIFY "', user_id, type_id, seq, "
		   "'expired', CAST(?1 AS TEXT) FROM queue WHERE state = 'submitted' AND "
		   "verify_expires < ?1 AND verify_hash IS NOT NULL", 1, &now, e) != 0 ||
	    run(s, "INSERT INTO spent_links (token_hash, kind, user_id, type_id, seq, outcome, "
		   "spent_at) SELECT upload_hash, '" LEDGER_LINK_UPLOAD "', user_id, type_id, seq, "
		   "'expired', CAST(?1 AS TEXT) FROM queue WHERE state = 'awaiting_upload' AND "
		   "upload_expires < ?1 AND upload_hash IS NOT NULL", 1, &now, e) != 0)
		return -1;
	/* the confirmation that led to an upload never made: its request is gone too */
	return run(s, "UPDATE spent_links SET outcome = 'expired' WHERE outcome = "
		      "'awaiting_upload' AND EXISTS (SELECT 1 FROM queue q WHERE q.user_id = "
		      "spent_links.user_id AND q.seq = spent_links.seq AND q.state = "
		      "'awaiting_upload' AND q.upload_expires < ?1)", 1, &now, e);
}

static int sql_sweep(struct ledger *l, const char *now, const char *budget_before,
		      const char *spent_before, struct ledger_sweep *r, json_t **blobs,
		      struct err *e)
{
	struct ledger_db *s = session(l);
	int rc;

	memset(r, 0, sizeof *r);
	*blobs = json_array();
	if (begin(s, e) != 0)
		return -1;
	rc = expire_links(s, now, e);
	if (rc == 0)
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
		rc = run(s, "DELETE FROM send_counts WHERE day < ?1", 1, &budget_before, e);
	}
	if (rc == 0) {
		r->budget_rows += s->changes;
		rc = run(s, "DELETE FROM holders WHERE day < ?1", 1, &budget_before, e);
	}
	if (rc == 0)
		r->budget_rows += s->changes;
	if (rc == 0) /* bytes no row names (none should be: they leave together) */
		rc = run(s, "DELETE FROM attachment_parts WHERE NOT EXISTS (SELECT 1 FROM "
			    "attachments a WHERE a.id = attachment_parts.id)", 0, NULL, e);
	if (rc == 0) /* what uploads cut off (their box killed) spooled, days ago */
		rc = run(s, "DELETE FROM upload_spool WHERE created_at < ?1", 1, &budget_before, e);
	if (rc == 0) {
		/* pairing codes dead for days (spent or not): not even the rate limit counts them */
		rc = run(s, "DELETE FROM pairings WHERE expires_at < ?1", 1, &budget_before, e);
	}
	if (rc == 0)
		rc = run(s, "DELETE FROM spent_links WHERE spent_at < ?1", 1, &spent_before, e);
	if (rc == 0)
		r->forgotten_links = s->changes;
	if (rc == 0) {
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
	struct ledger_db *s = session(l);
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

/* ---- attachments' bytes ------------------------------------------------------------------ */

static int sql_attachment_read(struct ledger *l, const char *id, long long n, struct buf *out,
			       struct err *e)
{
	struct ledger_db *s = session(l);
	char ns[24];
	const char *v[] = { id, ns };
	int rc;

	snprintf(ns, sizeof ns, "%lld", n);
	db_lock(s);
	rc = s->drv->get_bytes(s, "SELECT bytes FROM attachment_parts WHERE id = ?1 AND "
				  "n = CAST(?2 AS INTEGER)", 2, v, out, e);
	db_unlock(s);
	return rc;
}

/* Inside a transaction: source read into parts until it ends. */
static int fill_parts(struct ledger_db *s, const char *id,
		      int (*source)(void *, char *, size_t, size_t *, struct err *), void *arg,
		      struct err *e)
{
	char *part = xmalloc(LEDGER_PART);
	size_t got = 0;
	int rc = 0;

	for (long long n = 0; rc == 0; n++) {
		size_t have = 0;
		/* a part is filled whole (a source may answer short) before it is stored */
		while (rc == 0 && have < LEDGER_PART &&
		       (rc = source(arg, part + have, LEDGER_PART - have, &got, e)) == 0 && got)
			have += got;
		if (rc == 0 && have)
			rc = put_part(s, id, n, part, have, e);
		if (have < LEDGER_PART)
			break;
	}
	free(part);
	return rc;
}

static int sql_attachment_fill(struct ledger *l, const char *id,
			       int (*source)(void *, char *, size_t, size_t *, struct err *),
			       void *arg, struct err *e)
{
	struct ledger_db *s = session(l);
	long long rows;
	int rc;

	if (begin(s, e) != 0)
		return -1;
	rc = scalar(s, "SELECT COUNT(*) FROM attachments WHERE id = ?1", 1, &id, &rows, e);
	if (rc == 0 && rows)
		rc = run(s, "DELETE FROM attachment_parts WHERE id = ?1", 1, &id, e);
	if (rc == 0 && rows)
		rc = fill_parts(s, id, source, arg, e);
	if (end(s, rc, e) != 0)
		return -1;
	return rows > 0;
}

static int sql_attachment_unstored(struct ledger *l, json_t **out, struct err *e)
{
	static const char *const names[] = { "user_id", "id", NULL };
	struct ledger_db *s = session(l);
	int rc;

	db_lock(s);
	rc = rows(s, "SELECT user_id, id FROM attachments a WHERE NOT EXISTS (SELECT 1 FROM "
		     "attachment_parts p WHERE p.id = a.id) ORDER BY created_at, id", 0, NULL, names,
		  out, e);
	db_unlock(s);
	return rc;
}

/* ---- pairings ------------------------------------------------------------------------- */

static int sql_pair_add(struct ledger *l, const struct ledger_pairing *p, struct err *e)
{
	struct ledger_db *s = session(l);
	char max[24];
	const char *count[] = { p->user_id, p->since };
	const char *v[] = { p->code_hash, p->user_id, p->label ? p->label : "", p->now, p->expires };
	long long made;
	int rc;

	snprintf(max, sizeof max, "%lld", p->max);
	if (begin(s, e) != 0)
		return -1;
	rc = scalar(s, "SELECT COUNT(*) FROM pairings WHERE user_id = ?1 AND created_at >= ?2", 2,
		    count, &made, e);
	if (rc == 0 && made >= p->max)
		return end(s, 0, e) == 0 ? 0 : -1;
	if (rc == 0)
		rc = run(s, "INSERT INTO pairings (code_hash, user_id, label, created_at, expires_at) "
			    "VALUES (?1, ?2, ?3, ?4, ?5)", 5, v, e);
	return end(s, rc, e) == 0 ? 1 : -1;
}

static int sql_pair_redeem(struct ledger *l, const struct ledger_redeem *r,
			   struct ledger_user *out, struct err *e)
{
	static const char *const names[] = { "hash", "id", "handle", "status", "send_budget",
					     NULL };
	struct ledger_db *s = session(l);
	char maxf[24];
	const char *find[] = { r->hashes[0], r->hashes[1], r->handle, r->now, maxf };
	const char *miss[] = { r->handle, r->now };
	json_t *row = NULL;
	int rc, found;

	snprintf(maxf, sizeof maxf, "%lld", r->max_failures);
	if (begin(s, e) != 0)
		return -1;
	found = one(s, "SELECT p.code_hash, u.id, u.handle, u.status, u.send_budget "
		       "FROM pairings p JOIN users u ON u.id = p.user_id "
		       "WHERE p.code_hash IN (?1, ?2) AND u.handle = ?3 AND u.status = 'active' "
		       "AND p.redeemed_at IS NULL AND p.expires_at > ?4 "
		       "AND p.failures < CAST(?5 AS BIGINT)", 5, find, names, &row, e);
	rc = found < 0 ? -1 : 0;
	if (found == 0) {
		/* a wrong try: the asserted owner's live codes each come closer to dying */
		rc = run(s, "UPDATE pairings SET failures = failures + 1 WHERE redeemed_at IS NULL "
			    "AND expires_at > ?2 AND user_id IN (SELECT id FROM users WHERE handle = ?1)",
			 2, miss, e);
		return end(s, rc, e) == 0 ? 0 : -1;
	}
	if (rc == 0) {
		const char *spend[] = { r->now, jsonio_str(row, "hash") };
		rc = run(s, "UPDATE pairings SET redeemed_at = ?1 WHERE code_hash = ?2", 2, spend, e);
	}
	for (size_t i = 0; rc == 0 && i < r->nkeys; i++) {
		const char *k[] = { r->keys[i].id, r->keys[i].scope, r->keys[i].hash,
				    r->label ? r->label : "", r->now, jsonio_str(row, "hash") };
		rc = run(s, "INSERT INTO keys (id, user_id, scope, hash, label, created_at) "
			    "SELECT ?1, user_id, ?2, ?3, CASE WHEN label <> '' THEN label ELSE ?4 END, "
			    "?5 FROM pairings WHERE code_hash = ?6", 6, k, e);
	}
	if (rc == 0) {
		memset(out, 0, sizeof *out);
		snprintf(out->id, sizeof out->id, "%s", jsonio_str(row, "id"));
		snprintf(out->handle, sizeof out->handle, "%s", jsonio_str(row, "handle"));
		snprintf(out->status, sizeof out->status, "%s", jsonio_str(row, "status"));
		out->send_budget = json_integer_value(json_object_get(row, "send_budget"));
	}
	json_decref(row);
	return end(s, rc, e) == 0 ? 1 : -1;
}

/* The two tables differ only in their name and the driver they open with. */
#define LEDGER_SQL_OPS(backend, opener) \
	{ \
		.name = (backend), .open = (opener), \
		.close = sql_close, \
		.stamp = sql_stamp, \
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
		.link_get = sql_link_get, \
		.sweep = sql_sweep, \
		.attachment_ids = sql_attachment_ids, \
		.queue_verify = sql_queue_verify, \
		.upload_pending = sql_upload_pending, \
		.upload_complete = sql_upload_complete, \
		.upload_budget = sql_upload_budget, \
		.spool_put = sql_spool_put, \
		.spool_drop = sql_spool_drop, \
		.booking_blocking = sql_booking_blocking, \
		.slots_stamp = sql_slots_stamp, \
		.booking_lapse = sql_booking_lapse, \
		.booking_hold = sql_booking_hold, \
		.booking_confirm = sql_booking_confirm, \
		.booking_get = sql_booking_get, \
		.booking_cancel = sql_booking_cancel, \
		.attachment_read = sql_attachment_read, \
		.attachment_fill = sql_attachment_fill, \
		.attachment_unstored = sql_attachment_unstored, \
		.pair_add = sql_pair_add, \
		.pair_redeem = sql_pair_redeem, \
		.booking_decline = sql_booking_decline, \
	}

const struct ledger_ops ledger_sqlite_ops = LEDGER_SQL_OPS("sqlite", sqlite_open);
const struct ledger_ops ledger_pg_ops = LEDGER_SQL_OPS("postgresql", pg_open);
