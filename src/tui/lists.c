/*
 * lists — what the screen lists: every request and every draft, loaded
 * through the reconciling pass, narrowed by the state filter and the search,
 * and reloaded when another process (a sweep, another terminal, an agent)
 * changes either store.
 *
 * A change is noticed from the directories' modification times: both stores
 * replace a file by renaming a new one into place, and a rename changes its
 * directory. Reading the times is two stat calls, cheap enough for every
 * tick of the loop; the stores are re-read only when one moved.
 */
#include "tui/app.h"

#include "base/clock.h"
#include "base/err.h"
#include "base/jsonio.h"
#include "base/verdict.h"
#include "frontdoor/stale.h"
#include "requests/state.h"
#include "requests/store.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* ---- noticing a change ---------------------------------------------------------------- */

/*
 * The kernel stamps a directory from a clock that ticks every few
 * milliseconds, so two changes close together can leave the same time. A
 * stamp taken within a second of its change is therefore racy (git's word
 * for its index): it counts as changed until a look a second later confirms it.
 */
static struct stamp stamp_of(const char *dir)
{
	struct stamp s = { 0, { 0, 0 }, 0 };
	struct timespec now;
	struct stat st;

	if (dir && stat(dir, &st) == 0) {
		s.exists = 1;
		s.mtime = st.st_mtim;
		clock_gettime(CLOCK_REALTIME, &now);
		s.racy = now.tv_sec - st.st_mtim.tv_sec < 2;
	}
	return s;
}

static int stamp_same(struct stamp a, struct stamp b)
{
	return !a.racy && a.exists == b.exists && a.mtime.tv_sec == b.mtime.tv_sec &&
	       a.mtime.tv_nsec == b.mtime.tv_nsec;
}

static void build_entries(struct app *a);

/* ---- loading ---------------------------------------------------------------------------- */

static int collect(struct record *r, void *ctx, struct err *e)
{
	struct app *a = ctx;

	if (a->nrecords == a->caprecords) {
		a->caprecords = a->caprecords ? a->caprecords * 2 : 64;
		a->records = xrealloc(a->records, a->caprecords * sizeof *a->records);
	}
	a->records[a->nrecords] = *r;
	json_incref(r->doc);
	a->nrecords++;
	return VERDICT_NEXT;
}

static void on_move(const struct reconcile_move *m, void *ctx)
{
	app_say_more(ctx, "request %lld: %s → %s", m->seq, m->from, m->to);
}

static void on_skip(long long seq, const struct err *why, void *ctx)
{
	app_say_more(ctx, "reconcile skipped request %lld: %s", seq, why->msg);
}

static void free_loaded(struct app *a)
{
	for (size_t i = 0; i < a->nrecords; i++)
		record_free(&a->records[i]);
	a->nrecords = 0;
	outbox_list_free(&a->drafts);
	reconcile_outbox_close(&a->statuses);
}

static int load_requests(struct app *a, struct err *e)
{
	struct reconcile_report rep = { .on_move = on_move, .on_skip = on_skip, .ctx = a };
	struct store s;
	int rc;

	if (store_open(&s, a->requests_dir, STORE_READ, e) != 0)
		return -1;
	rc = reconcile_each(&s, collect, a, &rep, e);
	store_close(&s);
	return rc;
}

static int load_drafts(struct app *a, struct err *e)
{
	struct outbox_store ob;
	int rc;

	if (outbox_store_open(&ob, a->cfg.outbox_dir, OUTBOX_READ, e) != 0)
		return -1;
	rc = outbox_store_list(&ob, &a->drafts, stderr, e);
	outbox_store_close(&ob);
	return rc;
}

/* The selection, by what it is rather than where it was. */
struct key {
	enum entry_kind kind;
	long long seq;
	char *id;
};

static struct key key_of(const struct app *a)
{
	struct key k = { ENTRY_HEADER, -1, NULL };
	const struct record *r = lists_request(a);
	const struct outbox_item *it = lists_draft(a);

	if (r) {
		k.kind = ENTRY_REQUEST;
		k.seq = r->seq;
	} else if (it) {
		k.kind = ENTRY_DRAFT;
		k.id = xstrdup(it->id);
	}
	return k;
}

