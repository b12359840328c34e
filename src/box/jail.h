/*
 * jail — what the box process may touch, given up for good before it
 * serves a stranger's byte.
 *
 * The box is the one process that faces the internet: a bug in a parser of
 * what strangers send must find little to reach. Once a verb has read its
 * configuration and opened its ledger (and, serving, its TLS pair and its
 * access log), it restricts itself (base/sandbox.h): it may write only its
 * data directory and the ledger's directory (SQLite keeps its journal beside
 * the file), read the system and what libraries read (certificates, time
 * zones, the resolver's configuration), and reach the network only as its
 * work needs it. `serve` may listen on its own port and connect only to its
 * SMTP relay and its database (and to DNS over TCP, glibc's fallback for a
 * long answer, when it connects at all); seccomp also refuses it what no
 * server needs (exec, ptrace, mount …). The other verbs (owner add, key
 * new, sweep) get no network at all, but for a PostgreSQL ledger's port.
 *
 * Landlock and seccomp bind the calling thread and the threads it starts
 * afterwards, never those already running: boxd_serve calls jail_apply
 * before the mailer, the long-poll waiters and libmicrohttpd start theirs.
 *
 * Ownership: everything borrowed; jail_ledger adds copies to the policy.
 */
#ifndef MECHA_BOX_JAIL_H
#define MECHA_BOX_JAIL_H

struct boxconf;
struct sandbox_policy;

/*
 * Confines this process to what c needs, serving or not. Never fails: what
 * the kernel cannot do is said once when c->verbose (or MECHA_VERBOSE=1; 2:
 * the policy too), as the cli's verbs do.
 */
void jail_apply(const struct boxconf *c, int serving);

/*
 * What the ledger named where (boxconf's db: a SQLite file, or a
 * postgresql:// URL) needs once confined: the file's directory writable, or
 * the database's TCP ports (a port= parameter, PGPORT, else 5432) and Unix
 * socket directories reachable, and libpq's files readable. The one place a
 * backend says what it reaches.
 */
void jail_ledger(const char *where, struct sandbox_policy *p);

#endif
