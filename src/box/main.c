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
#include "base/text.h"
#include "box/admin.h"
#include "box/blobs.h"
#include "box/boxconf.h"
#include "box/boxd.h"
#include "box/help.h"
#include "box/jail.h"
#include "box/ledger.h"

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifndef MECHA_VERSION
#define MECHA_VERSION "0.1.0"
#endif

struct opts {
	const char *config, *data, *listen, *public_url, *db, *owner, *scope, *label;
	int json, verbose;
	char **pos;
	int npos;
};

/* --json on the command line: every failure also prints {"ok":false,"error","message"} on stdout. */
static int json_wanted;

static void fail_document(int code, const char *msg)
{
	struct buf safe = BUF_INIT;
	json_t *o;

	if (!json_wanted)
		return;
	if (!text_utf8_valid(msg, strlen(msg))) { /* it may quote bytes that are not text */
		text_safe(&safe, msg, strlen(msg), 0);
		msg = buf_str(&safe);
	}
	o = json_pack("{s:b,s:s,s:s}", "ok", 0, "error", err_code_name(code), "message", msg);
	if (o)
		jsonio_print(stdout, o);
	json_decref(o);
	buf_free(&safe);
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

static int usage(const char *verb, const char *what)
{
	char msg[256];

	snprintf(msg, sizeof msg, "%s (see 'mecha box %s --help')", what, verb);
	fail_document(ERR_USAGE, msg);
	fprintf(stderr, "mecha box: %s\n", msg);
	return EXIT_USAGE;
}

/* Options of every verb; a verb refuses those it does not take (allowed: letters). */
static int parse(const char *verb, const char *allowed, const char *help, int argc, char **argv,
		 struct opts *o)
{
	static const struct option longs[] = {
		{ "config", required_argument, 0, 'c' }, { "data", required_argument, 0, 'd' },
		{ "listen", required_argument, 0, 'l' }, { "public-url", required_argument, 0, 'u' },
		{ "db", required_argument, 0, 'b' },     { "owner", required_argument, 0, 'o' },
		{ "scope", required_argument, 0, 's' },  { "label", required_argument, 0, 'L' },
		{ "json", no_argument, 0, 'j' },         { "help", no_argument, 0, 'h' },
		{ "verbose", no_argument, 0, 'v' },      { 0, 0, 0, 0 },
	};
	const char **slot[128] = { ['c'] = &o->config, ['d'] = &o->data, ['l'] = &o->listen,
				   ['u'] = &o->public_url, ['b'] = &o->db, ['o'] = &o->owner,
				   ['s'] = &o->scope, ['L'] = &o->label };
	int c;

	memset(o, 0, sizeof *o);
	opterr = 0;
	optind = 1;
	while ((c = getopt_long(argc, argv, "v", longs, NULL)) != -1) {
		if (c == 'h')
			return fputs(help, stdout), -2;
		if (c == '?' || c == ':' || !strchr(allowed, c))
			return usage(verb, "unknown option or missing value"), -1;
		if (c == 'j' || c == 'v')
			*(c == 'j' ? &o->json : &o->verbose) = 1;
		else if (strncmp(optarg, "--", 2) == 0) /* as cli_parse: an option is no value */
			return usage(verb, "an option needs a value"), -1;
		else
			*slot[c] = optarg;
	}
	o->pos = argv + optind;
	o->npos = argc - optind;
	return 0;
}

/* The configuration a verb runs with: the file (if any), then the options over it. */
static int config(const struct opts *o, struct boxconf *c, struct err *e)
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

static int do_serve(const struct opts *o, struct boxconf *c, struct ledger *l, struct err *e)
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
static int with_ledger(const struct opts *o, int (*fn)(const struct opts *, struct boxconf *,
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

static int do_owner(const struct opts *o, struct boxconf *c, struct ledger *l, struct err *e)
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

static int do_key(const struct opts *o, struct boxconf *c, struct ledger *l, struct err *e)
{
	char *token;

	if (admin_key_new(l, o->owner, o->scope, o->label, &token, e) != 0)
		return -1;
	printf("%s\n", token);
	free(token);
	return 0;
}

static int do_pair(const struct opts *o, struct boxconf *c, struct ledger *l, struct err *e)
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

static int do_sweep(const struct opts *o, struct boxconf *c, struct ledger *l, struct err *e)
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

static int verb(int argc, char **argv)
{
	const char *v = argv[0];
	struct opts o;
	int rc;

	if (strcmp(v, "serve") == 0) {
		if ((rc = parse(v, "cdlubv", box_help_serve, argc, argv, &o)) != 0)
			return rc == -2 ? EXIT_OK : EXIT_USAGE;
		return o.npos ? usage(v, "serve takes no arguments") : with_ledger(&o, do_serve);
	}
	if (strcmp(v, "owner") == 0) {
		if ((rc = parse(v, "cdbjv", box_help_owner, argc, argv, &o)) != 0)
			return rc == -2 ? EXIT_OK : EXIT_USAGE;
		if (o.npos != 2 || strcmp(o.pos[0], "add") != 0)
			return usage(v, "owner add HANDLE");
		return with_ledger(&o, do_owner);
	}
	if (strcmp(v, "key") == 0) {
		if ((rc = parse(v, "cdbosLv", box_help_key, argc, argv, &o)) != 0)
			return rc == -2 ? EXIT_OK : EXIT_USAGE;
		if (o.npos != 1 || strcmp(o.pos[0], "new") != 0 || !o.owner || !o.scope)
			return usage(v, "key new --owner HANDLE --scope SCOPE");
		return with_ledger(&o, do_key);
	}
	if (strcmp(v, "pair") == 0) {
		if ((rc = parse(v, "cdbuoLjv", box_help_pair, argc, argv, &o)) != 0)
			return rc == -2 ? EXIT_OK : EXIT_USAGE;
		if (o.npos || !o.owner)
			return usage(v, "pair --owner HANDLE [--label TEXT]");
		return with_ledger(&o, do_pair);
	}
	if (strcmp(v, "sweep") == 0) {
		if ((rc = parse(v, "cdbjv", box_help_sweep, argc, argv, &o)) != 0)
			return rc == -2 ? EXIT_OK : EXIT_USAGE;
		return o.npos ? usage(v, "sweep takes no arguments") : with_ledger(&o, do_sweep);
	}
	fprintf(stderr, "mecha box: unknown verb '");
	text_print(stderr, v, 0);
	fprintf(stderr, "' (see 'mecha box --help')\n");
	return EXIT_USAGE;
}

int main(int argc, char **argv)
{
	if (argc >= 2 && strcmp(argv[1], "--version") == 0) {
		printf("mecha-box %s\n", MECHA_VERSION);
		return EXIT_OK;
	}
	if (argc < 2 || strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "help") == 0) {
		printf("usage: mecha box VERB [OPTIONS]\n\n%s\nverbs: serve, owner add, key new, "
		       "pair, sweep (each answers --help)\n", box_help_intro);
		return argc < 2 ? EXIT_USAGE : EXIT_OK;
	}
	for (int i = 2; i < argc && strcmp(argv[i], "--") != 0; i++)
		if (strcmp(argv[i], "--json") == 0)
			json_wanted = 1;
	return verb(argc - 1, argv + 1);
}
