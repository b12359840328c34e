/*
 * probe — libcurl's SMTP with CURLOPT_CONNECT_ONLY: the connection phase of
 * SMTP is the greeting, EHLO, STARTTLS and AUTH, and the transfer (the
 * envelope and the message) never starts.
 *
 * The options mirror mail.c's smtp_options (a send), so what the probe proves
 * is what a send will meet.
 */
#include "outbox/probe.h"

#include "base/buf.h"
#include "base/dl.h"
#include "base/err.h"
#include "config/config.h"

#include <curl/curl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* host:port of the URL (never its userinfo), and whether the host is this machine. */
static char *probe_where(const char *url, int *loopback)
{
	CURLU *u = curl_url();
	char *host = NULL, *port = NULL, *out;

	*loopback = 0;
	if (u && curl_url_set(u, CURLUPART_URL, url, 0) == CURLUE_OK &&
	    curl_url_get(u, CURLUPART_HOST, &host, 0) == CURLUE_OK) {
		curl_url_get(u, CURLUPART_PORT, &port, CURLU_DEFAULT_PORT);
		*loopback = strcmp(host, "localhost") == 0 || strncmp(host, "127.", 4) == 0 ||
			    strcmp(host, "[::1]") == 0;
		out = xasprintf("%s:%s", host, port ? port : "?");
	} else {
		out = xstrdup("the SMTP server");
	}
	curl_free(host);
	curl_free(port);
	curl_url_cleanup(u);
	return out;
}

static const char *login_name(const struct config *cfg)
{
	return cfg->mail_username && *cfg->mail_username ? cfg->mail_username : cfg->mail_from;
}

static void probe_options(CURL *h, const struct config *cfg, const char *pw, int loopback,
			  char *errbuf)
{
	curl_easy_setopt(h, CURLOPT_URL, cfg->mail_smtp_url);
	curl_easy_setopt(h, CURLOPT_PROTOCOLS_STR, "smtp,smtps");
	curl_easy_setopt(h, CURLOPT_CONNECT_ONLY, 1L);
	curl_easy_setopt(h, CURLOPT_CONNECTTIMEOUT, 10L);
	curl_easy_setopt(h, CURLOPT_TIMEOUT, 30L);
	curl_easy_setopt(h, CURLOPT_ERRORBUFFER, errbuf);
	curl_easy_setopt(h, CURLOPT_USE_SSL,
			 pw && !loopback ? (long)CURLUSESSL_ALL : (long)CURLUSESSL_TRY);
	if (pw) {
		curl_easy_setopt(h, CURLOPT_USERNAME, login_name(cfg));
		curl_easy_setopt(h, CURLOPT_PASSWORD, pw);
	}
}

static const char *password(const struct config *cfg)
{
	const char *pw = cfg->mail_password_env && *cfg->mail_password_env
				 ? getenv(cfg->mail_password_env) : NULL;

	return pw && *pw ? pw : NULL;
}

int mail_probe(const struct config *cfg, char **said, struct err *e)
{
	char errbuf[CURL_ERROR_SIZE] = "", answered[48] = "", *where;
	const char *pw = password(cfg);
	int loopback, rc = 0;
	long code = 0;
	CURLcode res;
	CURL *h;

	*said = NULL;
	if (!cfg->mail_smtp_url || !*cfg->mail_smtp_url)
		return err_set(e, ERR_NO_ROUTE, "[mail] smtp_url is not set");
	if (config_require(cfg, CONFIG_NEEDS_MAIL, e) != 0 || dl_require(DL_CURL, e) != 0)
		return -1;
	if (!(h = curl_easy_init()))
		return err_set(e, ERR_DELIVERY, "libcurl could not start");
	where = probe_where(cfg->mail_smtp_url, &loopback);
	probe_options(h, cfg, pw, loopback, errbuf);
	res = curl_easy_perform(h);
	curl_easy_getinfo(h, CURLINFO_RESPONSE_CODE, &code);
	if (code > 0)
		snprintf(answered, sizeof answered, " (the server answered %ld)", code);
	if (res != CURLE_OK)
		rc = err_set(e, ERR_DELIVERY, "SMTP to %s: %s%s", where,
			      errbuf[0] ? errbuf : curl_easy_strerror(res), answered);
	else
		*said = pw ? xasprintf("%s answered EHLO and accepted the login of %s", where,
				       login_name(cfg))
			   : xasprintf("%s answered EHLO (no login configured)", where);
	curl_easy_cleanup(h);
	free(where);
	return rc;
}
