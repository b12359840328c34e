/*
 * boxd — libmicrohttpd wired to the box's routes, limits and log.
 */
#include "box/boxd.h"

#include "base/buf.h"
#include "base/dl.h"
#include "base/err.h"
#include "base/fs.h"
#include "base/rfc3339.h"
#include "box/api.h"
#include "box/boxconf.h"
#include "box/deadline.h"
#include "box/jail.h"
#include "box/ledger.h"
#include "box/limit.h"
#include "box/mailer.h"
#include "box/route.h"
#include "box/upload.h"
#include "box/waiters.h"

#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <netdb.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>
#include <microhttpd.h>

/* The gate headers of docs/protocol/box-pages.md §6, on every response. */
static const char *const gate_headers[][2] = {
	{ "Content-Security-Policy",
	  "default-src 'none'; style-src 'self'; script-src 'self'; img-src 'self' data:; "
	  "font-src 'self'; connect-src 'self'; form-action 'self'; frame-ancestors 'none'; "
	  "base-uri 'none'" },
	{ "X-Content-Type-Options", "nosniff" },
	{ "Referrer-Policy", "no-referrer" },
	{ "Cross-Origin-Resource-Policy", "same-origin" },
};

struct boxd {
	const struct boxconf *conf;
	struct api_ctx api;
	struct limit *limit;
	struct waiters *waiters;
	struct deadline *deadline;
	FILE *log; /* written by log_line's write(2) on its descriptor alone */
	char *host_public, *host_listen;
	atomic_int stopping;
};

/* One connection's: its due times, and what the access log says of it if it is cut. */
struct sock {
	struct deadline_conn *due;
	char ip[64];
	struct timespec t0; /* when its current request's headers became due (a cut's "ms") */
	int logged;         /* its cut was logged with its request */
};

struct req {
	struct boxd *d;
	struct sock *sock;
	char *uri;
	struct route route;
	struct buf body;    /* a small body, whole (the forms, the API) */
	struct upload_in *up; /* an upload's, read as it arrives instead (upload.h) */
	size_t cap, got;      /* the route's cap on a body; what came of it so far */
	int started, too_big;
	struct api_call call;
	char method[16];
	char ip[64];
	struct timespec t0;
	unsigned status;
	long long bytes;
	struct api_doc *doc; /* the shared document being sent (its ref), or NULL */
};

/* ---- responses ----------------------------------------------------------------------- */

/* A streamed body (api_reply.stream), as libmicrohttpd reads it. */
struct stream {
	long long (*read)(void *arg, unsigned long long pos, char *buf, size_t max);
	void (*done)(void *arg);
	void *arg;
};

static ssize_t stream_read(void *cls, uint64_t pos, char *buf, size_t max)
{
	struct stream *s = cls;
	long long n = s->read(s->arg, pos, buf, max);

	return n > 0 ? (ssize_t)n : MHD_CONTENT_READER_END_WITH_ERROR;
}

static void stream_done(void *cls)
{
	struct stream *s = cls;

	s->done(s->arg);
	free(s);
}

static struct MHD_Response *streamed(struct api_reply *out)
{
	struct stream *s = xcalloc(1, sizeof *s);
	struct MHD_Response *resp;

	*s = (struct stream){ out->stream, out->stream_free, out->stream_arg };
	resp = MHD_create_response_from_callback((uint64_t)out->fdlen, 64 * 1024, stream_read, s,
						 stream_done);
	if (!resp)
		stream_done(s);
	return resp;
}

/* The headers of every answer: the gate's, its type, Allow, Location, no caching. */
static void add_headers(struct MHD_Response *resp, const struct req *r,
			const struct api_reply *out)
{
	for (size_t i = 0; i < sizeof gate_headers / sizeof gate_headers[0]; i++)
		MHD_add_response_header(resp, gate_headers[i][0], gate_headers[i][1]);
	if (out->type)
		MHD_add_response_header(resp, "Content-Type", out->type);
	if (out->status == 405)
		MHD_add_response_header(resp, "Allow", route_methods(r->route.kind));
	if (out->location)
		MHD_add_response_header(resp, "Location", out->location);
	MHD_add_response_header(resp, "Cache-Control", "no-store");
}

