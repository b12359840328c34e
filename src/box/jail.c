/*
 * jail — the box's policy, built from its configuration: the data
 * directory, the ledger, the listening port, the SMTP relay's port.
 *
 * The network is named by ports (Landlock ABI 4 confines TCP by port, not
 * by host), so what a URL gives here is its port; a host name costs a DNS
 * lookup, which the resolver makes over UDP (left open to a process with
 * any port) or, for a long answer, over TCP port 53.
 */
#include "box/jail.h"

#include "base/buf.h"
#include "base/fs.h"
#include "base/sandbox.h"
#include "box/boxconf.h"
#include "config/confine.h"

#include <stdlib.h>
#include <string.h>

#define PORT_DNS 53

/* A whole port number of n bytes at s; 0 when it is none. */
static unsigned short port_of(const char *s, size_t n)
{
	unsigned long v = 0;

	if (n == 0 || n > 5)
		return 0;
	for (size_t i = 0; i < n; i++) {
		if (s[i] < '0' || s[i] > '9')
			return 0;
		v = v * 10 + (unsigned long)(s[i] - '0');
	}
	return v <= 65535 ? (unsigned short)v : 0;
}

/* "host", "host:port", "[v6]:port" → its port, or dflt when it names none. */
static unsigned short host_port(const char *h, size_t n, unsigned short dflt)
{
	const char *close = n && h[0] == '[' ? memchr(h, ']', n) : NULL;
	const char *from = close ? close : h;
	const char *colon = memchr(from, ':', n - (size_t)(from - h));

	if (close && colon && colon != close + 1)
		return dflt;
	return colon ? port_of(colon + 1, n - (size_t)(colon + 1 - h)) : dflt;
}

/* A URL's authority (after "scheme://", without "user@"); its length in *n. */
static const char *authority(const char *url, size_t *n)
{
	const char *a = strstr(url, "://"), *at;

	a = a ? a + 3 : url;
	*n = strcspn(a, "/?#");
	while ((at = memchr(a, '@', *n))) {
		*n -= (size_t)(at + 1 - a);
		a = at + 1;
	}
	return a;
}

static int hex(char c)
{
	return c >= '0' && c <= '9' ? c - '0'
	       : c >= 'a' && c <= 'f' ? c - 'a' + 10
	       : c >= 'A' && c <= 'F' ? c - 'A' + 10
				      : -1;
}

/* n bytes of s, %XX decoded (a PostgreSQL socket directory is written %2Fvar%2Frun…). */
static char *decoded(const char *s, size_t n)
{
	char *out = xcalloc(1, n + 1), *o = out;

	for (size_t i = 0; i < n; i++) {
		if (s[i] == '%' && i + 2 < n && hex(s[i + 1]) >= 0 && hex(s[i + 2]) >= 0) {
			*o++ = (char)(hex(s[i + 1]) * 16 + hex(s[i + 2]));
			i += 2;
		} else {
			*o++ = s[i];
		}
	}
	return out;
}

/* ---- PostgreSQL --------------------------------------------------------------- */

struct pg {
	unsigned short ports[8];
	size_t nports;
	int tcp, unix_default;
};

/* One "host[:port]" of the URL (or of host=): a socket directory to read, or a TCP host. */
static void pg_host(struct pg *g, const char *h, size_t n, struct sandbox_policy *p)
{
	const char *close = n && h[0] == '[' ? memchr(h, ']', n) : NULL;
	const char *colon = memchr(close ? close : h, ':', n - (size_t)((close ? close : h) - h));
	unsigned short port = colon ? host_port(h, n, 0) : 0;
	char *host = decoded(h, colon ? (size_t)(colon - h) : n);

	if (port && g->nports < 8)
		g->ports[g->nports++] = port;
	if (!*host)
		g->unix_default = 1;
	else if (host[0] == '/')
		sandbox_read(p, host);
	else
		g->tcp = 1;
	free(host);
}

/* Every comma-separated piece of a list through fn. */
static void pg_each(struct pg *g, const char *s, size_t n, struct sandbox_policy *p,
		    void (*fn)(struct pg *, const char *, size_t, struct sandbox_policy *))
{
	for (const char *end = s + n; s <= end;) {
		const char *comma = memchr(s, ',', (size_t)(end - s));
		size_t len = comma ? (size_t)(comma - s) : (size_t)(end - s);

		fn(g, s, len, p);
		s += len + 1;
	}
}

static void pg_port(struct pg *g, const char *s, size_t n, struct sandbox_policy *p)
{
	unsigned short port = port_of(s, n);

	(void)p;
	if (port && g->nports < 8)
		g->ports[g->nports++] = port;
}

