"""The calendar_invite sink, black box: an approved invite draft (the shape
propose_meeting stages) writes its event into a real vdir and mails its iTIP
invitation to a loopback SMTP server, exactly once, like a mail."""
import json
import signal
import subprocess

from conftest import BIN, write_config
from test_sweep import calendar_part, events, one, slot, unfold, ics_time


def configure(mecha, smtp_sink, calendar=True, zone="UTC"):
    cal = mecha.tmp / "calendar"
    cal.mkdir(exist_ok=True)
    text = (f'[outbox]\ntools = ["mail_send", "calendar_invite"]\n'
            f'[mail]\nsmtp_url = "{smtp_sink.url}"\nfrom = "Me Myself <me@example.org>"\n')
    if calendar:
        text += f'[calendar]\npath = "{cal}"\ntimezone = "{zone}"\n'
    write_config(mecha, text)
    return cal


def stage(mecha, when=None):
    """An invite draft as draft_invite stages it for propose_meeting."""
    start, end = when or slot()
    args = {"to": "ada@example.org", "subject": "Coffee about the paper",
            "title": "Coffee about the paper", "start": start, "end": end}
    p = mecha.run("outbox", "stage", "--tool", "calendar_invite", "--args", json.dumps(args),
                  check=0)
    return p.out.strip()


def item(mecha, item_id):
    return json.loads((mecha.home / "outbox" / f"{item_id}.json").read_text())


def test_an_approved_invite_writes_its_event_and_mails_its_invitation_once(mecha, smtp_sink):
    cal = configure(mecha, smtp_sink)
    start, end = slot(days=12, hour=14, minutes=30)
    item_id = stage(mecha, (start, end))
    mecha.run("outbox", "approve", item_id, check=0)
    assert item(mecha, item_id)["status"] == "sent"

    [path] = events(cal)
    ev = unfold(path.read_text())
    assert one(ev, "UID") == f"{item_id}@mecha"
    assert one(ev, "DTSTART") == ics_time(start) and one(ev, "DTEND") == ics_time(end)
    assert one(ev, "ATTENDEE").lower() == "mailto:ada@example.org"
    assert one(ev, "SUMMARY") == "Coffee about the paper"

    [msg] = smtp_sink.messages()
    assert msg["Message-ID"] == f"<{item_id}@mecha>" and msg["To"] == "ada@example.org"
    text, part = calendar_part(msg)
    assert "Coffee about the paper" in text
    itip = unfold(part.get_content())
    assert one(itip, "METHOD") == "REQUEST" and one(itip, "UID") == f"{item_id}@mecha"
    assert one(itip, "DTSTART") == ics_time(start) and one(itip, "DTEND") == ics_time(end)

    p = mecha.run("outbox", "approve", item_id, check=3)
    assert "not sent again" in p.err
    assert len(smtp_sink.raw()) == 1 and len(events(cal)) == 1


def test_an_invitation_tells_the_time_in_the_owners_zone(mecha, smtp_sink):
    from test_sweep import berlin, clocks_go_back, utc_slot

    configure(mecha, smtp_sink, zone="Europe/Berlin")
    start, end = utc_slot(clocks_go_back(), 9, minutes=30)  # the Sunday Berlin is on UTC+1 again
    mecha.run("outbox", "approve", stage(mecha, (start, end)), check=0)
    [msg] = smtp_sink.messages()
    day, _ = berlin(start)
    when = f"{day}, 10:00\u201310:30 Europe/Berlin"
    assert msg["Subject"] == f"Invitation: Coffee about the paper \u2014 {when}"
    assert f"When: {when}" in calendar_part(msg)[0].splitlines()


def test_an_invite_for_a_slot_that_became_busy_is_refused_and_stays_pending(mecha, smtp_sink):
    cal = configure(mecha, smtp_sink)
    start, end = slot()
    item_id = stage(mecha, (start, end))
    (cal / "meanwhile.ics").write_text(
        "BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//test//EN\r\nBEGIN:VEVENT\r\n"
        f"UID:meanwhile\r\nDTSTAMP:20260801T000000Z\r\nDTSTART:{ics_time(start)}\r\n"
        "DURATION:PT15M\r\nEND:VEVENT\r\nEND:VCALENDAR\r\n")
    p = mecha.run("outbox", "approve", item_id, check=3)
    assert "busy" in p.err
    it = item(mecha, item_id)
    assert it["status"] == "pending" and "busy" in it["error"] and "sending_since" not in it
    assert smtp_sink.raw() == [] and [e.name for e in events(cal)] == ["meanwhile.ics"]


