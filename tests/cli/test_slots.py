"""mecha slots show: the slots a booking type offers, from its [availability]
and the calendar's busy time. The expected slots are worked out by hand in
tests/fixtures/slots/README.md; tests/unit/test_drain_slots.c pins every rule
of the computation itself."""
import json
import shutil
from datetime import datetime, timedelta

from conftest import ROOT, write_config

FIXTURES = ROOT / "tests" / "fixtures" / "slots"
TYPES = ROOT / "tests" / "fixtures" / "types"
NOW = "2026-10-22T12:00:00Z"

OVER_BUSY = [
    ("2026-10-23T14:00:00Z", "2026-10-23T15:00:00Z"),
    ("2026-10-26T10:00:00Z", "2026-10-26T11:00:00Z"),
    ("2026-10-27T08:00:00Z", "2026-10-27T09:00:00Z"),
    ("2026-10-27T08:30:00Z", "2026-10-27T09:30:00Z"),
]


def install(mecha, *names, where=FIXTURES):
    types = mecha.home / "factory" / "types"
    types.mkdir(parents=True, exist_ok=True, mode=0o700)
    for name in names:
        shutil.copy(where / f"{name}.toml", types / f"{name}.toml")


def calendar(mecha, path):
    write_config(mecha, f'[mail]\nfrom = "Me <me@example.org>"\n[calendar]\npath = "{path}"\n')


def slots(mecha, *args):
    out = mecha.json("slots", "show", "consult", "--from", NOW, "--json", *args)
    return [(s["start"], s["end"]) for s in out["slots"]]


def test_show_json_is_the_body_the_box_takes_for_its_slots(mecha):
    install(mecha, "consult")
    calendar(mecha, FIXTURES / "busy.ics")
    out = mecha.json("slots", "show", "consult", "--from", NOW, "--json")
    assert list(out) == ["generated_at", "horizon_days", "slots"]
    assert out["generated_at"] == NOW and out["horizon_days"] == 5
    assert all(list(s) == ["start", "end", "duration_minutes"] for s in out["slots"])
    assert all(s["duration_minutes"] == 60 for s in out["slots"])
    assert [(s["start"], s["end"]) for s in out["slots"]] == OVER_BUSY


def test_show_prints_one_slot_a_line_in_the_types_zone_across_the_clock_change(mecha):
    install(mecha, "consult")
    calendar(mecha, FIXTURES / "busy.ics")
    p = mecha.run("slots", "show", "consult", "--from", NOW, check=0)
    assert p.out.splitlines() == [
        "Fri 2026-10-23 16:00–17:00 +02:00  60 min",
        "Mon 2026-10-26 11:00–12:00 +01:00  60 min",
        "Tue 2026-10-27 09:00–10:00 +01:00  60 min",
        "Tue 2026-10-27 09:30–10:30 +01:00  60 min",
    ]
    assert "dentist" not in p.out.lower(), "a title left the calendar"


def test_an_empty_calendar_offers_every_window_up_to_the_cap(mecha):
    install(mecha, "consult")
    calendar(mecha, FIXTURES / "empty.ics")
    assert slots(mecha) == [
        ("2026-10-23T12:00:00Z", "2026-10-23T13:00:00Z"),
        ("2026-10-23T12:30:00Z", "2026-10-23T13:30:00Z"),
        ("2026-10-26T09:00:00Z", "2026-10-26T10:00:00Z"),
        ("2026-10-26T09:30:00Z", "2026-10-26T10:30:00Z"),
        ("2026-10-27T08:00:00Z", "2026-10-27T09:00:00Z"),
        ("2026-10-27T08:30:00Z", "2026-10-27T09:30:00Z"),
    ]


def test_an_event_written_into_the_calendar_is_gone_from_the_next_slots(mecha, tmp_path):
    """What the sweep does after a booking: the event lands in the calendar,
    and the slots computed next leave it, and its buffer, out."""
    install(mecha, "consult")
    ics = tmp_path / "cal.ics"
    shutil.copy(FIXTURES / "busy.ics", ics)
    calendar(mecha, ics)
    assert slots(mecha) == OVER_BUSY
    mecha.run("calendar", "add", "--start", "2026-10-27T08:00:00Z", "--end",
              "2026-10-27T08:30:00Z", "--attendee", "ada@example.org", check=0)
    # Tuesday: 07:45–08:45Z is taken now; 08:00 and 08:30 overlap it, 09:00–10:00Z is free.
    assert slots(mecha) == OVER_BUSY[:2] + [("2026-10-27T09:00:00Z", "2026-10-27T10:00:00Z")]


