/*
 * config — HOME_M/config.toml, read once, strictly, into typed values.
 *
 * The file is TOML, read by base/toml (so any TOML spelling of a setting
 * works: a dotted key, an inline table, a multi-line string). What it may say
 * is strict: a key or table this program does not know, a value of the wrong
 * type, an array of tables, a duplicate, a string holding NUL — each is an
 * error naming the file and the line. The rule: a setting mecha would
 * silently ignore is worse than a refusal to start, because the person who
 * wrote it believes it is in force (an unrouted `[outbox] tools` sends mail).
 *
 * What a value means is checked when the file is read, too (keys.c): [mail]
 * from must be an address mecha sends from, smtp_url an smtp:// or smtps://
 * URL, a provider's base_url http:// or https://, a *_env setting the name of
 * a variable; a file that starts with a UTF-8 byte-order mark is named as
 * such. What depends on the verb — a key variable that must be set, a
 * calendar that must exist — is config_require's, called by the library
 * function that starts such work.
 *
 * Every verb that reads a home reads this file first: the stores' default
 * paths come from home_default (home.h), which refuses to give one while the
 * file does not load, so no verb can run past a broken configuration.
 *
 * A missing file is not an error: every setting has a default.
 *
 * Calling sequence:
 *     struct config c; struct err e;
 *     if (config_load(&c, &e) != 0) return cli_fail(&e);
 *     if (config_require(&c, CONFIG_NEEDS_MODEL, &e) != 0) ...
 *     ... c.outbox_dir ...
 *     config_free(&c);
 *
 * Ownership: struct config owns every string and array in it; config_free
 * releases them (and is safe on a zeroed or already-freed config). Pointers
 * returned by config_provider_named are borrowed from the config;
 * config_template returns a new string.
 */
#ifndef MECHA_CONFIG_CONFIG_H
#define MECHA_CONFIG_CONFIG_H

#include <stddef.h>

struct err;

#define CONFIG_TIMEOUT_S 300L        /* a whole provider request */
#define CONFIG_CONNECT_TIMEOUT_S 10L /* connecting to a provider */
#define CONFIG_SLOTS_CHECK_S 60L /* the drain service looks for calendar changes this often */
#define CONFIG_FRONTDOOR_STALE_HOURS 72L /* a request waiting on the owner longer is stale */
#define CONFIG_OUTBOX_STALE_HOURS 48L    /* a pending draft older is stale */

struct config_provider {
	char *name;        /* the NAME of [providers.NAME] */
	char *kind;        /* "openai", "anthropic" or "rules" (checked) */
	char *base_url;    /* NULL when unset */
	char *model;       /* NULL when unset; MECHA_MODEL overrides the default provider's */
	char *api_key_env; /* the variable holding the key; the key is never in the file */
	long timeout_s;
	long connect_timeout_s;
	int line;             /* where the [providers.NAME] table starts (0: not from a file) */
	int api_key_env_line; /* the line api_key_env is on; 0 when unset */
};

struct config {
	char *path;             /* the file that was read, NULL when there was none */
	char *home;             /* HOME_M */
	char *default_provider; /* NULL → the offline rules extractor */
	struct config_provider *providers;
	size_t nproviders;
	char *outbox_dir; /* $MECHA_OUTBOX_DIR, else [outbox] dir, else HOME_M/outbox; ~/ expanded */
	char **outbox_tools; /* [outbox] tools */
	size_t noutbox_tools;
	char *mail_smtp_url, *mail_sendmail, *mail_from, *mail_username, *mail_password_env;
	char *calendar_path;  /* [calendar] path, ~/ expanded */
	char *calendar_timezone; /* [calendar] timezone (IANA); NULL: the system's */
	char **calendar_collections; /* [calendar] collections under a vdirsyncer root */
	size_t ncalendar_collections;
	/* [calendar] slots_check_s: seconds between the drain service's looks for a change to
	 * push; 0: CONFIG_SLOTS_CHECK_S */
	long calendar_slots_check_s;
	char *missions_brain; /* [missions] brain */
	/* How long a request waits on the owner, a draft waits pending, before doctor says so. */
	long frontdoor_stale_hours; /* [frontdoor] stale_hours; 0: CONFIG_FRONTDOOR_STALE_HOURS */
	long outbox_stale_hours;    /* [outbox] stale_hours; 0: CONFIG_OUTBOX_STALE_HOURS */
	char *notify_digest_to;     /* [notify] digest_to: where doctor --digest --mail sends */
	/* The lines settings config_require names are written on; 0 when unset. */
	int default_provider_line, mail_sendmail_line, mail_password_env_line, calendar_path_line;
};

/*
 * Reads HOME_M/config.toml (HOME_M from home.h) and resolves what depends on
 * the environment: MECHA_OUTBOX_DIR, MECHA_PROVIDER (replaces
 * default_provider) and MECHA_MODEL (replaces the default provider's model).
 * A default_provider must name a [providers.NAME] table, except "rules", the
 * built-in offline extractor, which needs none (a provider of kind "rules" is
 * then listed for it). On failure *out is left zeroed; nothing to free.
 */
int config_load(struct config *out, struct err *e);

/*
 * Parses text[0..len) (it need not be NUL-terminated; a NUL byte inside is an
 * error) into *out, naming `file` in errors. Only what the file says is
 * filled: home, path and the environment are config_load's, and outbox_dir and
 * calendar_path are left as written (not expanded). On failure *out is left
 * zeroed.
 */
int config_parse(const char *text, size_t len, const char *file, struct config *out,
		 struct err *e);

void config_free(struct config *c);

/*
 * What a verb is about to do, for config_require: each names the settings
 * that must then hold beyond what the file says — things of this machine, not
 * of the file, checked before the verb changes anything.
 */
enum config_need {
	CONFIG_NEEDS_MODEL = 1,    /* calls the default provider: its api_key_env is set */
	CONFIG_NEEDS_MAIL = 2,     /* sends: [mail] password_env is set (SMTP), or the
				      sendmail command is a program that runs */
	CONFIG_NEEDS_CALENDAR = 4, /* reads the calendar: [calendar] path exists, when set */
};

/*
 * 0 when every need in `needs` (CONFIG_NEEDS_*) is met; otherwise -1 with code
 * "config" naming the file and line of the setting and what to do. A setting
 * that is not there is not this function's business (the sink or the reader
 * says "no route", "no calendar" in its own words).
 */
int config_require(const struct config *c, unsigned needs, struct err *e);

/*
 * Checks HOME_M/config.toml as config_load would, without keeping it: the
 * check home_default makes before handing out a path. A file this process
 * already loaded, unchanged since (same inode, size, times), is not read again.
 */
int config_check(struct err *e);

/*
 * config.toml as `mecha init` writes it: every table and key of keys.c, each
 * commented out with its example and what it does, for the home `home` (the
 * outbox example names it). It loads as an empty configuration. New string.
 */
char *config_template(const char *home);

/* The provider called name, or NULL. */
const struct config_provider *config_provider_named(const struct config *c, const char *name);

/* 1 when [outbox] tools names tool. */
int config_outbox_routes(const struct config *c, const char *tool);

#endif
