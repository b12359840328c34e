/*
 * boxconf — box.toml, the box's configuration, through base/toml: strict
 * (an unknown key or table, a value of the wrong type, is an error naming
 * the file and the line), with defaults that let `mecha box serve --data DIR
 * --listen 127.0.0.1:PORT` run with no file at all.
 *
 *     listen = "127.0.0.1:8080"          # host:port, [v6]:port
 *     public_url = "https://box.example.org"
 *     data = "/var/lib/mecha-box"        # the ledger, attachments
 *     db = "/var/lib/mecha-box/box.db"   # or postgresql://… (default: DATA/box.db)
 *     access_log = "-"                   # "-" is stderr; or a file
 *     [tls]    cert = "…pem", key = "…pem"
 *     [mail]   smtp_url, from, username, password_env
 *     [limits] requests_per_minute, body_bytes, upload_bytes, connections,
 *              connections_per_ip, timeout_s, threads, drain_batch,
 *              upload_bytes_per_ip_day, min_free_bytes, header_timeout_s,
 *              body_timeout_s, body_bytes_per_s, form_keys
 *     [owners.HANDLE] types = ["meeting"]   # when any: the only handles and types served
 *
 * Ownership: a struct boxconf owns every string in it (boxconf_free).
 */
#ifndef MECHA_BOX_BOXCONF_H
#define MECHA_BOX_BOXCONF_H

#include <stddef.h>

struct err;

struct boxconf_limits {
	long long requests_per_minute; /* per client address, fixed 60 s window (120) */
	long long body_bytes;          /* a request body (2 MB) */
	long long upload_bytes;        /* the upload route's body (40 MiB) */
	long long connections;         /* open at once (1024) */
	long long connections_per_ip;  /* open at once from one address (32) */
	long long timeout_s;           /* an idle connection is closed after (30) */
	long long threads;             /* serving threads (4) */
	long long drain_batch;         /* records per /v1/queue answer (100) */
	long long upload_bytes_per_ip_day; /* files from one client address a day (64 MiB) */
	long long min_free_bytes;      /* under this free on the data disk, uploads wait (1 GiB) */
	long long header_timeout_s;    /* a request's line and headers must be in within (20) */
	long long body_timeout_s;      /* its body within this (20) … */
	long long body_bytes_per_s;    /* … plus its length at this rate (8192) */
	long long form_keys;           /* pairs in a urlencoded body, or seqs in an ack (16384) */
};

struct boxconf_owner {
	char *handle;
	char **types;
	size_t ntypes;
};

struct boxconf {
	char *path; /* the file read, or NULL */
	char *listen, *public_url, *data, *db, *access_log;
	char *tls_cert, *tls_key;
	char *smtp_url, *mail_from, *mail_username, *mail_password_env;
	struct boxconf_limits limits;
	struct boxconf_owner *owners;
	size_t nowners;
	int verbose; /* --verbose, not a key of the file: the sandbox says what it could not do */
};

/* The defaults (no file): listen 127.0.0.1:8080, the limits above. */
void boxconf_defaults(struct boxconf *c);
/* Reads path over the defaults. ERR_CONFIG "FILE:LINE: …" on any mistake. */
int boxconf_load(const char *path, struct boxconf *c, struct err *e);
/*
 * Fills what follows from the rest (db from data, public_url from listen)
 * and checks what must hold to serve: a data directory, a listen address, a
 * TLS pair that is both or neither, an http(s) public_url.
 */
int boxconf_finish(struct boxconf *c, struct err *e);
void boxconf_free(struct boxconf *c);

/* host and port of c->listen ("[::1]:80" gives "::1"); -1 when malformed. */
int boxconf_listen(const char *listen, char *host, size_t size, int *port);
/* 1 when the config serves type for handle (no [owners]: every type). */
int boxconf_serves(const struct boxconf *c, const char *handle, const char *type);

#endif
