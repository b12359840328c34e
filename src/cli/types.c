/*
 * types (cli) — `mecha types …`: the request types strangers' forms are
 * built from. Each verb parses, calls src/types/ and prints; every rule is
 * there (manifest.c, validate.c, schema.c), so the box and the drain meet the
 * same rules a person meets here.
 */
#include "cli/cli.h"
#include "cli/verb.h"

#include "base/buf.h"
#include "base/err.h"
#include "base/jsonio.h"
#include "base/fs.h"
#include "base/text.h"
#include "config/home.h"
#include "drain/push.h"
#include "config/confine.h"
#include "types/catalog.h"
#include "types/manifest.h"
#include "types/schema.h"
#include "types/validate.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char check_help[] =
	"usage: mecha types check FILE... [--json]\n\n"
	"Reads each manifest and checks it against every rule of the format\n"
	"(docs/types.md): each mistake is printed on stderr as FILE:LINE: what is wrong, all of\n"
	"them, not only the first. A file that passes prints its id, version and fields.\n"
	"Exit 1 (invalid_manifest) when any file has a mistake.\n\n"
	"  --json   [{\"file\", \"ok\", \"id\", \"version\", \"issues\": [{\"line\", \"message\"}]}]\n";

static const char list_help[] =
	"usage: mecha types list [--json]\n\n"
	"The request types installed in $MECHA_HOME/factory/types/, one a line: id, version,\n"
	"kind and title; a manifest that does not check is listed with its first mistake.\n\n"
	"  --json   [{\"id\", \"ok\", \"version\", \"kind\", \"title\", \"fields\", \"servable\"}\n"
	"           or {\"id\", \"ok\": false, \"error\"}]\n";

static const char show_help[] =
	"usage: mecha types show ID [--json]\n\n"
	"One request type: its fields (kind, cap, whether required, when shown, whether\n"
	"prose), steps, acknowledgments, verification, confirmation and booking sections.\n\n"
	"  --json   the manifest as JSON, defaults filled in\n";

static const char schema_help[] =
	"usage: mecha types schema ID\n\n"
	"The JSON Schema (draft 2020-12) of a complete submission of type ID, as the\n"
	"reference emits it: every field and acknowledgment a property, nothing else\n"
	"allowed, the unconditionally required fields and every acknowledgment required.\n";

static const char validate_help[] =
	"usage: mecha types validate ID [--phase submit|complete] < SUBMISSION.json\n\n"
	"Validates a submission (a JSON object of field names and values) as the box and\n"
	"the drain do, and prints the coerced record, {\"type_id\", \"type_version\", \"values\",\n"
	"\"free_text\", \"reply_to\"}, or every error: {\"ok\": false, \"error\":\n"
	"\"invalid_submission\", \"message\", \"errors\": [{\"field\", \"message\"}]} sorted by field\n"
	"and message (exit 3).\n\n"
	"  --phase submit     the form POST: file fields are not due, and refused if sent\n"
	"  --phase complete   after upload (the default): the drain and home use this\n";

static const char push_help[] =
	"usage: mecha types push ID [--json]\n\n"
	"Publishes the installed request type ID ($MECHA_HOME/factory/types/ID.toml) to your\n"
	"box: checks it here first (a manifest with a mistake is never sent), then PUT\n"
	"/v1/types/ID with the release key. From then on the box serves its form.\n"
	"The box is the gate in $MECHA_HOME/factory/config.toml (gate = \"https://...\") or\n"
	"$FACTORY_GATE; the key is $MECHA_HOME/factory/release.key (mode 0600) or the file\n"
	"$FACTORY_RELEASE_KEY names. A plain http:// gate is refused unless it is this\n"
	"machine's loopback (insecure, exit 3).\n\n"
	"It prints the page strangers open (URL/f/HANDLE/ID, or /s/ for a booking type) and\n"
	"the API URL (which answers only to keys).\n\n"
	"  --json   the box's answer: {\"id\", \"title\", \"fields\", \"url\", \"version\", \"page\"}\n";

