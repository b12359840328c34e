/*
 * mailer — one worker, a queue in memory, SMTP through base/smtp.
 */
#include "box/mailer.h"

#include "base/addr.h"
#include "base/buf.h"
#include "base/err.h"
#include "base/hash.h"
#include "base/jsonio.h"
#include "base/rfc3339.h"
#include "base/smtp.h"
#include "box/boxconf.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define QUEUE_MAX 10000
#define ATTEMPTS 3

struct job {
	char *to, *title, *link, *move;
	struct job *next;
};

struct mailer {
	const struct boxconf *conf;
	pthread_mutex_t lock;
	pthread_cond_t cond;
	pthread_t thread;
	struct job *head, *tail;
	size_t n;
	int stopping;
};

static const char body_fmt[] =
	"You filled in the %s form.\n\n"
	"Open this link to confirm it was you. Nothing is passed on until you do:\n\n"
	"%s\n\n"
	"The link works once. If you did not fill in this form, ignore this message \xe2\x80\x94 "
	"nothing has been sent on, and the submission is deleted when the link expires.\n";

/* A reschedule's link (box-pages.md §4): the old and the new time in place of the first line. */
static const char move_fmt[] =
	"You asked to move your %s booking.\n\nFrom: %s\n\n"
	"Open this link to confirm the move. Nothing changes until you do:\n\n"
	"%s\n\n"
	"The link works once. If you did not ask for this, ignore this message \xe2\x80\x94 "
	"the booking stays as it is.\n";

static void event(const char *name, const char *key, const char *value)
{
	char now[RFC3339_LEN], *line;
	json_t *o;

	rfc3339_now(now);
	o = json_pack("{s:s,s:s}", "time", now, "event", name);
	if (key)
		json_object_set_new(o, key, json_string(value));
	line = jsonio_compact(o);
	fprintf(stderr, "%s\n", line);
	fflush(stderr);
	free(line);
	json_decref(o);
}

/* The whole message (CRLF), From from to `to`, as the worker sends it. */
static int mailer_compose(const char *from, const char *to, const char *title, const char *link,
			  const char *move, time_t date, const char *message_id, struct buf *out,
			  struct err *e)
{
	struct addr sender, rcpt;
	char *subject, *body;
	int rc = -1;

	if (addr_parse(from, strlen(from), "[mail] from", &sender, e) != 0)
		return -1;
	if (addr_parse(to, strlen(to), "the address to verify", &rcpt, e) == 0) {
		subject = move ? xasprintf("Confirm the move of your %s booking", title)
			       : xasprintf("Confirm your %s request", title);
		body = move ? xasprintf(move_fmt, title, move, link) : xasprintf(body_fmt, title, link);
		smtp_header_addrs(out, "From", &sender, 1);
		smtp_header_addrs(out, "To", &rcpt, 1);
		smtp_header_subject(out, subject, strlen(subject));
		smtp_header_date(out, date);
		buf_printf(out, "Message-ID: <%s@mecha-box>\r\nMIME-Version: 1.0\r\n"
				"Content-Type: text/plain; charset=UTF-8\r\n"
				"Content-Transfer-Encoding: quoted-printable\r\n\r\n", message_id);
		smtp_qp_body(out, body, strlen(body));
		free(subject);
		free(body);
		addr_free(&rcpt);
		rc = 0;
	}
	addr_free(&sender);
	return rc;
}

static int send_once(const struct boxconf *c, const struct job *j, struct err *e)
{
	const struct smtp_route r = { c->smtp_url, c->mail_username, c->mail_from,
				      c->mail_password_env };
	struct addr from, to;
	struct buf msg = BUF_INIT;
	char id[33];
	int rc = -1;

	if (hash_random_hex(id, 32, e) != 0 ||
	    mailer_compose(c->mail_from, j->to, j->title, j->link, j->move, time(NULL), id, &msg, e) != 0)
		return -1;
	if (addr_parse(c->mail_from, strlen(c->mail_from), "from", &from, e) == 0) {
		if (addr_parse(j->to, strlen(j->to), "to", &to, e) == 0) {
			rc = smtp_send(&r, from.spec, &to.spec, 1, msg.data, msg.len, e);
			addr_free(&to);
		}
		addr_free(&from);
	}
	buf_free(&msg);
	return rc;
}

