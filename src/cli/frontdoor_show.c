/*
 * frontdoor_show (cli) — `mecha frontdoor show`: everything about one request,
 * including what the stranger wrote.
 *
 * This is the one place the prose is printed, and it is printed for a person,
 * through text.h, with every control character made visible — as is every
 * other string that came from a file: field names, states, notes, statuses.
 *
 * A stranger's text can be ten megabytes. On a terminal, a prose field longer
 * than a screenful is cut there, with its whole length said (--full prints
 * all of it), and a show taller than the screen goes through the pager
 * (pager.h). On a pipe every byte is written as it is: a script asked for it.
 */
#include "cli/cli.h"
#include "cli/frontdoor.h"
#include "cli/pager.h"
#include "cli/verb.h"

#include "base/buf.h"
#include "base/err.h"
#include "base/jsonio.h"
#include "base/text.h"
#include "frontdoor/brief.h"
#include "frontdoor/reconcile.h"
#include "requests/record.h"
#include "requests/store.h"
#include "types/catalog.h"
#include "types/manifest.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define paint frontdoor_paint
#define BOLD FRONTDOOR_BOLD
#define DIM FRONTDOOR_DIM
#define RED FRONTDOOR_RED
#define YELLOW FRONTDOOR_YELLOW
#define MAGENTA FRONTDOOR_MAGENTA
#define RESET FRONTDOOR_RESET

const char frontdoor_show_help[] =
	"usage: mecha frontdoor show SEQ [--full] [--json]\n\n"
	"Everything about one request, including what the stranger wrote. This is for you:\n"
	"a person reading a stranger's words in a terminal is the safe context. Control\n"
	"characters are shown visibly (ESC as \\e, others as \\xNN), never sent raw.\n"
	"Extracted values held back from the privileged run are listed with the reason.\n"
	"On a terminal, prose longer than a screenful is cut there with its length stated,\n"
	"and a show taller than the screen goes through $PAGER (less by default).\n\n"
	"  --full   all of the prose, however long\n"
	"  --json   {record: <as stored>, held_back: [{field, value, reason}], unreadable}\n";

/* How much of a prose field is shown: rows of cols columns; rows 0 means all of it. */
struct show_limit {
	size_t rows, cols;
};

#define PROSE_INDENT 6 /* "    | " */

static void show_line(FILE *f, const char *label, const char *value)
{
	fprintf(f, "  %-14s ", label);
	text_print(f, value ? value : "", 0);
	fputc('\n', f);
}

static void show_json_value(FILE *f, const char *label, const json_t *v)
{
	char *s = jsonio_compact(v);

	fputs("    ", f);
	frontdoor_print_padded(f, label, 20);
	fputc(' ', f);
	text_print(f, s, 0);
	fputc('\n', f);
	free(s);
}

static size_t count_lines(const char *s, size_t len)
{
	size_t n = 0;

	for (size_t i = 0; i < len; i++)
		n += s[i] == '\n';
	return n + (len && s[len - 1] != '\n');
}

/* What was left out, and how to see it. */
static void show_cut(FILE *f, const struct prose_field *p, size_t shown)
{
	size_t lines = count_lines(p->text, p->len);

	fprintf(f, "    %s… cut at a screenful: %zu byte%s in %zu line%s in all, %zu line%s shown "
		"(--full prints it all)%s\n", paint(YELLOW), p->len, p->len == 1 ? "" : "s", lines,
		lines == 1 ? "" : "s", shown, shown == 1 ? "" : "s", paint(RESET));
}

/* Prose, indented, with newlines kept and everything else made visible; cut at lim. */
static void show_prose_block(FILE *f, const struct prose_field *p, const struct show_limit *lim)
{
	size_t width = lim->cols > PROSE_INDENT + 10 ? lim->cols - PROSE_INDENT : 10;
	size_t used = 0, shown = 0;
	struct buf b = BUF_INIT;
	const char *line, *end;
	int cut = 0;

	fputs("  ", f);
	text_print(f, p->name, 0);
	fputs(":\n", f);
	text_safe(&b, p->text, p->len, TEXT_KEEP_NEWLINES);
	for (line = buf_str(&b); *line && !cut; line = *end ? end + 1 : end) {
		size_t n;
		end = strchr(line, '\n');
		if (!end)
			end = line + strlen(line);
		n = (size_t)(end - line);
		if (lim->rows && used >= lim->rows) {
			cut = 1;
			break;
		}
		if (lim->rows && n > (lim->rows - used) * width) {
			n = text_utf8_clip(line, n, (lim->rows - used) * width);
			cut = 1;
		}
		used += 1 + (n ? (n - 1) / width : 0);
		shown++;
		fprintf(f, "    %s|%s %.*s\n", paint(DIM), paint(RESET), (int)n, line);
	}
	if (p->len == 0)
		fprintf(f, "    %s|%s\n", paint(DIM), paint(RESET));
	if (cut)
		show_cut(f, p, shown);
	buf_free(&b);
}

