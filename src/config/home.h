/*
 * home — where mecha keeps its stores: $MECHA_HOME when set and non-empty,
 * else ~/.mecha. Every default path a verb, the MCP server or the review
 * screen uses comes from home_default, so no front end spells a path of its
 * own. (The outbox may live elsewhere: config.h resolves $MECHA_OUTBOX_DIR
 * and [outbox] dir over HOME_OUTBOX.)
 *
 * The rule: a home is read only past its configuration. home_default hands
 * out a path only once HOME_M/config.toml loads (config_check), so every store
 * opened at its default place — the request store, the outbox, the mission
 * box, the block store, the request types, from a verb or an MCP tool — stops
 * at a broken file with its name and line, exit 1, instead of running on as if
 * it had read it. home_path is the same table without the check, for the few
 * who must reach a home whose file is broken: the configuration's own reader,
 * `mecha init` and `mecha doctor`.
 *
 * Ownership: returned strings are malloc'd; the caller frees them. A
 * home_init report owns its paths (home_init_free).
 */
#ifndef MECHA_CONFIG_HOME_H
#define MECHA_CONFIG_HOME_H

#include <stddef.h>

struct err;

enum home_place {
	HOME_ROOT,        /* HOME_M itself */
	HOME_CONFIG,      /* HOME_M/config.toml */
	HOME_REQUESTS,    /* HOME_M/requests: the request store */
	HOME_OUTBOX,      /* HOME_M/outbox: the outbox, unless configured elsewhere */
	HOME_SESSIONS,    /* HOME_M/sessions: triage transcripts */
	HOME_MISSIONS,    /* HOME_M/missions: where the default mission box lives */
	HOME_MISSION_BOX, /* HOME_M/missions/inbox.jsonl: the default mission box */
	HOME_TYPES,       /* HOME_M/factory/types: request-type manifests (the Rust tools' path too) */
	HOME_FACTORY,     /* HOME_M/factory: the gate's config.toml and the box's keys (drain.key …) */
	HOME_PLACE_COUNT
};

/*
 * The default path of a place, once the configuration loads. Fails when
 * neither MECHA_HOME nor HOME is set, and with config_load's error (code
 * "config", the file and the line) when config.toml does not load.
 */
char *home_default(enum home_place place, struct err *e);

/* The same path without looking at the configuration: see the rule above. */
char *home_path(enum home_place place, struct err *e);

/* The directories `mecha init` makes, in order (the home first). */
extern const enum home_place home_stores[];
extern const size_t home_nstores;

struct home_made {
	enum home_place place;
	char *path;
	int created;   /* 1: made now; 0: it was there */
	int tightened; /* its old permission bits when init made it 0700; -1 when it did not */
};

/*
 * `mecha init`: makes HOME_M (0700) and the stores under it, then writes
 * config.toml from config_template, 0600. Refused with code "exists", before
 * anything is made or changed, when config.toml (or anything by that name) is
 * already there. *made lists the home, each store and the file (free with
 * home_init_free), also after a failure part-way.
 */
int home_init(struct home_made **made, size_t *n, struct err *e);
void home_init_free(struct home_made *made, size_t n);

#endif
