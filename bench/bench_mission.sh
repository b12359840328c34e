#!/bin/sh
# The mission board: what one post costs with 1,000 and with 100,000 letters
# already in the box (the goal is a flat cost: ratio <= 1.5), and against a
# bare write+fdatasync loop on the same disk (goal <= 3x). Both boxes are
# generated directly as canonical lines, then each gets one untimed post so
# its sidecar index is built before the clock starts. Rounds alternate between
# the two boxes and the baseline so drift in the disk hits all three alike;
# the medians are compared. A round times a run of POSTS letters through one
# `mecha mission post` and subtracts a run of one, so the process start (the
# same at any size) is not counted as a post's cost.
#
# usage: bench/bench_mission.sh PATH-TO-MECHA   (POSTS=300 ROUNDS=5 by default)
set -eu
bin=${1:?usage: bench/bench_mission.sh PATH-TO-MECHA}
work=$(mktemp -d "${TMPDIR:-/tmp}/mecha-bench-mission.XXXXXX")
trap 'rm -rf "$work"' EXIT INT TERM
exec /usr/bin/python3 - "$bin" "$work" "${POSTS:-300}" "${ROUNDS:-5}" <<'EOF'
import hashlib, json, os, statistics, subprocess, sys, time

BIN, WORK, POSTS, ROUNDS = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
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
    """A box of n letters: 1,000 missions' chains, and the heads to extend them."""

    def __init__(self, name, n):
        self.path = os.path.join(WORK, name, "inbox.jsonl")
        os.makedirs(os.path.dirname(self.path), mode=0o700)
        self.heads = {}
        missions = 1000
        with open(self.path, "w") as f:
            for i in range(n):
                mid = "msn_%012x" % (i % missions)
                seq, prev = self.heads.get(mid, (0, None))
                text = line("gen", payload(mid, seq + 1, prev))
                f.write(text + "\n")
                self.heads[mid] = (seq + 1, lid(text))
        self.order = sorted(self.heads)
        self.next = 0

    def batch(self, count):
        """The next `count` letters, each extending its mission's head, as posted by bench."""
        out = []
        for _ in range(count):
            mid = self.order[self.next % len(self.order)]
            self.next += 1
            seq, prev = self.heads[mid]
            m = payload(mid, seq + 1, prev)
            self.heads[mid] = (seq + 1, lid(line("bench", m)))
            out.append(json.dumps(m))
        return "\n".join(out) + "\n"

    def post(self, count):
        data = self.batch(count)
        t = time.perf_counter()
        p = subprocess.run([BIN, "mission", "post", "--box", self.path, "--agent", "bench",
                            "--json", "-"], input=data.encode(), capture_output=True)
        took = time.perf_counter() - t
        if p.returncode != 0:
            sys.exit("bench_mission: post failed: " + p.stderr.decode(errors="replace"))
        results = [json.loads(x) for x in p.stdout.splitlines()]
        if len(results) != count or any(r["deduped"] for r in results):
            sys.exit("bench_mission: the board did not take every letter")
        return took / count


def bare(count, size):
    """write + fdatasync of one line, O_APPEND, the same directory's disk."""
    path = os.path.join(WORK, "bare.dat")
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_APPEND | os.O_CLOEXEC, 0o600)
    data = b"x" * (size - 1) + b"\n"
    t = time.perf_counter()
    for _ in range(count):
        os.write(fd, data)
        os.fdatasync(fd)
    took = time.perf_counter() - t
    os.close(fd)
    return took / count


t = time.perf_counter()
small, big = Box("1k", 1000), Box("100k", 100000)
print("generated 1,000 and 100,000 letters in %.1f s" % (time.perf_counter() - t))
t = time.perf_counter()
small.post(1)
warm = time.perf_counter()
big.post(1)
print("first post (index rebuilt): %.0f ms at 1k, %.0f ms at 100k"
      % ((warm - t) * 1000, (time.perf_counter() - warm) * 1000))

size = len(line("bench", payload("msn_000000000000", 150, "0" * 12))) + 1
def per_post(box):
    """A run of POSTS letters minus a run of one: the process start is not a post's cost."""
    one = box.post(1)
    many = box.post(POSTS) * POSTS
    return (many - one) / (POSTS - 1)


s, b, w = [], [], []
for _ in range(ROUNDS):
    s.append(per_post(small))
    b.append(per_post(big))
    w.append(bare(POSTS, size))
s, b, w = statistics.median(s), statistics.median(b), statistics.median(w)
flat, vs_disk = b / s, b / w
print("post@1k:   %.3f ms/post (median of %d rounds of %d posts in one process)"
      % (s * 1000, ROUNDS, POSTS))
print("post@100k: %.3f ms/post" % (b * 1000))
print("write+fdatasync: %.3f ms/op (%d-byte lines)" % (w * 1000, size))
print("post@100k / post@1k = %.2f (goal <= 1.5)" % flat)
print("post@100k / write+fdatasync = %.2f (goal <= 3)" % vs_disk)
sys.exit(0 if flat <= 1.5 and vs_disk <= 3 else 1)
EOF
