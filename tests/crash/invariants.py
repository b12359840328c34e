"""What must hold in a home after any writer was killed anywhere, and between
any two moments of a race. Each check returns a list of violations (strings
a person reads); an empty list is a pass.

- every file parses: records, outbox items, the box (a torn last line aside,
  and lines torn by earlier kills, which the next post stepped over),
  blocks.json, bookings.jsonl (a torn last line aside), calendar events;
- nothing is lost: no record or item disappears; a record's keys are only
  ever added (save the few a move documents removing: its note, an old
  extraction_error); keys the writer does not change keep their values; a
  record's outbox list only grows; a resolved item stays as it was resolved;
  the box, the ledger and the block store only grow;
- exactly once: a draft the sink received is sent, or still shows
  sending_since (never pending without it); a sent draft reached the sink
  (unless a person marked it sent); no Message-ID arrived twice;
- bookings: a booked record's event is in the calendar; at most one
  invitation and one cancellation per booking (the ledger's at-most-once);
- landing: a landed letter names a receipt the block store holds;
- nothing left: a temp file a kill left in requests/, outbox/ or beside the
  mission box is removed by a later writer of that store (temps_swept).
"""
from tree import Bad

REMOVABLE = {"note", "extraction_error"}  # moves.h, reconcile.h, triage.h, extract.c


def files(snap, known_torn=()):
    v = []
    for name, r in snap.records.items():
        if isinstance(r, Bad):
            v.append(f"record {name} does not parse: {r.why}")
    for i, it in snap.items.items():
        if isinstance(it, Bad):
            v.append(f"outbox item {i} does not parse: {it.why}")
    letters, _tail = snap.box_letters()
    for raw, env in letters:
        if isinstance(env, Bad) and raw not in known_torn:
            v.append(f"a line of the box does not parse ({env.why}) and no kill tore it: "
                     f"{raw[:80]!r}")
    entries, _tail = snap.ledger()
    for n, e in enumerate(entries, 1):
        if isinstance(e, Bad):
            v.append(f"bookings.jsonl line {n} does not parse: {e.why}")
    if isinstance(snap.blocks, Bad):
        v.append(f"blocks.json does not parse: {snap.blocks.why}")
    for name, uid in snap.events.items():
        if isinstance(uid, Bad):
            v.append(f"calendar event {name} does not parse: {uid.why}")
    return v


def _record_lost(name, ra, rb, may_change):
    v = []
    lost = set(ra) - set(rb) - REMOVABLE
    if lost:
        v.append(f"record {name} lost keys {sorted(lost)}")
    for k in ra:
        if k in rb and k not in may_change and k != "outbox" and ra[k] != rb[k]:
            v.append(f"record {name}: {k} changed ({ra[k]!r} -> {rb[k]!r}) though the "
                     f"writer does not change it")
    old, new = ra.get("outbox", []), rb.get("outbox", [])
    if new[:len(old)] != old:
        v.append(f"record {name}: its outbox list did not only grow ({old} -> {new})")
    return v


def _item_lost(i, ia, ib):
    if ia["status"] != "pending" and (ib["status"] != ia["status"] or
                                      ib.get("resolved_at") != ia.get("resolved_at")):
        return [f"outbox item {i} was {ia['status']} and became {ib['status']}"]
    if ib.get("args_before") != ia.get("args_before"):
        return [f"outbox item {i}: args_before changed"]
    return []


def nothing_lost(a, b, may_change=()):
    """Between snapshot a (before) and b (after)."""
    v = []
    for name, ra in a.records.items():
        rb = b.records.get(name)
        if rb is None:
            v.append(f"record {name} disappeared")
        elif not isinstance(ra, Bad) and not isinstance(rb, Bad):
            v += _record_lost(name, ra, rb, set(may_change))
    for i, ia in a.items.items():
        ib = b.items.get(i)
        if ib is None:
            v.append(f"outbox item {i} disappeared (outbox ids must only grow)")
        elif not isinstance(ia, Bad) and not isinstance(ib, Bad):
            v += _item_lost(i, ia, ib)
    if not b.box.startswith(a.box):
        v.append("the box was rewritten, not appended to")
    done = a.ledger_bytes[:a.ledger_bytes.rfind(b"\n") + 1]
    if not b.ledger_bytes.startswith(done):
        v.append("bookings.jsonl lost a complete line")
    v += _blocks_grew(a.blocks, b.blocks)
    return v  # events may go: a cancellation removes its booking's event


