"""Reading a home as it stands: every file mecha writes, parsed the way
docs/protocol/files.md says it reads, into one snapshot — and what changed between
two snapshots, as a set of tags (the phase a killed writer reached).

A snapshot never writes: it reads the files, not mecha's read verbs (some of
which reconcile as they read).
"""
import collections
import contextlib
import json
import re
import sqlite3

RECORD_NAME = re.compile(r"^-?[0-9]+-[A-Za-z0-9_-]{1,64}\.json$")
REQUIRED = {"seq": int, "type_id": str, "state": str, "created_at": str, "drained_at": str,
            "values": dict}
STATUSES = ("pending", "sent", "rejected")
TEMP = re.compile(r"^\..+\.[A-Za-z0-9]{6}$")


class Bad:
    """A file that does not read, and why."""

    def __init__(self, why):
        self.why = why

    def __repr__(self):
        return f"Bad({self.why})"


def _json(data):
    try:
        return json.loads(data)
    except ValueError as exc:
        return Bad(f"not JSON: {exc}")


def parse_record(name, data):
    rec = _json(data)
    if isinstance(rec, Bad):
        return rec
    if not isinstance(rec, dict):
        return Bad("not an object")
    for k, t in REQUIRED.items():
        if not isinstance(rec.get(k), t) or (t is int and isinstance(rec.get(k), bool)):
            return Bad(f"key {k} missing or not {t.__name__}")
    if name != f"{rec['seq']:010d}-{rec['type_id']}.json":
        return Bad("its name does not match its seq and type_id")
    if "outbox" in rec and not all(isinstance(x, str) for x in rec["outbox"]):
        return Bad("outbox is not a list of ids")
    return rec


def parse_item(name, data):
    it = _json(data)
    if isinstance(it, Bad):
        return it
    if not isinstance(it, dict) or it.get("id") + ".json" != name:
        return Bad("its id does not match its name")
    if it.get("status") not in STATUSES:
        return Bad(f"status {it.get('status')!r}")
    return it


def split_lines(data):
    """(complete lines, torn tail or b"")."""
    if not data:
        return [], b""
    parts = data.split(b"\n")
    return parts[:-1], parts[-1]


def parse_letter_line(raw):
    env = _json(raw)
    if isinstance(env, Bad):
        return env
    if not isinstance(env, dict) or env.get("kind") != "mission" or \
            not isinstance(env.get("mission"), dict):
        return Bad("not a letter envelope")
    return env


def parse_ledger_line(raw):
    line = _json(raw)
    if isinstance(line, Bad):
        return line
    if not isinstance(line, dict) or not all(isinstance(line.get(k), str)
                                             for k in ("booking_id", "step", "phase")):
        return Bad("not a ledger entry")
    return line


def parse_blocks(data):
    b = _json(data)
    if isinstance(b, Bad):
        return b
    if not isinstance(b, dict) or b.get("schema") != "mecha-block-store-v0" or \
            not isinstance(b.get("store_version"), int) or not isinstance(b.get("blocks"), list):
        return Bad("not a block store")
    return b


def event_uid(data):
    text = data.decode("utf-8", "replace").replace("\r\n", "\n")
    if not text.startswith("BEGIN:VCALENDAR") or not text.rstrip().endswith("END:VCALENDAR"):
        return Bad("not a whole iCalendar file")
    for line in text.split("\n"):
        if line.startswith("UID:"):
            return line[4:].strip()
    return Bad("no UID")


def _files(d):
    if not d.exists():
        return []
    return sorted(p for p in d.iterdir() if p.is_file())


def gate_counts(box):
    """The box's queue, counted: rows by state, attachment rows, blob files ({} without a box)."""
    if box is None or not box.db.exists():
        return {}
    try:
        with contextlib.closing(sqlite3.connect(f"file:{box.db}?mode=ro", uri=True,
                                                timeout=10)) as db:
            counts = dict(db.execute("SELECT state, COUNT(*) FROM queue GROUP BY state"))
            counts["attachments"] = db.execute("SELECT COUNT(*) FROM attachments").fetchone()[0]
            counts["blobs"] = db.execute(
                "SELECT COUNT(DISTINCT id) FROM attachment_parts").fetchone()[0]
    except sqlite3.Error as exc:
        return {"unreadable": str(exc)}
    counts["files"] = sum(1 for p in (box.data / "attachments").rglob("*") if p.is_file())
    return counts


