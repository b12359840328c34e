/*
 * admin — owners, keys and the sweep, for the box's own command line.
 */
#include "box/admin.h"

#include "base/buf.h"
#include "base/err.h"
#include "base/hash.h"
#include "base/rfc3339.h"
#include "box/bearer.h"
#include "box/blobs.h"
#include "box/ledger.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define ORPHAN_AGE_S 3600
#define BUDGET_DAYS 2

int admin_handle_ok(const char *h, struct err *e)
{
	size_t n = strlen(h);

	for (size_t i = 0; i < n; i++)
		if (!((h[i] >= 'a' && h[i] <= 'z') || (h[i] >= '0' && h[i] <= '9') || h[i] == '-'))
			n = 0;
	if (n == 0 || n > 32 || h[0] == '-' || h[strlen(h) - 1] == '-')
		return err_set(e, ERR_USAGE, "a handle is 1-32 of a-z, 0-9 and '-', not starting or "
			       "ending with '-'");
	return 0;
}

int admin_owner_add(struct ledger *l, const char *handle, json_t **keys, struct err *e)
{
	struct ledger_user u = { 0 };
	char now[RFC3339_LEN];

	*keys = NULL;
	if (admin_handle_ok(handle, e) != 0 || hash_random_hex(u.id, LEDGER_ID_LEN, e) != 0)
		return -1;
	snprintf(u.handle, sizeof u.handle, "%s", handle);
	snprintf(u.status, sizeof u.status, "active");
	rfc3339_now(now);
	if (l->ops->user_add(l, &u, now, e) != 0)
		return -1;
	*keys = json_pack("{s:s}", "handle", handle);
	for (int s = 0; s < BEARER_SCOPE_COUNT; s++) {
		char *token;
		if (bearer_mint(l, u.id, (enum bearer_scope)s, "first keys", &token, e) != 0) {
			json_decref(*keys);
			*keys = NULL;
			return -1;
		}
		json_object_set_new(*keys, bearer_scope_name((enum bearer_scope)s),
				    json_string(token));
		free(token);
	}
	return 0;
}

int admin_key_new(struct ledger *l, const char *handle, const char *scope, const char *label,
		  char **token, struct err *e)
{
	struct ledger_user u;
	int s = bearer_scope_parse(scope), found;

	*token = NULL;
	if (s < 0)
		return err_set(e, ERR_USAGE, "--scope is one of drain, publish, release, slots");
	found = l->ops->user_get(l, handle, NULL, &u, e);
	if (found < 0)
		return -1;
	if (found == 0)
		return err_set(e, ERR_NOT_FOUND, "the box has no owner called %s (mecha box owner add "
			       "%s)", handle, handle);
	return bearer_mint(l, u.id, (enum bearer_scope)s, label, token, e);
}

int admin_sweep(struct ledger *l, const char *data, json_t **report, struct err *e)
{
	struct ledger_sweep r;
	char now[RFC3339_LEN], before[RFC3339_LEN];
	json_t *blobs, *known;
	long long orphans, moved;

	*report = NULL;
	rfc3339_now(now);
	rfc3339_format(time(NULL) - BUDGET_DAYS * 86400, before);
	before[10] = '\0'; /* budget rows are keyed by day */
	if (l->ops->sweep(l, now, before, &r, &blobs, e) != 0)
		return -1;
	json_decref(blobs); /* their bytes went with their rows, in the ledger */
	if (blobs_import(l, data, &moved, e) != 0 || l->ops->attachment_ids(l, &known, e) != 0)
		return -1;
	orphans = blobs_sweep_orphans(data, known, ORPHAN_AGE_S);
	json_decref(known);
	*report = json_pack("{s:I,s:I,s:I,s:I,s:I,s:I,s:I}", "expired_submissions",
			    (json_int_t)r.expired_submissions, "expired_uploads",
			    (json_int_t)r.expired_uploads, "attachments",
			    (json_int_t)r.attachment_rows, "orphan_blobs", (json_int_t)orphans,
			    "budget_rows", (json_int_t)r.budget_rows, "overdue_queued",
			    (json_int_t)r.overdue_queued, "moved_files", (json_int_t)moved);
	return 0;
}
