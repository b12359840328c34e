/*
 * sandbox — a process gives up, for good, what it will not need (Landlock).
 *
 * mecha parses what strangers, models and agents wrote in the process that
 * holds the calendar and the mail. A memory bug in one of those parsers is
 * the injection the quarantine exists to stop, arriving by another door; the
 * least a process can do is make sure such a bug finds little to reach. So
 * once a verb knows what it will touch, it restricts itself with Landlock
 * (Linux 5.13 and later): the files it may read, the directories it may
 * change, and — from Landlock ABI 4 — whether it may open TCP connections.
 * The restriction cannot be lifted, and every program the process runs
 * afterwards (an editor, a pager, a sendmail) inherits it.
 *
 * What every policy allows besides its own places: reading and executing the
 * system (/usr, /bin, /sbin, /lib*, /etc, /opt), this executable, this
 * process's own /proc entry, and reading and writing the terminal and the
 * harmless devices (/dev/null, /dev/tty, /dev/pts, /dev/urandom …).
 *
 * The rule: nothing fails for want of a sandbox. A kernel without Landlock
 * (ENOSYS, EOPNOTSUPP) or with an older ABI gets what it can enforce, and
 * the process says what it could not — once, when verbose — and runs on.
 *
 * A policy without the network also loses IPv4 and IPv6 sockets to a
 * seccomp filter (Landlock confines TCP only, and only from ABI 4; a
 * datagram is a way out too), on any kernel with seccomp; a server's policy
 * (the box) loses the system calls no server needs.
 *
 * Calling sequence:
 *     struct sandbox_policy p = SANDBOX_POLICY_INIT;
 *     sandbox_read(&p, home);           -- a file or a directory, read beneath
 *     sandbox_write(&p, outbox_dir);    -- created, changed, removed beneath
 *     p.network = 1;                    -- TCP (and IP sockets at all) allowed
 *     sandbox_apply(&p, verbose);
 *     sandbox_policy_free(&p);
 *
 * A place that does not exist yet is handled as the process will meet it: a
 * missing place to read is skipped (opening it fails with ENOENT anyway), a
 * missing place to write is granted at its nearest existing ancestor, since
 * that is where the process will create it (a rule names an existing file;
 * a directory made later inherits the rules of the one it is made in) —
 * unless the policy says to create it first.
 *
 * Test hooks (compiled only into test builds, -DMECHA_TEST_BUILD, as SQLite
 * compiles its own only under SQLITE_TEST; harmless there too — they only
 * try, and say what happened): after restricting, MECHA_TEST_OPEN=<path> opens path
 * for reading, MECHA_TEST_CREATE=<path> creates path, MECHA_TEST_CONNECT=<port>
 * connects to 127.0.0.1:<port>, MECHA_TEST_UDP=1 opens a UDP socket,
 * MECHA_TEST_EXEC=<path> runs path in a child (which exits at once); each
 * reports "mecha: sandbox test: … ok" or "… <errno name>" on stderr. MECHA_TEST_LANDLOCK_ABI=<n> uses at most ABI n
 * (0: as if the kernel had none). The person's own switch is
 * MECHA_SANDBOX=off (for a helper program the policy would break).
 *
 * Ownership: the policy owns copies of its paths; sandbox_policy_free
 * releases them.
 */
#ifndef MECHA_BASE_SANDBOX_H
#define MECHA_BASE_SANDBOX_H

#include <stddef.h>

struct sandbox_policy {
	char **read, **write; /* places, copied */
	size_t nread, nwrite;
	int network; /* IP sockets, TCP connect and bind stay allowed */
	/*
	 * Without network: the TCP ports it may still connect to or listen on
	 * (Landlock ABI 4; IP sockets then stay allowed, so an older kernel
	 * leaves TCP open). The box: its listening port, its SMTP server.
	 */
	unsigned short connect_ports[8], bind_ports[4];
	size_t nconnect, nbind;
	/*
	 * It runs the person's own programs (an editor, a pager, a sendmail),
	 * which keep their files where they like: everything stays readable and
	 * executable, and the person's $HOME and $TMPDIR writable.
	 */
	int helpers;
	/*
	 * A missing place to write is created (0700, parents too) before the
	 * restriction instead of granted at its ancestor: for a long-running
	 * process, which would otherwise keep a whole home writable for hours.
	 */
	int create;
	const char *off; /* non-NULL: not applied at all, and this says why (static text) */
	/*
	 * A server that runs no program: seccomp also refuses what serving
	 * never needs — execve, ptrace, mount and namespaces, modules, kexec,
	 * bpf, keyrings (EPERM). A sanitizer build keeps ptrace, which
	 * LeakSanitizer needs at exit.
	 */
	int server;
};

#define SANDBOX_POLICY_INIT { NULL, NULL, 0, 0, 0, { 0 }, { 0 }, 0, 0, 0, 0, NULL, 0 }

void sandbox_read(struct sandbox_policy *p, const char *path);
void sandbox_write(struct sandbox_policy *p, const char *path);
/* A TCP port it may connect to (listen on, when bind); beyond the arrays' room, ignored. */
void sandbox_port(struct sandbox_policy *p, unsigned short port, int bind);
void sandbox_policy_free(struct sandbox_policy *p);

/*
 * Restricts this process to p, as far as the kernel can. Returns the
 * Landlock ABI that was enforced (0: none — no Landlock, or p->off, or
 * MECHA_SANDBOX=off). Never fails: what could not be done is said on stderr
 * when verbose (2: also the policy that was applied) and otherwise ignored.
 */
int sandbox_apply(const struct sandbox_policy *p, int verbose);

#endif
