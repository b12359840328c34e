"""The timer the docs give: docs/mecha-sweep.service's ExecStart line (and the cron
line in docs/bookings.md) run as written — only the binary's path swapped for the
one under test — against a test home, and the booking in it is swept."""
import configparser
import os
import re
import shlex
import shutil
import subprocess

import pytest

from conftest import BIN, ROOT
from test_sweep import booking, configure, events

DOCS = ROOT / "docs"


def unit(name):
    parser = configparser.ConfigParser(interpolation=None, strict=True)
    parser.optionxform = str  # systemd keys are case-sensitive
    parser.read_string((DOCS / name).read_text())
    return parser


def as_tested(argv):
    """The documented command with the installed binary's path swapped for ours."""
    assert os.path.basename(argv[0]) == "mecha", argv
    assert os.path.isabs(argv[0]), "cron and systemd do not search your PATH"
    return [BIN, *argv[1:]]


def run_and_check_swept(mecha, smtp_sink, argv):
    cal = configure(mecha, smtp_sink)
    booking(mecha)
    env = {k: v for k, v in mecha.env.items()}
    p = subprocess.run(as_tested(argv), env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                       timeout=60)
    assert p.returncode == 0, p.stderr.decode()
    assert mecha.read_record(1)["state"] == "booked"
    assert len(events(cal)) == 1 and len(smtp_sink.raw()) == 1


def test_the_service_units_execstart_sweeps(mecha, smtp_sink):
    service = unit("mecha-sweep.service")
    assert service["Service"]["Type"] == "oneshot"
    argv = shlex.split(service["Service"]["ExecStart"])
    assert argv[1:] == ["frontdoor", "sweep", "-v"], "the journal keeps a line per booking"
    run_and_check_swept(mecha, smtp_sink, argv)


def test_the_timer_starts_the_service_every_few_minutes():
    timer = unit("mecha-sweep.timer")
    assert timer["Timer"]["OnCalendar"] == "*:0/5"
    assert timer["Install"]["WantedBy"] == "timers.target"
    # No Unit= line: a timer starts the service of its own name, which must exist.
    assert "Unit" not in timer["Timer"] and (DOCS / "mecha-sweep.service").exists()


def test_the_documented_cron_line_sweeps(mecha, smtp_sink):
    [line] = [ln for ln in (DOCS / "bookings.md").read_text().splitlines()
              if re.match(r"^\*/\d+ \* \* \* \* ", ln)]
    run_and_check_swept(mecha, smtp_sink, shlex.split(line)[5:])


def test_systemd_accepts_both_units(tmp_path):
    analyze = shutil.which("systemd-analyze")
    if not analyze:
        pytest.skip("systemd-analyze is not installed")
    service = (DOCS / "mecha-sweep.service").read_text()
    exec_start = shlex.split(unit("mecha-sweep.service")["Service"]["ExecStart"])[0]
    (tmp_path / "mecha-sweep.service").write_text(service.replace(exec_start, BIN))
    shutil.copy(DOCS / "mecha-sweep.timer", tmp_path / "mecha-sweep.timer")
    p = subprocess.run([analyze, "verify", "--man=no", "./mecha-sweep.service",
                        "./mecha-sweep.timer"],
                       cwd=tmp_path, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, timeout=60)
    assert p.returncode == 0, p.stdout.decode()


def interval_minutes(on_calendar):
    """The minutes between runs of an OnCalendar of the form *:0/N."""
    m = re.fullmatch(r"\*:0/(\d+)", on_calendar)
    assert m, f"an OnCalendar this test does not read: {on_calendar}"
    return int(m.group(1))


def test_the_timer_runs_often_enough_for_the_smallest_tier_the_docs_allow():
    minutes = interval_minutes(unit("mecha-sweep.timer")["Timer"]["OnCalendar"])
    docs = (DOCS / "bookings.md").read_text()
    # The docs name the interval and the smallest tier it serves; both must be this one.
    assert "with the timer below (every five minutes)" in docs and minutes == 5
    assert "keep every tier at `5m` or more" in docs
    # The default tiers (24h, 1h) and the crash rounds' are far above it.
    assert minutes <= 60
