/*
 * main — mecha-box, the program that faces the internet.
 *
 * It is built from src/base, src/config, src/types and src/box only (the
 * Makefile's BOX_LIB_DIRS), so the process strangers talk to does not
 * contain the code that reaches the owner's calendar, mail or models. `mecha
 * box VERB` runs this program; each verb parses, calls one function of
 * src/box and prints.
 */
#include "base/buf.h"
#include "base/err.h"
#include "base/fs.h"
#include "base/jsonio.h"
#include "base/opts.h"
#include "base/suggest.h"
#include "base/text.h"
#include "box/admin.h"
#include "box/blobs.h"
#include "box/boxconf.h"
#include "box/boxd.h"
#include "box/help.h"
#include "box/jail.h"
#include "box/ledger.h"

#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifndef MECHA_VERSION
#define MECHA_VERSION "0.1.0"
#endif

/* What a verb's command line said (each verb reads only the options its table names). */
struct box_cmd {
	const char *config, *data, *listen, *public_url, *db, *owner, *scope, *label;
	int json, verbose;
	char **pos;
	int npos;
};

/* --json on the command line: every failure also prints {"ok":false,"error","message"} on stdout. */
static int json_wanted;

static void fail_document(int code, const char *msg)
{
	json_t *o;

	if (!json_wanted)
		return;
	o = jsonio_failure(code, msg); /* the shape mecha's verbs print (base/jsonio.h) */
	if (o)
		jsonio_print(stdout, o);
	json_decref(o);
	json_wanted = 0; /* once */
}

static int fail(const struct err *e)
{
	fail_document(e->code, e->msg);
	fputs("mecha box: ", stderr);
	text_print(stderr, e->msg, 0);
	fputc('\n', stderr);
	return err_exit_code(e);
}

/*
 * "mecha box: <what> (see 'mecha box VERB --help')" on one line, as mecha
 * says a usage mistake; what may quote an argument, rendered safely here.
 */
static int usage(const char *verb, const char *what)
{
	char msg[1200];

	snprintf(msg, sizeof msg, "%s (see 'mecha box%s%s --help')", what, verb ? " " : "",
		 verb ? verb : "");
	fail_document(ERR_USAGE, msg);
	fputs("mecha box: ", stderr);
	text_print(stderr, msg, 0);
	fputc('\n', stderr);
	return EXIT_USAGE;
}

/* The options the verbs take, each a row of the one parser's table (base/opts.h). */
enum {
	O_CONFIG, O_DATA, O_LISTEN, O_PUBLIC_URL, O_DB, O_OWNER, O_SCOPE, O_LABEL, O_JSON, O_VERBOSE
};

static void rows(struct box_cmd *o, struct opts_spec *t)
{
	/* a value is never an option: `--data --json` is a missing DIR, not a directory "--json" */
	const unsigned v = OPTS_NOT_OPTION;
	const struct opts_spec all[] = {
		[O_CONFIG] = { "config", 0, OPTS_STR, &o->config, v, 0, 0 },
		[O_DATA] = { "data", 0, OPTS_STR, &o->data, v, 0, 0 },
		[O_LISTEN] = { "listen", 0, OPTS_STR, &o->listen, v, 0, 0 },
		[O_PUBLIC_URL] = { "public-url", 0, OPTS_STR, &o->public_url, v, 0, 0 },
		[O_DB] = { "db", 0, OPTS_STR, &o->db, v, 0, 0 },
		[O_OWNER] = { "owner", 0, OPTS_STR, &o->owner, v, 0, 0 },
		[O_SCOPE] = { "scope", 0, OPTS_STR, &o->scope, v, 0, 0 },
		[O_LABEL] = { "label", 0, OPTS_STR, &o->label, v, 0, 0 },
		[O_JSON] = { "json", 0, OPTS_FLAG, &o->json, 0, 0, 0 },
		[O_VERBOSE] = { "verbose", 'v', OPTS_FLAG, &o->verbose, 0, 0, 0 },
	};

	memcpy(t, all, sizeof all);
}

