/*
 * remote — what the configuration points at outside the home: the provider,
 * the mail route and the calendar. Each is reached the way the verb that uses
 * it would reach it, and stopped before it would change anything: the
 * provider is asked for its models list (no completion), the SMTP server
 * hears EHLO and the login (no message), the calendar is read (not written),
 * and the box (when one is paired) is asked with each key for what that key
 * may do, by a read or by a body it refuses, so nothing on it changes.
 */
#include "doctor/check.h"

#include "base/buf.h"
#include "base/err.h"
#include "base/fs.h"
#include "base/rfc3339.h"
#include "calendar/calendar.h"
#include "drain/gate.h"
#include "drain/push.h"
#include "frontdoor/model.h"
#include "outbox/mail.h"
#include "outbox/probe.h"
#include "types/catalog.h"
#include "types/manifest.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static int offline(struct doctor *d, const char *check, const char *what)
{
	if (!(d->flags & DOCTOR_OFFLINE))
		return 0;
	doctor_say(d, check, DOCTOR_WARN, "run mecha doctor without --offline to reach it",
		   "%s: not reached (--offline)", what);
	return 1;
}

/* ---- the provider ------------------------------------------------------------------ */

static const char *provider_fix(enum err_code code)
{
	switch (code) {
	case ERR_PROVIDER_HTTP:
		return "check the key in the variable api_key_env names, the model and base_url";
	case ERR_PROVIDER_TIMEOUT:
	case ERR_PROVIDER_TRANSPORT:
		return "check base_url, and that the server is running and reachable from here";
	default:
		return "correct the [providers.NAME] table default_provider names";
	}
}

static void probe_provider(struct doctor *d, const struct provider_conf *pc)
{
	struct err e;
	char *what = xasprintf("provider '%s' (%s, model %s)", pc->name, pc->kind,
			       pc->model ? pc->model : "none");

	err_clear(&e);
	if (!offline(d, "provider", what)) {
		if (provider_probe(pc, &e) != 0)
			doctor_say(d, "provider", DOCTOR_FAIL, provider_fix(e.code), "%s", e.msg);
		else
			doctor_say(d, "provider", DOCTOR_OK, NULL, "%s answered", what);
	}
	free(what);
}

void doctor_provider(struct doctor *d)
{
	struct provider_conf pc;
	struct err e;

	if (!d->cfg_ok) {
		doctor_skip(d, "provider");
		return;
	}
	err_clear(&e);
	if (model_conf(&d->cfg, &pc, &e) != 0) {
		doctor_say(d, "provider", DOCTOR_FAIL, "see the message: the verbs that call a model "
			   "stop there too", "%s", e.msg);
		return;
	}
	if (provider_is_rules(&pc))
		doctor_say(d, "provider", DOCTOR_WARN, "set default_provider and its "
			   "[providers.NAME] table in config.toml",
			   "no model provider: extract uses the offline rules extractor, and triage "
			   "cannot run");
	else
		probe_provider(d, &pc);
	model_conf_release(&pc);
}

/* ---- mail ---------------------------------------------------------------------------- */

static void probe_smtp(struct doctor *d)
{
	char *said = NULL;
	struct err e;

	err_clear(&e);
	if (offline(d, "mail", d->cfg.mail_smtp_url))
		return;
	if (mail_probe(&d->cfg, &said, &e) != 0)
		doctor_say(d, "mail", DOCTOR_FAIL, "check [mail] smtp_url, username and the password "
			   "variable, and that the server is up", "%s", e.msg);
	else
		doctor_say(d, "mail", DOCTOR_OK, NULL, "%s; nothing was sent", said);
	free(said);
}

void doctor_mail(struct doctor *d)
{
	struct err e;

	if (!d->cfg_ok) {
		doctor_skip(d, "mail");
		return;
	}
	err_clear(&e);
	if (!mail_configured(&d->cfg, &e))
		doctor_say(d, "mail", DOCTOR_WARN, "set [mail] smtp_url (or sendmail) and from",
			   "%s: approved drafts cannot be sent", e.msg);
	else if (config_require(&d->cfg, CONFIG_NEEDS_MAIL, &e) != 0)
		doctor_say(d, "mail", DOCTOR_FAIL, "see the message: approve stops there too", "%s",
			   e.msg);
	else if (d->cfg.mail_smtp_url && *d->cfg.mail_smtp_url)
		probe_smtp(d);
	else
		doctor_say(d, "mail", DOCTOR_OK, NULL, "sendmail: '%s' is a program here (not run: "
			   "it would send)", d->cfg.mail_sendmail);
}

