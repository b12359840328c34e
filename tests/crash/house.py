"""The house the crash and race rounds run in: a MECHA_HOME under $TMPDIR, the
real binary, and the real loopback servers of tests/support (two scripted
model servers — one answers extraction, one answers triage — and the SMTP
sink, in this process), and, for the writers that need one, a real `mecha box
serve` on loopback (the gate: tests/cli/box_fixture.Box, SQLite under the house).

Everything started here is started in a process group of its own and killed
by that group; everything written here is under one directory that close()
removes. Nothing is written to /tmp unless $TMPDIR says so.
"""
import datetime
import hashlib
import json
import os
import pathlib
import shutil
import signal
import sqlite3
import subprocess
import sys
import tempfile
import threading
import time
import types
import urllib.request

ROOT = pathlib.Path(__file__).resolve().parents[2]
BIN = os.environ.get("MECHA_BIN", str(ROOT / "build" / "test" / "mecha"))
STATE_TABLE = os.environ.get("MECHA_STATE_TABLE", str(ROOT / "build" / "test" / "tests" / "state_table"))
PYTHON = "/usr/bin/python3" if os.path.exists("/usr/bin/python3") else sys.executable

sys.path.insert(0, str(ROOT / "tests" / "support"))
sys.path.insert(0, str(ROOT / "tests" / "cli"))
from smtp_sink import SmtpSink  # noqa: E402

EXTRACTION = {
    "reading": "wants to talk", "topic": "a talk", "urgency_claimed": "none",
    "dates_mentioned": [], "institution": "", "reads_like_instructions": False,
}
FROM = "Me Myself <me@example.org>"
SCHEMA = "m1nd-mission-letter-v0"
T0 = "2026-07-09T00:00:00Z"
# The box counts its queue from here, so a drained record never takes a seq the
# house's own records use (Counter counts from 1).
GATE_SEQ0 = 1_000_000


# -- processes ----------------------------------------------------------------------
class Run:
    """What one process did: its exit status (negative: the signal), output, and
    whether we killed it (killed) or it died of a named test hook (hooked)."""

    def __init__(self, argv, rc, out, err, killed, elapsed, timed_out=False):
        self.argv, self.rc, self.out, self.err = argv, rc, out, err
        self.killed, self.elapsed, self.timed_out = killed, elapsed, timed_out

    @property
    def hooked(self):
        return self.rc == -signal.SIGKILL and not self.killed


def start(argv, env, stdin_bytes=None):
    """A process in a group of its own, its input written and closed."""
    p = subprocess.Popen(argv, env=env, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE, start_new_session=True)
    chunks = {"out": b"", "err": b""}

    def pump(name, f):
        chunks[name] = f.read()

    threads = [threading.Thread(target=pump, args=("out", p.stdout), daemon=True),
               threading.Thread(target=pump, args=("err", p.stderr), daemon=True)]
    for t in threads:
        t.start()

    def feed():
        try:
            if stdin_bytes:
                p.stdin.write(stdin_bytes)
            p.stdin.close()
        except (BrokenPipeError, OSError):
            pass

    feeder = threading.Thread(target=feed, daemon=True)
    feeder.start()
    return p, threads + [feeder], chunks


def killpg(p):
    try:
        os.killpg(p.pid, signal.SIGKILL)
    except ProcessLookupError:
        pass


def finish(p, threads, chunks, argv, killed, t0, timeout=60):
    timed_out = False
    try:
        rc = p.wait(timeout=max(0.1, t0 + timeout - time.monotonic()))
    except subprocess.TimeoutExpired:
        killpg(p)
        rc = p.wait()
        killed = timed_out = True
    for t in threads:
        t.join(timeout=10)
    return Run(argv, rc, chunks["out"].decode("utf-8", "replace"),
               chunks["err"].decode("utf-8", "replace"), killed, time.monotonic() - t0,
               timed_out)


def run_killed(argv, env, stdin_bytes=None, delay=None, until=None, timeout=60):
    """Runs argv; SIGKILLs its group after `delay` seconds, or once until() is
    true (polled), unless it exited first. Returns a Run."""
    t0 = time.monotonic()
    p, threads, chunks = start(argv, env, stdin_bytes)
    killed = False
    if delay is not None:
        try:
            p.wait(timeout=delay)
        except subprocess.TimeoutExpired:
            killpg(p)
            killed = True
    elif until is not None:
        deadline = t0 + timeout
        while p.poll() is None and time.monotonic() < deadline:
            if until():
                killpg(p)
                killed = True
                break
            time.sleep(0.002)
    return finish(p, threads, chunks, argv, killed, t0, timeout)


