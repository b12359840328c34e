"""The outbox, black-box: drafts staged, shown, edited, released into a real
SMTP server on loopback (exactly once) or rejected with a reason."""
import email.utils
import json
import os
import re
import select
import signal
import stat
import subprocess
import sys
import time

import pytest

from conftest import BIN, ROOT, write_config

sys.path.insert(0, str(ROOT / "tests" / "support"))
from smtp_sink import SmtpSink  # noqa: E402

ID_RE = re.compile(r"^\d{8}T\d{6}-[0-9a-f]{8}$")

MAIL = {
    "to": "Ada Lovelace <ada@example.org>",
    "cc": ["bob@example.net"],
    "subject": "Re: your request",
    "body_text": "Dear Ada,\n\nTuesday at ten works.\n",
}


def configure(mecha, url=None, extra=""):
    url_line = f'smtp_url = "{url}"\n' if url else ""
    write_config(mecha, '[outbox]\ntools = ["mail_send"]\n[mail]\n' + url_line +
                 'from = "Me Myself <me@example.org>"\n' + extra)


def stage(mecha, args=None, tool="mail_send", *extra):
    p = mecha.run("outbox", "stage", "--tool", tool, "--args",
                  json.dumps(MAIL if args is None else args), *extra, check=0)
    item_id = p.out.strip()
    assert ID_RE.match(item_id), p.out
    return item_id


def outbox_dir(mecha):
    return mecha.home / "outbox"


def item_path(mecha, item_id):
    return outbox_dir(mecha) / f"{item_id}.json"


def read_item(mecha, item_id):
    return json.loads(item_path(mecha, item_id).read_text())


# -- the store ---------------------------------------------------------------
def test_a_staged_draft_is_a_private_pending_file_in_the_rust_format(mecha):
    item_id = stage(mecha, None, "mail_send", "--session", "sess-1", "--untrusted")
    d, f = outbox_dir(mecha), item_path(mecha, item_id)
    assert stat.S_IMODE(d.stat().st_mode) == 0o700
    assert stat.S_IMODE(f.stat().st_mode) == 0o600
    item = json.loads(f.read_text())
    assert list(item) == ["id", "status", "tool", "kind", "args_before", "args", "summary",
                          "session_id", "workspace", "taint", "created_at", "resolved_at",
                          "reason", "error"]
    assert item["id"] == item_id and item["status"] == "pending"
    assert item["args"] == item["args_before"] == MAIL
    assert item["summary"] == 'mail_send to Ada Lovelace <ada@example.org> \u2014 "Re: your request"'
    assert item["taint"] == {"private": False, "untrusted": True}
    assert item["session_id"] == "sess-1" and item["workspace"] is None
    assert item_id.startswith(item["created_at"][:10].replace("-", ""))


def test_a_long_summary_is_clipped_on_a_character_boundary(mecha):
    args = dict(MAIL, subject="\u00e9" * 100)
    item = read_item(mecha, stage(mecha, args))
    s = item["summary"].encode()
    assert s.endswith("\u2026".encode()) and len(s) <= 83
    s.decode("utf-8")  # still valid UTF-8


def test_a_mail_draft_with_a_bad_address_is_not_staged(mecha):
    for bad in ("not an address", "a@b\r\nBcc: evil@x.org", "-oQ/tmp/x@example.org"):
        p = mecha.run("outbox", "stage", "--tool", "mail_send", "--args",
                      json.dumps({"to": bad, "subject": "x"}), check=2)
        assert "not an e-mail address" in p.err
    assert not outbox_dir(mecha).exists() or not list(outbox_dir(mecha).glob("*.json"))


def test_list_shows_pending_first_and_filters_by_kind_and_tool(mecha):
    a = stage(mecha)
    b = stage(mecha, {"title": "launch"}, "calendar_invite", "--kind", "publish")
    c = stage(mecha)
    mecha.run("outbox", "reject", a, "--reason", "too formal", check=0)
    # Drafts staged within one second have no order between them; pending ones come first.
    lines = mecha.run("outbox", check=0).out.splitlines()
    assert {ln.split()[0] for ln in lines[:2]} == {b, c} and lines[2].split()[0] == a
    assert "rejected" in lines[2]
    listed = mecha.json("outbox", "list", "--json")
    assert [i["id"] for i in listed] == [ln.split()[0] for ln in lines]
    assert [i["id"] for i in mecha.json("outbox", "list", "--kind", "publish", "--json")] == [b]
    assert [i["id"] for i in mecha.json("outbox", "list", "--via", "mail", "--json")] == [c, a]


