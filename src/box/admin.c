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
#include <sys/random.h>
#include <time.h>

#define ORPHAN_AGE_S 3600
#define BUDGET_DAYS 2

/* Checks a handle: 1-32 of [a-z0-9-], not starting or ending with '-'. */
static int admin_handle_ok(const char *h, struct err *e)
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

/* Crockford's base32: no I, L, O or U, so nothing reads as another letter or a digit. */
static const char pair_alphabet[] = "0123456789ABCDEFGHJKMNPQRSTVWXYZ";
#define PAIR_CHARS 12

void admin_pair_hash(const char *code, size_t len, char out[65])
{
	struct buf b = BUF_INIT;

	for (size_t i = 0; i < len; i++) {
		char c = code[i];
		if (c == '-' || c == ' ' || c == '\t')
			continue;
		if (c >= 'a' && c <= 'z')
			c = (char)(c - 'a' + 'A');
		if (c == 'O')
			c = '0';
		else if (c == 'I' || c == 'L')
			c = '1';
		buf_addc(&b, c);
	}
	hash_sha256_hex(b.data ? b.data : "", b.len, out);
	buf_free(&b);
}

int admin_pair_new(struct ledger *l, const char *handle, const char *label, char **code,
		   char expires[32], struct err *e)
{
	struct ledger_user u;
	unsigned char raw[PAIR_CHARS];
	char text[PAIR_CHARS + 3], hash[65], now[RFC3339_LEN], since[RFC3339_LEN];
	struct ledger_pairing p;
	size_t n = 0;
	int found, added;

	*code = NULL;
	found = l->ops->user_get(l, handle, NULL, &u, e);
	if (found < 0)
		return -1;
	if (found == 0)
		return err_set(e, ERR_NOT_FOUND, "the box has no owner called %s (mecha box owner add "
			       "%s)", handle, handle);
	if (getrandom(raw, sizeof raw, 0) != (ssize_t)sizeof raw)
		return err_errno(e, "reading random bytes");
	for (int i = 0; i < PAIR_CHARS; i++) {
		if (i && i % 4 == 0)
			text[n++] = '-';
		text[n++] = pair_alphabet[raw[i] & 31]; /* 256 is 8 × 32: every letter as likely */
	}
	text[n] = '\0';
	explicit_bzero(raw, sizeof raw);
	admin_pair_hash(text, n, hash);
	rfc3339_now(now);
	rfc3339_format(time(NULL) + ADMIN_PAIR_MINUTES * 60, expires);
	rfc3339_format(time(NULL) - 3600, since);
	p = (struct ledger_pairing){ u.id, hash, label ? label : "", now, expires, since,
				     ADMIN_PAIR_PER_HOUR };
	added = l->ops->pair_add(l, &p, e);
	if (added < 0)
		return -1;
	if (added == 0)
		return err_set(e, ERR_TOO_MANY, "%s has made %d pairing codes in the last hour; wait, "
			       "or use one of them", handle, ADMIN_PAIR_PER_HOUR);
	*code = xstrdup(text);
	explicit_bzero(text, sizeof text);
	return 0;
}

int admin_sweep(struct ledger *l, const char *data, json_t **report, struct err *e)
{
	struct ledger_sweep r;
	char now[RFC3339_LEN], before[RFC3339_LEN], spent_before[RFC3339_LEN];
	json_t *blobs, *known;
	long long orphans, moved;

	*report = NULL;
	rfc3339_now(now);
	rfc3339_format(time(NULL) - BUDGET_DAYS * 86400, before);
	before[10] = '\0'; /* budget rows are keyed by day */
	rfc3339_format(time(NULL) - LEDGER_SPENT_LINK_DAYS * 86400LL, spent_before);
	if (l->ops->sweep(l, now, before, spent_before, &r, &blobs, e) != 0)
		return -1;
	json_decref(blobs); /* their bytes went with their rows, in the ledger */
	if (blobs_import(l, data, &moved, e) != 0 || l->ops->attachment_ids(l, &known, e) != 0)
		return -1;
	orphans = blobs_sweep_orphans(data, known, ORPHAN_AGE_S);
	json_decref(known);
	*report = json_pack("{s:I,s:I,s:I,s:I,s:I,s:I,s:I,s:I}", "expired_submissions",
			    (json_int_t)r.expired_submissions, "expired_uploads",
			    (json_int_t)r.expired_uploads, "attachments",
			    (json_int_t)r.attachment_rows, "orphan_blobs", (json_int_t)orphans,
			    "budget_rows", (json_int_t)r.budget_rows, "overdue_queued",
			    (json_int_t)r.overdue_queued, "moved_files", (json_int_t)moved,
			    "forgotten_links", (json_int_t)r.forgotten_links);
	return 0;
}
