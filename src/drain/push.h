/*
 * push — what the box is handed from home: a request type's manifest (PUT
 * /v1/types/{id}, the release key) and a booking type's slots (PUT
 * /v1/instruments/{id}/slots, the slots key). The box never reads the
 * owner's files or calendar; this is how it learns what to offer.
 *
 * The rule: what is pushed is what home checks. A manifest is checked here
 * first (a broken one is refused at home with its lines, and never sent);
 * the slots are exactly slots_json's body over the installed type and the
 * calendar (slots.h), the computation `mecha slots show` prints.
 *
 * Calling sequence:
 *     json_t *answer;
 *     if (push_type("meeting", &answer, &e) != 0) return -1;   … the box's answer …
 *     struct push_slots p;
 *     if (push_slots("consult", NULL, 0, &p, &e) != 0) return -1;  … p.n, p.answer …
 *     push_slots_free(&p);
 *
 * Ownership: *answer and p.answer are NEW references; p's strings are its own.
 */
#ifndef MECHA_DRAIN_PUSH_H
#define MECHA_DRAIN_PUSH_H

#include <jansson.h>
#include <stddef.h>
#include <time.h>

struct err;

#define PUSH_SLOTS_MAX_AGE_S 3600 /* the drain service pushes at least this often */

/*
 * Publishes the installed type id ($MECHA_HOME/factory/types/<id>.toml, as
 * catalog_load reads it) to the gate. *answer: the box's {"id", "title",
 * "fields", "url"}. Fails with the manifest's error (nothing sent), the
 * gate's (gate.h), or ERR_GATE when the box refuses it.
 */
int push_type(const char *id, json_t **answer, struct err *e);

struct push_slots {
	char *gate;         /* where they went (or would go) */
	size_t n;           /* slots in the body */
	size_t dropped;     /* slots beyond what a box takes (slots.h) */
	json_t *body;       /* what was (or would be) sent */
	json_t *answer;     /* the box's {"instrument", "stored", …}; NULL on a dry run */
};

/*
 * Computes the slots of booking type id as of from (NULL: now; slots.h) and
 * PUTs them, unless dry_run (the gate and its key are still checked). What
 * the box took is kept at home (offered.h: the sweep books only those); a
 * list that cannot be kept fails the push, though the box has it.
 */
int push_slots(const char *id, const char *from, int dry_run, struct push_slots *out,
	       struct err *e);
void push_slots_free(struct push_slots *p);

/* Where a booking type's slots stand against its last push. */
struct push_state {
	int pushed;             /* a push the box took is kept (offered.h) */
	time_t pushed_at;       /* its "now" */
	int changed;            /* the calendar's busy time or the manifest differs from it */
	time_t now;             /* the instant the state was computed for */
	long long horizon_days; /* the type's */
};

/*
 * The state of booking type id: its slots computed now (so the calendar is
 * read) and their fingerprint compared with the last push's. Fails as
 * slots_of_type does, or with the kept list's error.
 */
int push_slots_state(const char *id, struct push_state *st, struct err *e);

struct push_due_line {
	const char *type;
	const char *why;               /* why it was pushed again */
	const struct push_slots *pushed; /* what went; NULL when it failed */
	const struct err *failed;      /* why it did not; NULL when pushed */
};

/*
 * What follows the calendar (the drain service, after the sweep books or
 * withdraws): every booking type that was pushed before is pushed again —
 * the one push push_slots makes — when its calendar or manifest changed
 * since (the fingerprint, slots.h), or when max_age seconds (0: never) have
 * passed since its last push, so the notice and the horizon move on. A type
 * never pushed is left alone. Each push, and each type that failed, is
 * reported to line() (may be NULL); a failure does not stop the others.
 * Returns how many were pushed, -1 (with e) when the types cannot be listed.
 */
int push_slots_due(long long max_age, void (*line)(const struct push_due_line *l, void *ctx),
		   void *ctx, struct err *e);

#endif
