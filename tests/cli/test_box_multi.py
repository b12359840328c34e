"""Three `mecha box serve` behind Debian's HAProxy on loopback, one PostgreSQL
database, and nothing else in common (docs/box.md, "Several boxes"): a
stranger's form submitted through one box, confirmed through another, its file
uploaded through the third and drained through the proxy; bookings racing
across all three for one slot; a box killed (SIGKILL) in the middle of an
upload and of holds loses nothing and duplicates nothing."""
import os
import shutil
import signal
import socket
import subprocess
import threading
import time

import pytest

from box_fixture import Box, free_port, manifest
from box_visit import links, path_of, push_slots, put_type, slot_value, visit
from test_box_bookings import CONSULT, HELD, TAKEN, slots
from test_box_uploads import multipart

HAPROXY = shutil.which("haproxy") or "/usr/sbin/haproxy"

APPLY = manifest("apply", "Apply", """
[[fields]]
name = "cv"
label = "Your CV"
kind = "file"
accept = ["pdf"]
max_bytes = 2000000
required = true
""")

pytestmark = pytest.mark.skipif(not os.access(HAPROXY, os.X_OK),
                                reason="haproxy is not installed (Debian package haproxy, "
                                       "in the Makefile's DEB_PKGS)")


class Proxy:
    """HAProxy in the foreground, round robin over the boxes (so that one stranger's
    steps land on different boxes), its own free port on 127.0.0.1; a box that does
    not answer is passed over (redispatch), as a dead one is in production."""

    def __init__(self, tmp_path, port, boxes):
        self.port = port
        cfg = tmp_path / "haproxy.cfg"
        servers = "\n".join(f"    server b{i} 127.0.0.1:{b.port} check inter 200ms fall 1 rise 1"
                            for i, b in enumerate(boxes))
        cfg.write_text(f"""global
    maxconn 512
defaults
    mode http
    timeout connect 5s
    timeout client 60s
    timeout server 60s
    retries 3
    option redispatch 1
frontend box
    bind 127.0.0.1:{port}
    default_backend boxes
backend boxes
    balance roundrobin
{servers}
""")
        self.log = open(tmp_path / "haproxy.log", "wb")
        self.proc = subprocess.Popen([HAPROXY, "-db", "-f", str(cfg)], stdout=self.log,
                                     stderr=subprocess.STDOUT)
        deadline = time.time() + 15
        while True:
            try:
                socket.create_connection(("127.0.0.1", port), timeout=1).close()
                return
            except OSError:
                assert self.proc.poll() is None and time.time() < deadline, "haproxy did not start"
                time.sleep(0.05)

    def stop(self):
        if self.proc.poll() is None:
            self.proc.terminate()
            self.proc.wait(30)
        self.log.close()


@pytest.fixture
def farm(tmp_path, pg_cluster):
    url = pg_cluster.database()
    proxy_port = free_port()
    extra = f'public_url = "http://127.0.0.1:{proxy_port}"'
    first = Box(tmp_path / "b0", db=url, pg=pg_cluster, extra=extra)
    boxes = [first]
    for i in (1, 2):
        b = Box(tmp_path / f"b{i}", owner=None, db=url, pg=pg_cluster, extra=extra)
        b.keys = first.keys
        boxes.append(b)
    for b in boxes:
        b.start()
    proxy = Proxy(tmp_path, proxy_port, boxes)
    # the proxy as a Box for the helpers: its port, the owner's keys, the same ledger
    through = Box.__new__(Box)
    through.__dict__.update(first.__dict__)
    through.port = proxy_port
    try:
        yield boxes, through
    finally:
        proxy.stop()
        for b in boxes:
            b.stop()
        pg_cluster.drop(url)


def cv(n=600 * 1024):
    return b"%PDF-1.4\n" + os.urandom(n)  # three ledger parts


def all_links(boxes):
    return [link for b in boxes for link in links(b)]


def test_one_stranger_across_three_boxes_and_the_drain_through_the_proxy(farm):
    boxes, proxy = farm
    put_type(proxy, APPLY)
    status, _, page = visit(boxes[0], "POST", "/f/ada/apply", fields={"email": "s@example.net"})
    assert status == 200 and "Check your email" in page
    [link] = links(boxes[0])
    assert link.startswith(f"http://127.0.0.1:{proxy.port}/f/ada/apply/c/")
    status, headers, _ = visit(boxes[1], "POST", path_of(link))
    assert status == 303
    data = cv()
    body, h = multipart([("cv", "cv.pdf", data, "application/pdf")])
    status, _, page = visit(boxes[2], "POST", headers["location"], body=body, headers=h)
    assert status == 200 and "Confirmed" in page
    for b in boxes:
        assert not (b.data / "attachments").exists(), "no box keeps a stranger's file on disk"
    status, got = proxy.json("GET", "/v1/queue?since=0", key="drain")
    [record] = got["records"]
    [att] = record["attachments"]
    for _ in boxes:  # round robin: each box serves it once
        status, _, body = proxy.request("GET", f"/v1/queue/attachments/{att['id']}", key="drain")
        assert status == 200 and body == data
    assert proxy.json("POST", "/v1/queue/ack", body={"seqs": [record["seq"]]},
                      key="drain") == (200, {"deleted": 1})
    assert proxy.sql("SELECT COUNT(*) FROM attachment_parts") == [(0,)]
    assert proxy.json("GET", "/v1/queue?since=0", key="drain")[1]["records"] == []


