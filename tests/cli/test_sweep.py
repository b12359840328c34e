"""mecha frontdoor sweep, black box: confirmed bookings become real events in a
vdir and real invitations at a loopback SMTP server, cancellations withdraw
them, and a sweep killed at any side effect then run again does each thing once.

Booking records have the shape the box writes (docs/protocol/box-api.md §6): values carry
_booking_id, _slot_start, _slot_end, _duration_minutes and _manage_url; a
cancellation is {_booking_id, _cancelled: true, _slot_start, _slot_end}."""
import datetime
import json
import os
import pathlib
import stat
import zoneinfo

import pytest

from conftest import write_config
from test_box_bookings import CONSULT

MANAGE = "https://gate.example.org/s/me/meeting/m/9f8e7d6c5b4a39281706f5e4d3c2b1a0"
BOOKING = "3f2a9c1b0d4e5f60718293a4b5c6d7e8"


def utc_slot(day, hour, minute=0, minutes=45):
    """The slot from hour:minute UTC on day, as RFC 3339 UTC."""
    start = datetime.datetime(day.year, day.month, day.day, hour, minute,
                              tzinfo=datetime.timezone.utc)
    end = start + datetime.timedelta(minutes=minutes)
    return start.strftime("%Y-%m-%dT%H:%M:%SZ"), end.strftime("%Y-%m-%dT%H:%M:%SZ")


def slot(days=10, hour=9, minutes=45):
    """A slot in the future (the sweep leaves a past one alone), as RFC 3339 UTC."""
    day = datetime.datetime.now(datetime.timezone.utc).date() + datetime.timedelta(days=days)
    return utc_slot(day, hour, minutes=minutes)


def ics_time(rfc3339):
    return rfc3339.replace("-", "").replace(":", "")


def configure(mecha, smtp_sink, cal=None):
    cal = cal or (mecha.tmp / "calendar")
    cal.mkdir(exist_ok=True)
    write_config(mecha, f'[mail]\nsmtp_url = "{smtp_sink.url}"\nfrom = "Me Myself <me@example.org>"\n'
                        f'[calendar]\npath = "{cal}"\ntimezone = "UTC"\n')
    return cal


GATE = "https://gate.example.org"
WEEK = ("mon", "tue", "wed", "thu", "fri", "sat", "sun")


def anytime_type(zone="UTC", type_id="meeting", title="Book a consultation", buffer=0):
    """A booking type open all day every day (00:00-23:59 in zone), every quarter hour."""
    windows = "".join(f'  {{ day = "{d}", start = "00:00", end = "23:59" }},\n' for d in WEEK)
    return (CONSULT.split("[availability]")[0].replace('id = "consult"', f'id = "{type_id}"')
            .replace('title = "Book a consultation"', f'title = "{title}"')
            + f'[availability]\ntimezone = "{zone}"\ndurations = [15, 30, 45, 60, 90]\n'
              f"increment_minutes = 15\nbuffer_minutes = {buffer}\nhorizon_days = 366\n"
              f"windows = [\n{windows}]\n")


def install_type(mecha, text=None, type_id="meeting"):
    types = mecha.home / "factory" / "types"
    types.mkdir(parents=True, exist_ok=True)
    (types / f"{type_id}.toml").write_text(text or anytime_type(type_id=type_id))


def offered_list(mecha, type_id="meeting"):
    path = mecha.home / "factory" / "offered" / f"{type_id}.json"
    return json.loads(path.read_text()) if path.exists() else None


