/*
 * triage — the privileged pass: a model with tools, told only the brief.
 *
 * One fresh conversation per request (a fresh taint): a single user message
 * holding the brief and the framing, and the triage rows of the agent tool
 * table (agent.h), which cannot send anything — calendar_free_busy (busy
 * intervals only), draft_reply (a message staged for the record's reply_to,
 * whose recipient the model cannot choose) and propose_meeting (an invite
 * staged for reply_to, refused unless the slot is free). Every turn is
 * written to HOME_M/sessions/<session>.jsonl.
 *
 * After the run, under the store lock, the record is re-read: a record a
 * person moved meanwhile is left alone. Otherwise it becomes awaiting_me (a
 * draft was staged), triaged (nothing drafted; the run's reason is the note),
 * or stays extracted with "triage failed: …" (an error or the turn limit);
 * drafts a failed run staged are still recorded on it.
 *
 * Ownership: the environment's pointers are borrowed; a result's strings are
 * malloc'd and released by triage_result_free.
 */
#ifndef MECHA_FRONTDOOR_TRIAGE_H
#define MECHA_FRONTDOOR_TRIAGE_H

#include <stdio.h>

#include "provider/provider.h"

struct config;
struct err;
struct store;
struct outbox_store;
struct reconcile_report;

#define TRIAGE_MAX_TURNS 8
#define TRIAGE_MAX_TOKENS 4096

struct triage_env {
	struct store *store;
	struct outbox_store *outbox;
	const struct provider_conf *conf;
	const struct config *cfg;  /* the calendar path and the outbox routes */
	const char *sessions_dir;  /* HOME_M/sessions */
	int max_turns;
};

enum triage_outcome {
	TRIAGE_DRAFTED,   /* → awaiting_me */
	TRIAGE_NOTHING,   /* → triaged */
	TRIAGE_FAILED,    /* stays extracted, note "triage failed: …" */
	TRIAGE_LEFT,      /* a person moved the record during the run: untouched */
};

/* What an outcome is called, each in one place (triage.c's table). Static strings. */
struct triage_outcome_names {
	const char *name;       /* `mecha triage --json` and its tally: awaiting_me, triaged, … */
	const char *lands_in;   /* the state the request is moved to (or stays in) */
	const char *said;       /* in the error when the landing could not be written */
	const char *transcript; /* the transcript's "end" entry */
};

const struct triage_outcome_names *triage_outcome_names(enum triage_outcome o);

struct triage_result {
	long long seq;
	enum triage_outcome outcome;
	char session[64];
	size_t drafts;
	char *note; /* what was recorded (or why it was left) */
};

/*
 * Runs the privileged pass over request seq (which must be extracted and have
 * a brief). Returns 0 with *out filled (whatever the outcome; TRIAGE_LEFT, with
 * no model call, when the request is no longer extracted — moved since it was
 * selected), or -1 when the run could not start (no brief, the transcript
 * could not be created).
 */
int triage_one(const struct triage_env *env, long long seq, struct triage_result *out,
	       struct err *e);
void triage_result_free(struct triage_result *r);

/* ---- a whole run (triage_run.c) ------------------------------------------------ */

/* The requests a run takes, in seq order. */
struct triage_pick {
	long long *seqs; /* malloc'd; triage_pick_free */
	size_t n;
};

struct triage_opts {
	long long seq;   /* one request, or -1 */
	long long limit; /* without seq: at most this many */
	int max_turns;
};

/*
 * What a run tells its front end: how many requests it selected (before any
 * call), each request's outcome as it is known, and each request whose run
 * could not start or whose outcome could not be written (why says why and
 * what the request is left as; the run goes on). Any may be NULL.
 */
struct triage_report {
	void (*on_result)(const struct triage_result *r, void *ctx);
	void (*on_error)(long long seq, const struct err *why, void *ctx);
	const struct reconcile_report *reconcile; /* the moves of the reconciling pass */
	void *ctx;
	void (*on_start)(size_t total, void *ctx);
};

/*
 * `mecha frontdoor triage`: the configuration, the preflight, the selection
 * and one triage_one per selected request. Fails (before any model call) on a
 * configuration error, a preflight refusal or a refusal of triage_select.
 */
int triage_run(const struct triage_opts *o, const struct triage_report *r, struct err *e);

#endif
