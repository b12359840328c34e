/*
 * probe — the doctor's question to the mail route, asked through base/smtp's
 * smtp_probe, so the probe connects, upgrades and logs in with the very
 * options a send uses: what it proves is what a send will meet.
 */
#include "outbox/probe.h"

#include "base/err.h"
#include "base/smtp.h"
#include "config/config.h"

int mail_probe(const struct config *cfg, char **said, struct err *e)
{
	const struct smtp_route r = { cfg->mail_smtp_url, cfg->mail_username, cfg->mail_from,
				      cfg->mail_password_env };

	*said = NULL;
	if (!cfg->mail_smtp_url || !*cfg->mail_smtp_url)
		return err_set(e, ERR_NO_ROUTE, "[mail] smtp_url is not set");
	if (config_require(cfg, CONFIG_NEEDS_MAIL, e) != 0)
		return -1;
	return smtp_probe(&r, said, e);
}
