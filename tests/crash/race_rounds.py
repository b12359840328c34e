#!/usr/bin/python3
"""Race rounds: many processes doing what people, agents and timers do — close,
needs-info, approve, reject, extract, triage (the scripted model), reconcile,
list, the booking sweep, MCP draft_reply and mission posts (CLI and MCP) — on
one home at once. Each round gets a fresh home; while it runs a monitor reads
the files over and over; afterwards every process's report is held against
the files:

- every state change a verb reported is allowed by the transition table (the
  library's own, printed by build/tests/state_table), and each record's
  reported changes chain from its first state to its last: some order of
  them, each starting where the one before ended, ends where the file ends
  (a change that was lost, or made from a state the record was not in,
  breaks the chain);
- no lost update: every draft an agent was told it staged is on its record's
  outbox list, and every item in the outbox is on exactly one; a closed
  record keeps the reason of the close that reported closing it; a draft
  reported sent is sent (and arrived once), one reported rejected is rejected
  with that reason;
- outbox ids and each record's outbox list only grew, states only moved the
  table's way, no record lost a key (the monitor, while the round runs);
- the mission chain is linear (`mission log`: off_chain 0, seqs 1..n) and
  holds every letter reported posted; every file parses; exactly once (a
  draft in the sink is sent; nothing arrived twice).

    race_rounds.py [--rounds N] [--ops N] [--jobs N] [--seed S] [-v]

Exits 1 on any violation, 2 when the harness itself broke.
"""
import argparse
import collections
import datetime
import json
import queue
import random
import re
import sys
import threading
import time
import traceback

import invariants
from house import House, chain_of, letter, mcp_lines, mcp_results, state_table, triage_script
from tree import Snapshot

MOVE = re.compile(r"^\s*(\d+)\s+(\S+) → (\S+)\s*$")
MISSION = "msn_ace0ace0ace0"
RECORDS = 14
BOOKINGS = (11, 12)  # their seqs; 13 cancels 11
CANCEL = 13


class Edge:
    """A state change a process reported: from (None: not said), to, mover."""

    def __init__(self, seq, frm, to, mover, note=None, required=True, stay_ok=False, who=""):
        self.seq, self.frm, self.to, self.mover = seq, frm, to, mover
        self.note, self.required, self.stay_ok, self.who = note, required, stay_ok, who

    def allowed(self, state, table):
        if self.frm is not None and state not in self.frm:
            return False
        return (state, self.to) in table.get(self.mover, ()) or (self.stay_ok and state == self.to)

    def __repr__(self):
        frm = "|".join(sorted(self.frm)) if self.frm else "*"
        opt = "" if self.required else "?"
        return f"{frm}→{self.to} ({self.mover}{opt}, {self.who})"


class Reports:
    def __init__(self):
        self.lock = threading.Lock()
        self.edges = collections.defaultdict(list)
        self.drafts = []         # (seq, id, who)
        self.sent = []           # id
        self.rejected = []       # (id, reason)
        self.letters = []        # letter ids reported posted
        self.failures = []       # a process failed in a way that is not a violation
        self.broken = []         # the harness itself failed
        self.violations = []
        self.ops = collections.Counter()

    def edge(self, *a, **kw):
        with self.lock:
            e = Edge(*a, **kw)
            self.edges[e.seq].append(e)

    def add(self, what, item):
        with self.lock:
            getattr(self, what).append(item)


# -- the operations -----------------------------------------------------------------
def moves_in(text, mover, rep, who, note=None):
    for line in text.split("\n"):
        m = MOVE.match(line)
        if m:
            rep.edge(int(m.group(1)), {m.group(2)}, m.group(3), mover, note=note, who=who)