/* ---- check ---------------------------------------------------------------------- */

static void print_issue(const char *file, const struct manifest_issue *is)
{
	text_print(stderr, file, 0);
	fprintf(stderr, ":%d: ", is->line);
	text_print(stderr, is->message, 0);
	fputc('\n', stderr);
}

static json_t *issues_json(const struct manifest_issues *is)
{
	json_t *a = json_array();

	for (size_t i = 0; i < is->n; i++)
		json_array_append_new(a, json_pack("{s:i,s:s}", "line", is->v[i].line, "message",
						   is->v[i].message));
	return a;
}

/* One file: 0 when it checks, else the exit status of its error. */
static int check_one(const char *file, json_t *report)
{
	struct manifest_issues is = { NULL, 0 };
	struct manifest *m;
	struct err e;
	int rc = EXIT_OK;

	if (catalog_read_file(file, &m, &is, &e) == 0) {
		if (report)
			json_array_append_new(report, json_pack("{s:s,s:b,s:s,s:I,s:[]}", "file", file,
								"ok", 1, "id", m->id, "version",
								(json_int_t)m->version, "issues"));
		else
			printf("%s: ok: %s v%lld, %zu field%s\n", file, m->id, m->version, m->nfields,
			       m->nfields == 1 ? "" : "s");
		manifest_free(m);
	} else if (is.n == 0) {
		rc = report ? err_exit_code(&e) : cli_fail(&e); /* the file could not be read */
		if (report)
			json_array_append_new(report, json_pack("{s:s,s:b,s:[{s:i,s:s}]}", "file", file,
								"ok", 0, "issues", "line", 0, "message",
								e.msg));
	} else {
		rc = err_exit_code(&e);
		for (size_t i = 0; !report && i < is.n; i++)
			print_issue(file, &is.v[i]);
		if (report)
			json_array_append_new(report, json_pack("{s:s,s:b,s:o}", "file", file, "ok", 0,
								"issues", issues_json(&is)));
	}
	manifest_issues_free(&is);
	return rc;
}

static int check(int argc, char **argv)
{
	int json = 0, rc, worst = EXIT_OK;
	struct cli_opt opts[] = { { "json", 0, CLI_FLAG, &json, 0, 0, 0 } };
	struct cli_args a;
	json_t *report;

	if ((rc = cli_parse("types check", CLI_OPTS(opts), 1, -1, argc, argv, &a)) != 0)
		return rc;
	report = json ? json_array() : NULL;
	for (int i = 0; i < a.n; i++)
		if ((rc = check_one(a.pos[i], report)) != EXIT_OK && worst == EXIT_OK)
			worst = rc;
	if (report) {
		jsonio_print(stdout, report);
		json_decref(report);
	}
	return worst;
}

/* ---- list ------------------------------------------------------------------------ */

static void list_one(const char *id, json_t *rows)
{
	struct manifest *m;
	struct err e;

	if (catalog_load(id, &m, NULL, &e) != 0) {
		if (rows) {
			json_array_append_new(rows, json_pack("{s:s,s:b,s:s}", "id", id, "ok", 0,
							      "error", e.msg));
			return;
		}
		text_print(stdout, id, 0);
		fputs("  (does not load: ", stdout);
		text_print(stdout, e.msg, 0);
		fputs(")\n", stdout);
		return;
	}
	if (rows) {
		json_array_append_new(rows, json_pack("{s:s,s:b,s:I,s:s,s:s,s:i,s:b}", "id", m->id,
						      "ok", 1, "version", (json_int_t)m->version,
						      "kind", m->booking ? "booking" : "request",
						      "title", m->title, "fields", (int)m->nfields,
						      "servable", m->verification != NULL));
	} else {
		text_print(stdout, m->id, 0);
		printf("  v%lld  %s  ", m->version, m->booking ? "booking" : "request");
		text_print(stdout, m->title, 0);
		fputs(m->verification ? "\n" : "  (no [verification]: not servable as a form)\n", stdout);
	}
	manifest_free(m);
}

