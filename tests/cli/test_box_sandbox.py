"""The box confines itself (src/box/jail.h): `serve` once it has read its configuration,
opened its ledger, its TLS pair and its log, before its first thread; owner add, key new
and sweep once their ledger is open.

Observed from inside the confined process through the test hooks of src/base/sandbox.h,
as test_sandbox.py observes the cli's verbs: MECHA_TEST_OPEN, _CREATE, _CONNECT and
_EXEC each make the process try, right after confining itself, and say on stderr what
the kernel answered. Tests that need Landlock skip, saying why, on a kernel without it.
"""
import socket
import types

import pytest

import test_sandbox as sb
from box_fixture import Box


def report(text, what, arg):
    """'ok' or the errno name the confined box reported for one hook."""
    return sb.probe(types.SimpleNamespace(err=text), what, arg)


@pytest.fixture
def outside(tmp_path):
    f = tmp_path / "outside.txt"
    f.write_text("not the box's")
    return f


@pytest.fixture
def listeners():
    """Two loopback ports something listens on."""
    socks = []
    for _ in range(2):
        s = socket.socket()
        s.bind(("127.0.0.1", 0))
        s.listen(8)
        socks.append(s)
    yield [s.getsockname()[1] for s in socks]
    for s in socks:
        s.close()


def serve(b, *args, **env):
    b.start(*args, env=env)
    try:
        assert b.json("GET", "/v1/health")[0] == 200, "the confined box still serves"
    finally:
        b.stop()
    return b.stderr.read_text()


@sb.needs_landlock
def test_the_served_box_cannot_open_a_file_outside_its_data_directory(tmp_path, outside):
    b = Box(tmp_path)
    inside = b.data / "probe"
    err = serve(b, MECHA_TEST_OPEN=str(outside), MECHA_TEST_CREATE=str(inside))
    assert report(err, "open", outside) == "EACCES"
    assert report(err, "create", inside) == "ok" and inside.exists()
    err = serve(b, MECHA_TEST_OPEN=str(b.config), MECHA_TEST_CREATE=str(tmp_path / "x"))
    assert report(err, "open", b.config) == "EACCES", "box.toml was read before confining"
    assert report(err, "create", tmp_path / "x") == "EACCES"
    assert not (tmp_path / "x").exists()


@sb.needs_net_rules
def test_the_served_box_connects_only_to_its_smtp_relay(tmp_path, listeners):
    relay, other = listeners
    b = Box(tmp_path, extra=f'[mail]\nsmtp_url = "smtp://127.0.0.1:{relay}"\n'
                            'from = "box@example.org"')
    assert report(serve(b, MECHA_TEST_CONNECT=str(other)), "connect", other) == "EACCES"
    assert report(serve(b, MECHA_TEST_CONNECT=str(relay)), "connect", relay) == "ok"


def test_the_served_box_runs_no_program(tmp_path):
    """seccomp, on any kernel: a server never needs exec."""
    err = serve(Box(tmp_path), MECHA_TEST_EXEC="/bin/true")
    assert report(err, "exec", "/bin/true") == "EPERM"


@pytest.mark.parametrize("verb", [("owner", "add", "bob"),
                                  ("key", "new", "--owner", "ada", "--scope", "drain"),
                                  ("sweep",)], ids=lambda v: v[0])
def test_the_other_verbs_write_only_the_data_directory_and_open_no_connection(
        tmp_path, outside, listeners, verb):
    b = Box(tmp_path)
    inside = b.data / "probe"
    p = b.mecha(*verb, check=0, env={"MECHA_TEST_OPEN": str(outside),
                                     "MECHA_TEST_CREATE": str(inside),
                                     "MECHA_TEST_CONNECT": str(listeners[0])})
    assert report(p.err, "connect", listeners[0]) == "EACCES"
    assert report(p.err, "create", inside) == "ok"
    if sb.ABI:
        assert report(p.err, "open", outside) == "EACCES"


def test_a_kernel_without_landlock_is_said_once_under_verbose_and_the_box_serves(tmp_path):
    b = Box(tmp_path)
    said = "mecha: sandbox: this kernel has no Landlock (ENOSYS); the files are not confined"
    assert serve(b, "--verbose", MECHA_TEST_LANDLOCK_ABI="0").count(said) == 1
    assert "sandbox" not in serve(b, MECHA_TEST_LANDLOCK_ABI="0")
    p = b.mecha("sweep", "--verbose", check=0, env={"MECHA_TEST_LANDLOCK_ABI": "0"})
    assert p.err.count(said) == 1
    p = b.mecha("sweep", check=0, env={"MECHA_TEST_LANDLOCK_ABI": "0", "MECHA_VERBOSE": "1"})
    assert p.err.count(said) == 1


@sb.needs_landlock
def test_verbose_two_describes_the_box_policy(tmp_path):
    b = Box(tmp_path)
    err = serve(b, MECHA_VERBOSE="2")
    line = next(x for x in err.splitlines() if x.startswith("mecha: sandbox: Landlock ABI"))
    assert f"writes {b.data}" in line and "a server: no exec" in line
    if sb.ABI >= 4:
        assert f"network closed but for some ports (bind {b.port})" in line
