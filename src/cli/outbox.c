/*
 * outbox (cli) — `mecha outbox`: list, show, stage, approve (send), reject;
 * edit and review live in outbox_review.c.
 *
 * Nothing here decides anything: which drafts a command line names is
 * outbox/select.h's, when to ask first is release.h's, what of a draft to show
 * is outbox/view.h's. This file parses, calls, asks when told to, and prints
 * agents' words without letting them drive the terminal.
 */
#include "cli/cli.h"
#include "cli/outbox.h"
#include "cli/verb.h"

#include "base/buf.h"
#include "base/err.h"
#include "base/jsonio.h"
#include "base/verdict.h"
#include "base/text.h"
#include "base/linediff.h"
#include "config/confine.h"
#include "frontdoor/answer.h"
#include "outbox/release.h"
#include "outbox/select.h"
#include "outbox/view.h"

#include <stdlib.h>
#include <string.h>

#define BOLD(c) ((c) ? "\033[1m" : "")
#define DIM(c) ((c) ? "\033[2m" : "")
#define RED(c) ((c) ? "\033[31m" : "")
#define YELLOW(c) ((c) ? "\033[33m" : "")
#define RESET(c) ((c) ? "\033[0m" : "")

/* ---- shared ------------------------------------------------------------------- */

int cli_outbox_open(struct cli_outbox *c, enum outbox_mode mode, struct err *e)
{
	memset(c, 0, sizeof *c);
	c->store.lock_fd = -1;
	c->color = text_color_ok(stdout);
	if (config_load(&c->cfg, e) != 0)
		return -1;
	if (outbox_store_open(&c->store, c->cfg.outbox_dir, mode, e) != 0) {
		config_free(&c->cfg);
		return -1;
	}
	return 0;
}

void cli_outbox_close(struct cli_outbox *c)
{
	outbox_store_close(&c->store);
	config_free(&c->cfg);
}

char *cli_outbox_read_line(void)
{
	char *line = NULL;
	size_t cap = 0;
	ssize_t n = getline(&line, &cap, stdin);

	if (n < 0) {
		free(line);
		return NULL;
	}
	while (n > 0 && (line[n - 1] == '\n' || line[n - 1] == '\r'))
		line[--n] = '\0';
	return line;
}

/* Asks on stderr; only "y" proceeds (EOF, an empty line or anything else is no). */
static int confirm(const char *question)
{
	char *answer;
	int yes;

	fprintf(stderr, "%s [y/N] ", question);
	fflush(stderr);
	answer = cli_outbox_read_line();
	yes = answer && strcmp(answer, "y") == 0;
	if (!answer)
		fputc('\n', stderr);
	free(answer);
	return yes;
}

static void print_safe(FILE *f, const char *s)
{
	text_print(f, s ? s : "", 0);
}

/* s rendered safely, then padded to width bytes as printf's %-*s would. */
static void print_padded(FILE *f, const char *s, int width)
{
	struct buf b = BUF_INIT;

	s = s ? s : "";
	text_safe(&b, s, strlen(s), 0);
	fprintf(f, "%-*s", width, buf_str(&b));
	buf_free(&b);
}

/* A JSON value in one line, rendered safely (strings as they are, others compact). */
static void print_value(FILE *f, const json_t *v)
{
	char *s;

	if (json_is_string(v)) {
		text_printn(f, json_string_value(v), json_string_length(v), 0);
		return;
	}
	s = jsonio_compact(v);
	print_safe(f, s);
	free(s);
}

static void print_addresses(FILE *f, const char *label, const json_t *v)
{
	size_t i;
	json_t *x;

	if (!v || json_is_null(v))
		return;
	fprintf(f, "%-9s", label);
	if (json_is_array(v)) {
		json_array_foreach(v, i, x) {
			if (i)
				fputs(", ", f);
			print_value(f, x);
		}
	} else {
		print_value(f, v);
	}
	fputc('\n', f);
}

