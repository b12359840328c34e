/*
 * waiters — the queue's long poll: drains parked with `wait=N` until a row
 * of theirs is queued or their deadline passes.
 *
 * One thread watches every parked request. It wakes when told (waiters_kick:
 * a row queued by this process) and on a short tick, on which it asks the
 * ledger for each waiting user's newest queued seq — so a row queued by
 * another process (another box on the same database, the sweep, a test's
 * seed tool) wakes the drain too. Waking is only a resume: the request then
 * reads the queue again and answers with whatever is there.
 *
 * The caller suspends its request before adding it, and the waker calls
 * resume exactly once for each request added (waiters_stop resumes the rest).
 *
 * Ownership: user strings are copied; conn is the caller's.
 */
#ifndef MECHA_BOX_WAITERS_H
#define MECHA_BOX_WAITERS_H

#include <time.h>

struct err;
struct ledger;
struct waiters;

struct waiters *waiters_start(struct ledger *l, void (*resume)(void *conn), struct err *e);
void waiters_add(struct waiters *w, void *conn, const char *user, long long since,
		 time_t deadline);
/* Something was queued here: look now rather than at the next tick. */
void waiters_kick(struct waiters *w);
/*
 * Resumes every parked request and stops the thread. w stays valid until
 * waiters_free (a handler still running may add or kick): from now on an
 * added request is resumed at once and a kick does nothing.
 */
void waiters_stop(struct waiters *w);
/* Frees w, once nothing can call in any more (the HTTP daemon has stopped). */
void waiters_free(struct waiters *w);

#endif
