"""The mission board: what one `mission post` from the command line costs in a
20,000-letter box against the tiny C helper doing one write+fdatasync of the
same line (both whole processes: start, work, exit); what `mecha mcp`
sustains, posting letter after letter, against a write+fdatasync loop (rounds
of each in turn, so that a slow spell of a shared disk hits both alike); and
that a post costs the same in a box of 100,000 letters as in one of 1,000.

Boxes are generated directly as canonical lines (so the ids computed here are
the board's), then each gets one untimed post so its sidecar index exists
before the clock starts."""
import hashlib
import json
import os
import subprocess
import threading
import time

from common import env_with

BIG = int(os.environ.get("BENCH_LETTERS", "20000"))
ROUNDS = int(os.environ.get("BENCH_ROUNDS", "21"))
MCP_POSTS = int(os.environ.get("BENCH_MCP_POSTS", "200"))
FLAT = int(os.environ.get("BENCH_FLAT_LETTERS", "100000"))
FLAT_POSTS, FLAT_ROUNDS = 100, 3
T = "2026-07-09T00:00:00Z"


def payload(mid, seq, prev):
    # The canonical key order, so that the id computed here is the board's.
    m = {"schema": "m1nd-mission-letter-v0", "mission_id": mid, "mission_seq": seq}
    if prev:
        m["prev_letter_id"] = prev
    m.update({"block_id": "sb_bench", "brain_ref": "bench", "seat": "hand",
              "capability": "build-runner", "phase": "executing" if seq > 1 else "judging",
              "packet_ref": "sha256:" + "0" * 64, "tokens_total": seq * 17,
              "started_at": T, "updated_at": T})
    return m


def line(agent, m):
    return json.dumps({"kind": "mission", "agent": agent, "ts": m["updated_at"], "mission": m},
                      separators=(",", ":"), ensure_ascii=False)


def lid(text):
    return hashlib.sha256(text.encode()).hexdigest()[:12]


class Box:
    """A box of n letters over 1,000 missions' chains, and the heads to extend them."""

    def __init__(self, path, n):
        self.path = path
        os.makedirs(os.path.dirname(path), mode=0o700, exist_ok=True)
        self.heads = {}
        with open(path, "w") as f:
            for i in range(n):
                mid = "msn_%012x" % (i % 1000)
                seq, prev = self.heads.get(mid, (0, None))
                text = line("gen", payload(mid, seq + 1, prev))
                f.write(text + "\n")
                self.heads[mid] = (seq + 1, lid(text))
        self.order = sorted(self.heads)
        self.next = 0

    def letters(self, count, agent="bench"):
        """The next count letters, each extending its mission's head: (json, stored line)."""
        out = []
        for _ in range(count):
            mid = self.order[self.next % len(self.order)]
            self.next += 1
            seq, prev = self.heads[mid]
            m = payload(mid, seq + 1, prev)
            stored = line(agent, m)
            self.heads[mid] = (seq + 1, lid(stored))
            out.append((json.dumps(m), stored))
        return out

    def file(self, b, name, count):
        """The next count letters in a file for `mission post`; (path, last stored line)."""
        batch = self.letters(count)
        path = os.path.join(b.work, name)
        with open(path, "w") as f:
            f.write("\n".join(j for j, _ in batch) + "\n")
        return path, batch[-1][1]

    def post(self, b, path, env):
        return b.run([b.mecha, "mission", "post", "--box", self.path, "--agent", "bench",
                      "--json", "-"], stdin=path, env=env)[0]


