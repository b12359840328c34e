"""lying_box — a loopback HTTP server that plays a compromised box to `mecha drain`:
it answers GET /v1/queue with whatever rows a test scripts (prose in every field, wrong
types, forged machinery keys, duplicates, enormous rows), serves the attachments those
rows name, and takes any acknowledgement. Nothing it says is checked here: the point is
what the home lets through.

    box = LyingBox(rows, files={"a1": b"%PDF-1.4 ..."}).start()
    ... gate = box.url ...
    box.stop()
"""
import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


class LyingBox:
    def __init__(self, rows, files=None):
        self.rows = rows          # a list of row objects (any JSON), served once
        self.files = files or {}  # attachment id -> bytes
        self.acked = []
        self.served = 0
        box = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args):
                pass

            def answer(self, status, body, ctype="application/json"):
                self.send_response(status)
                self.send_header("Content-Type", ctype)
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def do_GET(self):
                if self.path.startswith("/v1/queue/attachments/"):
                    data = box.files.get(self.path.rsplit("/", 1)[1])
                    if data is None:
                        return self.answer(404, b'{"error":"not_found"}')
                    return self.answer(200, data, "application/octet-stream")
                if self.path.startswith("/v1/queue"):
                    rows = box.rows if box.served == 0 else []
                    box.served += 1
                    body = json.dumps({"records": rows, "next": len(box.rows) + 1}).encode()
                    return self.answer(200, body)
                self.answer(404, b'{"error":"not_found"}')

            def do_POST(self):
                n = int(self.headers.get("Content-Length") or 0)
                body = self.rfile.read(n)
                if self.path == "/v1/queue/ack":
                    box.acked.append(json.loads(body or b"{}"))
                    return self.answer(200, b'{"acknowledged":true}')
                self.answer(404, b'{"error":"not_found"}')

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.port = self.server.server_address[1]
        self.url = f"http://127.0.0.1:{self.port}"
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    def start(self):
        self.thread.start()
        return self

    def stop(self):
        self.server.shutdown()
        self.server.server_close()
        self.thread.join()
