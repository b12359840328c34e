"""The person's moves say what they did in JSON too: `frontdoor needs-info`, `close` and
`decline` print one object ({seq, from, to, note, drafts_rejected, drafts_kept, staged,
box}), `outbox approve` and `reject` a line per draft ({id, status, summary, reason,
delivered}); without --json the text is as it was, and a refusal with --json is the
failure document on stdout with the same stderr and exit status as without."""
import json

from test_close import awaiting, configure, draft, item
from test_sweep import BOOKING, booking, configure as configure_booking


def move(seq, from_, to, note, rejected=(), kept=(), staged=None, box=None):
    return {"seq": seq, "from": from_, "to": to, "note": note, "drafts_rejected": list(rejected),
            "drafts_kept": list(kept), "staged": staged, "box": box}


def lines(p):
    return [json.loads(line) for line in p.out.splitlines()]


def refused_alike(mecha, args, code, check):
    """The refusal with --json: stderr and exit status as without, the document on stdout."""
    plain = mecha.run(*args, check=check)
    p = mecha.run(*args, "--json", check=check)
    assert p.err == plain.err and plain.out == ""
    doc = json.loads(p.out)
    assert doc["ok"] is False and doc["error"] == code and doc["message"] in p.err
    return doc


# -- needs-info ----------------------------------------------------------------------------
def test_needs_info_json_is_the_move_and_the_text_is_unchanged(mecha):
    mecha.write_record(1, state="extracted")
    mecha.write_record(2, state="extracted")
    p = mecha.run("frontdoor", "needs-info", "1", "--note", "which week?", "--json", check=0)
    assert json.loads(p.out) == move(1, "extracted", "needs_info", "which week?")
    p = mecha.run("frontdoor", "needs-info", "1", "--json", check=0)
    assert json.loads(p.out) == move(1, "needs_info", "needs_info", None)
    p = mecha.run("frontdoor", "needs-info", "2", "--note", "which week?", check=0)
    assert p.out == "     2  extracted → needs_info\n"


def test_needs_info_ask_json_names_the_question_staged(mecha, smtp_sink):
    configure(mecha, smtp_sink)
    mecha.write_record(1, state="extracted", reply_to="ada@example.org")
    p = mecha.run("frontdoor", "needs-info", "1", "--note", "Which Tuesday?", "--ask", "--json",
                  check=0)
    doc = json.loads(p.out)
    id_ = doc["staged"]["id"]
    assert doc == move(1, "extracted", "needs_info", "Which Tuesday?",
                       staged={"id": id_, "to": "ada@example.org"})
    assert item(mecha, id_)["status"] == "pending" and mecha.read_record(1)["outbox"] == [id_]


def test_needs_info_refused_with_json_prints_the_failure_document(mecha):
    mecha.write_record(1, state="closed", note="gone")
    refused_alike(mecha, ("frontdoor", "needs-info", "1", "--note", "x"), "invalid_transition", 3)
    mecha.write_record(2, state="extracted", reply_to=None)
    refused_alike(mecha, ("frontdoor", "needs-info", "2", "--note", "x", "--ask"), "no_reply_to",
                  3)


# -- close ---------------------------------------------------------------------------------
def test_close_json_says_what_became_of_the_drafts(mecha, smtp_sink):
    configure(mecha, smtp_sink)
    a, b, c = draft(mecha), draft(mecha), draft(mecha)
    awaiting(mecha, 1, [a, b])
    awaiting(mecha, 2, [c])
    p = mecha.run("frontdoor", "close", "1", "--reason", "declined", "--reject-drafts",
                  "--json", check=0)
    assert json.loads(p.out) == move(1, "awaiting_me", "closed", "declined", rejected=[a, b])
    p = mecha.run("frontdoor", "close", "2", "--reason", "later", "--keep-drafts", "--json",
                  check=0)
    assert json.loads(p.out) == move(2, "awaiting_me", "closed", "later", kept=[c])
    assert item(mecha, c)["status"] == "pending"


def test_close_text_is_unchanged_without_json(mecha, smtp_sink):
    configure(mecha, smtp_sink)
    a, b = draft(mecha), draft(mecha)
    awaiting(mecha, 1, [a])
    awaiting(mecha, 2, [b])
    p = mecha.run("frontdoor", "close", "1", "--reason", "declined", "--reject-drafts", check=0)
    assert p.out == ("     1  awaiting_me → closed\n"
                     "        1 pending draft rejected with the same reason\n")
    p = mecha.run("frontdoor", "close", "2", "--reason", "later", "--keep-drafts", check=0)
    assert p.out == ("     2  awaiting_me → closed\n"
                     "        1 draft still pending: approving it needs --force\n")


def test_close_refused_with_json_prints_the_failure_document(mecha, smtp_sink):
    configure(mecha, smtp_sink)
    d = draft(mecha)
    path = awaiting(mecha, 1, [d])
    before = path.read_bytes()
    doc = refused_alike(mecha, ("frontdoor", "close", "1", "--reason", "declined"),
                        "drafts_pending", 3)
    assert d in doc["message"] and path.read_bytes() == before
    refused_alike(mecha, ("frontdoor", "close", "1", "--reason", " "), "reason_required", 2)


# -- a booking's farewell: decline, close --notify -----------------------------------------
NOT_TOLD = "the box was not told: its manage page still shows the booking"


