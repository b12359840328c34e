/*
 * model — turning the configuration into a provider to call.
 *
 * The key is read from the environment variable the configuration names,
 * never from the file; model_conf_release wipes our copy of it.
 *
 * Ownership: the provider_conf's strings borrow from cfg, except api_key,
 * which is owned by the conf until model_conf_release.
 */
#ifndef MECHA_FRONTDOOR_MODEL_H
#define MECHA_FRONTDOOR_MODEL_H

#include "provider/provider.h"

struct config;
struct err;

/*
 * The default provider (MECHA_PROVIDER, else default_provider, else the rules
 * extractor). Fails when the configured key variable is unset or empty.
 */
int model_conf(const struct config *cfg, struct provider_conf *out, struct err *e);
void model_conf_release(struct provider_conf *conf);

#endif
