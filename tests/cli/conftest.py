"""Shared fixtures for the black-box CLI tests.

Every test gets its own MECHA_HOME under pytest's tmp_path and runs the real
binary (MECHA_BIN, set by `make cli`; build/test/mecha, the test build, otherwise).

The run leaves nothing behind: every temporary file of the session — pytest's
tmp_path directories, and whatever a test, the binary or a helper server puts
in $TMPDIR — goes under one directory made for the session, which is removed at
the end; anything found there outside pytest's own tmp_path tree fails the run.
Every test also runs in a working directory of its own under that tree, so a
relative path cannot land in the checkout; and the run fails if the checkout's
`git status` (untracked and modified files) differs after it from before it —
a developer's uncommitted work is compared, never required to be clean.
"""
import json
import os
import pathlib
import shutil
import subprocess
import tempfile

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]
BIN = os.environ.get("MECHA_BIN", str(ROOT / "build" / "test" / "mecha"))
TYPE_FIXTURES = ROOT / "tests" / "fixtures" / "types"


# -- one temporary directory for the whole session, removed at the end ------------
SESSION_TMP = None
BASETEMP = "pytest"


@pytest.hookimpl(tryfirst=True)
def pytest_configure(config):
    """Points TMPDIR (for this process and every child) at a directory of the
    session's own, and pytest's tmp_path tree inside it. Runs before pytest's
    tmpdir plugin reads --basetemp."""
    global SESSION_TMP
    SESSION_TMP = pathlib.Path(tempfile.mkdtemp(prefix="mecha-cli-tests."))
    os.environ["TMPDIR"] = str(SESSION_TMP)
    tempfile.tempdir = str(SESSION_TMP)
    if not config.option.basetemp:
        config.option.basetemp = str(SESSION_TMP / BASETEMP)
    global TREE_BEFORE
    TREE_BEFORE = tree_status()


# -- the checkout is as the run found it ----------------------------------------------
TREE_BEFORE = None


def tree_status():
    """The checkout's untracked and modified files, with what each holds now (so
    a file already dirty that a test changes again is seen); None outside git."""
    try:
        p = subprocess.run(["git", "-C", str(ROOT), "status", "--porcelain=v1", "-z",
                            "--untracked-files=all"], stdout=subprocess.PIPE,
                           stderr=subprocess.DEVNULL, timeout=60, check=False)
    except (OSError, subprocess.TimeoutExpired):
        return None
    if p.returncode != 0:
        return None
    status = {}
    for entry in p.stdout.decode(errors="replace").split("\0"):
        if len(entry) < 4:
            continue
        path = ROOT / entry[3:]
        try:
            stamp = (path.stat().st_size, path.stat().st_mtime_ns)
        except OSError:
            stamp = None
        status[entry[3:]] = (entry[:2], stamp)
    return status


def tree_changes():
    after = tree_status()
    if TREE_BEFORE is None or after is None:
        return []
    return sorted(path for path in set(TREE_BEFORE) | set(after)
                  if TREE_BEFORE.get(path) != after.get(path))


@pytest.fixture(autouse=True)
def throwaway_cwd(tmp_path_factory, monkeypatch):
    """Each test in an empty working directory of its own, not the checkout."""
    monkeypatch.chdir(tmp_path_factory.mktemp("cwd"))


def leftovers():
    """What the session left in its TMPDIR besides pytest's tmp_path tree."""
    return sorted(p.name for p in SESSION_TMP.iterdir() if p.name != BASETEMP)


def pytest_sessionfinish(session, exitstatus):
    reporter = session.config.pluginmanager.get_plugin("terminalreporter")
    left = leftovers()
    if left:
        if reporter:
            reporter.write_line(f"tests left files in TMPDIR ({SESSION_TMP}): {', '.join(left)}",
                                red=True)
        session.exitstatus = pytest.ExitCode.TESTS_FAILED
    changed = tree_changes()
    if changed:
        if reporter:
            reporter.write_line(f"tests changed the checkout ({ROOT}): {', '.join(changed)}",
                                red=True)
        session.exitstatus = pytest.ExitCode.TESTS_FAILED


def pytest_unconfigure(config):
    if SESSION_TMP is not None:
        shutil.rmtree(SESSION_TMP, ignore_errors=True)


