/*
 * sandbox — Landlock through its three system calls, with no library.
 *
 * The ruleset "handles" every access right the kernel's ABI knows, so each
 * one is denied unless a rule grants it beneath a path; a right the ABI does
 * not know cannot be denied, which is what "as far as the kernel can" means.
 * PR_SET_NO_NEW_PRIVS comes first because Landlock requires it of an
 * unprivileged process (and a setuid program run afterwards would not keep
 * its privileges anyway).
 */
#include "base/sandbox.h"

#include "base/buf.h"
#include "base/err.h"
#include "base/fs.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/landlock.h>
#include <linux/seccomp.h>
#include <netinet/in.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

/* Older headers: the values are the kernel's ABI and never change. */
#ifndef LANDLOCK_ACCESS_FS_REFER
#define LANDLOCK_ACCESS_FS_REFER (1ULL << 13)
#endif
#ifndef LANDLOCK_ACCESS_FS_TRUNCATE
#define LANDLOCK_ACCESS_FS_TRUNCATE (1ULL << 14)
#endif
#ifndef LANDLOCK_ACCESS_FS_IOCTL_DEV
#define LANDLOCK_ACCESS_FS_IOCTL_DEV (1ULL << 15)
#endif
#ifndef LANDLOCK_ACCESS_NET_BIND_TCP
#define LANDLOCK_ACCESS_NET_BIND_TCP (1ULL << 0)
#define LANDLOCK_ACCESS_NET_CONNECT_TCP (1ULL << 1)
#endif
#ifndef LANDLOCK_SCOPE_ABSTRACT_UNIX_SOCKET
#define LANDLOCK_SCOPE_ABSTRACT_UNIX_SOCKET (1ULL << 0)
#define LANDLOCK_SCOPE_SIGNAL (1ULL << 1)
#endif

/*
 * The ruleset's attributes as ABI 6 lays them out; older headers know only
 * the first field, and an older kernel is given only the fields it knows.
 */
struct ruleset_attr {
	uint64_t handled_access_fs;
	uint64_t handled_access_net; /* ABI 4 */
	uint64_t scoped;             /* ABI 6 */
};

#define FS_V1 ((1ULL << 13) - 1) /* EXECUTE … MAKE_SYM */
#define FS_READ (LANDLOCK_ACCESS_FS_READ_FILE | LANDLOCK_ACCESS_FS_READ_DIR)
#define FS_EXEC LANDLOCK_ACCESS_FS_EXECUTE
#define FS_ALL (FS_V1 | LANDLOCK_ACCESS_FS_REFER | LANDLOCK_ACCESS_FS_TRUNCATE | \
		LANDLOCK_ACCESS_FS_IOCTL_DEV)
/* Everything but making device nodes, which no verb does. */
#define FS_WRITE (FS_ALL & ~(uint64_t)(LANDLOCK_ACCESS_FS_MAKE_CHAR | \
				       LANDLOCK_ACCESS_FS_MAKE_BLOCK | FS_EXEC))
/* The only rights a rule on a file (not a directory) may carry. */
#define FS_FILE (LANDLOCK_ACCESS_FS_EXECUTE | LANDLOCK_ACCESS_FS_WRITE_FILE | \
		 LANDLOCK_ACCESS_FS_READ_FILE | LANDLOCK_ACCESS_FS_TRUNCATE | \
		 LANDLOCK_ACCESS_FS_IOCTL_DEV)
#define FS_DEVICE (LANDLOCK_ACCESS_FS_READ_FILE | LANDLOCK_ACCESS_FS_WRITE_FILE | \
		   LANDLOCK_ACCESS_FS_TRUNCATE | LANDLOCK_ACCESS_FS_IOCTL_DEV)

/* What any process needs to run at all: read and execute. */
static const char *const system_places[] = {
	"/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32", "/etc", "/opt",
	"/sys/devices/system/cpu", /* how many CPUs (sysconf) */
	"/proc/self",              /* resolved now: this process's entry only */
};

/* The terminal and the devices a shell redirects to. */
static const char *const device_places[] = {
	"/dev/null", "/dev/zero", "/dev/full", "/dev/random", "/dev/urandom", "/dev/tty",
	"/dev/pts",
};