def test_an_empty_or_missing_outbox_lists_nothing_and_creates_nothing(mecha):
    p = mecha.run("outbox", "list", check=0)
    assert "empty" in p.out
    assert mecha.json("outbox", "list", "--json") == []
    assert not outbox_dir(mecha).exists()


def test_an_unreadable_item_is_skipped_with_one_warning(mecha):
    good = stage(mecha)
    d = outbox_dir(mecha)
    (d / "20260101T000000-deadbeef.json").write_text("{not json")
    (d / "20260101T000001-deadbeef.json").write_text('{"id": "20260101T000001-deadbeef"}')
    os.symlink("/etc/hostname", d / "20260101T000002-deadbeef.json")
    p = mecha.run("outbox", "list", "--json", check=0)
    assert [i["id"] for i in json.loads(p.out)] == [good]
    warnings = [ln for ln in p.err.splitlines() if "skipping unreadable outbox item" in ln]
    assert len(warnings) == 3, p.err
    assert (d / "20260101T000000-deadbeef.json").read_text() == "{not json"


def test_show_renders_an_agents_escape_sequences_visibly(mecha):
    args = dict(MAIL, subject="hi \x1b]52;c;ZXZpbA==\x07", body_text="line\n\x1b[2Jcleared\n")
    item_id = stage(mecha, args)
    p = mecha.run("outbox", "show", item_id[:-2], check=0)
    assert "\x1b" not in p.out and "\x07" not in p.out
    assert "\\e]52;c;ZXZpbA==\\x07" in p.out and "\\e[2Jcleared" in p.out
    assert "Ada Lovelace <ada@example.org>" in p.out and "bob@example.net" in p.out
    p = mecha.run("outbox", "list", check=0)
    assert "\x1b" not in p.out


def test_show_json_is_the_item_as_stored(mecha):
    item_id = stage(mecha)
    assert mecha.json("outbox", "show", item_id, "--json") == read_item(mecha, item_id)


def test_an_ambiguous_prefix_is_a_usage_error_and_an_unknown_id_fails(mecha):
    stage(mecha)
    stage(mecha)
    p = mecha.run("outbox", "show", "2", check=2)
    assert "more than one" in p.err
    p = mecha.run("outbox", "show", "19990101T000000-00000000", check=1)
    assert "no outbox item" in p.err


def test_unknown_keys_survive_every_rewrite(mecha, smtp_sink):
    configure(mecha, smtp_sink.url)
    item_id = "20260806T020312-3f2a9c1b"
    outbox_dir(mecha).mkdir(parents=True, mode=0o700)
    rust = {
        "id": item_id, "status": "pending", "tool": "mail__mail_send",
        "args_before": {"to": "ada@example.org", "subject": "s", "body": "b", "x_rust": [1]},
        "args": {"to": "ada@example.org", "subject": "s", "body": "b", "x_rust": [1]},
        "summary": "mail__mail_send to ada@example.org", "session_id": None,
        "workspace": "w", "taint": {"private": False, "untrusted": False, "future": 7},
        "created_at": "2026-08-06T02:03:12Z", "resolved_at": None, "reason": None,
        "error": None, "a_new_field": {"nested": True},
    }
    item_path(mecha, item_id).write_text(json.dumps(rust, indent=2))
    mecha.run("outbox", "approve", item_id, check=0)
    after = read_item(mecha, item_id)
    assert after["status"] == "sent" and after["resolved_at"]
    assert after["a_new_field"] == {"nested": True}
    assert after["taint"]["future"] == 7
    assert after["args"]["x_rust"] == [1]
    assert list(after)[:3] == ["id", "status", "tool"] and list(after)[-1] == "a_new_field"
    assert smtp_sink.messages()[0].get_content() == "b\n"


