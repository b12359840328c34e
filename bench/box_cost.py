"""The box's price for a stranger's refused form POST (issue 22): a body of
1,000, 10,000 and URLFORM_KEYS_MAX pairs, every key but two undeclared, so
the box reads it, validates it, refuses it and renders the form back with one
error line per key. The figure is the box's own CPU time (utime + stime of the
serving process's threads, from /proc) per key; the goal is that it stays flat —
the per-key cost at 10,000 and at the cap within twice the cost at 1,000 —
which a scan per key (quadratic) breaks by far: before the fix, 20,000 keys
cost about 37 s. One more pair than the cap is the 413 that costs next to
nothing, shown for scale."""
import http.client
import json
import os
import socket
import statistics
import subprocess
import time

from common import env_with

KEYS_MAX = 16384  # src/box/urlform.h
SIZES = (1000, 10000, KEYS_MAX)
ROUNDS = int(os.environ.get("BENCH_BOX_ROUNDS", "5"))
FLAT_GOAL = 2.0

MANIFEST = """id = "meeting"
version = 1
title = "Request a meeting"

[[fields]]
name = "email"
label = "Your email"
kind = "email"
required = true

[[fields]]
name = "purpose"
label = "What about?"
kind = "long_text"
max_length = 2000
required = true

[verification]
field = "email"
"""


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def body(n):
    return "&".join(["email=a%40example.net", "purpose=x"] +
                    [f"k{i}=" for i in range(n - 2)]).encode()


class Serving:
    def __init__(self, b):
        self.dir = os.path.join(b.work, "box-cost")
        os.makedirs(os.path.join(self.dir, "data"), mode=0o700)
        self.port = free_port()
        self.config = os.path.join(self.dir, "box.toml")
        with open(self.config, "w") as f:
            f.write(f'listen = "127.0.0.1:{self.port}"\ndata = "{self.dir}/data"\n'
                    f'db = "{self.dir}/data/box.db"\naccess_log = "{self.dir}/access.log"\n'
                    "[limits]\nrequests_per_minute = 100000\n")
        env = env_with()
        keys = subprocess.run([b.mecha, "box", "owner", "add", "ada", "--json", "--config",
                               self.config], env=env, check=True, capture_output=True, text=True)
        self.release = json.loads(keys.stdout)["release"]
        self.err = open(os.path.join(self.dir, "stderr.log"), "wb")
        self.proc = subprocess.Popen([b.mecha, "box", "serve", "--config", self.config],
                                     env=env, stdout=subprocess.DEVNULL, stderr=self.err)
        deadline = time.time() + 15
        while time.time() < deadline:
            try:
                self.request("GET", "/v1/health")
                break
            except OSError:
                time.sleep(0.05)
        status, _ = self.request("PUT", "/v1/types/meeting", MANIFEST.encode(),
                                 {"Authorization": f"Bearer {self.release}"})
        if status != 200:
            raise SystemExit(f"bench: box refused the manifest ({status})")

    def request(self, method, path, data=None, headers=None):
        c = http.client.HTTPConnection("127.0.0.1", self.port, timeout=120)
        c.request(method, path, body=data, headers=headers or {})
        r = c.getresponse()
        out = (r.status, r.read())
        c.close()
        return out

    def cpu(self):
        """The serving process's CPU seconds so far, summed over its threads (schedstat's
        nanoseconds: /proc's stat counts in 10 ms ticks, too coarse for one POST)."""
        total = 0
        task = f"/proc/{self.proc.pid}/task"
        for tid in os.listdir(task):
            try:
                with open(f"{task}/{tid}/schedstat") as f:
                    total += int(f.read().split()[0])
            except OSError:
                pass  # a thread that ended meanwhile
        return total / 1e9

    def post_cost(self, data):
        """(status, CPU seconds the box spent on one POST)."""
        before = self.cpu()
        status, _ = self.request("POST", "/f/ada/meeting", data,
                                 {"Content-Type": "application/x-www-form-urlencoded"})
        time.sleep(0.05)  # the access log line and the response's release are the box's too
        return status, self.cpu() - before

    def stop(self):
        self.proc.terminate()
        try:
            self.proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        self.err.close()


def figures(b):
    s = Serving(b)
    try:
        bodies = {n: body(n) for n in SIZES + (KEYS_MAX + 1,)}
        costs = {n: [] for n in bodies}
        for _ in range(ROUNDS):  # interleaved, so a busy spell hits every size alike
            for n, data in bodies.items():
                status, cpu = s.post_cost(data)
                want = 413 if n > KEYS_MAX else 400
                if status != want:
                    raise SystemExit(f"bench: a POST of {n} keys answered {status}, not {want}")
                costs[n].append(cpu)
    finally:
        s.stop()
    per_key = {n: statistics.median(c) / n for n, c in costs.items()}
    base = per_key[SIZES[0]]
    b.row(f"box: refused form POST, CPU per key at {SIZES[0]:,} keys", base * 1e6, "µs",
          note="the box's utime+stime; every key but two undeclared")
    for n in SIZES[1:]:
        b.row(f"box: refused form POST, CPU per key at {n:,} / at {SIZES[0]:,} keys",
              per_key[n] * 1e6, "µs", base * 1e6, FLAT_GOAL,
              note="flat: linear in the body, no scan per key")
    b.row(f"box: a POST of {KEYS_MAX + 1:,} keys (over the cap: 413), CPU",
          statistics.median(costs[KEYS_MAX + 1]), "s")
