"""A real SMTP server on loopback that keeps what it received.

The tests (and the demo) point mecha's [mail] smtp_url at it. Each accepted
message is stored as NNNN.eml (the bytes as received, dot-unstuffed) beside
NNNN.json (the envelope: mail_from, rcpt_tos), so a test asserts what really
arrived at the other end of a real SMTP conversation.

The server can be told to misbehave, per message, through `mode`:
  "accept"  store it and answer 250 (the default)
  "refuse"  answer 554 to DATA and store nothing
  "close"   drop the connection at DATA and store nothing
  "hold"    store it, then keep the DATA reply back until release(), so a
            test can kill the sender after the message arrived but before it
            heard so

Run as a script (the demo does) it prints its port and serves until killed:
    python3 tests/support/smtp_sink.py DIR
"""
import asyncio
import email
import email.policy
import json
import pathlib
import sys
import threading
import time
import warnings

from aiosmtpd.controller import Controller

from ports import free_port


class _Handler:
    def __init__(self, sink):
        self.sink = sink

    async def handle_DATA(self, server, session, envelope):
        mode = self.sink.mode
        if mode == "refuse":
            return "554 5.7.1 refused by the test sink"
        if mode == "close":
            server.transport.close()
            return "421 4.3.0 closing"
        # Stored before the reply: in "hold" the message has arrived even if the
        # sender dies waiting for the 250 (the case exactly-once must survive).
        self.sink._store(envelope)
        if mode == "hold":
            self.sink.holding.set()
            while not self.sink._released.is_set():
                await asyncio.sleep(0.02)
        return "250 2.0.0 stored"


class SmtpSink:
    def __init__(self, directory, login=None):
        """login=(user, password): require AUTH (over plain loopback) with these."""
        self.login = login
        self.logins = []
        self.dir = pathlib.Path(directory)
        self.dir.mkdir(parents=True, exist_ok=True)
        self.mode = "accept"
        self.holding = threading.Event()
        self._released = threading.Event()
        self._lock = threading.Lock()
        self._count = 0
        self.controller = None
        self.port = None

    # -- lifecycle ---------------------------------------------------------
    def start(self):
        last = None
        for _ in range(20):  # another process may take the free port first
            self.port = free_port()
            kw = {}
            if self.login:
                # Login without TLS is what a loopback test server does on purpose.
                warnings.filterwarnings("ignore", message="Requiring AUTH while not")
                kw = dict(authenticator=self._authenticate, auth_required=True,
                          auth_require_tls=False)
            c = Controller(_Handler(self), hostname="127.0.0.1", port=self.port,
                           decode_data=False, ready_timeout=10, **kw)
            try:
                c.start()
            except Exception as exc:  # noqa: BLE001 - retried on another port
                last = exc
                continue
            self.controller = c
            return self
        raise RuntimeError(f"could not start the SMTP sink: {last}")

    def stop(self):
        self._released.set()
        if self.controller:
            self.controller.stop()
            self.controller = None

    def _authenticate(self, server, session, envelope, mechanism, auth_data):
        from aiosmtpd.smtp import AuthResult, LoginPassword

        ok = isinstance(auth_data, LoginPassword) and (
            auth_data.login.decode(), auth_data.password.decode()) == self.login
        self.logins.append((mechanism, auth_data.login.decode() if ok else None))
        return AuthResult(success=ok, handled=False)  # the server answers 235 or 535

    @property
    def url(self):
        return f"smtp://127.0.0.1:{self.port}"

    def release(self):
        self._released.set()

    # -- what arrived ------------------------------------------------------
    def _store(self, envelope):
        with self._lock:
            self._count += 1
            n = self._count
        raw = envelope.original_content or envelope.content
        if isinstance(raw, str):
            raw = raw.encode("utf-8", "surrogateescape")
        # The envelope first, the message last and whole (renamed into place): a
        # reader that counts the messages then finds each one's envelope too.
        meta = {"mail_from": envelope.mail_from, "rcpt_tos": list(envelope.rcpt_tos)}
        tmp = self.dir / f"{n:04d}.json.tmp"
        tmp.write_text(json.dumps(meta))
        tmp.rename(self.dir / f"{n:04d}.json")
        tmp = self.dir / f"{n:04d}.eml.tmp"
        tmp.write_bytes(raw)
        tmp.rename(self.dir / f"{n:04d}.eml")

    def raw(self):
        """The bytes of every stored message, in arrival order."""
        return [p.read_bytes() for p in sorted(self.dir.glob("*.eml"))]

    def envelopes(self):
        return [json.loads(p.read_text()) for p in sorted(self.dir.glob("*.json"))]

    def messages(self):
        """Every stored message, parsed (email.message.EmailMessage).

        Line ends are made local first, as a mail reader does, so a decoded
        body compares equal to the text that was drafted."""
        return [email.message_from_bytes(r.replace(b"\r\n", b"\n"), policy=email.policy.default)
                for r in self.raw()]

    def wait_for(self, count, timeout=10):
        deadline = time.time() + timeout
        while time.time() < deadline:
            if len(list(self.dir.glob("*.eml"))) >= count:
                return True
            time.sleep(0.02)
        return False


def main(argv):
    if len(argv) != 2:
        print("usage: smtp_sink.py DIR", file=sys.stderr)
        return 2
    sink = SmtpSink(argv[1]).start()
    print(sink.port, flush=True)
    try:
        while True:
            time.sleep(3600)
    except KeyboardInterrupt:
        pass
    finally:
        sink.stop()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
