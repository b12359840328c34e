/*
 * typecache — parsed manifests and rendered forms, kept while their text holds.
 */
#include "box/typecache.h"

#include "base/buf.h"
#include "box/api.h"
#include "types/manifest.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

struct typecache_ref {
	char *user, *type;
	char *text; /* the stored manifest, exactly as read */
	size_t len;
	struct manifest *m;
	struct api_doc *form;                 /* the fresh form, */
	char *form_base, *form_assets, *form_lang; /* and for where */
	unsigned long refs;                   /* the table's one, and one per visit holding it */
	unsigned long long used;
	/* typecache_remember's: found by handle, its owner's row, read at stamp */
	int known;
	char handle[sizeof ((struct ledger_user *)0)->handle];
	struct ledger_user owner;
	struct ledger_stamp stamp;
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
	api_doc_put(r->form);
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

struct typecache_ref *typecache_known(const char *handle, const char *type,
				      const struct ledger_stamp *stamp, struct ledger_user *user,
				      const struct manifest **m)
{
	struct typecache_ref *r = NULL;

	pthread_mutex_lock(&lock);
	for (size_t i = 0; i < TYPECACHE_ENTRIES && !r; i++)
		if (table[i] && table[i]->known && table[i]->stamp.a == stamp->a &&
		    table[i]->stamp.b == stamp->b && strcmp(table[i]->handle, handle) == 0 &&
		    strcmp(table[i]->type, type) == 0)
			r = table[i];
	if (r) {
		r->refs++;
		r->used = ++tick;
		*user = r->owner;
		*m = r->m;
	}
	pthread_mutex_unlock(&lock);
	return r;
}

void typecache_remember(struct typecache_ref *ref, const char *handle,
			const struct ledger_stamp *stamp, const struct ledger_user *user)
{
	if (strlen(handle) >= sizeof ref->handle)
		return;
	pthread_mutex_lock(&lock);
	memcpy(ref->handle, handle, strlen(handle) + 1);
	ref->owner = *user;
	ref->stamp = *stamp;
	ref->known = 1;
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

struct api_doc *typecache_form(struct typecache_ref *ref, const struct page_ctx *ctx)
{
	struct api_doc *doc = NULL, *old;
	char *text;

	pthread_mutex_lock(&lock);
	if (ref->form && same(ref->form_base, ctx->base) && same(ref->form_assets, ctx->assets) &&
	    same(ref->form_lang, ctx->lang))
		doc = api_doc_ref(ref->form);
	pthread_mutex_unlock(&lock);
	if (doc)
		return doc;
	text = page_form(ctx, ref->m, NULL, NULL);
	doc = api_doc_new(text);
	free(text);
	pthread_mutex_lock(&lock);
	old = ref->form;
	free(ref->form_base);
	free(ref->form_assets);
	free(ref->form_lang);
	ref->form = api_doc_ref(doc);
	ref->form_base = ctx->base ? xstrdup(ctx->base) : NULL;
	ref->form_assets = ctx->assets ? xstrdup(ctx->assets) : NULL;
	ref->form_lang = ctx->lang ? xstrdup(ctx->lang) : NULL;
	pthread_mutex_unlock(&lock);
	api_doc_put(old);
	return doc;
}
