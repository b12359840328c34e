/*
 * reply — a person answers a request in their own words, with or without a
 * model: `mecha frontdoor reply`, `needs-info --ask`, the review screen's R
 * and N keys.
 *
 * The rule: a person's answer is a mail_send draft staged through the one
 * staging path (draft.h, DRAFT_BY_PERSON / DRAFT_ASK_BACK), so it goes to the
 * record's reply_to and nobody else, is recorded on the request, and is
 * released like any draft. A reply moves the request to awaiting_me (released,
 * reconcile makes it answered); an ask-back leaves it needs_info with the
 * question as its note. Refused, before an editor opens and again under the
 * lock when staging: a closed request (ERR_INVALID_TRANSITION), a booking or a
 * cancellation (ERR_BOOKING), one with no single reply_to (ERR_NO_REPLY_TO).
 * An empty reply, or a template that came back unchanged, stages nothing
 * (REPLY_EMPTY: the caller says so).
 *
 * The template a person edits is mail text: a "Subject:" line, a "To:" line
 * (for reference only: the recipient is never the person's to change here),
 * a blank line, the body, then the cut line REPLY_CUT and, below it, the
 * request quoted for reference (its values and its prose, every control
 * character made visible). Nothing from the cut line down is ever sent. The
 * file is private (0600) inside the 0700 outbox, never a shared /tmp; when
 * staging fails after the person wrote something, the file is kept and the
 * message names it.
 *
 * Calling sequence:
 *     struct reply rp;
 *     reply_open(&rp, seq, &e);                 -- config, stores, the record checked
 *     reply_template(&rp, &e);                  -- rp.path holds rp.text
 *     editor_run(rp.path, &e);                  -- base/editor.h; no lock is held
 *     reply_finish(&rp, id, &e);                -- REPLY_STAGED / REPLY_EMPTY, or -1
 *       or reply_stage(&rp, subject, body, id, &e) for text given on the command line
 *       or reply_ask(&rp, note, id, &e)         -- an ask-back carrying the note
 *     reply_close(&rp);                          -- removes the file unless rp.kept
 *
 * Ownership: struct reply owns every field (reply_close); strings passed in are
 * borrowed; ids are written into caller storage.
 */
#ifndef MECHA_FRONTDOOR_REPLY_H
#define MECHA_FRONTDOOR_REPLY_H

#include "config/config.h"
#include "frontdoor/draft.h"
#include "requests/store.h"
#include "outbox/item.h"
#include "outbox/store.h"

#include <stddef.h>

struct err;

/* The line below which a template is never sent. */
#define REPLY_CUT "------------------------ >8 ------------------------"

enum {
	REPLY_EMPTY = 0,  /* nothing to send: nothing was staged */
	REPLY_STAGED = 1, /* a draft was staged; its id is in id_out */
};

struct reply {
	long long seq;
	char *to;      /* the record's reply_to, as it was when opened */
	char *subject; /* the subject a reply gets unless the person writes one */
	char *path;    /* the template's file; NULL before reply_template */
	char *text;    /* what reply_template wrote there: len bytes */
	size_t len;
	int kept; /* the person's text stays in path (a staging that failed) */
	char from[DRAFT_FROM_MAX]; /* once staged: the state the staging moved the request from */
	/* private to reply.c */
	struct config cfg;
	struct store store;
	struct outbox_store ob;
	int opened; /* which of the above are open: bit 1 config, 2 store, 4 outbox */
};

/*
 * Loads config.toml, opens the request store and the outbox, reads and
 * checks request seq, and makes the template's text (rp->text).
 */
int reply_open(struct reply *rp, long long seq, struct err *e);
/* Writes the template to a private file in the outbox (rp->path). */
int reply_template(struct reply *rp, struct err *e);
/* Reads rp->path back; stages what the person wrote. */
int reply_finish(struct reply *rp, char id_out[OUTBOX_ID_MAX + 1], struct err *e);
/* Stages subject (NULL: the default) and body. Blank body: REPLY_EMPTY. */
int reply_stage(struct reply *rp, const char *subject, const char *body,
		char id_out[OUTBOX_ID_MAX + 1], struct err *e);
/* Stages an ask-back carrying note as the question; the request is needs_info with note. */
int reply_ask(struct reply *rp, const char *note, char id_out[OUTBOX_ID_MAX + 1], struct err *e);
/* Removes rp->path unless kept, closes what reply_open opened. Safe on a zeroed rp. */
void reply_close(struct reply *rp);

/*
 * The pure half: what a template's text stands for. *subject (NULL when the
 * person left none) and *body (NULL when it is blank) are malloc'd.
 */
void reply_parse(const char *text, size_t len, char **subject, char **body);

#endif
