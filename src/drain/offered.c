/*
 * offered — the list of what home pushed (written by push_slots, read by
 * the sweep's check), and the check itself: the type, the list, the
 * [availability] computation of slots.c asked about one slot, the link.
 */
#include "drain/offered.h"

#include "base/buf.h"
#include "base/err.h"
#include "base/fs.h"
#include "base/jsonio.h"
#include "base/rfc3339.h"
#include "config/home.h"
#include "drain/gate.h"
#include "drain/slots.h"
#include "types/catalog.h"
#include "types/manifest.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define OFFERED_DIR "offered"
#define ID_CHARS "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-"
#define HANDLE_MAX 64
#define MANAGE_TOKEN_LEN 32 /* box/visit.h: VISIT_TOKEN_LEN, 16 random bytes in hex */

struct offer {
	time_t start, end, offered_at;
	long long duration;
};

struct offered_type {
	char *id;
	struct manifest *m; /* NULL: not a booking type this home has (why says so) */
	char why[300];
	int pushed;         /* a list is there */
	time_t pushed_at;
	struct offer *v;
	size_t n;
};

/* ---- the file ------------------------------------------------------------------------ */

static int id_ok(const char *id)
{
	size_t n = strlen(id);

	return n > 0 && n <= 128 && strspn(id, ID_CHARS) == n;
}

static char *list_path(const char *id, struct err *e)
{
	char *factory = home_default(HOME_FACTORY, e), *dir, *name, *path;

	if (!factory)
		return NULL;
	dir = fs_join(factory, OFFERED_DIR);
	name = xasprintf("%s.json", id);
	path = fs_join(dir, name);
	free(name);
	free(dir);
	free(factory);
	return path;
}

/* One entry of the list; 0 when it does not read (the whole list is then refused). */
static int offer_of(const json_t *o, struct offer *out)
{
	const json_t *d = json_object_get(o, "duration_minutes");

	return json_is_object(o) && json_is_integer(d) &&
	       rfc3339_parse(jsonio_str_or(o, "start", ""), &out->start) == 0 &&
	       rfc3339_parse(jsonio_str_or(o, "end", ""), &out->end) == 0 &&
	       rfc3339_parse(jsonio_str_or(o, "offered_at", ""), &out->offered_at) == 0 &&
	       (out->duration = json_integer_value(d)) * 60 == (long long)(out->end - out->start);
}

/* The list at path into t; 0 with t->pushed 0 when there is none. */
static int list_read(const char *path, struct offered_type *t, struct err *e)
{
	json_t *doc = jsonio_load(path, e), *slots;
	size_t i;

	if (!doc)
		return e->code == ERR_NOT_FOUND ? 0 : -1;
	slots = json_object_get(doc, "slots");
	if (!json_is_array(slots) ||
	    rfc3339_parse(jsonio_str_or(doc, "pushed_at", ""), &t->pushed_at) != 0) {
		json_decref(doc);
		return err_set(e, ERR_PARSE, "%s: not a list of offered slots", path);
	}
	t->v = xcalloc(json_array_size(slots) + 1, sizeof *t->v);
	for (i = 0; i < json_array_size(slots); i++)
		if (!offer_of(json_array_get(slots, i), &t->v[i])) {
			json_decref(doc);
			return err_set(e, ERR_PARSE, "%s: slot %zu does not read", path, i);
		}
	t->n = i;
	t->pushed = 1;
	json_decref(doc);
	return 0;
}

static json_t *offer_json(time_t start, time_t end, long long duration, time_t offered_at)
{
	char a[RFC3339_LEN], b[RFC3339_LEN], c[RFC3339_LEN];

	rfc3339_format(start, a);
	rfc3339_format(end, b);
	rfc3339_format(offered_at, c);
	return json_pack("{s:s,s:s,s:I,s:s}", "start", a, "end", b, "duration_minutes",
			 (json_int_t)duration, "offered_at", c);
}

int offered_save(const struct manifest *m, const struct slots *s, struct err *e)
{
	struct offered_type old = { 0 };
	char *path = list_path(m->id, e), *dir = NULL, *text;
	time_t bound = s->generated_at + (time_t)m->availability->min_notice_hours * 3600;
	json_t *list = json_array(), *doc;
	char at[RFC3339_LEN];
	int rc = -1;

	if (!path)
		goto out;
	/* A list that no longer reads is replaced: it is ours, and the push is the truth now. */
	if (list_read(path, &old, e) != 0)
		old.n = 0;
	for (size_t i = 0; i < old.n; i++)
		if (old.v[i].start < bound && old.v[i].end > s->generated_at)
			json_array_append_new(list, offer_json(old.v[i].start, old.v[i].end,
							       old.v[i].duration,
							       old.v[i].offered_at));
	for (size_t i = 0; i < s->n; i++)
		json_array_append_new(list, offer_json(s->v[i].start, s->v[i].end,
						       s->v[i].duration, s->generated_at));
	rfc3339_format(s->generated_at, at);
	doc = json_pack("{s:s,s:s,s:s,s:o}", "type", m->id, "pushed_at", at, "fingerprint",
			s->fingerprint, "slots", list);
	text = jsonio_compact(doc);
	dir = fs_dirname(path);
	if (fs_private_dir(dir, e) == 0 && fs_replace(path, text, strlen(text), e) == 0)
		rc = 0;
	free(text);
	json_decref(doc);
out:
	free(old.v);
	free(dir);
	free(path);
	return rc;
}