def expect_rc(rep, r, allowed, what):
    if r.timed_out:
        rep.add("violations", f"{what} ran for over a minute and was killed")
    elif r.rc < 0 or r.rc > 3:
        rep.add("violations", f"{what} died or exited {r.rc}: {r.err.strip()[:300]}")
    elif r.rc not in allowed:
        rep.add("failures", f"{what} exited {r.rc}: {r.err.strip()[:200]}")
    return r.rc in allowed


def pending_ids(house):
    out = []
    for p in sorted(house.outbox.glob("*.json")) if house.outbox.exists() else []:
        try:
            it = json.loads(p.read_text())
        except (ValueError, OSError):
            continue
        if it.get("status") == "pending":
            out.append(it["id"])
    return out


def op_close(house, rng, rep, k):
    seq = rng.randint(1, RECORDS)
    reason = f"closed by op {k}"
    how = rng.choice(["--reject-drafts", "--keep-drafts"])
    r = house.mecha("frontdoor", "close", seq, "--reason", reason, how)
    if expect_rc(rep, r, (0, 3), f"close {seq}"):
        moves_in(r.out, "close", rep, f"close op {k}", note=reason)
        moves_in(r.err, "reconcile", rep, f"close op {k}")


def op_needs_info(house, rng, rep, k):
    seq = rng.randint(1, RECORDS)
    note = f"needs info (op {k})"
    r = house.mecha("frontdoor", "needs-info", seq, "--note", note)
    if expect_rc(rep, r, (0, 3), f"needs-info {seq}"):
        moves_in(r.out, "needs-info", rep, f"needs-info op {k}", note=note)


def op_extract(house, rng, rep, k):
    r = house.mecha("frontdoor", "extract", "--json", "--jobs", "2")
    if not expect_rc(rep, r, (0,), "extract"):
        return
    s = json.loads(r.out)
    for seq in s["extracted"]:
        rep.edge(seq, {"drained"}, "extracted", "extract", who=f"extract op {k}")
    for f in s["failed"]:
        if f["state"] == "extraction_failed":
            rep.edge(f["seq"], {"drained"}, "extraction_failed", "extract", who=f"extract op {k}")
    moves_in(r.err, "reconcile", rep, f"extract op {k}")


def op_triage(house, rng, rep, k):
    r = house.mecha("frontdoor", "triage", "--json", "--limit", "2",
                    env={"MECHA_PROVIDER": "triager"})
    if not expect_rc(rep, r, (0,), "triage"):
        return
    to = {"awaiting_me": "awaiting_me", "triaged": "triaged", "failed": "extracted"}
    for row in json.loads(r.out):
        if row["outcome"] in to:
            rep.edge(row["seq"], {"extracted"}, to[row["outcome"]], "triage", who=f"triage op {k}")
    moves_in(r.err, "reconcile", rep, f"triage op {k}")


def op_draft(house, rng, rep, k):
    seqs = [rng.randint(1, RECORDS) for _ in range(rng.randint(1, 2))]
    calls = [("draft_reply", {"seq": s, "subject": f"Re: op {k}", "body": "Gladly.\n"})
             for s in seqs]
    r = house.mecha("mcp", input=mcp_lines(*calls))
    if not expect_rc(rep, r, (0,), "mcp draft_reply"):
        return
    res = mcp_results(r.out)
    for i, s in enumerate(seqs, 1):
        out = res.get(i, {})
        if out.get("outbox_id"):
            rep.add("drafts", (s, out["outbox_id"], f"draft op {k}"))
            rep.edge(s, {"extracted", "awaiting_me"}, "awaiting_me", "draft_reply", stay_ok=True,
                     who=f"draft op {k}")


def op_reconcile(house, rng, rep, k):
    r = house.mecha("frontdoor", "reconcile", "--json")
    if expect_rc(rep, r, (0,), "reconcile"):
        for m in json.loads(r.out):
            rep.edge(m["seq"], {m["from"]}, m["to"], "reconcile", who=f"reconcile op {k}")


def op_list(house, rng, rep, k):
    r = house.mecha("frontdoor", "list")
    if expect_rc(rep, r, (0,), "list"):
        moves_in(r.err, "reconcile", rep, f"list op {k}")


