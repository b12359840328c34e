"""mecha doctor's queue section and its digest, black box, with the clock fixed
(MECHA_NOW, test builds only): what has waited too long is said — failed extractions,
requests waiting on the owner past [frontdoor] stale_hours, drafts pending past
[outbox] stale_hours or whose delivery failed, bookings the sweep leaves for a person —
each with the verb that settles it; the digest says it alone, and mails it only when
there is something in it."""
import datetime
import json
import stat

import pytest

from conftest import write_config

NOW = datetime.datetime(2031, 3, 10, 12, 0, tzinfo=datetime.timezone.utc)
H, S = datetime.timedelta(hours=1), datetime.timedelta(seconds=1)


def z(t):
    return t.strftime("%Y-%m-%dT%H:%M:%SZ")


def at(t=NOW):
    return {"MECHA_NOW": z(t)}


def arrived(mecha, seq, state, when, **kw):
    return mecha.write_record(seq, state=state, created_at=z(when - H), drained_at=z(when), **kw)


def queue(mecha, *args, now=NOW, check=None):
    p = mecha.run("doctor", "--json", "--offline", *args, env=at(now), check=check)
    return [x for x in json.loads(p.out) if x["check"] == "queue"]


def findings(mecha, **kw):
    return [(x["status"], x["item"]["kind"], x["item"].get("seq", x["item"].get("id")))
            for x in queue(mecha, **kw) if x["status"] != "ok"]


def stage(mecha, when):
    """A pending draft staged at `when` (its file's created_at set, as staging writes it)."""
    out = mecha.run("outbox", "stage", "--tool", "mail_send", "--args",
                    json.dumps({"to": "ada@example.org", "subject": "Re: a meeting",
                                "body": "Yes."}), check=0).out.strip()
    path = mecha.home / "outbox" / f"{out}.json"
    item = json.loads(path.read_text())
    item["created_at"] = z(when)
    path.write_text(json.dumps(item))
    return out, path


@pytest.fixture
def home(mecha):
    write_config(mecha, '[outbox]\ntools = ["mail_send"]\n')
    return mecha


# -- requests -------------------------------------------------------------------------
def test_nothing_waiting_is_one_ok_line(home):
    arrived(home, 1, "awaiting_me", NOW - 10 * H)
    [line] = queue(home)
    assert line["status"] == "ok" and "nothing has waited too long" in line["detail"]
    assert "1 request waits on you" in line["detail"] and "item" not in line


@pytest.mark.parametrize("state", ["extracted", "triaged", "awaiting_me"])
def test_a_request_waiting_on_you_is_stale_one_second_after_72_hours(home, state):
    arrived(home, 1, state, NOW - 72 * H)
    assert findings(home) == []
    arrived(home, 1, state, NOW - 72 * H - S)
    [line] = queue(home)
    assert line["status"] == "warn" and line["item"]["state"] == state
    assert line["item"]["age_hours"] == 72
    assert "has waited on you 3d 0h" in line["detail"]
    assert "mecha" in line["fix"]


@pytest.mark.parametrize("state", ["drained", "needs_info", "answered", "booked", "closed"])
def test_a_request_not_waiting_on_you_is_never_stale(home, state):
    arrived(home, 1, state, NOW - 30 * 24 * H)
    assert findings(home) == []


def test_stale_requests_come_oldest_first_each_with_the_verb_that_settles_it(home):
    arrived(home, 1, "awaiting_me", NOW - 100 * H)
    arrived(home, 2, "extracted", NOW - 300 * H)
    arrived(home, 3, "triaged", NOW - 200 * H)
    lines = queue(home)
    assert [x["item"]["seq"] for x in lines] == [2, 3, 1]
    fixes = [x["fix"] for x in lines]
    assert "mecha frontdoor triage --seq 2" in fixes[0]
    assert "mecha frontdoor close 3 --reason" in fixes[1]
    assert "mecha outbox review" in fixes[2]


def test_every_failed_extraction_is_a_fail_however_young(home):
    arrived(home, 4, "extraction_failed", NOW - H, extraction_error="the model said nothing")
    p = home.run("doctor", "--offline", env=at(), check=1)
    [line] = queue(home)
    assert line["status"] == "fail" and "the model said nothing" in line["detail"]
    assert "mecha frontdoor extract --seq 4" in line["fix"]
    assert "fail  queue" in p.out


def test_frontdoor_stale_hours_moves_the_edge(home):
    write_config(home, '[outbox]\ntools = ["mail_send"]\n[frontdoor]\nstale_hours = 5\n')
    arrived(home, 1, "extracted", NOW - 5 * H)
    assert findings(home) == []
    arrived(home, 1, "extracted", NOW - 5 * H - S)
    assert findings(home) == [("warn", "request", 1)]


