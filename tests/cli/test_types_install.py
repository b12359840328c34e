"""Types that arrive where they are used: `mecha types install FILE… [--push]`, the
page URL `types push` prints, and the `type_version` every record carries — the
version of its type the box served when the stranger submitted — with `drain` saying
which types are out of step and the command that fixes it. A real box on loopback,
paired by a one-time code; the stranger's form posted and confirmed through it."""
import json
import os
import stat

import pytest

from box_fixture import Box
from box_visit import links, path_of, visit
from conftest import ROOT

TYPES = ROOT / "tests" / "fixtures" / "types"
STRANGER = {"requester_name": "Grace", "requester_email": "grace@example.org",
            "purpose": "other", "other_detail": "compilers", "duration_minutes": "30"}


@pytest.fixture
def box(tmp_path):
    b = Box(tmp_path).start()
    yield b
    b.stop()


def paired(mecha, box):
    code = box.mecha("pair", "--owner", "ada", "--json", check=0).json()["code"]
    mecha.run("pair", f"http://127.0.0.1:{box.port}", code, "--handle", "ada", check=0)


def mode(p):
    return stat.S_IMODE(os.stat(p).st_mode)


def submitted(box, fields=STRANGER):
    status, _, _ = visit(box, "POST", "/f/ada/meeting", fields=fields)
    assert status == 200
    status, _, _ = visit(box, "POST", path_of(links(box)[-1]))
    assert status == 200


def test_install_checks_everything_first_and_installs_nothing_on_a_mistake(mecha, tmp_path):
    bad = tmp_path / "bad.toml"
    bad.write_text('id = "bad"\nversion = 1\ntitle = "t"\n')
    p = mecha.run("types", "install", TYPES / "meeting.toml", bad, check=1)
    assert f"{bad}:" in p.err
    assert not (mecha.home / "factory" / "types").exists()
    p = mecha.run("types", "install", TYPES / "meeting.toml", TYPES / "meeting.toml", check=2)
    assert "are both the type meeting" in p.err


def test_install_copies_with_the_right_modes_and_says_what_it_replaced(mecha, tmp_path):
    got = mecha.json("types", "install", TYPES / "meeting.toml", TYPES / "book.toml", "--json")
    dest = mecha.home / "factory" / "types"
    assert [(r["id"], r["version"], r["replaced"]) for r in got] == \
        [("meeting", 2, None), ("book", 1, None)]
    assert mode(dest) == 0o700 and mode(dest / "meeting.toml") == 0o600
    assert (dest / "meeting.toml").read_bytes() == (TYPES / "meeting.toml").read_bytes()
    newer = tmp_path / "meeting.toml"
    newer.write_text((TYPES / "meeting.toml").read_text().replace("version = 2", "version = 3"))
    out = mecha.run("types", "install", newer, check=0).out
    assert out.startswith(f"installed meeting v3 (was v2): {dest / 'meeting.toml'}\n")
    assert mecha.json("types", "show", "meeting", "--json")["version"] == 3


def test_install_push_publishes_and_push_prints_the_page_strangers_open(mecha, box):
    paired(mecha, box)
    got = mecha.json("types", "install", TYPES / "meeting.toml", "--push", "--json")
    page = f"http://127.0.0.1:{box.port}/f/ada/meeting"
    assert got[0]["pushed"]["page"] == page and got[0]["pushed"]["version"] == 2
    assert visit(box, "GET", "/f/ada/meeting")[0] == 200
    out = mecha.run("types", "push", "meeting", check=0).out
    assert out == (f"published meeting: {page}\n"
                   f"  api   http://127.0.0.1:{box.port}/v1/types/meeting (for keys, not browsers)\n")


def test_a_record_carries_the_version_it_was_submitted_under_and_drain_says_when_out_of_step(
        mecha, box, tmp_path):
    paired(mecha, box)
    mecha.run("types", "install", TYPES / "meeting.toml", "--push", check=0)
    submitted(box)
    report = mecha.json("drain", "--json")
    assert report["written"] == 1 and "out_of_step" not in report
    [rec] = [json.loads(p.read_text()) for p in mecha.requests.glob("*-meeting.json")]
    assert rec["type_version"] == 2 and rec["valid"] is True
    assert "_type_version" not in rec["values"]
    assert list(rec)[:3] == ["seq", "type_id", "type_version"]
    # home changes the type and does not push it: the box still serves version 2
    newer = tmp_path / "meeting.toml"
    newer.write_text((TYPES / "meeting.toml").read_text().replace("version = 2", "version = 3"))
    mecha.run("types", "install", newer, check=0)
    submitted(box, {**STRANGER, "requester_name": "Ada"})
    p = mecha.run("drain", "--json", check=0)
    assert json.loads(p.out)["out_of_step"] == [
        {"type": "meeting", "box_version": 2, "home_version": 3,
         "fix": "mecha types push meeting"}]
    assert ("mecha: meeting is out of step: the box serves version 2, home has version 3 "
            "(its records may not validate); run `mecha types push meeting`") in p.err
    newest = max(mecha.requests.glob("*-meeting.json"))
    assert json.loads(newest.read_text())["type_version"] == 2
    shown = mecha.run("frontdoor", "show", newest.name.split("-")[0].lstrip("0"), check=0).out
    assert "v2 (home has v3: mecha types push meeting)" in shown
    # pushed: in step again
    mecha.run("types", "push", "meeting", check=0)
    submitted(box, {**STRANGER, "requester_name": "Alan"})
    assert "out_of_step" not in mecha.json("drain", "--json")
