/*
 * waiters — parked drains, and the one thread that wakes them.
 */
#include "box/waiters.h"

#include "base/buf.h"
#include "base/err.h"
#include "box/ledger.h"

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define TICK_MS 200

struct waiter {
	void *conn;
	char user[LEDGER_ID_LEN + 1];
	long long since;
	time_t deadline;
	struct waiter *next;
};

struct waiters {
	struct ledger *ledger;
	void (*resume)(void *conn);
	pthread_mutex_t lock;
	pthread_cond_t cond;
	pthread_t thread;
	struct waiter *list;
	int kicked, stopping;
};

/* Takes the waiters that are due off the list (under the lock), to resume outside it. */
static struct waiter *due(struct waiters *w, time_t now)
{
	struct waiter **p = &w->list, *out = NULL;

	while (*p) {
		struct waiter *x = *p;
		long long latest = 0;
		struct err e;
		int ready = w->stopping || now >= x->deadline;
		if (!ready && w->ledger->ops->queue_latest(w->ledger, x->user, &latest, &e) == 0)
			ready = latest > x->since;
		if (ready) {
			*p = x->next;
			x->next = out;
			out = x;
		} else {
			p = &x->next;
		}
	}
	return out;
}

static void wait_tick(struct waiters *w)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	ts.tv_nsec += TICK_MS * 1000000L;
	if (ts.tv_nsec >= 1000000000L) {
		ts.tv_sec++;
		ts.tv_nsec -= 1000000000L;
	}
	while (!w->kicked && !w->stopping &&
	       pthread_cond_timedwait(&w->cond, &w->lock, &ts) != ETIMEDOUT)
		;
	w->kicked = 0;
}

static void *loop(void *arg)
{
	struct waiters *w = arg;
	int stopping = 0;

	pthread_mutex_lock(&w->lock);
	while (!stopping) {
		struct waiter *ready;
		wait_tick(w);
		stopping = w->stopping;
		ready = due(w, time(NULL));
		pthread_mutex_unlock(&w->lock);
		while (ready) {
			struct waiter *next = ready->next;
			w->resume(ready->conn);
			free(ready);
			ready = next;
		}
		pthread_mutex_lock(&w->lock);
	}
	pthread_mutex_unlock(&w->lock);
	return NULL;
}

struct waiters *waiters_start(struct ledger *l, void (*resume)(void *conn), struct err *e)
{
	struct waiters *w = xcalloc(1, sizeof *w);

	w->ledger = l;
	w->resume = resume;
	pthread_mutex_init(&w->lock, NULL);
	pthread_cond_init(&w->cond, NULL);
	if (pthread_create(&w->thread, NULL, loop, w) != 0) {
		free(w);
		err_set(e, ERR_INTERNAL, "cannot start the long-poll thread");
		return NULL;
	}
	return w;
}

void waiters_add(struct waiters *w, void *conn, const char *user, long long since,
		 time_t deadline)
{
	struct waiter *x = xcalloc(1, sizeof *x);

	x->conn = conn;
	snprintf(x->user, sizeof x->user, "%s", user);
	x->since = since;
	x->deadline = deadline;
	pthread_mutex_lock(&w->lock);
	if (w->stopping) {
		pthread_mutex_unlock(&w->lock);
		w->resume(conn); /* nobody would wake it: answered now, with what there is */
		free(x);
		return;
	}
	x->next = w->list;
	w->list = x;
	pthread_mutex_unlock(&w->lock);
}

void waiters_kick(struct waiters *w)
{
	pthread_mutex_lock(&w->lock);
	w->kicked = 1;
	pthread_cond_signal(&w->cond);
	pthread_mutex_unlock(&w->lock);
}

void waiters_stop(struct waiters *w)
{
	if (!w)
		return;
	pthread_mutex_lock(&w->lock);
	w->stopping = 1;
	pthread_cond_signal(&w->cond);
	pthread_mutex_unlock(&w->lock);
	pthread_join(w->thread, NULL);
}

void waiters_free(struct waiters *w)
{
	if (!w)
		return;
	pthread_cond_destroy(&w->cond);
	pthread_mutex_destroy(&w->lock);
	free(w);
}