static void print_args(FILE *f, const struct outbox_item *it, int color)
{
	struct outbox_view v;

	outbox_view_make(it, &v);
	if (!v.object) {
		fprintf(f, "\n%sargs%s  ", BOLD(color), RESET(color));
		print_value(f, it->args);
		fputc('\n', f);
		return;
	}
	fputc('\n', f);
	print_addresses(f, "To:", v.to);
	print_addresses(f, "Cc:", v.cc);
	if (v.subject) {
		fprintf(f, "%-9s", "Subject:");
		print_value(f, v.subject);
		fputc('\n', f);
	}
	if (v.body) {
		fputc('\n', f);
		text_printn(f, json_string_value(v.body), json_string_length(v.body),
			    TEXT_KEEP_NEWLINES);
		fputc('\n', f);
	}
	for (size_t i = 0; i < v.nothers; i++) {
		if (i == 0)
			fprintf(f, "\n%sother arguments%s\n", BOLD(color), RESET(color));
		fputs("  ", f);
		print_safe(f, v.others[i]);
		fputs(": ", f);
		print_value(f, json_object_get(it->args, v.others[i]));
		fputc('\n', f);
	}
	outbox_view_free(&v);
}

static void print_diff_line(FILE *f, const struct outbox_diff_line *l, int color)
{
	fprintf(f, "%s  %c ", l->sign == LINEDIFF_DEL ? RED(color)
			      : l->sign == LINEDIFF_ADD ? YELLOW(color) : "", l->sign);
	text_printn(f, l->text, l->len, 0);
	fprintf(f, "%s\n", l->sign == LINEDIFF_SAME ? "" : RESET(color));
}

static void print_edit(FILE *f, const struct outbox_item *it, int color)
{
	struct outbox_diff d;

	outbox_diff_make(it, &d);
	if (d.n)
		fprintf(f, "\n%sedited%s (- as drafted, + as it will be sent)\n", BOLD(color),
			RESET(color));
	for (size_t i = 0; i < d.n; i++) {
		if (i == 0 || strcmp(d.lines[i].key, d.lines[i - 1].key) != 0) {
			fputs("  ", f);
			print_safe(f, d.lines[i].key);
			fputs(":\n", f);
		}
		print_diff_line(f, &d.lines[i], color);
	}
	outbox_diff_free(&d);
}

static void field(FILE *f, const char *label, const char *value)
{
	if (!value)
		return;
	fprintf(f, "%-9s ", label);
	print_safe(f, value);
	fputc('\n', f);
}

void cli_outbox_print_item(FILE *f, const struct outbox_item *it, int color)
{
	fprintf(f, "%s", BOLD(color));
	print_safe(f, it->id);
	fprintf(f, "%s  %s", RESET(color), outbox_item_pending(it) ? YELLOW(color) : "");
	print_safe(f, it->status);
	fprintf(f, "%s\n", RESET(color));
	fprintf(f, "%-9s ", "tool");
	print_safe(f, it->tool);
	fputs(" (", f);
	print_safe(f, it->kind);
	fputs(")\n", f);
	field(f, "summary", it->summary);
	field(f, "session", it->session_id);
	field(f, "workspace", it->workspace);
	field(f, "created", it->created_at);
	if (outbox_item_tainted(it))
		fprintf(f, "%-9s %s%s%s%s%s\n", "taint", RED(color),
			it->taint_untrusted ? "untrusted" : "",
			it->taint_untrusted && it->taint_private ? ", " : "",
			it->taint_private ? "private" : "", RESET(color));
	field(f, "resolved", it->resolved_at);
	field(f, "reason", it->reason);
	if (it->sending_since) {
		fprintf(f, "%s", RED(color));
		field(f, "in flight", it->sending_since);
		fprintf(f, "%s", RESET(color));
	}
	if (it->error) {
		fprintf(f, "%s", RED(color));
		field(f, "error", it->error);
		fprintf(f, "%s", RESET(color));
	}
	print_args(f, it, color);
	print_edit(f, it, color);
}

/* ---- list -------------------------------------------------------------------------- */