def test_decline_json_names_the_decline_staged_and_what_the_box_was_told(mecha, smtp_sink):
    configure_booking(mecha, smtp_sink)
    booking(mecha)
    p = mecha.run("frontdoor", "decline", "1", "--json", check=0)
    doc = json.loads(p.out)
    id_ = doc["staged"]["id"]
    why = doc["box"].pop("why")
    assert doc == move(1, "drained", "closed", "declined: the time could not be kept",
                       staged={"id": id_, "to": None},
                       box={"told": "failed", "says": NOT_TOLD})
    assert why["ok"] is False and why["message"] in p.err
    assert "the box was not told (" in p.err  # said on stderr, as without --json
    assert mecha.read_record(1)["close_notice"] == id_


def test_decline_text_is_unchanged_without_json(mecha, smtp_sink):
    configure_booking(mecha, smtp_sink)
    booking(mecha)
    p = mecha.run("frontdoor", "decline", "1", "--reason", "the dentist", check=0)
    id_ = mecha.read_record(1)["close_notice"]
    assert p.out == (f"     1  → closed; the decline staged as {id_}: "
                     f"`mecha outbox approve {id_}` sends it\n")
    assert p.err.startswith("mecha: the box was not told (")


def test_decline_refused_with_json_prints_the_failure_document(mecha, smtp_sink):
    configure_booking(mecha, smtp_sink)
    mecha.write_record(1, reply_to="ada@example.org")
    refused_alike(mecha, ("frontdoor", "decline", "1"), "invalid_request", 3)
    assert not any((mecha.home / "outbox").glob("*.json"))


def test_close_notify_json_names_the_cancel_staged(mecha, smtp_sink):
    configure_booking(mecha, smtp_sink)
    booking(mecha, state="booked", note=f"booking-{BOOKING}@mecha")
    p = mecha.run("frontdoor", "close", "1", "--reason", "I am ill", "--notify", "--json",
                  check=0)
    doc = json.loads(p.out)
    id_ = doc["staged"]["id"]
    box = doc.pop("box")
    assert box["told"] == "failed" and box["says"] == NOT_TOLD and box["why"]["ok"] is False
    want = move(1, "booked", "closed", "I am ill", staged={"id": id_, "to": None})
    del want["box"]
    assert doc == want
    assert item(mecha, id_)["tool"] == "calendar_cancel"


# -- outbox approve and reject -------------------------------------------------------------
def row(mecha, id_, status, reason=None, delivered=False):
    return {"id": id_, "status": status, "summary": item(mecha, id_)["summary"],
            "reason": reason, "delivered": delivered}


def test_approve_json_is_a_line_per_draft_and_names_a_draft_not_sent(mecha, smtp_sink):
    configure(mecha, smtp_sink)
    a, b = draft(mecha), draft(mecha)
    p = mecha.run("outbox", "approve", a, "--json", check=0)
    assert lines(p) == [row(mecha, a, "sent", delivered=True)]
    p = mecha.run("outbox", "approve", a, b, "-y", "--json", check=3)
    [refused, sent] = lines(p)
    assert refused["ok"] is False and refused["error"] == "not_pending" and refused["id"] == a
    assert refused["message"] in p.err and f"not sent: {a} (not_pending)" in p.err
    assert sent == row(mecha, b, "sent", delivered=True)
    assert len(smtp_sink.messages()) == 2


def test_approve_mark_sent_json_says_nothing_was_delivered(mecha, smtp_sink):
    configure(mecha, smtp_sink)
    a = draft(mecha)
    left_in_flight = dict(item(mecha, a), sending_since="2026-08-06T02:03:12Z")
    (mecha.home / "outbox" / f"{a}.json").write_text(json.dumps(left_in_flight))
    p = mecha.run("outbox", "approve", "--mark-sent", a, "--json", check=0)
    assert lines(p) == [row(mecha, a, "sent")]
    assert smtp_sink.raw() == []


def test_approve_and_reject_text_is_unchanged_without_json(mecha, smtp_sink):
    configure(mecha, smtp_sink)
    a, b = draft(mecha), draft(mecha)
    p = mecha.run("outbox", "approve", a, check=0)
    assert p.out == f"sent {a}  {item(mecha, a)['summary']}\n"
    p = mecha.run("outbox", "reject", b, "--reason", "no", check=0)
    assert p.out == f"rejected {b}\n"
    assert mecha.run("outbox", "reject", "--all", "--reason", "no", check=0).out == \
        "Nothing to reject.\n"
    assert mecha.run("outbox", "reject", "--all", "--reason", "no", "--json", check=0).out == ""


def test_reject_json_is_a_line_per_draft_with_the_reason(mecha, smtp_sink):
    configure(mecha, smtp_sink)
    a, b = draft(mecha), draft(mecha)
    p = mecha.run("outbox", "reject", a, b, "--reason", "too curt", "--json", check=0)
    assert lines(p) == [row(mecha, a, "rejected", "too curt"),
                        row(mecha, b, "rejected", "too curt")]


def test_approve_and_reject_refused_with_json_print_the_failure_document(mecha, smtp_sink):
    configure(mecha, smtp_sink)
    a = draft(mecha)
    mecha.run("outbox", "reject", a, "--reason", "no", check=0)
    refused_alike(mecha, ("outbox", "reject", a, "--reason", "again"), "not_pending", 3)
    p = mecha.run("outbox", "approve", a, "--json", check=3)
    [doc] = lines(p)
    assert doc["ok"] is False and doc["error"] == "not_pending" and doc["id"] == a
    assert doc["message"] in p.err
    refused_alike(mecha, ("outbox", "reject", a), "reason_required", 2)
