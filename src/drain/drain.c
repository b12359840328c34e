/*
 * drain — one pass over the box's queue: read, judge, fetch, write, and only
 * then acknowledge; and the loop a service runs.
 */
#include "drain/drain.h"

#include "base/buf.h"
#include "base/err.h"
#include "base/fs.h"
#include "base/hash.h"
#include "base/jsonio.h"
#include "base/killpoint.h"
#include "base/rfc3339.h"
#include "config/home.h"
#include "drain/gate.h"
#include "drain/intake.h"
#include "drain/push.h"
#include "requests/grammar.h"
#include "requests/record.h"
#include "requests/store.h"
#include "types/catalog.h"
#include "types/manifest.h"

#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#define QUEUE_SLACK_S 30    /* beyond the long poll, for the answer itself */
#define FILE_TIMEOUT_S 600  /* one attachment, 16 MiB at the most */
#define ACK_TIMEOUT_S 60
#define PAUSE_MAX_S 60

struct run {
	const struct drain_opts *o;
	struct drain_report *r;
	struct gate g;
	const char *store;
	char drained_at[RFC3339_LEN];
	json_t *acks; /* seqs on disk now: written or held */
	struct store st; /* the request store (requests/store.h): the one way in */
	struct known *types; /* the home's manifests, each read once a pass */
	size_t ntypes;
};

/* A type's manifest as this pass read it, or why the home has none. */
struct known {
	char *type;
	struct manifest *m; /* NULL: why says why */
	char *why;
};

/* ---- telling --------------------------------------------------------------------- */

static void tell(struct run *run, enum drain_outcome outcome, const struct intake_row *in,
		 int valid, const char *reason, int code)
{
	struct drain_line l = { outcome, in->seq, in->type, valid, reason, code };

	if (run->o->line)
		run->o->line(&l, run->o->ctx);
}

static void skip(struct run *run, const struct intake_row *in, const struct err *why)
{
	struct drain_report *r = run->r;

	r->skipped = xrealloc(r->skipped, (r->nskipped + 1) * sizeof *r->skipped);
	r->skipped[r->nskipped++] = (struct drain_skip){ in->seq, why->code, xstrdup(why->msg) };
	tell(run, DRAIN_SKIPPED, in, 0, why->msg, why->code);
}

static void held(struct run *run, const struct intake_row *in)
{
	run->r->already_held++;
	json_array_append_new(run->acks, json_integer(in->seq));
	tell(run, DRAIN_HELD, in, 0, NULL, 0);
}

/* ---- what home has ------------------------------------------------------------------ */

/*
 * Whether home has this row's record (requests/store.h, store_holds): 1 held
 * (the same request), 0 absent, -1 with why it may be neither written nor
 * acked (another request holds the seq, or its file does not read).
 */
static int at_home(struct run *run, const struct intake_row *in, struct err *e)
{
	return store_holds(&run->st, in->seq, in->type, in->created_at, e);
}

/* ---- attachments ------------------------------------------------------------------------ */

struct file {
	char *bytes;
	size_t len;
	char hex[HASH_SHA256_HEX_LEN + 1];
	const char *ext, *content_type;
};

/* The bytes are what the box declared: the size, and the digest. */
static int measured_ok(const struct intake_row *in, const struct intake_file *f,
		       struct file *got, struct err *e)
{
	if ((long long)got->len != f->size)
		return err_set(e, ERR_ATTACHMENT, "seq %lld: attachment `%s` is %zu bytes; the box "
			       "declared %lld: left at the box", in->seq, f->field, got->len, f->size);
	hash_sha256_hex(got->bytes, got->len, got->hex);
	if (strcasecmp(got->hex, f->sha256 + 7) != 0)
		return err_set(e, ERR_ATTACHMENT, "seq %lld: attachment `%s` has the SHA-256 %s; the "
			       "box declared %s: left at the box", in->seq, f->field, got->hex,
			       f->sha256 + 7);
	got->ext = intake_sniff(got->bytes, got->len, &got->content_type);
	return 0;
}

/* A copy an earlier pass wrote (before it was killed) with the right bytes: 1, else 0. */
static int kept_copy(const char *dir, const char *stem, const struct intake_row *in,
		     const struct intake_file *f, struct file *got)
{
	static const char *const exts[] = { "pdf", "png", "jpg", "bin", NULL };
	struct err ignored;

	for (size_t i = 0; exts[i]; i++) {
		char *name = xasprintf("%s/%s.%s", dir, stem, exts[i]);
		int ok = fs_read(name, &got->bytes, &got->len, &ignored) == 0;
		free(name);
		if (ok && measured_ok(in, f, got, &ignored) == 0 && strcmp(got->ext, exts[i]) == 0)
			return 1;
		if (ok) {
			free(got->bytes);
			got->bytes = NULL;
		}
	}
	return 0;
}