static int list(int argc, char **argv)
{
	int json = 0, rc;
	struct cli_opt opts[] = { { "json", 0, CLI_FLAG, &json, 0, 0, 0 } };
	struct cli_args a;
	json_t *rows;
	struct err e;
	char **ids;
	size_t n;

	if ((rc = cli_parse("types list", CLI_OPTS(opts), 0, 0, argc, argv, &a)) != 0)
		return rc;
	if (catalog_ids(&ids, &n, &e) != 0)
		return cli_fail_json(&e, json);
	rows = json ? json_array() : NULL;
	for (size_t i = 0; i < n; i++)
		list_one(ids[i], rows);
	if (rows) {
		jsonio_print(stdout, rows);
		json_decref(rows);
	} else if (n == 0) {
		puts("no request types installed (they live in $MECHA_HOME/factory/types/ID.toml)");
	}
	catalog_ids_free(ids, n);
	return EXIT_OK;
}

/* ---- show ------------------------------------------------------------------------ */

static void print_condition(const struct condition *c)
{
	char *v = c->value ? jsonio_compact(c->value) : NULL;

	fputs("shown when ", stdout);
	text_print(stdout, c->field, 0);
	printf(" %s", manifest_op_name(c->op));
	if (v) {
		fputc(' ', stdout);
		text_print(stdout, v, 0);
	}
	free(v);
}

static void print_field(const struct manifest_field *f)
{
	fputs("  ", stdout);
	text_print(stdout, f->name, 0);
	printf("  %s", manifest_kind_name(f->kind));
	if (manifest_is_free_text(f->kind))
		printf(" (at most %lld characters; prose)", f->max_length);
	for (size_t i = 0; i < f->noptions; i++) {
		fputs(i ? ", " : ": ", stdout);
		text_print(stdout, f->options[i].value, 0);
	}
	if (f->kind == MANIFEST_FILE)
		printf(" (at most %lld bytes)", f->max_bytes);
	fputs(f->required ? "  required" : "", stdout);
	if (f->show_when) {
		fputs("  ", stdout);
		print_condition(f->show_when);
	}
	fputc('\n', stdout);
}

static void print_steps(const struct manifest *m)
{
	for (size_t i = 0; i < m->nsteps; i++) {
		fputs(i ? "" : "steps:\n", stdout);
		fputs("  ", stdout);
		text_print(stdout, m->steps[i].id, 0);
		fputs(":", stdout);
		for (size_t j = 0; j < m->steps[i].nfields; j++) {
			fputc(' ', stdout);
			text_print(stdout, m->steps[i].fields[j], 0);
		}
		if (m->steps[i].show_when) {
			fputs("  ", stdout);
			print_condition(m->steps[i].show_when);
		}
		fputc('\n', stdout);
	}
	for (size_t i = 0; i < m->nacks; i++) {
		fputs(i ? "  " : "acknowledgments:\n  ", stdout);
		text_print(stdout, m->acks[i].id, 0);
		fputs(": ", stdout);
		text_print(stdout, m->acks[i].label, 0);
		fputc('\n', stdout);
	}
}

static void print_manifest(const struct manifest *m)
{
	text_print(stdout, m->id, 0);
	printf(" v%lld (%s): ", m->version, m->booking ? "booking" : "request");
	text_print(stdout, m->title, 0);
	fputs("\nverification: ", stdout);
	if (m->verification) {
		text_print(stdout, m->verification->field, 0);
		printf(" (links live %lld hours); replies go to it\n", m->verification->expires_hours);
	} else {
		fputs("none, so it cannot be served as a form\n", stdout);
	}
	fputs("fields:\n", stdout);
	for (size_t i = 0; i < m->nfields; i++)
		print_field(&m->fields[i]);
	print_steps(m);
	if (m->availability) {
		fputs("availability: ", stdout);
		text_print(stdout, m->availability->timezone, 0);
		printf(", %zu weekly window%s\n", m->availability->nwindows,
		       m->availability->nwindows == 1 ? "" : "s");
	}
}

