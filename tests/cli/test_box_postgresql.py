"""The box on PostgreSQL, where it differs from one box on one SQLite file:
several `mecha box serve` processes share one database, so the slot hold must
be decided by the database across processes; the schema version guards the
database as it guards the file; and a connection URL carries a password that
no message may repeat. (The rest of the box suite runs on both backends:
conftest.py's box_ledger.)"""
import os
import subprocess
import threading
import time

import pytest

from box_fixture import Box, free_port, manifest
from box_visit import links, push_slots, put_type, slot_value, visit
from conftest import BIN
from test_box_bookings import CONSULT, HELD, TAKEN, slots


@pytest.fixture
def database(pg_cluster):
    url = pg_cluster.database()
    yield {"db": url, "pg": pg_cluster}
    pg_cluster.drop(url)


def test_two_boxes_on_one_database_racing_fifty_holds_for_one_slot_hold_it_once(
        tmp_path, database):
    one = Box(tmp_path / "one", **database).start()
    two = Box(tmp_path / "two", owner=None, **database)
    two.keys = one.keys
    two.start()
    try:
        put_type(one, CONSULT)
        a = slots(1)[0]
        push_slots(two, "consult", [a])
        start, answers = threading.Barrier(50), []

        def racer(i):
            start.wait()
            answers.append(visit((one, two)[i % 2], "POST", "/s/ada/consult",
                                 fields={"_slot": slot_value(a), "email": f"r{i}@example.net",
                                         "topic": "taxes"},
                                 source=f"127.0.2.{i + 1}"))

        threads = [threading.Thread(target=racer, args=(i,)) for i in range(50)]
        for t in threads:
            t.start()
        for t in threads:
            t.join(120)
        assert len(answers) == 50 and all(s == 200 for s, _, _ in answers)
        assert sum(HELD in p for _, _, p in answers) == 1
        assert sum(TAKEN in p for _, _, p in answers) == 49
        assert one.sql("SELECT COUNT(*), MIN(state) FROM bookings") == [(1, "held")]
        assert len(links(one)) + len(links(two)) == 1
        for box in (one, two):
            status, _, body = visit(box, "GET", "/s/ada/consult/slots.json")
            assert status == 200 and '"slots":[]' in body.replace(" ", "")
    finally:
        one.stop()
        two.stop()


def test_a_database_of_a_newer_schema_is_refused_and_left_alone(tmp_path, database):
    box = Box(tmp_path, **database)
    box.sql("UPDATE ledger_schema SET version = 99")
    p = box.mecha("owner", "add", "bob")
    assert p.returncode == 1
    assert "is schema 99, newer than this mecha knows" in p.err and "upgrade mecha" in p.err
    assert box.sql("SELECT handle FROM users") == [("ada",)]
    assert box.sql("SELECT version FROM ledger_schema") == [(99,)]


def refused(tmp_path, url, *where):
    """mecha box owner add against url, given on the command line or in box.toml."""
    data = tmp_path / "data"
    if where == ("config",):
        config = tmp_path / "box.toml"
        config.write_text(f'data = "{data}"\ndb = "{url}"\n')
        argv = [BIN, "box", "owner", "add", "ada", "--config", str(config)]
    else:
        argv = [BIN, "box", "owner", "add", "ada", "--data", str(data), "--db", url]
    p = subprocess.run(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=60)
    assert p.returncode == 1 and p.stdout == b""
    return p.stderr.decode()


def test_an_unreachable_server_is_named_by_its_url_without_the_password(tmp_path):
    port = free_port()  # nobody listens there once the probe socket is closed
    err = refused(tmp_path, f"postgresql://ada:s3cret-pw@127.0.0.1:{port}/box")
    assert f"postgresql://ada:***@127.0.0.1:{port}/box: cannot connect" in err
    assert "s3cret" not in err and len(err.strip().splitlines()) == 1
    err = refused(tmp_path, f"postgres://127.0.0.1:{port}/box?password=s3cret-pw", "config")
    assert f"postgres://127.0.0.1:{port}/box?password=***: cannot connect" in err
    assert "s3cret" not in err