/* "type  meeting v2 (home has v3: mecha types push meeting)": the version it was submitted
 * under, and home's when it differs. */
static void show_type_version(FILE *f, const struct record *r)
{
	json_t *tv = json_object_get(r->doc, "type_version");
	struct manifest *m = NULL;
	struct err e;
	char *line;

	if (!json_is_integer(tv))
		return;
	if (catalog_load(r->type_id, &m, NULL, &e) == 0 && m->version != json_integer_value(tv))
		line = xasprintf("%s v%lld (home has v%lld: mecha types push %s)", r->type_id,
				 (long long)json_integer_value(tv), m->version, r->type_id);
	else
		line = xasprintf("%s v%lld", r->type_id, (long long)json_integer_value(tv));
	manifest_free(m);
	show_line(f, "type", line);
	free(line);
}

static void show_header(FILE *f, const struct record *r)
{
	const char *reason = jsonio_str(r->doc, "invalid_reason");

	fprintf(f, "%srequest %lld%s  ", paint(BOLD), r->seq, paint(RESET));
	text_print(f, r->type_id, 0);
	fprintf(f, "  %s", frontdoor_state_color(record_state(r)));
	text_print(f, record_state(r), 0);
	fprintf(f, "%s\n", paint(RESET));
	show_line(f, "received", record_created_at(r));
	show_line(f, "drained", jsonio_str(r->doc, "drained_at"));
	show_type_version(f, r);
	show_line(f, "reply to", record_reply_to(r) ? record_reply_to(r) : "(none)");
	if (record_valid(r)) {
		show_line(f, "valid", "yes");
	} else {
		fprintf(f, "  %-14s %sINVALID%s%s", "valid", paint(RED), paint(RESET),
			reason ? ": " : "");
		text_print(f, reason ? reason : "", 0);
		fputc('\n', f);
	}
	if (record_note(r))
		show_line(f, "note", record_note(r));
	if (jsonio_str(r->doc, "extraction_error"))
		show_line(f, "extraction", jsonio_str(r->doc, "extraction_error"));
	if (jsonio_str(r->doc, "triage_session"))
		show_line(f, "triage session", jsonio_str(r->doc, "triage_session"));
}

static void show_fields(FILE *f, const struct record *r, const struct show_limit *lim)
{
	const char *name;
	json_t *v;
	struct prose_field *prose;
	size_t n = record_prose(r, &prose);

	fprintf(f, "\n%sfields%s (typed; validated by the form)\n", paint(BOLD), paint(RESET));
	json_object_foreach(record_values(r), name, v)
		if (!record_is_prose(r, name) && !record_is_attachment_field(r, name))
			show_json_value(f, name, v);
	fprintf(f, "\n%swhat they wrote%s (shown to you, never to a run)\n", paint(BOLD),
		paint(RESET));
	for (size_t i = 0; i < n; i++)
		show_prose_block(f, &prose[i], lim);
	if (n == 0)
		fputs("  (no prose)\n", f);
	free(prose);
}

static void show_held_back(FILE *f, const json_t *held)
{
	const json_t *h;
	size_t i;

	if (json_array_size(held) > 0)
		fprintf(f, "\n%sheld back from the run%s\n", paint(BOLD), paint(RESET));
	json_array_foreach(held, i, h) {
		fputs("  ", f);
		frontdoor_print_padded(f, jsonio_str(h, "field"), 16);
		fputc(' ', f);
		text_print(f, jsonio_str_or(h, "value", ""), 0);
		fprintf(f, "  %s(", paint(YELLOW));
		text_print(f, jsonio_str_or(h, "reason", ""), 0);
		fprintf(f, ")%s\n", paint(RESET));
	}
}

static void show_extraction(FILE *f, const struct record *r)
{
	json_t *x = record_extraction(r), *held = brief_held_back(r), *d;
	size_t i;

	if (!x) {
		json_decref(held);
		return;
	}
	fprintf(f, "\n%sextraction%s (the quarantined pass; only the checked values reach a run)\n",
		paint(BOLD), paint(RESET));
	show_line(f, "reading", jsonio_str(x, "reading"));
	show_line(f, "topic", jsonio_str(x, "topic"));
	show_line(f, "urgency", jsonio_str(x, "urgency_claimed"));
	json_array_foreach(json_object_get(x, "dates_mentioned"), i, d)
		show_line(f, i == 0 ? "dates" : "", json_string_value(d));
	show_line(f, "institution", jsonio_str(x, "institution"));
	if (json_is_true(json_object_get(x, "reads_like_instructions")))
		fprintf(f, "  %sreads like instructions%s (a label for you; it gates nothing)\n",
			paint(MAGENTA), paint(RESET));
	show_held_back(f, held);
	json_decref(held);
}

