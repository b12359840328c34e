"""A throw-away PostgreSQL cluster for the box's tests (Debian `postgresql`).

PgCluster(directory).start() runs initdb and starts a postgres on a free
loopback port (no unix socket: nothing outside the directory is touched),
with durability off — a cluster that lives for one test session needs none.
When the tests run as root the cluster belongs to `nobody` (PostgreSQL
refuses to run as root): the directory is handed to that user, and every
server program runs under setpriv. .database() makes a fresh database and
returns its URL; .drop(url) removes it; .sql(url, text) runs SQL through
psql; .dump(url) is pg_dump's text; .stop() stops the server and removes
the directory, so a run leaves nothing.

PgCluster.missing() says why a cluster cannot be had here (None when it can):
the tests skip with that reason.
"""
import itertools
import os
import pathlib
import pwd
import shutil
import stat
import subprocess

from ports import free_port

BIN = pathlib.Path(os.environ.get("PG_BIN", "/usr/lib/postgresql/15/bin"))
PROGRAMS = ("initdb", "pg_ctl", "postgres", "psql", "pg_dump")
USER = "nobody"


def unreachable_ancestor(path, uid):
    """The first directory above path that uid may not pass through, or None."""
    for d in path.resolve().parents:
        st = d.stat()
        if not (st.st_mode & stat.S_IXOTH or (st.st_uid == uid and st.st_mode & stat.S_IXUSR)):
            return d
    return None


class PgCluster:
    @staticmethod
    def missing():
        absent = [p for p in PROGRAMS if not (BIN / p).is_file()]
        if absent:
            return (f"PostgreSQL is not installed ({', '.join(absent)} missing in {BIN}; "
                    "Debian package postgresql, in the Makefile's DEB_PKGS)")
        if os.geteuid() == 0 and not shutil.which("setpriv"):
            return "running as root, and setpriv (util-linux) is missing to run postgres as nobody"
        return None

    def __init__(self, directory):
        self.dir = pathlib.Path(directory)
        self.data = self.dir / "data"
        self.log = self.dir / "postgres.log"
        self.port = None
        self.names = itertools.count(1)
        self.as_user = []
        if os.geteuid() == 0:
            pw = pwd.getpwnam(USER)
            self.as_user = ["setpriv", f"--reuid={pw.pw_uid}", f"--regid={pw.pw_gid}",
                            "--clear-groups", "--"]
            self.hand_over(pw)

    def hand_over(self, pw):
        """The directory is nobody's; the session directories above it, ours, are made
        passable (not readable) so that nobody can reach it."""
        for d in reversed(self.dir.resolve().parents):
            if d.stat().st_uid == 0 and not d.stat().st_mode & stat.S_IXOTH \
                    and str(d).startswith(os.environ.get("TMPDIR", "\0")):
                d.chmod(d.stat().st_mode | stat.S_IXOTH)
        blocked = unreachable_ancestor(self.dir, pw.pw_uid)
        if blocked:
            raise RuntimeError(f"{blocked} cannot be passed by {USER}: the cluster needs it")
        os.chown(self.dir, pw.pw_uid, pw.pw_gid)

    def server(self, *argv, check=True):
        return subprocess.run([*self.as_user, str(BIN / argv[0]), *argv[1:]], cwd=self.dir,
                              stdout=subprocess.PIPE, stderr=subprocess.STDOUT, timeout=120,
                              check=check)

    def start(self):
        self.server("initdb", "-D", str(self.data), "-U", "postgres", "-A", "trust",
                    "--no-sync", "-E", "UTF8", "--locale=C")
        for _ in range(5):  # another process may take the free port first
            self.port = free_port()
            opts = (f"-c listen_addresses=127.0.0.1 -p {self.port} -c unix_socket_directories='' "
                    "-c fsync=off -c synchronous_commit=off -c full_page_writes=off "
                    "-c max_connections=200")
            p = self.server("pg_ctl", "-D", str(self.data), "-l", str(self.log), "-o", opts,
                            "-w", "-t", "60", "start", check=False)
            if p.returncode == 0:
                return self
        raise RuntimeError("postgres did not start:\n" + p.stdout.decode() +
                           (self.log.read_text() if self.log.exists() else ""))

    def stop(self):
        if self.data.exists():
            self.server("pg_ctl", "-D", str(self.data), "-m", "immediate", "-w", "stop",
                        check=False)
        shutil.rmtree(self.dir, ignore_errors=True)

    def url(self, database, user="postgres", password=None):
        who = f"{user}:{password}" if password else user
        return f"postgresql://{who}@127.0.0.1:{self.port}/{database}"

    def psql(self, database, sql):
        p = subprocess.run([str(BIN / "psql"), "-X", "-q", "-A", "-t", "-F", "\t",
                            "-v", "ON_ERROR_STOP=1", "-d", self.url(database), "-c", sql],
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=60)
        if p.returncode != 0:
            raise RuntimeError(f"psql {sql!r}: {p.stderr.decode()}")
        return p.stdout.decode()

    def database(self):
        name = f"box_{os.getpid()}_{next(self.names)}"
        # FILE_COPY: with fsync off, copying template1's files beats logging them (PG 15's default)
        self.psql("postgres", f"CREATE DATABASE {name} STRATEGY FILE_COPY")
        return self.url(name)

    def drop(self, url):
        self.psql("postgres", f"DROP DATABASE IF EXISTS {url.rsplit('/', 1)[1]} WITH (FORCE)")

    def sql(self, url, text):
        """The rows of one statement, as tuples (whole numbers as ints)."""
        out = self.psql(url.rsplit("/", 1)[1], text)
        return [tuple(int(c) if c.lstrip("-").isdigit() else c for c in line.split("\t"))
                for line in out.splitlines()]

    def dump(self, url):
        p = subprocess.run([str(BIN / "pg_dump"), "-d", url], stdout=subprocess.PIPE,
                           stderr=subprocess.PIPE, timeout=60, check=True)
        return p.stdout