static void list_line(const struct outbox_item *it, int color)
{
	int pending = outbox_item_pending(it);

	print_safe(stdout, it->id);
	printf("  %s", pending ? YELLOW(color) : DIM(color));
	print_padded(stdout, it->status, 8);
	printf("%s  ", RESET(color));
	print_padded(stdout, it->kind, 7);
	fputs("  ", stdout);
	print_safe(stdout, it->summary[0] ? it->summary : it->tool);
	if (it->taint_untrusted || it->taint_private)
		printf("  %s[tainted]%s", RED(color), RESET(color));
	if (it->sending_since) {
		printf("  %s[in flight since ", RED(color));
		print_safe(stdout, it->sending_since);
		printf("]%s", RESET(color));
	}
	if (pending && it->error) {
		struct buf b = BUF_INIT;
		size_t n = text_utf8_clip(it->error, strlen(it->error), 60);
		buf_add(&b, it->error, n);
		printf("  %s[error: ", RED(color));
		print_safe(stdout, buf_str(&b));
		printf("%s]%s", n < strlen(it->error) ? "\xe2\x80\xa6" : "", RESET(color));
		buf_free(&b);
	}
	putchar('\n');
}

/* What list_one needs: the selection, how to print, and what was seen. */
struct listing {
	const struct outbox_selection *sel;
	struct jsonio_array arr;
	int json, color;
	size_t seen, shown;
};

static int list_one(const struct outbox_item *it, void *ctx, struct err *e)
{
	struct listing *l = ctx;

	(void)e;
	l->seen++;
	if (!outbox_selection_matches(l->sel, it))
		return VERDICT_NEXT;
	l->shown++;
	if (l->json)
		jsonio_array_add(&l->arr, it->doc);
	else
		list_line(it, l->color);
	return VERDICT_NEXT;
}

/* Pending first (what is on you), then the resolved, each in staging order: streamed. */
static int list_print(struct outbox_store *store, const struct outbox_selection *sel, int json,
		      int color, struct err *e)
{
	struct listing l = { sel, { NULL, 0, 0 }, json, color, 0, 0 };

	if (json)
		jsonio_array_begin(&l.arr, stdout);
	if (outbox_store_stream(store, 1, list_one, &l, stderr, e) != 0)
		return -1;
	if (json)
		jsonio_array_end(&l.arr);
	else if (l.shown == 0)
		puts(l.seen ? "No draft matches." : "The outbox is empty.");
	return 0;
}

struct opts {
	struct outbox_selection sel;
	int json, yes, force, mark_sent;
	const char *reason;
};

static void take_ids(struct opts *o, const struct cli_args *a)
{
	o->sel.ids = a->pos;
	o->sel.n = (size_t)a->n;
}

static const char list_help[] =
	"usage: mecha outbox [list] [--kind K] [--via S] [--json]\n\n"
	"Every draft, pending first, then the resolved ones.\n\n"
	"  --kind K   only drafts of kind K (message, publish)\n"
	"  --via S    only drafts whose tool contains S (mail, calendar)\n"
	"  --json     the items as stored, as one JSON array\n";

static int verb_list(int argc, char **argv)
{
	struct opts o = { 0 };
	const struct cli_opt opts[] = {
		{ "kind", 0, CLI_TEXT, &o.sel.kind, 0, 0, 0 },
		{ "via", 0, CLI_TEXT, &o.sel.via, 0, 0, 0 },
		{ "json", 0, CLI_FLAG, &o.json, 0, 0, 0 },
	};
	struct cli_outbox c;
	struct cli_args a;
	struct err e;
	int rc;

	if ((rc = cli_parse("outbox list", CLI_OPTS(opts), 0, 0, argc, argv, &a)) != 0)
		return rc;
	if (cli_outbox_open(&c, OUTBOX_READ, &e) != 0)
		return cli_fail_json(&e, o.json);
	if (list_print(&c.store, &o.sel, o.json, c.color, &e) != 0) {
		cli_outbox_close(&c);
		return cli_fail_json(&e, o.json);
	}
	cli_outbox_close(&c);
	return EXIT_OK;
}

/* ---- show -------------------------------------------------------------------------- */

static const char show_help[] =
	"usage: mecha outbox show ID [--json]\n\n"
	"One draft: headers, the body, other arguments, what an edit changed, taint and\n"
	"errors. ID may be a unique prefix.\n\n"
	"  --json     the item as stored\n";