def op_approve(house, rng, rep, k):
    ids = pending_ids(house)
    if not ids:
        return
    r = house.mecha("outbox", "approve", rng.choice(ids), "-y")
    if expect_rc(rep, r, (0, 3), "approve"):
        for line in r.out.split("\n"):
            if line.startswith("sent "):
                rep.add("sent", line.split()[1])


def op_reject(house, rng, rep, k):
    ids = pending_ids(house)
    if not ids:
        return
    reason = f"rejected by op {k}"
    r = house.mecha("outbox", "reject", rng.choice(ids), "--reason", reason)
    if expect_rc(rep, r, (0, 3), "reject"):
        for line in r.out.split("\n"):
            if line.startswith("rejected "):
                rep.add("rejected", (line.split()[1], reason))


def op_sweep(house, rng, rep, k):
    r = house.mecha("frontdoor", "sweep", "--json")
    expect_rc(rep, r, (0, 3), "sweep")
    if r.rc not in (0, 1, 3):
        return
    s = json.loads(r.out)  # a step that failed (exit 1) is a line like the others
    who = f"sweep op {k}"
    for line in s["failed"]:
        rep.add("failures", f"sweep: request {line['seq']}: {line['message']}")
    for line in s["booked"]:
        rep.edge(line["seq"], {"drained", "extracted"}, "booked", "sweep", who=who)
    # A record a person closed meanwhile is left as it is: the sweep's closes may not happen.
    for line in s["cancelled"] + s["closed"]:
        for seq in (line["seq"], line.get("booking_seq")):
            if seq is not None and seq >= 0:
                rep.edge(seq, None, "closed", "sweep", note="cancelled by the requester",
                         required=False, who=who)


def op_post(house, rng, rep, k):
    """A poster that keeps extending the chain, taking the head from each refusal."""
    r = house.mecha("mission", "heads", "--json")
    head = [m for m in json.loads(r.out)["missions"] if m["mission_id"] == MISSION]
    seq, prev = (head[0]["head"]["mission_seq"], head[0]["head_letter_id"]) if head else (0, None)
    ls = chain_of(f"racer-{k}", MISSION, seq + 1, prev, rng.randint(1, 3), runner=f"o{k}-")
    r = house.mecha("mission", "post", "--agent", f"racer-{k}", "--json", "--keep-going",
                    input="".join(json.dumps(x) + "\n" for x in ls))
    if expect_rc(rep, r, (0, 3), "mission post"):
        for line in r.out.split("\n"):
            if line.startswith("{") and '"letter_id"' in line:
                rep.add("letters", json.loads(line)["letter_id"])


def op_post_mcp(house, rng, rep, k):
    r = house.mecha("mission", "heads", "--json")
    head = [m for m in json.loads(r.out)["missions"] if m["mission_id"] == MISSION]
    seq, prev = (head[0]["head"]["mission_seq"], head[0]["head_letter_id"]) if head else (0, None)
    l = letter(MISSION, seq + 1, "review", prev, runner_id=f"m{k}")
    r = house.mecha("mcp", input=mcp_lines(("mission_post", {"agent_id": f"mcp-{k}",
                                                             "letter": l})))
    if expect_rc(rep, r, (0,), "mcp mission_post"):
        for out in mcp_results(r.out).values():
            if out.get("letter_id"):
                rep.add("letters", out["letter_id"])


OPS = [(op_close, 3), (op_needs_info, 2), (op_extract, 2), (op_triage, 2), (op_draft, 3),
       (op_reconcile, 2), (op_list, 1), (op_approve, 3), (op_reject, 2), (op_sweep, 2),
       (op_post, 2), (op_post_mcp, 1)]


