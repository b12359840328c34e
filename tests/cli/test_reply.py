"""A person answers a request from mecha alone, no model needed (issue 23): `frontdoor
reply` in the editor or on the command line, and `needs-info --ask`. The draft goes
through the one staging path, to the request's reply_to, linked to the request;
releasing it makes the request answered."""
import json

from conftest import write_config

CUT = "------------------------ >8 ------------------------"


def configure(mecha, sink):
    write_config(mecha, '[outbox]\ntools = ["mail_send"]\n[mail]\n'
                 f'smtp_url = "{sink.url}"\nfrom = "me@example.org"\n')


def request(mecha, seq=1, state="drained", **kw):
    fields = dict(reply_to="ada@example.org",
                  values={"purpose": "collaboration", "message": "Could we meet\x1b[31m?"},
                  free_text=["message"])
    fields.update(kw)
    return mecha.write_record(seq, state=state, **fields)


def item(mecha, id_):
    return json.loads((mecha.home / "outbox" / f"{id_}.json").read_text())


def staged_id(p):
    return p.out.split()[1]


def editor(tmp_path, body, subject=None):
    """An $EDITOR that keeps a copy of the template and writes body above the cut."""
    script = tmp_path / "ed"
    sub = f'sed -i "s/^Subject: .*/Subject: {subject}/" "$1"\n' if subject else ""
    script.write_text(
        "#!/bin/sh\n"
        f'cp "$1" {tmp_path}/template\n'
        f'stat -c %a "$1" > {tmp_path}/mode\n'
        + sub +
        f'sed -i "0,/^$/{{s/^$/\\n{body}/}}" "$1"\n')
    script.chmod(0o755)
    return str(script)


def test_a_reply_written_in_the_editor_is_staged_to_reply_to_and_answers_the_request(
        mecha, smtp_sink, tmp_path):
    configure(mecha, smtp_sink)
    request(mecha)
    p = mecha.run("frontdoor", "reply", "1", env={"EDITOR": editor(tmp_path, "Tuesday works.")},
                  check=0)
    id_ = staged_id(p)
    template = (tmp_path / "template").read_text()
    assert template.startswith("Subject: Re: your meeting request\nTo: ada@example.org\n")
    assert CUT in template and "collaboration" in template
    assert "  > Could we meet\\e[31m?" in template  # the stranger's prose, made visible
    assert (tmp_path / "mode").read_text().strip() == "600"
    it = item(mecha, id_)
    assert it["args"] == {"to": "ada@example.org", "subject": "Re: your meeting request",
                          "body": "Tuesday works.\n"}
    assert it["taint"] == {"private": False, "untrusted": False}  # a person wrote it
    rec = mecha.read_record(1)
    assert rec["state"] == "awaiting_me" and rec["outbox"] == [id_]
    assert [f.name for f in (mecha.home / "outbox").iterdir() if f.name.startswith(".reply")] == []

    mecha.run("outbox", "approve", id_, check=0)
    assert len(smtp_sink.raw()) == 1
    mecha.run("frontdoor", "reconcile", check=0)
    assert mecha.read_record(1)["state"] == "answered"


def test_the_subject_is_the_persons_and_the_to_line_changes_nothing(mecha, tmp_path):
    request(mecha, state="needs_info", note="which Tuesday?")
    script = tmp_path / "ed"
    script.write_text('#!/bin/sh\nsed -i "s/^To: .*/To: eve@evil.example/; '
                      's/^Subject: .*/Subject: About Tuesday/; 0,/^$/{s/^$/\\nYes./}" "$1"\n')
    script.chmod(0o755)
    p = mecha.run("frontdoor", "reply", "1", env={"VISUAL": str(script)}, check=0)
    it = item(mecha, staged_id(p))
    assert it["args"]["to"] == "ada@example.org" and it["args"]["subject"] == "About Tuesday"
    assert it["args"]["body"] == "Yes.\n"
    rec = mecha.read_record(1)
    assert rec["state"] == "awaiting_me" and "note" not in rec


def test_an_unchanged_template_or_an_empty_body_stages_nothing_and_says_so(mecha):
    path = request(mecha)
    before = path.read_bytes()
    p = mecha.run("frontdoor", "reply", "1", env={"EDITOR": "true"}, check=3)
    assert "nothing was staged" in p.err and "unchanged" in p.err
    p = mecha.run("frontdoor", "reply", "1", "--body", "  \n", check=3)
    assert "nothing was staged" in p.err
    assert path.read_bytes() == before
    assert not any((mecha.home / "outbox").glob("*.json"))


def test_body_and_file_stage_without_an_editor(mecha, tmp_path):
    request(mecha, state="extracted", extraction={"topic": "t"})
    p = mecha.run("frontdoor", "reply", "1", "--subject", "Hello", "--body", "Yes, Tuesday.",
                  env={"EDITOR": "false"}, check=0)
    assert item(mecha, staged_id(p))["args"]["body"] == "Yes, Tuesday."
    f = tmp_path / "answer.txt"
    f.write_text("From a file.\n")
    p = mecha.run("frontdoor", "reply", "1", "--file", f, env={"EDITOR": "false"}, check=0)
    second = staged_id(p)
    assert item(mecha, second)["args"] == {"to": "ada@example.org",
                                           "subject": "Re: your meeting request",
                                           "body": "From a file.\n"}
    assert mecha.read_record(1)["outbox"][-1] == second
    mecha.run("frontdoor", "reply", "1", "--body", "a", "--file", f, check=2)


