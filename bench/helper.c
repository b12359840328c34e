/*
 * helper — the bench's two tiny C programs in one:
 *
 *   helper time [--in FILE] -- CMD ARG...
 *	runs CMD once (stdout and stderr to /dev/null, stdin from FILE or
 *	/dev/null) and prints "<wall ns> <peak RSS KiB> <exit status>": the
 *	clock around posix_spawn and wait4, so what a Python loop costs to start
 *	a process is never part of a figure.
 *
 *   helper append FILE LINE [COUNT]
 *	the baseline of a post: COUNT times (default 1) one write of LINE and a
 *	newline to FILE (O_APPEND), then fdatasync. With COUNT > 1 it prints the
 *	loop's wall ns (its start is not part of the loop rate).
 *
 *   helper durable DIR COUNT BYTES
 *	the baseline of a drain (and of extract): COUNT records of BYTES bytes
 *	each created durably in DIR with the very syscalls the request store's
 *	create makes (src/base/fs.c fs_create): a temp file beside the record
 *	(mkostemp: open O_CREAT|O_EXCL), fchmod 0600, one write, fsync, close,
 *	renameat2 RENAME_NOREPLACE to NNNNNNNNNN-meeting.json, then open, fsync
 *	and close of DIR. Prints the loop's wall ns.
 *
 *   helper readall DIR
 *	the baseline of a listing: opendir/readdir DIR and open, read to the
 *	end and close every regular file whose name does not begin with '.',
 *	in directory order. The work `frontdoor list` cannot avoid.
 *
 * Built by `make bench` (build/bench/helper); links nothing but libc, as a
 * baseline process should.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

extern char **environ;

static long long now_ns(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (long long)t.tv_sec * 1000000000LL + t.tv_nsec;
}

static int run_timed(const char *in, char **argv)
{
	posix_spawn_file_actions_t fa;
	struct rusage ru;
	long long t0, t1;
	int status;
	pid_t pid;

	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_addopen(&fa, 0, in ? in : "/dev/null", O_RDONLY, 0);
	posix_spawn_file_actions_addopen(&fa, 1, "/dev/null", O_WRONLY, 0);
	posix_spawn_file_actions_addopen(&fa, 2, "/dev/null", O_WRONLY, 0);
	t0 = now_ns();
	if (posix_spawnp(&pid, argv[0], &fa, NULL, argv, environ) != 0) {
		perror(argv[0]);
		return 1;
	}
	if (wait4(pid, &status, 0, &ru) != pid) {
		perror("wait4");
		return 1;
	}
	t1 = now_ns();
	printf("%lld %ld %d\n", t1 - t0, ru.ru_maxrss, WIFEXITED(status) ? WEXITSTATUS(status) : 128);
	return 0;
}

static int append(const char *path, const char *line, long count)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0600);
	size_t len = strlen(line);
	char *buf = malloc(len + 1);
	long long t0;

	if (fd < 0 || !buf) {
		perror(path);
		return 1;
	}
	memcpy(buf, line, len);
	buf[len] = '\n';
	t0 = now_ns();
	for (long i = 0; i < count; i++) {
		if (write(fd, buf, len + 1) != (ssize_t)(len + 1) || fdatasync(fd) != 0) {
			perror(path);
			return 1;
		}
	}
	if (count > 1)
		printf("%lld\n", now_ns() - t0);
	free(buf);
	return close(fd) != 0;
}

static int durable(const char *dir, long count, long bytes)
{
	char *buf = malloc(bytes > 0 ? (size_t)bytes : 1);
	size_t dlen = strlen(dir);
	char *tmp = malloc(dlen + 64), *path = malloc(dlen + 64);
	long long t0;

	if (!buf || !tmp || !path || bytes < 0) {
		perror("durable");
		return 1;
	}
	memset(buf, 'x', (size_t)bytes);
	t0 = now_ns();
	for (long i = 1; i <= count; i++) {
		int fd, dfd;

		snprintf(path, dlen + 64, "%s/%010ld-meeting.json", dir, i);
		snprintf(tmp, dlen + 64, "%s/.%010ld-meeting.json.XXXXXX", dir, i);
		fd = mkostemp(tmp, O_CLOEXEC);
		if (fd < 0 || fchmod(fd, 0600) != 0 ||
		    write(fd, buf, (size_t)bytes) != (ssize_t)bytes || fsync(fd) != 0 ||
		    close(fd) != 0 || renameat2(AT_FDCWD, tmp, AT_FDCWD, path, RENAME_NOREPLACE) != 0) {
			perror(tmp);
			return 1;
		}
		dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		if (dfd < 0 || (fsync(dfd) != 0 && errno != EINVAL) || close(dfd) != 0) {
			perror(dir);
			return 1;
		}
	}
	printf("%lld\n", now_ns() - t0);
	free(buf);
	free(tmp);
	free(path);
	return 0;
}

static int readall(const char *path)
{
	static char buf[65536];
	DIR *dir = opendir(path);
	struct dirent *d;
	long long bytes = 0;

	if (!dir) {
		perror(path);
		return 1;
	}
	while ((d = readdir(dir))) {
		ssize_t n;
		int fd;
		if (d->d_name[0] == '.' || d->d_type != DT_REG)
			continue;
		fd = openat(dirfd(dir), d->d_name, O_RDONLY | O_CLOEXEC);
		if (fd < 0)
			continue;
		while ((n = read(fd, buf, sizeof buf)) > 0)
			bytes += n;
		close(fd);
	}
	closedir(dir);
	printf("%lld\n", bytes);
	return 0;
}

int main(int argc, char **argv)
{
	if (argc == 3 && strcmp(argv[1], "readall") == 0)
		return readall(argv[2]);
	if (argc == 5 && strcmp(argv[1], "durable") == 0)
		return durable(argv[2], strtol(argv[3], NULL, 10), strtol(argv[4], NULL, 10));
	if (argc >= 4 && strcmp(argv[1], "append") == 0)
		return append(argv[2], argv[3], argc > 4 ? strtol(argv[4], NULL, 10) : 1);
	if (argc >= 4 && strcmp(argv[1], "time") == 0 && strcmp(argv[2], "--") == 0)
		return run_timed(NULL, argv + 3);
	if (argc >= 6 && strcmp(argv[1], "time") == 0 && strcmp(argv[2], "--in") == 0 &&
	    strcmp(argv[4], "--") == 0)
		return run_timed(argv[3], argv + 5);
	fprintf(stderr, "usage: helper time [--in FILE] -- CMD ARG... | "
		"helper append FILE LINE [COUNT] | helper durable DIR COUNT BYTES | "
		"helper readall DIR\n");
	return 2;
}