static void response_free(void *resp)
{
	MHD_destroy_response(resp);
}

/*
 * A shared document's response, made once with its headers (a doc is only ever
 * answered with one type, and without Allow or Location) and queued on every
 * connection that asks for it: libmicrohttpd counts the connections sending it,
 * and the request holds its ref on the doc (whose bytes the response points at)
 * until libmicrohttpd says it was sent (done).
 */
static struct MHD_Response *doc_response(const struct req *r, const struct api_reply *out)
{
	struct api_doc *doc = out->doc;
	struct MHD_Response *resp = atomic_load_explicit(&doc->sent, memory_order_acquire);

	if (resp)
		return resp;
	pthread_mutex_lock(&doc->lock);
	if (!(resp = atomic_load_explicit(&doc->sent, memory_order_relaxed)) &&
	    (resp = MHD_create_response_from_buffer(doc->len, doc->text, MHD_RESPMEM_PERSISTENT))) {
		add_headers(resp, r, out);
		doc->sent_free = response_free;
		atomic_store_explicit(&doc->sent, resp, memory_order_release);
	}
	pthread_mutex_unlock(&doc->lock);
	return resp;
}

static enum MHD_Result send_reply(struct MHD_Connection *c, struct req *r, struct api_reply *out)
{
	struct MHD_Response *resp;
	enum MHD_Result ok;

	if (out->doc) {
		r->doc = out->doc; /* given back in done, once the bytes are sent */
		resp = doc_response(r, out);
	} else if (out->stream) {
		resp = streamed(out);
	} else if (out->fd >= 0) {
		resp = MHD_create_response_from_fd((size_t)out->fdlen, out->fd);
	} else {
		resp = MHD_create_response_from_buffer(out->len, out->body, MHD_RESPMEM_MUST_FREE);
	}
	if (!resp) {
		if (out->fd >= 0)
			close(out->fd);
		free(out->body);
		free(out->location);
		return MHD_NO;
	}
	if (!out->doc)
		add_headers(resp, r, out);
	free(out->location);
	r->status = out->status;
	r->bytes = out->fd >= 0 || out->stream ? out->fdlen : (long long)out->len;
	if (r->sock) /* the answer is the box's to send: only the idle timeout applies now */
		deadline_set(r->d->deadline, r->sock->due, DEADLINE_NONE, 0);
	ok = MHD_queue_response(c, out->status, resp);
	if (!out->doc) /* the doc's response stays the doc's */
		MHD_destroy_response(resp);
	return ok;
}

static enum MHD_Result text(struct MHD_Connection *c, struct req *r, unsigned status,
			    const char *msg)
{
	struct api_reply out;

	memset(&out, 0, sizeof out);
	out.fd = -1;
	api_text(&out, status, msg);
	return send_reply(c, r, &out);
}

/* A refusal by route: under /v1 as JSON, as every API answer is; elsewhere as text. */
static enum MHD_Result refuse(struct MHD_Connection *c, struct req *r, unsigned status,
			      const char *msg)
{
	struct api_reply out;

	if (!r->route.api)
		return text(c, r, status, msg);
	memset(&out, 0, sizeof out);
	out.fd = -1;
	api_error(&out, status, status == 404 ? "no such endpoint" : msg);
	return send_reply(c, r, &out);
}

/* ---- the gates before a handler -------------------------------------------------------- */

