/*
 * doctor — the list of checks, in the order a person reads them, and the
 * checks that fit on a screen here: the configuration, the outbox route, the
 * request types, the MCP tool list. The others live beside what they read
 * (files.c, boards.c, remote.c).
 */
#include "doctor/check.h"

#include "base/buf.h"
#include "base/err.h"
#include "base/text.h"
#include "config/home.h"
#include "mcp/tools.h"
#include "outbox/sink.h"
#include "types/catalog.h"
#include "types/manifest.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

static void say_v(struct doctor *d, const char *check, enum doctor_status st, json_t *item,
		  const char *fix, const char *fmt, va_list ap)
{
	struct doctor_report *r = d->out;
	struct doctor_line *l;

	r->lines = xrealloc(r->lines, (r->n + 1) * sizeof *r->lines);
	l = &r->lines[r->n++];
	l->check = xstrdup(check);
	l->status = st;
	l->fix = fix ? xstrdup(fix) : NULL;
	l->item = item;
	if (vasprintf(&l->detail, fmt, ap) < 0)
		abort();
}

void doctor_say(struct doctor *d, const char *check, enum doctor_status st, const char *fix,
		const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	say_v(d, check, st, NULL, fix, fmt, ap);
	va_end(ap);
}

void doctor_say_item(struct doctor *d, const char *check, enum doctor_status st, json_t *item,
		     const char *fix, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	say_v(d, check, st, item, fix, fmt, ap);
	va_end(ap);
}

void doctor_skip(struct doctor *d, const char *check)
{
	doctor_say(d, check, DOCTOR_WARN, "make config.toml load first (the config line)",
		   "not checked: config.toml does not load");
}

/* ---- the configuration ----------------------------------------------------------- */

static void check_config(struct doctor *d)
{
	struct err e;

	err_clear(&e);
	if (config_load(&d->cfg, &e) != 0) {
		doctor_say(d, "config", DOCTOR_FAIL,
			   "correct the line named; mecha(1), CONFIGURATION, lists every key",
			   "%s", e.msg);
		return;
	}
	d->cfg_ok = 1;
	if (!d->cfg.path)
		doctor_say(d, "config", DOCTOR_WARN,
			   "mecha init writes a config.toml with every setting explained",
			   "no config.toml in %s: every setting is its default", d->home);
	else
		doctor_say(d, "config", DOCTOR_OK, NULL, "%s loads and every value means something",
			   d->cfg.path);
}

static void check_outbox(struct doctor *d)
{
	struct err e;

	if (!d->cfg_ok) {
		doctor_skip(d, "outbox");
		return;
	}
	err_clear(&e);
	if (!sink_routed(&d->cfg, SINK_MAIL, &e))
		doctor_say(d, "outbox", DOCTOR_WARN,
			   "set [outbox] tools = [\"mail_send\"] in config.toml",
			   "%s: frontdoor triage refuses to run", e.msg);
	else
		doctor_say(d, "outbox", DOCTOR_OK, NULL,
			   "replies an agent drafts wait in %s for a person", d->cfg.outbox_dir);
}

/* ---- request types ----------------------------------------------------------------- */

/* Each installed type loads; the first that does not is named. */
static int types_load(char **ids, size_t n, struct buf *names, struct err *e)
{
	for (size_t i = 0; i < n; i++) {
		struct manifest *m;
		if (catalog_load(ids[i], &m, NULL, e) != 0)
			return -1;
		manifest_free(m);
		buf_printf(names, "%s%s", i ? ", " : "", ids[i]);
	}
	return 0;
}

static void check_types(struct doctor *d)
{
	struct buf names = BUF_INIT;
	char **ids = NULL;
	size_t n = 0;
	struct err e;

	if (!d->cfg_ok) {
		doctor_skip(d, "types");
		return;
	}
	err_clear(&e);
	if (catalog_ids(&ids, &n, &e) != 0 || types_load(ids, n, &names, &e) != 0)
		doctor_say(d, "types", DOCTOR_FAIL,
			   "correct the manifest named (mecha types check FILE shows every mistake)",
			   "%s", e.msg);
	else if (n == 0)
		doctor_say(d, "types", DOCTOR_OK, NULL, "no request types installed in factory/types");
	else
		doctor_say(d, "types", DOCTOR_OK, NULL, "%zu request %s: %s", n,
			   n == 1 ? "type" : "types", buf_str(&names));
	catalog_ids_free(ids, n);
	buf_free(&names);
}

/* ---- the MCP server ---------------------------------------------------------------- */

