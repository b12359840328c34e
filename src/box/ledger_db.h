/*
 * ledger_db — what the ledger's transactions (ledger_sql.c) need of a
 * database, and all they need: a connection that runs one statement with
 * text parameters, plus the schema and its migrations. Two drivers fill it:
 * ledger_sqlite.c (one file, WAL) and ledger_pg.c (libpq).
 *
 * The rule this interface keeps: the transactions are written once, in SQL
 * both engines run the same way, so "the same schema and transactions on
 * both" (docs/box.md, "Several boxes") is a fact of the code rather than a promise kept by
 * hand. A driver owns only what genuinely differs: how it connects, how it
 * numbers its schema version, the column types of its CREATE TABLEs, and
 * what BEGIN takes to make writers take turns.
 *
 * SQL written for a driver: parameters are ?1..?N, all text (a NULL pointer
 * binds SQL NULL), CAST where a number is meant; new rows report their key
 * with RETURNING; booleans are spelt as CASE … THEN 1 ELSE 0.
 *
 * Ownership: struct ledger_db is the backend state (struct ledger's impl),
 * made by ledger_sql.c, filled by the driver's connect, emptied by its
 * disconnect. json_t ** results are new references.
 */
#ifndef MECHA_BOX_LEDGER_DB_H
#define MECHA_BOX_LEDGER_DB_H

#include <jansson.h>
#include <pthread.h>

struct buf;
struct err;
struct ledger_db;

/* Bumped with every migration, in both drivers at once; a ledger above it is refused. */
#define LEDGER_SCHEMA_VERSION 9

struct ledger_driver {
	const char *name; /* "sqlite", "postgresql" */
	/* Opens where (a path, a URL), sets db->name (for messages; never a password),
	 * and migrates. -1 with e (ERR_LEDGER naming db->name). */
	int (*connect)(struct ledger_db *db, const char *where, struct err *e);
	void (*disconnect)(struct ledger_db *db);
	/* One statement: n text parameters; with out, its rows as objects keyed by names
	 * (one per column; integer columns as integers, NULL as null). Sets db->changes. */
	int (*query)(struct ledger_db *db, const char *sql, int n, const char *const *v,
		     const char *const *names, json_t **out, struct err *e);
	/* A statement of n text parameters plus, as ?(n+1), len bytes bound as bytes
	 * (SQLite BLOB, PostgreSQL bytea, sent in binary). Sets db->changes. */
	int (*put_bytes)(struct ledger_db *db, const char *sql, int n, const char *const *v,
			 const void *bytes, size_t len, struct err *e);
	/* The first column of the first row of a statement of n text parameters, its
	 * bytes appended to out: 1, 0 when there is no row, -1. */
	int (*get_bytes)(struct ledger_db *db, const char *sql, int n, const char *const *v,
			 struct buf *out, struct err *e);
	/* Statements without parameters (BEGIN, COMMIT, a schema). */
	int (*exec)(struct ledger_db *db, const char *sql, struct err *e);
	/* Called with the lock held before any work: a dropped connection is made again
	 * (NULL when the driver cannot lose one). Never inside a transaction. */
	void (*revive)(struct ledger_db *db);
	/* With the lock held, outside a transaction: out[0..2) filled with a pair that
	 * changes whenever a change may have been committed to the database since the
	 * pair was last this one, by this connection or any other (another thread's,
	 * another process's): 1; 0 when it cannot be told without reading the rows
	 * themselves (the caller reads them); -1 with e. NULL: never told. */
	int (*stamp)(struct ledger_db *db, long long out[2], struct err *e);
	/* What starts a writing transaction. */
	const char *begin;
	/* 1: each thread of the process gets a connection of its own (ledger_sql.c's
	 * sessions), so that one request waiting on a row lock of the database keeps no
	 * other request of the process waiting; 0: one connection for all (SQLite: one
	 * writer at a time in any case). */
	int per_thread;
};

struct ledger_sessions;

struct ledger_db {
	const struct ledger_driver *drv;
	pthread_mutex_t lock; /* one statement or one transaction at a time */
	char *name;           /* the file, or the URL with its password hidden */
	long long changes;    /* rows the last statement inserted, changed or deleted */
	/* 1 when the last statement failed because the database refused the transaction
	 * for a conflict with another (PostgreSQL: a deadlock, a serialization failure):
	 * the transaction may be run again from its start. */
	int conflict;
	void *conn;           /* the driver's connection */
	void *stamp_stmt;     /* the driver's, for stamp (SQLite: its prepared statement) */
	/* The first connection's: the other threads' connections (NULL when the driver
	 * is not per_thread). Owned by ledger_sql.c. */
	struct ledger_sessions *sessions;
};

extern const struct ledger_driver ledger_sqlite_driver;
extern const struct ledger_driver ledger_pg_driver;

#endif
