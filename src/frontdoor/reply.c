/*
 * reply — the template a person answers a request in, the way back from it,
 * and the staging through draft.c that makes it a draft like any other.
 */
#include "frontdoor/reply.h"

#include "base/buf.h"
#include "base/err.h"
#include "base/fs.h"
#include "base/jsonio.h"
#include "base/text.h"
#include "frontdoor/draft.h"
#include "requests/record.h"

#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

enum { OPEN_CONFIG = 1, OPEN_STORE = 2, OPEN_OUTBOX = 4 };

/* ---- the template ------------------------------------------------------------- */

static void quote_value(struct buf *b, const char *name, const json_t *v)
{
	char *s = json_is_string(v) ? NULL : json_dumps(v, JSON_COMPACT | JSON_ENCODE_ANY);
	const char *t = s ? s : json_string_value(v);

	buf_adds(b, "  ");
	text_safe(b, name, strlen(name), 0);
	buf_adds(b, ": ");
	text_safe(b, t ? t : "", t ? strlen(t) : 0, 0);
	buf_addc(b, '\n');
	free(s);
}

/* Prose, every line behind "  > ", every control character but the newline made visible. */
static void quote_prose(struct buf *b, const struct prose_field *p)
{
	struct buf safe = BUF_INIT;
	const char *s, *nl;

	text_safe(&safe, p->name, strlen(p->name), 0);
	buf_printf(b, "%s:\n", buf_str(&safe));
	buf_reset(&safe);
	text_safe(&safe, p->text, p->len, TEXT_KEEP_NEWLINES);
	for (s = buf_str(&safe); *s; s = nl + 1) {
		nl = strchr(s, '\n');
		buf_adds(b, "  > ");
		buf_add(b, s, nl ? (size_t)(nl - s) : strlen(s));
		buf_addc(b, '\n');
		if (!nl)
			break;
	}
	buf_free(&safe);
}

static void quote_record(struct buf *b, const struct record *r)
{
	struct prose_field *prose = NULL;
	size_t n = record_prose(r, &prose);
	const char *name, *note = record_note(r);
	const json_t *v;

	buf_printf(b, "Request %lld (%s), received %s, now %s.\n", r->seq, r->type_id,
		   record_created_at(r), record_state(r));
	if (note) {
		buf_adds(b, "Note: ");
		text_safe(b, note, strlen(note), 0);
		buf_addc(b, '\n');
	}
	buf_addc(b, '\n');
	json_object_foreach(record_values(r), name, v) {
		if (name[0] == '_' || record_is_prose(r, name) || record_is_attachment_field(r, name))
			continue; /* machinery, prose (quoted below), files (never read here) */
		quote_value(b, name, v);
	}
	for (size_t i = 0; i < n; i++)
		quote_prose(b, &prose[i]);
	free(prose);
}

static void make_template(struct reply *rp, const struct record *r)
{
	struct buf b = BUF_INIT;

	buf_printf(&b, "Subject: %s\nTo: ", rp->subject);
	text_safe(&b, rp->to, strlen(rp->to), 0);
	buf_adds(&b, "\n\n\n" REPLY_CUT "\n");
	buf_adds(&b, "Write your reply above the line; nothing from the line down is sent. The\n"
		     "reply goes to the request's own address whatever the To line says. An empty\n"
		     "reply, or this text unchanged, stages nothing.\n\n");
	quote_record(&b, r);
	rp->len = b.len;
	rp->text = buf_steal(&b);
}

/* ---- the way back ------------------------------------------------------------- */

static int line_is(const char *s, size_t n, const char *prefix)
{
	size_t k = strlen(prefix);

	return n >= k && strncasecmp(s, prefix, k) == 0;
}

static char *trimmed(const char *s, size_t n)
{
	size_t off, len;

	text_trim(s, n, &off, &len);
	return len ? xstrndup(s + off, len) : NULL;
}

void reply_parse(const char *text, size_t len, char **subject, char **body)
{
	const char *p = text, *end = text + len, *nl;
	size_t cut = strlen(REPLY_CUT);

	*subject = *body = NULL;
	/* The header lines the template has, in any order, until the first other line. */
	while (p < end) {
		size_t n;
		nl = memchr(p, '\n', (size_t)(end - p));
		n = nl ? (size_t)(nl - p) : (size_t)(end - p);
		if (line_is(p, n, "Subject:")) {
			free(*subject);
			*subject = trimmed(p + 8, n - 8);
		} else if (!line_is(p, n, "To:")) {
			break; /* the recipient is never chosen here: a To line is only read past */
		}
		p = nl ? nl + 1 : end;
	}
	/* The body runs to the cut line (the first line that begins with it) or the end. */
	for (const char *q = p; q < end; q = nl + 1) {
		nl = memchr(q, '\n', (size_t)(end - q));
		if ((size_t)(end - q) >= cut && memcmp(q, REPLY_CUT, cut) == 0) {
			end = q;
			break;
		}
		if (!nl)
			break;
	}
	if (p < end) {
		size_t off, n;
		text_trim(p, (size_t)(end - p), &off, &n);
		if (n)
			*body = xasprintf("%.*s\n", (int)n, p + off);
	}
}