def test_a_password_libpq_cannot_read_is_not_quoted_back(tmp_path):
    # libpq names the token it could not percent-decode: here, the password itself.
    port = free_port()
    err = refused(tmp_path, f"postgresql://ada:s3cret%zz@127.0.0.1:{port}/box")
    assert "percent-encoded" in err and "s3cret" not in err
    err = refused(tmp_path, f"postgresql://127.0.0.1:{port}/box?sslpassword=s3cret%zz", "config")
    assert "percent-encoded" in err and "s3cret" not in err


def test_a_database_that_does_not_exist_is_named_without_the_password(tmp_path, pg_cluster):
    url = pg_cluster.url("no_such_box", password="s3cret-pw")
    err = refused(tmp_path, url)
    assert url.replace("s3cret-pw", "***") + ": cannot connect" in err
    assert 'database "no_such_box" does not exist' in err and "s3cret" not in err


def test_without_libpq_a_postgresql_ledger_names_the_package(tmp_path):
    data = tmp_path / "data"
    p = subprocess.run([BIN, "box", "owner", "add", "ada", "--data", str(data), "--db",
                        "postgresql://127.0.0.1:1/box"], env={**os.environ, "MECHA_DL_MISSING": "pq"},
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=60)
    assert p.returncode == 1 and "libpq5" in p.stderr.decode()


class Holder:
    """Another session on the box's database (Debian's psql, as the cluster's user),
    fed statements one by one: a transaction a test holds open while the box writes."""

    def __init__(self, pg, url):
        from pg_cluster import BIN as PG_BIN  # on the path once the cluster fixture ran
        self.box_sql = lambda q: pg.sql(url, q)
        self.proc = subprocess.Popen(pg.as_user + [str(PG_BIN / "psql"), "-X", "-q", "-d", url],
                                     stdin=subprocess.PIPE, stdout=subprocess.DEVNULL,
                                     stderr=subprocess.DEVNULL)

    def send(self, sql):
        self.proc.stdin.write(sql.encode() + b"\n")
        self.proc.stdin.flush()

    def open(self, sql):
        """BEGIN; sql — and back once the session sits inside that transaction."""
        self.send("BEGIN; " + sql + "; SELECT 'ready';")
        while self.box_sql("SELECT COUNT(*) FROM pg_stat_activity WHERE "
                           "state = 'idle in transaction'") != [(1,)]:
            assert self.proc.poll() is None
            time.sleep(0.02)

    def close(self, how="COMMIT"):
        if self.proc.poll() is None:
            self.send(how + ";")
            self.proc.stdin.close()
            try:
                self.proc.wait(60)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()


def test_a_write_that_could_not_take_its_turn_leaves_the_connection_fit_for_the_next(
        tmp_path, database):
    """Another session holds the row a write needs past lock_timeout: that write fails,
    and once the row is free the same box writes again (its connection is not left
    inside the failed transaction)."""
    pg, url = database["pg"], database["db"]
    pg.psql("postgres", f"ALTER DATABASE {url.rsplit('/', 1)[1]} SET lock_timeout = '300ms'")
    box = Box(tmp_path, **database).start()
    put_type(box, CONSULT)
    holder = Holder(pg, url)
    try:
        holder.open("SELECT 1 FROM types WHERE id = 'consult' FOR UPDATE")
        status, _ = box.json("PUT", "/v1/types/consult", body=CONSULT.encode(), key="release")
        assert status != 200
        holder.close()
        status, body = box.json("PUT", "/v1/types/consult", body=CONSULT.encode(),
                                key="release")
        assert status == 200, body
    finally:
        holder.close()
        box.stop()


MEETING = manifest("meeting", "Request a meeting", """""")