static int key_is(const struct app *a, const struct entry *en, const struct key *k)
{
	if (en->kind != k->kind)
		return 0;
	if (en->kind == ENTRY_REQUEST)
		return a->records[en->index].seq == k->seq;
	return en->kind == ENTRY_DRAFT && strcmp(a->drafts.items[en->index].id, k->id) == 0;
}

static void restore(struct app *a, const struct key *k)
{
	for (size_t i = 0; i < a->nentries; i++)
		if (key_is(a, &a->entries[i], k)) {
			if (i != a->cursor)
				a->detail_top = 0;
			a->cursor = i;
			return;
		}
	a->detail_top = 0;
	lists_move(a, 0); /* the same place, or the nearest row that is an entry */
}

int lists_changed(const struct app *a)
{
	return !stamp_same(a->stamps[0], stamp_of(a->requests_dir)) ||
	       !stamp_same(a->stamps[1], stamp_of(a->cfg.outbox_dir));
}

int lists_reload(struct app *a, struct err *e)
{
	struct key k = key_of(a);
	int rc;

	/* Before reading: a change made while we read is a change still to see. */
	a->stamps[0] = stamp_of(a->requests_dir);
	a->stamps[1] = stamp_of(a->cfg.outbox_dir);
	free_loaded(a);
	rc = load_requests(a, e);
	if (rc == 0)
		rc = load_drafts(a, e);
	reconcile_outbox_open(&a->statuses);
	build_entries(a);
	restore(a, &k);
	free(k.id);
	return rc;
}

void lists_free(struct app *a)
{
	free_loaded(a);
	free(a->records);
	free(a->entries);
	a->records = NULL;
	a->entries = NULL;
	a->nentries = a->caprecords = 0;
}

/* ---- which rows --------------------------------------------------------------------------- */

int lists_waiting(const struct record *r)
{
	const char *state = record_state(r);

	/* The state table's attributes (requests/state.h), as `frontdoor list` reads them. */
	return state_has(state, STATE_WAITING) ||
	       (state_has(state, STATE_INVALID_WAITS) && !record_valid(r));
}

static int filter_ok(const struct app *a, const struct record *r)
{
	if (strcmp(a->filter, APP_FILTER_WAITING) == 0)
		return lists_waiting(r);
	return strcmp(a->filter, APP_FILTER_ALL) == 0 || strcmp(a->filter, record_state(r)) == 0;
}

static int has(const char *hay, const char *needle)
{
	return hay && strcasestr(hay, needle) != NULL;
}

static int has_json(const json_t *v, const char *needle)
{
	char *s = v ? jsonio_compact(v) : NULL;
	int found = has(s, needle);

	free(s);
	return found;
}

static int request_matches(const struct record *r, const char *q)
{
	struct prose_field *prose;
	size_t n = record_prose(r, &prose);
	char seq[24];
	int found = 0;

	snprintf(seq, sizeof seq, "%lld", r->seq);
	for (size_t i = 0; i < n && !found; i++)
		found = has(prose[i].text, q);
	free(prose);
	return found || has(seq, q) || has(r->type_id, q) || has(record_state(r), q) ||
	       has(record_note(r), q) || has(record_reply_to(r), q) ||
	       has_json(record_values(r), q) || has_json(record_extraction(r), q);
}

static int draft_matches(const struct outbox_item *it, const char *q)
{
	return has(it->id, q) || has(it->status, q) || has(it->tool, q) || has(it->summary, q) ||
	       has(it->reason, q) || has_json(it->args, q);
}

static void add_entry(struct app *a, enum entry_kind kind, size_t index)
{
	a->entries[a->nentries++] = (struct entry){ kind, index };
}

