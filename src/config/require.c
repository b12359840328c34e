/*
 * require — what a verb about to call a model, send or read the calendar
 * needs from this machine beyond what config.toml says: the variables it
 * names set, the program it names runnable, the calendar it names there.
 * Checked before the verb changes anything, so a missing password stops
 * `approve` before a draft is claimed, not after.
 */
#include "config/config.h"

#include "base/buf.h"
#include "base/err.h"
#include "base/text.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* "FILE:LINE: " when the setting came from a file, else nothing. */
static void where(struct buf *b, const struct config *c, int line)
{
	if (c->path && line > 0)
		buf_printf(b, "%s:%d: ", c->path, line);
}

static int refuse(struct err *e, struct buf *b)
{
	err_set(e, ERR_CONFIG, "%s", buf_str(b));
	buf_free(b);
	return -1;
}

static int env_set(const char *name)
{
	const char *v = getenv(name);

	return v && *v;
}

static int need_model(const struct config *c, struct err *e)
{
	const struct config_provider *p = config_provider_named(c, c->default_provider);
	struct buf b = BUF_INIT;

	if (!p || !p->api_key_env || !*p->api_key_env || env_set(p->api_key_env))
		return 0;
	where(&b, c, p->api_key_env_line);
	buf_printf(&b, "[providers.%s] api_key_env names %s, which is not set in the environment: "
		   "export the key there (it never goes in config.toml)", p->name, p->api_key_env);
	return refuse(e, &b);
}

static int runnable(const char *file)
{
	struct stat st;

	return stat(file, &st) == 0 && S_ISREG(st.st_mode) && access(file, X_OK) == 0;
}

/* As posix_spawnp finds it: a name with a slash as it is, else along $PATH. */
static int program_runs(const char *name)
{
	const char *path = getenv("PATH");
	char *dirs, *dir, *save = NULL;
	int found = 0;

	if (strchr(name, '/'))
		return runnable(name);
	dirs = xstrdup(path && *path ? path : "/usr/local/bin:/usr/bin:/bin");
	for (dir = strtok_r(dirs, ":", &save); dir && !found; dir = strtok_r(NULL, ":", &save)) {
		char *file = xasprintf("%s/%s", *dir ? dir : ".", name);
		found = runnable(file);
		free(file);
	}
	free(dirs);
	return found;
}

static int need_sendmail(const struct config *c, struct err *e)
{
	const char *cmd = c->mail_sendmail + strspn(c->mail_sendmail, " \t");
	char *prog = xstrndup(cmd, strcspn(cmd, " \t"));
	struct buf b = BUF_INIT;

	if (*prog && program_runs(prog)) {
		free(prog);
		return 0;
	}
	where(&b, c, c->mail_sendmail_line);
	buf_adds(&b, "[mail] sendmail runs '");
	text_safe(&b, prog, strlen(prog), 0);
	buf_adds(&b, "', which is not a program here (an executable file, or one on $PATH)");
	free(prog);
	return refuse(e, &b);
}

static int need_mail(const struct config *c, struct err *e)
{
	struct buf b = BUF_INIT;

	if (!c->mail_smtp_url || !*c->mail_smtp_url)
		return c->mail_sendmail && *c->mail_sendmail ? need_sendmail(c, e) : 0;
	if (!c->mail_password_env || !*c->mail_password_env || env_set(c->mail_password_env))
		return 0;
	where(&b, c, c->mail_password_env_line);
	buf_printf(&b, "[mail] password_env names %s, which is not set in the environment: "
		   "export the SMTP password there before sending", c->mail_password_env);
	return refuse(e, &b);
}

static int need_calendar(const struct config *c, struct err *e)
{
	struct buf b = BUF_INIT;
	struct stat st;

	if (!c->calendar_path || !*c->calendar_path || stat(c->calendar_path, &st) == 0)
		return 0;
	if (errno != ENOENT)
		return err_errno(e, "reading the calendar %s", c->calendar_path);
	where(&b, c, c->calendar_path_line);
	buf_adds(&b, "[calendar] path names ");
	text_safe(&b, c->calendar_path, strlen(c->calendar_path), 0);
	buf_adds(&b, ", which does not exist");
	return refuse(e, &b);
}

int config_require(const struct config *c, unsigned needs, struct err *e)
{
	if ((needs & CONFIG_NEEDS_MODEL) && need_model(c, e) != 0)
		return -1;
	if ((needs & CONFIG_NEEDS_MAIL) && need_mail(c, e) != 0)
		return -1;
	if ((needs & CONFIG_NEEDS_CALENDAR) && need_calendar(c, e) != 0)
		return -1;
	return 0;
}