static int show(int argc, char **argv)
{
	int json = 0, rc;
	struct cli_opt opts[] = { { "json", 0, CLI_FLAG, &json, 0, 0, 0 } };
	struct manifest *m;
	struct cli_args a;
	struct err e;

	if ((rc = cli_parse("types show", CLI_OPTS(opts), 1, 1, argc, argv, &a)) != 0)
		return rc;
	if (catalog_load(a.pos[0], &m, NULL, &e) != 0)
		return cli_fail_json(&e, json);
	if (json) {
		json_t *o = manifest_json(m);
		jsonio_print(stdout, o);
		json_decref(o);
	} else {
		print_manifest(m);
	}
	manifest_free(m);
	return EXIT_OK;
}

/* ---- schema, validate ------------------------------------------------------------- */

static int schema(int argc, char **argv)
{
	struct manifest *m;
	struct cli_args a;
	struct err e;
	json_t *s;
	int rc;

	if ((rc = cli_parse("types schema", NULL, 0, 1, 1, argc, argv, &a)) != 0)
		return rc;
	if (catalog_load(a.pos[0], &m, NULL, &e) != 0)
		return cli_fail(&e);
	s = schema_of(m);
	jsonio_print(stdout, s);
	json_decref(s);
	manifest_free(m);
	return EXIT_OK;
}

static json_t *read_submission(struct err *e)
{
	struct buf b = BUF_INIT;
	char chunk[8192];
	size_t n;
	json_t *raw;

	while ((n = fread(chunk, 1, sizeof chunk, stdin)) > 0)
		buf_add(&b, chunk, n);
	raw = jsonio_parse(buf_str(&b), b.len, "the submission on stdin", e);
	buf_free(&b);
	return raw;
}

static void print_record(const struct manifest *m, json_t *record)
{
	json_t *values = json_object_get(record, "values");
	const char *reply_to = validate_reply_to(m, values);

	json_object_set_new(record, "free_text", validate_free_text(m, values));
	if (reply_to)
		json_object_set_new(record, "reply_to", json_string(reply_to));
	jsonio_print(stdout, record);
}

static int validate(int argc, char **argv)
{
	const char *phase = NULL, *verb = "types validate";
	struct cli_opt opts[] = { { "phase", 0, CLI_TEXT, &phase, CLI_NONEMPTY, 0, 0 } };
	json_t *raw = NULL, *record, *errors;
	struct manifest *m = NULL;
	struct cli_args a;
	struct err e;
	int rc;

	if ((rc = cli_parse(verb, CLI_OPTS(opts), 1, 1, argc, argv, &a)) != 0)
		return rc;
	if (phase && strcmp(phase, "submit") != 0 && strcmp(phase, "complete") != 0)
		return cli_usage_error(verb, "--phase is submit or complete");
	if (catalog_load(a.pos[0], &m, NULL, &e) != 0 || !(raw = read_submission(&e))) {
		manifest_free(m);
		return cli_fail_json(&e, 1);
	}
	if (validate_submission(m, raw, phase && strcmp(phase, "submit") == 0 ? VALIDATE_SUBMIT
									       : VALIDATE_COMPLETE,
				&record, &errors, &e) == 0) {
		print_record(m, record);
		json_decref(record);
		rc = EXIT_OK;
	} else {
		json_t *o = json_pack("{s:b,s:s,s:s,s:o}", "ok", 0, "error", err_code_name(e.code),
				      "message", e.msg, "errors", errors);
		jsonio_print(stdout, o);
		json_decref(o);
		rc = err_exit_code(&e);
	}
	json_decref(raw);
	manifest_free(m);
	return rc;
}

/* ---- install ---------------------------------------------------------------------- */

