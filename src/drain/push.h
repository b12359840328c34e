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

struct err;

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

#endif
