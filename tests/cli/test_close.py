"""A terminal state keeps its reason (issue 12): closing a closed request is refused
and the first reason stays; a close settles the request's pending drafts only as
the person says; and a draft whose request was closed is not sent unless the
person insists."""
import json

from conftest import write_config


def configure(mecha, sink):
    write_config(mecha, '[outbox]\ntools = ["mail_send"]\n[mail]\n'
                 f'smtp_url = "{sink.url}"\nfrom = "me@example.org"\n')


def draft(mecha, body="Yes, 14 September works."):
    return mecha.run("outbox", "stage", "--tool", "mail_send", "--args",
                     json.dumps({"to": "ada@example.org", "subject": "Re: a meeting",
                                 "body": body}), check=0).out.strip()


def awaiting(mecha, seq, ids):
    return mecha.write_record(seq, state="awaiting_me", triage_session="sess-1",
                              outbox=list(ids), extraction={"topic": "t"},
                              reply_to="ada@example.org")


def item(mecha, id_):
    return json.loads((mecha.home / "outbox" / f"{id_}.json").read_text())


def test_closing_a_closed_request_is_refused_and_the_first_reason_stays(mecha):
    path = mecha.write_record(1, state="extracted")
    mecha.run("frontdoor", "close", "1", "--reason", "declined by phone", check=0)
    before = path.read_bytes()
    p = mecha.run("frontdoor", "close", "1", "--reason", "again", check=3)
    assert "already closed" in p.err and "declined by phone" in p.err
    assert path.read_bytes() == before
    assert mecha.read_record(1)["note"] == "declined by phone"
    assert mecha.run("frontdoor", "close", "1", "--reason", "x", "--keep-drafts").returncode == 3


def test_closing_a_request_with_a_pending_draft_asks_what_becomes_of_it(mecha, smtp_sink):
    configure(mecha, smtp_sink)
    d = draft(mecha)
    path = awaiting(mecha, 1, [d])
    before, draft_before = path.read_bytes(), item(mecha, d)
    p = mecha.run("frontdoor", "close", "1", "--reason", "declined", check=3)
    assert "still pending" in p.err and "--reject-drafts" in p.err and "--keep-drafts" in p.err
    assert d in p.err
    assert path.read_bytes() == before and item(mecha, d) == draft_before
    mecha.run("frontdoor", "close", "1", "--reason", "declined", "--reject-drafts",
              "--keep-drafts", check=2)


def test_reject_drafts_rejects_them_with_the_close_reason(mecha, smtp_sink):
    configure(mecha, smtp_sink)
    a, b, sent = draft(mecha), draft(mecha), draft(mecha)
    mecha.run("outbox", "approve", sent, "-y", check=0)
    awaiting(mecha, 1, [a, b, sent])
    p = mecha.run("frontdoor", "close", "1", "--reason", "declined", "--reject-drafts", check=0)
    assert "awaiting_me → closed" in p.out and "2 pending drafts rejected" in p.out
    rec = mecha.read_record(1)
    assert rec["state"] == "closed" and rec["note"] == "declined"
    for d in (a, b):
        assert item(mecha, d)["status"] == "rejected" and item(mecha, d)["reason"] == "declined"
    assert item(mecha, sent)["status"] == "sent"
    assert len(smtp_sink.messages()) == 1


def test_a_draft_in_flight_is_not_rejected_behind_its_send_and_nothing_closes(mecha, smtp_sink):
    configure(mecha, smtp_sink)
    d = draft(mecha)
    path_d = mecha.home / "outbox" / f"{d}.json"
    it = item(mecha, d)
    it["sending_since"] = "2026-08-06T02:03:12Z"
    path_d.write_text(json.dumps(it))
    path = awaiting(mecha, 1, [d])
    before = path.read_bytes()
    p = mecha.run("frontdoor", "close", "1", "--reason", "declined", "--reject-drafts", check=3)
    assert "was not closed" in p.err
    assert path.read_bytes() == before and item(mecha, d)["status"] == "pending"


def test_a_kept_draft_of_a_closed_request_is_sent_only_when_forced(mecha, smtp_sink):
    configure(mecha, smtp_sink)
    d = draft(mecha)
    awaiting(mecha, 1, [d])
    p = mecha.run("frontdoor", "close", "1", "--reason", "declined", "--keep-drafts", check=0)
    assert "1 draft still pending" in p.out
    assert item(mecha, d)["status"] == "pending"
    p = mecha.run("outbox", "approve", d, "-y", check=3)
    assert "request 1" in p.err and "closed" in p.err and "declined" in p.err
    assert "--force" in p.err
    assert smtp_sink.raw() == [] and item(mecha, d)["status"] == "pending"
    assert item(mecha, d).get("sending_since") is None, "the refusal claimed the draft"
    # The review loop keeps the same rule: [s]end is refused too.
    p = mecha.run("outbox", "review", input="s\nq\n", check=0)
    assert "closed" in p.err and smtp_sink.raw() == []
    p = mecha.run("outbox", "approve", d, "-y", "--force", check=0)
    assert f"sent {d}" in p.out and len(smtp_sink.messages()) == 1
    assert mecha.read_record(1)["state"] == "closed", "a send does not reopen the request"


def test_approve_of_a_draft_no_request_lists_is_not_held_up(mecha, smtp_sink):
    configure(mecha, smtp_sink)
    d = draft(mecha)
    mecha.write_record(1, state="closed", note="done", outbox=["20260806T020312-deadbeef"])
    mecha.run("outbox", "approve", d, "-y", check=0)
    assert len(smtp_sink.messages()) == 1


def test_forcing_a_closed_requests_draft_first_hears_that_its_send_was_interrupted(
        mecha, smtp_sink):
    configure(mecha, smtp_sink)
    d = draft(mecha)
    path_d = mecha.home / "outbox" / f"{d}.json"
    it = item(mecha, d)
    it["sending_since"] = "2026-08-06T02:03:12Z"
    path_d.write_text(json.dumps(it))
    mecha.write_record(1, state="closed", note="declined", outbox=[d])
    p = mecha.run("outbox", "approve", d, "-y", check=3)
    assert "closed" in p.err and "interrupted" in p.err
    assert smtp_sink.raw() == []


def test_a_request_closed_while_the_person_was_deciding_refuses_its_draft_at_release(
        mecha, smtp_sink):
    """The check is made when the draft is claimed, not when the batch was
    listed: a close between the question and the answer holds its draft back
    (request_closed, exit 3) and the rest of the batch still goes."""
    import subprocess

    from conftest import BIN
    configure(mecha, smtp_sink)
    held, other = draft(mecha, "Yes, Tuesday."), draft(mecha, "Yes, Friday.")
    awaiting(mecha, 1, [held])
    awaiting(mecha, 2, [other])
    p = subprocess.Popen([BIN, "outbox", "approve", held, other], env=mecha.env,
                         stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    said = b""
    while b"[y/N]" not in said:
        chunk = p.stderr.read1(4096)
        assert chunk, said
        said += chunk
    mecha.run("frontdoor", "close", "1", "--reason", "declined", "--keep-drafts", check=0)
    out, err = p.communicate(b"y\n", timeout=60)
    assert p.returncode == 3, err
    assert f"sent {other}".encode() in out and f"sent {held}".encode() not in out
    assert f"{held} (request_closed)".encode() in err and b"declined" in err
    assert item(mecha, held)["status"] == "pending" and not item(mecha, held).get("sending_since")
    assert len(smtp_sink.messages()) == 1