static void client_address(struct MHD_Connection *c, char *out, size_t size)
{
	const union MHD_ConnectionInfo *ci =
		MHD_get_connection_info(c, MHD_CONNECTION_INFO_CLIENT_ADDRESS);
	const struct sockaddr *sa = ci ? ci->client_addr : NULL;

	snprintf(out, size, "?");
	if (sa)
		getnameinfo(sa, sa->sa_family == AF_INET6 ? sizeof(struct sockaddr_in6)
							  : sizeof(struct sockaddr_in),
			    out, (socklen_t)size, NULL, 0, NI_NUMERICHOST);
}

/* The authority a URL names ("https://box.example.org/x" → "box.example.org"). */
static char *authority(const char *url)
{
	const char *p = strstr(url, "://");

	p = p ? p + 3 : url;
	return xstrndup(p, strcspn(p, "/?#"));
}

static int host_known(const struct boxd *d, const char *host)
{
	return host && (strcasecmp(host, d->host_public) == 0 ||
			strcasecmp(host, d->host_listen) == 0);
}

static int method_allowed(const struct route *r, const char *method)
{
	const char *allowed = route_methods(r->kind);
	size_t n = strlen(method);

	for (const char *p = allowed; (p = strstr(p, method)); p += n)
		if ((p == allowed || p[-1] == ' ') && (p[n] == '\0' || p[n] == ','))
			return 1;
	return 0;
}

/*
 * The headers are in: the body is due within body_timeout_s and its length
 * at body_bytes_per_s (a length not declared, chunked, is taken at the route's
 * cap). A refusal sent before it arrives takes the due time off again.
 */
static void body_due(struct MHD_Connection *c, const struct req *r)
{
	const struct boxconf_limits *lim = &r->d->conf->limits;
	const char *len = MHD_lookup_connection_value(c, MHD_HEADER_KIND, "Content-Length");
	unsigned long long n = len ? strtoull(len, NULL, 10) : 0;
	unsigned long long cap = (unsigned long long)(r->route.kind == ROUTE_FORM_UPLOAD
							    ? lim->upload_bytes
							    : lim->body_bytes);

	if (!len && MHD_lookup_connection_value(c, MHD_HEADER_KIND, "Transfer-Encoding"))
		n = cap;
	if (n > cap)
		n = cap; /* refused at once below: 413 */
	if (r->sock)
		deadline_set(r->d->deadline, r->sock->due, DEADLINE_BODY,
			     lim->body_timeout_s * 1000 +
				     (long long)(n * 1000 / (unsigned long long)lim->body_bytes_per_s));
}

/* What a handler is told of the request besides its body. */
static void describe(struct MHD_Connection *c, struct req *r)
{
	r->call.route = &r->route;
	r->call.method = r->method;
	r->call.auth = MHD_lookup_connection_value(c, MHD_HEADER_KIND, "Authorization");
	r->call.content_type = MHD_lookup_connection_value(c, MHD_HEADER_KIND, "Content-Type");
	r->call.ip = r->ip;
}

/* The first call for a request: every refusal that needs no body. */
static enum MHD_Result first(struct MHD_Connection *c, struct req *r, const char *method)
{
	struct boxd *d = r->d;
	const char *len = MHD_lookup_connection_value(c, MHD_HEADER_KIND, "Content-Length");

	r->started = 1;
	snprintf(r->method, sizeof r->method, "%s", method);
	body_due(c, r);
	if (r->sock) /* the connection's, found once when it was accepted */
		memcpy(r->ip, r->sock->ip, sizeof r->ip);
	else
		client_address(c, r->ip, sizeof r->ip);
	if (!host_known(d, MHD_lookup_connection_value(c, MHD_HEADER_KIND, "Host")))
		return text(c, r, 404, "not found");
	if (!limit_take(d->limit, r->ip, time(NULL)))
		return text(c, r, 429, "too many requests");
	if (r->route.kind == ROUTE_NONE)
		return refuse(c, r, 404, "not found");
	if (!method_allowed(&r->route, method))
		return refuse(c, r, 405, "method not allowed");
	r->cap = (size_t)(r->route.kind == ROUTE_FORM_UPLOAD ? d->conf->limits.upload_bytes
							      : d->conf->limits.body_bytes);
	if (len && strtoull(len, NULL, 10) > r->cap)
		return refuse(c, r, 413, "payload too large");
	if (r->route.kind == ROUTE_FORM_UPLOAD && strcmp(method, "POST") == 0) {
		describe(c, r);
		r->up = upload_begin(&d->api, &r->call);
	}
	return MHD_YES;
}

