/*
 * help — the box's verbs, written once for both doors: `mecha box …`
 * (src/cli/box.c, which runs mecha-box) and mecha-box itself (main.c).
 *
 * BOX_VERBS is the one list of them: each row's name, the line the verbs
 * list shows and, by name, its help text box_help_NAME, whose first line is
 * the verb's usage line. Each door expands the list into its own table, so
 * `mecha box --help`, `mecha help box`, the completion and `mecha-box
 * --help` list the same verbs, and `mecha box VERB --help` and `mecha-box
 * VERB --help` print the same text.
 *
 * Ownership: static strings.
 */
#ifndef MECHA_BOX_HELP_H
#define MECHA_BOX_HELP_H

static const char box_help_intro[] =
	"The box: the public side of the front door, a separate program (mecha-box, installed\n"
	"beside mecha) that serves strangers' forms and the /v1 API the drain reads. It never\n"
	"holds the owner's calendar, mail or model keys. See docs/box.md.";

static const char box_help_serve[] =
	"usage: mecha box serve [--config FILE] [--data DIR] [--listen HOST:PORT]\n"
	"                       [--public-url URL] [--db PATH|URL] [--verbose]\n\n"
	"Serves the box over HTTP (HTTPS with [tls] cert and key) until SIGINT or SIGTERM.\n"
	"With no --config, --data DIR is enough: the ledger is DIR/box.db (SQLite), links\n"
	"that verification mail would carry are written to the log, and the box listens on\n"
	"--listen (127.0.0.1:8080). The access log is one JSON line per request on stderr.\n\n"
	"  --config FILE      box.toml (docs/box.md); the options below override it\n"
	"  --data DIR         the ledger and the uploaded files\n"
	"  --listen ADDR      HOST:PORT to listen on\n"
	"  --public-url URL   the URL strangers and the drain use (default http://LISTEN)\n"
	"  --db PATH|URL      the ledger: a SQLite file (default DIR/box.db), or a\n"
	"                     postgresql:// URL shared by several boxes (docs/box.md)\n"
	"  -v, --verbose      say what the sandbox could not do on this kernel\n\n"
	"Once it has read its configuration and opened its ledger, TLS pair and log, it\n"
	"may write only its data directory, listen on its port and connect only to its\n"
	"SMTP relay and database (docs/security.md).\n";

static const char box_help_owner[] =
	"usage: mecha box owner add HANDLE [--config FILE] [--data DIR] [--json] [--verbose]\n\n"
	"Creates the owner HANDLE (1-32 of a-z, 0-9, '-') and prints their first keys, one\n"
	"per scope: drain (the queue), publish (read types), release (put types), slots\n"
	"(push booking slots). Each key is shown once: the box keeps only its Argon2id hash.\n"
	"Exit 3 (handle_taken) when the owner exists.\n\n"
	"  --config FILE   box.toml\n"
	"  --data DIR      the box's data directory (without --config)\n"
	"  --json          {\"handle\", \"drain\", \"publish\", \"release\", \"slots\"}\n"
	"  -v, --verbose   say what the sandbox could not do on this kernel\n";

static const char box_help_key[] =
	"usage: mecha box key new --owner HANDLE --scope SCOPE [--label TEXT]\n"
	"                         [--config FILE] [--data DIR] [--verbose]\n\n"
	"Mints one more key for an owner and prints it, once, on a line of its own. SCOPE\n"
	"is drain, publish, release or slots.\n\n"
	"  --owner HANDLE  whose key it is\n"
	"  --scope SCOPE   what it may do\n"
	"  --label TEXT    a note kept with the key (which machine holds it)\n"
	"  --config FILE   box.toml\n"
	"  --data DIR      the box's data directory (without --config)\n"
	"  -v, --verbose   say what the sandbox could not do on this kernel\n";

static const char box_help_pair[] =
	"usage: mecha box pair --owner HANDLE [--label TEXT] [--public-url URL]\n"
	"                      [--config FILE] [--data DIR] [--json] [--verbose]\n\n"
	"Prints a one-time pairing code for the owner HANDLE and the command that uses it\n"
	"at home: `mecha pair URL CODE --handle HANDLE` exchanges it (POST /v1/pair) for the\n"
	"owner's drain, publish, release and slots keys and writes them into the home, so no\n"
	"key is copied by hand. The code is 12 letters and digits (K7QM-3XPA-9D2F; case,\n"
	"blanks and dashes do not matter), works once, for 15 minutes; the box keeps only its\n"
	"SHA-256. At most 10 codes an owner an hour (exit 3, too_many); 5 wrong tries naming\n"
	"the owner end their live codes. The URL is the box's public_url.\n\n"
	"  --owner HANDLE     whose keys the code is for\n"
	"  --label TEXT       the label the minted keys carry (default: the home's host name)\n"
	"  --public-url URL   the URL the printed command names\n"
	"  --config FILE      box.toml\n"
	"  --data DIR         the box's data directory (without --config)\n"
	"  --json             {\"handle\", \"code\", \"gate\", \"expires_at\", \"minutes\", \"command\"}\n"
	"  -v, --verbose      say what the sandbox could not do on this kernel\n";

static const char box_help_sweep[] =
	"usage: mecha box sweep [--config FILE] [--data DIR] [--json] [--verbose]\n\n"
	"Deletes what the box no longer owes anyone: submissions whose link expired,\n"
	"uploads never made (with their files), old budget rows, and files an older box\n"
	"kept in DIR that no row names (after an hour; the others are moved into the\n"
	"ledger). A queued request that was never drained is NEVER deleted, even past\n"
	"its retention date: it is counted (overdue) here and in /v1/health, and the owner\n"
	"decides. Run it hourly (docs/box.md has a systemd timer).\n\n"
	"  --config FILE   box.toml\n"
	"  --data DIR      the box's data directory (without --config)\n"
	"  --json          {\"expired_submissions\", \"expired_uploads\", \"attachments\",\n"
	"                  \"orphan_blobs\", \"budget_rows\", \"overdue_queued\", \"moved_files\"}\n"
	"  -v, --verbose   say what the sandbox could not do on this kernel\n";

/* X(NAME, "summary"): the verbs, in the order their lists show them. */
#define BOX_VERBS(X)                                                                     \
	X(serve, "serve the forms and the /v1 API (HTTP or HTTPS)")                      \
	X(owner, "owner add HANDLE: a new owner and their first keys")                   \
	X(key, "key new: one more key for an owner, printed once")                       \
	X(pair, "pair --owner HANDLE: a one-time code for `mecha pair` at home")         \
	X(sweep, "delete expired submissions and orphans (never a queued row)")

#endif
