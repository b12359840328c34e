"""The writers the crash rounds kill: one entry each in WRITERS.

A writer is a subclass of Writer (whose defaults are: no record key changed,
no mail, no named point) with
    name        how the figures call it
    may_change  the record keys it may change (any other key must keep its value)
    mail        True when it sends mail (the sink is let settle after a kill)
    point_share how many of its rounds go to a named point (the rest: a random delay)
    points      named kill points besides a random delay (choose_point picks one
                for a round, or none): {"env": {VAR: VALUE}}
                (a test hook in the binary kills itself there, e.g. the sweep's
                MECHA_TEST_KILL_AT), {"hold": True} (killed once the SMTP sink
                stored the message but before it answered 250), {"torn": True}
                (the state a kill inside write(2) leaves: the box ends in the
                first bytes of a letter — SIGKILL on a local file system
                almost never tears a write, so the harness tears it itself)
and two methods (a writer whose process is not one mecha run — the box — gives
its Job no args and a third method, kill(house, job, rng) -> house.Run, that
starts it, kills it and says how):
    prepare(house, rng) -> Job   set the home up for one run (nothing killed
                                 here) and say what to run
    recover(house, job, run)     after the kill (or the exit), do what a
                                 person or the next timer would — run it
                                 again — and return the violations of what the
                                 writer promised (a list of strings)

To add a writer (the drain, the box's queue ...): write such a class — prepare
what it needs, name what it may change, say how to run it again and what must
then be true — and add an instance to WRITERS. If it has a test hook (an
environment variable that makes it SIGKILL itself at a named step, like the
sweep's), list the values in points. The rounds give it the generic checks (every file parses,
nothing lost, exactly once, bookings, landing) before and after recover.
"""
import datetime
import hashlib
import json
import os
import shutil
import socket
import sqlite3
import tempfile
import threading
import time

from box_fixture import Box, free_port
from box_visit import (CHECK_EMAIL, hour, links, path_of, put_type, slot, slot_value, utc,
                       visit)
from house import (Run, canonical_line, chain_of, letter, letter_id, mcp_lines, mcp_results,
                   triage_script)
from test_box_bookings import CONSULT
from test_box_uploads import APPLY, multipart, pdf, png, upload
from test_drain import PDF, PNG, queue_lab, queued
from tree import Bad, Snapshot

BLOCK = "sb_crash"
GATE = {"command": "make check", "exit_status": 0, "artifact_hash": "sha256:gatelog"}


class Writer:
    """The defaults: a writer that changes no record, sends no mail, has no named point."""
    may_change = set()
    mail = False
    point_share = 0.5
    points = []

    def choose_point(self, job, rng):
        """The named point of this round ({}: a random delay instead)."""
        return rng.choice(self.points) if self.points and rng.random() < self.point_share else {}


class Job:
    def __init__(self, args, input=None, env=None, **ctx):
        self.args, self.input, self.env, self.ctx = args, input, env or {}, ctx


class Counter:
    """Sequence numbers and names shared by every writer of one house."""

    def __init__(self):
        self.seq = 0
        self.n = 0

    def next_seq(self):
        self.seq += 1
        return self.seq

    def next(self):
        self.n += 1
        return self.n


def draft_for(house, seqs):
    """One MCP session drafting a reply for each seq (they must be extracted)."""
    calls = [("draft_reply", {"seq": s, "subject": f"Re: {s}", "body": "Yes, gladly.\n"})
             for s in seqs]
    r = house.ok("mcp", input=mcp_lines(*calls))
    res = mcp_results(r.out)
    ids = [res.get(i, {}).get("outbox_id") for i in range(1, len(seqs) + 1)]
    if not all(ids):
        raise RuntimeError(f"setup: draft_reply failed: {r.out}")
    return ids


def item(house, i):
    p = house.outbox / f"{i}.json"
    return json.loads(p.read_text())


def record(house, seq, type_id="meeting"):
    return json.loads((house.requests / f"{seq:010d}-{type_id}.json").read_text())


def rc_in(run, allowed, what):
    return [] if run.rc in allowed else [f"{what} exited {run.rc}: {run.err.strip()[:300]}"]


# -- the front door ---------------------------------------------------------------
class Extract(Writer):
    name = "extract"
    may_change = {"state", "extraction", "extraction_error"}

    def prepare(self, house, rng):
        seqs = [house.counter.next_seq() for _ in range(rng.randint(2, 6))]
        for s in seqs:
            house.write_record(s)
        return Job(["frontdoor", "extract", "--json", "--jobs", "2"], seqs=seqs)

    def recover(self, house, job, run):
        v = rc_in(house.mecha("frontdoor", "extract", "--json"), (0,), "extract again")
        for s in job.ctx["seqs"]:
            r = record(house, s)
            if r["state"] != "extracted" or "extraction" not in r:
                v.append(f"request {s} is {r['state']} after extract ran again")
        return v


class Close(Writer):
    name = "close"
    may_change = {"state", "note"}

    def prepare(self, house, rng):
        s = house.counter.next_seq()
        house.write_record(s, state="extracted")
        drafts = draft_for(house, [s] * rng.randint(0, 2)) if rng.random() < 0.6 else []
        reason = f"closed in round {house.round}"
        return Job(["frontdoor", "close", s, "--reason", reason, "--reject-drafts"],
                   seq=s, reason=reason, drafts=drafts)

    def recover(self, house, job, run):
        again = house.mecha(*job.args)
        v = rc_in(again, (0, 3), "close again")
        r = record(house, job.ctx["seq"])
        if r["state"] != "closed" or r.get("note") != job.ctx["reason"]:
            v.append(f"request {job.ctx['seq']} is {r['state']} ({r.get('note')!r}) after "
                     f"close ran again")
        for i in job.ctx["drafts"]:
            it = item(house, i)
            if it["status"] != "rejected" or it.get("reason") != job.ctx["reason"]:
                v.append(f"draft {i} of a closed request is {it['status']}")
        return v


