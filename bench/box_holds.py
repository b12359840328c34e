"""make bench, the box's row: holds a second for distinct slots, at one box and
at three `mecha box serve` on one PostgreSQL database (tests/support/pg_cluster.py,
Debian's postgresql). Every hold is a different stranger (their own address
and mail address) on a different slot, posted by 16 clients at once spread
over the boxes: what the ledger lets through when nobody waits on anybody.
Without PostgreSQL here the row says so and the bench goes on.

usage: bench/box_holds.py PATH-TO-MECHA"""
import http.client
import json
import os
import pathlib
import subprocess
import sys
import tempfile
import threading
import time
import urllib.parse
from datetime import datetime, timedelta, timezone

ROOT = pathlib.Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests" / "support"))
from pg_cluster import PgCluster  # noqa: E402
from ports import free_port  # noqa: E402

CONSULT = (ROOT / "tests" / "fixtures" / "box" / "consult.toml").read_text()
HOLDS = 400
CLIENTS = 16


def utc(t):
    return t.strftime("%Y-%m-%dT%H:%M:%SZ")


class Serve:
    def __init__(self, mecha, work, url):
        self.dir = work
        self.dir.mkdir(parents=True)
        self.port = free_port()
        (self.dir / "box.toml").write_text(
            f'listen = "127.0.0.1:{self.port}"\ndata = "{self.dir / "data"}"\ndb = "{url}"\n'
            "[limits]\nrequests_per_minute = 1000000\nthreads = 4\n")
        self.err = open(self.dir / "stderr.log", "wb")
        self.proc = subprocess.Popen([mecha, "box", "serve", "--config",
                                      str(self.dir / "box.toml")],
                                     stdout=subprocess.DEVNULL, stderr=self.err)
        deadline = time.time() + 20
        while b'"event":"listening"' not in (self.dir / "stderr.log").read_bytes():
            if time.time() > deadline or self.proc.poll() is not None:
                raise SystemExit("bench: mecha box serve did not start")
            time.sleep(0.05)

    def request(self, method, path, body=None, headers=None, source=None):
        c = http.client.HTTPConnection("127.0.0.1", self.port, timeout=60,
                                       source_address=(source, 0) if source else None)
        c.request(method, path, body=body, headers=headers or {})
        r = c.getresponse()
        out = r.status, r.read()
        c.close()
        return out

    def stop(self):
        self.proc.terminate()
        self.proc.wait(30)
        self.err.close()


def round_of(mecha, cluster, work, nboxes):
    url = cluster.database()
    data = work / f"owner{nboxes}"
    keys = json.loads(subprocess.run([mecha, "box", "owner", "add", "ada", "--data", str(data),
                                      "--db", url, "--json"], check=True,
                                     capture_output=True).stdout)
    cluster.sql(url, "UPDATE users SET send_budget = 1000000")
    boxes = [Serve(mecha, work / f"r{nboxes}-{i}", url) for i in range(nboxes)]
    try:
        auth = lambda scope: {"Authorization": f"Bearer {keys[scope]}"}  # noqa: E731
        assert boxes[0].request("PUT", "/v1/types/consult", CONSULT.encode(),
                                auth("release"))[0] == 200
        first = datetime.now(timezone.utc).replace(minute=0, second=0, microsecond=0) + \
            timedelta(days=3)
        slots = [{"start": utc(first + timedelta(minutes=30 * i)),
                  "end": utc(first + timedelta(minutes=30 * i + 30)), "duration_minutes": 30}
                 for i in range(HOLDS)]
        push = json.dumps({"generated_at": utc(datetime.now(timezone.utc)), "horizon_days": 60,
                           "slots": slots}).encode()
        assert boxes[0].request("PUT", "/v1/instruments/consult/slots", push,
                                auth("slots"))[0] == 200
        todo = list(range(HOLDS))
        lock, held = threading.Lock(), []

        def client():
            while True:
                with lock:
                    if not todo:
                        return
                    i = todo.pop()
                body = urllib.parse.urlencode({"_slot": f"{slots[i]['start']}|30",
                                               "email": f"s{i}@example.net"}).encode()
                status, page = boxes[i % nboxes].request(
                    "POST", "/s/ada/consult", body,
                    {"Content-Type": "application/x-www-form-urlencoded"},
                    source=f"127.1.{i // 250}.{i % 250 + 1}")
                if status == 200 and b"Almost there" in page:
                    with lock:
                        held.append(i)

        threads = [threading.Thread(target=client) for _ in range(CLIENTS)]
        t0 = time.monotonic()
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        took = time.monotonic() - t0
        if len(held) != HOLDS:
            raise SystemExit(f"bench: {len(held)} of {HOLDS} distinct slots held")
        return HOLDS / took
    finally:
        for b in boxes:
            b.stop()
        cluster.drop(url)


def main():
    mecha = sys.argv[1]
    if PgCluster.missing():
        print(f"box holds: skipped ({PgCluster.missing()})")
        return
    work = pathlib.Path(tempfile.mkdtemp(prefix="mecha-bench-box-"))
    os.chmod(work, 0o755)  # the cluster's user passes through it
    (work / "pg").mkdir()
    cluster = PgCluster(work / "pg").start()
    try:
        one = round_of(mecha, cluster, work, 1)
        three = round_of(mecha, cluster, work, 3)
    finally:
        cluster.stop()
        subprocess.run(["rm", "-rf", str(work)], check=False)
    print(f"box holds, distinct slots, PostgreSQL: {one:.0f}/s at one box, "
          f"{three:.0f}/s at three ({CLIENTS} clients, {HOLDS} holds)")


if __name__ == "__main__":
    main()
