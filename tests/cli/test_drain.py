"""mecha drain, slots push and types push against a real `mecha box serve` on
loopback (SQLite; a few again on PostgreSQL). Rows reach the box's queue through
tests/support/box_seed (the box's own storage interface), never a test-only route. What the drain
writes is pinned byte for byte against docs/protocol/box-api.md §6.1."""
import hashlib
import json
import os
import shutil
import signal
import subprocess
import time

import pytest

from box_fixture import Box
from conftest import BIN, ROOT

# The tests that reach every ledger path a drain uses (queue, attachments, ack, slots,
# types) run once more on PostgreSQL (conftest.py); the rest pin the home side only.
on_both_ledgers = pytest.mark.usefixtures("box_ledger")

TYPES = ROOT / "tests" / "fixtures" / "types"
SLOTS = ROOT / "tests" / "fixtures" / "slots"
PDF = b"%PDF-1.4\n% Ada's CV\n1 0 obj << >> endobj\n%%EOF\n"
PNG = b"\x89PNG\r\n\x1a\n" + b"\x00\x00\x00\x0dIHDR" + bytes(range(40))


@pytest.fixture
def box(tmp_path):
    b = Box(tmp_path).start()
    yield b
    b.stop()


def connect(mecha, box, *types, gate=None, where=TYPES):
    """The owner's home paired with the box: the gate, the three keys (0600), types."""
    factory = mecha.home / "factory"
    (factory / "types").mkdir(parents=True, exist_ok=True)
    for d in (mecha.home, factory, factory / "types"):
        os.chmod(d, 0o700)
    (factory / "config.toml").write_text(f'gate = "{gate or f"http://127.0.0.1:{box.port}"}"\n')
    for scope in ("drain", "slots", "release"):
        key = factory / f"{scope}.key"
        key.write_text(box.keys[scope] + "\n")
        os.chmod(key, 0o600)
    for t in types:
        shutil.copy(where / f"{t}.toml", factory / "types" / f"{t}.toml")


def drain(mecha, *args, check=0, env=None):
    p = mecha.run("drain", "--json", *args, check=check, env=env)
    return json.loads(p.out) if p.out.strip() else None, p


def queued(box):
    status, got = box.json("GET", "/v1/queue?since=0", key="drain")
    assert status == 200
    return got["records"]


def sha(data):
    return hashlib.sha256(data).hexdigest()


def record_files(mecha):
    return sorted(p.name for p in mecha.requests.glob("*.json"))


class Blob:
    """An attachment's bytes in the box's ledger, read and replaced as a file's would be."""

    def __init__(self, box, attachment_id):
        self.box, self.id = box, attachment_id

    def read_bytes(self):
        return self.box.attachment_bytes(self.id)

    def write_bytes(self, data):
        self.box.set_attachment_bytes(self.id, data)


def blob(box, attachment_id):
    return Blob(box, attachment_id)


def lab_payload(cv=PDF, sample=PNG, **over):
    p = {
        "statement": "  Engines that weave algebraic patterns.  ",
        "requester_name": "Ada Lovelace",
        "position": "phd",
        "requester_email": "ada@example.org",
        "data_policy": "on",
        "writing_sample": {"filename": "note G – final.png", "size": len(sample),
                           "sha256": "sha256:" + sha(sample).upper(),
                           "content_type": "image/png"},
        "cv": {"filename": "Lebenslauf (Ada).pdf", "size": len(cv),
               "sha256": "sha256:" + sha(cv), "content_type": "application/pdf"},
    }
    p.update(over)
    return p


def queue_lab(box, tmp_path, cv=PDF, sample=PNG, **over):
    (tmp_path / "cv.pdf").write_bytes(cv)
    (tmp_path / "sample.png").write_bytes(sample)
    return box.queue(lab_payload(cv, sample, **over), f"cv={tmp_path / 'cv.pdf'}",
                     f"writing_sample={tmp_path / 'sample.png'}", type_id="lab-application")


# ---- the record ---------------------------------------------------------------------------

