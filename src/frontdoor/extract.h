/*
 * extract — the quarantined pass: what a model is asked about a stranger's
 * prose, how its answer is read, and how the result lands on the record.
 *
 * The call this module builds has one user message, no system prompt, no
 * tools and no history; it carries the prose (framed as data) and nothing else
 * of the record. The answer is parsed strictly between its first '{' and last
 * '}' (models wrap JSON in prose and fences), and a failure is recorded as a
 * failure: the prose is never handed on in its place. At most two calls are
 * made per record: a refusal or a transport error fails at once, an empty
 * truncated answer is retried once asking for brevity, an unparsable one is
 * retried once naming the error.
 *
 * A job is a small state machine so that many can be in flight at once (the
 * caller drives them with a provider batch): extract_job_start gives the first
 * prompt, extract_job_answer consumes each response and says what happens next.
 *
 * Which records a run takes is decided here too, by asking the state table
 * (extract_select_all, extract_select_one, and again for each record as
 * its job is built by extract_job_open), and a result lands through
 * state_move with the mover the selection chose — so `extract` never reopens
 * a record a person closed, parked or answered.
 *
 * Ownership: extract_prompt returns a malloc'd string; a job owns its prompt,
 * its result (a NEW jansson reference) and its error text; extract_job_free
 * releases whatever is left. A batch owns its picks (extract_batch_free).
 */
#ifndef MECHA_FRONTDOOR_EXTRACT_H
#define MECHA_FRONTDOOR_EXTRACT_H

#include <jansson.h>
#include <stddef.h>

#include "base/seqpack.h"
#include "requests/state.h"

struct err;
struct record;
struct provider_conf;
struct provider_response;
struct store;

#define EXTRACT_MAX_TOKENS 4096

/*
 * Parses a model's answer into the canonical extraction object (six keys in
 * order; missing keys read as empty). Fails (code "parse") when there is no
 * object or a key has the wrong type. *out is a NEW reference.
 */
int extract_parse(const char *text, size_t len, json_t **out, struct err *e);

enum extract_next {
	EXTRACT_CALL,   /* send job->prompt (again) */
	EXTRACT_DONE,   /* job->result holds the extraction */
	EXTRACT_FAILED, /* job->error says why */
	EXTRACT_GONE,   /* extract_job_open: the record went or moved since it was selected */
};

struct extract_job {
	long long seq;
	char state_seen[32];   /* the state when selected: a person's change since wins */
	enum state_mover by;   /* who lands it: extract, its retry, or its --force */
	char *base_prompt;
	char *prompt;          /* what to send next */
	int calls;             /* made so far */
	json_t *result;
	char *error;
};

/*
 * Feeds one outcome: resp (NULL when the call failed, with e saying why).
 * Returns what to do next.
 */
enum extract_next extract_job_answer(struct extract_job *j, const struct provider_response *resp,
				     const struct err *transport);

/* ---- which records (docs/providers.md, "What is sent") ----------------------------------- */

/*
 * What a run takes, in seq order: a seq and its mover per record, nothing of
 * the record itself, and the list packed (base/seqpack.h: about a byte a
 * record), so a run over a hundred thousand records holds little more than
 * one over a thousand. Each job is built from a fresh read by
 * extract_job_open when its turn comes.
 */
struct extract_pick {
	long long seq;
	enum state_mover by;
};

struct extract_batch {
	struct seqpack picks; /* each seq tagged with its mover's place in the batch's table */
	struct seqpack_cursor taken; /* the next pick extract_batch_take gives */
	size_t n;             /* picks selected */
};

/*
 * Every valid record the table lets extract move: drained ones, and with
 * retry_failed the extraction_failed ones too; bookings and cancellations
 * belong to the sweep and are passed over.
 */
int extract_select_all(struct store *s, int retry_failed, struct extract_batch *b, struct err *e);
/*
 * Request seq alone: drained or extraction_failed, or with force an extracted
 * or triaged one. Refusals (nothing is selected): ERR_INVALID_REQUEST (it did
 * not validate), ERR_BOOKING (the sweep's), ERR_INVALID_TRANSITION (any other
 * state, or extracted/triaged without force); ERR_NOT_FOUND when there is none.
 */
int extract_select_one(struct store *s, long long seq, int force, struct extract_batch *b,
		       struct err *e);
/*
 * Re-reads p's record and builds its job in *j (with the rules extractor,
 * conf says so, answered at once). Returns EXTRACT_CALL or EXTRACT_DONE as
 * extract_job_start does, EXTRACT_GONE when the record went or its state no
 * longer lets p's mover extract it (j holds only the seq), or -1 when it could
 * not be read. The job is the caller's to free either way.
 */
int extract_job_open(struct store *s, const struct extract_pick *p,
		     const struct provider_conf *conf, struct extract_job *j, struct err *e);
/* Releases what a job holds (not the job itself). */
void extract_job_free(struct extract_job *j);
/* The next pick in seq order (into *p): 1, or 0 when every pick was taken. */
int extract_batch_take(struct extract_batch *b, struct extract_pick *p);
void extract_batch_free(struct extract_batch *b);

/* ---- landing ------------------------------------------------------------------ */

enum extract_landing {
	EXTRACT_LANDED,  /* written */
	EXTRACT_DROPPED, /* a person moved the record meanwhile; their change stands */
};

/*
 * Writes a job's outcome under the store lock after re-reading the record:
 * extracted with the result, or extraction_failed with the error, moved by
 * the job's mover through state_move. Returns EXTRACT_LANDED or
 * EXTRACT_DROPPED, or -1 on failure.
 */
int extract_land(struct store *s, const struct extract_job *j, struct err *e);

/* ---- a whole run ---------------------------------------------------------------- */

struct extract_opts {
	long long seq;    /* one request, or -1 for every one the table allows */
	int force;        /* with seq: re-extract an extracted or triaged one */
	int retry_failed; /* without seq: also the extraction_failed ones */
	unsigned jobs;    /* calls in flight at once */
};

/*
 * What a run tells its front end: how many jobs it selected (before any call),
 * then each outcome as it lands — landed is EXTRACT_LANDED or EXTRACT_DROPPED,
 * or -1 when it could not be written (why says why). A landed job holds either
 * its result or its error.
 */
struct extract_report {
	void (*on_start)(size_t total, void *ctx);
	void (*on_landed)(const struct extract_job *j, int landed, const struct err *why,
			  void *ctx);
	void *ctx;
};

/*
 * `mecha frontdoor extract`: the configured provider (or the rules
 * extractor) over the selected records of HOME_M/requests, up to o->jobs
 * calls in flight, each result landed as it comes. Fails before any call on a
 * configuration error or a refusal of extract_select_one.
 */
int extract_run(const struct extract_opts *o, const struct extract_report *r, struct err *e);

#endif
