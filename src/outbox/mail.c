/*
 * mail — building the message strictly and handing it over, once.
 *
 * Every header mecha writes is built from parsed, checked parts (base/smtp,
 * shared with the box's verification mail); the body is quoted-printable so
 * that line length, 8-bit transport, a lone "." and a "From " at the start
 * of a line are all non-issues for every route.
 */
#include "outbox/mail.h"

#include "base/addr.h"
#include "base/buf.h"
#include "base/dl.h"
#include "base/err.h"
#include "base/fs.h"
#include "base/jsonio.h"
#include "base/smtp.h"
#include "base/text.h"
#include "config/config.h"
#include "outbox/item.h"
#include "outbox/sink.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

/* to/cc: a string or an array of strings; appends to *list. */
static int addr_list(const json_t *v, const char *what, int required, struct addr **list,
		     size_t *n, struct err *e)
{
	size_t i, before = *n;
	json_t *x;

	if (!v || json_is_null(v)) {
		if (required)
			return err_set(e, ERR_BAD_ARGS, "the draft has no '%s' address", what);
		return 0;
	}
	if (json_is_string(v)) {
		*list = xrealloc(*list, (*n + 1) * sizeof **list);
		if (addr_parse(json_string_value(v), json_string_length(v), what, &(*list)[*n], e))
			return -1;
		(*n)++;
		return 0;
	}
	if (!json_is_array(v))
		return err_set(e, ERR_BAD_ARGS, "'%s' must be an address or a list of addresses", what);
	json_array_foreach(v, i, x) {
		if (!json_is_string(x))
			return err_set(e, ERR_BAD_ARGS, "'%s' must hold only addresses", what);
		*list = xrealloc(*list, (*n + 1) * sizeof **list);
		if (addr_parse(json_string_value(x), json_string_length(x), what, &(*list)[*n], e))
			return -1;
		(*n)++;
	}
	if (required && *n == before)
		return err_set(e, ERR_BAD_ARGS, "the draft has no '%s' address", what);
	return 0;
}

/* ---- building --------------------------------------------------------------- */

static const json_t *body_of(const json_t *args)
{
	const char *key = outbox_item_body_key(args);

	return key ? json_object_get(args, key) : NULL;
}

int mail_check_args(const json_t *args, struct err *e)
{
	struct addr *list = NULL;
	size_t n = 0;
	int rc = 0;
	const json_t *subject;

	if (!json_is_object(args))
		return err_set(e, ERR_BAD_ARGS, "a mail draft's args must be a JSON object");
	subject = json_object_get(args, "subject");
	if (subject && !json_is_null(subject) && !json_is_string(subject))
		return err_set(e, ERR_BAD_ARGS, "'subject' must be a string");
	if (addr_list(json_object_get(args, "to"), "to", 1, &list, &n, e) != 0 ||
	    addr_list(json_object_get(args, "cc"), "cc", 0, &list, &n, e) != 0)
		rc = -1;
	for (size_t i = 0; i < n; i++)
		addr_free(&list[i]);
	free(list);
	return rc;
}

int mail_check_address(const char *s, size_t n, const char *what, struct err *e)
{
	struct addr a;

	if (addr_parse(s, n, what, &a, e) != 0)
		return -1;
	addr_free(&a);
	return 0;
}

/* "=_" cannot occur in quoted-printable or base64, so no part can hold the boundary. */
#define BOUNDARY_PREFIX "=_mecha_"
#define B64_LINE 76

static void plain_part(struct buf *b, const json_t *args)
{
	const json_t *body = body_of(args);

	buf_adds(b, "Content-Type: text/plain; charset=UTF-8\r\n"
		    "Content-Transfer-Encoding: quoted-printable\r\n"
		    "\r\n");
	smtp_qp_body(b, body ? json_string_value(body) : "", body ? json_string_length(body) : 0);
}