@on_both_ledgers
def test_drain_writes_exactly_the_record_the_spec_shows_with_its_files(mecha, box, tmp_path):
    connect(mecha, box, "lab-application")
    seq = queue_lab(box, tmp_path)
    [row] = queued(box)
    report, _ = drain(mecha)
    assert report == {"drained": 1, "written": 1, "already_held": 0, "invalid": 0,
                      "acknowledged": 1, "store": str(mecha.requests), "skipped": [],
                      "dry_run": False}
    path = mecha.requests / f"{seq:010d}-lab-application.json"
    text = path.read_text()
    drained_at = json.loads(text)["drained_at"]
    assert drained_at.endswith("Z") and len(drained_at) == 20
    ext = {"cv": ("pdf", "application/pdf", PDF), "writing_sample": ("png", "image/png", PNG)}
    expected = {
        "seq": seq,
        "type_id": "lab-application",
        "type_version": 1,  # the box sent no stamp (seeded): home's manifest's, judged by
        "state": "drained",
        "created_at": row["created_at"],
        "drained_at": drained_at,
        "valid": True,
        "values": {
            "cv": {"content_type": "application/pdf", "sha256": "sha256:" + sha(PDF),
                   "size": len(PDF)},
            "data_policy": True,
            "position": "phd",
            "requester_email": "ada@example.org",
            "requester_name": "Ada Lovelace",
            "statement": "Engines that weave algebraic patterns.",
            "writing_sample": {"content_type": "image/png", "sha256": "sha256:" + sha(PNG),
                               "size": len(PNG)},
        },
        "free_text": ["requester_name", "requester_email", "statement"],
        "reply_to": "ada@example.org",
        "attachments": [
            {"id": a["id"], "field": a["field"], "filename": a["filename"], "size": a["size"],
             "sha256": "sha256:" + sha(ext[a["field"]][2]), "content_type": ext[a["field"]][1],
             "path": f"attachments/{seq:010d}/{a['field']}.{ext[a['field']][0]}"}
            for a in row["attachments"]
        ],
    }
    assert text == json.dumps(expected, indent=2, ensure_ascii=False)
    assert "Lebenslauf" not in json.dumps(json.loads(text)["values"]), "a filename stayed in values"
    for field, (e, _, data) in ext.items():
        f = mecha.requests / "attachments" / f"{seq:010d}" / f"{field}.{e}"
        assert f.read_bytes() == data and sha(f.read_bytes()) == sha(data)
        assert f.stat().st_mode & 0o777 == 0o600
        assert f.parent.stat().st_mode & 0o777 == 0o700
    assert path.stat().st_mode & 0o777 == 0o600
    assert mecha.requests.stat().st_mode & 0o777 == 0o700
    assert queued(box) == [], "the box forgot it once it was home"
    assert box.sql("SELECT COUNT(*) FROM attachment_parts") == [(0,)], \
        "the box's files went with the ack"
    # The front door reads it as the drain wrote it.
    shown = mecha.json("frontdoor", "show", str(seq), "--json")["record"]
    assert shown == json.loads(text)


def test_a_record_the_front_door_rewrites_keeps_the_drains_bytes(mecha, box):
    connect(mecha, box, "meeting")
    seq = box.queue({"requester_name": "Grace", "requester_email": "grace@example.org",
                     "purpose": "other", "other_detail": "compilers", "duration_minutes": "30"})
    drain(mecha)
    path = mecha.requests / f"{seq:010d}-meeting.json"
    before = path.read_text()
    mecha.run("frontdoor", "needs-info", str(seq), "--note", "which week?", check=0)
    after = json.loads(path.read_text())
    del after["note"]
    after["state"] = "drained"
    assert json.dumps(after, indent=2, ensure_ascii=False) == before


def test_an_invalid_submission_arrives_valid_false_with_its_reason_and_is_acked(mecha, box):
    connect(mecha, box, "meeting")
    seq = box.queue({"requester_name": "Eve", "purpose": "gossip", "colour": "red"})
    report, p = drain(mecha)
    assert report["written"] == 1 and report["invalid"] == 1 and report["acknowledged"] == 1
    rec = mecha.read_record(seq)
    assert rec["valid"] is False and "reply_to" not in rec and rec["free_text"] == []
    assert rec["invalid_reason"] == (
        "3 problems with a `meeting` submission: colour: this is not a field of this request "
        "type; purpose: this has to be one of: collaboration, advising, press, other; "
        "requester_email: this is required")
    assert rec["values"] == {"colour": "red", "purpose": "gossip", "requester_name": "Eve"}
    assert list(rec) == ["seq", "type_id", "type_version", "state", "created_at", "drained_at",
                         "valid", "invalid_reason", "values", "free_text"]
    assert queued(box) == []