/* ---- the policy ------------------------------------------------------------ */

static void add(char ***list, size_t *n, const char *path)
{
	if (!path || !*path)
		return;
	*list = xrealloc(*list, (*n + 1) * sizeof **list);
	(*list)[(*n)++] = xstrdup(path);
}

void sandbox_read(struct sandbox_policy *p, const char *path)
{
	add(&p->read, &p->nread, path);
}

void sandbox_write(struct sandbox_policy *p, const char *path)
{
	add(&p->write, &p->nwrite, path);
}

void sandbox_port(struct sandbox_policy *p, unsigned short port, int bind)
{
	if (bind && p->nbind < sizeof p->bind_ports / sizeof *p->bind_ports)
		p->bind_ports[p->nbind++] = port;
	else if (!bind && p->nconnect < sizeof p->connect_ports / sizeof *p->connect_ports)
		p->connect_ports[p->nconnect++] = port;
}

/* It may use IP at all: the whole network, or some ports. */
static int uses_ip(const struct sandbox_policy *p)
{
	return p->network || p->nconnect || p->nbind;
}

void sandbox_policy_free(struct sandbox_policy *p)
{
	for (size_t i = 0; i < p->nread; i++)
		free(p->read[i]);
	for (size_t i = 0; i < p->nwrite; i++)
		free(p->write[i]);
	free(p->read);
	free(p->write);
	p->read = p->write = NULL;
	p->nread = p->nwrite = 0;
}

/* ---- saying what happened ---------------------------------------------------- */

static int said;

/* One line on stderr when verbose, and only the first time in this process. */
static void say(int verbose, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void say(int verbose, const char *fmt, ...)
{
	va_list ap;

	if (!verbose || said)
		return;
	said = 1;
	va_start(ap, fmt);
	fputs("mecha: sandbox: ", stderr);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
	va_end(ap);
}

/* ---- Landlock ------------------------------------------------------------------ */

#ifdef MECHA_TEST_BUILD
/* A whole number from the environment, else -1 (the test hooks' numbers). */
static long env_number(const char *name)
{
	const char *s = getenv(name);
	char *end;
	long v;

	if (!s || *s < '0' || *s > '9')
		return -1;
	errno = 0;
	v = strtol(s, &end, 10);
	return errno || *end ? -1 : v;
}
#endif

/* The ABI to use: the kernel's, capped by MECHA_TEST_LANDLOCK_ABI. 0, errno set: none. */
static int landlock_abi(void)
{
	long abi = syscall(SYS_landlock_create_ruleset, NULL, 0, LANDLOCK_CREATE_RULESET_VERSION);

	if (abi < 0)
		return 0;
#ifdef MECHA_TEST_BUILD
	long cap = env_number("MECHA_TEST_LANDLOCK_ABI");
	if (cap >= 0 && cap < abi) {
		abi = cap;
		errno = ENOSYS; /* what a kernel without Landlock answers */
	}
#endif
	return (int)abi;
}

static uint64_t handled_fs(int abi)
{
	uint64_t fs = FS_V1;

	if (abi >= 2)
		fs |= LANDLOCK_ACCESS_FS_REFER;
	if (abi >= 3)
		fs |= LANDLOCK_ACCESS_FS_TRUNCATE;
	if (abi >= 5)
		fs |= LANDLOCK_ACCESS_FS_IOCTL_DEV;
	return fs;
}

/* The nearest existing ancestor of path (or path itself; "." for a relative one), malloc'd. */
static char *existing(const char *path)
{
	char *p = xstrdup(path), *slash;
	struct stat st;

	while (stat(p, &st) != 0) {
		if (!(slash = strrchr(p, '/'))) {
			free(p);
			return xstrdup(".");
		}
		if (slash == p) {
			p[1] = '\0';
			break;
		}
		*slash = '\0';
	}
	return p;
}

/* Grants access beneath path (a file gets only the rights a file can have). 0, or -1. */
static int grant(int ruleset, const char *path, uint64_t access, uint64_t handled)
{
	struct landlock_path_beneath_attr rule = { 0 };
	struct stat st;
	int fd = open(path, O_PATH | O_CLOEXEC), rc;

	if (fd < 0)
		return errno == ENOENT || errno == ENOTDIR || errno == EACCES ? 0 : -1;
	if (fstat(fd, &st) != 0) {
		close(fd);
		return -1;
	}
	rule.allowed_access = access & handled & (S_ISDIR(st.st_mode) ? FS_ALL : FS_FILE);
	rule.parent_fd = fd;
	rc = rule.allowed_access == 0 ? 0
				       : (int)syscall(SYS_landlock_add_rule, ruleset,
						      LANDLOCK_RULE_PATH_BENEATH, &rule, 0);
	close(fd);
	return rc;
}

static int grant_all(int ruleset, const char *const *places, size_t n, uint64_t access,
		     uint64_t handled)
{
	for (size_t i = 0; i < n; i++)
		if (grant(ruleset, places[i], access, handled) != 0)
			return -1;
	return 0;
}

/* Write access at each place, or where it will be created (made now, when create). */
static int grant_writes(int ruleset, char *const *places, size_t n, uint64_t handled,
			int create)
{
	for (size_t i = 0; i < n; i++) {
		struct err ignored; /* not made: granted where it will be, as without create */
		char *at = create && fs_private_dir(places[i], &ignored) == 0 ? xstrdup(places[i])
									     : existing(places[i]);
		int rc = grant(ruleset, at, FS_READ | FS_WRITE, handled);

		free(at);
		if (rc != 0)
			return -1;
	}
	return 0;
}

/* The running executable, read and executed (a sanitizer's symbolizer reads it). */
static int grant_self(int ruleset, uint64_t handled)
{
	char exe[4096];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);

	if (n <= 0 || (size_t)n >= sizeof exe - 1)
		return 0;
	exe[n] = '\0';
	return grant(ruleset, exe, FS_READ | FS_EXEC, handled);
}

