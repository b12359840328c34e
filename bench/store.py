"""The request store at 100,000 records, as a real home looks: records in
every state, a pending draft for each one awaiting the person, and the
`requests/.types` cache that a write verb leaves behind (one `close` after
generating, so `show` finds a record as it does at home).

Figures: `frontdoor show` of one record against `cat` of that file (the
baseline process: start, open, read, print); `mecha --version` against
/bin/true; peak resident memory of `frontdoor list` and `frontdoor reconcile`;
and, from the same runs, list against cat of every record file and
reconcile's wall time."""
import json
import os

from common import env_with

N = int(os.environ.get("BENCH_RECORDS", "100000"))
ROUNDS = int(os.environ.get("BENCH_ROUNDS", "21"))
STATES = ["drained", "extracted", "awaiting_me", "closed", "answered"]


def record(seq, state, item_id):
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
    if state == "awaiting_me":
        rec["outbox"] = [item_id]
        rec["triage_session"] = "sess-%d" % seq
    return rec


def item(seq, item_id):
    mail = {"to": "ada@example.org", "subject": "Re: collaboration", "body": "Hello"}
    return {
        "id": item_id, "status": "pending", "tool": "mail_send", "kind": "message",
        "args_before": mail, "args": mail,
        "summary": 'mail_send to ada@example.org — "Re: collaboration"',
        "session_id": "sess-%d" % seq, "workspace": None,
        "taint": {"private": False, "untrusted": True},
        "created_at": "2026-08-06T02:03:12Z", "resolved_at": None, "reason": None,
        "error": None,
    }


def make_home(home):
    req, outbox = os.path.join(home, "requests"), os.path.join(home, "outbox")
    os.makedirs(req, mode=0o700)
    os.makedirs(outbox, mode=0o700)
    for seq in range(1, N + 1):
        state = STATES[seq % len(STATES)]
        item_id = "20260806T020312-%08x" % seq
        with open(os.path.join(req, "%010d-meeting.json" % seq), "w") as f:
            json.dump(record(seq, state, item_id), f, indent=2)
        if state == "awaiting_me":
            with open(os.path.join(outbox, item_id + ".json"), "w") as f:
                json.dump(item(seq, item_id), f, indent=2)
    return req


def figures(b):
    home = os.path.join(b.work, "store-home")
    req = make_home(home)
    env = env_with(MECHA_HOME=home)
    m = b.mecha
    # A write verb, as at home: it leaves requests/.types behind.
    closed = next(s for s in range(N // 2, N) if STATES[s % len(STATES)] == "extracted")
    b.run([m, "frontdoor", "close", str(closed), "--reason", "bench"], env=env)
    if not os.path.exists(os.path.join(req, ".types")):
        raise SystemExit("bench: a write verb did not leave requests/.types")
    one = os.path.join(req, "%010d-meeting.json" % (N // 2))
    cat_all = ["sh", "-c", f"find {req} -name '*.json' -exec cat {{}} + >/dev/null"]
    b.run(cat_all, env=env)  # the page cache holds the store from here on

    t = b.medians({"true": (["/bin/true"], None), "cat": (["cat", one], None),
                   "show": ([m, "frontdoor", "show", str(N // 2)], None),
                   "version": ([m, "--version"], None)}, ROUNDS, env)
    b.row("mecha --version / /bin/true", t["version"], "s", t["true"], 1.5,
          note=f"median of {ROUNDS}")
    b.row(f"frontdoor show (1 of {N:,}) / cat of its file", t["show"], "s", t["cat"], 3,
          note=f"median of {ROUNDS}; requests/.types present")

    runs = {"cat": [], "list": [], "reconcile": [], "outbox": []}
    for _ in range(3):
        runs["cat"].append(b.run(cat_all, env=env))
        runs["list"].append(b.run([m, "frontdoor", "list"], env=env))
        runs["reconcile"].append(b.run([m, "frontdoor", "reconcile"], env=env))
        runs["outbox"].append(b.run([m, "outbox", "list", "--json"], env=env))
    wall = {k: min(r[0] for r in v) for k, v in runs.items()}
    rss = {k: max(r[1] for r in v) for k, v in runs.items()}
    b.row(f"frontdoor list: peak RSS at {N:,}", rss["list"], "KiB", goal=64 * 1024)
    b.row(f"frontdoor reconcile: peak RSS at {N:,}", rss["reconcile"], "KiB", goal=64 * 1024,
          note=f"{N // 5:,} awaiting_me, each with a pending draft")
    b.row(f"outbox list --json: peak RSS with {N // 5:,} items", rss["outbox"], "KiB",
          goal=32 * 1024, note="streamed: one item in memory at a time, ids sorted by name")
    b.row(f"frontdoor list / cat of {N:,} record files", wall["list"], "s", wall["cat"], 3,
          note="best of 3")
    b.row(f"frontdoor reconcile at {N:,} (nothing to move)", wall["reconcile"], "s", goal=1.0,
          note="best of 3")
