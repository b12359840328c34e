/*
 * weekcache — plain week pages, kept while their counter and their time hold.
 */
#include "box/weekcache.h"

#include "base/buf.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

struct entry {
	char *key; /* weekcache_key written out (key_of); NULL: a free entry */
	size_t len;
	char *doc;
	time_t until;
	unsigned long long used;
};

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static struct entry entries[WEEKCACHE_ENTRIES];
static unsigned long long tick;

/* Each text as its length, ':' and its bytes ('-' for none): no two keys write the same. */
static void word(struct buf *b, const char *s)
{
	if (!s) {
		buf_addc(b, '-');
		return;
	}
	buf_printf(b, "%zu:", strlen(s));
	buf_adds(b, s);
}

static void key_of(struct buf *b, const struct weekcache_key *k)
{
	buf_printf(b, "%llu/%lld/", k->manifest, k->stamp);
	word(b, k->user);
	word(b, k->instrument);
	word(b, k->base);
	word(b, k->assets);
	word(b, k->lang);
	word(b, k->week);
	word(b, k->mins);
}

/* The entry of key, else NULL. With the lock held. */
static struct entry *find(const struct buf *key)
{
	for (size_t i = 0; i < WEEKCACHE_ENTRIES; i++)
		if (entries[i].key && entries[i].len == key->len &&
		    memcmp(entries[i].key, key->data, key->len) == 0)
			return &entries[i];
	return NULL;
}

char *weekcache_get(const struct weekcache_key *k, time_t now)
{
	struct buf key = BUF_INIT;
	struct entry *en;
	char *doc = NULL;

	key_of(&key, k);
	pthread_mutex_lock(&lock);
	en = find(&key);
	if (en && now < en->until) {
		en->used = ++tick;
		doc = xstrdup(en->doc);
	}
	pthread_mutex_unlock(&lock);
	buf_free(&key);
	return doc;
}

void weekcache_put(const struct weekcache_key *k, time_t now, time_t until, const char *doc)
{
	struct buf key = BUF_INIT;
	struct entry *en;
	char *copy;

	if (until > now + WEEKCACHE_SECONDS)
		until = now + WEEKCACHE_SECONDS;
	if (until <= now)
		return;
	key_of(&key, k);
	copy = xstrdup(doc); /* outside the lock */
	pthread_mutex_lock(&lock);
	en = find(&key);
	if (!en) {
		en = &entries[0];
		for (size_t i = 1; i < WEEKCACHE_ENTRIES && en->key; i++)
			if (!entries[i].key || entries[i].used < en->used)
				en = &entries[i];
	}
	free(en->key);
	free(en->doc);
	en->len = key.len;
	en->key = buf_steal(&key);
	en->doc = copy;
	en->until = until;
	en->used = ++tick;
	pthread_mutex_unlock(&lock);
	buf_free(&key);
}