static int verb_show(int argc, char **argv)
{
	int json = 0;
	const struct cli_opt opts[] = { { "json", 0, CLI_FLAG, &json, 0, 0, 0 } };
	struct cli_outbox c;
	struct outbox_item it;
	struct cli_args a;
	struct err e;
	char *id = NULL;
	int rc;

	if ((rc = cli_parse("outbox show", CLI_OPTS(opts), 1, 1, argc, argv, &a)) != 0)
		return rc;
	if (cli_outbox_open(&c, OUTBOX_READ, &e) != 0)
		return cli_fail_json(&e, json);
	if (outbox_store_lookup(&c.store, a.pos[0], &id, &e) != 0 ||
	    outbox_store_read(&c.store, id, &it, &e) != 0) {
		free(id);
		cli_outbox_close(&c);
		return cli_fail_json(&e, json);
	}
	if (json)
		jsonio_print(stdout, it.doc);
	else
		cli_outbox_print_item(stdout, &it, c.color);
	outbox_item_free(&it);
	cli_outbox_close(&c);
	free(id);
	return EXIT_OK;
}

/* ---- stage ------------------------------------------------------------------------- */

static const char stage_help[] =
	"usage: mecha outbox stage --tool T [--kind K] [--session S] [--workspace W]\n"
	"                          [--private] [--untrusted] --args JSON\n\n"
	"Stages a draft for a person to release or reject, and prints its id. A tool\n"
	"mecha has no sink for, or arguments its sink could not send, are refused (exit 2)\n"
	"and nothing is staged.\n\n"
	"  --tool T        what a release runs: mail_send, calendar_invite\n"
	"  --kind K        message (default) or publish\n"
	"  --session S     the session that drafted it\n"
	"  --workspace W   the workspace it came from\n"
	"  --private       taint: it carries private data\n"
	"  --untrusted     taint: its author read untrusted input\n"
	"  --args JSON     the arguments; for mail_send {\"to\", \"cc\", \"subject\", \"body_text\"}\n";

static int stage_draft(struct outbox_draft *d, const char *args_text)
{
	struct cli_outbox c;
	struct outbox_item it;
	struct err e;
	json_t *args = jsonio_parse(args_text, strlen(args_text), "--args", &e);
	int rc;

	if (!args) {
		cli_fail(&e);
		return EXIT_USAGE; /* what was typed is not JSON: the command line is wrong */
	}
	d->args = args;
	if (cli_outbox_open(&c, OUTBOX_WRITE, &e) != 0) {
		json_decref(args);
		return cli_fail(&e);
	}
	rc = outbox_store_stage(&c.store, d, &it, &e);
	json_decref(args);
	cli_outbox_close(&c);
	if (rc != 0)
		return cli_fail(&e);
	print_safe(stdout, it.id);
	putchar('\n');
	outbox_item_free(&it);
	return EXIT_OK;
}

static int verb_stage(int argc, char **argv)
{
	struct outbox_draft d = { 0 };
	const char *args = NULL;
	const struct cli_opt opts[] = {
		{ "tool", 0, CLI_TEXT, &d.tool, CLI_NONEMPTY, 0, 0 },
		{ "kind", 0, CLI_TEXT, &d.kind, 0, 0, 0 },
		{ "session", 0, CLI_TEXT, &d.session_id, 0, 0, 0 },
		{ "workspace", 0, CLI_TEXT, &d.workspace, 0, 0, 0 },
		{ "private", 0, CLI_FLAG, &d.taint_private, 0, 0, 0 },
		{ "untrusted", 0, CLI_FLAG, &d.taint_untrusted, 0, 0, 0 },
		{ "args", 0, CLI_STR, &args, 0, 0, 0 },
	};
	struct cli_args a;
	int rc;

	if ((rc = cli_parse("outbox stage", CLI_OPTS(opts), 0, 0, argc, argv, &a)) != 0)
		return rc;
	if (!d.tool || !args)
		return cli_usage_error("outbox stage", "stage needs --tool and --args");
	return stage_draft(&d, args);
}

/* ---- approve / send ------------------------------------------------------------------ */

