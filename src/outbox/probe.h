/*
 * probe — whether the mail route would take a message, asked without sending
 * one: for `mecha doctor`.
 *
 * The rule: nothing is sent. Over SMTP the probe connects to [mail] smtp_url,
 * says EHLO, upgrades with STARTTLS and logs in exactly as a send would (the
 * same TLS rule: with a password, TLS is required unless the server is this
 * machine), and stops there — no MAIL FROM, no RCPT, no DATA — then quits.
 *
 * Ownership: *said is a new string (free it).
 */
#ifndef MECHA_OUTBOX_PROBE_H
#define MECHA_OUTBOX_PROBE_H

struct config;
struct err;

/*
 * 0 when the SMTP server greeted, answered EHLO and (with [mail]
 * password_env) accepted the login; *said tells how far it went. Otherwise
 * -1 with code "delivery" (or "no_route", "config", "missing_library") naming
 * host:port and what the server said. Requires [mail] smtp_url.
 */
int mail_probe(const struct config *cfg, char **said, struct err *e);

#endif