# -- delivery over SMTP ---------------------------------------------------------
def test_an_approved_draft_arrives_at_the_smtp_server_as_a_proper_message(mecha, smtp_sink):
    configure(mecha, smtp_sink.url)
    args = dict(MAIL, subject="Caf\u00e9 on Tuesday \u2014 ok?",
                body_text="Dear Ada,\n.\n.hidden\nFrom here on\n" + "x" * 200 + "\nbye  \n")
    item_id = stage(mecha, args)
    p = mecha.run("outbox", "approve", item_id, check=0)
    assert f"sent {item_id}" in p.out
    [msg] = smtp_sink.messages()
    [raw] = smtp_sink.raw()
    [env] = smtp_sink.envelopes()
    assert env["mail_from"] == "me@example.org"
    assert env["rcpt_tos"] == ["ada@example.org", "bob@example.net"]
    assert msg["From"] == "Me Myself <me@example.org>"
    assert msg["To"] == "Ada Lovelace <ada@example.org>"
    assert msg["Cc"] == "bob@example.net"
    assert msg["Subject"] == "Caf\u00e9 on Tuesday \u2014 ok?"
    assert b"=?UTF-8?B?" in raw  # the header went out encoded, not as raw 8-bit
    assert msg["Message-ID"] == f"<{item_id}@mecha>"
    assert msg["MIME-Version"] == "1.0"
    assert msg.get_content_type() == "text/plain"
    assert msg.get_content_charset() == "utf-8"
    assert abs(email.utils.parsedate_to_datetime(msg["Date"]).timestamp() - time.time()) < 120
    assert msg.get_content() == args["body_text"]
    assert all(len(line) <= 78 for line in raw.split(b"\r\n"))
    assert b"\r\n." not in raw.split(b"\r\n\r\n", 1)[1]  # no line starts with a dot
    item = read_item(mecha, item_id)
    assert item["status"] == "sent" and item["resolved_at"] and "sending_since" not in item


def test_a_non_ascii_display_name_is_encoded(mecha, smtp_sink):
    configure(mecha, smtp_sink.url)
    item_id = stage(mecha, dict(MAIL, to=["Zo\u00eb Quill <zoe@example.org>", "x@example.org"]))
    mecha.run("outbox", "send", item_id, check=0)
    [msg] = smtp_sink.messages()
    assert msg["To"].addresses[0].display_name == "Zo\u00eb Quill"
    assert msg["To"].addresses[1].addr_spec == "x@example.org"


def test_the_server_down_leaves_the_draft_pending_with_its_error(mecha):
    sink = SmtpSink(mecha.tmp / "down").start()
    url = sink.url
    sink.stop()
    configure(mecha, url)
    item_id = stage(mecha)
    p = mecha.run("outbox", "approve", item_id, check=1)
    assert "SMTP to 127.0.0.1" in p.err
    item = read_item(mecha, item_id)
    assert item["status"] == "pending" and "SMTP" in item["error"]
    assert "sending_since" not in item
    assert "[error:" in mecha.run("outbox", check=0).out


def test_a_refusing_server_leaves_the_draft_pending_and_a_retry_sends_it(mecha, smtp_sink):
    configure(mecha, smtp_sink.url)
    item_id = stage(mecha)
    smtp_sink.mode = "refuse"
    mecha.run("outbox", "approve", item_id, check=1)
    item = read_item(mecha, item_id)
    assert item["status"] == "pending" and "554" in item["error"]
    smtp_sink.mode = "accept"
    mecha.run("outbox", "approve", item_id, check=0)
    item = read_item(mecha, item_id)
    assert item["status"] == "sent" and item["error"] is None
    assert len(smtp_sink.raw()) == 1


def test_a_login_uses_the_password_from_the_named_variable(mecha, tmp_path):
    sink = SmtpSink(tmp_path / "auth", login=("me", "s3cret")).start()
    try:
        configure(mecha, sink.url, 'username = "me"\npassword_env = "TEST_SMTP_PW"\n')
        item_id = stage(mecha)
        p = mecha.run("outbox", "approve", item_id, check=1)
        assert "TEST_SMTP_PW, which is not set" in p.err
        assert read_item(mecha, item_id)["status"] == "pending"
        p = mecha.run("outbox", "approve", item_id, env={"TEST_SMTP_PW": "wrong"}, check=1)
        assert "535" in p.err and "s3cret" not in p.err
        mecha.run("outbox", "approve", item_id, env={"TEST_SMTP_PW": "s3cret"}, check=0)
        assert len(sink.raw()) == 1
        assert ("me" in [login for _, login in sink.logins])
    finally:
        sink.stop()


def test_without_a_username_the_login_is_the_bare_address_of_from(mecha, tmp_path):
    sink = SmtpSink(tmp_path / "auth", login=("me@example.org", "s3cret")).start()
    try:
        configure(mecha, sink.url, 'password_env = "TEST_SMTP_PW"\n')  # from has a display name
        item_id = stage(mecha)
        mecha.run("outbox", "approve", item_id, env={"TEST_SMTP_PW": "s3cret"}, check=0)
        assert len(sink.raw()) == 1
        assert [login for _, login in sink.logins] == ["me@example.org"]
    finally:
        sink.stop()