/* ---- the calendar -------------------------------------------------------------------- */

#define WINDOW_DAYS 30

void doctor_calendar(struct doctor *d)
{
	struct calendar_interval *busy = NULL;
	size_t files, events, n = 0;
	time_t now = time(NULL);
	struct err e;

	if (!d->cfg_ok) {
		doctor_skip(d, "calendar");
		return;
	}
	err_clear(&e);
	if (!d->cfg.calendar_path || !*d->cfg.calendar_path)
		doctor_say(d, "calendar", DOCTOR_WARN, "set [calendar] path in config.toml",
			   "no calendar configured: agents cannot see when you are busy, and sweep "
			   "cannot book");
	else if (calendar_count_conf(&d->cfg, &files, &events, &e) != 0 ||
		 calendar_busy_conf(&d->cfg, now, now + WINDOW_DAYS * 86400, &busy, &n, &e) != 0)
		doctor_say(d, "calendar", DOCTOR_FAIL, "correct what the message names: free/busy "
			   "answers fail there too", "%s", e.msg);
	else
		doctor_say(d, "calendar", DOCTOR_OK, NULL, "%s: %zu %s in %zu %s; %zu busy "
			   "%s in the next %d days", d->cfg.calendar_path, events,
			   events == 1 ? "event" : "events", files, files == 1 ? "file" : "files", n,
			   n == 1 ? "interval" : "intervals", WINDOW_DAYS);
	free(busy);
}

/* ---- the box ------------------------------------------------------------------------ */

// NOLINTNEXTLINE(clang-analyzer-optin.performance.Padding): a table of five rows, read in order
static const struct {
	enum gate_key key;
	const char *scope, *probe_method, *probe_path, *probe_body;
	unsigned probe_ok; /* the status that says: accepted, with this scope, nothing changed */
} box_keys[] = {
	/* the drain's read is a pure read */
	{ GATE_DRAIN, "drain", "GET", "/v1/queue?since=0&wait=0", NULL, 200 },
	/* an empty manifest and an empty slot list: refused (400) after the key is taken */
	{ GATE_RELEASE, "release", "PUT", "/v1/types/doctor", "", 400 },
	{ GATE_SLOTS, "slots", "PUT", "/v1/instruments/doctor/slots", "", 400 },
	{ GATE_PUBLISH, "publish", "GET", "/v1/types", NULL, 200 },
};

#define PAIR_FIX "pair again: mecha box pair --owner HANDLE on the box, then mecha pair URL CODE " \
		 "--handle HANDLE here"

/* One call; the status whatever it was, -1 when no answer came (e says why). */
static long box_call(struct gate *g, const char *method, const char *path, const char *body,
		     struct gate_reply *r, struct err *e)
{
	struct gate_request rq = { method, path, body, body ? strlen(body) : 0,
				   body ? "application/json" : NULL, GATE_JSON_MAX, 20, 0 };

	gate_call(g, &rq, r, e);
	return r->status ? r->status : -1;
}

/* The queue's depth and its oldest row, from the drain's read. */
static void box_queue(struct doctor *d, const struct gate_reply *r)
{
	json_t *o = json_loadb(r->body.data ? r->body.data : "", r->body.len, 0, NULL);
	json_t *recs = json_object_get(o, "records");
	const char *oldest = json_string_value(json_object_get(json_array_get(recs, 0),
								"created_at"));
	char day_ago[RFC3339_LEN];

	rfc3339_format(time(NULL) - 86400, day_ago);
	if (!json_is_array(recs))
		doctor_say(d, "box", DOCTOR_FAIL, "check the gate: it is not a mecha box",
			   "the queue's answer is not a queue");
	else if (json_array_size(recs) == 0)
		doctor_say(d, "box", DOCTOR_OK, NULL, "queue: empty");
	else
		doctor_say(d, "box", oldest && strcmp(oldest, day_ago) < 0 ? DOCTOR_WARN : DOCTOR_OK,
			   oldest && strcmp(oldest, day_ago) < 0
				   ? "drain it: mecha drain (or run the drain service)" : NULL,
			   "queue: %zu%s waiting, the oldest from %s", json_array_size(recs),
			   json_array_size(recs) >= 100 ? " or more" : "", oldest ? oldest : "?");
	json_decref(o);
}

