/*
 * boxd — the box's HTTP server: libmicrohttpd with a thread pool on epoll,
 * and everything a request meets before a handler sees it.
 *
 * In order, for every request: the client's address; the Host header
 * (anything but the public URL's or the listen address's authority is 404
 * "not found", the same bytes as an unknown route); the per-address rate
 * limit (429 "too many requests"); the route (route.c); the method (405);
 * the body limit (2 MB, 40 MiB on the upload route: 413) — then the handler
 * (api.c for /v1), with the whole body. Every response carries the gate's
 * headers (docs/protocol/box-pages.md §6: CSP, nosniff, no referrer, same-origin resource
 * policy). The access log gets one JSON line per request — time, address,
 * method, path with tokens replaced, status, bytes, milliseconds — and never
 * a body, a query or a header.
 *
 * Slow clients cost a socket, not a thread: connections are capped in all
 * and per address, and one that sends nothing for timeout_s is closed.
 *
 * boxd_serve runs until SIGINT or SIGTERM, then resumes parked long polls,
 * stops the daemon and returns 0.
 *
 * Ownership: conf and l are borrowed for the whole run.
 */
#ifndef MECHA_BOX_BOXD_H
#define MECHA_BOX_BOXD_H

struct boxconf;
struct err;
struct ledger;

int boxd_serve(const struct boxconf *conf, struct ledger *l, struct err *e);

#endif
