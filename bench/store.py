"""The request store at 100,000 records, as a real home looks: records in
every state, a pending draft for each one awaiting the person, and the
`requests/.types` cache that a write verb leaves behind (one `close` after
generating, so `show` finds a record as it does at home).

Figures: `frontdoor show` of one record against `cat` of that file (the
baseline process: start, open, read, print); `mecha --version` against
/bin/true; `frontdoor list` and `frontdoor reconcile` against `helper
readall` (the C loop that opens, reads and closes every record file: the
work a listing cannot avoid), best of 3 interleaved rounds, after one first
list that parses every record and keeps their rows (requests/.listed),
reported on its own without a goal; and the peak
resident memory of list (text and --json), next and reconcile at
BENCH_RECORDS (100,000) against the same verb over BENCH_RECORDS_SMALL
(1,000) records, and of `outbox list` (text and --json) over the drafts of
the same two homes (one in five records awaits the person: 20,000 items
against 200) — memory that does not grow with the store."""
import json
import os

from common import env_with

N = int(os.environ.get("BENCH_RECORDS", "100000"))
N_SMALL = int(os.environ.get("BENCH_RECORDS_SMALL", "1000"))
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


def make_home(home, n=None):
    n = N if n is None else n
    req, outbox = os.path.join(home, "requests"), os.path.join(home, "outbox")
    os.makedirs(req, mode=0o700)
    os.makedirs(outbox, mode=0o700)
    for seq in range(1, n + 1):
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

    small_home = os.path.join(b.work, "store-home-small")
    make_home(small_home, N_SMALL)
    small_env = env_with(MECHA_HOME=small_home)
    readall = [b.helper, "readall", req]
    verbs = {"list": [m, "frontdoor", "list"], "list --json": [m, "frontdoor", "list", "--json"],
             "next": [m, "frontdoor", "next"], "reconcile": [m, "frontdoor", "reconcile"]}
    outbox = {"outbox list": [m, "outbox", "list"],
              "outbox list --json": [m, "outbox", "list", "--json"]}
    runs = {k: [] for k in ["readall"] + list(verbs) + list(outbox)}
    small = {k: [] for k in list(verbs) + list(outbox)}
    # The first list of a store whose every record is new to it reads and parses every
    # file, and keeps their rows (requests/.listed); every later one reads only what
    # changed. Both are reported; the goal is held against the second, what a person sees.
    first_list = b.run(verbs["list"], env=env)[0]
    first_readall = b.run(readall, env=env)[0]
    for _ in range(3):
        runs["readall"].append(b.run(readall, env=env))
        for k, argv in {**verbs, **outbox}.items():
            runs[k].append(b.run(argv, env=env))
            small[k].append(b.run(argv, env=small_env))
    wall = {k: min(r[0] for r in v) for k, v in runs.items()}
    rss = {k: max(r[1] for r in v) for k, v in runs.items()}
    rss_small = {k: max(r[1] for r in v) for k, v in small.items()}
    b.row(f"frontdoor list, the first (every record new to .listed) / C read loop", first_list,
          "s", first_readall, note="one run: it parses every record and keeps their rows")
    b.row(f"frontdoor list / C read loop over {N:,} record files", wall["list"], "s",
          wall["readall"], 2, note="best of 3, interleaved; helper readall; rows kept")
    b.row(f"frontdoor reconcile / C read loop over {N:,} record files", wall["reconcile"], "s",
          wall["readall"], 2, note="best of 3; nothing to move")
    for k in verbs:
        b.row(f"frontdoor {k}: peak RSS at {N_SMALL:,}", rss_small[k], "KiB")
        b.row(f"frontdoor {k}: peak RSS at {N:,} / at {N_SMALL:,}", rss[k], "KiB",
              rss_small[k], 1.5)
        b.row(f"frontdoor {k}: peak RSS at {N:,}", rss[k], "KiB", goal=32 * 1024)
    for k in outbox:
        b.row(f"{k}: peak RSS at {N_SMALL // 5:,} items", rss_small[k], "KiB",
              note=f"the {N_SMALL:,}-record home")
        b.row(f"{k}: peak RSS at {N // 5:,} items / at {N_SMALL // 5:,}", rss[k], "KiB",
              rss_small[k], 1.5, note="streamed: one item in memory at a time")
        b.row(f"{k}: peak RSS at {N // 5:,} items", rss[k], "KiB", goal=32 * 1024,
              note="ids sorted by name")
