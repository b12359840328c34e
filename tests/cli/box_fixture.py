"""A real `mecha box serve` on loopback, for the box's tests.

Box(tmp_path, **limits) writes a box.toml (SQLite in a data directory, a free
port on 127.0.0.1), creates the owner `ada` with `mecha box owner add` (its
first keys in .keys), starts the server and waits for its "listening" line.
.request() speaks HTTP/1.1 to it with http.client (no proxy, ever: this is
loopback); .seed() runs tests/support/box_seed (BOX_SEED) against its ledger,
which is how a test gets queued rows without any test-only route; .log()
reads the access log (JSON lines on stderr). .stop() sends SIGTERM.

The ledger is the SQLite file data/box.db, or — under conftest's box_ledger
fixture, which runs a module's tests once per backend — a fresh database of a
throw-away PostgreSQL cluster. .sql() and .dump() reach either.
"""
import http.client
import json
import os
import pathlib
import subprocess
import sys
import time

from conftest import BIN, ROOT

sys.path.insert(0, str(ROOT / "tests" / "support"))
from ports import free_port  # noqa: E402 (re-exported to the box tests)

SEED = os.environ.get("BOX_SEED", str(ROOT / "build" / "test" / "tests" / "box_seed"))

# Set by conftest's box_ledger fixture while a test runs on PostgreSQL: where a
# Box made without db= gets its database. None: SQLite in the box's data directory.
LEDGER = None


# The prologue every test type shares: its id, version 1 and title (a booking's
# kind, a description), the visitor's email as the first field and the
# verification by it. fields: the [[fields]] after the email (each block
# starting with a blank line); verification: more lines of [verification];
# after: the sections that follow it (starting with a blank line).
EMAIL_FIELD = '[[fields]]\nname = "email"\nlabel = "Your email"\nkind = "email"\nrequired = true\n'


def manifest(type_id, title, fields="", *, kind=None, description=None, verification="",
             after=""):
    head = f'id = "{type_id}"\nversion = 1\ntitle = "{title}"\n'
    if kind:
        head += f'kind = "{kind}"\n'
    if description:
        head += f'description = "{description}"\n'
    return (head + "\n" + EMAIL_FIELD + fields + '\n[verification]\nfield = "email"\n'
            + verification + after)


class PgDatabases:
    """Fresh databases of one cluster for one test, all dropped after it."""

    def __init__(self, cluster):
        self.cluster = cluster
        self.urls = []

    def new(self):
        self.urls.append(self.cluster.database())
        return self.urls[-1]

    def drop_all(self):
        for url in self.urls:
            self.cluster.drop(url)