#define BOX_NOPTS (O_VERBOSE + 1)

/*
 * Parses argv against the options named in want (O_* indices, ending with
 * -1) and the positional count min_pos..max_pos. 0, or EXIT_USAGE after
 * saying the mistake as mecha does.
 */
static int parse(const char *verb, const int *want, int min_pos, int max_pos, int argc,
		 char **argv, struct box_cmd *o)
{
	struct opts_spec all[BOX_NOPTS], t[BOX_NOPTS];
	struct opts_args a;
	struct err e;
	size_t n = 0;

	memset(o, 0, sizeof *o);
	rows(o, all);
	for (; *want >= 0; want++)
		t[n++] = all[*want];
	if (opts_parse(t, n, min_pos, max_pos, argc, argv, &a, &e) != 0)
		return usage(verb, e.msg);
	o->pos = a.pos;
	o->npos = a.n;
	return 0;
}

/* The first argument is the verb's own verb (owner add, key new): "did you mean" as for a verb. */
static int subverb(const char *verb, const char *want, const struct box_cmd *o)
{
	struct buf b = BUF_INIT;
	char msg[512];

	if (strcmp(o->pos[0], want) == 0)
		return 0;
	text_safe(&b, o->pos[0], strlen(o->pos[0]), 0);
	if (suggest_nearest(o->pos[0], &want, 1))
		snprintf(msg, sizeof msg, "%s has no verb '%s'; did you mean '%s'?", verb, buf_str(&b),
			 want);
	else
		snprintf(msg, sizeof msg, "%s has no verb '%s' (it takes '%s')", verb, buf_str(&b),
			 want);
	buf_free(&b);
	return usage(verb, msg);
}

/* The configuration a verb runs with: the file (if any), then the options over it. */
static int config(const struct box_cmd *o, struct boxconf *c, struct err *e)
{
	const char *const *over[] = { &o->data, &o->listen, &o->public_url, &o->db };
	char **field[] = { &c->data, &c->listen, &c->public_url, &c->db };

	boxconf_defaults(c);
	if (!o->config && !o->data)
		return err_set(e, ERR_USAGE, "give --config FILE or --data DIR");
	if (o->config && boxconf_load(o->config, c, e) != 0)
		return -1;
	for (size_t i = 0; i < sizeof over / sizeof over[0]; i++)
		if (*over[i]) {
			free(*field[i]);
			*field[i] = strdup(*over[i]);
		}
	c->verbose = o->verbose;
	if (boxconf_finish(c, e) != 0 || fs_private_dir(c->data, e) != 0)
		return -1;
	return 0;
}

static int do_serve(const struct box_cmd *o, struct boxconf *c, struct ledger *l, struct err *e)
{
	long long moved;

	/* files an older box kept in data go into the ledger first: then any box serves them */
	if (blobs_import(l, c->data, &moved, e) != 0)
		return -1;
	if (moved)
		fprintf(stderr, "{\"event\":\"attachments_moved\",\"files\":%lld}\n", moved);
	return boxd_serve(c, l, e);
}

/*
 * Runs fn with the ledger of the verb's configuration, confined to the data
 * directory (box/jail.h) once the ledger is open; serve confines itself
 * later, once it has read its TLS pair and opened its log.
 */
static int with_ledger(const struct box_cmd *o, int (*fn)(const struct box_cmd *, struct boxconf *,
						       struct ledger *, struct err *))
{
	struct boxconf c;
	struct ledger *l = NULL;
	struct err e;
	int rc = -1;

	err_clear(&e);
	if (config(o, &c, &e) == 0 && (l = ledger_open(c.db, &e))) {
		if (fn != do_serve)
			jail_apply(&c, 0);
		rc = fn(o, &c, l, &e);
	}
	ledger_close(l);
	boxconf_free(&c);
	return rc == 0 ? EXIT_OK : fail(&e);
}