static void build_entries(struct app *a)
{
	const char *q = a->search && *a->search ? a->search : NULL;

	free(a->entries);
	a->entries = xcalloc(a->nrecords + a->drafts.n + 2, sizeof *a->entries);
	a->nentries = 0;
	memset(a->counts, 0, sizeof a->counts);
	add_entry(a, ENTRY_HEADER, 0);
	for (size_t i = 0; i < a->nrecords; i++) {
		const struct record *r = &a->records[i];
		a->counts[0] += (size_t)lists_waiting(r);
		if (filter_ok(a, r) && (!q || request_matches(r, q)))
			add_entry(a, ENTRY_REQUEST, i);
	}
	add_entry(a, ENTRY_HEADER, 1);
	for (int pass = 0; pass < 2; pass++) /* pending first, then (with h) the resolved */
		for (size_t i = 0; i < a->drafts.n; i++) {
			const struct outbox_item *it = &a->drafts.items[i];
			int pending = outbox_item_pending(it);
			a->counts[1] += (size_t)(pass == 0 && pending);
			if (pending != (pass == 0) || (!pending && !a->show_resolved))
				continue;
			if (!q || draft_matches(it, q))
				add_entry(a, ENTRY_DRAFT, i);
		}
	a->counts[2] = a->nrecords;
	a->counts[3] = a->drafts.n;
	if (a->cursor >= a->nentries)
		a->cursor = a->nentries - 1;
}

void lists_build(struct app *a)
{
	struct key k = key_of(a);

	build_entries(a);
	restore(a, &k);
	free(k.id);
}

void lists_next_filter(struct app *a)
{
	const char *next = APP_FILTER_ALL;

	if (strcmp(a->filter, APP_FILTER_ALL) == 0) {
		next = state_all[0];
	} else if (strcmp(a->filter, APP_FILTER_WAITING) != 0) {
		next = APP_FILTER_WAITING;
		for (size_t i = 0; state_all[i]; i++)
			if (strcmp(a->filter, state_all[i]) == 0 && state_all[i + 1])
				next = state_all[i + 1];
	}
	snprintf(a->filter, sizeof a->filter, "%s", next);
	lists_build(a);
}

void lists_move(struct app *a, long delta)
{
	long n = (long)a->nentries, i = (long)a->cursor + delta, step = delta < 0 ? -1 : 1;

	if (i < 0)
		i = 0;
	if (i >= n)
		i = n - 1;
	while (i >= 0 && i < n && a->entries[i].kind == ENTRY_HEADER)
		i += step;
	if (i < 0 || i >= n) /* nothing that way: the other way, or stay */
		for (i = (long)a->cursor < n ? (long)a->cursor : n - 1;
		     i >= 0 && i < n && a->entries[i].kind == ENTRY_HEADER; i -= step)
			;
	if (i < 0 || i >= n)
		i = (long)a->cursor < n ? (long)a->cursor : 0;
	if ((size_t)i != a->cursor)
		a->detail_top = 0;
	a->cursor = (size_t)i;
}

/* ---- what is selected ---------------------------------------------------------------------- */

const struct record *lists_request(const struct app *a)
{
	if (a->cursor >= a->nentries || a->entries[a->cursor].kind != ENTRY_REQUEST)
		return NULL;
	return &a->records[a->entries[a->cursor].index];
}

const struct outbox_item *lists_draft(const struct app *a)
{
	if (a->cursor >= a->nentries || a->entries[a->cursor].kind != ENTRY_DRAFT)
		return NULL;
	return &a->drafts.items[a->entries[a->cursor].index];
}

const struct record *lists_request_of(const struct app *a, const char *id)
{
	for (size_t i = 0; i < a->nrecords; i++)
		if (record_has_draft(&a->records[i], id))
			return &a->records[i];
	return NULL;
}

size_t lists_pending_of(const struct app *a, const struct record *r, const char **out,
			size_t max)
{
	json_t *v;
	size_t i, n = 0;

	json_array_foreach(record_outbox(r), i, v) {
		const struct outbox_item *it =
			json_is_string(v) ? outbox_list_find(&a->drafts, json_string_value(v)) : NULL;
		if (it && outbox_item_pending(it) && n < max)
			out[n++] = it->id;
	}
	return n;
}

/* ---- where the screen opens ------------------------------------------------------------- */

void lists_select_oldest_stale(struct app *a)
{
	long hours = stale_request_hours(&a->cfg);
	time_t now = clock_now(), best = 0;
	size_t at = a->nentries;

	for (size_t i = 0; i < a->nentries; i++) {
		const struct record *r;
		if (a->entries[i].kind != ENTRY_REQUEST)
			continue;
		r = &a->records[a->entries[i].index];
		if (stale_request(r, hours, now) && (at == a->nentries || stale_since(r) < best)) {
			at = i;
			best = stale_since(r);
		}
	}
	if (at < a->nentries && at != a->cursor) {
		a->cursor = at;
		a->detail_top = 0;
	}
}
