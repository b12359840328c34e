/*
 * outbox_review (cli) — the two verbs where a person works on drafts rather
 * than naming them: `edit` (the body in their own editor) and `review` (one
 * pending draft at a time).
 *
 * An editor can stay open for an hour, so no lock is held while it runs: the
 * draft is re-read under the lock afterwards and the edit is saved only if the
 * draft is still pending and nobody changed it meanwhile. Otherwise the
 * person's text is kept in its file and they are told where.
 */
#include "cli/cli.h"
#include "cli/outbox.h"
#include "cli/verb.h"

#include "base/buf.h"
#include "base/err.h"
#include "base/verdict.h"
#include "base/fs.h"
#include "base/jsonio.h"
#include "base/text.h"
#include "outbox/release.h"

#include <errno.h>
#include <fcntl.h>
#include <spawn.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

/* ---- edit ------------------------------------------------------------------------- */

/* A mail draft is edited as "Subject: …", a blank line and the body; anything else as JSON. */
struct edit {
	int mail;
	const char *body_key;
	char *subject_line; /* the first line as written, to tell whether it was touched */
	int body_had_newline;
	char *text;         /* what the file held before the editor ran */
	size_t len;
};

static char *flat_subject(const json_t *subject)
{
	char *s = xstrdup(json_is_string(subject) ? json_string_value(subject) : "");

	for (char *p = s; *p; p++)
		if (*p == '\n' || *p == '\r')
			*p = ' ';
	return s;
}

static void edit_prepare(const struct outbox_item *it, struct edit *ed)
{
	struct buf b = BUF_INIT;

	memset(ed, 0, sizeof *ed);
	ed->body_key = outbox_item_body_key(it->args);
	ed->mail = json_is_object(it->args) &&
		   (ed->body_key || json_object_get(it->args, "subject") ||
		    strstr(it->tool, "mail") != NULL);
	if (ed->mail) {
		const json_t *body = ed->body_key ? json_object_get(it->args, ed->body_key) : NULL;
		char *subject = flat_subject(json_object_get(it->args, "subject"));
		const char *text = body ? json_string_value(body) : "";
		size_t n = body ? json_string_length(body) : 0;
		ed->subject_line = xasprintf("Subject: %s", subject);
		free(subject);
		ed->body_had_newline = n > 0 && text[n - 1] == '\n';
		buf_printf(&b, "%s\n\n", ed->subject_line);
		buf_add(&b, text, n);
		if (!ed->body_had_newline)
			buf_addc(&b, '\n');
	} else {
		char *s = jsonio_pretty(it->args);
		buf_printf(&b, "%s\n", s);
		free(s);
	}
	ed->len = b.len;
	ed->text = buf_steal(&b);
}

static void edit_free(struct edit *ed)
{
	free(ed->subject_line);
	free(ed->text);
}

/* The new args from the edited text; NULL with e when it cannot be read back. */
static json_t *edit_apply(const struct outbox_item *it, const struct edit *ed, const char *text,
			  size_t len, struct err *e)
{
	json_t *args;
	const char *nl;
	size_t body_len;

	if (!ed->mail)
		return jsonio_parse(text, len, "the edited draft", e);
	args = json_deep_copy(it->args);
	nl = memchr(text, '\n', len);
	if (len >= 8 && strncmp(text, "Subject:", 8) == 0) {
		size_t line = nl ? (size_t)(nl - text) : len;
		if (line != strlen(ed->subject_line) || memcmp(text, ed->subject_line, line) != 0) {
			const char *v = text + 8 + (line > 8 && text[8] == ' ');
			json_object_set_new(args, "subject",
					    json_stringn(v, (size_t)(text + line - v)));
		}
		len -= nl ? line + 1 : len;
		text = nl ? nl + 1 : text + line;
		if (len > 0 && text[0] == '\n')
			text++, len--;
	}
	body_len = len;
	if (!ed->body_had_newline && body_len > 0 && text[body_len - 1] == '\n')
		body_len--;
	json_object_set_new(args, ed->body_key ? ed->body_key : "body_text",
			    json_stringn(text, body_len));
	return args;
}

static int run_editor(const char *path, struct err *e)
{
	const char *editor = getenv("VISUAL");
	char *script;
	pid_t pid;
	int status, rc;

	if (!editor || !*editor)
		editor = getenv("EDITOR");
	if (!editor || !*editor)
		editor = "vi";
	/* Through the shell, as git does, so EDITOR="code --wait" works; the path is "$1". */
	script = xasprintf("%s \"$1\"", editor);
	{
		char *argv[] = { "sh", "-c", script, "sh", (char *)path, NULL };
		rc = posix_spawn(&pid, "/bin/sh", NULL, NULL, argv, environ);
	}
	free(script);
	if (rc != 0) {
		errno = rc;
		return err_errno(e, "cannot run the editor %s", editor);
	}
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR)
			return err_errno(e, "waiting for the editor");
	if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
		return err_set(e, ERR_EDITOR, "the editor (%s) failed; nothing was changed", editor);
	return 0;
}