static const char approve_help[] =
	"usage: mecha outbox approve (ID... | --all) [--kind K] [--via S] [-y] [--force]\n"
	"                            [--mark-sent] [--json]\n\n"
	"Releases drafts: each is delivered for real, exactly once (`send` is the same\n"
	"verb). IDs may be unique prefixes. Asks first (only 'y' proceeds) when more than\n"
	"one draft or any tainted draft is selected.\n\n"
	"  --all        every pending draft (narrowed by --kind and --via)\n"
	"  --kind K     only drafts of kind K\n"
	"  --via S      only drafts whose tool contains S\n"
	"  -y, --yes    do not ask\n"
	"  --force      send a draft whose earlier send was interrupted (it may have\n"
	"               gone out: check first), or whose request was closed\n"
	"  --mark-sent  record an interrupted draft as sent without sending it again\n"
	"  --json       a line of JSON per draft as it is settled: {id, status, summary,\n"
	"               reason, delivered} (delivered false with --mark-sent; reason null),\n"
	"               or for a draft not sent {ok: false, error, message, id}; nothing\n"
	"               when nothing is selected\n\n"
	"A draft whose request was closed is not sent without --force (request_closed).\n\n"
	"Exit status: 0 all sent; 1 a delivery failed (the draft stays pending with its\n"
	"error); 3 refused (already resolved, in flight, its request closed, or you said\n"
	"no). Of several drafts, those not sent are named again at the end.\n";

static int worst(int a, int b)
{
	if (a == EXIT_FAIL || b == EXIT_FAIL)
		return EXIT_FAIL;
	return a > b ? a : b;
}

static int ask_to_send(const struct outbox_list *l, const struct opts *o)
{
	int tainted = 0;
	char *q;
	int yes;

	if (!release_needs_confirmation(l, o->yes))
		return 1;
	for (size_t i = 0; i < l->n; i++) {
		tainted |= outbox_item_tainted(&l->items[i]);
		fputs("  ", stderr);
		print_safe(stderr, l->items[i].id);
		fputs("  ", stderr);
		print_safe(stderr, l->items[i].summary);
		if (outbox_item_tainted(&l->items[i]))
			fputs("  [tainted]", stderr);
		fputc('\n', stderr);
	}
	q = xasprintf("%s %zu draft%s%s?", o->mark_sent ? "Mark as sent" : "Send", l->n,
		      l->n == 1 ? "" : "s", tainted ? " (tainted: an agent that read untrusted or "
		      "private data wrote it)" : "");
	yes = confirm(q);
	free(q);
	return yes;
}

/*
 * --json: what became of one draft, on a line of its own as it is settled
 * ({id, status, summary, reason, delivered}); approve and reject print the same row.
 */
static void print_row(const struct outbox_item *it, const char *status, const char *reason,
		      int delivered)
{
	/* The summary is an agent's words and the reason a person's: never dropped for their bytes. */
	json_t *o = json_pack("{s:s,s:s,s:o,s:o,s:b}", "id", it->id, "status", status, "summary",
			      jsonio_text(it->summary ? it->summary : ""), "reason",
			      reason ? jsonio_text(reason) : json_null(), "delivered", delivered);

	cli_print_json_line(o);
	json_decref(o);
}

/* A draft approve did not send: on stderr, and with --json the failure document naming it. */
static int fail_row(const struct outbox_item *it, const struct err *e, int json)
{
	if (json) {
		json_t *o = jsonio_failure(e->code, e->msg);
		json_object_set_new(o, "id", json_string(it->id));
		cli_print_json_line(o);
		json_decref(o);
		cli_json_printed();
	}
	return cli_fail(e);
}

/* The drafts an approve could not send, named again at the end of a batch. */
struct unsent {
	size_t n, sent;
	struct buf ids;
	struct answer_batch *batch; /* the batch's drafts: their requests found once */
};

static int send_one(struct cli_outbox *c, const struct outbox_item *it, const struct opts *o,
		    struct unsent *u)
{
	struct err e;
	int rc = o->mark_sent ? release_mark_sent(&c->store, it->id, &e)
			      : answer_release(u->batch, &c->store, &c->cfg, it->id,
					       (o->force ? ANSWER_TO_CLOSED | ANSWER_RESEND : 0) |
						       (outbox_item_pending(it) ? ANSWER_SEEN_PENDING : 0),
					       &e);