def cli_post(b, big, env):
    files = [big.file(b, f"letter-{r}.json", 1) for r in range(ROUNDS)]
    disk = os.path.join(os.path.dirname(big.path), "bare.dat")
    post = [b.mecha, "mission", "post", "--box", big.path, "--agent", "bench", "--json", "-"]
    times = {"post": [], "append": []}
    for path, stored in files:  # in order: each letter extends the previous round's head
        times["post"].append(b.run(post, stdin=path, env=env)[0])
        times["append"].append(b.run([b.helper, "append", disk, stored], env=env)[0])
    med = {k: sorted(v)[len(v) // 2] for k, v in times.items()}
    b.row(f"mission post (CLI, 1 letter, {BIG:,}-letter box) / helper write+fdatasync",
          med["post"], "s", med["append"], 3, note=f"median of {ROUNDS}; both whole processes")


def flat_cost(b, env):
    small = Box(os.path.join(b.work, "small", "inbox.jsonl"), 1000)
    big = Box(os.path.join(b.work, "flat", "inbox.jsonl"), FLAT)
    for box in (small, big):
        box.post(b, box.file(b, "warm.json", 1)[0], env)
    cost = {"small": [], "big": []}
    for _ in range(FLAT_ROUNDS):
        for name, box in (("small", small), ("big", big)):
            one = box.post(b, box.file(b, "one.json", 1)[0], env)
            many = box.post(b, box.file(b, "many.json", FLAT_POSTS)[0], env)
            cost[name].append((many - one) / (FLAT_POSTS - 1))
    s, g = min(cost["small"]), min(cost["big"])
    b.row(f"mission post: per-letter cost at {FLAT:,} / at 1,000 letters", g, "s", s, 1.5,
          note=f"best of {FLAT_ROUNDS}; {FLAT_POSTS} letters in one process, start excluded")
    # One mission's log in the big box against grep finding its lines (the index is current:
    # the posts above left it so).
    mid = big.order[len(big.order) // 2]
    t = b.medians({"log": ([b.mecha, "mission", "log", mid, "--box", big.path, "--json"], None),
                   "grep": (["grep", "-F", f'"mission_id":"{mid}"', big.path], None)},
                  ROUNDS, env)
    b.row(f"mission log (1 of 1,000 missions, {FLAT:,}-letter box) / grep of its lines",
          t["log"], "s", t["grep"], 3, note=f"median of {ROUNDS}")


def mcp_session(b, env, requests):
    """Feeds requests (after the handshake) to `mecha mcp`; wall seconds until the last reply."""
    p = subprocess.Popen([b.mecha, "mcp"], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                         env=env)
    init = {"jsonrpc": "2.0", "id": 0, "method": "initialize",
            "params": {"protocolVersion": "2025-11-25", "capabilities": {},
                       "clientInfo": {"name": "bench", "version": "1"}}}
    p.stdin.write((json.dumps(init) + "\n").encode())
    p.stdin.write(b'{"jsonrpc":"2.0","method":"notifications/initialized"}\n')
    p.stdin.flush()
    p.stdout.readline()
    data = "".join(json.dumps(r) + "\n" for r in requests).encode()
    t = time.perf_counter()
    writer = threading.Thread(target=lambda: (p.stdin.write(data), p.stdin.close()))
    writer.start()
    replies = [json.loads(p.stdout.readline()) for _ in requests]
    took = time.perf_counter() - t
    writer.join()
    p.wait()
    bad = [r for r in replies if "error" in r or r["result"].get("isError")]
    if bad:
        raise SystemExit(f"bench: mission_post over MCP failed: {bad[0]}")
    return took


def mcp_round(b, big, env, disk):
    """One session of MCP_POSTS posts, then the loop of as many appends: both rates."""
    requests = []
    for i, (letter, stored) in enumerate(big.letters(MCP_POSTS, agent="bench-mcp")):
        requests.append({"jsonrpc": "2.0", "id": i + 1, "method": "tools/call",
                         "params": {"name": "mission_post",
                                    "arguments": {"agent_id": "bench-mcp",
                                                  "letter": json.loads(letter)}}})
    took = mcp_session(b, env, requests)
    out = subprocess.run([b.helper, "append", disk, stored, str(MCP_POSTS)], env=env,
                         capture_output=True, text=True, check=True).stdout
    return MCP_POSTS / took, MCP_POSTS / (int(out) / 1e9)


def mcp_post(b, big, env):
    disk = os.path.join(os.path.dirname(big.path), "loop.dat")
    rounds = [mcp_round(b, big, env, disk) for _ in range(ROUNDS)]
    med = [sorted(r[k] for r in rounds)[len(rounds) // 2] for k in (0, 1)]
    b.row("mecha mcp: mission_post rate / write+fdatasync loop rate", med[0], "/s",
          med[1], 0.5, higher_is_better=True,
          note=f"median of {ROUNDS} sessions of {MCP_POSTS} posts, each followed by a loop "
               f"of as many; {BIG:,}-letter box")


def figures(b):
    home = os.path.join(b.work, "mission-home")
    big = Box(os.path.join(home, "missions", "inbox.jsonl"), BIG)
    env = env_with(MECHA_HOME=home)
    big.post(b, big.file(b, "warm.json", 1)[0], env)
    cli_post(b, big, env)
    mcp_post(b, big, env)
    flat_cost(b, env)
