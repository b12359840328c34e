"""Benchmark: `mecha frontdoor extract --jobs 1` against `--jobs 8`, in one run.

The scripted model server (tests/support/model_server.py) answers every call
after a fixed 100 ms, so the ratio measures how well calls overlap, not how
fast a model is. Goal: >= 6x.
"""
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
N = int(os.environ.get("BENCH_EXTRACT_RECORDS", "200"))
REPLY = {"json": {"reading": "r", "topic": "collaboration", "urgency_claimed": "none",
                  "dates_mentioned": [], "institution": "", "reads_like_instructions": False},
         "delay_ms": 100}


def write_records(req):
    if os.path.exists(req):
        shutil.rmtree(req)
    os.makedirs(req, mode=0o700)
    for seq in range(1, N + 1):
        rec = {"seq": seq, "type_id": "meeting", "state": "drained",
               "created_at": "2026-08-06T00:00:00Z", "drained_at": "2026-08-06T01:00:00Z",
               "valid": True, "values": {"detail": "Could we talk about a collaboration?"},
               "free_text": ["detail"]}
        with open(os.path.join(req, "%010d-meeting.json" % seq), "w") as f:
            json.dump(rec, f)


def timed(mecha, env, jobs, req):
    write_records(req)
    t = time.perf_counter()
    subprocess.run([mecha, "frontdoor", "extract", "--jobs", str(jobs)], env=env, check=True,
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return time.perf_counter() - t


def main():
    mecha = sys.argv[1]
    root = tempfile.mkdtemp(prefix="mecha-bench-extract-")
    port_file = os.path.join(root, "port")
    server = subprocess.Popen(
        ["/usr/bin/python3", os.path.join(ROOT, "tests", "support", "model_server.py"),
         "--port-file", port_file, "--log", os.path.join(root, "log.jsonl"),
         "--default", json.dumps(REPLY)], stdout=subprocess.DEVNULL)
    try:
        deadline = time.time() + 10
        while not os.path.exists(port_file):
            if time.time() > deadline:
                raise SystemExit("the model server did not start")
            time.sleep(0.02)
        port = int(open(port_file).read())
        home = os.path.join(root, "home")
        os.makedirs(home, mode=0o700)
        with open(os.path.join(home, "config.toml"), "w") as f:
            f.write('default_provider = "bench"\n[providers.bench]\nkind = "openai"\n'
                    f'base_url = "http://127.0.0.1:{port}/v1"\nmodel = "m"\n')
        env = dict(os.environ, MECHA_HOME=home, NO_COLOR="1")
        req = os.path.join(home, "requests")
        one = timed(mecha, env, 1, req)
        eight = timed(mecha, env, 8, req)
        print(f"extract {N} records, 100 ms per call")
        print(f"  --jobs 1   {one:6.2f} s")
        print(f"  --jobs 8   {eight:6.2f} s")
        print(f"jobs1 / jobs8 = {one / eight:.2f} (goal >= 6)")
    finally:
        server.terminate()
        server.wait()
        shutil.rmtree(root, ignore_errors=True)


if __name__ == "__main__":
    main()
