/*
 * gate — where the owner's box is, the keys this machine holds for it, and
 * the one way mecha talks to it: the drain, `slots push` and `types push`
 * all call through here (libcurl, loaded on first use).
 *
 * The rule it keeps: a key travels only where nobody can read it on the
 * way. The gate is https://…, or http:// to this machine's loopback
 * (127.0.0.0/8 or [::1]); any other http:// gate is refused (insecure)
 * before a byte is sent, and so is a key file that group or others can read
 * or that another user owns. A redirect is never followed (it could carry
 * the key to another host), an https gate speaks only https, and a loopback
 * gate is never reached through a proxy the environment names.
 *
 * Where things are (the places the compatible Rust tools use, so one home serves both):
 *   gate  $FACTORY_GATE, else `gate = "https://…"` in
 *         $MECHA_HOME/factory/config.toml, read strictly: that one key, a
 *         string; anything else in the file is an error naming its line.
 *   keys  one line each, the key as `mecha box owner add` printed it:
 *         drain.key ($FACTORY_DRAIN_KEY, a path, overrides it), slots.key
 *         ($FACTORY_SLOTS_KEY), release.key ($FACTORY_RELEASE_KEY), all in
 *         $MECHA_HOME/factory/, mode 0600.
 *
 * Calling sequence:
 *     struct gate g;
 *     if (gate_open(GATE_DRAIN, &g, &e) != 0) return -1;
 *     struct gate_request rq = { "GET", "/v1/queue?since=0&wait=0", NULL, 0, NULL,
 *                                GATE_JSON_MAX, 30, 0 };
 *     struct gate_reply r = GATE_REPLY_INIT;
 *     if (gate_call(&g, &rq, &r, &e) == 0) … r.body …
 *     gate_reply_free(&r);
 *     gate_close(&g);
 *
 * Ownership: struct gate owns its strings and its libcurl handle (made by the
 * first call, its connection kept for the next ones), and wipes the key on
 * gate_close. Threads: a gate is one thread's at a time (a libcurl easy handle
 * is never shared); two threads open two gates.
 * A reply owns its body (gate_reply_free). gate_json returns a NEW reference.
 */
#ifndef MECHA_DRAIN_GATE_H
#define MECHA_DRAIN_GATE_H

#include "base/buf.h"

#include <jansson.h>
#include <signal.h>
#include <stddef.h>

struct err;

/* The most a JSON answer of the box may hold: a queue batch of big payloads fits. */
#define GATE_JSON_MAX ((size_t)64 << 20)

enum gate_key {
	GATE_DRAIN,   /* drain.key: the queue, its ack and its attachments */
	GATE_SLOTS,   /* slots.key: PUT /v1/instruments/{id}/slots */
	GATE_RELEASE, /* release.key: PUT /v1/types/{id} */
	GATE_PUBLISH, /* publish.key: GET /v1/types (what the box serves; mecha doctor) */
};

struct gate {
	char *url;      /* the gate, without a trailing slash */
	char *key;      /* the bearer key; wiped on close */
	char *key_path; /* where the key was read, for messages */
	int https;      /* 0: http:// on loopback */
	/* When set, a stoppable call ends soon after *stop becomes non-zero. */
	volatile sig_atomic_t *stop;
	/* libcurl's handle (CURL *), made by the first call and kept to the close, so
	 * the calls of one pass (the batch, its files, the ack) share one connection. */
	void *easy;
};

struct gate_request {
	const char *method;       /* "GET", "POST" or "PUT" */
	const char *path;         /* "/v1/…", with its query */
	const char *body;         /* NULL: none */
	size_t len;
	const char *content_type; /* of the body; NULL without one */
	size_t max;               /* the most body bytes taken; more is a failure (over) */
	long timeout_s;           /* the whole exchange */
	int stoppable;            /* ends when *gate.stop is set (a long poll) */
};

struct gate_reply {
	struct buf body;
	long status; /* 0 when no answer came */
	int over;    /* the answer was longer than max: cut off, and the call failed */
};

#define GATE_REPLY_INIT { BUF_INIT, 0, 0 }

/*
 * Checks a gate URL by the rule above. 0 when it may be used (*https says
 * which scheme); -1 with ERR_INSECURE for plain http beyond loopback, or
 * ERR_CONFIG for anything that is not an http(s) URL with a host (a user or
 * password in it, a query or a fragment included).
 */
int gate_url_check(const char *url, int *https, struct err *e);

/*
 * The gate alone, as gate_open finds and checks it, without a trailing slash
 * and without reading a key or loading libcurl (malloc'd; NULL with
 * gate_open's errors): what a link the box made must start with.
 */
char *gate_address(struct err *e);

/*
 * The gate and the key `which`, as above; loads libcurl. Fails with ERR_CONFIG
 * (no gate, a file that does not read, a key file that holds no key),
 * ERR_INSECURE, ERR_NOT_FOUND (no key file: the message says which and how to
 * make one) or ERR_MISSING_LIBRARY.
 */
int gate_open(enum gate_key which, struct gate *g, struct err *e);
void gate_close(struct gate *g);

/*
 * A gate at url (checked as gate_url_check) presenting key, or no
 * Authorization header when key is NULL: for the calls made before the home
 * holds its keys, or with keys not yet written (`mecha pair`); loads libcurl.
 */
int gate_at(const char *url, const char *key, struct gate *g, struct err *e);

/*
 * One exchange. 0 when the box answered 2xx with at most rq->max bytes;
 * otherwise -1 with ERR_GATE: "gate: GET URL: HTTP 401: <the box's error>",
 * the transport's reason, or that the answer was longer than rq->max (and
 * out->over set). out->status is the HTTP status whatever happened.
 */
int gate_call(struct gate *g, const struct gate_request *rq, struct gate_reply *out,
	      struct err *e);
void gate_reply_free(struct gate_reply *r);

/* The answer as a JSON object (NEW), or NULL with ERR_GATE naming the call. */
json_t *gate_json(const struct gate *g, const struct gate_request *rq,
		  const struct gate_reply *r, struct err *e);

#endif
