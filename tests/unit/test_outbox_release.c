/*
 * Release, exactly once: real processes deliver through a real command, race
 * each other, and die in the middle of a delivery.
 */
#include <criterion/criterion.h>

#include "scratch.h"
#include "base/buf.h"
#include "base/err.h"
#include "base/fs.h"
#include "base/jsonio.h"
#include "config/config.h"
#include "outbox/item.h"
#include "outbox/release.h"
#include "outbox/sink.h"
#include "outbox/store.h"

#include <ftw.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

struct fixture {
	char *root, *dir, *received;
	struct config cfg;
	struct outbox_store s;
};

static int rm_one(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st, (void)flag, (void)ftw;
	return remove(path);
}

/* Removes a test's directory tree (never following a link). */
static void rm_tree(const char *path)
{
	nftw(path, rm_one, 16, FTW_DEPTH | FTW_PHYS);
}

/* A sendmail that appends what it read to `received`, after running `extra`. */
static void write_script(struct fixture *f, const char *name, const char *extra)
{
	char *path = fs_join(f->root, name);
	char *text = xasprintf("#!/bin/sh\n%s\ncat >> %s\necho '--- end' >> %s\n%s\n",
			       // cppcheck-suppress pointerOutOfBounds ; only when extra starts with "before:"
			       strstr(extra, "before:") == extra ? extra + 7 : "", f->received,
			       f->received, strstr(extra, "before:") == extra ? "" : extra);
	struct err e;

	cr_assert_eq(fs_replace(path, text, strlen(text), &e), 0, "%s", e.msg);
	chmod(path, 0755);
	free(f->cfg.mail_sendmail);
	f->cfg.mail_sendmail = xasprintf("%s -i", path);
	free(text);
	free(path);
}

static void setup(struct fixture *f)
{
	char tmpl[512];
	struct err e;

	memset(f, 0, sizeof *f);
	cr_assert_not_null(scratch_mkdtemp(tmpl, sizeof tmpl, "release"));
	f->root = xstrdup(tmpl);
	f->dir = fs_join(f->root, "outbox");
	f->received = fs_join(f->root, "received");
	f->cfg.mail_from = xstrdup("me@example.org");
	write_script(f, "sendmail", "");
	cr_assert_eq(outbox_store_open(&f->s, f->dir, OUTBOX_WRITE, &e), 0, "%s", e.msg);
}

static void teardown(struct fixture *f)
{
	outbox_store_close(&f->s);
	config_free(&f->cfg);
	rm_tree(f->root);
	free(f->root);
	free(f->dir);
	free(f->received);
}

static char *stage(struct fixture *f, const char *tool)
{
	const char *text = "{\"to\":\"ada@example.org\",\"subject\":\"hi\",\"body_text\":\"x\"}";
	struct err e;
	json_t *args = jsonio_parse(text, strlen(text), "args", &e);
	struct outbox_draft d = { tool, NULL, args, NULL, NULL, 0, 0 };
	struct outbox_item it;
	char *id;

	cr_assert_eq(outbox_store_stage(&f->s, &d, &it, &e), 0, "%s", e.msg);
	id = xstrdup(it.id);
	outbox_item_free(&it);
	json_decref(args);
	return id;
}

static struct outbox_item item(struct fixture *f, const char *id)
{
	struct outbox_item it;
	struct err e;

	cr_assert_eq(outbox_store_read(&f->s, id, &it, &e), 0, "%s", e.msg);
	return it;
}

/* An item naming a tool no sink has, as the Rust tool may have staged one. */
static char *plant(struct fixture *f, const char *tool)
{
	char *id = stage(f, "mail_send");
	struct outbox_item it = item(f, id);
	struct err e;

	outbox_item_set(&it, "tool", tool);
	cr_assert_eq(outbox_store_lock(&f->s, &e), 0, "%s", e.msg);
	cr_assert_eq(outbox_store_write(&f->s, &it, &e), 0, "%s", e.msg);
	outbox_store_unlock(&f->s);
	outbox_item_free(&it);
	return id;
}