/* GET the file, reading no more than it declared. */
static int fetch(struct run *run, const struct intake_row *in, const struct intake_file *f,
		 struct file *got, struct err *e)
{
	char *path = xasprintf("/v1/queue/attachments/%s", f->id);
	struct gate_request rq = { "GET", path, NULL, 0, NULL, (size_t)f->size, FILE_TIMEOUT_S,
				   0 };
	struct gate_reply reply = GATE_REPLY_INIT;
	int rc = gate_call(&run->g, &rq, &reply, e);

	free(path);
	if (rc != 0 && reply.over)
		err_set(e, ERR_ATTACHMENT, "seq %lld: attachment `%s` is longer than the %lld bytes "
			"the box declared: left at the box", in->seq, f->field, f->size);
	else if (rc != 0)
		err_prefix(e, "seq %lld: attachment `%s`", in->seq, f->field);
	got->len = reply.body.len;
	got->bytes = buf_steal(&reply.body);
	gate_reply_free(&reply);
	return rc != 0 ? -1 : measured_ok(in, f, got, e);
}

/* One attachment fetched (or found), checked, written; its entry for the record. */
static json_t *attachment(struct run *run, const struct intake_row *in, size_t i,
			  const char *stem, struct err *e)
{
	const struct intake_file *f = &in->files[i];
	char *dir = xasprintf("%s/attachments/%010lld", run->store, in->seq), *name, *rel;
	struct file got = { 0 };
	json_t *entry = NULL;

	if (kept_copy(dir, stem, in, f, &got) || fetch(run, in, f, &got, e) == 0) {
		name = xasprintf("%s/%s.%s", dir, stem, got.ext);
		rel = xasprintf("attachments/%010lld/%s.%s", in->seq, stem, got.ext);
		if (run->o->dry_run ||
		    (fs_private_dir(dir, e) == 0 && fs_replace(name, got.bytes, got.len, e) == 0)) {
			entry = intake_attachment(f, got.hex, got.content_type, rel);
			if (!run->o->dry_run)
				killpoint("drain-attachment");
		}
		free(name);
		free(rel);
	}
	free(got.bytes);
	free(dir);
	return entry;
}

/*
 * A killed pass may have left a temp file in the row's attachments directory;
 * the directory is swept once before its files are written (a missing one
 * costs one failed open).
 */
static void sweep_attachments(struct run *run, const struct intake_row *in)
{
	char *dir;
	struct err ignored;

	if (run->o->dry_run || in->nfiles == 0)
		return;
	dir = xasprintf("%s/attachments/%010lld", run->store, in->seq);
	fs_temps_sweep(dir, NULL, &ignored);
	free(dir);
}

static json_t *attachments(struct run *run, const struct intake_row *in, struct err *e)
{
	char **stems = intake_file_stems(in);
	json_t *list = json_array(), *entry;

	sweep_attachments(run, in);

	for (size_t i = 0; list && i < in->nfiles; i++) {
		if ((entry = attachment(run, in, i, stems[i], e))) {
			json_array_append_new(list, entry);
		} else {
			json_decref(list);
			list = NULL;
		}
	}
	intake_file_stems_free(stems, in->nfiles);
	return list;
}

/* ---- the record ------------------------------------------------------------------------ */

/*
 * The owner's manifest of the row's type (borrowed from the pass, which reads
 * each type's once: a batch is judged by one version of it); NULL with *why
 * (a reason for the record) or e.
 */
static int manifest_of(struct run *run, const struct intake_row *in,
		       const struct manifest **m, const char **why, struct err *e)
{
	struct known k = { NULL, NULL, NULL };

	*m = NULL;
	*why = NULL;
	if (intake_machinery_only(in))
		return 0;
	for (size_t i = 0; i < run->ntypes; i++)
		if (strcmp(run->types[i].type, in->type) == 0) {
			*m = run->types[i].m;
			*why = run->types[i].why;
			return 0;
		}
	if (catalog_load(in->type, &k.m, NULL, e) != 0) {
		if (e->code != ERR_NOT_FOUND && e->code != ERR_INVALID_MANIFEST)
			return -1; /* the home could not be read: try again, do not judge */
		k.why = xstrdup(e->msg);
	}
	k.type = xstrdup(in->type);
	run->types = xrealloc(run->types, (run->ntypes + 1) * sizeof *run->types);
	run->types[run->ntypes++] = k;
	*m = k.m;
	*why = k.why;
	return 0;
}

