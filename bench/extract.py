"""The quarantined pass with calls in flight: `frontdoor extract --jobs 32`
against `--jobs 1` over the same records, the scripted model server
(tests/support/model_server.py) answering every call after 100 ms — so the
ratio measures how well calls overlap, not how fast a model is.

And the peak resident memory of one `frontdoor extract` over BENCH_RECORDS
(100,000) drained records against the same over BENCH_RECORDS_SMALL (1,000):
what a run keeps per record (its picks, its tally) must not grow with the
store. These runs use the offline rules extractor (no provider configured):
every record still goes through the selection, a fresh read, a landing
under the lock and the tally, as with a model, but with no server to wait
for (the scripted model server, one Python process answering HTTP, would
take a quarter of an hour over 100,000 records); and its baseline is the
smaller one (no libcurl, no TLS library loaded), so growth shows in the
ratio rather than hiding under a constant. What a model run adds per call
(the provider batch) is freed as each call lands. The two homes live on
/dev/shm when it is there: an fsync on tmpfs costs nothing, so the part
takes seconds rather than the minutes of 100,000 durable writes, and
memory does not depend on what a write costs."""
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time

from common import env_with

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
N = int(os.environ.get("BENCH_EXTRACT_RECORDS", "256"))
N_RSS = int(os.environ.get("BENCH_RECORDS", "100000"))
N_RSS_SMALL = int(os.environ.get("BENCH_RECORDS_SMALL", "1000"))
REPLY = {"json": {"reading": "r", "topic": "collaboration", "urgency_claimed": "none",
                  "dates_mentioned": [], "institution": "", "reads_like_instructions": False},
         "delay_ms": 100}


def write_records(req, n=None):
    if os.path.exists(req):
        shutil.rmtree(req)
    os.makedirs(req, mode=0o700)
    for seq in range(1, (N if n is None else n) + 1):
        rec = {"seq": seq, "type_id": "meeting", "state": "drained",
               "created_at": "2026-08-06T00:00:00Z", "drained_at": "2026-08-06T01:00:00Z",
               "valid": True, "values": {"detail": "Could we talk about a collaboration?"},
               "free_text": ["detail"]}
        with open(os.path.join(req, "%010d-meeting.json" % seq), "w") as f:
            json.dump(rec, f)


def timed(b, env, jobs, req):
    write_records(req)
    took = b.run([b.mecha, "frontdoor", "extract", "--jobs", str(jobs)], env=env)[0]
    left = [f for f in os.listdir(req) if f.endswith(".json") and
            json.load(open(os.path.join(req, f)))["state"] != "extracted"]
    if left:
        raise SystemExit(f"bench: extract --jobs {jobs} left {len(left)} records unextracted")
    return took


def start_server(root):
    port_file = os.path.join(root, "port")
    server = subprocess.Popen(
        [sys.executable, os.path.join(ROOT, "tests", "support", "model_server.py"),
         "--port-file", port_file, "--log", os.devnull, "--default", json.dumps(REPLY)],
        stdout=subprocess.DEVNULL)
    deadline = time.time() + 10
    while not os.path.exists(port_file):
        if time.time() > deadline or server.poll() is not None:
            raise SystemExit("bench: the model server did not start")
        time.sleep(0.02)
    return server, int(open(port_file).read())


def peak_rss(b, root, n):
    """One `frontdoor extract` (rules extractor) over n drained records: its peak RSS in KiB."""
    home = os.path.join(root, "home-%d" % n)
    os.makedirs(home, mode=0o700)
    req = os.path.join(home, "requests")
    write_records(req, n)
    # As at home, where the drain's writes leave requests/.types behind: one
    # write first, so lookups go through the type cache, not the name index.
    b.run([b.mecha, "frontdoor", "extract", "--seq", "1"], env=env_with(MECHA_HOME=home))
    rss = b.run([b.mecha, "frontdoor", "extract", "--jobs", "32"], env=env_with(MECHA_HOME=home))[1]
    if not all(json.load(open(os.path.join(req, f)))["state"] == "extracted"
               for f in os.listdir(req)[:100] if f.endswith(".json")):
        raise SystemExit(f"bench: extract over {n} records left some unextracted")
    shutil.rmtree(home)
    return rss


def memory(b):
    # On tmpfs when there is one: an fsync there costs nothing, and the peak
    # RSS does not depend on what a durable write costs (the time rows do).
    shm = "/dev/shm" if os.path.isdir("/dev/shm") and os.access("/dev/shm", os.W_OK) else None
    root = tempfile.mkdtemp(prefix="mecha-bench-extract-", dir=shm or b.work)
    try:
        small = peak_rss(b, root, N_RSS_SMALL)
        large = peak_rss(b, root, N_RSS)
    finally:
        shutil.rmtree(root, ignore_errors=True)
    b.row(f"frontdoor extract: peak RSS at {N_RSS_SMALL:,}", small, "KiB",
          note="rules extractor, --jobs 32")
    b.row(f"frontdoor extract: peak RSS at {N_RSS:,} / at {N_RSS_SMALL:,}", large, "KiB", small,
          1.5, note="picks packed, about a byte a record")
    b.row(f"frontdoor extract: peak RSS at {N_RSS:,}", large, "KiB", goal=32 * 1024)


def figures(b):
    calls(b)
    memory(b)


def calls(b):
    root = os.path.join(b.work, "extract")
    home = os.path.join(root, "home")
    os.makedirs(home, mode=0o700)
    server, port = start_server(root)
    try:
        with open(os.path.join(home, "config.toml"), "w") as f:
            f.write('default_provider = "bench"\n[providers.bench]\nkind = "openai"\n'
                    f'base_url = "http://127.0.0.1:{port}/v1"\nmodel = "m"\n')
        env = env_with(MECHA_HOME=home)
        req = os.path.join(home, "requests")
        one = timed(b, env, 1, req)
        many = timed(b, env, 32, req)
    finally:
        server.terminate()
        server.wait()
    b.row(f"extract {N} records: --jobs 1 / --jobs 32 (100 ms per call)", one, "s", many, 20,
          higher_is_better=True, note="one run each")