static const char install_help[] =
	"usage: mecha types install FILE... [--push] [--json]\n\n"
	"Checks each manifest as `types check` does and, when every one checks, copies it into\n"
	"$MECHA_HOME/factory/types/ID.toml (the directory 0700, the file 0600, replaced\n"
	"whole), where the drain, `types push` and `slots` read it. Nothing is installed when\n"
	"any file has a mistake (each is printed, FILE:LINE, exit 1 invalid_manifest), or\n"
	"when two files have one id.\n\n"
	"  --push   then publish each to your box, as `types push ID` does\n"
	"  --json   [{\"file\", \"id\", \"version\", \"path\", \"replaced\": VERSION|null,\n"
	"           \"pushed\": the box's answer (with --push)}]\n";

/* The version of the type installed as id now, or 0 (none, or it does not check). */
static long long installed_version(const char *id)
{
	struct manifest *m;
	struct err e;
	long long v = 0;

	if (catalog_load(id, &m, NULL, &e) == 0) {
		v = m->version;
		manifest_free(m);
	}
	return v;
}

static int install_copy(const char *file, const struct manifest *m, const char *dir,
			json_t *row, struct err *e)
{
	char *text = NULL, *name = xasprintf("%s.toml", m->id), *path = fs_join(dir, name);
	size_t len;
	long long was = installed_version(m->id);
	int rc = fs_read(file, &text, &len, e) == 0 ? fs_replace(path, text, len, e) : -1;

	if (rc == 0) {
		json_object_set_new(row, "path", json_string(path));
		json_object_set_new(row, "replaced", was ? json_integer(was) : json_null());
	}
	free(text);
	free(name);
	free(path);
	return rc;
}

static int install(int argc, char **argv)
{
	int json = 0, push_too = 0, rc, worst = EXIT_OK;
	struct cli_opt opts[] = { { "json", 0, CLI_FLAG, &json, 0, 0, 0 },
				  { "push", 0, CLI_FLAG, &push_too, 0, 0, 0 } };
	struct cli_args a;
	struct manifest **ms;
	json_t *rows, *row;
	char *dir = NULL;
	struct err e;
	size_t i;

	if ((rc = cli_parse("types install", CLI_OPTS(opts), 1, -1, argc, argv, &a)) != 0)
		return rc;
	rows = json_array();
	// NOLINTNEXTLINE(bugprone-sizeof-expression): an array of manifest pointers, sized so
	ms = xcalloc((size_t)a.n, sizeof *ms);
	for (int k = 0; k < a.n; k++) { /* every file checked before any is copied */
		struct manifest_issues is = { NULL, 0 };
		if (catalog_read_file(a.pos[k], &ms[k], &is, &e) != 0) {
			for (size_t j = 0; j < is.n; j++)
				print_issue(a.pos[k], &is.v[j]);
			worst = err_exit_code(&e);
			manifest_issues_free(&is);
			break;
		}
		for (int j = 0; j < k; j++)
			if (strcmp(ms[j]->id, ms[k]->id) == 0) {
				err_set(&e, ERR_USAGE, "%s and %s are both the type %s: install one",
					a.pos[j], a.pos[k], ms[k]->id);
				worst = EXIT_USAGE;
			}
		if (worst != EXIT_OK)
			break;
	}
	if (worst == EXIT_OK && ((dir = home_default(HOME_TYPES, &e)) == NULL ||
				 fs_private_dir(dir, &e) != 0))
		worst = err_exit_code(&e);
	for (int k = 0; worst == EXIT_OK && k < a.n; k++) {
		row = json_pack("{s:s,s:s,s:I}", "file", a.pos[k], "id", ms[k]->id, "version",
				(json_int_t)ms[k]->version);
		json_array_append_new(rows, row);
		if (install_copy(a.pos[k], ms[k], dir, row, &e) != 0)
			worst = err_exit_code(&e);
	}
	json_array_foreach(rows, i, row) {
		json_t *answer;
		if (worst != EXIT_OK || !push_too)
			break;
		if (push_type(jsonio_str(row, "id"), &answer, &e) != 0)
			worst = err_exit_code(&e);
		else
			json_object_set_new(row, "pushed", answer);
	}
	for (int k = 0; k < a.n; k++)
		manifest_free(ms[k]);
	free(ms);
	free(dir);
	if (worst != EXIT_OK) {
		json_decref(rows);
		return cli_fail_json(&e, json);
	}
	if (json) {
		jsonio_print(stdout, rows);
	} else {
		json_array_foreach(rows, i, row) {
			const json_t *was = json_object_get(row, "replaced");
			const char *page = json_string_value(json_object_get(
				json_object_get(row, "pushed"), "page"));
			fputs("installed ", stdout);
			text_print(stdout, jsonio_str(row, "id"), 0);
			printf(" v%lld", (long long)json_integer_value(json_object_get(row, "version")));
			if (json_is_integer(was))
				printf(" (was v%lld)", (long long)json_integer_value(was));
			fputs(": ", stdout);
			text_print(stdout, jsonio_str(row, "path"), 0);
			fputc('\n', stdout);
			if (json_object_get(row, "pushed")) {
				fputs("  published: ", stdout);
				text_print(stdout, page ? page : jsonio_str_or(json_object_get(row,
					"pushed"), "url", "(the box named no URL)"), 0);
				fputc('\n', stdout);
			}
		}
		if (!push_too)
			fputs("(the box serves what it was last given: mecha types push ID, or install "
			      "with --push)\n", stdout);
	}
	json_decref(rows);
	return EXIT_OK;
}