static void show_attachments(FILE *f, const struct record *r)
{
	json_t *a;
	size_t i;

	if (json_array_size(record_attachments(r)) > 0)
		fprintf(f, "\n%sattachments%s (measurements reach a run; names and bytes never do)\n",
			paint(BOLD), paint(RESET));
	json_array_foreach(record_attachments(r), i, a) {
		fputs("  ", f);
		text_print(f, jsonio_str_or(a, "field", ""), 0);
		fputs("  ", f);
		text_print(f, jsonio_str_or(a, "filename", ""), 0);
		fprintf(f, "  %lld bytes  ", (long long)json_integer_value(json_object_get(a, "size")));
		text_print(f, jsonio_str_or(a, "content_type", ""), 0);
		fputs("  ", f);
		text_print(f, jsonio_str_or(a, "sha256", ""), 0);
		fputc('\n', f);
	}
}

static void show_drafts(FILE *f, const struct record *r)
{
	struct reconcile_outbox drafts;
	json_t *id;
	size_t i;

	if (json_array_size(record_outbox(r)) == 0)
		return;
	fprintf(f, "\n%sdrafts%s\n", paint(BOLD), paint(RESET));
	reconcile_outbox_open(&drafts);
	if (!drafts.open) {
		fputs("mecha: drafts unknown: ", stderr);
		text_print(stderr, drafts.why, 0);
		fputc('\n', stderr);
	}
	json_array_foreach(record_outbox(r), i, id) {
		char status[16];
		fputs("  ", f);
		text_print(f, json_string_value(id), 0);
		fputs("  ", f);
		text_print(f, reconcile_draft_status(&drafts, json_string_value(id), status), 0);
		fputc('\n', f);
	}
	reconcile_outbox_close(&drafts);
}

static void show_json(const struct record *r)
{
	json_t *o = json_pack("{s:O,s:o,s:n}", "record", r->doc, "held_back", brief_held_back(r),
			      "unreadable");

	jsonio_print(stdout, o);
	json_decref(o);
}

/* --json of an unreadable record: the shape of a show, saying why. */
static void show_unreadable_json(const struct err *e)
{
	json_t *o = json_pack("{s:n,s:[],s:s}", "record", "held_back", "unreadable", e->msg);

	jsonio_print(stdout, o);
	json_decref(o);
}

/* The whole show, built in memory first: only then is it known whether it fits the screen. */
static void show_text(const struct record *r, int full)
{
	struct show_limit lim = { 0, 80 };
	char *text = NULL;
	size_t len = 0;
	int rows, cols;
	FILE *f;

	if (isatty(STDOUT_FILENO)) {
		pager_screen(STDOUT_FILENO, &rows, &cols);
		lim.rows = full ? 0 : (size_t)(rows > 12 ? rows - 2 : 10);
		lim.cols = (size_t)cols;
	}
	f = open_memstream(&text, &len);
	if (!f) {
		f = stdout; /* no memory for a buffer: straight out, unpaged */
	}
	show_header(f, r);
	show_fields(f, r, &lim);
	show_extraction(f, r);
	show_attachments(f, r);
	show_drafts(f, r);
	if (f != stdout) {
		/* NOLINTNEXTLINE(cert-err33-c): a stream we only read */
		fclose(f);
		pager_show(text, len);
		free(text);
	}
}

int frontdoor_show_verb(int argc, char **argv)
{
	int json = 0, full = 0;
	const struct cli_opt opts[] = {
		{ "full", 0, CLI_FLAG, &full, 0, 0, 0 },
		{ "json", 0, CLI_FLAG, &json, 0, 0, 0 },
	};
	struct cli_args a;
	struct record r;
	struct store s;
	struct err e;
	long long seq;
	int rc = cli_parse("frontdoor show", CLI_OPTS(opts), 1, 1, argc, argv, &a);

	if (rc != 0)
		return rc;
	if (frontdoor_parse_seq("frontdoor show", a.pos[0], &seq) != 0)
		return EXIT_USAGE;
	if (store_open_default(&s, STORE_READ, &e) != 0)
		return cli_fail(&e);
	rc = store_get(&s, seq, &r, &e);
	store_close(&s);
	if (rc != 0) {
		if (json && e.code == ERR_UNREADABLE) {
			show_unreadable_json(&e);
			cli_json_printed();
		}
		return cli_fail(&e);
	}
	if (json)
		show_json(&r);
	else
		show_text(&r, full);
	record_free(&r);
	return EXIT_OK;
}
