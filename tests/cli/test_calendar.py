"""mecha calendar: the busy time a person (and every agent tool) is shown,
from hand-written RFC 5545 files, and the events mecha writes, read back."""
import json
import os
import shutil
import stat

from conftest import ROOT, write_config

FIXTURES = ROOT / "tests" / "fixtures" / "calendar"
WINDOW = ("--from", "2026-10-01T00:00:00Z", "--to", "2026-12-01T00:00:00Z")


def calendar(mecha, path, zone="Europe/Berlin", extra=""):
    zone_line = f'timezone = "{zone}"\n' if zone else ""
    write_config(mecha, f'[mail]\nfrom = "Me <me@example.org>"\n'
                        f'[calendar]\npath = "{path}"\n{zone_line}{extra}')


def busy(mecha, *window):
    out = mecha.json("calendar", "free-busy", *(window or WINDOW), "--json")
    return [(i["start"], i["end"]) for i in out["busy"]]


def test_free_busy_shows_each_interval_in_the_calendar_zone_and_in_utc(mecha):
    calendar(mecha, FIXTURES / "weekly.ics")
    p = mecha.run("calendar", "free-busy", *WINDOW, check=0)
    lines = p.out.splitlines()
    assert lines[0] == ("2026-10-05 09:30 → 2026-10-05 10:00 Europe/Berlin  "
                        "(2026-10-05T07:30:00Z → 2026-10-05T08:00:00Z)")
    # After the clocks went back on Oct 25, 09:30 in Berlin is 08:30 UTC.
    assert lines[2] == ("2026-10-26 09:30 → 2026-10-26 10:00 Europe/Berlin  "
                        "(2026-10-26T08:30:00Z → 2026-10-26T09:00:00Z)")
    assert len(lines) == 6
    assert "standup" not in p.out.lower(), "a title left the calendar"


def test_free_busy_json_is_the_window_and_the_merged_intervals_in_utc(mecha):
    calendar(mecha, FIXTURES / "weekly.ics")
    out = mecha.json("calendar", "free-busy", *WINDOW, "--json")
    assert out["from"] == "2026-10-01T00:00:00Z" and out["to"] == "2026-12-01T00:00:00Z"
    assert [(i["start"], i["end"]) for i in out["busy"]] == [
        ("2026-10-05T07:30:00Z", "2026-10-05T08:00:00Z"),
        ("2026-10-20T12:00:00Z", "2026-10-20T12:30:00Z"),  # the override, moved
        ("2026-10-26T08:30:00Z", "2026-10-26T09:00:00Z"),
        ("2026-11-09T08:30:00Z", "2026-11-09T09:00:00Z"),  # Nov 2 was cancelled
        ("2026-11-16T08:30:00Z", "2026-11-16T09:00:00Z"),
        ("2026-11-23T08:30:00Z", "2026-11-23T09:00:00Z"),
    ]


def test_all_day_events_and_floating_times_are_in_the_configured_zone(mecha):
    calendar(mecha, FIXTURES / "allday.ics", zone="Europe/Berlin")
    assert busy(mecha) == [
        ("2026-10-23T22:00:00Z", "2026-10-25T23:00:00Z"),
        ("2026-10-27T23:00:00Z", "2026-10-28T23:00:00Z"),
        ("2026-10-29T15:00:00Z", "2026-10-29T16:30:00Z"),
        ("2026-10-30T11:00:00Z", "2026-10-30T12:00:00Z"),
    ]


def test_without_a_timezone_setting_the_system_zone_from_tz_counts(mecha):
    calendar(mecha, FIXTURES / "allday.ics", zone=None)
    out = mecha.json("calendar", "free-busy", "--from", "2026-10-30T00:00:00Z",
                     "--to", "2026-10-31T00:00:00Z", "--json", env={"TZ": "America/New_York"})
    assert out["busy"] == [{"start": "2026-10-30T16:00:00Z", "end": "2026-10-30T17:00:00Z"}]