/* The person's programs: everything readable and runnable, their $HOME and $TMPDIR writable. */
static int grant_helpers(int ruleset, uint64_t handled)
{
	const char *home = getenv("HOME"), *tmp = getenv("TMPDIR");
	char *places[] = { (char *)(home && *home == '/' ? home : NULL),
			   (char *)(tmp && *tmp == '/' ? tmp : "/tmp") };

	if (grant(ruleset, "/", FS_READ | FS_EXEC, handled) != 0)
		return -1;
	for (size_t i = 0; i < 2; i++)
		if (places[i] && grant_writes(ruleset, &places[i], 1, handled, 0) != 0)
			return -1;
	return 0;
}

static int add_rules(int ruleset, const struct sandbox_policy *p, uint64_t handled)
{
	if (grant_all(ruleset, system_places, sizeof system_places / sizeof *system_places,
		      FS_READ | FS_EXEC, handled) != 0 ||
	    grant_all(ruleset, device_places, sizeof device_places / sizeof *device_places,
		      FS_DEVICE, handled) != 0 ||
	    grant_self(ruleset, handled) != 0 ||
	    grant_all(ruleset, (const char *const *)p->read, p->nread, FS_READ, handled) != 0 ||
	    grant_writes(ruleset, p->write, p->nwrite, handled, p->create) != 0)
		return -1;
	return p->helpers ? grant_helpers(ruleset, handled) : 0;
}

/* The TCP ports p names, as Landlock rules (ABI 4 and later). */
static int grant_ports(int ruleset, const struct sandbox_policy *p)
{
	struct {
		uint64_t allowed_access;
		uint64_t port;
	} __attribute__((packed)) rule; /* struct landlock_net_port_attr */

	for (size_t i = 0; i < p->nconnect + p->nbind; i++) {
		int bind = i >= p->nconnect;

		rule.allowed_access = bind ? LANDLOCK_ACCESS_NET_BIND_TCP
					   : LANDLOCK_ACCESS_NET_CONNECT_TCP;
		rule.port = bind ? p->bind_ports[i - p->nconnect] : p->connect_ports[i];
		if (syscall(SYS_landlock_add_rule, ruleset, 2 /* LANDLOCK_RULE_NET_PORT */, &rule,
			    0) != 0)
			return -1;
	}
	return 0;
}

