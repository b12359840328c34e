"""`mecha init` sets a home up; `mecha doctor` checks one without changing it.

Before, there was no way to set a house up or to check it before the first
real send. Now init makes the home, its stores and a config.toml with every
setting explained (and refuses to overwrite one), and doctor reports each part
of the house as ok, warn or fail with the fix: against a real SMTP server on
loopback (EHLO and the login, no message) and the scripted model server (one
GET of the models list, no completion), and naming each fault planted here.
"""
import json
import os
import shutil
import socket
import stat

import pytest

from conftest import write_config
from test_mission import letter, letter_id, post

KEYS = ["default_provider", "kind", "base_url", "model", "api_key_env", "timeout_s",
        "connect_timeout_s", "dir", "tools", "smtp_url", "sendmail", "from", "username",
        "password_env", "path", "timezone", "collections", "brain"]
STORES = ["requests", "outbox", "sessions", "missions", "factory/types"]

ICS = ("BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//test//EN\r\n"
       "BEGIN:VEVENT\r\nUID:a@test\r\nDTSTAMP:20260101T000000Z\r\n"
       "DTSTART:20260914T090000Z\r\nDTEND:20260914T100000Z\r\nSUMMARY:one\r\nEND:VEVENT\r\n"
       "BEGIN:VEVENT\r\nUID:b@test\r\nDTSTAMP:20260101T000000Z\r\n"
       "DTSTART:20260915T090000Z\r\nDTEND:20260915T100000Z\r\nSUMMARY:two\r\nEND:VEVENT\r\n"
       "END:VCALENDAR\r\n")


def mode(p):
    return stat.S_IMODE(p.stat().st_mode)


def snapshot(*roots):
    """Every name, mode, mtime and byte under the roots."""
    out = []
    for root in roots:
        for p in sorted([root, *root.rglob("*")]):
            st = p.lstat()
            out.append((str(p), st.st_mode, st.st_mtime_ns, st.st_size,
                        p.read_bytes() if stat.S_ISREG(st.st_mode) else None))
    return out


def doctor(mecha, *args, env=None, check=None):
    p = mecha.run("doctor", "--json", *args, env=env, check=check)
    lines = json.loads(p.out)
    for line in lines:
        keys = {"check", "status", "detail", "fix"}
        assert set(line) in (keys, keys | {"item"} if line["check"] == "queue" else keys), line
        assert line["status"] in ("ok", "warn", "fail"), line
        assert (line["fix"] is None) == (line["status"] == "ok"), line
    return p, {line["check"]: line for line in lines}


# -- init ----------------------------------------------------------------------------
def test_init_makes_a_private_home_its_stores_and_a_config_with_every_key(mecha):
    p = mecha.run("init", check=0)
    assert mode(mecha.home) == 0o700
    for store in STORES:
        assert mode(mecha.home / store) == 0o700, store
    cfg = mecha.home / "config.toml"
    assert mode(cfg) == 0o600
    text = cfg.read_text()
    for key in KEYS:
        assert f"\n# {key} = " in text, key
    for table in ("[outbox]", "[mail]", "[calendar]", "[missions]", "# [providers.openai]"):
        assert table in text
    assert "config.toml" in p.out and "mecha doctor" in p.out
    mecha.run("outbox", "list", check=0)  # the file it wrote loads
    mecha.run("frontdoor", "list", check=0)


def test_init_refuses_to_overwrite_a_config_and_changes_nothing(mecha):
    write_config(mecha, '[mail]\nfrom = "me@example.org"\n')
    before = snapshot(mecha.home)
    p = mecha.run("init", check=3)
    assert "config.toml is already there" in p.err
    assert snapshot(mecha.home) == before


def test_init_keeps_what_a_home_without_a_config_already_holds(mecha):
    record = mecha.write_record(7)
    kept = record.read_bytes()
    mecha.run("init", check=0)
    assert record.read_bytes() == kept
    assert (mecha.home / "config.toml").exists()
    assert [r["seq"] for r in mecha.json("frontdoor", "list", "--json")] == [7]


