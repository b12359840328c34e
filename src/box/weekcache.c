/*
 * weekcache — plain week pages, kept while their counter and their time hold.
 */
#include "box/weekcache.h"

#include "base/buf.h"
#include "box/api.h"
#include "box/ledger.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

struct entry {
	char *key; /* weekcache_key but its counter, written out (key_of); NULL: a free entry */
	size_t len;
	long long counter;       /* the key's stamp */
	int confirmed;           /* 1: at the ledger stamp seen */
	struct ledger_stamp seen;
	struct api_doc *doc; /* the table's ref */
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
	buf_printf(b, "%llu/", k->manifest);
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

static void confirm(struct entry *en, const struct ledger_stamp *ledger)
{
	en->confirmed = ledger != NULL;
	if (ledger)
		en->seen = *ledger;
}

/* by_counter 0: the entry must be confirmed at ledger; 1: it must hold k's counter. */
static struct api_doc *lookup(const struct weekcache_key *k, int by_counter,
			      const struct ledger_stamp *ledger, time_t now)
{
	struct buf key = BUF_INIT;
	struct entry *en;
	struct api_doc *doc = NULL;

	if (!by_counter && !ledger)
		return NULL;
	key_of(&key, k);
	pthread_mutex_lock(&lock);
	en = find(&key);
	if (en && now < en->until &&
	    (by_counter ? en->counter == k->stamp
			: en->confirmed && en->seen.a == ledger->a && en->seen.b == ledger->b)) {
		en->used = ++tick;
		if (by_counter)
			confirm(en, ledger);
		doc = api_doc_ref(en->doc);
	}
	pthread_mutex_unlock(&lock);
	buf_free(&key);
	return doc;
}

struct api_doc *weekcache_held(const struct weekcache_key *k, const struct ledger_stamp *ledger,
			       time_t now)
{
	return lookup(k, 0, ledger, now);
}

struct api_doc *weekcache_get(const struct weekcache_key *k, const struct ledger_stamp *ledger,
			      time_t now)
{
	return lookup(k, 1, ledger, now);
}

void weekcache_put(const struct weekcache_key *k, const struct ledger_stamp *ledger, time_t now,
		   time_t until, struct api_doc *doc)
{
	struct buf key = BUF_INIT;
	struct entry *en;
	struct api_doc *old;

	if (until > now + WEEKCACHE_SECONDS)
		until = now + WEEKCACHE_SECONDS;
	if (until <= now)
		return;
	key_of(&key, k);
	pthread_mutex_lock(&lock);
	en = find(&key);
	if (!en) {
		en = &entries[0];
		for (size_t i = 1; i < WEEKCACHE_ENTRIES && en->key; i++)
			if (!entries[i].key || entries[i].used < en->used)
				en = &entries[i];
	}
	free(en->key);
	old = en->doc;
	en->len = key.len;
	en->key = buf_steal(&key);
	en->doc = api_doc_ref(doc);
	en->counter = k->stamp;
	confirm(en, ledger);
	en->until = until;
	en->used = ++tick;
	pthread_mutex_unlock(&lock);
	api_doc_put(old); /* a visit may still be sending it: its own ref keeps it */
	buf_free(&key);
}