/* base64 in lines of 76, so no transport rewraps what libical wrote. */
static void base64_lines(struct buf *b, const char *s, size_t n)
{
	const size_t chunk = B64_LINE / 4 * 3;

	for (size_t at = 0; at < n; at += chunk) {
		smtp_base64(b, (const unsigned char *)s + at, n - at < chunk ? n - at : chunk);
		buf_adds(b, "\r\n");
	}
}

static void itip_parts(struct buf *b, const char *id, const json_t *args,
		       const struct mail_calendar *cal)
{
	buf_printf(b, "Content-Type: multipart/alternative;\r\n boundary=\"" BOUNDARY_PREFIX
		      "%s\"\r\n\r\n--" BOUNDARY_PREFIX "%s\r\n", id, id);
	plain_part(b, args);
	buf_printf(b, "--" BOUNDARY_PREFIX "%s\r\n"
		      "Content-Type: text/calendar; method=%s; charset=UTF-8\r\n"
		      "Content-Transfer-Encoding: base64\r\n\r\n", id, cal->method);
	base64_lines(b, cal->text, strlen(cal->text));
	buf_printf(b, "--" BOUNDARY_PREFIX "%s--\r\n", id);
}

static void build_text(struct buf *b, const struct addr *from, const struct addr *list, size_t nto,
		       size_t n, const char *id, const json_t *args,
		       const struct mail_calendar *cal, time_t date)
{
	const json_t *subject = json_object_get(args, "subject");

	smtp_header_addrs(b, "From", from, 1);
	smtp_header_addrs(b, "To", list, nto);
	if (n > nto)
		smtp_header_addrs(b, "Cc", list + nto, n - nto);
	smtp_header_subject(b, json_is_string(subject) ? json_string_value(subject) : "",
		       json_is_string(subject) ? json_string_length(subject) : 0);
	smtp_header_date(b, date);
	buf_printf(b, "Message-ID: <%s@mecha>\r\n", id);
	buf_adds(b, "MIME-Version: 1.0\r\n");
	if (cal)
		itip_parts(b, id, args, cal);
	else
		plain_part(b, args);
}

static int build(const char *from, const char *id, const json_t *args,
		 const struct mail_calendar *cal, time_t date, struct mail_message *out,
		 struct err *e)
{
	struct addr sender, *list = NULL;
	size_t n = 0, nto;
	struct buf b = BUF_INIT;
	int rc = -1;

	memset(out, 0, sizeof *out);
	if (!from || !*from)
		return err_set(e, ERR_NO_ROUTE, "[mail] from is not set, so mecha has no sender");
	if (!outbox_item_id_ok(id))
		return err_set(e, ERR_BAD_ARGS, "'%s' cannot be a Message-ID", id);
	if (addr_parse(from, strlen(from), "[mail] from", &sender, e) != 0)
		return -1;
	if (mail_check_args(args, e) != 0)
		goto out;
	addr_list(json_object_get(args, "to"), "to", 1, &list, &n, e);
	nto = n;
	addr_list(json_object_get(args, "cc"), "cc", 0, &list, &n, e);
	build_text(&b, &sender, list, nto, n, id, args, cal, date);
	out->from = xstrdup(sender.spec);
	out->rcpt = xcalloc(n, sizeof *out->rcpt);
	for (size_t i = 0; i < n; i++)
		out->rcpt[i] = xstrdup(list[i].spec);
	out->nrcpt = n;
	out->len = b.len;
	out->text = buf_steal(&b);
	rc = 0;
out:
	for (size_t i = 0; i < n; i++)
		addr_free(&list[i]);
	free(list);
	addr_free(&sender);
	return rc;
}

int mail_build(const char *from, const char *id, const json_t *args, time_t date,
	       struct mail_message *out, struct err *e)
{
	return build(from, id, args, NULL, date, out, e);
}

