/*
 * remote — what the configuration points at outside the home: the provider,
 * the mail route and the calendar. Each is reached the way the verb that uses
 * it would reach it, and stopped before it would change anything: the
 * provider is asked for its models list (no completion), the SMTP server
 * hears EHLO and the login (no message), the calendar is read (not written).
 */
#include "doctor/check.h"

#include "base/buf.h"
#include "base/err.h"
#include "calendar/calendar.h"
#include "frontdoor/model.h"
#include "outbox/mail.h"
#include "outbox/probe.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

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