static int do_owner(const struct box_cmd *o, struct boxconf *c, struct ledger *l, struct err *e)
{
	static const char *const scopes[] = { "drain", "publish", "release", "slots", NULL };
	json_t *keys;

	if (admin_owner_add(l, o->pos[1], &keys, e) != 0)
		return -1;
	if (o->json) {
		jsonio_print(stdout, keys);
	} else {
		printf("owner %s: first keys (shown once; the box keeps only their hashes)\n",
		       o->pos[1]);
		for (int i = 0; scopes[i]; i++)
			printf("  %-8s %s\n", scopes[i], jsonio_str(keys, scopes[i]));
	}
	json_decref(keys);
	return 0;
}

static int do_key(const struct box_cmd *o, struct boxconf *c, struct ledger *l, struct err *e)
{
	char *token;

	if (admin_key_new(l, o->owner, o->scope, o->label, &token, e) != 0)
		return -1;
	printf("%s\n", token);
	free(token);
	return 0;
}

static int do_pair(const struct box_cmd *o, struct boxconf *c, struct ledger *l, struct err *e)
{
	char *code, expires[32];
	json_t *r;

	if (admin_pair_new(l, o->owner, o->label, &code, expires, e) != 0)
		return -1;
	if (o->json) {
		r = json_pack("{s:s,s:s,s:s,s:s,s:i}", "handle", o->owner, "code", code, "gate",
			      c->public_url, "expires_at", expires, "minutes", ADMIN_PAIR_MINUTES);
		json_object_set_new(r, "command", json_sprintf("mecha pair %s %s --handle %s",
							       c->public_url, code, o->owner));
		jsonio_print(stdout, r);
		json_decref(r);
	} else {
		printf("pairing code for %s: %s (works once, until %s: %d minutes)\n"
		       "at home, run:\n  mecha pair %s %s --handle %s\n",
		       o->owner, code, expires, ADMIN_PAIR_MINUTES, c->public_url, code, o->owner);
	}
	explicit_bzero(code, strlen(code));
	free(code);
	return 0;
}

static int do_sweep(const struct box_cmd *o, struct boxconf *c, struct ledger *l, struct err *e)
{
	json_t *r;

	if (admin_sweep(l, c->data, &r, e) != 0)
		return -1;
	if (o->json)
		jsonio_print(stdout, r);
	else
		printf("swept: %lld expired submissions, %lld expired uploads, %lld attachments, "
		       "%lld orphan files, %lld budget rows; kept %lld queued past retention "
		       "(never drained: the owner decides)\n",
		       (long long)json_integer_value(json_object_get(r, "expired_submissions")),
		       (long long)json_integer_value(json_object_get(r, "expired_uploads")),
		       (long long)json_integer_value(json_object_get(r, "attachments")),
		       (long long)json_integer_value(json_object_get(r, "orphan_blobs")),
		       (long long)json_integer_value(json_object_get(r, "budget_rows")),
		       (long long)json_integer_value(json_object_get(r, "overdue_queued")));
	json_decref(r);
	return 0;
}

/* ---- the verbs: each parses its options, then runs ---------------------------- */

static int verb_serve(int argc, char **argv)
{
	static const int want[] = { O_CONFIG, O_DATA, O_LISTEN, O_PUBLIC_URL, O_DB, O_VERBOSE, -1 };
	struct box_cmd o;

	if (parse("serve", want, 0, 0, argc, argv, &o) != 0)
		return EXIT_USAGE;
	return with_ledger(&o, do_serve);
}

static int verb_owner(int argc, char **argv)
{
	static const int want[] = { O_CONFIG, O_DATA, O_DB, O_JSON, O_VERBOSE, -1 };
	struct box_cmd o;

	if (parse("owner", want, 2, 2, argc, argv, &o) != 0 || subverb("owner", "add", &o) != 0)
		return EXIT_USAGE;
	return with_ledger(&o, do_owner);
}

