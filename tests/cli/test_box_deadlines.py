"""Deadlines, not only idle timeouts (issue 22): a client that trickles its
headers or its body a byte at a time never lets the box's idle timeout fire,
so the box gives each phase an absolute bound — the headers header_timeout_s,
the body body_timeout_s plus its length at body_bytes_per_s — and cuts the
connection there, with a 408 line in the access log, while everyone else is
served. One address holds at most connections_per_ip of them. Raw sockets
against a real `mecha box serve` on loopback, with short bounds from box.toml."""
import select
import socket
import threading
import time

from box_fixture import Box
from box_visit import put_type
from test_box_forms import MEETING

BOUNDS = {"header_timeout_s": 2, "body_timeout_s": 1, "body_bytes_per_s": 1000,
          "timeout_s": 60}  # the idle timeout never fires for a trickle


def closed(s):
    """True when the box has ended the connection (EOF or reset), without blocking."""
    readable, _, _ = select.select([s], [], [], 0)
    if not readable:
        return False
    try:
        return s.recv(4096) == b""
    except OSError:
        return True


def trickle(port, data, every, source="127.0.0.1", after=b""):
    """Sends after at once, then data a byte every `every` seconds until the box
    closes the connection: (seconds it stayed open, whether all of data went)."""
    s = socket.socket()
    s.bind((source, 0))
    s.connect(("127.0.0.1", port))
    t0 = time.monotonic()
    try:
        s.sendall(after)
        for ch in data:
            if closed(s):
                return time.monotonic() - t0, False
            try:
                s.send(bytes([ch]))
            except OSError:
                return time.monotonic() - t0, False
            time.sleep(every)
        return time.monotonic() - t0, True
    finally:
        s.close()


def served_meanwhile(box, until):
    """/v1/health, again and again while until() is false: each answer's seconds."""
    took = []
    while not until():
        t = time.monotonic()
        status, _, _ = box.request("GET", "/v1/health", timeout=10)
        assert status == 200
        took.append(time.monotonic() - t)
        time.sleep(0.1)
    return took


def in_background(fn, *args):
    out = []
    t = threading.Thread(target=lambda: out.append(fn(*args)))
    t.start()
    return t, out


def cuts(box, phase):
    return [x for x in box.log() if x.get("cut") == phase]


def request_head(box, method, path, extra=""):
    return (f"{method} {path} HTTP/1.1\r\nHost: 127.0.0.1:{box.port}\r\n{extra}").encode()


def test_a_header_trickled_a_byte_at_a_time_is_cut_at_the_bound(tmp_path):
    b = Box(tmp_path, **BOUNDS).start()
    try:
        # 600 bytes at one every 0.05 s would take 30 s; the headers' bound is 2 s.
        head = request_head(b, "GET", "/v1/health") + b"X-Slow: " + b"a" * 600 + b"\r\n\r\n"
        t, out = in_background(trickle, b.port, head, 0.05)
        took = served_meanwhile(b, lambda: not t.is_alive())
        t.join()
        (open_for, finished), = out
        assert not finished and 1.8 < open_for < 4, open_for
        assert took and max(took) < 1, took
        [line] = cuts(b, "headers")
        assert line["status"] == 408 and line["ip"] == "127.0.0.1" and 1800 <= line["ms"] < 4000
    finally:
        b.stop()