class Reconcile(Writer):
    name = "reconcile"
    may_change = {"state", "note"}

    def prepare(self, house, rng):
        seqs = [house.counter.next_seq() for _ in range(rng.randint(2, 4))]
        for s in seqs:
            house.write_record(s, state="extracted")
        ids = draft_for(house, seqs)
        fate = {}
        for s, i in zip(seqs, ids):
            if rng.random() < 0.5:
                house.ok("outbox", "approve", i, "-y")
                fate[s] = ("answered", None)
            else:
                reason = f"not like this ({s})"
                house.ok("outbox", "reject", i, "--reason", reason)
                fate[s] = ("extracted", reason)
        return Job(["frontdoor", "reconcile", "--json"], fate=fate)

    def recover(self, house, job, run):
        v = rc_in(house.mecha("frontdoor", "reconcile", "--json"), (0,), "reconcile again")
        for s, (state, note) in job.ctx["fate"].items():
            r = record(house, s)
            if r["state"] != state or (note and r.get("note") != note):
                v.append(f"request {s} is {r['state']} ({r.get('note')!r}), not {state}")
        return v


def orphans(house):
    """Drafts no request lists: a kill between staging a draft and writing its request
    leaves one (visible in outbox list; reconcile cannot settle its request by it)."""
    snap = Snapshot(house)
    listed = {i for r in snap.good_records().values() for i in r.get("outbox", [])}
    return {i for i in snap.items if i not in listed}


class Triage(Writer):
    """The privileged pass over one request with the scripted model: a draft_reply,
    then a word. (--seq: the requests other writers left extracted are not its.)"""
    name = "triage"
    may_change = {"state", "note", "triage_session", "outbox"}

    def prepare(self, house, rng):
        s = house.counter.next_seq()
        house.write_record(s, state="extracted")
        house.triager.control("script", triage_script(1))
        return Job(["frontdoor", "triage", "--seq", s, "--json"],
                   env={"MECHA_PROVIDER": "triager"}, seq=s)

    def recover(self, house, job, run):
        v, s = [], job.ctx["seq"]
        if record(house, s)["state"] == "extracted":
            house.triager.control("script", triage_script(1))
            v += rc_in(house.mecha(*job.args, env=job.env), (0,), "triage again")
        r = record(house, s)
        if r["state"] not in ("awaiting_me", "triaged"):
            v.append(f"request {s} is {r['state']} after triage ran again")
        house.orphans |= orphans(house)
        return v


class Draft(Writer):
    """An agent's draft_reply over MCP, for a few requests in one session."""
    name = "draft-mcp"
    may_change = {"state", "note", "triage_session", "outbox"}

    def prepare(self, house, rng):
        seqs = [house.counter.next_seq() for _ in range(rng.randint(1, 3))]
        for s in seqs:
            house.write_record(s, state="extracted")
        calls = [("draft_reply", {"seq": s, "subject": f"Re: {s}", "body": "Gladly.\n"})
                 for s in seqs]
        return Job(["mcp"], input=mcp_lines(*calls), seqs=seqs)

    def recover(self, house, job, run):
        v = []
        res = mcp_results(run.out)
        for n, s in enumerate(job.ctx["seqs"], 1):
            r = record(house, s)
            i = res.get(n, {}).get("outbox_id")
            if i and (i not in r.get("outbox", []) or r["state"] != "awaiting_me"):
                v.append(f"draft {i} was reported staged for request {s}, which is "
                         f"{r['state']} and lists {r.get('outbox', [])}")
        house.orphans |= orphans(house)
        return v