static enum MHD_Result finish(struct MHD_Connection *c, struct req *r)
{
	struct boxd *d = r->d;
	struct api_reply out;

	if (r->sock) /* the body is in: from here on the time is the box's, not the client's */
		deadline_set(d->deadline, r->sock->due, DEADLINE_NONE, 0);
	if (r->too_big)
		return refuse(c, r, 413, "payload too large");
	if (r->up) {
		upload_end(r->up, &out);
		r->up = NULL;
		return send_reply(c, r, &out);
	}
	describe(c, r);
	r->call.body = buf_str(&r->body);
	r->call.len = r->body.len;
	api_handle(&d->api, &r->call, &out);
	if (out.park && atomic_load(&d->stopping)) {
		r->call.resumed = 1;
		r->call.deadline = 0;
		api_handle(&d->api, &r->call, &out);
	}
	if (out.park) {
		r->call.resumed = 1;
		MHD_suspend_connection(c);
		waiters_add(d->waiters, c, r->call.user, r->call.since, r->call.deadline);
		return MHD_YES;
	}
	return send_reply(c, r, &out);
}

static enum MHD_Result handle(void *cls, struct MHD_Connection *c, const char *url,
			      const char *method, const char *version, const char *data,
			      size_t *size, void **con_cls)
{
	struct req *r = *con_cls;

	if (!r)
		return MHD_NO;
	if (!r->started)
		return first(c, r, method);
	if (*size) {
		if (r->got + *size > r->cap && !r->too_big) {
			r->too_big = 1; /* the rest is read past, and 413 answers it */
			if (r->up)
				upload_abandon(r->up);
			r->up = NULL;
			buf_free(&r->body);
		}
		r->got += *size;
		if (r->up)
			upload_feed(r->up, data, *size);
		else if (!r->too_big)
			buf_add(&r->body, data, *size);
		*size = 0;
		return MHD_YES;
	}
	return finish(c, r);
}

/* ---- request lifetime and the access log --------------------------------------------------- */

static struct sock *sock_of(struct MHD_Connection *c)
{
	const union MHD_ConnectionInfo *ci =
		MHD_get_connection_info(c, MHD_CONNECTION_INFO_SOCKET_CONTEXT);

	return ci ? ci->socket_context : NULL;
}

static void *begin(void *cls, const char *uri, struct MHD_Connection *c)
{
	struct req *r = xcalloc(1, sizeof *r);

	r->d = cls;
	r->sock = sock_of(c);
	r->uri = xstrdup(uri ? uri : "");
	clock_gettime(CLOCK_MONOTONIC, &r->t0);
	route_parse(r->uri, strlen(r->uri), &r->route);
	return r;
}

/*
 * One line of the access log; cut names the phase a deadline cut it in, or is
 * NULL. jansson writes the line into a buffer on the stack, and one write(2) on
 * the log's descriptor appends it whole: no lock, nothing to flush (the log's
 * FILE is never written through). A line that does not fit is not written.
 */
/*
 * The method as the log shows it: the client's bytes, each one that is not
 * printable ASCII as '?' (as route.c's redact does the path), "?" for none.
 * Raw, a byte that is not UTF-8 (or a character cut by the 16-byte field)
 * would make json_pack refuse the line and the request go unlogged.
 */