@pytest.mark.parametrize("payload,reason", [
    ("[1, 2]", "the payload is not a JSON object of field names and values"),
    ("{not json", "the payload is not a JSON object of field names and values"),
])
def test_a_payload_that_is_not_an_object_arrives_with_empty_values(mecha, box, payload, reason):
    connect(mecha, box, "meeting")
    seq = int(box.seed("queue", box.data, "ada", "meeting", payload))
    drain(mecha)
    rec = mecha.read_record(seq)
    assert rec["valid"] is False and rec["values"] == {} and rec["invalid_reason"] == reason


def test_a_type_missing_at_home_makes_the_record_invalid_not_lost(mecha, box):
    connect(mecha, box)
    seq = box.queue({"requester_name": "Grace"}, type_id="meeting")
    report, _ = drain(mecha)
    rec = mecha.read_record(seq)
    assert rec["valid"] is False and "there is no request type `meeting`" in rec["invalid_reason"]
    assert rec["values"] == {"requester_name": "Grace"} and report["acknowledged"] == 1


def test_machinery_alone_is_valid_and_a_bookings_machinery_is_put_back(mecha, box):
    connect(mecha, box, "book")
    cancel = box.queue({"_booking_id": "b1", "_cancelled": True,
                        "_slot_start": "2026-10-23T14:00:00Z",
                        "_slot_end": "2026-10-23T14:30:00Z"}, type_id="book")
    book = box.queue({"_slot_start": "2026-10-23T14:00:00Z", "_booking_id": "b2",
                      "requester_name": "Grace", "requester_email": "grace@example.org",
                      "topic": "compilers", "_duration_minutes": 30}, type_id="book")
    drain(mecha)
    rec = mecha.read_record(cancel, "book")
    assert rec["valid"] is True and rec["values"] == {
        "_booking_id": "b1", "_cancelled": True, "_slot_start": "2026-10-23T14:00:00Z",
        "_slot_end": "2026-10-23T14:30:00Z"}
    rec = mecha.read_record(book, "book")
    assert rec["valid"] is True, rec.get("invalid_reason")
    assert rec["values"] == {"_booking_id": "b2", "_duration_minutes": 30,
                             "_slot_start": "2026-10-23T14:00:00Z", "requester_email":
                             "grace@example.org", "requester_name": "Grace",
                             "topic": "compilers"}
    assert list(rec["values"]) == sorted(rec["values"]) and rec["reply_to"] == "grace@example.org"


def test_a_file_value_no_attachment_backs_makes_the_record_invalid(mecha, box, tmp_path):
    connect(mecha, box, "lab-application")
    other = b"%PDF-1.4 another file"
    (tmp_path / "cv.pdf").write_bytes(other)
    (tmp_path / "sample.png").write_bytes(PNG)
    seq = box.queue(lab_payload(), f"cv={tmp_path / 'cv.pdf'}",
                    f"writing_sample={tmp_path / 'sample.png'}", type_id="lab-application")
    drain(mecha)
    rec = mecha.read_record(seq, "lab-application")
    assert rec["valid"] is False
    assert rec["invalid_reason"] == "file `cv`: the box sent no attachment with its size and digest"
    saved = mecha.requests / "attachments" / f"{seq:010d}" / "cv.pdf"
    assert saved.read_bytes() == other, "what the box sent is kept, for a person to look at"


# ---- what is not taken --------------------------------------------------------------------

# (A box sending more than it declared is a hostile box's test: ours sends the declared size.)
@pytest.mark.parametrize("tamper", ["another digest", "shorter"])
def test_a_tampered_attachment_is_not_written_nor_acked_and_the_next_drain_takes_it(
        mecha, box, tmp_path, tamper):
    connect(mecha, box, "lab-application")
    seq = queue_lab(box, tmp_path)
    [row] = queued(box)
    cv = next(a for a in row["attachments"] if a["field"] == "cv")
    path = blob(box, cv["id"])
    good = path.read_bytes()
    path.write_bytes({"another digest": good[:-1] + b"X", "shorter": good[:-1]}[tamper])
    report, p = drain(mecha, check=1)
    assert report["written"] == 0 and report["acknowledged"] == 0
    [skip] = report["skipped"]
    # Bytes the ledger lacks are never sent short: the box cuts the answer (the drain
    # sees the transfer fail); bytes that are not the file fail their digest.
    assert skip["seq"] == seq and skip["error"] == ("gate" if tamper == "shorter"
                                                     else "attachment")
    assert ("attachment `cv`" in skip["message"] or tamper == "shorter") and \
        "left at the box" in p.err
    assert record_files(mecha) == []
    assert not (mecha.requests / "attachments" / f"{seq:010d}" / "cv.pdf").exists()
    assert [r["seq"] for r in queued(box)] == [seq], "the box still holds it"
    path.write_bytes(good)
    report, _ = drain(mecha)
    assert report["written"] == 1 and report["acknowledged"] == 1
    assert (mecha.requests / "attachments" / f"{seq:010d}" / "cv.pdf").read_bytes() == PDF
    assert queued(box) == []