def test_two_racing_approves_deliver_exactly_one_message(mecha, smtp_sink):
    configure(mecha, smtp_sink.url)
    env = dict(mecha.env)
    for round_ in range(5):
        item_id = stage(mecha)
        procs = [subprocess.Popen([BIN, "outbox", "approve", item_id], env=env,
                                  stdout=subprocess.PIPE, stderr=subprocess.PIPE)
                 for _ in range(2)]
        codes = sorted(p.wait(timeout=30) for p in procs)
        for p in procs:
            p.stdout.close()
            p.stderr.close()
        assert codes == [0, 3], f"round {round_}: {codes}"
        assert read_item(mecha, item_id)["status"] == "sent"
        ids = [m["Message-ID"] for m in smtp_sink.messages()]
        assert ids.count(f"<{item_id}@mecha>") == 1, ids


def test_a_send_killed_mid_delivery_is_not_repeated_without_force(mecha, smtp_sink):
    configure(mecha, smtp_sink.url)
    item_id = stage(mecha)
    smtp_sink.mode = "hold"
    proc = subprocess.Popen([BIN, "outbox", "approve", item_id], env=mecha.env,
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    assert smtp_sink.holding.wait(20), "the approve never reached DATA"
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    smtp_sink.mode = "accept"
    smtp_sink.release()  # the first attempt did arrive: exactly the case to guard
    assert smtp_sink.wait_for(1)
    item = read_item(mecha, item_id)
    assert item["status"] == "pending" and item["sending_since"]

    p = mecha.run("outbox", "approve", item_id, check=3)
    assert "in flight" in p.err and "--force" in p.err
    time.sleep(0.2)
    assert len(smtp_sink.raw()) == 1
    assert "in flight" in mecha.run("outbox", "list", check=0).out

    mecha.run("outbox", "approve", "--force", item_id, check=0)
    ids = [m["Message-ID"] for m in smtp_sink.messages()]
    assert ids == [f"<{item_id}@mecha>"] * 2  # the same id: a duplicate is recognisable
    assert read_item(mecha, item_id)["status"] == "sent"


def test_a_draft_left_in_flight_can_be_marked_sent_without_sending(mecha, smtp_sink):
    configure(mecha, smtp_sink.url)
    item_id = stage(mecha)
    path = item_path(mecha, item_id)
    item = json.loads(path.read_text())
    item["sending_since"] = "2026-08-06T02:03:12Z"
    path.write_text(json.dumps(item, indent=2))
    mecha.run("outbox", "approve", "--all", "-y", check=3)
    p = mecha.run("outbox", "reject", item_id, "--reason", "x", check=3)
    assert "in flight" in p.err
    mecha.run("outbox", "approve", "--mark-sent", item_id, check=0)
    item = read_item(mecha, item_id)
    assert item["status"] == "sent" and item["reason"] == "marked sent by a person"
    assert smtp_sink.raw() == []


def test_approving_a_resolved_draft_is_refused_and_sends_nothing(mecha, smtp_sink):
    configure(mecha, smtp_sink.url)
    item_id = stage(mecha)
    mecha.run("outbox", "reject", item_id, "--reason", "no", check=0)
    p = mecha.run("outbox", "approve", item_id, check=3)
    item = read_item(mecha, item_id)
    assert f"{item_id} was already rejected at {item['resolved_at']}" in p.err
    assert "while you were deciding" not in p.err
    assert smtp_sink.raw() == []


def test_a_second_approve_of_a_sent_draft_says_when_it_was_sent(mecha, smtp_sink):
    configure(mecha, smtp_sink.url)
    item_id = stage(mecha)
    mecha.run("outbox", "approve", item_id, check=0)
    p = mecha.run("outbox", "approve", item_id, check=3)
    sent_at = read_item(mecha, item_id)["resolved_at"]
    assert f"{item_id} was already sent at {sent_at}; not sent again" in p.err
    assert "while you were deciding" not in p.err
    assert len(smtp_sink.raw()) == 1


def test_a_draft_resolved_by_another_process_during_the_prompt_says_so(mecha, smtp_sink):
    configure(mecha, smtp_sink.url)
    item_id = stage(mecha, None, "mail_send", "--untrusted")  # tainted: approve asks first
    proc = subprocess.Popen([BIN, "outbox", "approve", item_id], env=mecha.env,
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE)
    try:
        seen, deadline = b"", time.monotonic() + 20
        while b"?" not in seen:  # the question is up: approve chose the draft while pending
            assert time.monotonic() < deadline, seen
            ready, _, _ = select.select([proc.stderr], [], [], 1)
            if ready:
                seen += os.read(proc.stderr.fileno(), 4096)
        mecha.run("outbox", "reject", item_id, "--reason", "changed my mind", check=0)
        out, err = proc.communicate(b"y\n", timeout=20)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert proc.returncode == 3
    assert "resolved while you were deciding, so nothing was sent" in err.decode()
    assert smtp_sink.raw() == []


def test_several_or_tainted_drafts_are_sent_only_after_a_y(mecha, smtp_sink):
    configure(mecha, smtp_sink.url)
    a, b = stage(mecha), stage(mecha)
    for answer in ("n\n", "yes\n", ""):
        mecha.run("outbox", "approve", a, b, input=answer, check=3)
    assert smtp_sink.raw() == []
    p = mecha.run("outbox", "approve", "--all", input="y\n", check=0)
    assert "Send 2 drafts?" in p.err
    assert len(smtp_sink.raw()) == 2
    t = stage(mecha, None, "mail_send", "--private")
    p = mecha.run("outbox", "approve", t, input="\n", check=3)
    assert "tainted" in p.err
    mecha.run("outbox", "approve", t, "-y", check=0)
    assert len(smtp_sink.raw()) == 3


def test_sendmail_delivery_pipes_the_message_to_the_command(mecha, tmp_path):
    script = tmp_path / "fake-sendmail"
    record = tmp_path / "record"
    script.write_text(f'#!/bin/sh\nprintf "%s\\n" "$@" > {record}.args\ncat > {record}.msg\n')
    script.chmod(0o755)
    configure(mecha, None, f'sendmail = "{script} -i"\n')
    item_id = stage(mecha)
    mecha.run("outbox", "approve", item_id, check=0)
    assert (tmp_path / "record.args").read_text().split() == [
        "-i", "ada@example.org", "bob@example.net"]
    msg = (tmp_path / "record.msg").read_bytes()
    assert b"\r\n" not in msg
    assert f"Message-ID: <{item_id}@mecha>".encode() in msg
    assert read_item(mecha, item_id)["status"] == "sent"


def test_a_failing_sendmail_leaves_the_draft_pending(mecha, tmp_path):
    configure(mecha, None, 'sendmail = "/bin/false -t"\n')
    item_id = stage(mecha)
    p = mecha.run("outbox", "approve", item_id, check=1)
    assert "exited with status 1" in p.err
    assert read_item(mecha, item_id)["status"] == "pending"


def plant_tool(mecha, tool):
    """A pending item naming `tool`, as the Rust tool may have staged it (a stage refuses
    a tool no sink knows)."""
    item_id = stage(mecha)
    item = read_item(mecha, item_id)
    item["tool"] = tool
    item_path(mecha, item_id).write_text(json.dumps(item, indent=2))
    return item_id


def test_an_unknown_tool_is_recorded_as_an_error_and_stays_pending(mecha, smtp_sink):
    configure(mecha, smtp_sink.url)
    item_id = plant_tool(mecha, "web_post")
    p = mecha.run("outbox", "approve", item_id, check=1)
    assert "tool web_post is not available in this configuration" in p.err
    item = read_item(mecha, item_id)
    assert item["status"] == "pending"
    assert item["error"] == "tool web_post is not available in this configuration"
    cal = stage(mecha, {"title": "x"}, "calendar_invite")
    p = mecha.run("outbox", "approve", cal, check=1)
    assert "calendar" in read_item(mecha, cal)["error"]


def test_without_a_mail_route_nothing_is_sent_and_the_draft_says_why(mecha):
    item_id = stage(mecha)
    p = mecha.run("outbox", "approve", item_id, check=1)
    assert "no mail route is configured" in p.err
    assert "smtp_url" in read_item(mecha, item_id)["error"]


# -- reject ------------------------------------------------------------------------
def test_reject_without_a_reason_is_refused_and_the_file_is_untouched(mecha):
    item_id = stage(mecha)
    before = item_path(mecha, item_id).read_bytes()
    p = mecha.run("outbox", "reject", item_id, check=2)
    assert "reason" in p.err
    mecha.run("outbox", "reject", item_id, "--reason", "", check=2)
    mecha.run("outbox", "reject", item_id, "--reason", "   ", check=2)
    assert item_path(mecha, item_id).read_bytes() == before


def test_a_non_pending_id_in_a_batch_means_nothing_is_rejected(mecha):
    a, b = stage(mecha), stage(mecha)
    mecha.run("outbox", "reject", a, "--reason", "first", check=0)
    before = item_path(mecha, b).read_bytes()
    p = mecha.run("outbox", "reject", b, a, "--reason", "both", check=3)
    assert "nothing was rejected" in p.err
    assert item_path(mecha, b).read_bytes() == before
    assert read_item(mecha, a)["reason"] == "first"


def test_reject_all_records_the_reason_on_every_pending_draft(mecha):
    a, b = stage(mecha), stage(mecha)
    mecha.run("outbox", "reject", "--all", "--reason", "too formal", check=0)
    for i in (a, b):
        item = read_item(mecha, i)
        assert item["status"] == "rejected" and item["reason"] == "too formal"
        assert item["resolved_at"]


# -- edit and review -----------------------------------------------------------------
def editor(tmp_path, body):
    """An $EDITOR that records its file's mode and rewrites the body."""
    script = tmp_path / "ed"
    script.write_text(
        "#!/bin/sh\n"
        f'stat -c %a "$1" > {tmp_path}/mode\n'
        f'sed -i "s/Tuesday at ten/{body}/; s/^Subject: .*/Subject: Tuesday/" "$1"\n')
    script.chmod(0o755)
    return str(script)


def test_edit_changes_what_will_be_sent_and_show_tells_the_difference(mecha, tmp_path):
    item_id = stage(mecha)
    mecha.run("outbox", "edit", item_id, env={"EDITOR": editor(tmp_path, "Wednesday at two")},
              check=0)
    item = read_item(mecha, item_id)
    assert item["args"]["body_text"] == "Dear Ada,\n\nWednesday at two works.\n"
    assert item["args"]["subject"] == "Tuesday"
    assert item["args_before"] == MAIL
    assert item["summary"].endswith('"Tuesday"')
    assert (tmp_path / "mode").read_text().strip() == "600"
    assert [p.name for p in outbox_dir(mecha).iterdir() if p.name.startswith(".edit")] == []
    out = mecha.run("outbox", "show", item_id, check=0).out
    assert "- Tuesday at ten works." in out and "+ Wednesday at two works." in out


def test_visual_wins_over_editor_and_an_untouched_file_changes_nothing(mecha, tmp_path):
    item_id = stage(mecha)
    before = item_path(mecha, item_id).read_bytes()
    p = mecha.run("outbox", "edit", item_id, env={"VISUAL": "true", "EDITOR": "false"},
                  check=0)
    assert "Nothing changed" in p.out
    assert item_path(mecha, item_id).read_bytes() == before


def test_an_edit_of_a_draft_resolved_meanwhile_is_refused_and_kept(mecha, tmp_path):
    item_id = stage(mecha)
    script = tmp_path / "ed-race"
    script.write_text(f'#!/bin/sh\n"{BIN}" outbox reject {item_id} --reason elsewhere\n'
                      'echo "more" >> "$1"\n')
    script.chmod(0o755)
    p = mecha.run("outbox", "edit", item_id, env={"EDITOR": str(script)}, check=3)
    assert "while you were editing" in p.err and "kept in" in p.err
    item = read_item(mecha, item_id)
    assert item["status"] == "rejected" and item["args"] == MAIL
    mecha.run("outbox", "edit", item_id, env={"EDITOR": "true"}, check=3)


def test_an_edit_that_breaks_the_subject_over_two_lines_is_refused_and_kept(mecha, tmp_path):
    item_id = stage(mecha)
    before = item_path(mecha, item_id).read_bytes()
    script = tmp_path / "ed-bcc"
    script.write_text("#!/bin/sh\n"
                      "printf 'Subject: Re: hi\\rBcc: evil@example.net\\n\\nhello\\n' > \"$1\"\n")
    script.chmod(0o755)
    p = mecha.run("outbox", "edit", item_id, env={"EDITOR": str(script)}, check=2)
    assert "single line" in p.err and "kept in" in p.err
    assert item_path(mecha, item_id).read_bytes() == before
    kept = [f for f in outbox_dir(mecha).iterdir() if f.name.startswith(".edit")]
    assert len(kept) == 1 and b"\rBcc: evil@example.net" in kept[0].read_bytes()
    assert [i["id"] for i in mecha.json("outbox", "list", "--json")] == [item_id]


def test_review_from_a_pipe_sends_rejects_and_keeps(mecha, smtp_sink, tmp_path):
    configure(mecha, smtp_sink.url)
    for _ in range(4):
        stage(mecha)
    a, b, c, d = [i["id"] for i in mecha.json("outbox", "list", "--json")]  # review's order
    answers = "x\ns\nr\n\nr\nnot this one\ne\nk\nq\n"  # the empty reason cancels one reject
    p = mecha.run("outbox", "review", input=answers,
                  env={"EDITOR": editor(tmp_path, "Friday")}, check=0)
    assert "[s]end [e]dit [r]eject [k]eep [q]uit" in p.out
    assert "Answer s, e, r, k or q." in p.out
    assert "reject cancelled" in p.out
    assert read_item(mecha, a)["status"] == "sent"
    item = read_item(mecha, b)
    assert item["status"] == "rejected" and item["reason"] == "not this one"
    item = read_item(mecha, c)
    assert item["status"] == "pending" and "Friday" in item["args"]["body_text"]
    assert read_item(mecha, d)["status"] == "pending"
    assert "1 sent, 1 rejected, 1 kept." in p.out
    assert len(smtp_sink.raw()) == 1


def test_review_reject_is_cancelled_by_an_empty_reason_and_q_never_becomes_one(mecha):
    a = stage(mecha)
    p = mecha.run("outbox", "review", input="r\n\nq\n", check=0)
    assert "an empty line cancels" in p.out and "reject cancelled" in p.out
    assert read_item(mecha, a)["status"] == "pending"
    p = mecha.run("outbox", "review", input="r\n", check=0)  # the input ends at the reason
    assert "reject cancelled" in p.out
    assert read_item(mecha, a)["status"] == "pending"


def test_review_with_nothing_pending_says_so(mecha):
    p = mecha.run("outbox", "review", input="", check=0)
    assert "Nothing is waiting" in p.out


# -- the command line -------------------------------------------------------------------
@pytest.mark.parametrize("verb", ["list", "show", "stage", "approve", "send", "reject", "edit",
                                  "review"])
def test_every_verb_explains_itself(mecha, verb):
    p = mecha.run("outbox", verb, "--help", check=0)
    assert p.out.startswith("usage: mecha outbox")


def test_usage_mistakes_exit_2(mecha):
    mecha.run("outbox", "approve", check=2)
    mecha.run("outbox", "approve", "--all", "x", check=2)
    mecha.run("outbox", "frobnicate", check=2)
    mecha.run("outbox", "list", "--bogus", check=2)
    mecha.run("outbox", "stage", "--tool", "mail_send", check=2)
    mecha.run("outbox", "stage", "--tool", "x", "--args", "{nope", check=2)
    mecha.run("outbox", "reject", "--all", "-y", "--reason", "r", check=2)


def test_the_outbox_directory_comes_from_the_environment_then_the_config(mecha, tmp_path):
    write_config(mecha, '[outbox]\ndir = "~/drafts"\n')
    item_id = stage(mecha)
    assert (tmp_path / "drafts" / f"{item_id}.json").exists()  # HOME is tmp_path
    other = tmp_path / "elsewhere"
    env = {"MECHA_OUTBOX_DIR": str(other)}
    assert mecha.json("outbox", "list", "--json", env=env) == []
    mecha.run("outbox", "stage", "--tool", "mail_send", "--args", json.dumps(MAIL), env=env,
              check=0)
    assert len(list(other.glob("*.json"))) == 1
    assert [i["id"] for i in mecha.json("outbox", "list", "--json")] == [item_id]


# -- the sink table at staging ---------------------------------------------------------
def staged_files(mecha):
    return list(outbox_dir(mecha).glob("*.json")) if outbox_dir(mecha).exists() else []


def test_a_stage_for_a_tool_no_sink_knows_is_refused_and_stages_nothing(mecha):
    for tool in ("nope", "web_post", "mail_send\x1b[2J"):
        p = mecha.run("outbox", "stage", "--tool", tool, "--args", json.dumps(MAIL), check=2)
        assert "no tool is called" in p.err and "mail_send" in p.err
        assert "\x1b" not in p.err
    p = mecha.run("outbox", "stage", "--tool", "mail_send", "--kind", "letter", "--args",
                  json.dumps(MAIL), check=2)
    assert "message or publish" in p.err
    assert staged_files(mecha) == []


def test_a_mail_draft_whose_subject_is_not_one_line_is_not_staged(mecha):
    for tool in ("mail_send", "mail__mail_send"):
        for subject in ("Re: hi\r\nBcc: evil@example.net", "two\nlines", "a\rb"):
            p = mecha.run("outbox", "stage", "--tool", tool, "--args",
                          json.dumps(dict(MAIL, subject=subject)), check=2)
            assert "single line" in p.err
    assert staged_files(mecha) == []


def test_an_empty_id_is_a_usage_error_on_every_verb(mecha):
    stage(mecha)
    for verb in (["show"], ["approve", "-y"], ["reject", "--reason", "r"], ["edit"]):
        p = mecha.run("outbox", *verb, "", env={"EDITOR": "true"}, check=2)
        assert "empty id" in p.err


def test_reject_without_a_reason_is_reason_required_whatever_it_names(mecha):
    p = mecha.run("outbox", "reject", "19990101T000000-00000000", check=2)
    assert "needs a reason" in p.err


# -- an agent's bytes never drive the terminal -------------------------------------------
POISON = "\x1b]52;c;ZXZpbA==\x07\x1b[2J\r\x7f\u009b31m"
RAW = ["\x1b", "\x07", "\r", "\x7f", "\u009b"]


def poisoned(status, item_id):
    p = POISON
    args_before = {"to": "ada@example.org", "subject": "before" + p, "body_text": "was" + p}
    return {
        "id": item_id, "status": status, "tool": "mail_send" + p, "kind": "message" + p,
        "args_before": args_before,
        "args": {"to": "ada@example.org" + p, "cc": ["bob@example.net" + p],
                 "subject": "s" + p, "body_text": "b" + p, "key" + p: "value" + p},
        "summary": "summary" + p, "session_id": "session" + p, "workspace": "workspace" + p,
        "taint": {"private": False, "untrusted": True}, "created_at": "2026" + p,
        "resolved_at": "2027" + p, "reason": "reason" + p, "error": "error" + p,
        "sending_since": "since" + p,
    }


def assert_clean(p):
    for stream in (p.stdout.decode("utf-8", "replace"), p.stderr.decode("utf-8", "replace")):
        for c in RAW:
            assert c not in stream, (repr(c), stream)


def test_no_field_of_an_item_reaches_the_terminal_raw(mecha, smtp_sink):
    configure(mecha, smtp_sink.url)
    pending, sent = "20260806T020312-3f2a9c1b", "20260806T020313-3f2a9c1c"
    outbox_dir(mecha).mkdir(parents=True, mode=0o700)
    item_path(mecha, pending).write_text(json.dumps(poisoned("pending", pending)))
    item_path(mecha, sent).write_text(json.dumps(poisoned("sent" + POISON, sent)))
    runs = [
        mecha.run("outbox", check=0),
        mecha.run("outbox", "list", "--via", "mail", check=0),
        mecha.run("outbox", "show", pending, check=0),
        mecha.run("outbox", "show", sent, check=0),
        mecha.run("outbox", "approve", pending, sent, input="n\n", check=3),  # the prompt
        mecha.run("outbox", "approve", "-y", pending, check=3),  # in flight since …
        mecha.run("outbox", "reject", sent, "--reason", "r", check=3),  # already …
        mecha.run("outbox", "approve", "--force", "-y", pending, check=1),  # no sink for its tool
        mecha.run("outbox", "show", pending, check=0),  # with the error recorded
        mecha.run("outbox", "reject", "--force", pending, "--reason", "no", check=0),
        mecha.run("outbox", "show", pending, check=0),
    ]
    for p in runs:
        assert_clean(p)
    shown = runs[2].out
    for field in ("summary", "session", "workspace", "2026", "2027", "reason", "since",
                  "error", "key", "value", "before", "was"):
        assert field + "\\e]52;c;ZXZpbA==\\x07" in shown, field
    assert "Send 2 drafts" in runs[4].err and "summary\\e]52" in runs[4].err
    assert "since\\e]52" in runs[5].err
    assert "sent\\e]52" in runs[6].err
    assert "mail_send\\e]52" in runs[7].err
    assert smtp_sink.raw() == []


def test_list_and_show_of_a_read_only_outbox_change_nothing(mecha):
    a, b = stage(mecha), stage(mecha)
    d = outbox_dir(mecha)
    (d / ".lock").unlink(missing_ok=True)

    def snapshot():
        return sorted((p.name, p.stat().st_mtime_ns, p.stat().st_mode, p.read_bytes())
                      for p in d.iterdir())

    for p in d.iterdir():
        p.chmod(0o400)
    d.chmod(0o500)
    try:
        before = snapshot()
        dir_mtime = d.stat().st_mtime_ns
        assert len(mecha.run("outbox", "list", check=0).out.splitlines()) == 2
        assert len(mecha.json("outbox", "list", "--json")) == 2
        mecha.run("outbox", "show", a, check=0)
        assert mecha.json("outbox", "show", b[:-1], "--json")["id"] == b
        assert snapshot() == before and d.stat().st_mtime_ns == dir_mtime
        assert not (d / ".lock").exists()
    finally:
        d.chmod(0o700)