def test_closed_bookings_and_no_reply_to_are_refused_before_any_editor(mecha):
    request(mecha, 1, state="closed", note="done")
    request(mecha, 2, values={"_booking_id": "ab12", "_slot_start": "2026-09-01T10:00:00Z",
                              "_slot_end": "2026-09-01T10:30:00Z"})
    request(mecha, 3, reply_to=None)
    mecha.write_record(4)  # no reply_to key at all
    for seq, code in ((1, "invalid_transition"), (2, "booking"), (3, "no_reply_to"),
                      (4, "no_reply_to")):
        p = mecha.run("frontdoor", "reply", str(seq), env={"EDITOR": "false"}, check=3)
        assert "nothing was drafted" in p.err, p.err
    assert "decline" in mecha.run("frontdoor", "reply", "2", "--body", "x", check=3).err
    assert not any((mecha.home / "outbox").glob("*.json"))


def test_a_refused_staging_keeps_the_persons_text(mecha, tmp_path):
    request(mecha)
    script = tmp_path / "ed"
    # While the person writes, somebody closes the request: the text is not lost.
    script.write_text("#!/bin/sh\n"
                      f'MECHA_HOME={mecha.home} {mecha.env["MECHA_BIN"]} frontdoor close 1 '
                      '--reason "phoned" >/dev/null\n'
                      'sed -i "0,/^$/{s/^$/\\nMy careful answer./}" "$1"\n')
    script.chmod(0o755)
    p = mecha.run("frontdoor", "reply", "1", env={"EDITOR": str(script)}, check=3)
    assert "kept in" in p.err
    kept = [f for f in (mecha.home / "outbox").iterdir() if f.name.startswith(".reply")]
    assert len(kept) == 1 and "My careful answer." in kept[0].read_text()


def test_needs_info_ask_stages_the_question_and_the_request_stays_needs_info(mecha, smtp_sink):
    configure(mecha, smtp_sink)
    request(mecha, state="extracted", extraction={"topic": "t"})
    p = mecha.run("frontdoor", "needs-info", "1", "--note", "Which Tuesday do you mean?",
                  "--ask", check=0)
    id_ = staged_id(p)
    it = item(mecha, id_)
    assert it["args"]["to"] == "ada@example.org"
    assert "Which Tuesday do you mean?" in it["args"]["body"]
    rec = mecha.read_record(1)
    assert rec["state"] == "needs_info" and rec["note"] == "Which Tuesday do you mean?"
    assert rec["outbox"] == [id_]
    mecha.run("outbox", "approve", id_, check=0)
    mecha.run("frontdoor", "reconcile", check=0)
    assert mecha.read_record(1)["state"] == "needs_info"
    assert len(smtp_sink.raw()) == 1


def test_needs_info_ask_needs_a_note_and_a_reply_to(mecha):
    request(mecha, 1)
    request(mecha, 2, reply_to=None)
    mecha.run("frontdoor", "needs-info", "1", "--ask", check=2)
    mecha.run("frontdoor", "needs-info", "2", "--note", "which?", "--ask", check=3)
    assert mecha.read_record(2)["state"] == "drained"
    mecha.run("frontdoor", "needs-info", "2", "--note", "which?", check=0)  # without --ask: as before


def test_a_rejected_reply_returns_the_request_to_the_state_it_came_from(mecha):
    """A reply is taken from drained, needs_info or extracted alike; rejected, the
    request goes back where it was — never to `extracted`, where a request never
    extracted never was."""
    request(mecha, 1, state="drained")
    request(mecha, 2, state="needs_info", note="which Tuesday?")
    request(mecha, 3, state="extracted", extraction={"topic": "t"})
    ids = {}
    for seq in (1, 2, 3):
        p = mecha.run("frontdoor", "reply", str(seq), "--body", "Yes.", check=0)
        ids[seq] = staged_id(p)
        assert mecha.read_record(seq)["state"] == "awaiting_me"
    for seq in (1, 2, 3):
        mecha.run("outbox", "reject", ids[seq], "--reason", "too short", check=0)
    mecha.run("frontdoor", "reconcile", check=0)
    for seq, back in ((1, "drained"), (2, "needs_info"), (3, "extracted")):
        rec = mecha.read_record(seq)
        assert rec["state"] == back, (seq, rec)
        assert rec["note"] == "too short" and "replied_from" not in rec
    # A second reply to the returned request works from there again.
    mecha.run("frontdoor", "reply", "1", "--body", "Better.", check=0)
    assert mecha.read_record(1)["state"] == "awaiting_me"
    assert mecha.read_record(1)["replied_from"] == "drained"
