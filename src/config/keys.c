/*
 * keys — the table of settings, and what each value must mean.
 *
 * Meaning is checked when the file is read, not when a value is first used:
 * a `from` that is not an address, an smtp_url that is not SMTP, a key
 * variable that cannot be a variable's name would otherwise load fine and
 * fail at the first send, long after the person who wrote them stopped
 * looking. An empty string means "unset" everywhere, as the users of these
 * values read it.
 */
#include "config/keys.h"

#include "base/addr.h"
#include "base/buf.h"
#include "base/err.h"
#include "base/text.h"
#include "config/config.h"

#include <stddef.h>
#include <string.h>
#include <strings.h>

/* The value as a message may quote it: visible, and not too long. */
static void quote(struct buf *why, const char *v)
{
	size_t n = strlen(v);

	buf_addc(why, '"');
	text_safe(why, v, n > 120 ? text_utf8_clip(v, n, 120) : n, 0);
	buf_adds(why, n > 120 ? "…\"" : "\"");
}

static int has_control(const char *v)
{
	for (; *v; v++)
		if ((unsigned char)*v < 0x20 || *v == 0x7f)
			return 1;
	return 0;
}

/* For what travels in the SMTP conversation or on a command line. */
static int meaning_line(const char *v, struct buf *why)
{
	if (!has_control(v))
		return 0;
	quote(why, v);
	buf_adds(why, " holds a control character");
	return -1;
}

static int meaning_kind(const char *v, struct buf *why)
{
	if (strcmp(v, "openai") == 0 || strcmp(v, "anthropic") == 0 || strcmp(v, "rules") == 0)
		return 0;
	buf_adds(why, "kind must be \"openai\", \"anthropic\" or \"rules\", not ");
	quote(why, v);
	return -1;
}

/* scheme://host… with nothing blank or invisible in it; "" is unset. */
static int url_with(const char *v, const char *const *schemes, int nocase)
{
	for (; *schemes; schemes++) {
		size_t n = strlen(*schemes);
		int same = nocase ? strncasecmp(v, *schemes, n) == 0 : strncmp(v, *schemes, n) == 0;
		if (same)
			return v[n] && v[n] != '/' && !has_control(v) && !strpbrk(v, " \t");
	}
	return 0;
}

static int meaning_http_url(const char *v, struct buf *why)
{
	static const char *const schemes[] = { "http://", "https://", NULL };

	if (!*v || url_with(v, schemes, 0))
		return 0;
	buf_adds(why, "base_url ");
	quote(why, v);
	buf_adds(why, " is not an http:// or https:// URL with a host");
	return -1;
}

static int meaning_smtp_url(const char *v, struct buf *why)
{
	static const char *const schemes[] = { "smtp://", "smtps://", NULL };

	if (!*v || url_with(v, schemes, 1))
		return 0;
	buf_adds(why, "smtp_url ");
	quote(why, v);
	buf_adds(why, " is not an smtp:// or smtps:// URL with a host (mecha sends mail over "
		      "SMTP only; for a local command use sendmail)");
	return -1;
}

static int meaning_env_name(const char *v, struct buf *why)
{
	const char *p = v;

	if (*p && (*p < '0' || *p > '9'))
		while (*p == '_' || (*p >= 'A' && *p <= 'Z') || (*p >= 'a' && *p <= 'z') ||
		       (*p >= '0' && *p <= '9'))
			p++;
	if (!*v || !*p)
		return 0;
	quote(why, v);
	buf_adds(why, " is not the name of an environment variable (letters, digits and _; the "
		      "value itself never goes in this file)");
	return -1;
}

static int meaning_address(const char *v, struct buf *why)
{
	struct addr a = { NULL, NULL };
	struct err e;

	if (!*v || addr_parse(v, strlen(v), "from", &a, &e) == 0) {
		addr_free(&a);
		return 0;
	}
	buf_adds(why, "from ");
	quote(why, v);
	buf_adds(why, " is not an e-mail address mecha will send from (write \"Your Name "
		      "<you@example.org>\" or \"you@example.org\")");
	return -1;
}

static int meaning_collection(const char *v, struct buf *why)
{
	if (*v && !strchr(v, '/') && strcmp(v, ".") != 0 && strcmp(v, "..") != 0 &&
	    !has_control(v))
		return 0;
	buf_adds(why, "collections: ");
	quote(why, v);
	buf_adds(why, " is not the name of a directory under [calendar] path");
	return -1;
}