/* Each home type published at home's version (GET /v1/types/ID with the publish key). */
static void box_types(struct doctor *d, struct gate *g)
{
	char **ids = NULL;
	size_t n = 0;
	struct err e;

	if (catalog_ids(&ids, &n, &e) != 0)
		return;
	for (size_t i = 0; i < n; i++) {
		struct manifest *home = NULL, *there = NULL;
		struct manifest_issues is = { NULL, 0 };
		struct gate_reply r = GATE_REPLY_INIT;
		char *path = xasprintf("/v1/types/%s", ids[i]);
		long st = box_call(g, "GET", path, NULL, &r, &e);
		json_t *o = st == 200 ? json_loadb(r.body.data, r.body.len, 0, NULL) : NULL;
		const char *text = json_string_value(json_object_get(o, "manifest"));

		if (catalog_load(ids[i], &home, NULL, &e) != 0) {
			/* the types check says what is wrong with it */
		} else if (st == 404) {
			doctor_say(d, "box", DOCTOR_WARN, "mecha types push ID publishes it",
				   "type %s: not published (home has v%lld)", ids[i], home->version);
		} else if (!text || !(there = manifest_parse(text, strlen(text), &is))) {
			doctor_say(d, "box", DOCTOR_FAIL, "check the gate and the publish key",
				   "type %s: the box did not say what it serves", ids[i]);
		} else if (there->version != home->version) {
			doctor_say(d, "box", DOCTOR_FAIL, "mecha types push ID publishes home's",
				   "type %s: the box serves v%lld, home has v%lld", ids[i],
				   there->version, home->version);
		} else {
			doctor_say(d, "box", DOCTOR_OK, NULL, "type %s: published at v%lld", ids[i],
				   home->version);
		}
		manifest_free(home);
		manifest_free(there);
		manifest_issues_free(&is);
		json_decref(o);
		gate_reply_free(&r);
		free(path);
	}
	catalog_ids_free(ids, n);
}

/* A gate is configured: $FACTORY_GATE, or the factory's config.toml. */
static int box_paired(const struct doctor *d)
{
	char *conf = d->home ? fs_join(d->home, "factory/config.toml") : NULL;
	const char *env = getenv("FACTORY_GATE");
	int paired = (env && *env) || (conf && access(conf, F_OK) == 0);

	free(conf);
	return paired;
}

void doctor_box(struct doctor *d)
{
	int paired = box_paired(d), reached = 0;

	if (!d->cfg_ok) {
		doctor_skip(d, "box");
		return;
	}
	if (!paired) {
		doctor_say(d, "box", DOCTOR_OK, NULL, "no box paired (mecha pair URL CODE --handle "
			   "HANDLE pairs one)");
		return;
	}
	if (offline(d, "box", "the box"))
		return;
	for (size_t i = 0; i < sizeof box_keys / sizeof box_keys[0]; i++) {
		struct gate g;
		struct gate_reply r = GATE_REPLY_INIT;
		struct err e;
		long st;

		err_clear(&e);
		if (gate_open(box_keys[i].key, &g, &e) != 0) {
			doctor_say(d, "box", e.code == ERR_NOT_FOUND ? DOCTOR_WARN : DOCTOR_FAIL,
				   e.code == ERR_NOT_FOUND ? PAIR_FIX : "correct what the message names",
				   "%s key: %s", box_keys[i].scope, e.msg);
			continue;
		}
		st = box_call(&g, box_keys[i].probe_method, box_keys[i].probe_path,
			      box_keys[i].probe_body, &r, &e);
		if (st < 0 && !reached)
			doctor_say(d, "box", DOCTOR_FAIL, "check the gate, and that the box is up",
				   "gate %s: %s", g.url, e.msg);
		else if (st == 401 || st == 403)
			doctor_say(d, "box", DOCTOR_FAIL, PAIR_FIX, "%s key %s: the box %s", box_keys[i].scope,
				   g.key_path, st == 401 ? "does not take it" : "takes it for another scope");
		else if (st == (long)box_keys[i].probe_ok)
			doctor_say(d, "box", DOCTOR_OK, NULL, "%s key: taken by %s, with its scope",
				   box_keys[i].scope, g.url);
		else if (st > 0)
			doctor_say(d, "box", DOCTOR_FAIL, "check the gate: it is not a mecha box",
				   "%s key: %s answered HTTP %ld", box_keys[i].scope, g.url, st);
		reached |= st > 0;
		if (st == 200 && box_keys[i].key == GATE_DRAIN)
			box_queue(d, &r);
		if (st == 200 && box_keys[i].key == GATE_PUBLISH)
			box_types(d, &g);
		gate_reply_free(&r);
		gate_close(&g);
	}
}

