/*
 * model — one place decides which model a verb talks to.
 */
#include "frontdoor/model.h"

#include "base/buf.h"
#include "base/err.h"
#include "config/config.h"

#include <stdlib.h>
#include <string.h>

int model_conf(const struct config *cfg, struct provider_conf *out, struct err *e)
{
	const struct config_provider *p = NULL;

	memset(out, 0, sizeof *out);
	if (cfg->default_provider)
		p = config_provider_named(cfg, cfg->default_provider);
	/* The offline extractor, named or by default: nothing to call, nothing to check. */
	if (!p || strcmp(p->kind, "rules") == 0) {
		out->name = p ? p->name : "rules";
		out->kind = "rules";
		return 0;
	}
	out->name = p->name;
	out->kind = p->kind;
	out->base_url = p->base_url;
	out->model = p->model;
	out->timeout_s = p->timeout_s;
	out->connect_timeout_s = p->connect_timeout_s;
	if (config_require(cfg, CONFIG_NEEDS_MODEL, e) != 0)
		return -1;
	if (p->api_key_env && *p->api_key_env)
		out->api_key = xstrdup(getenv(p->api_key_env));
	return provider_conf_check(out, e);
}

void model_conf_release(struct provider_conf *conf)
{
	if (conf->api_key) {
		char *k = (char *)conf->api_key;
		explicit_bzero(k, strlen(k));
		free(k);
	}
	conf->api_key = NULL;
}
