/*
 * limit — one counter per address, all reset when the minute turns.
 */
#include "box/limit.h"

#include "base/buf.h"

#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define ADDR_MAX 64

struct slot {
	char addr[ADDR_MAX];
	long long count;
};

struct limit {
	pthread_mutex_t lock;
	long long per_minute;
	time_t minute;
	struct slot *slots; /* open addressing; addr[0] == '\0' is empty */
	size_t cap, used;
};

struct limit *limit_new(long long per_minute)
{
	struct limit *l = xcalloc(1, sizeof *l);

	pthread_mutex_init(&l->lock, NULL);
	l->per_minute = per_minute;
	l->cap = 1024;
	l->slots = xcalloc(l->cap, sizeof *l->slots);
	return l;
}

static uint64_t fnv(const char *s)
{
	uint64_t h = 1469598103934665603ULL;

	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 1099511628211ULL;
	return h;
}

static struct slot *find(struct slot *slots, size_t cap, const char *addr)
{
	size_t i = (size_t)(fnv(addr) & (cap - 1));

	while (slots[i].addr[0] && strcmp(slots[i].addr, addr) != 0)
		i = (i + 1) & (cap - 1);
	return &slots[i];
}

static void grow(struct limit *l)
{
	size_t cap = l->cap * 2;
	struct slot *slots = xcalloc(cap, sizeof *slots);

	for (size_t i = 0; i < l->cap; i++)
		if (l->slots[i].addr[0])
			*find(slots, cap, l->slots[i].addr) = l->slots[i];
	free(l->slots);
	l->slots = slots;
	l->cap = cap;
}

int limit_take(struct limit *l, const char *addr, time_t now)
{
	struct slot *s;
	int ok;

	pthread_mutex_lock(&l->lock);
	if (now / 60 != l->minute) {
		memset(l->slots, 0, l->cap * sizeof *l->slots);
		l->used = 0;
		l->minute = now / 60;
	}
	if (l->used * 2 >= l->cap)
		grow(l);
	s = find(l->slots, l->cap, addr);
	if (!s->addr[0]) {
		snprintf(s->addr, sizeof s->addr, "%s", addr[0] ? addr : "?");
		l->used++;
	}
	ok = s->count < l->per_minute;
	if (ok)
		s->count++;
	pthread_mutex_unlock(&l->lock);
	return ok;
}

void limit_free(struct limit *l)
{
	if (!l)
		return;
	pthread_mutex_destroy(&l->lock);
	free(l->slots);
	free(l);
}