def test_a_row_left_at_the_box_does_not_hold_back_the_others(mecha, box, tmp_path):
    connect(mecha, box, "lab-application", "meeting")
    bad = queue_lab(box, tmp_path)
    good = box.queue({"requester_name": "Grace"})
    [row, _] = queued(box)
    blob(box, row["attachments"][0]["id"]).write_bytes(b"%PDF- not it")
    report, p = drain(mecha, check=1)
    assert (report["written"], report["acknowledged"]) == (1, 1)
    assert [s["seq"] for s in report["skipped"]] == [bad]
    assert [r["seq"] for r in queued(box)] == [bad]
    assert record_files(mecha) == [f"{good:010d}-meeting.json"]


def test_a_record_already_present_is_not_rewritten_and_is_acked(mecha, box):
    connect(mecha, box, "meeting")
    seq = box.queue({"requester_name": "Grace", "requester_email": "grace@example.org",
                     "purpose": "press"})
    drain(mecha, check=None, env={"MECHA_TEST_KILL_AT": "drain-before-ack"})
    mecha.run("frontdoor", "close", str(seq), "--reason", "answered by phone", check=0)
    path = mecha.requests / f"{seq:010d}-meeting.json"
    progress = path.read_bytes()
    report, p = drain(mecha)
    assert (report["written"], report["already_held"], report["acknowledged"]) == (0, 1, 1)
    assert path.read_bytes() == progress, "mecha's progress on it was kept"
    assert mecha.read_record(seq)["state"] == "closed"
    assert queued(box) == []


def test_a_seq_another_request_holds_at_home_is_neither_overwritten_nor_acked(mecha, box):
    """Two boxes count from 1: a record of the same seq that is another request
    (another created_at) must not be taken for this one and acked away."""
    connect(mecha, box, "meeting")
    mine = mecha.write_record(1, created_at="2020-01-01T00:00:00Z")
    before = mine.read_bytes()
    seq = box.queue({"requester_name": "Grace"})
    assert seq == 1
    report, p = drain(mecha, check=3)
    assert report["skipped"][0]["error"] == "seq_taken" and report["acknowledged"] == 0
    assert mine.read_bytes() == before and [r["seq"] for r in queued(box)] == [1]


def test_dry_run_writes_nothing_and_acks_nothing(mecha, box, tmp_path):
    connect(mecha, box, "lab-application", "meeting")
    queue_lab(box, tmp_path)
    box.queue({"requester_name": "Eve"})
    report, p = drain(mecha, "--dry-run")
    assert report["dry_run"] is True and report["drained"] == 2
    assert (report["written"], report["invalid"], report["acknowledged"]) == (2, 1, 0)
    assert not mecha.requests.exists(), "a dry run creates nothing, not even the store"
    assert len(queued(box)) == 2


# ---- a kill at any point -----------------------------------------------------------------

@on_both_ledgers
@pytest.mark.parametrize("point", ["drain-attachment", "drain-record", "drain-before-ack",
                                   "drain-after-ack"])