# -- the model servers ----------------------------------------------------------------
class ModelServer:
    """tests/support/model_server.py in a process group of its own."""

    def __init__(self, workdir, default=None):
        workdir.mkdir(parents=True, exist_ok=True)
        port_file = workdir / "port"
        argv = [PYTHON, str(ROOT / "tests" / "support" / "model_server.py"),
                "--port-file", str(port_file)]
        if default is not None:
            argv += ["--default", json.dumps(default)]
        # Its stderr (a traceback for every client killed mid-request) is noise here.
        self.proc = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                                     start_new_session=True)
        deadline = time.time() + 15
        while not port_file.exists():
            if self.proc.poll() is not None or time.time() > deadline:
                self.stop()
                raise RuntimeError("the model server did not start")
            time.sleep(0.02)
        self.url = f"http://127.0.0.1:{int(port_file.read_text())}"
        self._opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))

    def control(self, what, value):
        req = urllib.request.Request(f"{self.url}/_control/{what}",
                                     data=json.dumps(value).encode(), method="POST")
        with self._opener.open(req, timeout=10) as r:
            r.read()

    def stop(self):
        if self.proc.poll() is None:
            killpg(self.proc)
        self.proc.wait()


def triage_script(n):
    """What the triage server says, n runs' worth: a draft_reply, then a word."""
    out = []
    for i in range(n):
        out.append({"tool_calls": [{"name": "draft_reply", "arguments": {
            "subject": f"Re: your request ({i})", "body": "Happy to talk.\n"}}]})
        out.append({"text": "I drafted a reply."})
    return out


# -- the sink -------------------------------------------------------------------------
class Sink(SmtpSink):
    """The SMTP sink, with what arrived read by Message-ID."""

    def raw(self):
        """Only messages stored whole: the .json is written after the .eml."""
        return [p.read_bytes() for p in sorted(self.dir.glob("*.eml"))
                if p.with_suffix(".json").exists()]

    def count(self):
        return len(list(self.dir.glob("*.json")))

    def settle(self, quiet=0.06, limit=5.0):
        """Waits until nothing has arrived for `quiet` seconds: a message whose
        sender was killed just after DATA may still be being stored."""
        deadline, last, since = time.monotonic() + limit, -1, time.monotonic()
        while time.monotonic() < deadline:
            n = self.count()
            if n != last:
                last, since = n, time.monotonic()
            elif time.monotonic() - since >= quiet:
                return
            time.sleep(0.01)

    def message_ids(self):
        ids = []
        for raw in self.raw():
            for line in raw.split(b"\r\n\r\n", 1)[0].replace(b"\r\n", b"\n").split(b"\n"):
                if line.lower().startswith(b"message-id:"):
                    ids.append(line.split(b":", 1)[1].strip().decode())
        return ids

    def hold_next(self):
        """The next message is stored and its 250 held back until release_hold()."""
        self.holding.clear()
        self._released = threading.Event()
        self.mode = "hold"

    def release_hold(self):
        self.mode = "accept"
        self._released.set()


