/*
 * next — what a privileged run may be told next: the briefs of requests in
 * `extracted`, oldest first, after the drafts a person decided have moved
 * their requests (the reconciling pass). `mecha frontdoor next`, the MCP tool
 * frontdoor_next and the review screen all ask here.
 *
 * Ownership: *out is a NEW reference to a JSON array; report is borrowed.
 */
#ifndef MECHA_FRONTDOOR_NEXT_H
#define MECHA_FRONTDOOR_NEXT_H

#include <jansson.h>

struct err;
struct reconcile_report;

#define NEXT_DEFAULT_LIMIT 5

/* Up to limit briefs, in seq order, from the default request store. */
int next_briefs(long long limit, const struct reconcile_report *report, json_t **out,
		struct err *e);

#endif
