"""Shared fixtures for the black-box CLI tests.

Every test gets its own MECHA_HOME under pytest's tmp_path and runs the real
binary (MECHA_BIN, set by `make cli`; build/mecha otherwise).
"""
import json
import os
import pathlib
import subprocess

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]
BIN = os.environ.get("MECHA_BIN", str(ROOT / "build" / "mecha"))


class Mecha:
    def __init__(self, home: pathlib.Path, tmp: pathlib.Path):
        self.home = home
        self.tmp = tmp
        self.env = {
            k: v for k, v in os.environ.items()
            if not k.startswith("MECHA_") or k == "MECHA_BIN"
        }
        self.env["MECHA_HOME"] = str(home)
        self.env["HOME"] = str(tmp)
        self.env.pop("NO_COLOR", None)

    def run(self, *args, input=None, env=None, timeout=60, check=None):
        e = dict(self.env)
        if env:
            e.update(env)
        p = subprocess.run(
            [BIN, *[str(a) for a in args]],
            input=input.encode() if isinstance(input, str) else input,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            env=e,
            timeout=timeout,
        )
        p.out = p.stdout.decode("utf-8", "replace")
        p.err = p.stderr.decode("utf-8", "replace")
        if check is not None:
            assert p.returncode == check, (
                f"mecha {' '.join(map(str, args))} exited {p.returncode}, "
                f"wanted {check}\nstdout:\n{p.out}\nstderr:\n{p.err}"
            )
        return p

    def json(self, *args, **kw):
        p = self.run(*args, check=0, **kw)
        return json.loads(p.out)

    # -- request records ----------------------------------------------------
    @property
    def requests(self) -> pathlib.Path:
        return self.home / "requests"

    def write_record(self, seq=1, type_id="meeting", raw=None, **fields):
        """Writes a request record as the drain would; returns its path."""
        self.requests.mkdir(parents=True, exist_ok=True, mode=0o700)
        rec = {
            "seq": seq,
            "type_id": type_id,
            "state": "drained",
            "created_at": "2026-08-06T00:00:00Z",
            "drained_at": "2026-08-06T01:00:00Z",
            "valid": True,
            "values": {"purpose": "collaboration", "duration_minutes": 45},
            "free_text": [],
        }
        rec.update(fields)
        path = self.requests / f"{seq:010d}-{type_id}.json"
        path.write_text(raw if raw is not None else json.dumps(rec, indent=2))
        os.chmod(path, 0o600)
        return path

    def read_record(self, seq, type_id="meeting"):
        return json.loads((self.requests / f"{seq:010d}-{type_id}.json").read_text())


@pytest.fixture
def mecha(tmp_path):
    home = tmp_path / "home"
    return Mecha(home, tmp_path)
