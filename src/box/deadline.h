/*
 * deadline — the box's connections, each with the time by which what it is
 * sending must have arrived, and one watchdog thread that cuts those past it.
 *
 * libmicrohttpd's own timeout is an idle one: every byte that arrives starts
 * it again, so a client trickling a header one byte every few seconds stays
 * open for as long as it likes. Here a connection has an absolute due time
 * per phase — its headers (DEADLINE_HEADERS), then its body (DEADLINE_BODY,
 * given a time in proportion to its size) — and none while the box answers
 * it (DEADLINE_NONE). Past the due time the watchdog shuts the socket down
 * (shutdown(2), never close: the descriptor stays libmicrohttpd's, which sees
 * the end of the stream and closes the connection itself) and remembers the
 * phase it was cut in, for the access log.
 *
 * A connection is added when libmicrohttpd accepts it and removed when it is
 * closed (its notify-connection callback); the socket is only ever shut down
 * under the lock that removal takes, so a descriptor already closed and
 * reused by another connection is never touched.
 *
 * Ownership: deadline_start returns a watchdog deadline_stop stops and frees;
 * deadline_add returns an entry that deadline_remove frees. Every function is
 * safe from any thread.
 */
#ifndef MECHA_BOX_DEADLINE_H
#define MECHA_BOX_DEADLINE_H

struct deadline;
struct deadline_conn;
struct err;

enum deadline_phase {
	DEADLINE_NONE,    /* being answered, or parked: no due time of ours */
	DEADLINE_HEADERS, /* the request line and headers are due */
	DEADLINE_BODY,    /* the body is due */
};

struct deadline *deadline_start(struct err *e);
void deadline_stop(struct deadline *dl);

/* A connection on socket fd, its headers due in due_ms milliseconds. */
struct deadline_conn *deadline_add(struct deadline *dl, int fd, long long due_ms);
/* The phase it is in now, due in due_ms milliseconds from now (ignored for NONE). */
void deadline_set(struct deadline *dl, struct deadline_conn *c, enum deadline_phase phase,
		  long long due_ms);
/* The phase c was cut in, or DEADLINE_NONE when it has not been cut. */
enum deadline_phase deadline_cut(struct deadline *dl, const struct deadline_conn *c);
/* Forgets c (frees it): the phase it was cut in, or DEADLINE_NONE. */
enum deadline_phase deadline_remove(struct deadline *dl, struct deadline_conn *c);

/* "headers", "body" (for the log), "" for NONE. */
const char *deadline_phase_name(enum deadline_phase phase);

#endif