static int verb_key(int argc, char **argv)
{
	static const int want[] = { O_CONFIG, O_DATA, O_DB, O_OWNER, O_SCOPE, O_LABEL, O_VERBOSE, -1 };
	struct box_cmd o;

	if (parse("key", want, 1, 1, argc, argv, &o) != 0 || subverb("key", "new", &o) != 0)
		return EXIT_USAGE;
	if (!o.owner || !o.scope)
		return usage("key", "--owner and --scope are required");
	return with_ledger(&o, do_key);
}

static int verb_pair(int argc, char **argv)
{
	static const int want[] = { O_CONFIG, O_DATA, O_DB, O_PUBLIC_URL, O_OWNER,
				    O_LABEL, O_JSON, O_VERBOSE, -1 };
	struct box_cmd o;

	if (parse("pair", want, 0, 0, argc, argv, &o) != 0)
		return EXIT_USAGE;
	if (!o.owner)
		return usage("pair", "--owner HANDLE is required");
	return with_ledger(&o, do_pair);
}

static int verb_sweep(int argc, char **argv)
{
	static const int want[] = { O_CONFIG, O_DATA, O_DB, O_JSON, O_VERBOSE, -1 };
	struct box_cmd o;

	if (parse("sweep", want, 0, 0, argc, argv, &o) != 0)
		return EXIT_USAGE;
	return with_ledger(&o, do_sweep);
}

/* box/help.h's list, each row with its help text and the function above that runs it. */
struct box_verb {
	const char *name, *summary, *help;
	int (*run)(int argc, char **argv);
};

#define BOX_VERB_ROW(name, summary) { #name, summary, box_help_##name, verb_##name },
static const struct box_verb verbs[] = { BOX_VERBS(BOX_VERB_ROW) };
#undef BOX_VERB_ROW
#define NVERBS (sizeof verbs / sizeof verbs[0])

/* The verbs' list, laid out as `mecha box --help` lays out a group (src/cli/verb.c). */
static void help(FILE *f)
{
	fprintf(f, "usage: mecha box VERB [options]\n\n%s\n\n", box_help_intro);
	for (size_t i = 0; i < NVERBS; i++)
		fprintf(f, "  %-11s %s\n", verbs[i].name, verbs[i].summary);
	fprintf(f, "\nmecha box VERB --help describes one verb.\n");
}

/* argv[0] is the verb: its help when asked, else the verb, else the nearest one's name. */
static int run(int argc, char **argv)
{
	const char *near;
	char msg[512];
	struct buf b = BUF_INIT;

	for (size_t i = 0; i < NVERBS; i++) {
		if (strcmp(verbs[i].name, argv[0]) != 0)
			continue;
		if (opts_wants_help(argc, argv))
			return fputs(verbs[i].help, stdout), EXIT_OK;
		return verbs[i].run(argc, argv);
	}
	near = suggest_nearest_in(argv[0], verbs, NVERBS, sizeof *verbs,
				  offsetof(struct box_verb, name));
	text_safe(&b, argv[0], strlen(argv[0]), 0);
	if (near)
		snprintf(msg, sizeof msg, "box has no verb '%s'; did you mean '%s'?", buf_str(&b),
			 near);
	else
		snprintf(msg, sizeof msg, "box has no verb '%s'", buf_str(&b));
	buf_free(&b);
	return usage(NULL, msg);
}

static int is_help(const char *s)
{
	return strcmp(s, "--help") == 0 || strcmp(s, "-h") == 0 || strcmp(s, "help") == 0;
}

int main(int argc, char **argv)
{
	if (argc >= 2 && strcmp(argv[1], "--version") == 0) {
		printf("mecha-box %s\n", MECHA_VERSION);
		return EXIT_OK;
	}
	if (argc >= 2 && is_help(argv[1])) {
		help(stdout);
		return EXIT_OK;
	}
	if (argc < 2 || argv[1][0] == '-') {
		help(stderr);
		return EXIT_USAGE;
	}
	json_wanted = opts_present(argc - 1, argv + 1, "--json");
	return run(argc - 1, argv + 1);
}