# -- the home of a round ----------------------------------------------------------------
def setup(house, rng):
    """Drained, extracted and awaiting_me requests, two bookings and a cancellation."""
    house.new_home()
    house.triager.control("script", triage_script(8))
    kinds = ["drained"] * 4 + ["extracted"] * 6
    rng.shuffle(kinds)
    for seq, state in enumerate(kinds, 1):
        house.write_record(seq, state=state)
    house.write_record(RECORDS, state="extracted")
    day = datetime.date.today() + datetime.timedelta(days=30)
    for i, seq in enumerate(BOOKINGS):
        st = f"{day.isoformat()}T{9 + i:02d}:00:00Z"
        en = f"{day.isoformat()}T{9 + i:02d}:45:00Z"
        house.offer(st, en)
        house.write_record(seq, type_id="booking", values={
            "purpose": "a chat", "_slot_start": st, "_slot_end": en, "_duration_minutes": 45,
            "_booking_id": f"race{house.homes}x{seq}",
            "_manage_url": f"https://gate.example.org/m/{seq}"},
            free_text=[])
    st, en = f"{day.isoformat()}T09:00:00Z", f"{day.isoformat()}T09:45:00Z"
    house.write_record(CANCEL, type_id="booking", values={
        "_booking_id": f"race{house.homes}x{BOOKINGS[0]}", "_cancelled": True, "_slot_start": st,
        "_slot_end": en}, free_text=[], reply_to=None)
    ex = [s for s, k in enumerate(kinds, 1) if k == "extracted"][:2]
    r = house.ok("mcp", input=mcp_lines(*[("draft_reply", {"seq": s, "subject": "Re",
                                                           "body": "Yes.\n"}) for s in ex]))
    drafts = [(s, x["outbox_id"], "setup") for s, x in zip(ex, mcp_results(r.out).values())]
    house.ok("mission", "post", "--agent", "setup", "--json",
             input=json.dumps(letter(MISSION, 1, "judging")))
    return drafts


# -- the monitor ---------------------------------------------------------------------------
class Monitor(threading.Thread):
    """Reads the home over and over while the round runs; what it sees must only grow."""

    def __init__(self, house, table):
        super().__init__(daemon=True)
        self.house, self.stop = house, threading.Event()
        self.reach = reachability(table)
        self.violations, self.looks = [], 0
        self.items, self.records = set(), {}

    def look(self):
        items = {p.name[:-5] for p in self.house.outbox.glob("*.json")} \
            if self.house.outbox.exists() else set()
        if not items >= self.items:
            self.violations.append(f"outbox ids went away: {sorted(self.items - items)}")
        self.items = items
        for p in self.house.requests.glob("0*.json"):
            try:
                r = json.loads(p.read_bytes())
            except (ValueError, OSError) as exc:
                self.violations.append(f"{p.name} did not read while the round ran: {exc}")
                continue
            old = self.records.get(p.name)
            if old:
                self.compare(p.name, old, r)
            self.records[p.name] = r
        self.looks += 1

    def compare(self, name, old, new):
        lost = set(old) - set(new) - invariants.REMOVABLE
        if lost:
            self.violations.append(f"{name} lost keys {sorted(lost)}")
        a, b = old.get("outbox", []), new.get("outbox", [])
        if b[:len(a)] != a:
            self.violations.append(f"{name}: its outbox list shrank or changed ({a} -> {b})")
        if old["state"] != new["state"] and new["state"] not in self.reach[old["state"]]:
            self.violations.append(f"{name} went {old['state']} -> {new['state']}, which no "
                                   f"path of the table allows")

    def run(self):
        while not self.stop.is_set():
            self.look()
            time.sleep(0.003)


def reachability(table):
    step = collections.defaultdict(set)
    for edges in table.values():
        for a, b in edges:
            step[a].add(b)
    reach = {}
    for s in list(step) + ["closed", "answered"]:
        seen, todo = set(), [s]
        while todo:
            for n in step[todo.pop()]:
                if n not in seen:
                    seen.add(n)
                    todo.append(n)
        reach[s] = seen
    return reach


