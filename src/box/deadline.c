/*
 * deadline — due times per connection, and the watchdog that cuts the late.
 */
#include "box/deadline.h"

#include "base/buf.h"
#include "base/err.h"

#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>

#define TICK_MS 100 /* how late past its due time a connection may be cut */

struct deadline_conn {
	struct deadline_conn *prev, *next;
	int fd;
	enum deadline_phase phase, cut;
	long long due; /* CLOCK_MONOTONIC milliseconds */
};

struct deadline {
	pthread_mutex_t lock;
	pthread_cond_t wake;
	pthread_t thread;
	struct deadline_conn *head;
	int stopping;
};

static long long now_ms(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (long long)t.tv_sec * 1000 + t.tv_nsec / 1000000;
}

/* Under the lock: every connection past its due time shut down, once. */
static void cut_late(struct deadline *dl, long long now)
{
	for (struct deadline_conn *c = dl->head; c; c = c->next)
		if (c->phase != DEADLINE_NONE && c->cut == DEADLINE_NONE && now >= c->due) {
			c->cut = c->phase;
			/* NOLINTNEXTLINE(cert-err33-c): a socket already gone needs no cutting */
			shutdown(c->fd, SHUT_RDWR);
		}
}

static void *watch(void *arg)
{
	struct deadline *dl = arg;
	struct timespec until;

	pthread_mutex_lock(&dl->lock);
	while (!dl->stopping) {
		cut_late(dl, now_ms());
		clock_gettime(CLOCK_REALTIME, &until);
		until.tv_nsec += TICK_MS * 1000000L;
		if (until.tv_nsec >= 1000000000L) {
			until.tv_sec++;
			until.tv_nsec -= 1000000000L;
		}
		pthread_cond_timedwait(&dl->wake, &dl->lock, &until);
	}
	pthread_mutex_unlock(&dl->lock);
	return NULL;
}

struct deadline *deadline_start(struct err *e)
{
	struct deadline *dl = xcalloc(1, sizeof *dl);
	int rc;

	pthread_mutex_init(&dl->lock, NULL);
	pthread_cond_init(&dl->wake, NULL);
	if ((rc = pthread_create(&dl->thread, NULL, watch, dl)) != 0) {
		pthread_cond_destroy(&dl->wake);
		pthread_mutex_destroy(&dl->lock);
		free(dl);
		errno = rc;
		err_errno(e, "starting the connection watchdog");
		return NULL;
	}
	return dl;
}

void deadline_stop(struct deadline *dl)
{
	struct deadline_conn *c, *next;

	if (!dl)
		return;
	pthread_mutex_lock(&dl->lock);
	dl->stopping = 1;
	pthread_cond_signal(&dl->wake);
	pthread_mutex_unlock(&dl->lock);
	pthread_join(dl->thread, NULL);
	for (c = dl->head; c; c = next) {
		next = c->next;
		free(c);
	}
	pthread_cond_destroy(&dl->wake);
	pthread_mutex_destroy(&dl->lock);
	free(dl);
}

struct deadline_conn *deadline_add(struct deadline *dl, int fd, long long due_ms)
{
	struct deadline_conn *c = xcalloc(1, sizeof *c);

	c->fd = fd;
	c->phase = DEADLINE_HEADERS;
	c->due = now_ms() + due_ms;
	pthread_mutex_lock(&dl->lock);
	c->next = dl->head;
	if (dl->head)
		dl->head->prev = c;
	dl->head = c;
	pthread_mutex_unlock(&dl->lock);
	return c;
}

void deadline_set(struct deadline *dl, struct deadline_conn *c, enum deadline_phase phase,
		  long long due_ms)
{
	if (!c)
		return;
	pthread_mutex_lock(&dl->lock);
	c->phase = phase;
	c->due = now_ms() + due_ms;
	pthread_mutex_unlock(&dl->lock);
}

enum deadline_phase deadline_cut(struct deadline *dl, const struct deadline_conn *c)
{
	enum deadline_phase cut;

	if (!c)
		return DEADLINE_NONE;
	pthread_mutex_lock(&dl->lock);
	cut = c->cut;
	pthread_mutex_unlock(&dl->lock);
	return cut;
}

enum deadline_phase deadline_remove(struct deadline *dl, struct deadline_conn *c)
{
	enum deadline_phase cut;

	if (!c)
		return DEADLINE_NONE;
	pthread_mutex_lock(&dl->lock);
	if (c->prev)
		c->prev->next = c->next;
	else
		dl->head = c->next;
	if (c->next)
		c->next->prev = c->prev;
	cut = c->cut;
	pthread_mutex_unlock(&dl->lock);
	free(c);
	return cut;
}

const char *deadline_phase_name(enum deadline_phase phase)
{
	return phase == DEADLINE_HEADERS ? "headers" : phase == DEADLINE_BODY ? "body" : "";
}
