/*
 * ledger_sqlite — the ledger's SQLite driver (ledger_db.h), the embedded
 * default: one file in WAL mode, the schema migrated by PRAGMA
 * user_version, one connection per process (serialised by ledger_sql.c's
 * lock), writers taking turns by BEGIN IMMEDIATE, and a stamp (ledger.h)
 * that says in one statement whether anything changed.
 *
 * WAL lets the drain's reads go on while a row lands, and lets another
 * process (a sweep, the test seed tool) write the same file; busy_timeout
 * makes the second writer wait instead of failing.
 */
#include "box/ledger_db.h"

#include "base/buf.h"
#include "base/dl.h"
#include "base/err.h"

#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>

#define SCHEMA_VERSION LEDGER_SCHEMA_VERSION

static const char schema_v1[] =
	"CREATE TABLE IF NOT EXISTS users ("
	" id TEXT PRIMARY KEY, handle TEXT NOT NULL UNIQUE, email TEXT NOT NULL DEFAULT '',"
	" status TEXT NOT NULL DEFAULT 'active', created_at TEXT NOT NULL,"
	" quota_bytes INTEGER NOT NULL DEFAULT 1073741824,"
	" send_budget INTEGER NOT NULL DEFAULT 50);"
	"CREATE TABLE IF NOT EXISTS keys ("
	" id TEXT PRIMARY KEY, user_id TEXT NOT NULL DEFAULT '', scope TEXT NOT NULL,"
	" hash TEXT NOT NULL, label TEXT NOT NULL DEFAULT '', created_at TEXT NOT NULL,"
	" revoked_at TEXT, last_used_at TEXT);"
	"CREATE TABLE IF NOT EXISTS types ("
	" user_id TEXT NOT NULL DEFAULT '', id TEXT NOT NULL, title TEXT NOT NULL DEFAULT '',"
	" manifest TEXT NOT NULL, schema TEXT NOT NULL, updated_at TEXT NOT NULL,"
	" PRIMARY KEY (user_id, id));"
	"CREATE TABLE IF NOT EXISTS queue ("
	" seq INTEGER PRIMARY KEY AUTOINCREMENT, user_id TEXT NOT NULL DEFAULT '',"
	" type_id TEXT NOT NULL, state TEXT NOT NULL, payload TEXT NOT NULL,"
	" created_at TEXT NOT NULL, retain_until TEXT, verify_hash TEXT, verify_expires TEXT,"
	" recipient_hash TEXT, submitted_on TEXT, upload_hash TEXT, upload_expires TEXT);"
	"CREATE INDEX IF NOT EXISTS queue_by_state ON queue (user_id, state, seq);"
	"CREATE INDEX IF NOT EXISTS queue_by_verify ON queue (user_id, verify_hash);"
	"CREATE INDEX IF NOT EXISTS queue_by_sends ON queue (user_id, submitted_on, recipient_hash);"
	"CREATE INDEX IF NOT EXISTS queue_by_upload ON queue (user_id, upload_hash);"
	"CREATE TABLE IF NOT EXISTS attachments ("
	" id TEXT PRIMARY KEY, user_id TEXT NOT NULL, seq INTEGER NOT NULL, field TEXT NOT NULL,"
	" filename TEXT NOT NULL, content_type TEXT NOT NULL, size INTEGER NOT NULL,"
	" sha256 TEXT NOT NULL, created_at TEXT NOT NULL);"
	"CREATE INDEX IF NOT EXISTS attachments_by_seq ON attachments (user_id, seq);"
	"CREATE TABLE IF NOT EXISTS upload_budget ("
	" day TEXT NOT NULL, ip_hash TEXT NOT NULL, bytes INTEGER NOT NULL,"
	" PRIMARY KEY (day, ip_hash));"
	"CREATE TABLE IF NOT EXISTS slot_cache ("
	" user_id TEXT NOT NULL, instrument_id TEXT NOT NULL, generated_at TEXT NOT NULL,"
	" horizon_days INTEGER NOT NULL, slots TEXT NOT NULL, received_at TEXT NOT NULL,"
	" PRIMARY KEY (user_id, instrument_id));"
	"CREATE TABLE IF NOT EXISTS bookings ("
	" id TEXT PRIMARY KEY, user_id TEXT NOT NULL, instrument_id TEXT NOT NULL,"
	" slot_start TEXT NOT NULL, slot_end TEXT NOT NULL, duration_minutes INTEGER NOT NULL,"
	" state TEXT NOT NULL, hold_expires TEXT, queue_seq INTEGER, manage_hash TEXT,"
	" ics_sequence INTEGER NOT NULL DEFAULT 0, created_at TEXT NOT NULL, confirmed_at TEXT,"
	" cancelled_at TEXT);"
	"CREATE INDEX IF NOT EXISTS bookings_by_slot"
	" ON bookings (user_id, instrument_id, state, slot_start);"
	/* §6: budgets count sends, not rows still present (a drained row still counted). */
	"CREATE TABLE IF NOT EXISTS sends ("
	" user_id TEXT NOT NULL, day TEXT NOT NULL, recipient_hash TEXT NOT NULL,"
	" ip_hash TEXT NOT NULL DEFAULT '', sent_at TEXT NOT NULL);"
	"CREATE INDEX IF NOT EXISTS sends_by_day ON sends (user_id, day, recipient_hash);";