/* How many messages the script received. */
static int deliveries(struct fixture *f)
{
	char *data;
	size_t len;
	struct err e;
	int n = 0;

	if (fs_read(f->received, &data, &len, &e) != 0)
		return 0;
	for (const char *p = data; (p = strstr(p, "--- end")) != NULL; p++)
		n++;
	free(data);
	return n;
}

Test(release, an_approved_draft_is_delivered_once_and_marked_sent)
{
	struct fixture f;
	struct outbox_item it;
	struct err e;
	char *id;

	setup(&f);
	id = stage(&f, "mail_send");
	cr_assert_eq(release_send(&f.s, &f.cfg, id, 0, &e), 0, "%s", e.msg);
	cr_assert_eq(deliveries(&f), 1);
	it = item(&f, id);
	cr_assert_str_eq(it.status, "sent");
	cr_assert_null(it.sending_since);
	cr_assert_not_null(it.resolved_at);
	outbox_item_free(&it);
	cr_assert_eq(release_send(&f.s, &f.cfg, id, RELEASE_FORCE, &e), -1);
	cr_assert_eq(e.code, ERR_NOT_PENDING);
	cr_assert(err_is_refusal(&e));
	cr_assert_eq(deliveries(&f), 1);
	free(id);
	teardown(&f);
}

Test(release, a_failed_delivery_is_recorded_and_the_draft_stays_pending)
{
	struct fixture f;
	struct outbox_item it;
	struct err e;
	char *id;

	setup(&f);
	write_script(&f, "failing", "exit 75");
	id = stage(&f, "mail__mail_send");
	cr_assert_eq(release_send(&f.s, &f.cfg, id, 0, &e), -1);
	cr_assert_eq(err_exit_code(&e), EXIT_FAIL);
	cr_assert(strstr(e.msg, "exited with status 75") != NULL, "%s", e.msg);
	it = item(&f, id);
	cr_assert_str_eq(it.status, "pending");
	cr_assert_str_eq(it.error, e.msg);
	cr_assert_null(it.sending_since);
	outbox_item_free(&it);
	write_script(&f, "sendmail", "");
	cr_assert_eq(release_send(&f.s, &f.cfg, id, 0, &e), 0, "%s", e.msg);
	it = item(&f, id);
	cr_assert_null(it.error);
	outbox_item_free(&it);
	free(id);
	teardown(&f);
}

/* The process delivering dies mid-delivery (the command kills it after the message went). */
Test(release, a_crash_mid_delivery_is_never_repeated_without_force)
{
	struct fixture f;
	struct outbox_item it;
	struct err e;
	int status;
	char *id;
	pid_t pid;

	setup(&f);
	id = stage(&f, "mail_send");
	write_script(&f, "crashing", "kill -9 $PPID; sleep 1");
	pid = fork();
	if (pid == 0) {
		release_send(&f.s, &f.cfg, id, 0, &e);
		_exit(0);
	}
	cr_assert_eq(waitpid(pid, &status, 0), pid);
	cr_assert(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL, "the sender did not die");
	cr_assert_eq(deliveries(&f), 1);
	it = item(&f, id);
	cr_assert_str_eq(it.status, "pending");
	cr_assert_not_null(it.sending_since);
	outbox_item_free(&it);

	write_script(&f, "sendmail", "");
	cr_assert_eq(release_send(&f.s, &f.cfg, id, 0, &e), -1);
	cr_assert_eq(e.code, ERR_IN_FLIGHT);
	cr_assert(err_is_refusal(&e));
	cr_assert_eq(deliveries(&f), 1, "sent again without --force");
	cr_assert_eq(release_send(&f.s, &f.cfg, id, RELEASE_FORCE, &e), 0, "%s", e.msg);
	cr_assert_eq(deliveries(&f), 2);
	free(id);
	teardown(&f);
}