# -- doctor: all ok ------------------------------------------------------------------
@pytest.fixture
def auth_sink(tmp_path):
    import sys

    from conftest import ROOT
    sys.path.insert(0, str(ROOT / "tests" / "support"))
    from smtp_sink import SmtpSink

    sink = SmtpSink(tmp_path / "smtp-received", login=("me", "s3cret")).start()
    yield sink
    sink.stop()


def configure_all(mecha, model_server, smtp_url, calendar):
    return write_config(
        mecha,
        model_server.config_toml(api_key_env="TEST_MODEL_KEY") +
        f'[outbox]\ntools = ["mail_send"]\n'
        f'[mail]\nsmtp_url = "{smtp_url}"\nfrom = "Me <me@example.org>"\nusername = "me"\n'
        f'password_env = "TEST_SMTP_PW"\n'
        f'[calendar]\npath = "{calendar}"\ntimezone = "UTC"\n')


SECRETS = {"TEST_MODEL_KEY": "sk-test", "TEST_SMTP_PW": "s3cret"}


def test_init_then_doctor_is_all_ok_against_the_loopback_servers(mecha, model_server,
                                                                   auth_sink, tmp_path):
    mecha.run("init", check=0)
    calendar = tmp_path / "personal.ics"
    calendar.write_text(ICS)
    configure_all(mecha, model_server, auth_sink.url, calendar)
    p, lines = doctor(mecha, env=SECRETS, check=0)
    assert all(line["status"] == "ok" for line in lines.values()), lines
    assert set(lines) >= {"home", "config", "permissions", "stores", "temps", "provider", "mail",
                          "calendar", "outbox", "types", "mcp", "missions", "caches"}
    assert "2 events in 1 file" in lines["calendar"]["detail"]
    assert "mission_post" in lines["mcp"]["detail"]
    assert "accepted the login of me" in lines["mail"]["detail"]
    # The SMTP server heard a login and no message; the model server one GET, no completion.
    assert ("PLAIN", "me") in auth_sink.logins or ("LOGIN", "me") in auth_sink.logins
    assert auth_sink.raw() == []
    asked = model_server.requests()
    assert [(r["method"], r["path"]) for r in asked] == [("GET", "/v1/models")]
    assert asked[0]["headers"]["authorization"].startswith("Bearer <redacted sha256:")
    # The same, for a person.
    text = mecha.run("doctor", env=SECRETS, check=0).out
    assert "0 fail" in text and "fail " not in text.split("\n\n")[0]


def test_doctor_offline_reaches_no_server(mecha, model_server, auth_sink, tmp_path):
    mecha.run("init", check=0)
    calendar = tmp_path / "personal.ics"
    calendar.write_text(ICS)
    configure_all(mecha, model_server, auth_sink.url, calendar)
    p, lines = doctor(mecha, "--offline", env=SECRETS, check=0)
    assert lines["provider"]["status"] == lines["mail"]["status"] == "warn"
    assert "--offline" in lines["provider"]["detail"]
    assert model_server.requests() == [] and auth_sink.logins == []


def test_doctor_changes_nothing_in_a_home_it_reads(mecha, model_server, auth_sink, tmp_path):
    mecha.run("init", check=0)
    calendar = tmp_path / "personal.ics"
    calendar.write_text(ICS)
    configure_all(mecha, model_server, auth_sink.url, calendar)
    mecha.write_record(1)
    mecha.run("frontdoor", "extract", env={**SECRETS, "MECHA_PROVIDER": "rules"}, check=0)
    assert (mecha.home / "requests" / ".types").exists()
    post(mecha, letter(1, "judging"))
    mecha.run("outbox", "stage", "--tool", "mail_send", "--args",
              json.dumps({"to": "ada@example.org", "subject": "s", "body_text": "b"}), check=0)
    (mecha.home / "requests" / "0000000001-meeting.json").chmod(0o644)  # a fault, kept as is
    before = snapshot(mecha.home, tmp_path / "personal.ics")
    for args in ((), ("--offline",), ("--json",)):
        mecha.run("doctor", *args, env=SECRETS)
    assert snapshot(mecha.home, tmp_path / "personal.ics") == before


# -- doctor: each planted fault --------------------------------------------------------
def closed_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]  # closed again when the socket goes