def test_from_a_date_means_midnight_in_the_types_zone(mecha):
    install(mecha, "consult")
    calendar(mecha, FIXTURES / "empty.ics")
    out = mecha.json("slots", "show", "consult", "--from", "2026-10-22", "--json")
    assert out["generated_at"] == "2026-10-21T22:00:00Z"  # 00:00 CEST


def test_without_a_calendar_no_slot_is_offered(mecha):
    install(mecha, "consult")
    p = mecha.run("slots", "show", "consult", "--from", NOW, check=1)
    assert p.out == ""
    assert "no calendar is configured" in p.err and "consult" in p.err
    out = json.loads(mecha.run("slots", "show", "consult", "--from", NOW, "--json", check=1).out)
    assert out["ok"] is False and out["error"] == "not_found"
    assert "slots" not in out


def test_a_calendar_path_that_is_not_there_is_refused_naming_it(mecha, tmp_path):
    install(mecha, "consult")
    calendar(mecha, tmp_path / "gone.ics")
    p = mecha.run("slots", "show", "consult", "--from", NOW, check=1)
    assert p.out == ""
    assert "gone.ics" in p.err and "does not exist" in p.err


def test_a_calendar_that_does_not_read_offers_nothing(mecha):
    install(mecha, "consult")
    calendar(mecha, ROOT / "tests" / "fixtures" / "calendar" / "bad-dtstart.ics")
    p = mecha.run("slots", "show", "consult", "--from", NOW, "--json", check=1)
    out = json.loads(p.out)
    assert out["ok"] is False and "bad-dtstart.ics" in out["message"]


def test_a_calendar_that_fails_only_on_the_later_window_offers_nothing(mecha, tmp_path):
    """year.toml asks the calendar in two windows (its README says why). An
    event every five minutes reaches the reader's limit of a million
    occurrences inside the second window only: the first reads, the second
    fails, and the failure is told once, with no slots (the busy list of the
    first window was once freed twice here)."""
    install(mecha, "year")
    now = datetime.fromisoformat(NOW.replace("Z", "+00:00"))
    first_end = now - timedelta(hours=1) + timedelta(days=366)
    # The millionth occurrence after the first starts at now + 366 days: after
    # the first window ends, an hour before the second does.
    start = now + timedelta(days=366) - timedelta(minutes=5) * 1_000_000
    ics = tmp_path / "every-five-minutes.ics"
    ics.write_text("BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//mecha tests//EN\r\n"
                   "BEGIN:VEVENT\r\nUID:every-five-minutes\r\nDTSTAMP:20260101T000000Z\r\n"
                   f"DTSTART:{start:%Y%m%dT%H%M%SZ}\r\nDURATION:PT1M\r\n"
                   "RRULE:FREQ=MINUTELY;INTERVAL=5\r\nEND:VEVENT\r\nEND:VCALENDAR\r\n")
    calendar(mecha, ics)
    stamp = "%Y-%m-%dT%H:%M:%SZ"
    first = mecha.json("calendar", "free-busy", "--from", f"{now - timedelta(hours=1):{stamp}}",
                       "--to", f"{first_end:{stamp}}", "--json")
    assert len(first["busy"]) == 366 * 24 * 12, "the first window reads, every occurrence"
    p = mecha.run("slots", "show", "year", "--from", NOW, "--json", check=1)
    out = json.loads(p.out)
    assert out["ok"] is False and out["error"] == "parse"
    assert "every-five-minutes.ics" in out["message"] and "RRULE" in out["message"]
    assert "slots" not in out


def test_a_request_type_has_no_slots(mecha):
    install(mecha, "meeting", where=TYPES)
    calendar(mecha, FIXTURES / "empty.ics")
    p = mecha.run("slots", "show", "meeting", check=1)
    assert "not a booking" in p.err


def test_an_unknown_type_is_not_found(mecha):
    calendar(mecha, FIXTURES / "empty.ics")
    out = json.loads(mecha.run("slots", "show", "nosuch", "--json", check=1).out)
    assert out["error"] == "not_found" and "nosuch" in out["message"]


def test_a_from_that_is_not_a_time_is_a_usage_mistake(mecha):
    install(mecha, "consult")
    calendar(mecha, FIXTURES / "empty.ics")
    p = mecha.run("slots", "show", "consult", "--from", "next tuesday", check=2)
    assert "--from" in p.err
