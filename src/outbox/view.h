/*
 * view — what a person needs to decide on a draft, as data: its headers, its
 * body, the arguments besides those, and what an edit changed since the
 * agent drafted it. Every front end (the CLI's show and review, the review
 * screen) draws the same pieces, so a key shown in one is shown in all and
 * none can hide an argument from the person who approves it.
 *
 * The rule: every key of args appears exactly once — as a header (to, cc,
 * subject), as the body (outbox_item_body_key), or among the others — and
 * every changed key appears in the diff, whether the agent or the person
 * added, removed or changed it.
 *
 * Ownership: everything here is BORROWED from the item (its json values,
 * keys and strings), valid while the item is neither changed nor freed,
 * except the arrays, which the view and the diff own (outbox_view_free,
 * outbox_diff_free) along with the texts they had to make (a non-string
 * value pretty-printed). Nothing returned is untrusted-safe: print every
 * piece through text.h.
 */
#ifndef MECHA_OUTBOX_VIEW_H
#define MECHA_OUTBOX_VIEW_H

#include "outbox/item.h"

#include <stddef.h>

struct outbox_view {
	int object;                      /* 0: args is not an object; show it whole */
	const json_t *to, *cc, *subject; /* as stored (possibly null); NULL when absent */
	const char *body_key;            /* NULL when there is no body */
	const json_t *body;              /* a string, or NULL */
	const char **others;             /* the remaining keys, in the document's order */
	size_t nothers;
};

void outbox_view_make(const struct outbox_item *it, struct outbox_view *v);
void outbox_view_free(struct outbox_view *v);

/* One line of the edit diff: under key, a line kept (' '), as drafted ('-') or as it will be sent ('+'). */
struct outbox_diff_line {
	const char *key;  /* "args" when args is not an object on either side */
	char sign;        /* LINEDIFF_SAME, _DEL or _ADD (base/linediff.h) */
	const char *text; /* len bytes, no newline, not NUL-terminated */
	size_t len;
};

struct outbox_diff {
	struct outbox_diff_line *lines; /* keys in args_before's order, then the added ones */
	size_t n;
	char **made; /* private: the texts made for non-string values */
	size_t nmade;
};

/*
 * The line diff of args_before against args, key by key: a key that holds
 * a string on both sides is diffed by the lines of the text; otherwise both
 * sides by their pretty-printed JSON, an absent side reading "(absent)". No
 * lines when the draft was not edited.
 */
void outbox_diff_make(const struct outbox_item *it, struct outbox_diff *d);
void outbox_diff_free(struct outbox_diff *d);

#endif