def test_an_invitation_the_server_refuses_takes_its_event_out_again(mecha, smtp_sink):
    cal = configure(mecha, smtp_sink)
    item_id = stage(mecha)
    smtp_sink.mode = "refuse"
    p = mecha.run("outbox", "approve", item_id, check=1)
    assert "554" in p.err and "taken out again" in p.err
    assert item(mecha, item_id)["status"] == "pending" and events(cal) == []
    smtp_sink.mode = "accept"
    mecha.run("outbox", "approve", item_id, check=0)
    assert len(events(cal)) == 1 and len(smtp_sink.raw()) == 1


def test_an_invite_killed_mid_send_is_not_repeated_and_can_be_marked_sent(mecha, smtp_sink):
    cal = configure(mecha, smtp_sink)
    item_id = stage(mecha)
    smtp_sink.mode = "hold"
    proc = subprocess.Popen([BIN, "outbox", "approve", item_id], env=mecha.env,
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    assert smtp_sink.holding.wait(20), "the approve never reached DATA"
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    smtp_sink.mode = "accept"
    smtp_sink.release()
    assert item(mecha, item_id)["sending_since"]
    p = mecha.run("outbox", "approve", item_id, check=3)
    assert "in flight" in p.err
    assert len(smtp_sink.raw()) == 1 and len(events(cal)) == 1
    mecha.run("outbox", "approve", "--mark-sent", item_id, check=0)
    assert item(mecha, item_id)["status"] == "sent"
    assert len(smtp_sink.raw()) == 1 and len(events(cal)) == 1


def test_forcing_an_interrupted_invite_replaces_its_event_rather_than_adding_one(
        mecha, smtp_sink):
    cal = configure(mecha, smtp_sink)
    item_id = stage(mecha)
    smtp_sink.mode = "hold"
    proc = subprocess.Popen([BIN, "outbox", "approve", item_id], env=mecha.env,
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    assert smtp_sink.holding.wait(20)
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    smtp_sink.mode = "accept"
    smtp_sink.release()
    mecha.run("outbox", "approve", "--force", item_id, check=0)
    assert len(events(cal)) == 1, "the forced send was refused by its own event, or doubled it"
    assert [m["Message-ID"] for m in smtp_sink.messages()] == [f"<{item_id}@mecha>"] * 2


def test_an_invite_without_a_calendar_says_so_and_stays_pending(mecha, smtp_sink):
    configure(mecha, smtp_sink, calendar=False)
    item_id = stage(mecha)
    p = mecha.run("outbox", "approve", item_id, check=1)
    assert "[calendar] path" in p.err
    assert item(mecha, item_id)["status"] == "pending" and smtp_sink.raw() == []


def test_an_invite_whose_slot_does_not_read_is_not_staged(mecha):
    for args in ({"to": "ada@example.org", "start": "tuesday", "end": "2030-01-01T10:00:00Z"},
                 {"to": "ada@example.org", "start": "2030-01-01T10:00:00Z",
                  "end": "2030-01-01T09:00:00Z"}):
        p = mecha.run("outbox", "stage", "--tool", "calendar_invite", "--args", json.dumps(args))
        assert p.returncode == 2, p.err


def test_an_invite_whose_acceptance_was_never_confirmed_keeps_its_event_and_says_so(
        mecha, smtp_sink):
    cal = configure(mecha, smtp_sink)
    item_id = stage(mecha)
    smtp_sink.mode = "close"  # the body arrives, then the connection drops: no 250
    p = mecha.run("outbox", "approve", item_id, check=1)
    assert "may have arrived" in p.err and "--mark-sent" in p.err
    assert "may have arrived" in item(mecha, item_id)["error"]
    assert len(events(cal)) == 1, "the event of an invitation that may have arrived was removed"
    # Deciding it did not arrive, a person approves again: its own event is not "busy".
    smtp_sink.mode = "accept"
    mecha.run("outbox", "approve", item_id, check=0)
    assert len(events(cal)) == 1 and len(smtp_sink.raw()) == 1
