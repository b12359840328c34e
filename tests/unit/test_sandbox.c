/*
 * sandbox: what a confined process can still do, observed from inside it. Each
 * case confines a child (a restriction is for good), which reports back
 * through its exit status; the parent asserts. On a kernel without Landlock
 * the file and port cases skip, saying so.
 */
#include <criterion/criterion.h>

#include "base/buf.h"
#include "base/sandbox.h"
#include "scratch.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

/* A fresh directory under $TMPDIR (malloc'd). */
static char *scratch_dir(void)
{
	char buf[4096];

	cr_assert(scratch_mkdtemp(buf, sizeof buf, "sandbox"));
	return xstrdup(buf);
}

static int abi(void)
{
	long v = syscall(SYS_landlock_create_ruleset, NULL, 0, 1U /* VERSION */);

	return v > 0 ? (int)v : 0;
}

/* Runs check() in a child confined to p; its result (0 or an errno) comes back. */
static int confined(const struct sandbox_policy *p, int (*check)(void *), void *arg)
{
	pid_t pid = fork();
	int status;

	cr_assert(pid >= 0);
	if (pid == 0) {
		sandbox_apply(p, 0);
		_exit(check(arg) & 0xff);
	}
	cr_assert(waitpid(pid, &status, 0) == pid && WIFEXITED(status));
	return WEXITSTATUS(status);
}

static int try_open(void *path)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return errno;
	close(fd);
	return 0;
}

static int try_create(void *path)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);

	if (fd < 0)
		return errno;
	close(fd);
	return 0;
}

static char *file_in(const char *dir, const char *name, int make)
{
	char *path = xasprintf("%s/%s", dir, name);

	if (make)
		cr_assert(try_create(path) == 0);
	return path;
}

Test(sandbox, a_process_reads_its_places_and_writes_only_where_it_may)
{
	struct sandbox_policy p = SANDBOX_POLICY_INIT;
	char *home, *other, *store, *mine, *theirs, *in_store, *in_home;

	if (!abi())
		cr_skip_test("this kernel has no Landlock");
	home = scratch_dir();
	other = scratch_dir();
	store = xasprintf("%s/store", home);
	cr_assert(mkdir(store, 0700) == 0);
	mine = file_in(home, "config.toml", 1);
	theirs = file_in(other, "secret", 1);
	in_store = file_in(store, "new", 0);
	in_home = file_in(home, "new", 0);
	sandbox_read(&p, home);
	sandbox_write(&p, store);
	cr_expect_eq(confined(&p, try_open, mine), 0);
	cr_expect_eq(confined(&p, try_open, theirs), EACCES);
	cr_expect_eq(confined(&p, try_create, in_store), 0);
	cr_expect_eq(confined(&p, try_create, in_home), EACCES);
	sandbox_policy_free(&p);
	free(mine), free(theirs), free(in_store), free(in_home);
	free(store), free(home), free(other);
}

Test(sandbox, a_missing_store_is_granted_where_it_will_be_made_or_made_first)
{
	struct sandbox_policy p = SANDBOX_POLICY_INIT;
	char *home, *store, *beside;

	if (!abi())
		cr_skip_test("this kernel has no Landlock");
	home = scratch_dir();
	store = xasprintf("%s/outbox", home);
	beside = file_in(home, "config.toml", 0);
	sandbox_read(&p, home);
	sandbox_write(&p, store);
	/* without create: the home itself, where the store will be made */
	cr_expect_eq(confined(&p, try_create, beside), 0);
	unlink(beside);
	cr_expect_eq(access(store, F_OK), -1, "nothing was made");
	p.create = 1;
	cr_expect_eq(confined(&p, try_create, beside), EACCES);
	cr_expect_eq(access(store, F_OK), 0, "the store was made, and only it is writable");
	sandbox_policy_free(&p);
	free(store), free(beside), free(home);
}

static int try_connect(void *port)
{
	struct sockaddr_in to = { .sin_family = AF_INET, .sin_port = htons(*(unsigned short *)port),
				  .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	int s = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0), rc;

	if (s < 0)
		return errno;
	rc = connect(s, (struct sockaddr *)&to, sizeof to) == 0 ? 0 : errno;
	close(s);
	return rc;
}

static unsigned short listening(int *fd)
{
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	socklen_t len = sizeof a;

	*fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	cr_assert(*fd >= 0 && bind(*fd, (struct sockaddr *)&a, sizeof a) == 0 &&
		  listen(*fd, 4) == 0 && getsockname(*fd, (struct sockaddr *)&a, &len) == 0);
	return ntohs(a.sin_port);
}

Test(sandbox, without_the_network_only_the_named_ports_can_be_reached)
{
	struct sandbox_policy p = SANDBOX_POLICY_INIT;
	int fa, fb;
	unsigned short a = listening(&fa), b = listening(&fb);

	if (abi() < 4)
		cr_skip_test("Landlock ABI %d has no network rules", abi());
	sandbox_port(&p, a, 0);
	cr_expect_eq(confined(&p, try_connect, &a), 0);
	cr_expect_eq(confined(&p, try_connect, &b), EACCES);
	p.nconnect = 0; /* no port at all: seccomp refuses the socket itself */
	cr_expect_eq(confined(&p, try_connect, &a), EACCES);
	p.network = 1;
	cr_expect_eq(confined(&p, try_connect, &b), 0);
	close(fa), close(fb);
}

Test(sandbox, a_kernel_without_landlock_confines_nothing_and_fails_nothing)
{
	struct sandbox_policy p = SANDBOX_POLICY_INIT;
	char *home = scratch_dir(), *f = file_in(home, "x", 1);

	setenv("MECHA_TEST_LANDLOCK_ABI", "0", 1);
	p.network = 1;
	cr_expect_eq(confined(&p, try_open, f), 0);
	unsetenv("MECHA_TEST_LANDLOCK_ABI");
	free(f), free(home);
}