# -- the house ------------------------------------------------------------------------
class House:
    def __init__(self, name):
        base = os.environ.get("TMPDIR") or tempfile.gettempdir()
        self.root = pathlib.Path(tempfile.mkdtemp(prefix=f"mecha-{name}.", dir=base))
        self.sink = Sink(self.root / "smtp").start()
        self.extractor = ModelServer(self.root / "model-extract",
                                     default={"json": EXTRACTION, "delay_ms": 2})
        self.triager = ModelServer(self.root / "model-triage",
                                   default={"text": "Nothing to draft here."})
        self.homes = 0
        self.box_server = None
        self.closers = []
        self.new_home()

    def new_home(self):
        """A fresh MECHA_HOME (and calendar) configured for the servers."""
        self.homes += 1
        self.home = self.root / f"home-{self.homes}"
        self.cal = self.root / f"calendar-{self.homes}"
        self.home.mkdir(mode=0o700)
        self.cal.mkdir(mode=0o700)
        (self.home / "config.toml").write_text(
            'default_provider = "extractor"\n'
            f'[providers.extractor]\nkind = "openai"\nbase_url = "{self.extractor.url}/v1"\n'
            'model = "m"\ntimeout_s = 20\n'
            f'[providers.triager]\nkind = "openai"\nbase_url = "{self.triager.url}/v1"\n'
            'model = "m"\ntimeout_s = 20\n'
            '[outbox]\ntools = ["mail_send", "calendar_invite"]\n'
            f'[mail]\nsmtp_url = "{self.sink.url}"\nfrom = "{FROM}"\n'
            f'[calendar]\npath = "{self.cal}"\ntimezone = "UTC"\n')
        self.env = {k: v for k, v in os.environ.items() if not k.startswith("MECHA_")}
        self.env.update(MECHA_HOME=str(self.home), HOME=str(self.root), NO_COLOR="1")
        return self.home

    def gate(self):
        """The box on loopback, started on first use and again after a writer killed
        it, with the home paired to it (its port changes with each start, so the
        home's factory/config.toml is written again)."""
        from box_fixture import Box
        from test_drain import connect

        if self.box_server is None:
            self.box_server = Box(self.root)
            with sqlite3.connect(self.box_server.db) as db:
                db.execute("INSERT INTO sqlite_sequence (name, seq) VALUES ('queue', ?)",
                           (GATE_SEQ0,))
            self.box_server.keys["drain"] = cheap_drain_key(self.box_server)
        b = self.box_server
        if b.proc is None or b.proc.poll() is not None:
            b.start()
            connect(types.SimpleNamespace(home=self.home), b, "lab-application", "meeting")
        return b

    def close(self):
        for stop in reversed(self.closers):  # what a writer started beside the gate
            stop()
        if self.box_server is not None:
            self.box_server.stop()
        self.extractor.stop()
        self.triager.stop()
        self.sink.stop()
        shutil.rmtree(self.root, ignore_errors=True)

    # -- running mecha --
    def env_with(self, extra=None):
        e = dict(self.env)
        e.update(extra or {})
        return e

    def mecha(self, *args, input=None, env=None, timeout=60):
        argv = [BIN, *map(str, args)]
        return run_killed(argv, self.env_with(env),
                          input.encode() if isinstance(input, str) else input, timeout=timeout)

    def mecha_killed(self, args, input=None, env=None, delay=None, until=None):
        argv = [BIN, *map(str, args)]
        return run_killed(argv, self.env_with(env),
                          input.encode() if isinstance(input, str) else input,
                          delay=delay, until=until)

    def ok(self, *args, **kw):
        r = self.mecha(*args, **kw)
        if r.rc != 0 or r.timed_out:
            raise RuntimeError(f"setup step failed: mecha {' '.join(map(str, args))} "
                               f"exited {r.rc}\n{r.out}\n{r.err}")
        return r

    # -- writing what the drain writes --
    @property
    def requests(self):
        return self.home / "requests"

    @property
    def outbox(self):
        return self.home / "outbox"

    @property
    def box(self):
        return self.home / "missions" / "inbox.jsonl"

    @property
    def blocks(self):
        return self.home / "missions" / "blocks.json"

    def install_type(self, type_id):
        """The home's manifest of type_id (tests/fixtures/types): a brief is built only
        against the home's own manifest (src/requests/grammar.h)."""
        d = self.home / "factory" / "types"
        d.mkdir(parents=True, exist_ok=True, mode=0o700)
        os.chmod(d.parent, 0o700)
        dst = d / f"{type_id}.toml"
        if not dst.exists():
            shutil.copy(ROOT / "tests" / "fixtures" / "types" / f"{type_id}.toml", dst)
            os.chmod(dst, 0o600)

    def offer(self, start, end, type_id="booking"):
        """What `mecha slots push` keeps (factory/offered), as if it had offered this slot
        of a booking type open all day (installed when it is not): the sweep books only
        a slot home offered."""
        from test_sweep import anytime_type
        types = self.home / "factory" / "types"
        types.mkdir(parents=True, exist_ok=True, mode=0o700)
        if not (types / f"{type_id}.toml").exists():
            # no notice: the sweep writer books near slots too, hours ahead (reminders)
            (types / f"{type_id}.toml").write_text(anytime_type(type_id=type_id).replace(
                "horizon_days = 366\n", "horizon_days = 366\nmin_notice_hours = 0\n"))
        path = self.home / "factory" / "offered" / f"{type_id}.json"
        path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
        now = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")
        doc = json.loads(path.read_text()) if path.exists() else {
            "type": type_id, "pushed_at": now, "slots": []}
        minutes = (datetime.datetime.fromisoformat(end.replace("Z", "+00:00"))
                   - datetime.datetime.fromisoformat(start.replace("Z", "+00:00")))
        doc["slots"].append({"start": start, "end": end, "offered_at": now,
                             "duration_minutes": int(minutes.total_seconds() // 60)})
        tmp = path.with_suffix(".tmp")
        tmp.write_text(json.dumps(doc))
        os.chmod(tmp, 0o600)
        os.replace(tmp, path)

    def write_record(self, seq, state="drained", type_id="meeting", **fields):
        """A record as the drain writes it: a temp file beside it, then a rename."""
        self.requests.mkdir(parents=True, exist_ok=True, mode=0o700)
        if type_id == "meeting":
            self.install_type("meeting")
        rec = {"seq": seq, "type_id": type_id, "state": state,
               "created_at": "2026-08-06T00:00:00Z", "drained_at": "2026-08-06T01:00:00Z",
               "valid": True,
               "values": {"purpose": "collaboration", "message": f"Could we talk? ({seq})"},
               "free_text": ["message"], "reply_to": f"person{seq}@example.org"}
        if state not in ("drained",):
            rec["extraction"] = dict(EXTRACTION)
        rec.update(fields)
        rec = {k: v for k, v in rec.items() if v is not None}
        path = self.requests / f"{seq:010d}-{type_id}.json"
        tmp = self.requests / f".drain-{seq}.tmp"
        tmp.write_text(json.dumps(rec, indent=2))
        os.chmod(tmp, 0o600)
        os.replace(tmp, path)
        return path


def cheap_drain_key(box):
    """A drain key hashed with Argon2id at its smallest cost (the argon2 CLI, as
    the box's tests make a reference-style hash): the box verifies the key on
    every call, and at the owner's default cost that verification, not the
    queue the rounds are about, would be most of a drain round."""
    secret = hashlib.sha256(os.urandom(32)).hexdigest()
    phc = subprocess.run(["argon2", "crash-rounds-salt", "-id", "-t", "1", "-k", "8", "-p", "1",
                          "-l", "32", "-e"], input=secret.encode(), stdout=subprocess.PIPE,
                         check=True).stdout.decode().strip()
    box.seed("key", "ada", "drain", "00c0ffee00c0ffee", phc)
    return f"mk_drn_00c0ffee00c0ffee.{secret}"


# -- mission letters ----------------------------------------------------------------
LETTER_KEYS = ("schema", "mission_id", "mission_seq", "prev_letter_id", "block_id", "brain_ref",
               "seat", "runner_id", "capability", "phase", "verdict", "gate",
               "receipt_candidate", "receipt", "packet_ref", "tokens_total", "started_at",
               "updated_at", "synthetic")


def letter(mission, seq, phase, prev=None, block="sb_crash", when=T0, **extra):
    d = {"schema": SCHEMA, "mission_id": mission, "mission_seq": seq, "block_id": block,
         "brain_ref": "repo-crash", "seat": "hand", "capability": "build-runner",
         "phase": phase, "started_at": T0, "updated_at": when}
    if prev:
        d["prev_letter_id"] = prev
    d.update(extra)
    return d


def canonical_line(agent, l):
    """The stored line of a plain letter (docs/protocol/files.md): the envelope, the
    keys in the table's order, tokens_total always. Only for letters without
    nested objects, whose order this does not know."""
    m = {k: l[k] for k in LETTER_KEYS if k in l}
    m.setdefault("tokens_total", 0)
    m = {k: m[k] for k in LETTER_KEYS if k in m}
    env = {"kind": "mission", "agent": agent, "ts": l["updated_at"], "mission": m}
    return json.dumps(env, separators=(",", ":"), ensure_ascii=False)


def letter_id(line):
    if isinstance(line, str):
        line = line.encode()
    return hashlib.sha256(line.rstrip(b"\r\n")).hexdigest()[:12]


def chain_of(agent, mission, first_seq, prev, n, phase="executing", runner=""):
    """n letters extending (first_seq - 1, prev), each naming the one before."""
    out = []
    for i in range(n):
        l = letter(mission, first_seq + i, phase, prev, runner_id=f"{runner}{i}")
        out.append(l)
        prev = letter_id(canonical_line(agent, l))
    return out


def mcp_lines(*calls):
    """A whole MCP session: initialize, initialized, then tools/call per (name, args)."""
    msgs = [{"jsonrpc": "2.0", "id": 0, "method": "initialize",
             "params": {"protocolVersion": "2025-11-25", "capabilities": {},
                        "clientInfo": {"name": "crash-rounds", "version": "1"}}},
            {"jsonrpc": "2.0", "method": "notifications/initialized"}]
    for i, (name, args) in enumerate(calls, 1):
        msgs.append({"jsonrpc": "2.0", "id": i, "method": "tools/call",
                     "params": {"name": name, "arguments": args}})
    return ("\n".join(json.dumps(m) for m in msgs) + "\n").encode()


def mcp_results(out):
    """{id: structuredContent or {"isError": True, ...}} of the answers that arrived whole."""
    res = {}
    for line in out.split("\n"):
        try:
            msg = json.loads(line)
        except ValueError:
            continue
        if not isinstance(msg, dict) or "id" not in msg or msg["id"] == 0:
            continue
        r = msg.get("result") or {}
        sc = dict(r.get("structuredContent") or {})
        if r.get("isError") or "error" in msg:
            sc["isError"] = True
        res[msg["id"]] = sc
    return res


def state_table():
    out = subprocess.run([STATE_TABLE], stdout=subprocess.PIPE, check=True).stdout
    t = json.loads(out)
    return {mover: {tuple(e) for e in edges} for mover, edges in t["movers"].items()}
