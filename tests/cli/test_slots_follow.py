"""Slots that follow the calendar (issue 24): the drain service (`mecha drain --follow`)
pushes a booking type's slots again when the calendar's busy time or the type changed
since its last push, and only then; `mecha doctor` says where each type's pushes stand.
A real `mecha box serve` on loopback; the calendar a vdir of .ics files the test edits."""
import json
import os
import signal
import subprocess
import time
from datetime import datetime, timedelta, timezone

import pytest

from box_fixture import Box
from box_visit import offered, utc
from conftest import BIN, write_config
from test_drain import connect
from test_e2e_booking import CONSULT
from test_sweep import ics_time

DEADLINE_S = 60  # generous: the follow interval under test is one second


@pytest.fixture
def box(tmp_path):
    b = Box(tmp_path).start()
    yield b
    b.stop()


@pytest.fixture
def home(mecha, box):
    """Paired with the box, the booking type consult published, a vdir calendar
    looked at every second by the drain service."""
    connect(mecha, box)
    (mecha.home / "factory" / "types" / "consult.toml").write_text(CONSULT)
    mecha.calendar = mecha.tmp / "calendar"
    mecha.calendar.mkdir()
    write_config(mecha, f'[calendar]\npath = "{mecha.calendar}"\ntimezone = "UTC"\n'
                        'slots_check_s = 1\n')
    assert mecha.json("types", "push", "consult", "--json")["id"] == "consult"
    return mecha


def busy(mecha, slot, name="busy.ics"):
    """An event over slot, written whole (a temporary name, then a rename)."""
    tmp = mecha.calendar / f".{name}.tmp"
    tmp.write_text(
        "BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//t//t//EN\r\nBEGIN:VEVENT\r\n"
        f"UID:{name}@t\r\nDTSTAMP:20260101T000000Z\r\nDTSTART:{ics_time(slot['start'])}\r\n"
        f"DTEND:{ics_time(slot['end'])}\r\nSUMMARY:dentist\r\nEND:VEVENT\r\nEND:VCALENDAR\r\n")
    os.rename(tmp, mecha.calendar / name)


def until(what, deadline):
    while not what():
        assert time.time() < deadline, "not within the deadline"
        time.sleep(0.1)


def slots_lines(mecha, *args):
    """The doctor's slots lines (the exit status is the whole home's: not asked here)."""
    return [l for l in json.loads(mecha.run("doctor", "--json", *args).out)
            if l["check"] == "slots"]