class Snapshot:
    def __init__(self, house):
        self.records, self.items, self.events, self.sessions = {}, {}, {}, {}
        self.temps = []
        for p in _files(house.requests):
            if TEMP.match(p.name) and not p.name.startswith(".drain-"):
                self.temps.append(str(p))
            if RECORD_NAME.match(p.name):
                self.records[p.name] = parse_record(p.name, p.read_bytes())
        for p in _files(house.outbox):
            if TEMP.match(p.name):
                self.temps.append(str(p))
            elif p.name.endswith(".json") and not p.name.startswith("."):
                self.items[p.name[:-5]] = parse_item(p.name, p.read_bytes())
        for p in _files(house.cal):
            if TEMP.match(p.name):
                self.temps.append(str(p))
            elif p.suffix == ".ics":
                self.events[p.name] = event_uid(p.read_bytes())
        for p in _files(house.home / "missions"):
            if TEMP.match(p.name):
                self.temps.append(str(p))
        for p in _files(house.home / "sessions"):
            self.sessions[p.name] = p.read_bytes()
        self.box = house.box.read_bytes() if house.box.exists() else b""
        self.ledger_bytes = (house.requests / "bookings.jsonl").read_bytes() \
            if (house.requests / "bookings.jsonl").exists() else b""
        self.blocks = parse_blocks(house.blocks.read_bytes()) if house.blocks.exists() else None
        self.sink = collections.Counter(house.sink.message_ids())
        self.gate = gate_counts(house.box_server)

    # -- views --
    def good_records(self):
        return {n: r for n, r in self.records.items() if not isinstance(r, Bad)}

    def record(self, seq, type_id="meeting"):
        return self.records.get(f"{seq:010d}-{type_id}.json")

    def box_letters(self):
        """[(line bytes, envelope or Bad)] of the complete lines; the torn tail apart."""
        lines, tail = split_lines(self.box)
        return [(raw, parse_letter_line(raw)) for raw in lines if raw.strip()], tail

    def ledger(self):
        lines, tail = split_lines(self.ledger_bytes)
        return [parse_ledger_line(raw) for raw in lines if raw.strip()], tail

    def uids(self):
        return {u for u in self.events.values() if not isinstance(u, Bad)}


# -- what changed: the phase a writer reached ------------------------------------------
def changes(a, b):
    """Tags naming what differs between snapshots a (before) and b (after)."""
    tags = set()
    for name, rb in b.records.items():
        ra = a.records.get(name)
        if ra is None:
            tags.add("record:new")
        elif isinstance(rb, Bad):
            tags.add("record:unreadable")
        elif ra != rb:
            sa = ra.get("state") if isinstance(ra, dict) else "?"
            tags.add(f"record:{sa}->{rb['state']}" if sa != rb["state"] else "record:keys")
    for i, ib in b.items.items():
        ia = a.items.get(i)
        if isinstance(ib, Bad):
            tags.add("item:unreadable")
        elif ia is None:
            tags.add("item:new")
        elif ia != ib:
            def st(x):
                return x["status"] + ("+sending" if x.get("sending_since") else "") + \
                    ("+error" if x.get("error") else "")
            tags.add(f"item:{st(ia)}->{st(ib)}")
    if b.box != a.box:
        grown = b.box[len(a.box):] if b.box.startswith(a.box) else b"?"
        tags.add("box:+%d" % grown.count(b"\n"))
        if b.box and not b.box.endswith(b"\n"):
            tags.add("box:torn")
    if b.ledger_bytes != a.ledger_bytes:
        new = b.ledger_bytes[len(a.ledger_bytes):] if b.ledger_bytes.startswith(
            a.ledger_bytes) else b.ledger_bytes
        lines, tail = split_lines(new)
        for raw in lines:
            e = parse_ledger_line(raw)
            if not isinstance(e, Bad):
                tags.add(f"ledger:{e['step']}:{e['phase']}")
        if tail:
            tags.add("ledger:torn")
    if b.blocks != a.blocks:
        tags.add("blocks:changed")
    if set(b.events) != set(a.events):
        tags.add("calendar:%+d" % (len(b.events) - len(a.events)))
    if b.sink != a.sink:
        tags.add("sink:+%d" % (sum(b.sink.values()) - sum(a.sink.values())))
    for k in set(a.gate) | set(b.gate):
        if a.gate.get(k) != b.gate.get(k):
            tags.add(f"gate:{k}" if k == "unreadable" else
                     "gate:%s%+d" % (k, b.gate.get(k, 0) - a.gate.get(k, 0)))
    if len(b.temps) > len(a.temps):
        tags.add("temp-left")
    if set(b.sessions) != set(a.sessions) or any(b.sessions[k] != a.sessions.get(k)
                                                 for k in b.sessions):
        tags.add("sessions")
    return frozenset(tags)
