/*
 * select — prefixes to ids, ids to items, and the filters; nothing changes.
 */
#include "outbox/select.h"

#include "base/buf.h"

#include <stdlib.h>
#include <string.h>

int outbox_selection_matches(const struct outbox_selection *sel, const struct outbox_item *it)
{
	if (sel->kind && strcmp(it->kind, sel->kind) != 0)
		return 0;
	return !sel->via || strstr(it->tool, sel->via) != NULL;
}

/* Moves *it into the list (it is left empty). */
static void keep(struct outbox_list *out, struct outbox_item *it)
{
	out->items = xrealloc(out->items, (out->n + 1) * sizeof *out->items);
	out->items[out->n++] = *it;
	memset(it, 0, sizeof *it);
}

static int already(const struct outbox_list *l, const char *id)
{
	for (size_t i = 0; i < l->n; i++)
		if (strcmp(l->items[i].id, id) == 0)
			return 1;
	return 0;
}

static int select_pending(struct outbox_store *s, const struct outbox_selection *sel,
			  struct outbox_list *out, FILE *warn, struct err *e)
{
	struct outbox_list all = { NULL, 0 };

	if (outbox_store_list(s, &all, warn, e) != 0)
		return -1;
	for (size_t i = 0; i < all.n; i++)
		if (outbox_item_pending(&all.items[i]) && outbox_selection_matches(sel, &all.items[i]))
			keep(out, &all.items[i]);
	outbox_list_free(&all);
	return 0;
}

/* Adds the draft prefix names, unless it is there already or does not match. */
static int select_named(struct outbox_store *s, const struct outbox_selection *sel,
			const char *prefix, struct outbox_list *out, struct err *e)
{
	struct outbox_item it;
	char *id;
	int rc = 0;

	if (outbox_store_lookup(s, prefix, &id, e) != 0)
		return -1;
	if (!already(out, id)) {
		rc = outbox_store_read(s, id, &it, e);
		if (rc == 0 && outbox_selection_matches(sel, &it))
			keep(out, &it);
		else if (rc == 0)
			outbox_item_free(&it);
	}
	free(id);
	return rc;
}

int outbox_select(struct outbox_store *s, const struct outbox_selection *sel,
		  struct outbox_list *out, FILE *warn, struct err *e)
{
	memset(out, 0, sizeof *out);
	if (sel->all)
		return select_pending(s, sel, out, warn, e);
	for (size_t i = 0; i < sel->n; i++)
		if (select_named(s, sel, sel->ids[i], out, e) != 0) {
			outbox_list_free(out);
			return -1;
		}
	return 0;
}
