"""The drain at the cost of its writes, and extract beside it.

The drain: a real `mecha box serve` (SQLite ledger, the box's default
[limits] drain_batch of 100 records an answer) holding BENCH_DRAIN_ROWS
(10,000) queued `meeting` rows, written straight into its queue table in one
transaction (realistic payloads; home has the meeting manifest, so every one
is valid), and a paired home. Measured: `mecha drain` run again and again in
one sh loop until a pass drains nothing — every batch read, judged, written
durably through the request store and acknowledged. Baseline, the same run:

- the queue read: one curl process fetching every page of GET /v1/queue with
  the same drain key and batch size (since=0, 100, …, the empty last page),
  one kept-alive connection — no acks, nothing judged;
- plus the durable write loop: `helper durable` creating as many records of
  the drained records' mean size, with the request store's own syscalls
  (temp file, write, fsync, rename, fsync of the directory).

extract: `frontdoor extract` of the same number of drained records with the
offline rules extractor (no provider configured) rewrites each record once,
durably; its baseline is the durable write loop of as many records of the
extracted records' mean size. Issue 25 gives extract no time goal (its goals
are memory and calls in flight), so the row only reports: what it adds to the
writes is the rules' reading of the prose (about 3 million instructions a
record in callgrind, most of it the instruction patterns and markers of
provider/rules.c, each sentence read again through every hidden-text
decoding).

Both are timed by `helper time` around a whole process (sh, curl, mecha), so
no Python runs inside a measured interval. BENCH_DRAIN_ROUNDS (3) interleaved
rounds, the median of each."""
import json
import os
import shutil
import statistics
import subprocess

from box import Box
from common import env_with

N = int(os.environ.get("BENCH_DRAIN_ROWS", "10000"))
ROUNDS = int(os.environ.get("BENCH_DRAIN_ROUNDS", "3"))
BATCH = 100  # the box's default [limits] drain_batch (docs/box.md)
MEETING = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "fixtures",
                       "types", "meeting.toml")
PURPOSES = ("collaboration", "advising", "press")


def payload(i):
    """A meeting request as a stranger fills the form (tests/fixtures/types/meeting.toml)."""
    return json.dumps({
        "requester_name": f"Ada Lovelace {i}",
        "requester_email": f"ada{i}@example.org",
        "purpose": PURPOSES[i % len(PURPOSES)],
        "duration_minutes": 30 + i % 4 * 15,
        "agenda": "We would like to talk about a collaboration on the analytical engine: "
                  "the notes on Bernoulli numbers, a joint paper, and who reviews it. "
                  f"Any Tuesday afternoon works for us (request {i}).",
    }, separators=(",", ":"))


def pair(box, home):
    """The home paired with the box, as `mecha pair` leaves it: the gate, three keys, the type."""
    factory = os.path.join(home, "factory")
    os.makedirs(os.path.join(factory, "types"), mode=0o700)
    os.chmod(home, 0o700)
    with open(os.path.join(factory, "config.toml"), "w") as f:
        f.write(f'gate = "http://127.0.0.1:{box.port}"\n')
    for scope in ("drain", "slots", "release"):
        path = os.path.join(factory, f"{scope}.key")
        with open(path, "w") as f:
            f.write(box.keys[scope] + "\n")
        os.chmod(path, 0o600)
    shutil.copy(MEETING, os.path.join(factory, "types", "meeting.toml"))


def queue(box):
    user = box.sql("SELECT id FROM users WHERE handle = 'ada'")[0][0]
    box.sql("DELETE FROM queue")
    box.sql("DELETE FROM sqlite_sequence WHERE name = 'queue'")
    box.sql("INSERT INTO queue (user_id, type_id, state, payload, created_at) "
            "VALUES (?, 'meeting', 'queued', ?, '2026-08-06T00:00:00Z')",
            [(user, payload(i)) for i in range(N)])


def mean_size(req):
    names = [n for n in os.listdir(req) if n.endswith(".json")]
    return sum(os.path.getsize(os.path.join(req, n)) for n in names) // max(len(names), 1), names


def durable(b, where, size):
    """The durable write loop of N records of size bytes in a fresh directory: seconds."""
    if os.path.exists(where):
        shutil.rmtree(where)
    os.makedirs(where, mode=0o700)
    p = subprocess.run([b.helper, "durable", where, str(N), str(size)], capture_output=True,
                       text=True, check=True)
    return int(p.stdout) / 1e9


def figures(b):
    root = os.path.join(b.work, "drain")
    home = os.path.join(root, "home")
    os.makedirs(root)
    box = Box(b.mecha, root)
    try:
        pair(box, home)
        env = env_with(MECHA_HOME=home)
        req = os.path.join(home, "requests")
        drain_loop = ["sh", "-c", 'while :; do out=$("$0" drain) || exit 1; '
                      'case $out in "drained 0 "*) exit 0;; esac; done', b.mecha]
        urls = [f"http://127.0.0.1:{box.port}/v1/queue?since={s}"
                for s in range(0, N + 1, BATCH)]
        auth = os.path.join(root, "auth")
        with open(auth, "w") as f:
            f.write(f"Authorization: Bearer {box.keys['drain']}\n")
        read = ["curl", "-sf", "--noproxy", "*", "-H", f"@{auth}"]
        for u in urls:
            read += ["-o", "/dev/null", u]
        t = {"drain": [], "read": [], "durable": [], "extract": [], "durable_x": []}
        for r in range(ROUNDS):
            queue(box)
            t["read"].append(b.run(read)[0])
            shutil.rmtree(req, ignore_errors=True)
            t["drain"].append(b.run(drain_loop, env=env)[0])
            size, names = mean_size(req)
            if len(names) != N or box.sql("SELECT COUNT(*) FROM queue")[0][0] != 0:
                raise SystemExit(f"bench: the drain brought {len(names)} of {N} rows home")
            t["durable"].append(durable(b, os.path.join(root, "durable"), size))
            t["extract"].append(b.run([b.mecha, "frontdoor", "extract"], env=env)[0])
            xsize, _ = mean_size(req)
            left = [n for n in names if json.load(open(os.path.join(req, n)))["state"] !=
                    "extracted"]
            if left:
                raise SystemExit(f"bench: extract left {len(left)} records unextracted")
            t["durable_x"].append(durable(b, os.path.join(root, "durable"), xsize))
    finally:
        box.server.stop()
    m = {k: statistics.median(v) for k, v in t.items()}
    b.row(f"drain {N:,} rows / queue read + durable write loop", m["drain"], "s",
          m["read"] + m["durable"], 1.5,
          note=f"median of {ROUNDS}; batches of {BATCH}; read {m['read'] * 1000:.0f} ms, "
               f"writes {m['durable']:.2f} s ({size} B each)")
    b.row(f"frontdoor extract {N:,} records (rules) / durable write loop", m["extract"], "s",
          m["durable_x"], note=f"median of {ROUNDS}; {xsize} B each; reported, no goal")