def test_a_body_trickled_is_cut_at_a_bound_in_proportion_to_its_length(tmp_path):
    b = Box(tmp_path, **BOUNDS).start()
    try:
        put_type(b, MEETING)
        head = request_head(b, "POST", "/f/ada/meeting",
                            "Content-Type: application/x-www-form-urlencoded\r\n"
                            "Content-Length: 1000\r\n\r\n")
        # 1000 bytes: due in 1 s + 1000 / 1000 s; at 10 bytes a second it would take 100 s.
        t, out = in_background(trickle, b.port, b"a" * 1000, 0.1, "127.0.0.1", head)
        took = served_meanwhile(b, lambda: not t.is_alive())
        t.join()
        (open_for, finished), = out
        assert not finished and 1.8 < open_for < 4, open_for
        assert took and max(took) < 1, took
        [line] = cuts(b, "body")
        assert (line["status"], line["method"], line["path"]) == (408, "POST", "/f/ada/meeting")
        # A longer body is given longer: 3000 bytes in about 2.5 s is within 1 + 3 s.
        body = b"purpose=" + b"x" * 2992
        s = socket.create_connection(("127.0.0.1", b.port))
        s.sendall(request_head(b, "POST", "/f/ada/meeting",
                               "Content-Type: application/x-www-form-urlencoded\r\n"
                               f"Content-Length: {len(body)}\r\n\r\n"))
        for i in range(0, len(body), 120):
            s.sendall(body[i:i + 120])
            time.sleep(0.1)
        s.settimeout(10)
        assert s.recv(64).startswith(b"HTTP/1.1 400"), "answered: its errors, not a cut"
        s.close()
        assert len(cuts(b, "body")) == 1
    finally:
        b.stop()


def test_one_address_holds_at_most_its_share_and_each_is_cut_at_the_bound(tmp_path):
    b = Box(tmp_path, connections_per_ip=3, **BOUNDS).start()
    try:
        head = request_head(b, "GET", "/v1/health") + b"X-Slow: " + b"a" * 600 + b"\r\n\r\n"
        runs = [in_background(trickle, b.port, head, 0.05, "127.0.0.2") for _ in range(3)]
        time.sleep(0.5)  # the three hold their connections now
        extra = [in_background(trickle, b.port, head, 0.05, "127.0.0.2") for _ in range(2)]
        for t, _ in extra:
            t.join(timeout=10)
        for _, out in extra:  # over the share: closed at once
            (open_for, finished), = out
            assert not finished and open_for < 1, open_for
        took = served_meanwhile(b, lambda: not any(t.is_alive() for t, _ in runs))
        assert took and max(took) < 1, took
        for t, out in runs:
            t.join()
            (open_for, finished), = out
            assert not finished and 1.3 < open_for < 4, open_for
        lines = cuts(b, "headers")
        assert len(lines) == 3 and {x["ip"] for x in lines} == {"127.0.0.2"}
        assert b.request("GET", "/v1/health")[0] == 200
    finally:
        b.stop()


def test_kept_alive_an_idle_connection_meets_the_idle_timeout_and_a_trickle_the_deadline(tmp_path):
    b = Box(tmp_path, header_timeout_s=2, timeout_s=2).start()
    try:
        answered = b"GET /v1/health HTTP/1.1\r\nHost: 127.0.0.1:%d\r\n\r\n" % b.port
        idle = socket.create_connection(("127.0.0.1", b.port))
        idle.sendall(answered)
        idle.settimeout(10)
        assert idle.recv(4096).startswith(b"HTTP/1.1 200")
        t0 = time.monotonic()
        while not closed(idle) and time.monotonic() - t0 < 10:
            time.sleep(0.05)
        assert 1.5 < time.monotonic() - t0 < 3.5, "closed by the idle timeout"
        idle.close()
        assert cuts(b, "headers") == [], "an idle connection is not a cut"
        # The second request on a kept-alive connection, trickled: cut at 2 + 2 s.
        s = socket.create_connection(("127.0.0.1", b.port))
        s.sendall(answered)
        s.settimeout(10)
        assert s.recv(4096).startswith(b"HTTP/1.1 200")
        t0 = time.monotonic()
        for ch in request_head(b, "GET", "/v1/health") + b"X-Slow: " + b"a" * 600:
            if closed(s):
                break
            s.send(bytes([ch]))
            time.sleep(0.05)
        assert 3.6 < time.monotonic() - t0 < 6, time.monotonic() - t0
        s.close()
        [line] = cuts(b, "headers")
        assert line["status"] == 408
    finally:
        b.stop()