/* The ruleset for abi and p, its rules added; -1 with errno on failure. */
static int ruleset_for(int abi, const struct sandbox_policy *p)
{
	struct ruleset_attr attr = { 0, 0, 0 };
	size_t size = sizeof attr.handled_access_fs;
	int fd, saved;

	attr.handled_access_fs = handled_fs(abi);
	if (abi >= 4) {
		size = offsetof(struct ruleset_attr, scoped);
		if (!p->network)
			attr.handled_access_net = LANDLOCK_ACCESS_NET_BIND_TCP |
						  LANDLOCK_ACCESS_NET_CONNECT_TCP;
	}
	if (abi >= 6) {
		size = sizeof attr;
		attr.scoped = LANDLOCK_SCOPE_ABSTRACT_UNIX_SOCKET | LANDLOCK_SCOPE_SIGNAL;
	}
	fd = (int)syscall(SYS_landlock_create_ruleset, &attr, size, 0);
	if (fd < 0)
		return -1;
	if (add_rules(fd, p, attr.handled_access_fs) != 0 ||
	    (attr.handled_access_net && grant_ports(fd, p) != 0)) {
		saved = errno;
		close(fd);
		errno = saved;
		return -1;
	}
	return fd;
}

/* ---- seccomp: no IP sockets; for a server, nothing a server never does --------------- */

/*
 * Landlock confines TCP only (from ABI 4); a process that needs no network
 * should not send a datagram either (a DNS query is a way out too). So it
 * loses IPv4 and IPv6 sockets altogether, and io_uring, which could open one
 * behind seccomp's back. A system call of a foreign ABI (i386's socketcall
 * on x86-64, x32) is refused whole: mecha makes none.
 *
 * A server (the box) keeps its sockets but loses what an attacker inside it
 * would reach for first: running a program, tracing another process,
 * namespaces and mounts, kernel modules, bpf and keyrings. EPERM, not a
 * kill: a library that probes one of them goes on without it.
 */
#if defined(__x86_64__)
#define NATIVE_ARCH AUDIT_ARCH_X86_64
#elif defined(__aarch64__)
#define NATIVE_ARCH AUDIT_ARCH_AARCH64
#endif

/* LeakSanitizer stops the world with ptrace at exit: a sanitizer build keeps it. */
#if defined(__SANITIZE_ADDRESS__)
#define SANITIZED 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define SANITIZED 1
#endif
#endif

#ifdef SANITIZED
#define SERVER_DENIES "no exec, mount, modules, bpf (ptrace kept for the sanitizer)"
#else
#define SERVER_DENIES "no exec, ptrace, mount, modules, bpf"
#endif

#ifdef NATIVE_ARCH
static const unsigned server_denied[] = {
	SYS_execve, SYS_execveat, SYS_mount, SYS_umount2, SYS_pivot_root, SYS_chroot,
	SYS_unshare, SYS_setns, SYS_init_module, SYS_finit_module, SYS_delete_module,
	SYS_kexec_load, SYS_kexec_file_load, SYS_reboot, SYS_swapon, SYS_swapoff, SYS_acct,
	SYS_bpf, SYS_perf_event_open, SYS_userfaultfd, SYS_keyctl, SYS_add_key, SYS_request_key,
	SYS_process_vm_readv, SYS_process_vm_writev,
#ifdef SYS_fsopen
	SYS_fsopen, SYS_fsconfig, SYS_fsmount, SYS_fspick, SYS_open_tree, SYS_move_mount,
#endif
#ifndef SANITIZED
	SYS_ptrace,
#endif
};

#define NDENIED (sizeof server_denied / sizeof *server_denied)
#define LOAD(field) BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, field))
#define RET(v) BPF_STMT(BPF_RET | BPF_K, (v))
#define IS(k, t, f) BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, (k), (t), (f))

/* The IP part: socket(AF_INET or AF_INET6, …) refused, every other call allowed. */
static size_t filter_ip(struct sock_filter *code)
{
	const struct sock_filter ip[] = {
		IS(SYS_socket, 1, 0),   RET(SECCOMP_RET_ALLOW), LOAD(args[0]),
		IS(AF_INET, 1, 0),      IS(AF_INET6, 0, 1),    RET(SECCOMP_RET_ERRNO | EACCES),
		RET(SECCOMP_RET_ALLOW),
	};

	memcpy(code, ip, sizeof ip);
	return sizeof ip / sizeof *ip;
}

