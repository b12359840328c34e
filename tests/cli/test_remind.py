"""Reminders from the sweep, black box, with the clock fixed (MECHA_NOW, test builds
only): each tier of a booking type's [policy] reminders is mailed to the booker once,
when the start is within the tier and still ahead — never for a tier the booking was
made inside, never after a cancel, never for a past booking — and a sweep killed on the
way neither skips nor repeats one.

Most bookings here are seeded as a sweep leaves them (the record booked, the ledger's
event, invitation and booked lines), so each test starts at the moment it pins."""
import datetime
import json

import pytest

from conftest import write_config
from test_box_bookings import CONSULT
from test_sweep import GATE, MANAGE, cancellation, ledger, sweep

BID = "5e1f00d5c0ffee00aa11bb22cc33dd44"
START = datetime.datetime(2031, 3, 10, 9, 0, tzinfo=datetime.timezone.utc)  # 10:00 in Berlin
END = START + datetime.timedelta(minutes=45)
H, M, S = datetime.timedelta(hours=1), datetime.timedelta(minutes=1), datetime.timedelta(seconds=1)
PLACE = "Room 2.14, Main Building (or https://meet.example.org/consult)"


def z(t):
    return t.strftime("%Y-%m-%dT%H:%M:%SZ")


def booking_type(mecha, reminders=None, location=PLACE):
    """The consult type as `meeting`, in Berlin, with a [policy] when asked."""
    text = (CONSULT.replace('id = "consult"', 'id = "meeting"')
            .replace('timezone = "UTC"', 'timezone = "Europe/Berlin"'))
    extra = ""
    if reminders is not None:
        extra += "reminders = [" + ", ".join(f'"{r}"' for r in reminders) + "]\n"
    if location:
        extra += f'location = "{location}"\n'
    assert text.count("[policy]\n") == 1
    text = text.replace("[policy]\n", "[policy]\n" + extra)
    (mecha.home / "factory" / "types").mkdir(parents=True, exist_ok=True)
    (mecha.home / "factory" / "types" / "meeting.toml").write_text(text)


def configure(mecha, smtp_sink):
    cal = mecha.tmp / "calendar"
    cal.mkdir(exist_ok=True)
    write_config(mecha, f'[mail]\nsmtp_url = "{smtp_sink.url}"\nfrom = "Me Myself <me@example.org>"\n'
                        f'[calendar]\npath = "{cal}"\ntimezone = "UTC"\n')
    return cal


