"""Files after a verified address (docs/protocol/box-pages.md §2, the upload POST): the 303 to
the upload page, multipart checked in docs/protocol/box-pages.md §2's order, the type decided
by the bytes and never by the name, blobs on disk and the row queued with its
attachments in one go. The PDF, PNG and JPEG are real, made here."""
import hashlib
import io
import struct
import zipfile
import zlib

import pytest

from box_fixture import Box, manifest
from box_visit import EXPIRED, drain, ledger, links, path_of, put_type, visit

# Every test once on SQLite and once on PostgreSQL (conftest.py).
pytestmark = pytest.mark.usefixtures("box_ledger")

APPLY = manifest("apply", "Apply", """
[[fields]]
name = "portfolio"
label = "Do you have a portfolio?"
kind = "bool"

[[fields]]
name = "cv"
label = "Your CV"
kind = "file"
accept = ["pdf"]
max_bytes = 4096
required = true

[[fields]]
name = "photo"
label = "A photo"
kind = "file"
accept = ["png", "jpeg"]
max_bytes = 4096
show_when = { field = "portfolio", op = "is_true" }
""")


def pdf():
    objs = [b"<< /Type /Catalog /Pages 2 0 R >>", b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
            b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 72 72] >>"]
    out, offsets = b"%PDF-1.4\n", []
    for i, o in enumerate(objs, 1):
        offsets.append(len(out))
        out += b"%d 0 obj\n%s\nendobj\n" % (i, o)
    xref = len(out)
    out += b"xref\n0 4\n0000000000 65535 f \n" + b"".join(b"%010d 00000 n \n" % o for o in offsets)
    return out + b"trailer\n<< /Size 4 /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n" % xref


def png():
    def chunk(kind, data):
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", 1, 1, 8, 0, 0, 0, 0))
            + chunk(b"IDAT", zlib.compress(b"\x00\x80")) + chunk(b"IEND", b""))


def jpeg():
    """An 8x8 grey baseline JPEG: one block, every coefficient zero."""
    def seg(marker, body):
        return b"\xff" + bytes([marker]) + struct.pack(">H", len(body) + 2) + body
    dht = lambda cls: seg(0xC4, bytes([cls, 1] + [0] * 15) + b"\x00")  # noqa: E731
    return (b"\xff\xd8" + seg(0xE0, b"JFIF\x00\x01\x01\x00\x00\x01\x00\x01\x00\x00")
            + seg(0xDB, b"\x00" + b"\x01" * 64) + seg(0xC0, b"\x08\x00\x08\x00\x08\x01\x01\x11\x00")
            + dht(0x00) + dht(0x10) + seg(0xDA, b"\x01\x01\x00\x00\x3f\x00") + b"\x3f\xff\xd9")


def zip_named_pdf():
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w") as z:
        z.writestr("cv.pdf", pdf())
    return out.getvalue()


def multipart(parts, boundary="----mechaTestBoundary7MA4YWxk"):
    """parts: (name, filename or None, bytes, content type)."""
    body = b""
    for name, filename, data, ctype in parts:
        disp = f'form-data; name="{name}"' + (f'; filename="{filename}"' if filename is not None
                                              else "")
        body += f"--{boundary}\r\nContent-Disposition: {disp}\r\n".encode()
        body += (f"Content-Type: {ctype}\r\n" if ctype else "").encode() + b"\r\n" + data + b"\r\n"
    body += f"--{boundary}--\r\n".encode()
    return body, {"Content-Type": f"multipart/form-data; boundary={boundary}"}


@pytest.fixture
def box(tmp_path):
    b = Box(tmp_path, upload_bytes_per_ip_day=9000).start()
    put_type(b, APPLY)
    yield b
    b.stop()


def verified(box, portfolio=True, source=None):
    """A stranger's answers, confirmed: the upload page's path."""
    fields = {"email": "applicant@example.net"}
    if portfolio:
        fields["portfolio"] = "true"
    assert visit(box, "POST", "/f/ada/apply", fields=fields, source=source)[0] == 200
    status, headers, _ = visit(box, "POST", path_of(links(box)[-1]), source=source)
    assert status == 303 and headers["location"].startswith("/f/ada/apply/u/")
    return headers["location"]


def upload(box, path, parts, source=None):
    body, headers = multipart(parts)
    return visit(box, "POST", path, body=body, headers=headers, source=source)


def test_a_pdf_and_a_png_arrive_with_the_row_in_the_queue(box):
    path = verified(box)
    for _ in range(2):  # the upload page reloads: a GET spends nothing
        status, _, page = visit(box, "GET", path)
        assert status == 200 and 'enctype="multipart/form-data"' in page
        assert 'type="file"' in page and 'name="cv"' in page and 'name="photo"' in page
    assert drain(box) == []
    status, _, page = upload(box, path, [("cv", "my cv.pdf", pdf(), "application/pdf"),
                                         ("photo", "me.png", png(), "image/png")])
    assert status == 200 and "Confirmed" in page
    [record] = drain(box)
    atts = {a["field"]: a for a in record["attachments"]}
    assert atts["cv"]["filename"] == "my cv.pdf" and atts["cv"]["content_type"] == "application/pdf"
    assert atts["photo"]["content_type"] == "image/png"
    assert atts["cv"]["sha256"] == "sha256:" + hashlib.sha256(pdf()).hexdigest()
    status, _, data = box.request("GET", f"/v1/queue/attachments/{atts['photo']['id']}",
                                  key="drain")
    assert status == 200 and data == png()
    for method in ("GET", "GET"):  # used: it says the files arrived, never an upload form
        status, _, page = visit(box, method, path)
        assert status == 200 and "Already received" in page and 'type="file"' not in page
    status, _, page = upload(box, path, [("cv", "my cv.pdf", pdf(), "application/pdf")])
    assert status == 200 and "Already received" in page and len(drain(box)) == 1


