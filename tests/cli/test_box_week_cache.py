"""The week page is rendered once and kept (src/box/weekcache.h) — but never
shown stale: whatever changes the instrument's bookings or slots, through this
box, another box on the same ledger, or a hand in the ledger itself, shows on
the very next GET, and so does time passing (a hold lapsing, a slot starting).
Each test once on SQLite and once on PostgreSQL (conftest.py)."""
import datetime
import time

import pytest

from box_fixture import Box
from box_visit import hour, push_slots, put_type, slot, slot_value, utc, visit
from test_box_bookings import CONSULT, HELD, hold, slots

pytestmark = pytest.mark.usefixtures("box_ledger")


@pytest.fixture
def boxes(tmp_path):
    """Two boxes serving one ledger: the page seen through the first, changes made
    through the second."""
    a = Box(tmp_path / "a").start()
    b = Box(tmp_path / "b", owner=None, db=a.db, pg=a.pg).start()
    b.keys = a.keys
    put_type(a, CONSULT)
    yield a, b
    b.stop()
    a.stop()


def week(box, query=""):
    """The slot values the week page offers, in page order."""
    status, _, page = visit(box, "GET", "/s/ada/consult" + query)
    assert status == 200
    return [part.split('"', 1)[0] for part in page.split('name="_slot" value="')[1:]]


def values(*ss):
    return [slot_value(s) for s in ss]


def test_a_hold_through_another_box_leaves_the_page_at_once(boxes):
    a, b = boxes
    x, y = slots(2)
    push_slots(a, "consult", [x, y])
    assert week(a) == week(a) == values(x, y)  # rendered, then kept
    status, _, page = hold(b, x)
    assert status == 200 and HELD in page
    assert week(a) == values(y)
    assert week(b) == values(y)


def test_a_push_through_another_box_shows_at_once(boxes):
    a, b = boxes
    x, y = slots(2)
    push_slots(a, "consult", [x])
    assert week(a) == values(x)
    push_slots(b, "consult", [x, y])
    assert week(a) == values(x, y)
    push_slots(b, "consult", [y])
    assert week(a) == values(y)


def test_a_hold_written_in_the_ledger_by_hand_counts_at_once_and_lapses_on_time(boxes):
    a, _ = boxes
    x, y = slots(2)
    push_slots(a, "consult", [x, y])
    assert week(a) == values(x, y)
    user = a.sql("SELECT id FROM users WHERE handle = 'ada'")[0][0]
    now = datetime.datetime.now(datetime.timezone.utc)
    lapses = now + datetime.timedelta(seconds=3)
    a.sql("INSERT INTO bookings (id, user_id, instrument_id, slot_start, slot_end, "
          "duration_minutes, state, hold_expires, created_at) VALUES ('byhand', "
          f"'{user}', 'consult', '{x['start']}', '{x['end']}', 30, 'held', "
          f"'{utc(lapses)}', '{utc(now)}')")
    assert week(a) == values(y)
    assert week(a) == values(y)  # kept, until the hold lapses
    while datetime.datetime.now(datetime.timezone.utc) < lapses + datetime.timedelta(seconds=1):
        time.sleep(0.1)
    assert week(a) == values(x, y)  # nothing in the ledger changed: time did
    a.sql("UPDATE bookings SET state = 'confirmed' WHERE id = 'byhand'")
    assert week(a) == values(y)
    a.sql("DELETE FROM bookings WHERE id = 'byhand'")
    assert week(a) == values(x, y)


def test_a_slot_leaves_the_page_when_it_starts(boxes):
    a, _ = boxes
    soon = datetime.datetime.now(datetime.timezone.utc).replace(microsecond=0) + \
        datetime.timedelta(seconds=3)
    x, later = slot(soon), slot(hour(days=0, hours=1))
    push_slots(a, "consult", [x, later])
    assert week(a) == week(a) == values(x, later)
    while datetime.datetime.now(datetime.timezone.utc) < soon + datetime.timedelta(seconds=1):
        time.sleep(0.1)
    assert week(a) == values(later)


def test_each_week_and_length_is_its_own_page(boxes):
    a, b = boxes
    near, far = slot(hour(days=1)), slot(hour(days=15))
    longer = slot(hour(days=1, hours=3), 60)
    push_slots(a, "consult", [near, far, longer])
    monday = far["start"][:10]
    assert week(a) == values(near)
    assert week(a, "?mins=60") == values(longer)
    assert week(a, f"?week={monday}") == values(far)
    hold(b, far)
    assert week(a, f"?week={monday}") == []
    assert week(a) == values(near) and week(a, "?mins=60") == values(longer)