def seed(mecha, seq=1, bid=BID, made=START - 3 * 24 * H, start=START, end=END,
         zone="Europe/Berlin"):
    """A booking as a sweep leaves it: booked, with its ledger lines."""
    uid = f"booking-{bid}@mecha"
    values = {"purpose": "a chat", "_slot_start": z(start), "_slot_end": z(end),
              "_duration_minutes": int((end - start).total_seconds() // 60),
              "_booking_id": bid, "_manage_url": MANAGE}
    mecha.write_record(seq, values=values, reply_to="Ada Lovelace <ada@example.org>",
                       state="booked", note=uid, created_at=z(made))
    at = z(made + M)
    lines = [dict(step="event", phase="intent", uid=uid, start=z(start), end=z(end),
                  attendee="ada@example.org", summary="Book a consultation (booked by "
                  "ada@example.org)", link=MANAGE, zone=zone),
             dict(step="event", phase="done"), dict(step="invite", phase="intent"),
             dict(step="invite", phase="done"), dict(step="booked", phase="done")]
    with open(mecha.requests / "bookings.jsonl", "a") as f:
        for x in lines:
            f.write(json.dumps({"at": at, "booking_id": bid, "seq": seq, **x}) + "\n")


def at(t):
    return {"MECHA_NOW": z(t)}


def sweep_at(mecha, t, *args, check=0):
    return sweep(mecha, *args, check=check, env=at(t))


def reminders(smtp_sink, bid=BID):
    return [m["Message-ID"] for m in smtp_sink.messages()
            if m["Message-ID"].startswith(f"<booking-{bid}-remind-")]


def mid(minutes, bid=BID):
    return f"<booking-{bid}-remind-{minutes}m@mecha>"


# -- the edges of a tier --------------------------------------------------------------
@pytest.mark.parametrize("now, sent", [
    (START - 24 * H - S, []),                # not yet inside the 24-hour tier
    (START - 24 * H, [mid(1440)]),           # its first second
    (START - H - S, [mid(1440)]),            # the last second before the 1-hour tier
    (START - H, [mid(60)]),                  # both due: only the nearer goes
    (START - S, [mid(60)]),                  # the last second before the start
    (START, []),                             # begun: too late for any
    (START + 10 * M, []),                    # past
], ids=["24h-1s", "24h", "1h-1s", "1h", "start-1s", "start", "past"])
def test_a_sweep_mails_the_tier_the_clock_is_in_and_no_other(mecha, smtp_sink, now, sent):
    configure(mecha, smtp_sink)
    booking_type(mecha)
    seed(mecha)
    p = sweep_at(mecha, now)
    assert reminders(smtp_sink) == sent, p.out
    assert p.out == ("1 reminded\n" if sent else "")


def test_each_tier_goes_once_in_its_turn(mecha, smtp_sink):
    configure(mecha, smtp_sink)
    booking_type(mecha)
    seed(mecha)
    for t in (START - 2 * 24 * H, START - 24 * H + 5 * M, START - 24 * H + 10 * M,
              START - 2 * H, START - H + 2 * M, START - H + 30 * M, START + H):
        sweep_at(mecha, t)
    assert reminders(smtp_sink) == [mid(1440), mid(60)]
    steps = [(x["step"], x["phase"]) for x in ledger(mecha) if x["step"].startswith("remind")]
    assert steps == [("remind_1440m", "intent"), ("remind_1440m", "done"),
                     ("remind_60m", "intent"), ("remind_60m", "done")]


def test_both_tiers_due_at_once_mail_the_nearer_and_skip_the_other_for_good(mecha, smtp_sink):
    configure(mecha, smtp_sink)
    booking_type(mecha)
    seed(mecha)
    sweep_at(mecha, START - 30 * M)
    sweep_at(mecha, START - 20 * M)
    assert reminders(smtp_sink) == [mid(60)]
    assert ("remind_1440m", "skipped") in [(x["step"], x["phase"]) for x in ledger(mecha)]


# -- a booking made inside a tier ----------------------------------------------------------
@pytest.mark.parametrize("made, sent", [
    (START - 3 * H, [mid(60)]),             # the example: the 1-hour one only
    (START - 24 * H, [mid(60)]),            # made on the 24-hour edge: already inside it
    (START - 24 * H - S, [mid(1440), mid(60)]),
    (START - H, []),                        # made on the 1-hour edge: none at all
    (START - 30 * M, []),
], ids=["3h", "24h", "24h+1s", "1h", "30m"])
def test_a_tier_the_booking_was_made_inside_is_never_mailed(mecha, smtp_sink, made, sent):
    configure(mecha, smtp_sink)
    booking_type(mecha)
    seed(mecha, made=made)
    for t in sorted({max(made, START - 24 * H), START - 2 * H, START - H, START - 5 * M}):
        sweep_at(mecha, t)
    assert reminders(smtp_sink) == sent


def test_the_types_own_tiers_are_honoured(mecha, smtp_sink):
    configure(mecha, smtp_sink)
    booking_type(mecha, reminders=["2d", "90m", "10m"])
    seed(mecha, made=START - 10 * 24 * H)
    for t in (START - 48 * H - S, START - 48 * H, START - 24 * H, START - 90 * M - S,
              START - 90 * M, START - 11 * M, START - 10 * M, START - M):
        sweep_at(mecha, t)
    assert reminders(smtp_sink) == [mid(2880), mid(90), mid(10)]


def test_without_a_reminders_key_the_tiers_are_24h_and_1h(mecha, smtp_sink):
    configure(mecha, smtp_sink)
    booking_type(mecha, location=None)
    seed(mecha)
    for t in (START - 24 * H, START - H):
        sweep_at(mecha, t)
    assert reminders(smtp_sink) == [mid(1440), mid(60)]


# -- what it says -----------------------------------------------------------------------
def test_the_reminder_tells_the_time_in_the_types_zone_the_place_and_the_manage_link(
        mecha, smtp_sink):
    configure(mecha, smtp_sink)
    booking_type(mecha)
    seed(mecha)
    p = sweep_at(mecha, START - H, "-v")
    assert p.out.startswith("reminded") and "1h before" in p.out and "ada@example.org" in p.out
    [msg] = smtp_sink.messages()
    [envelope] = smtp_sink.envelopes()
    assert envelope["rcpt_tos"] == ["ada@example.org"]
    assert msg["To"] == "ada@example.org" and msg["From"] == "Me Myself <me@example.org>"
    when = "Monday 10 March 2031, 10:00\u201310:45 Europe/Berlin"
    assert msg["Subject"] == f"Reminder: Book a consultation (booked by ada@example.org) \u2014 {when}"
    assert msg.get_content_type() == "text/plain"
    text = msg.get_content()
    assert f"When: {when}\n" in text
    assert f"Where: {PLACE}\n" in text
    assert f"To change or cancel it: {MANAGE}\n" in text


def test_a_booking_from_before_the_zone_was_recorded_uses_the_types_zone(mecha, smtp_sink):
    configure(mecha, smtp_sink)
    booking_type(mecha, location=None)
    seed(mecha, zone=None)
    # A ledger without the key at all (an older sweep) asks the type.
    path = mecha.requests / "bookings.jsonl"
    lines = [json.loads(x) for x in path.read_text().splitlines()]
    del lines[0]["zone"]
    path.write_text("".join(json.dumps(x) + "\n" for x in lines))
    sweep_at(mecha, START - H)
    [msg] = smtp_sink.messages()
    assert msg["Subject"].endswith("10:00\u201310:45 Europe/Berlin")
    assert "Where:" not in msg.get_content()


# -- never -----------------------------------------------------------------------------
def test_a_cancelled_booking_gets_no_reminder(mecha, smtp_sink):
    configure(mecha, smtp_sink)
    booking_type(mecha)
    seed(mecha)
    cancellation(mecha, 2, booking_id=BID, when=(z(START), z(END)))
    p = sweep_at(mecha, START - H)
    assert p.out.startswith("1 cancelled")
    assert [m["Message-ID"] for m in smtp_sink.messages()] == [f"<booking-{BID}-cancel@mecha>"]
    sweep_at(mecha, START - 10 * M)
    assert reminders(smtp_sink) == []


def test_a_cancellation_the_sweep_cannot_settle_still_stops_the_reminders(mecha, smtp_sink):
    configure(mecha, smtp_sink)
    booking_type(mecha)
    seed(mecha)
    mecha.write_record(2, valid=False, values={"_booking_id": BID, "_cancelled": True,
                                               "_slot_start": z(START), "_slot_end": z(END)})
    sweep_at(mecha, START - H, check=3)
    assert reminders(smtp_sink) == []


def test_a_booking_not_yet_booked_gets_none_and_the_same_sweep_that_books_it_reminds(
        mecha, smtp_sink):
    """The whole path: a real booking swept 20 hours ahead gets its invitation, then the
    24-hour reminder in the same run (it was made days before)."""
    configure(mecha, smtp_sink)
    booking_type(mecha)
    # The sweep books only what home offered (test_sweep.py, issue 22): a type that takes
    # 45 minutes, and the slot among what a push three days before kept.
    types = mecha.home / "factory" / "types" / "meeting.toml"
    types.write_text(types.read_text().replace("durations = [30, 60]", "durations = [30, 45, 60]"))
    offered = mecha.home / "factory" / "offered" / "meeting.json"
    offered.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
    made = z(START - 3 * 24 * H)
    offered.write_text(json.dumps({"type": "meeting", "pushed_at": made, "slots": [
        {"start": z(START), "end": z(END), "duration_minutes": 45, "offered_at": made}]}))
    offered.chmod(0o600)
    (mecha.home / "factory" / "config.toml").write_text(f'gate = "{GATE}"\n')
    values = {"purpose": "a chat", "_slot_start": z(START), "_slot_end": z(END),
              "_duration_minutes": 45, "_booking_id": BID, "_manage_url": MANAGE}
    mecha.write_record(1, values=values, reply_to="ada@example.org",
                       created_at=z(START - 3 * 24 * H))
    sweep_at(mecha, START - 20 * H)
    ids = [m["Message-ID"] for m in smtp_sink.messages()]
    assert ids == [f"<booking-{BID}-request@mecha>", mid(1440)]
    assert mecha.read_record(1)["state"] == "booked"


# -- dry run, failures, kills ---------------------------------------------------------------
def test_dry_run_lists_the_reminders_due_and_sends_and_writes_nothing(mecha, smtp_sink):
    configure(mecha, smtp_sink)
    booking_type(mecha)
    seed(mecha, 1)
    seed(mecha, 2, bid="b2", start=START + 30 * 24 * H, end=END + 30 * 24 * H)
    before = (mecha.requests / "bookings.jsonl").read_bytes()
    p = sweep_at(mecha, START - H, "--dry-run")
    lines = p.out.splitlines()
    assert lines[0].startswith("reminder due") and "1h before" in lines[0]
    assert lines[-1] == "1 reminders due"
    out = json.loads(sweep_at(mecha, START - H, "--dry-run", "--json").out)
    assert [(r["seq"], r["tier"]) for r in out["reminded"]] == [(1, "1h")]
    assert smtp_sink.raw() == []
    assert (mecha.requests / "bookings.jsonl").read_bytes() == before


def test_a_refused_reminder_fails_the_sweep_and_the_next_sweep_sends_it(mecha, smtp_sink):
    configure(mecha, smtp_sink)
    booking_type(mecha)
    seed(mecha)
    smtp_sink.mode = "refuse"
    p = sweep_at(mecha, START - H, check=1)
    assert p.out.startswith("failed") and "1h before" in p.out
    smtp_sink.mode = "accept"
    sweep_at(mecha, START - H + 5 * M)
    assert reminders(smtp_sink) == [mid(60)]
    sweep_at(mecha, START - H + 10 * M)
    assert reminders(smtp_sink) == [mid(60)]


def test_a_reminder_the_server_never_confirmed_is_not_sent_again(mecha, smtp_sink):
    configure(mecha, smtp_sink)
    booking_type(mecha)
    seed(mecha)
    smtp_sink.mode = "close"
    p = sweep_at(mecha, START - H)
    assert "never confirmed" in p.out
    smtp_sink.mode = "accept"
    before = len(smtp_sink.raw())
    sweep_at(mecha, START - H + 5 * M)
    assert len(smtp_sink.raw()) == before


@pytest.mark.parametrize("point", ["remind", "remind-sent"])
def test_a_sweep_killed_at_a_reminder_then_rerun_mails_it_exactly_once(mecha, smtp_sink, point):
    configure(mecha, smtp_sink)
    booking_type(mecha)
    seed(mecha)
    p = sweep(mecha, check=None, env={**at(START - H), "MECHA_TEST_KILL_AT": point})
    assert p.returncode == -9, f"the sweep was not killed at {point}: {p.returncode} {p.err}"
    p = sweep_at(mecha, START - H + 5 * M)
    assert smtp_sink.wait_for(1)
    assert reminders(smtp_sink) == [mid(60)]
    if point == "remind-sent":
        assert "check that it arrived" in p.out
    assert sweep_at(mecha, START - H + 10 * M).out == ""
    assert reminders(smtp_sink) == [mid(60)]


# -- the manifest's side ------------------------------------------------------------------
@pytest.mark.parametrize("location", ["", "two\\nlines", "x" * 301])
def test_a_location_that_cannot_go_in_a_mail_is_refused_by_the_manifest_check(mecha, location):
    booking_type(mecha, location=None)
    path = mecha.home / "factory" / "types" / "meeting.toml"
    path.write_text(path.read_text().replace("[policy]\n", f'[policy]\nlocation = "{location}"\n'))
    p = mecha.run("types", "check", str(path), check=None)
    assert p.returncode != 0 and "location" in (p.out + p.err)


def test_a_booking_whose_type_is_gone_is_reminded_at_24h_and_1h(mecha, smtp_sink):
    configure(mecha, smtp_sink)
    seed(mecha)  # no type installed
    for t in (START - 24 * H, START - H):
        sweep_at(mecha, t)
    assert reminders(smtp_sink) == [mid(1440), mid(60)]


def test_a_booking_a_person_closed_gets_no_reminder(mecha, smtp_sink):
    configure(mecha, smtp_sink)
    booking_type(mecha)
    seed(mecha)
    mecha.run("frontdoor", "close", "1", "--reason", "I called them instead", "--no-notify",
              check=0)
    sweep_at(mecha, START - H)
    assert reminders(smtp_sink) == []
