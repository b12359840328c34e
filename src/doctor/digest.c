/*
 * digest — the queue section as a few lines a person reads in a daily mail
 * or a desktop notification, and its one mail, sent only when something has
 * waited too long.
 */
#include "doctor/doctor.h"

#include "base/buf.h"
#include "base/clock.h"
#include "base/err.h"
#include "base/text.h"
#include "config/config.h"
#include "outbox/mail.h"

#include <jansson.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static size_t worth_saying(const struct doctor_report *r, size_t *fails)
{
	size_t n = 0;

	*fails = 0;
	for (size_t i = 0; i < r->n; i++) {
		n += r->lines[i].status != DOCTOR_OK;
		*fails += r->lines[i].status == DOCTOR_FAIL;
	}
	return n;
}

/* The heading alone (a mail's subject); NULL when nothing needs saying. New string. */
static char *doctor_digest_subject(const struct doctor_report *r)
{
	size_t fails, n = worth_saying(r, &fails);

	if (!n)
		return NULL;
	if (fails)
		return xasprintf("mecha: %zu %s waited too long (%zu broken)", n,
				 n == 1 ? "thing has" : "things have", fails);
	return xasprintf("mecha: %zu %s waited too long", n, n == 1 ? "thing has" : "things have");
}

static void visible(struct buf *b, const char *s)
{
	text_safe(b, s, strlen(s), 0);
}

char *doctor_digest_text(const struct doctor_report *r)
{
	char *subject = doctor_digest_subject(r);
	struct buf b = BUF_INIT;

	if (!subject)
		return NULL;
	buf_printf(&b, "%s\n", subject + strlen("mecha: "));
	for (size_t i = 0; i < r->n; i++) {
		const struct doctor_line *l = &r->lines[i];
		if (l->status == DOCTOR_OK)
			continue;
		buf_printf(&b, "\n%-4s ", doctor_status_name(l->status));
		visible(&b, l->detail);
		if (l->fix) {
			buf_adds(&b, "\n     ");
			visible(&b, l->fix);
		}
		buf_addc(&b, '\n');
	}
	free(subject);
	return buf_steal(&b);
}

static int send_digest(const struct config *cfg, const char *subject, const char *text,
		       struct err *e)
{
	char id[64], stamp[32];
	time_t now = clock_now();
	struct tm tm;
	struct mail_message m;
	json_t *args;
	int rc;

	gmtime_r(&now, &tm);
	strftime(stamp, sizeof stamp, "%Y%m%dT%H%M%S", &tm);
	snprintf(id, sizeof id, "digest-%s", stamp);
	args = json_pack("{s:s,s:s,s:s}", "to", cfg->notify_digest_to, "subject", subject,
			 "body_text", text);
	if (!args)
		return err_set(e, ERR_BAD_ARGS, "the digest's text is not UTF-8");
	rc = mail_build(cfg->mail_from, id, args, time(NULL), &m, e);
	json_decref(args);
	if (rc != 0)
		return -1;
	rc = mail_deliver(cfg, &m, e);
	mail_message_free(&m);
	return rc;
}

int doctor_digest_mail(const struct doctor_report *r, struct err *e)
{
	char *subject = doctor_digest_subject(r), *text;
	struct config cfg;
	int rc = -1;

	if (!subject)
		return 0;
	text = doctor_digest_text(r);
	if (config_load(&cfg, e) == 0) {
		if (!cfg.notify_digest_to || !*cfg.notify_digest_to)
			err_set(e, ERR_CONFIG, "[notify] digest_to names no address to mail the digest "
				"to: set it in %s", cfg.path ? cfg.path : "config.toml");
		else if (mail_configured(&cfg, e) && config_require(&cfg, CONFIG_NEEDS_MAIL, e) == 0 &&
			 send_digest(&cfg, subject, text, e) == 0)
			rc = 1;
		config_free(&cfg);
	}
	free(subject);
	free(text);
	return rc;
}
