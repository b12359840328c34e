"""A ledger of schema 2 (before counter rows and attachment bytes in the ledger)
opened by this box: the budgets already spent carry over into the counter
rows, and the files the old box kept in its data directory are moved into the
ledger by `serve` before it listens — served from there, gone from the disk.
Run once on SQLite and once on PostgreSQL (conftest.py's box_ledger)."""
import json

import pytest

from box_fixture import Box

pytestmark = pytest.mark.usefixtures("box_ledger")


def back_to_schema_2(box):
    """What a box of schema 2 left: no counter rows, no parts, its files on disk."""
    if box.pg:
        box.sql("ALTER TABLE bookings DROP CONSTRAINT bookings_one_live_hold")
        box.sql("DROP TYPE ledger_span")
        box.sql("UPDATE ledger_schema SET version = 2")
    else:
        box.sql("PRAGMA user_version = 2")
    for table in ("send_counts", "holders", "attachment_parts"):
        box.sql(f"DROP TABLE {table}")
    box.sql("ALTER TABLE bookings DROP COLUMN replaces")  # v7's


def test_an_older_ledger_is_migrated_and_its_files_move_into_it(tmp_path):
    box = Box(tmp_path)
    png = tmp_path / "photo.png"
    png.write_bytes(b"\x89PNG\r\n\x1a\n" + bytes(range(256)) * 2000)  # two parts and a bit
    seq = box.queue({"purpose": "see photo"}, f"photo={png}")
    (user,), = box.sql("SELECT id FROM users WHERE handle = 'ada'")
    (att,), = box.sql("SELECT id FROM attachments")
    data = box.attachment_bytes(att)
    assert data == png.read_bytes()
    back_to_schema_2(box)
    old = box.data / "attachments" / user / att
    old.parent.mkdir(parents=True)
    old.write_bytes(data)
    box.sql(f"INSERT INTO sends (user_id, day, recipient_hash, ip_hash, sent_at) VALUES "
            f"('{user}', '2026-01-01', 'r1', '', '2026-01-01T00:00:00Z')")
    box.sql(f"INSERT INTO sends (user_id, day, recipient_hash, ip_hash, sent_at) VALUES "
            f"('{user}', '2026-01-01', 'r1', '', '2026-01-01T00:00:01Z')")
    box.start()
    try:
        assert any(e.get("event") == "attachments_moved" and e["files"] == 1 for e in box.log())
        assert not old.exists(), "the file went once its bytes were in the ledger"
        assert box.attachment_bytes(att) == data
        status, _, body = box.request("GET", f"/v1/queue/attachments/{att}", key="drain")
        assert status == 200 and body == data
        assert sorted(box.sql("SELECT recipient_hash, n FROM send_counts")) == \
            [("*", 2), ("r1", 2)]
        assert box.json("POST", "/v1/queue/ack", body={"seqs": [seq]}, key="drain") == \
            (200, {"deleted": 1})
        assert box.sql("SELECT COUNT(*) FROM attachment_parts") == [(0,)]
    finally:
        box.stop()
    report = box.mecha("sweep", "--json", check=0).json()
    assert report["moved_files"] == 0 and json.dumps(report)