def test_a_drain_killed_at_any_point_then_run_again_leaves_one_record_each_acked(
        mecha, box, tmp_path, point):
    connect(mecha, box, "lab-application", "meeting")
    first = queue_lab(box, tmp_path)
    second = box.queue({"requester_name": "Grace", "requester_email": "grace@example.org",
                        "purpose": "press"})
    p = mecha.run("drain", env={"MECHA_TEST_KILL_AT": point})
    assert p.returncode == -signal.SIGKILL
    written = {f: (mecha.requests / f).read_bytes() for f in record_files(mecha)}
    report, _ = drain(mecha)
    assert record_files(mecha) == [f"{first:010d}-lab-application.json",
                                   f"{second:010d}-meeting.json"]
    for name, data in written.items():
        assert (mecha.requests / name).read_bytes() == data, "a record written is never rewritten"
    assert queued(box) == []
    assert report["written"] + report["already_held"] == (0 if point == "drain-after-ack" else 2)
    leftovers = [p.name for p in mecha.requests.rglob(".*") if p.name not in (".lock", ".types")]
    assert leftovers == [], "a temporary file was left behind"
    for seq, t in ((first, "lab-application"), (second, "meeting")):
        assert mecha.read_record(seq, t)["valid"] is True


# ---- the gate and the keys ------------------------------------------------------------------

@pytest.mark.parametrize("gate", ["http://192.0.2.7:8080", "http://box.example.org",
                                  "http://localhost:8080", "HTTP://10.0.0.1/"])
def test_a_plain_http_gate_beyond_loopback_is_refused(mecha, box, gate):
    connect(mecha, box, "meeting", gate=gate)
    box.queue({"requester_name": "Grace"})
    p = mecha.run("drain", "--json", check=3)
    assert json.loads(p.out)["error"] == "insecure" and "use https://" in p.err
    p = mecha.run("drain", env={"FACTORY_GATE": gate}, check=3)
    assert len(queued(box)) == 1


@pytest.mark.parametrize("gate,why", [
    ("ftp://box.example.org", "not an https:// URL"),
    ("https://ada:pw@box.example.org", "carries a user or a password"),
    ("https://box.example.org/?x=1", "has a query or a fragment"),
    ("https://:8080", "has no host"),
])
def test_a_gate_that_is_not_a_box_url_is_a_config_error(mecha, box, gate, why):
    connect(mecha, box, gate=gate)
    p = mecha.run("drain", check=1)
    assert why in p.err


def test_the_gates_file_is_read_strictly(mecha, box):
    connect(mecha, box)
    (mecha.home / "factory" / "config.toml").write_text(
        f'gate = "http://127.0.0.1:{box.port}"\nhandel = "ada"\n')
    p = mecha.run("drain", check=1)
    assert "config.toml:2: unknown key `handel`" in p.err
    (mecha.home / "factory" / "config.toml").unlink()
    p = mecha.run("drain", check=1)
    assert "no gate" in p.err and "FACTORY_GATE" in p.err


@pytest.mark.parametrize("mode", [0o644, 0o640, 0o604])
def test_a_key_file_others_can_read_is_refused(mecha, box, mode):
    connect(mecha, box, "meeting")
    key = mecha.home / "factory" / "drain.key"
    os.chmod(key, mode)
    box.queue({"requester_name": "Grace"})
    p = mecha.run("drain", check=3)
    assert f"chmod 600 {key}" in p.err
    assert len(queued(box)) == 1


def test_the_key_may_live_where_factory_drain_key_says(mecha, box, tmp_path):
    connect(mecha, box, "meeting")
    elsewhere = tmp_path / "secret"
    shutil.move(mecha.home / "factory" / "drain.key", elsewhere)
    p = mecha.run("drain", check=1)
    assert "no drain key" in p.err and "FACTORY_DRAIN_KEY" in p.err
    box.queue({"requester_name": "Grace"})
    report, _ = drain(mecha, env={"FACTORY_DRAIN_KEY": str(elsewhere)})
    assert report["written"] == 1


def test_a_key_the_box_does_not_know_is_the_boxs_refusal(mecha, box):
    connect(mecha, box)
    (mecha.home / "factory" / "drain.key").write_text(box.keys["publish"] + "\n")
    p = mecha.run("drain", check=1)
    assert "HTTP 403: this key does not cover this endpoint" in p.err


def test_wait_takes_up_to_the_boxs_25_seconds(mecha):
    p = mecha.run("drain", "--wait", "26", check=2)
    assert "--wait" in p.err


# ---- follow --------------------------------------------------------------------------------