def fork_the_chain(mecha, tmp_path):
    """Two letters extending the same head: one posted, one appended behind the CAS."""
    p = post(mecha, letter(1, "judging"))
    head = json.loads(p.out)["letter_id"] if p.out.strip().startswith("{") else None
    line1 = (mecha.home / "missions" / "inbox.jsonl").read_bytes().splitlines()[0]
    head = head or letter_id(line1)
    other = tmp_path / "other.jsonl"
    shutil.copy(mecha.home / "missions" / "inbox.jsonl", other)
    post(mecha, letter(2, "executing", prev=head))
    post(mecha, letter(2, "failed", prev=head), "agent-b", 0, "--box", str(other))
    with open(mecha.home / "missions" / "inbox.jsonl", "ab") as f:
        f.write(other.read_bytes().splitlines(keepends=True)[-1])


def plant(fault, mecha, tmp_path, model_server, auth_sink):
    calendar = tmp_path / "personal.ics"
    calendar.write_text(ICS)
    configure_all(mecha, model_server, auth_sink.url, calendar)
    if fault == "a 0755 store":
        (mecha.home / "requests").chmod(0o755)
    elif fault == "a bad from":
        text = (mecha.home / "config.toml").read_text()
        (mecha.home / "config.toml").write_text(
            text.replace('from = "Me <me@example.org>"', 'from = "Me, at home"'))
    elif fault == "an unreachable SMTP port":
        configure_all(mecha, model_server, f"smtp://127.0.0.1:{closed_port()}", calendar)
    elif fault == "an unreachable provider":
        model_server.stop()
    elif fault == "a missing calendar":
        calendar.unlink()
    elif fault == "a forked mission chain":
        fork_the_chain(mecha, tmp_path)
    elif fault == "a stale .types":
        mecha.write_record(1, type_id="meeting")
        mecha.write_record(2, type_id="visit")
        (mecha.home / "requests" / ".types").write_text("meeting\n")
        (mecha.home / "requests" / ".types").chmod(0o600)
    elif fault == "a leftover temp file":
        mecha.write_record(1)
        temp = mecha.home / "requests" / ".0000000001-meeting.json.Ab12Cd"
        temp.write_bytes(b"{ half a rec")
        temp.chmod(0o600)
        os.utime(temp, (0, 0))


# fault → (check, status, what its detail must say)
FAULTS = {
    "a 0755 store": ("permissions", "fail", "requests (0755)"),
    "a bad from": ("config", "fail", ':12: from "Me, at home" is not an e-mail address'),
    "an unreachable SMTP port": ("mail", "fail", "SMTP to 127.0.0.1:"),
    "an unreachable provider": ("provider", "fail", "GET http://127.0.0.1:"),
    "a missing calendar": ("calendar", "fail", "personal.ics, which does not exist"),
    "a forked mission chain": ("missions", "fail", "1 of 1 missions forked: msn_0123456789ab"),
    "a stale .types": ("caches", "warn", "does not list visit"),
    "a leftover temp file": ("temps", "warn", "requests/.0000000001-meeting.json.Ab12Cd"),
}


@pytest.mark.parametrize("fault", list(FAULTS))
def test_doctor_names_each_planted_fault(fault, mecha, tmp_path, model_server, auth_sink):
    mecha.run("init", check=0)
    plant(fault, mecha, tmp_path, model_server, auth_sink)
    check, status, says = FAULTS[fault]
    before = snapshot(mecha.home)
    p, lines = doctor(mecha, env=SECRETS)
    assert lines[check]["status"] == status, (fault, lines[check])
    assert says in lines[check]["detail"], (fault, lines[check])
    assert lines[check]["fix"], fault
    others = [c for c, line in lines.items() if line["status"] == "fail" and c != check]
    assert others == [] or fault == "a bad from", (fault, others)  # a bad file skips the rest
    assert p.returncode == (1 if status == "fail" else 0), (fault, p.err)
    assert snapshot(mecha.home) == before, f"doctor changed the home ({fault})"
    text = mecha.run("doctor", env=SECRETS).out
    assert f"{status:<5} {check}" in text and "fix: " in text


def test_doctor_without_a_home_says_to_run_init(mecha):
    mecha.home.rmdir()
    p, lines = doctor(mecha, check=1)
    assert lines["home"]["status"] == "fail" and "mecha init" in lines["home"]["fix"]
    assert not mecha.home.exists()
