/*
 * next — the briefs, and nothing but the briefs: every value handed on comes
 * from brief_build, the boundary.
 */
#include "frontdoor/next.h"

#include "base/err.h"
#include "base/verdict.h"
#include "frontdoor/brief.h"
#include "frontdoor/prose.h"
#include "frontdoor/reconcile.h"
#include "requests/record.h"
#include "requests/state.h"
#include "requests/store.h"

#include <stdio.h>
#include <string.h>

struct collect {
	json_t *briefs;
	long long limit;
};

static int next_one(struct record *r, void *arg, struct err *e)
{
	struct collect *c = arg;
	json_t *b;

	(void)e;
	if (strcmp(record_state(r), STATE_EXTRACTED) != 0)
		return VERDICT_NEXT;
	if (record_valid(r))
		prose_follow_manifest(r, stderr);
	b = brief_build(r);
	if (!b)
		return VERDICT_NEXT;
	json_array_append_new(c->briefs, b);
	return (long long)json_array_size(c->briefs) >= c->limit ? VERDICT_STOP : VERDICT_NEXT;
}

int next_briefs(long long limit, const struct reconcile_report *report, json_t **out,
		struct err *e)
{
	struct collect c = { json_array(), limit };
	struct store s;
	int rc;

	*out = NULL;
	if (store_open_default(&s, STORE_READ, e) != 0) {
		json_decref(c.briefs);
		return -1;
	}
	rc = limit > 0 ? reconcile_each(&s, next_one, &c, report, e) : 0;
	store_close(&s);
	if (rc != 0) {
		json_decref(c.briefs);
		return -1;
	}
	*out = c.briefs;
	return 0;
}