def test_a_slot_held_open_in_one_transaction_keeps_nobody_else_waiting(tmp_path, database):
    """No lock every writer shares: while another session's transaction holds ada's slot
    (its hold inserted, not committed), bob's hold of the same time, ada's hold of
    another time and a submission of ada's other form all commit; only a hold of that
    very slot waits, and once the holder commits it finds the slot taken."""
    pg, url = database["pg"], database["db"]
    box = Box(tmp_path, **database).start()
    bob = box.mecha("owner", "add", "bob", "--json", check=0).json()
    holder = Holder(pg, url)
    try:
        put_type(box, CONSULT)
        put_type(box, MEETING)
        status, body = box.json("PUT", "/v1/types/consult", body=CONSULT.encode(),
                                key=bob["release"])
        assert status == 200, body
        a, b = slots(2)
        push_slots(box, "consult", [a, b])
        status, body = box.json("PUT", "/v1/instruments/consult/slots", key=bob["slots"],
                                body={"generated_at": a["start"], "horizon_days": 60,
                                      "slots": [a]})
        assert status == 200, body
        (ada_id,), = box.sql("SELECT id FROM users WHERE handle = 'ada'")
        holder.open("INSERT INTO bookings (id, user_id, instrument_id, slot_start, slot_end, "
                    "duration_minutes, state, hold_expires, created_at) VALUES ('held-open', "
                    f"'{ada_id}', 'consult', '{a['start']}', '{a['end']}', 30, 'held', "
                    "'2999-01-01T00:00:00Z', '2000-01-01T00:00:00Z')")

        def book(handle, s, who, source):  # distinct strangers: their own addresses
            return visit(box, "POST", f"/s/{handle}/consult",
                         fields={"_slot": slot_value(s), "email": f"{who}@example.net",
                                 "topic": "taxes"}, source=source)

        waiting = []
        racer = threading.Thread(
            target=lambda: waiting.append(book("ada", a, "late", "127.0.3.1")))
        racer.start()
        # Until the racer waits on the held row. libmicrohttpd serves each connection from
        # one thread of its pool, so a connection that thread had already taken when its
        # handler began to wait would wait with it (docs/box.md, "Several boxes"); one
        # made after that goes to a thread that is free, which is what is shown here.
        deadline = time.monotonic() + 20
        while not box.sql("SELECT 1 FROM pg_stat_activity WHERE wait_event_type = 'Lock'"):
            assert time.monotonic() < deadline, "the racer's hold never waited on the row"
            time.sleep(0.05)
        began = time.monotonic()
        for status, _, page in (book("bob", a, "b1", "127.0.3.2"),
                                book("ada", b, "a2", "127.0.3.3")):
            assert status == 200 and HELD in page
        status, _, page = visit(box, "POST", "/f/ada/meeting",
                                fields={"email": "m@example.net"}, source="127.0.3.4")
        assert status == 200 and "Check your email" in page
        assert time.monotonic() - began < 10
        assert waiting == [] and racer.is_alive()  # the very slot: it waits for the holder
        holder.close()
        racer.join(60)
        assert len(waiting) == 1 and waiting[0][0] == 200 and TAKEN in waiting[0][2]
        assert sorted(box.sql("SELECT u.handle, b.slot_start, b.state FROM bookings b JOIN "
                              "users u ON u.id = b.user_id ORDER BY 1, 2")) == sorted(
            [("ada", a["start"], "held"), ("ada", b["start"], "held"),
             ("bob", a["start"], "held")])
    finally:
        holder.close("ROLLBACK")
        box.stop()


def test_an_expired_hold_gives_way_and_the_database_refuses_two_live_holds(tmp_path, database):
    """The exclusion constraint is the rule, not the box's check: a second live row for
    an overlapping time is refused by the database itself; an expired hold is marked
    lapsed when its time is held again."""
    box = Box(tmp_path, **database).start()
    try:
        put_type(box, CONSULT)
        a = slots(1)[0]
        push_slots(box, "consult", [a])
        fields = {"_slot": slot_value(a), "email": "one@example.net", "topic": "taxes"}
        assert HELD in visit(box, "POST", "/s/ada/consult", fields=fields)[2]
        box.sql("UPDATE bookings SET hold_expires = '2000-01-01T00:00:00Z'")
        fields["email"] = "two@example.net"
        assert HELD in visit(box, "POST", "/s/ada/consult", fields=fields)[2]
        assert sorted(box.sql("SELECT state FROM bookings")) == [("held",), ("lapsed",)]
        with pytest.raises(RuntimeError, match="bookings_one_live_hold"):
            box.sql("UPDATE bookings SET state = 'held' WHERE state = 'lapsed'")
    finally:
        box.stop()