	if (rc != 0) {
		buf_printf(&u->ids, "%s%s (%s)", u->n++ ? ", " : "", it->id, err_code_name(e.code));
		return fail_row(it, &e, o->json);
	}
	u->sent++;
	if (o->json) {
		print_row(it, OUTBOX_SENT, NULL, !o->mark_sent);
		return EXIT_OK;
	}
	printf("%s ", o->mark_sent ? "marked sent" : "sent");
	print_safe(stdout, it->id);
	fputs("  ", stdout);
	print_safe(stdout, it->summary);
	putchar('\n');
	fflush(stdout);
	return EXIT_OK;
}

static int check_selection(const char *verb, const struct opts *o)
{
	if (o->sel.all && o->sel.n)
		return cli_usage_error(verb, "give ids or --all, not both");
	if (!o->sel.all && !o->sel.n)
		return cli_usage_error(verb, "which drafts? give ids or --all");
	return 0;
}

static int approve_selected(struct cli_outbox *c, const struct opts *o)
{
	struct outbox_list l;
	struct err e;
	int rc = EXIT_OK;

	if (outbox_select(&c->store, &o->sel, &l, stderr, &e) != 0)
		return cli_fail(&e);
	if (l.n == 0) {
		if (!o->json)
			puts("Nothing to send.");
	} else if (!ask_to_send(&l, o)) {
		err_set(&e, ERR_DECLINED, "nothing was sent");
		rc = cli_fail(&e);
	} else {
		struct answer_batch batch;
		struct unsent u = { 0, 0, BUF_INIT, &batch };
		answer_begin(&batch, &l);
		for (size_t i = 0; i < l.n; i++)
			rc = worst(rc, send_one(c, &l.items[i], o, &u));
		answer_end(&batch);
		if (u.n && l.n > 1) {
			fprintf(stderr, "mecha: %zu of %zu sent; not sent: ", u.sent, l.n);
			print_safe(stderr, buf_str(&u.ids));
			fputc('\n', stderr);
		}
		buf_free(&u.ids);
	}
	outbox_list_free(&l);
	return rc;
}

static int verb_approve(int argc, char **argv)
{
	struct opts o = { 0 };
	const struct cli_opt opts[] = {
		{ "kind", 0, CLI_TEXT, &o.sel.kind, 0, 0, 0 },
		{ "via", 0, CLI_TEXT, &o.sel.via, 0, 0, 0 },
		{ "all", 0, CLI_FLAG, &o.sel.all, 0, 0, 0 },
		{ "yes", 'y', CLI_FLAG, &o.yes, 0, 0, 0 },
		{ "force", 0, CLI_FLAG, &o.force, 0, 0, 0 },
		{ "mark-sent", 0, CLI_FLAG, &o.mark_sent, 0, 0, 0 },
		{ "json", 0, CLI_FLAG, &o.json, 0, 0, 0 },
	};
	struct cli_outbox c;
	struct cli_args a;
	struct err e;
	int rc;

	if ((rc = cli_parse("outbox approve", CLI_OPTS(opts), 0, -1, argc, argv, &a)) != 0)
		return rc;
	take_ids(&o, &a);
	if ((rc = check_selection("outbox approve", &o)) != 0)
		return rc;
	if (cli_outbox_open(&c, OUTBOX_WRITE, &e) != 0)
		return cli_fail(&e);
	rc = approve_selected(&c, &o);
	cli_outbox_close(&c);
	return rc;
}

/* ---- reject -------------------------------------------------------------------------- */

static const char reject_help[] =
	"usage: mecha outbox reject (ID... | --all) --reason R [--kind K] [--via S] [--force]\n"
	"                           [--json]\n\n"
	"Rejects drafts: nothing is sent, and the reason goes back with the request so\n"
	"the next draft can be better. Every selected draft must be pending, or none is\n"
	"rejected. IDs may be unique prefixes.\n\n"
	"  --reason R   why (required)\n"
	"  --all        every pending draft (narrowed by --kind and --via)\n"
	"  --force      also reject a draft whose send was interrupted\n"
	"  --json       a line of JSON per draft rejected, as approve --json prints it:\n"
	"               {id, status: \"rejected\", summary, reason, delivered: false}\n";

