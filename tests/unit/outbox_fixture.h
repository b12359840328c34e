/*
 * A throw-away outbox for the unit tests of the outbox's library parts: a
 * real store in a fresh directory, drafts staged through the one door, and
 * the changes "someone else" makes through the store's own calls.
 */
#ifndef MECHA_TEST_OUTBOX_FIXTURE_H
#define MECHA_TEST_OUTBOX_FIXTURE_H

#include <criterion/criterion.h>

#include "scratch.h"
#include "base/buf.h"
#include "base/err.h"
#include "base/fs.h"
#include "base/jsonio.h"
#include "base/verdict.h"
#include "outbox/item.h"
#include "outbox/store.h"

#include <ftw.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

struct fixture {
	char *root, *dir;
	struct outbox_store s;
};

#define MAIL_ARGS                                                                             \
	"{\"to\":\"Ada <ada@example.org>\",\"cc\":[\"bob@example.net\"],\"subject\":\"Re: hi\"," \
	"\"body_text\":\"Dear Ada,\\n\\nTuesday at ten works.\\n\"}"

static inline int fixture_rm_one(const char *path, const struct stat *st, int flag,
				 struct FTW *ftw)
{
	(void)st, (void)flag, (void)ftw;
	return remove(path);
}

static inline void fixture_setup(struct fixture *f)
{
	char tmpl[512];
	struct err e;

	memset(f, 0, sizeof *f);
	cr_assert_not_null(scratch_mkdtemp(tmpl, sizeof tmpl, "outbox"));
	f->root = xstrdup(tmpl);
	f->dir = fs_join(f->root, "outbox");
	cr_assert_eq(outbox_store_open(&f->s, f->dir, OUTBOX_WRITE, &e), 0, "%s", e.msg);
}

static inline void fixture_teardown(struct fixture *f)
{
	outbox_store_close(&f->s);
	nftw(f->root, fixture_rm_one, 16, FTW_DEPTH | FTW_PHYS);
	free(f->root);
	free(f->dir);
}

static inline json_t *fixture_json(const char *text)
{
	struct err e;
	json_t *v = jsonio_parse(text, strlen(text), "test", &e);

	cr_assert_not_null(v, "%s", e.msg);
	return v;
}

/* Stages a draft; returns its id (free it). */
static inline char *fixture_stage(struct fixture *f, const char *tool, const char *kind,
				  const char *args_text, int tainted)
{
	json_t *args = fixture_json(args_text);
	struct outbox_draft d = { tool, kind, args, NULL, NULL, 0, tainted };
	struct outbox_item it;
	struct err e;
	char *id;

	cr_assert_eq(outbox_store_stage(&f->s, &d, &it, &e), 0, "%s", e.msg);
	id = xstrdup(it.id);
	outbox_item_free(&it);
	json_decref(args);
	return id;
}

static inline struct outbox_item fixture_item(struct fixture *f, const char *id)
{
	struct outbox_item it;
	struct err e;

	cr_assert_eq(outbox_store_read(&f->s, id, &it, &e), 0, "%s", e.msg);
	return it;
}

static inline int fixture_set_key(struct outbox_item *it, void *ctx, struct err *e)
{
	const char *const *kv = ctx;

	(void)e;
	if (strcmp(kv[0], "args") == 0) {
		json_t *a = fixture_json(kv[1]);
		outbox_item_set_args(it, a);
		json_decref(a);
	} else {
		outbox_item_set(it, kv[0], kv[1]);
	}
	return VERDICT_WRITE;
}

/* Someone else sets key (a string, or "args" to a JSON text) under the lock. */
static inline void fixture_set(struct fixture *f, const char *id, const char *key,
			       const char *value)
{
	const char *kv[2] = { key, value };
	struct err e;

	cr_assert_eq(outbox_store_update(&f->s, id, fixture_set_key, kv, &e), VERDICT_WRITE,
		     "%s", e.msg);
}

#endif