static int seccomp_install(int no_ip, int server)
{
	struct sock_filter code[16 + 2 * NDENIED] = {
		LOAD(arch), IS(NATIVE_ARCH, 1, 0), RET(SECCOMP_RET_ERRNO | EACCES), LOAD(nr),
		BPF_JUMP(BPF_JMP | BPF_JGE | BPF_K, 0x40000000, 0, 1), /* x32 */
		RET(SECCOMP_RET_ERRNO | EACCES),
		IS(SYS_io_uring_setup, 0, 1), RET(SECCOMP_RET_ERRNO | EACCES),
	};
	unsigned short n = 8;
	struct sock_fprog prog;

	for (size_t i = 0; server && i < NDENIED; i++) {
		code[n++] = (struct sock_filter)IS(server_denied[i], 0, 1);
		code[n++] = (struct sock_filter)RET(SECCOMP_RET_ERRNO | EPERM);
	}
	if (no_ip)
		n += (unsigned short)filter_ip(code + n);
	else
		code[n++] = (struct sock_filter)RET(SECCOMP_RET_ALLOW);
	prog = (struct sock_fprog){ n, code };
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0)
		return -1;
	return prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog, 0, 0);
}
#else
static int seccomp_install(int no_ip, int server)
{
	(void)no_ip;
	(void)server;
	errno = ENOSYS;
	return -1;
}
#endif

/* ---- the test hooks (test builds only: MECHA_TEST_BUILD) --------------------- */
#ifdef MECHA_TEST_BUILD

static void report(const char *what, const char *arg, int rc)
{
	fprintf(stderr, "mecha: sandbox test: %s %s: %s\n", what, arg,
		rc == 0 ? "ok" : strerrorname_np(errno) ? strerrorname_np(errno) : "error");
}

/* Runs path in a child: "ok" when it ran and exited 0, else why the exec failed. */
static void probe_exec(const char *path)
{
	char *const argv[] = { (char *)path, NULL };
	int status = 0;
	pid_t pid = fork();

	if (pid == 0) {
		execv(path, argv);
		_exit(errno > 0 && errno < 256 ? errno : 255);
	}
	if (pid > 0 && waitpid(pid, &status, 0) == pid && WIFEXITED(status))
		errno = WEXITSTATUS(status);
	else if (pid > 0)
		errno = ECHILD;
	report("exec", path, pid > 0 && errno == 0 ? 0 : -1);
}