static void known_free(struct run *run)
{
	for (size_t i = 0; i < run->ntypes; i++) {
		free(run->types[i].type);
		manifest_free(run->types[i].m);
		free(run->types[i].why);
	}
	free(run->types);
	run->types = NULL;
	run->ntypes = 0;
}

/* Created by the request store under its lock, never over anything: 1 written, 0 held, -1. */
static int create(struct run *run, struct record *rec, struct err *e)
{
	if (run->st.dirfd < 0) { /* the first record: the store comes to be, 0700 */
		store_close(&run->st);
		if (store_open(&run->st, run->store, STORE_CREATE, e) != 0) {
			/* reopen as it was, so the pass can still close it */
			struct err ignored;
			store_open(&run->st, run->store, STORE_READ, &ignored);
			return -1;
		}
	}
	return store_create(&run->st, rec, e);
}

static void written(struct run *run, const struct intake_row *in,
		    const struct intake_verdict *v)
{
	run->r->written++;
	run->r->invalid += !v->valid;
	if (!run->o->dry_run)
		json_array_append_new(run->acks, json_integer(in->seq));
	tell(run, DRAIN_WRITTEN, in, v->valid, v->invalid_reason, 0);
	if (!run->o->dry_run)
		killpoint("drain-record");
}

/*
 * The record of a judged row (m: its type's manifest, when home has one), its
 * files fetched: 1 written, 0 held, -1 with e.
 */
static int record(struct run *run, const struct intake_row *in, const struct manifest *m,
		  struct intake_verdict *v, struct err *e)
{
	json_t *files = attachments(run, in, e);
	struct record rec;
	int rc;

	if (!files)
		return -1;
	intake_record_new(in, v, run->drained_at, files, &rec);
	/* the home's rule for what may reach a brief (requests/grammar.h) */
	if (m)
		grammar_seal_by(&rec, m);
	else
		grammar_seal(&rec);
	if (v->valid && !record_valid(&rec)) {
		v->valid = 0;
		v->invalid_reason = xstrdup(grammar_refused(&rec));
	}
	rc = run->o->dry_run ? record_check(rec.doc, e) == 0 : create(run, &rec, e);
	record_free(&rec);
	return rc;
}

/* A row's failure that leaves the row at the box and lets the pass go on. */
static int row_failure(const struct err *e)
{
	return e->code == ERR_SEQ_TAKEN || e->code == ERR_UNREADABLE || e->code == ERR_GATE ||
	       e->code == ERR_ATTACHMENT;
}

/* A type the box serves at another version than home's manifest, once per type. */
static void out_of_step(struct drain_report *r, const char *type, long long box, long long home)
{
	for (size_t i = 0; i < r->nsteps; i++)
		if (strcmp(r->steps[i].type, type) == 0)
			return;
	r->steps = xrealloc(r->steps, (r->nsteps + 1) * sizeof *r->steps);
	r->steps[r->nsteps++] = (struct drain_step){ xstrdup(type), box, home };
}

/* Judged, its files fetched, written. 0 settled (written, held or skipped); -1 the pass fails. */
static int bring_home(struct run *run, const struct intake_row *in)
{
	const struct manifest *m;
	struct intake_verdict v;
	const char *why;
	struct err e;
	int rc;

	if (manifest_of(run, in, &m, &why, &e) != 0) {
		skip(run, in, &e);
		return -1;
	}
	intake_judge(in, m, why, &v);
	if (m && v.box_version && v.box_version != m->version)
		out_of_step(run->r, in->type, v.box_version, m->version);
	rc = record(run, in, m, &v, &e);
	if (rc == 1)
		written(run, in, &v);
	else if (rc == 0)
		held(run, in);
	intake_verdict_free(&v);
	if (rc >= 0)
		return 0;
	if (!row_failure(&e))
		err_prefix(&e, "seq %lld", in->seq);
	skip(run, in, &e);
	return row_failure(&e) ? 0 : -1;
}