int mail_build_itip(const char *from, const char *message_id, const json_t *args,
		    const struct mail_calendar *cal, time_t date, struct mail_message *out,
		    struct err *e)
{
	memset(out, 0, sizeof *out);
	if (!cal || !cal->text || !cal->method ||
	    (strcmp(cal->method, "REQUEST") != 0 && strcmp(cal->method, "CANCEL") != 0))
		return err_set(e, ERR_BAD_ARGS, "an invitation's method is REQUEST or CANCEL");
	return build(from, message_id, args, cal, date, out, e);
}

char *mail_address_spec(const char *s, const char *what, struct err *e)
{
	struct addr a;
	char *spec;

	if (addr_parse(s, strlen(s), what, &a, e) != 0)
		return NULL;
	spec = a.spec;
	a.spec = NULL;
	addr_free(&a);
	return spec;
}

void mail_message_free(struct mail_message *m)
{
	for (size_t i = 0; i < m->nrcpt; i++)
		free(m->rcpt[i]);
	free(m->rcpt);
	free(m->from);
	free(m->text);
	memset(m, 0, sizeof *m);
}

int mail_configured(const struct config *cfg, struct err *e)
{
	int smtp = cfg->mail_smtp_url && *cfg->mail_smtp_url;
	int sendmail = cfg->mail_sendmail && *cfg->mail_sendmail;

	if (!smtp && !sendmail) {
		err_set(e, ERR_NO_ROUTE, "no mail route is configured: set [mail] smtp_url or "
			 "[mail] sendmail in %s/config.toml", cfg->home ? cfg->home : "HOME_M");
		return 0;
	}
	if (!cfg->mail_from || !*cfg->mail_from) {
		err_set(e, ERR_NO_ROUTE, "[mail] from is not set, so mecha has no sender");
		return 0;
	}
	return 1;
}

/* ---- SMTP through libcurl (base/smtp) ------------------------------------------- */

static int smtp_deliver(const struct config *cfg, const struct mail_message *m, struct err *e)
{
	const struct smtp_route r = { cfg->mail_smtp_url, cfg->mail_username, cfg->mail_from,
				      cfg->mail_password_env };

	return smtp_send(&r, m->from, m->rcpt, m->nrcpt, m->text, m->len, e);
}

/* ---- a sendmail-compatible command -------------------------------------------- */

/* The command split on blanks (no shell), then the recipients unless it reads them (-t). */
static char **command_argv(const char *cmd, const struct mail_message *m)
{
	char **argv = NULL;
	size_t n = 0;
	int has_t = 0;

	for (const char *p = cmd; *p;) {
		size_t len = strcspn(p, " \t");
		if (len) {
			argv = xrealloc(argv, (n + 2) * sizeof *argv);
			argv[n] = xstrndup(p, len);
			has_t |= strcmp(argv[n], "-t") == 0;
			n++;
		}
		p += len;
		p += strspn(p, " \t");
	}
	for (size_t i = 0; !has_t && i < m->nrcpt; i++) {
		argv = xrealloc(argv, (n + 2) * sizeof *argv);
		argv[n++] = xstrdup(m->rcpt[i]); /* checked: never starts with '-' */
	}
	if (argv)
		argv[n] = NULL;
	return argv;
}

static void argv_free(char **argv)
{
	for (size_t i = 0; argv && argv[i]; i++)
		free(argv[i]);
	free(argv);
}

/* The message with local line ends, which is what a sendmail reads. */
static int pipe_message(int fd, const struct mail_message *m)
{
	struct sigaction ign, old;
	struct buf b = BUF_INIT;
	int rc;

	for (size_t i = 0; i < m->len; i++)
		if (!(m->text[i] == '\r' && i + 1 < m->len && m->text[i + 1] == '\n'))
			buf_addc(&b, m->text[i]);
	/* A command that exits early must cost us an EPIPE, not our life. */
	memset(&ign, 0, sizeof ign);
	ign.sa_handler = SIG_IGN;
	sigaction(SIGPIPE, &ign, &old);
	rc = fs_write_all(fd, b.data, b.len);
	sigaction(SIGPIPE, &old, NULL);
	buf_free(&b);
	return rc;
}