static void probe(void)
{
	const char *open_path = getenv("MECHA_TEST_OPEN"), *create = getenv("MECHA_TEST_CREATE");
	const char *exec_path = getenv("MECHA_TEST_EXEC");
	long port = env_number("MECHA_TEST_CONNECT");
	char port_s[24];
	int fd;

	if (open_path && *open_path) {
		fd = open(open_path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
		report("open", open_path, fd < 0 ? -1 : 0);
		if (fd >= 0)
			close(fd);
	}
	if (create && *create) {
		fd = open(create, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0600);
		report("create", create, fd < 0 ? -1 : 0);
		if (fd >= 0)
			close(fd);
	}
	if (getenv("MECHA_TEST_UDP")) {
		fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
		report("udp", "socket", fd < 0 ? -1 : 0);
		if (fd >= 0)
			close(fd);
	}
	if (exec_path && *exec_path)
		probe_exec(exec_path);
	if (port > 0 && port < 65536) {
		struct sockaddr_in to = { .sin_family = AF_INET,
					  .sin_port = htons((uint16_t)port),
					  .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
		int s = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);

		snprintf(port_s, sizeof port_s, "%ld", port);
		report("connect", port_s, s < 0 ? -1 : connect(s, (struct sockaddr *)&to, sizeof to));
		if (s >= 0)
			close(s);
	}
}
#else
static void probe(void)
{
}
#endif

/* ---- applying ------------------------------------------------------------------- */

static void describe(const struct sandbox_policy *p, int abi)
{
	fprintf(stderr, "mecha: sandbox: Landlock ABI %d; reads the system", abi);
	for (size_t i = 0; i < p->nread; i++)
		fprintf(stderr, ", %s", p->read[i]);
	fputs("; writes ", stderr);
	for (size_t i = 0; i < p->nwrite; i++)
		fprintf(stderr, "%s%s", i ? ", " : "", p->write[i]);
	fprintf(stderr, "%s; network %s", p->nwrite ? "" : "nothing",
		p->network ? "open" : uses_ip(p) ? "closed but for some ports" : "closed");
	for (size_t i = 0; i < p->nconnect + p->nbind; i++)
		fprintf(stderr, "%s%s %u", i ? ", " : " (", i < p->nconnect ? "connect" : "bind",
			(unsigned)(i < p->nconnect ? p->connect_ports[i] : p->bind_ports[i - p->nconnect]));
	fprintf(stderr, "%s%s%s\n", p->nconnect + p->nbind ? ")" : "",
		p->helpers ? "; runs your programs (all readable; $HOME and $TMPDIR writable)" : "",
		p->server ? "; a server: " SERVER_DENIES : "");
}

/* What an older Landlock ABI leaves unconfined, in one sentence. */
static void say_missing(int abi, const struct sandbox_policy *p, int ip, int verbose)
{
	static const char *const features[] = {
		[2] = "rename rules (ABI 2; renames across directories are refused)",
		[3] = "truncation rules (ABI 3)", [4] = "network rules (ABI 4)",
		[5] = "device ioctl rules (ABI 5)", [6] = "signal and socket scoping (ABI 6)",
	};
	struct buf lack = BUF_INIT;

	for (int v = abi + 1; v <= 6; v++)
		buf_printf(&lack, "%s%s", lack.len ? ", " : "", features[v]);
	say(verbose, "Landlock ABI %d lacks %s%s", abi, buf_str(&lack),
	    abi >= 4 || p->network ? ""
	    : !uses_ip(p) && ip    ? "; seccomp closes the network alone"
				   : "; TCP stays open");
	buf_free(&lack);
}

/* Landlock for p at abi; returns abi, or 0 (said why) when it could not be applied. */
static int restrict_to(const struct sandbox_policy *p, int abi, int verbose)
{
	int fd = ruleset_for(abi, p);

	if (fd < 0 || prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0 ||
	    syscall(SYS_landlock_restrict_self, fd, 0) != 0) {
		say(verbose, "Landlock not applied (%s); running without it", strerror(errno));
		if (fd >= 0)
			close(fd);
		return 0;
	}
	close(fd);
	return abi;
}

/* The file system (Landlock), then the network (seccomp) when p needs none. */
static int confine(const struct sandbox_policy *p, int verbose)
{
	int abi = landlock_abi(), ip = 1;

	if (abi <= 0)
		say(verbose, "this kernel has no Landlock (%s); the files are not confined",
		    errno == EOPNOTSUPP ? "it is disabled at boot" : strerrorname_np(errno));
	else
		abi = restrict_to(p, abi, verbose);
	if (!uses_ip(p) || p->server)
		ip = seccomp_install(!uses_ip(p), p->server) == 0;
	if (!ip)
		say(verbose, "seccomp not applied (%s); %s", strerror(errno),
		    uses_ip(p)   ? "a program may still be run, a process traced"
		    : abi >= 4   ? "UDP stays open (Landlock closes TCP)"
				 : "the network stays open");
	if (abi > 0 && abi < 6)
		say_missing(abi, p, ip, verbose);
	if (verbose > 1 && abi > 0)
		describe(p, abi);
	return abi;
}

int sandbox_apply(const struct sandbox_policy *p, int verbose)
{
	const char *sw = getenv("MECHA_SANDBOX");
	int abi = 0;

	if (sw && strcmp(sw, "off") == 0)
		say(verbose, "off (MECHA_SANDBOX=off)");
	else if (p->off)
		say(verbose, "off (%s)", p->off);
	else
		abi = confine(p, verbose);
	probe();
	return abi;
}