int offered_last(const char *id, time_t *pushed_at, char fingerprint[65], struct err *e)
{
	char *path = id_ok(id) ? list_path(id, e) : NULL;
	json_t *doc = path ? jsonio_load(path, e) : NULL;
	int rc = -1;

	*pushed_at = 0;
	fingerprint[0] = '\0';
	if (!id_ok(id))
		err_set(e, ERR_NOT_FOUND, "no booking type `%s`", id);
	else if (!doc && path && e->code == ERR_NOT_FOUND)
		rc = 0;
	else if (doc && rfc3339_parse(jsonio_str_or(doc, "pushed_at", ""), pushed_at) != 0)
		err_set(e, ERR_PARSE, "%s: not a list of offered slots", path);
	else if (doc) {
		/* A list from before fingerprints were kept has none: it differs from any. */
		snprintf(fingerprint, 65, "%s", jsonio_str_or(doc, "fingerprint", ""));
		rc = 1;
	}
	json_decref(doc);
	free(path);
	return rc;
}

/* ---- the check --------------------------------------------------------------------- */

static struct offered_type *type_of(struct offered_judge *j, const char *id, struct err *e)
{
	struct offered_type *t;
	struct err why;
	char *path;

	for (size_t i = 0; i < j->n; i++)
		if (strcmp(j->types[i].id, id) == 0)
			return &j->types[i];
	j->types = xrealloc(j->types, (j->n + 1) * sizeof *j->types);
	t = &j->types[j->n++];
	memset(t, 0, sizeof *t);
	t->id = xstrdup(id);
	if (!id_ok(id) || catalog_load(id, &t->m, NULL, &why) != 0) {
		t->m = NULL;
		snprintf(t->why, sizeof t->why, "this home has no request type `%s`", id);
		return t;
	}
	if (!t->m->booking || !t->m->availability) {
		manifest_free(t->m);
		t->m = NULL;
		snprintf(t->why, sizeof t->why, "`%s` is a request type, not a booking (kind = "
			 "\"booking\"): it offers no slots", id);
		return t;
	}
	if (!(path = list_path(id, e)))
		return NULL;
	if (list_read(path, t, e) != 0) {
		free(path);
		return NULL;
	}
	free(path);
	return t;
}

static const struct offer *find(const struct offered_type *t, time_t start, time_t end)
{
	for (size_t i = 0; i < t->n; i++)
		if (t->v[i].start == start && t->v[i].end == end)
			return &t->v[i];
	return NULL;
}

/* {gate}/s/{handle}/{type}/m/{token}, exactly. */
static int link_shape(const char *gate, const char *type, const char *link)
{
	size_t g = strlen(gate), h, n = strlen(type);
	const char *p = link + g;

	if (strncmp(link, gate, g) != 0 || strncmp(p, "/s/", 3) != 0)
		return 0;
	p += 3;
	h = strspn(p, ID_CHARS);
	if (h == 0 || h > HANDLE_MAX || p[h] != '/')
		return 0;
	p += h + 1;
	if (strncmp(p, type, n) != 0 || strncmp(p + n, "/m/", 3) != 0)
		return 0;
	p += n + 3;
	return strspn(p, "0123456789abcdef") == MANAGE_TOKEN_LEN && p[MANAGE_TOKEN_LEN] == '\0';
}

static void link_check(struct offered_judge *j, const char *type, const char *link,
		       struct offered_answer *out)
{
	struct err e;

	if (!j->gate_asked) {
		j->gate_asked = 1;
		if (!(j->gate = gate_address(&e)))
			snprintf(j->gate_why, sizeof j->gate_why, "%s", e.msg);
	}
	if (!j->gate)
		snprintf(out->link_why, sizeof out->link_why, "bad_manage_url: the manage link was "
			 "left out of the invitation: there is no gate to check it against (%s)",
			 j->gate_why);
	else if (!link_shape(j->gate, type, link))
		snprintf(out->link_why, sizeof out->link_why, "bad_manage_url: the manage link was "
			 "left out of the invitation: it is not a link of the gate %s "
			 "(%s/s/…/%s/m/…)", j->gate, j->gate, type);
	else
		out->link_ok = 1;
}

int offered_check(struct offered_judge *j, const char *type_id, time_t start, time_t end,
		  const char *link, struct offered_answer *out, struct err *e)
{
	struct offered_type *t = type_of(j, type_id, e);
	const struct offer *o;
	int fit;

	memset(out, 0, sizeof *out);
	if (!t)
		return -1;
	if (!t->m) {
		out->verdict = OFFERED_NOT_BOOKING;
		snprintf(out->why, sizeof out->why, "not_a_booking_type: %s", t->why);
		return 0;
	}
	out->buffer_minutes = t->m->availability->buffer_minutes;
	if (link)
		link_check(j, type_id, link, out);
	if (!t->pushed) {
		out->verdict = OFFERED_NO;
		snprintf(out->why, sizeof out->why, "not_offered: `mecha slots push %s` never "
			 "offered any slot", type_id);
		return 0;
	}
	o = find(t, start, end);
	fit = slots_fit(t->m->availability, o ? o->offered_at : t->pushed_at, start, end, e);
	if (fit < 0)
		return -1;
	if (!fit) {
		out->verdict = OFFERED_NO;
		snprintf(out->why, sizeof out->why, "not_offered: the slot does not fit the "
			 "[availability] of `%s` (its windows, durations, notice and horizon)",
			 type_id);
	} else if (!o) {
		out->verdict = OFFERED_WITHDRAWN;
		snprintf(out->why, sizeof out->why, "not_offered: the slot is not among those "
			 "`mecha slots push %s` last offered", type_id);
	}
	return 0;
}

void offered_judge_free(struct offered_judge *j)
{
	for (size_t i = 0; i < j->n; i++) {
		free(j->types[i].id);
		manifest_free(j->types[i].m);
		free(j->types[i].v);
	}
	free(j->types);
	free(j->gate);
	memset(j, 0, sizeof *j);
}