def test_two_vcalendars_in_one_file_are_both_busy(mecha):
    calendar(mecha, FIXTURES / "two-calendars.ics")
    assert busy(mecha) == [("2026-11-05T10:00:00Z", "2026-11-05T11:30:00Z")]


def test_outlook_zone_names_and_tzids_without_vtimezone_are_placed(mecha):
    calendar(mecha, FIXTURES / "zones.ics")
    assert busy(mecha) == [("2026-11-03T14:00:00Z", "2026-11-03T15:00:00Z"),
                           ("2026-11-04T08:00:00Z", "2026-11-04T08:30:00Z")]


def test_a_vdirsyncer_root_is_read_collection_by_collection(mecha, tmp_path):
    root = tmp_path / "calendars"
    shutil.copytree(FIXTURES / "root", root)
    calendar(mecha, root)
    assert busy(mecha) == [("2026-11-10T09:00:00Z", "2026-11-10T11:00:00Z")]
    calendar(mecha, root, extra='collections = ["work"]\n')
    assert busy(mecha) == [("2026-11-10T09:00:00Z", "2026-11-10T10:00:00Z")]
    calendar(mecha, root, extra='collections = ["holidays"]\n')
    p = mecha.run("calendar", "free-busy", *WINDOW, check=1)
    assert "holidays" in p.err


def test_an_unreadable_dtstart_is_an_error_naming_file_and_line_never_free(mecha):
    calendar(mecha, FIXTURES / "bad-dtstart.ics")
    p = mecha.run("calendar", "free-busy", *WINDOW, check=1)
    assert "bad-dtstart.ics:14: event broken@example.org" in p.err
    assert p.out == ""
    p = mecha.run("calendar", "free-busy", *WINDOW, "--json", check=1)
    out = json.loads(p.out)
    assert out["ok"] is False and out["error"] == "parse" and "busy" not in out


def test_a_tzid_nothing_places_is_an_error(mecha):
    calendar(mecha, FIXTURES / "unknown-tzid.ics")
    p = mecha.run("calendar", "free-busy", *WINDOW, check=1)
    assert "unknown-tzid.ics:7:" in p.err and "Atlantis Standard Time" in p.err


def test_a_window_that_ends_before_it_starts_is_refused(mecha):
    calendar(mecha, FIXTURES / "weekly.ics")
    p = mecha.run("calendar", "free-busy", "--from", "2026-10-02T00:00:00Z",
                  "--to", "2026-10-01T00:00:00Z", check=3)
    assert "window" in p.err
    mecha.run("calendar", "free-busy", "--from", "tomorrow", check=2)


def test_without_a_calendar_free_busy_says_so(mecha):
    p = mecha.run("calendar", "free-busy", check=1)
    assert "[calendar] path" in p.err


# -- writing ---------------------------------------------------------------------
def content_lines(text):
    """RFC 5545 3.1: CRLF lines of at most 75 octets, unfolded."""
    raw = text.encode()
    assert raw.endswith(b"\r\n") and b"\n" not in raw.replace(b"\r\n", b"")
    physical = raw.split(b"\r\n")[:-1]
    assert all(len(line) <= 75 for line in physical)
    lines = []
    for line in physical:
        if line[:1] in (b" ", b"\t"):
            lines[-1] += line[1:]
        else:
            lines.append(line)
    return [line.decode() for line in lines]


def event_lines(text, uid):
    lines = content_lines(text)
    begins = [i for i, line in enumerate(lines) if line == "BEGIN:VEVENT"]
    for b in begins:
        end = lines.index("END:VEVENT", b)
        if f"UID:{uid}" in lines[b:end]:
            return lines[b:end]
    raise AssertionError(f"no VEVENT with UID {uid}")


def add(mecha, *extra):
    return mecha.json("calendar", "add", "--start", "2026-11-12T10:00:00Z",
                      "--end", "2026-11-12T11:00:00Z", "--attendee", "guest@example.net",
                      "--summary", "Coffee, finally", *extra, "--json")["uid"]