def _blocks_grew(a, b):
    if a is None or isinstance(a, Bad) or isinstance(b, Bad):
        return []
    if b is None:
        return ["blocks.json disappeared"]
    v = []
    if b["store_version"] < a["store_version"]:
        v.append(f"the block store went back from {a['store_version']} to {b['store_version']}")
    after = {x["block_id"]: x for x in b["blocks"]}
    for blk in a["blocks"]:
        nb = after.get(blk["block_id"])
        if nb is None:
            v.append(f"block {blk['block_id']} disappeared")
        elif nb.get("receipts", [])[:len(blk.get("receipts", []))] != blk.get("receipts", []):
            v.append(f"block {blk['block_id']} lost a receipt")
    return v


def exactly_once(snap):
    v = []
    for mid, n in snap.sink.items():
        if n > 1:
            v.append(f"{mid} arrived {n} times")
    for i, it in snap.items.items():
        if isinstance(it, Bad):
            continue
        arrived = snap.sink.get(f"<{i}@mecha>", 0) > 0
        if arrived and it["status"] == "pending" and not it.get("sending_since"):
            v.append(f"draft {i} was delivered and is pending without sending_since")
        if arrived and it["status"] == "rejected":
            v.append(f"draft {i} was delivered and is rejected")
        if it["status"] == "sent" and not arrived and \
                it.get("reason") != "marked sent by a person":
            v.append(f"draft {i} is sent but never reached the SMTP server")
    return v


def bookings(snap):
    v = []
    uids = snap.uids()
    for name, r in snap.good_records().items():
        if r["state"] == "booked" and r.get("note") not in uids:
            v.append(f"record {name} is booked but its event {r.get('note')!r} is not in the "
                     f"calendar")
    for mid, n in snap.sink.items():
        if mid.startswith("<booking-") and n > 1:
            v.append(f"the invitation {mid} went out {n} times")
    return v


def landing(snap):
    v = []
    receipts = set()
    if isinstance(snap.blocks, dict):
        for blk in snap.blocks["blocks"]:
            for r in blk.get("receipts", []):
                receipts.add((blk["block_id"], r.get("store_version")))
    letters, _ = snap.box_letters()
    for _raw, env in letters:
        if isinstance(env, Bad) or env["mission"].get("phase") != "landed":
            continue
        m = env["mission"]
        key = (m.get("block_id"), (m.get("receipt") or {}).get("store_version"))
        if key not in receipts:
            v.append(f"the landed letter of {m.get('mission_id')} names a receipt at "
                     f"store_version {key[1]} that block {key[0]} does not hold")
    return v


def whole(snap, known_torn=()):
    """Every check of one snapshot."""
    return files(snap, known_torn) + exactly_once(snap) + bookings(snap) + landing(snap)


def temps_swept(first_seen, snap, round_, cycle, calendar):
    """A writer killed between its temp file and the rename leaves `.NAME.XXXXXX`; the
    next writer of that store removes it once it is older than the threshold, which the
    crash rounds set to 0 (MECHA_TEST_TEMP_AGE). Every store is written within one cycle
    of the writers, so a temp still there two cycles after it was first seen was never
    swept. first_seen ({path: round}) is kept across rounds. The calendar is the user's
    directory, which mecha does not sweep: its temps are not counted."""
    now = {t for t in snap.temps if not t.startswith(str(calendar) + "/")}
    for t in list(first_seen):
        if t not in now:
            del first_seen[t]
    for t in now:
        first_seen.setdefault(t, round_)
    return [f"the temp file {t}, there since round {r}, was not swept by two cycles of writers"
            for t, r in sorted(first_seen.items()) if round_ - r >= cycle]
