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
 * Ownership: extract_prompt returns a malloc'd string; a job owns its prompt,
 * its result (a NEW jansson reference, handed over by extract_job_take) and its
 * error text; extract_job_free releases whatever is left.
 */
#ifndef MECHA_FRONTDOOR_EXTRACT_H
#define MECHA_FRONTDOOR_EXTRACT_H

#include <jansson.h>
#include <stddef.h>

struct err;
struct record;
struct provider_response;
struct store;

#define EXTRACT_MAX_TOKENS 4096

/* The prompt of spec/frontdoor.md §5 over the record's prose (malloc'd). */
char *extract_prompt(const struct record *r);

/*
 * Parses a model's answer into the canonical extraction object (six keys in
 * order; missing keys read as empty). Fails (code "parse") when there is no
 * object or a key has the wrong type. *out is a NEW reference.
 */
int extract_parse(const char *text, size_t len, json_t **out, struct err *e);

/* The extraction of a record with no prose: every field empty, no model call. */
json_t *extract_empty(void);

/* 1 when the record belongs to the sweep (a booking or a cancellation), not to extract. */
int extract_is_booking(const struct record *r);

enum extract_next {
	EXTRACT_CALL,   /* send job->prompt (again) */
	EXTRACT_DONE,   /* job->result holds the extraction */
	EXTRACT_FAILED, /* job->error says why */
};

struct extract_job {
	long long seq;
	char state_seen[32];   /* the state when selected: a person's change since wins */
	char *base_prompt;
	char *prompt;          /* what to send next */
	int calls;             /* made so far */
	json_t *result;
	char *error;
};

/* Prepares a job for r; returns EXTRACT_CALL, or EXTRACT_DONE when r has no prose. */
enum extract_next extract_job_start(struct extract_job *j, const struct record *r);
/*
 * Feeds one outcome: resp (NULL when the call failed, with e saying why).
 * Returns what to do next.
 */
enum extract_next extract_job_answer(struct extract_job *j, const struct provider_response *resp,
				     const struct err *transport);
void extract_job_free(struct extract_job *j);

enum extract_landing {
	EXTRACT_LANDED,  /* written */
	EXTRACT_DROPPED, /* a person moved the record meanwhile; their change stands */
};

/*
 * Writes a job's outcome under the store lock after re-reading the record:
 * extracted with the result, or extraction_failed with the error. Returns
 * EXTRACT_LANDED or EXTRACT_DROPPED, or -1 on failure.
 */
int extract_land(struct store *s, const struct extract_job *j, struct err *e);

#endif
