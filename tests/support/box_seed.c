/*
 * box_seed — a test support tool: puts rows into a box's ledger through the
 * box's own storage interface (src/box/ledger.h), the way the form flow does,
 * so the CLI tests can drain, ack and sweep real rows without the box having
 * a single test-only route.
 *
 *   box_seed queue DB DATA HANDLE TYPE PAYLOAD [--retain-until T] [FIELD=FILE…]
 *       a queued row (what a verified submission becomes) with an attachment
 *       per FIELD=FILE (its bytes stored in the ledger with it, as an upload stores them);
 *       prints the row's seq
 *   box_seed submit DB HANDLE TYPE PAYLOAD VERIFY_EXPIRES
 *       a `submitted` row (a form POST whose link was never clicked); prints
 *       its seq, or "over budget"
 *   box_seed mail DB SMTP_URL FROM TO TITLE LINK
 *       one verification mail through the box's mail worker (src/box/mailer.c),
 *       waiting until the worker has handled it (DB is not opened)
 *   box_seed key DB HANDLE SCOPE ID PHC
 *       a key row with a given id and Argon2id PHC string (a hash another
 *       program made, e.g. the compatible Rust box or the argon2 CLI)
 *
 * Built by the Makefile as build/tests/box_seed (BOX_SEED in the CLI tests).
 */
#include "base/buf.h"
#include "base/err.h"
#include "base/fs.h"
#include "base/hash.h"
#include "base/rfc3339.h"
#include "box/boxconf.h"
#include "box/mailer.h"
#include "box/ledger.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int die(const struct err *e)
{
	fprintf(stderr, "box_seed: %s\n", e->msg);
	return 1;
}

static int owner(struct ledger *l, const char *handle, struct ledger_user *u, struct err *e)
{
	int found = l->ops->user_get(l, handle, NULL, u, e);

	if (found == 0)
		err_set(e, ERR_NOT_FOUND, "no owner %s", handle);
	return found == 1 ? 0 : -1;
}

/* FIELD=FILE: the attachment described, its bytes read (stored with the row). */
static int attach(const char *data, const char *user, const char *spec,
		  struct ledger_attachment *a, struct err *e)
{
	const char *eq = strchr(spec, '=');
	char *bytes, *id = xmalloc(LEDGER_ID_LEN + 1), digest[HASH_SHA256_HEX_LEN + 1];
	size_t len;

	if (!eq || fs_read(eq + 1, &bytes, &len, e) != 0 ||
	    hash_random_hex(id, LEDGER_ID_LEN, e) != 0)
		return eq ? -1 : err_set(e, ERR_USAGE, "%s is not FIELD=FILE", spec);
	(void)data;
	(void)user;
	hash_sha256_hex(bytes, len, digest);
	memset(a, 0, sizeof *a);
	a->data = bytes;
	a->id = id;
	a->field = xstrndup(spec, (size_t)(eq - spec));
	a->filename = xstrdup(strrchr(eq + 1, '/') ? strrchr(eq + 1, '/') + 1 : eq + 1);
	a->content_type = strstr(eq + 1, ".png")   ? "image/png"
			  : strstr(eq + 1, ".jpg") ? "image/jpeg"
						   : "application/pdf";
	a->sha256 = xasprintf("sha256:%s", digest);
	a->size = (long long)len;
	return 0;
}