static int reject_selected(struct cli_outbox *c, const struct opts *o)
{
	struct outbox_list l;
	struct err e;
	char **ids;
	int rc = EXIT_OK;

	if (outbox_select(&c->store, &o->sel, &l, stderr, &e) != 0)
		return cli_fail(&e);
	ids = xcalloc(l.n ? l.n : 1, sizeof *ids);
	for (size_t i = 0; i < l.n; i++)
		ids[i] = (char *)l.items[i].id;
	if (l.n == 0) {
		if (!o->json)
			puts("Nothing to reject.");
	} else if (release_reject(&c->store, ids, l.n, o->reason, o->force ? RELEASE_FORCE : 0,
				  &e) != 0) {
		rc = cli_fail(&e);
	} else {
		for (size_t i = 0; i < l.n && o->json; i++)
			print_row(&l.items[i], OUTBOX_REJECTED, o->reason, 0);
		for (size_t i = 0; i < l.n && !o->json; i++) {
			fputs("rejected ", stdout);
			print_safe(stdout, ids[i]);
			putchar('\n');
		}
	}
	free(ids);
	outbox_list_free(&l);
	return rc;
}

static int verb_reject(int argc, char **argv)
{
	struct opts o = { 0 };
	const struct cli_opt opts[] = {
		{ "kind", 0, CLI_TEXT, &o.sel.kind, 0, 0, 0 },
		{ "via", 0, CLI_TEXT, &o.sel.via, 0, 0, 0 },
		{ "all", 0, CLI_FLAG, &o.sel.all, 0, 0, 0 },
		{ "force", 0, CLI_FLAG, &o.force, 0, 0, 0 },
		{ "reason", 0, CLI_TEXT, &o.reason, 0, 0, 0 },
		{ "json", 0, CLI_FLAG, &o.json, 0, 0, 0 },
	};
	struct cli_outbox c;
	struct cli_args a;
	struct err e;
	int rc;

	if ((rc = cli_parse("outbox reject", CLI_OPTS(opts), 0, -1, argc, argv, &a)) != 0)
		return rc;
	take_ids(&o, &a);
	if ((rc = check_selection("outbox reject", &o)) != 0)
		return rc;
	/* Before anything is read: a missing reason is the same mistake whatever is named. */
	if (release_check_reason(o.reason, &e) != 0)
		return cli_fail(&e);
	if (cli_outbox_open(&c, OUTBOX_WRITE, &e) != 0)
		return cli_fail(&e);
	rc = reject_selected(&c, &o);
	cli_outbox_close(&c);
	return rc;
}

/* ---- the group ----------------------------------------------------------------------- */

static const struct cli_verb verbs[] = {
	{ "list", verb_list, list_help, "every draft, pending first", CONFINE_READS },
	{ "show", verb_show, show_help, "one draft in full", CONFINE_READS },
	{ "stage", verb_stage, stage_help, "stage a draft (scripts, tests)", CONFINE_OUTBOX },
	{ "approve", verb_approve, approve_help,
	  "release drafts: deliver them, exactly once (also: send)",
	  CONFINE_OUTBOX | CONFINE_REQUESTS | CONFINE_DELIVER },
	{ "send", verb_approve, approve_help, NULL, CONFINE_OUTBOX | CONFINE_REQUESTS | CONFINE_DELIVER },
	{ "reject", verb_reject, reject_help, "reject drafts, with a reason",
	  CONFINE_OUTBOX | CONFINE_REQUESTS },
	{ "edit", cli_outbox_edit, outbox_edit_help, "change a pending draft in $VISUAL or $EDITOR",
	  CONFINE_OUTBOX | CONFINE_EDITOR },
	{ "review", cli_outbox_review, outbox_review_help,
	  "go through the pending drafts one at a time",
	  CONFINE_OUTBOX | CONFINE_REQUESTS | CONFINE_DELIVER | CONFINE_EDITOR },
};

const struct cli_group cli_outbox_group = {
	"outbox",
	"Drafts an agent staged, which only a person releases or rejects.\n"
	"See mecha(1) and docs/outbox.md.",
	verbs, sizeof verbs / sizeof verbs[0], "list",
};

int cli_outbox(int argc, char **argv)
{
	return cli_dispatch(&cli_outbox_group, argc, argv);
}
