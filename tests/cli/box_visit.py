"""A stranger's side of a real `mecha box serve` (box_fixture.Box): pages as a
browser asks for them, the links the box sends, the owner's queue.

visit() speaks HTTP/1.1 from any loopback address (source="127.0.0.7"), so a
test can be several strangers at once. links() reads the verification links
the box writes to its log when it has no [mail] (docs/box.md); the tests that
need real mail catch it with the SMTP sink instead. ledger() reaches the box's
ledger (SQLite or PostgreSQL, Box.sql) for the one thing a test cannot wait
for: time passing (an expiry moved into the past, as the clock would move it).
"""
import http.client
import json
import urllib.parse
from datetime import datetime, timedelta, timezone

CHECK_EMAIL = "Check your email"
EXPIRED = "That link has expired"
NO_FORM = "There is no form here."
NO_BOOKING = "There is no booking page here."
FORM_TYPE = "application/x-www-form-urlencoded"


def visit(box, method, path, fields=None, body=None, headers=None, source=None):
    """(status, headers with lower-case names, body text). fields: a dict (a
    list value is a repeated key) or a list of pairs, sent urlencoded."""
    h = dict(headers or {})
    if fields is not None:
        body = urllib.parse.urlencode(fields, doseq=True).encode()
        h["Content-Type"] = FORM_TYPE
    c = http.client.HTTPConnection("127.0.0.1", box.port, timeout=30,
                                   source_address=(source, 0) if source else None)
    c.request(method, path, body=body, headers=h)
    r = c.getresponse()
    out = (r.status, {k.lower(): v for k, v in r.getheaders()}, r.read().decode())
    c.close()
    return out


def put_type(box, manifest):
    type_id = manifest.split('id = "', 1)[1].split('"', 1)[0]
    status, body = box.json("PUT", f"/v1/types/{type_id}", body=manifest.encode(), key="release")
    assert status == 200, body
    return type_id


def utc(t):
    return t.astimezone(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


def hour(days=0, hours=0):
    """A whole hour some days (and hours) from now, UTC."""
    now = datetime.now(timezone.utc).replace(minute=0, second=0, microsecond=0)
    return now + timedelta(days=days, hours=hours + 1)


def slot(start, minutes=30):
    return {"start": utc(start), "end": utc(start + timedelta(minutes=minutes)),
            "duration_minutes": minutes}


def push_slots(box, instrument, slots, generated_at=None):
    push = {"generated_at": generated_at or utc(datetime.now(timezone.utc)),
            "horizon_days": 60, "slots": slots}
    status, body = box.json("PUT", f"/v1/instruments/{instrument}/slots", body=push, key="slots")
    assert status == 200, body


def offered(box, instrument="consult"):
    """The slots the box's booking page offers a stranger now (a list never cached)."""
    status, headers, body = visit(box, "GET", f"/s/ada/{instrument}/slots.json")
    assert status == 200 and headers["cache-control"] == "no-store"
    return json.loads(body)["slots"]


def slot_value(s):
    """What the week page's radio button posts for a slot."""
    return f"{s['start']}|{s['duration_minutes']}"


def links(box):
    return [e["link"] for e in box.log() if e.get("event") == "verification_link"]


def path_of(link):
    return urllib.parse.urlsplit(link).path


def drain(box, since=0):
    status, body = box.json("GET", f"/v1/queue?since={since}", key="drain")
    assert status == 200, body
    return body["records"]


def payloads(box):
    return [json.loads(r["payload"]) for r in drain(box)]


class Ledger:
    """`with ledger(box) as db: db.execute(SQL).fetchone()` on either backend."""

    def __init__(self, box):
        self.box = box

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False

    def execute(self, sql):
        rows = self.box.sql(sql)
        return type("Rows", (), {"fetchone": lambda _: rows[0] if rows else None,
                                 "fetchall": lambda _: rows})()


def ledger(box):
    return Ledger(box)
