"""A 16 MiB upload never sits whole in the box's memory (docs/box.md, "The pages strangers see"): the
body is read as it arrives and each file goes to the ledger a 256 KiB part at a time,
and a download is sent the same way. Measured by the kernel, not by a clock: the box's
peak resident set (VmHWM) is reset to what it holds now (clear_refs, 5), the file goes
in (or out), and the peak may have risen by far less than the file."""
import hashlib
import os
import random
import socket
import time

import pytest

from box_fixture import Box, manifest
from box_visit import drain, links, path_of, put_type, visit
from test_box_uploads import multipart

# Every test once on SQLite and once on PostgreSQL (conftest.py).
pytestmark = pytest.mark.usefixtures("box_ledger")

MIB = 1024 * 1024
FILE = 16 * MIB
RISE = 8 * MIB  # what the peak may grow by: half the file (a whole copy was 32 MB)

BIG = manifest("big", "Big", f"""
[[fields]]
name = "cv"
label = "Your CV"
kind = "file"
accept = ["pdf"]
max_bytes = {FILE}
required = true
""")


def box_pid(box):
    """The process serving: `mecha box serve` executes mecha-box in its place."""
    pid = box.proc.pid
    assert os.readlink(f"/proc/{pid}/exe").endswith("mecha-box")
    return pid


def status_kib(pid, name):
    for line in open(f"/proc/{pid}/status"):
        if line.startswith(name + ":"):
            return int(line.split()[1])
    raise AssertionError(f"no {name} in /proc/{pid}/status")


def reset_peak(pid):
    """VmHWM back to VmRSS (proc(5), clear_refs: 5); what it holds now, in bytes."""
    with open(f"/proc/{pid}/clear_refs", "w") as f:
        f.write("5")
    return status_kib(pid, "VmRSS") * 1024


def rise(pid, before):
    return status_kib(pid, "VmHWM") * 1024 - before


def sanitized():
    """Whether mecha is built with AddressSanitizer (make asan): its allocator keeps freed
    memory in quarantine and maps shadow memory, so a peak measured under it is not ours."""
    here = os.path.dirname(os.path.abspath(__file__))
    binary = os.environ.get("MECHA_BIN", os.path.join(here, "..", "..", "build", "test", "mecha"))
    with open(binary, "rb") as f:
        return b"__asan_init" in f.read()


def test_a_16_mib_upload_and_its_download_raise_the_peak_by_far_less_than_the_file(tmp_path):
    if sanitized():
        pytest.skip("a sanitizer build's peak memory is its allocator's, not the box's")
    box = Box(tmp_path, upload_bytes_per_ip_day=4 * FILE).start()
    try:
        put_type(box, BIG)
        assert visit(box, "POST", "/f/ada/big", fields={"email": "a@example.net"})[0] == 200
        status, headers, _ = visit(box, "POST", path_of(links(box)[-1]))
        assert status == 303
        path = headers["location"]
        data = b"%PDF-1.4\n" + random.Random(27).randbytes(FILE - 9)
        body, h = multipart([("cv", "big.pdf", data, "application/pdf")])
        # the upload page once first: what any first request costs is not the file's
        assert visit(box, "GET", path)[0] == 200
        pid = box_pid(box)

        before = reset_peak(pid)
        status, _, page = visit(box, "POST", path, body=body, headers=h)
        up = rise(pid, before)
        assert status == 200 and "Confirmed" in page, page[:300]
        assert up < RISE, f"a {FILE >> 20} MiB upload raised the box's peak by {up >> 10} KiB"

        [record] = drain(box)
        [att] = record["attachments"]
        assert att["size"] == FILE
        assert att["sha256"] == "sha256:" + hashlib.sha256(data).hexdigest()
        before = reset_peak(pid)
        status, got = box.request("GET", f"/v1/queue/attachments/{att['id']}", key="drain")[::2]
        down = rise(pid, before)
        assert status == 200 and got == data
        assert down < RISE, f"its download raised the box's peak by {down >> 10} KiB"
        # nothing left in the spool: the upload's transaction took every part
        assert box.sql("SELECT COUNT(*) FROM upload_spool") == [(0,)]
    finally:
        box.stop()


def test_a_refused_upload_leaves_nothing_in_the_spool(tmp_path):
    """A part past the type's budget: the spool it had begun is dropped, and 413."""
    small = BIG.replace(f"max_bytes = {FILE}", f"max_bytes = {MIB}")
    box = Box(tmp_path).start()
    try:
        put_type(box, small)
        assert visit(box, "POST", "/f/ada/big", fields={"email": "a@example.net"})[0] == 200
        status, headers, _ = visit(box, "POST", path_of(links(box)[-1]))
        path = headers["location"]
        data = b"%PDF-1.4\n" + bytes(2 * MIB)
        body, h = multipart([("cv", "big.pdf", data, "application/pdf")])
        assert visit(box, "POST", path, body=body, headers=h)[0] == 413
        assert box.sql("SELECT COUNT(*) FROM upload_spool") == [(0,)]
        assert box.sql("SELECT COUNT(*) FROM attachment_parts") == [(0,)]
        # and the link still works for a file that fits
        body, h = multipart([("cv", "cv.pdf", b"%PDF-1.4\n" + bytes(300 * 1024),
                              "application/pdf")])
        status, _, page = visit(box, "POST", path, body=body, headers=h)
        assert status == 200 and "Confirmed" in page
        assert box.sql("SELECT COUNT(*) FROM upload_spool") == [(0,)]
        assert box.sql("SELECT COUNT(*) FROM attachment_parts") == [(2,)]
    finally:
        box.stop()


def test_an_upload_its_client_breaks_off_leaves_nothing_in_the_spool(tmp_path):
    """Half a body, then the connection closed: what was spooled of it is dropped when the
    box sees the connection go (waited for, up to a bound, never timed)."""
    box = Box(tmp_path).start()
    try:
        put_type(box, BIG)
        assert visit(box, "POST", "/f/ada/big", fields={"email": "a@example.net"})[0] == 200
        status, headers, _ = visit(box, "POST", path_of(links(box)[-1]))
        path = headers["location"]
        body, h = multipart([("cv", "big.pdf", b"%PDF-1.4\n" + bytes(2 * MIB), None)])
        s = socket.create_connection(("127.0.0.1", box.port))
        s.sendall(f"POST {path} HTTP/1.1\r\nHost: 127.0.0.1:{box.port}\r\n"
                  f"Content-Type: {h['Content-Type']}\r\nContent-Length: {len(body)}\r\n\r\n"
                  .encode() + body[:MIB + 1000])
        # the box has spooled what came: four parts of it, once it has read that far
        deadline = time.monotonic() + 30
        while box.sql("SELECT COUNT(*) FROM upload_spool") != [(4,)]:
            assert time.monotonic() < deadline, box.sql("SELECT COUNT(*) FROM upload_spool")
            time.sleep(0.05)
        s.close()
        while box.sql("SELECT COUNT(*) FROM upload_spool") != [(0,)]:
            assert time.monotonic() < deadline, "the spool of a broken-off upload stayed"
            time.sleep(0.05)
        assert box.sql("SELECT COUNT(*) FROM attachment_parts") == [(0,)]
        # and the link still takes the file
        status, _, page = visit(box, "POST", path, body=body, headers=h)
        assert status == 200 and "Confirmed" in page
    finally:
        box.stop()
