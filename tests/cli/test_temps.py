"""A writer killed between its temp file and the rename leaves nothing behind for long.

Before, fs_replace and fs_create wrote DIR/.NAME.XXXXXX and renamed it; a
SIGKILL in between left the temp file in requests/, outbox/ or beside the
mission box, and nothing ever removed it. Now the first writer of a store
(under its lock) removes such files once they are older than the threshold
(15 minutes: no live writer still holds one), and `mecha doctor`, which never
writes, reports them with the fix. Only exactly our names, only regular files.
"""
import json
import os
import time

from test_init_doctor import doctor, snapshot
from test_mission import letter, post

HOUR = 3600


def plant(path, age=HOUR, data=b"half a record"):
    """A temp file as a killed writer leaves it, last written `age` seconds ago."""
    path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
    path.write_bytes(data)
    path.chmod(0o600)
    then = time.time() - age
    os.utime(path, (then, then))
    return path


def close(mecha, seq=1):
    mecha.run("frontdoor", "close", str(seq), "--reason", "declined by phone", check=0)


def stage(mecha):
    mecha.run("outbox", "stage", "--tool", "mail_send", "--args",
              json.dumps({"to": "ada@example.org", "subject": "s", "body_text": "b"}), check=0)


def test_an_old_temp_file_in_requests_is_removed_by_the_next_write(mecha):
    mecha.write_record(1, state="extracted")
    old = plant(mecha.requests / ".0000000001-meeting.json.Ab12Cd")
    types = plant(mecha.requests / "..types.zZ09yY")
    close(mecha)
    assert not old.exists() and not types.exists()
    assert mecha.read_record(1)["note"] == "declined by phone"


def test_a_young_temp_file_is_kept_for_the_writer_that_may_still_hold_it(mecha):
    mecha.write_record(1, state="extracted")
    young = plant(mecha.requests / ".0000000001-meeting.json.Ab12Cd", age=60)
    close(mecha)
    assert young.read_bytes() == b"half a record"


def test_an_old_temp_file_in_the_outbox_is_removed_by_the_next_stage(mecha):
    outbox = mecha.home / "outbox"
    old = plant(outbox / ".20260806T020000Z-abcdef.json.q1W2e3")
    young = plant(outbox / ".20260806T020000Z-abcdef.json.r4T5y6", age=10)
    stage(mecha)
    assert not old.exists() and young.exists()
    assert len(list(outbox.glob("*.json"))) == 1


def test_an_old_temp_file_beside_the_mission_box_is_removed_by_the_next_post(mecha):
    head = json.loads(post(mecha, letter(1, "judging")).out)["letter_id"]
    missions = mecha.home / "missions"
    idx = plant(missions / ".inbox.jsonl.idx.AAAAAA")
    blocks = plant(missions / ".blocks.json.BBBBBB")
    foreign = plant(missions / ".notes.md.CCCCCC")  # not a name the box makes: not ours
    post(mecha, letter(2, "executing", prev=head))
    assert not idx.exists() and not blocks.exists() and foreign.exists()


def test_what_only_looks_like_a_temp_file_is_left_alone(mecha, tmp_path):
    mecha.write_record(1, state="extracted")
    req = mecha.requests
    kept = [plant(req / ".notes.txt"), plant(req / ".notes.txt.AB12C"),
            plant(req / ".notes.txt.AB12CDE"), plant(req / "..AB12CD"),
            plant(req / ".x.json.AB-2CD"), plant(req / "notes.json.AB12CD")]
    target = plant(tmp_path / "precious", data=b"keep me")
    link = req / ".0000000002-meeting.json.LiNk01"
    link.symlink_to(target)
    then = time.time() - HOUR
    os.utime(link, (then, then), follow_symlinks=False)
    folder = req / ".0000000003-meeting.json.DiR001"
    folder.mkdir(mode=0o700)
    (folder / "inside").write_bytes(b"x")
    os.utime(folder, (then, then))
    close(mecha)
    for p in kept:
        assert p.read_bytes() == b"half a record", p
    assert link.is_symlink() and target.read_bytes() == b"keep me"
    assert (folder / "inside").read_bytes() == b"x"


def test_a_reader_removes_nothing(mecha):
    mecha.write_record(1, state="extracted")
    old = plant(mecha.requests / ".0000000001-meeting.json.Ab12Cd")
    mecha.run("frontdoor", "list", "--json", check=0)
    mecha.run("frontdoor", "show", "1", check=0)
    assert old.exists()


def test_doctor_warns_about_leftover_temp_files_and_changes_nothing(mecha):
    mecha.run("init", check=0)
    mecha.write_record(1, state="extracted")
    plant(mecha.requests / ".0000000001-meeting.json.Ab12Cd")
    plant(mecha.requests / "attachments" / "0000000001" / ".cv.pdf.Zz9Zz9")
    plant(mecha.home / "outbox" / ".\x1b[31mred.json.Ab12Cd")  # a hostile name, shown safely
    plant(mecha.requests / ".0000000001-meeting.json.yOuNg1", age=5)  # a live writer's
    before = snapshot(mecha.home)
    p, lines = doctor(mecha, "--offline")
    temps = lines["temps"]
    assert temps["status"] == "warn", temps
    assert temps["detail"].startswith("3 temporary files left by a killed write"), temps
    assert "requests/.0000000001-meeting.json.Ab12Cd" in temps["detail"]
    assert "requests/attachments/0000000001/.cv.pdf.Zz9Zz9" in temps["detail"]
    assert "yOuNg1" not in temps["detail"]
    assert temps["fix"].startswith("removed by the next write there, or delete them: rm -- '")
    assert f"'{mecha.requests}/.0000000001-meeting.json.Ab12Cd'" in temps["fix"]
    text = mecha.run("doctor", "--offline").out
    assert "warn  temps" in text
    assert "\x1b" not in text and "\\e[31mred.json.Ab12Cd" in text
    assert snapshot(mecha.home) == before


def test_doctor_is_ok_when_the_stores_hold_no_leftover(mecha):
    mecha.run("init", check=0)
    mecha.write_record(1, state="extracted")
    plant(mecha.requests / ".0000000001-meeting.json.Ab12Cd")
    close(mecha)
    p, lines = doctor(mecha, "--offline")
    assert lines["temps"]["status"] == "ok", lines["temps"]


def test_the_drain_sweeps_requests_and_the_attachments_dir_it_writes_into(mecha, tmp_path):
    from box_fixture import Box
    from test_drain import connect, drain, queue_lab

    box = Box(tmp_path).start()
    try:
        connect(mecha, box, "lab-application")
        seq = queue_lab(box, tmp_path)
        files = mecha.requests / "attachments" / f"{seq:010d}"
        old_record = plant(mecha.requests / f".{seq:010d}-lab-application.json.Ab12Cd")
        old_cv = plant(files / ".cv.pdf.Zz9Zz9")
        young_cv = plant(files / ".cv.pdf.yOuNg1", age=5)
        report, _ = drain(mecha)
        assert report["written"] == 1
    finally:
        box.stop()
    assert not old_record.exists() and not old_cv.exists() and young_cv.exists()
    assert (files / "cv.pdf").exists()