/* One row: 0 settled, -1 when the store cannot be written (the pass stops, acking nothing). */
static int take(struct run *run, const json_t *row)
{
	struct intake_row in;
	struct err e;
	int rc = 0, home;

	if (intake_parse(row, &in, &e) != 0) {
		in.type = NULL;
		skip(run, &in, &e);
		intake_row_free(&in);
		return 0;
	}
	home = at_home(run, &in, &e);
	if (home == 1)
		held(run, &in);
	else if (home < 0)
		skip(run, &in, &e);
	else
		rc = bring_home(run, &in);
	intake_row_free(&in);
	return rc;
}

/* ---- the pass ------------------------------------------------------------------------- */

static json_t *batch(struct run *run, struct err *e)
{
	char *path = xasprintf("/v1/queue?since=%lld&wait=%lld", run->o->since, run->o->wait);
	struct gate_request rq = { "GET", path, NULL, 0, NULL, GATE_JSON_MAX,
				   (long)run->o->wait + QUEUE_SLACK_S, 1 };
	struct gate_reply reply = GATE_REPLY_INIT;
	json_t *answer = NULL, *records;

	if (gate_call(&run->g, &rq, &reply, e) == 0)
		answer = gate_json(&run->g, &rq, &reply, e);
	records = json_object_get(answer, "records");
	if (answer && !json_is_array(records)) {
		err_set(e, ERR_GATE, "gate: GET %s%s: the answer has no records list", run->g.url,
			path);
		json_decref(answer);
		answer = NULL;
	}
	if (answer)
		run->r->next = json_integer_value(json_object_get(answer, "next"));
	gate_reply_free(&reply);
	free(path);
	return answer;
}

static int acknowledge(struct run *run, struct err *e)
{
	json_t *body = json_pack("{s:O}", "seqs", run->acks);
	char *text = jsonio_compact(body);
	struct gate_request rq = { "POST", "/v1/queue/ack", text, strlen(text), "application/json",
				   GATE_JSON_MAX, ACK_TIMEOUT_S, 0 };
	struct gate_reply reply = GATE_REPLY_INIT;
	int rc = 0;

	killpoint("drain-before-ack");
	if (json_array_size(run->acks) > 0 && (rc = gate_call(&run->g, &rq, &reply, e)) == 0) {
		run->r->acknowledged = json_array_size(run->acks);
		killpoint("drain-after-ack");
	}
	gate_reply_free(&reply);
	free(text);
	json_decref(body);
	return rc;
}

static int pass(struct run *run, struct err *e)
{
	json_t *answer = batch(run, e), *row;
	size_t i;
	int rc = 0;

	if (!answer)
		return -1;
	run->r->drained = json_array_size(json_object_get(answer, "records"));
	json_array_foreach(json_object_get(answer, "records"), i, row)
		if ((rc = take(run, row)) != 0)
			break;
	json_decref(answer);
	if (rc != 0)
		return err_set(e, run->r->skipped[run->r->nskipped - 1].code, "%s",
			       run->r->skipped[run->r->nskipped - 1].message);
	return run->o->dry_run ? 0 : acknowledge(run, e);
}

int drain_run(const struct drain_opts *o, struct drain_report *r, struct err *e)
{
	struct run run = { o, r, { 0 }, NULL, "", json_array(), { 0 }, NULL, 0 };
	char *store = home_default(HOME_REQUESTS, e);
	int rc = -1;

	memset(r, 0, sizeof *r);
	r->dry_run = o->dry_run;
	if (store && store_open(&run.st, store, STORE_READ, e) == 0) {
		if (gate_open(GATE_DRAIN, &run.g, e) == 0) {
			r->store = xstrdup(store);
			r->gate = xstrdup(run.g.url);
			run.store = store;
			run.g.stop = o->stop;
			rfc3339_now(run.drained_at);
			rc = pass(&run, e);
			gate_close(&run.g);
		}
		store_close(&run.st);
	}
	json_decref(run.acks);
	known_free(&run);
	free(store);
	return rc;
}

/* ---- the loop -------------------------------------------------------------------------- */

static int stopped(const struct drain_opts *o)
{
	return o->stop && *o->stop;
}

/* Sleeps up to s seconds, a second at a time, so a stop is heard. */
static void pause_for(const struct drain_opts *o, unsigned s)
{
	struct timespec one = { 1, 0 };

	for (unsigned i = 0; i < s && !stopped(o); i++)
		nanosleep(&one, NULL);
}