class Mecha:
    def __init__(self, home: pathlib.Path, tmp: pathlib.Path):
        self.home = home
        self.tmp = tmp
        self.env = {
            k: v for k, v in os.environ.items()
            if not k.startswith("MECHA_") or k == "MECHA_BIN"
        }
        self.env["MECHA_HOME"] = str(home)
        self.env["HOME"] = str(tmp)
        self.env.pop("NO_COLOR", None)
        # The listing's kept digest (requests/.listed) keeps a record's fields once its
        # file is 20 ms old here, 2 s at home: every test that lists a store twice
        # also checks that what was kept never hides a change (base/fs.h, FS_SETTLED_MS).
        self.env["MECHA_TEST_SETTLED_MS"] = "20"

    def run(self, *args, input=None, env=None, timeout=60, check=None):
        e = dict(self.env)
        if env:
            e.update(env)
        p = subprocess.run(
            [BIN, *[str(a) for a in args]],
            input=input.encode() if isinstance(input, str) else input,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            env=e,
            timeout=timeout,
        )
        p.out = p.stdout.decode("utf-8", "replace")
        p.err = p.stderr.decode("utf-8", "replace")
        if check is not None:
            assert p.returncode == check, (
                f"mecha {' '.join(map(str, args))} exited {p.returncode}, "
                f"wanted {check}\nstdout:\n{p.out}\nstderr:\n{p.err}"
            )
        return p

    def json(self, *args, **kw):
        p = self.run(*args, check=0, **kw)
        return json.loads(p.out)

    # -- request records ----------------------------------------------------
    @property
    def requests(self) -> pathlib.Path:
        return self.home / "requests"

    def install_type(self, type_id="meeting"):
        """Installs tests/fixtures/types/<type_id>.toml as the home's manifest of it."""
        d = self.home / "factory" / "types"
        d.mkdir(parents=True, exist_ok=True, mode=0o700)
        os.chmod(d.parent, 0o700)  # the factory is private, as `mecha init` makes it
        dst = d / f"{type_id}.toml"
        if not dst.exists():
            shutil.copy(TYPE_FIXTURES / f"{type_id}.toml", dst)
            os.chmod(dst, 0o600)
        return dst

    def write_record(self, seq=1, type_id="meeting", raw=None, manifest=True, **fields):
        """Writes a request record as the drain would; returns its path. A meeting's
        home gets the meeting manifest (a brief is built only against the home's
        own manifest of the type: src/requests/grammar.h) unless manifest=False."""
        self.requests.mkdir(parents=True, exist_ok=True, mode=0o700)
        if manifest and type_id == "meeting":
            self.install_type("meeting")
        rec = {
            "seq": seq,
            "type_id": type_id,
            "state": "drained",
            "created_at": "2026-08-06T00:00:00Z",
            "drained_at": "2026-08-06T01:00:00Z",
            "valid": True,
            "values": {"purpose": "collaboration", "duration_minutes": 45},
            "free_text": [],
        }
        rec.update(fields)
        path = self.requests / f"{seq:010d}-{type_id}.json"
        path.write_text(raw if raw is not None else json.dumps(rec, indent=2))
        os.chmod(path, 0o600)
        return path

    def read_record(self, seq, type_id="meeting"):
        return json.loads((self.requests / f"{seq:010d}-{type_id}.json").read_text())


@pytest.fixture
def mecha(tmp_path):
    """A home that is there (0700) and empty: a home that is not there is an error
    for every verb but init and doctor (a test of that removes it first)."""
    home = tmp_path / "home"
    home.mkdir(mode=0o700)
    return Mecha(home, tmp_path)


# -- the outbox: config.toml and a real SMTP server on loopback --------------
def write_config(mecha, text):
    """Writes HOME_M/config.toml (the home is created 0700 if needed)."""
    mecha.home.mkdir(parents=True, exist_ok=True, mode=0o700)
    path = mecha.home / "config.toml"
    path.write_text(text)
    return path


@pytest.fixture
def smtp_sink(tmp_path):
    """An aiosmtpd server on 127.0.0.1 that stores every message it accepts."""
    import sys

    sys.path.insert(0, str(ROOT / "tests" / "support"))
    from smtp_sink import SmtpSink

    sink = SmtpSink(tmp_path / "smtp-received").start()
    yield sink
    sink.stop()