# -- the verdict -------------------------------------------------------------------------
def chains(initial, final, edges, table):
    """True when some order of the edges (all required ones, any optional ones) leads
    from initial to final, each allowed where it starts. None: too many to search."""
    if len(edges) > 22:
        return None
    required = sum(1 << i for i, e in enumerate(edges) if e.required)
    dead = set()

    def dfs(state, used):
        if used & required == required and state == final:
            return True
        if (state, used) in dead:
            return False
        for i, e in enumerate(edges):
            if not used >> i & 1 and e.allowed(state, table) and dfs(e.to, used | 1 << i):
                return True
        dead.add((state, used))
        return False

    return dfs(initial, 0)


def histories(first, last, rep, table):
    v = []
    for seq, edges in rep.edges.items():
        for e in edges:
            if not any(e.allowed(s, table) for s in (e.frm or {a for a, _ in table[e.mover]})):
                v.append(f"request {seq}: {e} is not a move of the transition table")
        r0, r1 = first.get(seq), last.get(seq)
        if not r0 or not r1:
            v.append(f"request {seq}: reported moves, but the record is missing")
            continue
        ok = chains(r0["state"], r1["state"], edges, table)
        if ok is False:
            v.append(f"request {seq}: no order of its reported moves leads from {r0['state']} "
                     f"to {r1['state']} (a lost or unreported change): {edges}")
        if r1["state"] in ("closed", "needs_info") and r1["state"] != r0["state"]:
            notes = {e.note for e in edges if e.to == r1["state"]}
            if r1.get("note") not in notes:
                v.append(f"request {seq} is {r1['state']} with note {r1.get('note')!r}, not the "
                         f"one of a move that reported putting it there ({notes})")
    for seq, r1 in last.items():
        if seq not in rep.edges and r1["state"] != first[seq]["state"]:
            v.append(f"request {seq} moved {first[seq]['state']} -> {r1['state']} and no "
                     f"process reported it")
    return v


def updates(snap, last, rep):
    v = []
    owners = collections.Counter()
    for r in last.values():
        for i in r.get("outbox", []):
            owners[i] += 1
    for seq, i, who in rep.drafts:
        if i not in last[seq].get("outbox", []):
            v.append(f"draft {i} ({who}) is not on request {seq}'s outbox list: a lost update")
    for i in snap.items:
        if owners[i] != 1:
            v.append(f"outbox item {i} is on {owners[i]} requests' outbox lists, not one")
    for i in rep.sent:
        it = snap.items.get(i)
        if not isinstance(it, dict) or it["status"] != "sent" or snap.sink.get(f"<{i}@mecha>") != 1:
            v.append(f"draft {i} was reported sent, but it is not sent and arrived once")
    for i, reason in rep.rejected:
        it = snap.items.get(i)
        if not isinstance(it, dict) or it["status"] != "rejected" or it.get("reason") != reason:
            v.append(f"draft {i} was reported rejected ({reason!r}), but it is not, with that "
                     f"reason")
    for i, it in snap.items.items():
        if isinstance(it, dict) and (it["status"] == "sent") != bool(snap.sink.get(f"<{i}@mecha>")):
            v.append(f"draft {i} is {it['status']} and arrived "
                     f"{snap.sink.get(f'<{i}@mecha>', 0)} times")
    return v


def mission_chain(house, rep):
    r = house.mecha("mission", "log", MISSION, "--json")
    if r.rc != 0:
        return [f"mission log exited {r.rc}: {r.err.strip()}"]
    log = json.loads(r.out)
    ids = [x["letter_id"] for x in log["letters"]]
    v = []
    if log.get("off_chain"):
        v.append(f"{log['off_chain']} letters are off the chain (a fork)")
    if [x["letter"]["mission_seq"] for x in log["letters"]] != list(range(1, len(ids) + 1)):
        v.append("the chain's seqs are not 1..n")
    missing = set(rep.letters) - set(ids)
    if missing:
        v.append(f"letters reported posted are not on the chain: {sorted(missing)}")
    return v