/* v2: a hold remembers whose it is, so a stranger's live holds can be counted (§6: at
 * most two per address and per client address); manage links and queue rows find their
 * booking by index. On a fresh ledger this runs right after v1 creates the table. */
static const char schema_v2[] =
	"ALTER TABLE bookings ADD COLUMN recipient_hash TEXT;"
	"ALTER TABLE bookings ADD COLUMN ip_hash TEXT;"
	"CREATE INDEX IF NOT EXISTS bookings_by_seq ON bookings (user_id, queue_seq);"
	"CREATE INDEX IF NOT EXISTS bookings_by_manage ON bookings (user_id, manage_hash);"
	"CREATE INDEX IF NOT EXISTS bookings_by_holder ON bookings (user_id, state, recipient_hash);";

/* v3: the budgets as counter rows, counted by the submission's own upsert
 * (ON CONFLICT … DO UPDATE … RETURNING) instead of a COUNT(*) of every send:
 * send_counts has one row per (owner, day, address) and one per (owner, day)
 * under the address '*', carried over from `sends`, which is no longer
 * written (it stays, empty after a sweep, so that v1's script is kept as
 * is). holders: one row per stranger (address or client address) whose lock
 * makes that stranger's holds take turns; PostgreSQL needs it, SQLite's
 * BEGIN IMMEDIATE gives it anyway. */
static const char schema_v3[] =
	"CREATE TABLE IF NOT EXISTS send_counts ("
	" user_id TEXT NOT NULL, day TEXT NOT NULL, recipient_hash TEXT NOT NULL,"
	" n INTEGER NOT NULL, PRIMARY KEY (user_id, day, recipient_hash));"
	"INSERT OR IGNORE INTO send_counts (user_id, day, recipient_hash, n)"
	" SELECT user_id, day, recipient_hash, COUNT(*) FROM sends GROUP BY user_id, day,"
	" recipient_hash;"
	"INSERT OR IGNORE INTO send_counts (user_id, day, recipient_hash, n)"
	" SELECT user_id, day, '*', COUNT(*) FROM sends GROUP BY user_id, day;"
	"CREATE TABLE IF NOT EXISTS holders ("
	" user_id TEXT NOT NULL, holder TEXT NOT NULL, day TEXT NOT NULL, holds INTEGER NOT NULL,"
	" PRIMARY KEY (user_id, holder));"
	"CREATE INDEX IF NOT EXISTS bookings_by_client ON bookings (user_id, state, ip_hash);";

/* v4: the bytes of uploaded files live in the ledger, in parts of LEDGER_PART bytes
 * (ledger.h), written in the transaction that stores their attachment row and deleted
 * with it; files a box of v3 wrote in its data directory are moved in on its next
 * serve or sweep (blobs.h). */
static const char schema_v4[] =
	"CREATE TABLE IF NOT EXISTS attachment_parts ("
	" id TEXT NOT NULL, n INTEGER NOT NULL, bytes BLOB NOT NULL, PRIMARY KEY (id, n));";

/* v5: pairing codes (mecha box pair): the SHA-256 of a one-time code, whose it is, until
 * when, how many wrong tries its owner's codes have seen, and when it was spent. */
static const char schema_v5[] =
	"CREATE TABLE IF NOT EXISTS pairings ("
	" code_hash TEXT PRIMARY KEY, user_id TEXT NOT NULL, label TEXT NOT NULL DEFAULT '',"
	" created_at TEXT NOT NULL, expires_at TEXT NOT NULL,"
	" failures INTEGER NOT NULL DEFAULT 0, redeemed_at TEXT);"
	"CREATE INDEX IF NOT EXISTS pairings_by_user ON pairings (user_id, expires_at);";