class Box:
    def __init__(self, tmp_path, owner="ada", extra="", db=None, pg=None, **limits):
        """db: the URL of a database of the PostgreSQL cluster pg (tests/support/pg_cluster.py)
        to use, e.g. two boxes on one database; by default the backend box_ledger chose
        (a SQLite file in the data directory otherwise)."""
        self.dir = tmp_path / "box"
        self.data = self.dir / "data"
        self.dir.mkdir(parents=True, exist_ok=True)
        self.pg = pg or (LEDGER.cluster if LEDGER else None)
        self.db = db or (LEDGER.new() if LEDGER else self.data / "box.db")
        self.config = self.dir / "box.toml"
        self.stderr = self.dir / "stderr.log"
        self.proc = None
        self.limits = {"requests_per_minute": 100000, **limits}
        self.extra = extra
        self.keys = self.mecha("owner", "add", owner, "--json", check=0).json() if owner else {}

    def write_config(self, port):
        lines = [f'listen = "127.0.0.1:{port}"', f'data = "{self.data}"',
                 f'db = "{self.db}"', self.extra, "[limits]"] + [f"{k} = {v}" for k, v in self.limits.items()]
        self.config.write_text("\n".join(lines) + "\n")

    def mecha(self, *args, check=None, config=True, env=None):
        if config and not self.config.exists():
            self.write_config(free_port())
        argv = [BIN, "box", args[0], *args[1:]]
        if config:
            argv += ["--config", str(self.config)]
        p = subprocess.run(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=60,
                           env={**os.environ, **(env or {})})
        p.out, p.err = p.stdout.decode(), p.stderr.decode()
        p.json = lambda: json.loads(p.out)
        if check is not None:
            assert p.returncode == check, f"{argv} exited {p.returncode}\n{p.out}\n{p.err}"
        return p

    def start(self, *args, env=None):
        """Serves with --config and args, the environment plus env."""
        for _ in range(10):  # another process may take the free port first
            self.port = free_port()
            self.write_config(self.port)
            err = open(self.stderr, "wb")
            self.proc = subprocess.Popen([BIN, "box", "serve", "--config", str(self.config),
                                          *args], env={**os.environ, **(env or {})},
                                         stdout=subprocess.DEVNULL, stderr=err)
            err.close()
            deadline = time.time() + 15
            while time.time() < deadline and self.proc.poll() is None:
                if b'"event":"listening"' in self.stderr.read_bytes():
                    return self
                time.sleep(0.02)
            self.stop()
        raise RuntimeError("mecha box serve did not start:\n" + self.stderr.read_text())

    def stop(self):
        if self.proc and self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=30)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()

    def request(self, method, path, body=None, key=None, headers=None, timeout=30):
        """(status, headers dict with lower-case names, body bytes)."""
        c = http.client.HTTPConnection("127.0.0.1", self.port, timeout=timeout)
        h = dict(headers or {})
        if key:
            h["Authorization"] = f"Bearer {self.keys.get(key, key)}"
        if isinstance(body, (dict, list)):
            body = json.dumps(body)
        c.request(method, path, body=body, headers=h)
        r = c.getresponse()
        out = (r.status, {k.lower(): v for k, v in r.getheaders()}, r.read())
        c.close()
        return out

    def json(self, method, path, **kw):
        status, _, body = self.request(method, path, **kw)
        return status, json.loads(body)

    def seed(self, *args):
        p = subprocess.run([SEED, args[0], str(self.db), *map(str, args[1:])],
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=60)
        assert p.returncode == 0, p.stderr.decode()
        return p.stdout.decode().strip()

    def queue(self, payload, *files, type_id="meeting", retain_until=None):
        extra = ["--retain-until", retain_until] if retain_until else []
        return int(self.seed("queue", self.data, "ada", type_id, json.dumps(payload), *extra,
                             *files))

    def sql(self, text):
        """The rows of one SQL statement run on the box's ledger, as tuples: what a
        test uses to let time pass (an expiry moved into the past)."""
        if self.pg:
            return self.pg.sql(str(self.db), text)
        import sqlite3
        with sqlite3.connect(str(self.db), timeout=10, isolation_level=None) as db:
            return db.execute(text).fetchall()

    def attachment_bytes(self, attachment_id):
        """The bytes the ledger holds for an attachment (None when it holds none)."""
        hexed = "encode(bytes, 'hex')" if self.pg else "hex(bytes)"
        rows = self.sql(f"SELECT 'x' || {hexed} FROM attachment_parts "
                        f"WHERE id = '{attachment_id}' ORDER BY n")
        return bytes.fromhex("".join(r[0][1:] for r in rows)) if rows else None

    def set_attachment_bytes(self, attachment_id, data):
        """Replaces an attachment's bytes in the ledger by data (one part; a tamperer)."""
        literal = f"decode('{data.hex()}', 'hex')" if self.pg else f"X'{data.hex()}'"
        self.sql(f"DELETE FROM attachment_parts WHERE id = '{attachment_id}'")
        self.sql(f"INSERT INTO attachment_parts (id, n, bytes) VALUES "
                 f"('{attachment_id}', 0, {literal})")

    def dump(self):
        """Everything the ledger stores, as bytes (the file; pg_dump's text)."""
        return self.pg.dump(str(self.db)) if self.pg else self.db.read_bytes()

    def log(self):
        return [json.loads(line) for line in self.stderr.read_text().splitlines()
                if line.startswith("{")]


def box_fixture(tmp_path, **kw):
    return Box(tmp_path, **kw).start()
