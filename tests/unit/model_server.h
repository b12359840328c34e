/*
 * model_server.h — starts tests/support/model_server.py from a C test.
 *
 * A real loopback HTTP server in its own process, scripted per test, which
 * logs every request it receives to a JSONL file the test reads back. The
 * server exits by itself when the test process that started it goes away, so
 * a crashed test leaves nothing running.
 *
 *	struct model_server ms;
 *	model_server_start(&ms, "[{\"text\": \"hi\"}]", NULL);
 *	... calls to http://127.0.0.1:<ms.port> ...
 *	json_t *reqs = model_server_requests(&ms);   (a NEW reference: an array)
 *	model_server_stop(&ms);
 *
 * The script is found under the checkout (source_fixture.h); MECHA_MODEL_SERVER
 * and PYTHON override the script and the interpreter.
 */
#ifndef MECHA_TESTS_MODEL_SERVER_H
#define MECHA_TESTS_MODEL_SERVER_H

#include "scratch.h"
#include "source_fixture.h"
#include "base/buf.h"
#include "base/err.h"
#include "base/fs.h"

#include <criterion/criterion.h>
#include <fcntl.h>
#include <jansson.h>
#include <netinet/in.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

extern char **environ;

struct model_server {
	pid_t pid;
	int port;
	char dir[512];
	char *log;
};

static inline void model_server_sleep_ms(long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };

	nanosleep(&ts, NULL);
}

static inline void model_server_write(const char *path, const char *text)
{
	struct err e;

	cr_assert_eq(fs_replace(path, text, strlen(text), &e), 0, "%s", e.msg);
}

static inline int model_server_read_port(const char *path)
{
	char *data = NULL;
	size_t len = 0;
	struct err e;
	long port;

	if (access(path, F_OK) != 0 || fs_read(path, &data, &len, &e) != 0)
		return 0;
	port = strtol(data, NULL, 10);
	free(data);
	return (int)port;
}

/* Starts the server with a script (a JSON list) and an optional default entry (JSON). */
static inline void model_server_start(struct model_server *ms, const char *script,
				      const char *default_entry)
{
	const char *py = getenv("PYTHON") ? getenv("PYTHON") : "/usr/bin/python3";
	const char *prog = getenv("MECHA_MODEL_SERVER") ? getenv("MECHA_MODEL_SERVER")
							: source_path("tests/support/model_server.py");
	char *portfile, *scriptfile;
	posix_spawn_file_actions_t fa;
	char *argv[12];
	int n = 0;

	memset(ms, 0, sizeof *ms);
	cr_assert_not_null(scratch_mkdtemp(ms->dir, sizeof ms->dir, "ms"));
	cr_assert_eq(access(prog, R_OK), 0, "cannot find %s", prog);
	portfile = fs_join(ms->dir, "port");
	scriptfile = fs_join(ms->dir, "script.json");
	ms->log = fs_join(ms->dir, "requests.jsonl");
	model_server_write(scriptfile, script ? script : "[]");
	argv[n++] = (char *)py;
	argv[n++] = (char *)prog;
	argv[n++] = "--port-file";
	argv[n++] = portfile;
	argv[n++] = "--log";
	argv[n++] = ms->log;
	argv[n++] = "--script";
	argv[n++] = scriptfile;
	if (default_entry) {
		argv[n++] = "--default";
		argv[n++] = (char *)default_entry;
	}
	argv[n] = NULL;
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_addopen(&fa, 1, "/dev/null", O_WRONLY, 0);
	cr_assert_eq(posix_spawn(&ms->pid, py, &fa, NULL, argv, environ), 0, "cannot start %s", py);
	posix_spawn_file_actions_destroy(&fa);
	for (int i = 0; i < 500 && !ms->port; i++) {
		ms->port = model_server_read_port(portfile);
		if (!ms->port)
			model_server_sleep_ms(20);
	}
	cr_assert_neq(ms->port, 0, "the model server did not start");
	free(portfile);
	free(scriptfile);
}

/* Every request received so far, in order of arrival: a NEW reference to an array. */
static inline json_t *model_server_requests(const struct model_server *ms)
{
	json_t *all = json_array();
	char *data = NULL, *line, *save = NULL;
	size_t len = 0;
	struct err e;

	if (access(ms->log, F_OK) != 0)
		return all;
	cr_assert_eq(fs_read(ms->log, &data, &len, &e), 0, "%s", e.msg);
	for (line = strtok_r(data, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		json_error_t je;
		json_t *v = json_loads(line, 0, &je);

		cr_assert_not_null(v, "bad log line: %s", je.text);
		json_array_append_new(all, v);
	}
	free(data);
	return all;
}

static inline void model_server_stop(struct model_server *ms)
{
	char *cmd;

	if (ms->pid > 0) {
		kill(ms->pid, SIGTERM);
		waitpid(ms->pid, NULL, 0);
		ms->pid = 0;
	}
	if (ms->dir[0]) {
		cmd = xasprintf("rm -rf '%s'", ms->dir);
		if (system(cmd) != 0)
			fprintf(stderr, "could not remove %s\n", ms->dir);
		free(cmd);
		ms->dir[0] = '\0';
	}
	free(ms->log);
	ms->log = NULL;
}

/* A loopback port nothing listens on (bound, then closed). */
static inline int model_server_dead_port(void)
{
	struct sockaddr_in a = { 0 };
	socklen_t alen = sizeof a;
	int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	int port;

	a.sin_family = AF_INET;
	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	cr_assert_eq(bind(fd, (struct sockaddr *)&a, sizeof a), 0);
	cr_assert_eq(getsockname(fd, (struct sockaddr *)&a, &alen), 0);
	port = ntohs(a.sin_port);
	close(fd);
	return port;
}

#endif
