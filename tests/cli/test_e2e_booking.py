"""The whole booking loop with nothing but mecha on both ends (issue 16): a
real `mecha box serve` on loopback, the owner's home paired with it, and one
loopback SMTP sink that stands for both mailboxes — the stranger's (the box's
verification mail, the owner's invitation and its cancel) and the world's.

The owner publishes a booking type and its slots; a stranger holds a time,
confirms it through the link in the mail; the drain brings the booking home,
extract leaves it to the sweep, and the sweep books it into the calendar and
invites the stranger. The stranger cancels through the manage link the
invitation carries; the next drain and sweep withdraw the event and mail the
cancel; the next slots push offers the time again. Each step asserts what a
person sees: the pages, the mails, the verbs' output, the calendar."""
import json
from datetime import datetime, timezone

import pytest

from box_fixture import Box
from box_visit import offered, path_of, slot_value, utc, visit
from test_box_bookings import CONSULT as BOX_CONSULT
from test_drain import connect, queued
from test_sweep import calendar_part, configure, events, ics_time, one, unfold

# The booking type of the box's own tests, with a time open every Berlin morning:
# the first of them is always a day or more ahead, outside the cancellation cutoff.
EVERY_MORNING = "".join(f'  {{ day = "{d}", start = "09:00", end = "09:30" }},\n'
                        for d in ("mon", "tue", "wed", "thu", "fri", "sat", "sun"))
CONSULT = (BOX_CONSULT.split("[availability]")[0] + "[availability]\n"
           'timezone = "Europe/Berlin"\ndurations = [30]\nmin_notice_hours = 24\nhorizon_days = 4\n'
           f"per_day_cap = 1\nwindows = [\n{EVERY_MORNING}]\n\n[policy]"
           + BOX_CONSULT.split("[policy]")[1])

STRANGER = "booker@example.net"


@pytest.fixture
def box(tmp_path, smtp_sink):
    b = Box(tmp_path, extra=f'[mail]\nsmtp_url = "{smtp_sink.url}"\n'
                            'from = "Ada\'s box <box@example.org>"').start()
    yield b
    b.stop()


@pytest.fixture
def owner(mecha, box, smtp_sink):
    """The owner's home: paired with the box, the booking type, a vdir calendar
    and mail through the sink."""
    connect(mecha, box)
    (mecha.home / "factory" / "types" / "consult.toml").write_text(CONSULT)
    mecha.calendar = configure(mecha, smtp_sink)
    return mecha


def push(mecha):
    """`mecha slots push`; returns the slots it pushed, as `slots show` computes them."""
    now = utc(datetime.now(timezone.utc))  # one clock for both, so they agree
    shown = mecha.json("slots", "show", "consult", "--from", now, "--json")["slots"]
    out = mecha.json("slots", "push", "consult", "--from", now, "--json")
    assert out["slots"] == len(shown) and out["answer"]["stored"] == len(shown)
    return shown


def drain_home(mecha):
    report = mecha.json("drain", "--json")
    assert report["written"] == report["acknowledged"] == 1 and report["invalid"] == 0, report
    return report


def mails_to(smtp_sink, address, count):
    assert smtp_sink.wait_for(count)
    got = [m for m, env in zip(smtp_sink.messages(), smtp_sink.envelopes())
           if env["rcpt_tos"] == [address]]
    assert len(got) == count, [m["Subject"] for m in got]
    return got


def link_in(text, marker):
    [link] = [w for line in text.splitlines() for w in line.split() if marker in w]
    return link