def offer(mecha, *slots, type_id="meeting", minutes=45):
    """What `mecha slots push` keeps, as if it had pushed these slots now (and the gate
    the manage links are on): the sweep books only what is in it."""
    gate = mecha.home / "factory" / "config.toml"
    if not gate.exists():
        gate.parent.mkdir(parents=True, exist_ok=True)
        gate.write_text(f'gate = "{GATE}"\n')
    now = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")
    doc = offered_list(mecha, type_id) or {"type": type_id, "pushed_at": now, "slots": []}
    for start, end in slots:
        mins = (datetime.datetime.fromisoformat(end.replace("Z", "+00:00"))
                - datetime.datetime.fromisoformat(start.replace("Z", "+00:00")))
        doc["slots"].append({"start": start, "end": end,
                             "duration_minutes": int(mins.total_seconds() // 60),
                             "offered_at": now})
    path = mecha.home / "factory" / "offered" / f"{type_id}.json"
    path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
    path.write_text(json.dumps(doc))
    os.chmod(path, 0o600)


def booking(mecha, seq=1, booking_id=BOOKING, when=None, offered=True, **kw):
    """A booking record as the drain writes it; offered: its type is installed (when
    none is) and its slot is among what home pushed."""
    start, end = when or slot()
    if offered:
        if not (mecha.home / "factory" / "types" / f"{kw.get('type_id', 'meeting')}.toml").exists():
            install_type(mecha, type_id=kw.get("type_id", "meeting"))
        offer(mecha, (start, end), type_id=kw.get("type_id", "meeting"))
    values = {"purpose": "a chat", "_slot_start": start, "_slot_end": end,
              "_duration_minutes": 45, "_booking_id": booking_id, "_manage_url": MANAGE}
    fields = dict(values=values, reply_to="Ada Lovelace <ada@example.org>")
    fields.update(kw)
    return mecha.write_record(seq, **fields)


def cancellation(mecha, seq=2, booking_id=BOOKING, when=None):
    start, end = when or slot()
    return mecha.write_record(seq, values={"_booking_id": booking_id, "_cancelled": True,
                                           "_slot_start": start, "_slot_end": end})


def events(cal):
    return sorted(p for p in cal.iterdir() if p.suffix == ".ics")


def unfold(text):
    """iCalendar content lines, unfolded: {NAME: [(params, value), ...]}."""
    lines = text.replace("\r\n", "\n").replace("\n ", "").replace("\n\t", "").splitlines()
    props = {}
    for line in lines:
        head, _, value = line.partition(":")
        name, _, params = head.partition(";")
        props.setdefault(name.upper(), []).append((params, value))
    return props


def one(props, name):
    [(_, value)] = props[name]
    return value


def calendar_part(msg):
    assert msg.get_content_type() == "multipart/alternative"
    parts = {p.get_content_type(): p for p in msg.iter_parts()}
    assert set(parts) == {"text/plain", "text/calendar"}
    return parts["text/plain"].get_content(), parts["text/calendar"]


def ledger(mecha):
    path = mecha.requests / "bookings.jsonl"
    return [json.loads(line) for line in path.read_text().splitlines()] if path.exists() else []


def sweep(mecha, *args, check=0, **kw):
    return mecha.run("frontdoor", "sweep", *args, check=check, **kw)


# -- a booking --------------------------------------------------------------------
def test_a_booking_in_a_free_slot_becomes_an_event_an_invitation_and_booked(mecha, smtp_sink):
    cal = configure(mecha, smtp_sink)
    start, end = slot()
    booking(mecha, when=(start, end))
    p = sweep(mecha, "-v")
    uid = f"booking-{BOOKING}@mecha"
    assert p.out.split()[:2] == ["booked", "1"] and uid in p.out

    record = mecha.read_record(1)
    assert record["state"] == "booked" and record["note"] == uid

    [path] = events(cal)
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    ev = unfold(path.read_text())
    assert one(ev, "UID") == uid
    assert one(ev, "DTSTART") == ics_time(start) and one(ev, "DTEND") == ics_time(end)
    [(params, attendee)] = ev["ATTENDEE"]
    assert attendee.lower() == "mailto:ada@example.org" and "RSVP=TRUE" in params
    assert one(ev, "ORGANIZER").lower() == "mailto:me@example.org"
    assert MANAGE in one(ev, "DESCRIPTION")

    [msg] = smtp_sink.messages()
    [envelope] = smtp_sink.envelopes()
    assert envelope["rcpt_tos"] == ["ada@example.org"]
    assert msg["To"] == "ada@example.org" and msg["From"] == "Me Myself <me@example.org>"
    assert msg["Message-ID"] == f"<booking-{BOOKING}-request@mecha>"
    text, part = calendar_part(msg)
    assert MANAGE in text
    assert part.get_param("method") == "REQUEST" and part.get_content_charset() == "utf-8"
    itip = unfold(part.get_content())
    assert one(itip, "METHOD") == "REQUEST"
    assert one(itip, "UID") == uid
    assert one(itip, "DTSTART") == ics_time(start) and one(itip, "DTEND") == ics_time(end)
    assert one(itip, "ATTENDEE").lower() == "mailto:ada@example.org"


def test_the_same_sweep_again_does_nothing_new(mecha, smtp_sink):
    cal = configure(mecha, smtp_sink)
    booking(mecha)
    sweep(mecha)
    record, event, lines = mecha.read_record(1), events(cal)[0].read_bytes(), ledger(mecha)
    p = sweep(mecha)
    assert p.out == ""
    out = mecha.json("frontdoor", "sweep", "--json")
    assert all(out[k] == [] for k in ("booked", "conflicts", "cancelled", "closed", "left",
                                      "failed"))
    assert mecha.read_record(1) == record
    assert events(cal)[0].read_bytes() == event and ledger(mecha) == lines
    assert len(smtp_sink.raw()) == 1


def test_a_busy_slot_is_a_conflict_and_books_nothing(mecha, smtp_sink):
    cal = configure(mecha, smtp_sink)
    start, end = slot(minutes=45)
    # Hand-written (RFC 5545): busy from half an hour into the slot.
    busy_from = (datetime.datetime.strptime(start, "%Y-%m-%dT%H:%M:%SZ") +
                 datetime.timedelta(minutes=30)).strftime("%Y%m%dT%H%M%SZ")
    (cal / "dentist.ics").write_text(
        "BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//test//EN\r\nBEGIN:VEVENT\r\n"
        "UID:dentist-1\r\nDTSTAMP:20260801T000000Z\r\nSUMMARY:Dentist\r\n"
        f"DTSTART:{busy_from}\r\nDURATION:PT1H\r\nEND:VEVENT\r\nEND:VCALENDAR\r\n")
    path = booking(mecha, when=(start, end))
    before = path.read_bytes()
    p = sweep(mecha, check=3)  # a booking not made: the sweep says so in its status too
    assert p.out.startswith("CONFLICT") and " 1 " in p.out
    assert p.out.splitlines()[-1] == "1 CONFLICT"
    assert path.read_bytes() == before
    assert [e.name for e in events(cal)] == ["dentist.ics"]
    assert smtp_sink.raw() == []
    assert not [x for x in ledger(mecha) if x["step"] in ("event", "booked")]
    out = json.loads(sweep(mecha, "--json", check=3).out)
    assert [c["seq"] for c in out["conflicts"]] == [1] and out["booked"] == []


def test_dry_run_writes_nothing(mecha, smtp_sink):
    cal = configure(mecha, smtp_sink)
    booking(mecha, 1)
    cancellation(mecha, 3, booking_id="aaaa")
    booking(mecha, 4, booking_id="aaaa")

    def tree():
        return {str(p.relative_to(mecha.tmp)): (p.stat().st_mode, p.read_bytes() if p.is_file()
                                                 else None)
                for p in sorted(mecha.tmp.rglob("*")) if "smtp-received" not in p.parts}

    before = tree()
    p = sweep(mecha, "--dry-run")
    assert "would book" in p.out and "would cancel" in p.out and "would close" in p.out
    out = mecha.json("frontdoor", "sweep", "--dry-run", "--json")
    assert out["dry_run"] is True and [b["seq"] for b in out["booked"]] == [1]
    assert tree() == before
    assert smtp_sink.raw() == [] and events(cal) == []


def test_a_slot_that_is_over_is_left_for_a_person(mecha, smtp_sink):
    configure(mecha, smtp_sink)
    path = booking(mecha, when=slot(days=-2))
    before = path.read_bytes()
    p = sweep(mecha, check=3)
    assert p.out.startswith("left") and "over" in p.out
    assert path.read_bytes() == before and smtp_sink.raw() == []


@pytest.mark.parametrize("change, why", [
    ({"reply_to": None}, "reply_to"),
    ({"values": {"_booking_id": "b/../x", "_slot_start": "2030-01-01T09:00:00Z",
                 "_slot_end": "2030-01-01T10:00:00Z"}}, "_booking_id"),
    ({"values": {"_booking_id": "b1", "_slot_start": "next tuesday",
                 "_slot_end": "2030-01-01T10:00:00Z"}}, "RFC 3339"),
    ({"values": {"_booking_id": "b1", "_slot_start": "2030-01-01T09:00:00Z",
                 "_slot_end": "2030-01-01T10:00:00Z", "_manage_url": "javascript:alert(1)"}},
     "_manage_url"),
    ({"valid": False}, "validate"),
])
def test_a_booking_the_sweep_cannot_read_is_left_unchanged(mecha, smtp_sink, change, why):
    cal = configure(mecha, smtp_sink)
    fields = {k: v for k, v in change.items() if v is not None}
    path = booking(mecha, **fields)
    if change.get("reply_to", "") is None:
        rec = json.loads(path.read_text())
        del rec["reply_to"]
        path.write_text(json.dumps(rec))
    before = path.read_bytes()
    p = sweep(mecha, check=3)
    assert p.out.startswith("left") and why in p.out, p.out
    assert path.read_bytes() == before and events(cal) == [] and smtp_sink.raw() == []


def test_a_mail_failure_is_retried_by_the_next_sweep_without_a_second_event(mecha, smtp_sink):
    cal = configure(mecha, smtp_sink)
    booking(mecha)
    smtp_sink.mode = "refuse"
    p = sweep(mecha, check=1)
    assert p.out.startswith("failed") and "554" in p.out
    assert mecha.read_record(1)["state"] == "drained"
    smtp_sink.mode = "accept"
    sweep(mecha)
    assert mecha.read_record(1)["state"] == "booked"
    assert len(events(cal)) == 1 and len(smtp_sink.raw()) == 1


# -- cancellations -----------------------------------------------------------------
def test_a_booking_and_its_cancellation_in_one_sweep_book_nothing_and_close_both(
        mecha, smtp_sink):
    cal = configure(mecha, smtp_sink)
    booking(mecha, 1)
    cancellation(mecha, 2)
    p = sweep(mecha)
    assert "cancelled" in p.out and "booked" not in p.out
    for seq in (1, 2):
        rec = mecha.read_record(seq)
        assert rec["state"] == "closed" and rec["note"] == "cancelled by the requester"
    assert events(cal) == [] and smtp_sink.raw() == []
    assert sweep(mecha).out == ""


def test_a_cancellation_after_the_event_removes_it_and_mails_a_cancel(mecha, smtp_sink):
    cal = configure(mecha, smtp_sink)
    start, end = slot()
    booking(mecha, 1, when=(start, end))
    sweep(mecha)
    assert len(events(cal)) == 1
    cancellation(mecha, 2, when=(start, end))
    p = sweep(mecha, "-v")
    assert p.out.startswith("cancelled") and "booking 1" in p.out
    assert events(cal) == []
    for seq in (1, 2):
        rec = mecha.read_record(seq)
        assert rec["state"] == "closed" and rec["note"] == "cancelled by the requester"
    invite, cancel = smtp_sink.messages()
    assert cancel["Message-ID"] == f"<booking-{BOOKING}-cancel@mecha>"
    _, part = calendar_part(cancel)
    assert part.get_param("method") == "CANCEL"
    itip = unfold(part.get_content())
    assert one(itip, "METHOD") == "CANCEL" and one(itip, "STATUS") == "CANCELLED"
    assert one(itip, "UID") == f"booking-{BOOKING}@mecha"
    assert one(itip, "DTSTART") == ics_time(start)
    assert int(one(itip, "SEQUENCE")) > int(one(unfold(calendar_part(invite)[1].get_content()),
                                               "SEQUENCE"))
    assert sweep(mecha).out == "" and len(smtp_sink.raw()) == 2


# -- what the invitation says ---------------------------------------------------
BERLIN = zoneinfo.ZoneInfo("Europe/Berlin")
MEETING_TYPE = anytime_type("Europe/Berlin")


def clocks_go_back():
    """The next last Sunday of October (Berlin leaves summer time at 01:00 UTC) a few days ahead."""
    today = datetime.datetime.now(datetime.timezone.utc).date() + datetime.timedelta(days=3)
    for year in (today.year, today.year + 1):
        day = datetime.date(year, 10, 31)
        day -= datetime.timedelta(days=(day.weekday() + 1) % 7)
        if day > today:
            return day
    raise AssertionError("no October ahead")


def berlin(rfc3339):
    """The instant as a clock in Berlin reads it (Python's own zone data, not ours)."""
    t = datetime.datetime.strptime(rfc3339, "%Y-%m-%dT%H:%M:%SZ").replace(
        tzinfo=datetime.timezone.utc).astimezone(BERLIN)
    return t.strftime("%A %d %B %Y"), t.strftime("%H:%M")


def test_the_invitation_tells_the_time_in_the_booking_types_zone_on_both_sides_of_the_clock_change(
        mecha, smtp_sink):
    cal = configure(mecha, smtp_sink)
    (mecha.home / "factory" / "types").mkdir(parents=True, exist_ok=True)
    (mecha.home / "factory" / "types" / "meeting.toml").write_text(MEETING_TYPE)
    sunday = clocks_go_back()
    summer = utc_slot(sunday - datetime.timedelta(days=1), 12)  # 14:00 CEST
    winter = utc_slot(sunday, 12)                               # 13:00 CET
    twice = utc_slot(sunday, 0, 30)                             # 02:30 CEST – 02:15 CET
    for seq, when in ((1, summer), (2, winter), (3, twice)):
        booking(mecha, seq, booking_id=f"{BOOKING[:-1]}{seq}", when=when)
    assert sweep(mecha).out == "3 booked\n"

    who = "Book a consultation (booked by ada@example.org)"
    mails = smtp_sink.messages()
    assert len(mails) == 3
    for msg, (start, end) in zip(mails, (summer, winter)):
        day, begin = berlin(start)
        when = f"{day}, {begin}\u2013{berlin(end)[1]} Europe/Berlin"
        assert msg["Subject"] == f"Invitation: {who} \u2014 {when}"
        text, part = calendar_part(msg)
        assert f"You are invited: {who}\n\nWhen: {when}\n" in text
        itip = unfold(part.get_content())
        assert one(itip, "SUMMARY") == who
        assert one(itip, "DTSTART") == ics_time(start) and one(itip, "DTEND") == ics_time(end)
    assert berlin(summer[0])[1] == "14:00" and berlin(winter[0])[1] == "13:00"
    assert f"{berlin(twice[0])[0]}, 02:30 (UTC+02:00)\u201302:15 (UTC+01:00) Europe/Berlin" \
        in mails[2]["Subject"]
    assert {one(unfold(p.read_text()), "SUMMARY") for p in events(cal)} == {who}


def test_the_cancel_tells_the_time_as_the_invitation_did(mecha, smtp_sink):
    configure(mecha, smtp_sink)
    (mecha.home / "factory" / "types").mkdir(parents=True, exist_ok=True)
    (mecha.home / "factory" / "types" / "meeting.toml").write_text(MEETING_TYPE)
    when = utc_slot(clocks_go_back(), 12)
    booking(mecha, 1, when=when)
    sweep(mecha)
    # The owner changes the type afterwards: the withdrawal still says what the invitation said.
    (mecha.home / "factory" / "types" / "meeting.toml").write_text(
        MEETING_TYPE.replace("Europe/Berlin", "America/New_York").replace(
            "Book a consultation", "Something else"))
    cancellation(mecha, 2, when=when)
    sweep(mecha)
    invite, cancel = smtp_sink.messages()
    assert invite["Subject"].startswith("Invitation: Book a consultation (booked by")
    assert cancel["Subject"] == invite["Subject"].replace("Invitation:", "Cancelled:", 1)
    assert "13:00\u201313:45 Europe/Berlin is cancelled." in calendar_part(cancel)[0]


def test_a_cancellation_arriving_before_its_booking_closes_the_booking_later(
        mecha, smtp_sink):
    cal = configure(mecha, smtp_sink)
    cancellation(mecha, 1)
    sweep(mecha)
    assert mecha.read_record(1)["state"] == "closed"
    booking(mecha, 2)
    p = sweep(mecha, "-v")
    assert p.out.startswith("closed")
    assert mecha.read_record(2)["state"] == "closed" and events(cal) == []
    assert smtp_sink.raw() == []


# -- killed at every side effect ------------------------------------------------------
BOOKING_POINTS = ["event", "event-written", "invite", "invite-sent", "booked"]
CANCEL_POINTS = ["remove", "removed", "cancel-mail", "cancel-mail-sent", "closed"]


@pytest.mark.parametrize("point", BOOKING_POINTS)
def test_a_sweep_killed_at_a_booking_step_then_rerun_books_exactly_once(
        mecha, smtp_sink, point):
    cal = configure(mecha, smtp_sink)
    booking(mecha)
    p = sweep(mecha, check=None, env={"MECHA_TEST_KILL_AT": point})
    assert p.returncode == -9, f"the sweep was not killed at {point}: {p.returncode} {p.err}"
    p = sweep(mecha)
    assert mecha.read_record(1)["state"] == "booked"
    assert len(events(cal)) == 1
    assert smtp_sink.wait_for(1)
    assert [m["Message-ID"] for m in smtp_sink.messages()] == [
        f"<booking-{BOOKING}-request@mecha>"]
    if point == "invite-sent":
        assert "check that it arrived" in p.out
    assert sweep(mecha).out == "" and len(smtp_sink.raw()) == 1


@pytest.mark.parametrize("point", CANCEL_POINTS)
def test_a_sweep_killed_at_a_cancellation_step_then_rerun_withdraws_exactly_once(
        mecha, smtp_sink, point):
    cal = configure(mecha, smtp_sink)
    booking(mecha, 1)
    sweep(mecha)
    cancellation(mecha, 2)
    p = sweep(mecha, check=None, env={"MECHA_TEST_KILL_AT": point})
    assert p.returncode == -9, f"the sweep was not killed at {point}: {p.returncode} {p.err}"
    sweep(mecha)
    assert events(cal) == []
    assert [mecha.read_record(s)["state"] for s in (1, 2)] == ["closed", "closed"]
    ids = [m["Message-ID"] for m in smtp_sink.messages()]
    assert ids == [f"<booking-{BOOKING}-request@mecha>", f"<booking-{BOOKING}-cancel@mecha>"]


@pytest.mark.parametrize("point", CANCEL_POINTS)
def test_a_sweep_killed_while_withdrawing_never_leaves_a_booked_request_without_its_event(
        mecha, smtp_sink, point):
    """Found by the crash rounds (tests/crash): a withdrawal killed after the event
    was removed left the booking's request saying booked."""
    cal = configure(mecha, smtp_sink)
    booking(mecha, 1)
    sweep(mecha)
    cancellation(mecha, 2)
    p = sweep(mecha, check=None, env={"MECHA_TEST_KILL_AT": point})
    assert p.returncode == -9, f"the sweep was not killed at {point}: {p.returncode} {p.err}"
    state = mecha.read_record(1)["state"]
    assert state != "booked" or len(events(cal)) == 1, f"booked without its event at {point}"
    assert mecha.read_record(2)["state"] != "closed", "the cancellation closed before the end"


def test_a_ledger_line_that_does_not_read_stops_the_sweep_before_anything(mecha, smtp_sink):
    cal = configure(mecha, smtp_sink)
    booking(mecha)
    mecha.requests.mkdir(exist_ok=True)
    (mecha.requests / "bookings.jsonl").write_text('{"booking_id": "x"}\n')
    p = sweep(mecha, check=1)
    assert "bookings.jsonl" in p.err and "line 1" in p.err
    assert mecha.read_record(1)["state"] == "drained" and events(cal) == []


def test_an_unfinished_last_ledger_line_is_cut_and_the_sweep_goes_on(mecha, smtp_sink):
    configure(mecha, smtp_sink)
    booking(mecha)
    mecha.requests.mkdir(exist_ok=True)
    (mecha.requests / "bookings.jsonl").write_text('{"booking_id": "x", "st')
    sweep(mecha)
    assert mecha.read_record(1)["state"] == "booked"
    assert all(line["booking_id"] == BOOKING for line in ledger(mecha))


# -- what the sweep keeps away from a model ---------------------------------------------
def test_bookings_and_cancellations_never_reach_next_or_triage(mecha, model_server):
    write_config(mecha, model_server.config_toml() + '[outbox]\ntools = ["mail_send"]\n')
    extraction = {"reading": "", "topic": "a chat", "urgency_claimed": "", "dates_mentioned": [],
                  "institution": "", "reads_like_instructions": False}
    booking(mecha, 1, state="extracted", extraction=extraction)
    cancellation(mecha, 2)
    mecha.install_type("letter")  # an ordinary type the home has (the meeting here books)
    mecha.write_record(3, type_id="letter", state="extracted", extraction=extraction,
                       values={"relationship": "student", "_source": "machinery"})
    briefs = mecha.json("frontdoor", "next")
    assert [b["seq"] for b in briefs] == [3]
    assert briefs[0]["fields"] == {"relationship": "student"}, "a `_` key crossed the boundary"
    p = mecha.run("frontdoor", "triage", "--seq", "1", check=3)
    assert "sweep" in p.err
    mecha.write_record(3, type_id="letter", state="closed")  # nothing else to triage
    mecha.run("frontdoor", "triage", check=0)
    assert model_server.requests() == [], "a model was asked about a booking"
    p = mecha.run("frontdoor", "extract", "--seq", "2", check=3)
    assert "sweep" in p.err


def test_list_shows_a_booked_request_with_its_slot(mecha, smtp_sink):
    configure(mecha, smtp_sink)
    start, end = slot()
    booking(mecha, when=(start, end))
    sweep(mecha)
    line = mecha.run("frontdoor", "list", check=0).out.splitlines()[0]
    assert "booked" in line and start in line and end in line
    [row] = mecha.json("frontdoor", "list", "--json")
    assert row["state"] == "booked" and row["slot"] == {"start": start, "end": end}
    assert row["note"] == f"booking-{BOOKING}@mecha"


def test_sweep_explains_itself_and_refuses_arguments(mecha):
    assert "--dry-run" in mecha.run("frontdoor", "sweep", "--help", check=0).out
    assert mecha.run("frontdoor", "sweep", "7").returncode == 2
    assert mecha.run("frontdoor", "sweep", "--bogus").returncode == 2


def test_a_sweep_with_no_bookings_creates_nothing(mecha):
    mecha.write_record(1)
    before = sorted(os.listdir(mecha.requests))
    assert sweep(mecha).out == ""
    assert sorted(os.listdir(mecha.requests)) == before
    assert not pathlib.Path(mecha.requests / "bookings.jsonl").exists()


def test_an_invitation_the_server_took_but_never_confirmed_is_not_sent_again(mecha, smtp_sink):
    cal = configure(mecha, smtp_sink)
    booking(mecha)
    smtp_sink.mode = "close"  # the body arrives, then the connection drops: no 250
    p = sweep(mecha)
    assert p.out.startswith("booked") and "never confirmed" in p.out
    assert mecha.read_record(1)["state"] == "booked" and len(events(cal)) == 1
    assert [x["phase"] for x in ledger(mecha) if x["step"] == "invite"] == ["intent",
                                                                          "unconfirmed"]
    smtp_sink.mode = "accept"
    assert sweep(mecha).out == "" and smtp_sink.raw() == []


def test_the_mcp_tools_neither_show_nor_draft_for_a_booking(mecha):
    from test_mcp import call, serve

    write_config(mecha, '[outbox]\ntools = ["mail_send"]\n')
    extraction = {"reading": "", "topic": "a chat", "urgency_claimed": "", "dates_mentioned": [],
                  "institution": "", "reads_like_instructions": False}
    booking(mecha, 1, state="extracted", extraction=extraction)
    answers, p = serve(mecha, call(1, "frontdoor_next"),
                       call(2, "draft_reply", {"seq": 1, "subject": "Re: your booking",
                                               "body": "See you then."}))
    assert p.returncode == 0, p.err
    assert json.loads(answers[0]["result"]["content"][0]["text"]) == []
    refused = answers[1]["result"]
    assert refused["isError"] is True
    assert refused["structuredContent"]["error"] == "booking"
    assert mecha.read_record(1)["state"] == "extracted"
    assert not (mecha.home / "outbox").exists() or not list((mecha.home / "outbox").iterdir())


# -- only what home offered (issue 22) ----------------------------------------------
def sunday_night():
    """The forged slot of the issue: a Sunday 03:00-11:00 UTC, a few weeks ahead."""
    day = datetime.datetime.now(datetime.timezone.utc).date() + datetime.timedelta(days=14)
    day += datetime.timedelta(days=(6 - day.weekday()) % 7)
    return utc_slot(day, 3, minutes=480)


def forged(mecha, when, seq=1, type_id="meeting", manage=MANAGE, minutes=480):
    return booking(mecha, seq, when=when, offered=False, type_id=type_id,
                   values={"purpose": "x", "_slot_start": when[0], "_slot_end": when[1],
                           "_duration_minutes": minutes, "_booking_id": BOOKING,
                           "_manage_url": manage})


def nothing_happened(mecha, smtp_sink, cal, path, before):
    assert path.read_bytes() == before, "the record moved"
    assert events(cal) == [] and smtp_sink.raw() == []
    assert [x for x in ledger(mecha) if x["step"] == "event"] == []


REQUEST_TYPE = """id = "meeting"
version = 1
title = "Ask for a meeting"

[[fields]]
name = "purpose"
label = "Purpose"
kind = "text"
required = true
"""


@pytest.mark.parametrize("installed", ["a request type", "no type at all"])
def test_the_attack_a_forged_sunday_night_booking_on_a_request_type_books_and_mails_nothing(
        mecha, smtp_sink, installed):
    cal = configure(mecha, smtp_sink)
    if installed == "a request type":
        install_type(mecha, REQUEST_TYPE)
    when = sunday_night()
    path = forged(mecha, when, manage="https://evil.example.net/s/me/meeting/m/" + "a" * 32)
    before = path.read_bytes()
    p = sweep(mecha, check=3)
    assert p.out.startswith("left") and "not_a_booking_type" in p.out
    assert "1 left for you" in p.out
    nothing_happened(mecha, smtp_sink, cal, path, before)
    out = json.loads(sweep(mecha, "--json", check=3).out)
    [left] = out["left"]
    assert left["reason"] == "not_a_booking_type" and left["seq"] == 1
    nothing_happened(mecha, smtp_sink, cal, path, before)


def test_a_booking_type_never_books_a_slot_its_availability_does_not_offer(mecha, smtp_sink):
    cal = configure(mecha, smtp_sink)
    # Mondays 09:00-17:00 UTC, 30 or 60 minutes: a Sunday night of 8 hours fits nothing,
    # even when the list home keeps were to name it.
    install_type(mecha, CONSULT.replace('id = "consult"', 'id = "meeting"'))
    when = sunday_night()
    offer(mecha, when)
    path = forged(mecha, when)
    before = path.read_bytes()
    out = json.loads(sweep(mecha, "--json", check=3).out)
    [left] = out["left"]
    assert left["reason"] == "not_offered" and "[availability]" in left["message"]
    nothing_happened(mecha, smtp_sink, cal, path, before)


def next_monday(hour, minutes=30):
    day = datetime.datetime.now(datetime.timezone.utc).date() + datetime.timedelta(days=8)
    day += datetime.timedelta(days=(0 - day.weekday()) % 7)
    return utc_slot(day, hour, minutes=minutes)


def test_a_slot_that_fits_but_was_never_pushed_is_not_offered(mecha, smtp_sink):
    cal = configure(mecha, smtp_sink)
    install_type(mecha, CONSULT.replace('id = "consult"', 'id = "meeting"'))
    when = next_monday(10)
    path = forged(mecha, when, minutes=30)
    before = path.read_bytes()
    p = sweep(mecha, check=3)
    assert "not_offered" in p.out and "never offered" in p.out
    nothing_happened(mecha, smtp_sink, cal, path, before)
    # Pushed, but another time: still not offered.
    offer(mecha, next_monday(11))
    p = sweep(mecha, check=3)
    assert "not_offered" in p.out and "last offered" in p.out
    nothing_happened(mecha, smtp_sink, cal, path, before)
    # Offered: booked.
    offer(mecha, when)
    assert sweep(mecha).out == "1 booked\n"
    assert len(events(cal)) == 1


def test_a_slot_the_last_push_withdrew_because_the_calendar_filled_is_a_conflict(
        mecha, smtp_sink):
    cal = configure(mecha, smtp_sink)
    install_type(mecha, CONSULT.replace('id = "consult"', 'id = "meeting"'))
    when = next_monday(10)
    offer(mecha, next_monday(14))  # the last push left 10:00 out: the calendar has it
    (cal / "busy.ics").write_text(
        "BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//t//t//EN\r\nBEGIN:VEVENT\r\n"
        f"UID:busy@t\r\nDTSTAMP:20260101T000000Z\r\nDTSTART:{ics_time(when[0])}\r\n"
        f"DTEND:{ics_time(when[1])}\r\nSUMMARY:dentist\r\nEND:VEVENT\r\nEND:VCALENDAR\r\n")
    path = forged(mecha, when, minutes=30)
    before = path.read_bytes()
    p = sweep(mecha, check=3)
    assert p.out.startswith("CONFLICT") and "withdrew" in p.out
    assert path.read_bytes() == before and smtp_sink.raw() == []
    assert [e.name for e in events(cal)] == ["busy.ics"]


def test_a_slot_offered_before_the_owner_narrowed_the_windows_is_not_offered(mecha, smtp_sink):
    cal = configure(mecha, smtp_sink)
    install_type(mecha)
    when = slot(hour=9)
    path = booking(mecha, when=when)
    before = path.read_bytes()
    install_type(mecha, anytime_type().replace('"00:00", end = "23:59"', '"12:00", end = "17:00"'))
    p = sweep(mecha, check=3)
    assert "not_offered" in p.out and "[availability]" in p.out
    nothing_happened(mecha, smtp_sink, cal, path, before)


def test_the_types_buffer_keeps_a_booking_off_the_edge_of_a_meeting(mecha, smtp_sink):
    cal = configure(mecha, smtp_sink)
    install_type(mecha, anytime_type(buffer=15))
    start, end = slot(hour=9)
    busy_end = start.replace("T09:00", "T08:50")
    (cal / "busy.ics").write_text(
        "BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//t//t//EN\r\nBEGIN:VEVENT\r\n"
        f"UID:busy@t\r\nDTSTAMP:20260101T000000Z\r\nDTSTART:{ics_time(start.replace('T09:00', 'T08:00'))}"
        f"\r\nDTEND:{ics_time(busy_end)}\r\nSUMMARY:dentist\r\nEND:VEVENT\r\nEND:VCALENDAR\r\n")
    booking(mecha, when=(start, end))
    p = sweep(mecha, check=3)
    assert p.out.startswith("CONFLICT")
    assert smtp_sink.raw() == []


@pytest.mark.parametrize("link", [
    "https://evil.example.net/s/me/meeting/m/9f8e7d6c5b4a39281706f5e4d3c2b1a0",
    "https://gate.example.org/s/me/other/m/9f8e7d6c5b4a39281706f5e4d3c2b1a0",
    "https://gate.example.org/s/me/meeting/m/9f8e7d6c5b4a39281706f5e4d3c2b1a0/../x",
    "https://gate.example.org.evil.net/s/me/meeting/m/9f8e7d6c5b4a39281706f5e4d3c2b1a0",
    "https://gate.example.org/login?next=/s/me/meeting/m/9f8e7d6c5b4a39281706f5e4d3c2b1a0",
])
def test_a_manage_link_off_the_gate_is_left_out_of_the_invitation_and_the_line_says_so(
        mecha, smtp_sink, link):
    cal = configure(mecha, smtp_sink)
    when = slot()
    booking(mecha, when=when)
    rec = mecha.read_record(1)
    rec["values"]["_manage_url"] = link
    mecha.write_record(1, **{k: v for k, v in rec.items() if k != "seq"})
    p = sweep(mecha, check=0)
    assert p.out.startswith("booked") and "bad_manage_url" in p.out and "left out" in p.out
    [ev] = events(cal)
    assert link not in ev.read_text() and "evil" not in ev.read_text()
    [msg] = smtp_sink.messages()
    text, part = calendar_part(msg)
    assert link not in text and link not in part.get_content()
    assert mecha.read_record(1)["state"] == "booked"


def test_a_manage_link_on_the_gate_goes_out(mecha, smtp_sink):
    configure(mecha, smtp_sink)
    booking(mecha)
    p = sweep(mecha, "-v")
    assert "bad_manage_url" not in p.out
    [msg] = smtp_sink.messages()
    assert MANAGE in calendar_part(msg)[0]


def test_without_a_gate_the_manage_link_is_left_out(mecha, smtp_sink):
    configure(mecha, smtp_sink)
    booking(mecha)
    (mecha.home / "factory" / "config.toml").unlink()
    p = sweep(mecha)
    assert "bad_manage_url" in p.out and "no gate" in p.out
    [msg] = smtp_sink.messages()
    assert MANAGE not in calendar_part(msg)[0]