/* After a pass: where the next begins, and how long to wait first. */
static unsigned next_pass(struct drain_opts *each, const struct drain_report *r, int failed,
			  unsigned *backoff)
{
	unsigned pause = 0;

	if (failed) {
		pause = *backoff;
		*backoff = *backoff * 2 > PAUSE_MAX_S ? PAUSE_MAX_S : *backoff * 2;
		return pause;
	}
	*backoff = 1;
	each->since = r->nskipped > 0 ? r->next : 0;
	if (each->wait == 0 && (r->drained == 0 || r->nskipped > 0))
		pause = 5; /* no long poll to wait in */
	return pause;
}

static time_t monotonic(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec;
}

/* The slots that follow the calendar (push.h): looked at once slots_every has passed. */
static void follow_slots(const struct drain_opts *o, time_t *last)
{
	struct err e;

	if (o->slots_every <= 0 || (*last && monotonic() - *last < o->slots_every))
		return;
	*last = monotonic();
	err_clear(&e);
	if (push_slots_due(PUSH_SLOTS_MAX_AGE_S, o->slots, o->ctx, &e) < 0 && o->slots) {
		struct push_due_line l = { NULL, NULL, NULL, &e };
		o->slots(&l, o->ctx);
	}
}

/* A pass that handed over, wrote, acknowledged or skipped something: its report is due. */
static int pass_worked(const struct drain_report *r)
{
	return r->drained || r->written || r->acknowledged || r->nskipped;
}

int drain_follow(const struct drain_opts *o,
		 void (*report)(const struct drain_report *r, const struct err *failed, void *ctx),
		 void *ctx, struct err *e)
{
	struct drain_opts each = *o;
	struct drain_report r;
	unsigned backoff = 1;
	time_t last = 0;
	int rc;

	if (o->slots_every > 0 && each.wait > o->slots_every)
		each.wait = o->slots_every; /* the long poll ends in time for the next look */
	while (!stopped(o)) {
		follow_slots(o, &last);
		if (stopped(o))
			break;
		rc = drain_run(&each, &r, e);
		/* A stop during the long poll ends a pass that did nothing: no report. One that
		 * came after the rows were written is told, so what was drained is never unsaid. */
		if (!stopped(o) || pass_worked(&r))
			report(&r, rc == 0 ? NULL : e, ctx);
		if (!stopped(o) && rc != 0 && e->code != ERR_GATE && e->code != ERR_IO) {
			drain_report_free(&r);
			return -1;
		}
		if (!stopped(o))
			pause_for(o, next_pass(&each, &r, rc != 0, &backoff));
		drain_report_free(&r);
	}
	return 0;
}

/* ---- the report ------------------------------------------------------------------------ */

json_t *drain_report_json(const struct drain_report *r)
{
	json_t *skipped = json_array();

	for (size_t i = 0; i < r->nskipped; i++)
		json_array_append_new(skipped, json_pack("{s:I,s:s,s:s}", "seq",
							  (json_int_t)r->skipped[i].seq, "error",
							  err_code_name(r->skipped[i].code),
							  "message", r->skipped[i].message));
	json_t *doc = json_pack("{s:I,s:I,s:I,s:I,s:I,s:s,s:o,s:b}", "drained",
				(json_int_t)r->drained, "written", (json_int_t)r->written,
				"already_held", (json_int_t)r->already_held, "invalid",
				(json_int_t)r->invalid, "acknowledged", (json_int_t)r->acknowledged,
				"store", r->store ? r->store : "", "skipped", skipped, "dry_run",
				r->dry_run);

	if (r->nsteps > 0) { /* only when there is something to fix: the usual report is the spec's */
		json_t *steps = json_array();
		for (size_t i = 0; i < r->nsteps; i++)
			json_array_append_new(steps, json_pack("{s:s,s:I,s:I,s:s+}", "type",
				r->steps[i].type, "box_version", (json_int_t)r->steps[i].box_version,
				"home_version", (json_int_t)r->steps[i].home_version, "fix",
				"mecha types push ", r->steps[i].type));
		json_object_set_new(doc, "out_of_step", steps);
	}
	return doc;
}

void drain_report_free(struct drain_report *r)
{
	for (size_t i = 0; i < r->nskipped; i++)
		free(r->skipped[i].message);
	free(r->skipped);
	for (size_t i = 0; i < r->nsteps; i++)
		free(r->steps[i].type);
	free(r->steps);
	free(r->store);
	free(r->gate);
	memset(r, 0, sizeof *r);
}
