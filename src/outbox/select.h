/*
 * select — which drafts a person's decision applies to: the ones they named
 * by id (or a unique prefix), or "all", which means every pending one;
 * either way narrowed to a kind and to tools containing a word.
 *
 * Named drafts are taken whatever their status: the decision that follows
 * (release, reject) refuses a resolved one with its own code, so the person
 * learns why rather than seeing it silently left out. "All" takes only the
 * pending, because that is what "all" means to someone clearing the outbox.
 * A draft named twice (two prefixes of one id) is taken once.
 *
 * Calling sequence:
 *     struct outbox_selection sel = { .ids = argv, .n = argc, .kind = "message" };
 *     outbox_select(&store, &sel, &list, stderr, &e);
 *     ... release_send / release_reject each item ...
 *     outbox_list_free(&list);
 *
 * Ownership: the selection's strings are borrowed. The list filled is the
 * caller's (outbox_list_free); it is in the order the ids were named, or
 * sorted by id (staging order) for all — so outbox_list_find, which needs a
 * sorted list, does not apply to a named selection.
 */
#ifndef MECHA_OUTBOX_SELECT_H
#define MECHA_OUTBOX_SELECT_H

#include "outbox/store.h"

#include <stddef.h>
#include <stdio.h>

struct err;

struct outbox_selection {
	int all;           /* every pending draft; ids are not looked at */
	const char *kind;  /* only drafts of this kind; NULL for any */
	const char *via;   /* only drafts whose tool contains this; NULL for any */
	char *const *ids;  /* ids or unique prefixes */
	size_t n;
};

/* 1 when it is of the selection's kind and tool (status and ids are not looked at). */
int outbox_selection_matches(const struct outbox_selection *sel, const struct outbox_item *it);

/*
 * Fills *out with the selected drafts (possibly none). Fails, with nothing
 * filled, when a prefix names no draft ("not_found") or several
 * ("ambiguous"), or an item cannot be read. Unreadable items met by "all"
 * are skipped with a warning on warn (when not NULL), as in a listing.
 */
int outbox_select(struct outbox_store *s, const struct outbox_selection *sel,
		  struct outbox_list *out, FILE *warn, struct err *e);

#endif