/* ---- the slots ------------------------------------------------------------------------ */

#define SLOTS_SERVICE "the drain service (docs/mecha-drain.service) pushes them as the " \
		      "calendar changes; is it running?"

/* One booking type's pushes against its calendar (drain/push.h, push_slots_state). */
static void slots_of(struct doctor *d, const char *id)
{
	char *fix = xasprintf("mecha slots push %s", id);
	char *fix_service = xasprintf("mecha slots push %s; %s", id, SLOTS_SERVICE);
	char at[RFC3339_LEN];
	struct push_state st;
	struct err e;
	time_t runs_out;

	err_clear(&e);
	if (push_slots_state(id, &st, &e) != 0) {
		doctor_say(d, "slots", DOCTOR_FAIL, "correct what the message names: mecha slots "
			   "push stops there too", "type %s: %s", id, e.msg);
		goto out;
	}
	rfc3339_format(st.pushed_at, at);
	runs_out = st.pushed_at + (time_t)st.horizon_days * 86400;
	if (!st.pushed)
		doctor_say(d, "slots", DOCTOR_FAIL, fix, "type %s: its slots were never pushed: the "
			   "box offers no time", id);
	else if (st.now >= runs_out)
		doctor_say(d, "slots", DOCTOR_FAIL, fix_service, "type %s: the last push (%s) offered "
			   "times up to %lld days ahead, and they have all passed", id, at,
			   st.horizon_days);
	else if (st.changed)
		doctor_say(d, "slots", DOCTOR_WARN, fix_service, "type %s: the calendar or the type "
			   "changed since the last push (%s): the box may offer a time now taken", id,
			   at);
	else if (st.now - st.pushed_at > PUSH_SLOTS_MAX_AGE_S)
		doctor_say(d, "slots", DOCTOR_WARN, fix_service, "type %s: last pushed %s, over an "
			   "hour ago: the box's times lag the clock (notice and horizon)", id, at);
	else
		doctor_say(d, "slots", DOCTOR_OK, NULL, "type %s: slots pushed %s; the calendar has "
			   "not changed since", id, at);
out:
	free(fix);
	free(fix_service);
}

void doctor_slots(struct doctor *d)
{
	char **ids = NULL;
	size_t n = 0;
	int said = 0;
	struct err e;

	err_clear(&e);
	if (!d->cfg_ok || !box_paired(d) || catalog_ids(&ids, &n, &e) != 0)
		return; /* the config, box and types lines say why */
	for (size_t i = 0; i < n; i++) {
		struct manifest *m = NULL;
		int booking = catalog_load(ids[i], &m, NULL, &e) == 0 && m->booking &&
			      m->availability;

		manifest_free(m);
		if (!booking)
			continue;
		if (d->flags & DOCTOR_OFFLINE) {
			if (!said++)
				doctor_say(d, "slots", DOCTOR_WARN, "run mecha doctor without "
					   "--offline to check them", "booking types' slots: not "
					   "checked (--offline)");
			continue;
		}
		slots_of(d, ids[i]);
	}
	catalog_ids_free(ids, n);
}