static int meaning_digest_to(const char *v, struct buf *why)
{
	struct addr a = { NULL, NULL };
	struct err e;

	if (!*v || addr_parse(v, strlen(v), "digest_to", &a, &e) == 0) {
		addr_free(&a);
		return 0;
	}
	buf_adds(why, "digest_to ");
	quote(why, v);
	buf_adds(why, " is not an e-mail address");
	return -1;
}

#define C(f) offsetof(struct config, f), 0
#define A(f, n) offsetof(struct config, f), offsetof(struct config, n)
#define P(f) offsetof(struct config_provider, f), 0
#define LC(f) offsetof(struct config, f)
#define LP(f) offsetof(struct config_provider, f)
#define NOL CONFIG_NO_LINE

const struct config_key config_keys[] = {
	{ T_ROOT, "default_provider", V_STR, C(default_provider), LC(default_provider_line),
	  NULL, "\"openai\"",
	  "The provider `frontdoor extract` and `frontdoor triage` call: the NAME of a "
	  "[providers.NAME] table, or \"rules\", the offline extractor (extract only: triage "
	  "needs a model that can use tools). $MECHA_PROVIDER overrides it. Unset: \"rules\"." },
	{ T_PROVIDER, "kind", V_STR, P(kind), NOL, meaning_kind, "\"openai\"",
	  "The wire format: \"openai\" (OpenAI, llama-server, vLLM, Ollama), \"anthropic\", "
	  "or \"rules\" (the offline extractor). Required." },
	{ T_PROVIDER, "base_url", V_STR, P(base_url), NOL, meaning_http_url,
	  "\"https://api.openai.com/v1\"",
	  "Where the API answers, http:// or https://. Unset: the vendor's public endpoint." },
	{ T_PROVIDER, "model", V_STR, P(model), NOL, NULL, "\"gpt-4o-mini\"",
	  "The model to ask ($MECHA_MODEL overrides it for the default provider)." },
	{ T_PROVIDER, "api_key_env", V_STR, P(api_key_env), LP(api_key_env_line), meaning_env_name,
	  "\"OPENAI_API_KEY\"",
	  "The environment variable holding the API key; the key itself never goes in this "
	  "file. Unset: no key is sent (a server on this machine)." },
	{ T_PROVIDER, "timeout_s", V_INT, P(timeout_s), NOL, NULL, "300",
	  "Seconds one request may take, 1 to 86400." },
	{ T_PROVIDER, "connect_timeout_s", V_INT, P(connect_timeout_s), NOL, NULL, "10",
	  "Seconds to wait for the connection, 1 to 86400." },
	{ T_OUTBOX, "dir", V_STR, C(outbox_dir), NOL, NULL, "\"@home/outbox\"",
	  "Where drafts wait for you ($MECHA_OUTBOX_DIR overrides it). Unset: the outbox in "
	  "this home." },
	{ T_OUTBOX, "tools", V_ARR, A(outbox_tools, noutbox_tools), NOL, NULL,
	  "[\"mail_send\"]",
	  "The tools whose drafts wait here for a person. `frontdoor triage` refuses to run "
	  "unless mail_send is listed: without the route a reply would have nowhere to wait." },
	{ T_MAIL, "smtp_url", V_STR, C(mail_smtp_url), NOL, meaning_smtp_url,
	  "\"smtps://smtp.example.org:465\"",
	  "The SMTP server released drafts go to: smtps:// (TLS from the start) or smtp:// "
	  "(STARTTLS when offered, required with a password unless the server is this "
	  "machine)." },
	{ T_MAIL, "sendmail", V_STR, C(mail_sendmail), LC(mail_sendmail_line), meaning_line,
	  "\"/usr/sbin/sendmail -i\"",
	  "Used when smtp_url is unset: a sendmail-compatible command, split on blanks (no "
	  "shell); the recipients are appended unless it says -t." },
	{ T_MAIL, "from", V_STR, C(mail_from), NOL, meaning_address,
	  "\"Your Name <you@example.org>\"",
	  "The sender of every message: \"Name <address>\" or a bare address. Required to "
	  "send." },
	{ T_MAIL, "username", V_STR, C(mail_username), NOL, meaning_line, "\"you@example.org\"",
	  "The SMTP login. Unset: the address in from." },
	{ T_MAIL, "password_env", V_STR, C(mail_password_env), LC(mail_password_env_line),
	  meaning_env_name, "\"MECHA_SMTP_PASSWORD\"",
	  "The environment variable holding the SMTP password. Unset: no login." },
	{ T_CALENDAR, "path", V_STR, C(calendar_path), LC(calendar_path_line), NULL,
	  "\"~/.calendars/personal\"",
	  "Your calendar: an .ics file, a vdir (a directory of .ics files, as vdirsyncer and "
	  "khal keep them) or a vdirsyncer root. Agents see only when you are busy." },
	{ T_CALENDAR, "timezone", V_STR, C(calendar_timezone), NOL, NULL,
	  "\"Europe/Berlin\"",
	  "The zone of floating times and all-day events (an IANA name). Unset: the system's." },
	{ T_CALENDAR, "collections", V_ARR, A(calendar_collections, ncalendar_collections), NOL,
	  meaning_collection, "[\"personal\", \"work\"]",
	  "Under a vdirsyncer root: the collections to read (events are written to the first). "
	  "Unset: every collection." },
	{ T_CALENDAR, "slots_check_s", V_INT, C(calendar_slots_check_s), NOL, NULL, "60",
	  "Seconds between the drain service's (`mecha drain --follow`) looks at the calendar: "
	  "a booking type pushed before is pushed again when its busy time or its manifest "
	  "changed since, and at least hourly, 1 to 86400." },
	{ T_MISSIONS, "brain", V_STR, C(missions_brain), NOL, NULL, "\"brain-1\"",
	  "The brain the mission verbs that post are bound to: a letter for another brain is "
	  "refused. Unset: any." },
	{ T_OUTBOX, "stale_hours", V_INT, C(outbox_stale_hours), NOL, NULL, "48",
	  "Hours a draft may wait pending before `mecha doctor` (and its digest) says it has "
	  "waited too long, 1 to 86400." },
	{ T_FRONTDOOR, "stale_hours", V_INT, C(frontdoor_stale_hours), NOL, NULL, "72",
	  "Hours a request may wait on you (extracted, triaged, awaiting_me) before `mecha "
	  "doctor` (and its digest) says so, `frontdoor list` marks it and `mecha review` opens "
	  "on it, 1 to 86400." },
	{ T_NOTIFY, "digest_to", V_STR, C(notify_digest_to), NOL, meaning_digest_to,
	  "\"you@example.org\"",
	  "Where `mecha doctor --digest --mail` sends what has waited too long (through [mail]), "
	  "only when something has. Unset: --mail refuses." },
};