struct save {
	const json_t *was;  /* the args the person started from */
	json_t *now;        /* the args they ended with */
	const char *kept;   /* where their text stays if it cannot be saved */
};

static int save_edit(struct outbox_item *it, void *ctx, struct err *e)
{
	struct save *s = ctx;

	if (!outbox_item_pending(it))
		return err_set(e, ERR_NOT_PENDING, "%s was resolved (%s) while you were editing; "
				  "your text is kept in %s", it->id, it->status, s->kept);
	if (it->sending_since)
		return err_set(e, ERR_IN_FLIGHT, "%s went in flight while you were editing; your "
				  "text is kept in %s", it->id, s->kept);
	if (!json_equal(it->args, (json_t *)s->was))
		return err_set(e, ERR_CHANGED, "%s was changed by someone else while you were "
				  "editing; your text is kept in %s", it->id, s->kept);
	outbox_item_set_args(it, s->now);
	return VERDICT_WRITE;
}

static int write_temp(const char *dir, const char *id, const struct edit *ed, char **path,
		      struct err *e)
{
	/* Inside the 0700 outbox: the draft never sits in a shared /tmp. */
	char *p = xasprintf("%s/.edit-%s-XXXXXX%s", dir, id, ed->mail ? ".eml" : ".json");
	int fd = mkostemps(p, ed->mail ? 4 : 5, O_CLOEXEC);

	if (fd < 0) {
		err_errno(e, "creating a file to edit in %s", dir);
		free(p);
		return -1;
	}
	if (fs_write_all(fd, ed->text, ed->len) != 0 || close(fd) != 0) {
		err_errno(e, "writing %s", p);
		unlink(p);
		free(p);
		return -1;
	}
	*path = p;
	return 0;
}

/* Reads back and saves; 1 when the text is kept for the person (refused or unreadable). */
static int edit_finish(struct cli_outbox *c, const struct outbox_item *it,
		       const struct edit *ed, const char *path, struct err *e)
{
	char *text;
	size_t len;
	struct save s = { it->args, NULL, path };
	int rc;

	if (fs_read(path, &text, &len, e) != 0)
		return -1;
	if (len == ed->len && memcmp(text, ed->text, len) == 0) {
		free(text);
		printf("Nothing changed in %s.\n", it->id);
		return 0;
	}
	s.now = edit_apply(it, ed, text, len, e);
	free(text);
	if (!s.now) {
		err_prefix(e, "your text is kept in %s", path);
		return 1;
	}
	rc = outbox_store_update(&c->store, it->id, save_edit, &s, e);
	json_decref(s.now);
	if (rc < 0)
		return err_is_refusal(e) ? 1 : -1;
	printf("Saved %s.\n", it->id);
	return 0;
}

int cli_outbox_edit_item(struct cli_outbox *c, const char *id, struct err *e)
{
	struct outbox_item it;
	struct edit ed;
	char *path = NULL;
	int rc;

	if (outbox_store_read(&c->store, id, &it, e) != 0)
		return -1;
	if (!outbox_item_pending(&it) || it.sending_since) {
		rc = it.sending_since
			     ? err_set(e, ERR_IN_FLIGHT, "%s is in flight; it can no longer be edited", id)
			     : err_set(e, ERR_NOT_PENDING, "%s is %s; only a pending draft can be edited",
					  id, it.status);
		outbox_item_free(&it);
		return rc;
	}
	edit_prepare(&it, &ed);
	rc = write_temp(c->store.dir, it.id, &ed, &path, e);
	if (rc == 0) {
		rc = run_editor(path, e);
		if (rc == 0)
			rc = edit_finish(c, &it, &ed, path, e);
		if (rc != 1)
			unlink(path);
		rc = rc == 1 ? -1 : rc;
	}
	free(path);
	edit_free(&ed);
	outbox_item_free(&it);
	return rc;
}

const char outbox_edit_help[] =
	"usage: mecha outbox edit ID\n\n"
	"Opens a pending draft in $VISUAL (else $EDITOR, else vi) from a private file. A\n"
	"mail draft shows as a Subject: line, a blank line and the body; any other draft\n"
	"as its JSON arguments. The edit is saved only if the draft is still pending, and\n"
	"unchanged by anyone else, when the editor exits. `show` then shows the diff.\n";