def test_thirty_strangers_racing_across_three_boxes_hold_one_slot_once(farm):
    boxes, proxy = farm
    put_type(proxy, CONSULT)
    a = slots(1)[0]
    push_slots(proxy, "consult", [a])
    start, answers = threading.Barrier(30), []

    def racer(i):
        start.wait()
        answers.append(visit(boxes[i % 3], "POST", "/s/ada/consult",
                             fields={"_slot": slot_value(a), "email": f"r{i}@example.net",
                                     "topic": "taxes"}, source=f"127.0.4.{i + 1}"))

    threads = [threading.Thread(target=racer, args=(i,)) for i in range(30)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(120)
    assert len(answers) == 30 and all(s == 200 for s, _, _ in answers)
    assert sum(HELD in p for _, _, p in answers) == 1
    assert sum(TAKEN in p for _, _, p in answers) == 29
    assert proxy.sql("SELECT COUNT(*) FROM bookings") == [(1,)]
    assert len(all_links(boxes)) == 1


def kill(box):
    box.proc.send_signal(signal.SIGKILL)
    box.proc.wait(30)


def test_a_box_killed_mid_upload_and_mid_hold_loses_and_duplicates_nothing(farm):
    boxes, proxy = farm
    put_type(proxy, APPLY)
    put_type(proxy, CONSULT)
    visit(boxes[0], "POST", "/f/ada/apply", fields={"email": "k@example.net"})
    status, headers, _ = visit(boxes[1], "POST", path_of(links(boxes[0])[-1]))
    upload_path = headers["location"]
    data = cv()
    body, h = multipart([("cv", "cv.pdf", data, "application/pdf")])
    # Half the upload reaches the third box, which dies before the rest arrives.
    s = socket.create_connection(("127.0.0.1", boxes[2].port))
    s.sendall(f"POST {upload_path} HTTP/1.1\r\nHost: 127.0.0.1:{boxes[2].port}\r\n"
              f"Content-Type: {h['Content-Type']}\r\nContent-Length: {len(body)}\r\n\r\n"
              .encode() + body[:len(body) // 2])
    time.sleep(0.3)
    kill(boxes[2])
    s.close()
    assert proxy.sql("SELECT COUNT(*) FROM attachments") == [(0,)]
    assert proxy.sql("SELECT COUNT(*) FROM attachment_parts") == [(0,)]
    # The link still works, through another box.
    status, _, page = visit(boxes[0], "POST", upload_path, body=body, headers=h)
    assert status == 200 and "Confirmed" in page
    # Holds for distinct slots posted at a box that is killed while they run.
    ss = slots(12)
    push_slots(proxy, "consult", ss)
    boxes[1].stop()
    boxes[1].start()
    answers = []

    def hold(i):
        try:
            answers.append(visit(boxes[1], "POST", "/s/ada/consult",
                                 fields={"_slot": slot_value(ss[i]), "email": f"h{i}@example.net",
                                         "topic": "taxes"}, source=f"127.0.5.{i + 1}"))
        except OSError:
            pass  # cut off by the kill: the stranger tries again
    threads = [threading.Thread(target=hold, args=(i,)) for i in range(12)]
    for t in threads:
        t.start()
    time.sleep(0.05)
    kill(boxes[1])
    for t in threads:
        t.join(60)
    # Every hold that landed has its submitted row; none without; none twice.
    held = proxy.sql("SELECT b.slot_start, q.state FROM bookings b LEFT JOIN queue q "
                     "ON q.seq = b.queue_seq ORDER BY 1")
    assert all(state == "submitted" for _, state in held), held
    assert len({start for start, _ in held}) == len(held)
    # Each stranger tries again at a living box: every slot ends held exactly once.
    for i in range(12):
        status, _, page = visit(boxes[0], "POST", "/s/ada/consult",
                                fields={"_slot": slot_value(ss[i]), "email": f"h{i}@example.net",
                                        "topic": "taxes"}, source=f"127.0.5.{i + 1}")
        assert status == 200 and (HELD in page or TAKEN in page)
    assert proxy.sql("SELECT COUNT(*), COUNT(DISTINCT slot_start) FROM bookings "
                     "WHERE state = 'held'") == [(12, 12)]
    [record] = proxy.json("GET", "/v1/queue?since=0", key="drain")[1]["records"]
    [att] = record["attachments"]
    assert proxy.request("GET", f"/v1/queue/attachments/{att['id']}", key="drain")[2] == data