def test_a_jpeg_is_taken_for_a_field_that_accepts_jpeg(box):
    path = verified(box)
    status, _, _ = upload(box, path, [("cv", "cv.pdf", pdf(), None),
                                      ("photo", "me.jpg", jpeg(), "image/jpeg")])
    assert status == 200
    [record] = drain(box)
    assert {a["content_type"] for a in record["attachments"]} == {"application/pdf",
                                                                  "image/jpeg"}


def test_a_zip_named_pdf_is_refused_and_the_link_still_works(box):
    path = verified(box)
    status, _, page = upload(box, path, [("cv", "cv.pdf", zip_named_pdf(), "application/pdf")])
    assert status == 400 and "this file is not a kind this field takes" in page
    assert drain(box) == [] and box.sql("SELECT COUNT(*) FROM attachment_parts") == [(0,)]
    status, _, page = upload(box, path, [("photo", "me.pdf", pdf(), "image/png"),
                                         ("cv", "cv.pdf", pdf(), "application/pdf")])
    assert status == 400 and "this field takes: png, jpg" in page
    assert upload(box, path, [("cv", "cv.pdf", pdf(), "application/pdf")])[0] == 200
    assert len(drain(box)) == 1


def test_a_part_that_is_not_a_file_field_is_400(box):
    path = verified(box)
    for name in ("email", "evil"):
        status, _, body = upload(box, path, [(name, None, b"x", None)])
        assert status == 400 and body == "not a field of this page"
    body, headers = multipart([("cv", "cv.pdf", pdf(), None)])
    status, _, text = visit(box, "POST", path, body=body[:-30], headers=headers)
    assert status == 400 and text == "unreadable upload"
    assert drain(box) == []


def test_more_than_the_types_file_fields_hold_is_413(box):
    path = verified(box)
    status, _, _ = upload(box, path, [("cv", "cv.pdf", pdf() + b"%" * 8200, None)])
    assert status == 413 and drain(box) == []


def test_one_address_uploads_at_most_its_daily_bytes(box):
    path = verified(box, source="127.0.0.5")
    refused = [("cv", "cv.pdf", zip_named_pdf() + b"x" * 3000, None),
               ("photo", "p.png", png() + b"x" * 3000, None)]
    status, _, _ = upload(box, path, refused, source="127.0.0.5")
    assert status == 400  # refused files count too: the bandwidth was spent
    status, _, page = upload(box, path, refused, source="127.0.0.5")
    assert status == 429 and "Too much for today" in page
    big = [("cv", "cv.pdf", pdf() + b"%" * 3000, None)]
    assert upload(box, path, big, source="127.0.0.5")[0] == 429
    assert upload(box, path, big, source="127.0.0.6")[0] == 200


MAYBE = manifest("maybe", "Maybe a photo", """
[[fields]]
name = "portfolio"
label = "Do you have a portfolio?"
kind = "bool"

[[fields]]
name = "photo"
label = "A photo"
kind = "file"
accept = ["png"]
required = true
show_when = { field = "portfolio", op = "is_true" }
""")


def test_with_no_file_field_to_ask_for_the_click_queues_at_once(box):
    put_type(box, MAYBE)
    visit(box, "POST", "/f/ada/maybe", fields={"email": "a@example.net"})
    status, headers, page = visit(box, "POST", path_of(links(box)[-1]))
    assert status == 200 and "location" not in headers and "Confirmed" in page
    assert [(r["type"], r["attachments"]) for r in drain(box)] == [("maybe", [])]
    visit(box, "POST", "/f/ada/maybe", fields={"email": "b@example.net", "portfolio": "true"})
    status, headers, _ = visit(box, "POST", path_of(links(box)[-1]))
    assert status == 303 and headers["location"].startswith("/f/ada/maybe/u/")


def test_a_disk_nearly_full_answers_503_and_keeps_the_link(tmp_path):
    """The disk is the SQLite ledger's (its files are in it); a PostgreSQL ledger is the
    database server's to watch, and the box's data directory receives no upload."""
    b = Box(tmp_path, min_free_bytes=2**62).start()
    try:
        put_type(b, APPLY)
        path = verified(b)
        status, _, page = upload(b, path, [("cv", "cv.pdf", pdf(), None)])
        if b.pg:
            assert status == 200 and "Confirmed" in page
            return
        assert status == 503 and "Unavailable" in page
        assert visit(b, "GET", path)[0] == 200
    finally:
        b.stop()


def test_the_confirmation_link_of_an_upload_and_an_expired_upload_link_say_where_things_stand(box):
    path = verified(box)
    confirm = path_of(links(box)[-1])
    for method in ("GET", "POST"):  # confirmed already: the files are what is missing
        status, _, page = visit(box, method, confirm)
        assert status == 200 and "Already confirmed" in page and "still waits" in page
        assert "<button" not in page
    with ledger(box) as db:
        db.execute("UPDATE queue SET upload_expires = '2000-01-01T00:00:00Z'")
    status, _, page = visit(box, "GET", path)
    assert status == 404 and EXPIRED in page and 'href="/f/ada/apply"' in page
    box.mecha("sweep", check=0)  # the row is gone: both links say it expired
    for p in (path, confirm):
        status, _, page = visit(box, "GET", p)
        assert status == 404 and EXPIRED in page, (p, page)
    assert drain(box) == []