def test_the_drain_service_withdraws_a_time_the_calendar_takes_and_offers_it_again(home, box):
    mecha = home
    mecha.run("slots", "push", "consult", check=0)
    week = offered(box)
    assert len(week) >= 2
    proc = subprocess.Popen([BIN, "drain", "--follow", "--wait", "1"], env=mecha.env,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    try:
        busy(mecha, week[0])
        until(lambda: week[0] not in offered(box), time.time() + DEADLINE_S)
        assert week[1] in offered(box)
        (mecha.calendar / "busy.ics").unlink()
        until(lambda: week[0] in offered(box), time.time() + DEADLINE_S)
    finally:
        proc.send_signal(signal.SIGTERM)
        out, err = proc.communicate(timeout=60)
    assert proc.returncode == 0, err
    pushes = [l for l in out.decode().splitlines() if l.startswith("pushed ")]
    # one push for each change, not one a look
    assert len(pushes) == 2, out.decode() + err.decode()
    assert all(" of consult to http://127.0.0.1:" in l and
               l.endswith("(the calendar or the type changed)") for l in pushes)
    kept = json.loads((mecha.home / "factory" / "offered" / "consult.json").read_text())
    assert len(kept["fingerprint"]) == 64


def test_the_drain_service_pushes_a_changed_type_and_leaves_an_unpushed_one_alone(home, box):
    mecha = home
    mecha.run("slots", "push", "consult", check=0)
    other = CONSULT.replace('id = "consult"', 'id = "later"')
    (mecha.home / "factory" / "types" / "later.toml").write_text(other)
    # the type changes at home: a window more
    changed = CONSULT.replace('per_day_cap = 1', 'per_day_cap = 2').replace(
        'start = "09:00", end = "09:30" }', 'start = "09:00", end = "10:00" }')
    (mecha.home / "factory" / "types" / "consult.toml").write_text(changed)
    proc = subprocess.Popen([BIN, "drain", "--follow", "--json", "--wait", "1"],
                            env=mecha.env, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    try:
        until(lambda: len(offered(box)) > 4, time.time() + DEADLINE_S)
    finally:
        proc.send_signal(signal.SIGTERM)
        out, err = proc.communicate(timeout=60)
    assert proc.returncode == 0, err
    lines = [json.loads(l) for l in out.decode().splitlines()]
    assert [l["slots_pushed"]["type"] for l in lines if "slots_pushed" in l] == ["consult"]
    assert not (mecha.home / "factory" / "offered" / "later.json").exists()


def test_a_push_that_fails_is_said_and_the_drain_goes_on(home, box):
    mecha = home
    mecha.run("slots", "push", "consult", check=0)
    busy(mecha, offered(box)[0])
    (mecha.home / "factory" / "slots.key").write_text(box.keys["drain"] + "\n")
    proc = subprocess.Popen([BIN, "drain", "--follow", "--wait", "1"], env=mecha.env,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    try:
        seq = box.queue({"email": "a@example.org"}, type_id="consult")
        until(lambda: list(mecha.requests.glob(f"{seq:010d}-*.json")),
              time.time() + DEADLINE_S)
    finally:
        proc.send_signal(signal.SIGTERM)
        out, err = proc.communicate(timeout=60)
    assert proc.returncode == 0, err
    assert "mecha: slots of consult not pushed: " in err.decode()
    assert "(trying again at the next look)" in err.decode()


# ---- mecha doctor ---------------------------------------------------------------------------

def test_doctor_fails_a_booking_type_never_pushed_with_the_command_that_pushes_it(home):
    [line] = slots_lines(home)
    assert line["status"] == "fail" and "never pushed" in line["detail"]
    assert line["fix"] == "mecha slots push consult"


def test_doctor_says_ok_after_a_push_and_warns_once_the_calendar_changed(home, box):
    mecha = home
    mecha.run("slots", "push", "consult", check=0)
    [line] = slots_lines(mecha)
    assert line["status"] == "ok" and line["detail"].startswith("type consult: slots pushed ")
    busy(mecha, offered(box)[0])
    [line] = slots_lines(mecha)
    assert line["status"] == "warn" and "the calendar or the type changed" in line["detail"]
    assert line["fix"].startswith("mecha slots push consult")
    mecha.run("slots", "push", "consult", check=0)
    assert [l["status"] for l in slots_lines(mecha)] == ["ok"]


def kept_at(mecha, when):
    """The kept list as though its push had been made at when (what a stopped service leaves)."""
    path = mecha.home / "factory" / "offered" / "consult.json"
    doc = json.loads(path.read_text())
    doc["pushed_at"] = utc(when)
    path.write_text(json.dumps(doc))


def test_doctor_warns_of_a_push_over_an_hour_old_and_fails_one_past_its_horizon(home):
    mecha = home
    mecha.run("slots", "push", "consult", check=0)
    now = datetime.now(timezone.utc).replace(microsecond=0)
    kept_at(mecha, now - timedelta(hours=2))
    [line] = slots_lines(mecha)
    assert line["status"] == "warn" and "over an hour ago" in line["detail"]
    assert "mecha-drain.service" in line["fix"]
    kept_at(mecha, now - timedelta(days=5))  # the type's horizon is 4 days
    [line] = slots_lines(mecha)
    assert line["status"] == "fail" and "they have all passed" in line["detail"]


def test_doctor_offline_checks_no_slots(home):
    [line] = slots_lines(home, "--offline")
    assert line["status"] == "warn" and "--offline" in line["detail"]


def test_slots_check_s_is_seconds_the_config_takes(mecha):
    write_config(mecha, '[calendar]\nslots_check_s = 0\n')
    p = mecha.run("doctor", "--json", check=1)
    assert "slots_check_s must be between 1 and 86400 seconds" in p.out