static void log_method(const char *method, char out[16])
{
	char *q = out;

	for (const unsigned char *p = (const unsigned char *)method; *p && q < out + 15; p++)
		*q++ = *p > 0x20 && *p < 0x7f ? (char)*p : '?';
	if (q == out)
		*q++ = '?';
	*q = '\0';
}

static void log_line(struct boxd *d, const char *ip, const char *method, const char *path,
		     unsigned status, long long bytes, const struct timespec *t0, const char *cut)
{
	struct timespec t1;
	char now[RFC3339_LEN], line[6 * (64 + 16 + ROUTE_LOG_MAX) + 256], shown[16];
	json_t *o;
	size_t n;

	clock_gettime(CLOCK_MONOTONIC, &t1);
	rfc3339_now(now);
	log_method(method, shown);
	o = json_pack("{s:s,s:s,s:s,s:s,s:i,s:I,s:I}", "time", now, "ip",
		      strlen(ip) < 64 ? ip : "?", "method", shown, "path",
		      strlen(path) < ROUTE_LOG_MAX ? path : "?", "status", (int)status, "bytes",
		      (json_int_t)bytes, "ms",
		      (json_int_t)(t1.tv_sec - t0->tv_sec) * 1000 +
			      (t1.tv_nsec - t0->tv_nsec) / 1000000);
	if (o && cut)
		json_object_set_new(o, "cut", json_string(cut));
	n = o ? json_dumpb(o, line, sizeof line - 1, JSON_COMPACT | JSON_PRESERVE_ORDER) : 0;
	json_decref(o);
	if (n == 0 || n > sizeof line - 1)
		return;
	line[n++] = '\n';
	if (write(fileno(d->log), line, n) < 0)
		return; /* a log that cannot be written is not the visitor's answer */
}

static void log_request(struct boxd *d, const struct req *r)
{
	enum deadline_phase cut = r->sock ? deadline_cut(d->deadline, r->sock->due)
					  : DEADLINE_NONE;

	if (cut != DEADLINE_NONE) { /* 408: what the client never finished sending */
		r->sock->logged = 1;
		log_line(d, r->sock->ip, r->method, r->route.log, 408, 0, &r->sock->t0,
			 deadline_phase_name(cut));
	} else if (r->started) {
		log_line(d, r->ip, r->method, r->route.log, r->status, r->bytes, &r->t0, NULL);
	}
}

static void done(void *cls, struct MHD_Connection *c, void **con_cls,
		 enum MHD_RequestTerminationCode toe)
{
	struct req *r = *con_cls;
	struct boxd *d = cls;

	if (!r)
		return;
	log_request(d, r);
	if (r->sock && !r->sock->logged) {
		/* Kept alive, the next request's headers are due too — after the idle
		 * timeout's worth of waiting, so that a connection merely left open is
		 * closed by that timeout, and only one trickling bytes meets this. */
		clock_gettime(CLOCK_MONOTONIC, &r->sock->t0);
		deadline_set(d->deadline, r->sock->due, DEADLINE_HEADERS,
			     (d->conf->limits.timeout_s + d->conf->limits.header_timeout_s) * 1000);
	}
	if (r->up) /* the connection went before the body was in */
		upload_abandon(r->up);
	api_doc_put(r->doc);
	buf_free(&r->body);
	free(r->uri);
	free(r);
	*con_cls = NULL;
}

/*
 * A connection's start and end: its headers due from the moment it is
 * accepted; at its close, a cut no request line was logged for (the client
 * never finished even that) gets its line here.
 */
static void connection(void *cls, struct MHD_Connection *c, void **socket_context,
		       enum MHD_ConnectionNotificationCode code)
{
	struct boxd *d = cls;
	struct sock *s = *socket_context;
	const union MHD_ConnectionInfo *ci;
	enum deadline_phase cut;