# -- the scripted model server (tests/support/model_server.py) ---------------
class ModelServer:
    """A running model_server.py: both wire formats, scripted replies, and a
    log of every request it received (see that file for the script entries).

    .url is the server's root: an openai provider's base_url is url + "/v1",
    an anthropic provider's is url itself (base_url(kind) says which)."""

    def __init__(self, workdir: pathlib.Path, script=None, default=None):
        import sys
        import time

        workdir.mkdir(parents=True, exist_ok=True)
        self.log = workdir / "requests.jsonl"
        port_file = workdir / "port"
        argv = [sys.executable if os.path.exists(sys.executable) else "/usr/bin/python3",
                str(ROOT / "tests" / "support" / "model_server.py"),
                "--port-file", str(port_file), "--log", str(self.log)]
        if default is not None:
            argv += ["--default", json.dumps(default)]
        self.proc = subprocess.Popen(argv, stdout=subprocess.DEVNULL)
        deadline = time.time() + 10
        while not port_file.exists():
            if self.proc.poll() is not None or time.time() > deadline:
                raise RuntimeError("the model server did not start")
            time.sleep(0.02)
        self.port = int(port_file.read_text())
        self.url = f"http://127.0.0.1:{self.port}"
        if script is not None:
            self.script(script)

    def base_url(self, kind):
        return self.url + "/v1" if kind == "openai" else self.url

    def _control(self, what, value):
        import urllib.request

        # No proxy, whatever the environment says: this is loopback.
        opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))
        req = urllib.request.Request(f"{self.url}/_control/{what}",
                                     data=json.dumps(value).encode(), method="POST")
        with opener.open(req, timeout=10) as r:
            r.read()

    def script(self, entries):
        """Replaces the script: one entry per coming request, in order."""
        self._control("script", list(entries))

    def default(self, entry):
        """The reply once the script has run out."""
        self._control("default", entry)

    def requests(self):
        """Every request received so far: {path, wire, headers, body, ...}."""
        if not self.log.exists():
            return []
        return [json.loads(line) for line in self.log.read_text().splitlines() if line]

    def config_toml(self, kind="openai", name="scripted", model="test-model",
                    api_key_env=None, timeout_s=20):
        """A config.toml making this server the default provider."""
        text = (f'default_provider = "{name}"\n[providers.{name}]\nkind = "{kind}"\n'
                f'base_url = "{self.base_url(kind)}"\nmodel = "{model}"\n'
                f"timeout_s = {timeout_s}\n")
        if api_key_env:
            text += f'api_key_env = "{api_key_env}"\n'
        return text

    def stop(self):
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=5)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()


@pytest.fixture
def model_server(tmp_path):
    """A scripted model server on loopback, stopped after the test."""
    server = ModelServer(tmp_path / "model-server")
    yield server
    server.stop()


# -- the box's ledger: SQLite, and PostgreSQL on a throw-away cluster ----------
@pytest.fixture(scope="session")
def pg_cluster(tmp_path_factory):
    """One PostgreSQL cluster for the session (tests/support/pg_cluster.py), stopped
    and removed at the end; the tests that need it skip, saying why, without one."""
    import sys

    sys.path.insert(0, str(ROOT / "tests" / "support"))
    from pg_cluster import PgCluster

    why = PgCluster.missing()
    if why:
        pytest.skip(why)
    try:
        cluster = PgCluster(tmp_path_factory.mktemp("pg"))
    except RuntimeError:
        # A checkout the server's user cannot reach (a clone under /root, as CI's
        # may be): the cluster lives in a directory of its own under /tmp instead,
        # which stop() removes like any other.
        import tempfile
        cluster = PgCluster(tempfile.mkdtemp(prefix="mecha-pg-", dir="/tmp"))
    try:
        yield cluster.start()
    finally:
        cluster.stop()


@pytest.fixture(params=["sqlite", "postgresql"])
def box_ledger(request):
    """Each box test once per backend (box_fixture.Box reads box_fixture.LEDGER):
    SQLite in the box's data directory, or PostgreSQL: every Box the test makes
    gets a fresh database of the session's cluster, dropped after the test. A
    module asks for it with pytestmark = pytest.mark.usefixtures("box_ledger")."""
    import box_fixture

    if request.param == "sqlite":
        yield None
        return
    databases = box_fixture.PgDatabases(request.getfixturevalue("pg_cluster"))
    box_fixture.LEDGER = databases
    try:
        yield databases
    finally:
        box_fixture.LEDGER = None
        databases.drop_all()
