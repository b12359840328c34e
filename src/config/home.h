/*
 * home — where mecha keeps its stores: $MECHA_HOME when set and non-empty,
 * else ~/.mecha. Every default path a verb, the MCP server or the review
 * screen uses comes from home_default, so no front end spells a path of its
 * own. (The outbox may live elsewhere: config.h resolves $MECHA_OUTBOX_DIR
 * and [outbox] dir over HOME_OUTBOX.)
 *
 * Ownership: returned strings are malloc'd; the caller frees them.
 */
#ifndef MECHA_CONFIG_HOME_H
#define MECHA_CONFIG_HOME_H

struct err;

enum home_place {
	HOME_ROOT,        /* HOME_M itself */
	HOME_CONFIG,      /* HOME_M/config.toml */
	HOME_REQUESTS,    /* HOME_M/requests: the request store */
	HOME_OUTBOX,      /* HOME_M/outbox: the outbox, unless configured elsewhere */
	HOME_SESSIONS,    /* HOME_M/sessions: triage transcripts */
	HOME_MISSION_BOX, /* HOME_M/missions/inbox.jsonl: the default mission box */
	HOME_TYPES,       /* HOME_M/factory/types: request-type manifests (the reference's path) */
};

/* The default path of a place. Fails only when neither MECHA_HOME nor HOME is set. */
char *home_default(enum home_place place, struct err *e);

#endif
