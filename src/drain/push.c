/*
 * push — a manifest and a booking type's slots, checked at home and PUT.
 */
#include "drain/push.h"

#include "base/buf.h"
#include "base/err.h"
#include "base/fs.h"
#include "base/jsonio.h"
#include "drain/gate.h"
#include "drain/offered.h"
#include "drain/slots.h"
#include "types/catalog.h"
#include "types/manifest.h"

#include <stdlib.h>
#include <string.h>

#define PUSH_TIMEOUT_S 60

/* PUT body to path with key which; the box's JSON answer (NEW), or NULL with e. */
static json_t *put(struct gate *g, const char *path, const char *body, size_t len,
		   const char *content_type, struct err *e)
{
	struct gate_request rq = { "PUT", path, body, len, content_type, GATE_JSON_MAX,
				   PUSH_TIMEOUT_S, 0 };
	struct gate_reply reply = GATE_REPLY_INIT;
	json_t *answer = NULL;

	if (gate_call(g, &rq, &reply, e) == 0)
		answer = gate_json(g, &rq, &reply, e);
	gate_reply_free(&reply);
	return answer;
}

int push_type(const char *id, json_t **answer, struct err *e)
{
	struct manifest *m = NULL;
	char *path = NULL, *text = NULL, *route;
	struct gate g;
	size_t len;

	*answer = NULL;
	if (catalog_load(id, &m, NULL, e) != 0 || !(path = catalog_path(id, e)) ||
	    fs_read(path, &text, &len, e) != 0 || gate_open(GATE_RELEASE, &g, e) != 0)
		goto out;
	route = xasprintf("/v1/types/%s", m->id);
	*answer = put(&g, route, text, len, "application/toml", e);
	free(route);
	gate_close(&g);
out:
	manifest_free(m);
	free(path);
	free(text);
	return *answer ? 0 : -1;
}

/* What the box took, kept at home for the sweep (offered.h). */
static int remember(const struct slots *s, struct err *e)
{
	struct manifest *m = NULL;
	int rc = catalog_load(s->type, &m, NULL, e) == 0 ? offered_save(m, s, e) : -1;

	manifest_free(m);
	if (rc != 0)
		err_prefix(e, "the box took the slots, but home could not keep what it offered "
			   "(the sweep books only those; push again)");
	return rc;
}

/* PUTs the computed slots s (borrowed): push_slots after its computation. */
static int push_computed(const struct slots *s, int dry_run, struct push_slots *out,
			 struct err *e)
{
	struct gate g;
	char *body, *route;
	int rc = 0;

	memset(out, 0, sizeof *out);
	if (gate_open(GATE_SLOTS, &g, e) != 0)
		return -1;
	out->gate = xstrdup(g.url);
	out->n = s->n;
	out->dropped = s->dropped;
	out->body = slots_json(s);
	if (!dry_run) {
		body = jsonio_compact(out->body);
		route = xasprintf("/v1/instruments/%s/slots", s->type);
		out->answer = put(&g, route, body, strlen(body), "application/json", e);
		rc = out->answer ? 0 : -1;
		if (rc == 0)
			rc = remember(s, e);
		free(route);
		free(body);
	}
	gate_close(&g);
	return rc;
}

int push_slots(const char *id, const char *from, int dry_run, struct push_slots *out,
	       struct err *e)
{
	struct slots s;
	int rc;

	memset(out, 0, sizeof *out);
	if (slots_of_type(id, from, &s, e) != 0)
		return -1;
	rc = push_computed(&s, dry_run, out, e);
	slots_free(&s);
	return rc;
}

/* ---- following the calendar ------------------------------------------------------------ */

/* The state of type id now, with the slots it computed kept in *s (slots_free) on success. */
static int state_of(const char *id, struct slots *s, struct push_state *st, struct err *e)
{
	char last[65];
	int pushed;

	memset(st, 0, sizeof *st);
	if ((pushed = offered_last(id, &st->pushed_at, last, e)) < 0 ||
	    slots_of_type(id, NULL, s, e) != 0)
		return -1;
	st->pushed = pushed;
	st->changed = pushed && strcmp(last, s->fingerprint) != 0;
	st->now = s->generated_at;
	st->horizon_days = s->horizon_days;
	return 0;
}

int push_slots_state(const char *id, struct push_state *st, struct err *e)
{
	struct slots s = { 0 };
	int rc = state_of(id, &s, st, e);

	slots_free(&s);
	return rc;
}

/* 1 when id is a kind = "booking" type this home has. */
static int is_booking(const char *id)
{
	struct manifest *m = NULL;
	struct err e;
	int yes = catalog_load(id, &m, NULL, &e) == 0 && m->booking && m->availability;

	manifest_free(m);
	return yes;
}

int push_slots_due(long long max_age, void (*line)(const struct push_due_line *l, void *ctx),
		   void *ctx, struct err *e)
{
	char **ids = NULL;
	size_t n = 0;
	int pushed = 0;

	if (catalog_ids(&ids, &n, e) != 0)
		return -1;
	for (size_t i = 0; i < n; i++) {
		struct push_due_line l = { ids[i], NULL, NULL, NULL };
		struct push_state st;
		struct push_slots p = { 0 };
		struct slots s = { 0 };
		struct err why;
		char last[65];
		time_t at;

		err_clear(&why);
		if (!is_booking(ids[i]) || offered_last(ids[i], &at, last, &why) == 0)
			continue; /* never pushed: nothing to follow (mecha doctor says so) */
		if (state_of(ids[i], &s, &st, &why) != 0) {
			l.failed = &why;
		} else if (st.changed || (max_age > 0 && st.now - st.pushed_at >= max_age)) {
			l.why = st.changed ? "the calendar or the type changed"
					   : "the last push is an hour old or more";
			if (push_computed(&s, 0, &p, &why) == 0) {
				l.pushed = &p;
				pushed++;
			} else {
				l.failed = &why;
			}
		}
		if ((l.pushed || l.failed) && line)
			line(&l, ctx);
		push_slots_free(&p);
		slots_free(&s);
	}
	catalog_ids_free(ids, n);
	return pushed;
}

void push_slots_free(struct push_slots *p)
{
	free(p->gate);
	json_decref(p->body);
	json_decref(p->answer);
	memset(p, 0, sizeof *p);
}