def by_seq(snap):
    return {r["seq"]: r for r in snap.good_records().values()}


def one_round(house, rng, table, n_ops, jobs, verbose):
    rep = Reports()
    for seq, i, who in setup(house, rng):
        rep.add("drafts", (seq, i, who))
    first = by_seq(Snapshot(house))
    monitor = Monitor(house, table)
    monitor.look()
    monitor.start()
    work = queue.Queue()
    weights = [w for _, w in OPS]
    for k in range(n_ops):
        work.put((k, rng.choices([f for f, _ in OPS], weights)[0], random.Random(rng.random())))

    def worker():
        while True:
            try:
                k, op, r = work.get_nowait()
            except queue.Empty:
                return
            rep.ops[op.__name__[3:]] += 1
            try:
                op(house, r, rep, k)
            except Exception:  # noqa: BLE001 - a broken op is the harness's fault
                rep.add("broken", f"op {op.__name__} raised:\n{traceback.format_exc()}")

    threads = [threading.Thread(target=worker) for _ in range(jobs)]
    t0 = time.monotonic()
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    elapsed = time.monotonic() - t0
    monitor.stop.set()
    monitor.join()
    if rep.broken:
        raise RuntimeError("\n".join(rep.broken))
    monitor.look()
    house.sink.settle()
    snap = Snapshot(house)
    last = by_seq(snap)
    v = list(rep.violations) + monitor.violations + invariants.whole(snap)
    v += histories(first, last, rep, table)
    v += updates(snap, last, rep)
    v += mission_chain(house, rep)
    if verbose:
        moves = sum(len(e) for e in rep.edges.values())
        print(f"  {n_ops} ops in {elapsed:.1f} s, {moves} moves reported, {len(rep.drafts)} "
              f"drafts, {len(rep.sent)} sent, {len(rep.letters)} letters, {monitor.looks} looks, "
              f"{len(rep.failures)} failures", flush=True)
        for f in rep.failures:
            print("    failure: " + f, flush=True)
    return v, rep, monitor


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--rounds", type=int, default=20)
    ap.add_argument("--ops", type=int, default=60)
    ap.add_argument("--jobs", type=int, default=8)
    ap.add_argument("--seed", type=int, default=None)
    ap.add_argument("-v", "--verbose", action="store_true")
    a = ap.parse_args()
    seed = a.seed if a.seed is not None else random.randrange(1 << 30)
    rng = random.Random(seed)
    table = state_table()
    print(f"race rounds: {a.rounds} rounds of {a.ops} operations, {a.jobs} at once, seed {seed}",
          flush=True)
    violations, ops, moves, looks, failures = [], collections.Counter(), 0, 0, 0
    t0 = time.monotonic()
    house = House("race")
    try:
        for r in range(a.rounds):
            v, rep, mon = one_round(house, rng, table, a.ops, a.jobs, a.verbose)
            ops.update(rep.ops)
            moves += sum(len(e) for e in rep.edges.values())
            looks += mon.looks
            failures += len(rep.failures)
            for x in v:
                print(f"VIOLATION round {r}: {x}", flush=True)
                violations.append(x)
    except Exception:  # noqa: BLE001 - the harness broke: say where, exit 2
        traceback.print_exc()
        return 2
    finally:
        house.close()
    print("operations: " + ", ".join(f"{k} {n}" for k, n in sorted(ops.items())))
    print(f"rounds {a.rounds}, operations {sum(ops.values())}, moves reported {moves}, "
          f"monitor looks {looks}, failures (not violations) {failures}, violations "
          f"{len(violations)}  [{time.monotonic() - t0:.0f} s, seed {seed}]")
    return 1 if violations else 0


if __name__ == "__main__":
    sys.exit(main())