def test_a_strangers_booking_goes_home_into_the_calendar_and_its_cancel_withdraws_it(
        owner, box, smtp_sink):
    mecha = owner
    # The owner publishes: the form goes live, then the times the calendar leaves open.
    assert visit(box, "GET", "/s/ada/consult")[0] == 404
    assert mecha.json("types", "push", "consult", "--json")["id"] == "consult"
    week = push(mecha)
    assert len(week) >= 2 and offered(box) == week
    chosen = week[0]

    # A stranger picks the first time and holds it; the box mails the link.
    status, _, page = visit(box, "GET", "/s/ada/consult")
    assert status == 200 and f'value="{slot_value(chosen)}"' in page
    status, _, page = visit(box, "POST", "/s/ada/consult",
                            fields={"_slot": slot_value(chosen), "email": STRANGER,
                                    "topic": "compilers"})
    assert status == 200 and "Almost there" in page and STRANGER in page
    assert chosen not in offered(box)
    [verify] = mails_to(smtp_sink, STRANGER, 1)
    link = link_in(verify.get_content(), "/c/")
    assert link.startswith(f"http://127.0.0.1:{box.port}/s/ada/consult/c/")
    status, _, page = visit(box, "GET", path_of(link))
    assert status == 200 and "Confirm your booking" in page and queued(box) == []
    status, _, page = visit(box, "POST", path_of(link))
    assert status == 200 and "re booked</h1>" in page and "A calendar invitation follows" in page
    assert "9:00 am \u2013 9:30 am (Europe/Berlin)" in page

    # The drain brings the booking home; extract leaves it to the sweep.
    drain_home(mecha)
    assert queued(box) == []
    [name] = [p.name for p in mecha.requests.glob("*.json")]
    seq = int(name.split("-", 1)[0])
    rec = mecha.read_record(seq, "consult")
    assert rec["valid"] is True and rec["state"] == "drained" and rec["reply_to"] == STRANGER
    values = rec["values"]
    assert (values["_slot_start"], values["_slot_end"]) == (chosen["start"], chosen["end"])
    assert values["topic"] == "compilers"
    manage = values["_manage_url"]
    line = mecha.run("frontdoor", "list", check=0).out
    assert "drained" in line and f"{chosen['start']} → {chosen['end']}" in line
    assert mecha.run("frontdoor", "extract", check=0).out == "nothing to extract\n"
    assert mecha.read_record(seq, "consult")["state"] == "drained"
    assert mecha.json("frontdoor", "next") == [], "a booking reached a brief"

    # The sweep books it: an event in the calendar, an invitation to the stranger.
    p = mecha.run("frontdoor", "sweep", "-v", check=0)
    uid = f"booking-{values['_booking_id']}@mecha"
    assert p.out.startswith("booked") and uid in p.out
    [event] = events(mecha.calendar)
    ev = unfold(event.read_text())
    assert one(ev, "UID") == uid and one(ev, "DTSTART") == ics_time(chosen["start"])
    assert one(ev, "DTEND") == ics_time(chosen["end"])
    [_, invite] = mails_to(smtp_sink, STRANGER, 2)
    text, part = calendar_part(invite)
    assert part.get_param("method") == "REQUEST" and manage in text
    # The mail tells the time the page showed, in the type's zone, under the type's title.
    who = f"Book a consultation (booked by {STRANGER})"
    assert invite["Subject"].startswith(f"Invitation: {who} \u2014 ")
    assert invite["Subject"].endswith(", 09:00\u201309:30 Europe/Berlin")
    assert f"You are invited: {who}\n" in text
    [row] = mecha.json("frontdoor", "list", "--json")
    assert row["state"] == "booked" and row["slot"] == {"start": chosen["start"],
                                                       "end": chosen["end"]}
    assert chosen not in push(mecha), "the next push offered a booked time"
    assert chosen not in offered(box)

    # The stranger cancels through the link in the invitation.
    path = path_of(link_in(text, "/m/"))
    status, _, page = visit(box, "GET", path)
    assert status == 200 and "Cancel this booking" in page
    status, _, page = visit(box, "POST", path)
    assert status == 200 and "<h1>Cancelled</h1>" in page
    [cancel_row] = queued(box)
    assert json.loads(cancel_row["payload"])["_cancelled"] is True

    # The next drain brings the cancellation home, the next sweep withdraws the event.
    drain_home(mecha)
    assert queued(box) == []
    p = mecha.run("frontdoor", "sweep", "-v", check=0)
    assert p.out.startswith("cancelled") and f"booking {seq}" in p.out
    assert "\npushed " in p.out and " of consult to " in p.out and p.err == ""
    assert events(mecha.calendar) == []
    [_, _, cancel] = mails_to(smtp_sink, STRANGER, 3)
    _, part = calendar_part(cancel)
    itip = unfold(part.get_content())
    assert one(itip, "METHOD") == "CANCEL" and one(itip, "UID") == uid
    rows = mecha.json("frontdoor", "list", "--json")
    assert [(r["state"], r.get("note")) for r in rows] == [
        ("closed", "cancelled by the requester")] * 2
    assert mecha.run("frontdoor", "sweep", check=0).out == ""

    # The time is free again: the sweep that withdrew it pushed the slots (the calendar
    # changed), so the box offers it with no command; a push by hand offers it too.
    assert chosen in offered(box)
    assert chosen in push(mecha)
    assert chosen in offered(box)
    status, _, page = visit(box, "GET", "/s/ada/consult")
    assert f'value="{slot_value(chosen)}"' in page