/* Three tries, only while the server cannot have taken the message. */
static void deliver(const struct boxconf *c, const struct job *j)
{
	static const useconds_t pause[] = { 500000, 1000000 };
	struct err e;

	for (int i = 0; i < ATTEMPTS; i++) {
		if (send_once(c, j, &e) == 0) {
			event("mail_sent", NULL, NULL);
			return;
		}
		if (e.code != ERR_DELIVERY || i + 1 == ATTEMPTS)
			break;
		usleep(pause[i]);
	}
	event("mail_failed", "error", e.msg);
}

static void job_free(struct job *j)
{
	free(j->to);
	free(j->title);
	free(j->link);
	free(j->move);
	free(j);
}

static void *work(void *arg)
{
	struct mailer *m = arg;

	pthread_mutex_lock(&m->lock);
	for (;;) {
		struct job *j;
		while (!m->head && !m->stopping)
			pthread_cond_wait(&m->cond, &m->lock);
		if (!(j = m->head))
			break;
		m->head = j->next;
		if (!m->head)
			m->tail = NULL;
		m->n--;
		pthread_mutex_unlock(&m->lock);
		deliver(m->conf, j);
		job_free(j);
		pthread_mutex_lock(&m->lock);
	}
	pthread_mutex_unlock(&m->lock);
	return NULL;
}

struct mailer *mailer_start(const struct boxconf *c, struct err *e)
{
	struct mailer *m = xcalloc(1, sizeof *m);

	m->conf = c;
	pthread_mutex_init(&m->lock, NULL);
	pthread_cond_init(&m->cond, NULL);
	if (c->smtp_url && (!c->mail_from || !*c->mail_from)) {
		free(m);
		err_set(e, ERR_CONFIG, "[mail] smtp_url needs [mail] from");
		return NULL;
	}
	if (c->smtp_url && pthread_create(&m->thread, NULL, work, m) != 0) {
		free(m);
		err_set(e, ERR_INTERNAL, "cannot start the mail thread");
		return NULL;
	}
	return m;
}

int mailer_verification(struct mailer *m, const char *to, const char *title, const char *link)
{
	return mailer_verification_move(m, to, title, link, NULL);
}

int mailer_verification_move(struct mailer *m, const char *to, const char *title,
			     const char *link, const char *move)
{
	struct job *j;

	if (!m->conf->smtp_url) {
		event("verification_link", "link", link); /* no mail configured: the log is the route */
		return 0;
	}
	pthread_mutex_lock(&m->lock);
	if (m->n >= QUEUE_MAX || m->stopping) {
		pthread_mutex_unlock(&m->lock);
		return -1;
	}
	j = xcalloc(1, sizeof *j);
	*j = (struct job){ xstrdup(to), xstrdup(title), xstrdup(link), move ? xstrdup(move) : NULL,
			   NULL };
	if (m->tail)
		m->tail->next = j;
	else
		m->head = j;
	m->tail = j;
	m->n++;
	pthread_cond_signal(&m->cond);
	pthread_mutex_unlock(&m->lock);
	return 0;
}

void mailer_stop(struct mailer *m)
{
	if (!m)
		return;
	if (m->conf->smtp_url) {
		pthread_mutex_lock(&m->lock);
		m->stopping = 1;
		pthread_cond_signal(&m->cond);
		pthread_mutex_unlock(&m->lock);
		pthread_join(m->thread, NULL);
	}
	pthread_cond_destroy(&m->cond);
	pthread_mutex_destroy(&m->lock);
	free(m);
}