	if (code == MHD_CONNECTION_NOTIFY_STARTED) {
		s = xcalloc(1, sizeof *s);
		client_address(c, s->ip, sizeof s->ip);
		clock_gettime(CLOCK_MONOTONIC, &s->t0);
		ci = MHD_get_connection_info(c, MHD_CONNECTION_INFO_CONNECTION_FD);
		if (ci)
			s->due = deadline_add(d->deadline, ci->connect_fd,
					      d->conf->limits.header_timeout_s * 1000);
		*socket_context = s;
		return;
	}
	if (!s)
		return;
	cut = deadline_remove(d->deadline, s->due);
	if (cut != DEADLINE_NONE && !s->logged)
		log_line(d, s->ip, "?", "?", 408, 0, &s->t0, deadline_phase_name(cut));
	free(s);
	*socket_context = NULL;
}

static void resume(void *conn)
{
	MHD_resume_connection(conn);
}

/* ---- start and stop ---------------------------------------------------------------------------- */

struct tls {
	char *cert, *key;
};

static int read_tls(const struct boxconf *conf, struct tls *t, struct err *e)
{
	size_t n;

	memset(t, 0, sizeof *t);
	if (!conf->tls_cert)
		return 0;
	if (fs_read(conf->tls_cert, &t->cert, &n, e) != 0 ||
	    fs_read(conf->tls_key, &t->key, &n, e) != 0) {
		err_prefix(e, "[tls]");
		e->code = ERR_CONFIG;
		return -1;
	}
	return 0;
}

static int resolve(const struct boxconf *conf, struct addrinfo **ai, struct err *e)
{
	struct addrinfo hints = { 0 };
	char host[256], port[16];
	int p, rc;

	boxconf_listen(conf->listen, host, sizeof host, &p);
	snprintf(port, sizeof port, "%d", p);
	hints.ai_socktype = SOCK_STREAM;
	hints.ai_flags = AI_PASSIVE;
	if ((rc = getaddrinfo(host, port, &hints, ai)) != 0)
		return err_set(e, ERR_CONFIG, "listen '%s': %s", conf->listen, gai_strerror(rc));
	return 0;
}

static struct MHD_Daemon *start(struct boxd *d, const struct addrinfo *ai, const struct tls *t)
{
	const struct boxconf_limits *lim = &d->conf->limits;
	unsigned flags = MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_EPOLL |
			 MHD_ALLOW_SUSPEND_RESUME | (ai->ai_family == AF_INET6 ? MHD_USE_IPv6 : 0) |
			 (t->cert ? MHD_USE_TLS : 0);
	struct MHD_OptionItem ops[] = {
		{ MHD_OPTION_URI_LOG_CALLBACK, (intptr_t)begin, d },
		{ MHD_OPTION_NOTIFY_COMPLETED, (intptr_t)done, d },
		{ MHD_OPTION_NOTIFY_CONNECTION, (intptr_t)connection, d },
		{ MHD_OPTION_CONNECTION_LIMIT, (intptr_t)lim->connections, NULL },
		{ MHD_OPTION_PER_IP_CONNECTION_LIMIT, (intptr_t)lim->connections_per_ip, NULL },
		{ MHD_OPTION_CONNECTION_TIMEOUT, (intptr_t)lim->timeout_s, NULL },
		{ MHD_OPTION_THREAD_POOL_SIZE, (intptr_t)lim->threads, NULL },
		{ MHD_OPTION_LISTEN_BACKLOG_SIZE, 1024, NULL },
		{ MHD_OPTION_SOCK_ADDR, 0, ai->ai_addr },
		{ t->cert ? MHD_OPTION_HTTPS_MEM_CERT : MHD_OPTION_END, 0, t->cert },
		{ t->cert ? MHD_OPTION_HTTPS_MEM_KEY : MHD_OPTION_END, 0, t->key },
		{ MHD_OPTION_END, 0, NULL },
	};

	return MHD_start_daemon(flags, 0, NULL, NULL, handle, d, MHD_OPTION_ARRAY, ops,
				MHD_OPTION_END);
}

