"""Benchmark: the request store at 100,000 records (and as many outbox items).

Everything is measured in this run against a baseline from this run: reading
the same files with cat. The numbers printed are ratios (and, for show, the
absolute time against its goal), never assertions: the machines are shared.
"""
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

N = int(os.environ.get("BENCH_RECORDS", "100000"))


def timed(cmd, env, runs, pick):
    """Runs cmd `runs` times; pick (min or statistics.median) of the wall times."""
    times = []
    for _ in range(runs):
        t = time.perf_counter()
        subprocess.run(cmd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                       check=True)
        times.append(time.perf_counter() - t)
    return pick(times)


def best(cmd, env, runs=3):
    return timed(cmd, env, runs, min)


def median(cmd, env, runs=15):
    return timed(cmd, env, runs, statistics.median)


def make_records(req, outbox, n):
    os.makedirs(req, mode=0o700)
    os.makedirs(outbox, mode=0o700)
    states = ["drained", "extracted", "awaiting_me", "closed", "answered"]
    for seq in range(1, n + 1):
        state = states[seq % len(states)]
        rec = {
            "seq": seq, "type_id": "meeting", "state": state,
            "created_at": "2026-08-06T00:00:00Z", "drained_at": "2026-08-06T01:00:00Z",
            "valid": True,
            "values": {"requester_name": "Ada Lovelace", "purpose": "collaboration",
                       "duration_minutes": 45,
                       "purpose_detail": "We would like to talk about a collaboration next Tuesday."},
            "free_text": ["requester_name", "purpose_detail"],
            "reply_to": "ada@example.org",
        }
        if state != "drained":
            rec["extraction"] = {"reading": "a collaboration", "topic": "collaboration",
                                 "urgency_claimed": "none", "dates_mentioned": ["next Tuesday"],
                                 "institution": "", "reads_like_instructions": False}
        item_id = "20260806T020312-%08x" % seq
        if state == "awaiting_me":
            rec["outbox"] = [item_id]
            rec["triage_session"] = "sess-%d" % seq
        with open(os.path.join(req, "%010d-meeting.json" % seq), "w") as f:
            json.dump(rec, f, indent=2)
        item = {
            "id": item_id, "status": "pending", "tool": "mail_send", "kind": "message",
            "args_before": {"to": "ada@example.org", "subject": "Re: collaboration", "body": "Hello"},
            "args": {"to": "ada@example.org", "subject": "Re: collaboration", "body": "Hello"},
            "summary": 'mail_send to ada@example.org — "Re: collaboration"',
            "session_id": "sess-%d" % seq, "workspace": None,
            "taint": {"private": False, "untrusted": True},
            "created_at": "2026-08-06T02:03:12Z", "resolved_at": None, "reason": None,
            "error": None,
        }
        with open(os.path.join(outbox, item_id + ".json"), "w") as f:
            json.dump(item, f, indent=2)


def main():
    mecha = sys.argv[1]
    root = tempfile.mkdtemp(prefix="mecha-bench-")
    try:
        home = os.path.join(root, "home")
        req = os.path.join(home, "requests")
        outbox = os.path.join(home, "outbox")
        t = time.perf_counter()
        make_records(req, outbox, N)
        print(f"made {N} records and {N} outbox items in {time.perf_counter() - t:.1f} s")
        env = dict(os.environ, MECHA_HOME=home, NO_COLOR="1")
        env.pop("MECHA_OUTBOX_DIR", None)

        cat_all = ["sh", "-c", f"find {req} -name '*.json' -exec cat {{}} + > /dev/null"]
        best(cat_all, env, 1)  # warm the page cache
        base = best(cat_all, env)
        lst = best([mecha, "frontdoor", "list"], env)
        rec = best([mecha, "frontdoor", "reconcile"], env)
        one = os.path.join(req, "%010d-meeting.json" % (N // 2))
        cat_one = median(["cat", one], env)
        show = median([mecha, "frontdoor", "show", str(N // 2)], env)
        start = median([mecha, "--version"], env)

        print(f"cat of {N} record files      {base * 1000:8.0f} ms  (baseline)")
        print(f"frontdoor list               {lst * 1000:8.0f} ms  list / cat = {lst / base:.2f} (goal <= 3)")
        print(f"frontdoor reconcile          {rec * 1000:8.0f} ms  reconcile / cat = {rec / base:.2f} "
              f"(goal: <= 1 s; nothing to move, {N // 5} awaiting_me with a pending draft)")
        print(f"frontdoor show (median)      {show * 1000:8.1f} ms  (goal <= 20 ms); "
              f"show / cat of one file = {show / cat_one:.2f}")
        print(f"mecha --version (median)     {start * 1000:8.1f} ms  (process start: loading libcurl, "
              f"libical, OpenSSL); show - start = {(show - start) * 1000:.1f} ms to find and print one "
              f"of {N}")
    finally:
        shutil.rmtree(root, ignore_errors=True)


if __name__ == "__main__":
    main()
