/*
 * confine — what a kind of work may touch, as places of this home.
 *
 * A verb (and the MCP server) declares its needs as flags — which stores it
 * changes, whether it reads or writes the calendar, calls a model, delivers
 * mail, runs the person's editor — and confine_policy turns them into a
 * sandbox policy (base/sandbox.h) with the paths this home and its
 * configuration give them. The rule: every process reads the home (and the
 * outbox, wherever it is configured), writes only the stores its needs name,
 * and opens TCP connections only when it calls a provider or delivers.
 *
 * A configuration that cannot be read is not this module's error to report:
 * the policy is made from the defaults (the home, its default outbox), and
 * the verb then fails on the configuration in its own words.
 *
 * Ownership: both functions add to the caller's policy (sandbox_policy_free
 * releases it); paths are borrowed.
 */
#ifndef MECHA_CONFIG_CONFINE_H
#define MECHA_CONFIG_CONFINE_H

#include <stddef.h>

struct sandbox_policy;

enum confine_need {
	CONFINE_READS = 0,             /* reads the home; writes nothing; no network */
	CONFINE_REQUESTS = 1 << 0,     /* changes the request store */
	CONFINE_OUTBOX = 1 << 1,       /* changes the outbox */
	CONFINE_SESSIONS = 1 << 2,     /* writes triage transcripts */
	CONFINE_MISSIONS = 1 << 3,     /* changes the mission box's directory (box, blocks) */
	CONFINE_CALENDAR = 1 << 4,     /* reads the calendar */
	CONFINE_CALENDAR_W = 1 << 5,   /* writes events into the calendar */
	CONFINE_PROVIDER = 1 << 6,     /* calls a model provider: the network */
	CONFINE_DELIVER = 1 << 7,      /* delivers drafts: the network, the calendar, a sendmail */
	CONFINE_EDITOR = 1 << 8,       /* runs $VISUAL or $EDITOR */
	CONFINE_PAGER = 1 << 9,        /* may run $PAGER (on a terminal) */
	CONFINE_ARGS = 1 << 10,        /* reads the files its arguments name */
	CONFINE_CREATE = 1 << 11,      /* long-running: its stores are made first, then named exactly */
	CONFINE_HOME = 1 << 12,        /* writes the home itself (config.toml, new stores): init */
	CONFINE_GATE = 1 << 13,        /* talks to the box, or probes a server (doctor): the network */
	CONFINE_OFFERED = 1 << 14,     /* keeps what it offered the box (factory/offered) */
	CONFINE_NONE = 1 << 30,        /* not confined here (it runs another program of ours) */
};

/* Fills p (zeroed, SANDBOX_POLICY_INIT) for needs; never fails. */
void confine_policy(unsigned needs, struct sandbox_policy *p);

/*
 * What libraries read beyond the system (base/sandbox.h's own places):
 * certificates, time zones and locales where the environment moves them,
 * and, for a process with the network, the resolver's configuration where
 * /etc/resolv.conf links to. The box's policy uses it too (box/jail.h).
 */
void confine_libraries(struct sandbox_policy *p, int network);

/*
 * A store the command line named instead of the default (--box PATH; NULL:
 * the default mission box): its directory (the box, its blocks and its lock)
 * readable, and writable when needs change a store. ~/ is expanded.
 */
void confine_store(unsigned needs, const char *path, struct sandbox_policy *p);

#endif