const size_t config_nkeys = sizeof config_keys / sizeof config_keys[0];

const struct config_table_info config_tables[T_COUNT] = {
	[T_ROOT] = { NULL, "the top level", NULL },
	[T_PROVIDER] = { "providers", "[providers.*]",
			 "A model provider, one [providers.NAME] table each (the NAME is yours; "
			 "default_provider names one). Uncomment the table line with its keys." },
	[T_OUTBOX] = { "outbox", "[outbox]", "The outbox: drafts an agent staged, which only a "
			"person releases (mecha outbox approve) or rejects." },
	[T_MAIL] = { "mail", "[mail]", "How a released message leaves the house: smtp_url or "
		     "sendmail, and from. Nothing is sent until you approve a draft." },
	[T_CALENDAR] = { "calendar", "[calendar]", "The calendar agents see as free/busy, and the "
			 "one booked events are written into." },
	[T_MISSIONS] = { "missions", "[missions]", "The mission board agents report to." },
	[T_FRONTDOOR] = { "frontdoor", "[frontdoor]", "The request store: strangers' requests "
			  "and their states." },
	[T_NOTIFY] = { "notify", "[notify]", "What mecha tells you of its own accord: the "
		       "daily digest of what has waited too long (docs/outbox.md, The digest)." },
};

const struct config_key *config_key_find(enum config_table tab, const char *name)
{
	for (size_t i = 0; i < config_nkeys; i++)
		if (config_keys[i].tab == tab && strcmp(config_keys[i].name, name) == 0)
			return &config_keys[i];
	return NULL;
}