def kept(mecha):
    """What home kept of its pushes (the list the sweep books from)."""
    import os
    import stat
    path = mecha.home / "factory" / "offered" / "consult.json"
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert stat.S_IMODE(os.stat(path.parent).st_mode) == 0o700
    return json.loads(path.read_text())


def test_slots_push_keeps_what_it_offered_and_the_sweep_books_only_that(owner, box, smtp_sink):
    from datetime import timedelta

    from test_sweep import booking, sunday_night, forged
    mecha = owner
    assert mecha.json("types", "push", "consult", "--json")["id"] == "consult"
    t0 = datetime.now(timezone.utc).replace(microsecond=0)
    mecha.json("slots", "push", "consult", "--from", utc(t0), "--dry-run", "--json")
    assert not (mecha.home / "factory" / "offered" / "consult.json").exists(), \
        "a dry run kept what it did not push"
    out = mecha.json("slots", "push", "consult", "--from", utc(t0), "--json")
    doc = kept(mecha)
    assert doc["type"] == "consult" and doc["pushed_at"] == utc(t0)
    week = [{k: s[k] for k in ("start", "end", "duration_minutes")} for s in doc["slots"]]
    assert len(week) == out["slots"] >= 2 and week == offered(box)
    assert {s["offered_at"] for s in doc["slots"]} == {utc(t0)}

    # A later push: the first morning is now inside the notice, so the box is no longer
    # offered it — but someone may have booked it meanwhile: home keeps it.
    first = datetime.strptime(week[0]["start"], "%Y-%m-%dT%H:%M:%SZ").replace(tzinfo=timezone.utc)
    t1 = first - timedelta(hours=24) + timedelta(minutes=1)
    mecha.json("slots", "push", "consult", "--from", utc(t1), "--json")
    doc = kept(mecha)
    assert week[0] not in offered(box)
    assert [s for s in doc["slots"] if s["start"] == week[0]["start"]] == [
        dict(week[0], offered_at=utc(t0))]
    assert doc["pushed_at"] == utc(t1)

    # The calendar fills over the second morning; the next push withdraws it.
    cal = mecha.calendar
    (cal / "busy.ics").write_text(
        "BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//t//t//EN\r\nBEGIN:VEVENT\r\n"
        f"UID:busy@t\r\nDTSTAMP:20260101T000000Z\r\nDTSTART:{ics_time(week[1]['start'])}\r\n"
        f"DTEND:{ics_time(week[1]['end'])}\r\nSUMMARY:dentist\r\nEND:VEVENT\r\nEND:VCALENDAR\r\n")
    mecha.json("slots", "push", "consult", "--from", utc(t1), "--json")
    assert week[1]["start"] not in [s["start"] for s in kept(mecha)["slots"]]

    # The sweep: the kept first morning books; the withdrawn one is a conflict; the
    # issue's forged Sunday night is not offered. Nothing but the first is mailed.
    booking(mecha, 1, booking_id="b1", when=(week[0]["start"], week[0]["end"]), offered=False,
            type_id="consult", reply_to=STRANGER,
            values={"email": STRANGER, "_slot_start": week[0]["start"],
                    "_slot_end": week[0]["end"], "_duration_minutes": 30, "_booking_id": "b1",
                    "_manage_url": f"http://127.0.0.1:{box.port}/s/ada/consult/m/{'0' * 32}"})
    booking(mecha, 2, booking_id="b2", when=(week[1]["start"], week[1]["end"]), offered=False,
            type_id="consult", reply_to=STRANGER,
            values={"email": STRANGER, "_slot_start": week[1]["start"],
                    "_slot_end": week[1]["end"], "_duration_minutes": 30, "_booking_id": "b2"})
    forged(mecha, sunday_night(), seq=3, type_id="consult")
    out = json.loads(mecha.run("frontdoor", "sweep", "--json", check=3).out)
    assert [b["seq"] for b in out["booked"]] == [1] and out["booked"][0]["message"] is None
    assert [c["seq"] for c in out["conflicts"]] == [2]
    assert [(x["seq"], x["reason"]) for x in out["left"]] == [(3, "not_offered")]
    [invite] = mails_to(smtp_sink, STRANGER, 1)
    assert f"http://127.0.0.1:{box.port}/s/ada/consult/m/{'0' * 32}" in calendar_part(invite)[0]
    assert [one(unfold(e.read_text()), "UID") for e in events(cal) if e.name != "busy.ics"] == [
        "booking-b1@mecha"]