class Sweep(Writer):
    """A new booking each round, and now and then the cancellation of an earlier one,
    or the rescheduling of one (to a slot ten days ahead; the moved event keeps the
    first booking's UID). Some bookings start within a day (made long before), so the
    sweep that books them mails their 24-hour reminder too."""
    name = "sweep"
    may_change = {"state", "note"}
    mail = True
    booking_points = ("event", "event-written", "invite", "invite-sent", "booked")
    cancel_points = ("remove", "removed", "cancel-mail", "cancel-mail-sent", "closed")
    remind_points = ("remind", "remind-sent")
    move_points = ("move-old", "moved")
    points = [{"env": {"MECHA_TEST_KILL_AT": p}}
              for p in booking_points + cancel_points + remind_points + move_points]
    NEAR_MAX = 20  # near slots, an hour apart from 3 hours ahead: all inside the 24h tier

    def choose_point(self, job, rng):
        """A cancellation's point only in a round that has a cancellation to reach it,
        a reminder's only in one that books a near booking."""
        if rng.random() >= self.point_share:
            return {}
        names = self.booking_points + (self.cancel_points if job.ctx["cancel"] else ()) + \
            (self.remind_points if job.ctx.get("near") else ()) + \
            (self.move_points if job.ctx.get("move") else ())
        return {"env": {"MECHA_TEST_KILL_AT": rng.choice(names)}}

    def __init__(self):
        self.bookings = {}  # booking id -> {"seq", "cancel_seq", "slot", "near"}
        self.near = 0
        now = datetime.datetime.now(datetime.timezone.utc).replace(tzinfo=None)
        self.near_base = now.replace(minute=0, second=0, microsecond=0) + \
            datetime.timedelta(hours=3)

    def slot(self, k):
        day = datetime.date.today() + datetime.timedelta(days=10 + k // 8)
        start = datetime.datetime(day.year, day.month, day.day, 8 + k % 8, 0)
        end = start + datetime.timedelta(minutes=45)
        return start.strftime("%Y-%m-%dT%H:%M:%SZ"), end.strftime("%Y-%m-%dT%H:%M:%SZ")

    def near_slot(self):
        start = self.near_base + datetime.timedelta(hours=self.near)  # on the type's grid
        self.near += 1
        end = start + datetime.timedelta(minutes=45)
        return start.strftime("%Y-%m-%dT%H:%M:%SZ"), end.strftime("%Y-%m-%dT%H:%M:%SZ")

    def prepare(self, house, rng):
        k = house.counter.next()
        bid = f"crash{k:06d}"
        near = self.near < self.NEAR_MAX and rng.random() < 0.35
        start, end = self.near_slot() if near else self.slot(k)
        s = house.counter.next_seq()
        house.offer(start, end)
        house.write_record(s, type_id="booking", values={
            "purpose": "a chat", "_slot_start": start, "_slot_end": end,
            "_duration_minutes": 45, "_booking_id": bid,
            "_manage_url": f"https://gate.example.org/m/{bid}"},
            free_text=[], reply_to=f"Booker {k} <booker{k}@example.org>")
        self.bookings[bid] = {"seq": s, "cancel_seq": None, "slot": (start, end), "near": near,
                              "uid": f"booking-{bid}@mecha", "moved_to": None}
        open_ = [b for b, x in self.bookings.items()
                 if x["cancel_seq"] is None and x["moved_to"] is None and b != bid]
        far = [b for b in open_ if not self.bookings[b]["near"]]
        if far and rng.random() < 0.25:
            return self.reschedule(house, rng.choice(far), near)
        if open_ and rng.random() < 0.4:
            victim = rng.choice(open_)
            c = house.counter.next_seq()
            st, en = self.bookings[victim]["slot"]
            house.write_record(c, type_id="booking", values={
                "_booking_id": victim, "_cancelled": True, "_slot_start": st, "_slot_end": en},
                free_text=[], reply_to=None)  # None: no such key
            self.bookings[victim]["cancel_seq"] = c
            return Job(["frontdoor", "sweep", "--json"], cancel=True, near=near)
        return Job(["frontdoor", "sweep", "--json"], cancel=False, near=near)

    def reschedule(self, house, victim, near):
        """The box's record of victim moved on its manage page, to a slot of its own."""
        k = house.counter.next()
        new = f"crash{k:06d}"
        start, end = self.slot(k)
        s = house.counter.next_seq()
        house.offer(start, end)
        house.write_record(s, type_id="booking", values={
            "_booking_id": new, "_rescheduled_from": victim, "_slot_start": start,
            "_slot_end": end, "_duration_minutes": 45,
            "_manage_url": f"https://gate.example.org/m/{new}"}, free_text=[], reply_to=None)
        self.bookings[new] = {"seq": s, "cancel_seq": None, "slot": (start, end), "near": False,
                              "uid": self.bookings[victim]["uid"], "moved_to": None}
        self.bookings[victim]["moved_to"] = new
        return Job(["frontdoor", "sweep", "--json"], cancel=False, near=near, move=True)

    def recover(self, house, job, run):
        v = rc_in(house.mecha("frontdoor", "sweep", "--json"), (0,), "sweep again")
        house.sink.settle()
        snap = Snapshot(house)
        ledger = {}
        for e in snap.ledger()[0]:
            if not isinstance(e, Bad):
                ledger.setdefault(e["booking_id"], {})[e["step"]] = e["phase"]
        for bid, b in self.bookings.items():
            v += self.check(house, snap, ledger.get(bid, {}), bid, b)
        return v

    def check(self, house, snap, steps, bid, b):
        v = []
        r = snap.record(b["seq"], "booking")
        uid = b["uid"]  # a move's event is the first booking's
        invites = snap.sink.get(f"<booking-{bid}-request@mecha>", 0)
        cancels = snap.sink.get(f"<booking-{bid}-cancel@mecha>", 0)
        reminded = snap.sink.get(f"<booking-{bid}-remind-1440m@mecha>", 0)
        others = [m for m in snap.sink if m.startswith(f"<booking-{bid}-remind-") and
                  m != f"<booking-{bid}-remind-1440m@mecha>"]
        if others:
            v.append(f"booking {bid}: reminders of a tier it is not in: {others}")
        if not b["near"] and reminded:
            v.append(f"booking {bid}, ten days ahead, got a 24-hour reminder")
        if b["near"] and b["cancel_seq"] is None and \
                reminded not in ((0, 1) if steps.get("remind_1440m") == "unconfirmed" else (1,)):
            v.append(f"booking {bid}: {reminded} 24-hour reminders "
                     f"(ledger: {steps.get('remind_1440m')})")
        if reminded > 1:
            v.append(f"booking {bid}: {reminded} 24-hour reminders")
        if b["moved_to"]:
            if r["state"] != "closed" or cancels:
                v.append(f"moved booking {bid}: {r['state']}, {cancels} cancels")
            if invites not in ((0, 1) if steps.get("invite") == "unconfirmed" else (1,)):
                v.append(f"moved booking {bid}: {invites} invitations")
            if steps.get("moved") != "done":
                v.append(f"moved booking {bid}: the ledger says {steps.get('moved')}")
        elif b["cancel_seq"] is None:
            if r["state"] != "booked" or uid not in snap.uids():
                v.append(f"booking {bid} is {r['state']} after the sweep ran again")
            if invites not in ((0, 1) if steps.get("invite") == "unconfirmed" else (1,)):
                v.append(f"booking {bid}: {invites} invitations (ledger: {steps.get('invite')})")
        else:
            c = snap.record(b["cancel_seq"], "booking")
            if r["state"] != "closed" or c["state"] != "closed":
                v.append(f"cancelled booking {bid}: records {r['state']} and {c['state']}")
            if uid in snap.uids():
                v.append(f"cancelled booking {bid}: its event is still in the calendar")
            may_have_gone = invites or steps.get("invite") == "unconfirmed"
            if invites > 1 or cancels > 1 or (cancels and not may_have_gone):
                v.append(f"cancelled booking {bid}: {invites} invitations, {cancels} cancels")
        return v


# -- the outbox ----------------------------------------------------------------------
class Approve(Writer):
    name = "approve"
    mail = True
    points = [{"hold": True}]

    def prepare(self, house, rng):
        seqs = [house.counter.next_seq() for _ in range(rng.randint(1, 3))]
        for s in seqs:
            house.write_record(s, state="extracted")
        ids = draft_for(house, seqs)
        return Job(["outbox", "approve", *ids, "-y"], ids=ids)

    def recover(self, house, job, run):
        """What a person does after a crash: an item in flight is marked sent
        when it arrived and forced when it did not; the rest approved again."""
        v = []
        arrived = Snapshot(house).sink
        for i in job.ctx["ids"]:
            it = item(house, i)
            if it["status"] != "pending":
                continue
            if it.get("sending_since"):
                flag = "--mark-sent" if arrived.get(f"<{i}@mecha>") else "--force"
                v += rc_in(house.mecha("outbox", "approve", i, flag, "-y"), (0,),
                           f"approve {flag}")
            else:
                v += rc_in(house.mecha("outbox", "approve", i, "-y"), (0,), "approve again")
        house.sink.settle()
        arrived = Snapshot(house).sink
        for i in job.ctx["ids"]:
            it = item(house, i)
            if it["status"] != "sent" or arrived.get(f"<{i}@mecha>") != 1:
                v.append(f"draft {i} is {it['status']} and arrived "
                         f"{arrived.get(f'<{i}@mecha>', 0)} times")
        return v


# -- the mission board --------------------------------------------------------------------
def head_of(house, mission):
    """(seq, letter_id) of the mission's head, or (0, None)."""
    r = house.ok("mission", "heads", "--json")
    for m in json.loads(r.out)["missions"]:
        if m["mission_id"] == mission:
            return m["head"]["mission_seq"], m["head_letter_id"]
    return 0, None


def chain_violations(house, mission):
    r = house.mecha("mission", "log", mission, "--json")
    if r.rc != 0:
        return [f"mission log {mission} exited {r.rc}: {r.err.strip()}"]
    log = json.loads(r.out)
    v = []
    if log.get("off_chain"):
        v.append(f"mission {mission}: {log['off_chain']} letters off the chain (a fork)")
    seqs = [x["letter"]["mission_seq"] for x in log["letters"]]
    if seqs != list(range(1, len(seqs) + 1)):
        v.append(f"mission {mission}: the chain's seqs are not 1..n")
    heads = json.loads(house.ok("mission", "heads", "--json").out)["missions"]
    head = [m for m in heads if m["mission_id"] == mission]
    if not head or head[0]["head_letter_id"] != log["head_letter_id"]:
        v.append(f"mission {mission}: heads and log disagree on the head")
    return v + log_of_whole_box(house, mission, log)


def log_of_whole_box(house, mission, log):
    """log answers a plain chain from the lines the index points at: a copy of the box
    alone (no lock, so no index beside it is believed) must give the same chain."""
    with tempfile.TemporaryDirectory() as d:
        copy = os.path.join(d, "inbox.jsonl")
        shutil.copyfile(house.box, copy)
        r = house.mecha("mission", "log", mission, "--json", "--box", copy)
    if r.rc != 0:
        return [f"mission log {mission} of a copy of the box exited {r.rc}: {r.err.strip()}"]
    whole = json.loads(r.out)
    whole["box"] = log["box"]
    if whole != log:
        return [f"mission {mission}: log through the index differs from log of the whole box"]
    return []


class PostCli(Writer):
    """A stream of letters into `mission post`, killed somewhere in it."""
    name = "post-cli"
    agent = "crash-cli"
    mission = "msn_c0ffee000001"
    points = [{"torn": True}]
    point_share = 0.2

    def letters(self, house, rng):
        seq, prev = head_of(house, self.mission)
        return chain_of(self.agent, self.mission, seq + 1, prev, rng.randint(3, 12),
                        runner=f"r{house.round}-")

    def prepare(self, house, rng):
        ls = self.letters(house, rng)
        data = "".join(json.dumps(l) + "\n" for l in ls)
        return Job(["mission", "post", "--agent", self.agent, "--json", "--keep-going", "-"],
                   input=data, letters=ls)

    def posted(self, run):
        out = []
        for line in run.out.split("\n"):
            try:
                r = json.loads(line)
            except ValueError:
                continue
            if isinstance(r, dict) and r.get("letter_id"):
                out.append(r["letter_id"])
        return out

    def torn(self, house, job):
        """A kill inside write(2): the box ends in the first bytes of a letter."""
        seq, prev = head_of(house, self.mission)
        line = canonical_line(self.agent, letter(self.mission, seq + 1, "review", prev))
        cut = line.encode()[:max(1, len(line) // 3)]
        with open(house.box, "ab") as f:
            f.write(cut)
        return cut

    def recover(self, house, job, run):
        v = []
        expected = {letter_id(canonical_line(self.agent, l)) for l in job.ctx["letters"]}
        reported = self.posted(run)
        if not set(reported) <= expected:
            v.append(f"{self.name}: the ids it reported are not the letters' own ids "
                     f"(the harness's canonical line is wrong?)")
        box_ids = {letter_id(raw) for raw in house.box.read_bytes().split(b"\n") if raw}
        lost = [i for i in reported if i not in box_ids]
        if lost:
            v.append(f"{self.name}: letters reported posted are not in the box: {lost}")
        # The next post goes on from the head, stepping over a torn line.
        seq, prev = head_of(house, self.mission)
        nxt = letter(self.mission, seq + 1, "review", prev, runner_id=f"next{house.round}")
        r = house.mecha("mission", "post", "--agent", self.agent, "--json",
                        input=json.dumps(nxt))
        v += rc_in(r, (0,), "the next post")
        if not house.box.read_bytes().endswith(b"\n"):
            v.append("the box does not end in a newline after the next post")
        return v + chain_violations(house, self.mission)


class PostMcp(PostCli):
    """The same stream through the MCP tool mission_post."""
    name = "post-mcp"
    agent = "crash-mcp"
    mission = "msn_c0ffee000002"

    def prepare(self, house, rng):
        ls = self.letters(house, rng)
        data = mcp_lines(*[("mission_post", {"agent_id": self.agent, "letter": l}) for l in ls])
        return Job(["mcp"], input=data, letters=ls)

    def posted(self, run):
        return [r["letter_id"] for r in mcp_results(run.out).values() if r.get("letter_id")]


def store_version_counts(house):
    """store_version must be the number of changes: blocks added plus receipts imported."""
    b = json.loads(house.blocks.read_text())
    changes = len(b["blocks"]) + sum(len(x.get("receipts", [])) for x in b["blocks"])
    if b["store_version"] != changes:
        return [f"the block store is at store_version {b['store_version']} after {changes} "
                f"changes"]
    return []


class BlocksAdd(Writer):
    name = "blocks-add"

    def prepare(self, house, rng):
        b = f"sb_add{house.counter.next():05d}"
        return Job(["blocks", "add", b, "--title", f"block {b}", "--json"], block=b)

    def recover(self, house, job, run):
        v = rc_in(house.mecha(*job.args), (0, 3), "blocks add again")
        b = json.loads(house.blocks.read_text())
        n = sum(1 for x in b["blocks"] if x["block_id"] == job.ctx["block"])
        if n != 1:
            v.append(f"block {job.ctx['block']} is in the store {n} times")
        return v + store_version_counts(house)


class Land(Writer):
    """A mission brought to merge_wait with a candidate, then landed."""
    name = "land"

    def prepare(self, house, rng):
        k = house.counter.next()
        blk, mid = f"sb_land{k:05d}", f"msn_1a4d{k:08x}"
        house.ok("blocks", "add", blk, "--title", f"to land {k}")
        cand = {"block_id": blk, "type": "test",
                "scope": {"boundary_version": 1, "contract_version": 1},
                "evidence": {"command": "make check", "exit_status": 0,
                             "artifact_hash": "sha256:log",
                             "evidence_refs": ["artifact://crash/1"]}}
        prev = None
        for seq, phase, extra in ((1, "judging", {}), (2, "executing", {}),
                                  (3, "merge_wait", {"gate": GATE, "receipt_candidate": cand})):
            r = house.ok("mission", "post", "--agent", "crash-land", "--json",
                         input=json.dumps(letter(mid, seq, phase, prev, block=blk, **extra)))
            prev = json.loads(r.out)["letter_id"]
        return Job(["mission", "land", mid, "--json"], mission=mid, block=blk, candidate=prev)

    def recover(self, house, job, run):
        v = rc_in(house.mecha(*job.args), (0, 3), "land again")
        mid = job.ctx["mission"]
        log = json.loads(house.ok("mission", "log", mid, "--json").out)
        head = log["letters"][-1]["letter"]
        b = json.loads(house.blocks.read_text())
        [blk] = [x for x in b["blocks"] if x["block_id"] == job.ctx["block"]]
        receipts = [r for r in blk.get("receipts", []) if r.get("mission_id") == mid]
        if head["phase"] != "landed" or len(receipts) != 1:
            v.append(f"mission {mid}: head {head['phase']}, {len(receipts)} receipts after "
                     f"land ran again")
        elif head["receipt"]["store_version"] != receipts[0]["store_version"] or \
                receipts[0].get("letter_id") != job.ctx["candidate"]:
            v.append(f"mission {mid}: the landed letter and its receipt disagree")
        return v + store_version_counts(house) + chain_violations(house, mid)


# -- the box and the drain ----------------------------------------------------------
DRAIN_POINTS = ("drain-attachment", "drain-record", "drain-before-ack", "drain-after-ack")


def digest(data):
    return "sha256:" + hashlib.sha256(data).hexdigest()


class Drain(Writer):
    """mecha drain from the box on loopback: rows with two attachments each (put in by
    box_seed, the box's own storage) and now and then one that does not validate.
    Its promise: a row leaves the box only once its record and files are on disk."""
    name = "drain"
    points = [{"env": {"MECHA_TEST_KILL_AT": p}} for p in DRAIN_POINTS]

    def prepare(self, house, rng):
        box = house.gate()
        files = house.root / "gate-files"
        files.mkdir(exist_ok=True)
        seqs = {queue_lab(box, files): "lab-application" for _ in range(rng.randint(1, 2))}
        if rng.random() < 0.4:
            seqs[box.queue({"requester_name": "Eve"})] = "meeting"  # no address: invalid
        return Job(["drain", "--json"], seqs=seqs)

    def recover(self, house, job, run):
        box, seqs = house.gate(), job.ctx["seqs"]
        at_box = {r["seq"] for r in queued(box)}
        v = [f"drain: row {s} was acked and is not at home" + why
             for s, t in seqs.items() if s not in at_box
             for why in self.home_of(house, s, t)]
        kept = {s: p.read_bytes() for s, t in seqs.items()
                if (p := house.requests / f"{s:010d}-{t}.json").exists()}
        v += rc_in(house.mecha("drain", "--json"), (0,), "drain again")
        v += [f"drain: row {s} is still at the box after a clean drain"
              for s in set(seqs) & {r["seq"] for r in queued(box)}]
        for s, t in seqs.items():
            v += [f"drain: row {s}" + why for why in self.home_of(house, s, t)]
            if s in kept and (house.requests / f"{s:010d}-{t}.json").read_bytes() != kept[s]:
                v.append(f"drain: record {s} was written again")
        return v

    def home_of(self, house, seq, type_id):
        """What is wrong with row seq at home: one record, whole, its files whole."""
        named = sorted(p.name for p in house.requests.glob(f"{seq:010d}-*.json"))
        if named != [f"{seq:010d}-{type_id}.json"]:
            return [f": the records at home are {named}"]
        r = record(house, seq, type_id)
        if r["valid"] != (type_id == "lab-application"):
            return [f": valid is {r['valid']} ({r.get('invalid_reason')})"]
        want = {"cv": PDF, "writing_sample": PNG} if r["valid"] else {}
        got = {a["field"]: a for a in r.get("attachments", [])}
        if set(got) != set(want):
            return [f": attachments {sorted(got)}"]
        bad = [f for f, a in got.items() if a["sha256"] != digest(want[f]) or
               not (p := house.requests / a["path"]).exists() or p.read_bytes() != want[f]]
        return [f": the files {bad} are not what the box held"] if bad else []


class Traffic:
    """Strangers and a drain at the box while it is killed: one stranger at a time
    submits the form, confirms through the logged link and uploads two files (one
    at a time, so the link logged next is theirs); beside them the drain acks
    half of what is queued. What the box answered is what it promised."""

    def __init__(self, box, first, strangers=2):
        self.box, self.first, self.strangers = box, first, strangers
        self.answered, self.uploaded, self.acked, self.acked_emails = 0, [], set(), set()
        self.ops = 3 * strangers + 2

    def stranger(self, n):
        email, source = f"s{n}@example.net", f"127.1.{n // 250 % 250}.{1 + n % 250}"
        seen = len(links(self.box))
        status, _, page = visit(self.box, "POST", "/f/ada/apply", source=source,
                                fields={"email": email, "portfolio": "true"})
        self.answered += 1
        if status != 200 or CHECK_EMAIL not in page:
            return
        deadline = time.monotonic() + 5
        while len(links(self.box)) <= seen and time.monotonic() < deadline and \
                self.box.proc.poll() is None:
            time.sleep(0.01)
        status, headers, _ = visit(self.box, "POST", path_of(links(self.box)[seen]),
                                   source=source)
        self.answered += 1
        status, _, page = upload(self.box, headers["location"], [
            ("cv", "cv.pdf", pdf(), "application/pdf"), ("photo", "me.png", png(), "image/png")],
            source=source)
        self.answered += 1
        if status == 200 and "Confirmed" in page:
            self.uploaded.append(email)

    def strangers_run(self):
        for n in range(self.first, self.first + self.strangers):
            self.stranger(n)

    def drain_run(self):
        rows = queued(self.box)
        self.answered += 1
        half = rows[::2]
        status, got = self.box.json("POST", "/v1/queue/ack", key="drain",
                                    body={"seqs": [r["seq"] for r in half]})
        self.answered += 1
        if status == 200:
            self.acked |= {r["seq"] for r in half}
            self.acked_emails |= {json.loads(r["payload"]).get("email") for r in half}

    def start(self):
        def quietly(f):
            try:
                f()
            except Exception:  # noqa: BLE001 - the box was killed under it: that is the point
                pass
        self.threads = [threading.Thread(target=quietly, args=(f,), daemon=True)
                        for f in (self.strangers_run, self.drain_run)]
        for t in self.threads:
            t.start()

    def join(self):
        for t in self.threads:
            t.join(60)


class BoxQueue(Writer):
    """The box itself, SIGKILLed while strangers submit, confirm and upload and the drain
    acks. Its promise: the ledger opens, a queued row has all its attachment rows and
    their blobs whole, an acked row is gone, an upload the box said it took is queued
    (or acked), and the box starts again on what is left."""
    name = "box-queue"

    def __init__(self):
        self.strangers = 0

    def prepare(self, house, rng):
        box = house.gate()
        if not self.strangers:  # the form goes live, and home knows it for the drain
            put_type(box, APPLY)
            (house.home / "factory" / "types" / "apply.toml").write_text(APPLY)
        files = house.root / "gate-files"
        files.mkdir(exist_ok=True)
        queue_lab(box, files)  # something with blobs for the drain to ack
        traffic = Traffic(box, self.strangers)
        self.strangers += traffic.strangers
        return Job(None, traffic=traffic, box=box)

    def kill(self, house, job, rng):
        """Killed once a random number of the traffic's answers came back (0: at once)."""
        t, box, t0 = job.ctx["traffic"], job.ctx["box"], time.monotonic()
        after = rng.randrange(t.ops)
        t.start()
        deadline = t0 + 30
        while t.answered < after and any(x.is_alive() for x in t.threads) and \
                time.monotonic() < deadline:
            time.sleep(0.001)
        time.sleep(rng.uniform(0, 0.004))
        killpg_box(box)
        t.join()
        return Run(["box", "serve"], box.proc.returncode, "", "", True, time.monotonic() - t0)

    def recover(self, house, job, run):
        box, t = job.ctx["box"], job.ctx["traffic"]
        v = ledger_violations(box, t)
        house.gate()
        status, got = box.json("GET", "/v1/queue?since=0", key="drain")
        if status != 200:
            v.append(f"box-queue: after a restart /v1/queue answers {status}")
        return v


def killpg_box(box):
    box.proc.kill()
    box.proc.wait()


def ledger_violations(box, t):
    """What the ledger a kill left must be (read with SQLite, as the box reopens it)."""
    try:
        db = sqlite3.connect(str(box.db), timeout=10)
        ok = db.execute("PRAGMA integrity_check").fetchall()
        rows = {s: (ty, st, json.loads(p)) for s, ty, st, p in
                db.execute("SELECT seq, type_id, state, payload FROM queue")}
        atts = db.execute("SELECT id, user_id, seq, field, size, sha256 FROM attachments").fetchall()
        stored = {}  # the bytes the ledger holds for each attachment, its parts in order
        for aid, part in db.execute("SELECT id, bytes FROM attachment_parts ORDER BY id, n"):
            stored[aid] = stored.get(aid, b"") + part
        db.close()
    except (sqlite3.Error, ValueError) as exc:
        return [f"box-queue: the ledger does not read: {exc}"]
    v = [] if ok == [("ok",)] else [f"box-queue: integrity_check says {ok}"]
    fields = {}
    for aid, user, seq, field, size, sha in atts:
        if seq not in rows:
            v.append(f"box-queue: attachment {aid} names row {seq}, which is gone")
            continue
        fields.setdefault(seq, set()).add(field)
        data = stored.get(aid)
        if rows[seq][1] == "queued" and (data is None or len(data) != size or
                                         digest(data) != "sha256:" + sha.lower().split(":")[-1]):
            v.append(f"box-queue: row {seq}'s {field} blob is missing or not whole")
    want = {"apply": {"cv", "photo"}, "lab-application": {"cv", "writing_sample"}}
    for seq, (ty, state, _) in rows.items():
        if state == "queued" and fields.get(seq, set()) != want.get(ty, set()):
            v.append(f"box-queue: queued row {seq} ({ty}) has attachments "
                     f"{sorted(fields.get(seq, ()))}")
        if state != "queued" and fields.get(seq):
            v.append(f"box-queue: row {seq} is {state} with attachments")
    v += [f"box-queue: row {s} was acked and is still there" for s in t.acked & set(rows)]
    held = {p.get("email") for _, st, p in rows.values() if st == "queued" and isinstance(p, dict)}
    v += [f"box-queue: the upload of {e} was answered Confirmed and is not queued"
          for e in t.uploaded if e not in held and e not in t.acked_emails]
    return v




# -- several boxes on one PostgreSQL ------------------------------------------------
class Farm:
    """Three `mecha box serve` on one database of a throw-away PostgreSQL cluster, behind
    HAProxy on loopback (as tests/cli/test_box_multi.py sets them up): started on first
    use, a killed box started again on its own port, the proxy rewritten to match."""

    def __init__(self, root):
        import tempfile

        from pg_cluster import PgCluster

        (root / "pg").mkdir(parents=True, exist_ok=True)
        try:
            self.cluster = PgCluster(root / "pg")
        except RuntimeError:  # a root the server's user cannot reach: a directory under /tmp
            self.cluster = PgCluster(tempfile.mkdtemp(prefix="mecha-pg-", dir="/tmp"))
        self.cluster.start()
        self.root, self.url, self.proxy = root, self.cluster.database(), None
        self.port = free_port()  # the proxy's, kept across its restarts: the boxes' public_url
        extra = f'public_url = "http://127.0.0.1:{self.port}"'
        self.boxes = [Box(root / "farm0", db=self.url, pg=self.cluster, extra=extra)]
        for i in (1, 2):
            b = Box(root / f"farm{i}", owner=None, db=self.url, pg=self.cluster, extra=extra)
            b.keys = self.boxes[0].keys
            self.boxes.append(b)
        for b in self.boxes:
            b.start()
        self.restart_proxy()
        from test_box_multi import APPLY  # a CV of up to 2 MB, as test_box_multi uploads

        put_type(self.boxes[0], APPLY)
        put_type(self.boxes[0], CONSULT)
        # the rounds' strangers are many more than an owner's mails of a day
        self.sql("UPDATE users SET send_budget = 1000000000")

    def restart_proxy(self):
        from test_box_multi import Proxy

        if self.proxy:
            self.proxy.stop()
        d = self.root / "proxy"
        d.mkdir(exist_ok=True)
        self.proxy = Proxy(d, self.port, self.boxes)
        self.through = Box.__new__(Box)
        self.through.__dict__.update(self.boxes[0].__dict__)
        self.through.port = self.proxy.port

    def revive(self):
        dead = [b for b in self.boxes if b.proc.poll() is not None]
        for b in dead:
            b.start()
        if dead:
            self.restart_proxy()

    def sql(self, text):
        return self.cluster.sql(self.url, text)

    def close(self):
        if self.proxy:
            self.proxy.stop()
        for b in self.boxes:
            b.stop()
        self.cluster.stop()


def multi_missing():
    """Why the multi-box writer cannot run here (None: it can)."""
    import os
    import shutil

    from pg_cluster import PgCluster
    from test_box_multi import HAPROXY

    if not (shutil.which("haproxy") or os.access(HAPROXY, os.X_OK)):
        return "haproxy is not installed (Debian package haproxy, in the Makefile's DEB_PKGS)"
    return PgCluster.missing()


class MultiBox(Writer):
    """Three boxes on one PostgreSQL behind HAProxy; one of them SIGKILLed while
    strangers upload their CVs to it (one upload cut off half-way, the others whole)
    and while strangers hold distinct slots at it. Each stranger then tries again:
    an upload through the proxy (which passes over the dead box), a hold at a living
    box. Its promise: nothing lost,
    nothing twice — each stranger's row is queued once with its CV whole, no part or
    attachment is left without its row, each slot is held exactly once and every
    booking has its submitted row."""
    name = "multi-box"
    uploads = 3
    holds = 6

    points = [{"name": "mid-upload"}, {"name": "mid-hold"}]
    point_share = 0.7

    def __init__(self):
        self.farm, self.n, self.skipped = None, 0, None
        self.seen = dict.fromkeys(("uploads answered", "uploads cut off", "holds answered",
                                   "holds cut off"), 0)

    def choose_point(self, job, rng):
        return job.ctx.get("point", {})

    def close(self):
        self.farm.close()
        print("multi-box: " + ", ".join(f"{v} {k}" for k, v in self.seen.items()) +
              " by the kills (each upload also cut off half-way once a round)", flush=True)

    def up(self, house):
        if self.farm is None:
            self.farm = Farm(house.root / "multi")
            house.closers.append(self.close)
        self.farm.revive()
        return self.farm

    def prepare(self, house, rng):
        if self.skipped is None:
            self.skipped = multi_missing() or ""
            if self.skipped:
                print(f"multi-box: skipped, {self.skipped}", flush=True)
        if self.skipped:
            return Job(None, skip=True)
        farm = self.up(house)
        b0, b1 = farm.boxes[0], farm.boxes[1]
        strangers = []
        for _ in range(self.uploads):
            self.n += 1
            email = f"m{self.n}@example.net"
            source = f"127.2.{self.n // 250 % 250}.{1 + self.n % 250}"
            seen = len(links(b0))
            status, _, page = visit(b0, "POST", "/f/ada/apply", fields={"email": email},
                                    source=source)
            assert status == 200 and CHECK_EMAIL in page, (status, page[:300])
            status, headers, _ = visit(b1, "POST", path_of(links(b0)[seen]), source=source)
            assert status == 303, status
            data = b"%PDF-1.4\n" + rng.randbytes(rng.randint(100, 700) * 1024)
            strangers.append((email, source, headers["location"], data))
        self.n += 1
        ss = [slot(hour(days=2 + self.n % 40, hours=i), 30) for i in range(self.holds)]
        push = {"generated_at": utc(datetime.datetime.now(datetime.timezone.utc)),
                "horizon_days": 60, "slots": ss}
        status, _, body = farm.through.request("PUT", "/v1/instruments/consult/slots",
                                               body=push, key="slots")
        assert status == 200, (status, body[:300])
        victim = rng.randrange(3)
        return Job(None, strangers=strangers, slots=ss, victim=victim, answers={},
                   point=Writer.choose_point(self, None, rng))

    def kill(self, house, job, rng):
        t0 = time.monotonic()
        if job.ctx.get("skip"):
            return Run(["box", "serve"], 0, "", "", False, 0.0)
        farm = self.farm
        victim = farm.boxes[job.ctx["victim"]]
        answers, threads = job.ctx["answers"], []
        (_, _, path, data), whole = job.ctx["strangers"][0], job.ctx["strangers"][1:]
        body, h = multipart([("cv", "cv.pdf", data, "application/pdf")])
        # The first stranger's upload reaches the box only half-way.
        s = socket.create_connection(("127.0.0.1", victim.port))
        s.sendall(f"POST {path} HTTP/1.1\r\nHost: 127.0.0.1:{victim.port}\r\n"
                  f"Content-Type: {h['Content-Type']}\r\nContent-Length: {len(body)}\r\n\r\n"
                  .encode() + body[:rng.randrange(1, len(body))])

        def up(email, source, path, data):
            body, h = multipart([("cv", "cv.pdf", data, "application/pdf")])
            answers[email] = visit(victim, "POST", path, body=body, headers=h, source=source)

        def hold(i, s):
            answers[i] = visit(victim, "POST", "/s/ada/consult",
                               fields={"_slot": slot_value(s),
                                       "email": f"h{self.n}-{i}@example.net",
                                       "topic": "taxes"}, source=f"127.3.{self.n % 250}.{i + 1}")

        def quietly(f, *a):
            try:
                f(*a)
            except Exception:  # noqa: BLE001 - cut off by the kill: the stranger tries again
                pass
        threads = [threading.Thread(target=quietly, args=(up, *x), daemon=True) for x in whole]
        threads += [threading.Thread(target=quietly, args=(hold, i, s), daemon=True)
                    for i, s in enumerate(job.ctx["slots"])]
        point = job.ctx["point"].get("name")
        for t in threads[:len(whole)] if point == "mid-hold" else threads:
            t.start()
        if point == "mid-upload":  # once the box is reading the whole uploads' bodies
            time.sleep(rng.uniform(0.005, 0.03))
        elif point == "mid-hold":  # the uploads answered (or not), the holds just sent
            for t in threads[:len(whole)]:
                t.join(30)
            for t in threads[len(whole):]:
                t.start()
            time.sleep(rng.uniform(0, 0.01))
        else:
            time.sleep(rng.uniform(0, 0.25))
        victim.proc.kill()
        victim.proc.wait()
        s.close()
        for t in threads:
            t.join(60)
        for k in job.ctx["strangers"][1:]:
            self.seen["uploads answered" if k[0] in answers else "uploads cut off"] += 1
        for i in range(len(job.ctx["slots"])):
            self.seen["holds answered" if i in answers else "holds cut off"] += 1
        return Run(["box", "serve"], victim.proc.returncode, "", "", True, time.monotonic() - t0)

    def recover(self, house, job, run):
        if job.ctx.get("skip"):
            return []
        farm, v = self.farm, []  # the victim stays dead while its strangers try again
        living = [b for b in farm.boxes if b.proc.poll() is None]
        answers = job.ctx["answers"]
        confirmed = {e for e, a in answers.items() if isinstance(e, str) and a[0] == 200 and
                     "Confirmed" in a[2]}
        for email, source, path, data in job.ctx["strangers"]:
            if email in confirmed:
                continue  # the box said it took it: trying again is not the stranger's step
            body, h = multipart([("cv", "cv.pdf", data, "application/pdf")])
            visit(farm.through, "POST", path, body=body, headers=h, source=source)
        retried = {}
        for i, s in enumerate(job.ctx["slots"]):
            # at a living box itself: through the proxy every stranger has its address
            retried[s["start"]] = visit(living[i % len(living)], "POST", "/s/ada/consult",
                  fields={"_slot": slot_value(s), "email": f"h{self.n}-{i}@example.net",
                          "topic": "taxes"}, source=f"127.3.{self.n % 250}.{i + 1}")
        self.up(house)
        # Each stranger: one queued row, its CV whole, exactly once.
        for email, _, _, data in job.ctx["strangers"]:
            rows = farm.sql(f"SELECT q.seq, a.id, a.size FROM queue q LEFT JOIN attachments a "
                            f"ON a.seq = q.seq WHERE q.type_id = 'apply' AND "
                            f"q.payload::jsonb ->> 'email' = '{email}'")
            if len(rows) != 1:
                v.append(f"multi-box: {email} has {len(rows)} queued rows with attachments "
                         f"{rows}" + (" (the box had answered Confirmed)"
                                      if email in confirmed else ""))
                continue
            got = farm.through.attachment_bytes(rows[0][1]) if rows[0][1] else None
            if got != data:
                v.append(f"multi-box: {email}'s CV is {'missing' if got is None else 'not whole'}")
        v += [f"multi-box: {n} attachment parts belong to no attachment"
              for [n] in farm.sql("SELECT COUNT(*) FROM attachment_parts p WHERE NOT EXISTS "
                                  "(SELECT 1 FROM attachments a WHERE a.id = p.id)") if n]
        v += [f"multi-box: attachment {a} names row {s}, which is not there"
              for a, s in farm.sql("SELECT id, seq FROM attachments a WHERE NOT EXISTS "
                                   "(SELECT 1 FROM queue q WHERE q.seq = a.seq)")]
        # Each slot: held exactly once, its booking with its submitted row.
        starts = [s["start"] for s in job.ctx["slots"]]
        held = farm.sql("SELECT b.slot_start, b.state, q.state FROM bookings b "
                        "LEFT JOIN queue q ON q.seq = b.queue_seq")
        mine = [h for h in held if h[0] in starts]
        for st in starts:
            n = sum(1 for h in mine if h[0] == st and h[1] == "held")
            if n != 1:
                st_, _, page = retried[st]
                v.append(f"multi-box: slot {st} is held {n} times (tried again: {st_}, "
                         f"{' '.join(page.split())[:160]!r})")
        v += [f"multi-box: the booking of {h[0]} is {h[1]} with its row {h[2]}"
              for h in mine if h[2] != "submitted"]
        return v


WRITERS = [Extract(), Close(), Reconcile(), Triage(), Draft(), Approve(), PostCli(), PostMcp(),
           Land(), BlocksAdd(), Sweep(), Drain(), BoxQueue(), MultiBox()]