def assert_event(lines):
    assert "DTSTART:20261112T100000Z" in lines and "DTEND:20261112T110000Z" in lines
    assert "ORGANIZER:mailto:me@example.org" in lines
    attendee = [line for line in lines if line.startswith("ATTENDEE")]
    assert len(attendee) == 1 and "RSVP=TRUE" in attendee[0]
    assert attendee[0].endswith(":mailto:guest@example.net")
    assert "SUMMARY:Coffee\\, finally" in lines
    assert any(line.startswith("DTSTAMP:") and line.endswith("Z") for line in lines)
    assert any(line.startswith("SEQUENCE:") for line in lines)


MEETING = ("--from", "2026-11-12T00:00:00Z", "--to", "2026-11-13T00:00:00Z")


def test_an_event_added_to_a_vdir_is_a_private_file_busy_until_removed(mecha, tmp_path):
    vdir = tmp_path / "calendar"
    vdir.mkdir()
    calendar(mecha, vdir)
    uid = add(mecha)
    path = vdir / f"{uid}.ics"
    assert stat.S_IMODE(os.stat(path).st_mode) == 0o600
    text = path.read_bytes().decode()
    assert content_lines(text)[0] == "BEGIN:VCALENDAR" and "METHOD" not in text
    assert_event(event_lines(text, uid))
    assert busy(mecha, *MEETING) == [("2026-11-12T10:00:00Z", "2026-11-12T11:00:00Z")]
    mecha.run("calendar", "remove", uid, check=0)
    assert not path.exists()
    assert busy(mecha, *MEETING) == []
    p = mecha.run("calendar", "remove", uid, check=1)
    assert "no event" in p.err


def test_an_event_added_to_a_single_file_keeps_the_rest_and_removes_cleanly(mecha, tmp_path):
    path = tmp_path / "personal.ics"
    shutil.copy(FIXTURES / "weekly.ics", path)
    before = path.read_bytes()
    calendar(mecha, path)
    uid = add(mecha)
    after = path.read_bytes()
    assert after.startswith(before[: -len(b"END:VCALENDAR\r\n")])
    assert stat.S_IMODE(os.stat(path).st_mode) == 0o600
    assert_event(event_lines(after.decode(), uid))
    assert ("2026-11-12T10:00:00Z", "2026-11-12T11:00:00Z") in busy(mecha)
    assert len(busy(mecha)) == 7
    mecha.run("calendar", "remove", uid, check=0)
    assert path.read_bytes() == before
    assert busy(mecha, *MEETING) == []


def test_adding_to_a_calendar_mecha_cannot_read_changes_nothing(mecha, tmp_path):
    path = tmp_path / "personal.ics"
    shutil.copy(FIXTURES / "bad-dtstart.ics", path)
    before = path.read_bytes()
    calendar(mecha, path)
    p = mecha.run("calendar", "add", "--start", "2026-11-12T10:00:00Z",
                  "--end", "2026-11-12T11:00:00Z", "--attendee", "guest@example.net", check=1)
    assert "personal.ics:14:" in p.err
    assert path.read_bytes() == before


def test_add_refuses_what_is_not_an_event(mecha, tmp_path):
    vdir = tmp_path / "calendar"
    vdir.mkdir()
    calendar(mecha, vdir)
    mecha.run("calendar", "add", "--start", "2026-11-12T10:00:00Z", check=2)
    p = mecha.run("calendar", "add", "--start", "2026-11-12T11:00:00Z",
                  "--end", "2026-11-12T10:00:00Z", "--attendee", "guest@example.net", check=2)
    assert "ends after it starts" in p.err
    p = mecha.run("calendar", "add", "--start", "2026-11-12T10:00:00Z",
                  "--end", "2026-11-12T11:00:00Z", "--attendee", "not an address", check=2)
    assert "not a mail address" in p.err
    assert list(vdir.iterdir()) == []