/* ---- the stores --------------------------------------------------------------- */

int reply_open(struct reply *rp, long long seq, struct err *e)
{
	struct record r;
	const char *to;
	int rc;

	memset(rp, 0, sizeof *rp);
	rp->seq = seq;
	if (config_load(&rp->cfg, e) != 0)
		return -1;
	rp->opened |= OPEN_CONFIG;
	if (store_open_default(&rp->store, STORE_CREATE, e) != 0)
		goto fail;
	rp->opened |= OPEN_STORE;
	if (store_get(&rp->store, seq, &r, e) != 0)
		goto fail;
	rc = draft_may_answer(&r, DRAFT_BY_PERSON, e);
	if (rc == 0) {
		to = record_reply_to(&r);
		rp->to = xstrdup(to);
		rp->subject = xasprintf("Re: your %s request", r.type_id);
		make_template(rp, &r);
	}
	record_free(&r);
	if (rc != 0)
		goto fail;
	if (outbox_store_open(&rp->ob, rp->cfg.outbox_dir, OUTBOX_WRITE, e) != 0)
		goto fail;
	rp->opened |= OPEN_OUTBOX;
	return 0;
fail:
	reply_close(rp);
	return -1;
}

int reply_template(struct reply *rp, struct err *e)
{
	/* Inside the 0700 outbox: what the person writes never sits in a shared /tmp. */
	char *p = xasprintf("%s/.reply-%lld-XXXXXX.eml", rp->ob.dir, rp->seq);
	int fd = mkostemps(p, 4, O_CLOEXEC);

	if (fd < 0) {
		err_errno(e, "creating a file to write the reply in %s", rp->ob.dir);
		free(p);
		return -1;
	}
	if (fs_write_all(fd, rp->text, rp->len) != 0 || close(fd) != 0) {
		err_errno(e, "writing %s", p);
		unlink(p);
		free(p);
		return -1;
	}
	rp->path = p;
	return 0;
}

static int stage(struct reply *rp, const struct draft_reply *d, char id_out[OUTBOX_ID_MAX + 1],
		 struct err *e)
{
	if (draft_reply(&rp->store, &rp->ob, d, id_out, e) != 0)
		return -1;
	return REPLY_STAGED;
}

int reply_stage(struct reply *rp, const char *subject, const char *body,
		char id_out[OUTBOX_ID_MAX + 1], struct err *e)
{
	struct draft_reply d = { rp->seq, NULL, subject, body, DRAFT_BY_PERSON, NULL, rp->from };

	if (text_blank(body))
		return REPLY_EMPTY;
	if (!subject || text_blank(subject))
		d.subject = rp->subject;
	return stage(rp, &d, id_out, e);
}

int reply_finish(struct reply *rp, char id_out[OUTBOX_ID_MAX + 1], struct err *e)
{
	char *text, *subject, *body;
	size_t len;
	int rc;

	if (fs_read(rp->path, &text, &len, e) != 0)
		return -1;
	if (len == rp->len && memcmp(text, rp->text, len) == 0) {
		free(text);
		return REPLY_EMPTY; /* unchanged */
	}
	if (!text_utf8_valid(text, len)) {
		free(text);
		rp->kept = 1;
		return err_set(e, ERR_PARSE, "the reply is not UTF-8 text (was it saved in another "
			       "encoding?); nothing was staged and your text is kept in %s",
			       rp->path);
	}
	reply_parse(text, len, &subject, &body);
	free(text);
	rc = reply_stage(rp, subject, body, id_out, e);
	if (rc < 0) {
		rp->kept = 1;
		err_prefix(e, "your text is kept in %s", rp->path);
	}
	free(subject);
	free(body);
	return rc;
}

int reply_ask(struct reply *rp, const char *note, char id_out[OUTBOX_ID_MAX + 1], struct err *e)
{
	struct draft_reply d = { rp->seq, NULL, NULL, NULL, DRAFT_ASK_BACK, note, rp->from };
	char *body;
	int rc;

	if (text_blank(note))
		return err_set(e, ERR_BAD_ARGUMENTS, "asking back needs --note TEXT: the note is the "
			       "question the requester is asked (nothing changed)");
	body = xasprintf("Hello,\n\nthank you for your request. Before I can answer it, could you "
			 "tell me:\n\n%s\n\nA reply to this message reaches me.\n", note);
	d.subject = rp->subject;
	d.body = body;
	rc = stage(rp, &d, id_out, e);
	free(body);
	return rc;
}

void reply_close(struct reply *rp)
{
	if (rp->path && !rp->kept)
		unlink(rp->path);
	if (rp->opened & OPEN_OUTBOX)
		outbox_store_close(&rp->ob);
	if (rp->opened & OPEN_STORE)
		store_close(&rp->store);
	if (rp->opened & OPEN_CONFIG)
		config_free(&rp->cfg);
	free(rp->to);
	free(rp->subject);
	free(rp->path);
	free(rp->text);
	memset(rp, 0, sizeof *rp);
}