/* One key=value of the URL's query: hosts, ports and the files libpq reads. */
static void pg_param(struct pg *g, const char *kv, size_t n, struct sandbox_policy *p)
{
	static const char *const files[] = { "passfile", "sslrootcert", "sslcert", "sslkey",
					     "sslcrl", "sslcrldir" };
	const char *eq = memchr(kv, '=', n);
	size_t k = eq ? (size_t)(eq - kv) : n, vn = eq ? n - k - 1 : 0;
	char *file;

	if (!eq)
		return;
	if (k == 4 && memcmp(kv, "host", 4) == 0)
		pg_each(g, eq + 1, vn, p, pg_host);
	else if (k == 8 && memcmp(kv, "hostaddr", 8) == 0)
		g->tcp = 1;
	else if (k == 4 && memcmp(kv, "port", 4) == 0)
		pg_each(g, eq + 1, vn, p, pg_port);
	for (size_t i = 0; i < sizeof files / sizeof *files; i++)
		if (strlen(files[i]) == k && memcmp(kv, files[i], k) == 0) {
			sandbox_read(p, file = decoded(eq + 1, vn));
			free(file);
		}
}

static void pg_params(struct pg *g, const char *q, struct sandbox_policy *p)
{
	while (q && *q) {
		size_t n = strcspn(q, "&#");

		pg_param(g, q, n, p);
		q = q[n] == '&' ? q + n + 1 : NULL;
	}
}

/* libpq's own files, wherever its environment or $HOME puts them. */
static void pg_files(struct sandbox_policy *p)
{
	const char *vars[] = { "PGPASSFILE", "PGSERVICEFILE", "PGSYSCONFDIR" };
	const char *home = getenv("HOME");
	char *f;

	for (size_t i = 0; i < sizeof vars / sizeof *vars; i++)
		sandbox_read(p, getenv(vars[i]));
	if (home && *home == '/') {
		sandbox_read(p, f = fs_join(home, ".pgpass"));
		free(f);
		sandbox_read(p, f = fs_join(home, ".postgresql"));
		free(f);
	}
}

static void pg_reach(const char *url, struct sandbox_policy *p)
{
	struct pg g = { { 0 }, 0, 0, 0 };
	const char *pghost = getenv("PGHOST"), *pgport = getenv("PGPORT");
	size_t n;
	const char *a = authority(url, &n);

	pg_each(&g, a, n, p, pg_host);
	pg_params(&g, strchr(a + n, '?') ? strchr(a + n, '?') + 1 : NULL, p);
	if (g.unix_default && !g.tcp && pghost && *pghost)
		pg_each(&g, pghost, strlen(pghost), p, pg_host); /* PGHOST fills an empty host */
	if (g.unix_default) {
		sandbox_read(p, "/run/postgresql");
		sandbox_read(p, "/var/run/postgresql");
	}
	if (g.tcp && g.nports == 0)
		g.ports[g.nports++] = pgport && port_of(pgport, strlen(pgport))
					      ? port_of(pgport, strlen(pgport)) : 5432;
	for (size_t i = 0; g.tcp && i < g.nports; i++)
		sandbox_port(p, g.ports[i], 0);
	pg_files(p);
}

void jail_ledger(const char *where, struct sandbox_policy *p)
{
	char *dir;

	if (strncmp(where, "postgresql://", 13) == 0 || strncmp(where, "postgres://", 11) == 0) {
		pg_reach(where, p);
		return;
	}
	/* SQLite writes its -wal and -shm files beside the ledger */
	dir = fs_dirname(where);
	sandbox_write(p, dir);
	free(dir);
}

/* ---- the box ------------------------------------------------------------------ */

/* The SMTP relay's port: the URL's, else 25 (smtp://) or 465 (smtps://). */
static unsigned short smtp_port(const char *url)
{
	size_t n;
	const char *a = authority(url, &n);

	return host_port(a, n, strncmp(url, "smtps://", 8) == 0 ? 465 : 25);
}

/* 1 under --verbose or MECHA_VERBOSE=1, 2 under MECHA_VERBOSE=2 (as the cli's verbs). */
static int verbosity(const struct boxconf *c)
{
	const char *env = getenv("MECHA_VERBOSE");

	if (env && strcmp(env, "2") == 0)
		return 2;
	return c->verbose || (env && strcmp(env, "1") == 0);
}

void jail_apply(const struct boxconf *c, int serving)
{
	struct sandbox_policy p = SANDBOX_POLICY_INIT;
	char host[256];
	int port;

	sandbox_write(&p, c->data);
	jail_ledger(c->db, &p);
	if (serving && boxconf_listen(c->listen, host, sizeof host, &port) == 0)
		sandbox_port(&p, (unsigned short)port, 1);
	if (serving && c->smtp_url && smtp_port(c->smtp_url))
		sandbox_port(&p, smtp_port(c->smtp_url), 0);
	if (p.nconnect)
		sandbox_port(&p, PORT_DNS, 0);
	p.server = serving;
	confine_libraries(&p, p.nconnect > 0);
	sandbox_apply(&p, verbosity(c));
	sandbox_policy_free(&p);
}
