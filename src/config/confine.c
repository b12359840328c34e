/*
 * confine — needs into places: home.h says where the stores are, the
 * configuration where the outbox, the calendar and the sendmail are.
 */
#include "config/confine.h"

#include "base/buf.h"
#include "base/err.h"
#include "base/fs.h"
#include "base/sandbox.h"
#include "config/config.h"
#include "config/home.h"

#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define CHANGES_A_STORE \
	(CONFINE_REQUESTS | CONFINE_OUTBOX | CONFINE_SESSIONS | CONFINE_MISSIONS | CONFINE_HOME)

/* Reads (or writes) a default place of the home. */
static void place(struct sandbox_policy *p, enum home_place where, int write)
{
	struct err e;
	/* Not home_default: a broken config.toml must stay readable, so the verb can say why. */
	char *path = home_path(where, &e);

	if (write)
		sandbox_write(p, path);
	else
		sandbox_read(p, path);
	free(path);
}

/* A file is replaced through a temporary file beside it: its directory is what changes. */
static void write_file_or_dir(struct sandbox_policy *p, const char *path)
{
	struct stat st;
	char *dir;

	if (stat(path, &st) == 0 && S_ISDIR(st.st_mode)) {
		sandbox_write(p, path);
		return;
	}
	dir = fs_dirname(path);
	sandbox_write(p, dir);
	free(dir);
}

/*
 * `slots push` keeps what it offered in factory/offered (drain/offered.h):
 * that directory alone, made now when the factory is there, so that the
 * first push is not granted the whole factory (its keys) to make it in.
 */
static void offered(struct sandbox_policy *p)
{
	struct err e;
	char *factory = home_path(HOME_FACTORY, &e), *dir;

	if (!factory)
		return;
	dir = fs_join(factory, "offered");
	if (fs_is_dir(factory, &e) == 1)
		(void)fs_private_dir(dir, &e); /* not made: granted where it will be */
	sandbox_write(p, dir);
	free(dir);
	free(factory);
}

static void calendar(struct sandbox_policy *p, const struct config *c, unsigned needs)
{
	if (!c->calendar_path || !*c->calendar_path)
		return;
	sandbox_read(p, c->calendar_path);
	if (needs & (CONFINE_CALENDAR_W | CONFINE_DELIVER))
		write_file_or_dir(p, c->calendar_path);
}

/* 1 when the program a command line starts with is setuid or setgid (found as a shell would). */
static int setid_program(const char *command)
{
	size_t len = strcspn(command + strspn(command, " \t"), " \t");
	char *prog = xasprintf("%.*s", (int)len, command + strspn(command, " \t"));
	const char *path = getenv("PATH");
	struct stat st;
	int setid = 0;

	if (strchr(prog, '/') || !path) {
		setid = stat(prog, &st) == 0 && (st.st_mode & (S_ISUID | S_ISGID));
	} else {
		for (const char *d = path; !setid && *d;) {
			size_t n = strcspn(d, ":");
			char *full = xasprintf("%.*s/%s", (int)n, d, prog);

			setid = stat(full, &st) == 0 && S_ISREG(st.st_mode) &&
				(st.st_mode & (S_ISUID | S_ISGID));
			free(full);
			d += n + (d[n] == ':');
		}
	}
	free(prog);
	return setid;
}

/* The person's own programs this work may run; a setuid sendmail turns confinement off. */
static void helpers(struct sandbox_policy *p, const struct config *c, unsigned needs)
{
	int sendmail = c->mail_sendmail && *c->mail_sendmail;

	if ((needs & CONFINE_EDITOR) || ((needs & CONFINE_PAGER) && isatty(STDOUT_FILENO)))
		p->helpers = 1;
	if (!(needs & CONFINE_DELIVER) || !sendmail)
		return;
	p->helpers = 1;
	/* no_new_privs, which Landlock needs, would strip the privilege it runs with */
	if (setid_program(c->mail_sendmail))
		p->off = "[mail] sendmail is a setuid or setgid program";
}

void confine_libraries(struct sandbox_policy *p, int network)
{
	static const char *const vars[] = { "TZDIR", "TERMINFO", "SSL_CERT_FILE", "SSL_CERT_DIR",
					    "CURL_CA_BUNDLE", "LOCPATH" };

	for (size_t i = 0; i < sizeof vars / sizeof *vars; i++) {
		const char *v = getenv(vars[i]);

		if (v && *v == '/')
			sandbox_read(p, v);
	}
	if (network) {
		/* /etc/resolv.conf is often a link to one of these */
		sandbox_read(p, "/run/systemd/resolve");
		sandbox_read(p, "/run/resolvconf");
	}
}

/* What libraries read, and the box's keys where the environment names them. */
static void environment(struct sandbox_policy *p, unsigned needs)
{
	confine_libraries(p, (needs & (CONFINE_PROVIDER | CONFINE_DELIVER | CONFINE_GATE)) != 0);
	if (needs & CONFINE_GATE) {
		/* The box's keys may live where $FACTORY_*_KEY says (docs/box.md). */
		static const char *const keys[] = { "FACTORY_DRAIN_KEY", "FACTORY_SLOTS_KEY",
						    "FACTORY_RELEASE_KEY" };
		for (size_t i = 0; i < sizeof keys / sizeof *keys; i++) {
			const char *k = getenv(keys[i]);
			if (k && *k == '/')
				sandbox_read(p, k);
		}
	}
}

void confine_policy(unsigned needs, struct sandbox_policy *p)
{
	struct config c;
	struct err e;
	int have = config_load(&c, &e) == 0;

	place(p, HOME_ROOT, (needs & CONFINE_HOME) != 0);
	/* This boot's id: the mission box's index is believed only in the boot that wrote it
	 * (mission/sidecar.h); unreadable, every verb's "" would match every other's. */
	sandbox_read(p, "/proc/sys/kernel/random/boot_id");
	if (have)
		sandbox_read(p, c.outbox_dir);
	if (needs & CONFINE_REQUESTS)
		place(p, HOME_REQUESTS, 1);
	if (needs & CONFINE_OUTBOX) {
		if (have)
			sandbox_write(p, c.outbox_dir);
		else
			place(p, HOME_OUTBOX, 1);
	}
	if (needs & CONFINE_SESSIONS)
		place(p, HOME_SESSIONS, 1);
	if (needs & CONFINE_OFFERED)
		offered(p);
	if (needs & CONFINE_MISSIONS)
		confine_store(needs, NULL, p);
	p->network = (needs & (CONFINE_PROVIDER | CONFINE_DELIVER | CONFINE_GATE)) != 0;
	p->create = (needs & CONFINE_CREATE) != 0;
	if (have && (needs & (CONFINE_CALENDAR | CONFINE_CALENDAR_W | CONFINE_DELIVER)))
		calendar(p, &c, needs);
	if (have)
		helpers(p, &c, needs);
	environment(p, needs);
	if (have)
		config_free(&c);
}

void confine_store(unsigned needs, const char *path, struct sandbox_policy *p)
{
	struct err e;
	char *box = path ? fs_expand_home(path) : home_path(HOME_MISSION_BOX, &e);
	char *dir = box ? fs_dirname(box) : NULL;

	/* the box's directory: its blocks and its lock live beside it */
	if (dir && (needs & CHANGES_A_STORE))
		sandbox_write(p, dir);
	else
		sandbox_read(p, dir);
	free(dir);
	free(box);
}