/* ---- push ------------------------------------------------------------------------ */

static int push(int argc, char **argv)
{
	int json = 0, rc;
	struct cli_opt opts[] = { { "json", 0, CLI_FLAG, &json, 0, 0, 0 } };
	struct cli_args a;
	json_t *answer;
	struct err e;

	if ((rc = cli_parse("types push", CLI_OPTS(opts), 1, 1, argc, argv, &a)) != 0)
		return rc;
	if (push_type(a.pos[0], &answer, &e) != 0)
		return cli_fail_json(&e, json);
	if (json) {
		jsonio_print(stdout, answer);
	} else {
		const char *page = json_string_value(json_object_get(answer, "page"));
		fputs("published ", stdout);
		text_print(stdout, a.pos[0], 0);
		if (page) { /* what strangers open: the URL to hand out */
			fputs(": ", stdout);
			text_print(stdout, page, 0);
			fputs("\n  api   ", stdout);
		} else {
			fputs(json_object_get(answer, "page")
				      ? " (no [verification]: the box serves no page for it)\n  api   "
				      : ": ", stdout);
		}
		text_print(stdout, jsonio_str_or(answer, "url", "(the box named no URL)"), 0);
		fputs(" (for keys, not browsers)\n", stdout);
	}
	json_decref(answer);
	return EXIT_OK;
}

static const struct cli_verb verbs[] = {
	{ "check", check, check_help, "check manifest files, every mistake with its line",
	  CONFINE_ARGS },
	{ "list", list, list_help, "the request types installed at home", CONFINE_READS },
	{ "show", show, show_help, "one request type: fields, steps, verification", CONFINE_READS },
	{ "schema", schema, schema_help, "a request type's JSON Schema (draft 2020-12)",
	  CONFINE_READS },
	{ "validate", validate, validate_help, "validate a submission (JSON on stdin)",
	  CONFINE_READS },
	{ "push", push, push_help, "publish a request type to your box (its form goes live)",
	  CONFINE_GATE },
	{ "install", install, install_help, "check manifests and install them at home (--push: publish)",
	  CONFINE_HOME | CONFINE_ARGS | CONFINE_GATE },
};

const struct cli_group cli_types_group = {
	"types",
	"Request types: the TOML manifests in $MECHA_HOME/factory/types/ that strangers'\n"
	"forms are built from, their JSON Schemas, and the validation the box and the drain\n"
	"run. Which fields are prose is the field kind's business, never a guess.",
	verbs,
	sizeof verbs / sizeof verbs[0],
	NULL,
};

int cli_types(int argc, char **argv)
{
	return cli_dispatch(&cli_types_group, argc, argv);
}