def test_a_stale_hours_that_is_not_a_number_of_hours_is_refused(home):
    write_config(home, '[frontdoor]\nstale_hours = 0\n')
    p = home.run("frontdoor", "list", check=1)
    assert "stale_hours must be between 1 and 86400 hours" in p.err


# -- drafts --------------------------------------------------------------------------
def test_a_pending_draft_is_stale_one_second_after_48_hours(home):
    staged = NOW - 48 * H
    stage(home, staged)
    assert findings(home) == []
    item_id, _ = stage(home, staged - S)
    assert findings(home) == [("warn", "draft", item_id)]
    [line] = queue(home)
    assert f"mecha outbox approve {item_id}" in line["fix"] and "2d 0h" in line["detail"]


def test_outbox_stale_hours_moves_the_edge(home):
    write_config(home, '[outbox]\ntools = ["mail_send"]\nstale_hours = 2\n')
    item_id, _ = stage(home, NOW - 2 * H - S)
    assert findings(home) == [("warn", "draft", item_id)]


def test_a_draft_whose_delivery_failed_or_was_interrupted_is_a_fail(home):
    failed, path = stage(home, NOW - H)
    item = json.loads(path.read_text())
    item["error"] = "554 5.7.1 refused"
    path.write_text(json.dumps(item))
    cut, path2 = stage(home, NOW - H)
    item = json.loads(path2.read_text())
    item["sending_since"] = z(NOW - H)
    path2.write_text(json.dumps(item))
    lines = {x["item"]["id"]: x for x in queue(home)}
    assert lines[failed]["status"] == "fail" and "554 5.7.1 refused" in lines[failed]["detail"]
    assert lines[cut]["status"] == "fail" and f"approve {cut} --force" in lines[cut]["fix"]


def test_a_resolved_draft_is_never_stale(home):
    item_id, path = stage(home, NOW - 100 * H)
    home.run("outbox", "reject", item_id, "--reason", "no", check=0)
    assert findings(home) == []


# -- bookings ------------------------------------------------------------------------
def test_a_booking_the_sweep_leaves_for_you_is_a_warning(home):
    cal = home.tmp / "calendar"
    cal.mkdir()
    write_config(home, f'[outbox]\ntools = ["mail_send"]\n[calendar]\npath = "{cal}"\n')
    home.write_record(7, values={"_booking_id": "b7", "_slot_start": "2031-03-01T09:00:00Z",
                                 "_slot_end": "2031-03-01T10:00:00Z"},
                      reply_to="ada@example.org")
    [line] = queue(home)
    assert (line["status"], line["item"]) == ("warn", {"kind": "booking", "seq": 7})
    assert "over" in line["detail"] and "mecha frontdoor show 7" in line["fix"]
    assert not (home.requests / "bookings.jsonl").exists()


# -- it changes nothing; the digest ----------------------------------------------------
def tree(root):
    return [(str(p), p.lstat().st_mode, p.read_bytes() if stat.S_ISREG(p.lstat().st_mode) else None)
            for p in sorted([root, *root.rglob("*")])]


def test_the_queue_section_changes_nothing(home):
    arrived(home, 1, "extracted", NOW - 100 * H)
    stage(home, NOW - 100 * H)
    before = tree(home.home)
    home.run("doctor", "--offline", env=at())
    home.run("doctor", "--digest", env=at())
    assert tree(home.home) == before


def test_the_digest_is_the_queue_alone_and_nothing_when_nothing_waits(home):
    arrived(home, 1, "extracted", NOW - 10 * H)
    p = home.run("doctor", "--digest", env=at(), check=0)
    assert p.out == ""
    arrived(home, 2, "extraction_failed", NOW - H)
    arrived(home, 3, "awaiting_me", NOW - 100 * H)
    p = home.run("doctor", "--digest", env=at(), check=0)
    lines = p.out.splitlines()
    assert lines[0] == "2 things have waited too long (1 broken)"
    assert sum(ln.startswith(("fail ", "warn ")) for ln in lines) == 2
    assert "request 2" in p.out and "request 3" in p.out and "mecha outbox review" in p.out
    assert "provider" not in p.out and "permissions" not in p.out
    assert len(lines) <= 8
    rows = json.loads(home.run("doctor", "--digest", "--json", env=at(), check=0).out)
    assert {r["check"] for r in rows} == {"queue"} and len(rows) == 2