/* v6: a confirmation or upload link, once spent (or found expired by the sweep), is
 * kept as its SHA-256 with what it led to — the minimum its page needs: which link, the
 * row it named, the outcome, a booking's id and time — so that opening it again says
 * what happened (docs/box.md, "Links that tell the truth"). The sweep forgets a row
 * LEDGER_SPENT_LINK_DAYS after it was spent. */
static const char schema_v6[] =
	"CREATE TABLE IF NOT EXISTS spent_links ("
	" token_hash TEXT PRIMARY KEY, kind TEXT NOT NULL, user_id TEXT NOT NULL,"
	" type_id TEXT NOT NULL, seq INTEGER NOT NULL, outcome TEXT NOT NULL,"
	" booking_id TEXT, slot_start TEXT, slot_end TEXT, spent_at TEXT NOT NULL);"
	"CREATE INDEX IF NOT EXISTS spent_links_by_seq ON spent_links (user_id, seq);"
	"CREATE INDEX IF NOT EXISTS spent_links_by_time ON spent_links (spent_at);";
/* v7: a reschedule (box-pages.md §3.5): the hold names the booking it moves, and the
 * confirm that books it marks that one 'rescheduled'. (v6 is the spent links' table.) */
static const char schema_v7[] = "ALTER TABLE bookings ADD COLUMN replaces TEXT;";

/* v8: the spool of uploads arriving — each file's parts written as its bytes come
 * off the wire, one statement each, which the upload's transaction turns into its
 * attachment's parts (ledger.h, spool_put): a file never sits whole in the box's
 * memory, and what no transaction took is not an attachment part of anything. */
static const char schema_v8[] =
	"CREATE TABLE IF NOT EXISTS upload_spool ("
	" id TEXT NOT NULL, n INTEGER NOT NULL, created_at TEXT NOT NULL, bytes BLOB NOT NULL,"
	" PRIMARY KEY (id, n));"
	"CREATE INDEX IF NOT EXISTS upload_spool_by_age ON upload_spool (created_at);";

/* The one statement every v9 trigger runs: one more change to ROW's instrument ("OLD", "NEW"). */
#define SLOT_CHANGED(row)                                                                   \
	" INSERT INTO slot_changes (user_id, instrument_id, shard, n) VALUES (" row ".user_id," \
	" " row ".instrument_id, 0, 1) ON CONFLICT (user_id, instrument_id, shard)"             \
	" DO UPDATE SET n = n + 1;"

/* v9: a change counter per (owner, instrument), bumped by triggers in the very
 * transaction of any change to its bookings or its pushed slots — whoever makes it
 * (any box on the database, the sweep, a hand in the ledger): the week page's cache
 * (box/weekcache.h) is good while the counter it was rendered at is the one read.
 * The counter is the sum of its shards' n; here, writers taking turns anyway, one
 * shard (ledger_pg.c spreads them, so that holds do not wait on each other). */
static const char schema_v9[] =
	"CREATE TABLE IF NOT EXISTS slot_changes ("
	" user_id TEXT NOT NULL, instrument_id TEXT NOT NULL, shard INTEGER NOT NULL,"
	" n INTEGER NOT NULL, PRIMARY KEY (user_id, instrument_id, shard));"
	"CREATE TRIGGER IF NOT EXISTS bookings_added AFTER INSERT ON bookings BEGIN"
	SLOT_CHANGED("NEW")
	" END;"
	"CREATE TRIGGER IF NOT EXISTS bookings_changed AFTER UPDATE ON bookings BEGIN"
	SLOT_CHANGED("OLD")
	SLOT_CHANGED("NEW")
	" END;"
	"CREATE TRIGGER IF NOT EXISTS bookings_removed AFTER DELETE ON bookings BEGIN"
	SLOT_CHANGED("OLD")
	" END;"
	"CREATE TRIGGER IF NOT EXISTS slot_cache_added AFTER INSERT ON slot_cache BEGIN"
	SLOT_CHANGED("NEW")
	" END;"
	"CREATE TRIGGER IF NOT EXISTS slot_cache_changed AFTER UPDATE ON slot_cache BEGIN"
	SLOT_CHANGED("OLD")
	SLOT_CHANGED("NEW")
	" END;"
	"CREATE TRIGGER IF NOT EXISTS slot_cache_removed AFTER DELETE ON slot_cache BEGIN"
	SLOT_CHANGED("OLD")
	" END;";