@on_both_ledgers
def test_follow_drains_requests_as_they_arrive_and_stops_on_sigterm(mecha, box):
    connect(mecha, box, "meeting")
    env = dict(mecha.env)
    proc = subprocess.Popen([BIN, "drain", "--follow", "--json", "--wait", "1"], env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    try:
        seq = box.queue({"requester_name": "Grace"})
        deadline = time.time() + 30
        while not (mecha.requests / f"{seq:010d}-meeting.json").exists():
            assert time.time() < deadline and proc.poll() is None, "nothing was drained"
            time.sleep(0.05)
        while queued(box):
            assert time.time() < deadline, "never acked"
            time.sleep(0.05)
    finally:
        proc.send_signal(signal.SIGTERM)
        out, err = proc.communicate(timeout=60)
    assert proc.returncode == 0, err
    lines = [json.loads(line) for line in out.decode().splitlines()]
    assert [(r["written"], r["acknowledged"]) for r in lines] == [(1, 1)]


# ---- slots push, types push ------------------------------------------------------------------

@on_both_ledgers
def test_slots_push_sends_exactly_the_body_slots_show_prints(mecha, box):
    connect(mecha, box, "consult", where=SLOTS)
    (mecha.home / "config.toml").write_text(f'[calendar]\npath = "{SLOTS / "busy.ics"}"\n')
    now = "2026-10-22T12:00:00Z"
    shown = mecha.json("slots", "show", "consult", "--from", now, "--json")
    out = mecha.json("slots", "push", "consult", "--from", now, "--json")
    assert out["slots"] == len(shown["slots"]) == 4 and out["dry_run"] is False
    assert out["answer"]["instrument"] == "consult" and out["answer"]["stored"] == 4
    [(gen, horizon, slots)] = box.sql("SELECT generated_at, horizon_days, slots FROM slot_cache "
                                      "WHERE instrument_id = 'consult'")
    assert {"generated_at": gen, "horizon_days": horizon, "slots": json.loads(slots)} == shown
    assert slots == json.dumps(shown["slots"], separators=(",", ":"))


def test_slots_push_dry_run_sends_nothing(mecha, box):
    connect(mecha, box, "consult", where=SLOTS)
    (mecha.home / "config.toml").write_text(f'[calendar]\npath = "{SLOTS / "busy.ics"}"\n')
    p = mecha.run("slots", "push", "consult", "--from", "2026-10-22T12:00:00Z", "--dry-run",
                  check=0)
    assert p.out.startswith("would push 4 slots of consult to http://127.0.0.1:")
    assert box.sql("SELECT count(*) FROM slot_cache") == [(0,)]


@on_both_ledgers
def test_types_push_publishes_the_manifest_the_box_then_serves(mecha, box):
    connect(mecha, box, "meeting")
    out = mecha.json("types", "push", "meeting", "--json")
    assert out["id"] == "meeting" and out["url"].endswith("/v1/types/meeting")
    status, got = box.json("GET", "/v1/types/meeting", key="publish")
    assert status == 200 and got["manifest"] == (TYPES / "meeting.toml").read_text()
    assert got["title"] == "Request a meeting"


def test_types_push_refuses_a_broken_manifest_at_home_and_sends_nothing(mecha, box):
    connect(mecha, box)
    broken = mecha.home / "factory" / "types" / "meeting.toml"
    broken.write_text('id = "meeting"\nversion = 1\ntitle = "x"\ncolour = "red"\n')
    p = mecha.run("types", "push", "meeting", check=1)
    assert "meeting.toml:" in p.err
    assert box.json("GET", "/v1/types/meeting", key="publish")[0] == 404


def test_types_push_with_a_key_of_another_scope_says_what_the_box_said(mecha, box):
    connect(mecha, box, "meeting")
    (mecha.home / "factory" / "release.key").write_text(box.keys["drain"] + "\n")
    p = mecha.run("types", "push", "meeting", "--json", check=1)
    assert json.loads(p.out)["error"] == "gate"
    assert "HTTP 403: this key does not cover this endpoint" in p.err


def test_the_drain_keeps_the_stores_types_hint_so_doctor_finds_nothing_to_mend(mecha, box):
    connect(mecha, box, "meeting", "letter")
    (mecha.home / "config.toml").write_text("")
    mecha.write_record(90, type_id="meeting")
    (mecha.requests / ".types").write_text("meeting\n")
    box.queue({"requester_name": "Grace"})
    box.queue({"requester_name": "Ada"}, type_id="letter")
    drain(mecha)
    assert (mecha.requests / ".types").read_text() == "meeting\nletter\n"
    p = mecha.run("doctor", "--offline", "--json")
    [caches] = [c for c in json.loads(p.out) if c["check"] == "caches"]
    assert caches["status"] == "ok", caches
