/*
 * visit — what every page a stranger reaches shares (the /f/ and /s/
 * handlers: intake.c, upload.c, book.c): whose page it is, the tokens its
 * links carry, the submission a verification mail goes out for, and the
 * HTML answer.
 *
 * The rule: a page that is not there says nothing about why. An unknown
 * handle, a suspended owner, an unknown type, a type this box's
 * configuration does not serve, a stored manifest that no longer parses, a
 * type without [verification], a booking type at /f/ and a request type at
 * /s/ are one and the same 404 page, byte for byte (page_not_found).
 *
 * Tokens (the link in a verification mail, an upload link, a manage link, a
 * booking id) are 16 random bytes in lowercase hex; the ledger keeps only
 * their SHA-256, so a copy of the ledger opens nothing.
 *
 * Calling sequence (a handler):
 *     struct visit v;
 *     if (visit_open(&v, ctx, call, VISIT_FORM, out) != 0)
 *         return;                      (the 404 is written)
 *     … v.m, v.user, v.page, v.now …
 *     visit_html(out, 200, page_form(&v.page, v.m, NULL, NULL));
 *     visit_close(&v);
 *
 * Ownership: visit_open fills a struct visit that visit_close releases (its
 * ref on the cached manifest, the paths); visit_html takes the document it is given.
 */
#ifndef MECHA_BOX_VISIT_H
#define MECHA_BOX_VISIT_H

#include "base/hash.h"
#include "base/rfc3339.h"
#include "box/api.h"
#include "box/ledger.h"
#include "box/page.h"

#include <time.h>

#define VISIT_TOKEN_LEN 32        /* 16 random bytes in hex */
#define VISIT_SENDS_PER_RECIPIENT 3 /* verification mails a day to one address */

enum visit_door {
	VISIT_FORM,    /* /f/: a request type */
	VISIT_BOOKING, /* /s/: a booking type */
};

struct visit {
	struct api_ctx *ctx;
	const struct api_call *call;
	enum visit_door door;
	struct ledger_user user;
	const struct manifest *m; /* shared, read-only: box/typecache.h */
	struct typecache_ref *mref;
	char *base;   /* "/f/ada/meeting": the page, and what links are built from */
	char *assets; /* "/f/ada/meeting/": the stylesheet and script (one place for both doors) */
	struct page_ctx page;
	time_t now;
	char now_s[RFC3339_LEN];
	/* The ledger's stamp read before anything of this visit (ledger.h); stamped 0 when
	 * the backend cannot tell (PostgreSQL): what was read under it may be reused while
	 * it holds. */
	int stamped;
	struct ledger_stamp stamp;
};

/* 0 with v filled; -1 with the 404 (or the 500 when the ledger fails) written to out. */
int visit_open(struct visit *v, struct api_ctx *ctx, const struct api_call *call,
	       enum visit_door door, struct api_reply *out);
void visit_close(struct visit *v);

/* An HTML answer: status and doc (taken). */
void visit_html(struct api_reply *out, unsigned status, char *doc);
/* The same of a shared document (its ref taken: api.h). */
void visit_doc(struct api_reply *out, unsigned status, struct api_doc *doc);
/* The one 404 of a door ("There is no form here." / "… booking page here."). */
void visit_not_found(struct api_reply *out, enum visit_door door);
/* 500 (or 503): "Unavailable", and nothing about why. */
void visit_unavailable(struct api_reply *out, const struct visit *v, unsigned status);

/* A fresh token and its hash; -1 when the system has no randomness to give. */
int visit_token(char token[VISIT_TOKEN_LEN + 1], char hash[HASH_SHA256_HEX_LEN + 1]);
/* The hash the ledger keeps of a presented token (whatever its shape). */
void visit_hash(const char *token, char hash[HASH_SHA256_HEX_LEN + 1]);
/* How the route's link of kind (LEDGER_LINK_VERIFY or _UPLOAD) stands (ledger.h's
 * link_get): enum ledger_link_status with *row (NEW, or NULL) when SPENT, or -1. */
int visit_link_status(const struct visit *v, const char *kind, json_t **row);
/* The answer for a form's link of kind that did not work just now: what it led to
 * when it was used (200), that it expired (404), or 500 when the ledger cannot say. */
void visit_form_link_gone(struct visit *v, const char *kind, struct api_reply *out);
/* now + seconds, as the ledger writes times. */
void visit_later(const struct visit *v, long long seconds, char out[RFC3339_LEN]);
/* {public_url}{base}/{kind}/{token}: a link a mail or a payload carries (malloc'd). */
char *visit_link(const struct visit *v, const char *kind, const char *token);
/* The manifest's retain_days from now into out; NULL when it keeps no limit. */
const char *visit_retain(const struct visit *v, char out[RFC3339_LEN]);
/* sha256 hex of the client's address: what per-address budgets count by. */
void visit_ip_hash(const struct visit *v, char out[HASH_SHA256_HEX_LEN + 1]);
/* Today (UTC) as YYYY-MM-DD: what daily budgets count by. */
void visit_day(const struct visit *v, char out[16]);
/* v's call after a page queued a row: a parked drain looks now. */
void visit_queued(const struct visit *v);

/* A submission about to be stored: its token, and what the ledger counts budgets by. */
struct visit_send {
	char token[VISIT_TOKEN_LEN + 1];
	char verify_hash[HASH_SHA256_HEX_LEN + 1];
	char recipient_hash[HASH_SHA256_HEX_LEN + 1]; /* of the lowered, trimmed address */
	char ip_hash[HASH_SHA256_HEX_LEN + 1];
	char day[16];
	char verify_expires[RFC3339_LEN], retain_until[RFC3339_LEN];
	struct ledger_submission sub; /* points into the above and at payload */
};

/* Fills s for payload (borrowed) to be verified by address; -1 without randomness. */
int visit_send_prepare(struct visit_send *s, const struct visit *v, const char *address,
		       const char *payload);
/*
 * Queues the verification mail for s's token to address, its link under
 * kind "c". Whatever the mail does (queued, dropped, refused later), the
 * stranger's answer is the same, so nothing comes back from here.
 */
void visit_send_mail(const struct visit *v, const struct visit_send *s, const char *address);

#endif
