/*
 * slotcache — parsed pushes, kept while their text is what the ledger holds.
 */
#include "box/slotcache.h"

#include "base/buf.h"
#include "base/err.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

struct entry {
	char *user, *instrument;
	char *text; /* the row's slots, exactly as read */
	size_t len;
	char *generated_at;
	struct slotrule_slot *slots;
	size_t n;
	unsigned long long used; /* the tick of its last hit: the smallest goes first */
};

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static struct entry entries[SLOTCACHE_ENTRIES];
static unsigned long long tick;

static void copy_out(const struct entry *en, struct slotcache_view *out)
{
	out->n = en->n;
	out->slots = xcalloc(en->n + 1, sizeof *out->slots);
	memcpy(out->slots, en->slots, en->n * sizeof *out->slots);
	out->generated_at = en->generated_at ? xstrdup(en->generated_at) : NULL;
}

static struct entry *find(const char *user, const char *instrument)
{
	for (size_t i = 0; i < SLOTCACHE_ENTRIES; i++)
		if (entries[i].user && strcmp(entries[i].user, user) == 0 &&
		    strcmp(entries[i].instrument, instrument) == 0)
			return &entries[i];
	return NULL;
}

static struct entry *victim(void)
{
	struct entry *v = &entries[0];

	for (size_t i = 1; i < SLOTCACHE_ENTRIES; i++)
		if (entries[i].used < v->used)
			v = &entries[i];
	return v;
}

static void entry_free(struct entry *en)
{
	free(en->user);
	free(en->instrument);
	free(en->text);
	free(en->generated_at);
	free(en->slots);
	memset(en, 0, sizeof *en);
}

/* 1 with *out filled when the text is the one parsed last time. */
static int hit(const char *user, const char *instrument, const char *text, size_t len,
	       const char *generated_at, struct slotcache_view *out)
{
	struct entry *en;
	int found = 0;

	pthread_mutex_lock(&lock);
	en = find(user, instrument);
	if (en && en->len == len && memcmp(en->text, text, len) == 0 &&
	    (en->generated_at ? generated_at && strcmp(en->generated_at, generated_at) == 0
			      : !generated_at)) {
		en->used = ++tick;
		copy_out(en, out);
		found = 1;
	}
	pthread_mutex_unlock(&lock);
	return found;
}

static void keep(const char *user, const char *instrument, const char *text, size_t len,
		 const char *generated_at, const struct slotcache_view *parsed)
{
	struct entry *en;

	pthread_mutex_lock(&lock);
	en = find(user, instrument);
	if (!en)
		en = victim();
	entry_free(en);
	*en = (struct entry){ xstrdup(user), xstrdup(instrument), xstrndup(text, len), len,
			      generated_at ? xstrdup(generated_at) : NULL,
			      xcalloc(parsed->n + 1, sizeof *en->slots), parsed->n, ++tick };
	memcpy(en->slots, parsed->slots, parsed->n * sizeof *en->slots);
	pthread_mutex_unlock(&lock);
}

int slotcache_get(struct ledger *l, const char *user, const char *instrument,
		  struct slotcache_view *out, struct err *e)
{
	json_t *row = NULL, *slots;
	const char *text, *stamp;
	int found = l->ops->slots_get(l, user, instrument, &row, e);
	size_t len;

	memset(out, 0, sizeof *out);
	if (found < 0)
		return -1;
	text = found == 1 ? json_string_value(json_object_get(row, "slots")) : NULL;
	stamp = found == 1 ? json_string_value(json_object_get(row, "generated_at")) : NULL;
	if (!text) {
		out->slots = xcalloc(1, sizeof *out->slots);
		out->generated_at = stamp ? xstrdup(stamp) : NULL;
		json_decref(row);
		return 0;
	}
	len = strlen(text);
	if (!hit(user, instrument, text, len, stamp, out)) {
		slots = json_loads(text, 0, NULL); /* a text that does not parse offers nothing */
		out->n = slotrule_parse(slots, &out->slots);
		out->generated_at = stamp ? xstrdup(stamp) : NULL;
		json_decref(slots);
		keep(user, instrument, text, len, stamp, out);
	}
	json_decref(row);
	return 0;
}

void slotcache_view_free(struct slotcache_view *v)
{
	free(v->slots);
	free(v->generated_at);
	v->slots = NULL;
	v->generated_at = NULL;
	v->n = 0;
}