static int wait_command(pid_t pid, const char *cmd, int wrote, struct err *e)
{
	int status;

	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR)
			return err_errno(e, "waiting for %s", cmd);
	if (WIFEXITED(status) && WEXITSTATUS(status) == 0 && wrote == 0)
		return 0;
	if (WIFEXITED(status) && WEXITSTATUS(status) == 0)
		return err_set(e, ERR_DELIVERY, "'%s' stopped reading the message", cmd);
	if (WIFEXITED(status))
		return err_set(e, ERR_DELIVERY, "'%s' exited with status %d", cmd,
				WEXITSTATUS(status));
	return err_set(e, ERR_DELIVERY, "'%s' was killed by signal %d", cmd, WTERMSIG(status));
}

static int sendmail_send(const struct config *cfg, const struct mail_message *m, struct err *e)
{
	char **argv = command_argv(cfg->mail_sendmail, m);
	posix_spawn_file_actions_t fa;
	int fds[2], rc, wrote;
	pid_t pid;

	if (!argv)
		return err_set(e, ERR_NO_ROUTE, "[mail] sendmail is empty");
	if (pipe2(fds, O_CLOEXEC) != 0) {
		argv_free(argv);
		return err_errno(e, "creating a pipe");
	}
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_adddup2(&fa, fds[0], 0);
	rc = posix_spawnp(&pid, argv[0], &fa, NULL, argv, environ);
	posix_spawn_file_actions_destroy(&fa);
	close(fds[0]);
	if (rc != 0) {
		close(fds[1]);
		errno = rc;
		err_errno(e, "cannot run [mail] sendmail '%s'", cfg->mail_sendmail);
		e->code = ERR_DELIVERY;
		argv_free(argv);
		return -1;
	}
	wrote = pipe_message(fds[1], m);
	close(fds[1]);
	rc = wait_command(pid, cfg->mail_sendmail, wrote, e);
	argv_free(argv);
	return rc;
}

int mail_deliver(const struct config *cfg, const struct mail_message *m, struct err *e)
{
	if (!mail_configured(cfg, e))
		return -1;
	if (cfg->mail_smtp_url && *cfg->mail_smtp_url)
		return smtp_deliver(cfg, m, e);
	return sendmail_send(cfg, m, e);
}

/* ---- the sink ------------------------------------------------------------------ */

/* What a stage must refuse that a release would otherwise encode: a subject on two lines. */
static int mail_check_draft(const json_t *args, struct err *e)
{
	const json_t *subject = json_object_get(args, "subject");

	if (mail_check_args(args, e) != 0)
		return -1;
	if (json_is_string(subject) &&
	    (memchr(json_string_value(subject), '\n', json_string_length(subject)) ||
	     memchr(json_string_value(subject), '\r', json_string_length(subject))))
		return err_set(e, ERR_BAD_ARGS, "'subject' must be a single line");
	return 0;
}

static int mail_recipient(const char *to, struct err *e)
{
	return mail_check_address(to, strlen(to), "reply_to", e);
}

static int mail_prepare(const struct config *cfg, const struct outbox_item *it, void **job,
			struct err *e)
{
	struct mail_message *m;

	if (!mail_configured(cfg, e))
		return -1;
	m = xmalloc(sizeof *m);
	if (mail_build(cfg->mail_from, it->id, it->args, time(NULL), m, e) != 0) {
		free(m);
		return -1;
	}
	*job = m;
	return 0;
}

static int mail_run(const struct config *cfg, void *job, struct err *e)
{
	return mail_deliver(cfg, job, e);
}

static void mail_discard(void *job)
{
	if (job)
		mail_message_free(job);
	free(job);
}

static const char *const mail_names[] = { "mail_send", "mail__mail_send", NULL };

const struct sink mail_sink = {
	SINK_MAIL, mail_names, mail_configured, mail_check_draft, mail_recipient,
	mail_prepare, mail_run, mail_discard,
};
