/*
 * outbox_review (cli) — the two verbs where a person works on drafts rather
 * than naming them: `edit` (the body in their own editor) and `review` (one
 * pending draft at a time).
 *
 * What an edit may do and when it is saved is outbox/edit.h's; which editor
 * runs is base/editor.h's. Here: the calls in order, and what the person is told.
 */
#include "cli/cli.h"
#include "cli/outbox.h"
#include "cli/verb.h"

#include "base/editor.h"
#include "base/err.h"
#include "base/text.h"
#include "frontdoor/answer.h"
#include "outbox/edit.h"
#include "outbox/release.h"

#include <stdlib.h>

/* ---- edit ------------------------------------------------------------------------- */

/* `mecha outbox edit` and the [e]dit of review: outbox/edit.h's calling sequence around
 * the person's editor, and what they are told. 0 saved or unchanged, -1 with e. */
static int cli_outbox_edit_item(struct cli_outbox *c, const char *id, struct err *e)
{
	struct outbox_edit ed;
	int rc;

	if (outbox_edit_begin(&c->store, id, &ed, e) != 0)
		return -1;
	rc = editor_run(ed.path, e);
	if (rc == 0)
		rc = outbox_edit_finish(&c->store, &ed, e);
	if (rc >= 0) {
		fputs(rc == OUTBOX_EDIT_SAVED ? "Saved " : "Nothing changed in ", stdout);
		text_print(stdout, ed.id, 0);
		puts(".");
	}
	outbox_edit_end(&ed);
	return rc < 0 ? -1 : 0;
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
	struct answer_batch *batch; /* the session's drafts: their requests found once */
};

/*
 * Asks for the reason. An empty line (or the end of input) cancels the
 * reject, so a person who typed r by mistake has a way back that does not
 * turn whatever they type next into the reason. Returns 1 when it was
 * cancelled (the same draft is asked about again).
 */
static int reject_with_reason(struct cli_outbox *c, const char *id, struct tally *t)
{
	char *reason, *ids[1] = { (char *)id };
	struct err e;

	fputs("reason (an empty line cancels): ", stdout);
	fflush(stdout);
	reason = cli_outbox_read_line();
	if (!reason || text_blank(reason)) {
		puts(reason ? "reject cancelled" : "\nreject cancelled");
		t->quit = !reason;
		free(reason);
		return 1;
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
	return 0;
}

static void send_now(struct cli_outbox *c, const char *id, struct tally *t)
{
	struct err e;

	/* Through the front door's rule: a draft whose request was closed is not sent. */
	if (answer_release(t->batch, &c->store, &c->cfg, id, ANSWER_SEEN_PENDING, &e) != 0) {
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
	case 'r': return reject_with_reason(c, id, t);
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
	"one per line, so a script can drive it. After r, the next line is the reason;\n"
	"an empty line cancels the reject and the draft is asked about again.\n";

int cli_outbox_review(int argc, char **argv)
{
	struct cli_outbox c;
	struct outbox_list l;
	struct tally t = { 0, 0, 0, EXIT_OK, 0, NULL };
	struct answer_batch batch;
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
	answer_begin(&batch, &l);
	t.batch = &batch;
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
	answer_end(&batch);
	outbox_list_free(&l);
	cli_outbox_close(&c);
	return t.status;
}