static sqlite3 *conn(struct ledger_db *db)
{
	return db->conn;
}

static int fail(struct ledger_db *db, struct err *e, const char *what)
{
	return err_set(e, ERR_LEDGER, "%s: %s: %s", db->name, what, sqlite3_errmsg(conn(db)));
}

static json_t *col_json(sqlite3_stmt *st, int i)
{
	const unsigned char *t;

	if (sqlite3_column_type(st, i) == SQLITE_NULL)
		return json_null();
	if (sqlite3_column_type(st, i) == SQLITE_INTEGER)
		return json_integer(sqlite3_column_int64(st, i));
	t = sqlite3_column_text(st, i);
	return json_stringn(t ? (const char *)t : "", (size_t)sqlite3_column_bytes(st, i));
}

/* Binds v[0..n) as text parameters ?1..?n; a NULL pointer binds SQL NULL. */
static void bind_texts(sqlite3_stmt *st, int n, const char *const *v)
{
	for (int i = 0; i < n; i++) {
		if (v[i])
			sqlite3_bind_text(st, i + 1, v[i], -1, SQLITE_TRANSIENT);
		else
			sqlite3_bind_null(st, i + 1);
	}
}

/* The one prepare → bind → step → finalize of the driver: every statement goes through it. */
static int lite_query(struct ledger_db *db, const char *sql, int n, const char *const *v,
		      const char *const *names, json_t **out, struct err *e)
{
	sqlite3_stmt *st = NULL;
	int rc;

	if (sqlite3_prepare_v2(conn(db), sql, -1, &st, NULL) != SQLITE_OK)
		return fail(db, e, "preparing a statement");
	bind_texts(st, n, v);
	if (out)
		*out = json_array();
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		json_t *o = out && names ? json_object() : NULL;
		for (int i = 0; o && names[i]; i++)
			json_object_set_new(o, names[i], col_json(st, i));
		if (o)
			json_array_append_new(*out, o);
	}
	sqlite3_finalize(st);
	db->changes = sqlite3_changes(conn(db));
	if (rc == SQLITE_DONE)
		return 0;
	if (out) {
		json_decref(*out);
		*out = NULL;
	}
	return fail(db, e, out ? "reading" : "writing");
}

static int lite_put_bytes(struct ledger_db *db, const char *sql, int n, const char *const *v,
			  const void *bytes, size_t len, struct err *e)
{
	sqlite3_stmt *st = NULL;
	int rc;

	if (sqlite3_prepare_v2(conn(db), sql, -1, &st, NULL) != SQLITE_OK)
		return fail(db, e, "preparing a statement");
	bind_texts(st, n, v);
	sqlite3_bind_blob64(st, n + 1, bytes, len, SQLITE_STATIC);
	rc = sqlite3_step(st);
	sqlite3_finalize(st);
	db->changes = sqlite3_changes(conn(db));
	return rc == SQLITE_DONE ? 0 : fail(db, e, "writing");
}

static int lite_get_bytes(struct ledger_db *db, const char *sql, int n, const char *const *v,
			  struct buf *out, struct err *e)
{
	sqlite3_stmt *st = NULL;
	int rc;

	if (sqlite3_prepare_v2(conn(db), sql, -1, &st, NULL) != SQLITE_OK)
		return fail(db, e, "preparing a statement");
	bind_texts(st, n, v);
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW) {
		const void *p = sqlite3_column_blob(st, 0);
		buf_add(out, p ? p : "", (size_t)sqlite3_column_bytes(st, 0));
	}
	sqlite3_finalize(st);
	if (rc == SQLITE_ROW || rc == SQLITE_DONE)
		return rc == SQLITE_ROW;
	return fail(db, e, "reading");
}

static int lite_exec(struct ledger_db *db, const char *sql, struct err *e)
{
	char *msg = NULL;

	if (sqlite3_exec(conn(db), sql, NULL, NULL, &msg) == SQLITE_OK)
		return 0;
	err_set(e, ERR_LEDGER, "%s: %s", db->name, msg ? msg : sqlite3_errmsg(conn(db)));
	sqlite3_free(msg);
	return -1;
}