/* Room for the connection cap: a soft file limit below it would refuse sockets early. */
static void raise_files(void)
{
	struct rlimit rl;

	if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur < rl.rlim_max) {
		rl.rlim_cur = rl.rlim_max;
		setrlimit(RLIMIT_NOFILE, &rl);
	}
}

static int open_log(struct boxd *d, struct err *e)
{
	const char *path = d->conf->access_log;
	int fd;

	if (!path || strcmp(path, "-") == 0) {
		d->log = stderr;
		return 0;
	}
	fd = open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0600);
	if (fd < 0 || !(d->log = fdopen(fd, "a"))) {
		if (fd >= 0)
			close(fd);
		return err_errno(e, "opening the access log %s", path);
	}
	return 0;
}

static void announce(const struct boxd *d)
{
	char now[RFC3339_LEN];

	rfc3339_now(now);
	fprintf(stderr, "{\"time\":\"%s\",\"event\":\"listening\",\"listen\":\"%s\",\"ledger\":\"%s\"}\n",
		now, d->conf->listen, d->api.ledger->ops->name);
	fflush(stderr);
}

/* Blocks until SIGINT or SIGTERM (blocked in every thread, so it arrives here). */
static void wait_signal(const sigset_t *set)
{
	int sig;

	while (sigwait(set, &sig) != 0)
		;
}

static int run(struct boxd *d, const struct addrinfo *ai, const struct tls *t, struct err *e)
{
	struct MHD_Daemon *daemon;
	sigset_t set, old;

	sigemptyset(&set);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGTERM);
	pthread_sigmask(SIG_BLOCK, &set, &old);
	signal(SIGPIPE, SIG_IGN);
	if (!(d->deadline = deadline_start(e)))
		return -1;
	if (!(d->waiters = waiters_start(d->api.ledger, resume, e))) {
		deadline_stop(d->deadline);
		return -1;
	}
	d->api.waiters = d->waiters;
	if (!(daemon = start(d, ai, t))) {
		waiters_stop(d->waiters);
		waiters_free(d->waiters);
		deadline_stop(d->deadline);
		return err_set(e, ERR_CONFIG, "cannot serve on %s (is the address in use, or the "
			       "TLS certificate unreadable?)", d->conf->listen);
	}
	announce(d);
	wait_signal(&set);
	atomic_store(&d->stopping, 1);
	waiters_stop(d->waiters);
	MHD_stop_daemon(daemon);
	waiters_free(d->waiters);
	deadline_stop(d->deadline);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	return 0;
}

int boxd_serve(const struct boxconf *conf, struct ledger *l, struct err *e)
{
	struct boxd d = { 0 };
	struct addrinfo *ai = NULL;
	struct tls t;
	int rc = -1;

	d.conf = conf;
	if (read_tls(conf, &t, e) != 0 || resolve(conf, &ai, e) != 0 ||
	    dl_require(DL_MHD, e) != 0 || open_log(&d, e) != 0)
		goto out;
	raise_files();
	/* before the first thread: the jail binds only this one and those it starts */
	jail_apply(conf, 1);
	d.api = (struct api_ctx){ conf, l, time(NULL), NULL, NULL };
	if (!(d.api.mailer = mailer_start(conf, e)))
		goto out;
	d.limit = limit_new(conf->limits.requests_per_minute);
	d.host_public = authority(conf->public_url);
	d.host_listen = xstrdup(conf->listen);
	rc = run(&d, ai, &t, e);
	limit_free(d.limit);
	mailer_stop(d.api.mailer);
	free(d.host_public);
	free(d.host_listen);
out:
	if (d.log && d.log != stderr)
		/* NOLINTNEXTLINE(cert-err33-c): the access log is closed at exit; nothing is left to tell */
		fclose(d.log);
	if (ai)
		freeaddrinfo(ai);
	free(t.cert);
	free(t.key);
	return rc;
}
