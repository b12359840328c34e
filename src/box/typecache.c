/*
 * typecache — parsed manifests and rendered forms, kept while their text holds.
 */
#include "box/typecache.h"

#include "base/buf.h"
#include "types/manifest.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

struct typecache_ref {
	char *user, *type;
	char *text; /* the stored manifest, exactly as read */
	size_t len;
	struct manifest *m;
	char *form, *form_base, *form_assets, *form_lang; /* the fresh form, and for where */
	unsigned long refs;                   /* the table's one, and one per visit holding it */
	unsigned long long used;
	unsigned long long id; /* this parse's own number: never reused (typecache_id) */
};

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static struct typecache_ref *table[TYPECACHE_ENTRIES];
static unsigned long long tick, parses;

static void ref_free(struct typecache_ref *r)
{
	manifest_free(r->m);
	free(r->user);
	free(r->type);
	free(r->text);
	free(r->form);
	free(r->form_base);
	free(r->form_assets);
	free(r->form_lang);
	free(r);
}

/* With the lock held. */
static void drop(struct typecache_ref *r)
{
	if (r && --r->refs == 0)
		ref_free(r);
}

/* The slot of (user, type), else the least recently used one. With the lock held. */
static struct typecache_ref **slot_of(const char *user, const char *type)
{
	struct typecache_ref **lru = &table[0];

	for (size_t i = 0; i < TYPECACHE_ENTRIES; i++) {
		if (table[i] && strcmp(table[i]->user, user) == 0 &&
		    strcmp(table[i]->type, type) == 0)
			return &table[i];
		if (!table[i] || (*lru && table[i]->used < (*lru)->used))
			lru = &table[i];
	}
	return lru;
}

struct typecache_ref *typecache_get(const char *user, const char *type, const char *text,
				    const struct manifest **m)
{
	size_t len = strlen(text);
	struct typecache_ref **slot, *r;
	struct manifest_issues is = { NULL, 0 };

	pthread_mutex_lock(&lock);
	slot = slot_of(user, type);
	r = *slot;
	if (r && r->len == len && strcmp(r->user, user) == 0 && strcmp(r->type, type) == 0 &&
	    memcmp(r->text, text, len) == 0) {
		r->refs++;
		r->used = ++tick;
		pthread_mutex_unlock(&lock);
		*m = r->m;
		return r;
	}
	pthread_mutex_unlock(&lock);

	r = xcalloc(1, sizeof *r); /* parsed outside the lock: other types' visits go on */
	r->user = xstrdup(user);
	r->type = xstrdup(type);
	r->text = xstrndup(text, len);
	r->len = len;
	r->m = manifest_parse(text, len, &is);
	manifest_issues_free(&is);
	r->refs = 2; /* the table's and the caller's */

	pthread_mutex_lock(&lock);
	slot = slot_of(user, type);
	drop(*slot);
	r->used = ++tick;
	r->id = ++parses;
	*slot = r;
	pthread_mutex_unlock(&lock);
	*m = r->m;
	return r;
}

void typecache_put(struct typecache_ref *ref)
{
	if (!ref)
		return;
	pthread_mutex_lock(&lock);
	drop(ref);
	pthread_mutex_unlock(&lock);
}

unsigned long long typecache_id(const struct typecache_ref *ref)
{
	return ref->id; /* set before the ref left the lock, never changed: no lock to read it */
}

static int same(const char *a, const char *b)
{
	return a == b || (a && b && strcmp(a, b) == 0);
}

char *typecache_form(struct typecache_ref *ref, const struct page_ctx *ctx)
{
	char *doc = NULL;

	pthread_mutex_lock(&lock);
	if (ref->form && same(ref->form_base, ctx->base) && same(ref->form_assets, ctx->assets) &&
	    same(ref->form_lang, ctx->lang))
		doc = xstrdup(ref->form);
	pthread_mutex_unlock(&lock);
	if (doc)
		return doc;
	doc = page_form(ctx, ref->m, NULL, NULL);
	pthread_mutex_lock(&lock);
	free(ref->form);
	free(ref->form_base);
	free(ref->form_assets);
	free(ref->form_lang);
	ref->form = xstrdup(doc);
	ref->form_base = ctx->base ? xstrdup(ctx->base) : NULL;
	ref->form_assets = ctx->assets ? xstrdup(ctx->assets) : NULL;
	ref->form_lang = ctx->lang ? xstrdup(ctx->lang) : NULL;
	pthread_mutex_unlock(&lock);
	return doc;
}
