"""The box on PostgreSQL, where it differs from one box on one SQLite file:
several `mecha box serve` processes share one database, so the slot hold must
be decided by the database across processes; the schema version guards the
database as it guards the file; and a connection URL carries a password that
no message may repeat. (The rest of the box suite runs on both backends:
conftest.py's box_ledger.)"""
import os
import subprocess
import threading

import pytest

from box_fixture import Box, free_port
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


def test_a_write_that_could_not_take_its_turn_leaves_the_connection_fit_for_the_next(
        tmp_path, database):
    """Another session holds the writers' advisory lock past lock_timeout: that write
    fails, and once the lock is free the same box writes again (its connection is not
    left inside the half-begun transaction)."""
    from pg_cluster import BIN as PG_BIN  # on the path once the cluster fixture ran

    pg, url = database["pg"], database["db"]
    pg.psql("postgres", f"ALTER DATABASE {url.rsplit('/', 1)[1]} SET lock_timeout = '300ms'")
    box = Box(tmp_path, **database).start()
    holder = subprocess.Popen(pg.as_user + [str(PG_BIN / "psql"), "-X", "-q",
                                            "-d", url],
                              stdin=subprocess.PIPE, stdout=subprocess.DEVNULL,
                              stderr=subprocess.DEVNULL)
    try:
        # ledger_pg.c's lock: every box writer waits on it
        holder.stdin.write(b"BEGIN; SELECT pg_advisory_xact_lock(469853480033);\n")
        holder.stdin.flush()
        while box.sql("SELECT COUNT(*) FROM pg_locks WHERE locktype = 'advisory' "
                      "AND granted") != [(1,)]:
            assert holder.poll() is None
        status, _ = box.json("PUT", "/v1/types/consult", body=CONSULT.encode(), key="release")
        assert status != 200
        holder.stdin.write(b"COMMIT;\n")
        holder.stdin.close()
        holder.wait(60)
        status, body = box.json("PUT", "/v1/types/consult", body=CONSULT.encode(),
                                key="release")
        assert status == 200, body
    finally:
        if holder.poll() is None:
            holder.kill()
            holder.wait()
        box.stop()
