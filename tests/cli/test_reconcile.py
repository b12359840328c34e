"""Reconcile end to end: drafts staged in the real outbox, released into a real
SMTP server on loopback or rejected, and the request store catching up on its
own before `list` — the reconcile tests, each as its own test."""
import json

from conftest import write_config


def configure(mecha, sink):
    write_config(mecha, '[outbox]\ntools = ["mail_send"]\n[mail]\n'
                 f'smtp_url = "{sink.url}"\nfrom = "me@example.org"\n')


def draft(mecha):
    p = mecha.run("outbox", "stage", "--tool", "mail_send", "--session", "sess-1", "--args",
                  json.dumps({"to": "ada@example.org", "subject": "Re", "body": "Hello"}), check=0)
    return p.out.strip()


def awaiting(mecha, seq, ids, **kw):
    return mecha.write_record(seq, state="awaiting_me", triage_session="sess-1", outbox=list(ids),
                              extraction={"topic": "t"}, **kw)


def state(mecha, seq):
    return mecha.read_record(seq)["state"]


def test_a_released_draft_answers_the_request_it_was_drafted_for(mecha, smtp_sink):
    configure(mecha, smtp_sink)
    d = draft(mecha)
    awaiting(mecha, 1, [d], note="stale explanation")
    p = mecha.run("frontdoor", "reconcile", check=0)
    assert p.out == "nothing to reconcile\n" and p.err == ""
    assert state(mecha, 1) == "awaiting_me"
    mecha.run("outbox", "approve", d, "-y", check=0)
    p = mecha.run("frontdoor", "list", check=0)
    assert "awaiting_me → answered" in p.err
    assert p.out.split()[:3] == ["1", "meeting", "answered"], "list showed a stale state"
    rec = mecha.read_record(1)
    assert rec["state"] == "answered" and "note" not in rec
    assert len(smtp_sink.messages()) == 1


def test_a_rejected_draft_returns_the_request_for_another_pass_and_says_why(mecha, smtp_sink):
    configure(mecha, smtp_sink)
    d = draft(mecha)
    awaiting(mecha, 1, [d])
    mecha.run("outbox", "reject", d, "--reason", "too formal", check=0)
    p = mecha.run("frontdoor", "reconcile", "--json", "-v", check=0)
    assert "awaiting_me → extracted" in p.err
    assert json.loads(p.out) == [{"seq": 1, "from": "awaiting_me", "to": "extracted"}]
    rec = mecha.read_record(1)
    assert rec["state"] == "extracted" and rec["note"] == "too formal"
    # Still a triage candidate: the whole point of going back.
    assert [b["seq"] for b in mecha.json("frontdoor", "next")] == [1]


def test_a_partly_reviewed_set_is_left_alone(mecha, smtp_sink):
    configure(mecha, smtp_sink)
    a, b = draft(mecha), draft(mecha)
    awaiting(mecha, 1, [a, b])
    mecha.run("outbox", "approve", a, "-y", check=0)
    mecha.run("frontdoor", "reconcile", check=0)
    assert state(mecha, 1) == "awaiting_me"
    mecha.run("outbox", "approve", b, "-y", check=0)
    mecha.run("frontdoor", "reconcile", check=0)
    assert state(mecha, 1) == "answered"


def test_a_set_that_was_partly_sent_and_partly_rejected_still_settles(mecha, smtp_sink):
    configure(mecha, smtp_sink)
    sent, rejected = draft(mecha), draft(mecha)
    awaiting(mecha, 1, [sent, rejected])
    mecha.run("outbox", "approve", sent, "-y", check=0)
    mecha.run("outbox", "reject", rejected, "--reason", "used the other one", check=0)
    mecha.run("frontdoor", "reconcile", check=0)
    assert state(mecha, 1) == "answered"


def test_one_pending_beside_a_sent_one_is_still_a_person_mid_review(mecha, smtp_sink):
    configure(mecha, smtp_sink)
    sent, pending = draft(mecha), draft(mecha)
    awaiting(mecha, 1, [sent, pending])
    mecha.run("outbox", "approve", sent, "-y", check=0)
    mecha.run("frontdoor", "reconcile", check=0)
    assert state(mecha, 1) == "awaiting_me"


def test_a_request_whose_drafts_are_gone_waits_for_a_person(mecha):
    path = awaiting(mecha, 1, ["20260806T020312-deadbeef"])
    before = path.read_bytes()
    mecha.run("frontdoor", "reconcile", check=0)
    assert path.read_bytes() == before


def test_nothing_outside_awaiting_me_is_touched(mecha, smtp_sink):
    configure(mecha, smtp_sink)
    d = draft(mecha)
    path = mecha.write_record(1, state="closed", note="done", outbox=[d])
    before = path.read_bytes()
    mecha.run("outbox", "approve", d, "-y", "--force", check=0)  # its request is closed
    mecha.run("frontdoor", "reconcile", check=0)
    mecha.run("frontdoor", "list", check=0)
    assert path.read_bytes() == before


def test_a_missing_outbox_is_not_an_error(mecha):
    awaiting(mecha, 1, ["20260806T020312-deadbeef"])
    p = mecha.run("frontdoor", "list", check=0)
    assert "reconcile" not in p.err
    assert mecha.run("frontdoor", "reconcile").returncode == 0


def test_show_names_each_drafts_status(mecha, smtp_sink):
    configure(mecha, smtp_sink)
    a, b = draft(mecha), draft(mecha)
    awaiting(mecha, 1, [a, b, "20260806T020312-deadbeef"])
    mecha.run("outbox", "reject", b, "--reason", "no", check=0)
    out = mecha.run("frontdoor", "show", "1", check=0).out
    assert f"{a}  pending" in out and f"{b}  rejected" in out
    assert "20260806T020312-deadbeef  gone from the outbox" in out