int cli_outbox_edit(int argc, char **argv)
{
	struct cli_outbox c;
	struct cli_args a;
	struct err e;
	char *id;
	int rc;

	if ((rc = cli_parse("outbox edit", NULL, 0, 1, 1, argc, argv, &a)) != 0)
		return rc;
	if (cli_outbox_open(&c, OUTBOX_WRITE, &e) != 0)
		return cli_fail(&e);
	if (outbox_store_lookup(&c.store, a.pos[0], &id, &e) != 0) {
		cli_outbox_close(&c);
		return cli_fail(&e);
	}
	if (cli_outbox_edit_item(&c, id, &e) != 0)
		rc = cli_fail(&e);
	free(id);
	cli_outbox_close(&c);
	return rc;
}

/* ---- review ------------------------------------------------------------------------ */

struct tally {
	size_t sent, rejected, kept;
	int status;
	int quit;
};

/* Asks for the reason until there is one (a blank line asks again; EOF stops). */
static void reject_with_reason(struct cli_outbox *c, const char *id, struct tally *t)
{
	char *reason = NULL, *ids[1] = { (char *)id };
	struct err e;

	for (;;) {
		fputs("reason: ", stdout);
		fflush(stdout);
		free(reason);
		reason = cli_outbox_read_line();
		if (!reason) {
			t->quit = 1;
			return;
		}
		if (!text_blank(reason))
			break;
		puts("A rejection needs a reason: it is what the next draft is written from.");
	}
	if (release_reject(&c->store, ids, 1, reason, 0, &e) != 0) {
		cli_fail(&e);
	} else {
		fputs("rejected ", stdout);
		text_print(stdout, id, 0);
		putchar('\n');
		t->rejected++;
	}
	free(reason);
}

static void send_now(struct cli_outbox *c, const char *id, struct tally *t)
{
	struct err e;

	if (release_send(&c->store, &c->cfg, id, 0, &e) != 0) {
		cli_fail(&e);
		if (err_exit_code(&e) == EXIT_FAIL)
			t->status = EXIT_FAIL;
		return;
	}
	fputs("sent ", stdout);
	text_print(stdout, id, 0);
	putchar('\n');
	t->sent++;
}

/* Shows the item again (it may have changed) and asks; 0 = move on, 1 = ask again. */
static int review_one(struct cli_outbox *c, const char *id, size_t i, size_t n, struct tally *t)
{
	struct outbox_item it;
	struct err e;
	char *answer;
	char a;

	if (outbox_store_read(&c->store, id, &it, &e) != 0 || !outbox_item_pending(&it)) {
		if (it.doc)
			outbox_item_free(&it);
		return 0; /* resolved or gone since the list was taken: nothing to decide */
	}
	printf("\n[%zu/%zu] ", i + 1, n);
	cli_outbox_print_item(stdout, &it, c->color);
	outbox_item_free(&it);
	fputs("\n[s]end [e]dit [r]eject [k]eep [q]uit? ", stdout);
	fflush(stdout);
	answer = cli_outbox_read_line();
	if (!answer) {
		t->quit = 1;
		return 0;
	}
	a = answer[0];
	free(answer);
	switch (a) {
	case 's': send_now(c, id, t); return 0;
	case 'k': t->kept++; return 0;
	case 'q': t->quit = 1; return 0;
	case 'r': reject_with_reason(c, id, t); return 0;
	case 'e':
		if (cli_outbox_edit_item(c, id, &e) != 0)
			cli_fail(&e);
		return 1;
	default:
		puts("Answer s, e, r, k or q.");
		return 1;
	}
}

const char outbox_review_help[] =
	"usage: mecha outbox review\n\n"
	"Goes through the pending drafts one at a time, oldest first, and asks:\n"
	"[s]end [e]dit [r]eject [k]eep [q]uit. Answers are read from standard input,\n"
	"one per line, so a script can drive it.\n";

int cli_outbox_review(int argc, char **argv)
{
	struct cli_outbox c;
	struct outbox_list l;
	struct tally t = { 0, 0, 0, EXIT_OK, 0 };
	struct cli_args a;
	struct err e;
	size_t n = 0;
	int rc;

	if ((rc = cli_parse("outbox review", NULL, 0, 0, 0, argc, argv, &a)) != 0)
		return rc;
	if (cli_outbox_open(&c, OUTBOX_WRITE, &e) != 0)
		return cli_fail(&e);
	if (outbox_store_list(&c.store, &l, stderr, &e) != 0) {
		cli_outbox_close(&c);
		return cli_fail(&e);
	}
	for (size_t i = 0; i < l.n; i++)
		n += outbox_item_pending(&l.items[i]);
	for (size_t i = 0, k = 0; i < l.n && !t.quit; i++) {
		if (!outbox_item_pending(&l.items[i]))
			continue;
		while (review_one(&c, l.items[i].id, k, n, &t) == 1 && !t.quit)
			;
		k++;
	}
	if (n == 0)
		puts("Nothing is waiting for you.");
	else
		printf("\n%zu sent, %zu rejected, %zu kept.\n", t.sent, t.rejected, t.kept);
	outbox_list_free(&l);
	cli_outbox_close(&c);
	return t.status;
}