static int queue(struct ledger *l, int argc, char **argv, struct err *e)
{
	struct ledger_attachment a[8];
	struct ledger_queued q = { 0 };
	struct ledger_user u;
	char now[RFC3339_LEN];
	long long seq;
	int i = 4, rc;

	if (argc < 4 || owner(l, argv[1], &u, e) != 0)
		return argc < 4 ? err_set(e, ERR_USAGE, "queue DB DATA HANDLE TYPE PAYLOAD") : -1;
	q.user_id = u.id;
	q.type_id = argv[2];
	q.payload = argv[3];
	if (argc > 5 && strcmp(argv[4], "--retain-until") == 0) {
		q.retain_until = argv[5];
		i = 6;
	}
	for (; i < argc && q.nattachments < 8; i++) {
		if (attach(argv[0], u.id, argv[i], &a[q.nattachments], e) != 0)
			return -1;
		q.nattachments++;
	}
	q.attachments = a;
	rfc3339_now(now);
	rc = l->ops->queue_add(l, &q, now, &seq, e);
	if (rc == 0)
		printf("%lld\n", seq);
	for (size_t k = 0; k < q.nattachments; k++) {
		free((char *)a[k].id);
		free((char *)a[k].field);
		free((char *)a[k].filename);
		free((char *)a[k].sha256);
		free((char *)a[k].data);
	}
	return rc;
}

static int submit(struct ledger *l, int argc, char **argv, struct err *e)
{
	struct ledger_submission s = { 0 };
	struct ledger_user u;
	char now[RFC3339_LEN], day[11];
	long long seq;
	int fits;

	if (argc != 4 || owner(l, argv[0], &u, e) != 0)
		return argc != 4 ? err_set(e, ERR_USAGE, "submit DB HANDLE TYPE PAYLOAD EXPIRES") : -1;
	rfc3339_now(now);
	snprintf(day, sizeof day, "%.10s", now);
	s = (struct ledger_submission){ u.id, argv[1], argv[2], NULL, "0000", argv[3],
					"1111", "2222", day, 3 };
	if ((fits = l->ops->queue_submit(l, &s, now, &seq, e)) < 0)
		return -1;
	if (fits)
		printf("%lld\n", seq);
	else
		printf("over budget\n");
	return 0;
}

static int key(struct ledger *l, int argc, char **argv, struct err *e)
{
	struct ledger_key k = { 0 };
	struct ledger_user u;
	char now[RFC3339_LEN];

	if (argc != 4 || owner(l, argv[0], &u, e) != 0)
		return argc != 4 ? err_set(e, ERR_USAGE, "key DB HANDLE SCOPE ID PHC") : -1;
	snprintf(k.id, sizeof k.id, "%s", argv[2]);
	snprintf(k.user_id, sizeof k.user_id, "%s", u.id);
	snprintf(k.scope, sizeof k.scope, "%s", argv[1]);
	k.hash = argv[3];
	k.label = "seeded";
	rfc3339_now(now);
	return l->ops->key_add(l, &k, now, e);
}

static int mail(int argc, char **argv, struct err *e)
{
	struct boxconf c;
	struct mailer *m;

	if (argc != 5)
		return err_set(e, ERR_USAGE, "mail DB SMTP_URL FROM TO TITLE LINK");
	boxconf_defaults(&c);
	c.smtp_url = xstrdup(argv[0]);
	c.mail_from = xstrdup(argv[1]);
	if (!(m = mailer_start(&c, e))) {
		boxconf_free(&c);
		return -1;
	}
	mailer_verification(m, argv[2], argv[3], argv[4]);
	mailer_stop(m);
	boxconf_free(&c);
	return 0;
}

int main(int argc, char **argv)
{
	struct ledger *l;
	struct err e;
	int rc;

	if (argc < 3) {
		fprintf(stderr, "usage: box_seed queue|submit|key DB …\n");
		return 2;
	}
	if (strcmp(argv[1], "mail") == 0)
		return mail(argc - 3, argv + 3, &e) == 0 ? 0 : die(&e);
	if (!(l = ledger_open(argv[2], &e)))
		return die(&e);
	if (strcmp(argv[1], "queue") == 0)
		rc = queue(l, argc - 3, argv + 3, &e);
	else if (strcmp(argv[1], "submit") == 0)
		rc = submit(l, argc - 3, argv + 3, &e);
	else if (strcmp(argv[1], "key") == 0)
		rc = key(l, argc - 3, argv + 3, &e);
	else
		rc = err_set(&e, ERR_USAGE, "unknown command %s", argv[1]);
	ledger_close(l);
	return rc == 0 ? 0 : die(&e);
}