static void check_mcp(struct doctor *d)
{
	json_t *tools = tools_list(), *t;
	struct buf names = BUF_INIT;
	size_t i, bad = 0;

	json_array_foreach(tools, i, t) {
		const char *name = json_string_value(json_object_get(t, "name"));
		json_t *schema = json_object_get(t, "inputSchema");
		if (!name || !json_is_object(schema)) {
			bad++;
			continue;
		}
		buf_printf(&names, "%s%s", names.len ? ", " : "", name);
	}
	if (bad || json_array_size(tools) == 0)
		doctor_say(d, "mcp", DOCTOR_FAIL, "this is a bug in mecha: please report it",
			   "%zu of %zu tools lack a name or an input schema", bad,
			   json_array_size(tools));
	else
		doctor_say(d, "mcp", DOCTOR_OK, NULL, "mecha mcp offers %zu tools: %s",
			   json_array_size(tools), buf_str(&names));
	buf_free(&names);
	json_decref(tools);
}

/* ---- the run ------------------------------------------------------------------------ */

static const struct {
	void (*run)(struct doctor *d);
	int needs_home; /* skipped, without a line, when HOME_M is not a directory */
} checks[] = {
	{ doctor_home, 0 },     { check_config, 1 },  { doctor_permissions, 1 },
	{ doctor_stores, 1 },   { doctor_temps, 1 },  { doctor_provider, 1 }, { doctor_mail, 1 },
	{ doctor_calendar, 1 }, { check_outbox, 1 },  { check_types, 1 },
	{ check_mcp, 0 },       { doctor_missions, 1 }, { doctor_types_cache, 1 },
	{ doctor_box, 1 },      { doctor_slots, 1 },  { doctor_queue, 1 },
};

/*
 * The digest: the home and the configuration checked quietly (a line only
 * when one fails, since nothing else can be said then), then the queue.
 */
static void run_digest(struct doctor *d, struct doctor_report *out)
{
	struct doctor_report quiet = { NULL, 0 };

	d->out = &quiet;
	doctor_home(d);
	if (d->home_ok)
		check_config(d);
	d->out = out;
	for (size_t i = 0; i < quiet.n; i++)
		if (quiet.lines[i].status == DOCTOR_FAIL)
			doctor_say(d, quiet.lines[i].check, DOCTOR_FAIL, quiet.lines[i].fix, "%s",
				   quiet.lines[i].detail);
	doctor_report_free(&quiet);
	if (d->home_ok && d->cfg_ok)
		doctor_queue(d);
}

void doctor_run(unsigned flags, const struct sweep_offers *offers, struct doctor_report *out)
{
	struct doctor d;
	struct err e;

	memset(&d, 0, sizeof d);
	memset(out, 0, sizeof *out);
	d.flags = flags;
	d.out = out;
	d.offers = offers;
	d.home = home_path(HOME_ROOT, &e);
	if (flags & DOCTOR_DIGEST)
		run_digest(&d, out);
	for (size_t i = 0; !(flags & DOCTOR_DIGEST) && i < sizeof checks / sizeof checks[0]; i++)
		if (!checks[i].needs_home || d.home_ok)
			checks[i].run(&d);
	if (d.cfg_ok)
		config_free(&d.cfg);
	free(d.home);
}

void doctor_report_free(struct doctor_report *r)
{
	for (size_t i = 0; i < r->n; i++) {
		free(r->lines[i].check);
		free(r->lines[i].detail);
		free(r->lines[i].fix);
		json_decref(r->lines[i].item);
	}
	free(r->lines);
	memset(r, 0, sizeof *r);
}

int doctor_failed(const struct doctor_report *r)
{
	for (size_t i = 0; i < r->n; i++)
		if (r->lines[i].status == DOCTOR_FAIL)
			return 1;
	return 0;
}

const char *doctor_status_name(enum doctor_status s)
{
	static const char *const names[] = { [DOCTOR_OK] = "ok", [DOCTOR_WARN] = "warn",
					     [DOCTOR_FAIL] = "fail" };

	return names[s];
}

/* A JSON string of text that may hold any bytes (a file name): invalid UTF-8 shown visibly. */
static json_t *text_json(const char *s)
{
	struct buf b = BUF_INIT;
	json_t *v;

	if (!s)
		return json_null();
	if (text_utf8_valid(s, strlen(s)))
		return json_string(s);
	text_safe(&b, s, strlen(s), TEXT_KEEP_NEWLINES);
	v = json_string(buf_str(&b));
	buf_free(&b);
	return v;
}

json_t *doctor_report_json(const struct doctor_report *r)
{
	json_t *a = json_array();

	for (size_t i = 0; i < r->n; i++) {
		const struct doctor_line *l = &r->lines[i];
		json_t *o = json_pack("{s:s,s:s,s:o,s:o}", "check", l->check, "status",
				      doctor_status_name(l->status), "detail", text_json(l->detail),
				      "fix", text_json(l->fix));
		if (l->item)
			json_object_set(o, "item", l->item);
		json_array_append_new(a, o);
	}
	return a;
}
