/*
 * app — the review screen's state, shared by its files (private to src/tui).
 *
 * What is loaded: every request record (through the reconciling pass, so a
 * draft someone released elsewhere has already answered its request) and
 * every draft. What is shown: entries, the rows of the list, which point into
 * those two. The files split by concern:
 *   tui.c      start, the loop, the keys;
 *   lists.c    loading, noticing changes, filter and search, the entries;
 *   detail.c   what the detail pane says about a request or a draft;
 *   screen.c   layout and drawing;
 *   prompt.c   asking: a line of text, one key, a full-screen page;
 *   actions.c  the keys that change something, each one library call;
 *   capture.c  stderr while the screen is up;
 *   lines.c    safe text, measured, wrapped and drawn.
 *
 * Ownership: struct app owns everything in it (app_free in tui.c).
 */
#ifndef MECHA_TUI_APP_H
#define MECHA_TUI_APP_H

#include "config/config.h"
#include "frontdoor/reconcile.h"
#include "requests/record.h"
#include "outbox/store.h"
#include "tui/lines.h"

struct decline_teller;

#include <signal.h>
#include <stddef.h>
#include <time.h>

struct err;

enum entry_kind {
	ENTRY_HEADER,  /* a section title; the cursor passes over it */
	ENTRY_REQUEST, /* index into app.records */
	ENTRY_DRAFT,   /* index into app.drafts.items */
};

struct entry {
	enum entry_kind kind;
	size_t index;
};

/* Where stderr goes while the screen is up (capture.c). */
struct capture {
	int saved; /* the real stderr, or -1 */
	int fd;    /* the memory file that stands in for it */
	size_t seen;
	struct buf lines; /* each distinct line once, written to the real stderr at the end */
};

/* A directory as last seen, to notice a change made by another process. */
struct stamp {
	int exists;
	struct timespec mtime;
	int racy; /* seen within a second of its change: a second change may share the time */
};

#define APP_FILTER_WAITING "waiting"
#define APP_FILTER_ALL "all"

struct app {
	struct config cfg;
	char *requests_dir;
	/* loaded */
	struct record *records;
	size_t nrecords, caprecords;
	struct outbox_list drafts;
	struct reconcile_outbox statuses; /* reconcile_draft_status for a request's drafts */
	struct stamp stamps[2];           /* requests, outbox */
	/* shown */
	struct entry *entries;
	size_t nentries;
	size_t cursor, list_top;
	size_t detail_top;
	int zoom;            /* the detail pane fills the screen */
	char filter[32];     /* APP_FILTER_WAITING, APP_FILTER_ALL or a state */
	char *search;        /* NULL or the text the list is narrowed to */
	int show_resolved;   /* h: sent and rejected drafts too */
	int color;
	struct lines message; /* the outcome of the last action, one line per part */
	int detail_h;        /* the detail pane's rows at the last draw (for paging) */
	size_t detail_rows;  /* the detail's wrapped rows at the last draw */
	size_t counts[4];    /* waiting requests, pending drafts, all requests, all drafts */
	struct capture cap;
	const struct decline_teller *teller; /* borrowed from tui_opts */
	int quit;
};

/* ---- lists.c ------------------------------------------------------------------------ */

/* Re-reads both stores (reconciling first) and rebuilds the entries, keeping the selection. */
int lists_reload(struct app *a, struct err *e);
/* 1 when either store's directory changed since the last reload. */
int lists_changed(const struct app *a);
/* Rebuilds the entries from what is loaded (after a filter, search or h), keeping the selection. */
void lists_build(struct app *a);
/* The next filter after a->filter: waiting, all, then each state in lifecycle order. */
void lists_next_filter(struct app *a);
/*
 * Selects the request listed that has waited on the person longest past
 * [frontdoor] stale_hours (frontdoor/stale.h), when there is one: where the
 * screen opens.
 */
void lists_select_oldest_stale(struct app *a);
/* Moves the cursor by delta entries, over headers. */
void lists_move(struct app *a, long delta);
/* The selected request or draft; NULL when the selection is not one. */
const struct record *lists_request(const struct app *a);
const struct outbox_item *lists_draft(const struct app *a);
/* The request whose outbox list holds id, or NULL. */
const struct record *lists_request_of(const struct app *a, const char *id);
/* The pending drafts of r, from what is loaded: ids (borrowed) into out, at most max; the count. */
size_t lists_pending_of(const struct app *a, const struct record *r, const char **out,
			size_t max);
/* 1 when the record waits on the person (the default filter). */
int lists_waiting(const struct record *r);
void lists_free(struct app *a);

/* ---- detail.c ----------------------------------------------------------------------- */

/* With prose: the prose of the request it answers, marked as a third party's. */
void detail_draft(struct app *a, const struct outbox_item *it, struct lines *l, int prose);
/* What the detail pane shows for the selection (the help when there is nothing). */
void detail_selected(struct app *a, struct lines *l);
void detail_help(struct lines *l);

/* ---- screen.c ----------------------------------------------------------------------- */

void screen_init_colors(struct app *a);
/* Draws everything; refresh() is the caller's. */
void screen_draw(struct app *a);
/* Draws rows [top, top+h) of w at screen row y; returns how many rows the text has. */
size_t screen_rows(const struct app *a, const struct lines *l, const struct lines_wrap *w,
		   size_t top, int y, int h);

/* ---- prompt.c ----------------------------------------------------------------------- */

#define PROMPT_CANCEL 0x1b
/* Asks for a line of text on the bottom rows: 1 with *out (malloc'd), 0 when Esc cancelled. */
int prompt_line(struct app *a, const char *question, const char *initial, char **out);
/* Asks for one of keys (or Esc): returns the key, or PROMPT_CANCEL. */
int prompt_key(struct app *a, const char *question, const char *keys);
/*
 * A full-screen page of l under title, scrollable, with question on the last
 * row; returns one of keys or PROMPT_CANCEL. With must_read, keys[0] is
 * accepted only once the last row has been on screen.
 */
int prompt_page(struct app *a, const char *title, const struct lines *l, const char *question,
		const char *keys, int must_read);

/* ---- actions.c ---------------------------------------------------------------------- */

void actions_approve(struct app *a);
void actions_reject(struct app *a);
void actions_edit(struct app *a);
void actions_close(struct app *a);
void actions_needs_info(struct app *a);
void actions_extract(struct app *a);
void actions_triage(struct app *a);
void actions_reply(struct app *a);    /* R: the person's own reply, in the editor */
void actions_ask_back(struct app *a); /* N: needs-info with the question mailed */
void actions_decline(struct app *a);  /* D: decline a booking, or cancel a booked one */

/* Set by SIGTERM and SIGHUP: every loop returns, and the screen closes cleanly. */
extern volatile sig_atomic_t app_stop;

/* ---- tui.c: the message line ------------------------------------------------------- */

/* Replaces the message (raw text; drawn safely). */
void app_say(struct app *a, int bad, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* Adds a line to the message. */
void app_say_more(struct app *a, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Shows a "working…" message now, before a call that may take a while. */
void app_busy(struct app *a, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* After an action: reload (reconciling), and report what stderr received. */
void app_after(struct app *a);

/* ---- capture.c ---------------------------------------------------------------------- */

int capture_start(struct capture *c);
/* Gives the terminal's stderr back while an editor runs, and takes it again. */
void capture_pause(struct capture *c);
void capture_resume(struct capture *c);
/* What was written since the last take, as a malloc'd string, or NULL when nothing. */
char *capture_take(struct capture *c);
/* Restores stderr and writes each distinct line it received there, once. */
void capture_stop(struct capture *c);

#endif
