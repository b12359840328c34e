"""base/toml against the community's conformance suite, toml-test, as Debian
ships it in golang-github-burntsushi-toml-dev (`make deps` installs it).

Every valid/ case must decode to exactly the typed JSON beside it, and every
invalid/ case must be refused with an error naming the file and a line. The
comparison is toml-test's own: floats compare as numbers (nan with nan),
date-times as the instants and wall times they name (so `.6` equals `.6000`
and `t`/` ` equal `T`); everything else compares as text.

The decoder is build/tests/toml_decode (tests/support/toml_decode.c), which
prints base/toml's tree in toml-test's typed form.
"""
import json
import math
import os
import pathlib
import re
import subprocess

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]
SUITE = pathlib.Path(os.environ.get(
    "TOML_TEST_DIR",
    "/usr/share/gocode/src/github.com/BurntSushi/toml/internal/toml-test/tests"))
DECODE = os.environ.get("TOML_DECODE", str(ROOT / "build" / "test" / "tests" / "toml_decode"))

# Cases this reader deliberately does not pass, each with its reason. Empty:
# every case of the suite passes. (valid/string/escape-esc.toml is TOML 1.1's
# `\e`, which the reader accepts on purpose.)
SKIP = {}


def cases(kind):
    return sorted(str(p.relative_to(SUITE)) for p in (SUITE / kind).rglob("*.toml"))


def decode(path):
    return subprocess.run([DECODE, str(path)], stdout=subprocess.PIPE,
                          stderr=subprocess.PIPE, timeout=30)


_FRACTION = re.compile(r"\.(\d+)")


def canonical_datetime(s):
    s = s.replace(" ", "T").replace("t", "T").replace("z", "Z")
    return _FRACTION.sub(lambda m: "." + m.group(1).rstrip("0") if m.group(1).rstrip("0")
                         else "", s)


def same(want, have, where="$"):
    """toml-test's CompareJSON; returns a description of the first difference."""
    if isinstance(want, list):
        if not isinstance(have, list) or len(want) != len(have):
            return f"{where}: wanted {want!r}, got {have!r}"
        for i, (w, h) in enumerate(zip(want, have)):
            d = same(w, h, f"{where}[{i}]")
            if d:
                return d
        return None
    if not isinstance(have, dict):
        return f"{where}: wanted a table or value, got {have!r}"
    if set(want) == {"type", "value"} and not isinstance(want["value"], (dict,)):
        if set(have) != {"type", "value"} or have["type"] != want["type"]:
            return f"{where}: wanted {want!r}, got {have!r}"
        if want["type"] == "array":
            return same(want["value"], have["value"], where)
        w, h = want["value"], have["value"]
        if want["type"] == "float":
            if "nan" in w or "nan" in h:
                ok = w.lstrip("+-") == h.lstrip("+-") == "nan"
            else:
                ok = float(w) == float(h)
        elif want["type"] in ("datetime", "datetime-local", "date-local", "time-local"):
            ok = canonical_datetime(w) == canonical_datetime(h)
        else:
            ok = w == h
        return None if ok else f"{where}: wanted {w!r}, got {h!r}"
    if set(want) != set(have):
        return f"{where}: keys {sorted(want)} wanted, got {sorted(have)}"
    for k in want:
        d = same(want[k], have[k], f"{where}.{k}")
        if d:
            return d
    return None


def test_the_suite_is_installed_and_whole():
    assert SUITE.is_dir(), f"{SUITE} is missing: run `make deps`"
    assert len(cases("valid")) >= 100 and len(cases("invalid")) >= 200


@pytest.mark.parametrize("case", cases("valid"))
def test_a_valid_document_decodes_to_the_expected_typed_json(case):
    if case in SKIP:
        pytest.skip(SKIP[case])
    path = SUITE / case
    p = decode(path)
    assert p.returncode == 0, f"{case} refused: {p.stderr.decode(errors='replace')}"
    want = json.loads(path.with_suffix(".json").read_text(encoding="utf-8"))
    diff = same(want, json.loads(p.stdout))
    assert diff is None, f"{case}: {diff}"


@pytest.mark.parametrize("case", cases("invalid"))
def test_an_invalid_document_is_refused_with_its_line(case):
    if case in SKIP:
        pytest.skip(SKIP[case])
    path = SUITE / case
    p = decode(path)
    err = p.stderr.decode("utf-8", "replace")
    assert p.returncode == 1, f"{case} accepted:\n{p.stdout.decode(errors='replace')}"
    assert re.match(re.escape(str(path)) + r":\d+: \S", err), err
    assert "\n" not in err.rstrip("\n"), "one line, one reason"