Test(release, of_racing_approvers_exactly_one_delivers)
{
	struct fixture f;
	struct err e;
	int status, sent = 0;
	char *id;

	setup(&f);
	write_script(&f, "slow", "before:sleep 0.2");
	for (int round = 0; round < 3; round++) {
		id = stage(&f, "mail_send");
		for (int p = 0; p < 4; p++)
			if (fork() == 0)
				_exit(release_send(&f.s, &f.cfg, id, 0, &e) == 0     ? 0
				      : err_is_refusal(&e)                         ? 3
										      : 1);
		for (int p = 0; p < 4; p++) {
			cr_assert_neq(wait(&status), -1);
			cr_assert(WIFEXITED(status));
			cr_assert_neq(WEXITSTATUS(status), 1);
			sent += WEXITSTATUS(status) == 0;
		}
		cr_assert_eq(sent, round + 1);
		cr_assert_eq(deliveries(&f), round + 1);
		free(id);
	}
	teardown(&f);
}

Test(release, a_tool_without_a_sink_is_an_error_on_the_draft)
{
	struct fixture f;
	struct outbox_item it;
	struct err e;
	char *id, *cal;

	setup(&f);
	id = plant(&f, "web_post");
	cr_assert_eq(release_send(&f.s, &f.cfg, id, 0, &e), -1);
	cr_assert_str_eq(e.msg, "tool web_post is not available in this configuration");
	it = item(&f, id);
	cr_assert_str_eq(it.status, "pending");
	cr_assert_str_eq(it.error, "tool web_post is not available in this configuration");
	cr_assert_null(it.sending_since);
	outbox_item_free(&it);
	cal = stage(&f, "calendar_invite");
	cr_assert_eq(release_send(&f.s, &f.cfg, cal, 0, &e), -1);
	cr_assert(strstr(e.msg, "calendar") != NULL);
	cr_assert_eq(sink_available(&f.cfg, "calendar_invite", &e), 0);
	cr_assert_eq(sink_available(&f.cfg, "mail_send", &e), 1);
	cr_assert_eq(sink_available(&f.cfg, "mail__mail_send", &e), 1);
	cr_assert_eq(sink_available(&f.cfg, "web_post", &e), 0);
	cr_assert_eq(deliveries(&f), 0);
	free(cal);
	free(id);
	teardown(&f);
}

Test(release, a_batch_rejection_is_all_or_nothing)
{
	struct fixture f;
	struct outbox_item it;
	struct err e;
	char *ids[3];

	setup(&f);
	for (int i = 0; i < 3; i++)
		ids[i] = stage(&f, "mail_send");
	cr_assert_eq(release_reject(&f.s, ids, 3, " \t", 0, &e), -1);
	cr_assert_eq(e.code, ERR_REASON_REQUIRED);
	cr_assert_eq(err_exit_code(&e), EXIT_USAGE);
	cr_assert_eq(release_send(&f.s, &f.cfg, ids[1], 0, &e), 0, "%s", e.msg);
	cr_assert_eq(release_reject(&f.s, ids, 3, "no", 0, &e), -1);
	cr_assert_eq(e.code, ERR_NOT_PENDING);
	it = item(&f, ids[0]);
	cr_assert_str_eq(it.status, "pending", "rejected before every item was checked");
	outbox_item_free(&it);
	cr_assert_eq(release_reject(&f.s, (char *[]){ ids[0], ids[2] }, 2, "too formal", 0, &e),
		     0, "%s", e.msg);
	it = item(&f, ids[2]);
	cr_assert_str_eq(it.status, "rejected");
	cr_assert_str_eq(it.reason, "too formal");
	outbox_item_free(&it);
	for (int i = 0; i < 3; i++)
		free(ids[i]);
	teardown(&f);
}

Test(release, no_mail_route_says_what_to_configure)
{
	struct fixture f;
	struct err e;
	char *id;

	setup(&f);
	free(f.cfg.mail_sendmail);
	f.cfg.mail_sendmail = NULL;
	id = stage(&f, "mail_send");
	cr_assert_eq(release_send(&f.s, &f.cfg, id, 0, &e), -1);
	cr_assert_eq(e.code, ERR_NO_ROUTE);
	cr_assert(strstr(e.msg, "smtp_url") != NULL, "%s", e.msg);
	free(id);
	teardown(&f);
}