def test_the_digest_mail_goes_to_digest_to_only_when_something_waits(mecha, smtp_sink):
    write_config(mecha, f'[mail]\nsmtp_url = "{smtp_sink.url}"\nfrom = "Me <me@example.org>"\n'
                        '[notify]\ndigest_to = "owner@example.org"\n')
    arrived(mecha, 1, "extracted", NOW - 10 * H)
    mecha.run("doctor", "--digest", "--mail", env=at(), check=0)
    assert smtp_sink.raw() == []
    arrived(mecha, 2, "triaged", NOW - 80 * H)
    mecha.run("doctor", "--digest", "--mail", env=at(), check=0)
    [msg] = smtp_sink.messages()
    [envelope] = smtp_sink.envelopes()
    assert envelope["rcpt_tos"] == ["owner@example.org"]
    assert msg["Subject"] == "mecha: 1 thing has waited too long"
    assert "request 2 (meeting) has waited on you 3d 8h" in msg.get_content()


def test_the_digest_mail_without_digest_to_is_refused_and_sends_nothing(mecha, smtp_sink):
    write_config(mecha, f'[mail]\nsmtp_url = "{smtp_sink.url}"\nfrom = "me@example.org"\n')
    arrived(mecha, 2, "triaged", NOW - 80 * H)
    p = mecha.run("doctor", "--digest", "--mail", env=at(), check=1)
    assert "digest_to" in p.err and smtp_sink.raw() == []
    assert mecha.run("doctor", "--mail", check=2).returncode == 2


def test_digest_to_must_be_an_address(mecha):
    write_config(mecha, '[notify]\ndigest_to = "not an address"\n')
    assert "digest_to" in mecha.run("frontdoor", "list", check=1).err


# -- frontdoor list marks them ----------------------------------------------------------
def test_frontdoor_list_marks_the_requests_the_doctor_warns_of(home):
    arrived(home, 1, "awaiting_me", NOW - 72 * H)
    arrived(home, 2, "awaiting_me", NOW - 72 * H - S)
    arrived(home, 3, "extracted", NOW - 100 * H)
    arrived(home, 4, "needs_info", NOW - 500 * H)
    rows = home.json("frontdoor", "list", "--json", env=at())
    assert [(r["seq"], r["stale"]) for r in rows] == [(1, None), (2, 72), (3, 100), (4, None)]
    lines = home.run("frontdoor", "list", env=at(), check=0).out.splitlines()
    assert ["stale" in ln for ln in lines] == [False, True, True, False]
    assert lines[2].endswith("stale (4d 4h)")
    warned = {x["item"]["seq"] for x in queue(home) if x["status"] == "warn"}
    assert warned == {2, 3}


# -- the documented timer ---------------------------------------------------------------
def test_the_digest_units_execstart_mails_the_digest(mecha, smtp_sink):
    import configparser
    import shlex
    import subprocess

    from conftest import BIN, ROOT
    parser = configparser.ConfigParser(interpolation=None, strict=True)
    parser.optionxform = str
    parser.read_string((ROOT / "docs" / "mecha-digest.service").read_text())
    argv = shlex.split(parser["Service"]["ExecStart"])
    assert argv[0] == "/usr/local/bin/mecha" and parser["Service"]["Type"] == "oneshot"
    timer = configparser.ConfigParser(interpolation=None, strict=True)
    timer.optionxform = str
    timer.read_string((ROOT / "docs" / "mecha-digest.timer").read_text())
    assert timer["Timer"]["OnCalendar"] and timer["Install"]["WantedBy"] == "timers.target"
    write_config(mecha, f'[mail]\nsmtp_url = "{smtp_sink.url}"\nfrom = "me@example.org"\n'
                        '[notify]\ndigest_to = "owner@example.org"\n')
    arrived(mecha, 1, "extraction_failed", NOW - H)
    p = subprocess.run([BIN, *argv[1:]], env={**mecha.env, **at()}, stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE, timeout=60)
    assert p.returncode == 0, p.stderr.decode()
    [msg] = smtp_sink.messages()
    assert msg["To"] == "owner@example.org" and "request 1 (meeting)" in msg.get_content()


def test_systemd_accepts_the_digest_units(tmp_path):
    import shutil
    import subprocess

    from conftest import BIN, ROOT
    analyze = shutil.which("systemd-analyze")
    if not analyze:
        pytest.skip("systemd-analyze is not installed")
    service = (ROOT / "docs" / "mecha-digest.service").read_text()
    (tmp_path / "mecha-digest.service").write_text(service.replace("/usr/local/bin/mecha", BIN))
    shutil.copy(ROOT / "docs" / "mecha-digest.timer", tmp_path / "mecha-digest.timer")
    p = subprocess.run([analyze, "verify", "--man=no", "./mecha-digest.service",
                        "./mecha-digest.timer"], cwd=tmp_path, stdout=subprocess.PIPE,
                       stderr=subprocess.STDOUT, timeout=60)
    assert p.returncode == 0, p.stdout.decode()