static int migrate(struct ledger_db *db, struct err *e)
{
	static const char *const names[] = { "v", NULL };
	json_t *got;
	long long version;
	char sql[64];

	if (lite_query(db, "PRAGMA user_version", 0, NULL, names, &got, e) != 0)
		return -1;
	version = json_integer_value(json_object_get(json_array_get(got, 0), "v"));
	json_decref(got);
	if (version > SCHEMA_VERSION)
		return err_set(e, ERR_LEDGER, "%s is schema %lld, newer than this mecha knows (%d): "
			       "upgrade mecha", db->name, version, SCHEMA_VERSION);
	if (version == SCHEMA_VERSION)
		return 0;
	if (lite_exec(db, "BEGIN IMMEDIATE", e) != 0)
		return -1;
	snprintf(sql, sizeof sql, "PRAGMA user_version = %d", SCHEMA_VERSION);
	if (lite_exec(db, schema_v1, e) != 0 || (version < 2 && lite_exec(db, schema_v2, e) != 0) ||
	    (version < 3 && lite_exec(db, schema_v3, e) != 0) ||
	    (version < 4 && lite_exec(db, schema_v4, e) != 0) ||
	    (version < 5 && lite_exec(db, schema_v5, e) != 0) ||
	    (version < 6 && lite_exec(db, schema_v6, e) != 0) ||
	    (version < 7 && lite_exec(db, schema_v7, e) != 0) ||
	    (version < 8 && lite_exec(db, schema_v8, e) != 0) ||
	    (version < 9 && lite_exec(db, schema_v9, e) != 0) ||
	    lite_exec(db, sql, e) != 0 || lite_exec(db, "COMMIT", e) != 0) {
		struct err ignored;
		lite_exec(db, "ROLLBACK", &ignored);
		return -1;
	}
	return 0;
}

static int lite_connect(struct ledger_db *db, const char *where, struct err *e)
{
	sqlite3 *c = NULL;

	db->name = xstrdup(where);
	if (dl_require(DL_SQLITE, e) != 0)
		return -1;
	if (sqlite3_open_v2(where, &c, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE |
					       SQLITE_OPEN_NOMUTEX, NULL) != SQLITE_OK) {
		db->conn = c;
		return c ? fail(db, e, "opening") : err_set(e, ERR_LEDGER, "%s: cannot open", where);
	}
	db->conn = c;
	sqlite3_busy_timeout(c, 5000);
	/* temp_store: a sort's temporary file would go to /tmp, outside the box's jail */
	if (lite_exec(db, "PRAGMA journal_mode = WAL; PRAGMA synchronous = NORMAL; "
			  "PRAGMA temp_store = MEMORY;", e) != 0)
		return -1;
	return migrate(db, e);
}

/*
 * The stamp: PRAGMA data_version, which another connection's commit (another
 * process's: a box, a sweep, a CLI) bumps, as the read it starts sees it, beside
 * sqlite3_total_changes64, the rows this connection changed, which data_version
 * leaves out. The statement is prepared once and reset at once, so that no read
 * stays open (a checkpoint would wait on it).
 */
static int lite_stamp(struct ledger_db *db, long long out[2], struct err *e)
{
	sqlite3_stmt *st = db->stamp_stmt;
	int rc;

	if (!st && sqlite3_prepare_v2(conn(db), "PRAGMA data_version", -1, &st, NULL) != SQLITE_OK)
		return fail(db, e, "preparing PRAGMA data_version");
	db->stamp_stmt = st;
	rc = sqlite3_step(st);
	out[0] = rc == SQLITE_ROW ? sqlite3_column_int64(st, 0) : 0;
	sqlite3_reset(st);
	if (rc != SQLITE_ROW)
		return fail(db, e, "reading PRAGMA data_version");
	out[1] = sqlite3_total_changes64(conn(db));
	return 1;
}

static void lite_disconnect(struct ledger_db *db)
{
	if (db->stamp_stmt)
		sqlite3_finalize(db->stamp_stmt);
	db->stamp_stmt = NULL;
	if (db->conn)
		sqlite3_close_v2(conn(db));
	db->conn = NULL;
}

const struct ledger_driver ledger_sqlite_driver = {
	.name = "sqlite",
	.connect = lite_connect,
	.disconnect = lite_disconnect,
	.query = lite_query,
	.put_bytes = lite_put_bytes,
	.get_bytes = lite_get_bytes,
	.exec = lite_exec,
	.revive = NULL,
	.stamp = lite_stamp,
	.begin = "BEGIN IMMEDIATE",
};
